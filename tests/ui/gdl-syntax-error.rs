// An error in a GDL file points into the file, at its line and column.
#[derive(toss::Game)]
#[toss(gdl = "tests/ui/games/syntax-error.kif")]
struct SyntaxError;

fn main() {}
