//! A rule's matcher: per left element its candidate set, links through
//! neighbour tables, sets given the earlier elements and per-candidate
//! checks, in the join order (`join`); the match-independent sentence, the
//! postcondition, the grid shift of two-element rules, and the weakened
//! existential preconditions tested on prefixes of the join.

use std::collections::{BTreeMap, BTreeSet};

use toss_core::analysis::union_find_root;
use toss_core::ir::{self, Formula, Var};
use toss_lang::print::print_formula;

use super::builder::{Builder, and_of, clean, flatten_and, free_vars};
use super::visit::{canonical_cond, disjoint, loop_depth};
use super::{Bound, Cond, Fluent, Link, MAX_EXACT_TUPLES, RulePlan, SetExpr, Step, Unsupported};

/// What a matcher collects per left element (indexed by element, not by
/// step) before its steps are formed.
struct Parts {
    /// Candidate sets (their intersection is the step's candidates).
    cands: Vec<Vec<SetExpr>>,
    /// Sets that depend on earlier elements.
    inner: Vec<Vec<SetExpr>>,
    /// Conditions tested per candidate.
    checks: Vec<Vec<Cond>>,
    links: Vec<Vec<Link>>,
    /// The earlier elements a link's table already keeps apart.
    link_irreflexive: Vec<Vec<usize>>,
    /// Precondition conjuncts (and constraints compiled like them).
    pre_conj: Vec<Formula>,
    /// Tuples of fluent relations of arity other than 1 and the exactness
    /// of emb relations of such arities: compiled like precondition
    /// conjuncts, but never left to the interpreter's check of a match
    /// (which tests the conditions only).
    exact_conj: Vec<Formula>,
    /// `pos[e]`: the step binding left element `e`.
    pos: Vec<usize>,
}

