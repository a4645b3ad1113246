//! Long real terms and formulas on several lines, indented by structure,
//! for people to read (`toss heuristic`). The layout starts from the
//! canonical one-line text (`toss::lang::print_real`) and only replaces
//! single spaces by a line break and indentation, so the result reads back
//! as the same term.
//!
//! A part that fits in the width stays on one line. Otherwise a chain of
//! one operator (`+`/`-`, `and`, `or`, `->`, `<->`) gets one operand per
//! line, the operator first; a bracket that does not fit opens a new level
//! indented by four, and an aggregate `Sum (x | guard :` keeps its guard on
//! the opening line with the body below.

use toss_core::ir::RealExpr;

/// How many columns a continuation adds.
const STEP: usize = 4;

/// `t` laid out to fit in `width` columns where possible; the first line
/// starts at column `start` (after text already written), the others at
/// `indent` or deeper. Lines after the first carry their indentation.
pub fn real(t: &RealExpr, start: usize, indent: usize, width: usize) -> String {
    text(&toss_lang::print_real(t), start, indent, width)
}

/// [`real`] on text printed by `toss::lang::print_real` or `print_formula`.
pub fn text(flat: &str, start: usize, indent: usize, width: usize) -> String {
    let pieces = parse(flat);
    let mut l = Layout {
        width,
        lines: vec![" ".repeat(start)],
    };
    l.seq(&pieces, indent, 0);
    let mut out = l.lines.join("\n");
    out.drain(..start);
    out
}

#[derive(Debug)]
enum Piece {
    Text(String),
    /// The contents of a bracket.
    Group(Vec<Piece>),
    /// ` op `, a place to break the line: its operator and its strength.
    Break(&'static str, u8),
}

/// Binary operators with a space on each side, loosest first: the
/// aggregate's `:`, then formulas' connectives, then sums.
const BREAKS: [(&str, u8); 7] = [
    (" : ", 0),
    (" <-> ", 1),
    (" -> ", 2),
    (" or ", 3),
    (" and ", 4),
    (" + ", 5),
    (" - ", 5),
];

fn parse(text: &str) -> Vec<Piece> {
    let mut rest = text;
    let pieces = parse_level(&mut rest);
    // A stray `)` (not from the printer) is kept as text.
    if rest.is_empty() {
        pieces
    } else {
        vec![Piece::Text(text.to_string())]
    }
}

/// Pieces up to the `)` closing this level (consumed) or the end.
fn parse_level(rest: &mut &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let flush = |text: &mut String, pieces: &mut Vec<Piece>| {
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(text)));
        }
    };
    while let Some(c) = rest.chars().next() {
        if c == '(' {
            flush(&mut text, &mut pieces);
            *rest = &rest[1..];
            pieces.push(Piece::Group(parse_level(rest)));
            continue;
        }
        if c == ')' {
            *rest = &rest[1..];
            break;
        }
        if c == ' '
            && let Some(&(op, strength)) = BREAKS.iter().find(|(op, _)| rest.starts_with(op))
        {
            flush(&mut text, &mut pieces);
            *rest = &rest[op.len()..];
            pieces.push(Piece::Break(op.trim(), strength));
            continue;
        }
        text.push(c);
        *rest = &rest[c.len_utf8()..];
    }
    flush(&mut text, &mut pieces);
    pieces
}

/// The one-line text of some pieces, as they were parsed from.
fn flat(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Group(g) => {
                out.push('(');
                out.push_str(&flat(g));
                out.push(')');
            }
            Piece::Break(op, _) => {
                out.push(' ');
                out.push_str(op);
                out.push(' ');
            }
        }
    }
    out
}

/// An operand of a chain, with the operator before it (none for the first).
type Operand<'a> = (Option<&'static str>, &'a [Piece]);

/// The operands of the loosest operator in `pieces` (its strength, and each
/// operand with the operator before it), or `None` without operators.
fn split(pieces: &[Piece]) -> Option<(u8, Vec<Operand<'_>>)> {
    let loosest = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Break(_, s) => Some(*s),
            _ => None,
        })
        .min()?;
    let mut parts = Vec::new();
    let (mut from, mut op) = (0, None);
    for (i, p) in pieces.iter().enumerate() {
        if let Piece::Break(o, s) = p
            && *s == loosest
        {
            parts.push((op, &pieces[from..i]));
            (from, op) = (i + 1, Some(*o));
        }
    }
    parts.push((op, &pieces[from..]));
    Some((loosest, parts))
}

