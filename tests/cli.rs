//! The `toss` binary as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn toss(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run toss");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("toss output")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn check_summarises_tic_tac_toe() {
    let out = toss(&["check", "games/tic-tac-toe.toss"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("players    xplayer, oplayer"), "{stdout}");
    assert!(stdout.contains("elements   9"), "{stdout}");
    // P and Q change, the board relations do not.
    assert!(
        stdout
            .lines()
            .any(|l| l.trim_start().starts_with("P ") && l.contains("fluent")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.trim_start().starts_with("R ") && l.contains("stable")),
        "{stdout}"
    );
}

#[test]
fn check_reports_errors_with_file_line_and_column_and_fails() {
    let dir = std::env::temp_dir().join(format!("toss-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.toss");
    std::fs::write(&bad, "PLAYERS a\nRULE M: [x | | ] -> [x | P (x) | ]\nLOC 0 { PLAYER a { MOVES [Nope -> 0] } }\nSTART [ e | | ]\n")
        .expect("write");
    let out = toss(&["check", bad.to_str().expect("utf-8 path")], "");
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("bad.toss:3:"), "{stderr}");
    assert!(stderr.contains("Nope"), "{stderr}");
}

#[test]
fn perft_prints_the_total_alone_on_the_last_line() {
    let out = toss(&["perft", "games/tic-tac-toe.toss", "3", "--divide"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success());
    assert_eq!(stdout.lines().last(), Some("504"));
    assert_eq!(
        stdout.lines().count(),
        10,
        "nine first moves and the total: {stdout}"
    );
}

#[test]
fn play_reads_moves_from_standard_input_and_asks_again_on_bad_input() {
    // Cross takes the left column while Circle answers in the middle one.
    let moves = "a1\nb1\nnonsense\na2\nb2\na3\n";
    let out = toss(
        &[
            "play",
            "games/tic-tac-toe.toss",
            "--player",
            "human",
            "--player",
            "human",
        ],
        moves,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("`nonsense` is not a legal move"),
        "{stdout}"
    );
    assert!(stdout.contains("The play has ended."), "{stdout}");
    assert!(stdout.contains("xplayer: 1"), "{stdout}");
    assert!(stdout.contains("oplayer: -1"), "{stdout}");
}

#[test]
fn show_writes_an_svg_of_the_position_after_the_moves() {
    let svg = std::env::temp_dir().join(format!("toss-show-{}.svg", std::process::id()));
    let out = toss(
        &[
            "show",
            "games/tic-tac-toe.toss",
            "--moves",
            "b2,a1",
            "--svg",
            svg.to_str().expect("path"),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let picture = std::fs::read_to_string(&svg).expect("svg written");
    assert!(picture.starts_with("<svg"));
    assert_eq!(picture.matches(">P</text>").count(), 1);
    assert_eq!(picture.matches(">Q</text>").count(), 1);
}

#[test]
fn show_rejects_an_illegal_move() {
    let out = toss(
        &[
            "show",
            "games/tic-tac-toe.toss",
            "--moves",
            "b2,b2",
            "--svg",
            "/dev/null",
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("move 2"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn match_prints_a_table_and_the_result_line_last() {
    let out = toss(
        &[
            "match",
            "games/tic-tac-toe.toss",
            "--player",
            "uct:iters=200",
            "--player",
            "random",
            "-n",
            "6",
            "--swap",
        ],
        "",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let last = stdout.lines().last().unwrap_or_default();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.len(), 5, "{last}");
    assert_eq!(
        (words[0], words[1], words[3]),
        ("result", "uct:iters=200", "random")
    );
    let (a, b): (f64, f64) = (
        words[2].parse().expect("score"),
        words[4].parse().expect("score"),
    );
    assert!(
        (a + b - 1.0).abs() < 1e-9,
        "two-player scores sum to 1: {last}"
    );
    // Each spec played each seat three times.
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("random ")).count(),
        3,
        "{stdout}"
    );
}

#[test]
fn match_is_reproducible_for_a_seed() {
    let args = [
        "match",
        "games/tic-tac-toe.toss",
        "--player",
        "uct:iters=50",
        "--player",
        "uct:iters=50",
        "-n",
        "4",
        "--seed",
        "9",
    ];
    assert_eq!(toss(&args, "").stdout, toss(&args, "").stdout);
}

#[test]
fn bad_player_specs_are_refused_with_a_reason() {
    let out = toss(
        &[
            "match",
            "games/tic-tac-toe.toss",
            "--player",
            "uct:depth=3",
            "--player",
            "random",
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("`depth` is not an option of `uct`"),
        "{}",
        text(&out.stderr)
    );
}
