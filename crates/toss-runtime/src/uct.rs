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

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crate::game::{Game, Rng, rng_from_seed};
use crate::player::{Budget, Player};

/// The UCB1-TUNED bound of spec 3.1 for one player in child `w` of `v`:
/// `mu' = mu + C * Delta * sqrt(ln n(v) / n(w)) * s` with
/// `s = min(1/4, sigma' / Delta)` and the upper confidence bound on the
/// variance `sigma' = sigma^2 + Delta * sqrt(2 ln n(v) / n(w))`.
/// `n_parent` below 1 counts as 1; `n_child` must be positive.
pub fn ucb1_tuned(
    mean: f64,
    variance: f64,
    n_parent: f64,
    n_child: f64,
    c: f64,
    delta: f64,
) -> f64 {
    let ln = n_parent.max(1.0).ln();
    let sigma_up = variance + delta * (2.0 * ln / n_child).sqrt();
    let s = (sigma_up / delta).min(0.25);
    mean + c * delta * (ln / n_child).sqrt() * s
}

/// Iterated regret minimisation over pure strategies (spec 3.1) in the
/// normal-form game where mover `k` has `dims[k]` actions and
/// `util(j, k)` is mover `k`'s payoff for the joint action with index `j`
/// (mixed radix, first mover most significant). Repeatedly, for every
/// mover, the actions whose maximal regret (over the remaining actions of
/// the others) is not minimal are removed. Returns the remaining actions of
/// each mover (never empty when `dims` has no zero).
pub fn regret_minimizing(dims: &[usize], util: impl Fn(usize, usize) -> f64) -> Vec<Vec<usize>> {
    let m = dims.len();
    let mut alive: Vec<Vec<usize>> = dims.iter().map(|&d| (0..d).collect()).collect();
    if m == 1 {
        // Turn-based: the best actions.
        let best = alive[0]
            .iter()
            .map(|&a| util(a, 0))
            .fold(f64::NEG_INFINITY, f64::max);
        alive[0].retain(|&a| util(a, 0) >= best);
        return alive;
    }
    let mut strides = vec![1usize; m];
    for k in (0..m.saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1];
    }
    loop {
        let mut changed = false;
        for k in 0..m {
            // Profiles of the others: iterate over the product of their
            // remaining actions.
            let others: Vec<usize> = (0..m).filter(|&o| o != k).collect();
            let mut idx = vec![0usize; others.len()];
            let mut max_regret = vec![0.0f64; alive[k].len()];
            'profiles: loop {
                let base: usize = others
                    .iter()
                    .zip(&idx)
                    .map(|(&o, &i)| alive[o][i] * strides[o])
                    .sum();
                let best = alive[k]
                    .iter()
                    .map(|&a| util(base + a * strides[k], k))
                    .fold(f64::NEG_INFINITY, f64::max);
                for (r, &a) in max_regret.iter_mut().zip(&alive[k]) {
                    *r = r.max(best - util(base + a * strides[k], k));
                }
                let mut p = idx.len();
                loop {
                    if p == 0 {
                        break 'profiles;
                    }
                    p -= 1;
                    idx[p] += 1;
                    if idx[p] < alive[others[p]].len() {
                        break;
                    }
                    idx[p] = 0;
                }
            }
            let min = max_regret.iter().copied().fold(f64::INFINITY, f64::min);
            let before = alive[k].len();
            let mut i = 0;
            alive[k].retain(|_| {
                let keep = max_regret[i] <= min;
                i += 1;
                keep
            });
            changed |= alive[k].len() != before;
        }
        if !changed {
            return alive;
        }
    }
}

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
) -> Option<crate::game::Payoffs> {
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

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    /// First child, `NONE` while not expanded.
    first: u32,
    /// Number of children.
    len: u32,
    /// Visits.
    n: u32,
}

/// Bytes a tree node takes for `players` players.
pub fn node_bytes(players: usize) -> usize {
    std::mem::size_of::<Node>() + 16 * players
}

/// A UCT tree in an arena: nodes and, per node, `(sum, sum of squares)`
/// for each player.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    stats: Vec<f64>,
    np: usize,
}

/// The statistics of a child of the root.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStats {
    /// Index of the joint move (mixed radix over the movers' legal moves).
    pub joint: usize,
    pub n: u64,
    pub mean: Vec<f64>,
}

impl Tree {
    fn new(np: usize) -> Tree {
        let mut t = Tree {
            nodes: Vec::new(),
            stats: Vec::new(),
            np,
        };
        t.push_leaf();
        t
    }

    fn push_leaf(&mut self) -> u32 {
        self.nodes.push(Node {
            first: NONE,
            len: 0,
            n: 0,
        });
        self.stats.extend(std::iter::repeat_n(0.0, 2 * self.np));
        self.nodes.len() as u32 - 1
    }

