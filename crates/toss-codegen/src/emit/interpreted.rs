//! The `Game` impl of a game outside the specialized fragment, and what
//! every impl shares (the embedded description and its interpreter, the
//! stub impl after an error).
//!
//! A game outside the specialized fragment (see [`crate::plan`]) takes the
//! runtime path the design keeps for whatever the specializer cannot
//! handle: the description is embedded with
//! `include_str!` (so Cargo rebuilds when it changes), checked at build time
//! by the same front end and interpreter constructor that run at start-up,
//! and the impl forwards to that interpreter; its doc comment says why.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;
use toss_core::ir;

/// The Toss description a derived game embeds as `X::SOURCE`.
pub(crate) enum Source {
    /// A `.toss` file, with `include_str!`.
    File(String),
    /// The Toss translation of a GDL file (spec chapter 5), as printed
    /// text; the GDL file is still read with `include_str!`, so that Cargo
    /// rebuilds when it changes.
    Translated { gdl_path: String, text: String },
}

impl Source {
    /// The expression of `SOURCE`.
    fn tokens(&self) -> TokenStream {
        match self {
            Source::File(path) => quote! { ::core::include_str!(#path) },
            Source::Translated { gdl_path, text } => quote! {
                {
                    const _GDL: &str = ::core::include_str!(#gdl_path);
                    #text
                }
            },
        }
    }

    /// What the description is, in the words of the doc comments.
    pub(crate) fn describe(&self, file_name: &str) -> String {
        match self {
            Source::File(_) => format!("`{file_name}`"),
            Source::Translated { .. } => {
                format!("`{file_name}` translated to Toss (spec chapter 5)")
            }
        }
    }
}

/// The impl for a game that checked: embed, and forward to the interpreter.
pub(crate) fn interpreted_impl(
    ident: &Ident,
    source: &Source,
    file_name: &str,
    game: &ir::Game,
    reason: &str,
) -> TokenStream {
    let doc = format!(
        " The game {} ({} player(s), {} rule(s), {} location(s)): every \
         method runs the interpreter on the embedded description, because the \
         specializer does not handle it: {reason}.",
        source.describe(file_name),
        game.players.len(),
        game.rules.len(),
        game.locations.len()
    );
    let body = forwarding_methods(quote! { #ident::interpreter() });
    let source = source_and_interpreter(
        ident,
        source,
        file_name,
        &[" The interpreter of this game, built on first use."],
    );
    quote! {
        #source

        #[doc = #doc]
        #[automatically_derived]
        impl ::toss::Game for #ident {
            #body
        }
    }
}

/// `X::SOURCE` (the description, with `include_str!` so Cargo rebuilds when
/// it changes) and `X::interpreter()`, built on first use; `doc` is the
/// latter's doc comment, one string per line.
pub(crate) fn source_and_interpreter(
    ident: &Ident,
    source: &Source,
    file_name: &str,
    doc: &[&str],
) -> TokenStream {
    source_and_interpreter_with(
        ident,
        source,
        doc,
        quote! { ::toss::__private::checked_interpreter(Self::SOURCE, #file_name) },
    )
}

/// [`source_and_interpreter`] with the interpreter built by `init` (an
/// expression of type `Interpreter`).
pub(crate) fn source_and_interpreter_with(
    ident: &Ident,
    source: &Source,
    doc: &[&str],
    init: TokenStream,
) -> TokenStream {
    let source = source.tokens();
    quote! {
        #[automatically_derived]
        impl #ident {
            /// The game description, embedded at build time.
            pub const SOURCE: &'static str = #source;

            #(#[doc = #doc])*
            pub fn interpreter() -> &'static ::toss::__private::Interpreter {
                Self::interpreter_cell().get_or_init(|| #init)
            }

            /// Where [`Self::interpreter`] keeps the interpreter once built.
            fn interpreter_cell() -> &'static ::toss::__private::OnceLock<::toss::__private::Interpreter> {
                static INTERPRETER: ::toss::__private::OnceLock<::toss::__private::Interpreter> =
                    ::toss::__private::OnceLock::new();
                &INTERPRETER
            }

            /// The fault of the interpreter, if it was built and ran into a
            /// limit (see `Game::fault`): parts of the game that fall back
            /// to it evaluate formulas with its solver. (Unused where the
            /// whole game forwards to the interpreter.)
            #[allow(dead_code)]
            fn interpreter_fault() -> ::core::option::Option<::std::string::String> {
                Self::interpreter_cell().get().and_then(::toss::Game::fault)
            }
        }
    }
}

/// An impl that satisfies the trait after an error, so that the one error
/// reported does not cascade into "trait not implemented" errors. Every
/// method is unreachable: the crate does not compile.
pub(crate) fn stub_impl(ident: &Ident) -> TokenStream {
    let msg = "the game description of this type did not compile";
    quote! {
        #[automatically_derived]
        impl ::toss::Game for #ident {
            type State = ::toss::__private::State;
            type Move = ::toss::__private::Move;

            fn player_names(&self) -> &[::std::string::String] {
                ::core::unreachable!(#msg)
            }
            fn initial_state(&self) -> Self::State {
                ::core::unreachable!(#msg)
            }
            fn movers(&self, _: &Self::State, _: &mut ::std::vec::Vec<usize>) {
                ::core::unreachable!(#msg)
            }
            fn legal_moves(&self, _: &Self::State, _: usize, _: &mut ::std::vec::Vec<Self::Move>) {
                ::core::unreachable!(#msg)
            }
            fn apply(&self, _: &mut Self::State, _: &[Self::Move], _: &mut ::toss::Rng) {
                ::core::unreachable!(#msg)
            }
            fn is_terminal(&self, _: &Self::State) -> bool {
                ::core::unreachable!(#msg)
            }
            fn payoffs(&self, _: &Self::State, _: &mut [f64]) {
                ::core::unreachable!(#msg)
            }
            fn to_structure(&self, _: &Self::State) -> ::toss::Structure {
                ::core::unreachable!(#msg)
            }
            fn location(&self, _: &Self::State) -> usize {
                ::core::unreachable!(#msg)
            }
            fn move_to_string(&self, _: &Self::State, _: usize, _: &Self::Move) -> ::std::string::String {
                ::core::unreachable!(#msg)
            }
        }
    }
}

/// The `Game` methods, each forwarding to `target` (an expression of type
/// `&Interpreter`).
pub(crate) fn forwarding_methods(target: TokenStream) -> TokenStream {
    quote! {
        type State = ::toss::__private::State;
        type Move = ::toss::__private::Move;

        fn player_names(&self) -> &[::std::string::String] {
            ::toss::Game::player_names(#target)
        }
        fn initial_state(&self) -> Self::State {
            ::toss::Game::initial_state(#target)
        }
        fn movers(&self, s: &Self::State, out: &mut ::std::vec::Vec<usize>) {
            ::toss::Game::movers(#target, s, out)
        }
        fn legal_moves(&self, s: &Self::State, player: usize, out: &mut ::std::vec::Vec<Self::Move>) {
            ::toss::Game::legal_moves(#target, s, player, out)
        }
        fn apply(&self, s: &mut Self::State, joint: &[Self::Move], rng: &mut ::toss::Rng) {
            ::toss::Game::apply(#target, s, joint, rng)
        }
        fn is_terminal(&self, s: &Self::State) -> bool {
            ::toss::Game::is_terminal(#target, s)
        }
        fn payoffs(&self, s: &Self::State, out: &mut [f64]) {
            ::toss::Game::payoffs(#target, s, out)
        }
        fn to_structure(&self, s: &Self::State) -> ::toss::Structure {
            ::toss::Game::to_structure(#target, s)
        }
        fn location(&self, s: &Self::State) -> usize {
            ::toss::Game::location(#target, s)
        }
        fn has_compound_turns(&self) -> bool {
            ::toss::Game::has_compound_turns(#target)
        }
        fn payoff_bounds(&self) -> ::core::option::Option<(f64, f64)> {
            ::toss::Game::payoff_bounds(#target)
        }
        fn move_to_string(&self, s: &Self::State, player: usize, m: &Self::Move) -> ::std::string::String {
            ::toss::Game::move_to_string(#target, s, player, m)
        }
        fn draw_continuous(&self, s: &Self::State, player: usize, m: &mut Self::Move, rng: &mut ::toss::Rng) {
            ::toss::Game::draw_continuous(#target, s, player, m, rng)
        }
        fn fault(&self) -> ::core::option::Option<::std::string::String> {
            ::toss::Game::fault(#target)
        }
        fn report_fault(&self, message: ::std::string::String) {
            ::toss::Game::report_fault(#target, message)
        }
        fn state_key(&self, s: &Self::State, out: &mut ::std::vec::Vec<u64>) -> bool {
            ::toss::Game::state_key(#target, s, out)
        }
        fn stable_keys(&self) -> bool {
            ::toss::Game::stable_keys(#target)
        }
        fn has_chance(&self) -> bool {
            ::toss::Game::has_chance(#target)
        }
        fn chance_outcomes(
            &self,
            s: &Self::State,
            joint: &[Self::Move],
            out: &mut ::std::vec::Vec<(f64, Self::State)>,
        ) -> bool {
            ::toss::Game::chance_outcomes(#target, s, joint, out)
        }
    }
}
