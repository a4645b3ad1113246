//! Arbitrary bytes as a game of either front end, loaded and played: the
//! first byte picks the language (even: `.toss`, odd: GDL) and the seed of
//! the random plies, the rest is the description. See
//! `tests/exercise/mod.rs`, which the deterministic mutation test shares.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/exercise/mod.rs"]
mod exercise;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, description)) = data.split_first() else {
        return;
    };
    let seed = u64::from(selector >> 1);
    if selector % 2 == 0 {
        exercise::exercise_toss(description, seed);
    } else {
        exercise::exercise_kif(description, seed);
    }
});
