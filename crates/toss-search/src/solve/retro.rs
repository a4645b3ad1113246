//! Retrograde analysis: enumerate every position reachable from a start,
//! then solve them backwards from the terminal ones.
//!
//! Enumeration ([`Graph::enumerate`]) is breadth-first, one node per
//! distinct [`Game::state_key`], each with the edges of its joint moves
//! (and their chance outcomes). Solving ([`Graph::solve`]) starts from the
//! terminal positions and resolves a position once all its successors are
//! resolved, or, when players' payoffs sum to a constant, as soon as one
//! move gives the mover the best payoff any terminal gives it (so cycles
//! that a winner can leave do not block it). Positions on cycles that no
//! one can force a way out of stay unresolved: their play can go on
//! forever, which has no payoff. The values agree with [`super::Solver`]'s
//! (same tie-breaking: the first best move in canonical order), computed
//! independently; [`RetroTable`] is the file a solver player reads.

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};

use toss_core::game::{Game, Payoffs};

use super::matrix::solve_matrix;
use super::table::WordMap;
use super::{
    Method, SolveError, joint_pair, joint_with, matrix_movers, single_chooser, successors,
};
use crate::player::all_joint_moves;

/// One successor along a joint move.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Edge {
    /// The move: the chooser's move index, or `row * columns + column`
    /// at a simultaneous node.
    mv: u32,
    probability: f64,
    child: u32,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Terminal(Payoffs),
    /// One player chooses among `moves` moves.
    Choice {
        player: usize,
        moves: u32,
    },
    /// Players 0 and 1 choose at once: `rows` x `columns` joint moves.
    Simultaneous {
        rows: u32,
        columns: u32,
    },
}

/// Why enumeration stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum RetroError {
    Solve(SolveError),
    /// The positions did not fit in the memory bound; `positions` were
    /// enumerated.
    Memory {
        positions: usize,
    },
}

impl std::fmt::Display for RetroError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RetroError::Solve(e) => e.fmt(f),
            RetroError::Memory { positions } => write!(
                f,
                "the reachable positions do not fit in the memory bound: stopped after {positions} positions"
            ),
        }
    }
}

impl std::error::Error for RetroError {}

/// The reachable positions of a game and its moves between them.
pub struct Graph {
    kinds: Vec<Kind>,
    /// Node `i`'s edges are `edges[start[i]..start[i + 1]]`.
    start: Vec<usize>,
    edges: Vec<Edge>,
    keys: Vec<Box<[u64]>>,
    players: usize,
    bytes: usize,
}

/// Estimated bytes of a node besides its key words and edges.
const NODE_BYTES: usize = 96;

