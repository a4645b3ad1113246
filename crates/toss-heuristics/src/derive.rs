//! Derivation at build or load time (spec 3.2-3.5): from the payoff terms
//! of a game to real terms of the IR, one per player and location.

use std::collections::BTreeSet;

use toss_core::analysis::fluent_relations;
use toss_core::ir::{Formula, Game, RealExpr};

use crate::tnf::{Fresh, and, inline_defs, mentions_fluent, nnf, or};
use crate::{describe, rule_cond, tnf};
use toss_core::ir::{free_vars, relations_used};

use toss_core::game::HeuristicKind;
use toss_runtime::solver::Solver;

#[derive(Clone, Debug)]
pub struct HeuristicConfig {
    pub kind: HeuristicKind,
    /// The factor alpha < 1 of spec 3.3.
    pub alpha: f64,
    /// The power n of spec 3.5.
    pub power: u32,
    /// Existential descriptions use at most this many literals per
    /// conjunction (0: no descriptions). The last row of an 8x8 board
    /// needs a chain of 7 column literals.
    pub max_literals: usize,
}

impl Default for HeuristicConfig {
    fn default() -> Self {
        HeuristicConfig {
            kind: HeuristicKind::Existential,
            alpha: 0.25,
            power: 4,
            max_literals: 8,
        }
    }
}

/// Derived heuristics: `per_location[l][p]` for player `p` in location `l`.
#[derive(Clone, Debug, PartialEq)]
pub struct Heuristics {
    pub per_location: Vec<Vec<RealExpr>>,
}

/// Whether a formula has an existential quantifier (anywhere).
fn has_exists(f: &Formula) -> bool {
    match f {
        Formula::Exists { .. } => true,
        Formula::And(gs) | Formula::Or(gs) => gs.iter().any(has_exists),
        Formula::Not(g) => has_exists(g),
        Formula::Forall { body, .. } => has_exists(body),
        _ => false,
    }
}

fn depth(f: &Formula) -> u32 {
    match f {
        Formula::Exists { body, .. } => {
            let items = conj_items(body);
            1 + items.iter().map(depth).max().unwrap_or(0)
        }
        Formula::And(gs) | Formula::Or(gs) => gs.iter().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn conj_items(f: &Formula) -> Vec<Formula> {
    match f {
        Formula::And(gs) => gs.clone(),
        g => vec![g.clone()],
    }
}

fn add_all(ts: Vec<RealExpr>) -> RealExpr {
    ts.into_iter()
        .reduce(|a, b| RealExpr::Add(Box::new(a), Box::new(b)))
        .unwrap_or(RealExpr::Const(0.0))
}

/// The existential heuristic of spec 3.3 for a formula in TNF: each
/// `ex x (theta and rest)` becomes `Sum (x | theta : alpha^(d-1) + h(rest))`
/// where `d` is its nesting depth of existential steps (the innermost step
/// sums 1), disjunctions sum their parts, and anything else (literals,
/// universal formulas) outside an existential is its characteristic
/// function.
pub fn existential_heuristic(f: &Formula, alpha: f64) -> RealExpr {
    match f {
        Formula::Or(gs) | Formula::And(gs) if has_exists(f) => {
            add_all(gs.iter().map(|g| existential_heuristic(g, alpha)).collect())
        }
        Formula::Exists { vars, body } => {
            let d = depth(f);
            let (nested, guard): (Vec<Formula>, Vec<Formula>) =
                conj_items(body).into_iter().partition(has_exists);
            let inner = if nested.is_empty() {
                RealExpr::Const(1.0)
            } else {
                let mut ts = vec![RealExpr::Const(alpha.powi(d as i32 - 1))];
                ts.extend(nested.iter().map(|g| existential_heuristic(g, alpha)));
                add_all(ts)
            };
            RealExpr::Sum {
                vars: vars.iter().map(|v| v.name().to_string()).collect(),
                guard: Box::new(and(guard)),
                body: Box::new(inner),
            }
        }
        g => RealExpr::Char(Box::new(g.clone())),
    }
}

/// The preparation shared by both heuristics: inlining, NNF and existential
/// descriptions of stable non-existential subformulas.
pub struct Prepared<'a> {
    game: &'a Game,
    pub fluents: BTreeSet<String>,
    fluent_defs: BTreeSet<String>,
    solver: Option<Solver>,
    max_literals: usize,
    /// Defined relations whose inlined size is over [`MAX_INLINED_ATOMS`].
    too_large: BTreeSet<String>,
}

/// A defined relation larger than this once inlined is not inlined into
/// the formulas heuristics are derived from.
pub const MAX_INLINED_ATOMS: u64 = 20_000;

impl<'a> Prepared<'a> {
    pub fn new(game: &'a Game, max_literals: usize) -> Prepared<'a> {
        let fluents = fluent_relations(game);
        // Defined relations depending (transitively) on fluents.
        let mut fluent_defs = BTreeSet::new();
        loop {
            let before = fluent_defs.len();
            for d in &game.defined_relations {
                if relations_used(&d.body)
                    .iter()
                    .any(|r| fluents.contains(r) || fluent_defs.contains(r))
                {
                    fluent_defs.insert(d.name.clone());
                }
            }
            if fluent_defs.len() == before {
                break;
            }
        }
        let solver = Solver::new(&game.start, &game.defined_relations).ok();
        // Relations too large to inline stay atoms: a translated GDL game
        // defines relations per ground instance that use each other as a
        // DAG (reversi's piece count), exponential as a tree.
        let index = game
            .defined_relations
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.clone(), i))
            .collect();
        let sizes = toss_core::ir::sizes::inlined_sizes(&game.defined_relations, &index);
        let too_large = game
            .defined_relations
            .iter()
            .zip(sizes)
            .filter(|(_, n)| *n > MAX_INLINED_ATOMS)
            .map(|(d, _)| d.name.clone())
            .collect();
        Prepared {
            game,
            fluents,
            fluent_defs,
            too_large,
            solver,
            max_literals,
        }
    }

    /// Inlined, in NNF, with descriptions.
    pub fn prepare(&mut self, f: &Formula) -> Formula {
        let defs = &self.game.defined_relations;
        let fd = &self.fluent_defs;
        let too_large = &self.too_large;
        let inline = |n: &str| {
            !too_large.contains(n)
                && (fd.contains(n) || defs.iter().any(|d| d.name == n && !has_quantifier(&d.body)))
        };
        let g = inline_defs(f, defs, &inline, &mut Fresh::default());
        let g = nnf(&g);
        self.describe(&g)
    }

    fn is_stable(&self, f: &Formula) -> bool {
        !relations_used(f)
            .iter()
            .any(|r| self.fluents.contains(r) || self.fluent_defs.contains(r))
    }

    fn describe(&mut self, f: &Formula) -> Formula {
        let candidate = match f {
            Formula::Forall { .. } => true,
            Formula::Not(g) => matches!(**g, Formula::Exists { .. } | Formula::Forall { .. }),
            _ => false,
        };
        if candidate && self.max_literals > 0 && self.is_stable(f) {
            let free: Vec<String> = free_vars(f).into_iter().collect();
            if !free.is_empty()
                && let Some(d) = self.description(f, &free)
            {
                return d;
            }
        }
        match f {
            Formula::And(gs) => and(gs.iter().map(|g| self.describe(g)).collect()),
            Formula::Or(gs) => or(gs.iter().map(|g| self.describe(g)).collect()),
            Formula::Exists { vars, body } => Formula::Exists {
                vars: vars.clone(),
                body: Box::new(self.describe(body)),
            },
            Formula::Forall { vars, body } => Formula::Forall {
                vars: vars.clone(),
                body: Box::new(self.describe(body)),
            },
            g => g.clone(),
        }
    }

    fn description(&mut self, f: &Formula, free: &[String]) -> Option<Formula> {
        let solver = self.solver.as_mut()?;
        let names: Vec<&str> = free.iter().map(String::as_str).collect();
        let q = solver.compile_query(f, &names, &[], &[]).ok()?;
        let tuples: BTreeSet<_> = solver
            .satisfying(&self.game.start, q, &[], &[])
            .into_iter()
            .collect();
        let start = &self.game.start;
        let stable: Vec<_> = (0..start.num_relations())
            .filter(|&r| !self.fluents.contains(start.relation_name(r)))
            .collect();
        describe::existential_description(start, &stable, free, &tuples, self.max_literals)
    }
}

