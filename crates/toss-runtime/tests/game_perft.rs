//! Perft of the game files under `games/` through the interpreter: the
//! move counts fix the semantics that performance work must keep.

use toss_core::Game;
use toss_runtime::Interpreter;

fn load(name: &str) -> Interpreter {
    let path = format!("{}/../../games/{name}.toss", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).expect("game file");
    let ir = toss_lang::parse_game(&src, &path).expect("parses");
    Interpreter::new(&ir).expect("loads")
}

fn perft(name: &str, depths: usize) -> Vec<u64> {
    let g = load(name);
    let s = g.initial_state();
    (1..=depths).map(|d| g.perft(&s, d)).collect()
}

#[test]
fn tic_tac_toe_file_perft() {
    assert_eq!(perft("tic-tac-toe", 5), vec![9, 72, 504, 3024, 15120]);
}

#[test]
fn connect4_file_perft() {
    assert_eq!(perft("connect4", 5), vec![7, 49, 343, 2401, 16807]);
}

#[test]
fn breakthrough_file_perft() {
    assert_eq!(perft("breakthrough", 3), vec![22, 484, 11132]);
}
