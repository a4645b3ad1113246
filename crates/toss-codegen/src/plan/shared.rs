//! Pass: the sets a playout would compute more than once per ply in a
//! location, computed once ([`shared_sets`]), and the traversal that finds
//! them and that the emitter follows to use them.

use super::{Cond, LocPlan, Rel2, RulePlan, SetExpr};

/// The parts of a set expression where the playout code can use a set
/// computed beforehand instead (the same traversal for finding shared sets
/// and for emitting them).
pub(crate) fn shareable_parts(s: &SetExpr) -> Vec<&SetExpr> {
    match s {
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().collect(),
        SetExpr::Not(x) | SetExpr::AllIf(x) => vec![&**x],
        SetExpr::Image {
            rel: Rel2::Shifts(_),
            of,
        } => vec![&**of],
        _ => Vec::new(),
    }
}

/// The sets of a condition where the playout code can use a set computed
/// beforehand (see [`shareable_parts`]); the parts of a condition it
/// recurses into are [`shareable_conds`].
pub(crate) fn shareable_sets(c: &Cond) -> Vec<&SetExpr> {
    match c {
        Cond::NonEmpty(SetExpr::And(v)) if v.iter().any(|x| matches!(x, SetExpr::Ray { .. })) => {
            Vec::new()
        }
        Cond::NonEmpty(s) | Cond::In(_, s) => vec![s],
        _ => Vec::new(),
    }
}

/// The sub-conditions of a condition the playout code recurses into when
/// it uses sets computed beforehand.
pub(crate) fn shareable_conds(c: &Cond) -> Vec<&Cond> {
    match c {
        Cond::Not(x) => vec![&**x],
        Cond::And(v) | Cond::Or(v) => v.iter().collect(),
        _ => Vec::new(),
    }
}

/// Occurrences of `e` in `s` (at the parts [`shareable_parts`] reaches).
pub(crate) fn set_occurrences(s: &SetExpr, e: &SetExpr) -> usize {
    if s == e {
        return 1;
    }
    shareable_parts(s)
        .into_iter()
        .map(|x| set_occurrences(x, e))
        .sum()
}

pub(crate) fn cond_occurrences(c: &Cond, e: &SetExpr) -> usize {
    shareable_sets(c)
        .into_iter()
        .map(|s| set_occurrences(s, e))
        .sum::<usize>()
        + shareable_conds(c)
            .into_iter()
            .map(|x| cond_occurrences(x, e))
            .sum::<usize>()
}

/// Whether a set costs more than a few word operations to compute (it
/// has an image or a fixed point) and depends on the state alone (every
/// fixed-point variable in it is bound in it).
pub(crate) fn worth_sharing(s: &SetExpr) -> bool {
    fn costly(s: &SetExpr) -> bool {
        match s {
            SetExpr::Image { .. } | SetExpr::Fix { .. } => true,
            SetExpr::And(v) | SetExpr::Or(v) => v.iter().any(costly),
            SetExpr::Not(x) | SetExpr::AllIf(x) => costly(x),
            _ => false,
        }
    }
    fn closed(s: &SetExpr, bound: &mut Vec<usize>) -> bool {
        match s {
            SetExpr::FixVar(v) => bound.contains(v),
            SetExpr::Fix { var, body } => {
                bound.push(*var);
                let ok = closed(body, bound);
                bound.pop();
                ok
            }
            SetExpr::And(v) | SetExpr::Or(v) => v.iter().all(|x| closed(x, bound)),
            SetExpr::Not(x) | SetExpr::AllIf(x) => closed(x, bound),
            SetExpr::Image { of, .. } => closed(of, bound),
            SetExpr::Ray { through, .. } => closed(through, bound),
            SetExpr::Empty
            | SetExpr::Universe
            | SetExpr::Mask(_)
            | SetExpr::Fluent(_)
            | SetExpr::Elem(_)
            | SetExpr::Row { .. }
            | SetExpr::Row2 { .. }
            | SetExpr::Tuples { .. }
            | SetExpr::If(_) => true,
        }
    }
    costly(s) && closed(s, &mut Vec::new())
}

pub(crate) fn set_size(s: &SetExpr) -> usize {
    1 + match s {
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().map(set_size).sum(),
        SetExpr::Not(x) | SetExpr::AllIf(x) => set_size(x),
        SetExpr::Image { of, .. } => set_size(of),
        SetExpr::Fix { body, .. } => set_size(body),
        SetExpr::Ray { through, .. } => set_size(through),
        _ => 0,
    }
}

/// The sets a playout in location `loc` would compute more than once per
/// ply: parts (with an image or a fixed point) of the candidate sets of
/// the movers' rules with a set of matches and no sentence (computed in
/// every ply) that occur again in another such set or in a sentence of a
/// mover's label (Reversi's legal placements are the placement rule's
/// candidates and, in `CanB()`, the pass rule's precondition). The largest
/// such parts, smallest first (a set may use the ones before it).
pub(crate) fn shared_sets(
    rules: &[RulePlan],
    conds: &[(String, Cond)],
    loc: &LocPlan,
) -> Vec<SetExpr> {
    let mut every_ply = Vec::new();
    let mut sets = Vec::new();
    let mut sentences = Vec::new();
    for &p in &loc.movers {
        for l in &loc.players[p].labels {
            let r = &rules[l.rule];
            if let Some(c) = r.sentence
                && !sentences.contains(&c)
            {
                sentences.push(c);
            }
            if !l.all && r.has_set() {
                for st in &r.steps {
                    sets.push(&st.cand);
                    if r.sentence.is_none() {
                        every_ply.push(&st.cand);
                    }
                }
            }
        }
    }
    let occurrences = |e: &SetExpr| -> usize {
        sets.iter().map(|s| set_occurrences(s, e)).sum::<usize>()
            + sentences
                .iter()
                .map(|&c| cond_occurrences(&conds[c].1, e))
                .sum::<usize>()
    };
    let mut shared = Vec::new();
    let mut todo: Vec<&SetExpr> = every_ply.into_iter().rev().collect();
    while let Some(s) = todo.pop() {
        if shared.contains(s) {
            continue;
        }
        if worth_sharing(s) && occurrences(s) >= 2 {
            shared.push(s.clone());
            continue;
        }
        todo.extend(shareable_parts(s).into_iter().rev());
    }
    shared.sort_by_key(set_size);
    shared
}
