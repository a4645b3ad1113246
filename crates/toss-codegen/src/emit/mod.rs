//! Emitting the `Game` impl: the specialized one from a [`Plan`], or
//! the interpreter-forwarding one for a game outside the fragment
//! (`interpreted`).
//!
//! One emitter per generated item, and all the code about one
//! representation of a relation in one file: adding a representation is
//! one variant of the enum that names it ([`crate::plan::Repr`] for the
//! fluent relations of arity other than 1, dispatched in `tuples` alone;
//! [`crate::plan::Rel2`] for the relations of images) plus one emitter
//! file.
//! The representations: `bitset` (unary relations: fluent ones as bits of
//! the state, stable ones as constant masks), `shift` (grid shifts),
//! `table` (neighbour tables, rays), `dense` (a fluent binary relation as
//! successor and predecessor sets), `sparse` (a fluent relation as a
//! sorted list of tuples). The generated items: `state` (the state, the
//! move, the starting state, conversions to and from a structure),
//! `exprs` (sets, conditions and terms; the compiled conditions),
//! `matchers` (matchers, counting and selection per rule), `playout` (the
//! random playout), `locations` (move generation, next location,
//! payoffs), `effects` (rule effects, `apply`), `heuristic`, `game_impl`
//! (the `Game` impl); `lit` holds the tokens they share.
//!
//! The generated module holds the constant masks and neighbour tables, the
//! state (one `Bits<W>` per fluent unary relation and the location), the
//! move (label, rule and matched elements), one function per compiled
//! condition, one matcher per rule, and the move generator, rule effects
//! and payoffs per location. Everything is emitted in plan order, so the
//! output is deterministic.
//!
//! The playout loop counts the moves of every label without listing them:
//! a rule with a set of matches by a popcount; the labels of a mover's
//! shared-prefix tree ([`crate::plan::PrefixNode`]) in one enumeration of
//! the tree, keeping the candidate sets of last steps counted by a
//! popcount (`sets`) to select the drawn match from; the others by listing
//! their matches (`found`; sorted into canonical order for a matcher in
//! another join order than the declaration). A postcondition that reads only fluent
//! relations is tested on the effect applied to a copy of the bitsets
//! (`Rels`), and a test that a cut ray meets a set first tests the ray's
//! start and full ray (a table row).
//!
//! Expressions are emitted by one recursive algorithm (`exprs`: sets,
//! conditions and terms contain each other, within the one file); there is
//! no cycle between these modules.

mod bitset;
mod dense;
mod effects;
mod exprs;
mod game_impl;
mod heuristic;
mod interpreted;
mod lit;
mod locations;
mod matchers;
mod playout;
mod shift;
mod sparse;
mod state;
mod table;
mod tuples;

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

pub(crate) use interpreted::{
    Source, forwarding_methods, interpreted_impl, source_and_interpreter,
    source_and_interpreter_with, stub_impl,
};

use crate::plan::Plan;
pub(crate) use lit::module_name;
use lit::{set_lit, usize_lit};

/// The specialized impl.
pub(crate) fn specialized_impl(
    ident: &Ident,
    source: &Source,
    file_name: &str,
    plan: &Plan,
) -> TokenStream {
    let module = module_name(ident);
    let module_doc = format!(
        " Specialized code of {}. The plan:\n\n ```text\n{}```",
        source.describe(file_name),
        plan.dump()
            .lines()
            .map(|l| format!(" {l}\n"))
            .collect::<String>()
    );

    let source = source_and_interpreter(
        ident,
        source,
        file_name,
        &[
            " The interpreter of this game, built on first use (the",
            " specialized impl uses it only to rebuild structures).",
        ],
    );
    let consts = module_consts(plan);
    let masks = bitset::mask_consts(plan);
    let tables = table::table_statics(plan);
    let state = state::state_types(plan);
    let initial = state::initial_items(plan);
    let conversions = state::conversions(plan, ident);
    let conds = exprs::cond_fns(plan);
    let matchers = matchers::matcher_fns(plan, ident);
    let counters = matchers::counter_fns(plan);
    let heuristic = heuristic::heuristic_fns(plan, ident, file_name);
    let playout = playout::playout_fns(plan);
    let moves = locations::move_fns(plan);
    let effects = effects::effect_fns(plan, ident);
    let payoffs = locations::payoffs_fn(plan, ident);
    let game = game_impl::game_impl(plan, ident, &module, file_name);
    quote! {
        #source

        #[doc = #module_doc]
        #[doc(hidden)]
        #[allow(clippy::all, non_snake_case, unused_parens, unused_braces, unused_mut, dead_code)]
        pub mod #module {
            use ::toss::__private::Bits;

            #consts

            #(#masks)*
            #(#tables)*

            #state
            #initial
            #conversions

            #(#conds)*
            #(#matchers)*
            #(#counters)*
            #heuristic
            #playout
            #moves
            #effects
            #payoffs
        }

        #game
    }
}

/// The constants of the generated module: the set type, the universe, the
/// names of elements, rules, left elements, fluents and players.
fn module_consts(plan: &Plan) -> TokenStream {
    let n = plan.elements.len();
    let n_lit = usize_lit(n);
    let w = usize_lit(plan.words);
    let nf = usize_lit(plan.fluents.len());
    let universe = set_lit(plan, 0..n as u32);
    let elements = &plan.elements;
    let rule_names = plan.rules.iter().map(|r| &r.name);
    let rule_lhs = plan.rules.iter().map(|r| {
        let l = &r.lhs;
        quote! { &[#(#l),*] }
    });
    let nrules = usize_lit(plan.rules.len());
    let players = &plan.players;
    let nplayers = usize_lit(players.len());
    let fluent_names = plan.fluents.iter().map(|f| &f.name);
    quote! {
        /// A set of elements.
        pub type Set = Bits<#w>;
        /// Every element.
        pub const UNIVERSE: Set = #universe;
        /// Element names by id.
        pub const ELEMENTS: [&str; #n_lit] = [#(#elements),*];
        /// Rule names.
        pub const RULES: [&str; #nrules] = [#(#rule_names),*];
        /// Left element names per rule.
        pub const RULE_LHS: [&[&str]; #nrules] = [#(#rule_lhs),*];
        /// Fluent unary relations, in the order of `State::rels`.
        pub const FLUENTS: [&str; #nf] = [#(#fluent_names),*];
        /// Player names.
        pub const PLAYERS: [&str; #nplayers] = [#(#players),*];
    }
}
