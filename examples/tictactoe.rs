//! Tic-tac-toe against the computer, with the game compiled in by
//! `#[derive(toss::Game)]`:
//!
//! ```text
//! cargo run --release --example tictactoe [SEED]
//! ```
//!
//! You play X: type a cell (`b2`), a move's number or its text. Moves can be
//! piped on standard input (`printf 'b2\na1\n...' | cargo run ...`).

use std::io::Write;

use toss::search::player::Budget;
use toss::search::uct::{RandomPlayout, Uct, UctConfig};
use toss_cli::play::Seat;

#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss")]
struct TicTacToe;

/// The seats: a person first, then UCT with 5000 iterations per move.
fn seats(seed: u64) -> Vec<Seat<TicTacToe>> {
    let uct = Uct::new(
        UctConfig::for_game(&TicTacToe),
        RandomPlayout { max_plies: 100 },
        seed,
    );
    vec![
        Seat::Human,
        Seat::Program(Box::new(uct), Budget::Iterations(5000)),
    ]
}

fn main() -> std::process::ExitCode {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout();
    // Tic-tac-toe ends within 9 plies; the limit is never reached.
    let max_plies = 9;
    match toss_cli::play::play(
        &TicTacToe,
        &mut seats(seed),
        seed,
        max_plies,
        &mut input,
        &mut out,
    ) {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            let _ = out.flush();
            eprintln!("tictactoe: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
