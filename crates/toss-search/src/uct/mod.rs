//! UCT (spec 3.1), generic over [`Game`].
//!
//! A tree node stands for the sequence of joint moves from the root (chance
//! is sampled anew in every iteration, so with chance the tree is
//! open-loop). A node stores its visit count `n`, and per player the sum and
//! the sum of squares of the payoffs recorded through it, from which the
//! mean `mu_i` and the standard deviation `sigma_i` follow. Nodes keep no
//! game state: an iteration replays the moves from the root, regenerating
//! the legal moves on the way, and a child is identified by the index of
//! its joint move in the mixed-radix enumeration of the movers' legal moves
//! (first mover most significant, as in [`Game::perft`]). A node takes 12
//! bytes plus 16 bytes per player (44 for two players), and the trees never
//! grow past [`UctConfig::max_nodes`] nodes in total over the threads
//! (leaves are then played out without being expanded), so memory stays
//! bounded whatever the budget and the number of threads.
//!
//! One iteration: from the root, in an expanded node `v` the movers play a
//! regret-minimising joint action ([`regret_minimizing`]) in the normal-form
//! game whose payoffs are the bounds `mu'_i(w)` of the children
//! ([`ucb1_tuned`]); in a leaf all joint moves are added as children, the
//! evaluation game is played `E` times in each (the initial mean and
//! variance come from these plays, with `n(u) = E'`), one child is selected
//! as above, and from it the play continues with the basic strategy
//! ([`PlayoutPolicy`]) without extending the tree. The final payoff is
//! recorded in every node of the path. After the budget, the move at the
//! root is chosen from the children's means only (again by regret
//! minimisation, i.e. the best mean for turn-based games).
//!
//! The tree is kept between moves: [`Player::observe`] moves the root to
//! the child of the joint move played (compacting the arena), unless the
//! move drew on chance: the subtree then mixes the outcomes chance could
//! take, and is dropped. A kept root expanded with another number of joint
//! moves than the real state has is dropped too: its child indices would
//! not name the legal joint moves.
//!
//! With [`UctConfig::threads`] > 1 the threads share one tree by default
//! ([`Parallelism::Tree`]): one thread descends, with a virtual loss on
//! the path of every iteration in flight, and each iteration's expansion
//! and playouts go to whichever thread is free. The tree then grows as a
//! single thread's tree with all the iterations, which is what more
//! iterations are worth in play; root parallelism ([`Parallelism::Root`],
//! a tree per thread and their root statistics summed) grows trees only
//! as deep as each thread's share, and at the budgets of RESULTS.md gained
//! little. A search with an iteration budget is deterministic for its
//! seed either way. A shared tree takes 5 bytes per node more while it
//! is searched (each node's virtual losses and whether its expansion is
//! in flight).
//!
//! The parts: the parameters and evaluation games in `config`, the bandit
//! (UCB1-TUNED, regret minimisation, the draw of a joint move) in `bandit`,
//! the arena in `tree`, one thread's search (descent, expansion, playout)
//! in `search`, tree parallelism in `parallel`; the player, with root
//! parallelism, here.

use std::time::Instant;

use crate::player::{Budget, Player};
use toss_core::game::{Game, rng_from_seed};

mod bandit;
mod config;
mod parallel;
mod search;
mod tree;

pub use bandit::{regret_minimizing, ucb1_tuned};
pub use config::{
    Evaluator, Parallelism, PlayoutPolicy, RandomPlayout, UctConfig, random_playout_until,
};
pub use tree::{ChildStats, Tree, node_bytes};

use bandit::choose_joint;
use search::{Ended, Search, Work, gen_moves, joint_of};
use tree::NONE;

/// Whether the joint move draws from the generator when applied in
/// `state` (a label with several edges, a drawn time or parameter): then
/// the play goes on from an outcome of chance. The subtree of that joint
/// move mixes the iterations of every outcome (the tree is open-loop): its
/// statistics are not those of the real outcome, and where the outcomes
/// have as many moves a child index stands for different moves after
/// different outcomes (in `games/dice.toss` a roll of 1 and of 2 list the
/// tokens' moves in different orders). Games draw only for chance (the
/// interpreter, generated code; GDL has none), so a deterministic joint
/// move keeps its subtree.
fn draws_chance<G: Game>(game: &G, state: &G::State, joint: &[G::Move]) -> bool {
    let mut probe = rng_from_seed(0);
    let before = probe.clone();
    let mut t = state.clone();
    game.apply(&mut t, joint, &mut probe);
    probe != before
}