impl Builder<'_> {
    /// The matcher of a rule: candidate sets, links, per-candidate checks,
    /// the postcondition; what it cannot compile of the conditions becomes
    /// `check_fallback`. An error: the matches come from the interpreter.
    pub(crate) fn matcher(&mut self, r: &ir::Rule, plan: &mut RulePlan) -> Result<(), Unsupported> {
        if !r.nondistinct.is_empty() {
            return Err("non-distinct left elements are not specialized".into());
        }
        let k = r.lhs.elements.len();
        // Quantified variables renamed apart: one named like a left element
        // must not stand for it.
        let pre = self.rename(&r.pre, &BTreeMap::new());
        let mut pre_conj = Vec::new();
        flatten_and(&pre, &mut pre_conj);
        // The join order: `order[p]` is the left element bound at step `p`,
        // `pos[e]` the step binding `e`. A constraint on several elements is
        // tested at the step of the last of them.
        let join = self.join_order(r);
        let order: Vec<usize> = match &join {
            Some(j) if j.reordered => j.greedy.clone(),
            _ => (0..k).collect(),
        };
        plan.join = join;
        let mut pos = vec![0; k];
        for (p, &e) in order.iter().enumerate() {
            pos[e] = p;
        }
        let mut m = Parts {
            cands: vec![Vec::new(); k],
            inner: vec![Vec::new(); k],
            checks: vec![Vec::new(); k],
            links: vec![Vec::new(); k],
            link_irreflexive: vec![Vec::new(); k],
            pre_conj,
            exact_conj: Vec::new(),
            pos,
        };
        self.match_tuples(r, &mut m)?;
        self.match_exact(r, &mut m)?;
        self.place_exact(r, &mut m)?;
        let fallback = self.match_pre(r, &order, &mut m, plan);
        plan.check_fallback = self.match_post(r, plan, fallback)?;
        plan.steps = steps(&order, m);
        self.match_shift(plan);
        Ok(())
    }

    /// The tuples of the left side: unary fluents as candidates, stable
    /// binary tuples as links through a neighbour table, tuples of other
    /// fluent relations to `exact_conj`, the others to `pre_conj`.
    fn match_tuples(&mut self, r: &ir::Rule, m: &mut Parts) -> Result<(), Unsupported> {
        let lhs = &r.lhs.elements;
        let idx = |n: &str| lhs.iter().position(|l| l == n);
        let fluent_of = |n: &str, fl: &[Fluent]| fl.iter().position(|f| f.name == n);
        let Parts {
            cands,
            links,
            link_irreflexive,
            pre_conj,
            exact_conj,
            pos,
            ..
        } = m;
        for t in &r.lhs.tuples {
            // An optional tuple does not restrict matching; the effect
            // removes the emb relations of matched elements either way.
            if t.optional {
                continue;
            }
            let args: Vec<usize> = t
                .args
                .iter()
                .map(|a| idx(a).ok_or_else(|| format!("unknown element {a}")))
                .collect::<Result<_, _>>()?;
            if self.def(&t.relation).is_some() && self.sig.relation(&t.relation).is_none() {
                pre_conj.push(Formula::Rel {
                    name: t.relation.clone(),
                    args: t.args.clone(),
                });
                continue;
            }
            if let Some(fi) = fluent_of(&t.relation, &self.fluents) {
                cands[args[0]].push(SetExpr::Fluent(fi));
                continue;
            }
            // A tuple of another fluent relation: the successors (or
            // predecessors) of the elements bound before its last one.
            if self.fluent_rel(&t.relation).is_some() {
                exact_conj.push(Formula::Rel {
                    name: t.relation.clone(),
                    args: t.args.clone(),
                });
                continue;
            }
            let mut distinct: Vec<usize> = args.clone();
            distinct.sort_unstable();
            distinct.dedup();
            match distinct.as_slice() {
                [e] => {
                    let x = self.fresh("x");
                    let g = Formula::Rel {
                        name: t.relation.clone(),
                        args: vec![x.clone(); args.len()],
                    };
                    let m = self.set(&g, &x)?;
                    cands[*e].push(m);
                }
                [_, _] if args.len() == 2 => {
                    let (i, j) = (args[0], args[1]);
                    let (later, earlier) = if pos[i] > pos[j] { (i, j) } else { (j, i) };
                    let rel = self
                        .sig
                        .relation(&t.relation)
                        .ok_or_else(|| format!("unknown relation {}", t.relation))?;
                    let tuples = self.sig.tuples(rel);
                    // Pairs (earlier image, later image).
                    let pairs: Vec<(u32, u32)> = tuples
                        .iter()
                        .map(|p| {
                            if i == earlier {
                                (p[0], p[1])
                            } else {
                                (p[1], p[0])
                            }
                        })
                        .collect();
                    let what = format!(
                        "{}({}, {}) from {}",
                        t.relation, t.args[0], t.args[1], lhs[earlier]
                    );
                    let table = self.table(what, &pairs);
                    if pairs.iter().all(|(a, b)| a != b) {
                        link_irreflexive[later].push(earlier);
                    }
                    links[later].push(Link {
                        from: earlier,
                        table,
                    });
                }
                // A stable tuple over more elements: a constraint, compiled
                // like a precondition conjunct.
                _ => pre_conj.push(Formula::Rel {
                    name: t.relation.clone(),
                    args: t.args.clone(),
                }),
            }
        }
        Ok(())
    }

    /// The exactness of `emb` relations: unary ones as negated candidates,
    /// the others as absent tuples in `exact_conj`.
    fn match_exact(&mut self, r: &ir::Rule, m: &mut Parts) -> Result<(), Unsupported> {
        let lhs = &r.lhs.elements;
        let k = lhs.len();
        let Parts {
            cands, exact_conj, ..
        } = m;
        // Exactness of emb relations: a tuple over the left elements that
        // the left side does not list (optional ones included) is absent.
        for e in &r.emb {
            let Some(rel) = self.sig.relation(e) else {
                continue;
            };
            let arity = self.sig.arity(rel);
            if arity == 1 {
                for (i, l) in lhs.iter().enumerate() {
                    let listed = r
                        .lhs
                        .tuples
                        .iter()
                        .any(|t| t.relation == *e && t.args[0] == *l);
                    if listed {
                        continue;
                    }
                    let x = self.fresh("x");
                    let g = Formula::Not(Box::new(Formula::Rel {
                        name: e.clone(),
                        args: vec![x.clone()],
                    }));
                    let s = self.set(&g, &x)?;
                    cands[i].push(s);
                }
                continue;
            }
            let total = k.checked_pow(arity as u32).unwrap_or(usize::MAX);
            if total > MAX_EXACT_TUPLES {
                return Err(format!(
                    "exact matching of {e} over {k} elements is {total} tuples"
                ));
            }
            let listed: BTreeSet<&[String]> = r
                .lhs
                .tuples
                .iter()
                .filter(|t| t.relation == *e)
                .map(|t| t.args.as_slice())
                .collect();
            for code in 0..total {
                let mut c = code;
                let mut args = vec![String::new(); arity];
                for a in args.iter_mut().rev() {
                    *a = lhs[c % k].clone();
                    c /= k;
                }
                if !listed.contains(args.as_slice()) {
                    exact_conj.push(Formula::Not(Box::new(Formula::Rel {
                        name: e.clone(),
                        args,
                    })));
                }
            }
        }
        Ok(())
    }

    /// The conjuncts of `exact_conj`, each at the step of its last element
    /// (a candidate set, a set given earlier elements, or a check).
    fn place_exact(&mut self, r: &ir::Rule, m: &mut Parts) -> Result<(), Unsupported> {
        let lhs = &r.lhs.elements;
        let k = lhs.len();
        let Parts {
            cands,
            inner,
            checks,
            pre_conj,
            exact_conj,
            pos,
            ..
        } = m;
        for c in exact_conj.iter() {
            let fv = free_vars(c);
            let Some(i) = (0..k)
                .filter(|&i| fv.contains(&lhs[i]))
                .max_by_key(|&i| pos[i])
            else {
                // A nullary relation: part of the match-independent
                // precondition (which always compiles for a relation).
                pre_conj.push(c.clone());
                continue;
            };
            let alone = (0..k).all(|j| j == i || !fv.contains(&lhs[j]));
            match self.set(c, &lhs[i]) {
                Ok(s) if alone => cands[i].push(s),
                Ok(s) => inner[i].push(s),
                Err(_) => checks[i].push(self.cond(c)?),
            }
        }
        Ok(())
    }

    /// The preconditions (with their projections on prefixes of the join
    /// order), each at the step of its last element, or in the
    /// match-independent sentence; why some part is left to the
    /// interpreter's check of a match, if it is.
    fn match_pre(
        &mut self,
        r: &ir::Rule,
        order: &[usize],
        m: &mut Parts,
        plan: &mut RulePlan,
    ) -> Option<Unsupported> {
        let lhs = &r.lhs.elements;
        let k = lhs.len();
        let Parts {
            cands,
            inner,
            checks,
            pre_conj,
            pos,
            ..
        } = m;
        // An existential precondition over several left elements is also
        // tested, weakened, on the earlier ones: what its conjuncts say
        // about the elements bound so far prunes the join early (a chain
        // of jumps is cut at its first impossible jump).
        let in_order: Vec<String> = order.iter().map(|&e| lhs[e].clone()).collect();
        let projections: Vec<Formula> = pre_conj
            .iter()
            .flat_map(|c| prefix_projections(c, &in_order))
            .collect();
        pre_conj.extend(projections);
        // Preconditions: per element (a candidate set, a set depending on
        // earlier elements, or a check), or match-independent.
        let mut sentence = Vec::new();
        let mut fallback: Option<Unsupported> = None;
        for c in pre_conj.iter() {
            let fv = free_vars(c);
            let mine: Vec<usize> = (0..k).filter(|&i| fv.contains(&lhs[i])).collect();
            let Some(&i) = mine.iter().max_by_key(|&&i| pos[i]) else {
                sentence.push(c.clone());
                continue;
            };
            let mut set = self.set(c, &lhs[i]);
            let mut test = None;
            if set.is_err() {
                // A test per candidate, unless it has loops in loops (or
                // does not compile) and the set in offset form can be had.
                let m = self.mark();
                let t = self.with_offsets(Some(false), |b| b.cond(c));
                if matches!(&t, Ok(cd) if loop_depth(cd) <= 1) {
                    test = Some(t);
                } else {
                    self.reset(m);
                    set = self.with_offsets(Some(true), |b| b.set(c, &lhs[i]));
                    if set.is_err() {
                        self.reset(m);
                    }
                }
            }
            match set {
                Ok(s) if mine.len() == 1 => cands[i].push(s),
                Ok(s) => inner[i].push(s),
                Err(_) => match test.unwrap_or_else(|| self.cond(c)) {
                    Ok(cd) => {
                        let key = canonical_cond(&cd);
                        if !checks[i].iter().any(|d| canonical_cond(d) == key) {
                            checks[i].push(cd);
                        }
                    }
                    Err(e) => {
                        fallback.get_or_insert(format!("precondition: {}", clean(&e)));
                    }
                },
            }
        }
        if !sentence.is_empty() {
            let f = Formula::And(sentence);
            match self.cond(&f) {
                Ok(Cond::Const(true)) => {}
                Ok(c) => plan.sentence = Some(self.cond_id(print_formula(&f), c)),
                Err(e) => {
                    fallback.get_or_insert(format!("precondition: {}", clean(&e)));
                }
            }
        }
        fallback
    }

    /// The postcondition (into `plan.post`), or why the interpreter checks
    /// it; `fallback` is why it checks the precondition, if it does.
    fn match_post(
        &mut self,
        r: &ir::Rule,
        plan: &mut RulePlan,
        mut fallback: Option<Unsupported>,
    ) -> Result<Option<Unsupported>, Unsupported> {
        let lhs = &r.lhs.elements;
        let idx = |n: &str| lhs.iter().position(|l| l == n);
        // The postcondition, on the state after the effect: right elements
        // stand for their left counterparts.
        if r.post != Formula::True {
            if let Some(e) = &plan.effect_fallback {
                fallback.get_or_insert(format!("postcondition after an interpreted effect: {e}"));
            } else {
                let saved = std::mem::take(&mut self.scope);
                for b in &r.rhs.elements {
                    let l = r
                        .map
                        .iter()
                        .find(|(rr, _)| rr == b)
                        .and_then(|(_, l)| idx(l))
                        .ok_or_else(|| format!("right element {b} is new"))?;
                    self.scope.push((b.clone(), Bound::Left(l)));
                }
                let post = self.rename(&r.post, &BTreeMap::new());
                match self.cond(&post) {
                    Ok(c) => plan.post = Some(c),
                    Err(e) => {
                        fallback.get_or_insert(format!("postcondition: {}", clean(&e)));
                    }
                }
                self.scope = saved;
            }
        }
        Ok(fallback)
    }

    /// Two elements linked by one grid step: a shift (in declaration
    /// order: `b = a + d`).
    fn match_shift(&mut self, plan: &mut RulePlan) {
        let k = plan.lhs.len();
        if k == 2
            && !plan.reordered()
            && plan.steps[1].links.len() == 1
            && plan.steps[1].distinct_from.is_empty()
            && plan.plain()
        {
            let t = &self.tables[plan.steps[1].links[0].table];
            let mut offs = BTreeSet::new();
            let mut srcs = BTreeSet::new();
            let mut single = true;
            for (y, row) in t.rows.iter().enumerate() {
                if row.len() > 1 {
                    single = false;
                }
                for &x in row {
                    offs.insert(x as i32 - y as i32);
                    srcs.insert(y as u32);
                }
            }
            if single && offs.len() == 1 {
                let d = *offs.iter().next().unwrap_or(&0);
                let what = format!("sources of {}", t.what);
                let m = self.mask_index(what, srcs);
                plan.shift = Some((d, m));
            }
        }
    }
}

