//! Code generation for Toss in Rust: from a game description to Rust code
//! implementing the runtime's `Game` trait.
//!
//! This crate is an ordinary library (the proc-macro crate `toss-macros`
//! only forwards to [`derive_game`]), so every stage can be unit- and
//! snapshot-tested. Errors never panic: they become `compile_error!`s at the
//! span of the path literal, and a stub impl is still emitted so one error
//! does not cascade into many.
//!
//! Stages: [`attr`] reads `#[toss(...)]`; [`source`] finds and reads the
//! file; `toss-lang` parses and checks it; [`plan`] decides the
//! specialization; [`specialize`] writes the specialized impl, or [`emit`]
//! the interpreter-forwarding one for games outside the fragment; [`ode`]
//! compiles the ODE right-hand sides and update terms of games with
//! continuous dynamics.

pub mod attr;
pub mod emit;
pub mod ode;
pub mod plan;
pub mod source;
pub mod specialize;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// The whole derive: `#[derive(Game)] #[toss(file = "...")] struct X;`.
pub fn derive_game(input: TokenStream) -> TokenStream {
    derive_game_with(input, None)
}

/// The derive with game paths relative to `base` instead of the crate's
/// manifest directory (for snapshot tests).
pub fn derive_game_in(input: TokenStream, base: &std::path::Path) -> TokenStream {
    derive_game_with(input, Some(base))
}

fn derive_game_with(input: TokenStream, base: Option<&std::path::Path>) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    match expand(&input, base) {
        Ok(tokens) => tokens,
        Err(e) => {
            let err = e.to_compile_error();
            let stub = emit::stub_impl(&input.ident);
            quote! { #err #stub }
        }
    }
}

fn expand(input: &DeriveInput, base: Option<&std::path::Path>) -> Result<TokenStream, syn::Error> {
    let attr = attr::parse(&input.attrs)?;
    if let Some(gdl) = &attr.gdl {
        return Err(syn::Error::new(
            gdl.span(),
            "`gdl = \"...\"` is reserved for the GDL-to-Toss translation, which this \
             version does not have yet; use `file = \"game.toss\"`",
        ));
    }
    let Some(file) = attr.file else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "missing game file: add #[toss(file = \"games/name.toss\")]",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "a game type takes no generics",
        ));
    }
    let base = match base {
        Some(b) => b.to_path_buf(),
        None => source::manifest_dir().map_err(|e| syn::Error::new(file.span(), e))?,
    };
    let path =
        source::resolve(&base, &file.value()).map_err(|e| syn::Error::new(file.span(), e))?;
    let shown = file.value();
    let text = source::read(&path, &shown).map_err(|e| syn::Error::new(file.span(), e))?;
    let game = toss_lang::parse_game(&text, &shown).map_err(|diags| {
        syn::Error::new(
            file.span(),
            toss_lang::render_diagnostics(&diags, &text, &shown, false),
        )
    })?;
    // The interpreter is built here exactly as at run time, so a game that
    // compiles cannot fail to load when the program starts.
    let interp = toss_runtime::Interpreter::new(&game)
        .map_err(|e| syn::Error::new(file.span(), format!("{shown}: {e}")))?;
    if ode::has_dynamics(&game) {
        return ode::continuous_impl(&input.ident, &path, &game, &interp)
            .map_err(|e| syn::Error::new(file.span(), format!("{shown}: {e}")));
    }
    Ok(match plan::Plan::build(&game) {
        Ok(plan) => specialize::specialized_impl(&input.ident, &path, &plan),
        Err(reason) => emit::interpreted_impl(&input.ident, &path, &game, &reason),
    })
}
