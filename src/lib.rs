//! The `toss` command-line tool as a library: loading game files with
//! rendered diagnostics ([`load`]), terminal play ([`play`]), matches
//! between programs ([`matches`]), continuous simulation ([`simulate`]),
//! pictures ([`render`], [`layout`]), and the General Game Playing player
//! and referee ([`ggp`]). `src/main.rs` parses the command line and calls
//! into these.
//!
//! Dependency rule: this is the top of the workspace. It may use every
//! crate below (through the facade `toss` or directly) and the
//! command-line dependencies (clap, indicatif, plotters); no
//! crate imports it.

pub mod ggp;
pub mod layout;
pub mod load;
pub mod matches;
pub mod play;
pub mod render;
pub mod simulate;
pub mod solve;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
