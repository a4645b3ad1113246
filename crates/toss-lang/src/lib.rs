//! The Toss language front end: `.toss` text to the game IR of
//! `toss-runtime`, with diagnostics that point into the source.

pub mod print;

pub use print::{print_formula, print_game, print_number, print_real, print_structure};
