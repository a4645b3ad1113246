//! Exact solving: the value of a position when both sides play perfectly,
//! and the moves that keep it.
//!
//! Two players whose payoffs sum to a constant (and one-player games) are
//! searched by minimax on player 0's payoff with alpha-beta pruning, where
//! every result is an *interval* that the exact value lies in: a terminal
//! state is its payoff, a state at the depth horizon is the whole payoff
//! range, and a node combines its children's intervals (a pruned node keeps
//! the bound the cut proved). The intervals are sound at any depth, so
//! iterative deepening stops as soon as the start's interval is one point,
//! and the transposition table ([`table`]) keeps intervals from every
//! iteration. Simultaneous moves of the two players are matrix games,
//! solved on the lower and on the upper ends of the children's intervals
//! ([`matrix`]); chance is an expectation over its outcomes
//! ([`Game::chance_outcomes`]). A game whose payoffs turn out not to be
//! constant-sum, or with more players, is solved by max^n instead: every
//! mover maximises its own payoff, ties going to the first move in
//! canonical order; there only complete (exact) values count.
//!
//! Positions are keyed by [`Game::state_key`], so transpositions share an
//! entry. [`retro`] enumerates the reachable positions instead and solves
//! them backwards; [`player`] is the solver as a player.

pub mod matrix;
pub mod player;
pub mod retro;
pub mod table;

use std::time::Instant;

use toss_core::game::{Game, Payoffs, rng_from_seed};

use self::table::{Entry, Table};

/// How far the solver may go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// The deepest iteration, in turns.
    pub max_depth: u32,
    /// The transposition table's bound, in bytes (estimated).
    pub memory_bytes: usize,
    pub deadline: Option<Instant>,
    /// At most this many positions visited.
    pub max_positions: Option<u64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 1000,
            memory_bytes: 1 << 30,
            deadline: None,
            max_positions: None,
        }
    }
}

/// Why a search stopped before the value was exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The table reached its memory bound.
    Memory,
    Time,
    Positions,
    /// The deepest iteration allowed was searched.
    Depth,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stopped::Memory => "the table reached its memory bound",
            Stopped::Time => "the time ran out",
            Stopped::Positions => "the position budget ran out",
            Stopped::Depth => "the depth limit was reached",
        })
    }
}

/// A game the solver cannot value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// The implementation gives no state key ([`Game::state_key`]).
    NoKey,
    /// Chance whose outcomes the implementation cannot enumerate.
    Chance,
    /// Simultaneous moves that are not a two-player constant-sum matrix
    /// game (they have equilibria, not one value).
    Simultaneous,
    /// The game ran into a limit of its implementation ([`Game::fault`]).
    Fault(String),
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::NoKey => f.write_str(
                "this implementation of the game gives no state key, so positions cannot be tabled",
            ),
            SolveError::Chance => f.write_str(
                "a move has chance outcomes this implementation cannot enumerate (drawn real numbers or continuous evolution)",
            ),
            SolveError::Simultaneous => f.write_str(
                "simultaneous moves of more than two players, or of two whose payoffs do not sum to a constant, have equilibria but no single value",
            ),
            SolveError::Fault(m) => write!(f, "the game could not be played on: {m}"),
        }
    }
}

impl std::error::Error for SolveError {}

/// Progress of a running search, reported now and then.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// The iteration's depth, in turns.
    pub depth: u32,
    pub positions: u64,
    pub seconds: f64,
    pub table_entries: usize,
    pub table_bytes: usize,
    pub table_capacity: usize,
}

/// How values are searched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Minimax on player 0's payoff with alpha-beta (one player, or two
    /// whose payoffs sum to `sum`; `None` until a terminal was seen).
    ConstantSum { sum: Option<f64> },
    /// Every mover maximises its own payoff; exact values only.
    MaxN,
}

/// One move of the player to move at the solved position.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveValue {
    /// Its index in the mover's canonical order of legal moves.
    pub index: usize,
    /// The interval of the mover's payoff after it.
    pub lo: f64,
    pub hi: f64,
}

