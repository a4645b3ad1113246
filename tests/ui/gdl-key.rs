// The `gdl` key is reserved for the GDL-to-Toss translation: it is refused
// at its value, with what to write instead.
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/ticTacToe.kif")]
struct FromGdl;

fn main() {}
