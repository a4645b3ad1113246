//! Every construct of the language, parsed and lowered to hand-written IR.

#![allow(clippy::unwrap_used)]

use toss_core::ir::*;
use toss_lang::{parse_formula, parse_game, parse_term};

fn s(x: &str) -> String {
    x.to_string()
}
fn rel(name: &str, args: &[&str]) -> Formula {
    Formula::Rel {
        name: s(name),
        args: args.iter().map(|a| s(a)).collect(),
    }
}
fn f(src: &str) -> Formula {
    parse_formula(src).unwrap_or_else(|d| panic!("{src}: {}", d.message))
}
fn t(src: &str) -> RealExpr {
    parse_term(src).unwrap_or_else(|d| panic!("{src}: {}", d.message))
}
fn b<T>(x: T) -> Box<T> {
    Box::new(x)
}
fn c(v: f64) -> RealExpr {
    RealExpr::Const(v)
}
fn rv(n: &str) -> RealExpr {
    RealExpr::Var(s(n))
}

#[test]
fn atoms() {
    assert_eq!(f("true"), Formula::True);
    assert_eq!(f("false"), Formula::False);
    assert_eq!(f("R(x, y)"), rel("R", &["x", "y"]));
    assert_eq!(f("Won()"), rel("Won", &[]));
    assert_eq!(f("x = y"), Formula::Eq(s("x"), s("y")));
    assert_eq!(f("x != y"), Formula::Not(b(Formula::Eq(s("x"), s("y")))));
    assert_eq!(
        f("x in X"),
        Formula::In {
            element: s("x"),
            set: s("X")
        }
    );
    assert_eq!(f("((P(x)))"), rel("P", &["x"]));
}

#[test]
fn connectives_and_precedence() {
    let (p, q, r) = (rel("P", &[]), rel("Q", &[]), rel("R", &[]));
    assert_eq!(
        f("P() or Q() and R()"),
        Formula::Or(vec![p.clone(), Formula::And(vec![q.clone(), r.clone()])])
    );
    assert_eq!(
        f("not P() and Q()"),
        Formula::And(vec![Formula::Not(b(p.clone())), q.clone()])
    );
    assert_eq!(f("¬P() ∧ Q() ∨ R()"), f("not P() and Q() or R()"));
    assert_eq!(
        f("P() -> Q() -> R()"),
        Formula::Implies(
            b(p.clone()),
            b(Formula::Implies(b(q.clone()), b(r.clone())))
        )
    );
    assert_eq!(
        f("P() <-> Q() -> R()"),
        Formula::Iff(
            b(p.clone()),
            b(Formula::Implies(b(q.clone()), b(r.clone())))
        )
    );
    assert_eq!(
        f("P() or Q() -> R()"),
        Formula::Implies(b(Formula::Or(vec![p.clone(), q.clone()])), b(r.clone()))
    );
    // Keywords do not run into identifiers.
    assert_eq!(
        f("notP() or orange()"),
        Formula::Or(vec![rel("notP", &[]), rel("orange", &[])])
    );
}

#[test]
fn quantifiers_extend_right() {
    assert_eq!(
        f("ex x, X, :a P(x) and x in X"),
        Formula::Exists {
            vars: vec![Var::Element(s("x")), Var::Set(s("X")), Var::Real(s("a"))],
            body: b(Formula::And(vec![
                rel("P", &["x"]),
                Formula::In {
                    element: s("x"),
                    set: s("X")
                }
            ])),
        }
    );
    assert_eq!(
        f("all y ex x E(x, y)"),
        Formula::Forall {
            vars: vec![Var::Element(s("y"))],
            body: b(Formula::Exists {
                vars: vec![Var::Element(s("x"))],
                body: b(rel("E", &["x", "y"]))
            })
        }
    );
}

