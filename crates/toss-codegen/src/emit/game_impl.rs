//! The `Game` impl of a specialized game: every method forwards to the
//! generated module; its doc comment summarizes the specialization and
//! says what runs on the interpreter.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::effects::any_all;
use super::heuristic::heuristic_method;
use super::playout::compound_turns;
use super::state::{initial_expr, to_structure_body};
use super::tuples;
use crate::plan::Plan;

/// The impl of `Game` for `ident`, over the generated module `module`.
pub(crate) fn game_impl(
    plan: &Plan,
    ident: &Ident,
    module: &Ident,
    file_name: &str,
) -> TokenStream {
    let summary = summary(plan, file_name);
    let initial_expr = initial_expr(plan, module);
    let to_structure_body = to_structure_body(plan, module);
    let compound_turns = compound_turns(plan);
    let payoff_bounds = match plan.payoff_bounds {
        Some((lo, hi)) => {
            let (lo, hi) = (crate::ode::float(lo), crate::ode::float(hi));
            quote! { ::core::option::Option::Some((#lo, #hi)) }
        }
        None => quote! { ::core::option::Option::None },
    };
    let heuristic_method = heuristic_method(plan, module);
    let (move_string, s_arg, player_arg) = move_string(plan, module);
    let state_key = state_key(plan);
    let apply_body = match plan.repetition {
        Some(_) => quote! {
            #module::apply(s, joint, rng);
            #module::record_position(s);
        },
        None => quote! { #module::apply(s, joint, rng) },
    };
    let has_chance = plan
        .locations
        .iter()
        .flat_map(|l| &l.players)
        .flat_map(|p| &p.labels)
        .any(|l| l.targets.len() > 1);
    quote! {
        #[doc = #summary]
        #[automatically_derived]
        impl ::toss::Game for #ident {
            type State = #module::State;
            type Move = #module::Move;

            fn player_names(&self) -> &[::std::string::String] {
                static NAMES: ::toss::__private::OnceLock<::std::vec::Vec<::std::string::String>> =
                    ::toss::__private::OnceLock::new();
                NAMES.get_or_init(|| #module::PLAYERS.iter().map(|p| p.to_string()).collect())
            }
            fn initial_state(&self) -> Self::State {
                #initial_expr
            }
            fn movers(&self, s: &Self::State, out: &mut ::std::vec::Vec<usize>) {
                out.clear();
                if #module::LIMIT_FAULT.get().is_some() {
                    return;
                }
                for &p in #module::label_players(s.location) {
                    if !#module::has_move(s, p) {
                        out.clear();
                        return;
                    }
                    out.push(p);
                }
            }
            fn legal_moves(&self, s: &Self::State, player: usize, out: &mut ::std::vec::Vec<Self::Move>) {
                #module::legal_moves(s, player, out)
            }
            fn apply(&self, s: &mut Self::State, joint: &[Self::Move], rng: &mut ::toss::Rng) {
                #apply_body
            }
            fn payoffs(&self, s: &Self::State, out: &mut [f64]) {
                #module::payoffs(s, out)
            }
            fn to_structure(&self, s: &Self::State) -> ::toss::Structure {
                #to_structure_body
            }
            fn location(&self, s: &Self::State) -> usize {
                s.location
            }
            fn has_compound_turns(&self) -> bool {
                #compound_turns
            }
            fn payoff_bounds(&self) -> ::core::option::Option<(f64, f64)> {
                #payoff_bounds
            }
            fn fault(&self) -> ::core::option::Option<::std::string::String> {
                #module::LIMIT_FAULT.get().cloned().or_else(Self::interpreter_fault)
            }
            fn report_fault(&self, message: ::std::string::String) {
                let _ = #module::LIMIT_FAULT.set(message);
            }
            #state_key
            fn stable_keys(&self) -> bool {
                true
            }
            fn has_chance(&self) -> bool {
                #has_chance
            }
            #heuristic_method
            fn random_playout_from(
                &self,
                s: &mut Self::State,
                rng: &mut ::toss::Rng,
                max_plies: usize,
            ) -> (usize, ::toss::Payoffs) {
                #module::random_playout(s, rng, max_plies)
            }
            fn move_to_string(&self, #s_arg: &Self::State, #player_arg: usize, m: &Self::Move) -> ::std::string::String {
                #move_string
                ::toss::__private::match_to_string(
                    #module::RULES[m.rule as usize],
                    #module::RULE_LHS[m.rule as usize],
                    &m.elems,
                    &#module::ELEMENTS,
                )
            }
        }
    }
}

/// `Game::state_key`: the words the state's derived `Hash` writes, or,
/// when it holds function values (no `Hash`), its bitsets, the values'
/// bits and the location. A state with both other fluent relations and
/// functions has no key.
fn state_key(plan: &Plan) -> TokenStream {
    // With REPETITION the future depends on the positions before.
    let history_key = plan.repetition.is_some().then(|| {
        quote! {
            for fp in s.history.iter() {
                out.extend([(fp >> 64) as u64, fp as u64]);
            }
        }
    });
    if plan.funs.is_empty() {
        quote! {
            fn state_key(&self, s: &Self::State, out: &mut ::std::vec::Vec<u64>) -> bool {
                ::toss::__private::hash_words(s, out);
                true
            }
        }
    } else if plan.fluent_rels.is_empty() {
        quote! {
            fn state_key(&self, s: &Self::State, out: &mut ::std::vec::Vec<u64>) -> bool {
                ::toss::__private::hash_words(&s.rels, out);
                out.extend(s.funs.iter().flatten().map(|v| v.to_bits()));
                out.push(s.location as u64);
                #history_key
                true
            }
        }
    } else {
        quote! {}
    }
}

/// The start of `Game::move_to_string` (a label of multiplicity `inf`
/// lists every match) and the names of its arguments (unused without).
fn move_string(plan: &Plan, module: &Ident) -> (TokenStream, Ident, Ident) {
    let any_all = any_all(plan);
    let move_string = if any_all {
        quote! {
            if #module::label_all(s.location, player, m.label) {
                let mut ms = ::std::vec::Vec::new();
                #module::all_matches(s, m.rule, &mut ms);
                let mut out = #module::RULES[m.rule as usize].to_string();
                for e in &ms {
                    out.push_str(&::toss::__private::match_to_string(
                        "",
                        #module::RULE_LHS[m.rule as usize],
                        e,
                        &#module::ELEMENTS,
                    ));
                }
                return out;
            }
        }
    } else {
        quote! {}
    };
    let (s_arg, player_arg) = if any_all {
        (format_ident!("s"), format_ident!("player"))
    } else {
        (format_ident!("_s"), format_ident!("_player"))
    };
    (move_string, s_arg, player_arg)
}

