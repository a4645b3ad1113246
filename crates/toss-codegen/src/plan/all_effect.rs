//! Pass: how a label of multiplicity `inf` applies its rule to all its
//! matches at once ([`AllEffect`]).

use super::visit::disjoint;
use super::{AllEffect, RulePlan};

/// How rule `r` is applied to all its matches at once (see [`AllEffect`]).
pub(crate) fn all_effect(r: &RulePlan) -> AllEffect {
    if let Some(why) = &r.effect_fallback {
        return AllEffect::Sequential(format!("the effect is interpreted: {why}"));
    }
    if !r.updates.is_empty() {
        return AllEffect::Sequential("it updates functions".into());
    }
    if !r.tuple_removes.is_empty() || !r.tuple_adds.is_empty() {
        return AllEffect::Sequential("it changes a fluent relation of arity other than 1".into());
    }
    if r.interpreted.is_some() {
        return AllEffect::Sequential("the matches are interpreted".into());
    }
    for (i, a) in r.steps.iter().enumerate() {
        for b in &r.steps[..i] {
            if !disjoint(&a.cand, &b.cand) {
                return AllEffect::Sequential(format!(
                    "{} and {} may match one element",
                    r.lhs[b.elem], r.lhs[a.elem]
                ));
            }
        }
    }
    AllEffect::Sets
}