impl Graph {
    /// Enumerates the positions reachable from `root` within
    /// `memory_bytes`; `progress` is called every 65,536 positions with
    /// the number found.
    pub fn enumerate<G: Game>(
        game: &G,
        root: &G::State,
        memory_bytes: usize,
        mut progress: impl FnMut(usize),
    ) -> Result<Graph, RetroError> {
        let mut g = Graph {
            kinds: Vec::new(),
            start: vec![0],
            edges: Vec::new(),
            keys: Vec::new(),
            players: game.num_players(),
            bytes: 0,
        };
        let mut index: WordMap<u32> = WordMap::default();
        let mut queue: VecDeque<G::State> = VecDeque::new();
        let mut key = Vec::new();
        g.add(game, root, &mut index, &mut queue, &mut key, memory_bytes)?;
        let mut movers = Vec::new();
        let mut moves: Vec<Vec<G::Move>> = Vec::new();
        let mut outcomes = Vec::new();
        let mut next = 0usize;
        while let Some(s) = queue.pop_front() {
            game.movers_and_moves(&s, &mut movers, &mut moves);
            if let Some(f) = game.fault() {
                return Err(RetroError::Solve(SolveError::Fault(f)));
            }
            let mut joints: Vec<(u32, Vec<G::Move>)> = Vec::new();
            let kind = if movers.is_empty() {
                let mut p = Payoffs::from_elem(0.0, g.players);
                game.payoffs(&s, &mut p);
                Kind::Terminal(p)
            } else if let Some(k) = single_chooser(&movers, &moves) {
                for i in 0..moves[k].len() {
                    joints.push((i as u32, joint_with(&moves[..movers.len()], k, i)));
                }
                Kind::Choice {
                    player: movers[k],
                    moves: moves[k].len() as u32,
                }
            } else {
                let moves = &moves[..movers.len()];
                let (r, c) = matrix_movers(game, moves).map_err(RetroError::Solve)?;
                let (m, n) = (moves[r].len(), moves[c].len());
                for i in 0..m {
                    for j in 0..n {
                        joints.push(((i * n + j) as u32, joint_pair(moves, (r, i), (c, j))));
                    }
                }
                Kind::Simultaneous {
                    rows: m as u32,
                    columns: n as u32,
                }
            };
            for (mv, joint) in joints {
                successors(game, &s, &joint, &mut outcomes).map_err(RetroError::Solve)?;
                for (p, t) in outcomes.drain(..) {
                    let child = g.add(game, &t, &mut index, &mut queue, &mut key, memory_bytes)?;
                    g.edges.push(Edge {
                        mv,
                        probability: p,
                        child,
                    });
                    g.bytes += std::mem::size_of::<Edge>();
                }
            }
            g.kinds.push(kind);
            g.start.push(g.edges.len());
            next += 1;
            if next.is_multiple_of(1 << 16) {
                progress(g.keys.len());
            }
        }
        Ok(g)
    }

