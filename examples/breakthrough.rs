//! A self-play match of Breakthrough, UCT against UCT, with the game
//! compiled in by `#[derive(toss::Game)]`; the board after each move, then
//! the result:
//!
//! ```text
//! cargo run --release --example breakthrough [ITERATIONS] [SEED]
//! ```

use toss::Game;
use toss::search::player::{Budget, Player};
use toss::search::uct::{RandomPlayout, Uct, UctConfig};

#[derive(toss::Game)]
#[toss(file = "games/breakthrough.toss")]
struct Breakthrough;

/// Plays one game between two UCT players with `iterations` per move,
/// printing each move and the board; returns the payoffs.
fn self_play(iterations: u64, seed: u64) -> Vec<f64> {
    let g = Breakthrough;
    let names = g.player_names();
    let mut players: Vec<Uct<RandomPlayout>> = (0..g.num_players() as u64)
        .map(|p| {
            Uct::new(
                UctConfig::for_game(&g),
                RandomPlayout { max_plies: 200 },
                seed.wrapping_add(p),
            )
        })
        .collect();
    let mut rng = toss::rng_from_seed(seed);
    let mut s = g.initial_state();
    let mut movers = Vec::new();
    println!("{}", toss_cli::play::picture(&g, &s));
    for ply in 1.. {
        g.movers(&s, &mut movers);
        if movers.is_empty() {
            break;
        }
        // Breakthrough is alternating: one mover, whose player chooses.
        let p = movers[0];
        let joint = players[p].choose(&g, &s, Budget::Iterations(iterations));
        if joint.len() != movers.len() {
            break;
        }
        println!(
            "{ply}. {} plays {}",
            names[p],
            toss_cli::play::joint_to_string(&g, &s, &joint)
        );
        for player in &mut players {
            player.observe(&g, &s, &joint);
        }
        g.apply(&mut s, &joint, &mut rng);
        println!("{}", toss_cli::play::picture(&g, &s));
    }
    let mut pay = vec![0.0; g.num_players()];
    g.payoffs(&s, &mut pay);
    pay
}

fn main() {
    let mut args = std::env::args().skip(1);
    let iterations = args.next().and_then(|a| a.parse().ok()).unwrap_or(500);
    let seed = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let pay = self_play(iterations, seed);
    println!("The play has ended.");
    for (name, p) in Breakthrough.player_names().iter().zip(&pay) {
        println!("  {name}: {p}");
    }
}
