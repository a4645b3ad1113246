#[derive(toss::Game)]
#[toss(gdl = "tests/ui/games/no-such-game.kif")]
struct Missing;

fn main() {}
