//! [`CompileFailure`]: everything about a failed compile, rendered so a user can act on it.
//!
//! A failed compile is an `ErrorKind::Compile` error carrying a [`CompileFailure`] (name,
//! options, log, source, and the spans of generated lines that came from user strings).
//! Its message shows each error with the numbered source lines around it and a `>` marker
//! (and the user's text a generated line came from); [`CompileFailure::dump`] is CuPy's
//! full numbered dump (`CUPRUM_DUMP_SOURCE_ON_ERROR=1` prints it). What a user is shown of
//! the log (`Error::compile_log`, [`CompileFailure::user_log`], and the message when no
//! error could be parsed) drops warnings about cuprum's own code: lines of a generated
//! kernel outside the user's spans, and the bundled headers. Generated code itself compiles
//! without warnings (its loop variables are marked unused); the NVRTC tests check every
//! sample source for that.

use crate::error::{Error, ErrorKind};
use std::fmt::Write;
use std::sync::Arc;

/// A span of generated source lines that came from a user's string (an operation, a
/// preamble ...), so compile errors can point back at what the user wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceSpan {
    /// First line (1-based) of the span in the generated source.
    pub first_line: usize,
    /// Last line (inclusive).
    pub last_line: usize,
    /// What the user calls this part (`"operation"`, `"preamble"` ...).
    pub label: String,
    /// The user's own text.
    pub text: String,
}

/// The details of a compile error: the program, the options, NVRTC's log and the source.
///
/// ```
/// use cuprum::compile::{compile_for_arch, CompileOptions};
/// # cuprum::compile::set_cache_dir(None); // doc tests leave the user's cache alone
/// if cuprum::compile::nvrtc().is_ok() {
///     let err = compile_for_arch("__global__ void k() { nope; }", &CompileOptions::default(), 90)
///         .unwrap_err();
///     let f = err.compile_failure().unwrap();
///     assert_eq!(f.errors()[0].line, 1);
///     assert!(f.dump().contains("00001 __global__ void k() { nope; }"));
/// }
/// ```
#[derive(Debug, Clone)]
pub struct CompileFailure {
    /// Program name NVRTC was given (the kernel file name in messages).
    pub name: String,
    /// The full NVRTC option list.
    pub options: Vec<String>,
    /// NVRTC's log, as it printed it.
    pub log: String,
    /// The source that failed.
    pub source: String,
    /// Parts of the generated source that came from user strings.
    pub spans: Vec<SourceSpan>,
    /// Which compiler failed (`"NVRTC"`, or the host device's C++ compiler).
    pub compiler: String,
}

/// One diagnostic parsed from the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// File named by the diagnostic (the program name or a header).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// `error`, `warning` or `catastrophic error`.
    pub severity: String,
    /// The message.
    pub message: String,
}

