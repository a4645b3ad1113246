//! The interpreter: [`Game`] for an [`ir::Game`] loaded at run time.
//!
//! Construction resolves every name once: rules are compiled
//! ([`CompiledRule`]), preconditions, postconditions, update terms and
//! payoffs are compiled by the logic solver, and the relations no rule
//! changes (the stable ones) are computed and handed to the solver.
//!
//! What is implemented (spec 1.4):
//! - movers: the players with at least one label in the location; the state
//!   is terminal when one of them has no legal move (or nobody has a label);
//!   payoffs are the payoff terms of the current location;
//! - a player's moves: for each label (in source order), each candidate
//!   time/parameter choice, the options of its multiplicity over the matches
//!   (canonical order) on which `pre` holds and, if `post` is not `true`,
//!   after which `post` holds:
//!   - `One`: one move per match;
//!   - `Any`: one move per non-empty set of pairwise disjoint matches
//!     (disjoint element images) on which `pre` holds, in lexicographic
//!     order of match indices, such that `post` holds for every match of
//!     the set in the structure after all of them are applied (spec 1.1:
//!     `post` holds in the result). The sets are all listed: a label with
//!     more than [`ANY_MOVES_LIMIT`] of them is a fault of the game
//!     ([`Game::fault`]), never a silent cut;
//!   - `All`: one move with all matches (when there is at least one); they
//!     are applied one after the other in canonical order, skipping a match
//!     whose elements an earlier one deleted;
//! - the conjuncts of `pre` that mention no left element (like `not
//!   WinQ()` in `Playable(a) and not WinQ()`) are evaluated once per state
//!   and parameter choice, shared by all labels whose rules have the same
//!   such conjuncts, not per match;
//! - the labels of a player whose rules share the first steps of their
//!   matchers (draughts' jump chains of different lengths) are matched
//!   together ([`MatchForest`]), each rule's matches listed as its own
//!   matcher lists them;
//! - a joint action is applied move by move in player order (update terms
//!   are evaluated just before each rule application); the next location is
//!   the target of the *first* mover's label, drawn by probability with the
//!   generator when there are several; the end-points a target draws are
//!   sampled from it (normal, uniform, exponential) and the chosen values are
//!   clamped into the realised interval;
//! - time and parameters: a label with a time or parameter interval offers
//!   a small grid of values: the interval's end-points and midpoint (one
//!   value when they coincide); a drawn end-point counts, for the grid, as
//!   the mean of its distribution on the label's first target. These grid
//!   moves are what UCT and alpha-beta choose among; random players draw
//!   the values uniformly from the intervals instead
//!   ([`Game::draw_continuous`]). Rule parameters a label leaves out are 0;
//! - continuous games (a rule with `dynamics` or an `inv`, or a label with
//!   a time interval) apply a joint action by continuous evolution to the
//!   least time bound, with invariants and update equations, see
//!   [`evolve`]; their comparisons use the epsilon semantics of spec 1.3
//!   (epsilon [`DEFAULT_EPSILON`], or `DATA epsilon: e`), and the `post` of
//!   a rule with `dynamics` is checked after the evolution, not when moves
//!   are generated. Other games apply all movers' rules at once, and the
//!   state's time advances by the least time chosen.
//!
//! Payoffs in non-terminal states are just the terms' current values.
//!
//! The files: this one holds the types, the loading order and the interval
//! helpers; construction is in `build` (rules, locations, payoffs compiled),
//! move generation in `moves`, applying moves and the [`Game`] impl in
//! `play`, continuous evolution in [`evolve`]. `play` uses `moves`; `play`
//! and `evolve` call each other (see `play`).
//!
//! [`Game`]: toss_core::game::Game
//! [`Game::fault`]: toss_core::game::Game::fault
//! [`Game::draw_continuous`]: toss_core::game::Game::draw_continuous

use crate::solver::{FormulaId, RealId, SET_ENUMERATION_LIMIT, Solver};

