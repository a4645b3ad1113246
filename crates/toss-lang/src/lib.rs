//! The Toss language front end: `.toss` text to the game IR of
//! `toss-runtime`, with diagnostics that point into the source.
