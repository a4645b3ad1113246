//! Hand-worked examples for every construct, and differential tests of the
//! planner against a naive evaluator.

use super::*;
use toss_core::ir::{CmpOp, DefinedRelation, FixpointKind, Formula as F, RealExpr as T, Var};

// ---- building formulas ----

fn rel(name: &str, args: &[&str]) -> F {
    F::Rel {
        name: name.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}
fn eq(a: &str, b: &str) -> F {
    F::Eq(a.into(), b.into())
}
fn not(f: F) -> F {
    F::Not(Box::new(f))
}
fn and(fs: Vec<F>) -> F {
    F::And(fs)
}
fn or(fs: Vec<F>) -> F {
    F::Or(fs)
}
fn elems(vs: &[&str]) -> Vec<Var> {
    vs.iter().map(|v| Var::Element(v.to_string())).collect()
}
fn ex(vs: &[&str], f: F) -> F {
    F::Exists {
        vars: elems(vs),
        body: Box::new(f),
    }
}
fn all(vs: &[&str], f: F) -> F {
    F::Forall {
        vars: elems(vs),
        body: Box::new(f),
    }
}
fn ex_set(v: &str, f: F) -> F {
    F::Exists {
        vars: vec![Var::Set(v.into())],
        body: Box::new(f),
    }
}
fn all_set(v: &str, f: F) -> F {
    F::Forall {
        vars: vec![Var::Set(v.into())],
        body: Box::new(f),
    }
}
fn ex_real(v: &str, f: F) -> F {
    F::Exists {
        vars: vec![Var::Real(v.into())],
        body: Box::new(f),
    }
}
fn all_real(v: &str, f: F) -> F {
    F::Forall {
        vars: vec![Var::Real(v.into())],
        body: Box::new(f),
    }
}
fn in_(e: &str, s: &str) -> F {
    F::In {
        element: e.into(),
        set: s.into(),
    }
}
fn implies(a: F, b: F) -> F {
    F::Implies(Box::new(a), Box::new(b))
}
fn iff(a: F, b: F) -> F {
    F::Iff(Box::new(a), Box::new(b))
}
fn cmp(l: T, op: CmpOp, r: T) -> F {
    F::Cmp { lhs: l, op, rhs: r }
}
fn tc(steps: Option<u32>, from: &[&str], to: &[&str], f: F) -> F {
    F::Tc {
        steps,
        from: from.iter().map(|s| s.to_string()).collect(),
        to: to.iter().map(|s| s.to_string()).collect(),
        body: Box::new(f),
    }
}
fn fix(kind: FixpointKind, r: &str, params: &[&str], f: F) -> F {
    F::Fixpoint {
        kind,
        relation: r.into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        body: Box::new(f),
    }
}
fn c(x: f64) -> T {
    T::Const(x)
}
fn rv(n: &str) -> T {
    T::Var(n.into())
}
fn fun(n: &str, e: &str) -> T {
    T::Fun {
        name: n.into(),
        element: e.into(),
    }
}
fn chr(f: F) -> T {
    T::Char(Box::new(f))
}
fn sum(vs: &[&str], g: F, t: T) -> T {
    T::Sum {
        vars: vs.iter().map(|s| s.to_string()).collect(),
        guard: Box::new(g),
        body: Box::new(t),
    }
}
fn product(vs: &[&str], g: F, t: T) -> T {
    T::Product {
        vars: vs.iter().map(|s| s.to_string()).collect(),
        guard: Box::new(g),
        body: Box::new(t),
    }
}
fn def(name: &str, params: &[&str], body: F) -> DefinedRelation {
    DefinedRelation {
        name: name.into(),
        params: params.iter().map(|s| s.to_string()).collect(),
        body,
    }
}

// ---- structures ----

/// The n x n grid: cells `x{col}{row}` (1-based), `R(x, y)`: y right of
/// x, `C(x, y)`: y above x, `DiagA`: up-right, `DiagB`: down-right; unary
/// `P`, `Q` (empty); functions `col`, `row`.
fn grid(n: u32) -> Structure {
    let mut s = Structure::new();
    let mut cell = vec![vec![0; n as usize + 2]; n as usize + 2];
    for row in 1..=n {
        for col in 1..=n {
            cell[col as usize][row as usize] = s.add_element(&format!("x{col}{row}"));
        }
    }
    let r = s.declare_relation("R", 2).unwrap_or(0);
    let cc = s.declare_relation("C", 2).unwrap_or(0);
    let da = s.declare_relation("DiagA", 2).unwrap_or(0);
    let db = s.declare_relation("DiagB", 2).unwrap_or(0);
    s.declare_relation("P", 1);
    s.declare_relation("Q", 1);
    let fc = s.declare_function("col");
    let fr = s.declare_function("row");
    for col in 1..=n as usize {
        for row in 1..=n as usize {
            let e = cell[col][row];
            s.set_fun_value(fc, e, col as f64);
            s.set_fun_value(fr, e, row as f64);
            if col < n as usize {
                s.add_tuple(r, &[e, cell[col + 1][row]]);
            }
            if row < n as usize {
                s.add_tuple(cc, &[e, cell[col][row + 1]]);
            }
            if col < n as usize && row < n as usize {
                s.add_tuple(da, &[e, cell[col + 1][row + 1]]);
            }
            if col < n as usize && row > 1 {
                s.add_tuple(db, &[e, cell[col + 1][row - 1]]);
            }
        }
    }
    s
}

fn el(s: &Structure, name: &str) -> Elem {
    s.element(name).expect("element")
}

fn mark(s: &mut Structure, rel: &str, cells: &[&str]) {
    let r = s.relation(rel).expect("relation");
    for c in cells {
        let e = el(s, c);
        s.add_tuple(r, &[e]);
    }
}

/// A graph with elements `v0..v{n-1}` and edges `E`.
fn graph(n: u32, edges: &[(u32, u32)]) -> Structure {
    let mut s = Structure::new();
    for i in 0..n {
        s.add_element(&format!("v{i}"));
    }
    let e = s.declare_relation("E", 2).unwrap_or(0);
    s.declare_relation("P", 1);
    for &(a, b) in edges {
        s.add_tuple(e, &[a, b]);
    }
    s
}

fn check(s: &Structure, defs: &[DefinedRelation], f: &F) -> bool {
    let mut sv = Solver::new(s, defs).expect("solver");
    let id = sv.compile_formula(f, &[], &[]).expect("compiles");
    sv.holds(s, id, &[], &[])
}

fn val(s: &Structure, t: &T) -> f64 {
    let mut sv = Solver::new(s, &[]).expect("solver");
    let id = sv.compile_real(t, &[], &[]).expect("compiles");
    sv.value(s, id, &[], &[])
}

fn query(s: &Structure, defs: &[DefinedRelation], f: &F, free: &[&str]) -> Vec<Vec<Elem>> {
    let mut sv = Solver::new(s, defs).expect("solver");
    let id = sv.compile_query(f, free, &[], &[]).expect("compiles");
    sv.satisfying(s, id, &[], &[])
}

#[test]
fn first_order_on_grid() {
    let mut s = grid(3);
    mark(&mut s, "P", &["x11", "x22"]);
    // Every cell has a right or upper neighbour, except the top-right one.
    let f = all(
        &["x"],
        or(vec![
            ex(&["y"], rel("R", &["x", "y"])),
            ex(&["y"], rel("C", &["x", "y"])),
            not(ex(
                &["y"],
                or(vec![rel("R", &["y", "x"]), rel("C", &["y", "x"])]),
            )),
            and(vec![
                not(ex(&["y"], rel("R", &["x", "y"]))),
                not(ex(&["y"], rel("C", &["x", "y"]))),
            ]),
        ]),
    );
    assert!(check(&s, &[], &f));
    // The middle cell: M(x) of spec 3.2.
    let m = and(vec![
        ex(&["y"], rel("C", &["x", "y"])),
        ex(&["y"], rel("C", &["y", "x"])),
        ex(&["y"], rel("R", &["x", "y"])),
        ex(&["y"], rel("R", &["y", "x"])),
    ]);
    assert_eq!(query(&s, &[], &m, &["x"]), vec![vec![el(&s, "x22")]]);
    assert!(check(
        &s,
        &[],
        &ex(&["x"], and(vec![rel("P", &["x"]), m.clone()]))
    ));
    assert!(!check(
        &s,
        &[],
        &ex(&["x"], and(vec![rel("Q", &["x"]), m.clone()]))
    ));
    // Implication, equivalence, equality, forall.
    assert!(check(
        &s,
        &[],
        &all(
            &["x", "y"],
            implies(rel("R", &["x", "y"]), not(eq("x", "y")))
        )
    ));
    // P(x) <-> x is on the diagonal with no left neighbour or the middle.
    let on_p = or(vec![
        and(vec![
            not(ex(&["y"], rel("R", &["y", "x"]))),
            not(ex(&["y"], rel("C", &["y", "x"]))),
        ]),
        m.clone(),
    ]);
    assert!(check(&s, &[], &all(&["x"], iff(rel("P", &["x"]), on_p))));
    assert!(check(&s, &[], &F::True));
    assert!(!check(&s, &[], &F::False));
    // Pairs in the R relation, in lexicographic order.
    let pairs = query(&s, &[], &rel("R", &["x", "y"]), &["x", "y"]);
    assert_eq!(pairs.len(), 6);
    assert!(pairs.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn constants_and_params() {
    let s = grid(3);
    let mut sv = Solver::new(&s, &[]).expect("solver");
    let f = sv
        .compile_formula(
            &and(vec![
                rel("R", &["a", "b"]),
                cmp(fun("col", "a"), CmpOp::Lt, rv("p")),
            ]),
            &["a", "b"],
            &["p"],
        )
        .expect("compiles");
    let (a, b) = (el(&s, "x11"), el(&s, "x21"));
    assert!(sv.holds(&s, f, &[a, b], &[1.5]));
    assert!(!sv.holds(&s, f, &[a, b], &[0.5]));
    assert!(!sv.holds(&s, f, &[b, a], &[1.5]));
    let q = sv
        .compile_query(&rel("R", &["a", "y"]), &["y"], &["a"], &[])
        .expect("compiles");
    assert_eq!(sv.satisfying(&s, q, &[a], &[]), vec![vec![b]]);
    // Free variables that are not declared are errors.
    assert!(
        sv.compile_formula(&rel("R", &["a", "z"]), &["a"], &[])
            .is_err()
    );
    assert!(
        sv.compile_formula(&cmp(rv("q"), CmpOp::Lt, c(1.0)), &[], &[])
            .is_err()
    );
    assert!(
        sv.compile_formula(&rel("Nope", &["a"]), &["a"], &[])
            .is_err()
    );
    assert!(sv.compile_formula(&rel("R", &["a"]), &["a"], &[]).is_err());
}

/// A path v0 -> v1 -> v2 -> v3 and an isolated v4.
fn path() -> Structure {
    graph(5, &[(0, 1), (1, 2), (2, 3)])
}

fn all_pairs(s: &Structure, defs: &[DefinedRelation], f: &F) -> Vec<Vec<Elem>> {
    query(s, defs, f, &["x", "y"])
}

#[test]
fn transitive_closure_on_a_path() {
    let s = path();
    let reach = tc(None, &["x"], &["y"], rel("E", &["x", "y"]));
    let pairs = all_pairs(&s, &[], &reach);
    let mut expected = Vec::new();
    for a in 0..5u32 {
        for b in 0..5u32 {
            if a == b || (a < b && b <= 3) {
                expected.push(vec![a, b]);
            }
        }
    }
    assert_eq!(pairs, expected);
    // TC^2 = ex z (E(x, z) and E(z, y)); TC^0 is equality; TC^1 is E.
    let two = tc(Some(2), &["x"], &["y"], rel("E", &["x", "y"]));
    let by_hand = ex(
        &["z"],
        and(vec![rel("E", &["x", "z"]), rel("E", &["z", "y"])]),
    );
    assert_eq!(all_pairs(&s, &[], &two), all_pairs(&s, &[], &by_hand));
    assert_eq!(all_pairs(&s, &[], &two), vec![vec![0, 2], vec![1, 3]]);
    let zero = tc(Some(0), &["x"], &["y"], rel("E", &["x", "y"]));
    assert_eq!(all_pairs(&s, &[], &zero), all_pairs(&s, &[], &eq("x", "y")));
    let one = tc(Some(1), &["x"], &["y"], rel("E", &["x", "y"]));
    assert_eq!(
        all_pairs(&s, &[], &one),
        all_pairs(&s, &[], &rel("E", &["x", "y"]))
    );
    // Over pairs: both coordinates step along the grid row at once.
    let g = grid(3);
    let mut sv = Solver::new(&g, &[]).expect("solver");
    let id = sv
        .compile_formula(
            &tc(
                None,
                &["a", "b"],
                &["c", "d"],
                and(vec![rel("R", &["a", "c"]), rel("R", &["b", "d"])]),
            ),
            &["a", "b", "c", "d"],
            &[],
        )
        .expect("compiles");
    let e = |n| el(&g, n);
    assert!(sv.holds(&g, id, &[e("x11"), e("x12"), e("x31"), e("x32")], &[]));
    assert!(sv.holds(&g, id, &[e("x11"), e("x12"), e("x11"), e("x12")], &[]));
    assert!(!sv.holds(&g, id, &[e("x11"), e("x22"), e("x31"), e("x32")], &[]));
    assert!(!sv.holds(&g, id, &[e("x11"), e("x12"), e("x31"), e("x22")], &[]));
}

#[test]
fn fixed_points() {
    let s = path();
    let lfp = fix(
        FixpointKind::Least,
        "T",
        &["x", "y"],
        or(vec![
            eq("x", "y"),
            ex(
                &["z"],
                and(vec![rel("T", &["x", "z"]), rel("E", &["z", "y"])]),
            ),
        ]),
    );
    let reach = tc(None, &["x"], &["y"], rel("E", &["x", "y"]));
    assert_eq!(all_pairs(&s, &[], &lfp), all_pairs(&s, &[], &reach));
    // gfp: elements from which an infinite E-path starts. Cycle 0-1-2, a
    // tail 3 -> 0, and 4 -> 5 dead end.
    let g = graph(6, &[(0, 1), (1, 2), (2, 0), (3, 0), (4, 5)]);
    let inf = fix(
        FixpointKind::Greatest,
        "T",
        &["x"],
        ex(&["y"], and(vec![rel("E", &["x", "y"]), rel("T", &["y"])])),
    );
    assert_eq!(
        query(&g, &[], &inf, &["x"]),
        vec![vec![0], vec![1], vec![2], vec![3]]
    );
    // The least fixed point of the same body is empty.
    let none = fix(
        FixpointKind::Least,
        "T",
        &["x"],
        ex(&["y"], and(vec![rel("E", &["x", "y"]), rel("T", &["y"])])),
    );
    assert!(query(&g, &[], &none, &["x"]).is_empty());
    // A fixed point with an outer parameter: reachable from z avoiding P.
    let mut g2 = graph(4, &[(0, 1), (1, 2), (2, 3)]);
    let p = g2.relation("P").unwrap_or(0);
    g2.add_tuple(p, &[2]);
    let avoid = ex(
        &["z"],
        and(vec![
            not(ex(&["w"], rel("E", &["w", "z"]))),
            fix(
                FixpointKind::Least,
                "T",
                &["x"],
                or(vec![
                    eq("x", "z"),
                    ex(
                        &["y"],
                        and(vec![
                            rel("T", &["y"]),
                            rel("E", &["y", "x"]),
                            not(rel("P", &["x"])),
                        ]),
                    ),
                ]),
            ),
        ]),
    );
    assert_eq!(query(&g2, &[], &avoid, &["x"]), vec![vec![0], vec![1]]);
}

#[test]
fn counting_terms() {
    let mut s = grid(3);
    mark(&mut s, "P", &["x11", "x22", "x33"]);
    assert_eq!(val(&s, &sum(&["x"], rel("P", &["x"]), c(1.0))), 3.0);
    assert_eq!(
        val(&s, &sum(&["x", "y"], rel("R", &["x", "y"]), c(1.0))),
        6.0
    );
    assert_eq!(val(&s, &product(&["x"], rel("P", &["x"]), c(2.0))), 8.0);
    assert_eq!(
        val(&s, &sum(&["x"], rel("P", &["x"]), fun("col", "x"))),
        6.0
    );
    // Empty guard: sum 0, product 1.
    assert_eq!(val(&s, &sum(&["x"], rel("Q", &["x"]), c(5.0))), 0.0);
    assert_eq!(val(&s, &product(&["x"], rel("Q", &["x"]), c(5.0))), 1.0);
    // Characteristic functions and arithmetic.
    let won = ex(
        &["x", "y", "z"],
        and(vec![
            rel("P", &["x"]),
            rel("P", &["y"]),
            rel("P", &["z"]),
            rel("DiagA", &["x", "y"]),
            rel("DiagA", &["y", "z"]),
        ]),
    );
    assert_eq!(
        val(
            &s,
            &T::Sub(Box::new(chr(won.clone())), Box::new(chr(F::False)))
        ),
        1.0
    );
    assert_eq!(
        val(
            &s,
            &T::Add(
                Box::new(T::Mul(Box::new(c(2.0)), Box::new(c(3.0)))),
                Box::new(T::Pow(Box::new(c(2.0)), Box::new(c(3.0))))
            )
        ),
        14.0
    );
    assert_eq!(val(&s, &T::Root(3, Box::new(c(-27.0)))), -3.0);
    assert_eq!(val(&s, &T::Root(2, Box::new(c(16.0)))), 4.0);
    assert_eq!(val(&s, &T::Div(Box::new(c(1.0)), Box::new(c(4.0)))), 0.25);
    assert_eq!(val(&s, &T::Neg(Box::new(c(1.5)))), -1.5);
    // Sum whose body depends on an outer variable via Char, nested sum:
    // number of pairs (x, y) with x in P and y right of x.
    let nested = sum(
        &["x"],
        rel("P", &["x"]),
        sum(&["y"], rel("R", &["x", "y"]), c(1.0)),
    );
    assert_eq!(val(&s, &nested), 2.0);
    let let_t = T::Let {
        var: "a".into(),
        value: Box::new(c(3.0)),
        body: Box::new(T::Mul(Box::new(rv("a")), Box::new(rv("a")))),
    };
    assert_eq!(val(&s, &let_t), 9.0);
}

#[test]
fn real_quantifiers_and_min() {
    let mut s = grid(3);
    mark(&mut s, "P", &["x21", "x32", "x33"]);
    // Least column among P: 2.
    let m = T::Min {
        var: "a".into(),
        body: Box::new(ex(
            &["x"],
            and(vec![
                rel("P", &["x"]),
                cmp(rv("a"), CmpOp::Eq, fun("col", "x")),
            ]),
        )),
    };
    assert_eq!(val(&s, &m), 2.0);
    let none = T::Min {
        var: "a".into(),
        body: Box::new(ex(
            &["x"],
            and(vec![
                rel("Q", &["x"]),
                cmp(rv("a"), CmpOp::Eq, fun("col", "x")),
            ]),
        )),
    };
    assert_eq!(val(&s, &none), f64::INFINITY);
    // min :a (:a > 1): the infimum 1 (open interval).
    let open = T::Min {
        var: "a".into(),
        body: Box::new(cmp(rv("a"), CmpOp::Gt, c(1.0))),
    };
    assert_eq!(val(&s, &open), 1.0);
    let below = T::Min {
        var: "a".into(),
        body: Box::new(cmp(rv("a"), CmpOp::Lt, c(1.0))),
    };
    assert_eq!(val(&s, &below), f64::NEG_INFINITY);
    // ex :a between 3 and 5; none between 5 and 3.
    let between = |lo: f64, hi: f64| {
        ex_real(
            "a",
            and(vec![
                cmp(rv("a"), CmpOp::Gt, c(lo)),
                cmp(rv("a"), CmpOp::Lt, c(hi)),
            ]),
        )
    };
    assert!(check(&s, &[], &between(3.0, 5.0)));
    assert!(!check(&s, &[], &between(5.0, 3.0)));
    assert!(check(
        &s,
        &[],
        &all_real(
            "a",
            or(vec![
                cmp(rv("a"), CmpOp::Lt, c(1.0)),
                cmp(c(1.0), CmpOp::Le, rv("a"))
            ])
        )
    ));
    // A real above every column value exists; none below all and above one.
    assert!(check(
        &s,
        &[],
        &ex_real("a", all(&["x"], cmp(rv("a"), CmpOp::Gt, fun("col", "x"))))
    ));
    assert!(!check(
        &s,
        &[],
        &ex_real(
            "a",
            and(vec![
                all(&["x"], cmp(rv("a"), CmpOp::Lt, fun("col", "x"))),
                ex(&["x"], cmp(fun("col", "x"), CmpOp::Lt, rv("a")))
            ])
        )
    ));
    // let :b = 2 in :b * :b = 4.
    assert!(check(
        &s,
        &[],
        &F::LetReal {
            var: "b".into(),
            value: c(2.0),
            body: Box::new(cmp(
                T::Mul(Box::new(rv("b")), Box::new(rv("b"))),
                CmpOp::Eq,
                c(4.0)
            )),
        }
    ));
    // Unsupported use of a quantified real.
    let mut sv = Solver::new(&s, &[]).expect("solver");
    assert!(
        sv.compile_formula(
            &ex_real(
                "a",
                cmp(
                    T::Mul(Box::new(rv("a")), Box::new(rv("a"))),
                    CmpOp::Eq,
                    c(2.0)
                )
            ),
            &[],
            &[]
        )
        .is_err()
    );
}

#[test]
fn let_and_defined_relations() {
    let mut s = grid(3);
    mark(&mut s, "P", &["x11", "x31"]);
    // let R2(x, y) = ex z (R(x, z) and R(z, y)) in: P cells two apart.
    let f = F::Let {
        relation: "R2".into(),
        params: vec!["x".into(), "y".into()],
        def: Box::new(ex(
            &["z"],
            and(vec![rel("R", &["x", "z"]), rel("R", &["z", "y"])]),
        )),
        body: Box::new(ex(
            &["x", "y"],
            and(vec![
                rel("P", &["x"]),
                rel("P", &["y"]),
                rel("R2", &["x", "y"]),
            ]),
        )),
    };
    assert!(check(&s, &[], &f));
    // A let definition capturing an outer variable, shadowed at the use.
    let g = ex(
        &["w"],
        and(vec![
            rel("P", &["w"]),
            F::Let {
                relation: "Near".into(),
                params: vec!["x".into()],
                def: Box::new(rel("R", &["w", "x"])),
                body: Box::new(ex(
                    &["w"],
                    and(vec![rel("Near", &["w"]), not(rel("P", &["w"]))]),
                )),
            },
        ]),
    );
    assert!(check(&s, &[], &g));
    // Defined relations referring to each other, and a 0-ary one.
    let defs = vec![
        def(
            "Right2",
            &["x", "y"],
            ex(
                &["z"],
                and(vec![rel("R", &["x", "z"]), rel("R", &["z", "y"])]),
            ),
        ),
        def(
            "Won",
            &[],
            ex(
                &["x", "y"],
                and(vec![
                    rel("P", &["x"]),
                    rel("P", &["y"]),
                    rel("Right2", &["x", "y"]),
                ]),
            ),
        ),
    ];
    assert!(check(&s, &defs, &rel("Won", &[])));
    assert!(check(&s, &defs, &not(not(rel("Won", &[])))));
    let s2 = grid(3);
    assert!(!check(&s2, &defs, &rel("Won", &[])));
    // Recursion and unknown names are rejected.
    assert!(Solver::new(&s, &[def("A", &["x"], rel("A", &["x"]))]).is_err());
    assert!(
        Solver::new(
            &s,
            &[
                def("A", &["x"], rel("B", &["x"])),
                def("B", &["x"], rel("A", &["x"]))
            ]
        )
        .is_err()
    );
    assert!(Solver::new(&s, &[def("A", &["x"], rel("Zzz", &["x"]))]).is_err());
}

// ---- sets ----

/// "b is unreachable from a": a set containing a, closed under E, without b.
fn unreachable_formula() -> F {
    ex_set(
        "X",
        and(vec![
            in_("a", "X"),
            not(in_("b", "X")),
            all(
                &["x", "y"],
                implies(
                    and(vec![in_("x", "X"), rel("E", &["x", "y"])]),
                    in_("y", "X"),
                ),
            ),
        ]),
    )
}

/// 2-colourability of the symmetric closure of E.
fn two_colourable() -> F {
    ex_set(
        "X",
        all(
            &["x", "y"],
            implies(
                rel("E", &["x", "y"]),
                not(iff(in_("x", "X"), in_("y", "X"))),
            ),
        ),
    )
}

fn both_backends(s: &Structure, f: &F, constants: &[&str], args: &[Elem]) -> bool {
    let mut sv = Solver::new(s, &[]).expect("solver");
    let id = sv.compile_formula(f, constants, &[]).expect("compiles");
    let with_splr = sv.holds(s, id, args, &[]);
    sv.set_sat_backend(Arc::new(BruteForce));
    let brute = sv.holds(s, id, args, &[]);
    assert_eq!(with_splr, brute, "splr and brute force disagree");
    with_splr
}

/// A backend that cannot decide anything (as splr timing out would).
#[derive(Debug)]
struct Failing;

impl SatBackend for Failing {
    fn solve(&self, _: &sat::Prop, _: u32) -> Result<Option<Vec<bool>>, String> {
        Err("out of time".into())
    }
}

/// A question the SAT backend cannot decide is a fault of the solver, with
/// the reason, not a panic and not a silent answer; so is a brute-force
/// question over too many variables.
#[test]
fn undecided_set_quantifiers_are_faults() {
    let g = graph(5, &[(0, 1), (1, 2), (2, 3)]);
    let mut sv = Solver::new(&g, &[]).expect("solver");
    let id = sv
        .compile_formula(&two_colourable(), &[], &[])
        .expect("compiles");
    sv.set_sat_backend(Arc::new(Failing));
    assert!(sv.fault().is_none());
    let _ = sv.holds(&g, id, &[], &[]);
    let fault = sv.fault().expect("a fault");
    assert!(
        fault.contains("could not be decided") && fault.contains("out of time"),
        "{fault}"
    );
    let none_set = |n: u32| {
        sat::Prop::and(
            (0..n)
                .map(|v| sat::Prop::negate(sat::Prop::Var(v)))
                .collect(),
        )
    };
    let err = BruteForce
        .solve(&none_set(31), 31)
        .expect_err("too many variables");
    assert!(err.contains("31 variables"), "{err}");
    assert_eq!(
        BruteForce.solve(&none_set(30), 30),
        Ok(Some(vec![false; 30]))
    );
}

#[test]
fn set_quantifiers_with_both_backends() {
    let graphs = [
        graph(5, &[(0, 1), (1, 2), (2, 3)]),
        graph(5, &[(0, 1), (1, 2), (2, 3), (3, 4)]),
        graph(5, &[(1, 0), (2, 1), (4, 3)]),
        graph(6, &[(0, 1), (1, 2), (2, 0), (3, 4)]),
        graph(6, &[(0, 1), (1, 2), (2, 3), (3, 0), (4, 5)]),
    ];
    let f = unreachable_formula();
    for g in &graphs {
        let reach = {
            let mut sv = Solver::new(g, &[]).expect("solver");
            let id = sv
                .compile_formula(
                    &tc(None, &["a"], &["b"], rel("E", &["a", "b"])),
                    &["a", "b"],
                    &[],
                )
                .expect("compiles");
            move |a: Elem, b: Elem| sv.holds(g, id, &[a, b], &[])
        };
        for a in g.elements() {
            for b in g.elements() {
                let unreach = both_backends(g, &f, &["a", "b"], &[a, b]);
                assert_eq!(unreach, !reach(a, b), "a={a} b={b}");
            }
        }
    }
    let col: Vec<bool> = graphs
        .iter()
        .map(|g| both_backends(g, &two_colourable(), &[], &[]))
        .collect();
    assert_eq!(col, vec![true, true, true, false, true]);
    // Universal set quantifier: every set containing v0 and closed under E
    // contains v3 (v3 reachable from v0).
    let closed = all_set(
        "X",
        implies(
            and(vec![
                in_("a", "X"),
                all(
                    &["x", "y"],
                    implies(
                        and(vec![in_("x", "X"), rel("E", &["x", "y"])]),
                        in_("y", "X"),
                    ),
                ),
            ]),
            in_("b", "X"),
        ),
    );
    let g = &graphs[0];
    assert!(both_backends(g, &closed, &["a", "b"], &[0, 3]));
    assert!(!both_backends(g, &closed, &["a", "b"], &[3, 0]));
    // Alternation ex X all Y: X = the whole universe is the only set
    // containing every Y.
    let alt = ex_set(
        "X",
        all_set("Y", all(&["x"], implies(in_("x", "Y"), in_("x", "X")))),
    );
    assert!(both_backends(&graph(3, &[]), &alt, &[], &[]));
    let alt2 = ex_set(
        "X",
        and(vec![
            ex(&["x"], not(in_("x", "X"))),
            all_set("Y", all(&["x"], implies(in_("x", "Y"), in_("x", "X")))),
        ]),
    );
    assert!(!both_backends(&graph(3, &[]), &alt2, &[], &[]));
    // A set variable inside a closure: decided by enumerating subsets.
    let mut sv = Solver::new(g, &[]).expect("solver");
    let within = ex_set(
        "X",
        and(vec![
            not(in_("b", "X")),
            tc(
                None,
                &["a"],
                &["b"],
                and(vec![rel("E", &["a", "b"]), not(in_("a", "X"))]),
            ),
        ]),
    );
    let id = sv
        .compile_formula(&within, &["a", "b"], &[])
        .expect("compiles");
    assert!(sv.holds(g, id, &[0, 3], &[]));
    assert!(!sv.holds(g, id, &[3, 0], &[]));
}

// ---- tic-tac-toe ----

fn line_defs() -> Vec<DefinedRelation> {
    let three = |r: &str| and(vec![rel(r, &["x", "y"]), rel(r, &["y", "z"])]);
    vec![
        def(
            "Line",
            &["x", "y", "z"],
            or(vec![three("R"), three("C"), three("DiagA"), three("DiagB")]),
        ),
        def(
            "Win",
            &["x", "y", "z"],
            and(vec![
                rel("P", &["x"]),
                rel("P", &["y"]),
                rel("P", &["z"]),
                rel("Line", &["x", "y", "z"]),
            ]),
        ),
    ]
}

fn win_formula() -> F {
    ex(
        &["x", "y", "z"],
        and(vec![
            rel("P", &["x"]),
            rel("P", &["y"]),
            rel("P", &["z"]),
            rel("Line", &["x", "y", "z"]),
        ]),
    )
}

#[test]
fn tic_tac_toe_wins() {
    let positions: [(&[&str], bool); 7] = [
        (&[], false),
        (&["x11", "x21", "x31"], true),
        (&["x12", "x22", "x32", "x11"], true),
        (&["x13", "x22", "x31"], true),
        (&["x11", "x22", "x33"], true),
        (&["x11", "x21", "x12", "x33", "x23"], false),
        (&["x11", "x21", "x32", "x13", "x23"], false),
    ];
    let base = grid(3);
    let mut sv = Solver::new(&base, &line_defs()).expect("solver");
    let f = sv
        .compile_formula(&win_formula(), &[], &[])
        .expect("compiles");
    let q = sv
        .compile_query(&rel("Win", &["x", "y", "z"]), &["x", "y", "z"], &[], &[])
        .expect("compiles");
    let mut tabled = sv.clone();
    let stable: Vec<RelId> = ["R", "C", "DiagA", "DiagB"]
        .iter()
        .filter_map(|r| base.relation(r))
        .collect();
    tabled.set_stable(&stable);
    tabled.set_stable_from(&base);
    assert_eq!(tabled.tables.len(), 1, "Line is tabulated, Win is not");
    for (cells, won) in positions {
        let mut s = base.clone();
        mark(&mut s, "P", cells);
        assert_eq!(sv.holds(&s, f, &[], &[]), won, "{cells:?}");
        assert_eq!(tabled.holds(&s, f, &[], &[]), won, "{cells:?}");
        let wins = sv.satisfying(&s, q, &[], &[]);
        assert_eq!(wins, tabled.satisfying(&s, q, &[], &[]));
        assert_eq!(!wins.is_empty(), won);
    }
    // After removing an element the tables are not used, results stay right.
    let mut s = base.clone();
    mark(&mut s, "P", &["x11", "x21", "x31"]);
    let gone = el(&s, "x33");
    s.remove_element(gone);
    assert!(tabled.holds(&s, f, &[], &[]));
}

/// A table joined with sets per position (decided set at a time when
/// tabulated): the same truth as the inlined definition, with a negated
/// condition, a position without one and a constant from outside.
#[test]
fn table_joined_with_sets() {
    let base = grid(3);
    let mut sv = Solver::new(&base, &line_defs()).expect("solver");
    let f = sv
        .compile_formula(
            &ex(
                &["x", "y", "z"],
                and(vec![
                    rel("P", &["x"]),
                    not(rel("P", &["y"])),
                    or(vec![rel("P", &["z"]), rel("R", &["c", "z"])]),
                    rel("Line", &["x", "y", "z"]),
                ]),
            ),
            &["c"],
            &[],
        )
        .expect("compiles");
    let g = sv
        .compile_formula(
            &ex(
                &["x", "y", "z"],
                and(vec![rel("Line", &["x", "y", "z"]), rel("P", &["y"])]),
            ),
            &[],
            &[],
        )
        .expect("compiles");
    let mut tabled = sv.clone();
    let stable: Vec<RelId> = ["R", "C", "DiagA", "DiagB"]
        .iter()
        .filter_map(|r| base.relation(r))
        .collect();
    tabled.set_stable(&stable);
    tabled.set_stable_from(&base);
    let marks: [&[&str]; 5] = [
        &[],
        &["x11"],
        &["x11", "x31"],
        &["x22", "x13"],
        &["x11", "x21", "x31", "x12"],
    ];
    let mut seen = [false; 2];
    for cells in marks {
        let mut s = base.clone();
        mark(&mut s, "P", cells);
        for c in s.elements().collect::<Vec<_>>() {
            let want = sv.holds(&s, f, &[c], &[]);
            assert_eq!(tabled.holds(&s, f, &[c], &[]), want, "{cells:?} {c}");
            seen[want as usize] = true;
        }
        assert_eq!(tabled.holds(&s, g, &[], &[]), sv.holds(&s, g, &[], &[]));
    }
    assert_eq!(seen, [true, true], "both outcomes occur");
}

// ---- differential test against a naive evaluator ----

/// Straightforward evaluation of first-order formulas by names.
fn naive(s: &Structure, f: &F, env: &mut Vec<(String, Elem)>) -> bool {
    let get = |env: &Vec<(String, Elem)>, n: &str| {
        env.iter()
            .rev()
            .find(|(m, _)| m == n)
            .map(|p| p.1)
            .expect("bound")
    };
    match f {
        F::True => true,
        F::False => false,
        F::Rel { name, args } => {
            let r = s.relation(name).expect("relation");
            let t: Vec<Elem> = args.iter().map(|a| get(env, a)).collect();
            s.contains(r, &t)
        }
        F::Eq(a, b) => get(env, a) == get(env, b),
        F::Not(x) => !naive(s, x, env),
        F::And(xs) => xs.iter().all(|x| naive(s, x, env)),
        F::Or(xs) => xs.iter().any(|x| naive(s, x, env)),
        F::Implies(a, b) => !naive(s, a, env) || naive(s, b, env),
        F::Iff(a, b) => naive(s, a, env) == naive(s, b, env),
        F::Exists { vars, body } | F::Forall { vars, body } => {
            let forall = matches!(f, F::Forall { .. });
            fn rec(
                s: &Structure,
                vars: &[Var],
                body: &F,
                env: &mut Vec<(String, Elem)>,
                forall: bool,
            ) -> bool {
                let Some((v, rest)) = vars.split_first() else {
                    return naive(s, body, env);
                };
                let elems: Vec<Elem> = s.elements().collect();
                for e in elems {
                    env.push((v.name().to_string(), e));
                    let r = rec(s, rest, body, env, forall);
                    env.pop();
                    if r != forall {
                        return !forall;
                    }
                }
                forall
            }
            rec(s, vars, body, env, forall)
        }
        _ => unreachable!(),
    }
}

/// A small deterministic generator of random formulas.
struct Gen(u64);
impl Gen {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
    fn var(&mut self, scope: &[String]) -> String {
        scope[self.next(scope.len() as u64) as usize].clone()
    }
    fn formula(&mut self, depth: u32, scope: &mut Vec<String>) -> F {
        let k = if depth == 0 {
            self.next(4)
        } else {
            self.next(11)
        };
        match k {
            0 => rel("P", &[&self.var(scope)]),
            1 => rel("E", &[&self.var(scope), &self.var(scope)]),
            2 => eq(&self.var(scope), &self.var(scope)),
            3 => rel("T", &[&self.var(scope), &self.var(scope), &self.var(scope)]),
            4 => not(self.formula(depth - 1, scope)),
            5 | 6 => and((0..2 + self.next(2))
                .map(|_| self.formula(depth - 1, scope))
                .collect()),
            7 => or((0..2 + self.next(2))
                .map(|_| self.formula(depth - 1, scope))
                .collect()),
            8 => implies(
                self.formula(depth - 1, scope),
                self.formula(depth - 1, scope),
            ),
            _ => {
                let n = 1 + self.next(2);
                let vs: Vec<String> = (0..n).map(|i| format!("v{}_{}", scope.len(), i)).collect();
                scope.extend(vs.iter().cloned());
                let body = self.formula(depth - 1, scope);
                scope.truncate(scope.len() - vs.len());
                let vars = vs.into_iter().map(Var::Element).collect();
                if k == 9 {
                    F::Exists {
                        vars,
                        body: Box::new(body),
                    }
                } else {
                    F::Forall {
                        vars,
                        body: Box::new(body),
                    }
                }
            }
        }
    }
}

#[test]
fn planner_agrees_with_naive_evaluation() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for round in 0..40 {
        let n = 2 + g.next(4) as u32;
        let mut s = graph(n, &[]);
        let e = s.relation("E").unwrap_or(0);
        let p = s.relation("P").unwrap_or(0);
        let t = s.declare_relation("T", 3).unwrap_or(0);
        for a in 0..n {
            if g.next(2) == 0 {
                s.add_tuple(p, &[a]);
            }
            for b in 0..n {
                if g.next(3) == 0 {
                    s.add_tuple(e, &[a, b]);
                }
                for c in 0..n {
                    if g.next(6) == 0 {
                        s.add_tuple(t, &[a, b, c]);
                    }
                }
            }
        }
        if round % 5 == 0 {
            s.remove_element(0);
        }
        let mut sv = Solver::new(&s, &[]).expect("solver");
        for _ in 0..25 {
            let mut scope = vec!["a".to_string(), "b".to_string()];
            let f = g.formula(4, &mut scope);
            let id = sv.compile_formula(&f, &["a", "b"], &[]).expect("compiles");
            let q = sv
                .compile_query(&f, &["a", "b"], &[], &[])
                .expect("compiles");
            let mut expected = Vec::new();
            let elems: Vec<Elem> = s.elements().collect();
            for &a in &elems {
                for &b in &elems {
                    let mut env = vec![("a".to_string(), a), ("b".to_string(), b)];
                    let want = naive(&s, &f, &mut env);
                    assert_eq!(sv.holds(&s, id, &[a, b], &[]), want, "{f:?} a={a} b={b}");
                    if want {
                        expected.push(vec![a, b]);
                    }
                }
            }
            assert_eq!(sv.satisfying(&s, q, &[], &[]), expected, "{f:?}");
        }
    }
}

/// A random formula in the set-at-a-time fragment, free in `x`: unary
/// atoms, connectives, images `ex y (E(y, x) and phi(y))` in both
/// directions, universal images and closed subformulas.
fn set_fragment(g: &mut Gen, depth: u32, x: &str, fresh: &mut u32) -> F {
    let k = if depth == 0 { g.next(3) } else { g.next(9) };
    match k {
        0 => rel("P", &[x]),
        1 => eq(x, x),
        2 => ex(&["z"], and(vec![rel("P", &["z"]), rel("E", &["z", "z"])])),
        3 => not(set_fragment(g, depth - 1, x, fresh)),
        4 => and((0..2)
            .map(|_| set_fragment(g, depth - 1, x, fresh))
            .collect()),
        5 => or((0..2)
            .map(|_| set_fragment(g, depth - 1, x, fresh))
            .collect()),
        6 => {
            *fresh += 1;
            let w = format!("w{fresh}");
            let inner = set_fragment(g, depth - 1, &w, fresh);
            all(&[&w], implies(rel("E", &[x, &w]), inner))
        }
        _ => {
            *fresh += 1;
            let y = format!("y{fresh}");
            let link = if k == 7 {
                rel("E", &[&y, x])
            } else {
                rel("E", &[x, &y])
            };
            let inner = set_fragment(g, depth - 1, &y, fresh);
            ex(&[&y], and(vec![link, inner]))
        }
    }
}

/// A random graph on `n` elements with a random unary `P`; with `band`,
/// edges only join elements whose ids differ by at most `band` (so the
/// relation is a few translations of ids).
fn random_graph(g: &mut Gen, n: u32, band: Option<u32>) -> Structure {
    let mut s = graph(n, &[]);
    let e = s.relation("E").unwrap_or(0);
    let p = s.relation("P").unwrap_or(0);
    for a in 0..n {
        if g.next(2) == 0 {
            s.add_tuple(p, &[a]);
        }
        for b in 0..n {
            if band.is_none_or(|d| a.abs_diff(b) <= d) && g.next(3) == 0 {
                s.add_tuple(e, &[a, b]);
            }
        }
    }
    s
}

#[test]
fn set_evaluation_agrees_with_naive_evaluation() {
    let mut g = Gen(0x2545_f491_4f6c_dd1d);
    for round in 0..40 {
        let n = 3 + g.next(70) as u32;
        let s = random_graph(&mut g, n, (round % 2 == 1).then_some(3));
        let e = s.relation("E").unwrap_or(0);
        let mut sv = Solver::new(&s, &[]).expect("solver");
        // Every other round E is declared stable, so that images use
        // translations of element ids where E has few of them.
        if round % 2 == 1 {
            sv.set_stable(&[e]);
        }
        let mut formulas = Vec::new();
        for _ in 0..20 {
            let f = set_fragment(&mut g, 3, "x", &mut 0);
            let id = sv
                .compile_set(&f, "x", &[], &[])
                .expect("compiles")
                .unwrap_or_else(|| panic!("in the fragment: {f:?}"));
            formulas.push((f, id));
        }
        if round % 2 == 1 {
            sv.set_stable_from(&s);
        }
        // With one memo for the structure, each formula twice: the second
        // time its structure-only parts come from the memo.
        let mut memo = SetMemo::default();
        for _ in 0..2 {
            for (f, id) in &formulas {
                let want: Vec<Elem> = s
                    .elements()
                    .filter(|&a| naive(&s, f, &mut vec![("x".to_string(), a)]))
                    .collect();
                let got: Vec<Elem> = sv.set_of(&s, *id, &[], &[]).iter().collect();
                assert_eq!(got, want, "{f:?}");
                let memoized: Vec<Elem> = sv
                    .set_of_memo(&s, *id, &[], &[], &mut memo)
                    .iter()
                    .collect();
                assert_eq!(memoized, want, "{f:?} with a memo");
            }
        }
    }
}

#[test]
fn shifts_decompose_grid_steps() {
    // A 5x5 grid: the column step C is the translation by one row of ids
    // (5) on every cell but the top row.
    let s = grid(5);
    let c = s.relation("C").expect("C");
    let (fwd, bwd) = Shifts::of(s.relation_data(c), s.id_bound()).expect("few translations");
    assert_eq!(fwd.0.len(), 1);
    assert_eq!(bwd.0.len(), 1);
    assert_eq!(fwd.0[0].0, -bwd.0[0].0);
    assert_eq!(fwd.0[0].1.iter().map(|w| w.count_ones()).sum::<u32>(), 20);
    // A relation needing more translations than allowed is not decomposed.
    let mut pairs = Vec::new();
    for a in 0..20u32 {
        for b in 0..20u32 {
            pairs.push((a, b));
        }
    }
    let h = graph(20, &pairs);
    let e = h.relation("E").expect("E");
    assert!(Shifts::of(h.relation_data(e), h.id_bound()).is_none());
}

#[test]
fn unary_fixed_point_is_reachability() {
    let mut g = Gen(0x1234_5678_9abc_def1);
    for round in 0..30 {
        let n = 2 + g.next(80) as u32;
        let s = random_graph(&mut g, n, (round % 2 == 1).then_some(2));
        let e = s.relation("E").unwrap_or(0);
        let mut sv = Solver::new(&s, &[]).expect("solver");
        if round % 2 == 1 {
            sv.set_stable(&[e]);
        }
        // Reachable from P along E, as a least fixed point (computed set
        // at a time) and by transitive closure (tuple at a time).
        let lfp = fix(
            FixpointKind::Least,
            "T",
            &["x"],
            or(vec![
                rel("P", &["x"]),
                ex(&["y"], and(vec![rel("T", &["y"]), rel("E", &["y", "x"])])),
            ]),
        );
        let reach = ex(
            &["p"],
            and(vec![
                rel("P", &["p"]),
                tc(None, &["p"], &["x"], rel("E", &["p", "x"])),
            ]),
        );
        let set = sv
            .compile_set(&lfp, "x", &[], &[])
            .expect("compiles")
            .expect("set");
        let q = sv.compile_query(&lfp, &["x"], &[], &[]).expect("compiles");
        let r = sv
            .compile_query(&reach, &["x"], &[], &[])
            .expect("compiles");
        if round % 2 == 1 {
            sv.set_stable_from(&s);
        }
        let want = sv.satisfying(&s, r, &[], &[]);
        assert_eq!(sv.satisfying(&s, q, &[], &[]), want);
        let got: Vec<Vec<Elem>> = sv
            .set_of(&s, set, &[], &[])
            .iter()
            .map(|x| vec![x])
            .collect();
        assert_eq!(got, want);
    }
}

#[test]
fn closures_from_a_bound_element_as_sets() {
    let mut g = Gen(0x0bad_cafe_f00d_d00d);
    for round in 0..30 {
        let n = 2 + g.next(40) as u32;
        let s = random_graph(&mut g, n, (round % 2 == 1).then_some(2));
        let e = s.relation("E").unwrap_or(0);
        let mut sv = Solver::new(&s, &[]).expect("solver");
        if round % 2 == 1 {
            sv.set_stable(&[e]);
        }
        // Steps along E through P elements (the source need not be P),
        // from `c` to `x` and from `x` to `c`, reflexive or exactly 3.
        let body = |a: &str, b: &str| and(vec![rel("E", &[a, b]), rel("P", &[b])]);
        let formulas = [
            tc(None, &["c"], &["x"], body("c", "x")),
            tc(None, &["x"], &["c"], body("x", "c")),
            tc(Some(3), &["c"], &["x"], body("c", "x")),
            tc(Some(2), &["x"], &["c"], body("x", "c")),
            and(vec![rel("E", &["c", "x"]), not(rel("E", &["x", "c"]))]),
        ];
        let mut ids = Vec::new();
        for f in &formulas {
            let set = sv
                .compile_set(f, "x", &["c"], &[])
                .expect("compiles")
                .unwrap_or_else(|| panic!("in the fragment: {f:?}"));
            let tuple = sv.compile_formula(f, &["c", "x"], &[]).expect("compiles");
            ids.push((set, tuple));
        }
        if round % 2 == 1 {
            sv.set_stable_from(&s);
        }
        let mut memo = SetMemo::default();
        for (f, (set, tuple)) in formulas.iter().zip(&ids) {
            for c in s.elements() {
                let want: Vec<Elem> = s
                    .elements()
                    .filter(|&x| sv.holds(&s, *tuple, &[c, x], &[]))
                    .collect();
                let got: Vec<Elem> = sv.set_of(&s, *set, &[c], &[]).iter().collect();
                assert_eq!(got, want, "{f:?} from {c}");
                let memoized: Vec<Elem> = sv
                    .set_of_memo(&s, *set, &[c], &[], &mut memo)
                    .iter()
                    .collect();
                assert_eq!(memoized, want, "{f:?} from {c} with a memo");
            }
        }
        // Steps onto elements outside P or onto `d` (an amazon's arrow may
        // fly over the square it left): `not P` depends on the structure
        // only, and is evaluated once for all `c` and `d` with a memo.
        let free = tc(
            None,
            &["c"],
            &["x"],
            and(vec![
                rel("E", &["c", "x"]),
                or(vec![not(rel("P", &["x"])), eq("x", "d")]),
            ]),
        );
        let mut sv = Solver::new(&s, &[]).expect("solver");
        if round % 2 == 1 {
            sv.set_stable(&[e]);
        }
        let set = sv
            .compile_set(&free, "x", &["c", "d"], &[])
            .expect("compiles")
            .expect("in the fragment");
        let tuple = sv
            .compile_formula(&free, &["c", "d", "x"], &[])
            .expect("compiles");
        if round % 2 == 1 {
            sv.set_stable_from(&s);
        }
        let mut memo = SetMemo::default();
        for c in s.elements() {
            for d in s.elements().take(4) {
                let want: Vec<Elem> = s
                    .elements()
                    .filter(|&x| sv.holds(&s, tuple, &[c, d, x], &[]))
                    .collect();
                let got: Vec<Elem> = sv
                    .set_of_memo(&s, set, &[c, d], &[], &mut memo)
                    .iter()
                    .collect();
                assert_eq!(got, want, "from {c} with {d}");
            }
        }
    }
}

#[test]
fn unions_of_closures_from_a_bound_element_as_sets() {
    let mut g = Gen(0x5eed_1e55_c0de_cafe);
    for round in 0..30 {
        let n = 2 + g.next(60) as u32;
        let mut s = random_graph(&mut g, n, (round % 2 == 1).then_some(2));
        // F: mostly a partial function (its closures are rays, followed
        // element by element), with a branch now and then.
        let f = s.declare_relation("F", 2).unwrap_or(0);
        for a in 0..n {
            if g.next(4) != 0 {
                s.add_tuple(f, &[a, (a + 1 + g.next(3) as u32) % n]);
            }
            if g.next(8) == 0 {
                s.add_tuple(f, &[a, g.next(n as u64) as u32]);
            }
        }
        if round % 3 == 2 {
            s.remove_element(g.next(n as u64) as u32);
        }
        let e = s.relation("E").unwrap_or(0);
        let mut sv = Solver::new(&s, &[]).expect("solver");
        if round % 2 == 1 {
            sv.set_stable(&[e, f]);
        }
        // Onto elements outside P or onto `d`, from elements in P when
        // `guarded`: the same conditions in every member, so the members
        // are evaluated as one closure along several relations.
        let cond = |v: &str| or(vec![not(rel("P", &[v])), eq(v, "d")]);
        let step = |r: &str, a: &str, b: &str, guarded: bool| {
            let mut cs = vec![rel(r, &[a, b]), cond(b)];
            if guarded {
                cs.push(rel("P", &[a]));
            }
            and(cs)
        };
        let rays = |guarded: bool| {
            or(vec![
                tc(None, &["c"], &["x"], step("F", "c", "x", guarded)),
                tc(None, &["c"], &["x"], step("F", "x", "c", guarded)),
                tc(None, &["c"], &["x"], step("E", "c", "x", guarded)),
                tc(None, &["c"], &["x"], step("E", "x", "c", guarded)),
            ])
        };
        let formulas = [
            rays(false),
            rays(true),
            // Reversed (to `c`), exactly two steps, and members with
            // other conditions, which are kept apart.
            or(vec![
                tc(None, &["x"], &["c"], step("F", "x", "c", false)),
                tc(None, &["x"], &["c"], step("E", "x", "c", false)),
                tc(Some(2), &["c"], &["x"], step("F", "c", "x", false)),
                tc(Some(2), &["c"], &["x"], step("E", "c", "x", false)),
                tc(None, &["c"], &["x"], rel("F", &["c", "x"])),
                rel("P", &["x"]),
            ]),
        ];
        let mut ids = Vec::new();
        for f in &formulas {
            let set = sv
                .compile_set(f, "x", &["c", "d"], &[])
                .expect("compiles")
                .unwrap_or_else(|| panic!("in the fragment: {f:?}"));
            let tuple = sv
                .compile_formula(f, &["c", "d", "x"], &[])
                .expect("compiles");
            ids.push((set, tuple));
        }
        if round % 2 == 1 {
            sv.set_stable_from(&s);
        }
        let mut memo = SetMemo::default();
        for (f, (set, tuple)) in formulas.iter().zip(&ids) {
            for c in s.elements() {
                for d in s.elements().step_by(5) {
                    let want: Vec<Elem> = s
                        .elements()
                        .filter(|&x| sv.holds(&s, *tuple, &[c, d, x], &[]))
                        .collect();
                    let got: Vec<Elem> = sv.set_of(&s, *set, &[c, d], &[]).iter().collect();
                    assert_eq!(got, want, "{f:?} from {c} with {d}");
                    let memoized: Vec<Elem> = sv
                        .set_of_memo(&s, *set, &[c, d], &[], &mut memo)
                        .iter()
                        .collect();
                    assert_eq!(memoized, want, "{f:?} from {c} with {d}, memo");
                }
            }
        }
    }
}

/// A backend that counts its queries.
#[derive(Debug, Default)]
struct Counting(std::sync::atomic::AtomicUsize);

impl SatBackend for Counting {
    fn solve(&self, p: &sat::Prop, num_vars: u32) -> Result<Option<Vec<bool>>, String> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Splr.solve(p, num_vars)
    }
}

/// The pairs (a, b) with b unreachable from a, as a query: listed by model
/// enumeration over one grounding (blocking clauses over per-pair
/// selectors), equal to deciding each pair on its own with either backend
/// (splr and brute force), and with at most one SAT call per solution plus
/// the last, refuting one (instead of one call per pair).
#[test]
fn set_query_by_model_enumeration() {
    let graphs = [
        graph(5, &[(0, 1), (1, 2), (2, 3)]),
        graph(6, &[(0, 1), (1, 2), (2, 0), (3, 4)]),
        graph(6, &[(0, 1), (1, 2), (2, 3), (3, 0), (4, 5)]),
        graph(4, &[(0, 1), (1, 0), (2, 3), (3, 2)]),
    ];
    let f = unreachable_formula();
    for g in &graphs {
        let counting = Arc::new(Counting::default());
        let mut sv = Solver::new(g, &[]).expect("solver");
        sv.set_sat_backend(counting.clone());
        let q = sv
            .compile_query(&f, &["a", "b"], &[], &[])
            .expect("compiles");
        let listed = sv.satisfying(g, q, &[], &[]);
        let calls = counting.0.load(std::sync::atomic::Ordering::Relaxed);
        let mut expected = Vec::new();
        for a in g.elements() {
            for b in g.elements() {
                if both_backends(g, &f, &["a", "b"], &[a, b]) {
                    expected.push(vec![a, b]);
                }
            }
        }
        assert_eq!(listed, expected);
        assert!(!expected.is_empty());
        assert!(
            calls <= expected.len() + 1,
            "{calls} SAT calls for {} solutions",
            expected.len()
        );
    }
}

/// The generators of the first search in a compiled formula, in order.
fn plan_of(sv: &Solver, id: FormulaId) -> Vec<String> {
    use node::{Arg, Gen, Node, Search};
    fn first_search(n: &Node) -> Option<&Search> {
        match n {
            Node::Search(s) => Some(s),
            Node::Not(x) => first_search(x),
            Node::And(xs) | Node::Or(xs) => xs.iter().find_map(first_search),
            _ => None,
        }
    }
    let Body::Formula(n) = &sv.entries[id.0 as usize].plain.body else {
        panic!("a formula");
    };
    let s = first_search(n).expect("a search");
    s.steps
        .iter()
        .map(|st| match &st.generator {
            Gen::All(_) => "all".to_string(),
            Gen::Eq { .. } => "eq".to_string(),
            Gen::Atom { args, .. } => {
                let a: Vec<&str> = args
                    .iter()
                    .map(|a| match a {
                        Arg::Bound(_) => "bound",
                        Arg::Bind(_) => "bind",
                        Arg::Check(_) => "check",
                    })
                    .collect();
                format!("atom({})", a.join(", "))
            }
            Gen::Unaries { pos, neg, .. } => format!("unaries({}, {})", pos.len(), neg.len()),
        })
        .collect()
}

/// Query planning binds the most selective generator first, whatever the
/// order of the conjuncts: an equality with a bound constant before a
/// relation, a relation index from a bound element before a scan, unary
/// relations as one bitset generator, and every conjunct checked once its
/// variables are bound; quantifiers are pushed inward (miniscoping: two
/// independent blocks become two searches).
#[test]
fn planner_orders_conjuncts_by_selectivity() {
    let mut s = graph(4, &[(0, 1), (1, 2)]);
    s.declare_relation("Q", 1);
    let mut sv = Solver::new(&s, &[]).expect("solver");
    // `E(x, y) and P(y) and x = c`: x from c (equality), then y through E's
    // successors of x; P(y) a filter.
    let f = ex(
        &["x", "y"],
        and(vec![rel("E", &["x", "y"]), rel("P", &["y"]), eq("x", "c")]),
    );
    let id = sv.compile_formula(&f, &["c"], &[]).expect("compiles");
    assert_eq!(plan_of(&sv, id), ["eq", "atom(bound, bind)"]);
    // Without the constant: both unary relations of x as one generator,
    // then E from the bound x.
    let f = ex(
        &["x", "y"],
        and(vec![
            rel("E", &["x", "y"]),
            rel("Q", &["x"]),
            rel("P", &["x"]),
        ]),
    );
    let id = sv.compile_formula(&f, &[], &[]).expect("compiles");
    assert_eq!(plan_of(&sv, id), ["unaries(2, 0)", "atom(bound, bind)"]);
    // Miniscoping: `ex x, y (P(x) and Q(y))` is two independent searches,
    // each of one step.
    let f = ex(&["x", "y"], and(vec![rel("P", &["x"]), rel("Q", &["y"])]));
    let id = sv.compile_formula(&f, &[], &[]).expect("compiles");
    let Body::Formula(node::Node::And(parts)) = &sv.entries[id.0 as usize].plain.body else {
        panic!("two searches: {:?}", sv.entries[id.0 as usize].plain.body);
    };
    assert_eq!(parts.len(), 2);
}

/// Closed defined relations that use each other as a DAG (a GDL game's
/// relations per ground instance): `r0` says "some cell is P", each `r{i}`
/// uses `r{i-1}` twice, so the inlined tree has 2^60 copies of `r0`; the
/// solver compiles each once and evaluates each once per call (also
/// under a negation, and with a memo across calls on one structure).
#[test]
fn closed_relations_used_as_a_dag_are_shared() {
    let mut s = grid(3);
    let big = |i: usize| {
        or((0..ir::sizes::SHARE_ABOVE as usize)
            .map(|k| {
                if k == i {
                    ex(&["x"], rel("P", &["x"]))
                } else {
                    F::False
                }
            })
            .collect())
    };
    let mut defs = vec![def("r0", &[], big(0))];
    for i in 1..60 {
        let prev = format!("r{}", i - 1);
        // r_i = r_{i-1} and not not r_{i-1}: the same truth as r0.
        defs.push(def(
            &format!("r{i}"),
            &[],
            and(vec![rel(&prev, &[]), not(not(rel(&prev, &[])))]),
        ));
    }
    let top = rel("r59", &[]);
    assert!(!check(&s, &defs, &top));
    assert!(check(&s, &defs, &not(top.clone())));
    mark(&mut s, "P", &["x22"]);
    assert!(check(&s, &defs, &top));
    // With a memo: the same values, on each structure.
    let mut sv = Solver::new(&s, &defs).expect("solver");
    let id = sv
        .compile_formula(&and(vec![top.clone(), rel("P", &["x"])]), &["x"], &[])
        .expect("compiles");
    let mut memo = SetMemo::default();
    let yes: Vec<bool> = ["x11", "x22"]
        .iter()
        .map(|n| {
            let e = s.element(n).expect("cell");
            sv.holds_memo(&s, id, &[e], &[], &mut memo)
        })
        .collect();
    assert_eq!(yes, vec![false, true]);
}
