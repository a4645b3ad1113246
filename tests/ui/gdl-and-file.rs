// A game is described once: `file` and `gdl` together are refused.
#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss", gdl = "../shared/corpus/gdl/ticTacToe.kif")]
struct Both;

fn main() {}
