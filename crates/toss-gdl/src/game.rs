//! [`GdlGame`]: a GDL description as a [`Game`].
//!
//! - Players are the roles, in the order of the `role` facts.
//! - A state is the sorted set of its fluents (interned ground terms).
//! - A move is an interned ground action term. Legal moves are listed in a
//!   canonical order that does not depend on interning: numbers by value,
//!   then symbols by name (case-insensitive), then arguments left to right.
//! - Movers: GDL is simultaneous, every role moves in every step, so in a
//!   non-terminal state the movers are *all* roles; a turn-based game gives
//!   the idle roles a single move (conventionally `noop`). A joint move is
//!   one move per role, so perft counts joint moves as one ply with the idle
//!   role's single move a factor of 1, as reference/gdl.md section 7.4 does.
//!   A role without legal moves in a non-terminal state (an unplayable game,
//!   reference/gdl.md "playability") is a fault of the play
//!   ([`Game::fault`], naming the role and the state): from then on every
//!   state is terminal.
//! - Payoffs are the `goal` values. A terminal state in which a role has no
//!   goal, or several, is a fault of the game file: [`GdlGame::goals`]
//!   reports it as a [`GoalError`]. [`Game::payoffs`] uses the largest value
//!   (0 without one) and reports as the play's fault a goal value that is
//!   not a number from 0 to 100 (in any state) and several goals of one
//!   role in a terminal state. A terminal state without a goal stays 0
//!   there, not a fault: corpus games have such states (chess.kif), and
//!   [`GdlGame::goals`] says so to whoever needs the exact goals.
//!
//! Evaluation is cached: the derived relations of the last state asked about
//! are kept (in an engine behind a mutex, so the game is `Sync`; clone the
//! game for parallel playouts), so `movers`, `legal_moves` and `apply` on the
//! same state evaluate its state-level relations once; only what `terminal`
//! needs is computed first, then `legal` or `goal` on demand.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::Description;
use super::reasoner::{Engine, Program, ProgramError, RelId};
use super::terms::TermId;
use toss_core::game::{Game, Rng};
use toss_core::structure::Structure;

/// A state: its fluents, sorted by id, without repetitions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GdlState(pub Vec<TermId>);

impl GdlState {
    /// The state with these fluents (sorted and deduplicated here).
    pub fn from_fluents(mut fluents: Vec<TermId>) -> Self {
        fluents.sort_unstable();
        fluents.dedup();
        GdlState(fluents)
    }
}

/// A move: an interned ground action term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GdlMove(pub TermId);

/// A terminal state whose goals the game file does not define properly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalError {
    pub role: String,
    /// The values found (empty: no goal).
    pub values: Vec<u64>,
    /// The fluents of the state, in KIF.
    pub state: String,
}

impl fmt::Display for GoalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.values.is_empty() {
            write!(
                f,
                "the game file defines no goal for role `{}` in this state (a fault of the game \
                 description: every role needs exactly one goal value in every terminal state); \
                 state: {}",
                self.role, self.state
            )
        } else {
            write!(
                f,
                "the game file defines several goals {:?} for role `{}` in this state (a fault of \
                 the game description: every role needs exactly one goal value in every terminal \
                 state); state: {}",
                self.values, self.role, self.state
            )
        }
    }
}

impl std::error::Error for GoalError {}

/// The one goal of each role from all its goal values in a state, or the
/// fault of the description when a role has none, several, or one above
/// 100 (`state` prints the state for the message).
pub(crate) fn single_goals(
    values: Vec<Vec<u64>>,
    roles: &[String],
    state: impl FnOnce() -> String,
) -> Result<Vec<u64>, GoalError> {
    let mut out = Vec::new();
    for (p, vals) in values.into_iter().enumerate() {
        if vals.len() != 1 || vals[0] > 100 {
            return Err(GoalError {
                role: roles[p].clone(),
                values: vals,
                state: state(),
            });
        }
        out.push(vals[0]);
    }
    Ok(out)
}

