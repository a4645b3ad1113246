//! Step 3 of grounding: [`GroundGame`], the network interpreted.
//!
//! The conventions are [`GdlGame`](crate::GdlGame)'s (players, movers,
//! canonical move order, goals), so the two agree move for move and a
//! seeded playout is the same on both. A state is one bit per fluent. The
//! gates are flattened into three arrays (clause starts per gate, literal
//! starts per clause, literals) and evaluated in order into a byte per
//! signal; the values of the last state asked about are kept (behind a
//! mutex, so the game is `Sync`; clone it for parallel playouts).

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use toss_core::game::{Game, Payoffs, Rng, index_below};
use toss_core::structure::Structure;

use super::propagate::{Counts, PropNet};
use super::{GroundError, GroundLimits, GroundProgram};
use crate::Description;

/// A state: bit `f` set when fluent `f` holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GroundState(pub Box<[u64]>);

impl GroundState {
    pub fn holds(&self, f: usize) -> bool {
        self.0[f / 64] >> (f % 64) & 1 == 1
    }
}

/// A move: the index of the action in its role's list
/// ([`GroundProgram::moves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroundMove(pub u32);

/// The network flattened for evaluation.
#[derive(Clone, Debug)]
struct Flat {
    /// Gate `g`'s clauses are `gate_start[g]..gate_start[g + 1]`.
    gate_start: Vec<u32>,
    /// Clause `c`'s literals are `lits[clause_start[c]..clause_start[c + 1]]`.
    clause_start: Vec<u32>,
    lits: Vec<u32>,
    /// For a gate that starts a recursive group, the end of the group.
    loop_end: Vec<u32>,
    /// For an input set (a gate whose clauses are single actions of one
    /// role), the role and the offset of its bitset of actions in `sets`;
    /// `(u32::MAX, 0)` for other gates. It is read as one bit test of the
    /// action chosen instead of one read per action.
    input_set: Vec<(u32, u32)>,
    sets: Vec<u64>,
}

impl Flat {
    fn new(p: &GroundProgram) -> Flat {
        let mut f = Flat {
            gate_start: vec![0],
            clause_start: vec![0],
            lits: Vec::new(),
            loop_end: vec![0; p.gates.len()],
            input_set: vec![(u32::MAX, 0); p.gates.len()],
            sets: Vec::new(),
        };
        let role_of = |l: super::Lit| {
            (0..p.roles.len()).find(|&r| {
                let first = p.input_signal(r, 0);
                !l.negated() && (first..first + p.moves[r].len() as u32).contains(&l.signal())
            })
        };
        for (g, gate) in p.gates.iter().enumerate() {
            let roles: Vec<Option<usize>> = gate
                .clauses
                .iter()
                .map(|c| if c.len() == 1 { role_of(c[0]) } else { None })
                .collect();
            if let Some(Some(r)) = roles.first()
                && roles.iter().all(|x| *x == Some(*r))
            {
                let off = f.sets.len();
                let first = p.input_signal(*r, 0);
                f.sets.resize(off + p.moves[*r].len().div_ceil(64), 0);
                for c in &gate.clauses {
                    let m = (c[0].signal() - first) as usize;
                    f.sets[off + m / 64] |= 1 << (m % 64);
                }
                f.input_set[g] = (*r as u32, off as u32);
            }
        }
        for g in &p.gates {
            for c in &g.clauses {
                f.lits.extend(c.iter().map(|l| l.0));
                f.clause_start.push(f.lits.len() as u32);
            }
            f.gate_start.push((f.clause_start.len() - 1) as u32);
        }
        for l in &p.loops {
            f.loop_end[l.start] = l.end as u32;
        }
        f
    }

    #[inline]
    fn gate(&self, g: usize, vals: &[u8], chosen: &[u32]) -> u8 {
        let (r, off) = self.input_set[g];
        if r != u32::MAX {
            let m = chosen[r as usize] as usize;
            return (self.sets[off as usize + m / 64] >> (m % 64) & 1) as u8;
        }
        let (c0, c1) = (self.gate_start[g] as usize, self.gate_start[g + 1] as usize);
        for c in c0..c1 {
            let (l0, l1) = (
                self.clause_start[c] as usize,
                self.clause_start[c + 1] as usize,
            );
            if self.lits[l0..l1]
                .iter()
                .all(|&l| vals[(l >> 1) as usize] ^ (l & 1) as u8 == 1)
            {
                return 1;
            }
        }
        0
    }

