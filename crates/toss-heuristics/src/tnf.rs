//! Formula helpers (renaming, inlining, negation normal form) and the type
//! normal form of spec 3.2.

use std::collections::{BTreeMap, BTreeSet};

use toss_core::ir::subst::{BoundNames, Substitution};
use toss_core::ir::{DefinedRelation, Formula, Var};

// Free variables and relations used are the IR's one traversal
// (`toss_core::ir::walk`), shared with the code generator so that both agree
// on which formulas are stable.
use toss_core::ir::{free_vars, relations_used};

/// Fresh variable names.
#[derive(Default)]
pub struct Fresh {
    next: usize,
}

impl Fresh {
    pub fn var(&mut self, hint: &str) -> String {
        self.next += 1;
        let base = hint.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
        let base = if base.is_empty() { "v" } else { base };
        format!("{base}_{}", self.next)
    }
}

/// Renames free element variables of `f` by `map` (also inside real
/// terms); a bound first-order variable whose name is a substituted one is
/// renamed to a fresh name (no capture), the others keep theirs.
pub fn rename(f: &Formula, map: &BTreeMap<String, String>, fresh: &mut Fresh) -> Formula {
    Substitution {
        bound: BoundNames::KeepUnlessCaptured,
        fresh: &mut |v: &str| fresh.var(v),
    }
    .formula(f, map)
}

/// Inlines the defined relations for which `inline(name)` holds (their
/// bodies with parameters replaced by the arguments), recursively.
pub fn inline_defs(
    f: &Formula,
    defs: &[DefinedRelation],
    inline: &dyn Fn(&str) -> bool,
    fresh: &mut Fresh,
) -> Formula {
    let rec = |g: &Formula, fresh: &mut Fresh| inline_defs(g, defs, inline, fresh);
    match f {
        Formula::Rel { name, args } => {
            if let Some(d) = defs.iter().find(|d| &d.name == name)
                && inline(name)
                && d.params.len() == args.len()
            {
                let map: BTreeMap<String, String> =
                    d.params.iter().cloned().zip(args.iter().cloned()).collect();
                let body = rename(&d.body, &map, fresh);
                rec(&body, fresh)
            } else {
                f.clone()
            }
        }
        Formula::Not(g) => Formula::Not(Box::new(rec(g, fresh))),
        Formula::And(gs) => Formula::And(gs.iter().map(|g| rec(g, fresh)).collect()),
        Formula::Or(gs) => Formula::Or(gs.iter().map(|g| rec(g, fresh)).collect()),
        Formula::Implies(a, b) => {
            Formula::Implies(Box::new(rec(a, fresh)), Box::new(rec(b, fresh)))
        }
        Formula::Iff(a, b) => Formula::Iff(Box::new(rec(a, fresh)), Box::new(rec(b, fresh))),
        Formula::Exists { vars, body } => Formula::Exists {
            vars: vars.clone(),
            body: Box::new(rec(body, fresh)),
        },
        Formula::Forall { vars, body } => Formula::Forall {
            vars: vars.clone(),
            body: Box::new(rec(body, fresh)),
        },
        _ => f.clone(),
    }
}

/// Negation normal form: no `->`, `<->`; negations only on atoms (and on
/// constructs we do not analyse); nested `and`/`or` flattened; `true` and
/// `false` simplified away.
pub fn nnf(f: &Formula) -> Formula {
    nnf_pol(f, true)
}

