//! `toss synthesize` as a user runs it: the seed's game, Kayles, a
//! family not periodic within its bound, and refused input.

use std::process::{Command, Output};

fn toss(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(args)
        .output()
        .expect("run toss")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn synthesizes_the_seed_game_and_checks_it_to_a_million() {
    let out = toss(&["synthesize", "subtraction", "1,2", "--check", "1000000"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("period 3, preperiod 2"), "{stdout}");
    assert!(
        stdout.contains("for every n <= 1000000; 666667 winning positions"),
        "{stdout}"
    );
    assert!(stdout.contains("re-checked: holds"), "{stdout}");
    for clause in [
        "det_win(0,M).",
        "det_win(s(s(N)),M) :- new3(N,M).",
        "new3(0,1).",
        "new3(s(N),M) :- new4(N,M).",
        "new4(0,2).",
        "new4(s(s(N)),M) :- new3(N,M).",
        "pub fn winning_move(n: u64) -> Option<u32> {",
    ] {
        assert!(stdout.lines().any(|l| l == clause), "{clause}\n{stdout}");
    }
}

#[test]
fn synthesizes_kayles_and_normal_play() {
    let out = toss(&["synthesize", "octal", "0.77", "--emit", "rust"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("period 12, preperiod 71"), "{stdout}");
    assert!(
        stdout.contains("pub fn grundy(n: u64) -> u32 {"),
        "{stdout}"
    );
    assert!(!stdout.contains("grundy(0,0)."), "{stdout}");
    let out = toss(&[
        "synthesize",
        "subtraction",
        "1,3,4",
        "--play",
        "normal",
        "--emit",
        "none",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("period 7,"), "{stdout}");
}

#[test]
fn says_when_no_period_is_proven_and_refuses_bad_input() {
    let out = toss(&["synthesize", "octal", "0.77", "--bound", "100"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("not periodic within bound 100"), "{stderr}");
    assert!(stderr.contains("period 12"), "{stderr}");
    for (args, says) in [
        (
            &["synthesize", "octal", "0.77", "--bound", "100000000"][..],
            "above the limit",
        ),
        (&["synthesize", "subtraction", "1,x"][..], "`x`"),
        (&["synthesize", "octal", "0.9"][..], "octal digit"),
        (&["synthesize", "heaps", "1"][..], "unknown family"),
        (
            &["synthesize", "subtraction", "1,2", "--emit", "c"][..],
            "--emit",
        ),
    ] {
        let out = toss(args);
        assert!(!out.status.success(), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
