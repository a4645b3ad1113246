//! Located errors in a source text: a byte span and a message, rendered
//! with file, line, column and a caret like the `.toss` front end's.

use std::fmt;

/// An error at a byte span of some source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Byte offset where the error starts.
    pub at: usize,
    /// Length in bytes of what is underlined (at least one caret is shown).
    pub len: usize,
    pub message: String,
}

impl Located {
    pub fn new(at: usize, len: usize, message: impl Into<String>) -> Located {
        Located {
            at,
            len,
            message: message.into(),
        }
    }

    /// The 1-based line and column (in characters) of the start in `source`.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        line_col(source, self.at)
    }

    /// `file:line:col: error: message`, the line, and a caret under the span.
    pub fn render(&self, file: &str, source: &str) -> String {
        let (line, col) = self.line_col(source);
        let start = floor_boundary(source, self.at.min(source.len()));
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[start..]
            .find('\n')
            .map_or(source.len(), |i| start + i);
        let text = &source[line_start..line_end];
        let width = source[start..line_end.max(start)]
            .chars()
            .take(self.len.max(1))
            .count()
            .max(1);
        let number = line.to_string();
        let pad = " ".repeat(number.len());
        format!(
            "{file}:{line}:{col}: error: {}\n{pad} |\n{number} | {text}\n{pad} | {}{}\n",
            self.message,
            " ".repeat(col - 1),
            "^".repeat(width)
        )
    }
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.at, self.message)
    }
}

impl std::error::Error for Located {}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The 1-based line and column (in characters) of byte `at` of `source`.
pub fn line_col(source: &str, at: usize) -> (usize, usize) {
    let at = floor_boundary(source, at.min(source.len()));
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_line_column_and_caret() {
        let src = "Class 'a'.\nElement 'x' as b.\n";
        let e = Located::new(src.find(" b").expect("b") + 1, 1, "unknown type `b`");
        assert_eq!(e.line_col(src), (2, 16));
        assert_eq!(
            e.render("f.terms", src),
            "f.terms:2:16: error: unknown type `b`\n  |\n2 | Element 'x' as b.\n  |                ^\n"
        );
        // Past the end and inside a character: no panic.
        let e = Located::new(1000, 3, "end");
        assert!(e.render("f", "é").contains("f:1:2"));
        assert_eq!(line_col("é", 1), (1, 1));
    }
}