    /// The node of `s`, added (and queued) when new.
    fn add<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        index: &mut WordMap<u32>,
        queue: &mut VecDeque<G::State>,
        key: &mut Vec<u64>,
        memory_bytes: usize,
    ) -> Result<u32, RetroError> {
        if !game.state_key(s, key) {
            return Err(RetroError::Solve(SolveError::NoKey));
        }
        if let Some(&i) = index.get(&key[..]) {
            return Ok(i);
        }
        // The key is held twice (index and list), the state while queued.
        let cost = 2 * key.len() * 8 + NODE_BYTES + std::mem::size_of::<G::State>();
        if self.bytes + cost > memory_bytes {
            return Err(RetroError::Memory {
                positions: self.keys.len(),
            });
        }
        self.bytes += cost;
        let i = self.keys.len() as u32;
        let boxed: Box<[u64]> = key[..].into();
        index.insert(boxed.clone(), i);
        self.keys.push(boxed);
        queue.push_back(s.clone());
        Ok(i)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Number of terminal positions.
    pub fn terminals(&self) -> usize {
        self.kinds
            .iter()
            .filter(|k| matches!(k, Kind::Terminal(_)))
            .count()
    }

    /// The number of distinct plays from the start to a terminal position
    /// (every joint move and chance outcome counts as a branch), or `None`
    /// when a cycle makes them infinite. Saturates at `u128::MAX`.
    pub fn complete_plays(&self) -> Option<u128> {
        // Children before parents: depth-first post-order with an explicit
        // stack (0 unvisited, 1 on the stack, 2 done).
        let n = self.len();
        let mut state = vec![0u8; n];
        let mut plays = vec![0u128; n];
        let mut stack = vec![(0u32, false)];
        while let Some((v, expanded)) = stack.pop() {
            let v = v as usize;
            if expanded {
                plays[v] = match self.kinds[v] {
                    Kind::Terminal(_) => 1,
                    _ => self.edges[self.start[v]..self.start[v + 1]]
                        .iter()
                        .fold(0u128, |a, e| a.saturating_add(plays[e.child as usize])),
                };
                state[v] = 2;
                continue;
            }
            match state[v] {
                2 => continue,
                1 => return None,
                _ => {}
            }
            state[v] = 1;
            stack.push((v as u32, true));
            for e in &self.edges[self.start[v]..self.start[v + 1]] {
                match state[e.child as usize] {
                    0 => stack.push((e.child, false)),
                    1 => return None,
                    _ => {}
                }
            }
        }
        Some(plays[0])
    }

    /// Solves every position backwards; see the module docs.
    pub fn solve(&self) -> Retrograde {
        let n = self.len();
        let np = self.players;
        // Constant-sum (or one player) decides whether a move that gives
        // the mover its best terminal payoff settles the position early.
        let mut sum: Option<f64> = None;
        let mut constant_sum = np <= 2;
        let mut best_own = vec![f64::NEG_INFINITY; np];
        for k in &self.kinds {
            if let Kind::Terminal(p) = k {
                for (b, &x) in best_own.iter_mut().zip(p.iter()) {
                    *b = b.max(x);
                }
                if np == 2 {
                    let t = p[0] + p[1];
                    match sum {
                        Some(u) if (t - u).abs() > 1e-9 => constant_sum = false,
                        _ => sum = Some(t),
                    }
                }
            }
        }
        let method = if constant_sum {
            Method::ConstantSum { sum }
        } else {
            Method::MaxN
        };
        // Parents of each node, by edge.
        let mut parent_start = vec![0usize; n + 1];
        for e in &self.edges {
            parent_start[e.child as usize + 1] += 1;
        }
        for i in 0..n {
            parent_start[i + 1] += parent_start[i];
        }
        let mut fill = parent_start.clone();
        let mut parents = vec![0u32; self.edges.len()];
        for v in 0..n {
            for e in &self.edges[self.start[v]..self.start[v + 1]] {
                parents[fill[e.child as usize]] = v as u32;
                fill[e.child as usize] += 1;
            }
        }
        let mut pending: Vec<usize> = (0..n).map(|v| self.start[v + 1] - self.start[v]).collect();
        let mut values: Vec<Option<Payoffs>> = vec![None; n];
        let mut best = vec![u32::MAX; n];
        let mut queue: VecDeque<u32> = VecDeque::new();
        for (v, k) in self.kinds.iter().enumerate() {
            if let Kind::Terminal(p) = k {
                values[v] = Some(p.clone());
                queue.push_back(v as u32);
            }
        }
        while let Some(c) = queue.pop_front() {
            let c = c as usize;
            for &p in &parents[parent_start[c]..parent_start[c + 1]] {
                let p = p as usize;
                if values[p].is_some() {
                    continue;
                }
                pending[p] -= 1;
                if pending[p] == 0 {
                    let (v, b) = self.value_of(p, &values);
                    values[p] = Some(v);
                    best[p] = b;
                    queue.push_back(p as u32);
                } else if constant_sum
                    && let Kind::Choice { player, .. } = self.kinds[p]
                    && let Some((mv, v)) = self.winning_move(p, player, best_own[player], &values)
                {
                    values[p] = Some(v);
                    best[p] = mv;
                    queue.push_back(p as u32);
                }
            }
        }
        Retrograde {
            method,
            values,
            best,
        }
    }

    /// A move of `player` at `p` whose outcomes are all resolved and give
    /// it `top`, its best terminal payoff.
    fn winning_move(
        &self,
        p: usize,
        player: usize,
        top: f64,
        values: &[Option<Payoffs>],
    ) -> Option<(u32, Payoffs)> {
        let edges = &self.edges[self.start[p]..self.start[p + 1]];
        let mut i = 0;
        while i < edges.len() {
            let mv = edges[i].mv;
            let mut j = i;
            let mut acc = Payoffs::from_elem(0.0, self.players);
            let mut complete = true;
            while j < edges.len() && edges[j].mv == mv {
                match &values[edges[j].child as usize] {
                    Some(v) => {
                        for (a, x) in acc.iter_mut().zip(v.iter()) {
                            *a += edges[j].probability * x;
                        }
                    }
                    None => complete = false,
                }
                j += 1;
            }
            if complete && acc[player] >= top - 1e-9 {
                return Some((mv, acc));
            }
            i = j;
        }
        None
    }

    /// The value of `p` once every successor is resolved, and its best
    /// move (the first best in canonical order; none when simultaneous).
    fn value_of(&self, p: usize, values: &[Option<Payoffs>]) -> (Payoffs, u32) {
        let edges = &self.edges[self.start[p]..self.start[p + 1]];
        // The expected payoffs of each joint move, in move order.
        let mut per_move: Vec<(u32, Payoffs)> = Vec::new();
        for e in edges {
            if per_move.last().is_none_or(|(mv, _)| *mv != e.mv) {
                per_move.push((e.mv, Payoffs::from_elem(0.0, self.players)));
            }
            let acc = &mut per_move.last_mut().expect("pushed above").1;
            if let Some(v) = &values[e.child as usize] {
                for (a, x) in acc.iter_mut().zip(v.iter()) {
                    *a += e.probability * x;
                }
            }
        }
        match &self.kinds[p] {
            Kind::Terminal(v) => (v.clone(), u32::MAX),
            Kind::Choice { player, .. } => {
                let mut best = 0;
                for (i, (_, v)) in per_move.iter().enumerate() {
                    if v[*player] > per_move[best].1[*player] {
                        best = i;
                    }
                }
                (per_move[best].1.clone(), per_move[best].0)
            }
            Kind::Simultaneous { rows, columns } => {
                let a: Vec<f64> = per_move.iter().map(|(_, v)| v[0]).collect();
                let value = solve_matrix(&a, *rows as usize, *columns as usize).value;
                // Two players, constant-sum (checked when enumerating), so
                // the vector follows from player 0's value.
                let total = per_move.first().map_or(0.0, |(_, v)| v[0] + v[1]);
                let mut v = Payoffs::from_elem(0.0, 2);
                v[0] = value;
                v[1] = total - value;
                (v, u32::MAX)
            }
        }
    }

    /// The table of solved positions, for [`RetroTable::write`].
    pub fn table(&self, solved: &Retrograde, game_id: u64) -> RetroTable {
        let mut map = HashMap::new();
        for (i, key) in self.keys.iter().enumerate() {
            if let Some(v) = &solved.values[i] {
                map.insert(key.clone(), (v.clone(), solved.best[i]));
            }
        }
        RetroTable {
            game_id,
            players: self.players,
            order: self.keys.clone(),
            map,
        }
    }
}

