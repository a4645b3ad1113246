//! Pictures of structures: a text board for the terminal and an SVG drawing.
//!
//! A structure is drawn as a board when elements carry the integral `x` and
//! `y` positions that the board literal creates and are linked by binary
//! relations (`R`, `C`, or a game's own such as draughts' diagonals): one
//! square per such element, pieces shown by symbols read off the unary
//! relations it is in ([`crate::glyphs`]), with a legend. Elements off the
//! grid (a chess clock, a die) are listed beside the board with their unary
//! relations and function values.
//!
//! A structure of GDL fluents (one element per argument, see
//! `toss_gdl::ground::fluents_structure`) is a board when a relation has
//! two arguments ranging over small ordered sets of numbers or letters,
//! the coordinates, with the rest of its arguments, if any, the content of
//! the cell (`(cell 1 1 x)`, `(cellHolds 3 2 white)`, `(cell a 1 wr)`);
//! the other fluents are listed beside it. Other fluent structures are a
//! table of facts grouped by relation, and any other structure a graph:
//! elements on a circle labelled with their unary relations and function
//! values, binary relations as arrows.
//!
//! The SVG is laid out first as a [`Drawing`]: every text has the box it
//! must stay in and is shrunk or shortened to fit it by an estimate of its
//! width ([`text_width`]), so a test can check the layout (and, rendered
//! with a real font, the glyphs) against the boxes.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write;

use toss_core::{Elem, Structure};

use crate::glyphs::{Colour, Piece, Symbols};

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
                .map(|(f, v)| format!("{f} = {}", number(*v)))
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