    /// Reserves room for `k` more nodes, growing by half at most up to `cap`.
    fn reserve(&mut self, k: usize, cap: usize) {
        let need = self.nodes.len() + k;
        if need > self.nodes.capacity() {
            let target = (self.nodes.capacity() * 3 / 2).max(need).min(cap.max(need));
            self.nodes.reserve_exact(target - self.nodes.len());
            self.stats
                .reserve_exact(target * 2 * self.np - self.stats.len());
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Bytes allocated by the arena.
    pub fn allocated_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>() + self.stats.capacity() * 8
    }

    fn mean(&self, v: u32, p: usize) -> f64 {
        let n = self.nodes[v as usize].n;
        if n == 0 {
            return 0.0;
        }
        self.stats[v as usize * 2 * self.np + 2 * p] / n as f64
    }

    fn variance(&self, v: u32, p: usize) -> f64 {
        let n = self.nodes[v as usize].n;
        if n == 0 {
            return 0.0;
        }
        let base = v as usize * 2 * self.np + 2 * p;
        moments(self.stats[base], self.stats[base + 1], f64::from(n)).1
    }

    fn record(&mut self, v: u32, pay: &[f64], weight: u32) {
        self.nodes[v as usize].n += weight;
        let base = v as usize * 2 * self.np;
        for (p, &x) in pay.iter().enumerate() {
            self.stats[base + 2 * p] += x * weight as f64;
            self.stats[base + 2 * p + 1] += x * x * weight as f64;
        }
    }

    /// Makes `stats.len() / (2 * np)` new nodes, with visit count `n` and
    /// the statistics `stats` (`(sum, sum of squares)` per player), the
    /// children of the leaf `v`; returns the first.
    fn add_children(&mut self, v: u32, n: u32, stats: &[f64]) -> u32 {
        let total = stats.len() / (2 * self.np);
        let first = self.nodes.len() as u32;
        self.nodes.extend(std::iter::repeat_n(
            Node {
                first: NONE,
                len: 0,
                n,
            },
            total,
        ));
        self.stats.extend_from_slice(stats);
        let node = &mut self.nodes[v as usize];
        node.first = first;
        node.len = total as u32;
        first
    }

    /// The subtree of `v` as a new tree (breadth-first, children contiguous).
    fn subtree(&self, v: u32) -> Tree {
        let np = self.np;
        let mut t = Tree {
            nodes: Vec::new(),
            stats: Vec::new(),
            np,
        };
        let copy = |t: &mut Tree, o: u32| {
            let mut n = self.nodes[o as usize];
            n.first = NONE;
            t.nodes.push(n);
            let b = o as usize * 2 * np;
            t.stats.extend_from_slice(&self.stats[b..b + 2 * np]);
        };
        copy(&mut t, v);
        let mut q = VecDeque::from([(v, 0u32)]);
        while let Some((o, nw)) = q.pop_front() {
            let on = self.nodes[o as usize];
            if on.first == NONE {
                continue;
            }
            let nf = t.nodes.len() as u32;
            t.nodes[nw as usize].first = nf;
            t.nodes[nw as usize].len = on.len;
            for c in 0..on.len {
                copy(&mut t, on.first + c);
                q.push_back((on.first + c, nf + c));
            }
        }
        t
    }

    /// Whether the root is a leaf or has one child per joint move of a
    /// state with `total` joint moves.
    fn root_fits(&self, total: usize) -> bool {
        let r = self.nodes[0];
        r.first == NONE || r.len as usize == total
    }

    fn root_children(&self) -> Vec<ChildStats> {
        let r = self.nodes[0];
        if r.first == NONE {
            return Vec::new();
        }
        (0..r.len)
            .map(|c| {
                let w = r.first + c;
                ChildStats {
                    joint: c as usize,
                    n: self.nodes[w as usize].n as u64,
                    mean: (0..self.np).map(|p| self.mean(w, p)).collect(),
                }
            })
            .collect()
    }
}

/// Scratch space of one search thread.
struct Work<G: Game> {
    movers: Vec<usize>,
    moves: Vec<Vec<G::Move>>,
    joint: Vec<G::Move>,
    path: Vec<u32>,
    pay: Vec<f64>,
    tmp: Vec<f64>,
    stats: Vec<f64>,
    /// Set by [`Uct::set_deadline`]: expansions and random playouts stop
    /// when it passes.
    deadline: Option<Instant>,
}

impl<G: Game> Work<G> {
    fn new(np: usize) -> Self {
        Work {
            movers: Vec::new(),
            moves: Vec::new(),
            joint: Vec::new(),
            path: Vec::new(),
            pay: vec![0.0; np],
            tmp: vec![0.0; np],
            stats: Vec::new(),
            deadline: None,
        }
    }
}

/// Fills `w.moves` with the legal moves of the movers in `w.movers`;
/// returns the number of joint moves.
fn gen_moves<G: Game>(
    game: &G,
    s: &G::State,
    movers: &[usize],
    moves: &mut Vec<Vec<G::Move>>,
) -> usize {
    moves.resize_with(movers.len().max(moves.len()), Vec::new);
    let mut total = 1usize;
    for (k, &p) in movers.iter().enumerate() {
        game.legal_moves(s, p, &mut moves[k]);
        total = total.saturating_mul(moves[k].len());
    }
    total
}

/// The joint move with index `j` (first mover most significant).
fn joint_of<G: Game>(moves: &[Vec<G::Move>], m: usize, mut j: usize, out: &mut Vec<G::Move>) {
    out.clear();
    out.resize(m, moves[0][0].clone());
    for k in (0..m).rev() {
        let d = moves[k].len();
        out[k] = moves[k][j % d].clone();
        j /= d;
    }
}

fn pick(rng: &mut Rng, xs: &[usize]) -> usize {
    xs[crate::game::index_below(rng, xs.len())]
}

/// Chooses a joint index from the remaining actions of each mover.
fn pick_joint(rng: &mut Rng, dims: &[usize], alive: &[Vec<usize>]) -> usize {
    let mut j = 0;
    for (k, a) in alive.iter().enumerate() {
        j = j * dims[k] + pick(rng, a);
    }
    j
}

/// A joint index drawn from the regret-minimising actions
/// ([`regret_minimizing`], then [`pick_joint`]). With one mover these are
/// the actions of the best utility, found here with each utility computed
/// once and nothing allocated for up to 64 actions: selection does this
/// in every node of every iteration.
fn choose_joint(rng: &mut Rng, dims: &[usize], util: impl Fn(usize, usize) -> f64) -> usize {
    let [d] = *dims else {
        let alive = regret_minimizing(dims, util);
        return pick_joint(rng, dims, &alive);
    };
    let mut small = [0.0; 64];
    let mut large = Vec::new();
    let values: &mut [f64] = if d <= small.len() {
        &mut small[..d]
    } else {
        large.resize(d, 0.0);
        &mut large
    };
    let mut best = f64::NEG_INFINITY;
    for (j, x) in values.iter_mut().enumerate() {
        *x = util(j, 0);
        best = best.max(*x);
    }
    let ties = values.iter().filter(|&&x| x >= best).count();
    let k = crate::game::index_below(rng, ties);
    values
        .iter()
        .enumerate()
        .filter(|&(_, &x)| x >= best)
        .nth(k)
        .map_or(0, |(j, _)| j)
}

/// One search: a tree, its generator and its share of the node cap.
struct Search {
    tree: Tree,
    rng: Rng,
    max_nodes: usize,
}

/// How an iteration of a search with a deadline ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    Complete,
    /// The deadline passed inside it: what was evaluated of an expansion
    /// is kept, nothing is recorded along the path.
    Interrupted,
}

