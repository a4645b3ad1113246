//! `(not (distinct a b))`: not GDL, but sent by servers; read with a
//! warning as the equality of `a` and `b`, as ggp-base's prover reads it.

mod gdl_common;

use gdl_common::{legal_strings, step};
use toss_core::Game;
use toss_gdl::kif::{check_gdl, load_game};

/// A robot at 1 with a mark at 2. Each legal move depends on an equality:
/// `pick` the number equal to the mark (the equality written first, before
/// the literals that bind it), `step` along the edge equal to `(edge 1 2)`
/// (function terms), `restart` at 2 or 3 (equalities inside `or`), `wait`
/// where the position equals the mark (through `here`, a state relation
/// its caller binds, so under the demand transformation).
const GAME: &str = "
(role robot)
(init (at 1))
(init (mark 2))
(num 1) (num 2) (num 3)
(succ 1 2) (succ 2 3)
(<= (legal robot (pick ?n))
    (not (distinct ?n ?m))
    (num ?n)
    (true (mark ?m)))
(<= (legal robot (step ?y))
    (true (at ?x))
    (succ ?x ?y)
    (not (distinct (edge ?x ?y) (edge 1 2))))
(<= (legal robot restart)
    (true (at ?x))
    (or (not (distinct ?x 3)) (not (distinct 2 ?x))))
(<= (here ?m)
    (true (at ?x))
    (num ?m)
    (not (distinct ?x ?m)))
(<= (legal robot wait)
    (true (mark ?m))
    (here ?m))
(<= (next (at ?n)) (does robot (pick ?n)))
(<= (next (at ?y)) (does robot (step ?y)))
(<= (next (at 1)) (does robot restart))
(<= (next (at ?x)) (does robot wait) (true (at ?x)))
(<= (next (mark ?m)) (true (mark ?m)))
(<= (next waited) (does robot wait))
(<= terminal (true waited))
(<= (goal robot 100) (true (at ?x)) (true (mark ?m)) (not (distinct ?x ?m)))
(<= (goal robot 0) (true (at ?x)) (true (mark ?m)) (distinct ?x ?m))
";

fn sorted_legal(g: &toss_gdl::GdlGame, s: &toss_gdl::GdlState) -> Vec<String> {
    let mut l = legal_strings(g, s, 0);
    l.sort();
    l
}

#[test]
fn not_distinct_is_a_warning_at_each_literal() {
    let c = check_gdl(GAME);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert!(c.description.is_some());
    assert_eq!(c.warnings.len(), 6, "{:?}", c.warnings);
    for w in &c.warnings {
        assert!(w.message.contains("not GDL"), "{}", w.message);
        assert!(w.message.contains("equality"), "{}", w.message);
        assert!(
            GAME[w.span.clone()].starts_with("(not (distinct "),
            "{:?}",
            &GAME[w.span.clone()]
        );
    }
}

#[test]
fn legal_moves_follow_equality() {
    let g = load_game(GAME, "equality.kif").unwrap_or_else(|ds| {
        panic!(
            "{}",
            toss_lang::render_diagnostics(&ds, GAME, "equality.kif", false)
        )
    });
    // At 1, mark 2: pick 2 (= mark), step 2 ((edge 1 2)); no restart (1 is
    // neither 3 nor 2), no wait (1 is not the mark).
    let s = g.initial_state();
    assert!(!g.terminal(&s));
    assert_eq!(sorted_legal(&g, &s), ["(pick 2)", "(step 2)"]);
    assert_eq!(g.goals(&s), Ok(vec![0]));
    // At 2: pick 2, restart (2 = 2), wait (2 = mark); no step ((edge 2 3)
    // is not (edge 1 2)).
    let s = step(&g, &s, &["(step 2)"]);
    assert!(!g.terminal(&s));
    assert_eq!(sorted_legal(&g, &s), ["(pick 2)", "restart", "wait"]);
    assert_eq!(g.goals(&s), Ok(vec![100]));
    // Restart goes back to the first state's moves.
    let back = step(&g, &s, &["restart"]);
    assert_eq!(sorted_legal(&g, &back), ["(pick 2)", "(step 2)"]);
    let s = step(&g, &s, &["wait"]);
    assert!(g.terminal(&s));
    assert_eq!(g.goals(&s), Ok(vec![100]));
}

#[test]
fn ground_equalities() {
    let src = "
(role r)
(<= same (not (distinct p p)))
(<= other (not (distinct p q)))
(<= (legal r yes) same)
(<= (legal r no) other)
(legal r always)
(<= terminal same other)
(goal r 50)
";
    let g = load_game(src, "ground.kif").expect("loads with warnings");
    let mut l = legal_strings(&g, &g.initial_state(), 0);
    l.sort();
    assert_eq!(l, ["always", "yes"]);
    assert!(!g.terminal(&g.initial_state()));
}

#[test]
fn equality_binds_no_variable() {
    // As for `distinct`, a positive literal must bind its variables.
    let c = check_gdl("(role r) (num 1) (<= (p ?x) (num ?y) (not (distinct ?x ?y)))");
    assert!(
        c.errors
            .iter()
            .any(|e| e.message.starts_with("unsafe rule") && e.message.contains("?x")),
        "{:?}",
        c.errors
    );
    let c = check_gdl("(role r) (num 1) (<= (p ?x) (num ?x) (not (distinct ?x)))");
    assert!(
        c.errors
            .iter()
            .any(|e| e.message.contains("`distinct` takes exactly two terms")),
        "{:?}",
        c.errors
    );
    // Other non-sentences under `not` stay errors.
    let c = check_gdl("(role r) (num 1) (<= (p ?x) (num ?x) (not (or (num ?x))))");
    assert!(
        c.errors
            .iter()
            .any(|e| e.message.contains("atomic sentence")),
        "{:?}",
        c.errors
    );
}
