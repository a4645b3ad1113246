//! The playout: `random_playout` (with a copy compiled for the bit
//! instructions) and its loop, one arm per location: the moves of every
//! mover counted without listing them (a rule with a set of matches by a
//! popcount, the labels of a shared-prefix tree in one enumeration of the
//! tree, the others by listing their matches), the drawn move selected,
//! labels of multiplicity `inf` applied in place where they can be.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::exprs::{cond_expr_shared, set_expr, set_expr_shared};
use super::lit::usize_lit;
use super::matchers::{post_holds, scan_fn, step_checks, step_set};
use super::{bitset, shift};
use crate::plan::{
    AllEffect, LabelPlan, LocPlan, Plan, PlayerPlan, PrefixNode, SetExpr, cond_occurrences,
    set_occurrences,
};

/// Whether a ply can continue a turn (`Game::continues_turn`): a label of
/// a location's mover leads where one of its movers is the only mover (the
/// runtime's `analysis::has_compound_turns`, on the plan).
pub(crate) fn compound_turns(plan: &Plan) -> bool {
    plan.players.len() > 1
        && plan.locations.iter().any(|loc| {
            loc.movers.iter().any(|&p| {
                loc.players[p].labels.iter().any(|l| {
                    (l.targets.iter()).any(|&(t, _)| {
                        plan.locations.get(t).is_some_and(|to| {
                            to.movers.len() == 1 && loc.movers.contains(&to.movers[0])
                        })
                    })
                })
            })
        })
}

