//! `Distinguish(P, N)` (spec 4.3.3): a sentence true in every positive
//! example and in no negative one, from the first level of the search
//! order that has one: fewest variables `k`, then `TC^m` of an atomic
//! pair type (for `k = 2`), then lowest quantifier rank `n`, then the
//! weakest fragment (existential guarded, guarded, full first-order).
//!
//! At a level, each positive example needs a tuple whose type no negative
//! tuple has (for the existential guarded fragment: whose formula no
//! negative tuple satisfies); the sentence is the disjunction, over the
//! positives not yet covered, of `ex x1..xk tau` for such a type. Each
//! disjunct is shortened greedily (drop quantified parts, then negative
//! literals, then positive ones, as long as no negative example satisfies
//! what is left), and the shortest of a few candidate types is kept.
//! Every check of a formula on an example is the solver's.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use toss_core::ir::{Formula, Var};
use toss_core::structure::Structure;
use toss_runtime::solver::Solver;

use super::scene::{Scene, Signature, SignatureError};
use super::tidy::tidy;
use super::types::{Fragment, Fresh, Types};

/// How far the search goes.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The most variables tried.
    pub max_k: usize,
    /// The most steps `m` of `TC^m` tried.
    pub max_tc_steps: u32,
    /// The most tuples typed at one level, over all examples.
    pub max_tuples: usize,
    /// The most tuple visits to refine full first-order types, over all
    /// examples ([`Types::full_work`]); beyond it the full fragment is
    /// skipped at that level.
    pub max_full_work: usize,
    /// How many candidate types of one positive example are shortened.
    pub candidates: usize,
    /// The largest formula (in nodes) built for a candidate type.
    pub max_formula: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_k: 3,
            max_tc_steps: 8,
            max_tuples: 4 << 20,
            max_full_work: 400 << 20,
            candidates: 6,
            max_formula: 4000,
        }
    }
}

/// A level of the search order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `ex x0, x1 (tc m x0, x1 tau(x0, x1))` for an atomic pair type `tau`.
    Tc { steps: u32 },
    /// Types of `k`-tuples of quantifier rank `n` in `fragment`.
    Types {
        k: usize,
        n: usize,
        fragment: Fragment,
    },
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Level::Tc { steps } => write!(f, "k = 2, TC^{steps} of an atomic pair type"),
            Level::Types { k, n: 0, .. } => write!(f, "k = {k}, n = 0 (atomic)"),
            Level::Types { k, n, fragment } => write!(f, "k = {k}, n = {n}, {fragment}"),
        }
    }
}

/// What one level of the search gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Separates,
    /// This positive example has no type outside the negatives'.
    NotSeparated {
        positive: usize,
    },
    /// Not tried: too many tuples or too much work.
    Skipped(String),
}

/// One level tried, in search order.
#[derive(Clone, Debug)]
pub struct Attempt {
    /// `Tc` attempts list the most steps tried.
    pub level: Level,
    pub outcome: Outcome,
    pub time: Duration,
}

/// The result of [`distinguish`].
#[derive(Clone, Debug)]
pub struct Distinguished {
    /// The shortened sentence.
    pub formula: Formula,
    /// The disjunction of the chosen types before shortening.
    pub before: Formula,
    pub level: Level,
    pub attempts: Vec<Attempt>,
    pub time: Duration,
}

/// Why no sentence was found.
#[derive(Clone, Debug)]
pub enum DistinguishError {
    Signature(SignatureError),
    /// The same structure is positive and negative.
    Same {
        positive: usize,
        negative: usize,
    },
    /// No level within the limits separates them.
    NotFound {
        attempts: Vec<Attempt>,
    },
    /// The solver refused a formula (a bug: every formula built here is
    /// first-order).
    Solver(String),
}

impl std::fmt::Display for DistinguishError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DistinguishError::Signature(e) => e.fmt(f),
            DistinguishError::Same { positive, negative } => write!(
                f,
                "positive example {} and negative example {} are the same structure",
                positive + 1,
                negative + 1
            ),
            DistinguishError::NotFound { attempts } => {
                write!(f, "no formula within the limits separates the examples")?;
                if let Some(Attempt {
                    outcome: Outcome::NotSeparated { positive },
                    level,
                    ..
                }) = attempts
                    .iter()
                    .rev()
                    .find(|a| matches!(a.outcome, Outcome::NotSeparated { .. }))
                {
                    write!(
                        f,
                        " (at the last level tried, {level}, every type of positive example {} \
                         also occurs in a negative one)",
                        positive + 1
                    )?;
                }
                Ok(())
            }
            DistinguishError::Solver(m) => write!(f, "solver: {m}"),
        }
    }
}