use crate::continuous::CompiledTerms;
use crate::ode::Method;
use crate::rewrite::{CompiledRule, Match, MatchForest};
use toss_core::game::{Rng, uniform01};
use toss_core::ir::{self, Bound, Distribution, Multiplicity};
use toss_core::limits::ELEMENTS_PER_STRUCTURE;
use toss_core::structure::{FunId, RelId, Structure};
// The unit tests see these through `use super::*`.
#[cfg(test)]
use toss_core::{
    game::Game,
    ir::{Formula, RealExpr},
};

mod build;
pub mod evolve;
mod moves;
mod play;
pub use evolve::Evolution;
use evolve::RuleCont;

/// The epsilon of comparisons in continuous games unless `DATA epsilon: e`
/// gives one (spec 1.3: `a < b` holds when `a + eps < b - eps`).
pub const DEFAULT_EPSILON: f64 = 1e-9;

/// The most move sets one label (and time/parameter choice) with
/// multiplicity `Any` may have; more is a fault ([`Game::fault`]). The
/// value is [`MOVE_SETS_PER_LABEL`](toss_core::limits::MOVE_SETS_PER_LABEL).
///
/// [`Game::fault`]: toss_core::game::Game::fault
pub const ANY_MOVES_LIMIT: usize = toss_core::limits::MOVE_SETS_PER_LABEL.value;

/// Why a game could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpreterError {
    pub message: String,
    /// The `REL` or rule the error is about, by name, when it is about one
    /// (a front end turns it into a file position).
    pub item: Option<String>,
}

impl std::fmt::Display for InterpreterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InterpreterError {}

fn ierr(message: impl Into<String>) -> InterpreterError {
    InterpreterError {
        message: message.into(),
        item: None,
    }
}

/// A state of an interpreted game.
#[derive(Clone, Debug)]
pub struct State {
    pub structure: Structure,
    pub location: usize,
    pub time: f64,
    /// The positions of the play so far, for `REPETITION` (empty without
    /// it).
    pub history: toss_core::repetition::History,
}

/// `REPETITION :f(e) OF ...` resolved in the starting structure.
#[derive(Clone, Debug)]
pub(crate) struct Repetition {
    function: FunId,
    element: toss_core::structure::Elem,
    relations: Vec<RelId>,
    functions: Vec<FunId>,
}

/// One player's move: a label of the player in the current location, the
/// matches it uses (one for `One`, a set for `Any`, all for `All`) and the
/// chosen time and rule parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Move {
    /// Index of the label among the player's labels in the location.
    pub label: usize,
    pub matches: Matches,
    pub time: Option<f64>,
    /// One value per rule parameter (see [`Interpreter::rule_params`]).
    pub params: Vec<f64>,
}

/// The matches of a move: one match (multiplicity `One`, the usual case)
/// is stored without a separate allocation. Behaves as `[Match]`.
#[derive(Clone, PartialEq)]
pub enum Matches {
    One(Match),
    Many(Vec<Match>),
}

