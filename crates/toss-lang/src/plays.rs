//! Plays files (docs/plays.md): example plays of a game, the input of
//! learning games (spec 4.4-4.6). A file is optional player names and a
//! list of plays, each `PLAY` and its label (`1 wins`, `2 wins`, `not won`,
//! `illegal`) followed by its positions as structure literals, board
//! literals allowed:
//!
//! ```text
//! PLAYERS xplayer, oplayer
//! PLAY 1 wins
//! [ | P:1 {}; Q:1 {} | ] "
//!   . . .
//!   . . .
//!   . . .
//! "
//! ...
//! ```

use toss_core::plays::{Play, PlayLabel, Plays};
use toss_core::structure::Structure;

use crate::ast::StructLit;
use crate::board::{Board, Cell, add_board, column_name};
use crate::diagnostic::{Diagnostic, line_col};
use crate::print::print_structure;
use crate::{check, lower, parse, with_big_stack};

/// Parses a plays file. Errors are located in `source`.
pub fn parse_plays(source: &str) -> Result<Plays, Vec<Diagnostic>> {
    with_big_stack(|| {
        let file = parse::parse_plays_file(source).map_err(|d| vec![d])?;
        let mut errors = Vec::new();
        if !file.players.is_empty() && file.players.len() != 2 {
            let (a, b) = (
                &file.players[0].span,
                &file.players[file.players.len() - 1].span,
            );
            errors.push(Diagnostic::new(
                format!(
                    "plays are of two-player games: {} players given",
                    file.players.len()
                ),
                a.start..b.end,
            ));
        }
        for p in &file.plays {
            let least = if p.label == PlayLabel::Illegal { 2 } else { 1 };
            if p.positions.len() < least {
                errors.push(Diagnostic::new(
                    format!(
                        "a play labelled `{}` needs at least {least} position{}",
                        p.label.as_str(),
                        if least > 1 {
                            "s (the last move is the illegal one)"
                        } else {
                            ""
                        }
                    ),
                    p.span.clone(),
                ));
            }
        }
        let lits: Vec<&StructLit> = file.plays.iter().flat_map(|p| &p.positions).collect();
        let sig = match check::check_states(&lits) {
            Ok(sig) => sig,
            Err(mut e) => {
                errors.append(&mut e);
                return Err(errors);
            }
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let line = |at: usize| line_col(source, at).0;
        Ok(Plays {
            players: file.players.iter().map(|p| p.name.clone()).collect(),
            plays: file
                .plays
                .iter()
                .map(|p| Play {
                    label: p.label,
                    positions: p.positions.iter().map(|l| lower::state(l, &sig)).collect(),
                    line: line(p.span.start),
                    position_lines: p.positions.iter().map(|l| line(l.span.start)).collect(),
                })
                .collect(),
        })
    })
}

/// Writes plays in the format [`parse_plays`] reads; positions that are
/// boards are written as board literals.
pub fn print_plays(plays: &Plays) -> String {
    let mut out = String::new();
    if !plays.players.is_empty() {
        out.push_str(&format!("PLAYERS {}\n", plays.players.join(", ")));
    }
    for p in &plays.plays {
        out.push_str(&format!("\nPLAY {}\n", p.label.as_str()));
        for s in &p.positions {
            out.push_str(&print_position(s));
            out.push('\n');
        }
    }
    out
}

/// A position as a board literal when it is exactly the expansion of one
/// (cells named `a1`.., the relations `R`, `C`, `DiagA`, `DiagB` and the
/// functions `x`, `y` of the board, other relations unary), else as an
/// explicit structure literal.
pub fn print_position(s: &Structure) -> String {
    board_of(s).unwrap_or_else(|| print_structure(s))
}

fn board_of(s: &Structure) -> Option<String> {
    let mut cells: Vec<(usize, usize, u32)> = Vec::new();
    for e in s.elements() {
        let name = s.element_name(e);
        let split = name.find(|c: char| c.is_ascii_digit())?;
        let (letters, digits) = name.split_at(split);
        let row: usize = digits.parse().ok()?;
        let col = (1..=702).find(|&c| column_name(c) == letters)?;
        if format!("{letters}{row}") != name || row == 0 {
            return None;
        }
        cells.push((col, row, e));
    }
    let width = cells.iter().map(|c| c.0).max()?;
    let height = cells.iter().map(|c| c.1).max()?;
    if cells.len() != width * height {
        return None;
    }
    let board_rels = ["R", "C", "DiagA", "DiagB"];
    let unary: Vec<usize> = (0..s.num_relations())
        .filter(|&r| !board_rels.contains(&s.relation_name(r)))
        .collect();
    if unary.iter().any(|&r| s.arity(r) != 1) {
        return None;
    }
    let mut board = Board {
        width,
        height,
        cells: Vec::new(),
    };
    for row in (1..=height).rev() {
        for col in 1..=width {
            let e = s.element(&format!("{}{row}", column_name(col)))?;
            board.cells.push(Cell {
                name: format!("{}{row}", column_name(col)),
                col,
                row,
                relations: unary
                    .iter()
                    .filter(|&&r| s.contains(r, &[e]))
                    .map(|&r| s.relation_name(r).to_string())
                    .collect(),
            });
        }
    }
    // The literal must give back exactly this structure.
    let mut again = Structure::new();
    for &r in &unary {
        again.declare_relation(s.relation_name(r), 1);
    }
    add_board(&mut again, &board);
    let same = again.num_relations() == s.num_relations()
        && (0..s.num_relations()).all(|r| {
            let name = s.relation_name(r);
            again.relation(name).is_some_and(|a| {
                let mut x: Vec<Vec<String>> = named(s, r);
                let mut y: Vec<Vec<String>> = named(&again, a);
                x.sort();
                y.sort();
                x == y
            })
        })
        && again.num_functions() == s.num_functions()
        && (0..s.num_functions()).all(|f| {
            again.function(s.function_name(f)).is_some_and(|g| {
                s.elements().all(|e| {
                    let a = again.element(s.element_name(e)).expect("same cells");
                    again.fun_value(g, a) == s.fun_value(f, e)
                })
            })
        });
    if !same {
        return None;
    }
    let decl: Vec<String> = unary
        .iter()
        .map(|&r| format!("{}:1 {{}}", s.relation_name(r)))
        .collect();
    let texts: Vec<String> = board
        .cells
        .iter()
        .map(|c| {
            if c.relations.is_empty() {
                ".".to_string()
            } else {
                c.relations.join("+")
            }
        })
        .collect();
    let w = texts.iter().map(String::len).max().unwrap_or(1);
    let mut out = format!("[ | {} | ] \"\n", decl.join("; "));
    for row in texts.chunks(width) {
        let cells: Vec<String> = row.iter().map(|t| format!("{t:<w$}")).collect();
        out.push_str("  ");
        out.push_str(cells.join(" ").trim_end());
        out.push('\n');
    }
    out.push('"');
    Some(out)
}

fn named(s: &Structure, r: usize) -> Vec<Vec<String>> {
    s.tuples(r)
        .iter()
        .map(|t| t.iter().map(|&e| s.element_name(e).to_string()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "PLAYERS xplayer, oplayer
PLAY 1 wins
[ | P:1 {}; Q:1 {} | ] \"
  . .
  . .
\"
[ | P:1 {}; Q:1 {} | ] \"
  P .
  . Q+P
\"
PLAY illegal
[ a, b | E { (a, b) } | ]
[ a, b | E { (b, a) } | ]
";

    #[test]
    fn plays_parse_and_print_back() {
        let plays = parse_plays(TWO).unwrap();
        assert_eq!(plays.players, ["xplayer", "oplayer"]);
        assert_eq!(plays.plays.len(), 2);
        assert_eq!(plays.plays[0].label, PlayLabel::FirstWins);
        assert_eq!(plays.plays[0].line, 2);
        assert_eq!(plays.plays[0].position_lines, [3, 7]);
        let s = &plays.plays[0].positions[1];
        let p = s.relation("P").unwrap();
        assert!(s.contains(p, &[s.element("a2").unwrap()]));
        assert!(s.contains(p, &[s.element("b1").unwrap()]));
        let printed = print_plays(&plays);
        assert!(printed.contains("  P   .\n  .   P+Q\n"), "{printed}");
        assert!(printed.contains("\n[a, b | E {(b, a)} | ]\n"), "{printed}");
        let again = parse_plays(&printed).unwrap();
        assert_eq!(print_plays(&again), printed);
    }

    #[test]
    fn bad_plays_are_located() {
        let e = parse_plays("PLAY illegal\n[ | P:1 {} | ] \". .\"\n").unwrap_err();
        assert!(e[0].message.contains("needs at least 2 positions"), "{e:?}");
        let e = parse_plays("PLAY 3 wins\n").unwrap_err();
        assert!(e[0].span.start == 5, "{e:?}");
        let e =
            parse_plays("PLAY not won\n[ a | E { (a) } | ]\n[ a | E { (a, a) } | ]\n").unwrap_err();
        assert!(e[0].message.contains("arity"), "{e:?}");
        let e = parse_plays("PLAYERS a, b, c\n").unwrap_err();
        assert!(e[0].message.contains("two-player"), "{e:?}");
    }
}
