//! The offset form (see [`Builder::offset_set`]): `{x | ex y ..}` whose
//! variables are tied through fluent relations, each quantified variable
//! at an offset from `x` allowed by the stable relations linking it, one
//! branch per offset; the pairs (`x`, bound element) the stable conjuncts
//! allow cut the branches they exclude.

use std::collections::BTreeSet;

use toss_core::ir::{Formula, Var};
use toss_lang::print::print_formula;

use super::builder::{Builder, and_of, clean, flatten_and, free_vars};
use super::{Bound, Cond, MAX_OFFSET_BRANCHES, MAX_OFFSETS, Rel2, SetExpr, Unsupported};

/// `(base, bound element, offset of the extra variable)` per tuple of a
/// stable conjunct in offset form.
pub(crate) type OffsetPairs = Vec<(u32, u32, i32)>;

/// What a formula compiled in offset form ([`Builder::offset_set`]) knows
/// at a point: the quantified variables at their offsets from the base
/// element, the bound element it also mentions (at most one), and the
/// pairs `(base, bound element)` the stable conjuncts around allow.
pub(crate) struct Offsets {
    pub(crate) vars: Vec<(String, i32)>,
    pub(crate) param: Option<(String, Bound)>,
    pub(crate) ctx: BTreeSet<(u32, u32)>,
    pub(crate) branches: usize,
}