/// A function value for people: whole numbers as such, others to four
/// decimals without trailing zeros (a height of 3.6719, not
/// 3.6718879885732427).
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let t = format!("{v:.4}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    if t == "-0" { "0".into() } else { t.to_string() }
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
    // An element off the grid placed on a square by a binary relation
    // (sokoban's man and boxes, `At(object, cell)`) is drawn there too:
    // its unary relations join the square's.
    let square_of: HashMap<Elem, (i64, i64)> = cells.iter().map(|(&at, (e, _))| (*e, at)).collect();
    for o in &off_grid {
        if o.labels.is_empty() {
            continue;
        }
        for r in (0..s.num_relations()).filter(|&r| s.arity(r) == 2) {
            for t in s.tuples(r) {
                if t[0] == o.elem
                    && let Some(at) = square_of.get(&t[1])
                    && let Some((_, labels)) = cells.get_mut(at)
                {
                    for l in &o.labels {
                        if !labels.contains(l) {
                            labels.push(l.clone());
                        }
                    }
                }
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

/// What a picture shows.
pub enum View {
    Grid(Grid),
    /// Fluents grouped by relation: (relation, the tuples' texts).
    Facts(Vec<(String, Vec<String>)>),
    Graph,
}

/// A board to draw: squares by (column, row) index from the bottom left,
/// each with its piece, if any.
pub struct Grid {
    /// Column labels, left to right.
    pub columns: Vec<String>,
    /// Row labels, bottom to top.
    pub rows: Vec<String>,
    pub cells: BTreeMap<(usize, usize), Option<Piece>>,
    /// Symbol -> what it stands for.
    pub legend: Vec<(Piece, String)>,
    /// Lines about what is not on the board (a clock, `control xplayer`).
    pub notes: Vec<String>,
}

/// How to draw `s`; `players` (the game's player names) give the marks
/// `P` and `Q` their symbols.
pub fn view(s: &Structure, players: &[String]) -> View {
    if let Some(b) = board(s) {
        return View::Grid(toss_grid(s, &b, players));
    }
    if let Some(g) = fluent_grid(s, players) {
        return View::Grid(g);
    }
    if is_fluents(s) {
        return View::Facts(facts(s, |_| true));
    }
    View::Graph
}

fn toss_grid(s: &Structure, b: &Board, players: &[String]) -> Grid {
    let unary: Vec<String> = (0..s.num_relations())
        .filter(|&r| s.arity(r) == 1)
        .map(|r| s.relation_name(r).to_string())
        .collect();
    let symbols = Symbols::new(&unary, players);
    let mut drawn = Vec::new();
    let mut cells = BTreeMap::new();
    for (&(col, row), (_, labels)) in &b.cells {
        let piece = symbols.piece(labels);
        if let Some(p) = &piece {
            drawn.push((p.clone(), labels.clone()));
        }
        cells.insert(((col - 1) as usize, (row - 1) as usize), piece);
    }
    Grid {
        columns: (1..=b.columns).map(column_name).collect(),
        rows: (1..=b.rows).map(|r| r.to_string()).collect(),
        cells,
        legend: symbols.legend(&drawn),
        notes: b.off_grid.iter().map(OffGrid::text).collect(),
    }
}

/// A coordinate: a small integer or a single letter.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Coord {
    Num(i64),
    Letter(char),
}

fn coord(name: &str) -> Option<Coord> {
    if let Ok(n) = name.parse::<i64>() {
        return (-1..=64).contains(&n).then_some(Coord::Num(n));
    }
    let mut cs = name.chars();
    match (cs.next(), cs.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Some(Coord::Letter(c.to_ascii_lowercase())),
        _ => None,
    }
}

/// The labels of an axis over the values seen: numbers from 1 (or the
/// least, if lower) to the greatest, letters from `a` to the greatest, so
/// that a board with few pieces keeps its first rows and columns. `None`
/// when the values mix numbers and letters, are fewer than two or span
/// more than 32.
fn axis(values: &BTreeSet<Coord>) -> Option<Vec<Coord>> {
    if values.len() < 2 {
        return None;
    }
    let (first, last) = (*values.first()?, *values.last()?);
    let out: Vec<Coord> = match (first, last) {
        (Coord::Num(a), Coord::Num(b)) => (a.min(1)..=b).map(Coord::Num).collect(),
        (Coord::Letter(a), Coord::Letter(b)) => ('a'.min(a)..=b).map(Coord::Letter).collect(),
        _ => return None,
    };
    (out.len() <= 32).then_some(out)
}

fn coord_text(c: Coord) -> String {
    match c {
        Coord::Num(n) => n.to_string(),
        Coord::Letter(c) => c.to_string(),
    }
}

/// Contents that mean an empty cell.
fn is_blank(content: &str) -> bool {
    matches!(
        content.to_ascii_lowercase().as_str(),
        "b" | "blank" | "empty" | "e" | "none" | "nil"
    )
}

/// A structure of fluents rather than one written in Toss: a relation
/// other than unary or binary (GDL's `(cell 1 1 b)` or a constant), or an
/// element named by a number or a compound term, which a Toss element
/// name never is; and no function values.
fn is_fluents(s: &Structure) -> bool {
    s.num_functions() == 0
        && ((0..s.num_relations()).any(|r| !matches!(s.arity(r), 1 | 2))
            || s.elements().any(|e| {
                let n = s.element_name(e);
                n.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '(')
                    || n.contains(' ')
            }))
}

/// The board of a fluent structure (see the module doc), or `None`.
/// Among relations and pairs of argument places, the one covering most
/// fluents wins; the earlier places on a tie, so `(cell x y ...)` reads
/// `x` as the column. With content arguments the two coordinates must
/// determine the content (one piece per cell); a bare `(mark x y)` needs
/// coordinates of one kind, so `(heap a 3)` (a nim heap and its size) is
/// no board.
fn fluent_grid(s: &Structure, players: &[String]) -> Option<Grid> {
    if !is_fluents(s) {
        return None;
    }
    // (fluents covered, relation, column place, row place, the axes)
    type Choice = (usize, usize, usize, usize, Vec<Coord>, Vec<Coord>);
    let mut best: Option<Choice> = None;
    for r in 0..s.num_relations() {
        let arity = s.arity(r);
        let tuples = s.tuples(r);
        if arity < 2 || tuples.len() < 2 {
            continue;
        }
        for i in 0..arity {
            for j in i + 1..arity {
                let read = |k: usize| -> Option<BTreeSet<Coord>> {
                    tuples.iter().map(|t| coord(s.element_name(t[k]))).collect()
                };
                let (Some(xs), Some(ys)) = (read(i), read(j)) else {
                    continue;
                };
                let (Some(ax), Some(ay)) = (axis(&xs), axis(&ys)) else {
                    continue;
                };
                let same_kind = matches!(
                    (ax[0], ay[0]),
                    (Coord::Num(_), Coord::Num(_)) | (Coord::Letter(_), Coord::Letter(_))
                );
                let keys: BTreeSet<(u32, u32)> = tuples.iter().map(|t| (t[i], t[j])).collect();
                let ok = if arity == 2 {
                    same_kind
                } else {
                    keys.len() == tuples.len()
                };
                if ok && best.as_ref().is_none_or(|b| tuples.len() > b.0) {
                    best = Some((tuples.len(), r, i, j, ax, ay));
                }
            }
        }
    }
    let (_, r, i, j, ax, ay) = best?;
    let tuples = s.tuples(r);
    let content = |t: &[Elem]| -> String {
        if t.len() == 2 {
            return s.relation_name(r).to_string();
        }
        t.iter()
            .enumerate()
            .filter(|&(k, _)| k != i && k != j)
            .map(|(_, &e)| s.element_name(e))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let placed: Vec<((usize, usize), String)> = tuples
        .iter()
        .filter_map(|t| {
            let x = ax
                .iter()
                .position(|&c| Some(c) == coord(s.element_name(t[i])))?;
            let y = ay
                .iter()
                .position(|&c| Some(c) == coord(s.element_name(t[j])))?;
            Some(((x, y), content(t)))
        })
        .collect();
    let names: Vec<String> = placed
        .iter()
        .map(|(_, c)| c.clone())
        .filter(|c| !is_blank(c))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let symbols = Symbols::new(&names, players);
    let mut cells: BTreeMap<(usize, usize), Option<Piece>> = BTreeMap::new();
    for x in 0..ax.len() {
        for y in 0..ay.len() {
            cells.insert((x, y), None);
        }
    }
    let mut drawn = Vec::new();
    for (at, c) in placed {
        if is_blank(&c) {
            continue;
        }
        let names = vec![c];
        let piece = symbols.piece(&names);
        if let Some(p) = &piece {
            drawn.push((p.clone(), names));
        }
        cells.insert(at, piece);
    }
    let notes = facts(s, |q| q != r)
        .into_iter()
        .map(|(rel, ts)| fact_line(&rel, &ts))
        .collect();
    Some(Grid {
        columns: ax.into_iter().map(coord_text).collect(),
        rows: ay.into_iter().map(coord_text).collect(),
        cells,
        legend: symbols.legend(&drawn),
        notes,
    })
}

/// `control: xplayer`, `step: 3`, `cell: 1 1 b; 1 2 x`, or a constant.
fn fact_line(rel: &str, tuples: &[String]) -> String {
    if tuples.iter().all(String::is_empty) {
        rel.to_string()
    } else {
        format!("{rel}: {}", tuples.join("; "))
    }
}

/// The relations (chosen by `keep`) with their tuples as text, arguments
/// separated by spaces, in relation order; empty relations left out.
fn facts(s: &Structure, keep: impl Fn(usize) -> bool) -> Vec<(String, Vec<String>)> {
    (0..s.num_relations())
        .filter(|&r| keep(r))
        .filter_map(|r| {
            let tuples: Vec<String> = s
                .tuples(r)
                .iter()
                .map(|t| {
                    t.iter()
                        .map(|&e| s.element_name(e))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            (!tuples.is_empty()).then(|| (s.relation_name(r).to_string(), tuples))
        })
        .collect()
}

/// An element with its unary relations and all its function values, as
/// the graph and the text of a structure that is no board list it.
fn element_line(s: &Structure, e: Elem) -> String {
    OffGrid {
        elem: e,
        name: s.element_name(e).to_string(),
        labels: unary_labels(s, e),
        values: (0..s.num_functions())
            .map(|f| (s.function_name(f).to_string(), s.fun_value(f, e)))
            .collect(),
    }
    .text()
}

/// The board as text, top row first, with coordinates, the legend and
/// the notes; `None` if the structure is not a board (see [`view`]).
pub fn board_text(s: &Structure) -> Option<String> {
    match view(s, &[]) {
        View::Grid(g) => Some(grid_text(&g)),
        _ => None,
    }
}

/// The picture of a structure for the terminal: a board, a table of
/// fluents, or the elements (with unary relations and function values)
/// and the other relations.
pub fn text(s: &Structure, players: &[String]) -> String {
    match view(s, players) {
        View::Grid(g) => grid_text(&g),
        View::Facts(groups) => {
            let mut out = String::new();
            for (rel, tuples) in groups {
                if tuples.len() == 1 {
                    let _ = writeln!(out, "  {}", fact_line(&rel, &tuples));
                } else {
                    let _ = writeln!(out, "  {rel}:");
                    for t in tuples {
                        let _ = writeln!(out, "    {t}");
                    }
                }
            }
            out
        }
        View::Graph => {
            let mut out = String::new();
            for e in s.elements() {
                let _ = writeln!(out, "  {}", element_line(s, e));
            }
            for (rel, tuples) in facts(s, |r| s.arity(r) != 1) {
                let _ = writeln!(out, "  {}", fact_line(&rel, &tuples));
            }
            out
        }
    }
}

fn grid_text(g: &Grid) -> String {
    let count = |t: &str| t.chars().count();
    let width = g
        .cells
        .values()
        .flatten()
        .map(|p| count(&p.full_text()))
        .chain(g.columns.iter().map(|c| count(c)))
        .max()
        .unwrap_or(1)
        .max(1);
    let label = g.rows.iter().map(|r| count(r)).max().unwrap_or(1).max(3);
    let mut out = String::new();
    for (y, row) in g.rows.iter().enumerate().rev() {
        let _ = write!(out, "{row:>label$} ");
        for x in 0..g.columns.len() {
            let cell = match g.cells.get(&(x, y)) {
                Some(Some(p)) => p.full_text(),
                Some(None) => ".".to_string(),
                None => " ".to_string(),
            };
            let _ = write!(out, " {cell}{}", " ".repeat(width - count(&cell)));
        }
        // No trailing spaces after the last cell.
        let trimmed = out.trim_end_matches(' ').len();
        out.truncate(trimmed);
        out.push('\n');
    }
    out.push_str(&" ".repeat(label + 1));
    for c in &g.columns {
        let _ = write!(out, " {c}{}", " ".repeat(width - count(c)));
    }
    let trimmed = out.trim_end_matches(' ').len();
    out.truncate(trimmed);
    out.push('\n');
    for (p, what) in &g.legend {
        let _ = writeln!(out, "  {} = {what}", p.text);
    }
    for n in &g.notes {
        let _ = writeln!(out, "  {n}");
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A stable colour for a relation name.
fn colour(name: &str) -> String {
    let h = name
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    format!("hsl({}, 65%, 45%)", h % 360)
}

/// The font of the pictures: DejaVu Sans has the chess and draughts
/// symbols and is what the width estimate is measured on; any sans-serif
/// font stands in where it is missing.
pub const FONT: &str = "DejaVu Sans, sans-serif";

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    /// Whether `o` lies inside this box (with a hundredth of a pixel of
    /// rounding allowed).
    pub fn contains(&self, o: &Rect) -> bool {
        const EPS: f64 = 0.01;
        o.x >= self.x - EPS
            && o.y >= self.y - EPS
            && o.x + o.w <= self.x + self.w + EPS
            && o.y + o.h <= self.y + self.h + EPS
    }
}

/// The width of a character in DejaVu Sans, in ems (its advance widths,
/// rounded up; symbols counted a full em).
fn char_width(c: char) -> f64 {
    match c {
        ' ' | '.' | ',' | ':' | ';' | '\'' | '|' | 'i' | 'j' | 'l' | 'I' | 'J' => 0.32,
        'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '{' | '}' | '-' | '/' | '!' | '`' => 0.42,
        '"' => 0.47,
        'm' | 'M' | 'W' | 'w' => 1.0,
        'a'..='z' | '0'..='9' | '_' | '*' | '?' | '#' | '$' => 0.64,
        'A'..='Z' | '&' | '%' | '@' => 0.8,
        '=' | '+' | '<' | '>' | '^' | '~' => 0.84,
        _ => 1.0,
    }
}

/// The estimated width of `text` at font size `size`.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().map(char_width).sum::<f64>() * size
}

/// How far the font reaches above and below the baseline, in ems (DejaVu
/// Sans' ascender and descender).
const ASCENT: f64 = 0.93;
const DESCENT: f64 = 0.24;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Anchor {
    Start,
    Middle,
}

/// A text and the box it must stay in.
#[derive(Clone, Debug)]
pub struct Label {
    pub text: String,
    /// The anchor point's x and the baseline's y.
    pub x: f64,
    pub y: f64,
    pub size: f64,
    pub anchor: Anchor,
    pub fill: String,
    /// `piece` for a piece on the board, `legend`, `note`...
    pub class: &'static str,
    /// Where the text must stay: its cell.
    pub cell: Rect,
}

impl Label {
    /// The box the text takes by the width estimate and the font's ascent
    /// and descent.
    pub fn extent(&self) -> Rect {
        let w = text_width(&self.text, self.size);
        let x = match self.anchor {
            Anchor::Start => self.x,
            Anchor::Middle => self.x - w / 2.0,
        };
        Rect {
            x,
            y: self.y - ASCENT * self.size,
            w,
            h: (ASCENT + DESCENT) * self.size,
        }
    }

    /// `text` in `cell`, at `size` or smaller (down to 7 px), shortened
    /// with an ellipsis if even that is too wide; centred vertically,
    /// horizontally centred or from the left edge (with a small pad).
    pub fn fit(text: &str, cell: Rect, size: f64, anchor: Anchor) -> Label {
        const PAD: f64 = 2.0;
        const MIN: f64 = 7.0;
        let room = (cell.w - 2.0 * PAD).max(0.0);
        // Tenths of a pixel, as the SVG writes it.
        let mut size = (size.min(cell.h / (ASCENT + DESCENT)) * 10.0)
            .floor()
            .max(10.0)
            / 10.0;
        while size > MIN && text_width(text, size) > room {
            size -= 0.5;
        }
        let mut t = text.to_string();
        if text_width(&t, size) > room {
            let chars: Vec<char> = text.chars().collect();
            t = (0..chars.len())
                .rev()
                .map(|k| chars[..k].iter().collect::<String>() + "…")
                .find(|c| text_width(c, size) <= room)
                .unwrap_or_default();
        }
        let x = match anchor {
            Anchor::Start => cell.x + PAD,
            Anchor::Middle => cell.x + cell.w / 2.0,
        };
        // The band from ascent to descent, centred in the cell.
        let y = cell.y + cell.h / 2.0 + (ASCENT - DESCENT) / 2.0 * size;
        Label {
            text: t,
            x,
            y,
            size,
            anchor,
            fill: "#222".to_string(),
            class: "",
            cell,
        }
    }

    fn with(mut self, fill: &str, class: &'static str) -> Label {
        self.fill = fill.to_string();
        self.class = class;
        self
    }
}

/// Shapes of a drawing.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A square of a board (the only shapes written with `x=`).
    Square {
        at: Rect,
        fill: &'static str,
    },
    Circle {
        cx: f64,
        cy: f64,
        r: f64,
        fill: String,
        stroke: String,
        stroke_width: f64,
    },
    /// An arrow, with the relation it stands for as its title.
    Arrow {
        from: (f64, f64),
        to: (f64, f64),
        colour: String,
        title: String,
    },
    Text(Label),
}

/// A picture laid out: its size and its shapes in drawing order.
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub background: &'static str,
    pub shapes: Vec<Shape>,
}

impl Drawing {
    pub fn labels(&self) -> impl Iterator<Item = &Label> {
        self.shapes.iter().filter_map(|s| match s {
            Shape::Text(l) => Some(l),
            _ => None,
        })
    }

    pub fn to_svg(&self) -> String {
        let (w, h) = (self.width.ceil(), self.height.ceil());
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"{FONT}\">\n"
        );
        if self.shapes.iter().any(|s| matches!(s, Shape::Arrow { .. })) {
            out.push_str(
                "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
                 markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\">\
                 <path d=\"M 0 0 L 10 5 L 0 10 z\"/></marker></defs>\n",
            );
        }
        let _ = writeln!(
            out,
            "<rect width=\"{w}\" height=\"{h}\" fill=\"{}\"/>",
            self.background
        );
        for s in &self.shapes {
            match s {
                Shape::Square { at, fill } => {
                    let _ = writeln!(
                        out,
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" stroke=\"#8a7a5a\"/>",
                        at.x, at.y, at.w, at.h
                    );
                }
                Shape::Circle {
                    cx,
                    cy,
                    r,
                    fill,
                    stroke,
                    stroke_width,
                } => {
                    let _ = writeln!(
                        out,
                        "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{r:.1}\" fill=\"{fill}\" \
                         stroke=\"{stroke}\" stroke-width=\"{stroke_width}\"/>"
                    );
                }
                Shape::Arrow {
                    from,
                    to,
                    colour,
                    title,
                } => {
                    let _ = writeln!(
                        out,
                        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" \
                         marker-end=\"url(#arrow)\"><title>{}</title></line>",
                        from.0,
                        from.1,
                        to.0,
                        to.1,
                        escape(title)
                    );
                }
                Shape::Text(l) if l.text.is_empty() => {}
                Shape::Text(l) => {
                    let anchor = match l.anchor {
                        Anchor::Start => "",
                        Anchor::Middle => " text-anchor=\"middle\"",
                    };
                    let class = if l.class.is_empty() {
                        String::new()
                    } else {
                        format!(" class=\"{}\"", l.class)
                    };
                    let _ = writeln!(
                        out,
                        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{}\"{anchor}{class} fill=\"{}\">{}</text>",
                        l.x,
                        l.y,
                        l.size,
                        l.fill,
                        escape(&l.text)
                    );
                }
            }
        }
        out.push_str("</svg>\n");
        out
    }
}

/// An SVG picture of the structure (see [`drawing`]), with no player names.
pub fn svg(s: &Structure) -> String {
    drawing(s, &[]).to_svg()
}

/// An SVG picture of the structure, `players` naming the marks `P`/`Q`.
pub fn svg_with(s: &Structure, players: &[String]) -> String {
    drawing(s, players).to_svg()
}

/// The layout of the picture of `s` (see [`view`]).
pub fn drawing(s: &Structure, players: &[String]) -> Drawing {
    match view(s, players) {
        View::Grid(g) => grid_drawing(&g),
        View::Facts(groups) => facts_drawing(&groups),
        View::Graph => graph_drawing(s),
    }
}

const CELL: f64 = 48.0;
const MARGIN: f64 = 24.0;
const LINE: f64 = 20.0;
const TEXT: f64 = 13.0;
/// How far a fact is indented under its relation.
const INDENT: f64 = 16.0;
/// The widest a column of text beside a picture grows before its lines
/// are shortened.
const MAX_TEXT_W: f64 = 420.0;

/// A piece drawn in the square `at`: a disc (with a ring for a king) or
/// its symbol, and its markers small in the top right corner.
fn draw_piece(out: &mut Vec<Shape>, p: &Piece, at: Rect, class: &'static str) {
    let (cx, cy) = (at.x + at.w / 2.0, at.y + at.h / 2.0);
    let r = at.w.min(at.h) * 0.36;
    match &p.disc {
        Some(c) => {
            out.push(Shape::Circle {
                cx,
                cy,
                r,
                fill: c.fill().to_string(),
                stroke: "#333".into(),
                stroke_width: 1.5,
            });
            if p.crowned {
                let ring = if *c == Colour::White {
                    "#b08a1e"
                } else {
                    "#e8c65a"
                };
                out.push(Shape::Circle {
                    cx,
                    cy,
                    r: r * 0.55,
                    fill: "none".into(),
                    stroke: ring.into(),
                    stroke_width: 2.5,
                });
            }
        }
        None => {
            let size = if p.text.chars().count() == 1 {
                at.h * 0.78
            } else {
                at.h * 0.42
            };
            out.push(Shape::Text(
                Label::fit(&p.text, at, size, Anchor::Middle).with("#111", class),
            ));
        }
    }
    if !p.marks.is_empty() {
        let corner = Rect {
            x: at.x + at.w * 0.62,
            y: at.y + 1.0,
            w: at.w * 0.38 - 1.0,
            h: at.h * 0.34,
        };
        out.push(Shape::Text(
            Label::fit(&p.marks, corner, at.h * 0.3, Anchor::Middle).with("#a33", "mark"),
        ));
    }
}

/// Lines of text in a column at (`x`, `y`), each in its own box of width
/// `w`; returns the y below them.
fn text_lines(
    out: &mut Vec<Shape>,
    lines: &[(String, &'static str)],
    x: f64,
    mut y: f64,
    w: f64,
) -> f64 {
    for (l, class) in lines {
        // Facts under their relation's heading are indented (by position:
        // SVG collapses leading spaces).
        let indent = if *class == "fact" { INDENT } else { 0.0 };
        let cell = Rect {
            x: x + indent,
            y,
            w: w - indent,
            h: LINE,
        };
        let fill = if *class == "heading" { "#000" } else { "#333" };
        out.push(Shape::Text(
            Label::fit(l, cell, TEXT, Anchor::Start).with(fill, class),
        ));
        y += LINE;
    }
    y
}

/// The width a column of these lines wants, at most [`MAX_TEXT_W`].
fn lines_width(lines: impl Iterator<Item = f64>) -> f64 {
    lines.fold(0.0, f64::max).min(MAX_TEXT_W)
}

fn grid_drawing(g: &Grid) -> Drawing {
    let (cols, rows) = (g.columns.len() as f64, g.rows.len() as f64);
    let board_w = cols * CELL + 2.0 * MARGIN;
    let board_h = rows * CELL + 2.0 * MARGIN;
    let mut shapes = Vec::new();
    let square = |x: usize, y: usize| Rect {
        x: MARGIN + x as f64 * CELL,
        y: MARGIN + (rows - 1.0 - y as f64) * CELL,
        w: CELL,
        h: CELL,
    };
    for (&(x, y), piece) in &g.cells {
        let fill = if (x + y) % 2 == 0 {
            "#b58863"
        } else {
            "#f0d9b5"
        };
        shapes.push(Shape::Square {
            at: square(x, y),
            fill,
        });
        if let Some(p) = piece {
            draw_piece(&mut shapes, p, square(x, y), "piece");
        }
    }
    for (x, c) in g.columns.iter().enumerate() {
        let at = Rect {
            x: MARGIN + x as f64 * CELL,
            y: MARGIN + rows * CELL,
            w: CELL,
            h: MARGIN,
        };
        shapes.push(Shape::Text(
            Label::fit(c, at, 12.0, Anchor::Middle).with("#555", "axis"),
        ));
    }
    for (y, r) in g.rows.iter().enumerate() {
        let at = Rect {
            x: 0.0,
            y: MARGIN + (rows - 1.0 - y as f64) * CELL,
            w: MARGIN,
            h: CELL,
        };
        shapes.push(Shape::Text(
            Label::fit(r, at, 12.0, Anchor::Middle).with("#555", "axis"),
        ));
    }
    // Beside the board: the legend (a small piece, then what it is), then
    // the notes.
    const SWATCH: f64 = 26.0;
    let legend_w = lines_width(
        g.legend
            .iter()
            .map(|(_, what)| SWATCH + 8.0 + text_width(what, TEXT)),
    );
    let notes_w = lines_width(g.notes.iter().map(|n| text_width(n, TEXT) + 6.0));
    let side_w = legend_w.max(notes_w);
    let side_x = board_w;
    let mut y = MARGIN;
    for (p, what) in &g.legend {
        let at = Rect {
            x: side_x,
            y,
            w: SWATCH,
            h: SWATCH,
        };
        draw_piece(&mut shapes, p, at, "legend");
        let cell = Rect {
            x: side_x + SWATCH + 4.0,
            y,
            w: side_w - SWATCH - 4.0,
            h: SWATCH,
        };
        shapes.push(Shape::Text(
            Label::fit(what, cell, TEXT, Anchor::Start).with("#333", "legend"),
        ));
        y += SWATCH + 2.0;
    }
    if !g.legend.is_empty() {
        y += 6.0;
    }
    let notes: Vec<(String, &'static str)> = g.notes.iter().map(|n| (n.clone(), "note")).collect();
    let y = text_lines(&mut shapes, &notes, side_x, y, side_w);
    let width = board_w + if side_w > 0.0 { side_w + MARGIN } else { 0.0 };
    Drawing {
        width,
        height: board_h.max(y + MARGIN),
        background: "#f7f3e8",
        shapes,
    }
}

fn facts_drawing(groups: &[(String, Vec<String>)]) -> Drawing {
    // One heading per relation, one line per fluent, in columns of at most
    // 30 lines (a relation is not split across columns unless longer).
    const PER_COLUMN: usize = 30;
    let mut columns: Vec<Vec<(String, &'static str)>> = vec![Vec::new()];
    for (rel, tuples) in groups {
        let need = tuples.len() + 1;
        let cur = columns.last().map_or(0, Vec::len);
        if cur > 0 && cur + need > PER_COLUMN {
            columns.push(Vec::new());
        }
        let mut lines = vec![(rel.clone(), "heading")];
        lines.extend(tuples.iter().map(|t| (t.clone(), "fact")));
        for l in lines {
            if columns.last().map_or(0, Vec::len) >= PER_COLUMN {
                columns.push(Vec::new());
            }
            if let Some(c) = columns.last_mut() {
                c.push(l);
            }
        }
    }
    let mut shapes = Vec::new();
    let mut x = MARGIN;
    let mut bottom: f64 = 0.0;
    for col in &columns {
        let w = lines_width(col.iter().map(|(l, _)| text_width(l, TEXT) + 6.0 + INDENT)).max(40.0);
        bottom = bottom.max(text_lines(&mut shapes, col, x, MARGIN, w));
        x += w + MARGIN;
    }
    Drawing {
        width: x,
        height: bottom + MARGIN,
        background: "#fbfaf6",
        shapes,
    }
}

fn graph_drawing(s: &Structure) -> Drawing {
    let elems: Vec<Elem> = s.elements().collect();
    let n = elems.len().max(1) as f64;
    let radius = 60.0 + 18.0 * n;
    // Labels live in boxes as wide as the nodes are apart (at most 160).
    let box_w = if elems.len() > 1 {
        (2.0 * radius * (std::f64::consts::PI / n).sin() * 0.95).min(160.0)
    } else {
        160.0
    };
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
    let mut shapes = Vec::new();
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
            shapes.push(Shape::Arrow {
                from: (x1 + ux, y1 + uy),
                to: (x2 - ux, y2 - uy),
                colour: c.clone(),
                title: s.relation_name(r).to_string(),
            });
        }
    }
    for &e in &elems {
        let (x, y) = pos[&e];
        shapes.push(Shape::Circle {
            cx: x,
            cy: y,
            r: 14.0,
            fill: "#eef".into(),
            stroke: "#335".into(),
            stroke_width: 1.0,
        });
        let row = |k: f64, h: f64| Rect {
            x: x - box_w / 2.0,
            y: y - 8.0 + k,
            w: box_w,
            h,
        };
        shapes.push(Shape::Text(
            Label::fit(s.element_name(e), row(0.0, 16.0), 11.0, Anchor::Middle)
                .with("#000", "element"),
        ));
        let labels = unary_labels(s, e);
        if !labels.is_empty() {
            shapes.push(Shape::Text(
                Label::fit(&labels.join(", "), row(22.0, 15.0), 11.0, Anchor::Middle)
                    .with("#a33", "labels"),
            ));
        }
        // Function values (the ball's height, a player's position).
        let values: Vec<String> = (0..s.num_functions())
            .map(|f| format!("{} = {}", s.function_name(f), number(s.fun_value(f, e))))
            .collect();
        if !values.is_empty() {
            shapes.push(Shape::Text(
                Label::fit(&values.join(", "), row(37.0, 15.0), 11.0, Anchor::Middle)
                    .with("#235", "values"),
            ));
        }
    }
    // A legend of binary relations, so arrows can be told apart.
    let mut ly = 4.0;
    for r in 0..s.num_relations() {
        if s.arity(r) == 2 {
            let name = s.relation_name(r);
            let cell = Rect {
                x: 4.0,
                y: ly,
                w: 150.0,
                h: 16.0,
            };
            shapes.push(Shape::Text(
                Label::fit(&format!("→ {name}"), cell, 12.0, Anchor::Start)
                    .with(&colour(name), "legend"),
            ));
            ly += 16.0;
        }
    }
    Drawing {
        width: size,
        height: size,
        background: "white",
        shapes,
    }
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

    /// An object off the grid placed on a square by a binary relation
    /// (sokoban's `At(man, cell)`) is drawn on that square, and still
    /// listed below with its values.
    #[test]
    fn objects_placed_on_squares_are_drawn_there() {
        let mut s = grid_with_clock();
        let man = s.add_element("m");
        let q = s.declare_relation("Q", 1).unwrap_or(0);
        s.add_tuple(q, &[man]);
        let at = s.declare_relation("At", 2).unwrap_or(0);
        let a1 = s.element("a1").unwrap_or(0);
        s.add_tuple(at, &[man, a1]);
        let text = board_text(&s).unwrap_or_default();
        assert_eq!(
            text,
            "  2  . P\n  1  Q .\n     a b\n  clock: C; n = 7\n  m: Q; n = 0\n"
        );
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

    fn fluents(facts: &[(&str, &[&str])]) -> Structure {
        toss_gdl::ground::fluents_structure(facts.iter().map(|&(f, a)| (f, a)))
    }

    #[test]
    fn gdl_cells_are_a_board_with_the_other_fluents_beside() {
        let s = fluents(&[
            ("cell", &["1", "1", "x"]),
            ("cell", &["1", "2", "b"]),
            ("cell", &["2", "1", "b"]),
            ("cell", &["2", "2", "o"]),
            ("control", &["oplayer"]),
        ]);
        let players = ["xplayer".to_string(), "oplayer".to_string()];
        assert_eq!(
            text(&s, &players),
            "  2  . O\n  1  X .\n     1 2\n  control: oplayer\n"
        );
        // Chess fluents: letters and numbers, `b` for blank, pieces as glyphs.
        let s = fluents(&[
            ("cell", &["a", "1", "wr"]),
            ("cell", &["b", "1", "b"]),
            ("cell", &["a", "2", "bk"]),
            ("cell", &["b", "2", "b"]),
        ]);
        assert_eq!(
            text(&s, &[]),
            "  2  ♚ .\n  1  ♖ .\n     a b\n  ♚ = bk\n  ♖ = wr\n"
        );
    }

    #[test]
    fn other_fluents_are_a_table_by_relation() {
        let s = fluents(&[
            ("heap", &["a", "1"]),
            ("heap", &["b", "5"]),
            ("control", &["player1"]),
        ]);
        assert!(matches!(view(&s, &[]), View::Facts(_)));
        assert_eq!(
            text(&s, &[]),
            "  heap:\n    a 1\n    b 5\n  control: player1\n"
        );
    }

    #[test]
    fn function_values_are_shown_rounded() {
        let mut s = Structure::new();
        let y = s.declare_function("y");
        let ball = s.declare_relation("Ball", 1).unwrap_or(0);
        let b = s.add_element("b");
        s.add_tuple(ball, &[b]);
        s.set_fun_value(y, b, 3.6718879885732427);
        assert_eq!(text(&s, &[]), "  b: Ball; y = 3.6719\n");
        assert!(svg(&s).contains(">y = 3.6719</text>"));
    }
}
