//! The parameters of UCT (spec 3.1) and its evaluation games: [`UctConfig`],
//! how a play continues below a new node ([`PlayoutPolicy`]), how threads
//! share a search ([`Parallelism`]), the [`Evaluator`] trait and the game
//! itself as its evaluation game ([`RandomPlayout`]).

use std::time::Instant;

use toss_core::game::{Game, Rng};

#[cfg(doc)]
use super::Uct;

/// An evaluation game (spec 3.1): maps a position to a payoff distribution,
/// of which `evaluate` draws one sample.
pub trait Evaluator<G: Game>: Sync {
    /// One sample of the payoff vector of the non-terminal state `s`
    /// (`out.len() == game.num_players()`).
    fn evaluate(&self, game: &G, s: &G::State, rng: &mut Rng, out: &mut [f64]);

    /// True when a sample depends on the state alone (it draws nothing
    /// from `rng`): the E plays of a new child are then one evaluation
    /// repeated, and [`Uct`] computes it once.
    fn is_deterministic(&self) -> bool {
        false
    }
}

/// The game itself as its evaluation game: a uniformly random playout
/// (stopped after `max_plies` turns, then the payoff terms' current
/// values).
#[derive(Clone, Copy, Debug)]
pub struct RandomPlayout {
    pub max_plies: usize,
}

impl<G: Game + Sync> Evaluator<G> for RandomPlayout {
    fn evaluate(&self, game: &G, s: &G::State, rng: &mut Rng, out: &mut [f64]) {
        let mut t = s.clone();
        let (_, pay) = game.random_playout_from(&mut t, rng, self.max_plies);
        out.copy_from_slice(&pay);
    }
}

/// A uniformly random playout of at most `max_plies` turns from `s`, as
/// [`Game::random_playout_from`], that gives up when `deadline` passes
/// (the clock is read before every turn): `None` then. An evaluator that
/// gives up this way reports NaN payoffs, which a search with a deadline
/// ([`Uct::set_deadline`]) reads as an interrupted iteration.
pub fn random_playout_until<G: Game>(
    game: &G,
    s: &mut G::State,
    rng: &mut Rng,
    max_plies: usize,
    deadline: Instant,
) -> Option<toss_core::game::Payoffs> {
    let mut plies = 0;
    loop {
        if Instant::now() >= deadline {
            return None;
        }
        let (n, pay) = game.random_playout_from(s, rng, 1);
        plies += n;
        if n == 0 || plies >= max_plies {
            return Some(pay);
        }
    }
}

/// How a play continues below a newly expanded node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlayoutPolicy {
    /// No playout: the iteration records one more evaluation of the
    /// selected child.
    Evaluate,
    /// Uniformly random moves to the end (the basic strategy without an
    /// evaluation game).
    Random,
    /// The basic strategy of spec 3.1: in every position each joint move is
    /// evaluated once with the evaluation game and a regret-minimising one
    /// is played.
    Basic,
    /// Uniformly random moves for at most this many turns, then one
    /// evaluation of the position reached (its payoffs if the play ended).
    /// A short random tail lets the tree see the tactics just below a node
    /// while the evaluation judges the position instead of a long random
    /// play: the evaluation cutoff of MCTS programs for Breakthrough-like
    /// games, where random playouts say little about a position.
    Cutoff(u32),
    /// The value of a new leaf mixes the evaluation and a uniformly random
    /// playout from it: `lambda * evaluation + (1 - lambda) * playout`
    /// (the leaf evaluation of AlphaGo). The evaluation carries what it
    /// knows of the position up the tree, the playout what the rules
    /// decide a few moves ahead; `lambda` is in [0, 1].
    Mix(f64),
}

/// How the threads of one search share the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parallelism {
    /// One tree for all threads (tree parallelism with virtual loss). One
    /// thread descends the tree and hands each iteration's expansion and
    /// playouts to whichever thread is free; up to `2 * threads`
    /// iterations are in flight, and each counts as a loss on its path
    /// until its result is recorded, so the descents in the meantime spread
    /// out. Results are recorded in the order the iterations began, and the
    /// random numbers of an iteration depend on its number only, so a
    /// search with an iteration budget is deterministic for its seed. The
    /// tree grows as deep as one thread's tree with all the iterations.
    Tree,
    /// Independent trees, one per thread with its own seed, whose root
    /// children's statistics are summed (root parallelism). Each tree is
    /// only as deep as its share of the iterations makes it.
    Root,
}

/// Parameters of the search.
#[derive(Clone, Debug)]
pub struct UctConfig {
    /// The exploration constant C, 3 by default. In the bound of spec 3.1
    /// the factor `s` multiplies the square root (UCB1-TUNED takes its
    /// root) and, for a child of low variance, falls like
    /// `sqrt(2 ln n(v) / n(w))`: its bonus falls like `1 / n(w)`, and a
    /// child whose mean trails by `g` gets about
    /// `(C Delta / 4)^2 ln n(v) / g^2` visits. With C = 2 that is too few
    /// to find a forced win some plies below: in tic-tac-toe at 10,000
    /// iterations UCT chose a losing reply to x's first move in 8 of 900
    /// searches (7 at 30,000) and lost to perfect play; with C = 3 in none.
    /// C = 4 and 6 explore too much at 1,000 iterations. The figures:
    /// `tic_tac_toe_exploration_constants` in the tests.
    pub c: f64,
    /// The payoff range Delta (maximum minus minimum payoff): 2 by default,
    /// for payoffs in [-1, 1]; [`UctConfig::for_game`] takes it from the
    /// game.
    pub delta: f64,
    /// E: evaluation plays in each new child.
    pub evals: u32,
    /// E' (1 <= E' <= E): the visit count a new child starts with.
    pub evals_weight: u32,
    pub playout: PlayoutPolicy,
    /// Playouts stop after this many turns.
    pub max_playout_plies: usize,
    /// The trees are never extended beyond this many nodes in total: with
    /// [`Parallelism::Root`] and t threads each thread's tree gets
    /// `max_nodes / t`, so more threads do not take more memory.
    pub max_nodes: usize,
    /// Threads of one search; how they share it is
    /// [`UctConfig::parallelism`].
    pub threads: usize,
    /// How the threads of a search share it (with `threads` > 1).
    pub parallelism: Parallelism,
    /// Keep the tree between moves.
    pub reuse_tree: bool,
}

impl UctConfig {
    /// The default configuration with the payoff range Delta of `g`
    /// ([`Game::payoff_range`]).
    pub fn for_game<G: Game + ?Sized>(g: &G) -> UctConfig {
        let (lo, hi) = g.payoff_range();
        UctConfig {
            delta: hi - lo,
            ..UctConfig::default()
        }
    }
}

impl Default for UctConfig {
    fn default() -> Self {
        UctConfig {
            c: 3.0,
            delta: 2.0,
            evals: 1,
            evals_weight: 1,
            playout: PlayoutPolicy::Random,
            max_playout_plies: 1000,
            max_nodes: 1 << 23,
            threads: 1,
            parallelism: Parallelism::Tree,
            reuse_tree: true,
        }
    }
}
