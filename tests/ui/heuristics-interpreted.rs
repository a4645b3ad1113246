// A rule that creates an element puts the game outside the specialized
// fragment, so there is no specialized code to compile its heuristic into.
#[derive(toss::Game)]
#[toss(file = "crates/toss-codegen/tests/fixtures/grow.toss", heuristics)]
struct Grow;

fn main() {}
