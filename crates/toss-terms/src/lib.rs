//! Term operations of Toss (spec chapter 2): the part where a user defines
//! a notation and computes with it.
//!
//! - [`types`]: polymorphic types, substitutions, unification with the
//!   occurs check, internal type names and their lexer (2.1).
//!
//! Dependency rule: std only. Nothing of the game engine (no `toss-core`,
//! no front end): term operations stand on their own and the CLI uses
//! them through this crate.

pub mod types;

pub use types::{Subst, Type, UnifyError, mgu2};
