//! The rule-condition heuristic of spec 3.5.

use std::collections::{BTreeMap, BTreeSet};

use super::tnf::{Fresh, and, dnf, or, rename};
use toss_core::analysis::changed_relations;
use toss_core::ir::free_vars;
use toss_core::ir::{Formula, Game, RealExpr, Rule, Var};

/// Pulls existential quantifiers out of `and`/`or` (renaming bound
/// variables apart): returns the quantified variables and the matrix.
pub fn prenex_exists(f: &Formula, fresh: &mut Fresh) -> (Vec<String>, Formula) {
    let mut vars = Vec::new();
    let m = pull(f, &mut vars, fresh);
    (vars, m)
}

fn pull(f: &Formula, vars: &mut Vec<String>, fresh: &mut Fresh) -> Formula {
    match f {
        Formula::Exists { vars: vs, body } if vs.iter().all(|v| matches!(v, Var::Element(_))) => {
            let mut map = BTreeMap::new();
            for v in vs {
                let n = v.name().to_string();
                if vars.contains(&n) {
                    let m = fresh.var(&n);
                    map.insert(n, m.clone());
                    vars.push(m);
                } else {
                    vars.push(n);
                }
            }
            let body = if map.is_empty() {
                (**body).clone()
            } else {
                rename(body, &map, fresh)
            };
            pull(&body, vars, fresh)
        }
        Formula::And(gs) => and(gs.iter().map(|g| pull(g, vars, fresh)).collect()),
        Formula::Or(gs) => or(gs.iter().map(|g| pull(g, vars, fresh)).collect()),
        g => g.clone(),
    }
}

fn is_fluent_lit(l: &Formula, fluents: &BTreeSet<String>) -> bool {
    match l {
        Formula::Rel { name, .. } => fluents.contains(name),
        Formula::Not(g) => is_fluent_lit(g, fluents),
        _ => false,
    }
}

fn char_of(f: Formula) -> RealExpr {
    RealExpr::Char(Box::new(f))
}

fn sum_terms(ts: Vec<RealExpr>) -> RealExpr {
    ts.into_iter()
        .reduce(|a, b| RealExpr::Add(Box::new(a), Box::new(b)))
        .unwrap_or(RealExpr::Const(0.0))
}

