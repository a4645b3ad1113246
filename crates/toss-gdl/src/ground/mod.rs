//! Grounding: a GDL description as a propositional network (the idea of
//! the propnets of GGPLib and Sancho), for the run-time grounded form
//! ([`GroundGame`]) and for the derive, which emits the same network as
//! straight-line Rust.
//!
//! Three steps, one file each:
//!
//! 1. `instantiate`: the *relaxed* program (every `true` read as "reachable
//!    from `init` by some `next`", every `does` as "some `legal`", negative
//!    literals on state- and move-level relations dropped) over-approximates
//!    every reachable state, move and derived atom. The game-independent
//!    relations (`succ`, arithmetic, adjacency, `role`, `init`) keep their
//!    negations and are computed exactly, once, at grounding time. Each
//!    state- or move-level rule is then instantiated over the relaxed facts
//!    by the reasoner itself (a rule `inst_i(vars) :- relaxed body`).
//! 2. `network`: each ground atom becomes a gate, the disjunction of its
//!    instances' conjunctions; game-independent literals fold to constants;
//!    constants, single-literal gates and identical gates are folded away
//!    (shared subexpressions), gates no output needs are dropped, and the
//!    rest are ordered: the state phase (what `terminal`, `legal` and the
//!    state part of `next` read), the goal phase (read by `goal` alone) and
//!    the move phase (what depends on `does`). Positive recursion through
//!    the state (a path over the board) stays as a loop group evaluated to
//!    its least fixpoint; stratification forbids negation inside one.
//! 3. `game`: [`GroundGame`], the network interpreted as a
//!    [`Game`](toss_core::Game) that agrees with [`GdlGame`](crate::GdlGame)
//!    move for move: the same players, the same legal moves in the same
//!    canonical order, the same states and goals.
//!
//! A description whose relaxed facts or instances exceed [`GroundLimits`]
//! is refused with [`GroundError::TooLarge`] naming the limit, so grounding
//! never runs away with the machine; callers fall back on the reasoner.

use std::fmt;
use std::ops::Range;

use crate::Description;
use crate::reasoner::ProgramError;

mod game;
mod instantiate;
mod network;
mod propagate;

pub use game::{GroundGame, GroundMove, GroundState, fluents_structure};
pub(crate) use instantiate::{Aggregate, aggregate};

/// A literal of the network: `signal << 1 | negated`. Signal 0 is the
/// constant false, so [`Lit::FALSE`] and [`Lit::TRUE`] are literals too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lit(pub u32);

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

impl Lit {
    pub const FALSE: Lit = Lit(0);
    pub const TRUE: Lit = Lit(1);

    pub fn new(signal: u32, negated: bool) -> Lit {
        Lit(signal << 1 | negated as u32)
    }
    pub fn signal(self) -> u32 {
        self.0 >> 1
    }
    pub fn negated(self) -> bool {
        self.0 & 1 == 1
    }
    pub fn is_const(self) -> bool {
        self.0 < 2
    }
}

/// A gate: the disjunction of its clauses, each a conjunction of literals
/// (a ground atom defined by its rule instances). No clause is empty and
/// no gate has no clause: those fold to constants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gate {
    /// The ground atom, in KIF (the first one when identical gates merged).
    pub atom: String,
    pub clauses: Vec<Vec<Lit>>,
}

/// The grounded game. Signals: 0 the constant false, then the fluents
/// (`1..=fluents.len()`), then every role's inputs (`does` atoms, one per
/// legal action, in the order of [`GroundProgram::moves`]), then the gates
/// in evaluation order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroundProgram {
    pub roles: Vec<String>,
    /// Every fluent of the relaxed reachable states, in KIF, in canonical
    /// term order.
    pub fluents: Vec<String>,
    /// Each fluent's functor and argument texts (for [`toss_core::Structure`]s).
    pub fluent_parts: Vec<(String, Vec<String>)>,
    /// The fluents of the initial state (indices into `fluents`).
    pub init: Vec<u32>,
    /// Each role's possible actions, in canonical term order (the order of
    /// [`GdlGame`](crate::GdlGame)'s legal moves).
    pub moves: Vec<Vec<String>>,
    pub gates: Vec<Gate>,
    /// The phases, as ranges of `gates`: state, goal, move.
    pub state_gates: Range<usize>,
    pub goal_gates: Range<usize>,
    pub move_gates: Range<usize>,
    /// Recursive groups, as ranges of `gates`, each evaluated to its least
    /// fixpoint.
    pub loops: Vec<Range<usize>>,
    pub terminal: Lit,
    /// Per role and action: whether it is legal.
    pub legal: Vec<Vec<Lit>>,
    /// Per role: the goal values (numbers 0 to 100) with their literals, in
    /// increasing value.
    pub goals: Vec<Vec<(u64, Lit)>>,
    /// Per fluent: whether it holds in the next state.
    pub next: Vec<Lit>,
}