/// The fault of a role without a legal move in a non-terminal state.
pub(crate) fn no_legal_move(role: &str, state: &str) -> String {
    format!(
        "role `{role}` has no legal move in a state that is not terminal (a fault of the game \
         description: every role needs a legal move in every non-terminal state); state: {state}"
    )
}

/// What is wrong with the goals of a state, as a fault of the play: a
/// value not a number (`not_number`, with its role) or above 100, in any
/// state; several values of one role in a terminal state (`terminal` is
/// asked only then). The state is for the caller to add.
pub(crate) fn goal_fault(
    values: &[Vec<u64>],
    not_number: Option<(usize, String)>,
    roles: &[String],
    terminal: impl FnOnce() -> bool,
) -> Option<String> {
    const NOTE: &str =
        "(a fault of the game description: a goal value is an integer from 0 to 100)";
    if let Some((p, v)) = not_number {
        return Some(format!(
            "goal value `{v}` of role `{}` is not a number {NOTE}",
            roles[p]
        ));
    }
    for (p, vs) in values.iter().enumerate() {
        if let Some(v) = vs.iter().find(|&&v| v > 100) {
            return Some(format!(
                "goal value {v} of role `{}` is above 100 {NOTE}",
                roles[p]
            ));
        }
    }
    let several = values.iter().position(|vs| vs.len() > 1)?;
    terminal().then(|| {
        format!(
            "the game file defines several goals {:?} for role `{}` in this terminal state (a \
             fault of the game description: every role needs exactly one goal value in every \
             terminal state)",
            values[several], roles[several]
        )
    })
}

struct Cache {
    e: Engine,
    state: Option<Vec<TermId>>,
    terminal: Option<bool>,
    /// The sorted legal moves of each role, valid where `legal_ok` is set
    /// (the vectors are kept across states to reuse their memory).
    legal: Vec<Vec<TermId>>,
    legal_ok: Vec<bool>,
    /// The `does` facts of the joint move being applied.
    does: Vec<(TermId, TermId)>,
}

/// A GDL game. See the module documentation for the conventions.
pub struct GdlGame {
    prog: Arc<Program>,
    cache: Mutex<Cache>,
    roles: Vec<String>,
    role_terms: Vec<TermId>,
    init: GdlState,
    /// The first fault of the play ([`Game::fault`]), shared with clones,
    /// which parallel searches play on.
    fault: Arc<OnceLock<String>>,
    /// Where each relation is defined, `file:line:col` by name, for the
    /// faults about a relation ([`GdlGame::set_relation_positions`]).
    relation_positions: Arc<std::collections::HashMap<String, String>>,
}

impl Clone for GdlGame {
    fn clone(&self) -> Self {
        let c = self.lock();
        GdlGame {
            prog: self.prog.clone(),
            cache: Mutex::new(Cache {
                e: c.e.clone(),
                state: None,
                terminal: None,
                legal: vec![Vec::new(); self.roles.len()],
                legal_ok: vec![false; self.roles.len()],
                does: Vec::new(),
            }),
            roles: self.roles.clone(),
            role_terms: self.role_terms.clone(),
            init: self.init.clone(),
            fault: self.fault.clone(),
            relation_positions: self.relation_positions.clone(),
        }
    }
}

impl fmt::Debug for GdlGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GdlGame")
            .field("roles", &self.roles)
            .finish()
    }
}

/// The program of the demand transformation of the description (see
/// [`super::demand`]), if it applies, is stratified and leaves the level of
/// every relation as it was; if demand for negative literals breaks
/// stratification, the transformation without it.
fn with_demand(desc: &Description, prog: &Program) -> Option<Program> {
    let level = |s, a| prog.level_of(s, a).unwrap_or(0);
    [true, false].into_iter().find_map(|negative| {
        let (d, from) = super::demand::transform(desc, &level, negative)?;
        let p = Program::compile(&d, from).ok()?;
        let same = prog
            .rels
            .iter()
            .all(|r| p.level_of(r.sym, r.arity) == Some(r.level));
        same.then_some(p)
    })
}

