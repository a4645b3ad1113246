//! Formatting `.toss` source: the syntax tree printed back in a fixed
//! layout, keeping what the IR printer ([`crate::print`]) cannot: comments,
//! board literals, numbers as written and the parentheses the author chose.
//!
//! The syntax tree has no comments, so they are lexed separately and put
//! back by position: before a node is printed, every comment that starts
//! before it in the source is printed first. A comment that followed code on
//! its line stays at the end of the line that precedes it in the output; one
//! on a line of its own stays on a line of its own (after an empty line if
//! it had one). Everything printed between a comment and the node it was
//! flushed at came before the comment in the source, so a second run flushes
//! it at the same node: formatting is idempotent.
//!
//! Layout is a small Wadler-style pretty printer: a group is printed on one
//! line when it fits in [`WIDTH`] columns, else its line breaks are taken.
//! A comment inside a group breaks it.

use std::collections::HashMap;

use crate::ast::*;
use crate::board::parse_board;
use crate::print::print_number;

/// The column width the layout aims at (an atom longer than a line is not
/// split).
const WIDTH: usize = 80;
/// Indentation step.
const INDENT: usize = 2;

/// Formats a parsed file; `src` is the text it was parsed from.
pub(crate) fn format_file(src: &str, file: &File) -> String {
    let mut f = Formatter::new(src);
    let doc = f.file(file);
    render(&doc)
}

// ---------------------------------------------------------------------------
// Documents

enum Doc {
    Text(String),
    /// A space, or a line break when the enclosing group breaks.
    Line,
    /// A line break, always.
    HardLine,
    /// An empty line before what follows (at the start of a line).
    Blank,
    /// A source comment: `trailing` when code preceded it on its line.
    Comment {
        text: String,
        trailing: bool,
        blank_before: bool,
    },
    /// Text with line breaks printed exactly (a string literal).
    Verbatim(String),
    Concat(Vec<Doc>),
    /// The content indented one step more after its line breaks.
    Nest(Box<Doc>),
    Group(Box<Doc>),
}

fn text(s: impl Into<String>) -> Doc {
    Doc::Text(s.into())
}

fn concat(ds: Vec<Doc>) -> Doc {
    Doc::Concat(ds)
}

fn nest(d: Doc) -> Doc {
    Doc::Nest(Box::new(d))
}

fn group(d: Doc) -> Doc {
    Doc::Group(Box::new(d))
}

/// Items separated by `sep` (e.g. `","`), as many per line as fit.
fn fill(items: Vec<Doc>, sep: &str) -> Doc {
    let mut out = Vec::with_capacity(items.len() * 2);
    for (i, d) in items.into_iter().enumerate() {
        if i == 0 {
            out.push(d);
        } else {
            out.push(text(sep));
            // A group of its own per break: each breaks only if the item
            // after it does not fit on the line.
            out.push(group(concat(vec![Doc::Line, d])));
        }
    }
    concat(out)
}

/// Items separated by `sep`: all on one line, or each on its own.
fn lines(items: Vec<Doc>, sep: &str) -> Doc {
    let mut out = Vec::with_capacity(items.len() * 3);
    for (i, d) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(text(sep));
            out.push(Doc::Line);
        }
        out.push(d);
    }
    group(concat(out))
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Flat,
    Break,
}

/// A rule's clauses, to print them in the order they were written.
#[derive(Clone, Copy, PartialEq)]
enum Clause {
    Emb,
    With,
    Update,
    Dynamics,
    Pre,
    Inv,
    Post,
}

/// The output being rendered: finished lines and the current one.
struct Out {
    lines: Vec<String>,
    /// Whether each finished line ends with a comment.
    commented: Vec<bool>,
    cur: String,
    cur_commented: bool,
}

impl Out {
    fn at_line_start(&self) -> bool {
        self.cur.trim().is_empty()
    }

    /// Ends the current line (unless it is empty: breaks never make empty
    /// lines, only [`Doc::Blank`] does) and indents the next.
    fn newline(&mut self, indent: usize) {
        if !self.at_line_start() {
            let line = std::mem::take(&mut self.cur);
            self.lines.push(line.trim_end().to_string());
            self.commented.push(self.cur_commented);
        }
        self.cur = " ".repeat(indent);
        self.cur_commented = false;
    }

    fn blank(&mut self, indent: usize) {
        self.newline(indent);
        if self.lines.last().is_some_and(|l| !l.is_empty()) {
            self.lines.push(String::new());
            self.commented.push(false);
        }
    }

    fn comment(&mut self, text: &str, trailing: bool, blank_before: bool, indent: usize) {
        if trailing {
            if !self.at_line_start() {
                let t = self.cur.trim_end().len();
                self.cur.truncate(t);
                self.cur.push(' ');
                self.cur.push_str(text);
                self.cur_commented = true;
                self.newline(indent);
                return;
            }
            // A break came first: back to the end of the last line of code.
            if let Some(j) = self.lines.iter().rposition(|l| !l.is_empty())
                && !self.commented[j]
            {
                self.lines[j].push(' ');
                self.lines[j].push_str(text);
                self.commented[j] = true;
                return;
            }
        } else if blank_before {
            self.blank(indent);
        }
        self.newline(indent);
        self.cur.push_str(text);
        self.cur_commented = true;
        self.newline(indent);
    }

    fn verbatim(&mut self, s: &str) {
        let mut parts = s.split('\n');
        if let Some(first) = parts.next() {
            self.cur.push_str(first);
        }
        for part in parts {
            // Inside a string literal: no trimming, no indentation.
            let line = std::mem::take(&mut self.cur);
            self.lines.push(line);
            self.commented.push(false);
            self.cur.push_str(part);
        }
    }

