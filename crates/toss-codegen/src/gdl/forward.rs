//! The impl of a GDL game whose network is too large to compile: every
//! method forwards to `GroundGame` (the network interpreted), ground once
//! from the embedded description at first use.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;
use toss_gdl::ground::GroundProgram;

use super::{MAX_COMPILED_LITERALS, size};

pub(super) fn forwarding_impl(
    ident: &Ident,
    path_lit: &str,
    file_name: &str,
    prog: &GroundProgram,
) -> TokenStream {
    let doc = format!(
        " The GDL game `{file_name}` ({}). Route: forwarded. Its network has more than \
         {MAX_COMPILED_LITERALS} literals, the limit of networks compiled to Rust, so every \
         method forwards to `GroundGame` (the network interpreted), ground from the \
         embedded description on first use.",
        size(prog)
    );
    let g = quote! { #ident::ground_game() };
    quote! {
        #[automatically_derived]
        impl #ident {
            /// The game description, embedded at build time.
            pub const SOURCE: &'static str = ::core::include_str!(#path_lit);

            /// The grounded game, built on first use.
            pub fn ground_game() -> &'static ::toss::__private::GroundGame {
                static GAME: ::toss::__private::OnceLock<::toss::__private::GroundGame> =
                    ::toss::__private::OnceLock::new();
                GAME.get_or_init(|| ::toss::__private::checked_ground_game(Self::SOURCE, #file_name))
            }

            /// The fluents of `s` in KIF, sorted, joined by spaces.
            pub fn state_to_string(&self, s: &::toss::__private::GroundState) -> ::std::string::String {
                #g.state_to_string(s)
            }
        }

        #[doc = #doc]
        #[automatically_derived]
        impl ::toss::Game for #ident {
            type State = ::toss::__private::GroundState;
            type Move = ::toss::__private::GroundMove;

            fn player_names(&self) -> &[::std::string::String] {
                ::toss::Game::player_names(#g)
            }
            fn initial_state(&self) -> Self::State {
                ::toss::Game::initial_state(#g)
            }
            fn movers(&self, s: &Self::State, out: &mut ::std::vec::Vec<usize>) {
                ::toss::Game::movers(#g, s, out)
            }
            fn legal_moves(&self, s: &Self::State, player: usize, out: &mut ::std::vec::Vec<Self::Move>) {
                ::toss::Game::legal_moves(#g, s, player, out)
            }
            fn movers_and_moves(
                &self,
                s: &Self::State,
                movers: &mut ::std::vec::Vec<usize>,
                moves: &mut ::std::vec::Vec<::std::vec::Vec<Self::Move>>,
            ) {
                ::toss::Game::movers_and_moves(#g, s, movers, moves)
            }
            fn apply(&self, s: &mut Self::State, joint: &[Self::Move], rng: &mut ::toss::Rng) {
                ::toss::Game::apply(#g, s, joint, rng)
            }
            // The grounded game's own playout: one lock, the state updated
            // in place, the trait's draws.
            fn random_playout_from(
                &self,
                s: &mut Self::State,
                rng: &mut ::toss::Rng,
                max_turns: usize,
            ) -> (usize, ::toss::Payoffs) {
                ::toss::Game::random_playout_from(#g, s, rng, max_turns)
            }
            fn is_terminal(&self, s: &Self::State) -> bool {
                ::toss::Game::is_terminal(#g, s)
            }
            fn payoffs(&self, s: &Self::State, out: &mut [f64]) {
                ::toss::Game::payoffs(#g, s, out)
            }
            fn to_structure(&self, s: &Self::State) -> ::toss::Structure {
                ::toss::Game::to_structure(#g, s)
            }
            fn location(&self, s: &Self::State) -> usize {
                ::toss::Game::location(#g, s)
            }
            fn has_compound_turns(&self) -> bool {
                ::toss::Game::has_compound_turns(#g)
            }
            fn payoff_bounds(&self) -> ::core::option::Option<(f64, f64)> {
                ::toss::Game::payoff_bounds(#g)
            }
            fn state_key(&self, s: &Self::State, out: &mut ::std::vec::Vec<u64>) -> bool {
                ::toss::Game::state_key(#g, s, out)
            }
            fn stable_keys(&self) -> bool {
                ::toss::Game::stable_keys(#g)
            }
            fn has_chance(&self) -> bool {
                ::toss::Game::has_chance(#g)
            }
            fn move_to_string(&self, s: &Self::State, player: usize, m: &Self::Move) -> ::std::string::String {
                ::toss::Game::move_to_string(#g, s, player, m)
            }
        }
    }
}
