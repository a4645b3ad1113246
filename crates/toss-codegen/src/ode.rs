//! Code for games with continuous dynamics (spec 1.2).
//!
//! Each rule's ODE right-hand sides and, when they are arithmetic, its
//! update terms become plain Rust functions over the rule's inputs (function
//! values of left elements, in the order of
//! `toss_runtime::continuous::ContinuousRule`) and parameters. The runtime
//! integrator calls them through the interpreter, which runs everything
//! else on the embedded description (built with
//! `Interpreter::with_compiled`): matching, constraints, invariants and the
//! game graph.

use std::path::Path;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;
use toss_core::ir;
use toss_core::ir::derivative_name;
use toss_lang::print::print_real;
use toss_runtime::Interpreter;
use toss_runtime::continuous::{Arith, ContinuousRule};

/// Whether some rule of `game` has `dynamics`.
pub fn has_dynamics(game: &ir::Game) -> bool {
    game.rules.iter().any(|r| !r.dynamics.is_empty())
}

/// A float literal (with its sign) or a named constant for non-finite values.
pub(crate) fn float(c: f64) -> TokenStream {
    if c.is_nan() {
        quote! { f64::NAN }
    } else if c.is_infinite() {
        if c > 0.0 {
            quote! { f64::INFINITY }
        } else {
            quote! { f64::NEG_INFINITY }
        }
    } else {
        let lit = Literal::f64_suffixed(c.abs());
        if c.is_sign_negative() {
            quote! { (-#lit) }
        } else {
            quote! { #lit }
        }
    }
}

/// `t` as a Rust expression over `x` (inputs) and `p` (parameters),
/// computing exactly what `Arith::eval` computes.
pub fn arith_tokens(t: &Arith) -> TokenStream {
    match t {
        Arith::Const(c) => float(*c),
        Arith::Input(i) => quote! { x[#i] },
        Arith::Param(i) => quote! { p[#i] },
        Arith::Neg(a) => {
            let a = arith_tokens(a);
            quote! { (-#a) }
        }
        Arith::Add(a, b) => {
            let (a, b) = (arith_tokens(a), arith_tokens(b));
            quote! { (#a + #b) }
        }
        Arith::Sub(a, b) => {
            let (a, b) = (arith_tokens(a), arith_tokens(b));
            quote! { (#a - #b) }
        }
        Arith::Mul(a, b) => {
            let (a, b) = (arith_tokens(a), arith_tokens(b));
            quote! { (#a * #b) }
        }
        Arith::Div(a, b) => {
            let (a, b) = (arith_tokens(a), arith_tokens(b));
            quote! { (#a / #b) }
        }
        Arith::Pow(a, b) => {
            let (a, b) = (arith_tokens(a), arith_tokens(b));
            quote! { f64::powf(#a, #b) }
        }
        Arith::Root(n, a) => {
            let a = arith_tokens(a);
            quote! { ::toss::__private::root(#n, #a) }
        }
    }
}

/// Whether `t` reads an input (`inputs`) or a parameter (otherwise).
fn reads(t: &Arith, inputs: bool) -> bool {
    match t {
        Arith::Const(_) => false,
        Arith::Input(_) => inputs,
        Arith::Param(_) => !inputs,
        Arith::Neg(a) | Arith::Root(_, a) => reads(a, inputs),
        Arith::Add(a, b)
        | Arith::Sub(a, b)
        | Arith::Mul(a, b)
        | Arith::Div(a, b)
        | Arith::Pow(a, b) => reads(a, inputs) || reads(b, inputs),
    }
}

/// A function `fn name(x, p, out)` writing `terms[i]` to `out[i]`.
fn term_fn(name: &Ident, doc: &str, terms: &[Arith]) -> TokenStream {
    let assigns = terms.iter().enumerate().map(|(i, t)| {
        let e = arith_tokens(t);
        quote! { out[#i] = #e; }
    });
    let uses_x = terms.iter().any(|t| reads(t, true));
    let uses_p = terms.iter().any(|t| reads(t, false));
    let x = if uses_x { quote!(x) } else { quote!(_x) };
    let p = if uses_p { quote!(p) } else { quote!(_p) };
    quote! {
        #[doc = #doc]
        #[allow(clippy::all)]
        fn #name(#x: &[f64], #p: &[f64], out: &mut [f64]) {
            #(#assigns)*
        }
    }
}

/// The impl for a game with dynamics: compiled right-hand sides and update
/// terms, the rest forwarded to the interpreter built with them.
pub fn continuous_impl(
    ident: &Ident,
    path: &Path,
    game: &ir::Game,
    interp: &Interpreter,
) -> Result<TokenStream, String> {
    let path_lit = path.to_string_lossy().into_owned();
    let file_name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut fns = Vec::new();
    let mut entries = Vec::new();
    for (ri, r) in game.rules.iter().enumerate() {
        if r.dynamics.is_empty() {
            continue;
        }
        let c = ContinuousRule::new(r, interp.rule_params(ri))?;
        let inputs: Vec<String> = c
            .inputs
            .iter()
            .map(|i| format!(":{}({})", i.stored_name(), i.element))
            .collect();
        let params = interp.rule_params(ri).join(", ");
        let rhs_name = format_ident!("__toss_dynamics_{}", ri);
        let eqs: Vec<String> = r
            .dynamics
            .iter()
            .map(|d| {
                format!(
                    ":{}({}) = {}",
                    derivative_name(&d.function, d.order),
                    d.element,
                    print_real(&d.value)
                )
            })
            .collect();
        let doc = format!(
            " Rule {}: the right-hand sides of `dynamics {}`; x = [{}], p = [{}].",
            r.name,
            eqs.join("; "),
            inputs.join(", "),
            params
        );
        fns.push(term_fn(&rhs_name, &doc, &c.dynamics));
        let rhs = quote! { ::core::option::Option::Some(Self::#rhs_name) };
        let update = match &c.update {
            Some(terms) if !terms.is_empty() => {
                let name = format_ident!("__toss_update_{}", ri);
                let eqs: Vec<String> = r
                    .update
                    .iter()
                    .map(|u| format!(":{}({}) = {}", u.function, u.element, print_real(&u.value)))
                    .collect();
                let doc = format!(
                    " Rule {}: the new values of `update {}`; x = [{}], p = [{}].",
                    r.name,
                    eqs.join("; "),
                    inputs.join(", "),
                    params
                );
                fns.push(term_fn(&name, &doc, terms));
                quote! { ::core::option::Option::Some(Self::#name) }
            }
            _ => quote! { ::core::option::Option::None },
        };
        let rule = &r.name;
        entries.push(quote! {
            ::toss::__private::CompiledTerms {
                rule: #rule,
                dynamics: #rhs,
                update: #update,
            }
        });
    }
    let doc = format!(
        " The game `{file_name}` ({} player(s), {} rule(s), {} location(s)), with \
         continuous dynamics: the ODE right-hand sides and update terms are the \
         compiled functions of this type, which the runtime integrator calls; \
         everything else runs the interpreter on the embedded description.",
        game.players.len(),
        game.rules.len(),
        game.locations.len()
    );
    let source = crate::emit::source_and_interpreter_with(
        ident,
        &crate::emit::Source::File(path_lit),
        &[" The interpreter of this game with its compiled terms, built on first use."],
        quote! {
            ::toss::__private::checked_interpreter_compiled(Self::SOURCE, #file_name, Self::COMPILED)
        },
    );
    let body = crate::emit::forwarding_methods(quote! { #ident::interpreter() });
    Ok(quote! {
        #source

        #[automatically_derived]
        impl #ident {
            /// The compiled terms, by rule.
            pub const COMPILED: &'static [::toss::__private::CompiledTerms] = &[#(#entries),*];
            #(#fns)*
        }

        #[doc = #doc]
        #[automatically_derived]
        impl ::toss::Game for #ident {
            #body
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_print_as_rust() {
        let t = Arith::Sub(
            Box::new(Arith::Mul(
                Box::new(Arith::Const(-0.5)),
                Box::new(Arith::Input(1)),
            )),
            Box::new(Arith::Root(3, Box::new(Arith::Param(0)))),
        );
        assert_eq!(
            arith_tokens(&t).to_string(),
            "(((- 0.5f64) * x [1usize]) - :: toss :: __private :: root (3u32 , p [0usize]))"
        );
    }
}