impl Search {
    /// The payoff of the state `s` after the basic strategy from it.
    fn playout<G: Game, E: Evaluator<G>>(
        cfg: &UctConfig,
        game: &G,
        eval: &E,
        s: &mut G::State,
        rng: &mut Rng,
        w: &mut Work<G>,
    ) {
        match cfg.playout {
            PlayoutPolicy::Evaluate => {
                game.movers(s, &mut w.movers);
                if w.movers.is_empty() {
                    game.payoffs(s, &mut w.pay);
                } else {
                    eval.evaluate(game, s, rng, &mut w.pay);
                }
            }
            PlayoutPolicy::Random => {
                let (_, p) = game.random_playout_from(s, rng, cfg.max_playout_plies);
                w.pay.copy_from_slice(&p);
            }
            PlayoutPolicy::Cutoff(turns) => {
                let (_, p) = game.random_playout_from(s, rng, turns as usize);
                game.movers(s, &mut w.movers);
                if w.movers.is_empty() {
                    w.pay.copy_from_slice(&p);
                } else {
                    eval.evaluate(game, s, rng, &mut w.pay);
                }
            }
            PlayoutPolicy::Mix(lambda) => {
                game.movers(s, &mut w.movers);
                if w.movers.is_empty() {
                    game.payoffs(s, &mut w.pay);
                } else {
                    eval.evaluate(game, s, rng, &mut w.tmp);
                    let (_, p) = game.random_playout_from(s, rng, cfg.max_playout_plies);
                    for ((x, &e), &r) in w.pay.iter_mut().zip(&w.tmp).zip(&p) {
                        *x = lambda * e + (1.0 - lambda) * r;
                    }
                }
            }
            PlayoutPolicy::Basic => {
                let np = game.num_players();
                let mut vals: Vec<f64> = Vec::new();
                for _ in 0..cfg.max_playout_plies {
                    game.movers(s, &mut w.movers);
                    if w.movers.is_empty() {
                        break;
                    }
                    let total = gen_moves(game, s, &w.movers, &mut w.moves);
                    if total == 0 {
                        break;
                    }
                    let m = w.movers.len();
                    vals.clear();
                    for j in 0..total {
                        joint_of::<G>(&w.moves, m, j, &mut w.joint);
                        let mut t = s.clone();
                        game.apply(&mut t, &w.joint, rng);
                        if game.is_terminal(&t) {
                            game.payoffs(&t, &mut w.tmp);
                        } else {
                            eval.evaluate(game, &t, rng, &mut w.tmp);
                        }
                        vals.extend_from_slice(&w.tmp);
                    }
                    let dims: Vec<usize> = w.moves[..m].iter().map(Vec::len).collect();
                    let movers = &w.movers;
                    let j = choose_joint(rng, &dims, |j, k| vals[j * np + movers[k]]);
                    joint_of::<G>(&w.moves, m, j, &mut w.joint);
                    game.apply(s, &w.joint, rng);
                }
                game.payoffs(s, &mut w.pay);
            }
        }
    }