#[test]
fn fixpoints_tc_let() {
    assert_eq!(
        f("lfp T(x) = P(x) or ex y (E(y, x) and T(y))"),
        Formula::Fixpoint {
            kind: FixpointKind::Least,
            relation: s("T"),
            params: vec![s("x")],
            body: b(f("P(x) or ex y (E(y, x) and T(y))")),
        }
    );
    assert!(matches!(
        f("gfp S(x, y) = E(x, y)"),
        Formula::Fixpoint {
            kind: FixpointKind::Greatest,
            ..
        }
    ));
    assert_eq!(
        f("tc x, y E(x, y)"),
        Formula::Tc {
            steps: None,
            from: vec![s("x")],
            to: vec![s("y")],
            body: b(rel("E", &["x", "y"]))
        }
    );
    // A body in brackets, and one starting with a 0-ary atom.
    assert_eq!(
        f("tc x, y (E(x, y) and P(y))"),
        Formula::Tc {
            steps: None,
            from: vec![s("x")],
            to: vec![s("y")],
            body: b(Formula::And(vec![rel("E", &["x", "y"]), rel("P", &["y"])]))
        }
    );
    assert_eq!(
        f("tc x, y W() and E(x, y)"),
        Formula::Tc {
            steps: None,
            from: vec![s("x")],
            to: vec![s("y")],
            body: b(Formula::And(vec![rel("W", &[]), rel("E", &["x", "y"])]))
        }
    );
    assert_eq!(
        f("tc 3 x1 x2, y1 y2 x1 = y2"),
        Formula::Tc {
            steps: Some(3),
            from: vec![s("x1"), s("x2")],
            to: vec![s("y1"), s("y2")],
            body: b(Formula::Eq(s("x1"), s("y2")))
        }
    );
    assert_eq!(
        f("let D(x) = P(x) in ex y D(y)"),
        Formula::Let {
            relation: s("D"),
            params: vec![s("x")],
            def: b(rel("P", &["x"])),
            body: b(f("ex y D(y)"))
        }
    );
    assert_eq!(
        f("let :a = 2 in :a < 3"),
        Formula::LetReal {
            var: s("a"),
            value: c(2.0),
            body: b(Formula::Cmp {
                lhs: rv("a"),
                op: CmpOp::Lt,
                rhs: c(3.0)
            })
        }
    );
}

#[test]
fn comparisons() {
    let ops = [
        ("<", CmpOp::Lt),
        ("<=", CmpOp::Le),
        ("=<", CmpOp::Le),
        ("=", CmpOp::Eq),
        ("!=", CmpOp::Ne),
        (">=", CmpOp::Ge),
        (">", CmpOp::Gt),
    ];
    for (text, op) in ops {
        assert_eq!(
            f(&format!(":a {text} 1")),
            Formula::Cmp {
                lhs: rv("a"),
                op,
                rhs: c(1.0)
            }
        );
    }
    assert_eq!(
        f("(:x(a) + 1) * 2 >= 0"),
        Formula::Cmp {
            lhs: RealExpr::Mul(
                b(RealExpr::Add(
                    b(RealExpr::Fun {
                        name: s("x"),
                        element: s("a")
                    }),
                    b(c(1.0))
                )),
                b(c(2.0))
            ),
            op: CmpOp::Ge,
            rhs: c(0.0)
        }
    );
}

#[test]
fn terms() {
    assert_eq!(t("1e-3"), c(0.001));
    assert_eq!(t("2."), c(2.0));
    assert_eq!(t("-1"), RealExpr::Neg(b(c(1.0))));
    assert_eq!(
        t("1 - 2 - 3"),
        RealExpr::Sub(b(RealExpr::Sub(b(c(1.0)), b(c(2.0)))), b(c(3.0)))
    );
    assert_eq!(
        t("1 + 2 * 3 ^ 2 ^ 1 / 4"),
        RealExpr::Add(
            b(c(1.0)),
            b(RealExpr::Div(
                b(RealExpr::Mul(
                    b(c(2.0)),
                    b(RealExpr::Pow(
                        b(c(3.0)),
                        b(RealExpr::Pow(b(c(2.0)), b(c(1.0))))
                    ))
                )),
                b(c(4.0))
            ))
        )
    );
    assert_eq!(
        t(":f''(x)"),
        RealExpr::Derivative {
            name: s("f"),
            order: 2,
            element: s("x")
        }
    );
    assert_eq!(t(":(P(x))"), RealExpr::Char(b(rel("P", &["x"]))));
    assert_eq!(t("sqrt(4)"), RealExpr::Root(2, b(c(4.0))));
    assert_eq!(t("root(3, :a)"), RealExpr::Root(3, b(rv("a"))));
    assert_eq!(
        t("Sum(x, y | E(x, y) : :w(x))"),
        RealExpr::Sum {
            vars: vec![s("x"), s("y")],
            guard: b(rel("E", &["x", "y"])),
            body: b(RealExpr::Fun {
                name: s("w"),
                element: s("x")
            })
        }
    );
    assert!(matches!(
        t("Product(x | P(x) : 2)"),
        RealExpr::Product { .. }
    ));
    assert_eq!(
        t("min :a (:a > 1)"),
        RealExpr::Min {
            var: s("a"),
            body: b(f(":a > 1"))
        }
    );
    assert_eq!(
        t("let :a = 1 in :a * :a"),
        RealExpr::Let {
            var: s("a"),
            value: b(c(1.0)),
            body: b(RealExpr::Mul(b(rv("a")), b(rv("a"))))
        }
    );
    assert_eq!(
        t(":(WinP()) - :(WinQ())"),
        RealExpr::Sub(
            b(RealExpr::Char(b(rel("WinP", &[])))),
            b(RealExpr::Char(b(rel("WinQ", &[]))))
        )
    );
}

