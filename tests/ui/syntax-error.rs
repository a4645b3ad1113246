#[derive(toss::Game)]
#[toss(file = "tests/ui/games/syntax-error.toss")]
struct SyntaxError;

fn main() {}