fn nnf_pol(f: &Formula, pos: bool) -> Formula {
    match f {
        Formula::True => bool_f(pos),
        Formula::False => bool_f(!pos),
        Formula::Not(g) => nnf_pol(g, !pos),
        Formula::And(gs) if pos => and(gs.iter().map(|g| nnf_pol(g, true)).collect()),
        Formula::And(gs) => or(gs.iter().map(|g| nnf_pol(g, false)).collect()),
        Formula::Or(gs) if pos => or(gs.iter().map(|g| nnf_pol(g, true)).collect()),
        Formula::Or(gs) => and(gs.iter().map(|g| nnf_pol(g, false)).collect()),
        Formula::Implies(a, b) => {
            let e = Formula::Or(vec![Formula::Not(a.clone()), (**b).clone()]);
            nnf_pol(&e, pos)
        }
        Formula::Iff(a, b) => {
            let e = Formula::And(vec![
                Formula::Implies(a.clone(), b.clone()),
                Formula::Implies(b.clone(), a.clone()),
            ]);
            nnf_pol(&e, pos)
        }
        Formula::Exists { vars, body } | Formula::Forall { vars, body } => {
            let ex = matches!(f, Formula::Exists { .. }) == pos;
            let body = Box::new(nnf_pol(body, pos));
            let vars = vars.clone();
            if ex {
                Formula::Exists { vars, body }
            } else {
                Formula::Forall { vars, body }
            }
        }
        _ if pos => f.clone(),
        _ => Formula::Not(Box::new(f.clone())),
    }
}

fn bool_f(b: bool) -> Formula {
    if b { Formula::True } else { Formula::False }
}

/// A conjunction, flattened and simplified (duplicates removed).
pub fn and(gs: Vec<Formula>) -> Formula {
    junction(gs, true)
}

/// A disjunction, flattened and simplified (duplicates removed).
pub fn or(gs: Vec<Formula>) -> Formula {
    junction(gs, false)
}

/// `and` (conjunction) or `or`: the unit (`True` for `and`) vanishes, the
/// absorbing element (`False` for `and`) wins, nested junctions of the same
/// kind are flattened.
fn junction(gs: Vec<Formula>, conjunction: bool) -> Formula {
    let (unit, absorbing) = (bool_f(conjunction), bool_f(!conjunction));
    let mut out: Vec<Formula> = Vec::new();
    let push = |g: Formula, out: &mut Vec<Formula>| {
        if !out.contains(&g) {
            out.push(g);
        }
    };
    for g in gs {
        if g == unit {
            continue;
        }
        if g == absorbing {
            return absorbing;
        }
        match g {
            Formula::And(hs) if conjunction => hs.into_iter().for_each(|h| push(h, &mut out)),
            Formula::Or(hs) if !conjunction => hs.into_iter().for_each(|h| push(h, &mut out)),
            g => push(g, &mut out),
        }
    }
    match out.len() {
        0 => unit,
        1 => out.pop().unwrap_or(unit),
        _ if conjunction => Formula::And(out),
        _ => Formula::Or(out),
    }
}

/// DNFs larger than this are not expanded (the formula stays as it is).
pub const MAX_CLAUSES: usize = 4096;

/// The disjunctive normal form of a positive Boolean combination (`and`,
/// `or`) of other formulas, which are the items. `None` when too large.
pub fn dnf(f: &Formula) -> Option<Vec<Vec<Formula>>> {
    match f {
        Formula::True => Some(vec![vec![]]),
        Formula::False => Some(vec![]),
        Formula::Or(gs) => {
            let mut out = Vec::new();
            for g in gs {
                out.extend(dnf(g)?);
                if out.len() > MAX_CLAUSES {
                    return None;
                }
            }
            Some(out)
        }
        Formula::And(gs) => {
            let mut acc: Vec<Vec<Formula>> = vec![vec![]];
            for g in gs {
                let d = dnf(g)?;
                if acc.len() * d.len() > MAX_CLAUSES {
                    return None;
                }
                let mut next = Vec::with_capacity(acc.len() * d.len());
                for a in &acc {
                    for c in &d {
                        let mut x = a.clone();
                        for l in c {
                            if !x.contains(l) {
                                x.push(l.clone());
                            }
                        }
                        next.push(x);
                    }
                }
                acc = next;
            }
            Some(acc)
        }
        g => Some(vec![vec![g.clone()]]),
    }
}

/// The conjunctive normal form, dually.
pub fn cnf(f: &Formula) -> Option<Vec<Vec<Formula>>> {
    let swapped = swap(f);
    dnf(&swapped).map(|cs| {
        cs.into_iter()
            .map(|c| c.into_iter().map(|l| swap(&l)).collect())
            .collect()
    })
}