impl GdlGame {
    /// Compiles the description and evaluates its static relations.
    pub fn new(desc: &Description) -> Result<GdlGame, ProgramError> {
        GdlGame::with_fact_limit(desc, toss_core::limits::GDL_FACTS_PER_RELATION.value)
    }

    /// [`GdlGame::new`] with the reasoner's memory bounded
    /// ([`Engine::set_limit`]): static relations beyond `facts` facts are
    /// an error ([`ProgramError::TooManyFacts`]); in a state, the
    /// evaluation stops there, [`GdlGame::overflows`] grows and
    /// [`Game::fault`] says why. [`GdlGame::new`] keeps to
    /// [`GDL_FACTS_PER_RELATION`](toss_core::limits::GDL_FACTS_PER_RELATION).
    pub fn with_fact_limit(desc: &Description, facts: usize) -> Result<GdlGame, ProgramError> {
        let mut prog = Program::new(desc)?;
        if let Some(p) = with_demand(desc, &prog) {
            prog = p;
        }
        let e = prog.engine_with_limit(facts)?;
        let mut role_terms: Vec<TermId> = Vec::new();
        for t in e.tuples(&prog, prog.kw.role) {
            if !role_terms.contains(&t[0]) {
                role_terms.push(t[0]);
            }
        }
        let roles = role_terms
            .iter()
            .map(|&t| e.terms.to_kif(t, &prog.symbols))
            .collect();
        let init = GdlState::from_fluents(e.tuples(&prog, prog.kw.init).map(|t| t[0]).collect());
        Ok(GdlGame {
            cache: Mutex::new(Cache {
                e,
                state: None,
                terminal: None,
                legal: vec![Vec::new(); role_terms.len()],
                legal_ok: vec![false; role_terms.len()],
                does: Vec::new(),
            }),
            prog: Arc::new(prog),
            roles,
            role_terms,
            init,
            fault: Arc::new(OnceLock::new()),
            relation_positions: Arc::default(),
        })
    }

    /// The compiled program.
    pub fn program(&self) -> &Program {
        &self.prog
    }

    /// How many evaluations the fact limit has stopped so far.
    pub fn overflows(&self) -> u64 {
        self.lock().e.overflows()
    }

