//! The test kit of the workspace (never published): what tests of several
//! crates share.
//!
//! - [`fixtures`]: games and pieces of games built by hand in the IR;
//! - [`arbitrary`]: random valid games and formulas (proptest strategies and
//!   a choice-driven generator) covering every construct of the IR;
//! - [`mutate`]: byte- and token-level mutations of game sources;
//! - [`corpus`]: the GDL corpus and the references in `../shared`, which
//!   fail loudly when missing.
//!
//! Dependency rule: `toss-core`, and `toss-lang` for the printer that
//! random games are checked against (and proptest); every crate may use it
//! as a dev-dependency, none as a normal one.

pub mod arbitrary;
pub mod corpus;
pub mod fixtures;
pub mod mutate;
