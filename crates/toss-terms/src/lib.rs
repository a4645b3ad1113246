//! Term operations of Toss (spec chapter 2): the part where a user defines
//! a notation and computes with it.
//!
//! - [`types`]: polymorphic types, substitutions, unification with the
//!   occurs check, internal type names and their lexer (2.1);
//! - [`syntax`]: syntax definitions, functional forms, generated names
//!   and their inverse, the display function (2.2);
//! - [`decl`]: declarations in the notation of 2.2.4 and the basic
//!   syntax definitions;
//! - [`term`]: terms, the signature, `TermVar`, the internal display
//!   format and the coding of strings, lists, types and terms (2.3.1, 2.3.4);
//! - [`typing`]: well-typed terms and type reconstruction (2.3.2, 2.3.3);
//! - [`rewrite`]: rewrite rules and their six conditions, Algorithm 4
//!   (REJECT / CLOG / APPLY), ordered first-match rewriting (2.4, 2.5.1);
//! - [`normalise`]: normalisation, Algorithm 5, with brackets,
//!   if-then-else, verbatim, the memo table and the step limit (2.5.2),
//!   and the meta-level functions of 2.2.4 (`code`, `decode`, `get ...`),
//!   on shared terms (`shared`: hash-consed, equal terms are equal ids);
//! - [`parse`]: the lexer, the chart parser with type reconstruction,
//!   disambiguation by generality and preferences (2.6);
//! - [`program`]: `.terms` files (declarations, `Let ... be ...` rules,
//!   preferences) and evaluating terms written in the user's syntax;
//! - [`diag`]: located errors rendered with line, column and caret.
//!
//! Dependency rule: std only. Nothing of the game engine (no `toss-core`,
//! no front end): term operations stand on their own and the CLI uses
//! them through this crate.

pub mod decl;
pub mod diag;
pub mod normalise;
pub mod parse;
pub mod program;
pub mod rewrite;
mod shared;
pub mod syntax;
pub mod term;
pub mod types;
pub mod typing;

pub use types::{Subst, Type, UnifyError, mgu2};