    fn width(&self) -> usize {
        self.cur.chars().count()
    }
}

fn render(doc: &Doc) -> String {
    let mut out = Out {
        lines: Vec::new(),
        commented: Vec::new(),
        cur: String::new(),
        cur_commented: false,
    };
    let mut stack: Vec<(usize, Mode, &Doc)> = vec![(0, Mode::Break, doc)];
    while let Some((indent, mode, d)) = stack.pop() {
        match d {
            Doc::Text(s) => out.cur.push_str(s),
            Doc::Line => match mode {
                Mode::Flat => out.cur.push(' '),
                Mode::Break => out.newline(indent),
            },
            Doc::HardLine => out.newline(indent),
            Doc::Blank => out.blank(indent),
            Doc::Comment {
                text,
                trailing,
                blank_before,
            } => out.comment(text, *trailing, *blank_before, indent),
            Doc::Verbatim(s) => out.verbatim(s),
            Doc::Concat(ds) => {
                for d in ds.iter().rev() {
                    stack.push((indent, mode, d));
                }
            }
            Doc::Nest(d) => stack.push((indent + INDENT, mode, d)),
            Doc::Group(d) => {
                let m = if mode == Mode::Flat || fits(WIDTH.saturating_sub(out.width()), d, &stack)
                {
                    Mode::Flat
                } else {
                    Mode::Break
                };
                stack.push((indent, m, d));
            }
        }
    }
    out.newline(0);
    let mut s = out.lines.join("\n");
    s.push('\n');
    s
}

/// Whether `first` printed flat, and what follows it up to the next line
/// break, fit in `room` columns. Anything that must end a line (a hard
/// break, a comment, a multi-line string) cannot be flat.
fn fits(room: usize, first: &Doc, rest: &[(usize, Mode, &Doc)]) -> bool {
    let mut room = room as isize;
    let mut work: Vec<(Mode, &Doc)> = vec![(Mode::Flat, first)];
    let mut rest = rest.iter().rev();
    loop {
        let (mode, d) = match work.pop() {
            Some(x) => x,
            None => match rest.next() {
                Some((_, m, d)) => (*m, *d),
                None => return true,
            },
        };
        match d {
            Doc::Text(s) => room -= s.chars().count() as isize,
            Doc::Line => match mode {
                Mode::Flat => room -= 1,
                Mode::Break => return true,
            },
            Doc::HardLine | Doc::Blank | Doc::Comment { .. } => return mode == Mode::Break,
            Doc::Verbatim(s) => match s.split_once('\n') {
                Some((first_line, _)) => {
                    return mode == Mode::Break && room >= first_line.chars().count() as isize;
                }
                None => room -= s.chars().count() as isize,
            },
            Doc::Concat(ds) => {
                for d in ds.iter().rev() {
                    work.push((mode, d));
                }
            }
            Doc::Nest(d) | Doc::Group(d) => work.push((mode, d)),
        }
        if room < 0 {
            return false;
        }
    }
}

// ---------------------------------------------------------------------------
// Source facts: comments, trivia, parentheses

struct Comment {
    start: usize,
    text: String,
    trailing: bool,
    blank_before: bool,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\n' | '\t' | '\r' | '\u{FEFF}')
}

/// Whether an empty line separates `pos` from the code or comment before
/// it (never at the start of the file).
fn blank_line_before(src: &str, pos: usize) -> bool {
    let before = &src[..pos.min(src.len())];
    let trimmed = before.trim_end_matches(is_space);
    !trimmed.is_empty() && before[trimmed.len()..].matches('\n').count() >= 2
}

