//! Search: players generic over the [`Game`](toss_core::Game) trait, so
//! that the interpreter, generated code and the GDL reasoner are played
//! alike.
//!
//! - [`player`]: the [`Player`] trait, budgets, the random player and the
//!   one match loop ([`player::play_match`]);
//! - [`uct`]: UCT with evaluation games (spec 3.1), tree and root
//!   parallelism;
//! - [`alphabeta`]: alpha-beta / max^n with a static evaluation.
//!
//! Dependency rule: only `toss-core`. Heuristics plug in through the
//! evaluation traits ([`uct::Evaluator`], [`alphabeta::StaticEval`]) that
//! `toss-heuristics` implements; the exact solver belongs here too.

pub mod alphabeta;
pub mod player;
pub mod uct;

pub use player::{Budget, Player};