/// The UCT player.
pub struct Uct<E> {
    pub config: UctConfig,
    pub eval: E,
    seed: u64,
    /// Moves chosen so far (varies the seeds of later searches).
    searches: u64,
    trees: Vec<Option<Tree>>,
    last: SearchReport,
    /// See [`Uct::set_deadline`].
    deadline: Option<Instant>,
}

/// What the last search did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchReport {
    pub iterations: u64,
    /// Nodes over all trees.
    pub nodes: usize,
    pub bytes: usize,
    pub seconds: f64,
    /// The root children (summed over threads).
    pub children: Vec<ChildStats>,
    /// Index of the chosen joint move.
    pub chosen: usize,
}

impl<E> Uct<E> {
    pub fn new(config: UctConfig, eval: E, seed: u64) -> Uct<E> {
        Uct {
            config,
            eval,
            seed,
            searches: 0,
            trees: Vec::new(),
            last: SearchReport::default(),
            deadline: None,
        }
    }

    /// A time after which the searches of one tree (not
    /// [`Parallelism::Tree`]) start no iteration and stop the one running,
    /// inside an expansion or a random playout: a search then takes at
    /// most one evaluation past it, whatever its budget. The evaluated
    /// children of an interrupted expansion are kept; the rest of an
    /// interrupted iteration is dropped. `None` (the default) searches as
    /// before, iterations always complete.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Statistics of the last search.
    pub fn report(&self) -> &SearchReport {
        &self.last
    }

    /// Drops the kept trees.
    pub fn reset(&mut self) {
        self.trees.clear();
    }

