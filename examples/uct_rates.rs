//! UCT iterations per second of the `toss match` players on the generated
//! Breakthrough: plain UCT (`uct`: every new child evaluated by a random
//! playout, then a random playout below the selected child) and UCT with
//! the compiled heuristic (`uct+heur`) with `playout=evaluate`, `random`
//! and `mix0.5`; one search of about SECONDS each, from the starting state
//! and from the states after 10, 20 and 30 seeded random plies; and plain
//! UCT again on two threads, with one shared tree (`uct:threads=2`) and
//! with a tree per thread (`uct:threads=2,parallel=root`, the iterations
//! of both trees counted). Then plain UCT on the generated Connect Four,
//! whose iterations are the shortest, on one and two threads:
//!
//! ```text
//! cargo run --release --example uct_rates -- [SECONDS]
//! ```
//!
//! Tree nodes per second follow in parentheses.

use std::time::Duration;

use toss::Game;
use toss::heuristics::{CompiledHeuristic, HeuristicKind};
use toss::search::player::Budget;
use toss::search::uct::{Evaluator, Parallelism, PlayoutPolicy, RandomPlayout, Uct, UctConfig};

#[derive(toss::Game)]
#[toss(file = "games/breakthrough.toss", heuristics)]
struct Breakthrough;

#[derive(toss::Game)]
#[toss(file = "games/connect4.toss")]
struct ConnectFour;

/// Iterations and nodes per second of one search of `secs` from `s`.
fn rate<G, E>(
    g: &G,
    s: &G::State,
    eval: E,
    playout: PlayoutPolicy,
    (threads, parallelism): (usize, Parallelism),
    secs: f64,
) -> (f64, f64)
where
    G: Game + Sync,
    G::State: Send + Sync,
    E: Evaluator<G>,
{
    let config = UctConfig {
        playout,
        threads,
        parallelism,
        ..UctConfig::default()
    };
    let mut uct = Uct::new(config, eval, 1);
    uct.search(g, s, Budget::Time(Duration::from_secs_f64(secs)));
    let r = uct.report();
    (r.iterations as f64 / r.seconds, r.nodes as f64 / r.seconds)
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let g = Breakthrough;
    let mut states = vec![g.initial_state()];
    let mut rng = toss::rng_from_seed(3);
    let mut s = g.initial_state();
    let (mut movers, mut moves) = (Vec::new(), Vec::new());
    for ply in 0..30 {
        g.movers(&s, &mut movers);
        g.legal_moves(&s, movers[0], &mut moves);
        let i = toss::game::index_below(&mut rng, moves.len());
        let joint = vec![moves.swap_remove(i)];
        g.apply(&mut s, &joint, &mut rng);
        if ply % 10 == 9 {
            states.push(s);
        }
    }
    let heuristic = || {
        CompiledHeuristic::for_game(&g, HeuristicKind::Existential)
            .expect("the example compiles the heuristic")
    };
    let one = (1, Parallelism::Tree);
    let random = || RandomPlayout { max_plies: 100_000 };
    for (k, st) in states.iter().enumerate() {
        let uct = rate(&g, st, random(), PlayoutPolicy::Random, one, secs);
        let tree = (2, Parallelism::Tree);
        let uct2 = rate(&g, st, random(), PlayoutPolicy::Random, tree, secs);
        let root = (2, Parallelism::Root);
        let root2 = rate(&g, st, random(), PlayoutPolicy::Random, root, secs);
        let evaluate = rate(&g, st, heuristic(), PlayoutPolicy::Evaluate, one, secs);
        let random = rate(&g, st, heuristic(), PlayoutPolicy::Random, one, secs);
        let mix = rate(&g, st, heuristic(), PlayoutPolicy::Mix(0.5), one, secs);
        println!(
            "after {:>2} plies: uct {:.0} ({:.0}), uct:threads=2 {:.0} ({:.0}), \
             parallel=root {:.0} ({:.0}), uct+heur evaluate {:.0} ({:.0}), \
             random {:.0} ({:.0}), mix0.5 {:.0} ({:.0}) iterations/s (nodes/s)",
            10 * k,
            uct.0,
            uct.1,
            uct2.0,
            uct2.1,
            root2.0,
            root2.1,
            evaluate.0,
            evaluate.1,
            random.0,
            random.1,
            mix.0,
            mix.1
        );
    }
    let c4 = ConnectFour;
    let s = c4.initial_state();
    let random = || RandomPlayout { max_plies: 100_000 };
    let [uct, tree, root] = [
        (1, Parallelism::Tree),
        (2, Parallelism::Tree),
        (2, Parallelism::Root),
    ]
    .map(|t| rate(&c4, &s, random(), PlayoutPolicy::Random, t, secs));
    println!(
        "Connect Four: uct {:.0} ({:.0}), uct:threads=2 {:.0} ({:.0}), \
         parallel=root {:.0} ({:.0}) iterations/s (nodes/s)",
        uct.0, uct.1, tree.0, tree.1, root.0, root.1
    );
}
