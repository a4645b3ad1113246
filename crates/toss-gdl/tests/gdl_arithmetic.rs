//! The arithmetic rules of shared/spec/gdl-arithmetic-notes.txt (which hang
//! backward-chaining provers for some binding patterns) are computed once,
//! bottom-up, and every binding pattern of a query terminates.

use toss_core::Game;
use toss_gdl::kif::load_game;

const ARITH: &str = "
(role robot)
(init s)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
(succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12) (succ 12 13)
(number 0)
(<= (number ?y) (succ ?x ?y))
(<= (lessThan ?x ?y) (succ ?x ?y))
(<= (lessThan ?x ?z) (succ ?x ?y) (lessThan ?y ?z))
(<= (add ?x 0 ?x) (number ?x))
(<= (add ?x ?y ?z) (succ ?x ?x1) (succ ?y1 ?y) (add ?x1 ?y1 ?z))
(mult ?x 0 0)
(<= (mult ?x 0 0) (number ?x))
(<= (mult ?x ?y ?z) (succ ?ym1 ?y) (add ?x ?zmx ?z) (mult ?x ?ym1 ?zmx))
(<= (legal robot (m ?z)) (true s) (mult 3 4 ?z))
(<= (legal robot (a ?x ?y)) (true s) (add ?x ?y 2))
(<= (legal robot (q ?x ?y)) (true s) (mult ?x ?y 6))
(<= (legal robot (l ?x)) (true s) (lessThan ?x 2))
(<= (next t) (true s))
(<= terminal (true t))
(goal robot 100)
";

#[test]
fn arithmetic_tables_with_any_binding_pattern() {
    // The fact `(mult ?x 0 0)` is not ground: replace it (it is there to
    // show that the checks catch it).
    assert!(load_game(ARITH, "arith.kif").is_err());
    let src = ARITH.replace("(mult ?x 0 0)\n", "");
    let g = load_game(&src, "arith.kif").unwrap_or_else(|e| panic!("{e:?}"));
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    let mut l: Vec<String> = moves.iter().map(|m| g.term_to_string(m.0)).collect();
    l.sort();
    assert_eq!(
        l,
        [
            "(a 0 2)", "(a 1 1)", "(a 2 0)", "(l 0)", "(l 1)", "(m 12)", "(q 1 6)", "(q 2 3)",
            "(q 3 2)", "(q 6 1)"
        ]
    );
    // Queries with nothing bound terminate too.
    assert_eq!(
        g.query(&s, "add", 3).len(),
        (0..=13).map(|x| 14 - x).sum::<usize>()
    );
    assert_eq!(g.query(&s, "lessThan", 2).len(), 13 * 14 / 2);
    let mult = g.query(&s, "mult", 3);
    assert!(mult.contains(&vec!["3".to_string(), "4".to_string(), "12".to_string()]));
}
