//! Random-playout speed of a game, generated (`#[derive(Game)]`) against
//! interpreted, one after the other in the same run:
//!
//! ```text
//! cargo run --release --example speed -- GAME [SECONDS]
//! ```
//!
//! GAME is a file name in games/ without `.toss`: one of the nine benchmark
//! games (tic-tac-toe, connect4, breakthrough, gomoku, english-draughts,
//! chess, reversi, hex, amazons), pawn-whopping, dice,
//! concurrent-tic-tac-toe, or one of the continuous games (bounce, throw,
//! cat-and-mouse, pursuit, dobble: the interpreter with the compiled
//! right-hand sides and update terms against the interpreter alone), or one
//! of the games of docs/patterns.md (sokoban, sokoban-2, sokoban-3,
//! sokoban-plus, rock-paper-scissors, tic-tac-toe-coin, chess-plus,
//! magic-chess, chess-threefold). It derives every
//! game of games/, so its build is the compile time of all of them
//! (BENCHMARKS.md).
//! The last line printed is
//! `GAME generated=<playouts/s> interpreted=<playouts/s> ratio=<generated/interpreted>`.

use std::time::{Duration, Instant};

use toss::Game;

#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss")]
struct TicTacToe;
#[derive(toss::Game)]
#[toss(file = "games/connect4.toss")]
struct Connect4;
#[derive(toss::Game)]
#[toss(file = "games/breakthrough.toss")]
struct Breakthrough;
#[derive(toss::Game)]
#[toss(file = "games/gomoku.toss")]
struct Gomoku;
#[derive(toss::Game)]
#[toss(file = "games/hex.toss")]
struct Hex;
#[derive(toss::Game)]
#[toss(file = "games/pawn-whopping.toss")]
struct PawnWhopping;
#[derive(toss::Game)]
#[toss(file = "games/dice.toss")]
struct Dice;
#[derive(toss::Game)]
#[toss(file = "games/concurrent-tic-tac-toe.toss")]
struct ConcurrentTicTacToe;
#[derive(toss::Game)]
#[toss(file = "games/english-draughts.toss")]
struct EnglishDraughts;
#[derive(toss::Game)]
#[toss(file = "games/chess.toss")]
struct Chess;
#[derive(toss::Game)]
#[toss(file = "games/reversi.toss")]
struct Reversi;
#[derive(toss::Game)]
#[toss(file = "games/amazons.toss")]
struct Amazons;
#[derive(toss::Game)]
#[toss(file = "games/bounce.toss")]
struct Bounce;
#[derive(toss::Game)]
#[toss(file = "games/throw.toss")]
struct Throw;
#[derive(toss::Game)]
#[toss(file = "games/cat-and-mouse.toss")]
struct CatAndMouse;
#[derive(toss::Game)]
#[toss(file = "games/pursuit.toss")]
struct Pursuit;
// The games of the thesis's rule patterns (docs/patterns.md).
#[derive(toss::Game)]
#[toss(file = "games/sokoban.toss")]
struct Sokoban;
#[derive(toss::Game)]
#[toss(file = "games/sokoban-2.toss")]
struct Sokoban2;
#[derive(toss::Game)]
#[toss(file = "games/sokoban-3.toss")]
struct Sokoban3;
#[derive(toss::Game)]
#[toss(file = "games/sokoban-plus.toss")]
struct SokobanPlus;
#[derive(toss::Game)]
#[toss(file = "games/rock-paper-scissors.toss")]
struct RockPaperScissors;
#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe-coin.toss")]
struct TicTacToeCoin;
#[derive(toss::Game)]
#[toss(file = "games/chess-plus.toss")]
struct ChessPlus;
#[derive(toss::Game)]
#[toss(file = "games/magic-chess.toss")]
struct MagicChess;
#[derive(toss::Game)]
#[toss(file = "games/dobble.toss")]
struct Dobble;
#[derive(toss::Game)]
#[toss(file = "games/chess-threefold.toss")]
struct ChessThreefold;

const MAX_PLIES: usize = 10_000;

/// Playouts per second over about `secs` seconds, and the mean length in
/// turns.
fn measure<G: Game>(g: &G, secs: f64) -> (f64, f64) {
    let budget = Duration::from_secs_f64(secs);
    let mut rng = toss::rng_from_seed(1);
    let start = Instant::now();
    let (mut playouts, mut turns) = (0u64, 0u64);
    let mut batch = 1;
    loop {
        for _ in 0..batch {
            let (n, _) = g.random_playout(&mut rng, MAX_PLIES);
            turns += n as u64;
        }
        playouts += batch;
        let t = start.elapsed();
        if t >= budget {
            return (
                playouts as f64 / t.as_secs_f64(),
                turns as f64 / playouts as f64,
            );
        }
        // Check the clock about every millisecond.
        let per = t.as_secs_f64() / playouts as f64;
        batch = ((0.001 / per.max(1e-9)) as u64).clamp(1, 4096);
    }
}

