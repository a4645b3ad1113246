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

use toss_core::game::{Game, Rng};
use toss_core::structure::Structure;

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
    vals: Vec<u8>,
    state: Option<GroundState>,
    goals_done: bool,
    /// The action of each role in the joint move being applied.
    chosen: Vec<u32>,
}

/// A grounded GDL game, interpreted: the run-time grounded form.
pub struct GroundGame {
    prog: Arc<GroundProgram>,
    flat: Arc<Flat>,
    cache: Mutex<Cache>,
    init: GroundState,
}

impl Clone for GroundGame {
    fn clone(&self) -> Self {
        GroundGame {
            prog: self.prog.clone(),
            flat: self.flat.clone(),
            cache: Mutex::new(Cache {
                vals: vec![0; self.prog.num_signals()],
                state: None,
                goals_done: false,
                chosen: Vec::new(),
            }),
            init: self.init.clone(),
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
        let flat = Flat::new(&prog);
        GroundGame {
            cache: Mutex::new(Cache {
                vals: vec![0; prog.num_signals()],
                state: None,
                goals_done: false,
                chosen: Vec::new(),
            }),
            flat: Arc::new(flat),
            prog: Arc::new(prog),
            init: GroundState(init.into_boxed_slice()),
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

    /// The cache with the state phase of `s` evaluated.
    fn at(&self, s: &GroundState) -> MutexGuard<'_, Cache> {
        let mut c = self.lock();
        if c.state.as_ref() != Some(s) {
            let nf = self.prog.fluents.len();
            let vals = &mut c.vals;
            vals[0] = 0;
            for f in 0..nf {
                vals[1 + f] = s.holds(f) as u8;
            }
            let base = self.prog.gate_base() as usize;
            self.flat
                .eval(self.prog.state_gates.clone(), base, &mut c.vals, &[]);
            c.state = Some(s.clone());
            c.goals_done = false;
        }
        c
    }

    #[inline]
    fn value(vals: &[u8], l: super::Lit) -> bool {
        vals[l.signal() as usize] ^ l.negated() as u8 == 1
    }

    pub fn terminal(&self, s: &GroundState) -> bool {
        let c = self.at(s);
        Self::value(&c.vals, self.prog.terminal)
    }

    /// Per role, the goal values that hold in `s`, increasing.
    pub fn goal_values(&self, s: &GroundState) -> Vec<Vec<u64>> {
        let mut c = self.at(s);
        if !c.goals_done {
            let base = self.prog.gate_base() as usize;
            self.flat
                .eval(self.prog.goal_gates.clone(), base, &mut c.vals, &[]);
            c.goals_done = true;
        }
        self.prog
            .goals
            .iter()
            .map(|gs| {
                gs.iter()
                    .filter(|&&(_, l)| Self::value(&c.vals, l))
                    .map(|&(v, _)| v)
                    .collect()
            })
            .collect()
    }

    pub fn next_state(&self, s: &GroundState, joint: &[GroundMove]) -> GroundState {
        let mut c = self.at(s);
        let p = &*self.prog;
        let ib = p.input_base() as usize;
        let base = p.gate_base() as usize;
        c.vals[ib..base].iter_mut().for_each(|v| *v = 0);
        let Cache { vals, chosen, .. } = &mut *c;
        let mut off = ib;
        chosen.clear();
        for (r, m) in joint.iter().enumerate() {
            vals[off + m.0 as usize] = 1;
            off += p.moves[r].len();
            chosen.push(m.0);
        }
        self.flat.eval(p.move_gates.clone(), base, vals, chosen);
        let mut out = vec![0u64; s.0.len()];
        for (f, &l) in p.next.iter().enumerate() {
            if Self::value(&c.vals, l) {
                out[f / 64] |= 1 << (f % 64);
            }
        }
        // The move phase leaves the state phase's values as they were.
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

    fn legal_into(&self, c: &Cache, player: usize, out: &mut Vec<GroundMove>) {
        out.clear();
        for (m, &l) in self.prog.legal[player].iter().enumerate() {
            if Self::value(&c.vals, l) {
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

    fn movers(&self, s: &GroundState, out: &mut Vec<usize>) {
        out.clear();
        if !self.terminal(s) {
            out.extend(0..self.prog.roles.len());
        }
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
        let c = self.at(s);
        if Self::value(&c.vals, self.prog.terminal) {
            return;
        }
        let n = self.prog.roles.len();
        movers.extend(0..n);
        if moves.len() < n {
            moves.resize_with(n, Vec::new);
        }
        for (p, out) in moves.iter_mut().enumerate().take(n) {
            self.legal_into(&c, p, out);
        }
    }

    fn apply(&self, s: &mut GroundState, joint: &[GroundMove], _rng: &mut Rng) {
        *s = self.next_state(s, joint);
    }

    fn is_terminal(&self, s: &GroundState) -> bool {
        self.terminal(s)
    }

    fn has_compound_turns(&self) -> bool {
        false
    }

    fn payoffs(&self, s: &GroundState, out: &mut [f64]) {
        for (o, v) in out.iter_mut().zip(self.goal_values(s)) {
            *o = v.last().copied().unwrap_or(0) as f64;
        }
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
