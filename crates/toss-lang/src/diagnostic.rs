//! Diagnostics: an error message with a byte span into the source, extra
//! labelled spans, notes and what was expected; rendered with ariadne.

use std::ops::Range;

use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind, Source};

/// One error found in a `.toss` source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong, in one line.
    pub message: String,
    /// The main byte range the error points at.
    pub span: Range<usize>,
    /// Further spans with a message each (e.g. "first defined here").
    pub labels: Vec<(Range<usize>, String)>,
    /// Free-form notes.
    pub notes: Vec<String>,
    /// What the parser expected at `span`, in words.
    pub expected: Vec<String>,
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Range<usize>) -> Self {
        Self {
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            expected: Vec::new(),
        }
    }

    pub fn with_label(mut self, span: Range<usize>, message: impl Into<String>) -> Self {
        self.labels.push((span, message.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// `file:line:col` of the start of the main span.
    pub fn location(&self, source: &str, file_name: &str) -> String {
        let (line, col) = line_col(source, self.span.start);
        format!("{file_name}:{line}:{col}")
    }

    /// Renders this diagnostic (see [`render_diagnostics`]).
    pub fn render(&self, source: &str, file_name: &str, colour: bool) -> String {
        render_one(self, source, file_name, colour, false)
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The 1-based line and column (in characters) of a byte offset. Offsets
/// past the end, or inside a character, are clamped.
pub fn line_col(source: &str, byte_offset: usize) -> (usize, usize) {
    let off = clamp(source, byte_offset);
    let before = &source.as_bytes()[..off];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let col = 1 + source[line_start..off].chars().count();
    (line, col)
}

/// The largest char boundary not after `offset`, within the source.
fn clamp(source: &str, offset: usize) -> usize {
    let mut o = offset.min(source.len());
    while !source.is_char_boundary(o) {
        o -= 1;
    }
    o
}

fn clamp_span(source: &str, span: &Range<usize>) -> Range<usize> {
    let s = clamp(source, span.start);
    let e = clamp(source, span.end.max(span.start));
    s..e
}

/// Renders diagnostics as text: for each one a header with the message,
/// `file:line:col`, the source line with a caret under the span, labels and
/// what was expected. `colour` adds ANSI colours (for terminals).
pub fn render_diagnostics(
    diags: &[Diagnostic],
    source: &str,
    file_name: &str,
    colour: bool,
) -> String {
    render_all(diags, source, file_name, colour, false)
}

/// [`render_diagnostics`] for warnings: the same file, line, column and
/// caret, labelled `Warning`.
pub fn render_warnings(
    diags: &[Diagnostic],
    source: &str,
    file_name: &str,
    colour: bool,
) -> String {
    render_all(diags, source, file_name, colour, true)
}

fn render_all(
    diags: &[Diagnostic],
    source: &str,
    file_name: &str,
    colour: bool,
    warning: bool,
) -> String {
    // One line index of the source for all of them: building it is linear
    // in the file, and a generated file may have millions of errors.
    let (cache, lines) = (Source::from(source), Lines::new(source));
    let mut out = String::new();
    for d in diags.iter().take(MAX_RENDERED) {
        out.push_str(&render_with(
            d, source, &cache, &lines, file_name, colour, warning,
        ));
    }
    if diags.len() > MAX_RENDERED {
        out.push_str(&format!(
            "... and {} more {} (only the first {MAX_RENDERED} are shown)\n",
            diags.len() - MAX_RENDERED,
            if warning { "warnings" } else { "errors" }
        ));
    }
    out
}

/// How many diagnostics [`render_diagnostics`] shows; the rest are counted.
pub const MAX_RENDERED: usize = 100;

/// Source lines longer than this (in bytes) are shown as an excerpt around
/// the span: a one-line file of 30 MB would otherwise be printed whole
/// under every diagnostic.
const MAX_SHOWN_LINE: usize = 400;

fn render_one(
    d: &Diagnostic,
    source: &str,
    file_name: &str,
    colour: bool,
    warning: bool,
) -> String {
    render_with(
        d,
        source,
        &Source::from(source),
        &Lines::new(source),
        file_name,
        colour,
        warning,
    )
}

/// Where the lines of a source start, to find a line without scanning the
/// file once per diagnostic.
struct Lines(Vec<usize>);

impl Lines {
    fn new(source: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines(starts)
    }

    /// The 0-based number of the line holding `offset`, and its start and
    /// end (without the newline).
    fn of(&self, source: &str, offset: usize) -> (usize, Range<usize>) {
        let i = self.0.partition_point(|&s| s <= offset).saturating_sub(1);
        let end = self.0.get(i + 1).map_or(source.len(), |&s| s - 1);
        (i, self.0[i]..end)
    }
}

/// A diagnostic whose line is too long for ariadne: its location, an
/// excerpt of the line around the span with a caret, and the notes.
fn render_excerpt(
    d: &Diagnostic,
    source: &str,
    lines: &Lines,
    span: &Range<usize>,
    file_name: &str,
    warning: bool,
) -> String {
    let (number, line) = lines.of(source, span.start);
    let from = clamp(
        source,
        span.start
            .saturating_sub(MAX_SHOWN_LINE / 2)
            .max(line.start),
    );
    let to = clamp(source, (span.start + MAX_SHOWN_LINE / 2).min(line.end));
    let (lead, trail) = (
        if from > line.start { "..." } else { "" },
        if to < line.end { "..." } else { "" },
    );
    let column = 1 + source[line.start..span.start].chars().count();
    let caret_at = lead.len() + source[from..span.start].chars().count();
    let width = source[span.start..span.end.clamp(span.start, to.max(span.start))]
        .chars()
        .count()
        .max(1);
    let mut out = format!(
        "{}: {}\n  --> {file_name}:{}:{column}\n   | {lead}{}{trail}\n   | {}{}",
        if warning { "Warning" } else { "Error" },
        d.message,
        number + 1,
        &source[from..to],
        " ".repeat(caret_at),
        "^".repeat(width)
    );
    if !d.expected.is_empty() {
        out.push_str(&format!(" expected {}", join_words(&d.expected)));
    }
    out.push('\n');
    for n in &d.notes {
        out.push_str(&format!("  = note: {n}\n"));
    }
    out
}

fn render_with(
    d: &Diagnostic,
    source: &str,
    cache: &Source<&str>,
    lines: &Lines,
    file_name: &str,
    colour: bool,
    warning: bool,
) -> String {
    let (kind, label) = if warning {
        (ReportKind::Warning, "warning")
    } else {
        (ReportKind::Error, "error")
    };
    let span = clamp_span(source, &d.span);
    let long = |s: &Range<usize>| lines.of(source, s.start).1.len() > MAX_SHOWN_LINE;
    if long(&span) || d.labels.iter().any(|(s, _)| long(&clamp_span(source, s))) {
        return render_excerpt(d, source, lines, &span, file_name, warning);
    }
    let mut out = String::new();
    let config = Config::default()
        .with_color(colour)
        .with_index_type(IndexType::Byte)
        .with_char_set(if colour {
            CharSet::Unicode
        } else {
            CharSet::Ascii
        });
    let file = file_name.to_string();
    let main = Label::new((file.clone(), span.clone())).with_message(if d.expected.is_empty() {
        "here".to_string()
    } else {
        format!("expected {}", join_words(&d.expected))
    });
    let mut builder = Report::build(kind, (file.clone(), span.clone()))
        .with_config(config)
        .with_message(&d.message)
        .with_label(main);
    for (s, m) in &d.labels {
        builder =
            builder.with_label(Label::new((file.clone(), clamp_span(source, s))).with_message(m));
    }
    for n in &d.notes {
        builder = builder.with_note(n);
    }
    let mut buf = Vec::new();
    let written = builder.finish().write((file, cache), &mut buf);
    match written {
        Ok(()) => out.push_str(&String::from_utf8_lossy(&buf)),
        Err(_) => {
            out.push_str(&format!(
                "{label}: {}\n  --> {}\n",
                d.message,
                d.location(source, file_name)
            ));
            for n in &d.notes {
                out.push_str(&format!("  = note: {n}\n"));
            }
        }
    }
    out
}

/// "a, b or c".
pub fn join_words(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [w] => w.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}