impl std::error::Error for DistinguishError {}

/// Evaluates sentences on the examples with the solver.
struct Checker {
    solver: Solver,
    structures: Vec<Structure>,
    /// Negative examples, the one that last satisfied a candidate first.
    order: Vec<usize>,
}

impl Checker {
    fn compile(
        &mut self,
        f: &Formula,
    ) -> Result<toss_runtime::solver::FormulaId, DistinguishError> {
        self.solver
            .compile_formula(&unfold_tc(f), &[], &[])
            .map_err(|e| DistinguishError::Solver(e.message))
    }

    fn holds(&mut self, f: &Formula, si: usize) -> Result<bool, DistinguishError> {
        let id = self.compile(f)?;
        Ok(self.solver.holds(&self.structures[si], id, &[], &[]))
    }

    /// Whether `f` holds in no negative example.
    fn rejects_all(&mut self, f: &Formula) -> Result<bool, DistinguishError> {
        let id = self.compile(f)?;
        for i in 0..self.order.len() {
            let si = self.order[i];
            if self.solver.holds(&self.structures[si], id, &[], &[]) {
                self.order[..=i].rotate_right(1);
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Finds a sentence true in every structure of `positives` and in none of
/// `negatives` (spec 4.3.3).
pub fn distinguish(
    positives: &[Structure],
    negatives: &[Structure],
    limits: &Limits,
) -> Result<Distinguished, DistinguishError> {
    distinguish_anchored(positives, negatives, &[], limits)
}

/// [`distinguish`] where each disjunct speaks of a tuple containing an
/// element of one of the unary relations `anchors` (when there are any):
/// the marked elements of a move, whose precondition is a property of
/// them and their surroundings (spec 4.5), not of the whole position.
pub fn distinguish_anchored(
    positives: &[Structure],
    negatives: &[Structure],
    anchors: &[String],
    limits: &Limits,
) -> Result<Distinguished, DistinguishError> {
    let start = Instant::now();
    let all: Vec<&Structure> = positives.iter().chain(negatives).collect();
    let sig = Signature::of(&all).map_err(DistinguishError::Signature)?;
    let scenes: Vec<Scene> = all.iter().map(|s| Scene::new(s, &sig)).collect();
    let np = positives.len();
    for p in 0..np {
        for n in np..scenes.len() {
            if same(&scenes[p], &scenes[n], &sig) {
                return Err(DistinguishError::Same {
                    positive: p,
                    negative: n - np,
                });
            }
        }
    }
    let structures: Vec<Structure> = scenes.iter().map(|s| s.to_structure(&sig)).collect();
    let solver =
        Solver::new(&structures[0], &[]).map_err(|e| DistinguishError::Solver(e.message))?;
    let anchor_rels: Vec<usize> = anchors
        .iter()
        .filter_map(|a| {
            sig.symbols
                .iter()
                .position(|s| s.name == *a && s.arity == 1)
        })
        .collect();
    let anchored: Vec<Vec<bool>> = scenes
        .iter()
        .map(|sc| {
            let mut v = vec![anchor_rels.is_empty(); sc.len()];
            for &r in &anchor_rels {
                for t in sc.tuples(r) {
                    v[t[0] as usize] = true;
                }
            }
            v
        })
        .collect();
    let mut search = Search {
        anchors: anchor_rels
            .iter()
            .map(|&r| sig.symbols[r].name.clone())
            .collect(),
        anchored,
        scenes: &scenes,
        sig: &sig,
        np,
        limits,
        checker: Checker {
            solver,
            structures,
            order: (np..scenes.len()).collect(),
        },
        attempts: Vec::new(),
    };
    match search.run()? {
        Some((level, before, formula)) => Ok(Distinguished {
            formula,
            before,
            level,
            attempts: search.attempts,
            time: start.elapsed(),
        }),
        None => Err(DistinguishError::NotFound {
            attempts: search.attempts,
        }),
    }
}

/// Equal element names and equal tuples.
fn same(a: &Scene, b: &Scene, sig: &Signature) -> bool {
    a.names == b.names
        && (0..sig.symbols.len()).all(|r| {
            let ta: HashSet<&[u32]> = a.tuples(r).iter().map(Vec::as_slice).collect();
            b.tuples(r).len() == ta.len() && b.tuples(r).iter().all(|t| ta.contains(t.as_slice()))
        })
}

struct Search<'a> {
    /// The anchor relations, and per example which elements are in one.
    anchors: Vec<String>,
    anchored: Vec<Vec<bool>>,
    scenes: &'a [Scene],
    sig: &'a Signature,
    np: usize,
    limits: &'a Limits,
    checker: Checker,
    attempts: Vec<Attempt>,
}

type Found = (Level, Formula, Formula);

impl Search<'_> {
    fn run(&mut self) -> Result<Option<Found>, DistinguishError> {
        for k in 1..=self.limits.max_k {
            if k == 2
                && let Some(found) = self.try_tc()?
            {
                return Ok(Some(found));
            }
            let t0 = Instant::now();
            let mut guarded = if k > 1 {
                match Types::new(self.scenes, self.sig, k, true, self.limits.max_tuples) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        self.skip(
                            k,
                            1,
                            Fragment::Guarded,
                            t0,
                            format!("{} guarded tuples", e.tuples),
                        );
                        None
                    }
                }
            } else {
                None
            };
            let mut full: Option<Types> = None;
            let mut full_refused = None;
            for n in 0..=k + 1 {
                let fragments: &[Fragment] = if n == 0 || k == 1 {
                    &[Fragment::Full]
                } else {
                    &[
                        Fragment::ExistentialGuarded,
                        Fragment::Guarded,
                        Fragment::Full,
                    ]
                };
                for &fragment in fragments {
                    let t0 = Instant::now();
                    let level = Level::Types { k, n, fragment };
                    let types = if fragment == Fragment::Full {
                        if full.is_none() && full_refused.is_none() {
                            let work = Types::full_work(self.scenes, k, k + 1);
                            if work > self.limits.max_full_work {
                                full_refused = Some(format!(
                                    "{work} tuple visits to refine first-order types of {k} \
                                     variables, more than {}",
                                    self.limits.max_full_work
                                ));
                            } else {
                                match Types::new(
                                    self.scenes,
                                    self.sig,
                                    k,
                                    false,
                                    self.limits.max_tuples,
                                ) {
                                    Ok(t) => full = Some(t),
                                    Err(e) => full_refused = Some(format!("{} tuples", e.tuples)),
                                }
                            }
                        }
                        if let Some(why) = &full_refused {
                            self.attempts.push(Attempt {
                                level,
                                outcome: Outcome::Skipped(why.clone()),
                                time: t0.elapsed(),
                            });
                            continue;
                        }
                        full.as_mut().expect("built above")
                    } else {
                        match guarded.as_mut() {
                            Some(t) => t,
                            None => continue,
                        }
                    };
                    while types.rank() < n {
                        types.refine();
                    }
                    if let Some(found) = self.try_types(types, level, t0)? {
                        return Ok(Some(found));
                    }
                }
            }
        }
        Ok(None)
    }

