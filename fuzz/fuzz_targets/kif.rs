//! Arbitrary bytes into the GDL front end alone (faster than `play`): the
//! KIF reader and checker must return a description or diagnostics that
//! point into the text, never panic. The checks are those of
//! `tests/exercise/mod.rs`, shared with the deterministic mutation test.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/exercise/mod.rs"]
#[allow(dead_code)]
mod exercise;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        exercise::check_kif(text);
    }
});