impl GroundProgram {
    /// The signal of fluent `f`.
    pub fn fluent_signal(&self, f: usize) -> u32 {
        1 + f as u32
    }
    /// The fluent `l` reads, if it is a fluent's literal.
    pub fn fluent_of(&self, l: Lit) -> Option<usize> {
        let s = l.signal();
        (s >= 1 && s < self.input_base()).then(|| (s - 1) as usize)
    }
    /// The signal of role `r`'s action `m`.
    pub fn input_signal(&self, r: usize, m: usize) -> u32 {
        self.input_base() + self.moves[..r].iter().map(Vec::len).sum::<usize>() as u32 + m as u32
    }
    /// The first input signal.
    pub fn input_base(&self) -> u32 {
        1 + self.fluents.len() as u32
    }
    /// The signal of gate `g`.
    pub fn gate_signal(&self, g: usize) -> u32 {
        self.gate_base() + g as u32
    }
    /// The first gate signal.
    pub fn gate_base(&self) -> u32 {
        self.input_base() + self.moves.iter().map(Vec::len).sum::<usize>() as u32
    }
    /// The number of signals (constant, fluents, inputs, gates).
    pub fn num_signals(&self) -> usize {
        self.gate_base() as usize + self.gates.len()
    }
    /// The total number of literals in all gates (the size of the network).
    pub fn num_literals(&self) -> usize {
        self.gates
            .iter()
            .flat_map(|g| &g.clauses)
            .map(Vec::len)
            .sum()
    }

    /// A literal as text: `false`, `true`, `f12`, `!in3`, `g7`.
    pub fn lit_name(&self, l: Lit) -> String {
        let s = l.signal();
        let neg = if l.negated() { "!" } else { "" };
        if s == 0 {
            return if l.negated() { "true" } else { "false" }.into();
        }
        if s < self.input_base() {
            format!("{neg}f{}", s - 1)
        } else if s < self.gate_base() {
            format!("{neg}in{}", s - self.input_base())
        } else {
            format!("{neg}g{}", s - self.gate_base())
        }
    }

    /// The text dump of the network: one line per fluent, input, gate and
    /// output (the plan dump of a grounded game).
    pub fn dump(&self) -> String {
        use std::fmt::Write as _;
        let mut o = String::new();
        let _ = writeln!(o, "roles: {}", self.roles.join(" "));
        let _ = writeln!(
            o,
            "size: {} fluents, {} inputs, {} gates ({} state, {} goal, {} move), {} literals, {} loops",
            self.fluents.len(),
            self.moves.iter().map(Vec::len).sum::<usize>(),
            self.gates.len(),
            self.state_gates.len(),
            self.goal_gates.len(),
            self.move_gates.len(),
            self.num_literals(),
            self.loops.len()
        );
        for (i, f) in self.fluents.iter().enumerate() {
            let init = if self.init.contains(&(i as u32)) {
                " init"
            } else {
                ""
            };
            let _ = writeln!(o, "f{i} {f}{init} next={}", self.lit_name(self.next[i]));
        }
        let mut k = 0;
        for (r, ms) in self.moves.iter().enumerate() {
            for (m, t) in ms.iter().enumerate() {
                let _ = writeln!(
                    o,
                    "in{k} {} does {t} legal={}",
                    self.roles[r],
                    self.lit_name(self.legal[r][m])
                );
                k += 1;
            }
        }
        for (i, g) in self.gates.iter().enumerate() {
            let phase = if self.state_gates.contains(&i) {
                "state"
            } else if self.goal_gates.contains(&i) {
                "goal"
            } else {
                "move"
            };
            let body: Vec<String> = g
                .clauses
                .iter()
                .map(|c| {
                    c.iter()
                        .map(|&l| self.lit_name(l))
                        .collect::<Vec<_>>()
                        .join(" & ")
                })
                .collect();
            let _ = writeln!(o, "g{i} [{phase}] {} = {}", g.atom, body.join(" | "));
        }
        for l in &self.loops {
            let _ = writeln!(o, "loop g{}..g{}", l.start, l.end);
        }
        let _ = writeln!(o, "terminal = {}", self.lit_name(self.terminal));
        for (r, gs) in self.goals.iter().enumerate() {
            for (v, l) in gs {
                let _ = writeln!(o, "goal {} {v} = {}", self.roles[r], self.lit_name(*l));
            }
        }
        o
    }
}

