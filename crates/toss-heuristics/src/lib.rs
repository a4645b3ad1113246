//! Heuristics derived from the rules (spec 3.2-3.5), as real terms of the
//! IR that the solver evaluates (and the code generator can compile).
//!
//! [`derive`] takes every payoff term of every location and replaces each
//! characteristic function `:(phi)` by a heuristic for `phi`:
//! - defined relations that mention fluents (or have no quantifiers) are
//!   inlined, the formula is put in negation normal form;
//! - maximal stable subformulas with free variables that are not
//!   existential (universal, or negated quantifiers, like the last row
//!   `not ex y C(x, y)`) are replaced by their existential description on
//!   the starting structure ([`describe`], spec 3.4), when one is found;
//! - then either the existential heuristic ([`existential_heuristic`]) of
//!   the TNF ([`tnf`], spec 3.2-3.3), or the rule-condition heuristic
//!   ([`rule_cond`], spec 3.5).
//!
//! [`HeuristicEval`] evaluates the result on interpreter states: as an
//! evaluation game for UCT (a point distribution of payoffs) and as the
//! static evaluation of alpha-beta. [`CompiledHeuristic`] does the same
//! with the terms compiled into a generated game (`#[toss(file = "...",
//! heuristics)]`, [`Game::heuristic_values`](toss_core::game::Game::heuristic_values)),
//! without building a structure per state.
//!
//! Dependency rule: this crate uses `toss-core`, the runtime's solver and
//! interpreter, and the search's evaluation traits; it never imports the
//! front ends, GDL, the compiler or the CLI. The learning of spec chapter 4
//! and of learnt evaluation games belongs here too.

pub mod derive;
pub(crate) mod describe;
mod eval;
pub mod learn;
pub(crate) mod rule_cond;
pub(crate) mod tnf;

pub use derive::{
    HeuristicConfig, Heuristics, Prepared, derive, existential_heuristic, formula_heuristic,
};
pub use eval::{CompiledHeuristic, HeuristicEval, PayoffMap};
pub use toss_core::game::HeuristicKind;

#[cfg(test)]
mod tests;
