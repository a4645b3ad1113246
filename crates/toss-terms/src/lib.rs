//! Term operations of Toss (spec chapter 2): the part where a user defines
//! a notation and computes with it.
//!
//! - [`types`]: polymorphic types, substitutions, unification with the
//!   occurs check, internal type names and their lexer (2.1);
//! - [`syntax`]: syntax definitions, functional forms, generated names
//!   and their inverse, the display function (2.2);
//! - [`decl`]: declarations in the notation of 2.2.4 and the basic
//!   syntax definitions;
//! - [`diag`]: located errors rendered with line, column and caret.
//!
//! Dependency rule: std only. Nothing of the game engine (no `toss-core`,
//! no front end): term operations stand on their own and the CLI uses
//! them through this crate.

pub mod decl;
pub mod diag;
pub mod syntax;
pub mod types;

pub use types::{Subst, Type, UnifyError, mgu2};
