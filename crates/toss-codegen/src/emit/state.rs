//! The state and the move: `State` (the fluent unary relations as
//! bitsets, the other fluent relations, the values of the fluent
//! functions, the location), `Rels`, `Move`, the starting state, the
//! tables of stable functions, and the conversions to and from a structure
//! (for what falls back to the interpreter).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::lit::usize_lit;
use super::{bitset, tuples};
use crate::plan::Plan;

/// `State`, `Rels` and `Move` (and the types of the state's fields).
pub(crate) fn state_types(plan: &Plan) -> TokenStream {
    let n_lit = usize_lit(plan.elements.len());
    let nf = usize_lit(plan.fluents.len());
    let nfun = usize_lit(plan.funs.len());
    let k = usize_lit(plan.max_lhs());
    let tuple_decls = tuples::field_decls(plan);
    let copy = tuples::state_is_copy(plan).then(|| quote! { Copy, });
    let pairs_def = tuples::type_defs(plan, &n_lit);
    // REPETITION: the play's positions (not `Copy`: a shared list).
    let history = plan
        .repetition
        .is_some()
        .then(|| quote! { pub history: ::toss::__private::History, });
    let copy_funs = plan.repetition.is_none().then(|| quote! { Copy, });
    let state_def = if plan.funs.is_empty() && plan.fluent_rels.is_empty() {
        quote! {
            /// A state: every fluent unary relation as a bitset, and the
            /// location.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub struct State {
                pub rels: [Set; #nf],
                pub location: usize,
            }
        }
    } else if plan.funs.is_empty() {
        quote! {
            /// A state: every fluent unary relation as a bitset, the other
            /// fluent relations, and the location.
            #[derive(Clone, #copy Debug, PartialEq, Eq, Hash)]
            pub struct State {
                pub rels: [Set; #nf],
                #tuple_decls
                pub location: usize,
            }
        }
    } else if plan.fluent_rels.is_empty() {
        quote! {
            /// A state: every fluent unary relation as a bitset, the
            /// values of every fluent function per element, and the
            /// location.
            #[derive(Clone, #copy_funs Debug, PartialEq)]
            pub struct State {
                pub rels: [Set; #nf],
                pub funs: [[f64; #n_lit]; #nfun],
                pub location: usize,
                #history
            }
        }
    } else {
        quote! {
            /// A state: every fluent unary relation as a bitset, the other
            /// fluent relations, the values of every fluent function per
            /// element, and the location.
            #[derive(Clone, #copy Debug, PartialEq)]
            pub struct State {
                pub rels: [Set; #nf],
                #tuple_decls
                pub funs: [[f64; #n_lit]; #nfun],
                pub location: usize,
                #history
            }
        }
    };
    quote! {
        #pairs_def
        #state_def

        /// The fluent unary relations of a state alone: a
        /// postcondition that reads nothing else is evaluated on the
        /// effect applied to a copy of these bitsets, not of the whole
        /// state.
        #[derive(Clone, Copy, Debug)]
        pub struct Rels {
            pub rels: [Set; #nf],
        }

        /// A move: the label among the player's labels in the
        /// location, its rule, and the images of the rule's left
        /// elements (unused positions are 0).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Move {
            pub label: u16,
            pub rule: u16,
            pub elems: [u32; #k],
        }
    }
}

/// `INITIAL` (and `initial()` when a vector is filled at run time), and
/// the tables of the stable functions some compiled term reads.
pub(crate) fn initial_items(plan: &Plan) -> TokenStream {
    let n_lit = usize_lit(plan.elements.len());
    let initial_rels = bitset::initial_rels(plan);
    let initial_tuples = tuples::initial_fields(plan);
    let initial_location = usize_lit(plan.initial_location);
    let initial_funs = if plan.funs.is_empty() {
        quote! {}
    } else {
        let rows = plan.funs.iter().map(|f| {
            let v = f.values.iter().map(|&x| Literal::f64_suffixed(x));
            quote! { [#(#v),*] }
        });
        quote! { funs: [#(#rows),*], }
    };
    let initial_fn = tuples::initial_fn(plan);
    let initial_history = plan
        .repetition
        .is_some()
        .then(|| quote! { history: ::toss::__private::History::EMPTY, });
    let stable_fun_tables = plan
        .stable_funs
        .iter()
        .enumerate()
        .filter(|(_, f)| f.used)
        .map(|(i, f)| {
            let id = format_ident!("F{}", i);
            let doc = format!(" The function `{}` (stable), per element.", f.name);
            let v = f.values.iter().map(|&x| Literal::f64_suffixed(x));
            quote! {
                #[doc = #doc]
                pub static #id: [f64; #n_lit] = [#(#v),*];
            }
        });
    quote! {
        /// The starting state.
        pub const INITIAL: State = State {
            rels: [#(#initial_rels),*],
            #(#initial_tuples)*
            #initial_funs
            location: #initial_location,
            #initial_history
        };
        #initial_fn
        #(#stable_fun_tables)*
    }
}

/// `*s` for a state that is `Copy` (no sparse relation), else `s.clone()`.
pub(crate) fn copy_of_state(plan: &Plan) -> TokenStream {
    if tuples::state_is_copy(plan) {
        quote! { *s }
    } else {
        quote! { s.clone() }
    }
}

/// The starting state, from outside the module.
pub(crate) fn initial_expr(plan: &Plan, module: &Ident) -> TokenStream {
    if tuples::state_is_copy(plan) {
        quote! { #module::INITIAL }
    } else {
        quote! { #module::initial() }
    }
}

/// Whether a structure is the starting one with the fluent unary
/// relations replaced (no fluent function or relation of another arity,
/// nothing on the interpreter): then no conversion functions are emitted.
pub(crate) fn plain_structure(plan: &Plan) -> bool {
    plan.funs.is_empty() && !plan.has_fallback() && plan.fluent_rels.is_empty()
}

/// `FUNS`, `to_structure` and `from_structure`, unless the structure is
/// plain (see [`plain_structure`]).
pub(crate) fn conversions(plan: &Plan, ident: &Ident) -> TokenStream {
    let n_lit = usize_lit(plan.elements.len());
    let nfun = usize_lit(plan.funs.len());
    let fun_names = plan.funs.iter().map(|f| &f.name);
    let with_funs = if plan.funs.is_empty() {
        quote! {}
    } else {
        quote! { let st = ::toss::__private::with_functions(st, &FUNS, &s.funs); }
    };
    let read_funs = plan.funs.iter().enumerate().map(|(i, f)| {
        let (i, name) = (usize_lit(i), &f.name);
        quote! { s.funs[#i] = ::toss::__private::fun_values(st, #name); }
    });
    let read_rels = bitset::read_structure(plan);
    let write_tuples = tuples::write_structure(plan);
    let read_tuples = tuples::read_structure(plan, &n_lit);
    let rebind = (!plan.fluent_rels.is_empty()).then(|| quote! { let mut st = st; });
    if plain_structure(plan) {
        quote! {}
    } else {
        quote! {
            /// Fluent functions, in the order of `State::funs`.
            pub const FUNS: [&str; #nfun] = [#(#fun_names),*];

            /// The structure of a state: the interpreter's starting
            /// structure with the fluent relations and functions of `s`
            /// (what the parts that fall back to the interpreter run on).
            pub fn to_structure(s: &State) -> ::toss::Structure {
                let base = ::toss::Game::initial_state(super::#ident::interpreter()).structure;
                let st = ::toss::__private::with_unary_sets(base, &FLUENTS, &s.rels);
                #with_funs
                #rebind
                #(#write_tuples)*
                st
            }

            /// The state of a structure with the elements of the starting
            /// structure (the location is left as in `INITIAL`).
            pub fn from_structure(st: &::toss::Structure) -> State {
                let mut s = INITIAL;
                #(#read_rels)*
                #(#read_tuples)*
                #(#read_funs)*
                s
            }
        }
    }
}

/// The body of `Game::to_structure`.
pub(crate) fn to_structure_body(plan: &Plan, module: &Ident) -> TokenStream {
    structure_of_state(plan, &quote! { Self::interpreter() }, &quote! { #module:: })
}

/// The structure of state `s`: `to_structure` where the module has it,
/// else the starting structure with the fluent unary sets of `s`. `interp`
/// is the interpreter's expression, `module` the path to the generated
/// module's items (`m::`, or nothing inside it).
pub(crate) fn structure_of_state(
    plan: &Plan,
    interp: &TokenStream,
    module: &TokenStream,
) -> TokenStream {
    if plain_structure(plan) {
        quote! {
            ::toss::__private::with_unary_sets(
                ::toss::Game::initial_state(#interp).structure,
                &#module FLUENTS,
                &s.rels,
            )
        }
    } else {
        quote! { #module to_structure(s) }
    }
}