    /// The child of `v` to descend to (UCB1-TUNED and regret minimisation).
    fn select(&mut self, cfg: &UctConfig, v: u32, movers: &[usize], dims: &[usize]) -> usize {
        let t = &self.tree;
        let node = t.nodes[v as usize];
        select_by(cfg, &mut self.rng, node.n as f64, movers, dims, |j, p| {
            let w = node.first + j as u32;
            (t.nodes[w as usize].n, t.mean(w, p), t.variance(w, p))
        })
    }

    /// [`Search::select`] with the virtual losses of the iterations in
    /// flight counted as visits that paid the lowest payoff.
    fn select_virtual(
        &mut self,
        cfg: &UctConfig,
        v: u32,
        movers: &[usize],
        dims: &[usize],
        sh: &Shared,
    ) -> usize {
        let t = &self.tree;
        let node = t.nodes[v as usize];
        let vl = &sh.virtual_loss;
        let nv = (node.n + vl[v as usize]) as f64;
        select_by(cfg, &mut self.rng, nv, movers, dims, |j, p| {
            let w = (node.first + j as u32) as usize;
            let (k, n) = (vl[w], t.nodes[w].n + vl[w]);
            if n == 0 {
                return (0, 0.0, 0.0);
            }
            let b = w * 2 * t.np + 2 * p;
            let sum = t.stats[b] + f64::from(k) * sh.lo;
            let sq = t.stats[b + 1] + f64::from(k) * sh.lo * sh.lo;
            let (mean, variance) = moments(sum, sq, f64::from(n));
            (n, mean, variance)
        })
    }

    fn iterate<G: Game, E: Evaluator<G>>(
        &mut self,
        cfg: &UctConfig,
        game: &G,
        eval: &E,
        root: &G::State,
        w: &mut Work<G>,
    ) -> Ended {
        let mut s = root.clone();
        w.path.clear();
        w.path.push(0);
        let mut v = 0u32;
        loop {
            game.movers(&s, &mut w.movers);
            if w.movers.is_empty() {
                game.payoffs(&s, &mut w.pay);
                break;
            }
            let total = gen_moves(game, &s, &w.movers, &mut w.moves);
            let m = w.movers.len();
            let dims: Vec<usize> = w.moves[..m].iter().map(Vec::len).collect();
            let node = self.tree.nodes[v as usize];
            if node.first == NONE {
                if total == 0 || self.tree.len() + total > self.max_nodes {
                    if !self.playout_in_time(cfg, game, eval, &mut s, w) {
                        return Ended::Interrupted;
                    }
                    break;
                }
                if self.expand(cfg, game, eval, &s, v, total, w) < total {
                    return Ended::Interrupted;
                }
                let j = self.select(cfg, v, &w.movers, &dims);
                joint_of::<G>(&w.moves, m, j, &mut w.joint);
                game.apply(&mut s, &w.joint, &mut self.rng);
                v = self.tree.nodes[v as usize].first + j as u32;
                w.path.push(v);
                if !self.playout_in_time(cfg, game, eval, &mut s, w) {
                    return Ended::Interrupted;
                }
                break;
            }
            if node.len as usize != total {
                // Chance changed the moves under this node: no tree here.
                if !self.playout_in_time(cfg, game, eval, &mut s, w) {
                    return Ended::Interrupted;
                }
                break;
            }
            let j = self.select(cfg, v, &w.movers, &dims);
            joint_of::<G>(&w.moves, m, j, &mut w.joint);
            game.apply(&mut s, &w.joint, &mut self.rng);
            v = node.first + j as u32;
            w.path.push(v);
        }
        for &u in &w.path {
            self.tree.record(u, &w.pay, 1);
        }
        Ended::Complete
    }

