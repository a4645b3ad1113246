//! Sentences to conditions on the state: tests of bound elements, fluent
//! tuples, comparisons, existentials as sets, patterns (the stable part
//! tabulated and grouped by offsets) or loops, and the compiled sentences
//! recorded once each ([`Builder::cond_id`]).

use std::collections::{BTreeMap, BTreeSet};

use toss_core::ir::{Formula, Var};
use toss_lang::print::print_formula;

use super::builder::{Builder, and_of, clean, flatten_and, free_vars};
use super::visit::{canonical_cond, loop_depth};
use super::{Bound, Cond, MAX_DISTRIBUTED, MAX_PATTERN_TUPLES, Pattern, SetExpr, Unsupported};

impl Builder<'_> {
    /// A sentence as a condition on the state.
    pub(crate) fn cond(&mut self, f: &Formula) -> Result<Cond, Unsupported> {
        let fv = free_vars(f);
        if let Some(v) = fv.iter().find(|v| self.bound(v).is_none()) {
            return Err(format!("`{}` has the free variable {v}", print_formula(f)));
        }
        if let Formula::Eq(a, b) = f {
            let (a, b) = (
                self.bound(a).ok_or("unbound")?,
                self.bound(b).ok_or("unbound")?,
            );
            return Ok(if a == b {
                Cond::Const(true)
            } else {
                Cond::Eq(a, b)
            });
        }
        if !self.is_fluent(f) {
            let Some(last) = fv.iter().next_back() else {
                return Ok(Cond::Const(self.holds(f)?));
            };
            let b = self.bound(last).ok_or("unbound")?;
            return Ok(Cond::In(b, self.set(f, last)?));
        }
        match f {
            Formula::Rel { name, args } => {
                if let Some(i) = self.fluents.iter().position(|fl| fl.name == *name) {
                    let [a] = args.as_slice() else {
                        return Err(format!("{name} with {} arguments", args.len()));
                    };
                    let b = self.bound(a).ok_or("unbound")?;
                    return Ok(Cond::In(b, SetExpr::Fluent(i)));
                }
                if let Some(rel) = self.fluent_rel(name) {
                    let args = args
                        .iter()
                        .map(|a| self.bound(a).ok_or("unbound"))
                        .collect::<Result<_, _>>()?;
                    return Ok(Cond::Holds { rel, args });
                }
                let body = self.inline(name, args)?;
                self.cond(&body)
            }
            Formula::Cmp { lhs, op, rhs } => Ok(Cond::Cmp(self.num(lhs)?, *op, self.num(rhs)?)),
            Formula::Not(g) => Ok(Cond::Not(Box::new(self.cond(g)?))),
            Formula::And(gs) => Ok(Cond::And(
                gs.iter().map(|g| self.cond(g)).collect::<Result<_, _>>()?,
            )),
            Formula::Or(gs) => Ok(Cond::Or(
                gs.iter().map(|g| self.cond(g)).collect::<Result<_, _>>()?,
            )),
            Formula::Implies(a, b) => Ok(Cond::Or(vec![
                Cond::Not(Box::new(self.cond(a)?)),
                self.cond(b)?,
            ])),
            Formula::Iff(a, b) => {
                let (a, b) = (self.cond(a)?, self.cond(b)?);
                Ok(Cond::Or(vec![
                    Cond::And(vec![a.clone(), b.clone()]),
                    Cond::And(vec![Cond::Not(Box::new(a)), Cond::Not(Box::new(b))]),
                ]))
            }
            Formula::Forall { vars, body } => {
                let g = Formula::Exists {
                    vars: vars.clone(),
                    body: Box::new(Formula::Not(body.clone())),
                };
                Ok(Cond::Not(Box::new(self.cond(&g)?)))
            }
            Formula::Exists { vars, body } => {
                let names: Vec<String> = vars
                    .iter()
                    .map(|v| match v {
                        Var::Element(n) => Ok(n.clone()),
                        _ => Err(format!("set or real quantifier in `{}`", print_formula(f))),
                    })
                    .collect::<Result<_, _>>()?;
                if self.offsets.is_some() {
                    return match self.exists_direct(&names, body, MAX_DISTRIBUTED) {
                        Ok(c) => Ok(c),
                        Err(_) => self.exists_loop(&names, body),
                    };
                }
                let direct = self.with_offsets(Some(false), |b| {
                    b.exists_direct(&names, body, MAX_DISTRIBUTED)
                });
                if let Ok(c) = direct {
                    return Ok(c);
                }
                let m = self.mark();
                let looped = self.with_offsets(Some(false), |b| b.exists_loop(&names, body));
                if matches!(&looped, Ok(c) if loop_depth(c) <= 1) {
                    return looped;
                }
                // Loops in loops: in offset form if it can be said so.
                self.reset(m);
                let direct = self.with_offsets(Some(true), |b| {
                    b.exists_direct(&names, body, MAX_DISTRIBUTED)
                });
                match direct {
                    Ok(c) => Ok(c),
                    Err(_) => {
                        self.reset(m);
                        self.exists_loop(&names, body)
                    }
                }
            }
            _ => Err(format!("cannot compile `{}`", print_formula(f))),
        }
    }

    /// `ex vars body` without a loop: a set (one variable) or a pattern;
    /// a disjunction among the conjuncts that ties several variables
    /// through a fluent relation is distributed over, `ex v (A and (B or
    /// C))` = `ex v (A and B) or ex v (A and C)`, each part a pattern, as
    /// long as at most `budget` parts result.
    pub(crate) fn exists_direct(
        &mut self,
        names: &[String],
        body: &Formula,
        budget: usize,
    ) -> Result<Cond, Unsupported> {
        let f = Formula::Exists {
            vars: names.iter().map(|v| Var::Element(v.clone())).collect(),
            body: Box::new(body.clone()),
        };
        let direct = if let [y] = names {
            self.set(body, y).map(Cond::NonEmpty)
        } else {
            self.pattern(&f, names, body)
        };
        let Err(e) = direct else {
            return direct;
        };
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        let split = conj.iter().position(|c| {
            let fv = free_vars(c);
            matches!(c, Formula::Or(alts) if alts.len() <= budget)
                && names.iter().filter(|v| fv.contains(*v)).count() > 1
                && self.is_fluent(c)
        });
        let Some(i) = split else {
            return Err(e);
        };
        let Formula::Or(alts) = conj.remove(i) else {
            return Err(e);
        };
        let share = budget / alts.len();
        let mut parts = Vec::new();
        for alt in alts {
            let mut b = conj.clone();
            b.push(alt);
            parts.push(self.exists_direct(names, &Formula::And(b), share)?);
        }
        Ok(Cond::Or(parts))
    }

    /// `ex y, v2..vk body` as a loop: `y` runs over the set of the
    /// conjuncts about `y` alone and is bound in the rest (for what set
    /// algebra cannot say at once, like a fluent link between variables).
    pub(crate) fn exists_loop(
        &mut self,
        vars: &[String],
        body: &Formula,
    ) -> Result<Cond, Unsupported> {
        let (y, rest_vars) = vars.split_first().ok_or("no variables")?;
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        let mut over = Vec::new();
        let mut rest = Vec::new();
        for c in conj {
            let fv = free_vars(&c);
            let alone = !rest_vars.iter().any(|v| fv.contains(v)) && fv.contains(y);
            match alone.then(|| self.set(&c, y)) {
                Some(Ok(s)) => over.push(s),
                _ => rest.push(c),
            }
        }
        let var = self.next_loop;
        self.next_loop += 1;
        self.scope.push((y.clone(), Bound::Loop(var)));
        let rest_f = Formula::And(rest);
        let body = if rest_vars.is_empty() {
            self.cond(&rest_f)
        } else {
            self.cond(&Formula::Exists {
                vars: rest_vars.iter().map(|v| Var::Element(v.clone())).collect(),
                body: Box::new(rest_f),
            })
        };
        self.scope.pop();
        Ok(Cond::Exists {
            var,
            over: and_of(over),
            body: Box::new(body?),
        })
    }

    /// `ex v1..vk body` with body a conjunction of one-variable parts and a
    /// stable part over several variables.
    pub(crate) fn pattern(
        &mut self,
        f: &Formula,
        vars: &[String],
        body: &Formula,
    ) -> Result<Cond, Unsupported> {
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        // A fluent defined relation over several variables: unfold it.
        let mut i = 0;
        while i < conj.len() {
            if let Formula::Rel { name, args } = &conj[i]
                && args.len() > 1
                && self.def(name).is_some()
                && self.is_fluent(&conj[i])
            {
                let g = self.inline(name, &args.clone())?;
                conj.remove(i);
                let mut more = Vec::new();
                flatten_and(&g, &mut more);
                conj.splice(i..i, more);
                continue;
            }
            i += 1;
        }
        let mut sets: Vec<Vec<SetExpr>> = vec![Vec::new(); vars.len()];
        let mut closed = Vec::new();
        let mut stable = Vec::new();
        for c in &conj {
            let fv = free_vars(c);
            let mine: Vec<usize> = (0..vars.len()).filter(|&i| fv.contains(&vars[i])).collect();
            match mine.as_slice() {
                [] => closed.push(self.cond(c)?),
                [i] if self.is_fluent(c) => sets[*i].push(self.set(c, &vars[*i])?),
                _ if !self.is_fluent(c) => stable.push(c.clone()),
                _ => {
                    return Err(format!(
                        "`{}` ties several variables through a fluent relation",
                        print_formula(c)
                    ));
                }
            }
        }
        let stable_f = Formula::And(stable);
        let tuples = self.query(&stable_f, vars)?;
        if tuples.len() > MAX_PATTERN_TUPLES {
            return Err(format!("`{}` has too many tuples", print_formula(f)));
        }
        let mut groups: BTreeMap<Vec<i32>, BTreeSet<u32>> = BTreeMap::new();
        for t in &tuples {
            let offs = t.iter().map(|&e| e as i32 - t[0] as i32).collect();
            groups.entry(offs).or_default().insert(t[0]);
        }
        let what = clean(&print_formula(&stable_f));
        let groups: Vec<(Vec<i32>, usize)> = groups
            .into_iter()
            .map(|(offs, starts)| {
                let m = self.mask_index(format!("starts of offsets {offs:?} in {what}"), starts);
                (offs, m)
            })
            .collect();
        let pattern = match self.patterns.iter().position(|p| p.groups == groups) {
            Some(i) => i,
            None => {
                self.patterns.push(Pattern {
                    what,
                    vars: vars.iter().map(|v| clean(v)).collect(),
                    tuples: tuples.len(),
                    groups,
                });
                self.patterns.len() - 1
            }
        };
        let pat = Cond::Pattern {
            pattern,
            sets: sets.into_iter().map(and_of).collect(),
        };
        if closed.is_empty() {
            Ok(pat)
        } else {
            closed.push(pat);
            Ok(Cond::And(closed))
        }
    }

    pub(crate) fn cond_id(&mut self, what: String, c: Cond) -> usize {
        // Conditions equal up to the numbering of their loop variables (one
        // defined relation used by several rules) are computed once.
        let key = canonical_cond(&c);
        if let Some(i) = self
            .conds
            .iter()
            .position(|(_, d)| canonical_cond(d) == key)
        {
            return i;
        }
        self.conds.push((clean(&what), c));
        self.conds.len() - 1
    }
}
