//! Pathological inputs: the front end returns Ok or Err, never panics,
//! overflows the stack or hangs.

#![allow(clippy::unwrap_used)]

use toss_lang::{parse_game, parse_game_bytes, render_diagnostics};

fn run(src: &str) {
    if let Err(d) = parse_game(src, "p.toss") {
        assert!(!d.is_empty());
        let _ = render_diagnostics(&d, src, "p.toss", false);
    }
}

#[test]
fn deep_nesting_is_rejected_with_a_diagnostic() {
    let n = 100_000;
    let cases = [
        format!("PLAYERS a\nREL W() = {}P(){}", "(".repeat(n), ")".repeat(n)),
        format!("PLAYERS a\nREL W() = {}true", "not ".repeat(n)),
        format!("PLAYERS a\nREL W() = {}true", "ex x ".repeat(n)),
        format!("PLAYERS a\nREL W() = {}true", "¬".repeat(n)),
        format!(
            "PLAYERS a\nLOC 0 {{ PLAYER a {{ PAYOFF {}1 }} }}",
            "- ".repeat(n)
        ),
        format!(
            "PLAYERS a\nLOC 0 {{ PLAYER a {{ PAYOFF 1{} }} }}",
            " + 1".repeat(n)
        ),
        format!(
            "PLAYERS a\nLOC 0 {{ PLAYER a {{ PAYOFF {}1 }} }}",
            ":(:(".repeat(n)
        ),
        format!("PLAYERS a\nREL W() = true{}", " -> true".repeat(n)),
        format!("PLAYERS a\nREL W() = true{}", " <-> true".repeat(n)),
        format!("PLAYERS a\nSTART [{}", "[".repeat(n)),
        "(".repeat(n),
        "{".repeat(n),
    ];
    for src in &cases {
        let r = parse_game(src, "p.toss");
        let d = r.expect_err("nested input must be rejected");
        let out = render_diagnostics(&d, src, "p.toss", false);
        assert!(out.contains("p.toss:"), "{out}");
    }
    let d = parse_game(&cases[0], "p.toss").unwrap_err();
    assert!(
        d[0].message.contains("nesting too deep"),
        "{}",
        d[0].message
    );
}

#[test]
fn nesting_below_the_limit_is_accepted() {
    let n = toss_lang::MAX_NESTING - 5;
    let src = format!(
        "PLAYERS a\nSTART [ | P:1 {{}} | ]\nLOC 0 {{}}\nREL W() = {}ex x P(x){}",
        "(".repeat(n),
        ")".repeat(n)
    );
    parse_game(&src, "p.toss").unwrap_or_else(|d| panic!("{}", d[0].message));
    let src = format!(
        "PLAYERS a\nSTART [ | P:1 {{}} | ]\nLOC 0 {{}}\nREL W() = {}P(x)",
        "ex x ".repeat(n)
    );
    parse_game(&src, "p.toss").unwrap_or_else(|d| panic!("{}", d[0].message));
}

#[test]
fn every_prefix_of_tic_tac_toe() {
    let src = include_str!("fixtures/tic-tac-toe.toss");
    for end in 0..=src.len() {
        if src.is_char_boundary(end) {
            run(&src[..end]);
        }
    }
}

#[test]
fn invalid_utf8_is_reported_at_its_offset() {
    let mut bytes = b"PLAYERS a\nSTART [ | | ]\n".to_vec();
    let at = bytes.len();
    bytes.extend_from_slice(&[0xff, 0xfe, b'x']);
    let d = parse_game_bytes(&bytes, "u.toss").unwrap_err();
    assert!(
        d[0].message.contains(&format!("byte offset {at}")),
        "{}",
        d[0].message
    );
    assert_eq!(d[0].span.start, at);
    let valid = std::str::from_utf8(&bytes[..at]).unwrap();
    let out = render_diagnostics(&d, valid, "u.toss", false);
    assert!(out.contains("u.toss:2:15"), "{out}");
}

#[test]
fn nul_bytes_and_garbage() {
    run("PLAYERS a\0b\nSTART [ | | ]");
    run("\0\0\0");
    run("PLAYERS a\nSTART [ | | ] \"\0\"\nLOC 0 {}");
    run("\"");
    run("//");
    run("REL");
    run("]]]]))))}}}}");
    run("PLAYERS a\nSTART [ | | ]\nLOC 99999999999999999999999 {}");
    run("PLAYERS a\nSTART [ | P:99999999999999999999 {} | ]\nLOC 0 {}");
    run("PLAYERS a\nSTART [ | P:1000000 {} | ]\nLOC 0 {}");
    run("PLAYERS a\nLOC 0 { PLAYER a { PAYOFF root(0, 1) + 1e999999 } }");
    run("PLAYERS a\nSTART [ | | ] \"\n\u{00e9} .\n\"");
    let d = parse_game("PLAYERS a\0", "n.toss").unwrap_err();
    assert!(d[0].message.contains("NUL"), "{}", d[0].message);
}

#[test]
fn pathological_backtracking_terminates() {
    // Mixed term/formula brackets make the parser try both readings.
    let n = toss_lang::MAX_NESTING / 2 - 2;
    let src = format!(
        "PLAYERS a\nLOC 0 {{ PLAYER a {{ PAYOFF {}1{} }} }}",
        ":((".repeat(n),
        "))".repeat(n)
    );
    run(&src);
    let src = format!(
        "PLAYERS a\nREL W() = {}:a < 1{}",
        "(".repeat(190),
        ")".repeat(190)
    );
    run(&src);
}
