//! Pictures of structures: a text board for the terminal and an SVG drawing.
//!
//! A structure is drawn as a board when elements carry the integral `x` and
//! `y` positions that the board literal creates and are linked by binary
//! relations (`R`, `C`, or a game's own such as draughts' diagonals): one
//! square per such element, pieces shown by the names of the unary
//! relations it is in. Elements off the grid (a chess clock, a die) are
//! listed below the board with their unary relations and function values.
//! Any other structure is drawn as a graph: elements on a circle labelled
//! with their unary relations, binary relations as arrows.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write;

use toss_core::{Elem, Structure};

/// A board view: cells by (column, row), 1-based, with their piece labels,
/// and the elements that are not on the grid.
pub struct Board {
    pub columns: i64,
    pub rows: i64,
    /// (column, row) -> (element, labels of the unary relations it is in)
    pub cells: BTreeMap<(i64, i64), (Elem, Vec<String>)>,
    /// The other elements, in element order.
    pub off_grid: Vec<OffGrid>,
}

/// An element that is not a square of the board.
pub struct OffGrid {
    pub elem: Elem,
    pub name: String,
    /// The unary relations it is in.
    pub labels: Vec<String>,
    /// Function values (position functions only when not 0).
    pub values: Vec<(String, f64)>,
}

impl OffGrid {
    /// `clock: Clock; n = 0, ep = 0`.
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        if !self.labels.is_empty() {
            parts.push(self.labels.join(", "));
        }
        if !self.values.is_empty() {
            let values: Vec<String> = self
                .values
                .iter()
                .map(|(f, v)| format!("{f} = {v}"))
                .collect();
            parts.push(values.join(", "));
        }
        if parts.is_empty() {
            self.name.clone()
        } else {
            format!("{}: {}", self.name, parts.join("; "))
        }
    }
}

/// The unary relations an element is in. (The board literal's relations
/// `R`, `C`, `DiagA`, `DiagB` are binary, so a unary relation of any name,
/// such as the cat `C` of cat-and-mouse, is a piece.)
pub fn unary_labels(s: &Structure, e: Elem) -> Vec<String> {
    (0..s.num_relations())
        .filter(|&r| s.arity(r) == 1 && s.contains(r, &[e]))
        .map(|r| s.relation_name(r).to_string())
        .collect()
}

/// The square of `e` from its `x`/`y` values, if they are integral and
/// positive (the board literal numbers columns and rows from 1).
fn position(s: &Structure, fx: usize, fy: usize, e: Elem) -> Option<(i64, i64)> {
    let (x, y) = (s.fun_value(fx, e), s.fun_value(fy, e));
    let square = |v: f64| (v.fract() == 0.0 && (1.0..=1e4).contains(&v)).then_some(v as i64);
    Some((square(x)?, square(y)?))
}

/// The board view of a structure, or `None` if no elements form a grid.
/// An element is a square when it has a position (see [`position`]) and a
/// binary relation links it to another element with a position: a lone
/// point with integral coordinates (the mouse of cat-and-mouse at (5, 5))
/// is not a board. Two squares at one position make no board either.
pub fn board(s: &Structure) -> Option<Board> {
    let fx = s.function("x")?;
    let fy = s.function("y")?;
    let placed: BTreeMap<Elem, (i64, i64)> = s
        .elements()
        .filter_map(|e| Some((e, position(s, fx, fy, e)?)))
        .collect();
    let mut linked: HashSet<Elem> = HashSet::new();
    for r in (0..s.num_relations()).filter(|&r| s.arity(r) == 2) {
        for t in s.tuples(r) {
            if t[0] != t[1] && placed.contains_key(&t[0]) && placed.contains_key(&t[1]) {
                linked.extend([t[0], t[1]]);
            }
        }
    }
    let mut cells = BTreeMap::new();
    let mut off_grid = Vec::new();
    for e in s.elements() {
        match placed.get(&e) {
            Some(&at) if linked.contains(&e) => {
                if cells.insert(at, (e, unary_labels(s, e))).is_some() {
                    return None;
                }
            }
            _ => {
                let values = (0..s.num_functions())
                    .map(|f| (s.function_name(f), s.fun_value(f, e)))
                    .filter(|&(name, v)| !((name == "x" || name == "y") && v == 0.0))
                    .map(|(name, v)| (name.to_string(), v))
                    .collect();
                off_grid.push(OffGrid {
                    elem: e,
                    name: s.element_name(e).to_string(),
                    labels: unary_labels(s, e),
                    values,
                });
            }
        }
    }
    let columns = cells.keys().map(|k| k.0).max()?;
    let rows = cells.keys().map(|k| k.1).max()?;
    Some(Board {
        columns,
        rows,
        cells,
        off_grid,
    })
}

/// Column letters as in the board literal: a..z, then aa, ab, ...
pub fn column_name(mut col: i64) -> String {
    let mut name = Vec::new();
    while col > 0 {
        col -= 1;
        name.push(b'a' + (col % 26) as u8);
        col /= 26;
    }
    name.reverse();
    String::from_utf8(name).unwrap_or_default()
}

