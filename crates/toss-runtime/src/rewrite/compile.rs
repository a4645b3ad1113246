//! Compiling a rule against the game signature ([`CompiledRule::new`]):
//! names resolved to ids, the exactness conditions of `emb` relations
//! expanded into forbidden tuples, the join order planned, the map `s`
//! and the right side resolved.

use std::collections::BTreeSet;

use super::{CompiledRule, RewriteError, RhsTuple, Tup, err, plan};
use toss_core::ir;
use toss_core::structure::{FunId, RelId, Structure};

fn index_of(names: &[String], n: &str) -> Option<usize> {
    names.iter().position(|x| x == n)
}

/// The tuples an `emb` relation must not have on a match (exactness): every
/// tuple over left elements that L does not list, and the nullary ones.
fn exact_forbidden(
    name: &str,
    signature: &Structure,
    nl: usize,
    emb: &[RelId],
    required: &[Tup],
    optional: &[Tup],
    nullary_required: &[RelId],
) -> Result<(Vec<Tup>, Vec<RelId>), RewriteError> {
    let mut forbidden = Vec::new();
    let mut nullary_forbidden = Vec::new();
    for &r in emb {
        let k = signature.arity(r);
        let listed: BTreeSet<Vec<usize>> = required
            .iter()
            .chain(optional.iter())
            .filter(|t| t.rel == r)
            .map(|t| t.args.clone())
            .collect();
        if k == 0 {
            let listed0 = nullary_required.contains(&r) || listed.contains(&Vec::new());
            if !listed0 {
                nullary_forbidden.push(r);
            }
            continue;
        }
        let total = nl.checked_pow(k as u32).unwrap_or(usize::MAX);
        if total > 1 << 16 {
            return err(format!(
                "rule {name}: exact matching of {} over {nl} elements is too large",
                signature.relation_name(r)
            ));
        }
        let mut args = vec![0usize; k];
        for mut code in 0..total {
            for a in args.iter_mut().rev() {
                *a = code % nl;
                code /= nl;
            }
            if !listed.contains(&args) {
                forbidden.push(Tup {
                    rel: r,
                    args: args.clone(),
                });
            }
        }
    }
    Ok((forbidden, nullary_forbidden))
}

/// The function literals of the right side and the `(function, right
/// element)` of each update equation.
#[allow(clippy::type_complexity)]
fn rhs_functions(
    name: &str,
    signature: &Structure,
    rhs_names: &[String],
    rule: &ir::Rule,
) -> Result<(Vec<(FunId, usize, f64)>, Vec<(FunId, usize)>), RewriteError> {
    let fun = |f: &str| {
        signature.function(f).ok_or_else(|| RewriteError {
            message: format!("rule {name}: unknown function {f}"),
        })
    };
    let mut rhs_fun_literals = Vec::new();
    for (f, e, v) in &rule.rhs.functions {
        let Some(b) = index_of(rhs_names, e) else {
            return err(format!("rule {name}: {e} is not a right element"));
        };
        rhs_fun_literals.push((fun(f)?, b, *v));
    }
    let mut updates = Vec::new();
    for u in &rule.update {
        let Some(b) = index_of(rhs_names, &u.element) else {
            return err(format!("rule {name}: {} is not a right element", u.element));
        };
        updates.push((fun(&u.function)?, b));
    }
    Ok((rhs_fun_literals, updates))
}

/// `may_merge[a * nl + b]`: left elements `a` and `b` may have one image
/// (`nondistinct`).
fn may_merge(name: &str, lhs_names: &[String], rule: &ir::Rule) -> Result<Vec<bool>, RewriteError> {
    let nl = lhs_names.len();
    let mut may_merge = vec![false; nl * nl];
    for (a, b) in &rule.nondistinct {
        let ia = index_of(lhs_names, a);
        let ib = index_of(lhs_names, b);
        let (Some(ia), Some(ib)) = (ia, ib) else {
            return err(format!(
                "rule {name}: nondistinct ({a}, {b}) names no left elements"
            ));
        };
        may_merge[ia * nl + ib] = true;
        may_merge[ib * nl + ia] = true;
    }
    Ok(may_merge)
}

/// The map s: right element -> left element.
fn s_map(
    name: &str,
    lhs_names: &[String],
    rhs_names: &[String],
    rule: &ir::Rule,
) -> Result<Vec<Option<usize>>, RewriteError> {
    let mut s_map = vec![None; rhs_names.len()];
    for (r, l) in &rule.map {
        let Some(ir) = index_of(rhs_names, r) else {
            return err(format!("rule {name}: {r} is not a right element"));
        };
        let Some(il) = index_of(lhs_names, l) else {
            return err(format!("rule {name}: {l} is not a left element"));
        };
        s_map[ir] = Some(il);
    }
    Ok(s_map)
}