/// The values found by [`Graph::solve`].
pub struct Retrograde {
    pub method: Method,
    /// Per position (in enumeration order, the start first), its payoffs
    /// under perfect play; `None` when unresolved.
    pub values: Vec<Option<Payoffs>>,
    /// Per position, the best move of its single chooser (`u32::MAX`:
    /// none).
    pub best: Vec<u32>,
}

impl Retrograde {
    /// Positions left unresolved (on cycles no one forces a way out of).
    pub fn unresolved(&self) -> usize {
        self.values.iter().filter(|v| v.is_none()).count()
    }
}

/// A table of solved positions: state key to payoffs and best move,
/// written to a file and read back by the solver player.
///
/// The file: the bytes `TOSSRET1`, then little-endian `u64` game id (a
/// hash of the description, so a table is never read for another game),
/// `u32` players, `u64` entries, and per entry `u32` key length, the key
/// words, one `f64` per player and the `u32` best move.
pub struct RetroTable {
    pub game_id: u64,
    pub players: usize,
    /// Keys in the order they are written (deterministic bytes).
    order: Vec<Box<[u64]>>,
    map: HashMap<Box<[u64]>, (Payoffs, u32)>,
}

const MAGIC: &[u8; 8] = b"TOSSRET1";

impl RetroTable {
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The payoffs and best move (`u32::MAX`: none) of the position with
    /// this key.
    pub fn get(&self, key: &[u64]) -> Option<(&Payoffs, u32)> {
        self.map.get(key).map(|(v, b)| (v, *b))
    }

