//! One UCT search from the starting position of an interpreted game, to
//! measure the memory a search takes (run it under `/usr/bin/time -v` for
//! the process's maximum resident set):
//!
//! ```text
//! cargo run --release --example uct_memory -- FILE ITERATIONS [playout|payoff]
//! ```
//!
//! `playout` (the default) is plain UCT: every new child is evaluated by a
//! random playout. `payoff` evaluates a new child by the current values of
//! the payoff terms instead, which grows the same tree (one node per joint
//! move of every expanded leaf) far faster on slow games such as chess.
//! Prints the nodes, the bytes of the tree arena and the time.

use toss::Game;
use toss::runtime::player::Budget;
use toss::runtime::uct::{Evaluator, PlayoutPolicy, RandomPlayout, Uct, UctConfig, node_bytes};

/// The payoff terms' current values.
struct PayoffNow;

impl<G: Game> Evaluator<G> for PayoffNow {
    fn evaluate(&self, game: &G, s: &G::State, _rng: &mut toss::Rng, out: &mut [f64]) {
        game.payoffs(s, out);
    }
}

fn search<E: Evaluator<toss::Interpreter>>(
    g: &toss::Interpreter,
    config: UctConfig,
    eval: E,
    iterations: u64,
) {
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

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(iterations)) = (args.first(), args.get(1).and_then(|s| s.parse().ok()))
    else {
        eprintln!("usage: uct_memory FILE ITERATIONS [playout|payoff]");
        return std::process::ExitCode::FAILURE;
    };
    let g = match std::fs::read_to_string(file)
        .map_err(|e| e.to_string())
        .and_then(|src| toss::interpret(&src, file).map_err(|e| e.to_string()))
    {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {file}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match args.get(2).map(String::as_str).unwrap_or("playout") {
        "payoff" => {
            let config = UctConfig {
                playout: PlayoutPolicy::Evaluate,
                ..UctConfig::default()
            };
            search(&g, config, PayoffNow, iterations);
        }
        _ => search(
            &g,
            UctConfig::default(),
            RandomPlayout { max_plies: 100_000 },
            iterations,
        ),
    }
    std::process::ExitCode::SUCCESS
}