/// What a search established about a position.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    pub method: Method,
    /// Per player, the interval its payoff under perfect play lies in.
    pub values: Vec<(f64, f64)>,
    /// The single player choosing at the position, if there is one.
    pub chooser: Option<usize>,
    /// The chooser's moves with their values (when asked for), in
    /// canonical order.
    pub moves: Vec<MoveValue>,
    /// The table's best move for the chooser (its canonical index).
    pub best: Option<usize>,
    /// The deepest iteration completed.
    pub depth: u32,
    pub positions: u64,
    pub seconds: f64,
    pub table_entries: usize,
    pub table_bytes: usize,
    /// Why the value is not exact, when it is not.
    pub stopped: Option<Stopped>,
}

impl Solution {
    pub fn is_exact(&self) -> bool {
        self.values.iter().all(|(lo, hi)| lo == hi)
    }

    /// The moves whose value equals the chooser's exact value.
    pub fn best_moves(&self) -> Vec<usize> {
        let Some(c) = self.chooser else {
            return Vec::new();
        };
        let (lo, hi) = self.values[c];
        if lo != hi {
            return Vec::new();
        }
        self.moves
            .iter()
            .filter(|m| m.lo == m.hi && (m.lo - lo).abs() <= 1e-9)
            .map(|m| m.index)
            .collect()
    }
}

/// One node's buffers, reused by the next node at the same height.
struct Buffers<M> {
    key: Vec<u64>,
    movers: Vec<usize>,
    moves: Vec<Vec<M>>,
    order: Vec<usize>,
}

impl<M> Default for Buffers<M> {
    fn default() -> Self {
        Buffers {
            key: Vec::new(),
            movers: Vec::new(),
            moves: Vec::new(),
            order: Vec::new(),
        }
    }
}

/// The buffers of the nodes on the current path and below: a search
/// allocates them once, not once per node.
struct Scratch<M> {
    pool: Vec<Buffers<M>>,
}

impl<M> Default for Scratch<M> {
    fn default() -> Self {
        Scratch { pool: Vec::new() }
    }
}

/// Why a search returned early.
enum Halt {
    Stop(Stopped),
    Error(SolveError),
    /// A terminal's payoffs summed to another constant: search by max^n.
    NotConstantSum,
}

/// The exact solver; its table persists between calls to [`Solver::solve`]
/// on the same game.
pub struct Solver {
    pub limits: Limits,
    /// Whether [`Solver::solve`] values every move of the chooser.
    pub value_moves: bool,
    method: Method,
    table: Table,
    /// The max^n table: exact payoff vectors.
    exact: table::WordMap<Payoffs>,
    exact_bytes: usize,
    positions: u64,
    start: Instant,
    depth: u32,
    /// Player 0's payoff range, the interval of a horizon leaf.
    range: (f64, f64),
    progress: Option<ProgressFn>,
    /// Per player and move index, how much its cuts weighed.
    history: Vec<Vec<u64>>,
    /// Plies of the current turn before the position searched (a turn
    /// past the limit of plies per turn is a fault).
    turn_plies: usize,
}

/// What [`Solver::on_progress`] calls.
type ProgressFn = Box<dyn FnMut(&Progress)>;

/// Positions between two reports of progress (and deadline checks: every
/// 1,024).
const PROGRESS_EVERY: u64 = 1 << 16;

impl Solver {
    pub fn new(limits: Limits) -> Solver {
        Solver {
            limits,
            value_moves: true,
            method: Method::ConstantSum { sum: None },
            table: Table::new(limits.memory_bytes),
            exact: table::WordMap::default(),
            exact_bytes: 0,
            positions: 0,
            start: Instant::now(),
            depth: 0,
            range: (-1.0, 1.0),
            progress: None,
            history: Vec::new(),
            turn_plies: 0,
        }
    }

    /// Calls `f` every 65,536 positions with the search's progress.
    pub fn on_progress(&mut self, f: impl FnMut(&Progress) + 'static) {
        self.progress = Some(Box::new(f));
    }

    /// The positions stored in the table.
    pub fn table_entries(&self) -> usize {
        self.table.len() + self.exact.len()
    }

    fn progress_report(&self) -> Progress {
        Progress {
            depth: self.depth,
            positions: self.positions,
            seconds: self.start.elapsed().as_secs_f64(),
            table_entries: self.table_entries(),
            table_bytes: self.table.bytes() + self.exact_bytes,
            table_capacity: self.limits.memory_bytes,
        }
    }

