//! Search: players generic over the [`Game`](toss_core::Game) trait, so
//! that the interpreter, generated code and the GDL reasoner are played
//! alike.
//!
//! - [`player`]: the [`Player`] trait, budgets, the random player and the
//!   one match loop ([`player::play_match`]);
//! - [`uct`]: UCT with evaluation games (spec 3.1), tree and root
//!   parallelism;
//! - [`alphabeta`]: alpha-beta / max^n with a static evaluation;
//! - [`solve`]: exact values (alpha-beta on proven intervals with a
//!   transposition table, matrix games, expectations, max^n), retrograde
//!   analysis and the solver player.
//!
//! Dependency rule: only `toss-core`. Heuristics plug in through the
//! evaluation traits ([`uct::Evaluator`], [`alphabeta::StaticEval`]) that
//! `toss-heuristics` implements; and so does the exact solver.

pub mod alphabeta;
pub mod player;
pub mod solve;
pub mod uct;

pub use player::{Budget, Player};
