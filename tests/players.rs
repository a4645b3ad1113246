//! Players on games written for them: alpha-beta's max^n mode with three
//! players against the hand-worked values of `tests/fixtures/three-takers.toss`,
//! and player specs a game cannot take.

use toss::search::alphabeta::{AlphaBeta, PayoffEval};
use toss::search::player::Budget;
use toss::{Game, Interpreter};

fn load(file: &str) -> Interpreter {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    toss::interpret(&source, file).unwrap_or_else(|e| panic!("{e}"))
}

/// The cell a's chosen move takes.
fn taken(g: &Interpreter, depth: u64) -> String {
    let s = g.initial_state();
    let mut ab = AlphaBeta::new(PayoffEval, 0);
    let i = ab.search(g, &s, Budget::Iterations(depth)).expect("a move");
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    g.move_to_string(&s, 0, &moves[i])
}

/// Max^n looks ahead: three turns deep a takes y (worth 4 once b answers
/// with z), one turn deep it takes x (worth 3 at once). The value reported
/// at full depth is a's payoff 4 (scaled as a terminal value).
#[test]
fn maxn_with_three_players_takes_the_hand_worked_move() {
    let g = load("tests/fixtures/three-takers.toss");
    assert_eq!(g.num_players(), 3);
    assert_eq!(taken(&g, 1), "TakeA{e: x}");
    assert_eq!(taken(&g, 3), "TakeA{e: y}");
    let mut ab = AlphaBeta::new(PayoffEval, 0);
    ab.search(&g, &g.initial_state(), Budget::Iterations(3));
    let w = ab.terminal_weight;
    assert_eq!(ab.report().value, 4.0 * w);
}
