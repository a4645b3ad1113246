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

use crate::solver::{FormulaId, RealId, SET_ENUMERATION_LIMIT, SetMemo, Solver, SolverError};

use crate::continuous::{CompiledTerms, ContinuousRule, derivative_name};
use crate::game::{Game, Rng, uniform01};
use crate::ir::{self, Bound, Distribution, Formula, Multiplicity, RealExpr};
use crate::ode::Method;
use crate::rewrite::{CompiledRule, Match, MatchForest};
use crate::structure::{BitSet, Elem, FunId, RelId, Structure};

pub mod evolve;
pub use evolve::Evolution;
use evolve::RuleCont;

/// The epsilon of comparisons in continuous games unless `DATA epsilon: e`
/// gives one (spec 1.3: `a < b` holds when `a + eps < b - eps`).
pub const DEFAULT_EPSILON: f64 = 1e-9;

/// The most move sets one label (and time/parameter choice) with
/// multiplicity `Any` may have: every set is listed, and a state with more
/// (e.g. 17 pairwise disjoint matches give 131,071 sets) stops the play
/// with a fault ([`Game::fault`]) rather than offer only some of them.
pub const ANY_MOVES_LIMIT: usize = 1 << 16;

/// Why a game could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpreterError {
    pub message: String,
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
    }
}

/// A state of an interpreted game.
#[derive(Clone, Debug)]
pub struct State {
    pub structure: Structure,
    pub location: usize,
    pub time: f64,
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
    /// Whether some ply continues a turn ([`crate::analysis::has_compound_turns`]).
    compound_turns: bool,
    /// The first limit the play ran into (see [`Game::fault`]).
    fault: std::sync::OnceLock<String>,
    /// See [`Game::payoff_bounds`].
    payoff_bounds: Option<(f64, f64)>,
}

/// The conjuncts of `f` (nested `and`s flattened), appended to `out`.
fn flatten_and(f: Formula, out: &mut Vec<Formula>) {
    match f {
        Formula::And(fs) => fs.into_iter().for_each(|g| flatten_and(g, out)),
        Formula::True => {}
        g => out.push(g),
    }
}

/// Whether `f` mentions any of `names` (as an element argument anywhere;
/// conservative: bound variables of the same name count too).
fn mentions(f: &Formula, names: &[String]) -> bool {
    let has = |n: &String| names.contains(n);
    match f {
        Formula::True | Formula::False => false,
        Formula::Rel { args, .. } => args.iter().any(has),
        Formula::Eq(a, b) => has(a) || has(b),
        Formula::In { element, .. } => has(element),
        Formula::Cmp { lhs, rhs, .. } => real_mentions(lhs, names) || real_mentions(rhs, names),
        Formula::Not(g) => mentions(g, names),
        Formula::And(gs) | Formula::Or(gs) => gs.iter().any(|g| mentions(g, names)),
        Formula::Implies(a, b) | Formula::Iff(a, b) => mentions(a, names) || mentions(b, names),
        Formula::Exists { body, .. } | Formula::Forall { body, .. } => mentions(body, names),
        Formula::Fixpoint { params, body, .. } => params.iter().any(has) || mentions(body, names),
        Formula::Tc { from, to, body, .. } => {
            from.iter().chain(to).any(has) || mentions(body, names)
        }
        Formula::Let {
            params, def, body, ..
        } => params.iter().any(has) || mentions(def, names) || mentions(body, names),
        Formula::LetReal { value, body, .. } => {
            real_mentions(value, names) || mentions(body, names)
        }
    }
}

