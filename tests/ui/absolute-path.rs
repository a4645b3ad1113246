#[derive(toss::Game)]
#[toss(file = "/games/tic-tac-toe.toss")]
struct Absolute;

fn main() {}
