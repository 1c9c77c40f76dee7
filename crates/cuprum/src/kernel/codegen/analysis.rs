//! What a user's operation string does with its parameters, found from its tokens
//! ([`analyse`]): whether staging through registers or shared memory is safe, and which
//! outputs it reads.

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