struct Layout {
    width: usize,
    lines: Vec<String>,
}

impl Layout {
    fn column(&self) -> usize {
        self.lines.last().map_or(0, |l| l.chars().count())
    }

    fn push(&mut self, s: &str) {
        if let Some(l) = self.lines.last_mut() {
            l.push_str(s);
        }
    }

    fn newline(&mut self, indent: usize) {
        self.lines.push(" ".repeat(indent));
    }

    fn fits(&self, len: usize) -> bool {
        self.column() + len <= self.width
    }

    /// Writes `pieces`, continuation lines at `indent`; `trail` characters
    /// will follow on the last line.
    fn seq(&mut self, pieces: &[Piece], indent: usize, trail: usize) {
        let one_line = flat(pieces);
        if self.fits(one_line.chars().count() + trail) {
            self.push(&one_line);
            return;
        }
        if let Some((_, parts)) = split(pieces) {
            let n = parts.len();
            for (k, (op, part)) in parts.into_iter().enumerate() {
                if let Some(op) = op {
                    self.newline(indent);
                    self.push(op);
                    self.push(" ");
                }
                self.seq(part, indent, if k + 1 == n { trail } else { 0 });
            }
            return;
        }
        for (k, p) in pieces.iter().enumerate() {
            match p {
                Piece::Text(t) => self.push(t),
                Piece::Group(g) => {
                    let after = flat(&pieces[k + 1..]).chars().count() + trail;
                    self.group(g, indent, after);
                }
                // `split` found no operator.
                Piece::Break(..) => {}
            }
        }
    }

    /// Writes a bracket with contents `pieces`, opened on the current line.
    fn group(&mut self, pieces: &[Piece], indent: usize, trail: usize) {
        let one_line = flat(pieces);
        if self.fits(one_line.chars().count() + 2 + trail) {
            self.push(&format!("({one_line})"));
            return;
        }
        self.push("(");
        let inner = indent + STEP;
        match split(pieces) {
            // `Sum (x | guard :` on this line, the body below.
            Some((0, parts)) => {
                let n = parts.len();
                for (k, (op, part)) in parts.into_iter().enumerate() {
                    let last = k + 1 == n;
                    if op.is_some() {
                        self.newline(inner);
                    }
                    self.seq(part, inner, if last { trail + 1 } else { 2 });
                    if !last {
                        self.push(" :");
                    }
                }
            }
            _ => {
                self.newline(inner);
                self.seq(pieces, inner, trail + 1);
            }
        }
        self.push(")");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NESTED: &str = "Sum (x | P(x) : 0.0625 + Sum (y | P(y) and R(x, y) : 0.25 + \
        Sum (z | P(z) and R(y, z) : 1.0))) - (Sum (x | Q(x) : 0.5) + :(ex a (W(a) and C(a, a))))";

    #[test]
    fn parsing_keeps_the_text() {
        assert_eq!(flat(&parse(NESTED)), NESTED);
    }

    #[test]
    fn what_fits_stays_on_one_line() {
        assert_eq!(text(NESTED, 0, 4, 200), NESTED);
    }

    #[test]
    fn summands_go_one_per_line_and_nested_sums_deeper() {
        let laid = text(NESTED, 0, 0, 44);
        assert_eq!(
            laid,
            "Sum (x | P(x) :
    0.0625
    + Sum (y | P(y) and R(x, y) :
        0.25
        + Sum (z | P(z) and R(y, z) : 1.0)))
- (
    Sum (x | Q(x) : 0.5)
    + :(ex a (W(a) and C(a, a))))"
        );
        // Only spaces became line breaks and indentation.
        let squashed: Vec<&str> = laid.split_whitespace().collect();
        let one: Vec<&str> = NESTED.split_whitespace().collect();
        assert_eq!(squashed.join(" ").replace("( ", "("), one.join(" "));
        assert!(laid.lines().all(|l| l.len() <= 44), "{laid}");
    }

    /// The layout reads back as the term it shows.
    #[test]
    fn the_layout_parses_back_to_the_same_term() {
        let t = toss_lang::parse_term(NESTED).expect("a term");
        for width in [20, 40, 60, 80] {
            let laid = real(&t, 10, 4, width);
            let back = toss_lang::parse_term(&laid).expect("parses");
            assert_eq!(back, t, "{laid}");
        }
    }
}
