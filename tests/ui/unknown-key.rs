#[derive(toss::Game)]
#[toss(path = "games/tic-tac-toe.toss")]
struct UnknownKey;

fn main() {}