    fn tick(&mut self) -> Result<(), Halt> {
        self.positions += 1;
        if self.positions.is_multiple_of(1024) {
            if let Some(t) = self.limits.deadline
                && Instant::now() >= t
            {
                return Err(Halt::Stop(Stopped::Time));
            }
            if self.positions.is_multiple_of(PROGRESS_EVERY) {
                let p = self.progress_report();
                if let Some(f) = self.progress.as_mut() {
                    f(&p);
                }
            }
        }
        if let Some(n) = self.limits.max_positions
            && self.positions > n
        {
            return Err(Halt::Stop(Stopped::Positions));
        }
        Ok(())
    }

    /// Solves `s`: iterative deepening until the value is exact or a
    /// limit stops it.
    pub fn solve<G: Game>(&mut self, game: &G, s: &G::State) -> Result<Solution, SolveError> {
        self.start = Instant::now();
        self.positions = 0;
        let np = game.num_players();
        if np > 2 {
            self.method = Method::MaxN;
        }
        self.range = game.payoff_range();
        loop {
            let result = match self.method {
                Method::ConstantSum { .. } => self.deepen_constant_sum(game, s),
                Method::MaxN => self.deepen_maxn(game, s),
            };
            match result {
                Err(Halt::NotConstantSum) => {
                    self.method = Method::MaxN;
                    self.table = Table::new(self.limits.memory_bytes);
                }
                Err(Halt::Error(e)) => return Err(e),
                Err(Halt::Stop(_)) => unreachable!("stops are reported in the solution"),
                Ok(mut sol) => {
                    if let Some(f) = game.fault() {
                        return Err(SolveError::Fault(f));
                    }
                    sol.positions = self.positions;
                    sol.seconds = self.start.elapsed().as_secs_f64();
                    sol.table_entries = self.table_entries();
                    sol.table_bytes = self.table.bytes() + self.exact_bytes;
                    return Ok(sol);
                }
            }
        }
    }