/// The impl's doc comment: what was specialized, and what runs on the
/// interpreter.
fn summary(plan: &Plan, file_name: &str) -> String {
    let n = plan.elements.len();
    let fluent_count = plan.fluents.len();
    let rels_text = tuples::summary(plan);
    format!(
        " The game `{file_name}`, specialized at build time: {} elements in \
         {} bitset word(s); {} fluent unary relation(s) as bitsets{}; stable: {}; \
         {} rule matcher(s), {} compiled condition(s), {} constant mask(s), \
         {} neighbour table(s). Moves, effects, terminal tests and payoffs run \
         as set algebra on bitsets and table look-ups; `to_structure` rebuilds \
         the structure on the interpreter's starting structure.{}{}",
        n,
        plan.words,
        fluent_count,
        rels_text,
        if plan.stable.is_empty() {
            "none".to_string()
        } else {
            plan.stable.join(", ")
        },
        plan.rules.len(),
        plan.conds.len(),
        plan.masks.len(),
        plan.tables.len(),
        match &plan.heuristic {
            Some(_) => {
                " The derived heuristic (existential) is compiled too: \
                 `heuristic_values` evaluates it without building structures."
            }
            None => "",
        },
        fallback_summary(plan)
    )
}

/// What runs on the interpreter, for the impl's doc comment (empty when
/// nothing does).
fn fallback_summary(plan: &Plan) -> String {
    let mut parts = Vec::new();
    for r in &plan.rules {
        if let Some(why) = &r.interpreted {
            parts.push(format!("the matches of rule `{}` ({why})", r.name));
        }
        if let Some(why) = &r.check_fallback {
            parts.push(format!(
                "the check of each match of rule `{}` ({why})",
                r.name
            ));
        }
        if let Some(why) = &r.effect_fallback {
            parts.push(format!("the effect of rule `{}` ({why})", r.name));
        }
    }
    for (li, l) in plan.locations.iter().enumerate() {
        for (p, pl) in l.players.iter().enumerate() {
            if let Err(why) = &pl.payoff {
                parts.push(format!(
                    "the payoff of {} in location {li} ({why})",
                    plan.players[p]
                ));
            }
        }
    }
    if let Some(h) = &plan.heuristic {
        for (i, (_, why)) in h.fallback.iter().enumerate() {
            parts.push(format!("heuristic part h{i} on the solver ({why})"));
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(
            " On the interpreter, over the state's structure: {}.",
            parts.join("; ")
        )
    }
}
