//! Learning formulas and games from examples (spec chapter 4).
//!
//! - [`scene`]: the example structures over one signature (4.1).
//! - [`types`]: first-order and guarded types of tuples as interned ids
//!   (4.3.1-4.3.2).
//! - [`distinguish`]: `Distinguish(P, N)`, a shortest sentence true in the
//!   positive examples and false in the negative ones, found at the first
//!   level of the search order of 4.3.3 that has one.
//! - [`game`]: a whole game from example plays: winning conditions (4.4),
//!   moves and their preconditions (4.5).

pub mod distinguish;
pub mod game;
pub mod scene;
mod tidy;
pub mod types;

pub use distinguish::{
    Attempt, DistinguishError, Distinguished, Level, Limits, Outcome, distinguish,
    distinguish_anchored,
};
pub use game::{Call, LearnError, Learnt, Where, learn_game};
pub use types::Fragment;

#[cfg(test)]
mod tests;
