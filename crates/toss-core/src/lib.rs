//! The core of Toss in Rust: what every stage of the pipeline shares.
//!
//! - [`ir`]: the game IR in the words of spec chapter 1 (formulas, real
//!   terms, rules, locations, games), with [`ir::subst`] (substitution
//!   with bound names) and [`ir::bounds`] (payoff bounds by interval
//!   arithmetic);
//! - [`structure`]: finite relational structures with real functions;
//! - [`bits`]: the fixed-width bitsets of generated code;
//! - [`game`]: the [`Game`] trait that the interpreter, generated code and
//!   the GDL reasoner implement and that players and tools use;
//! - [`analysis`]: the facts of a game computed once (stable and fluent
//!   relations, the relations each rule changes);
//! - [`limits`]: the resource limits every engine keeps to.
//!
//! Dependency rule: this crate imports no other crate of the workspace.
//! Everything else (front ends, runtime, search, heuristics, GDL, the
//! compiler, the CLI) depends on it.

pub mod analysis;
pub mod bits;
pub mod game;
pub mod ir;
pub mod limits;
pub mod plays;
pub mod repetition;
pub mod structure;

pub use bits::Bits;
pub use game::{Game, Payoffs, Rng};
pub use structure::{BitSet, Elem, FunId, RelId, Structure};