    /// [`Search::playout`], or without a deadline a random playout that
    /// gives up when it passes; false if the deadline interrupted it (the
    /// payoffs are then not to be recorded).
    fn playout_in_time<G: Game, E: Evaluator<G>>(
        &mut self,
        cfg: &UctConfig,
        game: &G,
        eval: &E,
        s: &mut G::State,
        w: &mut Work<G>,
    ) -> bool {
        match w.deadline {
            None => {
                Self::playout(cfg, game, eval, s, &mut self.rng, w);
                true
            }
            Some(d) if cfg.playout == PlayoutPolicy::Random => {
                match random_playout_until(game, s, &mut self.rng, cfg.max_playout_plies, d) {
                    Some(p) => {
                        w.pay.copy_from_slice(&p);
                        true
                    }
                    None => false,
                }
            }
            Some(_) => {
                Self::playout(cfg, game, eval, s, &mut self.rng, w);
                !w.pay.iter().any(|x| x.is_nan())
            }
        }
    }

    /// Adds all joint moves of `v` (state `s`) as children and evaluates
    /// each `E` times; returns how many were evaluated (all of them unless
    /// the deadline passed: the children not evaluated then are added
    /// unvisited, and none at all if the first was not evaluated).
    #[allow(clippy::too_many_arguments)]
    fn expand<G: Game, E: Evaluator<G>>(
        &mut self,
        cfg: &UctConfig,
        game: &G,
        eval: &E,
        s: &G::State,
        v: u32,
        total: usize,
        w: &mut Work<G>,
    ) -> usize {
        let mut stats = std::mem::take(&mut w.stats);
        stats.clear();
        let (weight, done) = evaluate_children(
            cfg,
            game,
            eval,
            s,
            total,
            &mut self.rng,
            w,
            &mut stats,
            w.deadline,
        );
        if done > 0 {
            self.tree.reserve(total, self.max_nodes);
            stats.resize(total * 2 * game.num_players(), 0.0);
            let first = self.tree.add_children(v, weight, &stats) as usize;
            for node in &mut self.tree.nodes[first + done..first + total] {
                node.n = 0;
            }
        }
        w.stats = stats;
        done
    }

    /// Descends from the root as [`Search::iterate`] does, the virtual
    /// losses of the iterations in flight steering the selection, to where
    /// the iteration's work begins; the nodes on the way get a virtual
    /// loss. Returns the path and that work.
    fn descend<G: Game>(
        &mut self,
        cfg: &UctConfig,
        game: &G,
        root: &G::State,
        w: &mut Work<G>,
        sh: &mut Shared,
    ) -> (Vec<u32>, Step<G::State>) {
        let mut s = root.clone();
        let mut path = vec![0u32];
        let mut v = 0u32;
        let step = loop {
            game.movers(&s, &mut w.movers);
            if w.movers.is_empty() {
                game.payoffs(&s, &mut w.pay);
                break Step::Done(w.pay.clone());
            }
            let total = gen_moves(game, &s, &w.movers, &mut w.moves);
            let m = w.movers.len();
            let dims: Vec<usize> = w.moves[..m].iter().map(Vec::len).collect();
            let node = self.tree.nodes[v as usize];
            if node.first == NONE {
                // A leaf whose expansion is in flight is played out from.
                if total == 0
                    || sh.pending[v as usize]
                    || self.tree.len() + sh.reserved + total > self.max_nodes
                {
                    break Step::Task(Task::Playout(s), None);
                }
                sh.pending[v as usize] = true;
                sh.reserved += total;
                break Step::Task(
                    Task::Expand {
                        state: s,
                        parent_n: node.n,
                    },
                    Some(v),
                );
            }
            if node.len as usize != total {
                break Step::Task(Task::Playout(s), None);
            }
            let j = self.select_virtual(cfg, v, &w.movers, &dims, sh);
            joint_of::<G>(&w.moves, m, j, &mut w.joint);
            game.apply(&mut s, &w.joint, &mut self.rng);
            v = node.first + j as u32;
            path.push(v);
        };
        for &u in &path {
            sh.virtual_loss[u as usize] += 1;
        }
        (path, step)
    }

    /// Records an iteration begun by [`Search::descend`] along `path`,
    /// expanding `leaf` if it did, with the outcome of its work.
    fn finish(&mut self, mut path: Vec<u32>, leaf: Option<u32>, out: &Outcome, sh: &mut Shared) {
        for &u in &path {
            sh.virtual_loss[u as usize] -= 1;
        }
        if let (Some(v), Some(j)) = (leaf, out.chosen) {
            let total = out.stats.len() / (2 * self.tree.np);
            sh.reserved -= total;
            sh.pending[v as usize] = false;
            self.tree.reserve(total, self.max_nodes);
            let first = self.tree.add_children(v, out.weight, &out.stats);
            sh.virtual_loss.resize(self.tree.len(), 0);
            sh.pending.resize(self.tree.len(), false);
            path.push(first + j as u32);
        }
        for &u in &path {
            self.tree.record(u, &out.pay, 1);
        }
    }