/// The board as text, top row first, with coordinates, then one line per
/// element off the grid; `None` if the structure is not a board.
pub fn board_text(s: &Structure) -> Option<String> {
    let b = board(s)?;
    let width = b
        .cells
        .values()
        .map(|(_, l)| l.join("+").chars().count())
        .max()
        .unwrap_or(1)
        .max(1);
    let mut out = String::new();
    for row in (1..=b.rows).rev() {
        let _ = write!(out, "{row:>3} ");
        for col in 1..=b.columns {
            let cell = match b.cells.get(&(col, row)) {
                Some((_, l)) if !l.is_empty() => l.join("+"),
                Some(_) => ".".to_string(),
                None => " ".to_string(),
            };
            let _ = write!(out, " {cell:<width$}");
        }
        out.push('\n');
    }
    out.push_str("    ");
    for col in 1..=b.columns {
        let _ = write!(out, " {:<width$}", column_name(col));
    }
    out.push('\n');
    for o in &b.off_grid {
        let _ = writeln!(out, "  {}", o.text());
    }
    Some(out)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A stable colour for a relation name.
fn colour(name: &str) -> String {
    let h = name
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    format!("hsl({}, 65%, 45%)", h % 360)
}

/// An SVG picture of the structure: a board if it is one, else a graph.
pub fn svg(s: &Structure) -> String {
    match board(s) {
        Some(b) => board_svg(&b),
        None => graph_svg(s),
    }
}

fn board_svg(b: &Board) -> String {
    const CELL: i64 = 48;
    const MARGIN: i64 = 24;
    // One line of text per element off the grid, below the board.
    const LINE: i64 = 18;
    let board_h = b.rows * CELL + 2 * MARGIN;
    let text_w = b
        .off_grid
        .iter()
        .map(|o| o.text().chars().count() as i64 * 8 + 2 * MARGIN)
        .max()
        .unwrap_or(0);
    let w = (b.columns * CELL + 2 * MARGIN).max(text_w);
    let h = board_h + LINE * b.off_grid.len() as i64;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n"
    );
    let _ = writeln!(out, "<rect width=\"{w}\" height=\"{h}\" fill=\"#f7f3e8\"/>");
    for (&(col, row), (_, labels)) in &b.cells {
        let x = MARGIN + (col - 1) * CELL;
        let y = MARGIN + (b.rows - row) * CELL;
        let fill = if (col + row) % 2 == 0 {
            "#d9c8a0"
        } else {
            "#efe4c8"
        };
        let _ = writeln!(
            out,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{fill}\" stroke=\"#8a7a5a\"/>"
        );
        for (i, l) in labels.iter().enumerate() {
            let (cx, cy) = (x + CELL / 2, y + CELL / 2);
            let r = CELL / 2 - 6 - 4 * i as i64;
            if r <= 2 {
                break;
            }
            let _ = writeln!(
                out,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" fill=\"{}\" fill-opacity=\"0.85\"/>",
                colour(l)
            );
        }
        if !labels.is_empty() {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"white\">{}</text>",
                x + CELL / 2,
                y + CELL / 2 + 4,
                escape(&labels.join("+"))
            );
        }
    }
    for col in 1..=b.columns {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
            MARGIN + (col - 1) * CELL + CELL / 2,
            board_h - 6,
            column_name(col)
        );
    }
    for (i, o) in b.off_grid.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"{MARGIN}\" y=\"{}\" font-size=\"13\">{}</text>",
            board_h + LINE * i as i64 + 12,
            escape(&o.text())
        );
    }
    for row in 1..=b.rows {
        let _ = writeln!(
            out,
            "<text x=\"12\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{row}</text>",
            MARGIN + (b.rows - row) * CELL + CELL / 2 + 4
        );
    }
    out.push_str("</svg>\n");
    out
}

