//! `games/concurrent-tic-tac-toe.toss` and `games/dice.toss` as IR built
//! by hand: the search is tested without the front end. Both
//! keep every rule, formula, location and payoff of the files; the
//! starting structures leave out the relations and functions the board
//! literal adds that no formula uses (`C` in dice, `DiagA`, `DiagB`, `x`,
//! `y`). The tests in `super` check them against facts of the files
//! (`toss perft` of the files gives the same counts).

use toss_core::ir::{
    self, DefinedRelation, Formula, Game as IrGame, Multiplicity, PlayerLocation, RealExpr, Target,
    Var,
};
use toss_core::structure::Structure;
use toss_testkit::fixtures::{and, def, or, rel, rule, side};

fn not(f: Formula) -> Formula {
    Formula::Not(Box::new(f))
}

fn exists(vars: &[&str], body: Formula) -> Formula {
    Formula::Exists {
        vars: vars.iter().map(|v| Var::Element(v.to_string())).collect(),
        body: Box::new(body),
    }
}

/// `:(me) - :(other)` for zero-ary relations.
fn payoff(me: &str, other: &str) -> RealExpr {
    let chr = |r: &str| RealExpr::Char(Box::new(rel(r, &[])));
    RealExpr::Sub(Box::new(chr(me)), Box::new(chr(other)))
}

/// A label `[rule -> l1 (p p1); l2 (p p2) ...]` (no probability when alone).
fn label(rule: &str, targets: &[(usize, f64)]) -> ir::Label {
    let alone = targets.len() == 1;
    ir::Label {
        rule: rule.into(),
        time: None,
        params: vec![],
        multiplicity: Multiplicity::One,
        targets: targets
            .iter()
            .map(|&(location, p)| Target {
                location,
                probability: (!alone).then_some(p),
                draws: vec![],
            })
            .collect(),
    }
}

/// The test kit's game with defined relations.
fn game(
    players: &[&str],
    defined: Vec<DefinedRelation>,
    rules: Vec<ir::Rule>,
    locations: Vec<Vec<PlayerLocation>>,
    start: Structure,
) -> IrGame {
    IrGame {
        defined_relations: defined,
        ..toss_testkit::fixtures::game(players, rules, locations, start)
    }
}

/// A board of `cols` x `rows` cells named `a1`.. (listed from the top row,
/// as a board literal does), with `R` (right neighbour) and, if asked, `C`
/// (upper neighbour).
fn board(s: &mut Structure, cols: usize, rows: usize, with_c: bool) {
    let name = |c: usize, r: usize| format!("{}{}", (b'a' + c as u8) as char, r + 1);
    for r in (0..rows).rev() {
        for c in 0..cols {
            s.add_element(&name(c, r));
        }
    }
    let rr = s.declare_relation("R", 2).expect("R");
    let cc = with_c.then(|| s.declare_relation("C", 2).expect("C"));
    for r in 0..rows {
        for c in 0..cols {
            let e = s.element(&name(c, r)).expect("cell");
            if c + 1 < cols {
                let right = s.element(&name(c + 1, r)).expect("cell");
                s.add_tuple(rr, &[e, right]);
            }
            if let Some(cc) = cc
                && r + 1 < rows
            {
                let up = s.element(&name(c, r + 1)).expect("cell");
                s.add_tuple(cc, &[e, up]);
            }
        }
    }
}

/// `games/concurrent-tic-tac-toe.toss`: both players choose an empty cell
/// at once; a clash blocks the cell.
pub(crate) fn concurrent_tic_tac_toe() -> IrGame {
    let mut s = Structure::new();
    board(&mut s, 3, 3, true);
    s.declare_relation("P", 1);
    s.declare_relation("Q", 1);
    let two = |r: &str| and(vec![rel(r, &["x", "y"]), rel(r, &["y", "z"])]);
    let only = |me: &str, other: &str| and(vec![rel(me, &["x"]), not(rel(other, &["x"]))]);
    let win = |only: &str| {
        exists(
            &["x", "y", "z"],
            and(vec![
                rel(only, &["x"]),
                rel(only, &["y"]),
                rel(only, &["z"]),
                rel("L", &["x", "y", "z"]),
            ]),
        )
    };
    let defined = vec![
        def(
            "D1",
            &["x", "y"],
            exists(
                &["z"],
                and(vec![rel("R", &["x", "z"]), rel("C", &["z", "y"])]),
            ),
        ),
        def(
            "D2",
            &["x", "y"],
            exists(
                &["z"],
                and(vec![rel("R", &["x", "z"]), rel("C", &["y", "z"])]),
            ),
        ),
        def(
            "L",
            &["x", "y", "z"],
            or(vec![two("R"), two("C"), two("D1"), two("D2")]),
        ),
        def("OnlyP", &["x"], only("P", "Q")),
        def("OnlyQ", &["x"], only("Q", "P")),
        def("WinP", &[], win("OnlyP")),
        def("WinQ", &[], win("OnlyQ")),
        def("Over", &[], or(vec![rel("WinP", &[]), rel("WinQ", &[])])),
    ];
    let mark = |name: &str, me: &str, other: &str| {
        let mut r = rule(
            name,
            side(&["a"], &[]),
            side(&["a"], &[(me, &["a"])]),
            &[me],
        );
        r.pre = and(vec![not(rel(other, &["a"])), not(rel("Over", &[]))]);
        r
    };
    game(
        &["xplayer", "oplayer"],
        defined,
        vec![mark("Cross", "P", "Q"), mark("Circle", "Q", "P")],
        vec![vec![
            PlayerLocation {
                payoff: payoff("WinP", "WinQ"),
                moves: vec![label("Cross", &[(0, 1.0)])],
            },
            PlayerLocation {
                payoff: payoff("WinQ", "WinP"),
                moves: vec![label("Circle", &[(0, 1.0)])],
            },
        ]],
        s,
    )
}