    fn lock(&self) -> MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Locks the cache with `s` as the current state.
    fn at(&self, s: &GdlState) -> MutexGuard<'_, Cache> {
        let mut c = self.lock();
        if c.state.as_deref() != Some(&s.0[..]) {
            let Cache { e, state, .. } = &mut *c;
            e.set_state(&self.prog, &s.0);
            match state {
                Some(v) => {
                    v.clear();
                    v.extend_from_slice(&s.0);
                }
                None => *state = Some(s.0.clone()),
            }
            c.terminal = None;
            c.legal_ok.iter_mut().for_each(|l| *l = false);
        }
        c
    }

    fn terminal_in(&self, c: &mut Cache) -> bool {
        if let Some(t) = c.terminal {
            return t;
        }
        c.e.ensure(&self.prog, &self.prog.need_terminal);
        let t = c.e.holds(&self.prog, self.prog.kw.terminal, &[]);
        c.terminal = Some(t);
        t
    }

    fn legal_in(&self, c: &mut Cache, p: usize) {
        if c.legal_ok[p] {
            return;
        }
        c.e.ensure(&self.prog, &self.prog.need_legal);
        let r = self.role_terms[p];
        let Cache { e, legal, .. } = c;
        let v = &mut legal[p];
        v.clear();
        v.extend(
            e.tuples(&self.prog, self.prog.kw.legal)
                .filter(|t| t[0] == r)
                .map(|t| t[1]),
        );
        let terms = &e.terms;
        v.sort_unstable_by(|&a, &b| self.prog.cmp_terms(terms, a, b));
        v.dedup();
        c.legal_ok[p] = true;
    }

    /// Whether `s` is terminal.
    pub fn terminal(&self, s: &GdlState) -> bool {
        let mut c = self.at(s);
        self.terminal_in(&mut c)
    }

    /// The goal value of every role, or the first role whose goal is not
    /// exactly one number in 0..=100.
    pub fn goals(&self, s: &GdlState) -> Result<Vec<u64>, GoalError> {
        single_goals(self.goal_values(s), &self.roles, || self.state_to_string(s))
    }

    /// [`GdlGame::goals`] for GDL-II, where the role `random` needs no
    /// goal (reference/gdl.md section 5): its goal is 0 unless it has
    /// exactly one; every other role needs exactly one. The same as
    /// [`GdlGame::goals`] for a game without `random`.
    pub fn gdl2_goals(&self, s: &GdlState) -> Result<Vec<u64>, GoalError> {
        let mut values = self.goal_values(s);
        if let Some(r) = self.random_role()
            && values[r].len() != 1
        {
            values[r] = vec![0];
        }
        single_goals(values, &self.roles, || self.state_to_string(s))
    }

    /// All goal values of each role in `s` (numbers only, sorted).
    pub fn goal_values(&self, s: &GdlState) -> Vec<Vec<u64>> {
        self.goal_terms(s).0
    }

    /// The goal values of each role in `s` (numbers, sorted), and the
    /// first goal value that is not a number with its role.
    fn goal_terms(&self, s: &GdlState) -> (Vec<Vec<u64>>, Option<(usize, String)>) {
        let mut c = self.at(s);
        c.e.ensure(&self.prog, &self.prog.need_goal);
        let mut out = vec![Vec::new(); self.roles.len()];
        let mut not_number = None;
        for t in c.e.tuples(&self.prog, self.prog.kw.goal) {
            let Some(p) = self.role_terms.iter().position(|&r| r == t[0]) else {
                continue;
            };
            let value = (c.e.terms.args(t[1]).is_empty())
                .then(|| self.prog.nat_value[c.e.terms.sym(t[1]) as usize])
                .flatten();
            match value {
                Some(v) => out[p].push(v),
                None if not_number.is_none() => {
                    not_number = Some((p, c.e.terms.to_kif(t[1], &self.prog.symbols)));
                }
                None => {}
            }
        }
        for v in &mut out {
            v.sort_unstable();
            v.dedup();
        }
        (out, not_number)
    }

    /// Records the first fault of the play (see [`Game::fault`]).
    fn report_fault(&self, message: impl FnOnce() -> String) {
        if self.fault.get().is_none() {
            let _ = self.fault.set(message());
        }
    }

    /// The successor of `s` under a joint move (one move per role).
    pub fn next_state(&self, s: &GdlState, joint: &[GdlMove]) -> GdlState {
        let mut c = self.at(s);
        let Cache { e, does, .. } = &mut *c;
        does.clear();
        does.extend(self.role_terms.iter().zip(joint).map(|(&r, m)| (r, m.0)));
        e.eval_move(&self.prog, does);
        GdlState::from_fluents(
            c.e.tuples(&self.prog, self.prog.kw.next)
                .map(|t| t[0])
                .collect(),
        )
    }

    /// GDL-II: the index of the role `random` (nature), if the game has
    /// one. Its move is chosen uniformly at random among its legal moves
    /// (reference/gdl.md section 5); [`Game`] still lists it as a player,
    /// and random playouts, which choose every move uniformly, play it
    /// as GDL-II says. A match gives it no player: the referee draws its
    /// moves.
    pub fn random_role(&self) -> Option<usize> {
        self.role_index("random")
    }

    /// Whether the description has rules for `sees/2` (GDL-II percepts).
    pub fn has_sees(&self) -> bool {
        self.prog.sees.is_some()
    }

    /// Whether the game is GDL-II: it has the role `random` or `sees`
    /// rules. Its matches then send percepts instead of joint moves.
    pub fn is_gdl2(&self) -> bool {
        self.random_role().is_some() || self.has_sees()
    }

    /// The successor of `s` under a joint move and what each role
    /// perceives of it: `sees(r, s, joint) = { p : (sees r p) }`, in the
    /// canonical order of terms (as legal moves), without repetitions;
    /// empty for every role when the game has no `sees` rules.
    pub fn next_and_percepts(
        &self,
        s: &GdlState,
        joint: &[GdlMove],
    ) -> (GdlState, Vec<Vec<TermId>>) {
        let mut c = self.at(s);
        let Cache { e, does, .. } = &mut *c;
        does.clear();
        does.extend(self.role_terms.iter().zip(joint).map(|(&r, m)| (r, m.0)));
        e.eval_move_and_percepts(&self.prog, does);
        let next = GdlState::from_fluents(
            c.e.tuples(&self.prog, self.prog.kw.next)
                .map(|t| t[0])
                .collect(),
        );
        let mut percepts = vec![Vec::new(); self.roles.len()];
        if let Some(sees) = self.prog.sees {
            for t in c.e.tuples(&self.prog, sees) {
                if let Some(p) = self.role_terms.iter().position(|&r| r == t[0]) {
                    percepts[p].push(t[1]);
                }
            }
        }
        let terms = &c.e.terms;
        for v in &mut percepts {
            v.sort_unstable_by(|&a, &b| self.prog.cmp_terms(terms, a, b));
            v.dedup();
        }
        (next, percepts)
    }

    /// The percepts of each role after `joint` in `s` (see
    /// [`GdlGame::next_and_percepts`]).
    pub fn percepts(&self, s: &GdlState, joint: &[GdlMove]) -> Vec<Vec<TermId>> {
        self.next_and_percepts(s, joint).1
    }

    /// A term in KIF syntax.
    pub fn term_to_string(&self, t: TermId) -> String {
        let c = self.lock();
        c.e.terms.to_kif(t, &self.prog.symbols)
    }

    /// The fluents of a state in KIF, space-separated.
    pub fn state_to_string(&self, s: &GdlState) -> String {
        let c = self.lock();
        let mut v: Vec<String> =
            s.0.iter()
                .map(|&t| c.e.terms.to_kif(t, &self.prog.symbols))
                .collect();
        v.sort();
        v.join(" ")
    }

    /// The symbol with this name (case-insensitive), if the game has it.
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.prog
            .symbols
            .iter()
            .position(|s| s.eq_ignore_ascii_case(name))
            .map(|i| i as u32)
    }

    /// Interns the ground term `name(args...)`; `None` if the game has no
    /// symbol `name`.
    pub fn make_term(&self, name: &str, args: &[TermId]) -> Option<TermId> {
        let s = self.symbol(name)?;
        let mut c = self.lock();
        Some(c.e.terms.intern(s, args))
    }

    /// The index of a role by name (case-insensitive).
    pub fn role_index(&self, name: &str) -> Option<usize> {
        self.roles.iter().position(|r| r.eq_ignore_ascii_case(name))
    }

    /// The tuples of relation `name/arity` in state `s` (static relations
    /// are the same in every state), in KIF. Relations that depend on
    /// `does` are not available (empty). Every binding pattern terminates:
    /// the relation is computed bottom-up in full.
    pub fn query(&self, s: &GdlState, name: &str, arity: usize) -> Vec<Vec<String>> {
        let Some(sym) = self.symbol(name) else {
            return Vec::new();
        };
        let Some(r): Option<RelId> = self.prog.relation(sym, arity) else {
            return Vec::new();
        };
        if self.prog.rels[r].level == super::reasoner::MOVE {
            return Vec::new();
        }
        let need = self.prog.state_closure(r);
        let mut c = self.at(s);
        c.e.ensure(&self.prog, &need);
        let c = &*c;
        c.e.tuples(&self.prog, r)
            .map(|t| {
                t.iter()
                    .map(|&x| c.e.terms.to_kif(x, &self.prog.symbols))
                    .collect()
            })
            .collect()
    }
}