fn real_mentions(t: &RealExpr, names: &[String]) -> bool {
    match t {
        RealExpr::Const(_) | RealExpr::Var(_) => false,
        RealExpr::Fun { element, .. } | RealExpr::Derivative { element, .. } => {
            names.contains(element)
        }
        RealExpr::Char(f) => mentions(f, names),
        RealExpr::Neg(a) | RealExpr::Root(_, a) => real_mentions(a, names),
        RealExpr::Add(a, b)
        | RealExpr::Sub(a, b)
        | RealExpr::Mul(a, b)
        | RealExpr::Div(a, b)
        | RealExpr::Pow(a, b) => real_mentions(a, names) || real_mentions(b, names),
        RealExpr::Sum { vars, guard, body } | RealExpr::Product { vars, guard, body } => {
            vars.iter().any(|v| names.contains(v))
                || mentions(guard, names)
                || real_mentions(body, names)
        }
        RealExpr::Min { body, .. } => mentions(body, names),
        RealExpr::Let { value, body, .. } => {
            real_mentions(value, names) || real_mentions(body, names)
        }
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

/// Declares in `sig` every relation and function the rules mention but the
/// starting structure does not.
fn complete_signature(game: &ir::Game, sig: &mut Structure) -> Result<(), InterpreterError> {
    let defined: Vec<&str> = game
        .defined_relations
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    for r in &game.rules {
        for t in r.lhs.tuples.iter().chain(&r.rhs.tuples) {
            if defined.contains(&t.relation.as_str()) && sig.relation(&t.relation).is_none() {
                continue;
            }
            if sig.declare_relation(&t.relation, t.args.len()).is_none() {
                return Err(ierr(format!(
                    "rule {}: relation {} used with arity {}",
                    r.name,
                    t.relation,
                    t.args.len()
                )));
            }
        }
        for (f, _, _) in r.lhs.functions.iter().chain(&r.rhs.functions) {
            sig.declare_function(f);
        }
        for u in &r.update {
            sig.declare_function(&u.function);
        }
        for d in &r.dynamics {
            for k in 0..d.order {
                sig.declare_function(&derivative_name(&d.function, k));
            }
        }
    }
    Ok(())
}

/// `s` with the relation and function ids of `sig` (declarations of `sig`
/// first, in its order).
fn conform(sig: &Structure, s: &Structure) -> Structure {
    let same = s.num_relations() >= sig.num_relations()
        && s.num_functions() >= sig.num_functions()
        && (0..sig.num_relations())
            .all(|r| s.relation_name(r) == sig.relation_name(r) && s.arity(r) == sig.arity(r))
        && (0..sig.num_functions()).all(|f| s.function_name(f) == sig.function_name(f));
    if same {
        return s.clone();
    }
    let mut out = Structure::new();
    for e in s.elements() {
        out.add_element(s.element_name(e));
    }
    for r in 0..sig.num_relations() {
        out.declare_relation(sig.relation_name(r), sig.arity(r));
    }
    for f in 0..sig.num_functions() {
        out.declare_function(sig.function_name(f));
    }
    let map = |out: &Structure, e: Elem| out.element(s.element_name(e)).unwrap_or(Elem::MAX);
    for r in 0..s.num_relations() {
        let Some(r2) = out.declare_relation(s.relation_name(r), s.arity(r)) else {
            continue;
        };
        for t in s.tuples(r) {
            let t2: Vec<Elem> = t.iter().map(|&e| map(&out, e)).collect();
            out.add_tuple(r2, &t2);
        }
    }
    for f in 0..s.num_functions() {
        let f2 = out.declare_function(s.function_name(f));
        for e in s.elements() {
            let v = s.fun_value(f, e);
            if v != 0.0 {
                let e2 = map(&out, e);
                out.set_fun_value(f2, e2, v);
            }
        }
    }
    out
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
        complete_signature(game, &mut sig)?;
        let mut solver = Solver::new(&sig, &game.defined_relations)
            .map_err(|e| ierr(format!("defined relations: {}", e.message)))?;
        let defined: Vec<&str> = game
            .defined_relations
            .iter()
            .map(|d| d.name.as_str())
            .collect();

        // Rule parameters: the parameter names the labels give, per rule.
        let mut rule_params: Vec<Vec<String>> = vec![Vec::new(); game.rules.len()];
        let rule_index = |name: &str| game.rules.iter().position(|r| r.name == name);
        for loc in &game.locations {
            for pl in &loc.players {
                for l in &pl.moves {
                    let ri = rule_index(&l.rule)
                        .ok_or_else(|| ierr(format!("label names unknown rule {}", l.rule)))?;
                    for (p, _) in &l.params {
                        if !rule_params[ri].contains(p) {
                            rule_params[ri].push(p.clone());
                        }
                    }
                }
            }
        }

        let mut rules = Vec::with_capacity(game.rules.len());
        // Independent preconditions are compiled once per distinct formula
        // (e.g. `not WinB()` of all of a player's rules), so that one state
        // evaluates each only once (see `PreCache`).
        let mut shared_pres: Vec<(Formula, Vec<String>, FormulaId)> = Vec::new();
        // Set-at-a-time conjuncts, likewise: (formula, variable, constants,
        // parameters) -> compiled set (if in the fragment).
        #[allow(clippy::type_complexity)]
        let mut shared_sets: Vec<(
            (Formula, String, Vec<String>, Vec<String>),
            Option<FormulaId>,
        )> = Vec::new();
        // Which relations rules can change: the one analysis that `toss
        // check`, the heuristics and the code generator also use.
        let reshapeable: Vec<String> = (0..sig.num_relations())
            .filter(|&r| sig.arity(r) > 0)
            .map(|r| sig.relation_name(r).to_string())
            .collect();
        let mut changed = vec![false; sig.num_relations()];
        for (ri, r) in game.rules.iter().enumerate() {
            let rule = CompiledRule::new(r, &sig, &defined).map_err(|e| ierr(e.message))?;
            for name in crate::analysis::changed_relations(r, &reshapeable) {
                if let Some(rel) = sig.relation(&name) {
                    changed[rel] = true;
                }
            }
            let params: Vec<&str> = rule_params[ri].iter().map(String::as_str).collect();
            let lhs: Vec<&str> = rule.lhs_names().iter().map(String::as_str).collect();
            let rhs: Vec<&str> = rule.rhs_names().iter().map(String::as_str).collect();
            let mut pre_f = r.pre.clone();
            if !rule.defined_constraints().is_empty() {
                let mut conj = vec![pre_f];
                for (name, args) in rule.defined_constraints() {
                    conj.push(Formula::Rel {
                        name: name.clone(),
                        args: args.clone(),
                    });
                }
                pre_f = Formula::And(conj);
            }
            let solver_err =
                |what: &str, e: SolverError| ierr(format!("rule {} {what}: {}", r.name, e.message));
            // Split `pre` into the conjuncts that mention a left element
            // (checked per match) and the sentences that do not (checked
            // once per state, shared between rules): `Playable(a) and not
            // WinQ()` must not evaluate `WinQ()` once per empty cell.
            let mut conjuncts = Vec::new();
            flatten_and(pre_f, &mut conjuncts);
            let (dep, indep): (Vec<Formula>, Vec<Formula>) = conjuncts
                .into_iter()
                .partition(|f| mentions(f, rule.lhs_names()));
            // Conjuncts that the solver can evaluate as a set of the last
            // element they mention (in the matcher's order), given the
            // earlier ones, restrict the matcher's candidates instead.
            let order = rule.join_order();
            let mut step_sets = vec![Vec::new(); order.len()];
            let mut rest = Vec::new();
            for f in dep {
                let used: Vec<usize> = (0..lhs.len())
                    .filter(|&i| mentions(&f, &rule.lhs_names()[i..=i]))
                    .collect();
                let step = used
                    .iter()
                    .filter_map(|&i| order.iter().position(|&e| e == i))
                    .max();
                let set = match step {
                    Some(k) => {
                        let consts: Vec<usize> =
                            used.iter().copied().filter(|&i| i != order[k]).collect();
                        let names: Vec<&str> = consts.iter().map(|&i| lhs[i]).collect();
                        let key = (
                            f.clone(),
                            lhs[order[k]].to_string(),
                            names.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
                            rule_params[ri].clone(),
                        );
                        // The same conjunct in several rules (a bishop's
                        // moves and captures) is compiled once, so that one
                        // state evaluates it once per binding (see
                        // `PreCache`).
                        let id = match shared_sets.iter().find(|(k, _)| *k == key) {
                            Some((_, id)) => *id,
                            None => {
                                let id = solver
                                    .compile_set(&f, lhs[order[k]], &names, &params)
                                    .map_err(|e| solver_err("pre", e))?;
                                shared_sets.push((key, id));
                                id
                            }
                        };
                        id.map(|id| (k, id, consts))
                    }
                    None => None,
                };
                match set {
                    Some((k, id, consts)) => step_sets[k].push((id, consts)),
                    None => rest.push(f),
                }
            }
            let join = |mut fs: Vec<Formula>| match fs.len() {
                0 => Formula::True,
                1 => fs.pop().unwrap_or(Formula::True),
                _ => Formula::And(fs),
            };
            let (dep, indep) = (join(rest), join(indep));
            let pre = if dep == Formula::True {
                None
            } else {
                Some(
                    solver
                        .compile_formula(&dep, &lhs, &params)
                        .map_err(|e| solver_err("pre", e))?,
                )
            };
            let pre_state = if indep == Formula::True {
                None
            } else if let Some(&(_, _, id)) = shared_pres
                .iter()
                .find(|(f, ps, _)| *f == indep && *ps == rule_params[ri])
            {
                Some(id)
            } else {
                let id = solver
                    .compile_formula(&indep, &[], &params)
                    .map_err(|e| solver_err("pre", e))?;
                shared_pres.push((indep, rule_params[ri].clone(), id));
                Some(id)
            };
            let post = if r.post == Formula::True {
                None
            } else {
                Some(
                    solver
                        .compile_formula(&r.post, &rhs, &params)
                        .map_err(|e| solver_err("post", e))?,
                )
            };
            let updates = r
                .update
                .iter()
                .map(|u| solver.compile_real(&u.value, &lhs, &params))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| solver_err("update", e))?;
            let inv = if r.inv == Formula::True {
                None
            } else {
                Some(
                    solver
                        .compile_formula(&r.inv, &lhs, &params)
                        .map_err(|e| solver_err("inv", e))?,
                )
            };
            let cont = if r.dynamics.is_empty() {
                None
            } else {
                let c = ContinuousRule::new(r, &rule_params[ri]).map_err(ierr)?;
                let lhs_index = |e: &str| {
                    rule.lhs_names().iter().position(|l| l == e).ok_or_else(|| {
                        ierr(format!("rule {}: `{e}` is not a left element", r.name))
                    })
                };
                let fun = |name: &str| {
                    sig.function(name)
                        .ok_or_else(|| ierr(format!("rule {}: unknown function `{name}`", r.name)))
                };
                let inputs = c
                    .inputs
                    .iter()
                    .map(|i| Ok((fun(&i.stored_name())?, lhs_index(&i.element)?)))
                    .collect::<Result<Vec<_>, InterpreterError>>()?;
                let targets = r
                    .dynamics
                    .iter()
                    .map(|d| Ok((fun(&d.function)?, lhs_index(&d.element)?)))
                    .collect::<Result<Vec<_>, InterpreterError>>()?;
                let mine = compiled.iter().find(|t| t.rule == r.name);
                Some(RuleCont {
                    inputs,
                    targets,
                    dynamics: c.dynamics,
                    compiled_dynamics: mine.and_then(|t| t.dynamics),
                    compiled_update: if c.update.is_some() {
                        mine.and_then(|t| t.update)
                    } else {
                        None
                    },
                })
            };
            rules.push(RuleInfo {
                rule,
                params: rule_params[ri].clone(),
                pre,
                step_sets,
                pre_state,
                post,
                updates,
                inv,
                cont,
            });
        }
        let stable: Vec<RelId> = (0..sig.num_relations()).filter(|&r| !changed[r]).collect();

        // The order of each function's ODEs: one per function.
        let mut derivatives: Vec<Vec<FunId>> = vec![Vec::new(); sig.num_functions()];
        for r in &game.rules {
            for d in &r.dynamics {
                let chain: Vec<FunId> = (0..d.order)
                    .filter_map(|k| sig.function(&derivative_name(&d.function, k)))
                    .collect();
                let Some(&base) = chain.first() else {
                    return Err(ierr(format!("rule {}: an ODE of order 0", r.name)));
                };
                if !derivatives[base].is_empty() && derivatives[base] != chain {
                    return Err(ierr(format!(
                        "rule {}: ODEs for `:{}` of different orders ({} and {}); all \
                         equations for one function must have the same order",
                        r.name,
                        d.function,
                        derivatives[base].len(),
                        d.order
                    )));
                }
                derivatives[base] = chain;
            }
        }
        // An update of a derivative (`:f'(r)`) must set one that is kept.
        for r in &game.rules {
            for u in &r.update {
                let order = u.function.len() - u.function.trim_end_matches('\'').len();
                if order == 0 {
                    continue;
                }
                let base = &u.function[..u.function.len() - order];
                let kept = sig
                    .function(base)
                    .is_some_and(|f| derivatives[f].len() > order);
                if !kept {
                    return Err(ierr(format!(
                        "rule {}: `update :{}({})` sets a derivative that is not kept: only \
                         derivatives below the order of an ODE for `:{base}` are",
                        r.name, u.function, u.element
                    )));
                }
            }
        }
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

        let nplayers = game.players.len();
        let mut locations = Vec::with_capacity(game.locations.len());
        for (li, loc) in game.locations.iter().enumerate() {
            if loc.players.len() != nplayers {
                return Err(ierr(format!(
                    "location {li} has {} player entries, not {nplayers}",
                    loc.players.len()
                )));
            }
            let mut labels = Vec::with_capacity(nplayers);
            let mut payoffs = Vec::with_capacity(nplayers);
            let mut label_players = Vec::new();
            for (p, pl) in loc.players.iter().enumerate() {
                payoffs.push(
                    solver
                        .compile_real(&pl.payoff, &[], &[])
                        .map_err(|e| ierr(format!("payoff in location {li}: {}", e.message)))?,
                );
                if !pl.moves.is_empty() {
                    label_players.push(p);
                }
                let mut ls = Vec::with_capacity(pl.moves.len());
                for l in &pl.moves {
                    let ri = rule_index(&l.rule)
                        .ok_or_else(|| ierr(format!("label names unknown rule {}", l.rule)))?;
                    if l.targets.is_empty() {
                        return Err(ierr(format!(
                            "label {} in location {li} has no target",
                            l.rule
                        )));
                    }
                    for t in &l.targets {
                        if t.location >= game.locations.len() {
                            return Err(ierr(format!(
                                "label {} in location {li} targets unknown location {}",
                                l.rule, t.location
                            )));
                        }
                    }
                    let params: Vec<(usize, ir::Interval)> = l
                        .params
                        .iter()
                        .map(|(n, i)| {
                            let k = rules[ri].params.iter().position(|q| q == n).unwrap_or(0);
                            (k, i.clone())
                        })
                        .collect();
                    let first = l.targets.first();
                    let expect = |i: &ir::Interval| {
                        grid(
                            bound_value(&i.lo, &[], first),
                            bound_value(&i.hi, &[], first),
                        )
                    };
                    let mut choices: Vec<(Option<f64>, Vec<f64>)> = match &l.time {
                        Some(i) => expect(i).into_iter().map(|t| (Some(t), vec![])).collect(),
                        None => vec![(None, vec![])],
                    };
                    for k in 0..rules[ri].params.len() {
                        let values = match params.iter().find(|(q, _)| *q == k) {
                            Some((_, i)) => expect(i),
                            None => vec![0.0],
                        };
                        choices = choices
                            .into_iter()
                            .flat_map(|(t, ps)| {
                                values.iter().map(move |&v| {
                                    let mut ps = ps.clone();
                                    ps.push(v);
                                    (t, ps)
                                })
                            })
                            .collect();
                    }
                    ls.push(LabelInfo {
                        rule: ri,
                        multiplicity: l.multiplicity,
                        time: l.time.clone(),
                        params,
                        targets: l.targets.clone(),
                        choices,
                    });
                }
                labels.push(ls);
            }
            let forests = labels
                .iter()
                .map(|ls| {
                    let members: Vec<usize> = (0..ls.len())
                        .filter(|&i| {
                            let l: &LabelInfo = &ls[i];
                            matches!(&l.choices[..], [(None, ps)] if ps.is_empty())
                                && rules[l.rule].step_sets.iter().all(|v| v.is_empty())
                        })
                        .collect();
                    let compiled: Vec<&CompiledRule> =
                        members.iter().map(|&i| &rules[ls[i].rule].rule).collect();
                    let forest = MatchForest::new(&compiled)?;
                    let mut slot = vec![None; ls.len()];
                    for (k, &i) in members.iter().enumerate() {
                        slot[i] = Some(k);
                    }
                    Some(LabelForest {
                        forest,
                        labels: members,
                        slot,
                    })
                })
                .collect();
            locations.push(LocInfo {
                labels,
                forests,
                payoffs,
                label_players,
            });
        }
        if locations.is_empty() {
            return Err(ierr("the game has no locations"));
        }

        let (structure, location) = match &game.model {
            Some(m) => (
                conform(&sig, m),
                game.history.last().map_or(0, |h| h.target),
            ),
            None => (sig.clone(), 0),
        };
        if location >= locations.len() {
            return Err(ierr(format!("history ends in unknown location {location}")));
        }
        // Tabulate defined relations over stable relations (recompiles all
        // formulas compiled above).
        solver.set_stable(&stable);
        if solver.enumerates_sets() && structure.num_elements() > SET_ENUMERATION_LIMIT {
            return Err(ierr(format!(
                "{} (the structure has {} elements)",
                crate::solver::enumeration_fault(structure.num_elements()),
                structure.num_elements()
            )));
        }
        solver.set_stable_from(&structure);
        if let Some(f) = solver.fault() {
            return Err(ierr(f));
        }
        Ok(Interpreter {
            players: game.players.clone(),
            solver,
            rules,
            locations,
            initial: State {
                structure,
                location,
                time: 0.0,
            },
            stable,
            continuous,
            method: Method::default(),
            derivatives,
            compound_turns: crate::analysis::has_compound_turns(game),
            fault: std::sync::OnceLock::new(),
            payoff_bounds: crate::ir::bounds::payoff_bounds(game).map(|b| (b.lo, b.hi)),
        })
    }

    /// Whether the play ran into a limit ([`Game::fault`]): every state is
    /// then terminal.
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

    /// [`Game::apply`] that stops the evolution at absolute time `until`
    /// (no rule applies then) and shows `observe` the structure with the
    /// absolute time after every integration step and after the rules
    /// applied. Reports the rules applied. For games that are not
    /// continuous it is [`Game::apply`], reporting every rule applied.
    pub fn apply_observed(
        &self,
        s: &mut State,
        joint: &[Move],
        rng: &mut Rng,
        until: f64,
        observe: Option<evolve::Observer<'_>>,
    ) -> Evolution {
        if self.continuous {
            return self.apply_continuous(s, joint, rng, until, observe);
        }
        let loc = &self.locations[s.location];
        let mut applied = Vec::new();
        for (&p, mv) in loc.label_players.iter().zip(joint) {
            let rule = self.rules[loc.labels[p][mv.label].rule].rule.name();
            applied.extend(mv.matches.iter().map(|_| rule.to_string()));
        }
        let before = s.time;
        self.apply(s, joint, rng);
        Evolution {
            applied,
            elapsed: s.time - before,
            ..Evolution::default()
        }
    }

    /// The edge a label takes: its only target, or one drawn by
    /// probability.
    fn choose_target<'a>(&self, label: &'a LabelInfo, rng: &mut Rng) -> &'a ir::Target {
        if label.targets.len() == 1 {
            return &label.targets[0];
        }
        let u = uniform01(rng);
        let mut acc = 0.0;
        for t in &label.targets {
            acc += t.probability.unwrap_or(0.0);
            if u < acc {
                return t;
            }
        }
        &label.targets[label.targets.len() - 1]
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

    /// Whether the match `elems` of rule `rule` (index in `ir::Game::rules`)
    /// passes the whole precondition (its per-state and per-match parts) and
    /// the postcondition, as move generation decides. For generated code
    /// that specializes the matching of a rule but not all its conditions.
    pub fn rule_match_passes(&self, rule: usize, s: &Structure, elems: &[Elem]) -> bool {
        let ri = &self.rules[rule];
        if let Some(pre) = ri.pre_state
            && !self.solver.holds(s, pre, &[], &[])
        {
            return false;
        }
        let opt = ri.rule.optional_mask(s, elems);
        self.match_ok(ri, s, elems, opt, &[])
    }

    /// The matches of rule `rule` that pass its pre- and postcondition, in
    /// canonical order (rules without parameters).
    pub fn rule_matches(&self, rule: usize, s: &Structure, out: &mut Vec<Match>) {
        let ri = &self.rules[rule];
        out.clear();
        if let Some(pre) = ri.pre_state
            && !self.solver.holds(s, pre, &[], &[])
        {
            return;
        }
        ri.rule.matches(s, out);
        out.retain(|m| self.match_ok(ri, s, &m.elems, m.optional, &[]));
    }

    /// Applies rule `rule` on the match `elems`, update terms included, as
    /// [`Game::apply`] does for one move.
    pub fn apply_rule_match(&self, rule: usize, s: &mut Structure, elems: &[Elem]) {
        let ri = &self.rules[rule];
        let m = Match {
            elems: elems.into(),
            optional: ri.rule.optional_mask(s, elems),
        };
        let vals: Vec<f64> = ri
            .updates
            .iter()
            .map(|&u| self.solver.value(s, u, elems, &[]))
            .collect();
        ri.rule.apply(s, &m, &vals);
    }

    /// The payoff of `player` in location `location` on the structure `s`.
    pub fn payoff_value(&self, location: usize, player: usize, s: &Structure) -> f64 {
        self.solver
            .value(s, self.locations[location].payoffs[player], &[], &[])
    }

    /// Whether match `m` of rule `ri` passes the match-dependent part of
    /// `pre` and `post`.
    fn match_ok(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        elems: &[Elem],
        opt: u64,
        params: &[f64],
    ) -> bool {
        self.match_ok_with(ri, s, elems, opt, params, true)
    }

    /// [`Interpreter::match_ok`], checking `post` only if `with_post` (a
    /// label of multiplicity `Any` checks it per set of matches).
    fn match_ok_with(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        elems: &[Elem],
        opt: u64,
        params: &[f64],
        with_post: bool,
    ) -> bool {
        if let Some(pre) = ri.pre
            && !self.solver.holds(s, pre, elems, params)
        {
            return false;
        }
        // With dynamics, `post` is checked after the evolution.
        if let Some(post) = ri.post
            && ri.cont.is_none()
            && with_post
        {
            let m = Match {
                elems: elems.into(),
                optional: opt,
            };
            // The update values, in a per-thread buffer (this runs per
            // candidate move).
            let mut vals = UPDATE_VALUES.with(|b| std::mem::take(&mut *b.borrow_mut()));
            vals.clear();
            vals.extend(
                ri.updates
                    .iter()
                    .map(|&u| self.solver.value(s, u, elems, params)),
            );
            // The candidate's result is built in a per-thread copy of `s`
            // that is restored, not cloned, for each candidate.
            let mut t = POST_SCRATCH
                .with(|c| c.borrow_mut().take())
                .unwrap_or_default();
            t.restore_from(s);
            let ok = IMAGES.with(|b| {
                let img = &mut b.borrow_mut();
                ri.rule.apply_into(&mut t, &m, &vals, img);
                self.solver.holds(&t, post, img, params)
            });
            POST_SCRATCH.with(|c| *c.borrow_mut() = Some(t));
            UPDATE_VALUES.with(|b| *b.borrow_mut() = vals);
            return ok;
        }
        true
    }

    /// Whether `post` of rule `ri` holds for every match of `set` in the
    /// structure after all of them are applied to `s` (in order, with the
    /// update terms evaluated in `s`, as [`Game::apply`] does).
    fn set_post_ok(&self, ri: &RuleInfo, s: &Structure, set: &[Match], params: &[f64]) -> bool {
        let (Some(post), None) = (ri.post, &ri.cont) else {
            return true;
        };
        let mut t = s.clone();
        let mut images: Vec<Vec<Elem>> = Vec::with_capacity(set.len());
        for m in set {
            let vals: Vec<f64> = ri
                .updates
                .iter()
                .map(|&u| self.solver.value(s, u, &m.elems, params))
                .collect();
            let mut img = Vec::new();
            ri.rule.apply_into(&mut t, m, &vals, &mut img);
            images.push(img);
        }
        images
            .iter()
            .all(|img| self.solver.holds(&t, post, img, params))
    }

    fn independent_pre_ok(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        params: &[f64],
        cache: &mut PreCache,
    ) -> bool {
        match ri.pre_state {
            Some(pre) => {
                if let Some(&(_, _, v)) = cache
                    .0
                    .iter()
                    .find(|(f, ps, _)| *f == pre && ps[..] == *params)
                {
                    return v;
                }
                let v = self.solver.holds(s, pre, &[], params);
                cache.0.push((pre, params.to_vec(), v));
                v
            }
            None => true,
        }
    }

    /// The elements matcher step `k` of rule `ri` may bind, given the
    /// elements bound before: the intersection of the step's set-at-a-time
    /// conjuncts of `pre` (`None`: no restriction).
    fn step_set(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        k: usize,
        assign: &[Elem],
        params: &[f64],
        memo: &mut StepSets,
    ) -> Option<BitSet> {
        let mut out: Option<BitSet> = None;
        for (f, consts) in ri.step_sets.get(k)? {
            let cs: Vec<Elem> = consts.iter().map(|&i| assign[i]).collect();
            let known = memo
                .1
                .iter()
                .find(|(g, c, p, _)| g == f && *c == cs && p[..] == *params);
            let set = match known {
                Some((_, _, _, set)) => set.clone(),
                None => {
                    let set = self.solver.set_of_memo(s, *f, &cs, params, &mut memo.0);
                    memo.1.push((*f, cs, params.to_vec(), set.clone()));
                    set
                }
            };
            out = Some(match out {
                None => set,
                Some(mut acc) => {
                    for (i, w) in acc.words_mut().iter_mut().enumerate() {
                        *w &= set.words().get(i).copied().unwrap_or(0);
                    }
                    acc
                }
            });
        }
        out
    }

    fn has_legal_move(&self, s: &State, player: usize, cache: &mut PreCache) -> bool {
        let loc = &self.locations[s.location];
        for (li, label) in loc.labels[player].iter().enumerate() {
            let ri = &self.rules[label.rule];
            if label.multiplicity == Multiplicity::Any && ri.post.is_some() && ri.cont.is_none() {
                // A set may pass `post` where no single match does.
                let mut moves = Vec::new();
                self.label_moves(s, li, label, &mut moves, cache);
                if !moves.is_empty() {
                    return true;
                }
                continue;
            }
            for (_, params) in &label.choices {
                if !self.independent_pre_ok(ri, &s.structure, params, cache) {
                    continue;
                }
                let found = !ri.rule.for_each_match_filtered(
                    &s.structure,
                    |k, assign| self.step_set(ri, &s.structure, k, assign, params, &mut cache.1),
                    |elems, opt| !self.match_ok(ri, &s.structure, elems, opt, params),
                );
                if found {
                    return true;
                }
            }
        }
        false
    }

    fn label_moves(
        &self,
        s: &State,
        li: usize,
        label: &LabelInfo,
        out: &mut Vec<Move>,
        cache: &mut PreCache,
    ) {
        let ri = &self.rules[label.rule];
        let with_post = label.multiplicity != Multiplicity::Any;
        // The matches, computed at most once per label (choices without
        // set-at-a-time conjuncts share them).
        let mut all = MATCH_BUFFERS
            .with(|b| b.borrow_mut().pop())
            .unwrap_or_default();
        let mut have_all = false;
        let filtered = ri.pre.is_some() || ri.post.is_some();
        let last = label.choices.len().saturating_sub(1);
        for (ci, (time, params)) in label.choices.iter().enumerate() {
            if !self.independent_pre_ok(ri, &s.structure, params, cache) {
                continue;
            }
            if ri.step_sets.iter().any(|v| !v.is_empty()) {
                // Parts of `pre` restrict the matcher per choice: only
                // their matches are listed.
                ri.rule.matches_where(
                    &s.structure,
                    &mut all,
                    |k, assign| self.step_set(ri, &s.structure, k, assign, params, &mut cache.1),
                    |_| true,
                );
                if filtered {
                    all.retain(|m| {
                        self.match_ok_with(
                            ri,
                            &s.structure,
                            &m.elems,
                            m.optional,
                            params,
                            with_post,
                        )
                    });
                }
                self.push_moves(&s.structure, li, label, *time, params, &mut all, out);
                continue;
            }
            if !have_all {
                ri.rule.matches(&s.structure, &mut all);
                have_all = true;
            }
            if ci == last {
                // The last choice takes the list.
                if filtered {
                    all.retain(|m| {
                        self.match_ok_with(
                            ri,
                            &s.structure,
                            &m.elems,
                            m.optional,
                            params,
                            with_post,
                        )
                    });
                }
                self.push_moves(&s.structure, li, label, *time, params, &mut all, out);
            } else {
                let mut ok: Vec<Match> = all
                    .iter()
                    .filter(|m| {
                        !filtered
                            || self.match_ok_with(
                                ri,
                                &s.structure,
                                &m.elems,
                                m.optional,
                                params,
                                with_post,
                            )
                    })
                    .cloned()
                    .collect();
                self.push_moves(&s.structure, li, label, *time, params, &mut ok, out);
            }
        }
        all.clear();
        MATCH_BUFFERS.with(|b| b.borrow_mut().push(all));
    }

    /// The moves of label `li` for one choice of time and parameters, from
    /// the matches `ok` that pass `pre` and (but for `Any`) `post`, by
    /// multiplicity (`ok` is left empty).
    #[allow(clippy::too_many_arguments)]
    fn push_moves(
        &self,
        s: &Structure,
        li: usize,
        label: &LabelInfo,
        time: Option<f64>,
        params: &[f64],
        ok: &mut Vec<Match>,
        out: &mut Vec<Move>,
    ) {
        let mk = |matches: Matches| Move {
            label: li,
            matches,
            time,
            params: params.to_vec(),
        };
        match label.multiplicity {
            Multiplicity::One => out.extend(ok.drain(..).map(|m| mk(Matches::One(m)))),
            Multiplicity::All => {
                if !ok.is_empty() {
                    out.push(mk(Matches::Many(std::mem::take(ok))));
                }
            }
            Multiplicity::Any => {
                let mut sets = Vec::new();
                if !disjoint_sets(ok, 0, &mut Vec::new(), &mut sets) {
                    let ri = &self.rules[label.rule];
                    let _ = self.fault.set(format!(
                        "rule `{}` has multiplicity `*` and more than {ANY_MOVES_LIMIT} sets of \
                         pairwise disjoint matches here ({} matches): listing them all is out \
                         of reach",
                        ri.rule.name(),
                        ok.len()
                    ));
                    ok.clear();
                    return;
                }
                let ri = &self.rules[label.rule];
                for set in sets {
                    let set: Vec<Match> = set.iter().map(|&i| ok[i].clone()).collect();
                    if self.set_post_ok(ri, s, &set, params) {
                        out.push(mk(Matches::Many(set)));
                    }
                }
                ok.clear();
            }
        }
    }
}

