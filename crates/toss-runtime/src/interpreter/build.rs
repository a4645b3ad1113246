//! Construction of an [`Interpreter`]: the signature completed from the
//! rules, each rule compiled (its matcher, the parts of `pre` split per
//! match, per matcher step and per state, `post`, `inv`, updates and
//! dynamics), the stable relations, the kept derivatives, and each
//! location's payoffs, labels with their time/parameter choices and match
//! forests.

use super::evolve::RuleCont;
use super::{InterpreterError, LabelForest, LabelInfo, LocInfo, RuleInfo, bound_value, grid, ierr};
use crate::continuous::{CompiledTerms, ContinuousRule};
use crate::rewrite::{CompiledRule, MatchForest};
use crate::solver::{FormulaId, Solver, SolverError};
use toss_core::ir::derivative_name;
use toss_core::ir::{self, Formula, RealExpr};
use toss_core::structure::{Elem, FunId, RelId, Structure};

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

/// Declares in `sig` every relation and function the rules mention but the
/// starting structure does not.
pub(super) fn complete_signature(
    game: &ir::Game,
    sig: &mut Structure,
) -> Result<(), InterpreterError> {
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
pub(super) fn conform(sig: &Structure, s: &Structure) -> Structure {
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

/// The rule parameters: the parameter names the labels give, per rule.
pub(super) fn label_rule_params(game: &ir::Game) -> Result<Vec<Vec<String>>, InterpreterError> {
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
    Ok(rule_params)
}

/// A set-at-a-time conjunct: (formula, variable, constants, parameters).
type SetKey = (Formula, String, Vec<String>, Vec<String>);

/// Compiles the rules of a game, sharing what several rules have in common.
struct RuleCompiler<'a> {
    sig: &'a Structure,
    defined: Vec<&'a str>,
    solver: &'a mut Solver,
    compiled: &'a [CompiledTerms],
    // Independent preconditions are compiled once per distinct formula
    // (e.g. `not WinB()` of all of a player's rules), so that one state
    // evaluates each only once (see `PreCache`).
    shared_pres: Vec<(Formula, Vec<String>, FormulaId)>,
    // Set-at-a-time conjuncts, likewise: (formula, variable, constants,
    // parameters) -> compiled set (if in the fragment).
    shared_sets: Vec<(SetKey, Option<FormulaId>)>,
}

/// Compiles every rule; returns them with the stable relations (those no
/// rule changes).
pub(super) fn compile_rules(
    game: &ir::Game,
    sig: &Structure,
    solver: &mut Solver,
    rule_params: &[Vec<String>],
    compiled: &[CompiledTerms],
) -> Result<(Vec<RuleInfo>, Vec<RelId>), InterpreterError> {
    let mut rules = Vec::with_capacity(game.rules.len());
    let mut rc = RuleCompiler {
        sig,
        defined: game
            .defined_relations
            .iter()
            .map(|d| d.name.as_str())
            .collect(),
        solver,
        compiled,
        shared_pres: Vec::new(),
        shared_sets: Vec::new(),
    };
    // Which relations rules can change: the one analysis that `toss
    // check`, the heuristics and the code generator also use.
    let reshapeable: Vec<String> = (0..sig.num_relations())
        .filter(|&r| sig.arity(r) > 0)
        .map(|r| sig.relation_name(r).to_string())
        .collect();
    let mut changed = vec![false; sig.num_relations()];
    for (ri, r) in game.rules.iter().enumerate() {
        let rule = CompiledRule::new(r, sig, &rc.defined).map_err(|e| ierr(e.message))?;
        for name in toss_core::analysis::changed_relations(r, &reshapeable) {
            if let Some(rel) = sig.relation(&name) {
                changed[rel] = true;
            }
        }
        rules.push(rc.rule(r, rule, &rule_params[ri])?);
    }
    let stable: Vec<RelId> = (0..sig.num_relations()).filter(|&r| !changed[r]).collect();
    Ok((rules, stable))
}

impl RuleCompiler<'_> {
    /// Compiles rule `r` (its matcher `rule`) with parameters `rp`.
    fn rule(
        &mut self,
        r: &ir::Rule,
        rule: CompiledRule,
        rp: &[String],
    ) -> Result<RuleInfo, InterpreterError> {
        let params: Vec<&str> = rp.iter().map(String::as_str).collect();
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
        let (step_sets, rest) = self.step_sets(r, &rule, dep, rp)?;
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
                self.solver
                    .compile_formula(&dep, &lhs, &params)
                    .map_err(|e| solver_err("pre", e))?,
            )
        };
        let pre_state = if indep == Formula::True {
            None
        } else if let Some(&(_, _, id)) = self
            .shared_pres
            .iter()
            .find(|(f, ps, _)| *f == indep && *ps == rp)
        {
            Some(id)
        } else {
            let id = self
                .solver
                .compile_formula(&indep, &[], &params)
                .map_err(|e| solver_err("pre", e))?;
            self.shared_pres.push((indep, rp.to_vec(), id));
            Some(id)
        };
        let post = if r.post == Formula::True {
            None
        } else {
            Some(
                self.solver
                    .compile_formula(&r.post, &rhs, &params)
                    .map_err(|e| solver_err("post", e))?,
            )
        };
        let updates = r
            .update
            .iter()
            .map(|u| self.solver.compile_real(&u.value, &lhs, &params))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| solver_err("update", e))?;
        let inv = if r.inv == Formula::True {
            None
        } else {
            Some(
                self.solver
                    .compile_formula(&r.inv, &lhs, &params)
                    .map_err(|e| solver_err("inv", e))?,
            )
        };
        let cont = self.cont(r, &rule, rp)?;
        Ok(RuleInfo {
            rule,
            params: rp.to_vec(),
            pre,
            step_sets,
            pre_state,
            post,
            updates,
            inv,
            cont,
        })
    }

    /// The conjuncts of `dep` evaluated set at a time, per matcher step, and
    /// the other conjuncts.
    #[allow(clippy::type_complexity)]
    fn step_sets(
        &mut self,
        r: &ir::Rule,
        rule: &CompiledRule,
        dep: Vec<Formula>,
        rp: &[String],
    ) -> Result<(Vec<Vec<(FormulaId, Vec<usize>)>>, Vec<Formula>), InterpreterError> {
        let params: Vec<&str> = rp.iter().map(String::as_str).collect();
        let lhs: Vec<&str> = rule.lhs_names().iter().map(String::as_str).collect();
        let solver_err =
            |what: &str, e: SolverError| ierr(format!("rule {} {what}: {}", r.name, e.message));
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
                        rp.to_vec(),
                    );
                    // The same conjunct in several rules (a bishop's
                    // moves and captures) is compiled once, so that one
                    // state evaluates it once per binding (see
                    // `PreCache`).
                    let id = match self.shared_sets.iter().find(|(k, _)| *k == key) {
                        Some((_, id)) => *id,
                        None => {
                            let id = self
                                .solver
                                .compile_set(&f, lhs[order[k]], &names, &params)
                                .map_err(|e| solver_err("pre", e))?;
                            self.shared_sets.push((key, id));
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
        Ok((step_sets, rest))
    }

    /// The ODE system and update terms of a rule with `dynamics`.
    fn cont(
        &self,
        r: &ir::Rule,
        rule: &CompiledRule,
        rp: &[String],
    ) -> Result<Option<RuleCont>, InterpreterError> {
        let sig = self.sig;
        let compiled = self.compiled;
        let cont = if r.dynamics.is_empty() {
            None
        } else {
            let c = ContinuousRule::new(r, rp).map_err(ierr)?;
            let lhs_index = |e: &str| {
                rule.lhs_names()
                    .iter()
                    .position(|l| l == e)
                    .ok_or_else(|| ierr(format!("rule {}: `{e}` is not a left element", r.name)))
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
        Ok(cont)
    }
}

/// Per function: the functions holding its derivatives of orders 0 to k-1
/// when an ODE defines its k-th derivative (else empty).
pub(super) fn derivatives(
    game: &ir::Game,
    sig: &Structure,
) -> Result<Vec<Vec<FunId>>, InterpreterError> {
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
    Ok(derivatives)
}

/// Compiles each location: its payoffs, its labels with their
/// time/parameter choices, and its match forests.
pub(super) fn locations(
    game: &ir::Game,
    rules: &[RuleInfo],
    solver: &mut Solver,
) -> Result<Vec<LocInfo>, InterpreterError> {
    let rule_index = |name: &str| game.rules.iter().position(|r| r.name == name);
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
        let forests = forests(&labels, rules);
        locations.push(LocInfo {
            labels,
            forests,
            payoffs,
            label_players,
        });
    }
    Ok(locations)
}

/// Per player, the labels whose rules share matcher prefixes, matched
/// together (see [`LocInfo::forests`]).
fn forests(labels: &[Vec<LabelInfo>], rules: &[RuleInfo]) -> Vec<Option<LabelForest>> {
    labels
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
        .collect()
}
