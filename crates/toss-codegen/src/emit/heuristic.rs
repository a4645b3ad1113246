//! The compiled heuristic: `heuristic(s, out)` in the generated module
//! (and the solver for its parts outside the fragment), and the impl's
//! `heuristic_values`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::exprs::num_expr;
use super::lit::usize_lit;
use crate::plan::Plan;

/// The compiled heuristic: `heuristic(s, out)` and, when some part falls
/// back to the solver, `heuristic_fallback()`; empty without a heuristic.
pub(crate) fn heuristic_fns(plan: &Plan, ident: &Ident, file_name: &str) -> TokenStream {
    let Some(h) = &plan.heuristic else {
        return quote! {};
    };
    let arms = h.per_location.iter().enumerate().map(|(li, l)| {
        let lit = usize_lit(li);
        let vals = l.iter().enumerate().map(|(p, n)| {
            let p = usize_lit(p);
            let v = num_expr(plan, n, false);
            quote! { out[#p] = #v; }
        });
        quote! { #lit => { #(#vals)* } }
    });
    let mut doc = String::from(
        " The derived heuristic (spec 3.3, existential, default configuration) \
         of every player in `s`, into `out`. Compiled per location:",
    );
    for (li, l) in h.per_location.iter().enumerate() {
        for (p, n) in l.iter().enumerate() {
            doc.push_str(&format!(
                "\n - location {li}, {}: `{}`",
                plan.players[p],
                plan.num_text(n)
            ));
        }
    }
    if h.fallback.is_empty() {
        doc.push_str("\n\n Every part is compiled; nothing runs on the solver.");
    } else {
        doc.push_str("\n\n Parts `[hI by the solver]` are evaluated by the runtime solver on the state's structure:");
        for (i, (t, why)) in h.fallback.iter().enumerate() {
            doc.push_str(&format!(
                "\n - `h{i}` = `{}`: {why}",
                toss_lang::print::print_real(t)
            ));
        }
    }
    let view = (!h.fallback.is_empty()).then(|| {
        quote! { let mut view: ::core::option::Option<::toss::Structure> = None; }
    });
    let fallback = (!h.fallback.is_empty()).then(|| {
        let terms = h
            .fallback
            .iter()
            .map(|(t, _)| toss_lang::print::print_real(t));
        quote! {
            /// The runtime solver on the heuristic's parts outside the
            /// fragment (`h0`, `h1`, ... of the plan, embedded as text),
            /// built on first use.
            pub fn heuristic_fallback() -> &'static ::toss::__private::HeuristicEval {
                static FALLBACK: ::toss::__private::OnceLock<::toss::__private::HeuristicEval> =
                    ::toss::__private::OnceLock::new();
                FALLBACK.get_or_init(|| {
                    ::toss::__private::heuristic_fallback(
                        super::#ident::SOURCE,
                        #file_name,
                        super::#ident::interpreter(),
                        &[#(#terms),*],
                    )
                })
            }
        }
    });
    quote! {
        #fallback

        #[doc = #doc]
        pub fn heuristic(s: &State, out: &mut [f64]) {
            #view
            match s.location {
                #(#arms)*
                _ => {}
            }
        }
    }
}

/// `Game::heuristic_values`, when the heuristic is compiled.
pub(crate) fn heuristic_method(plan: &Plan, module: &Ident) -> Option<TokenStream> {
    plan.heuristic.as_ref().map(|_| {
        quote! {
            fn heuristic_values(
                &self,
                s: &Self::State,
                kind: ::toss::__private::HeuristicKind,
                out: &mut [f64],
            ) -> bool {
                match kind {
                    ::toss::__private::HeuristicKind::Existential => {
                        #module::heuristic(s, out);
                        true
                    }
                    ::toss::__private::HeuristicKind::RuleCondition => false,
                }
            }
        }
    })
}
