#[derive(toss::Game)]
#[toss(file = "tests/ui/games/continuous-error.toss")]
struct ContinuousError;

fn main() {}
