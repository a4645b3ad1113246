//! The `toss` command-line tool as a library: loading game files with
//! rendered diagnostics ([`load`]), terminal play ([`play`]) and saved
//! plays ([`record`]), matches
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
pub mod glyphs;
pub mod layout;
pub mod load;
pub mod matches;
pub mod play;
pub mod plays;
pub mod record;
pub mod render;
pub mod simulate;
pub mod solve;

/// An error when the game ran into a limit or a fault of its description
/// ([`Game::fault`](toss_core::Game::fault)): the results computed since
/// are not the game's. Every command (and every `toss build` binary) stops
/// with it.
pub fn fault_check<G: toss_core::Game>(g: &G) -> Result<(), String> {
    match g.fault() {
        Some(f) => Err(format!("the game could not be played on: {f}")),
        None => Ok(()),
    }
}

/// The default limit on the plies of one game in `toss play` and `toss
/// match` (and on the turns of a `toss playout` playout): a game still
/// going after that many is cut.
pub const DEFAULT_MAX_PLIES: usize = 100_000;

/// The exit status of a command whose work a limit stopped: a game cut at
/// its ply limit, a simulation stopped before its end time. Distinct from
/// 1 (an error) and 2 (a bad command line, as clap reports it), so a
/// script can tell figures that leave something out from a failure.
pub const LIMIT_STATUS: u8 = 3;

/// How a command's work ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Finish {
    /// Everything asked for was done to its end.
    Complete,
    /// A limit stopped some of it (the output says what);
    /// [`LIMIT_STATUS`].
    Cut,
}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
