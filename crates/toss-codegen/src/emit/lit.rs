//! Tokens every emitter uses: the generated module's name, set literals,
//! unsuffixed integer literals, and the variable of a bound element.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use crate::plan::{Bound, Plan};

/// `TicTacToe` -> `__toss_tic_tac_toe`.
pub(crate) fn module_name(ident: &Ident) -> Ident {
    let mut out = String::from("__toss");
    let mut prev_lower = false;
    for c in ident.to_string().chars() {
        if c.is_uppercase() {
            if prev_lower || out.ends_with("__toss") {
                out.push('_');
            }
            out.extend(c.to_lowercase());
            prev_lower = false;
        } else {
            if out.ends_with("__toss") {
                out.push('_');
            }
            out.push(c);
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
        }
    }
    format_ident!("{}", out)
}

pub(crate) fn set_lit(plan: &Plan, members: impl IntoIterator<Item = u32>) -> TokenStream {
    let mut words = vec![0u64; plan.words];
    for e in members {
        words[(e / 64) as usize] |= 1 << (e % 64);
    }
    let words = words.iter().map(|w| {
        let s = format!("{w:#018x}");
        let lit: TokenStream = s.parse().unwrap_or_default();
        quote! { #lit }
    });
    quote! { Bits([#(#words),*]) }
}

pub(crate) fn usize_lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

pub(crate) fn u32_lit(n: u32) -> Literal {
    Literal::u32_unsuffixed(n)
}

/// The variable holding a bound element.
pub(crate) fn bound(b: Bound) -> Ident {
    match b {
        Bound::Left(i) => format_ident!("e{}", i),
        Bound::Loop(i) => format_ident!("q{}", i),
    }
}
