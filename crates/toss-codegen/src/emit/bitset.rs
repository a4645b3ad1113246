//! Unary relations as bitsets (`Set`, a `Bits<W>`): the fluent ones in
//! the state (`s.rels[i]`, one per fluent unary relation, and `Rels`, a
//! copy of those alone), the stable ones as constant masks (`M<i>`). All
//! the code about them is here: the masks, the sets, the effect of a rule
//! on the bits, reading them from a structure.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::lit::{set_lit, usize_lit};
use crate::plan::{Plan, RulePlan};

/// The constant masks `M<i>`, with what each is and its members.
pub(crate) fn mask_consts(plan: &Plan) -> Vec<TokenStream> {
    plan.masks
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let id = format_ident!("M{}", i);
            let names: Vec<&str> = m
                .members
                .iter()
                .map(|&e| plan.elements[e as usize].as_str())
                .collect();
            let doc = format!(" `m{i}`: {}.\n\n {{{}}}", m.what, names.join(", "));
            let lit = set_lit(plan, m.members.iter().copied());
            quote! {
                #[doc = #doc]
                pub const #id: Set = #lit;
            }
        })
        .collect()
}

/// The constant mask `i` (see [`crate::plan::SetExpr::Mask`]).
pub(crate) fn mask(i: usize) -> TokenStream {
    let m = format_ident!("M{}", i);
    quote! { #m }
}

/// The fluent unary relation `i` (see [`crate::plan::SetExpr::Fluent`]).
pub(crate) fn fluent(i: usize) -> TokenStream {
    let i = usize_lit(i);
    quote! { s.rels[#i] }
}

/// The initial bits of every fluent unary relation.
pub(crate) fn initial_rels(plan: &Plan) -> Vec<TokenStream> {
    plan.fluents
        .iter()
        .map(|f| set_lit(plan, f.initial.iter().copied()))
        .collect()
}

/// The statements of `from_structure` that read the fluent unary
/// relations from the structure `st`.
pub(crate) fn read_structure(plan: &Plan) -> Vec<TokenStream> {
    (plan.fluents.iter().enumerate())
        .map(|(i, f)| {
            let (i, name) = (usize_lit(i), &f.name);
            quote! { s.rels[#i] = ::toss::__private::unary_bits(st, #name); }
        })
        .collect()
}

/// The effect of rule `r` on the fluent bitsets `target` (an array of
/// sets), the images of the left elements given by `elems`: the removals
/// of each fluent as one and-not with the set of the removed elements,
/// then the additions.
pub(crate) fn rels_effect(
    r: &RulePlan,
    target: &TokenStream,
    elems: &[TokenStream],
) -> TokenStream {
    // Fluents in order of first removal, each with its removed elements.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for &(f, e) in &r.removes {
        match groups.iter_mut().find(|(g, _)| *g == f) {
            Some((_, v)) => v.push(e),
            None => groups.push((f, vec![e])),
        }
    }
    // One mask per distinct list of removed elements.
    // One mask per distinct list of several removed elements (a single
    // element is removed by one bit operation, cheaper than building a
    // set of several words).
    let mut masks: Vec<Vec<usize>> = Vec::new();
    for (_, v) in &groups {
        if v.len() > 1 && !masks.contains(v) {
            masks.push(v.clone());
        }
    }
    let mask_defs = masks.iter().enumerate().map(|(i, v)| {
        let m = format_ident!("rm{}", i);
        let singles = v.iter().map(|&e| {
            let x = &elems[e];
            quote! { Set::single(#x) }
        });
        quote! { let #m = #(#singles)|*; }
    });
    let rems = groups.iter().map(|(f, v)| {
        let f = usize_lit(*f);
        if let [e] = v.as_slice() {
            let x = &elems[*e];
            return quote! { #target[#f].remove(#x); };
        }
        let m = format_ident!("rm{}", masks.iter().position(|x| x == v).unwrap_or(0));
        quote! { #target[#f] = #target[#f].and_not(#m); }
    });
    let adds = r.adds.iter().map(|&(f, e)| {
        let (f, x) = (usize_lit(f), &elems[e]);
        quote! { #target[#f].insert(#x); }
    });
    quote! { #(#mask_defs)* #(#rems)* #(#adds)* }
}

/// The effect of a rule applied to all its matches at once as sets (see
/// [`crate::plan::AllEffect::Sets`]): the fluents lose the removed bits of
/// the images `v[e]` of each left element `e`, then gain the added ones.
pub(crate) fn images_effect(r: &RulePlan, v: &syn::Ident) -> TokenStream {
    let rem = r.removes.iter().map(|&(f, e)| {
        let (f, e) = (usize_lit(f), usize_lit(e));
        quote! { s.rels[#f] &= !#v[#e]; }
    });
    let add = r.adds.iter().map(|&(f, e)| {
        let (f, e) = (usize_lit(f), usize_lit(e));
        quote! { s.rels[#f] |= #v[#e]; }
    });
    quote! { #(#rem)* #(#add)* }
}