/// The comments of `src` (`//` to the end of the line, outside string
/// literals), the bytes that are whitespace or comment, and the matching
/// `)` of every `(`.
fn scan(src: &str) -> (Vec<Comment>, Vec<bool>, HashMap<usize, usize>) {
    let bytes = src.as_bytes();
    let mut comments = Vec::new();
    let mut trivia = vec![false; bytes.len()];
    let mut parens = HashMap::new();
    let mut open = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = src[i..].find('\n').map_or(src.len(), |n| i + n);
                let line_start = src[..i].rfind('\n').map_or(0, |n| n + 1);
                comments.push(Comment {
                    start: i,
                    text: src[i..end].trim_end_matches(is_space).to_string(),
                    trailing: !src[line_start..i].trim_matches(is_space).is_empty(),
                    blank_before: blank_line_before(src, i),
                });
                trivia[i..end].fill(true);
                i = end;
                continue;
            }
            b'"' => {
                let end = src[i + 1..].find('"').map_or(src.len(), |n| i + 1 + n + 1);
                i = end;
                continue;
            }
            b'(' => open.push(i),
            b')' => {
                if let Some(o) = open.pop() {
                    parens.insert(o, i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    for (at, c) in src.char_indices() {
        if is_space(c) {
            trivia[at..at + c.len_utf8()].fill(true);
        }
    }
    (comments, trivia, parens)
}

// ---------------------------------------------------------------------------
// The formatter

/// How a node's parentheses are decided.
#[derive(Clone, Copy, PartialEq)]
enum Parens {
    /// As the precedence needs, or as the source had them.
    Auto,
    /// Always (as in `let R(x) = (x in X) in ...`).
    Force,
    /// The surrounding syntax brackets the node (`:(...)`, `sqrt(...)`):
    /// the bracket before it in the source is not the author's.
    Owned,
}

/// Binding strength of formula constructs, loosest first (as in
/// [`crate::print`]).
mod fprec {
    pub const IFF: u8 = 0;
    pub const IMPLIES: u8 = 1;
    pub const OR: u8 = 2;
    pub const AND: u8 = 3;
    pub const PREFIX: u8 = 4;
    pub const ATOM: u8 = 5;
}

/// Binding strength of real-term constructs, loosest first.
mod tprec {
    pub const SUM: u8 = 0;
    pub const PRODUCT: u8 = 1;
    pub const NEG: u8 = 2;
    pub const POW: u8 = 3;
    pub const ATOM: u8 = 4;
}

struct Formatter<'a> {
    src: &'a str,
    comments: Vec<Comment>,
    /// The first comment not printed yet.
    next: usize,
    trivia: Vec<bool>,
    parens: HashMap<usize, usize>,
}

impl<'a> Formatter<'a> {
    fn new(src: &'a str) -> Self {
        let (comments, trivia, parens) = scan(src);
        Formatter {
            src,
            comments,
            next: 0,
            trivia,
            parens,
        }
    }

    /// The comments that start before `pos` and are not printed yet.
    fn flush(&mut self, pos: usize) -> Doc {
        let mut out = Vec::new();
        while let Some(c) = self.comments.get(self.next) {
            if c.start >= pos {
                break;
            }
            out.push(Doc::Comment {
                text: c.text.clone(),
                trailing: c.trailing,
                blank_before: c.blank_before,
            });
            self.next += 1;
        }
        concat(out)
    }

    /// `doc` preceded by the comments before `pos`.
    fn at(&mut self, pos: usize, doc: Doc) -> Doc {
        let c = self.flush(pos);
        concat(vec![c, doc])
    }

    /// The end of `span` without trailing whitespace and comments.
    fn code_end(&self, span: &Span) -> usize {
        let mut e = span.end.min(self.trivia.len());
        while e > span.start && self.trivia[e - 1] {
            e -= 1;
        }
        e
    }

    /// Whether the source brackets exactly `span` in a pair of parentheses.
    fn bracketed(&self, span: &Span) -> bool {
        let Some(open) = (0..span.start.min(self.trivia.len()))
            .rev()
            .find(|&i| !self.trivia[i])
        else {
            return false;
        };
        if self.src.as_bytes()[open] != b'(' {
            return false;
        }
        let close = (self.code_end(span)..self.trivia.len()).find(|&i| !self.trivia[i]);
        close.is_some() && self.parens.get(&open) == close.as_ref()
    }

    /// A number as written in the source at `span`, if it reads back as
    /// `value`; else its canonical form.
    fn number(&self, span: &Span, value: f64) -> String {
        let written = self
            .src
            .get(span.clone())
            .unwrap_or("")
            .trim_end_matches(is_space);
        match written.parse::<f64>() {
            Ok(v) if v.to_bits() == value.to_bits() => written.to_string(),
            _ => print_number(value),
        }
    }

    /// The number after `pos` that follows the tokens `before` (e.g.
    /// `["->"]`), as written; `value`'s canonical form if it is not found.
    /// Returns the text and where the number ends.
    fn number_after(&self, pos: usize, before: &[&str], value: f64) -> (String, usize) {
        let mut c = Cursor { f: self, pos };
        let found = before
            .iter()
            .all(|t| c.eat(t))
            .then(|| c.number())
            .flatten();
        match found {
            Some(span) => (self.number(&span, value), span.end),
            None => (print_number(value), pos),
        }
    }

    // ---- file and items

    fn file(&mut self, file: &File) -> Doc {
        let mut out = Vec::new();
        for (i, item) in file.items.iter().enumerate() {
            let start = self.item_start(item);
            if i > 0 {
                out.push(Doc::HardLine);
            }
            out.push(self.flush(start));
            if blank_line_before(self.src, start) {
                out.push(Doc::Blank);
            }
            out.push(self.item(item));
        }
        out.push(self.flush(usize::MAX));
        concat(out)
    }

    /// Where an item starts: `START` and `MODEL` items carry the span of
    /// their structure, which starts after the keyword.
    fn item_start(&self, item: &Item) -> usize {
        let (span, kw) = match item {
            Item::Start(s) => (&s.span, "START"),
            Item::Model(s) => (&s.span, "MODEL"),
            other => return item_span(other).start,
        };
        let code = (0..span.start.min(self.trivia.len()))
            .rev()
            .find(|&i| !self.trivia[i]);
        match code {
            Some(i) if self.src[..=i].ends_with(kw) => i + 1 - kw.len(),
            _ => span.start,
        }
    }

    fn item(&mut self, item: &Item) -> Doc {
        match item {
            Item::Players { names, .. } => {
                let names = names
                    .iter()
                    .map(|n| self.at(n.span.start, text(&n.name)))
                    .collect();
                group(concat(vec![text("PLAYERS "), nest(fill(names, ","))]))
            }
            Item::Data { entries, .. } => {
                let entries = entries
                    .iter()
                    .map(|(k, v)| self.at(k.span.start, text(format!("{}: {}", k.name, v.name))))
                    .collect();
                group(concat(vec![text("DATA "), nest(fill(entries, ","))]))
            }
            Item::Repetition {
                function,
                element,
                relations,
                functions,
                ..
            } => {
                let mut items: Vec<Doc> = Vec::new();
                for r in relations {
                    items.push(self.at(r.span.start, text(&r.name)));
                }
                for f in functions {
                    items.push(self.at(f.span.start, text(format!(":{}", f.name))));
                }
                group(concat(vec![
                    text(format!(
                        "REPETITION :{}({}) OF ",
                        function.name, element.name
                    )),
                    nest(fill(items, ",")),
                ]))
            }
            Item::Rel(r) => self.rel_def(r),
            Item::Rule(r) => self.rule_def(r),
            Item::Loc(l) => self.loc_def(l),
            Item::Start(s) => concat(vec![text("START "), self.structure(s)]),
            Item::Model(s) => concat(vec![text("MODEL "), self.structure(s)]),
            Item::History { moves, span } => {
                let mut ms = Vec::new();
                for m in moves {
                    let d = self.hist_move(m);
                    ms.push(self.at(m.span.start, d));
                }
                let end = self.code_end(span);
                let mut body = vec![];
                for (i, m) in ms.into_iter().enumerate() {
                    if i > 0 {
                        body.push(text(";"));
                    }
                    body.push(Doc::HardLine);
                    body.push(m);
                }
                body.push(self.flush(end));
                concat(vec![text("HISTORY"), nest(concat(body))])
            }
        }
    }

    fn rel_def(&mut self, r: &RelDef) -> Doc {
        let head = format!("REL {}({}) =", r.name.name, names(&r.params));
        let body = self.formula(&r.body, fprec::IFF, false, Parens::Auto);
        group(concat(vec![
            text(head),
            nest(concat(vec![Doc::Line, body])),
        ]))
    }

    // ---- structures

    fn structure(&mut self, s: &StructLit) -> Doc {
        let lead = self.flush(s.span.start);
        let elements: Vec<Doc> = s
            .elements
            .iter()
            .map(|e| self.at(e.span.start, text(&e.name)))
            .collect();
        let relations: Vec<Doc> = s.relations.iter().map(|r| self.rel_entry(r)).collect();
        let functions: Vec<Doc> = s.functions.iter().map(|f| self.fun_entry(f)).collect();
        let close = match &s.board {
            Some((_, b)) => b.start,
            None => self.code_end(&s.span),
        };
        let tail = self.flush(close);
        let mut inside = vec![];
        if !elements.is_empty() {
            inside.push(fill(elements, ","));
        }
        inside.push(text(" |"));
        if !relations.is_empty() {
            inside.push(Doc::Line);
            inside.push(fill(relations, ";"));
        }
        inside.push(text(" |"));
        let no_functions = functions.is_empty();
        if !no_functions {
            inside.push(Doc::Line);
            inside.push(fill(functions, ";"));
        }
        inside.push(tail);
        let mut out = vec![
            lead,
            group(concat(vec![
                text("["),
                nest(concat(inside)),
                text(if no_functions { " ]" } else { "]" }),
            ])),
        ];
        if let Some((board, span)) = &s.board {
            out.push(text(" "));
            out.push(Doc::Verbatim(board_literal(
                board,
                self.src.get(span.clone()),
            )));
        }
        concat(out)
    }

    fn rel_entry(&mut self, r: &RelEntry) -> Doc {
        let lead = self.flush(r.span.start);
        let mut name = r.name.name.clone();
        if let Some(a) = &r.declared_arity {
            name = format!("{name}:{}", a.value);
        }
        let tuple = |args: &[Ident]| {
            let names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
            format!("({})", names.join(", "))
        };
        let body = match r.tuples.as_slice() {
            [(args, _)] => text(format!("{name} {}", tuple(args))),
            ts => {
                let items: Vec<Doc> = ts
                    .iter()
                    .map(|(args, sp)| {
                        let t = match args.as_slice() {
                            [one] => one.name.clone(),
                            _ => tuple(args),
                        };
                        self.at(sp.start, text(t))
                    })
                    .collect();
                let end = self.code_end(&r.span);
                let tail = self.flush(end);
                group(concat(vec![
                    text(format!("{name} {{")),
                    nest(concat(vec![fill(items, ";"), tail])),
                    text("}"),
                ]))
            }
        };
        concat(vec![lead, body])
    }

    fn fun_entry(&mut self, f: &FunEntry) -> Doc {
        let lead = self.flush(f.span.start);
        let name = format!("{}{}", f.name.name, "'".repeat(f.order as usize));
        let items: Vec<Doc> = f
            .values
            .iter()
            .map(|(e, v)| {
                let (n, _) = self.number_after(e.span.end, &["->"], *v);
                self.at(e.span.start, text(format!("{} -> {n}", e.name)))
            })
            .collect();
        let end = self.code_end(&f.span);
        let tail = self.flush(end);
        concat(vec![
            lead,
            group(concat(vec![
                text(format!("{name} {{")),
                nest(concat(vec![fill(items, ","), tail])),
                text("}"),
            ])),
        ])
    }

    // ---- rules

    fn rule_def(&mut self, r: &RuleDef) -> Doc {
        let head = text(format!("RULE {}:", r.name.name));
        let lhs = self.structure(&r.lhs);
        let rhs = self.structure(&r.rhs);
        let sides = group(concat(vec![lhs, Doc::Line, text("-> "), rhs]));
        // Clauses in the order they were written (built in that order too,
        // so that comments are taken in order).
        let mut order: Vec<(usize, Clause)> = Vec::new();
        if let Some(first) = r.emb.first() {
            order.push((first.span.start, Clause::Emb));
        }
        if let Some((first, _)) = r.with.first() {
            order.push((first.span.start, Clause::With));
        }
        if let Some(first) = r.update.first() {
            order.push((first.span.start, Clause::Update));
        }
        if let Some(first) = r.dynamics.first() {
            order.push((first.span.start, Clause::Dynamics));
        }
        for (c, f) in [
            (Clause::Pre, &r.pre),
            (Clause::Inv, &r.inv),
            (Clause::Post, &r.post),
        ] {
            if let Some(f) = f {
                order.push((f.span.start, c));
            }
        }
        order.sort_by_key(|(pos, _)| *pos);
        let mut clauses: Vec<(usize, Doc)> = Vec::new();
        for (pos, c) in order {
            let lead = self.flush(pos);
            let d = match c {
                Clause::Emb => {
                    let names = r
                        .emb
                        .iter()
                        .map(|n| self.at(n.span.start, text(&n.name)))
                        .collect();
                    group(concat(vec![lead, text("emb "), nest(fill(names, ","))]))
                }
                Clause::With => {
                    let pairs = r
                        .with
                        .iter()
                        .map(|(a, b)| {
                            self.at(a.span.start, text(format!("{} <- {}", a.name, b.name)))
                        })
                        .collect();
                    group(concat(vec![
                        lead,
                        text("with ["),
                        nest(fill(pairs, ",")),
                        text("]"),
                    ]))
                }
                Clause::Update | Clause::Dynamics => {
                    let (kw, eqs) = if c == Clause::Update {
                        ("update", &r.update)
                    } else {
                        ("dynamics", &r.dynamics)
                    };
                    let docs = eqs.iter().map(|e| self.equation(e)).collect();
                    group(concat(vec![
                        lead,
                        text(format!("{kw} ")),
                        nest(fill(docs, ";")),
                    ]))
                }
                Clause::Pre | Clause::Inv | Clause::Post => {
                    let (kw, f) = match c {
                        Clause::Pre => ("pre", &r.pre),
                        Clause::Inv => ("inv", &r.inv),
                        _ => ("post", &r.post),
                    };
                    let body = match f {
                        Some(f) => self.formula(f, fprec::IFF, false, Parens::Auto),
                        None => text("true"),
                    };
                    concat(vec![lead, text(format!("{kw} ")), nest(body)])
                }
            };
            clauses.push((pos, d));
        }
        let mut body = vec![Doc::HardLine, sides];
        for (_, c) in clauses {
            body.push(Doc::HardLine);
            body.push(c);
        }
        concat(vec![head, nest(concat(body))])
    }

    fn equation(&mut self, e: &Equation) -> Doc {
        let lead = self.flush(e.span.start);
        let lhs = format!(
            ":{}{}({}) = ",
            e.function.name,
            "'".repeat(e.order as usize),
            e.element.name
        );
        let value = self.term(&e.value, tprec::SUM, false, Parens::Auto);
        concat(vec![lead, text(lhs), value])
    }

    // ---- locations

    fn loc_def(&mut self, l: &LocDef) -> Doc {
        let mut body = Vec::new();
        for p in &l.players {
            body.push(Doc::HardLine);
            body.push(self.player_block(p));
        }
        let end = self.code_end(&l.span);
        body.push(self.flush(end));
        if l.players.is_empty() && matches!(body.last(), Some(Doc::Concat(c)) if c.is_empty()) {
            return text(format!("LOC {} {{}}", l.id.value));
        }
        concat(vec![
            text(format!("LOC {} {{", l.id.value)),
            nest(concat(body)),
            Doc::HardLine,
            text("}"),
        ])
    }

    fn player_block(&mut self, p: &PlayerBlock) -> Doc {
        let lead = self.flush(p.span.start);
        let mut parts = Vec::new();
        if let Some(t) = &p.payoff {
            let t = self.term(t, tprec::SUM, false, Parens::Auto);
            parts.push(concat(vec![text("PAYOFF "), nest(t)]));
        }
        if !p.moves.is_empty() {
            let labels = p
                .moves
                .iter()
                .map(|l| {
                    let d = text(self.label(l));
                    self.at(l.span.start, d)
                })
                .collect();
            parts.push(concat(vec![text("MOVES "), nest(fill(labels, ";"))]));
        }
        let end = self.code_end(&p.span);
        let tail = self.flush(end);
        let head = text(format!("PLAYER {} {{", p.name.name));
        if parts.is_empty() && matches!(&tail, Doc::Concat(c) if c.is_empty()) {
            return concat(vec![lead, head, text("}")]);
        }
        // A payoff and moves are two lines, never one.
        let both = parts.len() > 1;
        let mut inner = Vec::new();
        for part in parts {
            inner.push(if both { Doc::HardLine } else { Doc::Line });
            inner.push(part);
        }
        inner.push(tail);
        concat(vec![
            lead,
            group(concat(vec![
                head,
                nest(concat(inner)),
                Doc::Line,
                text("}"),
            ])),
        ])
    }

    fn label(&self, l: &LabelDef) -> String {
        // Options in the order they were written.
        let mut opts: Vec<(usize, String)> = Vec::new();
        if let Some(m) = &l.multiplicity {
            let v = match m.value {
                Multiplicity::One => "1",
                Multiplicity::Any => "*",
                Multiplicity::All => "inf",
            };
            opts.push((m.span.start, format!("mult: {v}")));
        }
        for (name, lo, hi) in &l.intervals {
            let (lo, lo_end) = self.bound(lo, name.span.end, ":");
            let (hi, _) = self.bound(hi, lo_end, "--");
            opts.push((name.span.start, format!("{}: {lo} -- {hi}", name.name)));
        }
        opts.sort_by_key(|(pos, _)| *pos);
        let mut out = format!("[{}", l.rule.name);
        for (_, o) in opts {
            out.push_str(", ");
            out.push_str(&o);
        }
        out.push_str(" -> ");
        let targets: Vec<String> = l.targets.iter().map(|t| self.target(t)).collect();
        out.push_str(&targets.join("; "));
        out.push(']');
        out
    }

    /// A bound written after `sep` following `pos`, and where it ends.
    fn bound(&self, b: &Bound, pos: usize, sep: &str) -> (String, usize) {
        match b {
            Bound::Name(n) => (n.name.clone(), n.span.end),
            Bound::Num(v) => self.number_after(pos, &[sep], *v),
        }
    }

    fn target(&self, t: &TargetDef) -> String {
        let mut extras = Vec::new();
        if let Some(p) = &t.probability {
            extras.push((p.span.start, format!("p {}", self.number(&p.span, p.value))));
        }
        for (name, d) in &t.draws {
            let (dist, args): (&str, Vec<f64>) = match d {
                Distribution::Normal { mean, std_dev } => ("normal", vec![*mean, *std_dev]),
                Distribution::Uniform { lo, hi } => ("uniform", vec![*lo, *hi]),
                Distribution::Exponential { rate } => ("exp", vec![*rate]),
            };
            let mut pos = name.span.end;
            let mut written = Vec::new();
            for (i, v) in args.iter().enumerate() {
                let before: &[&str] = if i == 0 { &["~", dist, "("] } else { &[","] };
                let (n, end) = self.number_after(pos, before, *v);
                written.push(n);
                pos = end;
            }
            extras.push((
                name.span.start,
                format!("{} ~ {dist}({})", name.name, written.join(", ")),
            ));
        }
        extras.sort_by_key(|(pos, _)| *pos);
        if extras.is_empty() {
            t.location.value.to_string()
        } else {
            let extras: Vec<String> = extras.into_iter().map(|(_, e)| e).collect();
            format!("{} ({})", t.location.value, extras.join(", "))
        }
    }

    // ---- saved plays

    fn hist_move(&mut self, m: &HistMove) -> Doc {
        let matching: Vec<String> = m
            .matching
            .iter()
            .map(|(l, e)| format!("{}: {}", l.name, e.name))
            .collect();
        let mut out = format!(
            "{}: {} {{{}}}",
            m.player.name,
            m.rule.name,
            matching.join(", ")
        );
        for (name, v) in &m.values {
            let (n, _) = self.number_after(name.span.end, &[":"], *v);
            out.push_str(&format!(" {}: {n}", name.name));
        }
        out.push_str(&format!(" -> {}", m.target.value));
        text(out)
    }

    // ---- formulas

    /// `f` at a position that needs binding strength `min`; `followed`
    /// says whether more formula text follows at this level.
    fn formula(&mut self, f: &Formula, min: u8, followed: bool, parens: Parens) -> Doc {
        let lead = self.flush(f.span.start);
        let bracket = match parens {
            Parens::Force => true,
            Parens::Owned => false,
            Parens::Auto => {
                formula_prec(f) < min
                    || (followed && formula_open_right(f))
                    || self.bracketed(&f.span)
            }
        };
        let body = if bracket {
            concat(vec![
                text("("),
                nest(self.formula_bare(f, false)),
                text(")"),
            ])
        } else {
            self.formula_bare(f, followed)
        };
        concat(vec![lead, body])
    }

    fn formula_bare(&mut self, f: &Formula, followed: bool) -> Doc {
        match &f.kind {
            FormulaKind::True => text("true"),
            FormulaKind::False => text("false"),
            FormulaKind::Rel { name, args } => text(format!("{}({})", name.name, names(args))),
            FormulaKind::Eq(a, b) => text(format!("{} = {}", a.name, b.name)),
            FormulaKind::Ne(a, b) => text(format!("{} != {}", a.name, b.name)),
            FormulaKind::In { element, set } => text(format!("{} in {}", element.name, set.name)),
            FormulaKind::Cmp { lhs, op, rhs } => {
                let l = self.term(lhs, tprec::SUM, true, Parens::Auto);
                let r = self.term(rhs, tprec::SUM, true, Parens::Auto);
                concat(vec![l, text(format!(" {} ", cmp_op(*op))), r])
            }
            FormulaKind::Not(g) => {
                let g = self.formula(g, fprec::PREFIX, followed, Parens::Auto);
                concat(vec![text("not "), g])
            }
            FormulaKind::And(fs) => self.connective(fs, " and", fprec::PREFIX, followed),
            FormulaKind::Or(fs) => self.connective(fs, " or", fprec::AND, followed),
            FormulaKind::Implies(a, b) => {
                let a = self.formula(a, fprec::OR, true, Parens::Auto);
                let b = self.formula(b, fprec::IMPLIES, followed, Parens::Auto);
                group(concat(vec![a, text(" ->"), Doc::Line, b]))
            }
            FormulaKind::Iff(a, b) => {
                let a = self.formula(a, fprec::IMPLIES, true, Parens::Auto);
                let b = self.formula(b, fprec::IMPLIES, followed, Parens::Auto);
                group(concat(vec![a, text(" <->"), Doc::Line, b]))
            }
            FormulaKind::Exists { vars, body } => self.quantifier("ex", vars, body, followed),
            FormulaKind::Forall { vars, body } => self.quantifier("all", vars, body, followed),
            FormulaKind::Fixpoint {
                kind,
                relation,
                params,
                body,
            } => {
                let kw = match kind {
                    FixpointKind::Least => "lfp",
                    FixpointKind::Greatest => "gfp",
                };
                let head = format!("{kw} {}({}) = ", relation.name, names(params));
                let body = self.formula(body, fprec::PREFIX, followed, Parens::Auto);
                concat(vec![text(head), body])
            }
            FormulaKind::Tc {
                steps,
                from,
                to,
                body,
            } => {
                let mut head = String::from("tc ");
                if let Some(n) = steps {
                    head.push_str(&format!("{} ", n.value));
                }
                let side = |vs: &[Ident]| {
                    vs.iter()
                        .map(|v| v.name.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                head.push_str(&format!("{}, {} ", side(from), side(to)));
                let body = self.formula(body, fprec::IFF, followed, Parens::Auto);
                concat(vec![text(head), body])
            }
            FormulaKind::Let {
                relation,
                params,
                def,
                body,
            } => {
                let head = format!("let {}({}) = ", relation.name, names(params));
                // `in` also spells membership: the definition stays
                // bracketed unless it is an atom that cannot take it.
                let p = match def.kind {
                    FormulaKind::Rel { .. } | FormulaKind::True | FormulaKind::False => {
                        Parens::Auto
                    }
                    _ => Parens::Force,
                };
                let def = self.formula(def, fprec::ATOM, true, p);
                let body = self.formula(body, fprec::PREFIX, followed, Parens::Auto);
                concat(vec![text(head), def, text(" in "), body])
            }
            FormulaKind::LetReal { var, value, body } => {
                let value = self.term(value, tprec::SUM, true, Parens::Auto);
                let body = self.formula(body, fprec::PREFIX, followed, Parens::Auto);
                concat(vec![
                    text(format!("let :{} = ", var.name)),
                    value,
                    text(" in "),
                    body,
                ])
            }
        }
    }

    /// An `and` / `or` chain: a disjunction of compound cases one per line
    /// when it does not fit, otherwise as many operands per line as fit.
    fn connective(&mut self, fs: &[Formula], op: &str, min: u8, followed: bool) -> Doc {
        match fs {
            [] => text(if op == " and" { "true" } else { "false" }),
            [f] => self.formula_bare(f, followed),
            _ => {
                let one_per_line = op == " or" && fs.iter().any(|f| !is_atomic(f));
                let docs: Vec<Doc> = fs
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let last = i + 1 == fs.len();
                        self.formula(f, min, !last || followed, Parens::Auto)
                    })
                    .collect();
                if one_per_line {
                    lines(docs, op)
                } else {
                    fill(docs, op)
                }
            }
        }
    }

    fn quantifier(&mut self, kw: &str, vars: &[VarDecl], body: &Formula, followed: bool) -> Doc {
        let vs: Vec<String> = vars
            .iter()
            .map(|v| match v.kind {
                VarKind::Real => format!(":{}", v.name.name),
                VarKind::Element | VarKind::Set => v.name.name.clone(),
            })
            .collect();
        let body = self.formula(body, fprec::PREFIX, followed, Parens::Auto);
        concat(vec![text(format!("{kw} {} ", vs.join(", "))), body])
    }

    // ---- real terms

    fn term(&mut self, t: &Term, min: u8, followed: bool, parens: Parens) -> Doc {
        let lead = self.flush(t.span.start);
        let bracket = match parens {
            Parens::Force => true,
            Parens::Owned => false,
            Parens::Auto => {
                term_prec(t) < min
                    || (followed && matches!(t.kind, TermKind::Let { .. }))
                    || self.bracketed(&t.span)
            }
        };
        let body = if bracket {
            concat(vec![text("("), nest(self.term_bare(t, false)), text(")")])
        } else {
            self.term_bare(t, followed)
        };
        concat(vec![lead, body])
    }

    fn term_bare(&mut self, t: &Term, followed: bool) -> Doc {
        match &t.kind {
            TermKind::Num(v) => text(self.number(&t.span, *v)),
            TermKind::Var(v) => text(format!(":{}", v.name)),
            TermKind::Fun {
                name,
                order,
                element,
            } => text(format!(
                ":{}{}({})",
                name.name,
                "'".repeat(*order as usize),
                element.name
            )),
            TermKind::Char(f) => {
                let f = self.formula(f, fprec::IFF, false, Parens::Owned);
                concat(vec![text(":("), nest(f), text(")")])
            }
            TermKind::Neg(a) => {
                // `-` applies to a power: `-:a ^ 2` is `-(:a ^ 2)`.
                let a = self.term(a, tprec::POW, followed, Parens::Auto);
                concat(vec![text("-"), a])
            }
            TermKind::Add(a, b) => self.binary(a, " + ", b, tprec::SUM, followed),
            TermKind::Sub(a, b) => self.binary(a, " - ", b, tprec::SUM, followed),
            TermKind::Mul(a, b) => self.binary(a, " * ", b, tprec::PRODUCT, followed),
            TermKind::Div(a, b) => self.binary(a, " / ", b, tprec::PRODUCT, followed),
            TermKind::Pow(a, b) => {
                // Right associative: `a ^ b ^ c` is `a ^ (b ^ c)`.
                let a = self.term(a, tprec::ATOM, true, Parens::Auto);
                let b = self.term(b, tprec::POW, followed, Parens::Auto);
                concat(vec![a, text(" ^ "), b])
            }
            TermKind::Sqrt(a) => {
                let a = self.term(a, tprec::SUM, false, Parens::Owned);
                concat(vec![text("sqrt("), a, text(")")])
            }
            TermKind::Root(n, a) => {
                let a = self.term(a, tprec::SUM, false, Parens::Auto);
                concat(vec![text(format!("root({}, ", n.value)), a, text(")")])
            }
            TermKind::Sum { vars, guard, body } => self.aggregate("Sum", vars, guard, body),
            TermKind::Product { vars, guard, body } => self.aggregate("Product", vars, guard, body),
            TermKind::Min { var, body } => {
                let body = self.formula(body, fprec::IFF, false, Parens::Owned);
                concat(vec![
                    text(format!("min :{} (", var.name)),
                    nest(body),
                    text(")"),
                ])
            }
            TermKind::Let { var, value, body } => {
                let value = self.term(value, tprec::SUM, true, Parens::Auto);
                let body = self.term(body, tprec::SUM, followed, Parens::Auto);
                concat(vec![
                    text(format!("let :{} = ", var.name)),
                    value,
                    text(" in "),
                    body,
                ])
            }
        }
    }

    /// A left-associative operator of strength `prec`: the right operand
    /// must bind tighter.
    /// A long term breaks after an operator, each break on its own as in
    /// [`fill`]: only where the rest does not fit on the line.
    fn binary(&mut self, a: &Term, op: &str, b: &Term, prec: u8, followed: bool) -> Doc {
        let a = self.term(a, prec, true, Parens::Auto);
        let b = self.term(b, prec + 1, followed, Parens::Auto);
        concat(vec![
            a,
            text(op.trim_end()),
            group(concat(vec![Doc::Line, b])),
        ])
    }

    fn aggregate(&mut self, kw: &str, vars: &[Ident], guard: &Formula, body: &Term) -> Doc {
        let guard = self.formula(guard, fprec::IFF, true, Parens::Auto);
        let body = self.term(body, tprec::SUM, false, Parens::Auto);
        concat(vec![
            text(format!("{kw} ({} | ", names(vars))),
            nest(concat(vec![guard, text(" : "), body])),
            text(")"),
        ])
    }
}

/// A cursor over the source that skips whitespace and comments.
struct Cursor<'f, 'a> {
    f: &'f Formatter<'a>,
    pos: usize,
}

impl Cursor<'_, '_> {
    fn skip(&mut self) {
        while self.pos < self.f.trivia.len() && self.f.trivia[self.pos] {
            self.pos += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip();
        let ok = self
            .f
            .src
            .get(self.pos..)
            .is_some_and(|s| s.starts_with(token));
        if ok {
            self.pos += token.len();
        }
        ok
    }

    /// The span of a `number` token (`-`? digits, fraction, exponent).
    fn number(&mut self) -> Option<Span> {
        self.skip();
        let bytes = self.f.src.as_bytes();
        let start = self.pos;
        let mut i = start;
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = |i: &mut usize| {
            let s = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > s
        };
        if !digits(&mut i) {
            return None;
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(bytes.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if digits(&mut j) {
                i = j;
            }
        }
        self.pos = i;
        Some(start..i)
    }
}

/// A board string: its rows re-laid with aligned columns when it is a valid
/// board, else exactly as written.
fn board_literal(board: &str, written: Option<&str>) -> String {
    if parse_board(board).is_err() {
        return written.map_or_else(|| format!("\"{board}\""), str::to_string);
    }
    let rows: Vec<Vec<&str>> = board
        .split('\n')
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|r| !r.is_empty())
        .collect();
    if rows.is_empty() {
        return "\"\"".to_string();
    }
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|j| {
            rows.iter()
                .filter_map(|r| r.get(j))
                .map(|c| c.len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::from("\"\n");
    for r in &rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str("  ");
        out.push_str(cells.join(" ").trim_end());
        out.push('\n');
    }
    out.push('"');
    out
}

fn item_span(item: &Item) -> &Span {
    match item {
        Item::Players { span, .. }
        | Item::Data { span, .. }
        | Item::History { span, .. }
        | Item::Repetition { span, .. } => span,
        Item::Rel(r) => &r.span,
        Item::Rule(r) => &r.span,
        Item::Loc(l) => &l.span,
        Item::Start(s) | Item::Model(s) => &s.span,
    }
}

fn names(ids: &[Ident]) -> String {
    ids.iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn cmp_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Eq => "=",
        CmpOp::Ne => "!=",
        CmpOp::Ge => ">=",
        CmpOp::Gt => ">",
    }
}

/// An operand that reads as one unit: an atom, possibly negated.
fn is_atomic(f: &Formula) -> bool {
    match &f.kind {
        FormulaKind::Not(g) => is_atomic(g),
        k => formula_prec_kind(k) == fprec::ATOM,
    }
}

fn formula_prec(f: &Formula) -> u8 {
    formula_prec_kind(&f.kind)
}

fn formula_prec_kind(k: &FormulaKind) -> u8 {
    match k {
        FormulaKind::Iff(..) => fprec::IFF,
        FormulaKind::Implies(..) => fprec::IMPLIES,
        FormulaKind::Or(fs) if fs.len() >= 2 => fprec::OR,
        FormulaKind::And(fs) if fs.len() >= 2 => fprec::AND,
        // A one-operand chain prints as its operand.
        FormulaKind::And(fs) | FormulaKind::Or(fs) if fs.len() == 1 => formula_prec(&fs[0]),
        FormulaKind::Not(_)
        | FormulaKind::Exists { .. }
        | FormulaKind::Forall { .. }
        | FormulaKind::Fixpoint { .. }
        | FormulaKind::Tc { .. }
        | FormulaKind::Let { .. }
        | FormulaKind::LetReal { .. } => fprec::PREFIX,
        _ => fprec::ATOM,
    }
}

/// Whether the construct extends as far right as possible, so that it must
/// be bracketed when anything follows it.
fn formula_open_right(f: &Formula) -> bool {
    match &f.kind {
        FormulaKind::Exists { .. }
        | FormulaKind::Forall { .. }
        | FormulaKind::Fixpoint { .. }
        | FormulaKind::Tc { .. }
        | FormulaKind::Let { .. }
        | FormulaKind::LetReal { .. } => true,
        FormulaKind::And(fs) | FormulaKind::Or(fs) if fs.len() == 1 => formula_open_right(&fs[0]),
        _ => false,
    }
}

fn term_prec(t: &Term) -> u8 {
    match t.kind {
        TermKind::Add(..) | TermKind::Sub(..) | TermKind::Let { .. } => tprec::SUM,
        TermKind::Mul(..) | TermKind::Div(..) => tprec::PRODUCT,
        TermKind::Neg(_) => tprec::NEG,
        TermKind::Pow(..) => tprec::POW,
        _ => tprec::ATOM,
    }
}