    /// Evaluates gates `range` (in order; recursive groups to their least
    /// fixpoint) into `vals`, at `base + g`.
    fn eval(&self, range: std::ops::Range<usize>, base: usize, vals: &mut [u8], chosen: &[u32]) {
        let mut g = range.start;
        while g < range.end {
            let end = self.loop_end[g] as usize;
            if end > g {
                (g..end).for_each(|h| vals[base + h] = 0);
                loop {
                    let mut changed = false;
                    for h in g..end {
                        let v = self.gate(h, vals, chosen);
                        if v != vals[base + h] {
                            vals[base + h] = v;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                g = end;
            } else {
                vals[base + g] = self.gate(g, vals, chosen);
                g += 1;
            }
        }
    }
}

struct Cache {
    /// Signal values of full evaluation (propagation keeps its own).
    vals: Vec<u8>,
    /// The state the values are of.
    state: Option<GroundState>,
    goals_done: bool,
    /// The action of each role in the joint move last applied (`NONE`
    /// before the first).
    chosen: Vec<u32>,
    counts: Counts,
}

const NONE: u32 = u32::MAX;

/// The index of the `i`-th set bit of `words` (there are more than `i`).
fn nth_bit(words: &[u64], mut i: usize) -> u32 {
    for (k, &w) in words.iter().enumerate() {
        let n = w.count_ones() as usize;
        if i < n {
            let mut w = w;
            for _ in 0..i {
                w &= w - 1;
            }
            return (k * 64) as u32 + w.trailing_zeros();
        }
        i -= n;
    }
    0
}

impl Cache {
    fn new(p: &GroundProgram) -> Cache {
        Cache {
            vals: vec![0; p.num_signals()],
            state: None,
            goals_done: false,
            chosen: vec![NONE; p.roles.len()],
            counts: Counts::default(),
        }
    }
}

/// How the network is evaluated: by propagating changes, or in full (the
/// networks with recursive groups).
#[derive(Clone, Debug)]
enum Eval {
    Propagate(Arc<PropNet>),
    Full(Arc<Flat>),
}

/// A grounded GDL game, interpreted: the run-time grounded form.
pub struct GroundGame {
    prog: Arc<GroundProgram>,
    eval: Eval,
    /// Per role: action text -> index.
    action_index: Arc<Vec<std::collections::HashMap<String, u32>>>,
    cache: Mutex<Cache>,
    init: GroundState,
    /// The first fault of the play ([`Game::fault`]), shared with clones
    /// (as [`GdlGame`](crate::GdlGame)'s).
    fault: Arc<std::sync::OnceLock<String>>,
}

impl Clone for GroundGame {
    fn clone(&self) -> Self {
        GroundGame {
            prog: self.prog.clone(),
            eval: self.eval.clone(),
            action_index: self.action_index.clone(),
            cache: Mutex::new(Cache::new(&self.prog)),
            init: self.init.clone(),
            fault: self.fault.clone(),
        }
    }
}

impl fmt::Debug for GroundGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GroundGame")
            .field("roles", &self.prog.roles)
            .field("gates", &self.prog.gates.len())
            .finish()
    }
}

impl GroundGame {
    pub fn new(prog: GroundProgram) -> GroundGame {
        let words = prog.fluents.len().div_ceil(64).max(1);
        let mut init = vec![0u64; words];
        for &f in &prog.init {
            init[f as usize / 64] |= 1 << (f % 64);
        }
        let eval = match PropNet::new(&prog) {
            Some(net) => Eval::Propagate(Arc::new(net)),
            None => Eval::Full(Arc::new(Flat::new(&prog))),
        };
        let action_index = prog
            .moves
            .iter()
            .map(|ms| {
                ms.iter()
                    .enumerate()
                    .map(|(m, t)| (t.clone(), m as u32))
                    .collect()
            })
            .collect();
        GroundGame {
            cache: Mutex::new(Cache::new(&prog)),
            eval,
            action_index: Arc::new(action_index),
            prog: Arc::new(prog),
            init: GroundState(init.into_boxed_slice()),
            fault: Arc::new(std::sync::OnceLock::new()),
        }
    }

