//! Perft counts of reference/gdl.md section 7.4 (joint moves as one ply,
//! the idle role's `noop` a factor of 1) and the hand-derived facts of
//! nim, buttons and hanoi.

mod gdl_common;

use gdl_common::{game, legal_strings, step};
use toss_core::Game;

fn check_perft(file: &str, expected: &[u64]) {
    let g = game(file);
    let s = g.initial_state();
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(g.perft(&s, d + 1), n, "{file}: perft({})", d + 1);
    }
}

#[test]
fn tictactoe_perft_to_depth_9() {
    check_perft(
        "ticTacToe.kif",
        &[9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872],
    );
}

#[test]
fn connect4_perft_to_depth_6() {
    check_perft("connect4.kif", &[7, 49, 343, 2401, 16807, 117649]);
}

#[test]
#[ignore = "slow: depths 7 and 8"]
fn connect4_perft_deep() {
    check_perft(
        "connect4.kif",
        &[7, 49, 343, 2401, 16807, 117649, 823536, 5673234],
    );
}

#[test]
fn connect_four_8x6_perft_to_depth_6() {
    check_perft("connectFour.kif", &[8, 64, 512, 4096, 32768, 262144]);
}

#[test]
#[ignore = "slow: depth 7"]
fn connect_four_8x6_perft_deep() {
    check_perft(
        "connectFour.kif",
        &[8, 64, 512, 4096, 32768, 262144, 2097144],
    );
}

#[test]
fn breakthrough_perft_to_depth_4() {
    check_perft("breakthrough.kif", &[22, 484, 11132, 256036]);
}

#[test]
#[ignore = "slow: depth 5"]
fn breakthrough_perft_deep() {
    check_perft("breakthrough.kif", &[22, 484, 11132, 256036, 6182818]);
}

#[test]
fn nim_initial_moves() {
    let g = game("nim1.kif");
    let s = g.initial_state();
    assert_eq!(legal_strings(&g, &s, 0).len(), 12);
    assert_eq!(legal_strings(&g, &s, 1).len(), 1);
    let g = game("nim4.kif");
    let s = g.initial_state();
    assert_eq!(legal_strings(&g, &s, 0).len(), 64);
    assert_eq!(legal_strings(&g, &s, 1).len(), 1);
}

#[test]
fn buttons_six_move_solution() {
    let g = game("buttons.kif");
    let mut s = g.initial_state();
    for m in ["a", "b", "a", "c", "b", "a"] {
        assert_eq!(legal_strings(&g, &s, 0), ["a", "b", "c"]);
        assert!(!g.terminal(&s));
        s = step(&g, &s, &[m]);
    }
    assert!(g.terminal(&s));
    assert_eq!(g.goals(&s), Ok(vec![100]));
    // Every state has the three moves; 3^6 sequences of length 6.
    assert_eq!(g.perft(&g.initial_state(), 6), 729);
}

#[test]
fn hanoi_31_moves() {
    let g = game("hanoi.kif");
    let s = g.initial_state();
    assert_eq!(legal_strings(&g, &s, 0).len(), 2);
    // Solve with the optimal recursive solution found by search on legal
    // moves: depth-first with goal check at step 31.
    let mut path = Vec::new();
    fn solve(
        g: &toss_gdl::GdlGame,
        s: &toss_gdl::GdlState,
        depth: usize,
        path: &mut Vec<String>,
        seen: &mut std::collections::HashSet<toss_gdl::GdlState>,
    ) -> bool {
        if g.terminal(s) {
            return g.goals(s).map(|v| v[0] == 100).unwrap_or(false);
        }
        if depth == 0 || !seen.insert(s.clone()) {
            return false;
        }
        let mut ms = Vec::new();
        g.legal_moves(s, 0, &mut ms);
        for m in ms {
            let t = g.next_state(s, &[m]);
            path.push(g.term_to_string(m.0));
            if solve(g, &t, depth - 1, path, seen) {
                return true;
            }
            path.pop();
        }
        false
    }
    let _ = &mut path;
    let mut seen = std::collections::HashSet::new();
    assert!(
        solve(&g, &s, 31, &mut path, &mut seen),
        "no 31-move solution"
    );
    assert_eq!(path.len(), 31);
}
