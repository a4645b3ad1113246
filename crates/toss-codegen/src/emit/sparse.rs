//! The sparse representation of a fluent relation ([`Repr::Sparse`], any
//! arity, any number of elements): a sorted `Vec` of tuples in the state,
//! which is then not `Copy`. All the code about it is here: its type,
//! initial value (filled by `initial()`), sets and tests, effect, and
//! conversion to and from a structure.
//!
//! [`Repr::Sparse`]: crate::plan::Repr::Sparse

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::lit::{bound, u32_lit, usize_lit};
use crate::plan::{Bound, FluentRel};

/// The type of the state's field.
pub(crate) fn field_type(r: &FluentRel) -> TokenStream {
    let k = usize_lit(r.arity);
    quote! { ::std::vec::Vec<[u32; #k]> }
}

/// The doc comment of the state's field.
pub(crate) fn field_doc(r: &FluentRel) -> String {
    format!(" The fluent relation `{}`: its tuples, sorted.", r.name)
}

/// How the impl's summary describes the representation.
pub(crate) const SUMMARY: &str = "a sorted list of tuples";

/// The field `f` of `INITIAL`: empty (a constant cannot hold a vector;
/// see [`fill`]).
pub(crate) fn initial(f: &Ident) -> TokenStream {
    quote! { #f: ::std::vec::Vec::new(), }
}

/// The statement of `initial()` that fills the field with the initial
/// tuples.
pub(crate) fn fill(r: &FluentRel, f: &Ident) -> TokenStream {
    let tuples = r.initial.iter().map(|t| {
        let t = t.iter().map(|&e| u32_lit(e));
        quote! { [#(#t),*] }
    });
    quote! { s.#f = ::std::vec![#(#tuples),*]; }
}

/// `{x | rel(args)}` (see [`crate::plan::SetExpr::Tuples`]): a scan of the
/// tuples.
pub(crate) fn set(f: &Ident, args: &[Option<Bound>]) -> TokenStream {
    let var = args.iter().position(Option::is_none).unwrap_or(0);
    let v = usize_lit(var);
    let tests = args.iter().enumerate().map(|(i, a)| {
        let i = usize_lit(i);
        match a {
            Some(b) => {
                let b = bound(*b);
                quote! { t[#i] == #b }
            }
            None => quote! { t[#i] == t[#v] },
        }
    });
    quote! {
        ({
            let mut r = Set::EMPTY;
            for t in s.#f.iter() {
                if #(#tests)&&* {
                    r.insert(t[#v]);
                }
            }
            r
        })
    }
}

/// The image of the set `of` through a binary relation (forwards or
/// backwards).
pub(crate) fn image(f: &Ident, of: &TokenStream, forward: bool) -> TokenStream {
    let (from, to) = if forward { (0, 1) } else { (1, 0) };
    let (from, to) = (usize_lit(from), usize_lit(to));
    quote! {
        ({
            let o = #of;
            let mut r = Set::EMPTY;
            for t in s.#f.iter() {
                if o.contains(t[#from]) {
                    r.insert(t[#to]);
                }
            }
            r
        })
    }
}

/// Whether a tuple of bound elements is in the relation.
pub(crate) fn holds(f: &Ident, args: &[Bound]) -> TokenStream {
    let args = args.iter().map(|b| bound(*b));
    quote! { s.#f.binary_search(&[#(#args),*]).is_ok() }
}

/// Removes the tuples over the matched elements (`matched`, a set).
pub(crate) fn remove_matched(f: &Ident) -> TokenStream {
    quote! {
        s.#f.retain(|t| !t.iter().all(|&x| matched.contains(x)));
    }
}

/// Adds the tuple of the images `xs`, keeping the list sorted.
pub(crate) fn add(f: &Ident, xs: &[&TokenStream]) -> TokenStream {
    quote! {
        {
            let t = [#(#xs),*];
            if let ::core::result::Result::Err(p) = s.#f.binary_search(&t) {
                s.#f.insert(p, t);
            }
        }
    }
}

/// Adds the tuples of the field to the structure's relation `r`.
pub(crate) fn write_structure(f: &Ident) -> TokenStream {
    quote! {
        for t in s.#f.iter() {
            st.add_tuple(r, t);
        }
    }
}

/// Reading the field from a structure: clearing it, adding a tuple `t`,
/// and sorting the list after the tuples.
pub(crate) fn read_structure(f: &Ident) -> (TokenStream, TokenStream, TokenStream) {
    (
        quote! { s.#f.clear(); },
        quote! { s.#f.push(::core::array::from_fn(|i| t[i])); },
        quote! { s.#f.sort_unstable(); },
    )
}