    fn skip(&mut self, k: usize, n: usize, fragment: Fragment, t0: Instant, why: String) {
        self.attempts.push(Attempt {
            level: Level::Types { k, n, fragment },
            outcome: Outcome::Skipped(why),
            time: t0.elapsed(),
        });
    }

    /// Types of rank `n` at `level`: per positive example, the ids no
    /// negative tuple has (satisfies), then formulas.
    fn try_types(
        &mut self,
        types: &Types,
        level: Level,
        t0: Instant,
    ) -> Result<Option<Found>, DistinguishError> {
        let Level::Types { n, fragment, .. } = level else {
            unreachable!()
        };
        let mut candidates: Vec<Vec<u32>> = Vec::new();
        let negative_ids: HashSet<u32> = (self.np..self.scenes.len())
            .flat_map(|si| types.ids(n, si).iter().copied())
            .collect();
        let mut memo = HashMap::new();
        // Negative tuples by atomic type, for the simulation check.
        let mut by_atomic: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        if fragment == Fragment::ExistentialGuarded {
            for si in self.np..self.scenes.len() {
                for (ti, &a) in types.ids(0, si).iter().enumerate() {
                    by_atomic.entry(a).or_default().push((si, ti));
                }
            }
        }
        for p in 0..self.np {
            let mut ids: Vec<(u32, usize)> = Vec::new();
            let mut seen = HashSet::new();
            let mut t = vec![0u32; types.k()];
            for (ti, &id) in types.ids(n, p).iter().enumerate() {
                types.tuple(p, ti, &mut t);
                if !t.iter().any(|&e| self.anchored[p][e as usize]) {
                    continue;
                }
                if seen.insert(id) {
                    ids.push((id, ti));
                }
            }
            let own: Vec<u32> = ids
                .into_iter()
                .filter(|&(id, ti)| match fragment {
                    Fragment::ExistentialGuarded => {
                        let atomic = types.id(0, p, ti);
                        !by_atomic.get(&atomic).is_some_and(|negs| {
                            negs.iter()
                                .any(|&(si, nt)| types.simulates(n, id, si, nt, &mut memo))
                        })
                    }
                    _ => !negative_ids.contains(&id),
                })
                .map(|(id, _)| id)
                .collect();
            if own.is_empty() {
                self.attempts.push(Attempt {
                    level,
                    outcome: Outcome::NotSeparated { positive: p },
                    time: t0.elapsed(),
                });
                return Ok(None);
            }
            candidates.push(own);
        }
        let k = types.k();
        let mut sizes = HashMap::new();
        let found = self.choose(|p, fresh| {
            let mut own: Vec<(usize, u32)> = candidates[p]
                .iter()
                .map(|&id| (types.formula_size(n, id, fragment, &mut sizes), id))
                .filter(|&(size, _)| size <= self.limits.max_formula)
                .collect();
            own.sort_unstable();
            own.truncate(self.limits.candidates);
            own.into_iter()
                .map(|(_, id)| {
                    let vars: Vec<String> = (0..k).map(|_| fresh.name()).collect();
                    let body = types.formula(n, id, fragment, &vars, fresh);
                    Formula::Exists {
                        vars: vars.into_iter().map(Var::Element).collect(),
                        body: Box::new(body),
                    }
                })
                .collect()
        })?;
        self.attempts.push(Attempt {
            level,
            outcome: if found.is_some() {
                Outcome::Separates
            } else {
                Outcome::Skipped(format!(
                    "every candidate type is over {} nodes",
                    self.limits.max_formula
                ))
            },
            time: t0.elapsed(),
        });
        Ok(found.map(|(before, after)| (level, before, after)))
    }

