//! Shared helpers of the GDL tests: the corpus directory and loading.
#![allow(dead_code)]

use std::path::PathBuf;

use toss_lang::gdl::{load_game, parse_ground_term};
use toss_runtime::Game;
use toss_runtime::gdl::{GdlGame, GdlMove, GdlState};

/// `shared/corpus/gdl` beside the repository (`../../../shared/corpus/gdl`
/// from this crate; one level higher when the repository is a worktree in
/// a subdirectory), or `None` with a message when it is absent.
pub fn corpus() -> Option<PathBuf> {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for up in [
        "../../../shared/corpus/gdl",
        "../../../../shared/corpus/gdl",
    ] {
        let p = base.join(up);
        if p.is_dir() {
            return Some(p);
        }
    }
    eprintln!(
        "SKIPPED: the GDL corpus directory ../../../shared/corpus/gdl (relative to {}) is absent",
        base.display()
    );
    None
}

pub fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Loads a game of the corpus (path relative to the corpus directory).
pub fn game(rel: &str) -> Option<GdlGame> {
    let dir = corpus()?;
    let src = read(&dir.join(rel));
    match load_game(&src, rel) {
        Ok(g) => Some(g),
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
