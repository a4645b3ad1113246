//! The interpreter keeps to the resource limits (`toss_core::limits`): a
//! state past one stops the play with a fault naming the limit, counted
//! while matching, not after collecting everything.

use toss_core::game::Game;
use toss_runtime::Interpreter;

/// `k` distinct elements of `n` matched by rule `Pick`, with `pre`; the
/// rule adds its first element to `Q`, empty at the start.
fn game(k: usize, n: usize, pre: &str) -> Interpreter {
    let names: Vec<String> = (0..k).map(|i| format!("x{i}")).collect();
    let side = names.join(", ");
    let elems: Vec<String> = (1..=n).map(|i| format!("e{i}")).collect();
    let src = format!(
        "PLAYERS p\nRULE Pick:\n  [{side} | | ] -> [{side} | Q (x0) | ]\n  pre {pre}\n\
         LOC 0 {{ PLAYER p {{ PAYOFF 0 MOVES [Pick -> 0] }} }}\nSTART [ {} | Q:1 {{}} | ]\n",
        elems.join(", ")
    );
    let ir = toss_lang::parse_game(&src, "pick.toss").expect("parses");
    let mut g = Interpreter::new(&ir).expect("loads");
    g.set_rule_positions(&toss_lang::limits::rule_positions(&src, "pick.toss"));
    g
}

const MATCHES: &str = "pick.toss:2:6: rule `Pick` has more than 1,000,000 matches in one state (limit: matches per rule)";

#[test]
fn legal_moves_stop_at_the_limit_of_matches_per_rule() {
    // 40 * 39 * 38 * 37 * 36, about 78 million matches.
    let g = game(5, 40, "true");
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    assert!(moves.is_empty());
    assert_eq!(g.fault().as_deref(), Some(MATCHES));
    // From then on every state is terminal, at once.
    let mut movers = Vec::new();
    g.movers(&s, &mut movers);
    assert!(movers.is_empty());
}

#[test]
fn a_playout_stops_with_the_fault() {
    let g = game(4, 40, "true");
    let mut rng = toss_core::game::rng_from_seed(1);
    let (turns, _) = g.random_playout(&mut rng, 100);
    assert_eq!(turns, 0);
    assert!(
        g.fault()
            .is_some_and(|f| f.contains("(limit: matches per rule)"))
    );
}

#[test]
fn below_the_limit_nothing_is_cut() {
    // 100 * 99 * 98 = 970,200 matches: all are moves.
    let g = game(3, 100, "true");
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    assert_eq!(moves.len(), 970_200);
    assert_eq!(g.fault(), None);
}

#[test]
fn legal_moves_per_state_are_counted_over_labels() {
    // Two labels of 700,000-odd moves each: neither rule is past its
    // limit, the player's moves are.
    let elems: Vec<String> = (1..=90).map(|i| format!("e{i}")).collect();
    let src = format!(
        "PLAYERS p\nRULE A:\n  [a, b, c | | ] -> [a, b, c | | ]\nRULE B:\n  [a, b, c | | ] -> [a, b, c | | ]\n\
         LOC 0 {{ PLAYER p {{ PAYOFF 0 MOVES [A -> 0]; [B -> 0] }} }}\nSTART [ {} | | ]\n",
        elems.join(", ")
    );
    let ir = toss_lang::parse_game(&src, "two.toss").expect("parses");
    let g = Interpreter::new(&ir).expect("loads");
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    assert!(moves.is_empty());
    assert_eq!(
        g.fault().as_deref(),
        Some(
            "a player has more than 1,000,000 legal moves in one state (limit: legal moves per \
             state)"
        )
    );
}
