//! Arbitrary bytes into the Toss front end: it must return a game or
//! diagnostics, never panic; a game it returns must print to text that
//! parses back to the same game.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(game) = toss_lang::parse_game_bytes(data, "fuzz.toss") {
        let printed = toss_lang::print_game(&game);
        match toss_lang::parse_game(&printed, "printed.toss") {
            Ok(back) => assert!(back == game, "round trip changed the game:\n{printed}"),
            Err(d) => panic!("printed game does not parse: {d:?}\n{printed}"),
        }
    }
});