    /// `TC^m` of atomic types of adjacent pairs, `m` from 2 up: per
    /// positive example the pair types with a walk of `m` steps there and in
    /// no negative example, at the least such `m`.
    fn try_tc(&mut self) -> Result<Option<Found>, DistinguishError> {
        let t0 = Instant::now();
        let types = match Types::new(self.scenes, self.sig, 2, true, self.limits.max_tuples) {
            Ok(t) => t,
            Err(e) => {
                self.attempts.push(Attempt {
                    level: Level::Tc { steps: 2 },
                    outcome: Outcome::Skipped(format!("{} guarded pairs", e.tuples)),
                    time: t0.elapsed(),
                });
                return Ok(None);
            }
        };
        // Per example, the steps of each atomic type of distinct elements.
        let mut pair = [0u32; 2];
        let steps: Vec<HashMap<u32, Vec<(u32, u32)>>> = (0..self.scenes.len())
            .map(|si| {
                let mut m: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
                for ti in 0..types.len(si) {
                    types.tuple(si, ti, &mut pair);
                    if pair[0] != pair[1] {
                        m.entry(types.id(0, si, ti))
                            .or_default()
                            .push((pair[0], pair[1]));
                    }
                }
                m
            })
            .collect();
        let walks = |si: usize, t: u32, m: u32| -> bool {
            let Some(edges) = steps[si].get(&t) else {
                return false;
            };
            let len = self.scenes[si].len();
            let mut layer = self.anchored[si].clone();
            for _ in 0..m {
                let mut next = vec![false; len];
                let mut any = false;
                for &(a, b) in edges {
                    if layer[a as usize] {
                        next[b as usize] = true;
                        any = true;
                    }
                }
                if !any {
                    return false;
                }
                layer = next;
            }
            true
        };
        let mut candidates: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut reached = 0;
        for (p, own_steps) in steps.iter().enumerate().take(self.np) {
            let mut own: Vec<(u32, u32)> = Vec::new();
            let mut ts: Vec<u32> = own_steps.keys().copied().collect();
            ts.sort_unstable();
            for t in ts {
                if let Some(m) = (2..=self.limits.max_tc_steps)
                    .take_while(|&m| walks(p, t, m))
                    .find(|&m| (self.np..self.scenes.len()).all(|si| !walks(si, t, m)))
                {
                    own.push((m, t));
                }
            }
            if own.is_empty() {
                self.attempts.push(Attempt {
                    level: Level::Tc {
                        steps: self.limits.max_tc_steps,
                    },
                    outcome: Outcome::NotSeparated { positive: p },
                    time: t0.elapsed(),
                });
                return Ok(None);
            }
            own.sort_unstable_by_key(|&(m, t)| (m, types.backward_atoms(t), t));
            reached = reached.max(own[0].0);
            candidates.push(own);
        }
        let level = Level::Tc { steps: reached };
        let limit = self.limits.candidates;
        let anchors = self.anchors.clone();
        let found = self.choose(|p, fresh| {
            candidates[p]
                .iter()
                .take(limit)
                .map(|&(m, t)| {
                    let vars = [fresh.name(), fresh.name()];
                    let body = types.formula(0, t, Fragment::Full, &vars, fresh);
                    let tc = Formula::Tc {
                        steps: Some(m),
                        from: vec![vars[0].clone()],
                        to: vec![vars[1].clone()],
                        body: Box::new(body),
                    };
                    Formula::Exists {
                        vars: vars.iter().cloned().map(Var::Element).collect(),
                        body: Box::new(match anchor(&anchors, &vars[0]) {
                            Some(a) => Formula::And(vec![a, tc]),
                            None => tc,
                        }),
                    }
                })
                .collect()
        })?;
        self.attempts.push(Attempt {
            level,
            outcome: Outcome::Separates,
            time: t0.elapsed(),
        });
        Ok(found.map(|(before, after)| (level, before, after)))
    }