    /// Grounds a checked description ([`super::ground_with`]).
    pub fn from_description(
        desc: &Description,
        limits: GroundLimits,
    ) -> Result<GroundGame, GroundError> {
        super::ground_with(desc, limits).map(GroundGame::new)
    }

    pub fn program(&self) -> &GroundProgram {
        &self.prog
    }

    fn lock(&self) -> MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The cache with the values of state `s`.
    fn at(&self, s: &GroundState) -> MutexGuard<'_, Cache> {
        let mut c = self.lock();
        self.load(&mut c, &s.0);
        c
    }

    /// Brings the cache to the state with these words: with propagation,
    /// the fluents that differ from the cached state flipped; in full, the
    /// state phase evaluated.
    fn load(&self, c: &mut Cache, words: &[u64]) {
        if c.state.as_ref().is_some_and(|cur| *cur.0 == *words) {
            return;
        }
        let p = &*self.prog;
        match &self.eval {
            Eval::Propagate(net) => match &mut c.state {
                Some(cur) => {
                    for (w, (old, new)) in cur.0.iter_mut().zip(words).enumerate() {
                        let mut diff = *old ^ *new;
                        while diff != 0 {
                            let b = diff.trailing_zeros() as usize;
                            diff &= diff - 1;
                            let f = w * 64 + b;
                            net.set(&mut c.counts, p.fluent_signal(f), (new >> b & 1) as u8);
                        }
                        *old = *new;
                    }
                    net.settle(&mut c.counts);
                }
                None => {
                    let s = GroundState(words.into());
                    let mut vals = vec![0u8; p.num_signals()];
                    for (f, v) in vals[1..=p.fluents.len()].iter_mut().enumerate() {
                        *v = s.holds(f) as u8;
                    }
                    net.reset(vals, &mut c.counts);
                    c.chosen.iter_mut().for_each(|x| *x = NONE);
                    c.state = Some(s);
                }
            },
            Eval::Full(flat) => {
                let vals = &mut c.vals;
                vals[0] = 0;
                for f in 0..p.fluents.len() {
                    vals[1 + f] = (words[f / 64] >> (f % 64) & 1) as u8;
                }
                flat.eval(
                    p.state_gates.clone(),
                    p.gate_base() as usize,
                    &mut c.vals,
                    &[],
                );
                match &mut c.state {
                    Some(cur) => cur.0.copy_from_slice(words),
                    None => c.state = Some(GroundState(words.into())),
                }
                c.goals_done = false;
            }
        }
    }

    /// Applies a joint move (one action index per role) to the cached
    /// state and writes the next state's words to `out`; the cache stays
    /// at the state it was at.
    fn next_words(&self, c: &mut Cache, joint: &[u32], out: &mut [u64]) {
        let p = &*self.prog;
        match &self.eval {
            Eval::Propagate(net) => {
                for (r, &m) in joint.iter().enumerate() {
                    let old = c.chosen[r];
                    if old != m {
                        if old != NONE {
                            net.set(&mut c.counts, p.input_signal(r, old as usize), 0);
                        }
                        net.set(&mut c.counts, p.input_signal(r, m as usize), 1);
                        c.chosen[r] = m;
                    }
                }
                net.settle(&mut c.counts);
            }
            Eval::Full(flat) => {
                let ib = p.input_base() as usize;
                let base = p.gate_base() as usize;
                c.vals[ib..base].iter_mut().for_each(|v| *v = 0);
                for (r, &m) in joint.iter().enumerate() {
                    c.vals[p.input_signal(r, m as usize) as usize] = 1;
                    c.chosen[r] = m;
                }
                flat.eval(p.move_gates.clone(), base, &mut c.vals, &c.chosen);
            }
        }
        if let Eval::Propagate(net) = &self.eval {
            out.copy_from_slice(&c.counts.out[net.next_word..net.next_word + out.len()]);
            return;
        }
        let vals = self.vals(c);
        out.iter_mut().for_each(|w| *w = 0);
        for (f, &l) in p.next.iter().enumerate() {
            if Self::value(vals, l) {
                out[f / 64] |= 1 << (f % 64);
            }
        }
    }

    /// The legal actions of role `r` in the cached state as bits, when
    /// propagating (`false` in full evaluation: read the literals).
    fn legal_words(&self, c: &Cache, r: usize, out: &mut Vec<u64>) -> bool {
        match &self.eval {
            Eval::Propagate(net) => {
                net.legal_words(&c.counts, r, out);
                true
            }
            Eval::Full(_) => false,
        }
    }

