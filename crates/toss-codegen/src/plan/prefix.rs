//! Pass: the shared-prefix tree ([`PrefixNode`]) of the labels a mover's
//! playout counts.

use std::collections::BTreeMap;

use super::visit::{renumber_cond, renumber_set};
use super::{LabelPlan, PrefixNode, RulePlan, Step};

/// A step with its loop variables numbered in order of appearance, so that
/// equal steps of different rules compare equal.
pub(crate) fn canonical_step(st: &Step) -> Step {
    let mut st = st.clone();
    let mut map = BTreeMap::new();
    renumber_set(&mut st.cand, &mut map);
    st.inner.iter_mut().for_each(|s| renumber_set(s, &mut map));
    st.checks
        .iter_mut()
        .for_each(|c| renumber_cond(c, &mut map));
    st
}

/// The shared-prefix forest of the labels `members` from step `depth` on,
/// nodes in order of their first label.
pub(crate) fn prefix_forest(
    rules: &[RulePlan],
    labels: &[LabelPlan],
    members: &[usize],
    depth: usize,
) -> Vec<PrefixNode> {
    let mut groups: Vec<(Step, Vec<usize>)> = Vec::new();
    for &lb in members {
        let key = canonical_step(&rules[labels[lb].rule].steps[depth]);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(lb),
            None => groups.push((key, vec![lb])),
        }
    }
    groups
        .into_iter()
        .map(|(_, group)| {
            let (ends, more): (Vec<usize>, Vec<usize>) = group
                .iter()
                .partition(|&&lb| rules[labels[lb].rule].steps.len() == depth + 1);
            PrefixNode {
                rule: labels[group[0]].rule,
                depth,
                children: prefix_forest(rules, labels, &more, depth + 1),
                labels: group,
                ends,
            }
        })
        .collect()
}