    /// Tree parallelism ([`Parallelism::Tree`]) on `threads` threads within
    /// `budget` (counted from `start`); the iterations' random numbers
    /// derive from `seed`. Returns the number of iterations.
    ///
    /// This thread descends and records; the task of iteration `i` waits in
    /// slot `i % window` of a ring for the first thread free to claim it,
    /// this one included while it waits for the oldest iteration. A task
    /// takes microseconds, so threads hand them over through atomics and
    /// poll rather than sleep; the helpers are scoped threads of the
    /// standard library rather than a rayon pool, as there is nothing to
    /// balance beyond this ring.
    #[allow(clippy::too_many_arguments)]
    fn run_shared<G, E>(
        &mut self,
        cfg: &UctConfig,
        game: &G,
        eval: &E,
        root: &G::State,
        budget: Budget,
        start: Instant,
        threads: usize,
        seed: u64,
    ) -> u64
    where
        G: Game + Sync,
        G::State: Send + Sync,
        E: Evaluator<G>,
    {
        let np = game.num_players();
        let window = 2 * threads;
        let ring = Ring::<G::State>::new(window, seed);
        let mut sh = Shared {
            virtual_loss: vec![0; self.tree.len()],
            pending: vec![false; self.tree.len()],
            reserved: 0,
            lo: game.payoff_range().0,
        };
        let (done, failure) = std::thread::scope(|sc| {
            for _ in 1..threads {
                let ring = &ring;
                sc.spawn(move || {
                    let mut w = Work::<G>::new(np);
                    while !ring.closed.load(Ordering::Acquire) {
                        if !ring.work(cfg, game, eval, &mut w) {
                            ring.idle();
                        }
                    }
                });
            }
            let mut w = Work::<G>::new(np);
            let mut flight: VecDeque<Flight> = VecDeque::new();
            let (mut begun, mut done) = (0u64, 0u64);
            let mut failure = None;
            'search: loop {
                while flight.len() < window
                    && match budget {
                        Budget::Iterations(n) => begun < n,
                        Budget::Time(d) => start.elapsed() < d,
                    }
                {
                    let (path, step) = self.descend(cfg, game, root, &mut w, &mut sh);
                    let (leaf, pay) = match step {
                        Step::Done(pay) => (None, Some(pay)),
                        Step::Task(task, leaf) => {
                            ring.publish(begun, task);
                            (leaf, None)
                        }
                    };
                    flight.push_back(Flight { path, leaf, pay });
                    begun += 1;
                }
                let Some(f) = flight.pop_front() else {
                    break;
                };
                if let Some(pay) = f.pay {
                    let out = Outcome {
                        pay,
                        ..Outcome::default()
                    };
                    self.finish(f.path, f.leaf, &out, &mut sh);
                } else {
                    match ring.wait(done, cfg, game, eval, &mut w) {
                        Ok(out) => self.finish(f.path, f.leaf, &out, &mut sh),
                        Err(panic) => {
                            failure = Some(panic);
                            break 'search;
                        }
                    }
                    ring.release(done);
                }
                done += 1;
            }
            ring.closed.store(true, Ordering::Release);
            (done, failure)
        });
        if let Some(panic) = failure {
            std::panic::resume_unwind(panic);
        }
        done
    }
}

/// The tasks of [`Parallelism::Tree`] between the threads: slot `i %
/// len` holds the task of iteration `i` until a thread claims it, then its
/// outcome.
struct Ring<S> {
    slots: Vec<Slot<S>>,
    /// The random numbers of iteration `i` derive from `seed` and `i`.
    seed: u64,
    closed: AtomicBool,
}

struct Slot<S> {
    /// `EMPTY`, `READY`, `TAKEN` or `DONE`.
    state: AtomicU8,
    index: AtomicU64,
    task: Mutex<Option<Task<S>>>,
    /// The outcome (its buffers reused from task to task).
    out: Mutex<Outcome>,
    /// The panic of the task.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

const EMPTY: u8 = 0;
const READY: u8 = 1;
const TAKEN: u8 = 2;
const DONE: u8 = 3;

impl<S> Ring<S> {
    fn new(len: usize, seed: u64) -> Self {
        Ring {
            slots: (0..len)
                .map(|_| Slot {
                    state: AtomicU8::new(EMPTY),
                    index: AtomicU64::new(0),
                    task: Mutex::new(None),
                    out: Mutex::new(Outcome::default()),
                    panic: Mutex::new(None),
                })
                .collect(),
            seed,
            closed: AtomicBool::new(false),
        }
    }