/// Bounds on grounding, so that a game whose grounding explodes is refused
/// quickly instead of eating the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroundLimits {
    /// Facts per relation of the relaxed program (and per rule's instance
    /// relation).
    pub facts: usize,
    /// Rule instances in all.
    pub instances: usize,
}

impl Default for GroundLimits {
    fn default() -> Self {
        GroundLimits {
            facts: toss_core::limits::GROUND_FACTS.value,
            instances: toss_core::limits::GROUND_INSTANCES.value,
        }
    }
}

/// Why a description was not grounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroundError {
    /// The description is not a program the reasoner accepts.
    Program(ProgramError),
    /// The relaxed facts of one relation exceed [`GroundLimits::facts`].
    TooManyFacts(usize),
    /// The rule instances exceed [`GroundLimits::instances`].
    TooManyInstances(usize),
    /// A game without roles.
    NoRoles,
    /// A goal value that is not a number may hold (in the relaxed game):
    /// the role and the value as KIF text.
    GoalNotNumber(String, String),
}

impl fmt::Display for GroundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroundError::Program(e) => write!(f, "{e}"),
            GroundError::TooManyFacts(n) => write!(
                f,
                "grounding limit: a relation of the relaxed game (every reachable fluent, move \
                 and derived atom) has more than {} facts (limit: {})",
                toss_core::limits::thousands(*n as u64),
                toss_core::limits::GROUND_FACTS.name
            ),
            GroundError::TooManyInstances(n) => write!(
                f,
                "grounding limit: the rules have more than {} ground instances (limit: {})",
                toss_core::limits::thousands(*n as u64),
                toss_core::limits::GROUND_INSTANCES.name
            ),
            GroundError::NoRoles => write!(f, "not a game: no role"),
            GroundError::GoalNotNumber(role, value) => write!(
                f,
                "goal value `{value}` of role `{role}` is not a number (a goal value is an \
                 integer from 0 to 100); the reasoner reports it when a play reaches it"
            ),
        }
    }
}

impl std::error::Error for GroundError {}

/// Grounds a checked description within the default limits.
pub fn ground(desc: &Description) -> Result<GroundProgram, GroundError> {
    ground_with(desc, GroundLimits::default())
}

/// Grounds a checked description within `limits`.
pub fn ground_with(desc: &Description, limits: GroundLimits) -> Result<GroundProgram, GroundError> {
    let plain = instantiate::instantiate(desc, limits, false).map(network::build);
    // Splitting rules ([`instantiate`]'s `decompose`) shrinks networks whose
    // rules join independent parts of the state, and grows those whose
    // frame rules it cuts apart from their moves; both are built when the
    // plain network is large, and the cheaper one kept.
    let cost = |p: &GroundProgram| p.num_literals() + p.gates.len();
    match plain {
        Ok(p) if cost(&p) <= SPLIT_WORTH_TRYING => Ok(p),
        plain => {
            let split = instantiate::instantiate(desc, limits, true).map(network::build);
            match (plain, split) {
                (Ok(p), Ok(s)) => Ok(if cost(&s) < cost(&p) { s } else { p }),
                (Ok(p), Err(_)) => Ok(p),
                (Err(_), Ok(s)) => Ok(s),
                (Err(e), Err(_)) => Err(e),
            }
        }
    }
}

/// The size (literals and gates) above which the split rules are tried too.
const SPLIT_WORTH_TRYING: usize = 20_000;
