//! Random-playout speed of GDL games on one thread: derived
//! (`#[derive(Game)] #[toss(gdl = "...")]`, the network compiled to Rust)
//! against the grounded network interpreted (`GroundGame`) and the
//! reasoner (`GdlGame`), one after the other in the same run:
//!
//! ```text
//! cargo run --release --example gdl_speed -- [SECONDS]
//! ```
//!
//! The derived games are fixed at build time: ticTacToe, connect4 and
//! breakthrough of the corpus (`../shared/corpus/gdl`). One line per game:
//! `GAME derived=<playouts/s> ground=<playouts/s> reasoner=<playouts/s>`.

use std::time::{Duration, Instant};

use toss::Game;

#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/ticTacToe.kif")]
struct TicTacToe;
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/connect4.kif")]
struct Connect4;
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/breakthrough.kif")]
struct Breakthrough;

/// Playouts per second of `g` over about `secs` seconds.
fn rate<G: Game>(g: &G, secs: f64) -> f64 {
    let mut rng = toss::rng_from_seed(1);
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < Duration::from_secs_f64(secs) {
        for _ in 0..16 {
            std::hint::black_box(g.random_playout(&mut rng, 10_000));
        }
        n += 16;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn measure<D: Game>(derived: &D, source: &str, name: &str, secs: f64) {
    let desc = toss::gdl::kif::parse_gdl(source, name)
        .unwrap_or_else(|_| panic!("{name}: does not parse"));
    let ground = toss::gdl::ground::GroundGame::from_description(&desc, Default::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let reasoner =
        toss::gdl::kif::load_game(source, name).unwrap_or_else(|_| panic!("{name}: does not load"));
    let d = rate(derived, secs);
    let g = rate(&ground, secs);
    let r = rate(&reasoner, secs);
    println!("{name} derived={d:.0} ground={g:.0} reasoner={r:.0}");
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .map_or(2.0, |s| s.parse().expect("SECONDS is a number"));
    measure(&TicTacToe, TicTacToe::SOURCE, "ticTacToe.kif", secs);
    measure(&Connect4, Connect4::SOURCE, "connect4.kif", secs);
    measure(
        &Breakthrough,
        Breakthrough::SOURCE,
        "breakthrough.kif",
        secs,
    );
}
