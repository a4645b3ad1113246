//! Board literals: the text of a board string expanded to its cells
//! (chess-style names, `a1` bottom left), and a board added to a structure
//! (elements, relations R, C, DiagA, DiagB, the cell relations, functions
//! x, y). Used by both the checks and lowering, so neither imports the other
//! for it.

use toss_core::structure::Structure;

/// One cell of a board literal.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Chess-style name: `a1` is bottom left.
    pub name: String,
    /// Column, 1 for `a`.
    pub col: usize,
    /// Row, 1 for the bottom row.
    pub row: usize,
    /// Unary relations the cell is in.
    pub relations: Vec<String>,
}

/// An expanded board literal.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Board {
    pub width: usize,
    pub height: usize,
    /// Cells row by row from the top, left to right.
    pub cells: Vec<Cell>,
}

impl Board {
    pub fn cell(&self, col: usize, row: usize) -> Option<&Cell> {
        if col == 0 || row == 0 || col > self.width || row > self.height {
            return None;
        }
        self.cells.get((self.height - row) * self.width + (col - 1))
    }
}

/// The column letters of column `col` (1-based): `a`..`z`, `aa`, `ab`, ...
pub fn column_name(col: usize) -> String {
    let mut n = col;
    let mut out = Vec::new();
    while n > 0 {
        let d = (n - 1) % 26;
        out.push(b'a' + d as u8);
        n = (n - 1) / 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The reserved words of the grammar (`keyword` in `toss.pest`): never names.
pub const KEYWORDS: [&str; 12] = [
    "ex", "all", "not", "and", "or", "in", "true", "false", "lfp", "gfp", "tc", "let",
];

/// A name as the grammar's `ident` accepts it (not a reserved word).
pub(crate) fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&s)
}

/// Parses the text of a board string. An error carries a message and the
/// byte offset inside `text`.
pub fn parse_board(text: &str) -> Result<Board, (String, usize)> {
    let mut rows: Vec<Vec<(usize, &str)>> = Vec::new();
    let mut offset = 0;
    for line in text.split('\n') {
        let start = offset;
        offset += line.len() + 1;
        let mut toks = Vec::new();
        let mut pos = 0;
        for tok in line.split_whitespace() {
            // Find the token's offset in the line.
            let at = line[pos..].find(tok).map_or(pos, |i| pos + i);
            pos = at + tok.len();
            toks.push((start + at, tok));
        }
        if !toks.is_empty() {
            rows.push(toks);
        }
    }
    let height = rows.len();
    let width = rows.first().map_or(0, |r| r.len());
    let mut cells = Vec::with_capacity(height * width);
    for (i, row) in rows.iter().enumerate() {
        if row.len() != width {
            let at = row.first().map_or(0, |t| t.0);
            return Err((
                format!(
                    "board rows must have the same number of cells: the first row has {width}, this one {}",
                    row.len()
                ),
                at,
            ));
        }
        let r = height - i;
        for (j, (at, tok)) in row.iter().enumerate() {
            let mut relations = Vec::new();
            if *tok != "." {
                for part in tok.split('+') {
                    if !is_ident(part) {
                        return Err((
                            format!(
                                "invalid board cell `{tok}`: expected `.` or relation names (not reserved words) joined with `+`"
                            ),
                            *at,
                        ));
                    }
                    if !relations.iter().any(|x| x == part) {
                        relations.push(part.to_string());
                    }
                }
            }
            cells.push(Cell {
                name: format!("{}{}", column_name(j + 1), r),
                col: j + 1,
                row: r,
                relations,
            });
        }
    }
    Ok(Board {
        width,
        height,
        cells,
    })
}

/// Adds a board's elements, relations R, C, DiagA, DiagB, its cell
/// relations and the functions x, y to a structure.
pub fn add_board(s: &mut Structure, board: &Board) {
    let fx = s.declare_function("x");
    let fy = s.declare_function("y");
    let rels: Vec<Option<usize>> = ["R", "C", "DiagA", "DiagB"]
        .iter()
        .map(|r| s.declare_relation(r, 2))
        .collect();
    for c in &board.cells {
        let e = s.add_element(&c.name);
        s.set_fun_value(fx, e, c.col as f64);
        s.set_fun_value(fy, e, c.row as f64);
        for r in &c.relations {
            if let Some(rid) = s.declare_relation(r, 1) {
                s.add_tuple(rid, &[e]);
            }
        }
    }
    for c in &board.cells {
        let Some(a) = s.element(&c.name) else {
            continue;
        };
        let neighbours = [
            (c.col + 1, c.row),
            (c.col, c.row + 1),
            (c.col + 1, c.row + 1),
            (c.col + 1, c.row.wrapping_sub(1)),
        ];
        for (k, (col, row)) in neighbours.into_iter().enumerate() {
            if let (Some(rid), Some(n)) = (rels[k], board.cell(col, row))
                && let Some(b) = s.element(&n.name)
            {
                s.add_tuple(rid, &[a, b]);
            }
        }
    }
}
