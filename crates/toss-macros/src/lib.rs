//! `#[derive(Game)]`: reads a game description at build time and implements
//! the runtime's `Game` trait. All the work is in `toss-codegen`; this crate
//! only forwards, so the code generator stays an ordinary, testable library.
//!
//! Dependency rule: `toss-codegen` only.

use proc_macro::TokenStream;

/// Implements `toss::Game` for a unit struct from a game file:
///
/// ```ignore
/// #[derive(toss::Game)]
/// #[toss(file = "games/tic-tac-toe.toss")]
/// pub struct TicTacToe;
/// ```
///
/// The path is relative to the crate's `CARGO_MANIFEST_DIR`. Errors in the
/// file become compile errors showing the file, line and column.
#[proc_macro_derive(Game, attributes(toss))]
pub fn derive_game(input: TokenStream) -> TokenStream {
    toss_codegen::derive_game(input.into()).into()
}