    /// Offers the task of iteration `i`.
    fn publish(&self, i: u64, task: Task<S>) {
        let slot = &self.slots[(i % self.slots.len() as u64) as usize];
        *lock(&slot.task) = Some(task);
        slot.index.store(i, Ordering::Relaxed);
        slot.state.store(READY, Ordering::Release);
    }

    /// Claims the oldest waiting task and does it; false when none waits.
    fn work<G, E>(&self, cfg: &UctConfig, game: &G, eval: &E, w: &mut Work<G>) -> bool
    where
        G: Game<State = S>,
        E: Evaluator<G>,
    {
        let oldest = self
            .slots
            .iter()
            .filter(|s| s.state.load(Ordering::Acquire) == READY)
            .min_by_key(|s| s.index.load(Ordering::Relaxed));
        let Some(slot) = oldest else {
            return false;
        };
        if slot
            .state
            .compare_exchange(READY, TAKEN, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return true;
        }
        let i = slot.index.load(Ordering::Relaxed);
        if let Some(task) = lock(&slot.task).take() {
            let mut rng = rng_from_seed(self.seed ^ (i + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
            let mut out = lock(&slot.out);
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_task(cfg, game, eval, task, &mut rng, w, &mut out)
            }));
            if let Err(panic) = run {
                *lock(&slot.panic) = Some(panic);
            }
        }
        slot.state.store(DONE, Ordering::Release);
        true
    }