    /// The goal phase of the cached state, evaluated (with propagation the
    /// goal gates are always current).
    fn ensure_goals(&self, c: &mut Cache) {
        if let Eval::Full(flat) = &self.eval
            && !c.goals_done
        {
            let base = self.prog.gate_base() as usize;
            flat.eval(self.prog.goal_gates.clone(), base, &mut c.vals, &[]);
            c.goals_done = true;
        }
    }

    /// The payoffs of the cached state (the largest goal value of each
    /// role, 0 without one); goals that are a fault of the play are
    /// reported as in [`GdlGame`](crate::GdlGame)'s `payoffs`. (Goal values
    /// that are not numbers are dropped by grounding.)
    fn payoffs_in(&self, c: &mut Cache, out: &mut [f64]) {
        self.ensure_goals(c);
        let vals = self.vals(c);
        let values = self.goal_values_in(vals);
        for (o, v) in out.iter_mut().zip(&values) {
            *o = v.last().map_or(0.0, |&v| v as f64);
        }
        if self.fault.get().is_some() {
            return;
        }
        let terminal = || Self::value(vals, self.prog.terminal);
        if let Some(why) = crate::game::goal_fault(&values, None, &self.prog.roles, terminal) {
            let _ = self
                .fault
                .set(format!("{why}; state: {}", self.cached_state_text(c)));
        }
    }

    /// Reports role `p` without a legal move in the cached, non-terminal
    /// state as the play's fault.
    fn no_legal_move(&self, c: &Cache, p: usize) {
        if self.fault.get().is_none() {
            let state = self.cached_state_text(c);
            let _ = self
                .fault
                .set(crate::game::no_legal_move(&self.prog.roles[p], &state));
        }
    }

    /// The cached state as KIF text, for fault messages.
    fn cached_state_text(&self, c: &Cache) -> String {
        c.state
            .as_ref()
            .map_or_else(String::new, |s| self.state_to_string(s))
    }

    /// Per role, the goal values that hold under signal values `vals`,
    /// increasing.
    fn goal_values_in(&self, vals: &[u8]) -> Vec<Vec<u64>> {
        self.prog
            .goals
            .iter()
            .map(|gs| {
                gs.iter()
                    .filter(|&&(_, l)| Self::value(vals, l))
                    .map(|&(v, _)| v)
                    .collect()
            })
            .collect()
    }

