//! The dense representation of a fluent binary relation ([`Repr::Dense`],
//! over at most `MAX_DENSE_ELEMENTS` elements): a `Pairs` field in the
//! state, per element the set of its successors and the set of its
//! predecessors, and the set of elements related to themselves. All the
//! code about it is here: its type, initial value, sets and tests, effect,
//! and conversion to and from a structure.
//!
//! [`Repr::Dense`]: crate::plan::Repr::Dense

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::lit::{bound, set_lit};
use crate::plan::{Bound, FluentRel, Plan};

/// The `Pairs` type of the generated module (`n_lit` elements).
pub(crate) fn type_def(n_lit: &Literal) -> TokenStream {
    quote! {
        /// A fluent binary relation over few elements: per element
        /// the set of its successors and the set of its
        /// predecessors (both kept, so a step from a bound element
        /// either way is one look-up), and the elements related to
        /// themselves (exact matching tests them on every left
        /// element).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct Pairs {
            pub succ: [Set; #n_lit],
            pub pred: [Set; #n_lit],
            pub loops: Set,
        }
    }
}

/// The type of the state's field.
pub(crate) fn field_type() -> TokenStream {
    quote! { Pairs }
}

/// The doc comment of the state's field.
pub(crate) fn field_doc(r: &FluentRel) -> String {
    format!(" The fluent relation `{}`, dense.", r.name)
}

/// How the impl's summary describes the representation.
pub(crate) const SUMMARY: &str = "sets of successors and predecessors";

/// The field `f` of `INITIAL`: the relation's initial pairs.
pub(crate) fn initial(plan: &Plan, r: &FluentRel, f: &Ident) -> TokenStream {
    let n = plan.elements.len();
    let (mut succ, mut pred) = (vec![Vec::new(); n], vec![Vec::new(); n]);
    let mut loops = Vec::new();
    for t in &r.initial {
        succ[t[0] as usize].push(t[1]);
        pred[t[1] as usize].push(t[0]);
        if t[0] == t[1] {
            loops.push(t[0]);
        }
    }
    let succ = succ.into_iter().map(|v| set_lit(plan, v));
    let pred = pred.into_iter().map(|v| set_lit(plan, v));
    let loops = set_lit(plan, loops);
    quote! { #f: Pairs { succ: [#(#succ),*], pred: [#(#pred),*], loops: #loops }, }
}

/// `{x | rel(args)}` (see [`crate::plan::SetExpr::Tuples`]): the
/// successors of a bound element, its predecessors, or the loops.
pub(crate) fn set(f: &Ident, args: &[Option<Bound>]) -> TokenStream {
    match args {
        [Some(a), None] => {
            let a = bound(*a);
            quote! { s.#f.succ[#a as usize] }
        }
        [None, Some(b)] => {
            let b = bound(*b);
            quote! { s.#f.pred[#b as usize] }
        }
        _ => quote! { s.#f.loops },
    }
}

/// The image of the set `of` (successors when `forward`, else
/// predecessors).
pub(crate) fn image(f: &Ident, of: &TokenStream, forward: bool) -> TokenStream {
    let dir = if forward {
        format_ident!("succ")
    } else {
        format_ident!("pred")
    };
    quote! {
        ({
            let o = #of;
            let mut r = Set::EMPTY;
            for y in o.iter() {
                r |= s.#f.#dir[y as usize];
            }
            r
        })
    }
}

/// Whether the pair of bound elements `(a, b)` is in the relation.
pub(crate) fn holds(f: &Ident, a: Bound, b: Bound) -> TokenStream {
    let (a, b) = (bound(a), bound(b));
    quote! { s.#f.succ[#a as usize].contains(#b) }
}

/// Removes the tuples over the matched elements (`matched`, a set; their
/// images `elems`). A tuple over the matched elements is in the row of its
/// first element and in the column of its second.
pub(crate) fn remove_matched(f: &Ident, elems: &[TokenStream]) -> TokenStream {
    let rows = elems.iter().map(|x| {
        quote! {
            s.#f.succ[#x as usize] = s.#f.succ[#x as usize].and_not(matched);
            s.#f.pred[#x as usize] = s.#f.pred[#x as usize].and_not(matched);
        }
    });
    quote! {
        #(#rows)*
        s.#f.loops = s.#f.loops.and_not(matched);
    }
}

/// Adds the loop `(a, a)` (left elements are distinct: a loop is a tuple
/// of one element).
pub(crate) fn add_loop(f: &Ident, a: &TokenStream) -> TokenStream {
    quote! {
        s.#f.succ[#a as usize].insert(#a);
        s.#f.pred[#a as usize].insert(#a);
        s.#f.loops.insert(#a);
    }
}

/// Adds the pair `(a, b)`.
pub(crate) fn add_pair(f: &Ident, a: &TokenStream, b: &TokenStream) -> TokenStream {
    quote! {
        s.#f.succ[#a as usize].insert(#b);
        s.#f.pred[#b as usize].insert(#a);
    }
}

/// Adds the pairs of the field to the structure's relation `r`.
pub(crate) fn write_structure(f: &Ident) -> TokenStream {
    quote! {
        for (a, row) in s.#f.succ.iter().enumerate() {
            for b in row.iter() {
                st.add_tuple(r, &[a as u32, b]);
            }
        }
    }
}

/// Reading the field from a structure: clearing it, adding a tuple `t`,
/// and what follows the tuples (nothing).
pub(crate) fn read_structure(
    f: &Ident,
    n_lit: &Literal,
) -> (TokenStream, TokenStream, TokenStream) {
    (
        quote! {
            s.#f = Pairs {
                succ: [Set::EMPTY; #n_lit],
                pred: [Set::EMPTY; #n_lit],
                loops: Set::EMPTY,
            };
        },
        quote! {
            s.#f.succ[t[0] as usize].insert(t[1]);
            s.#f.pred[t[1] as usize].insert(t[0]);
            if t[0] == t[1] {
                s.#f.loops.insert(t[0]);
            }
        },
        quote! {},
    )
}