/// The report of one game: the generated and the interpreted version's
/// rates, each measured for about `secs` seconds, one after the other; the
/// last line is the summary scripts read.
fn report<G: Game>(name: &str, generated: &G, secs: f64) -> Vec<String> {
    let path = format!("{}/games/{name}.toss", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("game file");
    let interpreted = toss::interpret(&source, name).expect("valid game");
    let (g, gl) = measure(generated, secs);
    let (i, il) = measure(&interpreted, secs);
    vec![
        format!("{name} generated: {g:.0} playouts/s (mean {gl:.1} turns)"),
        format!("{name} interpreted: {i:.0} playouts/s (mean {il:.1} turns)"),
        format!(
            "{name} generated={g:.0} interpreted={i:.0} ratio={:.1}",
            g / i
        ),
    ]
}

fn run<G: Game>(name: &str, generated: &G, secs: f64) {
    for line in report(name, generated, secs) {
        println!("{line}");
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let game = args.next().unwrap_or_else(|| "tic-tac-toe".to_string());
    let secs: f64 = match args.next() {
        None => 3.0,
        Some(text) => match text.parse::<f64>() {
            Ok(s) if s.is_finite() && s > 0.0 => s,
            _ => {
                eprintln!("SECONDS `{text}`: expected a positive number of seconds, e.g. 3");
                std::process::exit(2);
            }
        },
    };
    match game.as_str() {
        "tic-tac-toe" => run(&game, &TicTacToe, secs),
        "connect4" => run(&game, &Connect4, secs),
        "breakthrough" => run(&game, &Breakthrough, secs),
        "gomoku" => run(&game, &Gomoku, secs),
        "hex" => run(&game, &Hex, secs),
        "pawn-whopping" => run(&game, &PawnWhopping, secs),
        "dice" => run(&game, &Dice, secs),
        "concurrent-tic-tac-toe" => run(&game, &ConcurrentTicTacToe, secs),
        "english-draughts" => run(&game, &EnglishDraughts, secs),
        "chess" => run(&game, &Chess, secs),
        "reversi" => run(&game, &Reversi, secs),
        "amazons" => run(&game, &Amazons, secs),
        "bounce" => run(&game, &Bounce, secs),
        "throw" => run(&game, &Throw, secs),
        "cat-and-mouse" => run(&game, &CatAndMouse, secs),
        "pursuit" => run(&game, &Pursuit, secs),
        "sokoban" => run(&game, &Sokoban, secs),
        "sokoban-2" => run(&game, &Sokoban2, secs),
        "sokoban-3" => run(&game, &Sokoban3, secs),
        "sokoban-plus" => run(&game, &SokobanPlus, secs),
        "rock-paper-scissors" => run(&game, &RockPaperScissors, secs),
        "tic-tac-toe-coin" => run(&game, &TicTacToeCoin, secs),
        "chess-plus" => run(&game, &ChessPlus, secs),
        "magic-chess" => run(&game, &MagicChess, secs),
        "dobble" => run(&game, &Dobble, secs),
        "chess-threefold" => run(&game, &ChessThreefold, secs),
        other => {
            eprintln!("unknown game {other}: expected the name of a file in games/ without .toss");
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last line has the form scripts read, with rates that agree with
    /// the lines above it and a ratio that is their quotient.
    #[test]
    fn the_last_line_is_the_summary() {
        let lines = report("tic-tac-toe", &TicTacToe, 0.05);
        let last = lines.last().expect("a summary");
        let fields: Vec<&str> = last.split(' ').collect();
        assert_eq!(fields.len(), 4, "{last}");
        assert_eq!(fields[0], "tic-tac-toe");
        let value = |i: usize, key: &str| -> f64 {
            let v = fields[i]
                .strip_prefix(key)
                .unwrap_or_else(|| panic!("{key} in {last}"));
            v.parse().unwrap_or_else(|_| panic!("{v} in {last}"))
        };
        let (g, i, r) = (
            value(1, "generated="),
            value(2, "interpreted="),
            value(3, "ratio="),
        );
        assert!(g > 0.0 && i > 0.0);
        assert!((r - g / i).abs() <= 0.05 + 0.01 * r, "{last}");
        assert!(lines[0].starts_with(&format!("tic-tac-toe generated: {g:.0} playouts/s")));
        assert!(lines[1].starts_with(&format!("tic-tac-toe interpreted: {i:.0} playouts/s")));
    }
}
