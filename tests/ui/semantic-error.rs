#[derive(toss::Game)]
#[toss(file = "tests/ui/games/semantic-error.toss")]
struct SemanticError;

fn main() {}
