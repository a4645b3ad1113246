//! The matchers: per rule `match_<i>` (and `scan_<i>` in join order when
//! that is another order), calling a closure on every match; per rule the
//! counting and selection functions (`count_<i>`, `nth_<i>`, or `set_<i>`
//! for a rule with a set of matches); the loops over a matcher's steps and
//! the test of a postcondition, shared with the playout's prefix trees.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::exprs::{cond_expr, set_expr, set_expr_without};
use super::lit::usize_lit;
use super::state::copy_of_state;
use super::{bitset, shift, table};
use crate::plan::{Bound, Plan, Step};

/// The matchers of every rule.
pub(crate) fn matcher_fns(plan: &Plan, ident: &Ident) -> Vec<TokenStream> {
    (0..plan.rules.len())
        .map(|ri| matcher(plan, ident, ri))
        .collect()
}

/// The counting and selection functions of every rule.
pub(crate) fn counter_fns(plan: &Plan) -> Vec<TokenStream> {
    (0..plan.rules.len()).map(|ri| counters(plan, ri)).collect()
}

/// Whether the postcondition of rule `ri` holds for the match `elems` (the
/// bound variables `e0`, `e1`, ...): a boolean expression. A postcondition
/// that reads only fluent relations is evaluated on the effect applied to
/// a copy of the bitsets (`Rels`); any other on a copy of the whole state.
pub(crate) fn post_holds(plan: &Plan, ri: usize, elems: &[Ident]) -> Option<TokenStream> {
    let r = &plan.rules[ri];
    let c = r.post.as_ref()?;
    let body = cond_expr(plan, c);
    if crate::plan::reads_only_relations(c) {
        let es: Vec<TokenStream> = elems.iter().map(|e| quote! { #e }).collect();
        let fx = bitset::rels_effect(r, &quote! { rels }, &es);
        Some(quote! {
            ({
                let mut rels = s.rels;
                #fx
                let s = &Rels { rels };
                #body
            })
        })
    } else {
        let k = plan.max_lhs();
        let pad = (r.lhs.len()..k).map(|_| quote! { 0 });
        let rl = Literal::u16_unsuffixed(ri as u16);
        let copy = copy_of_state(plan);
        Some(quote! {
            ({
                let after = {
                    let mut t = #copy;
                    apply_rule(&mut t, #rl, &[#(#elems),* #(, #pad)*]);
                    t
                };
                let s = &after;
                #body
            })
        })
    }
}

/// The candidates of a step once the earlier elements are bound, into `n`
/// (its state-only part is `c<elem>`, computed beforehand).
pub(crate) fn step_set(plan: &Plan, st: &Step, cand: &Ident) -> TokenStream {
    let links = st.links.iter().map(table::link);
    let distinct = st.distinct_from.iter().map(|&j| {
        let o = format_ident!("e{}", j);
        quote! { n.remove(#o); }
    });
    // Earlier elements that a link's table leaves out of the candidates
    // (no row of the table holds its own element).
    let skip: Vec<Bound> = st
        .links
        .iter()
        .filter(|l| table::irreflexive(plan, l.table))
        .map(|l| Bound::Left(l.from))
        .collect();
    let sets = st.inner.iter().map(|x| {
        let x = set_expr_without(plan, x, &skip);
        quote! { n &= #x; }
    });
    quote! {
        let mut n = #cand;
        #(#links)*
        #(#distinct)*
        #(#sets)*
    }
}

/// The per-candidate checks of a step (`continue` when one fails).
pub(crate) fn step_checks(plan: &Plan, st: &Step) -> TokenStream {
    let checks = st.checks.iter().map(|x| {
        let x = cond_expr(plan, x);
        quote! {
            if !#x {
                continue;
            }
        }
    });
    quote! { #(#checks)* }
}

/// `inner` in the loops over the candidates of `steps`, outermost first:
/// each binds its left element (`elems[step.elem]`) to the candidates that
/// pass the step's checks.
pub(crate) fn nest_steps(
    plan: &Plan,
    steps: &[Step],
    elems: &[Ident],
    mut inner: TokenStream,
) -> TokenStream {
    for st in steps.iter().rev() {
        let c = format_ident!("c{}", st.elem);
        let e = &elems[st.elem];
        let set = step_set(plan, st, &c);
        let checks = step_checks(plan, st);
        inner = quote! {
            #set
            for #e in n.iter() {
                #checks
                #inner
            }
        };
    }
    inner
}

/// The function enumerating the matches of rule `ri` in any order (where
/// the order does not matter, or the matches are sorted after): `scan_i`,
/// in join order, for a matcher that is not in declaration order, else
/// `match_i`.
pub(crate) fn scan_fn(plan: &Plan, ri: usize) -> Ident {
    if plan.rules[ri].reordered() {
        format_ident!("scan_{}", ri)
    } else {
        format_ident!("match_{}", ri)
    }
}

/// The matcher of rule `ri`: calls `f` on every match in canonical order
/// until it returns false; returns whether it ran to the end. A matcher
/// in another join order than the declaration is `scan_i`, and `match_i`
/// sorts its matches.
pub(crate) fn matcher(plan: &Plan, ident: &Ident, ri: usize) -> TokenStream {
    let r = &plan.rules[ri];
    let k = plan.max_lhs();
    let name = scan_fn(plan, ri);
    let order = if r.reordered() {
        "in join order"
    } else {
        "in canonical order (lexicographic in the left elements)"
    };
    let mut doc = format!(
        " Matches of rule `{}` ({}), {order}, calling `f` on each until it \
         returns false; returns whether it ran to the end. Join order and \
         candidates:",
        r.name,
        r.lhs.join(", ")
    );
    for line in plan.matcher_text(r) {
        doc.push_str(&format!("\n - {line}"));
    }
    if r.interpreted.is_some() {
        let ident = ident.clone();
        let rl = usize_lit(ri);
        let k = usize_lit(k);
        return quote! {
            #[doc = #doc]
            pub fn #name(s: &State, f: &mut impl FnMut([u32; #k]) -> bool) -> bool {
                let view = to_structure(s);
                let mut ms = ::std::vec::Vec::new();
                super::#ident::interpreter().rule_matches(#rl, &view, &mut ms);
                for m in &ms {
                    let mut e = [0u32; #k];
                    e[..m.elems.len()].copy_from_slice(&m.elems);
                    if !f(e) {
                        return false;
                    }
                }
                true
            }
        };
    }
    let cands = r.steps.iter().map(|st| {
        let c = format_ident!("c{}", st.elem);
        let e = set_expr(plan, &st.cand);
        quote! { let #c = #e; }
    });
    let body = if let Some((d, m)) = r.shift {
        let pairs = shift::pairs(m, d);
        let back = shift::back(&format_ident!("e1"), d);
        let pad = (2..k).map(|_| quote! { 0 });
        quote! {
            for e1 in (#pairs & c1).iter() {
                let e0 = #back;
                if !f([e0, e1 #(, #pad)*]) {
                    return false;
                }
            }
            true
        }
    } else {
        let elems: Vec<Ident> = (0..r.lhs.len()).map(|i| format_ident!("e{}", i)).collect();
        // The images, then 0 for the positions of longer rules (a rule
        // without left elements matches once, with no images).
        let items = elems
            .iter()
            .map(|e| quote! { #e })
            .chain((r.lhs.len()..k).map(|_| quote! { 0 }));
        let arr = quote! { [#(#items),*] };
        let post = post_holds(plan, ri, &elems).map(|holds| {
            quote! {
                if !#holds {
                    break 'm;
                }
            }
        });
        let check = r.check_fallback.as_ref().map(|_| {
            let rl = usize_lit(ri);
            quote! {
                let v = view.get_or_insert_with(|| to_structure(s));
                if !super::#ident::interpreter().rule_match_passes(#rl, v, &[#(#elems),*]) {
                    break 'm;
                }
            }
        });
        // With a residual check, matches are counted before it, kept or
        // not, as the interpreter counts them: a check that rejects
        // nearly all cannot make the scan run unbounded (the caller's
        // count of kept matches bounds the rest).
        let counted = post.is_some() || check.is_some();
        let inner = if !counted {
            quote! {
                if !f(#arr) {
                    return false;
                }
            }
        } else {
            let fault = super::locations::matches_fault(plan, ri);
            quote! {
                'm: {
                    seen += 1;
                    if seen > ::toss::__private::limits::MATCHES_PER_RULE.value {
                        limit_fault(#fault);
                        return false;
                    }
                    #post
                    #check
                    if !f(#arr) {
                        return false;
                    }
                }
            }
        };
        let inner = nest_steps(plan, &r.steps, &elems, inner);
        let view = r.check_fallback.as_ref().map(|_| {
            quote! { let mut view: ::core::option::Option<::toss::Structure> = None; }
        });
        let seen = counted.then(|| quote! { let mut seen = 0usize; });
        quote! {
            #view
            #seen
            #inner
            true
        }
    };
    let k = usize_lit(k);
    let scan = quote! {
        #[doc = #doc]
        #[inline]
        pub fn #name(s: &State, f: &mut impl FnMut([u32; #k]) -> bool) -> bool {
            #(#cands)*
            #body
        }
    };
    if !r.reordered() {
        return scan;
    }
    let m = format_ident!("match_{}", ri);
    let doc = format!(
        " Matches of rule `{}` in canonical order: those of `{name}` (in join \
         order), sorted.",
        r.name
    );
    quote! {
        #scan

        #[doc = #doc]
        pub fn #m(s: &State, f: &mut impl FnMut([u32; #k]) -> bool) -> bool {
            let mut ms = ::std::vec::Vec::new();
            #name(s, &mut |e| {
                ms.push(e);
                true
            });
            ms.sort_unstable();
            ms.into_iter().all(f)
        }
    }
}

/// Per rule: `count_i` (the number of matches) and `nth_i` (the match of
/// rank `k` in canonical order). Rules with one left element, or two linked
/// by a grid step, have a set of matches (`set_i`): counting is a popcount
/// and selection a bit select.
pub(crate) fn counters(plan: &Plan, ri: usize) -> TokenStream {
    let r = &plan.rules[ri];
    let k = usize_lit(plan.max_lhs());
    let pad: Vec<TokenStream> = (r.lhs.len().max(1)..plan.max_lhs())
        .map(|_| quote! { 0 })
        .collect();
    let set_name = format_ident!("set_{}", ri);
    let count = format_ident!("count_{}", ri);
    let nth = format_ident!("nth_{}", ri);
    let m = format_ident!("match_{}", ri);
    let scan = scan_fn(plan, ri);
    let cands = r.steps.iter().map(|st| {
        let c = format_ident!("c{}", st.elem);
        let e = set_expr(plan, &st.cand);
        quote! { let #c = #e; }
    });
    let simple = if !r.plain() {
        None
    } else if r.lhs.len() == 1 {
        Some((quote! { c0 }, quote! { [e #(, #pad)*] }))
    } else if let Some((d, mask)) = r.shift {
        let pairs = shift::pairs(mask, d);
        let back = shift::back(&format_ident!("e"), d);
        Some((quote! { (#pairs & c1) }, quote! { [#back, e #(, #pad)*] }))
    } else {
        None
    };
    match simple {
        Some((set, elems)) => {
            let doc = format!(
                " The matches of rule `{}` as a set of elements (of its last left \
                 element).",
                r.name
            );
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #set_name(s: &State) -> Set {
                    #(#cands)*
                    #set
                }
                /// The match of rank `k` in the set of matches `set`.
                #[inline]
                pub fn #nth(set: &Set, k: u32) -> [u32; #k] {
                    let e = set.nth(k);
                    #elems
                }
            }
        }
        None => {
            let doc = format!(" The number of matches of rule `{}`.", r.name);
            let nth_fn = if r.last_step_counted() {
                // Whole candidate sets of the last step are skipped.
                let last = &r.steps[r.steps.len() - 1];
                let elems: Vec<Ident> = (0..r.lhs.len()).map(|i| format_ident!("e{}", i)).collect();
                let pad = (r.lhs.len()..plan.max_lhs()).map(|_| quote! { 0 });
                let le = &elems[last.elem];
                let set = step_set(plan, last, &format_ident!("c{}", last.elem));
                let inner = quote! {
                    #set
                    let c = n.count();
                    if k < c {
                        let #le = n.nth(k);
                        return [#(#elems),* #(, #pad)*];
                    }
                    k -= c;
                };
                let inner = nest_steps(plan, &r.steps[..r.steps.len() - 1], &elems, inner);
                let cands = r.steps.iter().map(|st| {
                    let c = format_ident!("c{}", st.elem);
                    let e = set_expr(plan, &st.cand);
                    quote! { let #c = #e; }
                });
                quote! {
                    /// The match of rank `k` in canonical order: the
                    /// candidates of the last left element are counted per
                    /// binding of the earlier ones, and skipped as a whole.
                    #[inline]
                    pub fn #nth(s: &State, mut k: u32) -> [u32; #k] {
                        #(#cands)*
                        #inner
                        [0; #k]
                    }
                }
            } else {
                quote! {
                    /// The match of rank `k` in canonical order.
                    #[inline]
                    pub fn #nth(s: &State, mut k: u32) -> [u32; #k] {
                        let mut out = [0; #k];
                        #m(s, &mut |e| {
                            if k == 0 {
                                out = e;
                                false
                            } else {
                                k -= 1;
                                true
                            }
                        });
                        out
                    }
                }
            };
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #count(s: &State) -> u32 {
                    let mut n = 0;
                    #scan(s, &mut |_| {
                        n += 1;
                        true
                    });
                    n
                }
                #nth_fn
            }
        }
    }
}
