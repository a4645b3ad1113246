//! Grid shifts: a stable binary relation that is "add `d` to the id" on a
//! mask of sources ([`crate::plan::Rel2::Shifts`]), two-element rules
//! linked by a grid step, and the offset groups of patterns (one shift per
//! cell, or a line tested by doubling). All the code about shifts is here.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::lit::u32_lit;
use crate::plan::Pattern;

/// `s` shifted by `d` (`x + d` for each member `x`).
pub(crate) fn shift(s: TokenStream, d: i32) -> TokenStream {
    if d >= 0 {
        let d = u32_lit(d as u32);
        quote! { #s.shift_up(#d) }
    } else {
        let d = u32_lit(d.unsigned_abs());
        quote! { #s.shift_down(#d) }
    }
}

/// The image of the set `of` through shifts `v` (`(offset, mask of
/// sources)` each).
pub(crate) fn image(of: &TokenStream, v: &[(i32, usize)]) -> TokenStream {
    let parts = v.iter().map(|(d, m)| {
        let m = format_ident!("M{}", m);
        shift(quote! { (o & #m) }, *d)
    });
    quote! { ({ let o = #of; #(#parts)|* }) }
}

/// The pairs of a two-element rule linked by a grid step `d` from the
/// sources in mask `mask`: the second elements, from the candidates `c0`
/// of the first (then intersected with `c1`).
pub(crate) fn pairs(mask: usize, d: i32) -> TokenStream {
    let mask = format_ident!("M{}", mask);
    shift(quote! { (c0 & #mask) }, d)
}

/// The first element of a pair whose second is `e` (grid step `d`).
pub(crate) fn back(e: &Ident, d: i32) -> TokenStream {
    if d >= 0 {
        let d = u32_lit(d as u32);
        quote! { #e - #d }
    } else {
        let d = u32_lit(d.unsigned_abs());
        quote! { #e + #d }
    }
}

/// The tests of the offset groups of pattern `p` on the sets `names`
/// (each the set of a variable; `same` when they are all one set): per
/// group, its start mask and each set shifted back by its offset.
pub(crate) fn pattern_groups(p: &Pattern, names: &[Ident], same: bool) -> Vec<TokenStream> {
    p.groups
        .iter()
        .map(|(offs, m)| {
            let m = format_ident!("M{}", m);
            if same && let Some(steps) = crate::plan::line_doubling(offs) {
                return line_by_doubling(&names[0], &m, &steps);
            }
            let terms = offs.iter().zip(names).map(|(&o, n)| {
                if o == 0 {
                    quote! { #n }
                } else {
                    shift(quote! { #n }, -o)
                }
            });
            quote! { (#m #(& #terms)*) }
        })
        .collect()
}

/// A group of a pattern whose sets are all `v` at offsets `0, d, .., (k -
/// 1) d` from the start: the starts in `m` with `v` at each of them, as
/// `t = v`, then `t &= t` shifted back by each of `steps` (see
/// [`crate::plan::line_doubling`]).
pub(crate) fn line_by_doubling(v: &Ident, m: &Ident, steps: &[i32]) -> TokenStream {
    let ands = steps.iter().map(|&o| {
        let sh = shift(quote! { t }, -o);
        quote! { let t = t & #sh; }
    });
    quote! { (#m & { let t = #v; #(#ands)* t }) }
}
