//! Very large inputs: the front end finishes, without a stack overflow, on
//! files of 50 MB (run in release by the README's test command).

use std::fmt::Write;

const TARGET: usize = 50 * 1024 * 1024;

#[test]
fn fifty_megabytes_of_comments_before_a_game() {
    let line = "// a comment line that goes on for a while, as generated files do\n";
    let mut src = line.repeat(TARGET / line.len());
    src.push_str("PLAYERS a\nLOC 0 { PLAYER a { PAYOFF 0 } }\nSTART [ e | | ]\n");
    assert!(src.len() >= TARGET);
    let game = toss_lang::parse_game(&src, "big.toss").expect("valid game");
    assert_eq!(game.players, ["a"]);
}

#[test]
fn a_fifty_megabyte_structure() {
    let mut src = String::from("PLAYERS a\nLOC 0 { PLAYER a { PAYOFF 0 } }\nSTART [ | E {");
    let mut i = 0usize;
    while src.len() < TARGET {
        let _ = write!(src, "(e{i}, e{}); ", i + 1);
        i += 1;
    }
    src.push_str("(x, y) } | ]\n");
    let game = toss_lang::parse_game(&src, "big.toss").expect("valid game");
    let e = game.start.relation("E").expect("E");
    assert_eq!(game.start.relation_len(e), i + 1);
}

#[test]
fn fifty_megabytes_of_garbage_is_an_error() {
    let junk = "RULE ( [ -> ] emb , ; :( 1e ";
    let src = junk.repeat(TARGET / junk.len());
    let err = toss_lang::parse_game(&src, "junk.toss").expect_err("not a game");
    assert!(!err.is_empty());
}

#[test]
fn fifty_megabytes_of_unclosed_brackets_is_an_error() {
    let src = "PLAYERS a\nREL W() = ".to_string() + &"(".repeat(TARGET);
    let err = toss_lang::parse_game(&src, "deep.toss").expect_err("not a game");
    assert!(err[0].message.contains("nest"), "{}", err[0].message);
}
