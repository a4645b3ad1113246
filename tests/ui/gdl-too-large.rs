// A game whose grounding exceeds a limit is refused, naming the limit.
#[derive(toss::Game)]
#[toss(gdl = "tests/ui/games/too-large.kif")]
struct TooLarge;

fn main() {}
