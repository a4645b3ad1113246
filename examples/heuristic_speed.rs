//! Speed of the derived heuristic, compiled into the generated code
//! (`#[toss(file = "...", heuristics)]`) against the solver on each state's
//! structure (`HeuristicEval`), one after the other in the same run, on
//! the generated game:
//!
//! ```text
//! cargo run --release --example heuristic_speed -- GAME [SECONDS]
//! ```
//!
//! GAME is breakthrough, gomoku, connect4 or tic-tac-toe. For each
//! evaluation it prints heuristic evaluations per second (over the states
//! of seeded random playouts) and UCT+heur iterations per second (the
//! `uct+heur` player of `toss match`: UCT whose playouts stop at the
//! heuristic) from the starting state, each for about SECONDS. The last
//! line is `GAME compiled=<iterations/s> solver=<iterations/s> ratio=<compiled/solver>`.

use std::time::{Duration, Instant};

use toss::Game;
use toss::heuristics::{CompiledHeuristic, HeuristicConfig, HeuristicEval, HeuristicKind, derive};
use toss::search::player::Budget;
use toss::search::uct::{Evaluator, PlayoutPolicy, Uct, UctConfig};

#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss", heuristics)]
struct TicTacToe;
#[derive(toss::Game)]
#[toss(file = "games/connect4.toss", heuristics)]
struct Connect4;
#[derive(toss::Game)]
#[toss(file = "games/breakthrough.toss", heuristics)]
struct Breakthrough;
#[derive(toss::Game)]
#[toss(file = "games/gomoku.toss", heuristics)]
struct Gomoku;

/// The states of 20 seeded random playouts (at most 60 plies each).
fn states<G: Game>(g: &G) -> Vec<G::State> {
    let mut out = Vec::new();
    let (mut movers, mut moves) = (Vec::new(), Vec::new());
    for seed in 0..20 {
        let mut rng = toss::rng_from_seed(seed);
        let mut s = g.initial_state();
        for _ in 0..60 {
            out.push(s.clone());
            g.movers(&s, &mut movers);
            if movers.is_empty() {
                break;
            }
            let mut joint = Vec::new();
            for &p in &movers {
                g.legal_moves(&s, p, &mut moves);
                let i = toss::game::index_below(&mut rng, moves.len());
                joint.push(moves.swap_remove(i));
            }
            g.apply(&mut s, &joint, &mut rng);
        }
    }
    out
}

/// Evaluations per second over `states`, for about `secs` seconds.
fn evaluations<G: Game, E: Evaluator<G>>(g: &G, eval: &E, states: &[G::State], secs: f64) -> f64 {
    let mut out = vec![0.0; g.num_players()];
    let mut rng = toss::rng_from_seed(0);
    let start = Instant::now();
    let mut n = 0u64;
    let mut sink = 0.0;
    while start.elapsed().as_secs_f64() < secs {
        for s in states {
            eval.evaluate(g, s, &mut rng, &mut out);
            sink += out[0];
        }
        n += states.len() as u64;
    }
    std::hint::black_box(sink);
    n as f64 / start.elapsed().as_secs_f64()
}

/// UCT+heur iterations per second from the starting state, one search of
/// about `secs` seconds.
fn uct_rate<G, E>(g: &G, eval: E, secs: f64) -> f64
where
    G: Game + Sync,
    G::State: Send + Sync,
    E: Evaluator<G>,
{
    let config = UctConfig {
        playout: PlayoutPolicy::Evaluate,
        ..UctConfig::default()
    };
    let mut uct = Uct::new(config, eval, 1);
    let budget = Budget::Time(Duration::from_secs_f64(secs));
    uct.search(g, &g.initial_state(), budget);
    let r = uct.report();
    r.iterations as f64 / r.seconds.max(1e-9)
}

fn run<G>(name: &str, g: &G, secs: f64)
where
    G: Game + Sync,
    G::State: Send + Sync,
{
    let path = format!("{}/games/{name}.toss", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("game file");
    let game = toss::lang::parse_game(&source, name).expect("valid game");
    let interp = toss::Interpreter::new(&game).expect("the game loads");
    let h = derive(&game, &HeuristicConfig::default());
    let solver = HeuristicEval::new(&game, &interp, &h).expect("the heuristic compiles");
    let compiled =
        CompiledHeuristic::for_game(g, HeuristicKind::Existential).expect("a compiled heuristic");
    let states = states(g);
    let ec = evaluations(g, &compiled, &states, secs);
    let es = evaluations(g, &solver, &states, secs);
    println!(
        "{name} evaluations/s over {} states: compiled {ec:.0}, solver {es:.0}, ratio {:.1}",
        states.len(),
        ec / es
    );
    let uc = uct_rate(g, compiled, secs);
    let us = uct_rate(g, solver, secs);
    println!(
        "{name} compiled={uc:.0} solver={us:.0} ratio={:.1}",
        uc / us
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let game = args.next().unwrap_or_else(|| "breakthrough".to_string());
    let secs: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    match game.as_str() {
        "tic-tac-toe" => run(&game, &TicTacToe, secs),
        "connect4" => run(&game, &Connect4, secs),
        "breakthrough" => run(&game, &Breakthrough, secs),
        "gomoku" => run(&game, &Gomoku, secs),
        other => {
            eprintln!("unknown game {other}: breakthrough, gomoku, connect4 or tic-tac-toe");
            std::process::exit(2);
        }
    }
}