    pub fn write(&self, w: &mut impl Write) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(w);
        out.write_all(MAGIC)?;
        out.write_all(&self.game_id.to_le_bytes())?;
        out.write_all(&(self.players as u32).to_le_bytes())?;
        out.write_all(&(self.map.len() as u64).to_le_bytes())?;
        for key in &self.order {
            let Some((v, best)) = self.map.get(key) else {
                continue;
            };
            out.write_all(&(key.len() as u32).to_le_bytes())?;
            for w in key.iter() {
                out.write_all(&w.to_le_bytes())?;
            }
            for x in v.iter() {
                out.write_all(&x.to_le_bytes())?;
            }
            out.write_all(&best.to_le_bytes())?;
        }
        out.flush()
    }

    /// Reads a table written by [`RetroTable::write`] for the game
    /// `game_id` with `players` players.
    pub fn read(r: &mut impl Read, game_id: u64, players: usize) -> Result<RetroTable, String> {
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let s = bytes
                .get(at..at + n)
                .ok_or_else(|| format!("the table is cut short at byte {at}"))?;
            at += n;
            Ok(s)
        };
        if take(8)? != MAGIC {
            return Err("not a retrograde table (it does not start with TOSSRET1)".into());
        }
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        let half = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or([0; 4]));
        let id = word(take(8)?);
        if id != game_id {
            return Err("the table was written for another game description".into());
        }
        let np = half(take(4)?) as usize;
        if np != players {
            return Err(format!(
                "the table is for {np} players, the game has {players}"
            ));
        }
        let n = word(take(8)?);
        let mut map = HashMap::new();
        let mut order = Vec::new();
        for _ in 0..n {
            let len = half(take(4)?) as usize;
            let raw = take(len.checked_mul(8).ok_or("a key length overflows")?)?;
            let key: Box<[u64]> = raw.chunks(8).map(word).collect();
            let mut v = Payoffs::new();
            for _ in 0..np {
                v.push(f64::from_le_bytes(take(8)?.try_into().unwrap_or([0; 8])));
            }
            let best = half(take(4)?);
            order.push(key.clone());
            map.insert(key, (v, best));
        }
        Ok(RetroTable {
            game_id,
            players,
            order,
            map,
        })
    }
}

/// The number of distinct positions reachable in exactly `n` plies (joint moves) from
/// `root`, for `n = 0..=max_plies` (terminal positions are not expanded).
/// Stops with [`RetroError::Memory`] when a layer would pass the bound.
pub fn positions_by_plies<G: Game>(
    game: &G,
    root: &G::State,
    max_plies: usize,
    memory_bytes: usize,
) -> Result<Vec<u64>, RetroError> {
    let mut key = Vec::new();
    let mut layer: Vec<G::State> = vec![root.clone()];
    let mut counts = vec![1u64];
    let mut movers = Vec::new();
    let mut moves: Vec<Vec<G::Move>> = Vec::new();
    let mut outcomes = Vec::new();
    for _ in 0..max_plies {
        let mut seen: WordMap<()> = WordMap::default();
        let mut next = Vec::new();
        let mut bytes = 0usize;
        for s in &layer {
            game.movers_and_moves(s, &mut movers, &mut moves);
            if movers.is_empty() {
                continue;
            }
            let joints = all_joint_moves(&moves[..movers.len()]);
            for joint in joints {
                successors(game, s, &joint, &mut outcomes).map_err(RetroError::Solve)?;
                for (_, t) in outcomes.drain(..) {
                    if !game.state_key(&t, &mut key) {
                        return Err(RetroError::Solve(SolveError::NoKey));
                    }
                    if seen.contains_key(&key[..]) {
                        continue;
                    }
                    bytes += key.len() * 8 + NODE_BYTES + std::mem::size_of::<G::State>();
                    if bytes > memory_bytes {
                        return Err(RetroError::Memory {
                            positions: seen.len(),
                        });
                    }
                    seen.insert(key[..].into(), ());
                    next.push(t);
                }
            }
        }
        counts.push(next.len() as u64);
        layer = next;
    }
    if let Some(f) = game.fault() {
        return Err(RetroError::Solve(SolveError::Fault(f)));
    }
    Ok(counts)
}