fn has_quantifier(f: &Formula) -> bool {
    match f {
        Formula::Exists { .. } | Formula::Forall { .. } => true,
        Formula::And(gs) | Formula::Or(gs) => gs.iter().any(has_quantifier),
        Formula::Not(g) => has_quantifier(g),
        Formula::Implies(a, b) | Formula::Iff(a, b) => has_quantifier(a) || has_quantifier(b),
        Formula::Rel { .. } | Formula::Eq(..) | Formula::True | Formula::False => false,
        _ => true,
    }
}

/// Replaces each `:(phi)` in `t` by `h(phi)`.
fn map_chars(t: &RealExpr, h: &mut dyn FnMut(&Formula) -> RealExpr) -> RealExpr {
    let b = |x: &RealExpr, h: &mut dyn FnMut(&Formula) -> RealExpr| Box::new(map_chars(x, h));
    match t {
        RealExpr::Char(f) => h(f),
        RealExpr::Neg(a) => RealExpr::Neg(b(a, h)),
        RealExpr::Add(x, y) => RealExpr::Add(b(x, h), b(y, h)),
        RealExpr::Sub(x, y) => RealExpr::Sub(b(x, h), b(y, h)),
        RealExpr::Mul(x, y) => RealExpr::Mul(b(x, h), b(y, h)),
        RealExpr::Div(x, y) => RealExpr::Div(b(x, h), b(y, h)),
        _ => t.clone(),
    }
}

/// The heuristic of one characteristic-function argument.
pub fn formula_heuristic(p: &mut Prepared<'_>, f: &Formula, cfg: &HeuristicConfig) -> RealExpr {
    let g = p.prepare(f);
    if !mentions_fluent(&g, &p.fluents) {
        return RealExpr::Char(Box::new(f.clone()));
    }
    match cfg.kind {
        HeuristicKind::Existential => existential_heuristic(&tnf::tnf(&g, &p.fluents), cfg.alpha),
        HeuristicKind::RuleCondition => {
            rule_cond::rule_condition_heuristic(&g, p.game, &p.fluents, cfg.power)
                .unwrap_or_else(|| RealExpr::Char(Box::new(f.clone())))
        }
    }
}

/// Derives the heuristic of every player in every location from the payoff
/// terms.
pub fn derive(game: &Game, cfg: &HeuristicConfig) -> Heuristics {
    let mut p = Prepared::new(game, cfg.max_literals);
    let per_location = game
        .locations
        .iter()
        .map(|loc| {
            loc.players
                .iter()
                .map(|pl| map_chars(&pl.payoff, &mut |f| formula_heuristic(&mut p, f, cfg)))
                .collect()
        })
        .collect();
    Heuristics { per_location }
}