const GAME: &str = r#"
// A game that uses every top-level construct.
PLAYERS white, black
DATA depth: 3, r1: circle
REL Q(x) { ex y E(y, x) }
REL Won() = ex x W(x)
RULE Move:
  [a, b | W (a); E (a, b); _opt_M (a); nondistinct (a, b) | vx { a -> 0 } ]
    -> [a, c | W (c); M:1 {} | vx { c -> 1.5 } ]
  emb W, E
  with [c <- b]
  update :vx(c) = :vx(a) + :dv
  dynamics :vx'(a) = :acc; :px'(a) = :vx(a)
  pre not Won()
  inv :vx(a) < 10
  post W(c)
RULE Roll: [d | | ] -> [d | | ]
LOC 0 {
  PLAYER white {
    PAYOFF :(Won()) - 1
    MOVES [Move, mult: *, t: 0.1 -- 2, acc: -1 -- T, dv: 0 -- 1 -> 1 (p 0.25, T ~ normal(1, 0.5)); 0 (p 0.75, T ~ uniform(0, 2))];
          [Roll, mult: inf, t: 0 -- S -> 1 (S ~ exp(2))]
  }
}
LOC 1 { PLAYER black { MOVES [Roll, mult: 1 -> 0] } }
START [ a, b, 1 | W {a; b}; E {(a, b); (b, 1)}; Flag() ; Z:3 {} | vx { a -> 1, b -> -2 }; px { a -> 0 } ]
MODEL [ a | W (a) | - ]
HISTORY white: Move {a: a, b: b} t: 0.5, dv: 1 -> 1; black: Roll {d: a} -> 0
"#;

