//! Fluent relations of arity other than 1: one field of the state each
//! (`tuples<i>`), kept as its [`Repr`] says. This is the one place that
//! dispatches on the representation; the code of each is in its own file
//! (`dense`, `sparse`).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::{dense, sparse};
use crate::plan::{Bound, Plan, Repr, RulePlan};

/// The field of the state holding fluent relation `rel` of arity other
/// than 1 (a `Pairs` when dense, a sorted `Vec` of tuples when sparse).
pub(crate) fn tuples_field(rel: usize) -> Ident {
    format_ident!("tuples{}", rel)
}

/// Whether the state stays `Copy` (no sparse relation).
pub(crate) fn state_is_copy(plan: &Plan) -> bool {
    !plan.fluent_rels.iter().any(|r| r.repr == Repr::Sparse) && plan.repetition.is_none()
}

/// `{x | rel(args)}` (see [`crate::plan::SetExpr::Tuples`]).
pub(crate) fn tuples_set(plan: &Plan, rel: usize, args: &[Option<Bound>]) -> TokenStream {
    let f = tuples_field(rel);
    match plan.fluent_rels[rel].repr {
        Repr::Dense => dense::set(&f, args),
        Repr::Sparse => sparse::set(&f, args),
    }
}

/// The image of `of` through fluent binary relation `rel` (see
/// [`crate::plan::Rel2::Fluent`]).
pub(crate) fn image(plan: &Plan, rel: usize, forward: bool, of: &TokenStream) -> TokenStream {
    let f = tuples_field(rel);
    match plan.fluent_rels[rel].repr {
        Repr::Dense => dense::image(&f, of, forward),
        Repr::Sparse => sparse::image(&f, of, forward),
    }
}

/// Whether a tuple of bound elements is in fluent relation `rel` (see
/// [`crate::plan::Cond::Holds`]).
pub(crate) fn holds(plan: &Plan, rel: usize, args: &[Bound]) -> TokenStream {
    let f = tuples_field(rel);
    match (plan.fluent_rels[rel].repr, args) {
        (Repr::Dense, [a, b]) => dense::holds(&f, *a, *b),
        _ => sparse::holds(&f, args),
    }
}

