//! Parallel UCT (spec 3.1): tree parallelism with virtual loss
//! ([`Parallelism::Tree`]: the descent steered by the iterations in flight,
//! their tasks handed to the threads through a ring of slots, their
//! outcomes recorded in order). Root parallelism needs no more than
//! independent searches and is in the player itself.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use toss_core::game::{Game, Rng, rng_from_seed};

use super::bandit::{moments, select_by};
#[cfg(doc)]
use super::config::Parallelism;
use super::config::{Evaluator, UctConfig};
use super::search::{Search, Work, evaluate_children, gen_moves, joint_of};
use super::tree::NONE;
use crate::player::Budget;

impl Search {
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
    pub(super) fn run_shared<G, E>(
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