#[test]
fn whole_game() {
    let g = parse_game(GAME, "g.toss").unwrap_or_else(|d| {
        panic!(
            "{}",
            toss_lang::render_diagnostics(&d, GAME, "g.toss", false)
        )
    });
    assert_eq!(g.players, vec![s("white"), s("black")]);
    assert_eq!(g.data, vec![(s("depth"), s("3")), (s("r1"), s("circle"))]);
    assert_eq!(
        g.defined_relations[0],
        DefinedRelation {
            name: s("Q"),
            params: vec![s("x")],
            body: f("ex y E(y, x)")
        }
    );
    let r = &g.rules[0];
    let tup = |rel: &str, args: &[&str], optional| RuleTuple {
        relation: s(rel),
        args: args.iter().map(|a| s(a)).collect(),
        optional,
    };
    assert_eq!(
        r.lhs,
        RuleSide {
            elements: vec![s("a"), s("b")],
            tuples: vec![
                tup("W", &["a"], false),
                tup("E", &["a", "b"], false),
                tup("M", &["a"], true)
            ],
            functions: vec![(s("vx"), s("a"), 0.0)],
        }
    );
    assert_eq!(
        r.rhs,
        RuleSide {
            elements: vec![s("a"), s("c")],
            tuples: vec![tup("W", &["c"], false)],
            functions: vec![(s("vx"), s("c"), 1.5)],
        }
    );
    assert_eq!(r.nondistinct, vec![(s("a"), s("b"))]);
    assert_eq!(r.emb, vec![s("W"), s("E")]);
    assert_eq!(r.map, vec![(s("a"), s("a")), (s("c"), s("b"))]);
    assert_eq!(
        r.update,
        vec![UpdateEquation {
            function: s("vx"),
            element: s("c"),
            value: t(":vx(a) + :dv")
        }]
    );
    assert_eq!(
        r.dynamics,
        vec![
            OdeEquation {
                function: s("vx"),
                order: 1,
                element: s("a"),
                value: rv("acc")
            },
            OdeEquation {
                function: s("px"),
                order: 1,
                element: s("a"),
                value: t(":vx(a)")
            }
        ]
    );
    assert_eq!(r.pre, f("not Won()"));
    assert_eq!(r.inv, f(":vx(a) < 10"));
    assert_eq!(r.post, f("W(c)"));
    assert_eq!(g.rules[1].pre, Formula::True);

    assert_eq!(g.locations.len(), 2);
    let white = &g.locations[0].players[0];
    assert_eq!(white.payoff, t(":(Won()) - 1"));
    assert_eq!(
        white.moves[0],
        Label {
            rule: s("Move"),
            time: Some(Interval {
                lo: Bound::Num(0.1),
                hi: Bound::Num(2.0)
            }),
            params: vec![
                (
                    s("acc"),
                    Interval {
                        lo: Bound::Num(-1.0),
                        hi: Bound::Drawn(s("T"))
                    }
                ),
                (
                    s("dv"),
                    Interval {
                        lo: Bound::Num(0.0),
                        hi: Bound::Num(1.0)
                    }
                )
            ],
            multiplicity: Multiplicity::Any,
            targets: vec![
                Target {
                    location: 1,
                    probability: Some(0.25),
                    draws: vec![(
                        s("T"),
                        Distribution::Normal {
                            mean: 1.0,
                            std_dev: 0.5
                        }
                    )]
                },
                Target {
                    location: 0,
                    probability: Some(0.75),
                    draws: vec![(s("T"), Distribution::Uniform { lo: 0.0, hi: 2.0 })]
                }
            ]
        }
    );
    assert_eq!(white.moves[1].multiplicity, Multiplicity::All);
    assert_eq!(
        white.moves[1].targets[0].draws,
        vec![(s("S"), Distribution::Exponential { rate: 2.0 })]
    );
    // black has nothing in location 0
    assert_eq!(g.locations[0].players[1].payoff, c(0.0));
    assert!(g.locations[0].players[1].moves.is_empty());
    assert_eq!(
        g.locations[1].players[1].moves[0].multiplicity,
        Multiplicity::One
    );

    // START: elements, tuples, the 0-ary relation, declared empty relations,
    // functions, and relations used only in rules (M) declared.
    let st = &g.start;
    assert_eq!(st.num_elements(), 3);
    let e = st.relation("E").unwrap();
    let (a, bb, one) = (
        st.element("a").unwrap(),
        st.element("b").unwrap(),
        st.element("1").unwrap(),
    );
    assert!(st.contains(e, &[a, bb]) && st.contains(e, &[bb, one]));
    let flag = st.relation("Flag").unwrap();
    assert_eq!(st.arity(flag), 0);
    assert!(st.contains(flag, &[]));
    assert_eq!(st.arity(st.relation("Z").unwrap()), 3);
    assert_eq!(st.arity(st.relation("M").unwrap()), 1);
    let vx = st.function("vx").unwrap();
    assert_eq!(st.fun_value(vx, bb), -2.0);
    assert_eq!(st.fun_value(vx, one), 0.0);
    assert!(g.model.is_some());

    assert_eq!(
        g.history,
        vec![
            HistoryMove {
                player: s("white"),
                rule: s("Move"),
                matching: vec![(s("a"), s("a")), (s("b"), s("b"))],
                time: Some(0.5),
                params: vec![(s("dv"), 1.0)],
                target: 1
            },
            HistoryMove {
                player: s("black"),
                rule: s("Roll"),
                matching: vec![(s("d"), s("a"))],
                time: None,
                params: vec![],
                target: 0
            }
        ]
    );
}

#[test]
fn both_rel_styles_lower_alike() {
    let a = parse_game(
        "PLAYERS p\nSTART [ | E:2 {} | ]\nLOC 0 {}\nREL Q(x) = ex y E(y, x)",
        "a",
    )
    .unwrap();
    let b = parse_game(
        "PLAYERS p\nSTART [ | E:2 {} | ]\nLOC 0 {}\nREL Q(x) { ex y E(y, x) }",
        "b",
    )
    .unwrap();
    assert_eq!(a, b);
}