fn graph_svg(s: &Structure) -> String {
    let elems: Vec<Elem> = s.elements().collect();
    let n = elems.len().max(1) as f64;
    let radius = 60.0 + 18.0 * n;
    let size = 2.0 * radius + 160.0;
    let centre = size / 2.0;
    let pos: BTreeMap<Elem, (f64, f64)> = elems
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            let a = std::f64::consts::TAU * i as f64 / n - std::f64::consts::FRAC_PI_2;
            (e, (centre + radius * a.cos(), centre + radius * a.sin()))
        })
        .collect();
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{size:.0}\" height=\"{size:.0}\" \
         viewBox=\"0 0 {size:.0} {size:.0}\" font-family=\"sans-serif\">\n\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" \
         markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\"/></marker></defs>\n"
    );
    let _ = writeln!(
        out,
        "<rect width=\"{size:.0}\" height=\"{size:.0}\" fill=\"white\"/>"
    );
    for r in 0..s.num_relations() {
        if s.arity(r) != 2 {
            continue;
        }
        let c = colour(s.relation_name(r));
        for t in s.tuples(r) {
            let ((x1, y1), (x2, y2)) = (pos[&t[0]], pos[&t[1]]);
            let (dx, dy) = (x2 - x1, y2 - y1);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            let (ux, uy) = (dx / len * 16.0, dy / len * 16.0);
            let _ = writeln!(
                out,
                "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{c}\" \
                 marker-end=\"url(#arrow)\"><title>{}</title></line>",
                x1 + ux,
                y1 + uy,
                x2 - ux,
                y2 - uy,
                escape(s.relation_name(r))
            );
        }
    }
    for &e in &elems {
        let (x, y) = pos[&e];
        let _ = writeln!(
            out,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"14\" fill=\"#eef\" stroke=\"#335\"/>\n\
             <text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            y + 4.0,
            escape(s.element_name(e))
        );
        let labels = unary_labels(s, e);
        if !labels.is_empty() {
            let _ = writeln!(
                out,
                "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#a33\">{}</text>",
                y + 28.0,
                escape(&labels.join(", "))
            );
        }
    }
    // A legend of binary relations, so arrows can be told apart.
    let mut ly = 16.0;
    for r in 0..s.num_relations() {
        if s.arity(r) == 2 {
            let name = s.relation_name(r);
            let _ = writeln!(
                out,
                "<text x=\"8\" y=\"{ly:.0}\" font-size=\"12\" fill=\"{}\">&#8594; {}</text>",
                colour(name),
                escape(name)
            );
            ly += 16.0;
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Structure {
        let mut s = Structure::new();
        let fx = s.declare_function("x");
        let fy = s.declare_function("y");
        let p = s.declare_relation("P", 1).unwrap_or(0);
        for (name, x, y) in [
            ("a1", 1.0, 1.0),
            ("b1", 2.0, 1.0),
            ("a2", 1.0, 2.0),
            ("b2", 2.0, 2.0),
        ] {
            let e = s.add_element(name);
            s.set_fun_value(fx, e, x);
            s.set_fun_value(fy, e, y);
        }
        let b2 = s.element("b2").unwrap_or(0);
        s.add_tuple(p, &[b2]);
        // The board literal's `R` links the squares.
        let r = s.declare_relation("R", 2).unwrap_or(0);
        for (a, b) in [("a1", "b1"), ("a2", "b2")] {
            let (a, b) = (s.element(a).unwrap_or(0), s.element(b).unwrap_or(0));
            s.add_tuple(r, &[a, b]);
        }
        s
    }

    /// `grid()` with a clock off the board (x = y = 0), in the unary
    /// relation `C` and with a function value.
    fn grid_with_clock() -> Structure {
        let mut s = grid();
        let clock = s.add_element("clock");
        let c = s.declare_relation("C", 1).unwrap_or(0);
        s.add_tuple(c, &[clock]);
        let n = s.declare_function("n");
        s.set_fun_value(n, clock, 7.0);
        s
    }

    #[test]
    fn elements_off_the_grid_are_listed_below_the_board() {
        let s = grid_with_clock();
        let text = board_text(&s).unwrap_or_default();
        assert_eq!(text, "  2  . P\n  1  . .\n     a b\n  clock: C; n = 7\n");
        let pic = svg(&s);
        assert_eq!(pic.matches("<rect x=").count(), 4, "{pic}");
        assert!(pic.contains(">clock: C; n = 7</text>"), "{pic}");
        assert!(!pic.contains("marker-end"), "{pic}");
    }

    #[test]
    fn lone_points_with_positions_are_no_board() {
        // Cat and mouse: positions, no relation between the elements.
        let mut s = Structure::new();
        let (fx, fy) = (s.declare_function("x"), s.declare_function("y"));
        let c = s.declare_relation("C", 1).unwrap_or(0);
        let cat = s.add_element("c");
        let mouse = s.add_element("m");
        s.add_tuple(c, &[cat]);
        s.set_fun_value(fx, mouse, 5.0);
        s.set_fun_value(fy, mouse, 5.0);
        assert!(board(&s).is_none());
        // The graph labels the cat with its unary `C`.
        assert!(svg(&s).contains(">C</text>"));
    }

    #[test]
    fn board_text_puts_row_one_at_the_bottom() {
        let text = board_text(&grid()).unwrap_or_default();
        assert_eq!(text, "  2  . P\n  1  . .\n     a b\n");
    }

    #[test]
    fn column_names_continue_past_z() {
        assert_eq!(column_name(1), "a");
        assert_eq!(column_name(26), "z");
        assert_eq!(column_name(27), "aa");
        assert_eq!(column_name(28), "ab");
    }

    #[test]
    fn svg_of_board_and_of_graph() {
        let s = grid();
        let pic = svg(&s);
        assert!(pic.starts_with("<svg") && pic.contains(">P</text>"));
        let mut g = Structure::new();
        let a = g.add_element("a");
        let b = g.add_element("b");
        let e = g.declare_relation("E", 2).unwrap_or(0);
        g.add_tuple(e, &[a, b]);
        let pic = svg(&g);
        assert!(pic.contains("marker-end") && pic.contains(">a</text>"));
    }
}
