//! One UCT search (spec 3.1) on one thread: the descent from the root, the
//! expansion of a leaf with its children's evaluation games, and the
//! playout below it with the basic strategy; with the scratch space of a
//! thread and the legal joint moves of a state.

use std::time::Instant;

use toss_core::game::{Game, Rng};

use super::bandit::{choose_joint, select_by};
use super::config::{Evaluator, PlayoutPolicy, UctConfig, random_playout_until};
use super::tree::{NONE, Tree};

/// Scratch space of one search thread.
pub(super) struct Work<G: Game> {
    pub(super) movers: Vec<usize>,
    pub(super) moves: Vec<Vec<G::Move>>,
    pub(super) joint: Vec<G::Move>,
    pub(super) path: Vec<u32>,
    pub(super) pay: Vec<f64>,
    pub(super) tmp: Vec<f64>,
    pub(super) stats: Vec<f64>,
    /// Set by [`Uct::set_deadline`]: expansions and random playouts stop
    /// when it passes.
    pub(super) deadline: Option<Instant>,
}

impl<G: Game> Work<G> {
    pub(super) fn new(np: usize) -> Self {
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
pub(super) fn gen_moves<G: Game>(
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
pub(super) fn joint_of<G: Game>(
    moves: &[Vec<G::Move>],
    m: usize,
    mut j: usize,
    out: &mut Vec<G::Move>,
) {
    out.clear();
    out.resize(m, moves[0][0].clone());
    for k in (0..m).rev() {
        let d = moves[k].len();
        out[k] = moves[k][j % d].clone();
        j /= d;
    }
}

/// One search: a tree, its generator and its share of the node cap.
pub(super) struct Search {
    pub(super) tree: Tree,
    pub(super) rng: Rng,
    pub(super) max_nodes: usize,
}

/// How an iteration of a search with a deadline ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ended {
    Complete,
    /// The deadline passed inside it: what was evaluated of an expansion
    /// is kept, nothing is recorded along the path.
    Interrupted,
}

impl Search {
    /// The payoff of the state `s` after the basic strategy from it.
    pub(super) fn playout<G: Game, E: Evaluator<G>>(
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

    pub(super) fn iterate<G: Game, E: Evaluator<G>>(
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

    /// [`Search::playout`], or with a deadline a random playout (alone,
    /// or mixed with the evaluation) that gives up when it passes; false
    /// if the deadline interrupted it (the payoffs are then not to be
    /// recorded).
    pub(super) fn playout_in_time<G: Game, E: Evaluator<G>>(
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
            // The random part of a mix can be long where playouts are slow
            // (an interpreted translation of a GDL game).
            Some(d) if let PlayoutPolicy::Mix(lambda) = cfg.playout => {
                game.movers(s, &mut w.movers);
                if w.movers.is_empty() {
                    game.payoffs(s, &mut w.pay);
                    return true;
                }
                eval.evaluate(game, s, &mut self.rng, &mut w.tmp);
                match random_playout_until(game, s, &mut self.rng, cfg.max_playout_plies, d) {
                    Some(p) => {
                        for ((x, &e), &r) in w.pay.iter_mut().zip(&w.tmp).zip(&p) {
                            *x = lambda * e + (1.0 - lambda) * r;
                        }
                        !w.pay.iter().any(|x| x.is_nan())
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
    pub(super) fn expand<G: Game, E: Evaluator<G>>(
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
}

/// The initial statistics of the `total` children of a leaf in state `s`
/// whose movers and legal moves are in `w`: each child's evaluation game is
/// played E times and recorded with the weight E'. Appends
/// `(sum, sum of squares)` per player for each child to `out`; returns E'
/// and the number of children evaluated: all of them, unless `deadline`
/// passed first (read before each child) or an evaluation reported NaN
/// (interrupted by it).
#[allow(clippy::too_many_arguments)]
pub(super) fn evaluate_children<G: Game, E: Evaluator<G>>(
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