    /// The disjunction over positive examples not yet covered of the
    /// shortest shortened candidate; `candidates(p, fresh)` gives the
    /// sentences for example `p`, each holding there and in no negative.
    fn choose(
        &mut self,
        mut candidates: impl FnMut(usize, &mut Fresh) -> Vec<Formula>,
    ) -> Result<Option<(Formula, Formula)>, DistinguishError> {
        let mut before = Vec::new();
        let mut after: Vec<Formula> = Vec::new();
        let mut fresh = Fresh::default();
        for p in 0..self.np {
            if !after.is_empty() && self.checker.holds(&Formula::Or(after.clone()), p)? {
                continue;
            }
            let mut best: Option<(usize, Formula, Formula)> = None;
            for c in candidates(p, &mut fresh) {
                let short = tidy(&shorten(&c, &mut self.checker)?);
                let size = nodes(&short);
                if best.as_ref().is_none_or(|(s, _, _)| size < *s) {
                    best = Some((size, c, short));
                }
            }
            let Some((_, c, short)) = best else {
                return Ok(None);
            };
            before.push(c);
            after.push(short);
        }
        let one = |mut fs: Vec<Formula>| {
            if fs.len() == 1 {
                fs.pop().expect("one")
            } else {
                Formula::Or(fs)
            }
        };
        Ok(Some((tidy(&one(before)), tidy(&one(after)))))
    }
}

/// What kind of conjunct a shortening pass tries to drop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Quantified,
    Negative,
    Positive,
}

fn class(f: &Formula) -> Class {
    match f {
        Formula::Not(inner) => match **inner {
            Formula::Rel { .. } | Formula::Eq(..) => Class::Negative,
            _ => Class::Quantified,
        },
        Formula::Rel { .. } | Formula::Eq(..) => Class::Positive,
        _ => Class::Quantified,
    }
}

/// Greedily drops conjuncts at positive positions of `f` while no negative
/// example satisfies it; dropping only weakens, so the positive example
/// keeps satisfying it.
fn shorten(f: &Formula, checker: &mut Checker) -> Result<Formula, DistinguishError> {
    let mut root = f.clone();
    for pass in [Class::Quantified, Class::Negative, Class::Positive] {
        visit(&mut root, &mut Vec::new(), pass, checker)?;
    }
    Ok(root)
}

