//! Formulas with one free element variable (the others bound) to set
//! expressions: stable parts as masks and table rows, fluent ones as
//! bitsets and images, monadic least fixed points as iterations (a ray
//! table for a grid step), `tc` from a bound element, existentials as
//! images or in offset form (`oform`).

use std::collections::BTreeSet;

use toss_core::ir::{self, Formula, Var};
use toss_lang::print::print_formula;

use super::builder::{Builder, and_of, clean, flatten_and, free_vars};
use super::visit::mentions_fix;
use super::{Cond, MAX_PAIR_ROWS, Rel2, SetExpr, Table, Unsupported};

impl Builder<'_> {
    /// `{x | f}` where the free variables of `f` other than `x` are bound.
    pub(crate) fn set(&mut self, f: &Formula, x: &str) -> Result<SetExpr, Unsupported> {
        let fv = free_vars(f);
        let params: Vec<String> = fv.iter().filter(|v| *v != x).cloned().collect();
        if let Some(v) = params.iter().find(|v| self.bound(v).is_none()) {
            return Err(format!(
                "`{}` has the free variable {v} besides {x}",
                print_formula(f)
            ));
        }
        if let Formula::Eq(a, b) = f {
            let other = if a == x { b } else { a };
            if other == x {
                return Ok(SetExpr::Universe);
            }
            if let Some(o) = self.bound(other) {
                return Ok(SetExpr::Elem(o));
            }
        }
        if !params.is_empty() {
            if !fv.contains(x) {
                return Ok(match self.cond(f)? {
                    Cond::Const(true) => SetExpr::Universe,
                    Cond::Const(false) => SetExpr::Empty,
                    c => SetExpr::If(Box::new(c)),
                });
            }
            if !self.is_fluent(f) {
                return self.stable_set_with(f, x, &params);
            }
        } else if !self.is_fluent(f) {
            let what = format!("{{{x} | {}}}", print_formula(f));
            if fv.is_empty() {
                return Ok(if self.holds(f)? {
                    SetExpr::Universe
                } else {
                    SetExpr::Empty
                });
            }
            let members = self
                .query(f, &[x.to_string()])?
                .into_iter()
                .map(|t| t[0])
                .collect();
            return Ok(self.mask(what, members));
        }
        match f {
            Formula::Rel { name, args } => {
                if let Some(&(_, v)) = self.fix_scope.iter().rev().find(|(n, _)| n == name) {
                    return if args.len() == 1 && args[0] == x {
                        Ok(SetExpr::FixVar(v))
                    } else {
                        Err(format!("fixed-point variable {name} applied to {args:?}"))
                    };
                }
                if let Some(i) = self.fluents.iter().position(|fl| fl.name == *name) {
                    return if args.len() == 1 {
                        Ok(SetExpr::Fluent(i))
                    } else {
                        Err(format!("{name} with {} arguments", args.len()))
                    };
                }
                if let Some(rel) = self.fluent_rel(name) {
                    let args = args
                        .iter()
                        .map(|a| {
                            if a == x {
                                Ok(None)
                            } else {
                                self.bound(a)
                                    .map(Some)
                                    .ok_or_else(|| format!("{a} unbound"))
                            }
                        })
                        .collect::<Result<_, Unsupported>>()?;
                    return Ok(SetExpr::Tuples { rel, args });
                }
                let body = self.inline(name, args)?;
                self.set(&body, x)
            }
            Formula::Not(g) => Ok(SetExpr::Not(Box::new(self.set(g, x)?))),
            Formula::And(gs) => {
                let v = gs
                    .iter()
                    .map(|g| self.set(g, x))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(and_of(v))
            }
            Formula::Or(gs) => {
                let mut v = gs
                    .iter()
                    .map(|g| self.set(g, x))
                    .collect::<Result<Vec<_>, _>>()?;
                v.retain(|s| *s != SetExpr::Empty);
                Ok(match v.len() {
                    0 => SetExpr::Empty,
                    1 => v.remove(0),
                    _ => SetExpr::Or(v),
                })
            }
            Formula::Implies(a, b) => {
                let g = Formula::Or(vec![Formula::Not(a.clone()), (**b).clone()]);
                self.set(&g, x)
            }
            Formula::Iff(a, b) => {
                let g = Formula::Or(vec![
                    Formula::And(vec![(**a).clone(), (**b).clone()]),
                    Formula::And(vec![Formula::Not(a.clone()), Formula::Not(b.clone())]),
                ]);
                self.set(&g, x)
            }
            Formula::Exists { vars, body } => {
                let [Var::Element(y)] = vars.as_slice() else {
                    return Err(format!(
                        "quantifier over {} variables in `{}`",
                        vars.len(),
                        print_formula(f)
                    ));
                };
                self.exists_one(y, body, x)
            }
            Formula::Forall { vars, body } => {
                let g = Formula::Exists {
                    vars: vars.clone(),
                    body: Box::new(Formula::Not(body.clone())),
                };
                Ok(SetExpr::Not(Box::new(self.set(&g, x)?)))
            }
            Formula::Fixpoint {
                kind: ir::FixpointKind::Least,
                relation,
                params,
                body,
            } if params.len() == 1 && params[0] == x => {
                let v = self.next_fix;
                self.next_fix += 1;
                self.fix_scope.push((relation.clone(), v));
                let body = self.set(body, x);
                self.fix_scope.pop();
                Ok(self.ray_or_fix(v, body?))
            }
            Formula::Tc { .. } => self.tc_set(f, x),
            _ => Err(format!("cannot compile `{}` to a set", print_formula(f))),
        }
    }

    /// The fixed point `lfp T. {p} | (S & shift(d)[T])` (a ray from the
    /// bound element `p` through the set `S` in one grid direction) as a
    /// look-up in a table of full rays and a cut at the first cell outside
    /// `S`; any other fixed point is iterated.
    pub(crate) fn ray_or_fix(&mut self, var: usize, body: SetExpr) -> SetExpr {
        let fix = |body| SetExpr::Fix {
            var,
            body: Box::new(body),
        };
        let SetExpr::Or(alts) = &body else {
            return fix(body);
        };
        let (from, step) = match alts.as_slice() {
            [SetExpr::Elem(p), s] | [s, SetExpr::Elem(p)] => (*p, s),
            _ => return fix(body),
        };
        let parts: Vec<SetExpr> = match step {
            SetExpr::And(v) => v.clone(),
            s => vec![s.clone()],
        };
        let mut shift = None;
        let mut through = Vec::new();
        for p in parts {
            match p {
                SetExpr::Image {
                    rel: Rel2::Shifts(ref v),
                    ref of,
                } if v.len() == 1 && **of == SetExpr::FixVar(var) && shift.is_none() => {
                    shift = Some(v[0]);
                }
                p if !mentions_fix(&p, var) => through.push(p),
                _ => return fix(body),
            }
        }
        let Some((d, m)) = shift else {
            return fix(body);
        };
        if d == 0 {
            return fix(body);
        }
        let sources = self.masks[m].members.clone();
        let mut pairs = Vec::new();
        for e in 0..self.n {
            let mut cur = e;
            while sources.contains(&cur) {
                cur = (cur as i64 + d as i64) as u32;
                pairs.push((e, cur));
            }
        }
        let what = format!("the ray in direction {d:+} (sources m{m})");
        let table = self.table(what, &pairs);
        SetExpr::Ray {
            table,
            from,
            through: Box::new(and_of(through)),
            up: d > 0,
        }
    }

    /// `{x | f}` for a stable `f` whose other free variables (one or two)
    /// are bound: a table row per value of the bound ones.
    pub(crate) fn stable_set_with(
        &mut self,
        f: &Formula,
        x: &str,
        params: &[String],
    ) -> Result<SetExpr, Unsupported> {
        let n = self.n as usize;
        let mut vars = params.to_vec();
        vars.push(x.to_string());
        let what = clean(&format!(
            "{{{x} | {}}} by {}",
            print_formula(f),
            params.join(", ")
        ));
        match params {
            [p] => {
                let pairs: Vec<(u32, u32)> = self
                    .query(f, &vars)?
                    .into_iter()
                    .map(|t| (t[0], t[1]))
                    .collect();
                let table = self.table(what, &pairs);
                let of = self.bound(p).ok_or("unbound")?;
                Ok(SetExpr::Row { table, of })
            }
            [p, q] if n * n <= MAX_PAIR_ROWS => {
                let pairs: Vec<(u32, u32)> = self
                    .query(f, &vars)?
                    .into_iter()
                    .map(|t| (t[0] * self.n + t[1], t[2]))
                    .collect();
                let mut rows = vec![BTreeSet::new(); n * n];
                for &(y, x) in &pairs {
                    rows[y as usize].insert(x);
                }
                let table = match self.tables.iter().position(|t| t.rows == rows) {
                    Some(i) => i,
                    None => {
                        self.tables.push(Table { what, rows });
                        self.tables.len() - 1
                    }
                };
                let a = self.bound(p).ok_or("unbound")?;
                let b = self.bound(q).ok_or("unbound")?;
                Ok(SetExpr::Row2 { table, a, b })
            }
            _ => Err(format!(
                "`{}` relates {x} to {} bound elements",
                print_formula(f),
                params.len()
            )),
        }
    }

    /// `{x | tc u, v phi}` with the other end-point bound: the least fixed
    /// point of `{p} | step(T)` (a ray, for a grid step), forwards when `x`
    /// is the target, backwards when it is the source.
    pub(crate) fn tc_set(&mut self, f: &Formula, x: &str) -> Result<SetExpr, Unsupported> {
        let Formula::Tc {
            steps: None,
            from,
            to,
            body,
        } = f
        else {
            return Err(format!("cannot compile `{}` to a set", print_formula(f)));
        };
        let ([u], [v]) = (from.as_slice(), to.as_slice()) else {
            return Err(format!("tc over tuples in `{}`", print_formula(f)));
        };
        let t = self.fresh("T");
        let w = self.fresh("w");
        let forward = v == x && u != x && self.bound(u).is_some();
        let backward = u == x && v != x && self.bound(v).is_some();
        let (start, map) = if forward {
            (u, [(u.clone(), w.clone()), (v.clone(), x.to_string())])
        } else if backward {
            (v, [(u.clone(), x.to_string()), (v.clone(), w.clone())])
        } else {
            return Err(format!(
                "`{}` is not a closure from a bound element",
                print_formula(f)
            ));
        };
        let step = self.rename(body, &map.into_iter().collect());
        let fix = Formula::Fixpoint {
            kind: ir::FixpointKind::Least,
            relation: t.clone(),
            params: vec![x.to_string()],
            body: Box::new(Formula::Or(vec![
                Formula::Eq(x.to_string(), start.clone()),
                Formula::Exists {
                    vars: vec![Var::Element(w.clone())],
                    body: Box::new(Formula::And(vec![
                        Formula::Rel {
                            name: t,
                            args: vec![w],
                        },
                        step,
                    ])),
                },
            ])),
        };
        self.set(&fix, x)
    }

    /// `{x | ex y body}`: an image of the set of `y` under the stable
    /// link between `x` and `y`, or else in offset form (variables tied
    /// through a fluent relation: each at a fixed offset from `x`, lines
    /// on a board).
    pub(crate) fn exists_one(
        &mut self,
        y: &str,
        body: &Formula,
        x: &str,
    ) -> Result<SetExpr, Unsupported> {
        match self.exists_image(y, body, x) {
            Ok(s) => Ok(s),
            Err(e) => {
                let f = Formula::Exists {
                    vars: vec![Var::Element(y.to_string())],
                    body: Box::new(body.clone()),
                };
                if self.offsets != Some(true) || !self.is_fluent(&f) {
                    return Err(e);
                }
                self.offset_set(&f, x)
                    .map_err(|o| format!("{e}; in offset form: {o}"))
            }
        }
    }

    pub(crate) fn exists_image(
        &mut self,
        y: &str,
        body: &Formula,
        x: &str,
    ) -> Result<SetExpr, Unsupported> {
        if y == x {
            return Err(format!("variable {x} rebound"));
        }
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        let (mut on_x, mut on_y, mut both) = (Vec::new(), Vec::new(), Vec::new());
        for c in conj {
            let fv = free_vars(&c);
            match (fv.contains(x), fv.contains(y)) {
                (true, true) => both.push(c),
                (false, true) => on_y.push(c),
                _ => on_x.push(c),
            }
        }
        let mut parts = Vec::new();
        for c in &on_x {
            parts.push(self.set(c, x)?);
        }
        let mut inner = Vec::new();
        for c in &on_y {
            inner.push(self.set(c, y)?);
        }
        let inner = and_of(inner);
        if both.is_empty() {
            parts.push(SetExpr::AllIf(Box::new(inner)));
            return Ok(and_of(parts));
        }
        // One fluent binary relation between the two: its image, walked
        // from the set of `y` in either direction.
        if let [Formula::Rel { name, args }] = both.as_slice()
            && let Some(rel) = self.fluent_rel(name)
            && let [a, b] = args.as_slice()
            && a != b
        {
            parts.push(SetExpr::Image {
                rel: Rel2::Fluent {
                    rel,
                    forward: a == y,
                },
                of: Box::new(inner),
            });
            return Ok(and_of(parts));
        }
        let link = Formula::And(both);
        if self.is_fluent(&link) {
            return Err(format!(
                "`{}` links two variables through a fluent relation",
                print_formula(&link)
            ));
        }
        let pairs: Vec<(u32, u32)> = self
            .query(&link, &[y.to_string(), x.to_string()])?
            .into_iter()
            .map(|t| (t[0], t[1]))
            .collect();
        let rel = self.rel2(&print_formula(&link), &pairs);
        parts.push(SetExpr::Image {
            rel,
            of: Box::new(inner),
        });
        Ok(and_of(parts))
    }
}