/// The formula of a rule's left side on its elements: its (non-optional)
/// tuples and, for the relations matched exactly, the absence of the other
/// tuples of arity 1 and 2 over left elements.
pub fn lhs_formula(rule: &Rule, arities: &BTreeMap<String, usize>) -> Formula {
    let mut lits = Vec::new();
    for t in &rule.lhs.tuples {
        if !t.optional {
            lits.push(Formula::Rel {
                name: t.relation.clone(),
                args: t.args.clone(),
            });
        }
    }
    let els = &rule.lhs.elements;
    for r in &rule.emb {
        let present = |args: &[&String]| {
            rule.lhs
                .tuples
                .iter()
                .any(|t| &t.relation == r && t.args.iter().eq(args.iter().copied()))
        };
        match arities.get(r) {
            Some(1) => {
                for e in els {
                    if !present(&[e]) {
                        lits.push(neg(r, vec![e.clone()]));
                    }
                }
            }
            Some(2) => {
                for a in els {
                    for b in els {
                        if a != b && !present(&[a, b]) {
                            lits.push(neg(r, vec![a.clone(), b.clone()]));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    and(lits)
}

fn neg(r: &str, args: Vec<String>) -> Formula {
    Formula::Not(Box::new(Formula::Rel {
        name: r.to_string(),
        args,
    }))
}

/// Removes negated literals of the relations `drop`.
fn drop_negated(f: &Formula, drop: &BTreeSet<String>) -> Formula {
    match f {
        Formula::Not(g) if matches!(&**g, Formula::Rel { name, .. } if drop.contains(name)) => {
            Formula::True
        }
        Formula::And(gs) => and(gs.iter().map(|g| drop_negated(g, drop)).collect()),
        _ => f.clone(),
    }
}

/// `move(v)`: a move of one of `rules` can still use the element `v`.
fn move_formula(
    v: &str,
    rules: &[&Rule],
    arities: &BTreeMap<String, usize>,
    drop: &BTreeSet<String>,
    fresh: &mut Fresh,
) -> Formula {
    let mut ds = Vec::new();
    for r in rules {
        let l = drop_negated(&lhs_formula(r, arities), drop);
        for u in &r.lhs.elements {
            let mut map = BTreeMap::new();
            map.insert(u.clone(), v.to_string());
            let others: Vec<String> = r.lhs.elements.iter().filter(|e| *e != u).cloned().collect();
            let mut vars = Vec::new();
            for o in &others {
                let n = fresh.var(o);
                map.insert(o.clone(), n.clone());
                vars.push(Var::Element(n));
            }
            let body = rename(&l, &map, fresh);
            ds.push(if vars.is_empty() {
                body
            } else {
                Formula::Exists {
                    vars,
                    body: Box::new(body),
                }
            });
        }
    }
    if ds.is_empty() { Formula::True } else { or(ds) }
}

/// The heuristic of spec 3.5 for an existential formula `f` (in NNF, with
/// defined relations inlined): `Sum (x | gamma and move : (s_1 + ... +
/// s_n)^power)`. Identical fluent sums `s_i` are counted once. `None` if
/// `f` has no fluent literal under its existential prefix.
pub fn rule_condition_heuristic(
    f: &Formula,
    game: &Game,
    fluents: &BTreeSet<String>,
    power: u32,
) -> Option<RealExpr> {
    let mut fresh = Fresh::default();
    let (vars, matrix) = prenex_exists(f, &mut fresh);
    let clauses = dnf(&matrix)?;
    let mut stable_parts = Vec::new();
    let mut deltas = Vec::new();
    let mut sums: Vec<Vec<Formula>> = Vec::new();
    let mut positive_fluents = BTreeSet::new();
    for c in clauses {
        let (fl, st): (Vec<Formula>, Vec<Formula>) =
            c.into_iter().partition(|l| is_fluent_lit(l, fluents));
        if fl.is_empty() {
            continue;
        }
        for l in &fl {
            if let Formula::Rel { name, .. } = l {
                positive_fluents.insert(name.clone());
            }
        }
        stable_parts.push(and(st));
        deltas.push(or(fl.clone()));
        if !sums.contains(&fl) {
            sums.push(fl);
        }
    }
    if sums.is_empty() {
        return None;
    }
    let gamma = and(vec![or(stable_parts), or(deltas)]);
    let arities: BTreeMap<String, usize> = (0..game.start.num_relations())
        .map(|r| (game.start.relation_name(r).to_string(), game.start.arity(r)))
        .collect();
    let all: Vec<String> = arities.keys().cloned().collect();
    let rules: Vec<&Rule> = game
        .rules
        .iter()
        .filter(|r| {
            changed_relations(r, &all)
                .iter()
                .any(|c| positive_fluents.contains(c))
        })
        .collect();
    let free = free_vars(&gamma);
    let mut guard = vec![gamma];
    for v in vars.iter().filter(|v| free.contains(*v)) {
        guard.push(move_formula(
            v,
            &rules,
            &arities,
            &positive_fluents,
            &mut fresh,
        ));
    }
    let s = sum_terms(
        sums.into_iter()
            .flat_map(|fl| fl.into_iter().map(char_of))
            .collect(),
    );
    Some(RealExpr::Sum {
        vars: vars.into_iter().filter(|v| free.contains(v)).collect(),
        guard: Box::new(and(guard)),
        body: Box::new(RealExpr::Pow(
            Box::new(s),
            Box::new(RealExpr::Const(power as f64)),
        )),
    })
}
