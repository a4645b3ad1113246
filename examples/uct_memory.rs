//! One UCT search from the starting position of a game, to measure the
//! memory a search takes (run it under `/usr/bin/time -v` for the process's
//! maximum resident set):
//!
//! ```text
//! cargo run --release --example uct_memory -- FILE ITERATIONS [playout|payoff]
//! cargo run --release --example uct_memory -- --generated chess ITERATIONS [playout|payoff]
//! ```
//!
//! FILE is interpreted. `--generated chess` uses the code the derive
//! generates for `games/chess.toss` instead (the same tree, grown faster).
//! `playout` (the default) is plain UCT: every new child is evaluated by a
//! random playout. `payoff` evaluates a new child by the current values of
//! the payoff terms instead, which grows the same tree (one node per joint
//! move of every expanded leaf) far faster on slow games such as chess.
//! Prints the nodes, the bytes of the tree arena and the time.

use toss::Game;
use toss::search::player::Budget;
use toss::search::uct::{Evaluator, PlayoutPolicy, RandomPlayout, Uct, UctConfig, node_bytes};

#[derive(toss::Game)]
#[toss(file = "games/chess.toss")]
struct Chess;

/// The payoff terms' current values.
struct PayoffNow;

impl<G: Game> Evaluator<G> for PayoffNow {
    fn evaluate(&self, game: &G, s: &G::State, _rng: &mut toss::Rng, out: &mut [f64]) {
        game.payoffs(s, out);
    }
}

fn search<G: Game + Sync, E: Evaluator<G>>(g: &G, config: UctConfig, eval: E, iterations: u64)
where
    G::State: Send + Sync,
{
    let mut uct = Uct::new(config, eval, 1);
    uct.search(g, &g.initial_state(), Budget::Iterations(iterations));
    let r = uct.report();
    println!(
        "iterations={} nodes={} arena_bytes={} node_bytes={} seconds={:.1}",
        r.iterations,
        r.nodes,
        r.bytes,
        node_bytes(g.num_players()),
        r.seconds
    );
}

fn run<G: Game + Sync>(g: &G, iterations: u64, evaluation: &str)
where
    G::State: Send + Sync,
{
    match evaluation {
        "payoff" => {
            let config = UctConfig {
                playout: PlayoutPolicy::Evaluate,
                ..UctConfig::default()
            };
            search(g, config, PayoffNow, iterations);
        }
        _ => search(
            g,
            UctConfig::default(),
            RandomPlayout { max_plies: 100_000 },
            iterations,
        ),
    }
}

fn main() -> std::process::ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let generated = args.first().is_some_and(|a| a == "--generated");
    if generated {
        args.remove(0);
    }
    let (Some(game), Some(iterations)) = (args.first(), args.get(1).and_then(|s| s.parse().ok()))
    else {
        eprintln!(
            "usage: uct_memory FILE ITERATIONS [playout|payoff]\n       \
             uct_memory --generated chess ITERATIONS [playout|payoff]"
        );
        return std::process::ExitCode::FAILURE;
    };
    let evaluation = args.get(2).map(String::as_str).unwrap_or("playout");
    if generated {
        if game != "chess" {
            eprintln!("error: `--generated` knows only `chess`, not `{game}`");
            return std::process::ExitCode::FAILURE;
        }
        run(&Chess, iterations, evaluation);
        return std::process::ExitCode::SUCCESS;
    }
    let g = match std::fs::read_to_string(game)
        .map_err(|e| e.to_string())
        .and_then(|src| toss::interpret(&src, game).map_err(|e| e.to_string()))
    {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {game}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    run(&g, iterations, evaluation);
    std::process::ExitCode::SUCCESS
}
