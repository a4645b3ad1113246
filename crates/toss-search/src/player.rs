//! Players: anything that picks the moves of the movers in a state.
//!
//! Random, UCT ([`crate::uct`]), UCT with a derived heuristic and
//! alpha-beta ([`crate::alphabeta`]) implement [`Player`]; [`play_match`]
//! runs a match between them.

use std::time::Duration;

use toss_core::game::{Game, Rng, rng_from_seed};

/// How much a player may think about one move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// A number of iterations (UCT) or a search depth in plies (alpha-beta).
    Iterations(u64),
    /// Wall time.
    Time(Duration),
}

/// A player: chooses the moves of the players to move.
pub trait Player<G: Game> {
    /// A short description, e.g. `uct(c=1)`.
    fn name(&self) -> String;

    /// One move for each mover of `state` (in [`Game::movers`] order). A
    /// player controlling only some movers still answers for all of them;
    /// the match keeps the moves of the players it controls.
    fn choose(&mut self, game: &G, state: &G::State, budget: Budget) -> Vec<G::Move>;

    /// Tells the player the joint move played from `state` (by everyone),
    /// so that it can keep its search tree. Called after each ply.
    fn observe(&mut self, _game: &G, _state: &G::State, _joint: &[G::Move]) {}

    /// The play went elsewhere than the moves observed (a person took
    /// moves back, or loaded a saved play): what the player kept about the
    /// position, such as a search tree, no longer holds. Nothing by
    /// default.
    fn forget(&mut self) {}

    /// What a match should report about the player's play when it is over
    /// (the solver: how many moves it proved). None by default.
    fn summary(&self) -> Option<String> {
        None
    }
}

/// Uniformly random legal moves (times and parameters drawn uniformly from
/// their intervals), reproducible from its seed.
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: rng_from_seed(seed),
        }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, game: &G, state: &G::State, _budget: Budget) -> Vec<G::Move> {
        let mut movers = Vec::new();
        game.movers(state, &mut movers);
        let mut moves = Vec::new();
        movers
            .iter()
            .filter_map(|&p| {
                game.legal_moves(state, p, &mut moves);
                if moves.is_empty() {
                    return None;
                }
                let i = toss_core::game::index_below(&mut self.rng, moves.len());
                let mut m = moves.swap_remove(i);
                game.draw_continuous(state, p, &mut m, &mut self.rng);
                Some(m)
            })
            .collect()
    }
}

/// Every joint move of movers with these legal moves (one move per mover,
/// in order), in canonical order: the first mover's moves vary slowest.
pub fn all_joint_moves<M: Clone>(moves: &[Vec<M>]) -> Vec<Vec<M>> {
    let mut out: Vec<Vec<M>> = vec![Vec::new()];
    for ms in moves {
        out = out
            .into_iter()
            .flat_map(|j| {
                ms.iter().map(move |m| {
                    let mut j = j.clone();
                    j.push(m.clone());
                    j
                })
            })
            .collect();
    }
    out
}

/// The result of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResult {
    /// The payoff of each game player in the final state.
    pub payoffs: Vec<f64>,
    /// Joint moves played.
    pub plies: usize,
}

/// Plays a match from the initial state: `controllers[p]` is the index in
/// `players` of the one playing game player `p`. Chance uses a generator
/// seeded with `seed`. Stops after `max_plies` joint moves.
pub fn play_match<G: Game>(
    game: &G,
    players: &mut [&mut dyn Player<G>],
    controllers: &[usize],
    budget: Budget,
    seed: u64,
    max_plies: usize,
) -> MatchResult {
    let mut rng = rng_from_seed(seed);
    let mut s = game.initial_state();
    let mut movers = Vec::new();
    let mut plies = 0;
    while plies < max_plies {
        game.movers(&s, &mut movers);
        if movers.is_empty() {
            break;
        }
        let mut joint: Vec<Option<G::Move>> = vec![None; movers.len()];
        for (k, &p) in movers.iter().enumerate() {
            if joint[k].is_some() {
                continue;
            }
            let who = controllers[p];
            let answer = players[who].choose(game, &s, budget);
            // Every mover this player controls takes its move from it.
            for (k2, &p2) in movers.iter().enumerate() {
                if controllers[p2] == who && joint[k2].is_none() {
                    joint[k2] = answer.get(k2).cloned();
                }
            }
        }
        let Some(joint) = joint.into_iter().collect::<Option<Vec<_>>>() else {
            break;
        };
        for p in players.iter_mut() {
            p.observe(game, &s, &joint);
        }
        game.apply(&mut s, &joint, &mut rng);
        plies += 1;
    }
    let mut payoffs = vec![0.0; game.num_players()];
    game.payoffs(&s, &mut payoffs);
    MatchResult { payoffs, plies }
}