/// `games/dice.toss`: a race of two tokens per player on lanes of 8 cells;
/// a turn is a roll (1 with probability 1/2, 2 and 3 with 1/4 each) and a
/// move of one own token by the roll (or less, onto the goal).
pub(crate) fn dice() -> IrGame {
    let mut s = Structure::new();
    s.add_element("die");
    board(&mut s, 8, 4, false);
    let die = s.declare_relation("Die", 1).expect("Die");
    let w = s.declare_relation("W", 1).expect("W");
    let b = s.declare_relation("B", 1).expect("B");
    for (r, cell) in [(die, "die"), (w, "a1"), (w, "a2"), (b, "a3"), (b, "a4")] {
        let e = s.element(cell).expect("element");
        s.add_tuple(r, &[e]);
    }
    let all_goal = |t: &str| Formula::Forall {
        vars: vec![Var::Element("x".into())],
        body: Box::new(Formula::Implies(
            Box::new(rel(t, &["x"])),
            Box::new(rel("Goal", &["x"])),
        )),
    };
    let defined = vec![
        def("Goal", &["x"], not(exists(&["y"], rel("R", &["x", "y"])))),
        def("WonW", &[], all_goal("W")),
        def("WonB", &[], all_goal("B")),
    ];
    let roll = |name: &str| {
        let mut r = rule(
            name,
            side(&["d"], &[("Die", &["d"])]),
            side(&["d"], &[("Die", &["d"])]),
            &[],
        );
        r.pre = and(vec![not(rel("WonW", &[])), not(rel("WonB", &[]))]);
        r
    };
    // Token `t` moves `k` cells; with `goal` only onto the goal.
    let step = |t: &str, k: usize, goal: bool| {
        let cells = ["a", "b", "c", "d"];
        let path: Vec<[&str; 2]> = (0..k).map(|i| [cells[i], cells[i + 1]]).collect();
        let mut lhs = vec![(t, &cells[..1])];
        lhs.extend(path.iter().map(|p| ("R", &p[..])));
        let name = format!("{t}{k}{}", if goal { "Goal" } else { "" });
        let mut r = rule(
            &name,
            side(&cells[..=k], &lhs),
            side(&cells[..=k], &[(t, &cells[k..=k])]),
            &[t],
        );
        if goal {
            r.pre = rel("Goal", &[cells[k]]);
        }
        r
    };
    let mut rules = vec![roll("RollW"), roll("RollB")];
    for t in ["W", "B"] {
        rules.extend([
            step(t, 1, false),
            step(t, 2, false),
            step(t, 3, false),
            step(t, 1, true),
            step(t, 2, true),
        ]);
    }
    let rolls = |to: usize| [(to, 0.5), (to + 1, 0.25), (to + 2, 0.25)];
    let loc = |white: Vec<ir::Label>, black: Vec<ir::Label>| {
        vec![
            PlayerLocation {
                payoff: payoff("WonW", "WonB"),
                moves: white,
            },
            PlayerLocation {
                payoff: payoff("WonB", "WonW"),
                moves: black,
            },
        ]
    };
    let moves = |t: &str, roll: usize, to: usize| -> Vec<ir::Label> {
        let mut ls = vec![label(&format!("{t}{roll}"), &[(to, 1.0)])];
        for k in (1..roll).rev() {
            ls.push(label(&format!("{t}{k}Goal"), &[(to, 1.0)]));
        }
        ls
    };
    let locations = vec![
        loc(vec![label("RollW", &rolls(1))], vec![]),
        loc(moves("W", 1, 4), vec![]),
        loc(moves("W", 2, 4), vec![]),
        loc(moves("W", 3, 4), vec![]),
        loc(vec![], vec![label("RollB", &rolls(5))]),
        loc(vec![], moves("B", 1, 0)),
        loc(vec![], moves("B", 2, 0)),
        loc(vec![], moves("B", 3, 0)),
    ];
    game(&["white", "black"], defined, rules, locations, s)
}

/// One player tosses a coin (a label with two edges of probability 1/2):
/// heads, it then picks one of two elements (`T2`), tails one of three
/// (`T3`); then the play ends. The numbers of moves after the toss differ.
pub(crate) fn coin_then_two_or_three() -> IrGame {
    let mut s = Structure::new();
    for e in ["a", "b", "c"] {
        s.add_element(e);
    }
    let coin = s.declare_relation("Coin", 1).expect("Coin");
    let t2 = s.declare_relation("T2", 1).expect("T2");
    let t3 = s.declare_relation("T3", 1).expect("T3");
    for (r, e) in [
        (coin, "a"),
        (t2, "a"),
        (t2, "b"),
        (t3, "a"),
        (t3, "b"),
        (t3, "c"),
    ] {
        let e = s.element(e).expect("element");
        s.add_tuple(r, &[e]);
    }
    let keep = |name: &str, r: &str| {
        rule(
            name,
            side(&["x"], &[(r, &["x"])]),
            side(&["x"], &[(r, &["x"])]),
            &[],
        )
    };
    let only = |moves: Vec<ir::Label>| {
        vec![PlayerLocation {
            payoff: RealExpr::Const(0.0),
            moves,
        }]
    };
    game(
        &["one"],
        vec![],
        vec![
            keep("Toss", "Coin"),
            keep("Pick2", "T2"),
            keep("Pick3", "T3"),
        ],
        vec![
            only(vec![label("Toss", &[(1, 0.5), (2, 0.5)])]),
            only(vec![label("Pick2", &[(3, 1.0)])]),
            only(vec![label("Pick3", &[(3, 1.0)])]),
            only(vec![]),
        ],
        s,
    )
}
