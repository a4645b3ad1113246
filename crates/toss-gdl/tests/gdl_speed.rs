//! Random playouts per second on a few games (run in release with
//! `cargo test --release -p toss-lang --test gdl_speed -- --ignored --nocapture`).

mod gdl_common;

use gdl_common::game;
use toss_core::{Game, game::rng_from_seed};

#[test]
#[ignore = "measurement, not a check"]
fn playouts_per_second() {
    for (file, secs) in [
        ("ticTacToe.kif", 2.0),
        ("connect4.kif", 2.0),
        ("breakthrough.kif", 3.0),
        ("chess_200.kif", 5.0),
        ("reversi.kif", 5.0),
    ] {
        let g = game(file);
        let t = std::time::Instant::now();
        let mut n = 0u64;
        let mut plies = 0usize;
        while t.elapsed().as_secs_f64() < secs {
            let mut rng = rng_from_seed(n);
            plies += g.random_playout(&mut rng, 100_000).0;
            n += 1;
        }
        let dt = t.elapsed().as_secs_f64();
        eprintln!(
            "{file}: {:.0} playouts/s ({:.0} plies/s, {n} playouts)",
            n as f64 / dt,
            plies as f64 / dt
        );
    }
}
