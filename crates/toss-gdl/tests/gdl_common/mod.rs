//! Shared helpers of the GDL tests: the corpus directory and loading.
#![allow(dead_code)]

use std::path::PathBuf;

use toss_core::Game;
use toss_gdl::kif::{load_game, parse_ground_term};
use toss_gdl::{GdlGame, GdlMove, GdlState};

/// The corpus directory: fails the test when `../shared` is missing.
pub fn corpus() -> PathBuf {
    toss_testkit::corpus::gdl_dir()
}

pub fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Loads a game of the corpus (path relative to the corpus directory).
pub fn game(rel: &str) -> GdlGame {
    let dir = corpus();
    let src = read(&dir.join(rel));
    match load_game(&src, rel) {
        Ok(g) => g,
        Err(ds) => panic!(
            "{rel}: {}",
            toss_lang::render_diagnostics(&ds, &src, rel, false)
        ),
    }
}

pub fn mv(g: &GdlGame, text: &str) -> GdlMove {
    GdlMove(parse_ground_term(g, text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

pub fn legal_strings(g: &GdlGame, s: &GdlState, p: usize) -> Vec<String> {
    let mut v = Vec::new();
    g.legal_moves(s, p, &mut v);
    v.iter().map(|m| g.term_to_string(m.0)).collect()
}

/// Applies a joint move given as strings (one per role).
pub fn step(g: &GdlGame, s: &GdlState, joint: &[&str]) -> GdlState {
    let j: Vec<GdlMove> = joint.iter().map(|m| mv(g, m)).collect();
    g.next_state(s, &j)
}
