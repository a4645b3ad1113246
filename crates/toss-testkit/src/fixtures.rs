//! Games and pieces of games built by hand in the IR, for tests that must
//! not depend on the front end: structures, rule sides and rules, labels,
//! locations, and tic-tac-toe as in spec 1.4.

use toss_core::ir::{
    self, Formula, Game as IrGame, Location, Multiplicity, PlayerLocation, RealExpr, Rule,
    RuleSide, RuleTuple, Target, Var,
};
use toss_core::structure::{Elem, Structure};

/// A structure from element names, relations `(name, arity, tuples)` and
/// function names.
pub fn st(elems: &[&str], rels: &[(&str, usize, &[&[&str]])], funs: &[&str]) -> Structure {
    let mut s = Structure::new();
    for e in elems {
        s.add_element(e);
    }
    for (name, arity, tuples) in rels {
        let r = s.declare_relation(name, *arity).expect("arity");
        for t in *tuples {
            let t: Vec<Elem> = t.iter().map(|n| s.element(n).expect("element")).collect();
            s.add_tuple(r, &t);
        }
    }
    for f in funs {
        s.declare_function(f);
    }
    s
}

/// A rule side; a relation name starting with `_opt_` makes an optional
/// tuple.
pub fn side(elems: &[&str], tuples: &[(&str, &[&str])]) -> RuleSide {
    RuleSide {
        elements: elems.iter().map(|s| s.to_string()).collect(),
        tuples: tuples
            .iter()
            .map(|(r, args)| {
                let (relation, optional) = match r.strip_prefix("_opt_") {
                    Some(r) => (r.to_string(), true),
                    None => (r.to_string(), false),
                };
                RuleTuple {
                    relation,
                    args: args.iter().map(|s| s.to_string()).collect(),
                    optional,
                }
            })
            .collect(),
        functions: vec![],
    }
}

/// A rule with `s` mapping right elements to left elements of the same name.
pub fn rule(name: &str, lhs: RuleSide, rhs: RuleSide, emb: &[&str]) -> Rule {
    let map = rhs
        .elements
        .iter()
        .filter(|e| lhs.elements.contains(e))
        .map(|e| (e.clone(), e.clone()))
        .collect();
    Rule {
        name: name.to_string(),
        lhs,
        rhs,
        emb: emb.iter().map(|s| s.to_string()).collect(),
        map,
        nondistinct: vec![],
        pre: Formula::True,
        inv: Formula::True,
        post: Formula::True,
        update: vec![],
        dynamics: vec![],
    }
}

pub fn target(location: usize) -> Target {
    Target {
        location,
        probability: None,
        draws: vec![],
    }
}

pub fn label(rule: &str, multiplicity: Multiplicity, targets: Vec<Target>) -> ir::Label {
    ir::Label {
        rule: rule.to_string(),
        time: None,
        params: vec![],
        multiplicity,
        targets,
    }
}

pub fn player(payoff: f64, moves: Vec<ir::Label>) -> PlayerLocation {
    PlayerLocation {
        payoff: RealExpr::Const(payoff),
        moves,
    }
}

pub fn game(
    players: &[&str],
    rules: Vec<ir::Rule>,
    locs: Vec<Vec<PlayerLocation>>,
    start: Structure,
) -> IrGame {
    IrGame {
        players: players.iter().map(|s| s.to_string()).collect(),
        data: vec![],
        defined_relations: vec![],
        rules,
        locations: locs
            .into_iter()
            .enumerate()
            .map(|(id, players)| Location { id, players })
            .collect(),
        start,
        model: None,
        history: vec![],
        repetition: None,
    }
}

/// `[x | ] -> [x | R(x)] emb P, Q`: mark an unmarked element with `R`.
pub fn mark(name: &str, r: &str) -> ir::Rule {
    rule(
        name,
        side(&["x"], &[]),
        side(&["x"], &[(r, &["x"])]),
        &["P", "Q"],
    )
}

pub fn ex(x: &str, body: Formula) -> Formula {
    Formula::Exists {
        vars: vec![Var::Element(x.into())],
        body: Box::new(body),
    }
}