impl GdlGame {
    /// A state whose evaluation ran past [`GDL_FACTS_PER_RELATION`] (for
    /// `legal`: [`LEGAL_MOVES_PER_STATE`]): its relations are incomplete,
    /// so what was played since is not the game (the GGP player, which
    /// sets its own limit, still answers with a move from the partial
    /// list; the commands report the fault).
    ///
    /// [`GDL_FACTS_PER_RELATION`]: toss_core::limits::GDL_FACTS_PER_RELATION
    /// [`LEGAL_MOVES_PER_STATE`]: toss_core::limits::LEGAL_MOVES_PER_STATE
    /// Where the relations are defined (name and `file:line:col`, as
    /// [`crate::kif::relation_positions`] finds them): a fault about a
    /// relation then says where it is.
    pub fn set_relation_positions(&mut self, positions: Vec<(String, String)>) {
        self.relation_positions = Arc::new(positions.into_iter().collect());
    }

    fn limit_fault(&self) -> Option<String> {
        let (relation, message) = self.limit_fault_of_relation()?;
        let at = relation.and_then(|name| self.relation_positions.get(name));
        Some(toss_core::limits::at_position(
            at.map(String::as_str),
            &message,
        ))
    }

    /// The fault past a limit and the relation it is about.
    fn limit_fault_of_relation(&self) -> Option<(Option<&str>, String)> {
        use toss_core::limits::{GDL_FACTS_PER_RELATION, LEGAL_MOVES_PER_STATE};
        const _: () = assert!(LEGAL_MOVES_PER_STATE.value == GDL_FACTS_PER_RELATION.value);
        let c = self.lock();
        if c.e.overflows() == 0 {
            return None;
        }
        let limit = c.e.limit();
        let name = |r: usize| self.prog.symbols[self.prog.rels[r].sym as usize].as_str();
        let first = c.e.first_overflow();
        let message = match first {
            // The reasoner enforces one limit for every relation; for
            // `legal` it is the legal moves per state (the two are equal,
            // asserted below).
            Some(r) if r == self.prog.kw.legal && limit == GDL_FACTS_PER_RELATION.value => {
                LEGAL_MOVES_PER_STATE.exceeded("relation `legal` has", "legal moves in one state")
            }
            Some(r) if limit == GDL_FACTS_PER_RELATION.value => GDL_FACTS_PER_RELATION.exceeded(
                &format!("relation `{}` has", name(r)),
                "facts (or new terms) in one state",
            ),
            // A smaller limit the caller set (the GGP player's).
            r => format!(
                "the reasoner's evaluation of {} went past its limit of {} facts",
                r.map_or("a relation".into(), |r| format!("relation `{}`", name(r))),
                toss_core::limits::thousands(limit as u64)
            ),
        };
        Some((first.map(name), message))
    }
}