impl Builder<'_> {
    /// `{x | f}` in offset form: every quantified variable is `x + o` for
    /// an offset `o` the stable relation linking it to earlier variables
    /// allows (one branch per offset, united), so that a fluent unary
    /// relation of a variable is a shift of its bitset, a stable conjunct
    /// a mask of `x` (or a table row of the one bound element `f` also
    /// mentions), an equality with that element a shifted singleton. The
    /// pairs (`x`, bound element) the stable conjuncts around a branch
    /// allow are tracked at build time, and a branch they exclude is cut:
    /// walking a line of a board keeps one direction.
    pub(crate) fn offset_set(&mut self, f: &Formula, x: &str) -> Result<SetExpr, Unsupported> {
        let fv = free_vars(f);
        let params: Vec<&String> = fv.iter().filter(|v| *v != x).collect();
        let param = match params.as_slice() {
            [] => None,
            [p] => Some(((*p).clone(), self.bound(p).ok_or("unbound")?)),
            _ => return Err("more than one bound element".into()),
        };
        let ps = if param.is_some() { self.n } else { 1 };
        let ctx = (0..self.n)
            .flat_map(|b| (0..ps).map(move |p| (b, p)))
            .collect();
        let mut o = Offsets {
            vars: vec![(x.to_string(), 0)],
            param,
            ctx,
            branches: 0,
        };
        self.oform(f, &mut o)
    }

    /// The offset of `v` in `o`, if it is one of its variables.
    pub(crate) fn offset_of(o: &Offsets, v: &str) -> Option<i32> {
        o.vars.iter().rev().find(|(n, _)| n == v).map(|&(_, d)| d)
    }

    /// `{b | b + d in s}`.
    pub(crate) fn shifted(&mut self, s: SetExpr, d: i32) -> SetExpr {
        if d == 0 || matches!(s, SetExpr::Empty | SetExpr::Universe) {
            return s;
        }
        let n = self.n as i64;
        let sources = (0..self.n)
            .filter(|&y| (0..n).contains(&(y as i64 - d as i64)))
            .collect();
        let m = self.mask_index(format!("elements e with e - {d} an element"), sources);
        SetExpr::Image {
            rel: Rel2::Shifts(vec![(-d, m)]),
            of: Box::new(s),
        }
    }

    /// The tuples of a stable formula for `vars`; a relation applied to
    /// distinct variables is evaluated once per relation.
    pub(crate) fn stable_tuples(
        &mut self,
        f: &Formula,
        vars: &[String],
    ) -> Result<Vec<Vec<u32>>, Unsupported> {
        if let Formula::Rel { name, args } = f {
            let distinct: BTreeSet<&String> = args.iter().collect();
            if distinct.len() == args.len() && args.iter().all(|a| vars.contains(a)) {
                let key = (name.clone(), args.len());
                if !self.atom_tuples.contains_key(&key) {
                    let names: Vec<String> = (0..args.len()).map(|i| format!("a{i}")).collect();
                    let atom = Formula::Rel {
                        name: name.clone(),
                        args: names.clone(),
                    };
                    let t = self.query(&atom, &names)?;
                    self.atom_tuples.insert(key.clone(), t);
                }
                let pos: Vec<usize> = vars
                    .iter()
                    .map(|v| args.iter().position(|a| a == v).unwrap_or(0))
                    .collect();
                return Ok(self.atom_tuples[&key]
                    .iter()
                    .map(|t| pos.iter().map(|&i| t[i]).collect())
                    .collect());
            }
        }
        self.query(f, vars)
    }

    /// The pairs `(base, bound element)` satisfying the stable formula `f`
    /// with its variables at their offsets (the bound element 0 when `f`
    /// does not mention it).
    pub(crate) fn offset_pairs(
        &mut self,
        f: &Formula,
        o: &Offsets,
        extra: Option<&str>,
    ) -> Result<(OffsetPairs, bool), Unsupported> {
        let fv = free_vars(f);
        let mut vars = Vec::new();
        let mut with_param = false;
        for v in &fv {
            if Some(v.as_str()) == extra || Self::offset_of(o, v).is_some() {
                vars.push(v.clone());
            } else if o.param.as_ref().is_some_and(|(p, _)| p == v) {
                with_param = true;
            } else {
                return Err(format!("`{}` mentions {v}", print_formula(f)));
            }
        }
        let lead = vars
            .iter()
            .position(|v| Some(v.as_str()) != extra)
            .ok_or_else(|| format!("`{}` is not linked to the base", print_formula(f)))?;
        if let (true, Some((p, _))) = (with_param, &o.param) {
            vars.push(p.clone());
        }
        let k = vars.len() - usize::from(with_param);
        let tuples = self.stable_tuples(f, &vars)?;
        let mut out = Vec::new();
        'tuples: for t in tuples {
            let b = t[lead] as i64 - Self::offset_of(o, &vars[lead]).unwrap_or(0) as i64;
            if !(0..self.n as i64).contains(&b) {
                continue;
            }
            let mut off = 0;
            for (i, v) in vars[..k].iter().enumerate() {
                match Self::offset_of(o, v).filter(|_| Some(v.as_str()) != extra) {
                    Some(d) if t[i] as i64 - d as i64 != b => continue 'tuples,
                    Some(_) => {}
                    None => off = (t[i] as i64 - b) as i32,
                }
            }
            let p = if with_param { t[k] } else { 0 };
            out.push((b as u32, p, off));
        }
        Ok((out, with_param))
    }

    /// `ctx` restricted to the pairs of a stable conjunct.
    pub(crate) fn restrict(
        ctx: &BTreeSet<(u32, u32)>,
        pairs: &[(u32, u32, i32)],
        with_param: bool,
    ) -> BTreeSet<(u32, u32)> {
        if with_param {
            let allowed: BTreeSet<(u32, u32)> = pairs.iter().map(|&(b, p, _)| (b, p)).collect();
            ctx.intersection(&allowed).copied().collect()
        } else {
            let allowed: BTreeSet<u32> = pairs.iter().map(|&(b, _, _)| b).collect();
            ctx.iter()
                .filter(|(b, _)| allowed.contains(b))
                .copied()
                .collect()
        }
    }

    /// The set of `f` in offset form (see [`Builder::offset_set`]).
    pub(crate) fn oform(&mut self, f: &Formula, o: &mut Offsets) -> Result<SetExpr, Unsupported> {
        o.branches += 1;
        if o.branches > MAX_OFFSET_BRANCHES {
            return Err("too many branches".into());
        }
        if o.ctx.is_empty() {
            return Ok(SetExpr::Empty);
        }
        let fv = free_vars(f);
        if !fv.iter().any(|v| Self::offset_of(o, v).is_some()) {
            // About the bound element alone.
            return Ok(match self.cond(f)? {
                Cond::Const(true) => SetExpr::Universe,
                Cond::Const(false) => SetExpr::Empty,
                c => SetExpr::If(Box::new(c)),
            });
        }
        if let Formula::Eq(a, b) = f {
            return match (Self::offset_of(o, a), Self::offset_of(o, b)) {
                (Some(d), Some(e)) => Ok(if d == e {
                    SetExpr::Universe
                } else {
                    SetExpr::Empty
                }),
                (Some(d), None) | (None, Some(d)) => {
                    let other = if Self::offset_of(o, a).is_some() {
                        b
                    } else {
                        a
                    };
                    let e = self.bound(other).ok_or("unbound")?;
                    Ok(self.shifted(SetExpr::Elem(e), d))
                }
                (None, None) => Err("unbound".into()),
            };
        }
        if !self.is_fluent(f) {
            let (pairs, with_param) = self.offset_pairs(f, o, None)?;
            let what = clean(&print_formula(f));
            return Ok(match (&o.param, with_param) {
                (Some((_, of)), true) => {
                    let rows: Vec<(u32, u32)> = pairs.iter().map(|&(b, p, _)| (p, b)).collect();
                    let table = self.table(
                        format!("{{x | {what}}} at offsets, by the bound element"),
                        &rows,
                    );
                    SetExpr::Row { table, of: *of }
                }
                _ => {
                    let members = pairs.iter().map(|&(b, _, _)| b).collect();
                    self.mask(format!("{{x | {what}}} at offsets"), members)
                }
            });
        }
        match f {
            Formula::Rel { name, args } => {
                if let Some(i) = self.fluents.iter().position(|fl| fl.name == *name) {
                    let [a] = args.as_slice() else {
                        return Err(format!("{name} with {} arguments", args.len()));
                    };
                    let d = Self::offset_of(o, a).ok_or("unbound")?;
                    return Ok(self.shifted(SetExpr::Fluent(i), d));
                }
                if self.def(name).is_none() {
                    return Err(format!("{name} is not a unary fluent"));
                }
                let body = self.inline(name, args)?;
                self.oform(&body, o)
            }
            Formula::Not(g) => Ok(SetExpr::Not(Box::new(self.oform(g, o)?))),
            Formula::Or(gs) => {
                let mut v = Vec::new();
                for g in gs {
                    match self.oform(g, o)? {
                        SetExpr::Empty => {}
                        s => v.push(s),
                    }
                }
                Ok(match v.len() {
                    0 => SetExpr::Empty,
                    1 => v.remove(0),
                    _ => SetExpr::Or(v),
                })
            }
            Formula::And(_) => self.oform_and(f, o),
            Formula::Implies(a, b) => {
                let g = Formula::Or(vec![Formula::Not(a.clone()), (**b).clone()]);
                self.oform(&g, o)
            }
            Formula::Iff(a, b) => {
                let g = Formula::Or(vec![
                    Formula::And(vec![(**a).clone(), (**b).clone()]),
                    Formula::And(vec![Formula::Not(a.clone()), Formula::Not(b.clone())]),
                ]);
                self.oform(&g, o)
            }
            Formula::Forall { vars, body } => {
                let g = Formula::Exists {
                    vars: vars.clone(),
                    body: Box::new(Formula::Not(body.clone())),
                };
                Ok(SetExpr::Not(Box::new(self.oform(&g, o)?)))
            }
            Formula::Exists { vars, body } => self.oform_exists(vars, body, o),
            _ => Err(format!(
                "cannot compile `{}` in offset form",
                print_formula(f)
            )),
        }
    }

    /// A conjunction in offset form: the stable conjuncts first, they
    /// narrow the pairs the others are compiled under.
    fn oform_and(&mut self, f: &Formula, o: &mut Offsets) -> Result<SetExpr, Unsupported> {
        let mut conj = Vec::new();
        flatten_and(f, &mut conj);
        // The stable conjuncts first: they narrow the pairs the
        // others are compiled under.
        let saved = o.ctx.clone();
        let mut parts = Vec::new();
        let mut rest = Vec::new();
        for c in conj {
            let on_vars = free_vars(&c)
                .iter()
                .any(|v| Self::offset_of(o, v).is_some());
            if on_vars && !self.is_fluent(&c) {
                let (pairs, with_param) = self.offset_pairs(&c, o, None)?;
                o.ctx = Self::restrict(&o.ctx, &pairs, with_param);
                parts.push(self.oform(&c, o)?);
            } else {
                rest.push(c);
            }
        }
        let mut out = Ok(SetExpr::Empty);
        if !o.ctx.is_empty() {
            let mut ok = true;
            for c in &rest {
                match self.oform(c, o) {
                    Ok(SetExpr::Empty) => {
                        parts = vec![SetExpr::Empty];
                        break;
                    }
                    Ok(s) => parts.push(s),
                    Err(e) => {
                        out = Err(e);
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                out = Ok(and_of(parts));
            }
        }
        o.ctx = saved;
        out
    }

    /// `ex vars body` in offset form: one branch per offset of the first
    /// variable that the stable conjuncts linking it allow, united.
    fn oform_exists(
        &mut self,
        vars: &[Var],
        body: &Formula,
        o: &mut Offsets,
    ) -> Result<SetExpr, Unsupported> {
        let (y, inner) = match vars {
            [Var::Element(y)] => (y.clone(), body.clone()),
            [Var::Element(y), more @ ..] => (
                y.clone(),
                Formula::Exists {
                    vars: more.to_vec(),
                    body: Box::new(body.clone()),
                },
            ),
            _ => return Err("a set or real quantifier".into()),
        };
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        // The offsets of `y`: those every stable conjunct linking
        // it to the variables allows, under the pairs around.
        let mut offsets: Option<BTreeSet<i32>> = None;
        for c in &conj {
            let fv = free_vars(c);
            let known = fv.iter().all(|v| {
                *v == y
                    || Self::offset_of(o, v).is_some()
                    || o.param.as_ref().is_some_and(|(p, _)| p == v)
            });
            let linked = known
                && fv.contains(&y)
                && fv
                    .iter()
                    .any(|v| *v != y && Self::offset_of(o, v).is_some());
            if !linked || self.is_fluent(c) {
                continue;
            }
            let (pairs, with_param) = self.offset_pairs(c, o, Some(&y))?;
            let here: BTreeSet<i32> = pairs
                .iter()
                .filter(|&&(b, p, _)| {
                    if with_param {
                        o.ctx.contains(&(b, p))
                    } else {
                        o.ctx.range((b, 0)..(b + 1, 0)).next().is_some()
                    }
                })
                .map(|&(_, _, d)| d)
                .collect();
            offsets = Some(match offsets {
                None => here,
                Some(prev) => prev.intersection(&here).copied().collect(),
            });
        }
        let offsets =
            offsets.ok_or_else(|| format!("{y} is not linked to the base by a stable relation"))?;
        if offsets.len() > MAX_OFFSETS {
            return Err(format!("{y} has {} offsets", offsets.len()));
        }
        let mut alts = Vec::new();
        for d in offsets {
            o.vars.push((y.clone(), d));
            let r = self.oform(&inner, o);
            o.vars.pop();
            match r? {
                SetExpr::Empty => {}
                s => alts.push(s),
            }
        }
        Ok(match alts.len() {
            0 => SetExpr::Empty,
            1 => alts.remove(0),
            _ => SetExpr::Or(alts),
        })
    }
}