    /// The signal values of the cached state.
    fn vals<'a>(&self, c: &'a Cache) -> &'a [u8] {
        match self.eval {
            Eval::Propagate(_) => &c.counts.vals,
            Eval::Full(_) => &c.vals,
        }
    }

    #[inline]
    fn value(vals: &[u8], l: super::Lit) -> bool {
        vals[l.signal() as usize] ^ l.negated() as u8 == 1
    }

    pub fn terminal(&self, s: &GroundState) -> bool {
        let c = self.at(s);
        Self::value(self.vals(&c), self.prog.terminal)
    }

    /// The goal of each role in `s`, or the fault of the game file when a
    /// role has no goal or several (as [`GdlGame::goals`](crate::GdlGame::goals)).
    pub fn goals(&self, s: &GroundState) -> Result<Vec<u64>, crate::GoalError> {
        crate::game::single_goals(self.goal_values(s), &self.prog.roles, || {
            self.state_to_string(s)
        })
    }

    /// The action of role `r` with this KIF text (as the reasoner prints
    /// it), if the role can ever take it.
    pub fn action(&self, r: usize, kif: &str) -> Option<GroundMove> {
        self.action_index.get(r)?.get(kif).map(|&m| GroundMove(m))
    }

    /// Per role, the goal values that hold in `s`, increasing.
    pub fn goal_values(&self, s: &GroundState) -> Vec<Vec<u64>> {
        let mut c = self.at(s);
        self.ensure_goals(&mut c);
        self.goal_values_in(self.vals(&c))
    }

    pub fn next_state(&self, s: &GroundState, joint: &[GroundMove]) -> GroundState {
        let mut c = self.at(s);
        let joint: Vec<u32> = joint.iter().map(|m| m.0).collect();
        let mut out = vec![0u64; s.0.len()];
        self.next_words(&mut c, &joint, &mut out);
        GroundState(out.into_boxed_slice())
    }

    /// The fluents of a state in KIF, sorted, joined by spaces (as
    /// [`GdlGame::state_to_string`](crate::GdlGame::state_to_string)).
    pub fn state_to_string(&self, s: &GroundState) -> String {
        let mut v: Vec<&str> = (0..self.prog.fluents.len())
            .filter(|&f| s.holds(f))
            .map(|f| self.prog.fluents[f].as_str())
            .collect();
        v.sort_unstable();
        v.join(" ")
    }

    /// The state with these fluents (KIF texts); `None` if one of them is
    /// not a fluent of the grounded game.
    pub fn state_from_fluents<'a>(
        &self,
        fluents: impl IntoIterator<Item = &'a str>,
    ) -> Option<GroundState> {
        let mut out = vec![0u64; self.init.0.len()];
        for t in fluents {
            let f = self.prog.fluents.iter().position(|x| x == t)?;
            out[f / 64] |= 1 << (f % 64);
        }
        Some(GroundState(out.into_boxed_slice()))
    }

    /// Whether `player` has a legal move in the cached state.
    fn has_legal(&self, c: &Cache, player: usize) -> bool {
        let mut words = Vec::new();
        if self.legal_words(c, player, &mut words) {
            return words.iter().any(|&w| w != 0);
        }
        let vals = self.vals(c);
        self.prog.legal[player]
            .iter()
            .any(|&l| Self::value(vals, l))
    }

    fn legal_into(&self, c: &Cache, player: usize, out: &mut Vec<GroundMove>) {
        out.clear();
        let mut words = Vec::new();
        if self.legal_words(c, player, &mut words) {
            for (k, &w) in words.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    out.push(GroundMove((k * 64) as u32 + w.trailing_zeros()));
                    w &= w - 1;
                }
            }
            return;
        }
        let vals = self.vals(c);
        for (m, &l) in self.prog.legal[player].iter().enumerate() {
            if Self::value(vals, l) {
                out.push(GroundMove(m as u32));
            }
        }
    }
}

impl Game for GroundGame {
    type State = GroundState;
    type Move = GroundMove;

    fn player_names(&self) -> &[String] {
        &self.prog.roles
    }

    fn payoff_bounds(&self) -> Option<(f64, f64)> {
        Some((0.0, 100.0))
    }

    fn initial_state(&self) -> GroundState {
        self.init.clone()
    }

    /// All roles in a non-terminal state; none once the play has a fault,
    /// which a role without a legal move here is.
    fn movers(&self, s: &GroundState, out: &mut Vec<usize>) {
        out.clear();
        if self.fault.get().is_some() {
            return;
        }
        let c = self.at(s);
        if Self::value(self.vals(&c), self.prog.terminal) {
            return;
        }
        let n = self.prog.roles.len();
        // Whether each role can move, without listing the moves.
        if let Some(p) = (0..n).find(|&p| !self.has_legal(&c, p)) {
            self.no_legal_move(&c, p);
            return;
        }
        out.extend(0..n);
    }

    fn legal_moves(&self, s: &GroundState, player: usize, out: &mut Vec<GroundMove>) {
        let c = self.at(s);
        self.legal_into(&c, player, out);
    }

    fn movers_and_moves(
        &self,
        s: &GroundState,
        movers: &mut Vec<usize>,
        moves: &mut Vec<Vec<GroundMove>>,
    ) {
        movers.clear();
        if self.fault.get().is_some() {
            return;
        }
        let c = self.at(s);
        let vals = self.vals(&c);
        if Self::value(vals, self.prog.terminal) {
            return;
        }
        let n = self.prog.roles.len();
        if moves.len() < n {
            moves.resize_with(n, Vec::new);
        }
        for (p, out) in moves.iter_mut().enumerate().take(n) {
            self.legal_into(&c, p, out);
            if out.is_empty() {
                self.no_legal_move(&c, p);
                return;
            }
        }
        movers.extend(0..n);
    }

    fn apply(&self, s: &mut GroundState, joint: &[GroundMove], _rng: &mut Rng) {
        *s = self.next_state(s, joint);
    }

    fn is_terminal(&self, s: &GroundState) -> bool {
        self.fault.get().is_some() || self.terminal(s)
    }

    fn fault(&self) -> Option<String> {
        self.fault.get().cloned()
    }

    fn has_compound_turns(&self) -> bool {
        false
    }

