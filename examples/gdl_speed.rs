//! Random-playout speed of GDL games on one thread: derived
//! (`#[derive(Game)] #[toss(gdl = "...")]`, the network compiled to Rust)
//! against the grounded network interpreted (`GroundGame`) and the
//! reasoner (`GdlGame`), one after the other in the same run:
//!
//! ```text
//! cargo run --release --example gdl_speed -- [SECONDS [GAME]]
//! ```
//!
//! The derived games are fixed at build time, from the corpus
//! (`../shared/corpus/gdl`): ticTacToe, connect4, connectFour,
//! breakthrough, reversi, pacman3p and amazons_8x8 compiled; speedChess
//! and chess_200, over the size limit, forwarded to the interpreted network
//! (their `derived` figure is that of the forwarding impl). One line per
//! game: `GAME derived=<playouts/s> ground=<playouts/s>
//! reasoner=<playouts/s> length=<mean plies>`; GAME names one game to
//! measure alone.

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
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/connectFour.kif")]
struct ConnectFour;
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/reversi.kif")]
struct Reversi;
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/pacman3p.kif")]
struct Pacman3p;
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/amazons_8x8.kif")]
struct Amazons8x8;
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/speedChess.kif")]
struct SpeedChess;
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/chess_200.kif")]
struct Chess200;

/// Playouts per second of `g` over about `secs` seconds (at least one
/// playout), and their mean length in plies.
fn rate<G: Game>(g: &G, secs: f64) -> (f64, f64) {
    let mut rng = toss::rng_from_seed(1);
    // One playout first, untimed: a forwarding impl grounds its game then.
    g.random_playout(&mut toss::rng_from_seed(0), 10_000);
    let start = Instant::now();
    let (mut n, mut plies) = (0u64, 0usize);
    while n == 0 || start.elapsed() < Duration::from_secs_f64(secs) {
        plies += std::hint::black_box(g.random_playout(&mut rng, 10_000)).0;
        n += 1;
    }
    (
        n as f64 / start.elapsed().as_secs_f64(),
        plies as f64 / n as f64,
    )
}

fn measure<D: Game>(derived: &D, source: &str, name: &str, secs: f64) {
    let desc = toss::gdl::kif::parse_gdl(source, name)
        .unwrap_or_else(|_| panic!("{name}: does not parse"));
    let ground = toss::gdl::ground::GroundGame::from_description(&desc, Default::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let reasoner =
        toss::gdl::kif::load_game(source, name).unwrap_or_else(|_| panic!("{name}: does not load"));
    let (d, length) = rate(derived, secs);
    let (g, _) = rate(&ground, secs);
    let (r, _) = rate(&reasoner, secs);
    println!("{name} derived={d:.0} ground={g:.0} reasoner={r:.0} length={length:.2}");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = args
        .next()
        .map_or(2.0, |s| s.parse().expect("SECONDS is a number"));
    let only = args.next();
    let want = |name: &str| only.as_deref().is_none_or(|o| name.starts_with(o));
    macro_rules! run {
        ($($ty:ident $name:literal;)*) => {
            $(
                if want($name) {
                    measure(&$ty, $ty::SOURCE, $name, secs);
                }
            )*
        };
    }
    run! {
        TicTacToe "ticTacToe.kif";
        Connect4 "connect4.kif";
        ConnectFour "connectFour.kif";
        Breakthrough "breakthrough.kif";
        Reversi "reversi.kif";
        Pacman3p "pacman3p.kif";
        Amazons8x8 "amazons_8x8.kif";
        SpeedChess "speedChess.kif";
        Chess200 "chess_200.kif";
    }
}