impl std::ops::Deref for Matches {
    type Target = [Match];
    #[inline]
    fn deref(&self) -> &[Match] {
        match self {
            Matches::One(m) => std::slice::from_ref(m),
            Matches::Many(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a Matches {
    type Item = &'a Match;
    type IntoIter = std::slice::Iter<'a, Match>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for Matches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

struct RuleInfo {
    rule: CompiledRule,
    params: Vec<String>,
    /// The conjuncts of `pre` that mention left elements (checked per
    /// match); `None` when trivially true.
    pre: Option<FormulaId>,
    /// Conjuncts of `pre` evaluated set at a time while matching: per
    /// matcher step, `(formula, left elements given as constants)`; the
    /// formula's free variable is the element the step binds, and the
    /// constants are bound at earlier steps (`Ray(a, b)`: the squares `b`
    /// reachable from the amazon `a`, once per `a`). The other conjuncts
    /// are in `pre`.
    step_sets: Vec<Vec<(FormulaId, Vec<usize>)>>,
    /// The other conjuncts of `pre`, a sentence checked once per state (see
    /// `PreCache`); `None` when trivially true.
    pre_state: Option<FormulaId>,
    post: Option<FormulaId>,
    updates: Vec<RealId>,
    /// `inv`; `None` when trivially true.
    inv: Option<FormulaId>,
    /// The ODE system and update terms over their inputs, for rules with
    /// `dynamics`.
    cont: Option<RuleCont>,
}

struct LabelInfo {
    rule: usize,
    multiplicity: Multiplicity,
    time: Option<ir::Interval>,
    /// `(rule parameter index, interval)`.
    params: Vec<(usize, ir::Interval)>,
    targets: Vec<ir::Target>,
    /// Candidate `(time, parameter values)` for move enumeration.
    choices: Vec<(Option<f64>, Vec<f64>)>,
}

/// Labels of one player matched together (see [`MatchForest`]).
struct LabelForest {
    forest: MatchForest,
    /// The labels (indices among the player's labels), in forest order.
    labels: Vec<usize>,
    /// Per label of the player: its index in `labels`, if there.
    slot: Vec<Option<usize>>,
}

struct LocInfo {
    /// Per player, the labels.
    labels: Vec<Vec<LabelInfo>>,
    /// Per player, the labels whose rules share matcher prefixes, matched
    /// together: those with one choice (no time, no parameters) and no
    /// set-at-a-time conjuncts.
    forests: Vec<Option<LabelForest>>,
    payoffs: Vec<RealId>,
    /// Players with at least one label, in order.
    label_players: Vec<usize>,
}

/// A game interpreted from its IR.
pub struct Interpreter {
    players: Vec<String>,
    solver: Solver,
    rules: Vec<RuleInfo>,
    locations: Vec<LocInfo>,
    initial: State,
    stable: Vec<RelId>,
    /// Whether joint actions evolve continuously (see the module docs).
    continuous: bool,
    method: Method,
    /// Per function: the functions holding its derivatives of orders 0 to
    /// k-1 when an ODE defines its k-th derivative (else empty).
    derivatives: Vec<Vec<FunId>>,
    /// Whether some ply continues a turn ([`toss_core::analysis::has_compound_turns`]).
    compound_turns: bool,
    /// The functions a rule updates, or all when evolution is continuous:
    /// the others (board coordinates) never change and stay out of state
    /// keys.
    fluent_functions: Vec<bool>,
    /// `REPETITION`, resolved.
    repetition: Option<Repetition>,
    /// The first limit the play ran into (see [`Game::fault`](toss_core::game::Game::fault)).
    fault: std::sync::OnceLock<String>,
    /// Per rule, its position in the game file (`file:line:col`) for fault
    /// messages, or empty (see [`Interpreter::set_rule_positions`]).
    rule_positions: Vec<String>,
    /// See [`Game::payoff_bounds`](toss_core::game::Game::payoff_bounds).
    payoff_bounds: Option<(f64, f64)>,
}

/// The `REL` or rule whose own formula has the set quantifier that only
/// enumeration decides, for the error of a structure past the enumeration
/// limit: its name and the words that start the message. A definition is
/// named only when no definition it uses enumerates (that one has the
/// quantifier); a rule's precondition, when it uses no such definition.
fn enumerating_item(game: &ir::Game, solver: &Solver) -> (Option<String>, String) {
    let formula_enumerates = |f: &ir::Formula| {
        let vars = ir::walk::free_vars(f);
        let vars: Vec<&str> = vars.iter().map(|v| v.as_str()).collect();
        solver.formula_enumerates_sets(f, &vars)
    };
    let enumerating: std::collections::BTreeSet<&str> = game
        .defined_relations
        .iter()
        .filter(|d| formula_enumerates(&d.body))
        .map(|d| d.name.as_str())
        .collect();
    let uses_enumerating = |f: &ir::Formula| {
        ir::walk::relations_used(f)
            .iter()
            .any(|r| enumerating.contains(r.as_str()))
    };
    if let Some(d) = game
        .defined_relations
        .iter()
        .find(|d| enumerating.contains(d.name.as_str()) && !uses_enumerating(&d.body))
    {
        return (Some(d.name.clone()), format!("REL `{}`: ", d.name));
    }
    match game
        .rules
        .iter()
        .find(|r| !uses_enumerating(&r.pre) && formula_enumerates(&r.pre))
    {
        Some(r) => (
            Some(r.name.clone()),
            format!("the precondition of rule `{}`: ", r.name),
        ),
        None => (None, String::new()),
    }
}

fn mean(d: &Distribution) -> f64 {
    match *d {
        Distribution::Normal { mean, .. } => mean,
        Distribution::Uniform { lo, hi } => (lo + hi) / 2.0,
        Distribution::Exponential { rate } => 1.0 / rate,
    }
}

fn sample(d: &Distribution, rng: &mut Rng) -> f64 {
    match *d {
        Distribution::Normal { mean, std_dev } => {
            // Box-Muller.
            let u1 = 1.0 - uniform01(rng);
            let u2 = uniform01(rng);
            mean + std_dev * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        }
        Distribution::Uniform { lo, hi } => lo + (hi - lo) * uniform01(rng),
        Distribution::Exponential { rate } => -(1.0 - uniform01(rng)).ln() / rate,
    }
}

/// The value of an interval end-point: a number, or a drawn name looked up
/// in `draws` (falling back to `expected`'s mean, then 0).
fn bound_value(b: &Bound, draws: &[(String, f64)], expected: Option<&ir::Target>) -> f64 {
    match b {
        Bound::Num(x) => *x,
        Bound::Drawn(n) => draws
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| *v)
            .or_else(|| {
                expected.and_then(|t| t.draws.iter().find(|(k, _)| k == n).map(|(_, d)| mean(d)))
            })
            .unwrap_or(0.0),
    }
}

/// Candidate values of an interval: its end-points and midpoint.
fn grid(lo: f64, hi: f64) -> Vec<f64> {
    if lo == hi || !lo.is_finite() || !hi.is_finite() {
        vec![lo]
    } else {
        vec![lo, (lo + hi) / 2.0, hi]
    }
}

impl Interpreter {
    /// Loads a game: compiles its rules, constraints and payoffs.
    pub fn new(game: &ir::Game) -> Result<Interpreter, InterpreterError> {
        Self::with_compiled(game, &[])
    }

    /// Loads a game whose ODE right-hand sides and update terms generated
    /// code compiled (`compiled`, by rule name); the interpreter calls those
    /// functions instead of evaluating the terms.
    pub fn with_compiled(
        game: &ir::Game,
        compiled: &[CompiledTerms],
    ) -> Result<Interpreter, InterpreterError> {
        let mut sig = game.start.clone();
        build::complete_signature(game, &mut sig)?;
        let mut solver = Solver::new(&sig, &game.defined_relations)
            .map_err(|e| ierr(format!("defined relations: {}", e.message)))?;
        let rule_params = build::label_rule_params(game)?;
        let (rules, stable) =
            build::compile_rules(game, &sig, &mut solver, &rule_params, compiled)?;
        let derivatives = build::derivatives(game, &sig)?;
        let continuous = rules.iter().any(|r| r.cont.is_some() || r.inv.is_some())
            || game.locations.iter().any(|l| {
                l.players
                    .iter()
                    .any(|p| p.moves.iter().any(|m| m.time.is_some()))
            });
        if continuous {
            let eps = match game.data.iter().find(|(k, _)| k == "epsilon") {
                Some((_, v)) => v
                    .parse::<f64>()
                    .ok()
                    .filter(|e| e.is_finite() && *e >= 0.0)
                    .ok_or_else(|| {
                        ierr(format!("DATA epsilon: `{v}` is not a non-negative number"))
                    })?,
                None => DEFAULT_EPSILON,
            };
            solver.set_epsilon(eps);
        }

        let locations = build::locations(game, &rules, &mut solver)?;
        if locations.is_empty() {
            return Err(ierr("the game has no locations"));
        }

        let (structure, location) = match &game.model {
            Some(m) => (
                build::conform(&sig, m),
                game.history.last().map_or(0, |h| h.target),
            ),
            None => (sig.clone(), 0),
        };
        if location >= locations.len() {
            return Err(ierr(format!("history ends in unknown location {location}")));
        }
        if structure.num_elements() > ELEMENTS_PER_STRUCTURE.value {
            return Err(ierr(
                ELEMENTS_PER_STRUCTURE.exceeded("the starting structure has", "elements"),
            ));
        }
        // Tabulate defined relations over stable relations (recompiles all
        // formulas compiled above).
        solver.set_stable(&stable);
        if solver.enumerates_sets() && structure.num_elements() > SET_ENUMERATION_LIMIT {
            let (item, what) = enumerating_item(game, &solver);
            return Err(InterpreterError {
                message: format!(
                    "{what}{} (the structure has {} elements)",
                    crate::solver::enumeration_fault(structure.num_elements()),
                    structure.num_elements()
                ),
                item,
            });
        }
        solver.set_stable_from(&structure);
        if let Some(f) = solver.fault() {
            return Err(ierr(f));
        }
        let mut fluent_functions = vec![continuous; structure.num_functions()];
        for r in &rules {
            for &(f, _) in r.rule.update_targets() {
                if let Some(x) = fluent_functions.get_mut(f) {
                    *x = true;
                }
            }
        }
        let repetition = match &game.repetition {
            None => None,
            Some(r) => {
                let found = (|| {
                    Some(Repetition {
                        function: structure.function(&r.function)?,
                        element: structure.element(&r.element)?,
                        relations: (r.relations.iter())
                            .map(|n| structure.relation(n))
                            .collect::<Option<Vec<_>>>()?,
                        functions: (r.functions.iter())
                            .map(|n| structure.function(n))
                            .collect::<Option<Vec<_>>>()?,
                    })
                })();
                let Some(rep) = found else {
                    return Err(ierr(
                        "REPETITION names something the starting structure does not have",
                    ));
                };
                if let Some(x) = fluent_functions.get_mut(rep.function) {
                    *x = true;
                }
                Some(rep)
            }
        };
        let mut initial = State {
            structure,
            location,
            time: 0.0,
            history: toss_core::repetition::History::EMPTY,
        };
        if let Some(rep) = &repetition {
            record_position(rep, &mut initial);
        }
        Ok(Interpreter {
            repetition,
            fluent_functions,
            players: game.players.clone(),
            solver,
            rules,
            locations,
            initial,
            stable,
            continuous,
            method: Method::default(),
            derivatives,
            compound_turns: toss_core::analysis::has_compound_turns(game),
            fault: std::sync::OnceLock::new(),
            rule_positions: Vec::new(),
            payoff_bounds: toss_core::ir::bounds::payoff_bounds(game).map(|b| (b.lo, b.hi)),
        })
    }

    /// Gives the file position (`file:line:col`) of each rule, by name, so
    /// that a fault about a rule says where it is (positions of names not
    /// among the rules are ignored).
    pub fn set_rule_positions(&mut self, positions: &[(String, String)]) {
        let at: std::collections::HashMap<&str, &str> = positions
            .iter()
            .map(|(name, at)| (name.as_str(), at.as_str()))
            .collect();
        self.rule_positions = self
            .rules
            .iter()
            .map(|ri| {
                at.get(ri.rule.name())
                    .map_or(String::new(), |a| a.to_string())
            })
            .collect();
    }

    /// Stops the play when `s` has more elements than
    /// [`ELEMENTS_PER_STRUCTURE`] after a ply of rule `rule` (one that adds
    /// elements), naming the rule and its position when known.
    fn check_elements(&self, s: &Structure, rule: usize) {
        if s.num_elements() > ELEMENTS_PER_STRUCTURE.value {
            let name = self.rules[rule].rule.name();
            self.rule_fault(
                rule,
                &ELEMENTS_PER_STRUCTURE.exceeded(
                    &format!("after rule `{name}` the structure has"),
                    "elements",
                ),
            );
        }
    }

    /// Stops the play with `message` about rule `rule`, after the rule's
    /// file position when it is known ([`Interpreter::set_rule_positions`]).
    pub(super) fn rule_fault(&self, rule: usize, message: &str) {
        let at = self.rule_positions.get(rule).map(String::as_str);
        let _ = self.fault.set(toss_core::limits::at_position(at, message));
    }

    /// Whether the play ran into a limit ([`Game::fault`]): every state is
    /// then terminal.
    ///
    /// [`Game::fault`]: toss_core::game::Game::fault
    fn faulted(&self) -> bool {
        self.fault.get().is_some() || self.solver.fault().is_some()
    }

    /// Whether joint actions evolve continuously (a rule with `dynamics` or
    /// an `inv`, or a label with a time interval).
    pub fn is_continuous(&self) -> bool {
        self.continuous
    }

    /// The integration method of continuous evolution (default
    /// [`Method::ADAPTIVE`]).
    pub fn set_method(&mut self, method: Method) {
        self.method = method;
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// Relations no rule changes.
    pub fn stable_relations(&self) -> &[RelId] {
        &self.stable
    }

    /// The parameter names of rule `rule` (index in `ir::Game::rules`), in
    /// the order of [`Move::params`].
    pub fn rule_params(&self, rule: usize) -> &[String] {
        &self.rules[rule].params
    }

    /// The payoff of `player` in location `location` on the structure `s`.
    /// A value that is not finite (a division by 0, an overflow) is also
    /// reported as the play's fault ([`Interpreter::payoff_fault`]).
    pub fn payoff_value(&self, location: usize, player: usize, s: &Structure) -> f64 {
        let v = self
            .solver
            .value(s, self.locations[location].payoffs[player], &[], &[]);
        if !v.is_finite() {
            self.payoff_fault(location, player, s, v);
        }
        v
    }

    /// Records that the payoff of `player` in `location` is `value`, not a
    /// finite number, on the structure `s`: the play has no meaningful
    /// result from then on ([`Game::fault`], naming the payoff and the
    /// state). The check rejects payoffs never finite; this catches the
    /// ones that are only in some states. Generated code calls it too.
    ///
    /// [`Game::fault`]: toss_core::game::Game::fault
    pub fn payoff_fault(&self, location: usize, player: usize, s: &Structure, value: f64) {
        let name = self.players.get(player).map_or("?", String::as_str);
        let _ = self.fault.set(format!(
            "the payoff of player `{name}` in location {location} is {value}, not a finite \
             number, in the state {}",
            describe_state(s, &self.stable)
        ));
    }
}

/// The state `s` in words for a fault message: its fluent relations (those
/// not in `stable`) with their tuples, then its function values, cut off
/// after a few hundred characters.
fn describe_state(s: &Structure, stable: &[RelId]) -> String {
    use std::fmt::Write as _;
    const MAX: usize = 400;
    let mut out = String::from("[");
    for r in 0..s.num_relations() {
        if stable.binary_search(&r).is_ok() {
            continue;
        }
        let tuples: Vec<String> = s
            .tuples(r)
            .iter()
            .map(|t| {
                let names: Vec<&str> = t.iter().map(|&e| s.element_name(e)).collect();
                names.join(", ")
            })
            .collect();
        let _ = write!(out, " {} {{{}}};", s.relation_name(r), tuples.join("; "));
    }
    for f in 0..s.num_functions() {
        let vals: Vec<String> = s
            .elements()
            .map(|e| format!("{}: {}", s.element_name(e), s.fun_value(f, e)))
            .collect();
        let _ = write!(out, " {} {{{}}};", s.function_name(f), vals.join(", "));
    }
    if out.len() > MAX {
        let mut cut = MAX;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str(" ...");
    }
    out.push_str(" ]");
    out
}

#[cfg(test)]
pub(crate) mod tests;

/// Sets the count of `REPETITION` in `s` to the number of earlier
/// positions of the play equal to the current one, and records it. A
/// position's fingerprint mixes the location with the words of the listed
/// relations and functions ([`Structure::key_words`], which are canonical).
pub(crate) fn record_position(rep: &Repetition, s: &mut State) {
    let mut words = Vec::new();
    s.structure.key_words(
        |r| rep.relations.contains(&r),
        |f| rep.functions.contains(&f),
        &mut words,
    );
    let mut h = toss_core::repetition::PositionHasher::new();
    h.word(s.location as u64);
    h.words(&words);
    let seen = s.history.record(h.finish128());
    s.structure
        .set_fun_value(rep.function, rep.element, seen as f64);
}
