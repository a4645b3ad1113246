// `translate` on a game the translation refuses: a compile error with the
// reason, at the clause it is about in the game file.
#[derive(toss::Game)]
#[toss(gdl = "tests/ui/games/recursive-state.kif", translate)]
struct Refused;

fn main() {}