/// The steps of a matcher in join order `order`, from what was collected
/// per left element.
fn steps(order: &[usize], m: Parts) -> Vec<Step> {
    let Parts {
        cands,
        mut inner,
        mut checks,
        mut links,
        link_irreflexive,
        ..
    } = m;
    let cands: Vec<SetExpr> = cands.into_iter().map(and_of).collect();
    let mut steps = Vec::new();
    for (p, &i) in order.iter().enumerate() {
        let distinct_from = order[..p]
            .iter()
            .copied()
            .filter(|&j| !link_irreflexive[i].contains(&j) && !disjoint(&cands[i], &cands[j]))
            .collect();
        steps.push(Step {
            elem: i,
            cand: cands[i].clone(),
            links: std::mem::take(&mut links[i]),
            distinct_from,
            inner: std::mem::take(&mut inner[i]),
            checks: std::mem::take(&mut checks[i]),
        });
    }
    steps
}

/// Necessary conditions of the precondition conjunct `c` = `ex vars (c1
/// and .. and cn)` on prefixes of the left elements `lhs`: for each left
/// element `lhs[t]` some conjunct ends at (but not the last such), the
/// conjuncts about `lhs[0..=t]` only, grouped into parts connected by the
/// quantified variables they share; each part that mentions `lhs[t]` is
/// one condition (`ex` over its variables). Dropping conjuncts under `ex`
/// only weakens it, so the match set is unchanged.
pub(crate) fn prefix_projections(c: &Formula, lhs: &[String]) -> Vec<Formula> {
    let Formula::Exists { vars, body } = c else {
        return Vec::new();
    };
    let Some(names) = vars
        .iter()
        .map(|v| match v {
            Var::Element(n) => Some(n.clone()),
            _ => None,
        })
        .collect::<Option<Vec<String>>>()
    else {
        return Vec::new();
    };
    let mut conj = Vec::new();
    flatten_and(body, &mut conj);
    // Per conjunct: the quantified variables it uses, and the position of
    // the last left element it mentions (a quantified variable shadows a
    // left element of the same name).
    let info: Vec<(BTreeSet<usize>, Option<usize>)> = conj
        .iter()
        .map(|g| {
            let fv = free_vars(g);
            let qs = (0..names.len())
                .filter(|&i| fv.contains(&names[i]))
                .collect();
            let last = (0..lhs.len())
                .filter(|&i| fv.contains(&lhs[i]) && !names.contains(&lhs[i]))
                .max();
            (qs, last)
        })
        .collect();
    let Some(end) = info.iter().filter_map(|(_, p)| *p).max() else {
        return Vec::new();
    };
    let thresholds: BTreeSet<usize> = info
        .iter()
        .filter_map(|(_, p)| *p)
        .filter(|&p| p < end)
        .collect();
    let mut out = Vec::new();
    for t in thresholds {
        let kept: Vec<usize> = (0..conj.len())
            .filter(|&i| info[i].1.is_none_or(|p| p <= t))
            .collect();
        // Connected parts: union of conjuncts sharing a quantified variable.
        let mut part: Vec<usize> = (0..conj.len()).collect();
        for (a, &i) in kept.iter().enumerate() {
            for &j in &kept[a + 1..] {
                if !info[i].0.is_disjoint(&info[j].0) {
                    let (ri, rj) = (union_find_root(&mut part, i), union_find_root(&mut part, j));
                    part[ri] = rj;
                }
            }
        }
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &i in &kept {
            let r = union_find_root(&mut part, i);
            groups.entry(r).or_default().push(i);
        }
        for members in groups.values() {
            if !members.iter().any(|&i| info[i].1 == Some(t)) {
                continue;
            }
            let qs: BTreeSet<usize> = members.iter().flat_map(|&i| info[i].0.clone()).collect();
            let body = Formula::And(members.iter().map(|&i| conj[i].clone()).collect());
            out.push(if qs.is_empty() {
                body
            } else {
                Formula::Exists {
                    vars: qs.iter().map(|&q| Var::Element(names[q].clone())).collect(),
                    body: Box::new(body),
                }
            });
        }
    }
    out
}
