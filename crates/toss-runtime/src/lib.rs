//! The runtime of Toss in Rust: what the interpreter is made of and what
//! generated code falls back on. The logic [`solver`] (spec 1.3: formulas
//! with counting, fixed points and set variables, compiled to plans over a
//! structure), structure [`rewrite`]-ing (spec 1.1), the [`interpreter`]
//! (spec 1.4, with continuous evolution, spec 1.2), the [`ode`] integrators
//! and the [`continuous`] part's compiled terms.
//!
//! Dependency rule: only `toss-core` (and splr, nalgebra). It never depends
//! on a front end, on search or heuristics, on GDL or on the code
//! generator.

pub mod continuous;
pub mod interpreter;
pub mod ode;
pub mod rewrite;
pub mod solver;

pub use interpreter::Interpreter;
