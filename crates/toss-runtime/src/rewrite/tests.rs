//! Hand-worked tests of spec 1.1: each clause of matching and application.

use super::*;
use toss_testkit::fixtures::{rule, side, st};

fn names(s: &Structure, m: &Match) -> Vec<String> {
    m.elems
        .iter()
        .map(|&e| s.element_name(e).to_string())
        .collect()
}

fn all_matches(r: &CompiledRule, s: &Structure) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    r.matches(s, &mut out);
    out.iter().map(|m| names(s, m)).collect()
}

fn v(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

/// Figure 1.1 style: `[a, b | R(a, b)] -> [a, c, b | R{(a, c); (c, b)}] emb R`
/// subdivides an edge.
#[test]
fn subdivide_edge_exactly() {
    let a = st(
        &["x", "y", "z"],
        &[("R", 2, &[&["x", "y"], &["y", "z"]])],
        &[],
    );
    let r = rule(
        "finish",
        side(&["a", "b"], &[("R", &["a", "b"])]),
        side(&["a", "c", "b"], &[("R", &["a", "c"]), ("R", &["c", "b"])]),
        &["R"],
    );
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    assert_eq!(all_matches(&cr, &a), vec![v(&["x", "y"]), v(&["y", "z"])]);

    let mut ms = Vec::new();
    cr.matches(&a, &mut ms);
    let mut b = a.clone();
    let img = cr.apply(&mut b, &ms[0], &[]);
    // a and b keep their ids, c is new.
    assert_eq!(img[0], a.element("x").expect("x"));
    assert_eq!(img[2], a.element("y").expect("y"));
    assert_eq!(b.element_name(img[1]), "c");
    let expected = st(
        &["x", "y", "z", "c"],
        &[("R", 2, &[&["x", "c"], &["c", "y"], &["y", "z"]])],
        &[],
    );
    assert_eq!(b, expected);
    // The original is untouched.
    assert_eq!(a.num_elements(), 3);

    // Applying again on the new edge (c, y): the fresh name avoids "c".
    let mut ms2 = Vec::new();
    cr.matches(&b, &mut ms2);
    assert_eq!(ms2.len(), 3);
    let m = ms2
        .iter()
        .find(|m| names(&b, m) == v(&["c", "y"]))
        .expect("match on (c, y)");
    let mut c = b.clone();
    let img = cr.apply(&mut c, m, &[]);
    let fresh = c.element_name(img[1]).to_string();
    assert_ne!(fresh, "c");
    assert!(fresh.starts_with("c_"));
    assert_eq!(c.num_elements(), 5);
    assert_eq!(c.relation_len(0), 4);
}

/// An extra emb tuple between matched elements rejects a match; the same
/// tuple is irrelevant when the relation is matched positively (tau_h), and
/// then it survives the rewrite.
#[test]
fn exact_versus_positive_matching() {
    let a = st(&["x", "y"], &[("R", 2, &[&["x", "y"], &["y", "x"]])], &[]);
    let lhs = side(&["a", "b"], &[("R", &["a", "b"])]);
    let rhs = side(&["a", "c", "b"], &[("R", &["a", "c"]), ("R", &["c", "b"])]);

    let exact =
        CompiledRule::new(&rule("e", lhs.clone(), rhs.clone(), &["R"]), &a, &[]).expect("compiles");
    assert!(all_matches(&exact, &a).is_empty());
    assert!(!exact.has_match(&a));

    let positive = CompiledRule::new(&rule("h", lhs, rhs, &[]), &a, &[]).expect("compiles");
    assert_eq!(
        all_matches(&positive, &a),
        vec![v(&["x", "y"]), v(&["y", "x"])]
    );
    let mut ms = Vec::new();
    positive.matches(&a, &mut ms);
    let mut b = a.clone();
    positive.apply(&mut b, &ms[0], &[]);
    // tau_h: L -> R only adds; (x, y) and (y, x) stay.
    let expected = st(
        &["x", "y", "c"],
        &[(
            "R",
            2,
            &[&["x", "y"], &["y", "x"], &["x", "c"], &["c", "y"]],
        )],
        &[],
    );
    assert_eq!(b, expected);

    // A unary emb relation on an unlisted element also rejects.
    let a = st(&["x", "y"], &[("P", 1, &[&["x"]])], &[]);
    let r = rule(
        "mark",
        side(&["a"], &[]),
        side(&["a"], &[("P", &["a"])]),
        &["P"],
    );
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    assert_eq!(all_matches(&cr, &a), vec![v(&["y"])]);
}

/// Emb tuples among matched elements are replaced; those reaching outside
/// the match stay.
#[test]
fn exact_relations_replaced_only_inside_the_match() {
    let a = st(
        &["x", "y", "z"],
        &[("E", 2, &[&["x", "y"], &["y", "z"], &["z", "x"]])],
        &[],
    );
    // Reverse an edge.
    let r = rule(
        "flip",
        side(&["a", "b"], &[("E", &["a", "b"])]),
        side(&["a", "b"], &[("E", &["b", "a"])]),
        &["E"],
    );
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    let mut ms = Vec::new();
    cr.matches(&a, &mut ms);
    assert_eq!(ms.len(), 3);
    let mut b = a.clone();
    cr.apply(&mut b, &ms[0], &[]);
    let expected = st(
        &["x", "y", "z"],
        &[("E", 2, &[&["y", "x"], &["y", "z"], &["z", "x"]])],
        &[],
    );
    assert_eq!(b, expected);
}

/// Optional tuples: both branches match an exact relation, the mask records
/// presence, and the right-side counterpart follows it.
#[test]
fn optional_tuples_both_branches() {
    let a = st(&["x", "y"], &[("P", 1, &[&["x"]]), ("Q", 1, &[])], &[]);
    let r = rule(
        "opt",
        side(&["a"], &[("_opt_P", &["a"])]),
        side(&["a"], &[("_opt_P", &["a"]), ("Q", &["a"])]),
        &["P", "Q"],
    );
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    let mut ms = Vec::new();
    cr.matches(&a, &mut ms);
    assert_eq!(ms.len(), 2);
    assert_eq!((names(&a, &ms[0]), ms[0].optional), (v(&["x"]), 1));
    assert_eq!((names(&a, &ms[1]), ms[1].optional), (v(&["y"]), 0));

    let mut b = a.clone();
    cr.apply(&mut b, &ms[0], &[]);
    assert_eq!(
        b,
        st(
            &["x", "y"],
            &[("P", 1, &[&["x"]]), ("Q", 1, &[&["x"]])],
            &[]
        )
    );
    let mut c = a.clone();
    cr.apply(&mut c, &ms[1], &[]);
    assert_eq!(
        c,
        st(
            &["x", "y"],
            &[("P", 1, &[&["x"]]), ("Q", 1, &[&["y"]])],
            &[]
        )
    );

    // Without the optional tuple, the exact P rejects x.
    let r = rule(
        "plain",
        side(&["a"], &[]),
        side(&["a"], &[("Q", &["a"])]),
        &["P", "Q"],
    );
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    assert_eq!(all_matches(&cr, &a), vec![v(&["y"])]);

    // An optional right tuple without a left counterpart is an error.
    let bad = rule(
        "bad",
        side(&["a"], &[]),
        side(&["a"], &[("_opt_P", &["a"])]),
        &[],
    );
    assert!(CompiledRule::new(&bad, &a, &[]).is_err());
}

/// `nondistinct` pairs may be matched to one element; others may not.
#[test]
fn nondistinct_pairs() {
    let a = st(&["x", "y"], &[("E", 2, &[&["x", "x"], &["x", "y"]])], &[]);
    let mut r = rule(
        "loop",
        side(&["a", "b"], &[("E", &["a", "b"])]),
        side(&["a", "b"], &[("E", &["a", "b"])]),
        &[],
    );
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    assert_eq!(all_matches(&cr, &a), vec![v(&["x", "y"])]);
    r.nondistinct = vec![("a".into(), "b".into())];
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    assert_eq!(all_matches(&cr, &a), vec![v(&["x", "x"]), v(&["x", "y"])]);
    // Applying on the merged match: a reuses x, b becomes a copy of x that
    // receives x's tuples.
    let mut ms = Vec::new();
    cr.matches(&a, &mut ms);
    let mut b = a.clone();
    let img = cr.apply(&mut b, &ms[0], &[]);
    assert_eq!(b.num_elements(), 3);
    assert_ne!(img[0], img[1]);
    let e = b.relation("E").expect("E");
    assert!(b.contains(e, &[img[0], img[1]]));
    assert!(b.contains(e, &[img[1], b.element("y").expect("y")]));
}

/// Left elements without a right counterpart are deleted with their tuples.
#[test]
fn deletion() {
    let a = st(
        &["x", "y", "z"],
        &[("E", 2, &[&["x", "y"], &["y", "z"]]), ("P", 1, &[&["y"]])],
        &[],
    );
    let r = rule(
        "cut",
        side(&["a", "b"], &[("E", &["a", "b"]), ("P", &["b"])]),
        side(&["a"], &[]),
        &[],
    );
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    let mut ms = Vec::new();
    cr.matches(&a, &mut ms);
    assert_eq!(
        ms.iter().map(|m| names(&a, m)).collect::<Vec<_>>(),
        vec![v(&["x", "y"])]
    );
    // Deleting a matched element may touch any relation on it.
    let all = ["E".to_string(), "P".to_string()];
    assert_eq!(toss_core::analysis::changed_relations(&r, &all).len(), 2);
    let mut b = a.clone();
    cr.apply(&mut b, &ms[0], &[]);
    assert_eq!(b, st(&["x", "z"], &[("E", 2, &[]), ("P", 1, &[])], &[]));
    assert_eq!(b.element("y"), None);
}

/// New elements, function literals and update equations; reused elements
/// keep their other values, new ones start at 0.
#[test]
fn new_elements_and_updates() {
    let mut a = st(
        &["x", "y"],
        &[("P", 1, &[&["x"]]), ("Q", 1, &[])],
        &["v", "w"],
    );
    let (fv, fw) = (0, 1);
    let x = a.element("x").expect("x");
    a.set_fun_value(fv, x, 2.0);
    a.set_fun_value(fw, x, 7.0);
    let mut r = rule(
        "spawn",
        side(&["a"], &[("P", &["a"])]),
        side(&["a", "n"], &[("P", &["a"]), ("Q", &["n"])]),
        &[],
    );
    r.rhs.functions = vec![("w".into(), "n".into(), 1.5)];
    r.update = vec![toss_core::ir::UpdateEquation {
        function: "v".into(),
        element: "a".into(),
        value: toss_core::ir::RealExpr::Const(0.0),
    }];
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    assert_eq!(cr.update_targets(), &[(fv, 0)]);
    let mut ms = Vec::new();
    cr.matches(&a, &mut ms);
    assert_eq!(ms.len(), 1);
    let mut b = a.clone();
    let img = cr.apply(&mut b, &ms[0], &[3.0]);
    assert_eq!(img[0], x);
    let n = img[1];
    assert_eq!(b.element_name(n), "n");
    assert_eq!(b.fun_value(fv, x), 3.0);
    assert_eq!(b.fun_value(fw, x), 7.0);
    assert_eq!(b.fun_value(fv, n), 0.0);
    assert_eq!(b.fun_value(fw, n), 1.5);
    let q = b.relation("Q").expect("Q");
    assert!(b.contains(q, &[n]));
    // P is tau_h and only required-and-kept on the right: unchanged; Q is.
    let all = ["P".to_string(), "Q".to_string()];
    let changed: Vec<String> = toss_core::analysis::changed_relations(&r, &all)
        .into_iter()
        .collect();
    assert_eq!(changed, ["Q"]);
}

/// Matches come in canonical order even when the join order starts from
/// another element.
#[test]
fn canonical_order_and_join_order() {
    let a = st(
        &["u", "v", "w"],
        &[
            (
                "E",
                2,
                &[&["u", "w"], &["v", "w"], &["w", "v"], &["u", "v"]],
            ),
            ("P", 1, &[&["v"]]),
        ],
        &[],
    );
    let r = rule(
        "j",
        side(&["a", "b"], &[("E", &["a", "b"]), ("P", &["b"])]),
        side(&["a", "b"], &[]),
        &[],
    );
    let cr = CompiledRule::new(&r, &a, &[]).expect("compiles");
    assert!(!cr.ordered, "b (unary) should be bound first");
    assert_eq!(all_matches(&cr, &a), vec![v(&["u", "v"]), v(&["w", "v"])]);
}

/// Unknown names are compile errors, defined relations become constraints.
#[test]
fn names_resolved_once() {
    let a = st(&["x"], &[("P", 1, &[])], &[]);
    let r = rule(
        "u",
        side(&["a"], &[("Nope", &["a"])]),
        side(&["a"], &[]),
        &[],
    );
    assert!(CompiledRule::new(&r, &a, &[]).is_err());
    let r = rule(
        "d",
        side(&["a"], &[("Def", &["a"])]),
        side(&["a"], &[]),
        &[],
    );
    let cr = CompiledRule::new(&r, &a, &["Def"]).expect("compiles");
    assert_eq!(cr.defined_constraints(), &[("Def".to_string(), v(&["a"]))]);
    let r = rule(
        "d",
        side(&["a"], &[]),
        side(&["a"], &[("Def", &["a"])]),
        &[],
    );
    assert!(CompiledRule::new(&r, &a, &["Def"]).is_err());
}

/// Rules matched together in a forest give each rule's own matches, in the
/// same order, also where they share steps (and none for inactive rules).
#[test]
fn forest_matches_are_each_rules_matches() {
    let s = st(
        &["u", "v", "w", "x", "y", "z"],
        &[
            ("P", 1, &[&["u"], &["v"], &["x"]]),
            ("Q", 1, &[&["w"], &["y"], &["u"]]),
            (
                "E",
                2,
                &[
                    &["u", "v"],
                    &["v", "w"],
                    &["w", "x"],
                    &["x", "y"],
                    &["v", "y"],
                    &["y", "z"],
                    &["u", "x"],
                ],
            ),
        ],
        &[],
    );
    let rhs = |es: &[&str]| side(es, &[]);
    let rules = [
        rule(
            "Step",
            side(&["a", "b"], &[("P", &["a"]), ("E", &["a", "b"])]),
            rhs(&["a", "b"]),
            &["P"],
        ),
        rule(
            "Two",
            side(
                &["a", "b", "c"],
                &[("P", &["a"]), ("E", &["a", "b"]), ("E", &["b", "c"])],
            ),
            rhs(&["a", "b", "c"]),
            &["P"],
        ),
        rule(
            "TwoOpt",
            side(
                &["a", "b", "c"],
                &[
                    ("P", &["a"]),
                    ("E", &["a", "b"]),
                    ("E", &["b", "c"]),
                    ("_opt_Q", &["c"]),
                ],
            ),
            rhs(&["a", "b", "c"]),
            &["P"],
        ),
        rule(
            "FromQ",
            side(&["a", "b"], &[("Q", &["a"]), ("E", &["a", "b"])]),
            rhs(&["a", "b"]),
            &[],
        ),
        rule(
            "StepAgain",
            side(&["a", "b"], &[("P", &["a"]), ("E", &["a", "b"])]),
            rhs(&["a", "b"]),
            &["P"],
        ),
    ];
    let compiled: Vec<CompiledRule> = rules
        .iter()
        .map(|r| CompiledRule::new(r, &s, &[]).expect("rule"))
        .collect();
    let refs: Vec<&CompiledRule> = compiled.iter().collect();
    let forest = MatchForest::new(&refs).expect("the rules share prefixes");
    for active in [vec![true; 5], vec![true, false, true, false, true]] {
        let mut out = vec![Vec::new(); 5];
        assert_eq!(forest.matches(&refs, &s, &active, &mut out), Ok(()));
        for (i, r) in compiled.iter().enumerate() {
            let mut own = Vec::new();
            if active[i] {
                r.matches(&s, &mut own);
                assert!(!own.is_empty(), "rule {} has matches", r.name());
            }
            assert_eq!(out[i], own, "rule {}", r.name());
        }
    }
    // No two rules share a first step: no forest.
    assert!(MatchForest::new(&[&compiled[0], &compiled[3]]).is_none());
}
