//! The specialization plan of every game in games/: which games are in the
//! specialized fragment, and the plan dumps of two of them as snapshots.

use toss_codegen::plan::Plan;

fn game(name: &str) -> toss_runtime::ir::Game {
    let path = format!("{}/../../games/{name}.toss", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("game file");
    toss_lang::parse_game(&text, name).expect("valid game")
}

#[test]
fn print_all() {
    for g in [
        "tic-tac-toe",
        "breakthrough",
        "connect4",
        "gomoku",
        "pawn-whopping",
        "hex",
        "dice",
        "concurrent-tic-tac-toe",
    ] {
        match Plan::build(&game(g)) {
            Ok(p) => println!("=== {g}\n{}", p.dump()),
            Err(e) => println!("=== {g}: UNSUPPORTED {e}"),
        }
    }
}
