//! Existential descriptions of stable relations (spec 3.4): the greedy
//! hit-rank procedure on the starting structure.

use std::collections::BTreeSet;

use toss_core::ir::{Formula, Var};
use toss_core::structure::{Elem, RelId, Structure};

#[derive(Clone, Debug, PartialEq, Eq)]
struct Lit {
    rel: RelId,
    /// Variable indices: `0..k` are the described variables, then the
    /// existentially quantified ones.
    args: Vec<usize>,
    positive: bool,
}

#[derive(Clone, Debug)]
struct Conj {
    lits: Vec<Lit>,
    nvars: usize,
    sat: BTreeSet<Vec<Elem>>,
}

/// Tuples of the first `k` variables for which some assignment of the
/// others satisfies all literals.
fn satisfying(s: &Structure, lits: &[Lit], k: usize, nvars: usize) -> BTreeSet<Vec<Elem>> {
    let elems: Vec<Elem> = s.elements().collect();
    let mut out = BTreeSet::new();
    let mut asg = vec![0 as Elem; nvars];
    // Literals checked once their last variable is bound.
    let mut at: Vec<Vec<&Lit>> = vec![Vec::new(); nvars.max(1)];
    for l in lits {
        let last = l.args.iter().copied().max().unwrap_or(0);
        at[last].push(l);
    }
    fn go(
        i: usize,
        k: usize,
        s: &Structure,
        elems: &[Elem],
        at: &[Vec<&Lit>],
        asg: &mut Vec<Elem>,
        out: &mut BTreeSet<Vec<Elem>>,
    ) -> bool {
        if i == asg.len() {
            out.insert(asg[..k].to_vec());
            return true;
        }
        let mut tuple = Vec::new();
        for &e in elems {
            asg[i] = e;
            let ok = at[i].iter().all(|l| {
                tuple.clear();
                tuple.extend(l.args.iter().map(|&a| asg[a]));
                s.contains(l.rel, &tuple) == l.positive
            });
            // Once the described variables are bound, one witness is enough.
            if ok && go(i + 1, k, s, elems, at, asg, out) && i >= k {
                return true;
            }
        }
        false
    }
    if nvars == 0 {
        out.insert(Vec::new());
        return out;
    }
    go(0, k, s, &elems, &at, &mut asg, &mut out);
    out
}

fn hit_rank(sat: &BTreeSet<Vec<Elem>>, q: &BTreeSet<Vec<Elem>>) -> f64 {
    if sat.is_empty() {
        return 0.0;
    }
    sat.iter().filter(|t| q.contains(*t)).count() as f64 / sat.len() as f64
}

/// Finds a disjunction of existentially quantified conjunctions of stable
/// literals that is equivalent, in `s`, to the relation `q` on the
/// variables `x` (spec 3.4). Literals use the relations `stable` (of arity
/// at most 3); each conjunction gets at most `max_literals` literals.
/// Returns `None` if no description is found within that bound.
pub fn existential_description(
    s: &Structure,
    stable: &[RelId],
    x: &[String],
    q: &BTreeSet<Vec<Elem>>,
    max_literals: usize,
) -> Option<Formula> {
    let k = x.len();
    let sat0 = satisfying(s, &[], k, k);
    let first = Conj {
        lits: Vec::new(),
        nvars: k,
        sat: sat0,
    };
    // The best extension of each conjunction depends on it alone, so it is
    // computed once, when the conjunction is made.
    let best0 = best_extension(s, stable, q, k, &first, max_literals);
    let mut cs = vec![(first, best0)];
    for _ in 0..64 {
        let good: Vec<&Conj> = cs
            .iter()
            .map(|(c, _)| c)
            .filter(|c| !c.sat.is_empty() && c.sat.is_subset(q))
            .collect();
        let covered: BTreeSet<Vec<Elem>> =
            good.iter().flat_map(|c| c.sat.iter().cloned()).collect();
        if &covered == q {
            return Some(to_formula(s, x, &good));
        }
        // The best extension by rank (the first conjunction wins ties).
        let mut best: Option<(f64, usize)> = None;
        for (i, (_, ext)) in cs.iter().enumerate() {
            if let Some((rank, _, _)) = ext
                && best.is_none_or(|b| *rank > b.0)
            {
                best = Some((*rank, i));
            }
        }
        let (_, i) = best?;
        let (_, ext) = cs.remove(i);
        let (_, p, m) = ext?;
        for c in [p, m] {
            if !c.sat.is_empty() {
                let b = best_extension(s, stable, q, k, &c, max_literals);
                cs.push((c, b));
            }
        }
    }
    None
}

/// The extension of `c` by one stable literal (positive and negative) of
/// maximal rank, if it raises the hit-rank (the first found wins ties).
fn best_extension(
    s: &Structure,
    stable: &[RelId],
    q: &BTreeSet<Vec<Elem>>,
    k: usize,
    c: &Conj,
    max_literals: usize,
) -> Option<(f64, Conj, Conj)> {
    if c.sat.is_empty() || c.sat.is_subset(q) || c.lits.len() >= max_literals {
        return None;
    }
    let mut best: Option<(f64, Conj, Conj)> = None;
    for &r in stable {
        let a = s.arity(r);
        if a == 0 || a > 3 {
            continue;
        }
        let n = c.nvars + 1;
        let mut args = vec![0usize; a];
        'args: loop {
            let fresh = args.contains(&c.nvars);
            let dup = c.lits.iter().any(|l| l.rel == r && l.args == args);
            if !dup {
                let nvars = if fresh { n } else { c.nvars };
                let ext = |positive| {
                    let mut lits = c.lits.clone();
                    lits.push(Lit {
                        rel: r,
                        args: args.clone(),
                        positive,
                    });
                    let sat = satisfying(s, &lits, k, nvars);
                    Conj { lits, nvars, sat }
                };
                let (p, m) = (ext(true), ext(false));
                let rank = hit_rank(&p.sat, q).max(hit_rank(&m.sat, q));
                if rank > hit_rank(&c.sat, q) && best.as_ref().is_none_or(|b| rank > b.0) {
                    best = Some((rank, p, m));
                }
            }
            let mut j = a;
            loop {
                if j == 0 {
                    break 'args;
                }
                j -= 1;
                args[j] += 1;
                if args[j] < n {
                    break;
                }
                args[j] = 0;
            }
        }
    }
    best
}

fn to_formula(s: &Structure, x: &[String], cs: &[&Conj]) -> Formula {
    let k = x.len();
    let name = |i: usize| -> String {
        if i < k {
            return x[i].clone();
        }
        let mut n = format!("y{}", i - k + 1);
        while x.contains(&n) {
            n.push('_');
        }
        n
    };
    let ds = cs
        .iter()
        .map(|c| {
            let lits: Vec<Formula> = c
                .lits
                .iter()
                .map(|l| {
                    let a = Formula::Rel {
                        name: s.relation_name(l.rel).to_string(),
                        args: l.args.iter().map(|&i| name(i)).collect(),
                    };
                    if l.positive {
                        a
                    } else {
                        Formula::Not(Box::new(a))
                    }
                })
                .collect();
            let body = super::tnf::and(lits);
            if c.nvars > k {
                Formula::Exists {
                    vars: (k..c.nvars).map(|i| Var::Element(name(i))).collect(),
                    body: Box::new(body),
                }
            } else {
                body
            }
        })
        .collect();
    super::tnf::or(ds)
}
