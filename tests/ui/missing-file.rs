#[derive(toss::Game)]
#[toss(file = "tests/ui/games/no-such-game.toss")]
struct Missing;

fn main() {}