/// Exchanges `and` and `or` at the top levels (items untouched).
fn swap(f: &Formula) -> Formula {
    match f {
        Formula::And(gs) => Formula::Or(gs.iter().map(swap).collect()),
        Formula::Or(gs) => Formula::And(gs.iter().map(swap).collect()),
        Formula::True => Formula::False,
        Formula::False => Formula::True,
        g => g.clone(),
    }
}

/// Whether `f` mentions one of the `fluents` (directly).
pub fn mentions_fluent(f: &Formula, fluents: &BTreeSet<String>) -> bool {
    relations_used(f).iter().any(|r| fluents.contains(r))
}

/// Variables occurring in fluent literals of `f`.
fn fluent_vars(f: &Formula, fluents: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    match f {
        Formula::Rel { name, args } if fluents.contains(name) => {
            out.extend(args.iter().cloned());
        }
        Formula::Not(g) => fluent_vars(g, fluents, out),
        Formula::And(gs) | Formula::Or(gs) => gs.iter().for_each(|g| fluent_vars(g, fluents, out)),
        Formula::Exists { body, .. } | Formula::Forall { body, .. } => {
            fluent_vars(body, fluents, out)
        }
        _ => {}
    }
}

/// The type normal form (spec 3.2) of `f` (first put in NNF). In a block
/// of quantified variables, those occurring in fluent literals are resolved
/// first (they end up outermost); otherwise the written order is kept.
pub fn tnf(f: &Formula, fluents: &BTreeSet<String>) -> Formula {
    tnf_rec(&nnf(f), fluents)
}

fn tnf_rec(f: &Formula, fluents: &BTreeSet<String>) -> Formula {
    match f {
        Formula::And(gs) => and(gs.iter().map(|g| tnf_rec(g, fluents)).collect()),
        Formula::Or(gs) => or(gs.iter().map(|g| tnf_rec(g, fluents)).collect()),
        Formula::Exists { vars, body } | Formula::Forall { vars, body } => {
            let exists = matches!(f, Formula::Exists { .. });
            let mut fv = BTreeSet::new();
            fluent_vars(body, fluents, &mut fv);
            let mut order: Vec<&Var> = vars.iter().filter(|v| fv.contains(v.name())).collect();
            order.extend(vars.iter().filter(|v| !fv.contains(v.name())));
            let mut g = tnf_rec(body, fluents);
            for v in order.into_iter().rev() {
                g = if exists {
                    push_exists(v, &g)
                } else {
                    push_forall(v, &g)
                };
            }
            g
        }
        _ => f.clone(),
    }
}

fn quantify(v: &Var, body: Formula, exists: bool) -> Formula {
    let body = Box::new(body);
    let vars = vec![v.clone()];
    if exists {
        Formula::Exists { vars, body }
    } else {
        Formula::Forall { vars, body }
    }
}

/// `ex v g` with `g` in TNF.
fn push_exists(v: &Var, g: &Formula) -> Formula {
    let Some(clauses) = dnf(g) else {
        return quantify(v, g.clone(), true);
    };
    let mut ds = Vec::new();
    for c in clauses {
        let (with, without): (Vec<Formula>, Vec<Formula>) =
            c.into_iter().partition(|l| free_vars(l).contains(v.name()));
        let mut parts = without;
        if !with.is_empty() {
            parts.push(quantify(v, and(with), true));
        }
        ds.push(and(parts));
    }
    or(ds)
}

/// `all v g` with `g` in TNF.
fn push_forall(v: &Var, g: &Formula) -> Formula {
    let Some(clauses) = cnf(g) else {
        return quantify(v, g.clone(), false);
    };
    let mut cs = Vec::new();
    for c in clauses {
        let (with, without): (Vec<Formula>, Vec<Formula>) =
            c.into_iter().partition(|l| free_vars(l).contains(v.name()));
        let mut parts = without;
        if !with.is_empty() {
            parts.push(quantify(v, or(with), false));
        }
        cs.push(or(parts));
    }
    and(cs)
}