    /// The outcome of iteration `i`, working on waiting tasks meanwhile;
    /// its slot is taken until [`Ring::release`].
    fn wait<G, E>(
        &self,
        i: u64,
        cfg: &UctConfig,
        game: &G,
        eval: &E,
        w: &mut Work<G>,
    ) -> std::thread::Result<MutexGuard<'_, Outcome>>
    where
        G: Game<State = S>,
        E: Evaluator<G>,
    {
        let slot = &self.slots[(i % self.slots.len() as u64) as usize];
        let mut spins = 0u32;
        while slot.state.load(Ordering::Acquire) != DONE {
            if !self.work(cfg, game, eval, w) {
                spins += 1;
                if spins.is_multiple_of(1024) {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
        }
        match lock(&slot.panic).take() {
            Some(panic) => Err(panic),
            None => Ok(lock(&slot.out)),
        }
    }

    /// Frees the slot of iteration `i`.
    fn release(&self, i: u64) {
        let slot = &self.slots[(i % self.slots.len() as u64) as usize];
        slot.state.store(EMPTY, Ordering::Release);
    }

    /// A helper without work polls for 50 microseconds, then yields its
    /// core. It does not park: parking and waking take microseconds of the
    /// descending thread's time, as much as a task of a short game, and a
    /// search lasts only as long as its budget.
    fn idle(&self) {
        let start = Instant::now();
        while start.elapsed().as_micros() < 50 {
            for _ in 0..64 {
                if self.closed.load(Ordering::Relaxed)
                    || self
                        .slots
                        .iter()
                        .any(|s| s.state.load(Ordering::Relaxed) == READY)
                {
                    return;
                }
                std::hint::spin_loop();
            }
        }
        std::thread::yield_now();
    }
}

/// The mean and variance of `n > 0` samples with sum `sum` and sum of
/// squares `sq`.
fn moments(sum: f64, sq: f64, n: f64) -> (f64, f64) {
    let mean = sum / n;
    (mean, (sq / n - mean * mean).max(0.0))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The bookkeeping of [`Parallelism::Tree`].
struct Shared {
    /// Per node, the iterations in flight through it.
    virtual_loss: Vec<u32>,
    /// Per node, whether its expansion is in flight.
    pending: Vec<bool>,
    /// Nodes the expansions in flight will add.
    reserved: usize,
    /// The lowest payoff, the value of a virtual loss.
    lo: f64,
}

/// Where an iteration's work begins after its descent.
enum Step<S> {
    /// The descent ended in a terminal state with these payoffs.
    Done(Vec<f64>),
    /// This task, and the leaf it expands.
    Task(Task<S>, Option<u32>),
}

/// The work of an iteration below its descent, for any thread.
enum Task<S> {
    /// A playout from this state.
    Playout(S),
    /// The expansion of a leaf in this state with `parent_n` visits: its
    /// children evaluated, one selected, and a playout below it.
    Expand { state: S, parent_n: u32 },
}

/// What a [`Task`] found.
#[derive(Default)]
struct Outcome {
    pay: Vec<f64>,
    /// For an expansion: the children's statistics, their visit count E'
    /// and the child selected.
    stats: Vec<f64>,
    weight: u32,
    chosen: Option<usize>,
}

/// An iteration in flight: its path, the leaf it expands, and its payoffs
/// if its descent ended the play.
struct Flight {
    path: Vec<u32>,
    leaf: Option<u32>,
    pay: Option<Vec<f64>>,
}

fn run_task<G: Game, E: Evaluator<G>>(
    cfg: &UctConfig,
    game: &G,
    eval: &E,
    task: Task<G::State>,
    rng: &mut Rng,
    w: &mut Work<G>,
    out: &mut Outcome,
) {
    out.stats.clear();
    out.chosen = None;
    match task {
        Task::Playout(mut s) => {
            Search::playout(cfg, game, eval, &mut s, rng, w);
        }
        Task::Expand {
            mut state,
            parent_n,
        } => {
            let np2 = 2 * game.num_players();
            game.movers(&state, &mut w.movers);
            let total = gen_moves(game, &state, &w.movers, &mut w.moves);
            let m = w.movers.len();
            let dims: Vec<usize> = w.moves[..m].iter().map(Vec::len).collect();
            let stats = &mut out.stats;
            let (weight, _) =
                evaluate_children(cfg, game, eval, &state, total, rng, w, stats, None);
            let j = select_by(cfg, rng, f64::from(parent_n), &w.movers, &dims, |j, p| {
                let b = j * np2 + 2 * p;
                let (mean, variance) = moments(stats[b], stats[b + 1], f64::from(weight));
                (weight, mean, variance)
            });
            joint_of::<G>(&w.moves, m, j, &mut w.joint);
            game.apply(&mut state, &w.joint, rng);
            Search::playout(cfg, game, eval, &mut state, rng, w);
            out.weight = weight;
            out.chosen = Some(j);
        }
    }
    out.pay.clear();
    out.pay.extend_from_slice(&w.pay);
}

/// The joint move to descend to from a node with `nv` visits whose child
/// `j` has for player `p` the visits, mean and variance `stat(j, p)`
/// (UCB1-TUNED bounds, regret minimisation, ties broken at random).
fn select_by(
    cfg: &UctConfig,
    rng: &mut Rng,
    nv: f64,
    movers: &[usize],
    dims: &[usize],
    stat: impl Fn(usize, usize) -> (u32, f64, f64),
) -> usize {
    let bound = |j: usize, k: usize| {
        let (n, mean, variance) = stat(j, movers[k]);
        if n == 0 {
            return f64::INFINITY;
        }
        ucb1_tuned(mean, variance, nv, f64::from(n), cfg.c, cfg.delta)
    };
    choose_joint(rng, dims, bound)
}

/// The initial statistics of the `total` children of a leaf in state `s`
/// whose movers and legal moves are in `w`: each child's evaluation game is
/// played E times and recorded with the weight E'. Appends
/// `(sum, sum of squares)` per player for each child to `out`; returns E'
/// and the number of children evaluated: all of them, unless `deadline`
/// passed first (read before each child) or an evaluation reported NaN
/// (interrupted by it).
#[allow(clippy::too_many_arguments)]
fn evaluate_children<G: Game, E: Evaluator<G>>(
    cfg: &UctConfig,
    game: &G,
    eval: &E,
    s: &G::State,
    total: usize,
    rng: &mut Rng,
    w: &mut Work<G>,
    out: &mut Vec<f64>,
    deadline: Option<Instant>,
) -> (u32, usize) {
    let np = game.num_players();
    let m = w.movers.len();
    let e = cfg.evals.max(1);
    let weight = cfg.evals_weight.clamp(1, e);
    let mut sum = vec![0.0; np];
    let mut sq = vec![0.0; np];
    for j in 0..total {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return (weight, j);
        }
        joint_of::<G>(&w.moves, m, j, &mut w.joint);
        sum.iter_mut().for_each(|x| *x = 0.0);
        sq.iter_mut().for_each(|x| *x = 0.0);
        let mut t = s.clone();
        game.apply(&mut t, &w.joint, rng);
        let terminal = game.is_terminal(&t);
        for k in 0..e {
            if terminal {
                if k == 0 {
                    game.payoffs(&t, &mut w.tmp);
                }
            } else if k == 0 || !eval.is_deterministic() {
                eval.evaluate(game, &t, rng, &mut w.tmp);
            }
            if deadline.is_some() && w.tmp.iter().any(|x| x.is_nan()) {
                return (weight, j);
            }
            for p in 0..np {
                sum[p] += w.tmp[p];
                sq[p] += w.tmp[p] * w.tmp[p];
            }
        }
        for p in 0..np {
            out.push(sum[p] / e as f64 * weight as f64);
            out.push(sq[p] / e as f64 * weight as f64);
        }
    }
    (weight, total)
}

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
        gen_moves(game, state, &movers, &mut moves);
        let mut joint = Vec::new();
        joint_of::<G>(&moves, movers.len(), j, &mut joint);
        joint
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
