// Reversi's flips (multiplicity inf) are outside the specialized fragment,
// so there is no specialized code to compile its heuristic into.
#[derive(toss::Game)]
#[toss(file = "games/reversi.toss", heuristics)]
struct Reversi;

fn main() {}