    fn deepen_constant_sum<G: Game>(&mut self, game: &G, s: &G::State) -> Result<Solution, Halt> {
        let (lo0, hi0) = self.range;
        let mut last = (lo0, hi0);
        let mut stopped = None;
        let mut completed = 0;
        let mut depth = 0;
        let mut sc = Scratch::default();
        while depth < self.limits.max_depth {
            depth += 1;
            self.depth = depth;
            match self.zero(game, s, depth, lo0, hi0, &mut sc) {
                Ok(iv) => {
                    last = (last.0.max(iv.0), last.1.min(iv.1));
                    completed = depth;
                    if last.0 == last.1 {
                        break;
                    }
                }
                Err(Halt::Stop(why)) => {
                    stopped = Some(why);
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if last.0 != last.1 && stopped.is_none() {
            stopped = Some(Stopped::Depth);
        }
        let mut key = Vec::new();
        game.state_key(s, &mut key);
        let best = self
            .table
            .get(&key)
            .and_then(|e| (e.best != u32::MAX).then_some(e.best as usize));
        let (chooser, moves) = self.root_moves(game, s, completed.max(1), stopped.is_none())?;
        let values = match (game.num_players(), self.method) {
            (2, Method::ConstantSum { sum: Some(t) }) => vec![last, (t - last.1, t - last.0)],
            (2, _) => vec![last, self.range],
            _ => vec![last],
        };
        Ok(Solution {
            method: self.method,
            values,
            chooser,
            moves,
            best,
            depth: completed,
            positions: 0,
            seconds: 0.0,
            table_entries: 0,
            table_bytes: 0,
            stopped,
        })
    }

    /// The single chooser of `s` and, when asked for and the search was
    /// not stopped, the interval of each of its moves (for the chooser).
    fn root_moves<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        depth: u32,
        value: bool,
    ) -> Result<(Option<usize>, Vec<MoveValue>), Halt> {
        let mut movers = Vec::new();
        let mut moves: Vec<Vec<G::Move>> = Vec::new();
        game.movers_and_moves(s, &mut movers, &mut moves);
        let Some(k) = single_chooser(&movers, &moves) else {
            return Ok((None, Vec::new()));
        };
        let c = movers[k];
        if !value || !self.value_moves {
            return Ok((Some(c), Vec::new()));
        }
        let (lo0, hi0) = self.range;
        let mut out = Vec::new();
        for i in 0..moves[k].len() {
            let joint = joint_with(&moves[..movers.len()], k, i);
            let (lo, hi) = match self.method {
                Method::ConstantSum { sum } => {
                    let mut sc = Scratch::default();
                    let iv = match self.child(game, s, &movers, &joint, depth, lo0, hi0, &mut sc) {
                        Ok(iv) => iv,
                        Err(Halt::Stop(_)) => (lo0, hi0),
                        Err(e) => return Err(e),
                    };
                    if c == 0 {
                        iv
                    } else {
                        let t = sum.unwrap_or(0.0);
                        (t - iv.1, t - iv.0)
                    }
                }
                Method::MaxN => match self.maxn_child(game, s, &movers, &joint, u32::MAX) {
                    Ok(Some(v)) => (v[c], v[c]),
                    Ok(None) | Err(Halt::Stop(_)) => game.payoff_range(),
                    Err(e) => return Err(e),
                },
            };
            out.push(MoveValue { index: i, lo, hi });
        }
        Ok((Some(c), out))
    }

    /// The interval of player 0's value after `joint` from `s` (whose
    /// movers are `movers`, searched `depth` turns deep): the expectation
    /// over chance outcomes.
    #[allow(clippy::too_many_arguments)]
    fn child<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        movers: &[usize],
        joint: &[G::Move],
        depth: u32,
        alpha: f64,
        beta: f64,
        sc: &mut Scratch<G::Move>,
    ) -> Result<(f64, f64), Halt> {
        if !game.has_chance() {
            let mut t = s.clone();
            game.apply(&mut t, joint, &mut rng_from_seed(0));
            return self.descend(game, movers, &t, depth, |sv, d| {
                sv.zero(game, &t, d, alpha, beta, sc)
            });
        }
        let mut outcomes = Vec::new();
        successors(game, s, joint, &mut outcomes).map_err(Halt::Error)?;
        if let [(_, t)] = &outcomes[..] {
            return self.descend(game, movers, t, depth, |sv, d| {
                sv.zero(game, t, d, alpha, beta, sc)
            });
        }
        let (lo0, hi0) = self.range;
        let (mut lo, mut hi) = (0.0, 0.0);
        for (p, t) in &outcomes {
            let (a, b) = self.descend(game, movers, t, depth, |sv, d| {
                sv.zero(game, t, d, lo0, hi0, sc)
            })?;
            lo += p * a;
            hi += p * b;
        }
        Ok((lo, hi))
    }

    /// Minimax with alpha-beta on intervals of player 0's value.
    #[allow(clippy::too_many_arguments)]
    fn zero<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        depth: u32,
        alpha: f64,
        beta: f64,
        sc: &mut Scratch<G::Move>,
    ) -> Result<(f64, f64), Halt> {
        // Buffers come from pools: a node allocates nothing of its own.
        let mut b = sc.pool.pop().unwrap_or_default();
        let result = self.zero_with(game, s, depth, alpha, beta, &mut b, sc);
        sc.pool.push(b);
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn zero_with<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        depth: u32,
        mut alpha: f64,
        mut beta: f64,
        b: &mut Buffers<G::Move>,
        sc: &mut Scratch<G::Move>,
    ) -> Result<(f64, f64), Halt> {
        let Buffers {
            key,
            movers,
            moves,
            order,
        } = b;
        self.tick()?;
        if !game.state_key(s, key) {
            return Err(Halt::Error(SolveError::NoKey));
        }
        let (lo0, hi0) = self.range;
        let window = (alpha, beta);
        let mut known = (lo0, hi0);
        let mut hint = u32::MAX;
        if let Some(e) = self.table.get(key) {
            // A bound proved as deep with a window containing this one
            // is all this search could prove.
            if e.is_exact()
                || e.lo >= beta
                || e.hi <= alpha
                || (e.depth >= depth && e.alpha <= alpha && e.beta >= beta)
            {
                return Ok((e.lo, e.hi));
            }
            known = (e.lo, e.hi);
            alpha = alpha.max(e.lo);
            beta = beta.min(e.hi);
            hint = e.best;
        }
        game.movers_and_moves(s, movers, moves);
        if movers.is_empty() {
            if let Some(f) = game.fault() {
                return Err(Halt::Error(SolveError::Fault(f)));
            }
            let mut p = vec![0.0; game.num_players()];
            game.payoffs(s, &mut p);
            if p.len() == 2 {
                let t = p[0] + p[1];
                match &mut self.method {
                    Method::ConstantSum { sum: Some(u) } if (t - *u).abs() > 1e-9 => {
                        return Err(Halt::NotConstantSum);
                    }
                    Method::ConstantSum { sum } => *sum = Some(t),
                    Method::MaxN => {}
                }
            }
            let v = p[0];
            self.store(key, (v, v), depth, (lo0, hi0), u32::MAX)?;
            return Ok((v, v));
        }
        if depth == 0 {
            return Ok(known);
        }
        let result = match single_chooser(movers, moves) {
            Some(k) => {
                let maximise = movers[k] == 0 || game.num_players() == 1;
                let n = moves[k].len();
                // The table's best move first, then by the history of
                // cuts (moves that refuted elsewhere often refute here).
                let chooser = movers[k];
                if self.history.len() <= chooser {
                    self.history.resize(chooser + 1, Vec::new());
                }
                if self.history[chooser].len() < n {
                    self.history[chooser].resize(n, 0);
                }
                order.clear();
                order.extend(0..n);
                let h = &self.history[chooser];
                order.sort_by_key(|&i| (i != hint as usize, std::cmp::Reverse(h[i])));
                let (mut blo, mut bhi) = (f64::NAN, f64::NAN);
                let mut best = 0;
                let mut cut = false;
                for (seen, &i) in order.iter().enumerate() {
                    // One mover (turn-based): its move is the joint move.
                    let several;
                    let joint: &[G::Move] = if movers.len() == 1 {
                        std::slice::from_ref(&moves[0][i])
                    } else {
                        several = joint_with(&moves[..movers.len()], k, i);
                        &several
                    };
                    let (clo, chi) = self.child(game, s, movers, joint, depth, alpha, beta, sc)?;
                    if seen == 0 {
                        (blo, bhi, best) = (clo, chi, i);
                    } else if maximise {
                        if clo > blo {
                            best = i;
                        }
                        blo = blo.max(clo);
                        bhi = bhi.max(chi);
                    } else {
                        if chi < bhi {
                            best = i;
                        }
                        blo = blo.min(clo);
                        bhi = bhi.min(chi);
                    }
                    if maximise {
                        alpha = alpha.max(blo);
                        if blo >= beta && seen + 1 < n {
                            bhi = hi0;
                            cut = true;
                        }
                    } else {
                        beta = beta.min(bhi);
                        if bhi <= alpha && seen + 1 < n {
                            blo = lo0;
                            cut = true;
                        }
                    }
                    if cut {
                        self.history[chooser][i] += u64::from(depth) * u64::from(depth);
                        break;
                    }
                }
                (blo, bhi, best as u32)
            }
            None => {
                let (lo, hi) = self.simultaneous(game, s, movers, moves, depth, sc)?;
                (lo, hi, u32::MAX)
            }
        };
        let lo = result.0.max(known.0);
        let hi = result.1.min(known.1);
        let (lo, hi) = if lo <= hi {
            (lo, hi)
        } else {
            (result.0, result.1)
        };
        self.store(key, (lo, hi), depth, window, result.2)?;
        Ok((lo, hi))
    }

