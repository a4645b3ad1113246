//! The effects: `apply_rule` (the effect of a rule on a match, on the
//! fluent bitsets, the other fluent relations and the fluent functions, or
//! by the interpreter), `apply_all` and its helpers for labels of
//! multiplicity `inf`, and `apply` (a joint move: the next location, then
//! the moves in mover order).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::exprs::num_expr;
use super::lit::usize_lit;
use super::matchers::scan_fn;
use super::state::copy_of_state;
use super::{bitset, locations, tuples};
use crate::plan::{AllEffect, Plan};

/// Whether update values are computed on the state before the ply
/// (`src`): with fluent functions, a ply that applies several matches (a
/// label of multiplicity `inf`, or several movers) computes every update
/// value on the state before it, as the interpreter does.
fn from_src(plan: &Plan) -> bool {
    let multi_match = plan.rules.iter().any(|r| r.all.is_some())
        || plan.locations.iter().any(|l| l.movers.len() > 1);
    !plan.funs.is_empty() && multi_match
}

/// Whether some label has multiplicity `inf`.
pub(crate) fn any_all(plan: &Plan) -> bool {
    plan.locations
        .iter()
        .flat_map(|loc| &loc.players)
        .any(|pl| pl.labels.iter().any(|l| l.all))
}

/// The arms of `apply_rule` (or `apply_rule_from`), one per rule.
fn effect_arms(plan: &Plan, ident: &Ident) -> Vec<TokenStream> {
    let from_src = from_src(plan);
    // The structure has no history: keep the state's.
    let (take_history, put_history) = match plan.repetition {
        Some(_) => (
            quote! { let history = ::core::mem::take(&mut s.history); },
            quote! { s.history = history; },
        ),
        None => (quote! {}, quote! {}),
    };
    plan.rules
        .iter()
        .enumerate()
        .map(|(ri, r)| {
            let rl = usize_lit(ri);
            if r.effect_fallback.is_some() {
                let len = usize_lit(r.lhs.len());
                return quote! {
                    #rl => {
                        let mut v = to_structure(s);
                        super::#ident::interpreter().apply_rule_match(#rl, &mut v, &e[..#len]);
                        let location = s.location;
                        #take_history
                        *s = from_structure(&v);
                        s.location = location;
                        #put_history
                    }
                };
            }
            let ri = rl;
            let names: Vec<Ident> = (0..r.lhs.len()).map(|i| format_ident!("e{}", i)).collect();
            let idx = (0..r.lhs.len()).map(usize_lit);
            let binds = if r.updates.is_empty() {
                quote! {}
            } else {
                quote! { #(let #names = e[#idx];)* }
            };
            let vals: Vec<Ident> = (0..r.updates.len())
                .map(|i| format_ident!("u{}", i))
                .collect();
            // Update values read the state before the joint move (`src`,
            // spec 1.2) when a ply applies several matches; else `s` itself,
            // which no effect has changed yet.
            let src_of = (from_src && !r.updates.is_empty()).then(|| {
                quote! { let src: &State = match src { Some(x) => x, None => &*s }; }
            });
            let computes = r.updates.iter().zip(&vals).map(|((_, _, v), u)| {
                let v = num_expr(plan, v, false);
                if from_src {
                    quote! { let #u = { let s: &State = src; #v }; }
                } else {
                    quote! { let #u = #v; }
                }
            });
            let sets = r.updates.iter().zip(&vals).map(|((f, el, _), u)| {
                let (f, el) = (usize_lit(*f), usize_lit(*el));
                quote! { s.funs[#f][e[#el] as usize] = #u; }
            });
            let es: Vec<TokenStream> = (0..r.lhs.len())
                .map(|i| {
                    let i = usize_lit(i);
                    quote! { e[#i] }
                })
                .collect();
            let fx = bitset::rels_effect(r, &quote! { s.rels }, &es);
            let tx = tuples::tuples_effect(plan, r, &es);
            quote! { #ri => { #binds #src_of #(#computes)* #fx #tx #(#sets)* } }
        })
        .collect()
}

/// `label_all`, `apply_all` and `all_matches`, when some label has
/// multiplicity `inf`.
fn all_fns(plan: &Plan) -> Option<TokenStream> {
    let k = usize_lit(plan.max_lhs());
    let from_src = from_src(plan);
    // Labels with multiplicity inf: one move with every match, found in
    // the state before the joint move.
    let mut all_label_arms = Vec::new();
    for (li, loc) in plan.locations.iter().enumerate() {
        for (p, pl) in loc.players.iter().enumerate() {
            for (lb, l) in pl.labels.iter().enumerate() {
                if l.all {
                    let (li, p, lb) = (
                        usize_lit(li),
                        usize_lit(p),
                        Literal::u16_unsuffixed(lb as u16),
                    );
                    all_label_arms.push(quote! { (#li, #p, #lb) => true, });
                }
            }
        }
    }
    let any_all = !all_label_arms.is_empty();
    let all_rules: Vec<usize> = (0..plan.rules.len())
        .filter(|&ri| plan.rules[ri].all.is_some())
        .collect();
    let all_effect_arms = all_rules.iter().map(|&ri| {
        let r = &plan.rules[ri];
        let m = format_ident!("match_{}", ri);
        let rl = usize_lit(ri);
        match &r.all {
            Some(AllEffect::Sets) => {
                // Sets of images: the order of the matches does not matter.
                let m = scan_fn(plan, ri);
                let nl = usize_lit(r.lhs.len());
                let ins = (0..r.lhs.len()).map(|i| {
                    let i = usize_lit(i);
                    quote! { r[#i].insert(e[#i]); }
                });
                let fx = bitset::images_effect(r, &format_ident!("r"));
                quote! {
                    #rl => {
                        let mut r = [Set::EMPTY; #nl];
                        #m(before, &mut |e| {
                            #(#ins)*
                            true
                        });
                        #fx
                    }
                }
            }
            _ => {
                let rl16 = Literal::u16_unsuffixed(ri as u16);
                let apply_one = if from_src {
                    quote! { apply_rule_from(s, Some(before), #rl16, e); }
                } else {
                    quote! { apply_rule(s, #rl16, e); }
                };
                quote! {
                    #rl => {
                        let mut ms = ::std::vec::Vec::new();
                        #m(before, &mut |e| {
                            ms.push(e);
                            true
                        });
                        for e in &ms {
                            #apply_one
                        }
                    }
                }
            }
        }
    });
    let all_list_arms = all_rules.iter().map(|&ri| {
        let m = format_ident!("match_{}", ri);
        let rl = usize_lit(ri);
        quote! {
            #rl => {
                #m(s, &mut |e| {
                    out.push(e);
                    true
                });
            }
        }
    });
    any_all.then(|| {
        quote! {
            /// Whether `player`'s label `label` in `location` has
            /// multiplicity `inf` (one move with every match).
            pub fn label_all(location: usize, player: usize, label: u16) -> bool {
                match (location, player, label) {
                    #(#all_label_arms)*
                    _ => false,
                }
            }

            /// Applies rule `rule` to all its matches in `before` (the
            /// state before the joint move), as the interpreter does: one
            /// after the other in canonical order, or as sets when that is
            /// the same (see the plan).
            pub fn apply_all(s: &mut State, before: &State, rule: u16) {
                match rule as usize {
                    #(#all_effect_arms)*
                    _ => {}
                }
            }

            /// The matches of rule `rule` in canonical order (the rules
            /// some label applies to all matches at once).
            pub fn all_matches(s: &State, rule: u16, out: &mut ::std::vec::Vec<[u32; #k]>) {
                out.clear();
                match rule as usize {
                    #(#all_list_arms)*
                    _ => {}
                }
            }
        }
    })
}

/// `apply_rule` (and `apply_rule_from`), `apply_all` and its helpers, and
/// `apply`.
/// `record_position`, with REPETITION: sets the count to the number of
/// earlier positions of the play equal to the current one, and records it.
/// A position's fingerprint mixes the location with the fluent parts the
/// game lists (their bitsets, tuples and values' bits).
fn record_position_fn(plan: &Plan) -> Option<TokenStream> {
    let rep = plan.repetition.as_ref()?;
    let unary = rep.unary.iter().map(|&i| usize_lit(i));
    let tuples = rep.tuples.iter().map(|&i| super::tuples::tuples_field(i));
    let funs = rep.funs.iter().map(|&i| usize_lit(i));
    let (count, element) = (usize_lit(rep.count), usize_lit(rep.element as usize));
    Some(quote! {
        /// REPETITION: sets the count to the number of earlier positions
        /// of the play equal to this one, and records this one.
        pub fn record_position(s: &mut State) {
            let mut h = ::toss::__private::PositionHasher::new();
            h.word(s.location as u64);
            #( ::core::hash::Hash::hash(&s.rels[#unary], &mut h); )*
            #( ::core::hash::Hash::hash(&s.#tuples, &mut h); )*
            #( for v in s.funs[#funs].iter() { h.word(v.to_bits()); } )*
            let seen = s.history.record(h.finish128());
            s.funs[#count][#element] = seen as f64;
        }
    })
}

pub(crate) fn effect_fns(plan: &Plan, ident: &Ident) -> TokenStream {
    let k = usize_lit(plan.max_lhs());
    let from_src = from_src(plan);
    let any_all = any_all(plan);
    let effect_arms = effect_arms(plan, ident);
    let all_fns = all_fns(plan);
    let target_arms = locations::target_arms(plan);
    let apply_rule_fns = if from_src {
        quote! {
            /// Applies the effect of a rule on a match.
            #[inline]
            pub fn apply_rule(s: &mut State, rule: u16, e: &[u32; #k]) {
                apply_rule_from(s, None, rule, e)
            }

            /// Applies the effect of a rule on a match, its update values
            /// computed on `src` (the state before the ply) when given.
            #[inline]
            pub fn apply_rule_from(s: &mut State, src: Option<&State>, rule: u16, e: &[u32; #k]) {
                match rule as usize {
                    #(#effect_arms)*
                    _ => {}
                }
            }
        }
    } else {
        quote! {
            /// Applies the effect of a rule on a match.
            #[inline]
            pub fn apply_rule(s: &mut State, rule: u16, e: &[u32; #k]) {
                match rule as usize {
                    #(#effect_arms)*
                    _ => {}
                }
            }
        }
    };
    let copy = copy_of_state(plan);
    let apply_one = if from_src {
        quote! { apply_rule_from(s, Some(&before), m.rule, &m.elems); }
    } else {
        quote! { apply_rule(s, m.rule, &m.elems); }
    };
    let apply_moves = if any_all {
        quote! {
            let before = #copy;
            for (m, &p) in joint.iter().zip(label_players(before.location)) {
                if label_all(before.location, p, m.label) {
                    apply_all(s, &before, m.rule);
                } else {
                    #apply_one
                }
            }
        }
    } else if from_src {
        quote! {
            let before = #copy;
            for m in joint {
                #apply_one
            }
        }
    } else {
        quote! {
            for m in joint {
                apply_rule(s, m.rule, &m.elems);
            }
        }
    };
    let record_fn = record_position_fn(plan);
    quote! {
        #apply_rule_fns

        #record_fn

        #all_fns

        /// Applies a joint move: the first mover's label picks the
        /// next location (drawn with `rng` when it has several edges),
        /// then the moves are applied in mover order.
        #[inline]
        pub fn apply(s: &mut State, joint: &[Move], rng: &mut ::toss::Rng) {
            if joint.is_empty() {
                return;
            }
            let next = match s.location {
                #(#target_arms)*
                _ => s.location,
            };
            let _ = rng;
            #apply_moves
            s.location = next;
        }
    }
}
