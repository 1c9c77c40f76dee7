//! The CUDA C++ that generated kernels are made of. Pure string building: no GPU, no
//! NVRTC; the callers compile what it returns.

pub(crate) mod elementwise;
pub(crate) mod layout;
pub(crate) mod reduction;

use crate::array::DType;
use crate::compile::SourceSpan;
use crate::generated::{ArgSchema, ArgSlot, IndexWidth};
use crate::kernel::params::{Param, ParamType};
use elementwise::Slot;

/// The C type a parameter is declared with: its placeholder letter, or its dtype's C name.
pub(crate) fn ctype(p: &Param, d: DType) -> String {
    match p.ty {
        ParamType::Placeholder(c) => c.to_string(),
        ParamType::Concrete(_) => d.c_type().to_owned(),
    }
}

/// An entry point's parameter list under construction: each parameter's C++ declaration
/// and its [`ArgSlot`] are written together, so the source and the argument schema cannot
/// disagree.
#[derive(Debug, Default)]
pub(crate) struct EntryParams {
    decls: Vec<String>,
    schema: ArgSchema,
}

impl EntryParams {
    /// The user's parameters: `T* _raw_x` for a broadcast array (`const` for inputs) is a
    /// pointer, `CArray<T, ND> x` for a raw one a view, `const T x` for a scalar a value of
    /// its dtype.
    pub fn user(params: &[Param], dtypes: &[DType], slots: &[Slot]) -> EntryParams {
        let mut e = EntryParams::default();
        for (k, p) in params.iter().enumerate() {
            let ty = ctype(p, dtypes[k]);
            match slots[k] {
                Slot::Array { .. } => {
                    let c = if p.is_const { "const " } else { "" };
                    e.push(format!("{c}{ty}* _raw_{}", p.name), ArgSlot::Pointer);
                }
                Slot::Raw { nd } => e.push(
                    format!("CArray<{ty}, {nd}> {}", p.name),
                    ArgSlot::View { nd: nd as u8 },
                ),
                Slot::Scalar => {
                    e.push(format!("const {ty} {}", p.name), ArgSlot::Scalar(dtypes[k]))
                }
            }
        }
        e
    }

    /// Appends one parameter.
    pub fn push(&mut self, decl: impl Into<String>, slot: ArgSlot) {
        self.decls.push(decl.into());
        self.schema.push(slot);
    }

    /// The declarations, comma-separated.
    pub fn list(&self) -> String {
        self.decls.join(", ")
    }

    /// The argument schema.
    pub fn into_schema(self) -> ArgSchema {
        self.schema
    }
}

/// A struct of index-width integers passed by value (shape and stride tables): its C++
/// definition (`struct NAME { TYPE NAMES[DIMS]; ... };`) and its slot. Each field is (C++
/// type, one or more comma-separated names, array dimensions).
pub(crate) fn int_struct(
    name: &str,
    fields: &[(&str, &str, &[usize])],
    wide: bool,
) -> (String, ArgSlot) {
    let mut def = format!("struct {name} {{ ");
    let mut count = 0usize;
    for (ty, names, dims) in fields {
        def.push_str(ty);
        def.push(' ');
        def.push_str(names);
        for d in dims.iter() {
            def.push_str(&format!("[{d}]"));
        }
        def.push_str("; ");
        count += names.split(',').count() * dims.iter().product::<usize>();
    }
    def.push_str("};");
    let slot = ArgSlot::Words {
        count: count as u32,
        width: IndexWidth::of(wide),
    };
    (def, slot)
}

/// A source under construction that remembers which lines came from user strings.
#[derive(Debug, Default)]
pub(crate) struct SourceWriter {
    pub src: String,
    pub spans: Vec<SourceSpan>,
}

impl SourceWriter {
    /// The start every generated kernel shares: cuprum's headers (with CUDA's `CUDART_*`
    /// math constants, as CuPy's generated kernels have them), the index and offset types
    /// of the index width, the placeholder typedefs, then the user's preamble.
    pub fn prologue(wide: bool, typedefs: &str, preamble: &str) -> SourceWriter {
        let (idx, off) = if wide {
            ("unsigned long long", "long long")
        } else {
            ("unsigned int", "int")
        };
        let mut w = SourceWriter {
            src: format!(
                "#include <cuprum/all.cuh>\n#include <cuprum/math_constants.cuh>\ntypedef {idx} cuprum_idx_t;\ntypedef {off} cuprum_off_t;\n{typedefs}"
            ),
            spans: Vec::new(),
        };
        w.user("preamble", preamble);
        w
    }

    /// Appends generated text.
    pub fn push(&mut self, s: &str) {
        self.src.push_str(s);
    }

    /// Appends a user's text on lines of its own and records where it went.
    pub fn user(&mut self, label: &str, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        if !self.src.is_empty() && !self.src.ends_with('\n') {
            self.src.push('\n');
        }
        let first = self.src.matches('\n').count() + 1;
        self.src.push_str(text);
        if !text.ends_with('\n') {
            self.src.push('\n');
        }
        let last = self.src.matches('\n').count();
        self.spans.push(SourceSpan {
            first_line: first,
            last_line: last,
            label: label.to_owned(),
            text: text.to_owned(),
        });
    }
}