    /// A state where both players choose: the matrix game on the lower
    /// ends and on the upper ends of the children's intervals.
    fn simultaneous<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        movers: &[usize],
        moves: &[Vec<G::Move>],
        depth: u32,
        sc: &mut Scratch<G::Move>,
    ) -> Result<(f64, f64), Halt> {
        let moves = &moves[..movers.len()];
        let (r, c) = matrix_movers(game, moves).map_err(Halt::Error)?;
        let (m, n) = (moves[r].len(), moves[c].len());
        let (lo0, hi0) = self.range;
        let mut los = vec![0.0; m * n];
        let mut his = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                let joint = joint_pair(moves, (r, i), (c, j));
                let (a, b) = self.child(game, s, movers, &joint, depth, lo0, hi0, sc)?;
                los[i * n + j] = a;
                his[i * n + j] = b;
            }
        }
        // Movers are in player order, so the row player is player 0.
        let lo = matrix::solve_matrix(&los, m, n).value;
        let hi = matrix::solve_matrix(&his, m, n).value;
        Ok((lo, hi.max(lo)))
    }

    fn store(
        &mut self,
        key: &[u64],
        (lo, hi): (f64, f64),
        depth: u32,
        (alpha, beta): (f64, f64),
        best: u32,
    ) -> Result<(), Halt> {
        let entry = Entry {
            lo,
            hi,
            depth,
            alpha,
            beta,
            best,
        };
        if self.table.store(key, entry) {
            Ok(())
        } else {
            Err(Halt::Stop(Stopped::Memory))
        }
    }

    fn deepen_maxn<G: Game>(&mut self, game: &G, s: &G::State) -> Result<Solution, Halt> {
        let mut stopped = None;
        let mut value = None;
        let mut completed = 0;
        let mut depth = 0;
        while depth < self.limits.max_depth {
            depth += 1;
            self.depth = depth;
            match self.maxn(game, s, depth) {
                Ok(Some(v)) => {
                    value = Some(v);
                    completed = depth;
                    break;
                }
                Ok(None) => completed = depth,
                Err(Halt::Stop(why)) => {
                    stopped = Some(why);
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if value.is_none() && stopped.is_none() {
            stopped = Some(Stopped::Depth);
        }
        let values = match &value {
            Some(v) => v.iter().map(|&x| (x, x)).collect(),
            None => vec![game.payoff_range(); game.num_players()],
        };
        let (chooser, moves) = self.root_moves(game, s, completed.max(1), value.is_some())?;
        Ok(Solution {
            method: Method::MaxN,
            values,
            chooser,
            best: moves
                .iter()
                .filter(|m| m.lo == m.hi)
                .fold(None::<&MoveValue>, |b, m| match b {
                    Some(b) if b.lo >= m.lo => Some(b),
                    _ => Some(m),
                })
                .map(|m| m.index),
            moves,
            depth: completed,
            positions: 0,
            seconds: 0.0,
            table_entries: 0,
            table_bytes: 0,
            stopped,
        })
    }

    /// The max^n value of `s` if the search `depth` turns deep reaches the
    /// end of every line (`None` otherwise).
    fn maxn<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        depth: u32,
    ) -> Result<Option<Payoffs>, Halt> {
        self.tick()?;
        let mut key = Vec::new();
        if !game.state_key(s, &mut key) {
            return Err(Halt::Error(SolveError::NoKey));
        }
        if let Some(v) = self.exact.get(&key[..]) {
            return Ok(Some(v.clone()));
        }
        let mut movers = Vec::new();
        let mut moves: Vec<Vec<G::Move>> = Vec::new();
        game.movers_and_moves(s, &mut movers, &mut moves);
        let value = if movers.is_empty() {
            if let Some(f) = game.fault() {
                return Err(Halt::Error(SolveError::Fault(f)));
            }
            let mut p = Payoffs::from_elem(0.0, game.num_players());
            game.payoffs(s, &mut p);
            p
        } else {
            if depth == 0 {
                return Ok(None);
            }
            let Some(k) = single_chooser(&movers, &moves) else {
                return Err(Halt::Error(SolveError::Simultaneous));
            };
            let c = movers[k];
            let mut best: Option<Payoffs> = None;
            for i in 0..moves[k].len() {
                let joint = joint_with(&moves[..movers.len()], k, i);
                let Some(v) = self.maxn_child(game, s, &movers, &joint, depth)? else {
                    return Ok(None);
                };
                if best.as_ref().is_none_or(|b| v[c] > b[c]) {
                    best = Some(v);
                }
            }
            best.unwrap_or_default()
        };
        let cost = key.len() * 8 + 64;
        if self.exact_bytes + self.table.bytes() + cost > self.limits.memory_bytes {
            return Err(Halt::Stop(Stopped::Memory));
        }
        self.exact_bytes += cost;
        self.exact.insert(key.into(), value.clone());
        Ok(Some(value))
    }

    /// Runs `f` at `t`, reached by one ply from a state with movers
    /// `movers` searched `depth` turns deep, with the depth left there:
    /// one turn less, unless the ply continues the mover's turn
    /// ([`Game::continues_turn`]). A turn past the limit of plies per turn
    /// is a fault of the play.
    fn descend<G: Game, R>(
        &mut self,
        game: &G,
        movers: &[usize],
        t: &G::State,
        depth: u32,
        f: impl FnOnce(&mut Self, u32) -> Result<R, Halt>,
    ) -> Result<R, Halt> {
        let continued = game.has_compound_turns() && movers.len() == 1 && {
            let mut after = Vec::new();
            game.movers(t, &mut after);
            game.continues_turn(movers, &after)
        };
        let saved = self.turn_plies;
        let d = if continued {
            if saved + 1 >= toss_core::limits::PLIES_PER_TURN.value {
                let fault = toss_core::game::turn_fault();
                game.report_fault(fault.clone());
                return Err(Halt::Error(SolveError::Fault(fault)));
            }
            self.turn_plies += 1;
            depth
        } else {
            self.turn_plies = 0;
            depth - 1
        };
        let r = f(self, d);
        self.turn_plies = saved;
        r
    }

    fn maxn_child<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        movers: &[usize],
        joint: &[G::Move],
        depth: u32,
    ) -> Result<Option<Payoffs>, Halt> {
        let mut outcomes = Vec::new();
        successors(game, s, joint, &mut outcomes).map_err(Halt::Error)?;
        let mut acc = Payoffs::from_elem(0.0, game.num_players());
        for (p, t) in &outcomes {
            let Some(v) = self.descend(game, movers, t, depth, |sv, d| sv.maxn(game, t, d))? else {
                return Ok(None);
            };
            for (a, x) in acc.iter_mut().zip(&v) {
                *a += p * x;
            }
        }
        Ok(Some(acc))
    }
}

