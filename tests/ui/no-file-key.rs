#[derive(toss::Game)]
struct NoFile;

fn main() {}