/// The node at `path`, descending only through positive positions.
fn node_at<'f>(f: &'f mut Formula, path: &[usize]) -> &'f mut Formula {
    let mut cur = f;
    for &i in path {
        cur = match cur {
            Formula::And(cs) | Formula::Or(cs) => &mut cs[i],
            Formula::Exists { body, .. }
            | Formula::Forall { body, .. }
            | Formula::Tc { body, .. } => body,
            Formula::Implies(_, rhs) => rhs,
            _ => unreachable!("paths go through positive positions"),
        };
    }
    cur
}

fn visit(
    root: &mut Formula,
    path: &mut Vec<usize>,
    pass: Class,
    checker: &mut Checker,
) -> Result<(), DistinguishError> {
    let (is_and, children) = match node_at(root, path) {
        Formula::And(cs) => (true, cs.len()),
        Formula::Or(cs) => (false, cs.len()),
        Formula::Exists { .. }
        | Formula::Forall { .. }
        | Formula::Tc { .. }
        | Formula::Implies(..) => (false, 1),
        _ => (false, 0),
    };
    let mut children = children;
    if is_and {
        // Last conjunct first: of two that separate alike, the earlier one
        // (in signature order) stays.
        let mut i = children;
        while i > 0 {
            i -= 1;
            let drop = matches!(node_at(root, path), Formula::And(cs) if class(&cs[i]) == pass);
            if drop {
                let mut trial = root.clone();
                if let Formula::And(cs) = node_at(&mut trial, path) {
                    cs.remove(i);
                }
                if checker.rejects_all(&trial)? {
                    *root = trial;
                    children -= 1;
                }
            }
        }
    }
    for i in 0..children {
        path.push(i);
        visit(root, path, pass, checker)?;
        path.pop();
    }
    Ok(())
}

/// The number of nodes of `f`.
pub(crate) fn nodes(f: &Formula) -> usize {
    let mut n = 0;
    toss_core::ir::walk::walk(toss_core::ir::walk::Node::Formula(f), &mut |_| n += 1);
    n
}

/// `A1(x) or A2(x) ...` for the anchor relations, if any.
fn anchor(anchors: &[String], x: &str) -> Option<Formula> {
    let atoms: Vec<Formula> = anchors
        .iter()
        .map(|a| Formula::Rel {
            name: a.clone(),
            args: vec![x.to_string()],
        })
        .collect();
    match atoms.len() {
        0 => None,
        1 => atoms.into_iter().next(),
        _ => Some(Formula::Or(atoms)),
    }
}

/// `tc m x, y phi` (one variable each side) written as the walk
/// `ex z1, ..., z(m-1) (phi(x, z1) and ... and phi(z(m-1), y))`: the same
/// relation, which the solver plans as one join from the most selective
/// atoms instead of searching from every pair of elements.
fn unfold_tc(f: &Formula) -> Formula {
    use std::collections::BTreeMap;
    use toss_core::ir::subst::{BoundNames, Substitution};
    match f {
        Formula::Tc {
            steps: Some(m),
            from,
            to,
            body,
        } if from.len() == 1 && to.len() == 1 && *m >= 1 => {
            let body = unfold_tc(body);
            let (x, y) = (&from[0], &to[0]);
            let stops: Vec<String> = std::iter::once(x.clone())
                .chain((1..*m).map(|i| format!("{x}_walk{i}")))
                .chain(std::iter::once(y.clone()))
                .collect();
            let mut n = 0;
            let mut fresh = |v: &str| {
                n += 1;
                format!("{v}_step{n}")
            };
            let steps: Vec<Formula> = stops
                .windows(2)
                .map(|w| {
                    let map =
                        BTreeMap::from([(x.clone(), w[0].clone()), (y.clone(), w[1].clone())]);
                    Substitution {
                        bound: BoundNames::Fresh,
                        fresh: &mut fresh,
                    }
                    .formula(&body, &map)
                })
                .collect();
            let inner: Vec<Var> = stops[1..stops.len() - 1]
                .iter()
                .cloned()
                .map(Var::Element)
                .collect();
            if inner.is_empty() {
                Formula::And(steps)
            } else {
                Formula::Exists {
                    vars: inner,
                    body: Box::new(Formula::And(steps)),
                }
            }
        }
        f => super::tidy::map(f, &mut unfold_tc),
    }
}