    /// Searches from `state` within `budget` and returns the index of the
    /// chosen joint move (mixed radix over the movers' legal moves), or
    /// `None` in a terminal state.
    pub fn search<G>(&mut self, game: &G, state: &G::State, budget: Budget) -> Option<usize>
    where
        G: Game + Sync,
        G::State: Send + Sync,
        E: Evaluator<G>,
    {
        let start = Instant::now();
        let np = game.num_players();
        let mut movers = Vec::new();
        game.movers(state, &mut movers);
        if movers.is_empty() {
            return None;
        }
        let mut moves = Vec::new();
        let total = gen_moves(game, state, &movers, &mut moves);
        if total == 0 {
            return None;
        }
        let dims: Vec<usize> = moves[..movers.len()].iter().map(Vec::len).collect();
        let threads = self.config.threads.max(1);
        let shared = threads > 1 && self.config.parallelism == Parallelism::Tree;
        let trees = if shared { 1 } else { threads };
        self.trees.resize_with(trees, || None);
        if !self.config.reuse_tree {
            self.trees.iter_mut().for_each(|t| *t = None);
        }
        self.searches += 1;
        let seed = self
            .seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(self.searches << 8);
        let max_nodes = (self.config.max_nodes / trees).max(1);
        let mut searches: Vec<Search> = (0..trees)
            .map(|i| Search {
                tree: match self.trees[i].take() {
                    Some(t) if t.root_fits(total) => t,
                    _ => Tree::new(np),
                },
                rng: rng_from_seed(seed.wrapping_add(i as u64)),
                max_nodes,
            })
            .collect();
        let cfg = &self.config;
        let eval = &self.eval;
        let deadline = self.deadline;
        let run = |sr: &mut Search, share: Budget| -> u64 {
            let mut w = Work::<G>::new(np);
            w.deadline = deadline;
            let mut k = 0u64;
            // With a time budget the clock is read every `stride`
            // iterations: every iteration while iterations are slow (a
            // deadline is then missed by at most one), up to every 16th
            // when they take microseconds.
            let mut stride = 1u64;
            let mut next_check = 1u64;
            let mut last = start;
            loop {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                match share {
                    Budget::Iterations(n) if k >= n => break,
                    Budget::Time(d) if k >= next_check => {
                        let now = Instant::now();
                        if now.duration_since(start) >= d {
                            break;
                        }
                        stride = if now.duration_since(last).as_micros() < 200 {
                            (stride * 2).min(16)
                        } else {
                            (stride / 2).max(1)
                        };
                        last = now;
                        next_check = k + stride;
                    }
                    _ => {}
                }
                let ended = sr.iterate(cfg, game, eval, state, &mut w);
                k += 1;
                if ended == Ended::Interrupted {
                    break;
                }
            }
            k
        };
        let share = |i: usize| match budget {
            Budget::Iterations(n) => {
                let t = threads as u64;
                Budget::Iterations(n / t + u64::from((i as u64) < n % t))
            }
            b => b,
        };
        let iterations: u64 = if shared {
            let seed = seed ^ 0x7EE5_5EED_0000_0000;
            searches[0].run_shared(cfg, game, eval, state, budget, start, threads, seed)
        } else if threads == 1 {
            run(&mut searches[0], budget)
        } else {
            std::thread::scope(|sc| {
                let handles: Vec<_> = searches
                    .iter_mut()
                    .enumerate()
                    .map(|(i, sr)| {
                        let b = share(i);
                        sc.spawn(move || run(sr, b))
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
            })
        };
        // Sum the root children over the trees.
        let mut n = vec![0u64; total];
        let mut sums = vec![0.0; total * np];
        for sr in &searches {
            for c in sr.tree.root_children() {
                if c.joint < total {
                    n[c.joint] += c.n;
                    for p in 0..np {
                        sums[c.joint * np + p] += c.mean[p] * c.n as f64;
                    }
                }
            }
        }
        let children: Vec<ChildStats> = (0..total)
            .map(|j| ChildStats {
                joint: j,
                n: n[j],
                mean: (0..np)
                    .map(|p| {
                        if n[j] > 0 {
                            sums[j * np + p] / n[j] as f64
                        } else {
                            0.0
                        }
                    })
                    .collect(),
            })
            .collect();
        let util = |j: usize, k: usize| {
            if n[j] == 0 {
                f64::NEG_INFINITY
            } else {
                children[j].mean[movers[k]]
            }
        };
        let chosen = choose_joint(&mut searches[0].rng, &dims, util);
        self.last = SearchReport {
            iterations,
            nodes: searches.iter().map(|s| s.tree.len()).sum(),
            bytes: searches.iter().map(|s| s.tree.allocated_bytes()).sum(),
            seconds: start.elapsed().as_secs_f64(),
            children,
            chosen,
        };
        for (i, sr) in searches.into_iter().enumerate() {
            self.trees[i] = Some(sr.tree);
        }
        Some(chosen)
    }
}

impl<G, E> Player<G> for Uct<E>
where
    G: Game + Sync,
    G::State: Send + Sync,
    E: Evaluator<G>,
{
    fn name(&self) -> String {
        format!(
            "uct(c={}, E={}, threads={})",
            self.config.c, self.config.evals, self.config.threads
        )
    }

    fn choose(&mut self, game: &G, state: &G::State, budget: Budget) -> Vec<G::Move> {
        let Some(j) = self.search(game, state, budget) else {
            return Vec::new();
        };
        let mut movers = Vec::new();
        game.movers(state, &mut movers);
        let mut moves = Vec::new();
        // A fault found by the search (`Game::fault`) ends the play: no
        // mover, or no such move, and no joint move.
        if movers.is_empty() || gen_moves(game, state, &movers, &mut moves) <= j {
            return Vec::new();
        }
        let mut joint = Vec::new();
        joint_of::<G>(&moves, movers.len(), j, &mut joint);
        joint
    }

    fn forget(&mut self) {
        self.trees.iter_mut().for_each(|t| *t = None);
    }

    fn observe(&mut self, game: &G, state: &G::State, joint: &[G::Move]) {
        if !self.config.reuse_tree {
            return;
        }
        if draws_chance(game, state, joint) {
            self.trees.iter_mut().for_each(|t| *t = None);
            return;
        }
        let mut movers = Vec::new();
        game.movers(state, &mut movers);
        let mut moves = Vec::new();
        let total = gen_moves(game, state, &movers, &mut moves);
        // The index of the joint move.
        let mut j = Some(0usize);
        for (k, mv) in joint.iter().enumerate().take(movers.len()) {
            j = match (j, moves[k].iter().position(|x| x == mv)) {
                (Some(j), Some(i)) => Some(j * moves[k].len() + i),
                _ => None,
            };
        }
        for t in self.trees.iter_mut() {
            let next = match (t.as_ref(), j) {
                (Some(tree), Some(j)) => {
                    let r = tree.nodes[0];
                    if r.first != NONE && r.len as usize == total {
                        Some(tree.subtree(r.first + j as u32))
                    } else {
                        None
                    }
                }
                _ => None,
            };
            *t = next;
        }
    }
}

#[cfg(test)]
mod tests;