impl Game for GdlGame {
    type State = GdlState;
    type Move = GdlMove;

    fn player_names(&self) -> &[String] {
        &self.roles
    }

    /// GDL goal values are numbers from 0 to 100.
    fn payoff_bounds(&self) -> Option<(f64, f64)> {
        Some((0.0, 100.0))
    }

    fn initial_state(&self) -> GdlState {
        self.init.clone()
    }

    /// All roles in a non-terminal state; none once the play has a fault,
    /// which a role without a legal move here is.
    fn movers(&self, s: &GdlState, out: &mut Vec<usize>) {
        out.clear();
        if self.fault.get().is_some() {
            return;
        }
        let mut c = self.at(s);
        if self.terminal_in(&mut c) {
            return;
        }
        for p in 0..self.roles.len() {
            self.legal_in(&mut c, p);
            if c.legal[p].is_empty() {
                drop(c);
                self.report_fault(|| no_legal_move(&self.roles[p], &self.state_to_string(s)));
                return;
            }
        }
        out.extend(0..self.roles.len());
    }

    fn legal_moves(&self, s: &GdlState, player: usize, out: &mut Vec<GdlMove>) {
        out.clear();
        let mut c = self.at(s);
        self.legal_in(&mut c, player);
        out.extend(c.legal[player].iter().map(|&t| GdlMove(t)));
    }

