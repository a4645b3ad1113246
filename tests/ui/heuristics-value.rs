#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss", heuristics = "existential")]
struct HeuristicsValue;

fn main() {}