/// Values of independent preconditions (sentences like `not WinQ()`) on one
/// state, per formula and parameter values: all labels of a state that share
/// a precondition evaluate it once.
/// It also keeps the state-only parts of the set-at-a-time conjuncts.
#[derive(Default)]
struct PreCache(Vec<(FormulaId, Vec<f64>, bool)>, StepSets);

/// The set-at-a-time conjuncts evaluated on one state: the memo of their
/// state-only parts, and each value by formula, constants and parameters
/// (rules sharing a conjunct, like a bishop's moves and captures, evaluate
/// it once per bound piece).
#[derive(Default)]
#[allow(clippy::type_complexity)]
struct StepSets(SetMemo, Vec<(FormulaId, Vec<Elem>, Vec<f64>, BitSet)>);

impl StepSets {
    fn clear(&mut self) {
        self.0.clear();
        self.1.clear();
    }
}

impl PreCache {
    /// Runs `f` with an empty cache taken from a per-thread pool (one cache
    /// per state; reusing them saves their allocations).
    fn with<R>(f: impl FnOnce(&mut PreCache) -> R) -> R {
        let mut c = PRE_CACHES
            .with(|p| p.borrow_mut().pop())
            .unwrap_or_default();
        c.0.clear();
        c.1.clear();
        let out = f(&mut c);
        PRE_CACHES.with(|p| p.borrow_mut().push(c));
        out
    }
}