/// The successors of `joint` from `s` with their probabilities, in `out`
/// (cleared first): the one state [`Game::apply`] gives in a game without
/// chance, the enumerated outcomes otherwise.
pub(crate) fn successors<G: Game>(
    game: &G,
    s: &G::State,
    joint: &[G::Move],
    out: &mut Vec<(f64, G::State)>,
) -> Result<(), SolveError> {
    if game.has_chance() {
        if !game.chance_outcomes(s, joint, out) {
            return Err(SolveError::Chance);
        }
    } else {
        let mut t = s.clone();
        game.apply(&mut t, joint, &mut rng_from_seed(0));
        out.clear();
        out.push((1.0, t));
    }
    Ok(())
}

/// The index (among the movers) of the one mover with a choice, or of the
/// first mover when none has one; `None` when several have a choice.
pub fn single_chooser<M>(movers: &[usize], moves: &[Vec<M>]) -> Option<usize> {
    let mut choosing = (0..movers.len()).filter(|&k| moves[k].len() > 1);
    match (choosing.next(), choosing.next()) {
        (Some(k), None) => Some(k),
        (None, _) => Some(0),
        _ => None,
    }
}

/// The two movers (indices among the movers) of a two-player matrix game:
/// the two with a choice, in a game of two players; otherwise the
/// position has equilibria but no single value.
pub fn matrix_movers<M>(game: &impl Game, moves: &[Vec<M>]) -> Result<(usize, usize), SolveError> {
    let mut choosing = (0..moves.len()).filter(|&k| moves[k].len() > 1);
    match (choosing.next(), choosing.next(), choosing.next()) {
        (Some(r), Some(c), None) if game.num_players() == 2 => Ok((r, c)),
        _ => Err(SolveError::Simultaneous),
    }
}

/// The joint move where mover `r` plays its move `i`, mover `c` its move
/// `j`, and every other mover its only move.
pub fn joint_pair<M: Clone>(
    moves: &[Vec<M>],
    (r, i): (usize, usize),
    (c, j): (usize, usize),
) -> Vec<M> {
    let mut joint = joint_with(moves, r, i);
    joint[c] = moves[c][j].clone();
    joint
}

/// The joint move where mover `k` plays its move `i` and every other mover
/// its only move.
pub fn joint_with<M: Clone>(moves: &[Vec<M>], k: usize, i: usize) -> Vec<M> {
    moves
        .iter()
        .enumerate()
        .map(|(j, ms)| if j == k { ms[i].clone() } else { ms[0].clone() })
        .collect()
}
