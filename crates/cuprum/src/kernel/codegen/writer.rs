//! Writing a generated kernel's source: [`SourceWriter`] keeps which lines came from user
//! strings (compile errors point at them).

use crate::compile::SourceSpan;

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