thread_local! {
    /// The structure in which postconditions are checked (see
    /// [`Structure::restore_from`]).
    static POST_SCRATCH: std::cell::RefCell<Option<Structure>> =
        const { std::cell::RefCell::new(None) };
    static PRE_CACHES: std::cell::RefCell<Vec<PreCache>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// The update values of the candidate whose postcondition is checked.
    static UPDATE_VALUES: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The images of right elements of the last rule application.
    static IMAGES: std::cell::RefCell<Vec<Elem>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Buffers for the matches of one label, kept between labels and
    /// states (a board position has tens to thousands of matches).
    static MATCH_BUFFERS: std::cell::RefCell<Vec<Vec<Match>>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// Per label of a [`LabelForest`], its matches (kept as `MATCH_BUFFERS`).
    static FOREST_LISTS: std::cell::RefCell<Vec<Vec<Vec<Match>>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Interpreter {
    fn player_moves(&self, s: &State, player: usize, out: &mut Vec<Move>, cache: &mut PreCache) {
        out.clear();
        let loc = &self.locations[s.location];
        match &loc.forests[player] {
            Some(lf) => self.forest_moves(s, &loc.labels[player], lf, out, cache),
            None => {
                for (li, label) in loc.labels[player].iter().enumerate() {
                    self.label_moves(s, li, label, out, cache);
                }
            }
        }
    }

    /// [`Interpreter::player_moves`] for a player with a [`LabelForest`]:
    /// its labels are matched together, then filtered and turned into
    /// moves in label order as `label_moves` does.
    #[inline(never)]
    fn forest_moves(
        &self,
        s: &State,
        labels: &[LabelInfo],
        lf: &LabelForest,
        out: &mut Vec<Move>,
        cache: &mut PreCache,
    ) {
        let active: Vec<bool> = lf
            .labels
            .iter()
            .map(|&li| {
                let ri = &self.rules[labels[li].rule];
                self.independent_pre_ok(ri, &s.structure, &[], cache)
            })
            .collect();
        let rules: Vec<&CompiledRule> = lf
            .labels
            .iter()
            .map(|&li| &self.rules[labels[li].rule].rule)
            .collect();
        let mut lists = FOREST_LISTS
            .with(|b| b.borrow_mut().pop())
            .unwrap_or_default();
        if lists.len() < rules.len() {
            lists.resize_with(rules.len(), Vec::new);
        }
        lf.forest
            .matches(&rules, &s.structure, &active, &mut lists[..rules.len()]);
        for (li, label) in labels.iter().enumerate() {
            let Some(k) = lf.slot[li] else {
                self.label_moves(s, li, label, out, cache);
                continue;
            };
            let ri = &self.rules[label.rule];
            let list = &mut lists[k];
            if ri.pre.is_some() || ri.post.is_some() {
                let with_post = label.multiplicity != Multiplicity::Any;
                list.retain(|m| {
                    self.match_ok_with(ri, &s.structure, &m.elems, m.optional, &[], with_post)
                });
            }
            self.push_moves(&s.structure, li, label, None, &[], list, out);
            list.clear();
        }
        FOREST_LISTS.with(|b| b.borrow_mut().push(lists));
    }
}

/// Appends to `out`, in lexicographic order of index lists, every non-empty
/// set of pairwise disjoint matches extending `cur` with indices from
/// `start` on; false (with `out` incomplete) when there are more than
/// [`ANY_MOVES_LIMIT`].
fn disjoint_sets(
    ms: &[Match],
    start: usize,
    cur: &mut Vec<usize>,
    out: &mut Vec<Vec<usize>>,
) -> bool {
    for i in start..ms.len() {
        if out.len() >= ANY_MOVES_LIMIT {
            return false;
        }
        let clash = cur
            .iter()
            .any(|&j| ms[j].elems.iter().any(|e| ms[i].elems.contains(e)));
        if clash {
            continue;
        }
        cur.push(i);
        out.push(cur.clone());
        if !disjoint_sets(ms, i + 1, cur, out) {
            return false;
        }
        cur.pop();
    }
    true
}

impl Game for Interpreter {
    type State = State;
    type Move = Move;

    fn player_names(&self) -> &[String] {
        &self.players
    }

    fn initial_state(&self) -> State {
        self.initial.clone()
    }

    fn movers(&self, s: &State, out: &mut Vec<usize>) {
        out.clear();
        let loc = &self.locations[s.location];
        PreCache::with(|cache| {
            for &p in &loc.label_players {
                if !self.has_legal_move(s, p, cache) {
                    out.clear();
                    return;
                }
                out.push(p);
            }
        });
        if self.faulted() {
            out.clear();
        }
    }

    fn legal_moves(&self, s: &State, player: usize, out: &mut Vec<Move>) {
        PreCache::with(|cache| self.player_moves(s, player, out, cache));
        if self.faulted() {
            out.clear();
        }
    }

    /// The movers are the label players when each has a legal move, so the
    /// moves generated to find out are the moves returned: one pass of
    /// matching per state instead of two.
    fn movers_and_moves(&self, s: &State, movers: &mut Vec<usize>, moves: &mut Vec<Vec<Move>>) {
        movers.clear();
        let loc = &self.locations[s.location];
        if moves.len() < loc.label_players.len() {
            moves.resize_with(loc.label_players.len(), Vec::new);
        }
        PreCache::with(|cache| {
            for (&p, out) in loc.label_players.iter().zip(moves.iter_mut()) {
                self.player_moves(s, p, out, cache);
                if out.is_empty() {
                    movers.clear();
                    return;
                }
                movers.push(p);
            }
        });
        if self.faulted() {
            movers.clear();
        }
    }

    fn payoff_bounds(&self) -> Option<(f64, f64)> {
        self.payoff_bounds
    }

    fn fault(&self) -> Option<String> {
        self.fault
            .get()
            .map(|f| f.to_string())
            .or_else(|| self.solver.fault().map(|f| f.to_string()))
    }

    fn apply(&self, s: &mut State, joint: &[Move], rng: &mut Rng) {
        let loc = &self.locations[s.location];
        let movers = &loc.label_players;
        assert_eq!(
            joint.len(),
            movers.len(),
            "one move per mover expected (movers {movers:?})"
        );
        if joint.is_empty() {
            return;
        }
        if self.continuous {
            self.apply_continuous(s, joint, rng, f64::INFINITY, None);
            return;
        }
        // The edge taken: the first mover's label decides.
        let first = &loc.labels[movers[0]][joint[0].label];
        let target = self.choose_target(first, rng);
        let draws: Vec<(String, f64)> = target
            .draws
            .iter()
            .map(|(n, d)| (n.clone(), sample(d, rng)))
            .collect();

        let mut t0: Option<f64> = None;
        // Update values come from the structure before the move (spec 1.2:
        // the values of the left side), also when one move applies several
        // matches (`*`, `inf`) or several players move at once: all are
        // computed first, then the matches are applied in order.
        let one_update = joint.len() == 1 && joint[0].matches.len() == 1;
        let mut vals = Vec::new();
        let mut applications: Vec<(usize, &Match, std::ops::Range<usize>)> = Vec::new();
        for (&p, mv) in movers.iter().zip(joint) {
            let label = &loc.labels[p][mv.label];
            let ri = &self.rules[label.rule];
            let clamp = |v: f64, i: &ir::Interval| {
                let lo = bound_value(&i.lo, &draws, label.targets.first());
                let hi = bound_value(&i.hi, &draws, label.targets.first());
                if lo <= hi { v.clamp(lo, hi) } else { v }
            };
            let mut params = mv.params.clone();
            for (k, i) in &label.params {
                if let Some(v) = params.get_mut(*k) {
                    *v = clamp(*v, i);
                }
            }
            if let (Some(t), Some(i)) = (mv.time, &label.time) {
                let t = clamp(t, i);
                t0 = Some(t0.map_or(t, |x: f64| x.min(t)));
            }
            for m in mv.matches.iter() {
                let start = vals.len();
                vals.extend(
                    ri.updates
                        .iter()
                        .map(|&u| self.solver.value(&s.structure, u, &m.elems, &params)),
                );
                if one_update {
                    IMAGES.with(|b| {
                        ri.rule
                            .apply_into(&mut s.structure, m, &vals, &mut b.borrow_mut())
                    });
                } else {
                    applications.push((label.rule, m, start..vals.len()));
                }
            }
        }
        for (rule, m, range) in applications {
            // A match whose elements an earlier one deleted is skipped.
            if !m.elems.iter().all(|&e| s.structure.is_live(e)) {
                continue;
            }
            IMAGES.with(|b| {
                self.rules[rule].rule.apply_into(
                    &mut s.structure,
                    m,
                    &vals[range],
                    &mut b.borrow_mut(),
                )
            });
        }
        s.location = target.location;
        s.time += t0.unwrap_or(0.0);
    }

    fn draw_continuous(&self, s: &State, player: usize, m: &mut Move, rng: &mut Rng) {
        self.draw_choices(s, player, m, rng);
    }

    fn payoffs(&self, s: &State, out: &mut [f64]) {
        let loc = &self.locations[s.location];
        for (o, &t) in out.iter_mut().zip(&loc.payoffs) {
            *o = self.solver.value(&s.structure, t, &[], &[]);
        }
    }

    fn to_structure(&self, s: &State) -> Structure {
        s.structure.clone()
    }

    fn location(&self, s: &State) -> usize {
        s.location
    }

    fn has_compound_turns(&self) -> bool {
        self.compound_turns
    }

    fn move_to_string(&self, s: &State, player: usize, m: &Move) -> String {
        let Some(label) = self.locations[s.location].labels[player].get(m.label) else {
            return format!("{m:?}");
        };
        let ri = &self.rules[label.rule];
        let mut out = ri.rule.name().to_string();
        for mt in m.matches.iter() {
            out.push('{');
            for (i, (l, &e)) in ri.rule.lhs_names().iter().zip(&mt.elems).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(l);
                out.push_str(": ");
                out.push_str(s.structure.element_name(e));
            }
            out.push('}');
        }
        if let Some(t) = m.time {
            out.push_str(&format!(" t: {t}"));
        }
        for (n, v) in ri.params.iter().zip(&m.params) {
            out.push_str(&format!(" {n}: {v}"));
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests;
