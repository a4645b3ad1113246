//! Per location: move generation (`legal_moves` in canonical order,
//! `has_move`, `label_players`), the next location of a joint move, and
//! the payoffs (compiled, or by the interpreter).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::exprs::{num_conds, num_expr};
use super::lit::usize_lit;
use super::matchers::scan_fn;
use crate::plan::{Plan, PlayerPlan};

/// `legal_moves`, `has_move` and `label_players`.
pub(crate) fn move_fns(plan: &Plan) -> TokenStream {
    let mut legal_arms = Vec::new();
    let mut has_arms = Vec::new();
    let mut movers_arms = Vec::new();
    for (li, loc) in plan.locations.iter().enumerate() {
        let lit = usize_lit(li);
        for (p, pl) in loc.players.iter().enumerate() {
            if pl.labels.is_empty() {
                continue;
            }
            legal_arms.push(legal_arm(plan, li, p, pl));
            has_arms.push(has_arm(plan, li, p, pl));
        }
        let movers = loc.movers.iter().map(|&p| usize_lit(p));
        movers_arms.push(quote! { #lit => &[#(#movers),*], });
    }
    let moves_fault = toss_core::limits::LEGAL_MOVES_PER_STATE
        .exceeded("a player has", "legal moves in one state");
    quote! {
        /// The first resource limit a play ran into (`Game::fault`): from
        /// then on every state is terminal.
        pub static LIMIT_FAULT: ::toss::__private::OnceLock<::std::string::String> =
            ::toss::__private::OnceLock::new();

        /// Stops the plays with the fault `message` (the first one stays).
        #[cold]
        fn limit_fault(message: &str) {
            let _ = LIMIT_FAULT.set(message.to_string());
        }

        /// The legal moves of `player`, in canonical order; none past a
        /// resource limit (`toss_core::limits`: matches per rule, legal
        /// moves per state), which stops the play with a fault.
        pub fn legal_moves(s: &State, player: usize, out: &mut ::std::vec::Vec<Move>) {
            out.clear();
            if LIMIT_FAULT.get().is_some() {
                return;
            }
            match (s.location, player) {
                #(#legal_arms)*
                _ => {}
            }
            if out.len() > ::toss::__private::limits::LEGAL_MOVES_PER_STATE.value {
                limit_fault(#moves_fault);
                out.clear();
            }
        }

        /// Whether `player` has a legal move.
        pub fn has_move(s: &State, player: usize) -> bool {
            match (s.location, player) {
                #(#has_arms)*
                _ => false,
            }
        }

        /// The players with labels in a location.
        pub fn label_players(location: usize) -> &'static [usize] {
            match location {
                #(#movers_arms)*
                _ => &[],
            }
        }
    }
}

/// The arm of `legal_moves` for player `p` (`pl`) in location `li`: the
/// sentences of its labels' preconditions once, then each label's moves.
fn legal_arm(plan: &Plan, li: usize, p: usize, pl: &PlayerPlan) -> TokenStream {
    let k = usize_lit(plan.max_lhs());
    let (lit, plit) = (usize_lit(li), usize_lit(p));
    let mut used: Vec<usize> = pl
        .labels
        .iter()
        .filter_map(|l| plan.rules[l.rule].sentence)
        .collect();
    used.sort_unstable();
    used.dedup();
    let pre = used.iter().map(|&c| {
        let v = format_ident!("ok{}", c);
        let f = format_ident!("c{}", c);
        quote! { let #v = #f(s); }
    });
    let gens = pl.labels.iter().enumerate().map(|(lb, l)| {
        let m = scan_fn(plan, l.rule);
        let (lb, ri) = (
            Literal::u16_unsuffixed(lb as u16),
            Literal::u16_unsuffixed(l.rule as u16),
        );
        let call = if l.all {
            // One move, with every match (listed by
            // `move_to_string`, found again by `apply`).
            quote! {
                if !#m(s, &mut |_| false) {
                    out.push(Move { label: #lb, rule: #ri, elems: [0; #k] });
                }
            }
        } else {
            // Listed in join order, then sorted into canonical order
            // when the matcher reorders (the moves of one rule differ in
            // their images). The matches are counted as they are pushed:
            // past the limit the scan stops.
            let sort = plan.rules[l.rule]
                .reordered()
                .then(|| quote! { out[start..].sort_unstable_by_key(|m| m.elems); });
            let fault = matches_fault(plan, l.rule);
            quote! {
                let start = out.len();
                if !#m(s, &mut |elems| {
                    if out.len() - start >= ::toss::__private::limits::MATCHES_PER_RULE.value {
                        return false;
                    }
                    out.push(Move { label: #lb, rule: #ri, elems });
                    true
                }) {
                    limit_fault(#fault);
                    out.clear();
                    return;
                }
                #sort
            }
        };
        match plan.rules[l.rule].sentence {
            Some(c) => {
                let v = format_ident!("ok{}", c);
                quote! { if #v { #call } }
            }
            None => call,
        }
    });
    quote! {
        (#lit, #plit) => {
            #(#pre)*
            #(#gens)*
        }
    }
}

/// The fault of rule `ri` past the limit of matches per rule, as the
/// interpreter words it (with the rule's position when known).
pub(crate) fn matches_fault(plan: &Plan, ri: usize) -> String {
    let fault = toss_core::limits::MATCHES_PER_RULE.exceeded(
        &format!("rule `{}` has", plan.rules[ri].name),
        "matches in one state",
    );
    toss_core::limits::at_position(plan.rule_positions.get(ri).map(String::as_str), &fault)
}

/// The arm of `has_move` for player `p` (`pl`) in location `li`.
fn has_arm(plan: &Plan, li: usize, p: usize, pl: &PlayerPlan) -> TokenStream {
    let (lit, plit) = (usize_lit(li), usize_lit(p));
    let anys = pl.labels.iter().map(|l| {
        let m = scan_fn(plan, l.rule);
        let call = quote! { !#m(s, &mut |_| false) };
        match plan.rules[l.rule].sentence {
            Some(c) => {
                let f = format_ident!("c{}", c);
                quote! { (#f(s) && #call) }
            }
            None => call,
        }
    });
    quote! { (#lit, #plit) => #(#anys)||*, }
}

/// The arms of `apply` choosing the next location: per location with a
/// mover, by the first mover's label (drawn when it has several edges).
pub(crate) fn target_arms(plan: &Plan) -> Vec<TokenStream> {
    let mut target_arms = Vec::new();
    for (li, loc) in plan.locations.iter().enumerate() {
        let lit = usize_lit(li);
        if let Some(&first) = loc.movers.first() {
            target_arms.push(target_arm(plan, lit, first, li));
        }
    }
    target_arms
}

/// The arm of location `li` (`lit`) whose first mover is `first`.
fn target_arm(plan: &Plan, lit: Literal, first: usize, li: usize) -> TokenStream {
    let loc = &plan.locations[li];
    let labels = loc.players[first].labels.iter().enumerate().map(|(lb, l)| {
        let lb = Literal::u16_unsuffixed(lb as u16);
        if l.targets.len() == 1 {
            let t = usize_lit(l.targets[0].0);
            quote! { #lb => #t, }
        } else {
            let steps = l.targets.iter().map(|&(t, p)| {
                let t = usize_lit(t);
                let p = Literal::f64_suffixed(p);
                quote! {
                    acc += #p;
                    if u < acc {
                        break 'pick #t;
                    }
                }
            });
            let last = usize_lit(l.targets.last().map_or(0, |t| t.0));
            quote! {
                #lb => 'pick: {
                    let u = ::toss::__private::uniform01(rng);
                    let mut acc = 0.0;
                    #(#steps)*
                    #last
                },
            }
        }
    });
    quote! {
        #lit => match joint[0].label {
            #(#labels)*
            _ => ::core::unreachable!("no such label"),
        },
    }
}

/// `payoffs`: per location, the conditions the payoffs use, evaluated
/// once, then each player's payoff.
pub(crate) fn payoffs_fn(plan: &Plan, ident: &Ident) -> TokenStream {
    let payoff_arms: Vec<TokenStream> = (0..plan.locations.len())
        .map(|li| payoff_arm(plan, ident, li))
        .collect();
    quote! {
        /// The payoffs of the current location.
        pub fn payoffs(s: &State, out: &mut [f64]) {
            match s.location {
                #(#payoff_arms)*
                _ => {}
            }
        }
    }
}

/// The arm of `payoffs` for location `li`.
fn payoff_arm(plan: &Plan, ident: &Ident, li: usize) -> TokenStream {
    let loc = &plan.locations[li];
    let lit = usize_lit(li);
    let mut used = Vec::new();
    for pl in &loc.players {
        if let Ok(n) = &pl.payoff {
            num_conds(n, &mut used);
        }
    }
    used.sort_unstable();
    used.dedup();
    let evals = used.iter().map(|&c| {
        let (v, f) = (format_ident!("cv{}", c), format_ident!("c{}", c));
        quote! { let #v = #f(s); }
    });
    let pays = loc.players.iter().enumerate().map(|(p, pl)| {
        let p = usize_lit(p);
        match &pl.payoff {
            Ok(n) => {
                let v = num_expr(plan, n, true);
                if plan.payoff_bounds.is_some() {
                    quote! { out[#p] = #v; }
                } else {
                    // No finite bound found: the value may be infinite or
                    // NaN in some state, which is the play's fault, kept
                    // by the interpreter as for the parts that fall back.
                    let structure = super::state::structure_of_state(
                        plan,
                        &quote! { super::#ident::interpreter() },
                        &quote! {},
                    );
                    quote! {
                        out[#p] = #v;
                        if !out[#p].is_finite() {
                            super::#ident::interpreter().payoff_fault(#lit, #p, &#structure, out[#p]);
                        }
                    }
                }
            }
            Err(_) => quote! {
                out[#p] = super::#ident::interpreter().payoff_value(#lit, #p, &to_structure(s));
            },
        }
    });
    quote! { #lit => { #(#evals)* #(#pays)* } }
}
