//! The runtime of Toss in Rust: the IR of games, relational structures, the
//! logic solver, structure rewriting, game semantics and the interpreter.
//!
//! Both the interpreter and generated code link against this crate; it never
//! depends on the parser or on the code generator.

pub mod alphabeta;
pub mod analysis;
pub mod bits;
pub mod continuous;
pub mod game;
pub mod gdl;
pub mod heuristic;
pub mod interpreter;
pub mod ir;
pub mod ode;
pub mod player;
pub mod rewrite;
pub mod solver;
pub mod structure;
pub mod uct;

pub use bits::Bits;
pub use game::{Game, Rng};
pub use interpreter::Interpreter;
pub use player::{Budget, Player};
pub use structure::{BitSet, Elem, FunId, RelId, Structure};