impl CompiledRule {
    /// Compiles `rule` against `signature`. `defined` lists the names of the
    /// defined relations (allowed on the left side only).
    pub fn new(
        rule: &ir::Rule,
        signature: &Structure,
        defined: &[&str],
    ) -> Result<CompiledRule, RewriteError> {
        let name = &rule.name;
        let lhs_names = rule.lhs.elements.clone();
        let rhs_names = rule.rhs.elements.clone();
        let nl = lhs_names.len();
        for (i, n) in lhs_names.iter().enumerate() {
            if lhs_names[..i].contains(n) {
                return err(format!("rule {name}: left element {n} declared twice"));
            }
        }
        for (i, n) in rhs_names.iter().enumerate() {
            if rhs_names[..i].contains(n) {
                return err(format!("rule {name}: right element {n} declared twice"));
            }
        }
        let rel = |r: &str| -> Result<RelId, RewriteError> {
            signature.relation(r).ok_or_else(|| RewriteError {
                message: format!("rule {name}: unknown relation {r}"),
            })
        };
        // A tuple's relation, checked against the tuple's length.
        let tuple_rel = |t: &toss_core::ir::RuleTuple| -> Result<RelId, RewriteError> {
            let r = rel(&t.relation)?;
            if signature.arity(r) != t.args.len() {
                return Err(RewriteError {
                    message: format!(
                        "rule {name}: {} has arity {}, not {}",
                        t.relation,
                        signature.arity(r),
                        t.args.len()
                    ),
                });
            }
            Ok(r)
        };
        let resolve = |side: &[String], args: &[String], which: &str| {
            args.iter()
                .map(|a| {
                    index_of(side, a).ok_or_else(|| RewriteError {
                        message: format!("rule {name}: {a} is not a {which} element"),
                    })
                })
                .collect::<Result<Vec<usize>, RewriteError>>()
        };

        let mut emb = Vec::new();
        let mut emb_mask = vec![false; signature.num_relations()];
        for e in &rule.emb {
            let r = rel(e)?;
            if !emb_mask[r] {
                emb_mask[r] = true;
                emb.push(r);
            }
        }

        let mut required = Vec::new();
        let mut optional = Vec::new();
        let mut defined_tuples = Vec::new();
        let mut nullary_required = Vec::new();
        for t in &rule.lhs.tuples {
            if signature.relation(&t.relation).is_none() && defined.contains(&t.relation.as_str()) {
                if t.optional {
                    return err(format!(
                        "rule {name}: defined relation {} cannot be optional",
                        t.relation
                    ));
                }
                resolve(&lhs_names, &t.args, "left")?;
                defined_tuples.push((t.relation.clone(), t.args.clone()));
                continue;
            }
            let r = tuple_rel(t)?;
            let args = resolve(&lhs_names, &t.args, "left")?;
            if t.optional {
                optional.push(Tup { rel: r, args });
            } else if args.is_empty() {
                nullary_required.push(r);
            } else {
                required.push(Tup { rel: r, args });
            }
        }
        if optional.len() > 64 {
            return err(format!("rule {name}: more than 64 optional tuples"));
        }

        // Exactness: every tuple over left elements of an emb relation that L
        // does not list is forbidden.
        let (forbidden, nullary_forbidden) = exact_forbidden(
            name,
            signature,
            nl,
            &emb,
            &required,
            &optional,
            &nullary_required,
        )?;

        let may_merge = may_merge(name, &lhs_names, rule)?;
        let has_nondistinct = !rule.nondistinct.is_empty();

        let steps = plan(
            signature,
            nl,
            &required,
            &forbidden,
            &may_merge,
            has_nondistinct,
        );
        let ordered = steps.iter().enumerate().all(|(i, s)| s.elem == i);

        let s_map = s_map(name, &lhs_names, &rhs_names, rule)?;

        let mut rhs = Vec::new();
        for t in &rule.rhs.tuples {
            if signature.relation(&t.relation).is_none() && defined.contains(&t.relation.as_str()) {
                return err(format!(
                    "rule {name}: defined relation {} on the right side",
                    t.relation
                ));
            }
            let r = tuple_rel(t)?;
            let args = resolve(&rhs_names, &t.args, "right")?;
            let depends_on = if t.optional {
                let image: Option<Vec<usize>> = args.iter().map(|&b| s_map[b]).collect();
                let Some(image) = image else {
                    return err(format!(
                        "rule {name}: optional right tuple {}{:?} has an element without a left counterpart",
                        t.relation, t.args
                    ));
                };
                let Some(j) = optional.iter().position(|o| o.rel == r && o.args == image) else {
                    return err(format!(
                        "rule {name}: optional right tuple {}{:?} has no optional left counterpart",
                        t.relation, t.args
                    ));
                };
                Some(j)
            } else {
                None
            };
            rhs.push(RhsTuple {
                tup: Tup { rel: r, args },
                depends_on,
            });
        }

        let (rhs_fun_literals, updates) = rhs_functions(name, signature, &rhs_names, rule)?;

        Ok(CompiledRule {
            name: name.clone(),
            lhs_names,
            rhs_names,
            required,
            optional,
            forbidden,
            nullary_required,
            nullary_forbidden,
            defined: defined_tuples,
            emb_mask,
            emb,
            has_nondistinct,
            steps,
            ordered,
            s_map,
            rhs,
            rhs_fun_literals,
            updates,
        })
    }
}