    fn state_key(&self, s: &GroundState, out: &mut Vec<u64>) -> bool {
        toss_core::game::hash_words(s, out);
        true
    }

    /// Fluent indices come from grounding, which is deterministic.
    fn stable_keys(&self) -> bool {
        true
    }

    /// GDL is deterministic (GDL-II's `random` role is a player here).
    fn has_chance(&self) -> bool {
        false
    }

    fn payoffs(&self, s: &GroundState, out: &mut [f64]) {
        let mut c = self.at(s);
        self.payoffs_in(&mut c, out);
    }

    /// The trait's playout (the same random draws, so a seed gives the same
    /// play) under one lock, with the state updated in place.
    fn random_playout_from(
        &self,
        s: &mut GroundState,
        rng: &mut Rng,
        max_turns: usize,
    ) -> (usize, Payoffs) {
        let mut c = self.lock();
        let n = self.prog.roles.len();
        let mut cur: Vec<u64> = s.0.to_vec();
        let mut next = vec![0u64; cur.len()];
        let mut joint: Vec<u32> = Vec::with_capacity(n);
        let mut words = Vec::new();
        let mut turns = 0;
        loop {
            self.load(&mut c, &cur);
            let vals = self.vals(&c);
            if Self::value(vals, self.prog.terminal)
                || turns >= max_turns
                || self.fault.get().is_some()
            {
                break;
            }
            joint.clear();
            for (r, legal) in self.prog.legal.iter().enumerate() {
                let m = match self.legal_words(&c, r, &mut words) {
                    true => {
                        let k: u32 = words.iter().map(|w| w.count_ones()).sum();
                        if k == 0 {
                            self.no_legal_move(&c, r);
                            break;
                        }
                        nth_bit(&words, index_below(rng, k as usize))
                    }
                    false => {
                        let k = legal.iter().filter(|&&l| Self::value(vals, l)).count();
                        if k == 0 {
                            self.no_legal_move(&c, r);
                            break;
                        }
                        let i = index_below(rng, k);
                        legal
                            .iter()
                            .enumerate()
                            .filter(|&(_, &l)| Self::value(vals, l))
                            .nth(i)
                            .map_or(0, |(m, _)| m as u32)
                    }
                };
                joint.push(m);
            }
            if joint.len() < n {
                break;
            }
            self.next_words(&mut c, &joint, &mut next);
            std::mem::swap(&mut cur, &mut next);
            turns += 1;
        }
        s.0.copy_from_slice(&cur);
        let mut pay = Payoffs::from_elem(0.0, n);
        self.payoffs_in(&mut c, &mut pay);
        (turns, pay)
    }

    /// As [`GdlGame`](crate::GdlGame)'s ([`fluents_structure`]).
    fn to_structure(&self, s: &GroundState) -> Structure {
        let parts = &self.prog.fluent_parts;
        fluents_structure(
            (0..parts.len())
                .filter(|&f| s.holds(f))
                .map(|f| (parts[f].0.as_str(), parts[f].1.as_slice())),
        )
    }

    fn location(&self, _s: &GroundState) -> usize {
        0
    }

    fn move_to_string(&self, _s: &GroundState, player: usize, m: &GroundMove) -> String {
        self.prog.moves[player][m.0 as usize].clone()
    }
}

/// The structure of a state given by its fluents' functors and argument
/// texts, in fluent order, as [`GdlGame`](crate::GdlGame) builds it: one
/// element per distinct argument, one relation per functor (`name/arity`
/// when a functor has several arities). Shared by [`GroundGame`] and the
/// code the derive generates, so both build the same structure.
pub fn fluents_structure<'a, A: AsRef<str> + 'a>(
    holding: impl Iterator<Item = (&'a str, &'a [A])> + Clone,
) -> Structure {
    let mut arities: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
    for (base, args) in holding.clone() {
        let e = arities.entry(base).or_default();
        if !e.contains(&args.len()) {
            e.push(args.len());
        }
    }
    let mut st = Structure::new();
    for (base, args) in holding {
        let name = if arities[base].len() > 1 {
            format!("{base}/{}", args.len())
        } else {
            base.to_string()
        };
        let elems: Vec<u32> = args.iter().map(|a| st.add_element(a.as_ref())).collect();
        if let Some(r) = st.declare_relation(&name, args.len()) {
            st.add_tuple(r, &elems);
        }
    }
    st
}
