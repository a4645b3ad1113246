//! Neighbour tables (`T<i>`): per element, the set of its neighbours in a
//! stable binary relation ([`crate::plan::Table`]); rows of tables of
//! pairs; rays (a table of full rays cut at the first cell outside a set);
//! links of a matcher's steps. All the code about tables is here.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::lit::{bound, set_lit, usize_lit};
use crate::plan::{Bound, Link, Plan};

/// The tables `T<i>` as statics, with what each is.
pub(crate) fn table_statics(plan: &Plan) -> Vec<TokenStream> {
    plan.tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let id = format_ident!("T{}", i);
            let doc = format!(
                " `t{i}`: per element, its neighbours in {} (a stable relation).",
                t.what
            );
            let rows = t.rows.iter().map(|r| set_lit(plan, r.iter().copied()));
            let len = usize_lit(t.rows.len());
            quote! {
                #[doc = #doc]
                pub static #id: [Set; #len] = [#(#rows),*];
            }
        })
        .collect()
}

/// `table[of]` (see [`crate::plan::SetExpr::Row`]).
pub(crate) fn row(table: usize, of: Bound) -> TokenStream {
    let t = format_ident!("T{}", table);
    let of = bound(of);
    quote! { #t[#of as usize] }
}

/// `table[a * n + b]` (see [`crate::plan::SetExpr::Row2`]).
pub(crate) fn row2(table: usize, a: Bound, b: Bound) -> TokenStream {
    let t = format_ident!("T{}", table);
    let (a, b) = (bound(a), bound(b));
    quote! { #t[#a as usize * ELEMENTS.len() + #b as usize] }
}

/// The image of the set `of` through table `t` (see
/// [`crate::plan::Rel2::Table`]).
pub(crate) fn image(t: usize, of: &TokenStream) -> TokenStream {
    let t = format_ident!("T{}", t);
    quote! {
        ({
            let mut r = Set::EMPTY;
            for y in #of.iter() {
                r |= #t[y as usize];
            }
            r
        })
    }
}

/// A ray (see [`crate::plan::SetExpr::Ray`]) through the set `through`,
/// with or without its start. The cells of a ray table's row follow its
/// direction in increasing ids (`up`) or decreasing ones, so the cells
/// before the first blocker are those below (above) it: one mask of the
/// ids below an id, no second table look-up.
pub(crate) fn ray(
    table: usize,
    from: Bound,
    through: TokenStream,
    up: bool,
    with_from: bool,
) -> TokenStream {
    let t = format_ident!("T{}", table);
    let from = bound(from);
    // Without a blocker, `first` and `last` are `u32::MAX`: every id is
    // below the one, none above the other (no test for a blocker).
    let cut = if up {
        quote! { r & Set::below(b.first()) }
    } else {
        quote! { r.and_not(Set::below(b.last().wrapping_add(1))) }
    };
    let start = with_from.then(|| quote! { out.insert(#from); });
    quote! {
        ({
            let r = #t[#from as usize];
            let b = r & !#through;
            #[allow(unused_mut)]
            let mut out = #cut;
            #start
            out
        })
    }
}

/// The full ray of table `table` from `from` and its start: a cut ray is
/// within it.
pub(crate) fn full_ray(table: usize, from: Bound) -> TokenStream {
    let t = format_ident!("T{}", table);
    let from = bound(from);
    quote! { (#t[#from as usize] | Set::single(#from)) }
}

/// A step's link to an earlier element: the candidates `n` within the
/// table's row of its image.
pub(crate) fn link(l: &Link) -> TokenStream {
    let t = format_ident!("T{}", l.table);
    let from = format_ident!("e{}", l.from);
    quote! { n &= #t[#from as usize]; }
}

/// Whether no row of table `table` holds its own element (a link through
/// it leaves the earlier element out of the candidates).
pub(crate) fn irreflexive(plan: &Plan, table: usize) -> bool {
    plan.tables[table]
        .rows
        .iter()
        .enumerate()
        .all(|(y, row)| !row.contains(&(y as u32)))
}
