// `translate` is for GDL games.
#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss", translate)]
struct TicTacToe;

fn main() {}