/// `random_playout` and its body.
pub(crate) fn playout_fns(plan: &Plan) -> TokenStream {
    let k = usize_lit(plan.max_lhs());
    let compound_turns = compound_turns(plan);
    let playout_arms: Vec<TokenStream> = (0..plan.locations.len())
        .map(|li| playout_arm(plan, li))
        .collect();
    // Every ply is a turn, unless some ply can continue one: then a ply by
    // the previous ply's single mover does not count.
    let record = plan
        .repetition
        .is_some()
        .then(|| quote! { record_position(s); });
    let playout_loop = if compound_turns {
        quote! {
            let mut before: &'static [usize] = &[];
            // Plies of the current turn so far: a turn past the limit of
            // plies per turn is a fault, as in `Game::random_playout_from`.
            let mut turn_plies = 0usize;
            'play: loop {
                let movers = label_players(s.location);
                let continued = movers.len() == 1 && before.contains(&movers[0]);
                if continued && turn_plies >= ::toss::__private::limits::PLIES_PER_TURN.value {
                    limit_fault(&::toss::__private::turn_fault());
                    break 'play;
                }
                if !continued {
                    if turns >= max_turns {
                        break 'play;
                    }
                    turn_plies = 0;
                }
                let nm: usize = match s.location {
                    #(#playout_arms)*
                    _ => break 'play,
                };
                apply(s, &joint[..nm], rng);
                #record
                turn_plies += 1;
                if !continued {
                    turns += 1;
                }
                before = movers;
            }
        }
    } else {
        quote! {
            'play: while turns < max_turns {
                let nm: usize = match s.location {
                    #(#playout_arms)*
                    _ => break 'play,
                };
                apply(s, &joint[..nm], rng);
                #record
                turns += 1;
            }
        }
    };

    let found_decl = (0..plan.locations.len())
        .any(|li| uses_found(plan, li))
        .then(|| {
            quote! {
                // Matches of rules without a set of matches, listed per ply.
                let mut found: ::std::vec::Vec<[u32; #k]> = ::std::vec::Vec::new();
            }
        });
    let sets_decl = (0..plan.locations.len())
        .any(|li| uses_sets(plan, li))
        .then(|| {
            quote! {
                // Per ply, the candidate sets of the last step of labels
                // counted by popcounts, with the label's tag and the
                // earlier elements.
                let mut sets: ::std::vec::Vec<(u16, [u32; #k], Set)> = ::std::vec::Vec::new();
            }
        });
    let max_movers = usize_lit(
        plan.locations
            .iter()
            .map(|l| l.movers.len())
            .max()
            .unwrap_or(0)
            .max(1),
    );
    quote! {
        /// A random playout from `s`, drawing exactly as the default
        /// `Game::random_playout_from` does (one number per mover, the
        /// move of rank `index_below(number of legal moves)`), without
        /// listing the moves: they are counted per label and the chosen
        /// one is selected. On an x86-64 processor with the bit
        /// instructions (`popcnt`, `bmi1`, `bmi2`, `lzcnt`) it runs a
        /// copy compiled for them; both copies compute the same.
        pub fn random_playout(
            s: &mut State,
            rng: &mut ::toss::Rng,
            max_turns: usize,
        ) -> (usize, ::toss::Payoffs) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
                fn with_bit_instructions(
                    s: &mut State,
                    rng: &mut ::toss::Rng,
                    max_turns: usize,
                ) -> (usize, ::toss::Payoffs) {
                    random_playout_body(s, rng, max_turns)
                }
                if ::toss::__private::has_bit_instructions() {
                    // SAFETY: the processor has the features the copy is
                    // compiled for (checked just above).
                    return unsafe { with_bit_instructions(s, rng, max_turns) };
                }
            }
            random_playout_body(s, rng, max_turns)
        }

        /// The body of [`random_playout`], inlined into each copy.
        #[inline(always)]
        fn random_playout_body(
            s: &mut State,
            rng: &mut ::toss::Rng,
            max_turns: usize,
        ) -> (usize, ::toss::Payoffs) {
            let mut turns = 0;
            let mut pay = ::toss::Payoffs::from_elem(0.0, PLAYERS.len());
            // Past a resource limit every state is terminal.
            if LIMIT_FAULT.get().is_some() {
                payoffs(s, &mut pay);
                return (turns, pay);
            }
            let mut joint = [Move { label: 0, rule: 0, elems: [0; #k] }; #max_movers];
            #found_decl
            #sets_decl
            #playout_loop
            payoffs(s, &mut pay);
            (turns, pay)
        }
    }
}

/// The counts, picks and effects applied in place of a label (see
/// [`label_code`]).
type LabelCode = (
    Vec<TokenStream>,
    Vec<TokenStream>,
    Vec<(Literal, TokenStream)>,
);

/// The set of matches of rule `ri` (with a set of matches, see
/// [`counters`]) computed in place with the sets `sh` computed beforehand
/// (see [`set_expr_shared`]); `None` when its candidates use none of them
/// (the playout calls `set_<ri>`).
pub(crate) fn set_of_matches_shared(plan: &Plan, ri: usize, sh: &[SetExpr]) -> Option<TokenStream> {
    let r = &plan.rules[ri];
    if !r
        .steps
        .iter()
        .any(|st| sh.iter().any(|x| set_occurrences(&st.cand, x) > 0))
    {
        return None;
    }
    let cands = r.steps.iter().map(|st| {
        let c = format_ident!("c{}", st.elem);
        let e = set_expr_shared(plan, &st.cand, sh);
        quote! { let #c = #e; }
    });
    let set = match r.shift {
        Some((d, mask)) if r.lhs.len() != 1 => {
            let pairs = shift::pairs(mask, d);
            quote! { (#pairs & c1) }
        }
        _ => quote! { c0 },
    };
    Some(quote! { ({ #(#cands)* #set }) })
}

/// Whether rule `ri` has a set of matches (see [`counters`]).
pub(crate) fn has_set(plan: &Plan, ri: usize) -> bool {
    plan.rules[ri].has_set()
}

/// Whether some mover's label in location `li` has no set of matches (its
/// matches are listed in the playout loop).
pub(crate) fn uses_found(plan: &Plan, li: usize) -> bool {
    let loc = &plan.locations[li];
    loc.movers
        .iter()
        .flat_map(|&p| &loc.players[p].labels)
        .any(|l| !l.all && !has_set(plan, l.rule) && !plan.rules[l.rule].in_prefix_tree())
}

/// Whether some mover's label in location `li` keeps the candidate sets of
/// its last step (in `sets`) while it is counted.
pub(crate) fn uses_sets(plan: &Plan, li: usize) -> bool {
    let loc = &plan.locations[li];
    loc.movers
        .iter()
        .flat_map(|&p| &loc.players[p].labels)
        .any(|l| !l.all && plan.rules[l.rule].last_step_counted())
}

/// The counting code of a shared-prefix forest of mover `mi` (player
/// `pl`): each node binds its left element once for every label through
/// it; a label ending at a node adds the popcount of the node's candidates
/// (no per-candidate checks or postcondition) or one per candidate that
/// passes them, into `n<mi>_<label>`. The state-only parts of the
/// candidate sets go into `hoisted`, computed once before the loops.
pub(crate) fn prefix_code(
    plan: &Plan,
    pl: &PlayerPlan,
    mi: usize,
    tags: usize,
    nodes: &[PrefixNode],
    hoisted: &mut Vec<TokenStream>,
) -> TokenStream {
    let mut out = Vec::new();
    for node in nodes {
        let r = &plan.rules[node.rule];
        let st = &r.steps[node.depth];
        let c = format_ident!("p{}", hoisted.len());
        let cand = set_expr(plan, &st.cand);
        hoisted.push(quote! { let #c = #cand; });
        let set = step_set(plan, st, &c);
        // `body` (with `#n` the label's count) when the label's sentence
        // holds.
        let guard = |lb: usize, body: &dyn Fn(&Ident) -> TokenStream| {
            let n = format_ident!("n{}_{}", mi, lb);
            let body = body(&n);
            match plan.rules[pl.labels[lb].rule].sentence {
                Some(cd) => {
                    let ok = format_ident!("ok{}", cd);
                    quote! {
                        if #ok {
                            #body
                        }
                    }
                }
                None => body,
            }
        };
        let mut counted = Vec::new();
        let mut per_match = Vec::new();
        for &lb in &node.ends {
            let ri = pl.labels[lb].rule;
            if plan.rules[ri].last_step_counted() {
                // The candidate set is kept (tagged with the label) for
                // selecting the drawn match without enumerating again.
                let tag = Literal::u16_unsuffixed((tags + lb) as u16);
                let pre = (0..plan.max_lhs()).map(|i| {
                    if i < node.depth {
                        let e = format_ident!("e{}", i);
                        quote! { #e }
                    } else {
                        quote! { 0 }
                    }
                });
                let pre: Vec<TokenStream> = pre.collect();
                let add = guard(lb, &|n| {
                    quote! {
                        sets.push((#tag, [#(#pre),*], n));
                        #n += c;
                    }
                });
                counted.push(quote! {
                    let c = n.count();
                    if c > 0 {
                        #add
                    }
                });
            } else {
                let elems: Vec<Ident> = (0..plan.rules[ri].lhs.len())
                    .map(|i| format_ident!("e{}", i))
                    .collect();
                let add = guard(lb, &|n| quote! { #n += 1; });
                per_match.push(match post_holds(plan, ri, &elems) {
                    Some(holds) => quote! {
                        if #holds {
                            #add
                        }
                    },
                    None => add,
                });
            }
        }
        let children = prefix_code(plan, pl, mi, tags, &node.children, hoisted);
        let each = if per_match.is_empty() && node.children.is_empty() {
            quote! {}
        } else {
            let e = format_ident!("e{}", st.elem);
            let checks = step_checks(plan, st);
            quote! {
                for #e in n.iter() {
                    #checks
                    #(#per_match)*
                    #children
                }
            }
        };
        out.push(quote! {
            {
                #set
                #(#counted)*
                #each
            }
        });
    }
    quote! { #(#out)* }
}

/// One location's part of the playout loop: count every mover's moves
/// (terminal if one has none), then draw one move per mover in order.
fn playout_arm(plan: &Plan, li: usize) -> TokenStream {
    let loc = &plan.locations[li];
    let lit = usize_lit(li);
    if loc.movers.is_empty() {
        return quote! { #lit => break 'play, };
    }
    let mut conds: Vec<usize> = loc
        .movers
        .iter()
        .flat_map(|&p| &loc.players[p].labels)
        .filter_map(|l| plan.rules[l.rule].sentence)
        .collect();
    conds.sort_unstable();
    conds.dedup();
    // Sets used more than once per ply, computed once.
    let sh = &loc.shared;
    let shared = sh.iter().enumerate().map(|(i, e)| {
        let v = format_ident!("sh{}", i);
        let e = set_expr_shared(plan, e, &sh[..i]);
        quote! { let #v = #e; }
    });
    let pre = conds.iter().map(|&c| {
        let v = format_ident!("ok{}", c);
        if sh.iter().any(|x| cond_occurrences(&plan.conds[c].1, x) > 0) {
            let e = cond_expr_shared(plan, &plan.conds[c].1, sh);
            return quote! { let #v = #e; };
        }
        let f = format_ident!("c{}", c);
        quote! { let #v = #f(s); }
    });
    let mut counts = Vec::new();
    let mut draws = Vec::new();
    // Labels of multiplicity inf applied in place: (label, effect).
    let mut direct: Vec<(Literal, TokenStream)> = Vec::new();
    // Tags of the candidate sets kept in `sets`: the labels of the
    // location's movers, numbered in order.
    let mut tags = 0;
    for (mi, &p) in loc.movers.iter().enumerate() {
        let labels = &loc.players[p].labels;
        let mut totals = Vec::new();
        let mut picks = Vec::new();
        for (lb, l) in labels.iter().enumerate() {
            let (c, p, d) = label_code(plan, loc, (mi, lb), l, tags, sh);
            counts.extend(c);
            picks.extend(p);
            direct.extend(d);
            totals.push(format_ident!("n{}_{}", mi, lb));
        }
        let pl = &loc.players[p];
        if !pl.prefixes.is_empty() {
            let mut hoisted = Vec::new();
            let tree = prefix_code(plan, pl, mi, tags, &pl.prefixes, &mut hoisted);
            counts.push(quote! {
                {
                    #(#hoisted)*
                    #tree
                }
            });
        }
        tags += labels.len();
        let total = format_ident!("t{}", mi);
        counts.push(quote! {
            let #total: u32 = #(#totals)+*;
            if #total == 0 {
                break 'play;
            }
        });
        let mi_lit = usize_lit(mi);
        draws.push(quote! {
            joint[#mi_lit] = 'pick: {
                let mut k = ::toss::__private::index_below(rng, #total as usize) as u32;
                #(#picks)*
                let _ = k;
                ::core::unreachable!("a move of rank below the count")
            };
        });
    }
    let nm = usize_lit(loc.movers.len());
    // The number of moves left for `apply`: none when the drawn move was
    // applied in place.
    let mut applied = quote! { #nm };
    for (lbl, effect) in direct.into_iter().rev() {
        applied = quote! {
            if joint[0].label == #lbl {
                #effect
                0
            } else {
                #applied
            }
        };
    }
    let clear = uses_found(plan, li).then(|| quote! { found.clear(); });
    let clear_sets = uses_sets(plan, li).then(|| quote! { sets.clear(); });
    quote! {
        #lit => {
            #clear
            #clear_sets
            #(#shared)*
            #(#pre)*
            #(#counts)*
            #(#draws)*
            #applied
        }
    }
}

/// The code of label `lb` (`l`) of mover `mi` in location `loc`: the
/// statements counting its moves into `n<mi>_<lb>`, the selection of the
/// drawn one, and the effects of labels applied in place. `tags` numbers
/// the candidate sets kept in `sets`; `sh` are the sets computed once per
/// ply.
fn label_code(
    plan: &Plan,
    loc: &LocPlan,
    (mi, lb): (usize, usize),
    l: &LabelPlan,
    tags: usize,
    sh: &[SetExpr],
) -> LabelCode {
    let k = usize_lit(plan.max_lhs());
    let mut counts = Vec::new();
    let mut picks = Vec::new();
    let mut direct = Vec::new();
    let n = format_ident!("n{}_{}", mi, lb);
    let set = format_ident!("s{}_{}", mi, lb);
    let ok = plan.rules[l.rule]
        .sentence
        .map(|c| format_ident!("ok{}", c));
    let nth = format_ident!("nth_{}", l.rule);
    let (lbl, rl) = (
        Literal::u16_unsuffixed(lb as u16),
        Literal::u16_unsuffixed(l.rule as u16),
    );
    let r = &plan.rules[l.rule];
    if l.all && loc.movers.len() == 1 && l.targets.len() == 1 && r.all == Some(AllEffect::Sets) {
        let (count, pick, d) = all_in_place(plan, l, mi, lb);
        counts.push(count);
        picks.push(pick);
        direct.push(d);
    } else if l.all {
        // One move with every match, when there is one.
        let m = scan_fn(plan, l.rule);
        let any = quote! { !#m(s, &mut |_| false) };
        let any = match &ok {
            Some(ok) => quote! { (#ok && #any) },
            None => any,
        };
        counts.push(quote! {
            let #n: u32 = if #any { 1 } else { 0 };
        });
        picks.push(quote! {
            if k < #n {
                break 'pick Move { label: #lbl, rule: #rl, elems: [0; #k] };
            }
            k -= #n;
        });
    } else if plan.rules[l.rule].last_step_counted() {
        // Counted in the shared-prefix tree below, which keeps the
        // candidate sets of the last step: the drawn match is
        // selected by skipping whole sets of the label.
        let tag = Literal::u16_unsuffixed((tags + lb) as u16);
        let last = usize_lit(plan.rules[l.rule].steps.len() - 1);
        counts.push(quote! { let mut #n: u32 = 0; });
        picks.push(quote! {
            if k < #n {
                for &(t, pre, set) in sets.iter() {
                    if t == #tag {
                        let c = set.count();
                        if k < c {
                            let mut elems = pre;
                            elems[#last] = set.nth(k);
                            break 'pick Move { label: #lbl, rule: #rl, elems };
                        }
                        k -= c;
                    }
                }
                ::core::unreachable!("a kept set holds the match of the drawn rank");
            }
            k -= #n;
        });
    } else if plan.rules[l.rule].in_prefix_tree() {
        // Counted in the shared-prefix tree below; the drawn
        // match is selected in the rule's own matcher.
        counts.push(quote! { let mut #n: u32 = 0; });
        picks.push(quote! {
            if k < #n {
                break 'pick Move { label: #lbl, rule: #rl, elems: #nth(s, k) };
            }
            k -= #n;
        });
    } else if has_set(plan, l.rule) {
        let f = format_ident!("set_{}", l.rule);
        let f = set_of_matches_shared(plan, l.rule, sh).unwrap_or(quote! { #f(s) });
        let get = match &ok {
            Some(ok) => quote! { if #ok { #f } else { Set::EMPTY } },
            None => quote! { #f },
        };
        counts.push(quote! {
            let #set = #get;
            let #n = #set.count();
        });
        picks.push(quote! {
            if k < #n {
                break 'pick Move { label: #lbl, rule: #rl, elems: #nth(&#set, k) };
            }
            k -= #n;
        });
    } else {
        // The matches are listed once (into `found`, shared by the
        // labels of the location), then the drawn one is taken; a
        // matcher in another order than the declaration's lists
        // them in join order, then sorts them.
        let m = scan_fn(plan, l.rule);
        let start = format_ident!("b{}_{}", mi, lb);
        let sort = plan.rules[l.rule]
            .reordered()
            .then(|| quote! { found[#start..].sort_unstable(); });
        let fault = super::locations::matches_fault(plan, l.rule);
        let list = quote! {
            if !#m(s, &mut |e| {
                if found.len() - #start >= ::toss::__private::limits::MATCHES_PER_RULE.value {
                    return false;
                }
                found.push(e);
                true
            }) {
                // Past the limit: the play stops, and later ones at once.
                limit_fault(#fault);
                break 'play;
            }
            #sort
        };
        let list = match &ok {
            Some(ok) => quote! { if #ok { #list } },
            None => list,
        };
        counts.push(quote! {
            let #start = found.len();
            #list
            let #n = (found.len() - #start) as u32;
        });
        picks.push(quote! {
            if k < #n {
                break 'pick Move { label: #lbl, rule: #rl, elems: found[#start + k as usize] };
            }
            k -= #n;
        });
    }
    (counts, picks, direct)
}

/// The code of label `lb` of mover `mi` with multiplicity `inf`, applied
/// as sets by the location's single mover: its count, its pick, and its
/// effect applied in place (with the label's tag).
fn all_in_place(
    plan: &Plan,
    l: &LabelPlan,
    mi: usize,
    lb: usize,
) -> (TokenStream, TokenStream, (Literal, TokenStream)) {
    let k = usize_lit(plan.max_lhs());
    let r = &plan.rules[l.rule];
    let n = format_ident!("n{}_{}", mi, lb);
    let ok = r.sentence.map(|c| format_ident!("ok{}", c));
    let (lbl, rl) = (
        Literal::u16_unsuffixed(lb as u16),
        Literal::u16_unsuffixed(l.rule as u16),
    );
    // One move with every match, when there is one: the
    // images per left element are collected while counting,
    // and the drawn move is applied from them here (the same
    // as `apply_all`, without finding the matches again).
    let m = scan_fn(plan, l.rule);
    let images = format_ident!("a{}_{}", mi, lb);
    let nl = usize_lit(r.lhs.len());
    let ins = (0..r.lhs.len()).map(|i| {
        let i = usize_lit(i);
        quote! { #images[#i].insert(e[#i]); }
    });
    let list = quote! {
        #m(s, &mut |e| {
            #n = 1;
            #(#ins)*
            true
        });
    };
    let list = match &ok {
        Some(ok) => quote! { if #ok { #list } },
        None => list,
    };
    let count = quote! {
        let mut #n: u32 = 0;
        let mut #images = [Set::EMPTY; #nl];
        #list
    };
    let pick = quote! {
        if k < #n {
            break 'pick Move { label: #lbl, rule: #rl, elems: [0; #k] };
        }
        k -= #n;
    };
    let fx = bitset::images_effect(r, &images);
    let target = usize_lit(l.targets[0].0);
    let direct = quote! {
        #fx
        s.location = #target;
    };
    (count, pick, (lbl, direct))
}
