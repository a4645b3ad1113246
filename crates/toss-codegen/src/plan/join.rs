//! The join order of a matcher ([`JoinOrder`]): greedy by estimated
//! candidates on the starting structure, against the declaration order.

use std::collections::BTreeSet;

use toss_core::ir;

use super::JoinOrder;
use super::builder::Builder;

impl Builder<'_> {
    /// The join order of rule `r` (two or more left elements): greedily
    /// the element with the fewest estimated candidates given those bound
    /// before, against the declaration order. On the starting structure,
    /// an element's candidates are the elements with its unary tuples
    /// (positive, and for `emb` relations the absent ones), at least one;
    /// through a binary tuple with a bound element, the relation's average
    /// number of successors of a source (predecessors of a target), if
    /// fewer. The cost of an order is the sum over its steps of the
    /// estimated bindings of the elements up to the step.
    pub(crate) fn join_order(&self, r: &ir::Rule) -> Option<JoinOrder> {
        let lhs = &r.lhs.elements;
        let k = lhs.len();
        if k < 2 {
            return None;
        }
        let idx = |a: &str| lhs.iter().position(|l| l == a);
        let tuples: Vec<(usize, Vec<usize>)> = r
            .lhs
            .tuples
            .iter()
            .filter(|t| !t.optional)
            .filter_map(|t| {
                let rel = self.sig.relation(&t.relation)?;
                let args = t.args.iter().map(|a| idx(a)).collect::<Option<Vec<_>>>()?;
                Some((rel, args))
            })
            .collect();
        let unary: Vec<f64> = (0..k)
            .map(|e| {
                let lits: Vec<(usize, bool)> = tuples
                    .iter()
                    .filter(|(_, a)| a.iter().all(|&x| x == e))
                    .map(|(rel, _)| (*rel, true))
                    .chain(r.emb.iter().filter_map(|name| {
                        let rel = self.sig.relation(name)?;
                        // Optional tuples are listed too (not forbidden).
                        let listed = r
                            .lhs
                            .tuples
                            .iter()
                            .any(|t| t.relation == *name && t.args == [lhs[e].clone()]);
                        (self.sig.arity(rel) == 1 && !listed).then_some((rel, false))
                    }))
                    .collect();
                let count = (0..self.n)
                    .filter(|&x| {
                        lits.iter().all(|&(rel, want)| {
                            let t = vec![x; self.sig.arity(rel)];
                            self.sig.contains(rel, &t) == want
                        })
                    })
                    .count();
                count.max(1) as f64
            })
            .collect();
        // (from, to, average fan-out) per binary tuple between two elements.
        let mut fans: Vec<(usize, usize, f64)> = Vec::new();
        for (rel, a) in &tuples {
            let [u, v] = a.as_slice() else { continue };
            if u == v {
                continue;
            }
            let all = self.sig.tuples(*rel);
            let len = all.len() as f64;
            let sources: BTreeSet<u32> = all.iter().map(|t| t[0]).collect();
            let targets: BTreeSet<u32> = all.iter().map(|t| t[1]).collect();
            fans.push((*u, *v, len / sources.len().max(1) as f64));
            fans.push((*v, *u, len / targets.len().max(1) as f64));
        }
        let estimate = |e: usize, bound: &[usize]| {
            fans.iter()
                .filter(|(from, to, _)| *to == e && bound.contains(from))
                .map(|&(_, _, f)| f.max(1.0))
                .fold(unary[e], f64::min)
        };
        let cost = |order: &[usize]| {
            let (mut total, mut prefix) = (0.0, 1.0);
            for (p, &e) in order.iter().enumerate() {
                prefix *= estimate(e, &order[..p]);
                total += prefix;
            }
            (total, prefix)
        };
        let mut greedy: Vec<usize> = Vec::new();
        while greedy.len() < k {
            let next = (0..k)
                .filter(|e| !greedy.contains(e))
                .min_by(|&a, &b| estimate(a, &greedy).total_cmp(&estimate(b, &greedy)))?;
            greedy.push(next);
        }
        let declared: Vec<usize> = (0..k).collect();
        let (greedy_cost, matches) = cost(&greedy);
        let (declared_cost, _) = cost(&declared);
        let sort = matches * (matches + 1.0).log2();
        let reordered = greedy != declared && greedy_cost + sort < declared_cost;
        Some(JoinOrder {
            greedy,
            greedy_cost,
            declared_cost,
            matches,
            reordered,
        })
    }
}