impl CompileFailure {
    /// Every `file(line): severity: message` line of the log.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.log.lines().filter_map(parse_diagnostic).collect()
    }

    /// The errors only (no warnings).
    pub fn errors(&self) -> Vec<Diagnostic> {
        self.diagnostics()
            .into_iter()
            .filter(|d| d.severity.contains("error"))
            .collect()
    }

    /// CuPy's dump format: the log, the name, the options and the whole numbered source.
    pub fn dump(&self) -> String {
        let mut s = format!(
            "{} compilation error: {}\n-----\nName: {}\nOptions: {}\nCUDA source:\n",
            if self.compiler.is_empty() {
                "NVRTC"
            } else {
                &self.compiler
            },
            self.log.trim_end(),
            self.name,
            self.options.join(" ")
        );
        for (i, line) in self.source.lines().enumerate() {
            let _ = writeln!(s, "{:05} {line}", i + 1);
        }
        s.push_str("-----\n");
        s
    }

    /// Whether a diagnostic is a warning or remark about cuprum's own code: a line of a
    /// generated kernel outside the spans of the user's text, or a bundled `cuprum/` header.
    fn about_cuprums_code(&self, d: &Diagnostic) -> bool {
        if d.severity.contains("error") {
            return false;
        }
        d.file.starts_with("cuprum/")
            || (d.file == self.name
                && !self.spans.is_empty()
                && !self
                    .spans
                    .iter()
                    .any(|sp| sp.first_line <= d.line && d.line <= sp.last_line))
    }

    /// NVRTC's log without its warnings and remarks about cuprum's own code (lines of a
    /// generated kernel that did not come from the user's strings, cuprum's bundled
    /// headers): what a user is shown. Errors, and warnings about the user's code, stay.
    ///
    /// ```
    /// use cuprum::compile::{CompileFailure, SourceSpan};
    /// let f = CompileFailure {
    ///     name: "k.cu".into(),
    ///     options: vec![],
    ///     log: "k.cu(1): warning #177-D: variable \"_t\" was declared but never referenced\n  \
    ///           int _t;\n\nk.cu(2): warning #177-D: variable \"mine\" was declared but never \
    ///           referenced\n  int mine;\n\n".into(),
    ///     source: "int _t;\nint mine;\n".into(),
    ///     spans: vec![SourceSpan { first_line: 2, last_line: 2, label: "operation".into(), text: "int mine;".into() }],
    ///     compiler: "NVRTC".into(),
    /// };
    /// let log = f.user_log();
    /// assert!(log.contains("\"mine\"") && !log.contains("_t"), "{log}");
    /// ```
    pub fn user_log(&self) -> String {
        let mut out = String::new();
        let mut keep = true;
        let mut kept_warnings = false;
        for line in self.log.lines() {
            if let Some(d) = parse_diagnostic(line) {
                keep = !self.about_cuprums_code(&d);
                kept_warnings |= keep && !d.severity.contains("error");
            } else if line.trim().is_empty() {
                if !keep {
                    keep = true;
                    continue;
                }
            } else if line.starts_with("Remark: The warnings can be suppressed") {
                keep = kept_warnings;
            } else if !line.starts_with(char::is_whitespace) {
                // not an indented excerpt of the diagnostic above: a line of its own
                keep = true;
            }
            if keep {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }

    /// The message shown by the error: each error with its source lines and a marker.
    pub(crate) fn render(&self) -> String {
        let mut s = format!(
            "{} could not compile '{}' (options: {})",
            if self.compiler.is_empty() {
                "NVRTC"
            } else {
                &self.compiler
            },
            self.name,
            self.options.join(" ")
        );
        let lines: Vec<&str> = self.source.lines().collect();
        let errors = self.errors();
        if errors.is_empty() {
            let _ = write!(s, "\n{}", self.user_log().trim_end());
            return s;
        }
        for d in &errors {
            let _ = write!(s, "\n{}:{}: {}: {}", d.file, d.line, d.severity, d.message);
            if d.file != self.name || d.line == 0 || d.line > lines.len() {
                continue;
            }
            let lo = d.line.saturating_sub(2).max(1);
            let hi = (d.line + 1).min(lines.len());
            for n in lo..=hi {
                let mark = if n == d.line { ">" } else { " " };
                let _ = write!(s, "\n{mark} {n:>5} | {}", lines[n - 1]);
            }
            if let Some(span) = self
                .spans
                .iter()
                .find(|sp| sp.first_line <= d.line && d.line <= sp.last_line)
            {
                let _ = write!(
                    s,
                    "\n  (this line comes from your {}: `{}`)",
                    span.label,
                    span.text.trim()
                );
            }
        }
        for name in errors
            .iter()
            .filter_map(|d| super::headers::unopened_header(&d.message))
        {
            let _ = write!(s, "\n{}", super::headers::missing_header_hint(name));
        }
        s
    }
}

fn parse_diagnostic(line: &str) -> Option<Diagnostic> {
    parse_nvrtc(line).or_else(|| parse_gcc(line))
}

/// `file:line:col: severity: message` (GCC and Clang).
fn parse_gcc(line: &str) -> Option<Diagnostic> {
    let mut parts = line.splitn(4, ':');
    let file = parts.next()?;
    let num: usize = parts.next()?.trim().parse().ok()?;
    let mut rest = parts.next()?;
    let mut tail = parts.next()?;
    if rest.trim().parse::<usize>().is_ok() {
        // a column: the severity follows
        let (sev, msg) = tail.split_once(':')?;
        rest = sev;
        tail = msg;
    }
    let severity = rest.trim();
    if !(severity.ends_with("error") || severity == "warning") || file.is_empty() {
        return None;
    }
    Some(Diagnostic {
        file: file.to_string(),
        line: num,
        severity: severity.to_string(),
        message: tail.trim().to_string(),
    })
}

fn parse_nvrtc(line: &str) -> Option<Diagnostic> {
    let open = line.find('(')?;
    let close = open + line[open..].find("): ")?;
    let num: usize = line[open + 1..close].parse().ok()?;
    let rest = &line[close + 3..];
    let colon = rest.find(": ")?;
    // `warning #177-D`, `error #20`: the number is NVRTC's diagnostic code
    let severity = rest[..colon].split(" #").next().unwrap_or_default();
    if !(severity.ends_with("error") || severity == "warning" || severity == "remark") {
        return None;
    }
    Some(Diagnostic {
        file: line[..open].to_string(),
        line: num,
        severity: severity.to_string(),
        message: rest[colon + 2..].to_string(),
    })
}

/// Compile errors: the error layer is the ground floor and knows no compiler, so the
/// compile layer attaches a [`CompileFailure`] to an [`Error`] and reads it back here.
impl Error {
    /// A compile error from its details; the message is the rendered failure.
    pub(crate) fn compile(failure: CompileFailure) -> Self {
        let mut e = Error::new(ErrorKind::Compile, failure.render());
        e.user_log = Some(failure.user_log().into());
        e.failure = Some(Arc::new(failure));
        e
    }

    /// Attaches the spans of generated source that came from user strings to a compile
    /// error (so its message points at the user's text); other errors pass through.
    pub(crate) fn with_spans(self, spans: &[SourceSpan]) -> Self {
        match self.compile_failure() {
            Some(f) if !spans.is_empty() => {
                let mut f = f.clone();
                f.spans = spans.to_vec();
                Error::compile(f)
            }
            _ => self,
        }
    }

    /// Everything about a failed compile: program name, options, log, source, and
    /// [`dump()`](CompileFailure::dump) for the numbered source.
    ///
    /// ```
    /// let err = cuprum::Array::from_slice(&[1u8], &[2]).unwrap_err();
    /// assert!(err.compile_failure().is_none());
    /// ```
    pub fn compile_failure(&self) -> Option<&CompileFailure> {
        self.failure.as_deref()?.downcast_ref::<CompileFailure>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(log: &str, source: &str) -> CompileFailure {
        CompileFailure {
            name: "k.cu".into(),
            options: vec!["-arch=sm_90".into()],
            log: log.into(),
            source: source.into(),
            spans: vec![SourceSpan {
                first_line: 3,
                last_line: 3,
                label: "operation".into(),
                text: "z = x + q".into(),
            }],
            compiler: String::new(),
        }
    }

    #[test]
    fn gcc_diagnostics_are_parsed() {
        let f = CompileFailure {
            name: "k.cu".into(),
            options: vec![],
            log: "k.cu: In function 'void k(float*)':\nk.cu:3:9: error: 'q' was not declared in this scope\n    3 |   z = x + q;\n      |         ^\n".into(),
            source: "// generated\nvoid k() {\n  z = x + q;\n}\n".into(),
            spans: vec![],
            compiler: "the host compiler (g++ 12)".into(),
        };
        let d = f.errors();
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].line, d[0].severity.as_str()), (3, "error"));
        let r = f.render();
        assert!(
            r.starts_with("the host compiler (g++ 12) could not compile 'k.cu'"),
            "{r}"
        );
        assert!(r.contains(">     3 |   z = x + q;"), "{r}");
    }

    #[test]
    fn parses_and_renders_errors_with_context() {
        let f = failure(
            "k.cu(3): error: identifier \"q\" is undefined\n    z = x + q;\n            ^\n\n1 error detected in the compilation of \"k.cu\".\n",
            "// generated\nvoid k() {\n  z = x + q;\n}\n",
        );
        let d = f.errors();
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].line, d[0].severity.as_str()), (3, "error"));
        let r = f.render();
        assert!(
            r.contains("k.cu:3: error: identifier \"q\" is undefined"),
            "{r}"
        );
        assert!(r.contains(">     3 |   z = x + q;"), "{r}");
        assert!(r.contains("      2 | void k() {"), "{r}");
        assert!(r.contains("your operation: `z = x + q`"), "{r}");
        assert!(f.dump().contains("00003   z = x + q;"));
        assert!(f.dump().starts_with("NVRTC compilation error: k.cu(3)"));
    }

    #[test]
    fn warnings_about_generated_code_and_bundled_headers_are_dropped() {
        let log = "k.cu(1): warning #177-D: variable \"i\" was declared but never referenced\n    \
                   const long long i = 0;\n                    ^\n\n\
                   k.cu(3): warning #550-D: variable \"t\" was set but never used\n    t = x;\n    ^\n\n\
                   cuprum/half.cuh(9): warning #1-D: in a bundled header\n\n\
                   k.cu(2): error: identifier \"q\" is undefined\n    z = x + q;\n\n\
                   Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n\
                   1 error detected in the compilation of \"k.cu\".\n";
        let mut f = failure(log, "const long long i = 0;\nz = x + q;\nt = x;\n");
        f.spans[0].first_line = 2;
        f.spans[0].last_line = 3;
        let u = f.user_log();
        assert!(!u.contains("\"i\""), "{u}");
        assert!(!u.contains("const long long i"), "{u}");
        assert!(!u.contains("bundled header"), "{u}");
        assert!(u.contains("k.cu(3): warning #550-D: variable \"t\""), "{u}");
        assert!(u.contains("    t = x;"), "{u}");
        assert!(u.contains("k.cu(2): error: identifier \"q\""), "{u}");
        assert!(u.contains("Remark: The warnings"), "{u}");
        assert!(u.contains("1 error detected"), "{u}");
        // only cuprum's warnings: the remark about suppressing them goes too
        let only = "k.cu(1): warning #177-D: variable \"i\" was declared but never referenced\n\n\
                    Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n";
        let mut f = failure(only, "const long long i = 0;\nz = x;\n");
        f.spans[0].first_line = 2;
        f.spans[0].last_line = 2;
        assert_eq!(f.user_log().trim(), "");
        // a raw kernel (no spans: every line is the user's) keeps its warnings
        let mut f = failure(only, "int i;\n");
        f.spans.clear();
        assert!(f.user_log().contains("variable \"i\""));
        // the message of a failure without a parsed error shows the user's log only
        let mut f = failure(
            "k.cu(1): warning #177-D: variable \"i\" was declared but never referenced\nnvlink error: something\n",
            "int i;\nz = x;\n",
        );
        f.spans[0].first_line = 2;
        f.spans[0].last_line = 2;
        let r = f.render();
        assert!(!r.contains("variable \"i\""), "{r}");
        assert!(r.contains("nvlink error: something"), "{r}");
    }

    #[test]
    fn catastrophic_errors_in_headers() {
        let f = failure(
            "k.cu(1): catastrophic error: cannot open source file \"x.h\"\n",
            "#include \"x.h\"\n",
        );
        assert_eq!(f.errors()[0].severity, "catastrophic error");
        assert!(f.render().contains(">     1 | #include \"x.h\""));
    }
}
