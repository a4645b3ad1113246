// After an error in the game file, the derive still emits a stub impl of
// `toss::Game`: using the type as a game adds no second error.
#[derive(toss::Game)]
#[toss(file = "tests/ui/games/semantic-error.toss")]
struct Broken;

fn perft_one<G: toss::Game>(g: &G) -> u64 {
    g.perft(&g.initial_state(), 1)
}

fn main() {
    let _ = perft_one(&Broken);
}