impl SourceWriter {
    /// Writes `before + text + after` as one line (newlines in `text` become spaces, as a
    /// macro needs) and records it as the user's text.
    pub fn user_line(&mut self, label: &str, before: &str, text: &str, after: &str) {
        if !self.src.is_empty() && !self.src.ends_with('\n') {
            self.src.push('\n');
        }
        let line = self.src.matches('\n').count() + 1;
        let flat = text.trim().replace(['\n', '\r'], " ");
        self.src.push_str(before);
        self.src.push_str(&flat);
        self.src.push_str(after);
        self.src.push('\n');
        self.spans.push(SourceSpan {
            first_line: line,
            last_line: line,
            label: label.to_owned(),
            text: text.to_owned(),
        });
    }
}

/// Identifier tokens of a C++ snippet with their byte positions (comments, string and
/// character literals skipped).
pub(crate) fn identifiers(code: &str) -> Vec<(usize, &str)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((s, &code[s..i]));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// What the operation does with its array parameters, found from its tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct OpAnalysis {
    /// Staging through registers or shared memory is unsafe: the operation takes an
    /// address (`&x`), leaves the loop body early (`return`, `break`, `continue`, `goto`)
    /// or contains inline assembly.
    pub direct: bool,
    /// Per output name: whether the operation may read it (anything but one unconditional
    /// top-level `name = ...;` statement), so staged copies must be loaded first.
    pub reads: Vec<bool>,
}

/// Analyses `op` for the outputs named `outputs`.
pub(crate) fn analyse(op: &str, outputs: &[&str], arrays: &[&str]) -> OpAnalysis {
    let toks = identifiers(op);
    let bytes = op.as_bytes();
    let prev_char = |pos: usize| op[..pos].trim_end().chars().last();
    let mut direct = toks.iter().any(|(_, t)| {
        matches!(
            *t,
            "return" | "break" | "continue" | "goto" | "asm" | "__asm__" | "throw"
        )
    });
    for (pos, t) in &toks {
        if arrays.contains(t) && prev_char(*pos) == Some('&') {
            // `&x` takes an address; `a && x` and `a & x` do not. Look one more back.
            let before = op[..*pos].trim_end();
            let before = &before[..before.len() - 1];
            let prev = before.trim_end().chars().last();
            let binary = matches!(prev, Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == ')' || c == ']' || c == '&');
            if !binary {
                direct = true;
            }
        }
    }
    // Top-level statements (split on `;` outside brackets).
    let mut stmts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b';' if depth == 0 => {
                stmts.push(start..i);
                start = i + 1;
            }
            _ => {}
        }
    }
    stmts.push(start..bytes.len());
    let reads = outputs
        .iter()
        .map(|name| {
            let occurrences: Vec<usize> = toks
                .iter()
                .filter(|(p, t)| t == name && prev_char(*p) != Some('.'))
                .map(|(p, _)| *p)
                .collect();
            let written_once = occurrences.len() == 1
                && stmts.iter().any(|r| {
                    let s = &op[r.clone()];
                    let lead = s.len() - s.trim_start().len();
                    r.start + lead == occurrences[0] && {
                        let rest = s.trim_start()[name.len()..].trim_start();
                        rest.starts_with('=') && !rest.starts_with("==")
                    }
                });
            !written_once
        })
        .collect();
    OpAnalysis { direct, reads }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_comments_and_literals() {
        let t: Vec<&str> = identifiers("z = x /* y */ + 'q' + \"w\" // v\n + 1.5e3f + u")
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        assert_eq!(t, vec!["z", "x", "u"]);
    }

    #[test]
    fn output_reads_and_direct_mode() {
        let a = analyse("z = x + y * 2", &["z"], &["x", "y", "z"]);
        assert_eq!(
            a,
            OpAnalysis {
                direct: false,
                reads: vec![false]
            }
        );
        let a = analyse(
            "s = sin(x); c = cos(x); t = tan(x);",
            &["s", "c", "t"],
            &["x"],
        );
        assert_eq!(a.reads, vec![false, false, false]);
        assert_eq!(analyse("z += x", &["z"], &[]).reads, vec![true]);
        assert_eq!(analyse("z = z * x", &["z"], &[]).reads, vec![true]);
        assert_eq!(analyse("if (x > 0) z = x", &["z"], &[]).reads, vec![true]);
        assert_eq!(analyse("z == x", &["z"], &[]).reads, vec![true]);
        assert_eq!(analyse("z = x; w = q.z", &["z"], &[]).reads, vec![false]);
        assert!(analyse("atomicAdd(&z, x)", &["z"], &["z", "x"]).direct);
        assert!(!analyse("z = a && x", &["z"], &["z", "x"]).direct);
        assert!(!analyse("z = (a) & x", &["z"], &["z", "x"]).direct);
        assert!(analyse("if (x < 0) return; z = x", &["z"], &["z", "x"]).direct);
    }
}
