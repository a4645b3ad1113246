//! The board literal and the spec's tic-tac-toe.

#![allow(clippy::unwrap_used)]

use toss_core::ir::{Formula, RealExpr};
use toss_lang::parse_game;

#[test]
fn three_by_three_board() {
    let src = "PLAYERS p\nLOC 0 {}\nSTART [ extra | P:1 {} | ] \"\n  .   .  Q\n  .  P+Q .\n  P   .  .\n\"\n";
    let g = parse_game(src, "b.toss").unwrap_or_else(|d| panic!("{d:?}"));
    let s = &g.start;
    assert_eq!(s.num_elements(), 10);
    let e = |n: &str| s.element(n).unwrap_or_else(|| panic!("no element {n}"));
    let rel = |n: &str| s.relation(n).unwrap_or_else(|| panic!("no relation {n}"));
    let (r, c, da, db) = (rel("R"), rel("C"), rel("DiagA"), rel("DiagB"));
    assert!(s.contains(r, &[e("a1"), e("b1")]));
    assert!(!s.contains(r, &[e("b1"), e("a1")]));
    assert!(s.contains(c, &[e("a1"), e("a2")]));
    assert!(s.contains(da, &[e("a1"), e("b2")]));
    assert!(s.contains(db, &[e("a2"), e("b1")]));
    assert_eq!(s.relation_len(r), 6);
    assert_eq!(s.relation_len(c), 6);
    assert_eq!(s.relation_len(da), 4);
    assert_eq!(s.relation_len(db), 4);
    // a1 is bottom left: the last line's first cell is `P`.
    let (p, q) = (rel("P"), rel("Q"));
    assert!(s.contains(p, &[e("a1")]));
    assert!(s.contains(p, &[e("b2")]) && s.contains(q, &[e("b2")]));
    assert!(s.contains(q, &[e("c3")]));
    assert_eq!(s.relation_len(p), 2);
    let (x, y) = (s.function("x").unwrap(), s.function("y").unwrap());
    assert_eq!(
        (s.fun_value(x, e("a1")), s.fun_value(y, e("a1"))),
        (1.0, 1.0)
    );
    assert_eq!(
        (s.fun_value(x, e("c2")), s.fun_value(y, e("c2"))),
        (3.0, 2.0)
    );
    assert_eq!(
        (s.fun_value(x, e("b3")), s.fun_value(y, e("b3"))),
        (2.0, 3.0)
    );
}

#[test]
fn column_names_past_z() {
    assert_eq!(toss_lang::lower::column_name(1), "a");
    assert_eq!(toss_lang::lower::column_name(26), "z");
    assert_eq!(toss_lang::lower::column_name(27), "aa");
    assert_eq!(toss_lang::lower::column_name(28), "ab");
    let row = vec!["."; 28].join(" ");
    let src = format!("PLAYERS p\nLOC 0 {{}}\nSTART [ | | ] \"{row}\"");
    let g = parse_game(&src, "b.toss").unwrap();
    assert!(g.start.element("ab1").is_some());
}

#[test]
fn tic_tac_toe_fixture() {
    let src = include_str!("fixtures/tic-tac-toe.toss");
    let g = parse_game(src, "tic-tac-toe.toss").unwrap_or_else(|d| {
        panic!(
            "{}",
            toss_lang::render_diagnostics(&d, src, "tic-tac-toe.toss", false)
        )
    });
    assert_eq!(g.players, vec!["cross".to_string(), "circle".to_string()]);
    let names: Vec<_> = g
        .defined_relations
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(names, ["D1", "D2", "L", "WinP", "WinQ"]);
    assert_eq!(g.rules.len(), 2);
    assert_eq!(
        g.rules[0].pre,
        Formula::Not(Box::new(Formula::Rel {
            name: "WinQ".into(),
            args: vec![]
        }))
    );
    assert_eq!(g.rules[0].map, vec![("a".to_string(), "a".to_string())]);
    assert_eq!(g.locations.len(), 2);
    assert_eq!(g.locations[0].players[0].moves[0].rule, "Cross");
    assert_eq!(g.locations[1].players[1].moves[0].targets[0].location, 0);
    assert!(matches!(
        g.locations[0].players[0].payoff,
        RealExpr::Sub(..)
    ));
    assert_eq!(g.start.num_elements(), 9);
    assert_eq!(g.start.relation_len(g.start.relation("P").unwrap()), 0);
}