/// The effect of rule `r` on the fluent relations of other arities in the
/// state `s`, the images of the left elements given by `elems`: the
/// tuples over the matched elements removed (`emb`), then the right
/// side's tuples added.
pub(crate) fn tuples_effect(plan: &Plan, r: &RulePlan, elems: &[TokenStream]) -> TokenStream {
    let mut out = Vec::new();
    if !r.tuple_removes.is_empty() {
        out.push(quote! { let matched = Set::EMPTY #(| Set::single(#elems))*; });
    }
    for &t in &r.tuple_removes {
        let f = tuples_field(t);
        out.push(match plan.fluent_rels[t].repr {
            Repr::Dense => dense::remove_matched(&f, elems),
            Repr::Sparse => sparse::remove_matched(&f),
        });
    }
    for (t, args) in &r.tuple_adds {
        let f = tuples_field(*t);
        let xs: Vec<&TokenStream> = args.iter().map(|&a| &elems[a]).collect();
        out.push(match (plan.fluent_rels[*t].repr, xs.as_slice()) {
            (Repr::Dense, [a, _]) if args[0] == args[1] => dense::add_loop(&f, a),
            (Repr::Dense, [a, b]) => dense::add_pair(&f, a, b),
            _ => sparse::add(&f, &xs),
        });
    }
    quote! { #(#out)* }
}

/// The fields of the state, with their doc comments.
pub(crate) fn field_decls(plan: &Plan) -> TokenStream {
    let tuple_fields: Vec<Ident> = (0..plan.fluent_rels.len()).map(tuples_field).collect();
    let tuple_types = plan.fluent_rels.iter().map(|r| match r.repr {
        Repr::Dense => dense::field_type(),
        Repr::Sparse => sparse::field_type(r),
    });
    let tuple_docs = plan.fluent_rels.iter().map(|r| match r.repr {
        Repr::Dense => dense::field_doc(r),
        Repr::Sparse => sparse::field_doc(r),
    });
    quote! { #(#[doc = #tuple_docs] pub #tuple_fields: #tuple_types,)* }
}

/// The types the fields need (`Pairs`, when some relation is dense).
pub(crate) fn type_defs(plan: &Plan, n_lit: &Literal) -> Option<TokenStream> {
    plan.fluent_rels
        .iter()
        .any(|r| r.repr == Repr::Dense)
        .then(|| dense::type_def(n_lit))
}

/// The fields of `INITIAL`: dense relations in the constant, sparse ones
/// (a vector) added by `initial()` (see [`initial_fn`]).
pub(crate) fn initial_fields(plan: &Plan) -> Vec<TokenStream> {
    plan.fluent_rels
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let f = tuples_field(i);
            match r.repr {
                Repr::Dense => dense::initial(plan, r, &f),
                Repr::Sparse => sparse::initial(&f),
            }
        })
        .collect()
}

/// `initial()`, when some relation is sparse: `INITIAL` with the tuples of
/// the sparse relations.
pub(crate) fn initial_fn(plan: &Plan) -> Option<TokenStream> {
    (!state_is_copy(plan)).then(|| {
        let fills = plan
            .fluent_rels
            .iter()
            .enumerate()
            .filter(|(_, r)| r.repr == Repr::Sparse)
            .map(|(i, r)| sparse::fill(r, &tuples_field(i)));
        let record = plan
            .repetition
            .is_some()
            .then(|| quote! { record_position(&mut s); });
        quote! {
            /// The starting state: `INITIAL` with the tuples of the sparse
            /// relations (and, with REPETITION, its position recorded).
            pub fn initial() -> State {
                let mut s = INITIAL;
                #(#fills)*
                #record
                s
            }
        }
    })
}

/// Per relation, the statements of `to_structure` that replace its tuples
/// in the structure `st` by the state's.
pub(crate) fn write_structure(plan: &Plan) -> Vec<TokenStream> {
    (plan.fluent_rels.iter().enumerate())
        .map(|(i, r)| {
            let f = tuples_field(i);
            let name = &r.name;
            let add = match r.repr {
                Repr::Dense => dense::write_structure(&f),
                Repr::Sparse => sparse::write_structure(&f),
            };
            quote! {
                if let ::core::option::Option::Some(r) = st.relation(#name) {
                    for t in st.tuples(r) {
                        st.remove_tuple(r, &t);
                    }
                    #add
                }
            }
        })
        .collect()
}

/// Per relation, the statements of `from_structure` that read its tuples
/// from the structure `st`.
pub(crate) fn read_structure(plan: &Plan, n_lit: &Literal) -> Vec<TokenStream> {
    (plan.fluent_rels.iter().enumerate())
        .map(|(i, r)| {
            let f = tuples_field(i);
            let name = &r.name;
            let (clear, add, sort) = match r.repr {
                Repr::Dense => dense::read_structure(&f, n_lit),
                Repr::Sparse => sparse::read_structure(&f),
            };
            quote! {
                #clear
                if let ::core::option::Option::Some(r) = st.relation(#name) {
                    for t in st.tuples(r) {
                        #add
                    }
                }
                #sort
            }
        })
        .collect()
}

/// The relations and their representations, for the impl's summary
/// (empty when there are none, so the summaries of other games stay as
/// they were).
pub(crate) fn summary(plan: &Plan) -> String {
    plan.fluent_rels
        .iter()
        .map(|r| {
            let how = match r.repr {
                Repr::Dense => dense::SUMMARY,
                Repr::Sparse => sparse::SUMMARY,
            };
            format!(
                ", the fluent relation {} of arity {} as {how}",
                r.name, r.arity
            )
        })
        .collect()
}