    fn apply(&self, s: &mut GdlState, joint: &[GdlMove], _rng: &mut Rng) {
        *s = self.next_state(s, joint);
    }

    fn is_terminal(&self, s: &GdlState) -> bool {
        self.fault.get().is_some() || self.terminal(s)
    }

    /// A fault of the description found in play (goals, legal moves), or
    /// a resource limit reached.
    fn fault(&self) -> Option<String> {
        self.fault.get().cloned().or_else(|| self.limit_fault())
    }

    /// Every role moves in every non-terminal state, so a turn is a ply.
    fn has_compound_turns(&self) -> bool {
        false
    }

    fn state_key(&self, s: &GdlState, out: &mut Vec<u64>) -> bool {
        toss_core::game::hash_words(s, out);
        true
    }

    /// Terms are interned as the reasoner meets them, so ids depend on
    /// what was evaluated before.
    fn stable_keys(&self) -> bool {
        false
    }

    /// GDL is deterministic; GDL-II's `random` role is a player here
    /// ([`GdlGame::random_role`]), whose moves random playouts choose
    /// uniformly as for every role.
    fn has_chance(&self) -> bool {
        false
    }

    fn payoffs(&self, s: &GdlState, out: &mut [f64]) {
        let (vals, not_number) = self.goal_terms(s);
        for (o, v) in out.iter_mut().zip(&vals) {
            *o = v.last().copied().unwrap_or(0) as f64;
        }
        if let Some(why) = goal_fault(&vals, not_number, &self.roles, || self.terminal(s)) {
            self.report_fault(|| format!("{why}; state: {}", self.state_to_string(s)));
        }
    }

    /// One element per distinct argument of a fluent (named by its KIF
    /// text); a fluent `(f t1 ... tn)` is the tuple `(t1, ..., tn)` of the
    /// relation `f` (named `f/n` if `f` occurs with several arities); a
    /// constant fluent `p` is the nullary relation `p`.
    fn to_structure(&self, s: &GdlState) -> Structure {
        let c = self.lock();
        let terms = &c.e.terms;
        let mut arities: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
        for &f in &s.0 {
            let e = arities.entry(terms.sym(f)).or_default();
            let n = terms.args(f).len();
            if !e.contains(&n) {
                e.push(n);
            }
        }
        let mut st = Structure::new();
        for &f in &s.0 {
            let sym = terms.sym(f);
            let args = terms.args(f);
            let base = &self.prog.symbols[sym as usize];
            let name = if arities[&sym].len() > 1 {
                format!("{base}/{}", args.len())
            } else {
                base.clone()
            };
            let elems: Vec<u32> = args
                .iter()
                .map(|&a| st.add_element(&terms.to_kif(a, &self.prog.symbols)))
                .collect();
            if let Some(r) = st.declare_relation(&name, args.len()) {
                st.add_tuple(r, &elems);
            }
        }
        st
    }

    fn location(&self, _s: &GdlState) -> usize {
        0
    }

    fn move_to_string(&self, _s: &GdlState, _player: usize, m: &GdlMove) -> String {
        self.term_to_string(m.0)
    }
}