pub fn rel(r: &str, args: &[&str]) -> Formula {
    Formula::Rel {
        name: r.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn and(fs: Vec<Formula>) -> Formula {
    Formula::And(fs)
}

pub fn or(fs: Vec<Formula>) -> Formula {
    Formula::Or(fs)
}

pub fn def(name: &str, params: &[&str], body: Formula) -> ir::DefinedRelation {
    ir::DefinedRelation {
        name: name.into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        body,
    }
}

pub fn char_of(f: Formula) -> RealExpr {
    RealExpr::Char(Box::new(f))
}

/// Tic-tac-toe as in spec 1.4: a 3x3 board with row and column relations,
/// diagonals and lines defined by formulas, preconditions `not WinQ()`.
pub fn tic_tac_toe() -> IrGame {
    let cols = ["a", "b", "c"];
    let mut s = Structure::new();
    for c in cols {
        for r in 1..=3 {
            s.add_element(&format!("{c}{r}"));
        }
    }
    let rr = s.declare_relation("R", 2).expect("R");
    let cc = s.declare_relation("C", 2).expect("C");
    s.declare_relation("P", 1);
    s.declare_relation("Q", 1);
    let e = |s: &Structure, c: usize, r: usize| {
        s.element(&format!("{}{}", cols[c], r + 1)).expect("cell")
    };
    for c in 0..3 {
        for r in 0..3 {
            if c + 1 < 3 {
                let (x, y) = (e(&s, c, r), e(&s, c + 1, r));
                s.add_tuple(rr, &[x, y]);
            }
            if r + 1 < 3 {
                let (x, y) = (e(&s, c, r), e(&s, c, r + 1));
                s.add_tuple(cc, &[x, y]);
            }
        }
    }
    let line = |r: &str| and(vec![rel(r, &["x", "y"]), rel(r, &["y", "z"])]);
    let win = |p: &str| Formula::Exists {
        vars: vec![
            Var::Element("x".into()),
            Var::Element("y".into()),
            Var::Element("z".into()),
        ],
        body: Box::new(and(vec![
            rel(p, &["x"]),
            rel(p, &["y"]),
            rel(p, &["z"]),
            rel("Line", &["x", "y", "z"]),
        ])),
    };
    let mut cross = mark("Cross", "P");
    cross.lhs.elements = vec!["a".into()];
    cross.rhs = side(&["a"], &[("P", &["a"])]);
    cross.map = vec![("a".into(), "a".into())];
    cross.pre = Formula::Not(Box::new(rel("WinQ", &[])));
    let mut circle = mark("Circle", "Q");
    circle.lhs.elements = vec!["a".into()];
    circle.rhs = side(&["a"], &[("Q", &["a"])]);
    circle.map = vec![("a".into(), "a".into())];
    circle.pre = Formula::Not(Box::new(rel("WinP", &[])));
    let payoff = |me: &str, other: &str| {
        RealExpr::Sub(
            Box::new(char_of(rel(me, &[]))),
            Box::new(char_of(rel(other, &[]))),
        )
    };
    let mut g = game(
        &["x", "o"],
        vec![cross, circle],
        vec![
            vec![
                player(
                    0.0,
                    vec![label("Cross", Multiplicity::One, vec![target(1)])],
                ),
                player(0.0, vec![]),
            ],
            vec![
                player(0.0, vec![]),
                player(
                    0.0,
                    vec![label("Circle", Multiplicity::One, vec![target(0)])],
                ),
            ],
        ],
        s,
    );
    for loc in &mut g.locations {
        loc.players[0].payoff = payoff("WinP", "WinQ");
        loc.players[1].payoff = payoff("WinQ", "WinP");
    }
    g.defined_relations = vec![
        def(
            "D1",
            &["x", "y"],
            ex("z", and(vec![rel("R", &["x", "z"]), rel("C", &["z", "y"])])),
        ),
        def(
            "D2",
            &["x", "y"],
            ex("z", and(vec![rel("R", &["x", "z"]), rel("C", &["y", "z"])])),
        ),
        def(
            "Line",
            &["x", "y", "z"],
            or(vec![line("R"), line("C"), line("D1"), line("D2")]),
        ),
        def("WinP", &[], win("P")),
        def("WinQ", &[], win("Q")),
    ];
    g
}
