//! The `toss` binary as a user runs it.

use std::process::{Command, Stdio};

mod common;

use common::{field, text, toss, toss_with_stdin};

#[test]
fn check_summarises_tic_tac_toe() {
    let out = toss_with_stdin(&["check", "games/tic-tac-toe.toss"], "");
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
    // :(WinP()) - :(WinQ()) and the reverse.
    assert!(stdout.contains("payoffs    within [-1, 1]"), "{stdout}");
}

#[test]
fn check_reports_errors_with_file_line_and_column_and_fails() {
    let dir = std::env::temp_dir().join(format!("toss-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.toss");
    std::fs::write(&bad, "PLAYERS a\nRULE M: [x | | ] -> [x | P (x) | ]\nLOC 0 { PLAYER a { MOVES [Nope -> 0] } }\nSTART [ e | | ]\n")
        .expect("write");
    let out = toss_with_stdin(&["check", bad.to_str().expect("utf-8 path")], "");
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("bad.toss:3:"), "{stderr}");
    assert!(stderr.contains("Nope"), "{stderr}");
}

/// Errors in a game's continuous part are the front end's too: a non-
/// arithmetic ODE term is reported with its line, column and a caret.
#[test]
fn check_reports_continuous_errors() {
    let dir = std::env::temp_dir().join(format!("toss-cli-ode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("fall.toss");
    std::fs::write(
        &bad,
        "PLAYERS a\nRULE Fall: [x | | ] -> [x | | ]\n  dynamics :y'(x) = Sum (z | z = x : 1)\n\
         LOC 0 { PLAYER a { MOVES [Fall, t: 0 -- 1 -> 0] } }\nSTART [ e | | y { e -> 1 } ]\n",
    )
    .expect("write");
    let out = toss_with_stdin(&["check", bad.to_str().expect("utf-8 path")], "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("fall.toss:3:21"), "{stderr}");
    assert!(
        stderr.contains("a sum `Sum (...)` in an ODE's right-hand side"),
        "{stderr}"
    );
    assert!(stderr.contains("^"), "{stderr}");
    assert!(stderr.contains("expected a number"), "{stderr}");
}

#[test]
fn perft_prints_the_total_alone_on_the_last_line() {
    let out = toss_with_stdin(&["perft", "games/tic-tac-toe.toss", "3", "--divide"], "");
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
    let out = toss_with_stdin(
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
    let out = toss_with_stdin(
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
    // xplayer's mark P is an X, oplayer's Q an O, each explained once in
    // the legend.
    assert_eq!(
        picture
            .matches("class=\"piece\" fill=\"#111\">X</text>")
            .count(),
        1
    );
    assert_eq!(
        picture
            .matches("class=\"piece\" fill=\"#111\">O</text>")
            .count(),
        1
    );
    assert!(picture.contains(">P (xplayer)</text>"), "{picture}");
    assert!(picture.contains(">Q (oplayer)</text>"), "{picture}");
}

#[test]
fn show_rejects_an_illegal_move() {
    let out = toss_with_stdin(
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
    let out = toss_with_stdin(
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
    // One progress line per game on stderr, in order, the seats rotating
    // with --swap; tic-tac-toe ends after 5 to 9 plies.
    let stderr = text(&out.stderr);
    let games: Vec<&str> = stderr.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 6, "{stderr}");
    for (i, line) in games.iter().enumerate() {
        let seats = if i % 2 == 0 {
            "xplayer uct:iters=200, oplayer random;"
        } else {
            "xplayer random, oplayer uct:iters=200;"
        };
        assert!(
            line.starts_with(&format!("game {}/6: {seats}", i + 1)),
            "{line}"
        );
        let (rest, plies) = line.rsplit_once("; ").expect("plies");
        let plies: usize = plies.trim_end_matches(" plies").parse().expect("plies");
        assert!((5..=9).contains(&plies), "{line}");
        assert!(
            rest.ends_with("; xplayer wins")
                || rest.ends_with("; oplayer wins")
                || rest.ends_with("; draw"),
            "{line}"
        );
    }
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
    let (a, b) = (toss_with_stdin(&args, ""), toss_with_stdin(&args, ""));
    assert_eq!(a.stdout, b.stdout);
    // The per-game progress lines too.
    assert!(
        text(&a.stderr).contains("game 4/4: "),
        "{}",
        text(&a.stderr)
    );
    assert_eq!(a.stderr, b.stderr);
}

#[test]
fn bad_player_specs_are_refused_with_a_reason() {
    let out = toss_with_stdin(
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
    for (spec, why) in [
        ("uct:evals=2,weight=3", "1 <= E' <= E"),
        ("uct+heur:playout=cutoff0", "K >= 1"),
        ("uct+heur:playout=mix2", "0 <= L <= 1"),
        ("uct+heur:scale=-1", "positive"),
        ("uct:scale=2", "`scale` is not an option of `uct`"),
        ("uct:c=nan", "a number >= 0"),
        ("uct:c=inf", "a number >= 0"),
        ("uct+heur:c=-1", "a number >= 0"),
    ] {
        let out = toss_with_stdin(
            &[
                "match",
                "games/tic-tac-toe.toss",
                "--player",
                spec,
                "--player",
                "random",
            ],
            "",
        );
        assert!(!out.status.success(), "{spec} accepted");
        assert!(text(&out.stderr).contains(why), "{}", text(&out.stderr));
    }
}

/// A file of the GDL corpus beside the repository, as CI has it (the test
/// fails when it is missing).
fn corpus(file: &str) -> String {
    let p = toss_testkit::corpus::gdl_dir().join(file);
    assert!(p.exists(), "{} is missing", p.display());
    p.display().to_string()
}

#[test]
fn gdl_files_work_with_check_perft_and_play() {
    let ttt = corpus("ticTacToe.kif");
    let out = toss_with_stdin(&["check", &ttt], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("roles      xplayer, oplayer"));
    let out = toss_with_stdin(&["perft", &ttt, "3"], "");
    assert_eq!(text(&out.stdout).lines().last(), Some("504"));
    // xplayer takes the first column; the idle role's noop plays itself.
    let out = toss_with_stdin(
        &["play", &ttt, "--player", "human", "--player", "human"],
        "(mark 1 1)\n(mark 2 2)\n(mark 1 2)\n(mark 3 3)\n(mark 1 3)\n",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("xplayer: 100") && stdout.contains("oplayer: 0"),
        "{stdout}"
    );
}

#[test]
fn gdl_engines_agree_and_ground_prints_the_network() {
    let c4 = corpus("connect4.kif");
    for engine in ["grounded", "reasoner", "auto"] {
        let out = toss_with_stdin(&["perft", &c4, "4", "--engine", engine], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout).lines().last(), Some("2401"), "{engine}");
        // The same seeded playouts on both engines: the same mean payoffs.
        let out = toss_with_stdin(
            &[
                "playout", &c4, "-n", "50", "--seed", "3", "--engine", engine,
            ],
            "",
        );
        let stdout = text(&out.stdout);
        let means: Vec<&str> = stdout.lines().filter(|l| l.starts_with("mean")).collect();
        assert_eq!(means.len(), 3, "{stdout}");
        let again = toss_with_stdin(&["playout", &c4, "-n", "50", "--seed", "3"], "");
        let again = text(&again.stdout);
        assert_eq!(
            means,
            again
                .lines()
                .filter(|l| l.starts_with("mean"))
                .collect::<Vec<_>>()
        );
    }
    let out = toss_with_stdin(&["ground", &corpus("ticTacToe.kif"), "--summary"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("size: 29 fluents, 20 inputs,"),
        "{}",
        text(&out.stdout)
    );
    let out = toss_with_stdin(&["ground", &corpus("ticTacToe.kif")], "");
    assert!(text(&out.stdout).contains("f1 (control xplayer) init next=f0"));
    // Over the grounding limit: an error naming it, when asked for.
    let out = toss_with_stdin(
        &["perft", &corpus("amazons.kif"), "1", "--engine", "grounded"],
        "",
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("not grounded: grounding limit"),
        "{}",
        text(&out.stderr)
    );
    let out = toss_with_stdin(&["ground", "games/tic-tac-toe.toss"], "");
    assert!(text(&out.stderr).contains("takes a GDL file"));
}

#[test]
fn a_broken_gdl_file_is_an_error_with_its_location() {
    let bad = corpus("conformance/gdl-validation/badparens1.kif");
    let out = toss_with_stdin(&["check", &bad], "");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("badparens1.kif:1:5"),
        "{}",
        text(&out.stderr)
    );
}

/// `toss simulate` on bounce.toss: the first line is the first bounce, at
/// sqrt(2 * 10 / 9.81), with the adaptive method and with RK4; the final
/// values follow; `--plot` writes an SVG.
#[test]
fn simulate_prints_bounces_and_plots() {
    let dir = std::env::temp_dir().join(format!("toss-simulate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let svg = dir.join("bounce.svg");
    let svg_arg = svg.to_string_lossy().into_owned();
    for extra in [vec!["--plot", svg_arg.as_str()], vec!["--step", "0.01"]] {
        let mut args = vec!["simulate", "games/bounce.toss", "--until", "5"];
        args.extend(extra.iter().copied());
        let out = toss_with_stdin(&args, "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        let first = lines[0]
            .strip_prefix("t=")
            .and_then(|l| l.strip_suffix(" rule=Bounce"))
            .and_then(|t| t.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("{stdout}"));
        assert!(
            (first - (2.0 * 10.0 / 9.81f64).sqrt()).abs() < 1e-6,
            "{first}"
        );
        // Bounces at 1.43, 3.71 (and 5.54, after --until 5).
        assert_eq!(lines[1].split(' ').nth(1), Some("rule=Bounce"));
        assert_eq!(lines[2], "final t=5", "{stdout}");
        assert!(lines.contains(&":n(b) = 2"), "{stdout}");
        assert!(lines.iter().any(|l| l.starts_with(":y(b) = ")), "{stdout}");
    }
    let plot = std::fs::read_to_string(&svg).expect("the plot was written");
    assert!(plot.starts_with("<svg") && plot.trim_end().ends_with("</svg>"));
    assert!(
        plot.contains("y(b)") && plot.contains("<polyline"),
        "{plot}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn simulate_refuses_bad_steps() {
    let out = toss_with_stdin(
        &[
            "simulate",
            "games/bounce.toss",
            "--until",
            "5",
            "--step",
            "0",
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--step 0 is not a positive step"));
}

/// A chess board with its clock: the 64 squares and the pieces, the clock
/// listed below, no graph of the thousands of relation tuples.
#[test]
fn show_draws_chess_as_a_board_with_its_clock_beside() {
    let dir = std::env::temp_dir().join(format!("toss-show-chess-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let svg = dir.join("chess.svg");
    let out = toss_with_stdin(
        &[
            "show",
            "games/chess.toss",
            "--moves",
            "e2 e4",
            "--svg",
            svg.to_str().expect("path"),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let picture = std::fs::read_to_string(&svg).expect("svg written");
    assert_eq!(picture.matches("<rect x=").count(), 64, "{picture}");
    assert!(!picture.contains("<line"), "no arrows: {picture}");
    let piece = |glyph: &str| format!("class=\"piece\" fill=\"#111\">{glyph}</text>");
    assert_eq!(picture.matches(&piece("♙")).count(), 8);
    assert_eq!(picture.matches(&piece("♜")).count(), 2);
    assert_eq!(picture.matches(&piece("♔")).count(), 1);
    // Castling rights (Cr) on the four rooks and two kings: a marker each.
    assert_eq!(
        picture
            .matches("class=\"mark\" fill=\"#a33\">'</text>")
            .count(),
        6
    );
    assert!(picture.contains(">W Pawn</text>"), "{picture}");
    assert!(picture.contains(">Cr</text>"), "{picture}");
    // After the double step the clock holds the pawn's column (e = 5).
    assert!(
        picture.contains(">clock: Clock; n = 0, ep = 5</text>"),
        "{picture}"
    );
    // Draughts and dice likewise, with the clock and the die off the board.
    for (game, squares, other) in [
        (
            "games/english-draughts.toss",
            32,
            ">clock: Clock; n = 0</text>",
        ),
        ("games/dice.toss", 32, ">die: Die</text>"),
    ] {
        let out = toss_with_stdin(&["show", game, "--svg", svg.to_str().expect("path")], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let picture = std::fs::read_to_string(&svg).expect("svg written");
        assert_eq!(picture.matches("<rect x=").count(), squares, "{game}");
        assert!(picture.contains(other), "{game}: {picture}");
        assert!(!picture.contains("<line"), "{game}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A unary relation named `C` (the cat) is a label, not the board's `C`.
#[test]
fn show_labels_a_unary_relation_named_c() {
    let svg = std::env::temp_dir().join(format!("toss-show-cat-{}.svg", std::process::id()));
    let out = toss_with_stdin(
        &[
            "show",
            "games/cat-and-mouse.toss",
            "--svg",
            svg.to_str().expect("path"),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let picture = std::fs::read_to_string(&svg).expect("svg written");
    assert!(picture.contains("fill=\"#a33\">C</text>"), "{picture}");
    assert!(picture.contains("fill=\"#a33\">M</text>"), "{picture}");
    std::fs::remove_file(&svg).ok();
}

fn play_two_humans(game: &str, moves: &str) -> String {
    let out = toss_with_stdin(
        &["play", game, "--player", "human", "--player", "human"],
        moves,
    );
    let stdout = text(&out.stdout);
    // The moves end before the game: that is the only error.
    assert_eq!(
        text(&out.stderr).trim(),
        "input ended before the game did",
        "{stdout}"
    );
    stdout
}

/// Chess moves typed by the cells they change: a double step, replies,
/// castling by the king's cells; the board is drawn 8x8 each time.
#[test]
fn play_chess_by_cells_on_an_eight_by_eight_board() {
    let stdout = play_two_humans(
        "games/chess.toss",
        "e2 e4\ne7 e5\ng1 f3\nb8-c6\nf1 c4\ng8 f6\ne1 g1\n",
    );
    for played in [
        "white plays WhitePawnDouble{k: clock, a: e2, m: e3, b: e4}",
        "black plays BlackPawnDouble{k: clock, a: e7, m: e6, b: e5}",
        "white plays WhiteKnight{k: clock, a: g1, b: f3}",
        "black plays BlackKnight{k: clock, a: b8, b: c6}",
        "white plays WhiteBishop{k: clock, a: f1, b: c4}",
        "black plays BlackKnight{k: clock, a: g8, b: f6}",
        "white plays WhiteCastleShort{",
    ] {
        assert!(stdout.contains(played), "{played}: {stdout}");
    }
    assert!(!stdout.contains("is not a legal move"), "{stdout}");
    // The starting board: eight rows of eight cells, a to h, the clock.
    let lines: Vec<&str> = stdout.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.starts_with("  8 "))
        .expect("row 8");
    for (k, row) in (1..=8).rev().enumerate() {
        let cells: Vec<&str> = lines[top + k].split_whitespace().collect();
        assert_eq!(cells.len(), 9, "row {row}: {}", lines[top + k]);
        assert_eq!(cells[0], row.to_string());
    }
    assert_eq!(
        lines[top + 1].split_whitespace().nth(5),
        Some("♟"),
        "{stdout}"
    );
    // An unmoved rook with its castling right (Cr) marked.
    assert_eq!(
        lines[top + 7].split_whitespace().nth(1),
        Some("♖'"),
        "{stdout}"
    );
    let letters: Vec<&str> = lines[top + 8].split_whitespace().collect();
    assert_eq!(letters, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    // Then the legend, one symbol a line, and the clock.
    let below: Vec<&str> = lines[top + 9..]
        .iter()
        .take_while(|l| !l.is_empty())
        .map(|l| l.trim())
        .collect();
    assert_eq!(below.len(), 14, "{stdout}");
    assert!(below.contains(&"♟ = B Pawn"), "{stdout}");
    assert!(below.contains(&"' = Cr"), "{stdout}");
    assert_eq!(below.last(), Some(&"clock: Clock; n = 0, ep = 0"));
    // No dump of the stable relations.
    assert!(!stdout.contains("NJ {"), "{stdout}");
}

/// Draughts steps typed by their cells, numbers and texts still work.
#[test]
fn play_draughts_by_cells_numbers_and_text() {
    let stdout = play_two_humans(
        "games/english-draughts.toss",
        "c3 d4\n1\nBlackManStep{k: clock, a: g3, b: h4}\nf6 g5\n",
    );
    assert!(
        stdout.contains("black plays BlackManStep{k: clock, a: c3, b: d4}"),
        "{stdout}"
    );
    // Move 1 of white's list.
    let list = stdout
        .split("white to move. Legal moves:\n")
        .nth(1)
        .expect("white's moves");
    let first = list
        .lines()
        .next()
        .and_then(|l| l.trim().strip_prefix("1. "))
        .expect("move 1");
    assert!(stdout.contains(&format!("white plays {first}")), "{stdout}");
    for played in [
        "black plays BlackManStep{k: clock, a: g3, b: h4}",
        "white plays WhiteManStep{k: clock, a: f6, b: g5}",
    ] {
        assert!(stdout.contains(played), "{played}: {stdout}");
    }
    assert!(!stdout.contains("is not a legal move"), "{stdout}");
}

/// A pawn reaching h8 could become four pieces: the cells list the four
/// moves with their numbers in the legal-move list, and asks again.
#[test]
fn an_ambiguous_promotion_lists_the_candidates_with_their_numbers() {
    let stdout = play_two_humans(
        "games/chess.toss",
        "h2 h4\ng7 g5\nh4 g5\ng8 f6\ng5 g6\nh8 g8\ng6 h7\na7 a6\nh7 h8\n\
         WhitePawnStepToKnight h7 h8\n",
    );
    let (before, after) = stdout
        .split_once("`h7 h8` could be any of these moves; type its number:\n")
        .unwrap_or_else(|| panic!("{stdout}"));
    let candidates: Vec<&str> = after.lines().take(4).collect();
    for (line, piece) in candidates.iter().zip(["Queen", "Rook", "Bishop", "Knight"]) {
        assert!(
            line.contains(&format!("WhitePawnStepTo{piece}{{k: clock, a: h7, b: h8}}")),
            "{line}"
        );
        // The same number and text as in the list of legal moves.
        assert!(before.contains(&format!("{line}\n")), "{line}: {before}");
    }
    assert!(!after.lines().nth(4).unwrap_or_default().contains(". White"));
    assert!(
        stdout.contains("white plays WhitePawnStepToKnight{k: clock, a: h7, b: h8}"),
        "{stdout}"
    );
}

/// Standard output closed before anything is written (`| head -0`): every
/// command ends quietly, without a panic.
#[test]
fn a_closed_standard_output_ends_commands_quietly() {
    for args in [
        &["perft", "games/dice.toss", "2", "--divide"][..],
        &["playout", "games/tic-tac-toe.toss", "-n", "10"],
        &["check", "games/chess.toss"],
        &["fmt", "games/tic-tac-toe.toss"],
        &["heuristic", "games/tic-tac-toe.toss"],
        &[
            "match",
            "games/tic-tac-toe.toss",
            "--player",
            "random",
            "--player",
            "random",
            "-n",
            "2",
        ],
        &[
            "play",
            "games/tic-tac-toe.toss",
            "--player",
            "random",
            "--player",
            "random",
        ],
    ] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_toss"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("run toss");
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

/// `toss playout`: the fields, the same figures for a seed, the mean length
/// in turns as the game's own playouts count it and in plies (a dice turn
/// is a roll and a move).
#[test]
fn playout_prints_turns_plies_and_payoffs_reproducibly() {
    use toss::Game;
    let args = ["playout", "games/dice.toss", "-n", "200", "--seed", "5"];
    let (a, b) = (toss_with_stdin(&args, ""), toss_with_stdin(&args, ""));
    assert!(a.status.success(), "{}", text(&a.stderr));
    let (sa, sb) = (text(&a.stdout), text(&b.stdout));
    let figures = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("mean "))
            .map(String::from)
            .collect()
    };
    assert_eq!(figures(&sa), figures(&sb));
    assert!(sa.starts_with("200 playouts in "), "{sa}");
    let rate: f64 = field(&sa, "playouts/s: ").parse().expect("a rate");
    assert!(rate > 0.0);
    let length = field(&sa, "mean length: ");
    let (turns, plies) = length
        .strip_suffix(" plies)")
        .and_then(|l| l.split_once(" turns ("))
        .unwrap_or_else(|| panic!("{length}"));
    let (turns, plies): (f64, f64) = (turns.parse().expect("turns"), plies.parse().expect("plies"));
    assert!((plies - 2.0 * turns).abs() < 0.011, "{length}");
    // The turns and payoffs of the game's own random playouts, same seed.
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("games/dice.toss"),
    )
    .expect("dice.toss");
    let g = toss::interpret(&source, "dice.toss").expect("loads");
    let mut rng = toss::rng_from_seed(5);
    let (mut sum_turns, mut sum_white) = (0usize, 0.0);
    for _ in 0..200 {
        let (len, pay) = g.random_playout(&mut rng, 100_000);
        sum_turns += len;
        sum_white += pay[0];
    }
    assert_eq!(
        format!("{turns:.2}"),
        format!("{:.2}", sum_turns as f64 / 200.0)
    );
    assert_eq!(
        field(&sa, "mean payoff white: "),
        format!("{:.4}", sum_white / 200.0)
    );
    let black: f64 = field(&sa, "mean payoff black: ").parse().expect("payoff");
    assert!((black + sum_white / 200.0).abs() < 1e-4, "{sa}");
    // Tic-tac-toe: every ply is a turn.
    let out = toss_with_stdin(&["playout", "games/tic-tac-toe.toss", "-n", "50"], "");
    let length = field(&text(&out.stdout), "mean length: ").to_string();
    let (turns, rest) = length.split_once(" turns (").expect("turns");
    assert_eq!(rest, format!("{turns} plies)"));
}

#[test]
fn zero_playouts_or_games_are_refused() {
    let out = toss_with_stdin(&["playout", "games/tic-tac-toe.toss", "-n", "0"], "");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("-n 0: give the number of playouts to run, at least 1"),
        "{}",
        text(&out.stderr)
    );
    let out = toss_with_stdin(
        &[
            "match",
            "games/tic-tac-toe.toss",
            "--player",
            "random",
            "--player",
            "random",
            "-n",
            "0",
        ],
        "",
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("-n 0: a match needs at least one game"),
        "{stderr}"
    );
    assert!(!text(&out.stdout).contains("NaN"));
}

/// `toss match` on a GDL file, like the other commands; heuristic players
/// are refused with the reason.
#[test]
fn match_plays_a_gdl_file() {
    let ttt = corpus("ticTacToe.kif");
    let args = [
        "match",
        ttt.as_str(),
        "--player",
        "uct:iters=300",
        "--player",
        "random",
        "-n",
        "4",
        "--swap",
        "--seed",
        "2",
    ];
    let out = toss_with_stdin(&args, "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let last = stdout.lines().last().unwrap_or_default();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(
        (words[0], words[1], words[3]),
        ("result", "uct:iters=300", "random")
    );
    let games = text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("game "))
        .count();
    assert_eq!(games, 4);
    assert_eq!(
        toss_with_stdin(&args, "").stdout,
        out.stdout,
        "reproducible"
    );
    let out = toss_with_stdin(
        &[
            "match",
            ttt.as_str(),
            "--player",
            "alphabeta",
            "--player",
            "random",
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("derives its heuristic from a .toss description"),
        "{}",
        text(&out.stderr)
    );
    // `heuristic` translates the GDL game to Toss first.
    let out = toss_with_stdin(&["heuristic", ttt.as_str()], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("LOC 0"),
        "{}",
        text(&out.stdout)
    );
    // The commands that need a Toss description say so.
    let out = toss_with_stdin(&["fmt", ttt.as_str()], "");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("`toss fmt` needs a Toss description (.toss)"),
        "{}",
        text(&out.stderr)
    );
}

/// The table's intervals are Wilson's: within [0, 1], around the score,
/// not empty at a score of 0 or 1.
#[test]
fn match_table_shows_wilson_intervals() {
    let out = toss_with_stdin(
        &[
            "match",
            "games/tic-tac-toe.toss",
            "--player",
            "uct:iters=300",
            "--player",
            "random",
            "-n",
            "6",
            "--seed",
            "1",
        ],
        "",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout
            .lines()
            .next()
            .unwrap_or_default()
            .ends_with("95% ci (Wilson)")
    );
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("uct:") || l.starts_with("random "))
        .collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    for row in rows {
        let cols: Vec<&str> = row.split_whitespace().collect();
        let n: f64 = cols[2..5]
            .iter()
            .map(|c| c.parse::<f64>().expect("count"))
            .sum();
        let score: f64 = cols[5].parse().expect("score");
        let lo: f64 = cols[6]
            .trim_start_matches('[')
            .trim_end_matches(',')
            .parse()
            .expect("lower");
        let hi: f64 = cols[7].trim_end_matches(']').parse().expect("upper");
        assert!(
            0.0 <= lo && lo <= score && score <= hi && hi <= 1.0,
            "{row}"
        );
        // Never a zero-width interval, even at a score of 0 or 1.
        assert!(hi - lo > 0.2, "{row}");
        // The interval of the score with z = 1.96.
        let z2 = 1.96f64 * 1.96;
        let centre = (score + z2 / (2.0 * n)) / (1.0 + z2 / n);
        assert!(
            (lo + hi) / 2.0 - centre < 1e-3 || hi == 1.0 || lo == 0.0,
            "{row}"
        );
    }
}

/// `toss heuristic` lays the formulas out on lines of at most 100
/// columns, each player's term readable back as the derived one.
#[test]
fn heuristic_prints_the_terms_readably() {
    let out = toss_with_stdin(&["heuristic", "games/tic-tac-toe.toss"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.lines().all(|l| l.len() <= 100), "{stdout}");
    assert!(
        stdout.contains("Sum (z | P(z) and R(y, z) : 1.0)"),
        "{stdout}"
    );
    assert!(stdout.contains("\n    + Sum (x | P(x) :"), "{stdout}");
    // Each player's block, from `  name:` to the next one.
    let mut blocks: Vec<(String, String)> = Vec::new();
    for line in stdout.lines() {
        if line.starts_with("LOC ") {
            continue;
        }
        if let Some(rest) = line.strip_prefix("  ")
            && !rest.starts_with(' ')
        {
            let (name, term) = rest.split_once(':').expect("player: term");
            blocks.push((name.to_string(), term.to_string()));
        } else if let Some((_, term)) = blocks.last_mut() {
            term.push('\n');
            term.push_str(line);
        }
    }
    let (game, _) = toss_cli::load::load_toss(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("games/tic-tac-toe.toss"),
        false,
    )
    .expect("loads");
    let derived = toss::heuristics::derive(&game, &Default::default());
    let expected: Vec<(String, String)> = derived
        .per_location
        .iter()
        .flat_map(|ts| {
            game.players
                .iter()
                .zip(ts)
                .map(|(p, t)| (p.clone(), toss::lang::print_real(t)))
        })
        .collect();
    assert_eq!(blocks.len(), expected.len(), "{stdout}");
    for ((name, shown), (player, term)) in blocks.iter().zip(&expected) {
        assert_eq!(name, player);
        let shown = toss::lang::parse_term(shown).expect("the layout parses");
        assert_eq!(
            shown,
            toss::lang::parse_term(term).expect("parses"),
            "{name}"
        );
    }
}

/// A match derives a heuristic once, not per game and seat: one line per
/// kind of heuristic on stderr, however many games.
#[test]
fn match_derives_each_heuristic_once() {
    let out = toss_with_stdin(
        &[
            "match",
            "games/tic-tac-toe.toss",
            "--player",
            "alphabeta:depth=1",
            "--player",
            "uct+heur:iters=20,heur=rule",
            "-n",
            "4",
            "--swap",
        ],
        "",
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let derived: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("heuristic derived in"))
        .collect();
    assert_eq!(derived.len(), 2, "{stderr}");
    assert!(derived[0].starts_with("alphabeta:depth=1: "), "{stderr}");
    assert!(
        derived[1].starts_with("uct+heur:iters=20,heur=rule: "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().filter(|l| l.starts_with("game ")).count(), 4);
    // Two players of one kind share it.
    let out = toss_with_stdin(
        &[
            "match",
            "games/tic-tac-toe.toss",
            "--player",
            "alphabeta:depth=1",
            "--player",
            "alphabeta:depth=2",
            "-n",
            "2",
        ],
        "",
    );
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr.matches("heuristic derived in").count(),
        1,
        "{stderr}"
    );
}

/// `examples/speed.rs` refuses a SECONDS that is not a number (when the
/// examples were built, as `cargo test` does).
#[test]
fn speed_example_refuses_bad_seconds() {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_toss"));
    let speed = bin
        .parent()
        .expect("the target directory")
        .join("examples")
        .join(format!("speed{}", std::env::consts::EXE_SUFFIX));
    // `cargo test --test cli` does not rebuild the examples: skip a stale one.
    let modified = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/speed.rs");
    if modified(&speed).is_none() || modified(&speed) < modified(&source) {
        eprintln!(
            "SKIPPED: examples/speed is not built from examples/speed.rs (cargo test builds it)"
        );
        return;
    }
    for bad in ["3s", "0", "-1", "nan"] {
        let out = Command::new(&speed)
            .args(["tic-tac-toe", bad])
            .output()
            .expect("run speed");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "SECONDS `{bad}`: expected a positive number of seconds"
            )),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// A game that runs into a limit of the interpreter (here more than 65,536
/// sets of disjoint matches for a `*` label) is reported, and the command
/// fails, instead of printing counts of a game that was not played; a set
/// quantifier only enumeration decides, on a structure past its limit, is
/// refused when the file is loaded.
#[test]
fn limits_are_errors_not_wrong_results() {
    let dir = std::env::temp_dir().join(format!("toss-cli-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let elems: Vec<String> = (1..=17).map(|i| format!("e{i}")).collect();
    let many = dir.join("many.toss");
    std::fs::write(
        &many,
        format!(
            "PLAYERS a\nRULE Mark: [x | P:1 {{}} | ] -> [x | P (x) | ] emb P\n\
             LOC 0 {{ PLAYER a {{ MOVES [Mark, mult: * -> 1] }} }}\nLOC 1 {{}}\n\
             START [ {} | P:1 {{}} | ]\n",
            elems.join(", ")
        ),
    )
    .expect("write");
    for args in [&["perft", "1"][..], &["playout", "-n", "2"]] {
        let mut all = vec![args[0], many.to_str().expect("utf-8 path")];
        all.extend(&args[1..]);
        let out = toss_with_stdin(&all, "");
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{:?}", args);
        assert!(
            stderr.contains("multiplicity `*`") && stderr.contains("65536"),
            "{stderr}"
        );
        assert!(text(&out.stdout).trim().is_empty(), "no results printed");
    }
    let big = dir.join("big.toss");
    let zs: String = (1..=30).map(|i| format!(", z{i}")).collect();
    std::fs::write(
        &big,
        format!(
            "PLAYERS a\nREL Sep() = ex X (ex x (S(x) and x in X) and not (ex y (T(y) and \
             (lfp Q(y) = y in X and (S(y) or ex w (Q(w) and E(w, y)))))))\n\
             RULE Go: [x | S (x) | ] -> [x | S (x) | ] pre Sep()\n\
             LOC 0 {{ PLAYER a {{ MOVES [Go -> 0] }} }}\n\
             START [ s, t{zs} | S {{ s }}; T {{ t }}; E {{ (s, t) }} | ]\n"
        ),
    )
    .expect("write");
    let out = toss_with_stdin(&["check", big.to_str().expect("utf-8 path")], "");
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("2^32") && stderr.contains("limited to 20"),
        "{stderr}"
    );
    // The error is at the definition with the quantifier.
    assert!(
        stderr.contains("big.toss:2:5: REL `Sep`: a set quantifier over 32 elements"),
        "{stderr}"
    );
    // The same quantifier in a rule's precondition: the error is at the rule.
    let inline = dir.join("inline.toss");
    std::fs::write(
        &inline,
        format!(
            "PLAYERS a\n\
             RULE Go: [x | S (x) | ] -> [x | S (x) | ] pre ex X (ex x (S(x) and x in X) and not \
             (ex y (T(y) and (lfp Q(y) = y in X and (S(y) or ex w (Q(w) and E(w, y)))))))\n\
             LOC 0 {{ PLAYER a {{ MOVES [Go -> 0] }} }}\n\
             START [ s, t{zs} | S {{ s }}; T {{ t }}; E {{ (s, t) }} | ]\n"
        ),
    )
    .expect("write");
    let out = toss_with_stdin(&["check", inline.to_str().expect("utf-8 path")], "");
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("inline.toss:2:6: the precondition of rule `Go`: a set quantifier"),
        "{stderr}"
    );
}

/// Alpha-beta is for turn-based games: on simultaneous moves it is
/// refused with the reason, rather than playing at random.
#[test]
fn alphabeta_refuses_simultaneous_games() {
    let out = toss_with_stdin(
        &[
            "match",
            "games/concurrent-tic-tac-toe.toss",
            "--player",
            "alphabeta:depth=2",
            "--player",
            "random",
            "-n",
            "2",
        ],
        "",
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("turn-based") && stderr.contains("location 0 has simultaneous moves"),
        "{stderr}"
    );
}

#[test]
fn translate_prints_a_toss_game_that_plays_like_the_gdl_one() {
    let kif = toss_testkit::corpus::gdl_dir().join("ticTacToe.kif");
    let out = toss_with_stdin(&["translate", "--explain", kif.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let game = text(&out.stdout);
    assert!(game.contains("// locations (a cycle): 0 (xplayer) -> 1 (oplayer)"));
    let dir = std::env::temp_dir().join(format!("toss-translate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ticTacToe.toss");
    std::fs::write(&file, &game).unwrap();
    // The printed game loads, and its perft counts are tic-tac-toe's
    // (9, 72, 504 plays of depth 1-3).
    for (depth, count) in [("1", "9"), ("2", "72"), ("3", "504")] {
        let out = toss_with_stdin(&["perft", file.to_str().unwrap(), depth], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let last = text(&out.stdout)
            .lines()
            .last()
            .unwrap_or_default()
            .to_string();
        assert_eq!(last.trim(), count, "perft {depth}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn translate_says_why_a_game_is_refused() {
    // The prisoner's dilemma keeps each score as a fluent value up to
    // 100: three update plies a value make a turn longer than the limit.
    let kif = toss_testkit::corpus::gdl_dir().join("gt_prisoner.kif");
    let out = toss_with_stdin(&["translate", kif.to_str().unwrap()], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("not translated to Toss") && err.contains("plies a turn"),
        "{err}"
    );
    // A refusal about a clause points at it: file, line, column, caret.
    let kif = toss_testkit::corpus::gdl_dir().join("minichess.kif");
    let out = toss_with_stdin(&["translate", kif.to_str().unwrap()], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("minichess.kif:35:9")
            && err.contains("(<= (next (cell ?x ?y ?p))")
            && err.contains("several fluent paths"),
        "{err}"
    );
    let out = toss_with_stdin(&["check", kif.to_str().unwrap(), "--via-toss"], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("minichess.kif:35:9") && err.contains("several fluent paths"),
        "{err}"
    );
}

/// `--via-toss`: the commands that take a `.toss` file take a GDL file
/// translated; `fmt` prints what `translate` prints, perft counts are the
/// reasoner's, and without the flag the refusal names it.
#[test]
fn via_toss_runs_toss_commands_on_the_translated_game() {
    let kif = toss_testkit::corpus::gdl_dir().join("ticTacToe.kif");
    let kif = kif.to_str().unwrap();
    let fmt = toss_with_stdin(&["fmt", kif, "--via-toss"], "");
    assert!(fmt.status.success(), "{}", text(&fmt.stderr));
    let translated = toss_with_stdin(&["translate", kif], "");
    assert_eq!(text(&fmt.stdout), text(&translated.stdout));
    let plain = toss_with_stdin(&["fmt", kif], "");
    assert!(!plain.status.success());
    assert!(text(&plain.stderr).contains("--via-toss"));
    let check = toss_with_stdin(&["check", kif, "--via-toss"], "");
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(text(&check.stdout).contains("Root_cell"));
    for engine in [&["--via-toss"][..], &["--engine", "reasoner"][..]] {
        let mut args = vec!["perft", kif, "4"];
        args.extend_from_slice(engine);
        let out = toss_with_stdin(&args, "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout).lines().last(), Some("3024"), "{engine:?}");
    }
    let clash = toss_with_stdin(
        &["perft", kif, "1", "--via-toss", "--engine", "grounded"],
        "",
    );
    assert!(!clash.status.success());
    let refused = toss_with_stdin(
        &[
            "check",
            toss_testkit::corpus::gdl_dir()
                .join("gt_prisoner.kif")
                .to_str()
                .unwrap(),
            "--via-toss",
        ],
        "",
    );
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("plies a turn"));
}

#[test]
fn solve_finds_the_value_and_best_moves_of_tic_tac_toe() {
    let out = toss_with_stdin(&["solve", "games/tic-tac-toe.toss"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("value xplayer: 0\nvalue oplayer: 0\nexact: yes"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("  best").count(), 9, "{stdout}");
    // After a corner and an edge that is not beside it, the cross wins.
    let out = toss_with_stdin(&["solve", "games/tic-tac-toe.toss", "--moves", "a1,b3"], "");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("value xplayer: 1\n"), "{stdout}");
}

#[test]
fn solve_retrograde_writes_a_table_the_solver_player_reads() {
    let dir = std::env::temp_dir().join(format!("toss-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let table = dir.join("ttt.table");
    let table_arg = table.to_string_lossy().into_owned();
    let out = toss_with_stdin(
        &[
            "solve",
            "games/tic-tac-toe.toss",
            "--retrograde",
            "--table",
            &table_arg,
        ],
        "",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("positions: 5478 (958 terminal)"),
        "{stdout}"
    );
    assert!(stdout.contains("complete plays: 255168"), "{stdout}");
    assert!(stdout.contains("table: 5478 positions written"), "{stdout}");
    let spec = format!("solver:table={table_arg}");
    let out = toss_with_stdin(
        &[
            "match",
            "games/tic-tac-toe.toss",
            "--player",
            &spec,
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
    assert!(
        text(&out.stderr).contains("solver: all"),
        "{}",
        text(&out.stderr)
    );
    let solver_row = stdout
        .lines()
        .find(|l| l.starts_with("solver") && l.contains(" all "))
        .expect("the solver's row");
    let losses: u64 = solver_row
        .split_whitespace()
        .nth(4)
        .and_then(|x| x.parse().ok())
        .expect("losses");
    assert_eq!(losses, 0, "{stdout}");
    // The table is refused for another game.
    let out = toss_with_stdin(
        &[
            "match",
            "games/connect4.toss",
            "--player",
            &spec,
            "--player",
            "random",
            "-n",
            "1",
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("another game"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_counts_positions_by_ply_and_stops_at_its_memory_bound() {
    let out = toss_with_stdin(&["solve", "games/connect4.toss", "--layers", "4"], "");
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("0: 1\n1: 7\n2: 49\n3: 238\n4: 1120\n"),
        "{stdout}"
    );
    let out = toss_with_stdin(&["solve", "games/connect4.toss", "--memory", "64K"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("exact: no, the table reached its memory bound"),
        "{stdout}"
    );
    let out = toss_with_stdin(&["solve", "games/connect4.toss", "--memory", "lots"], "");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("expected a size"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn term_prints_normal_forms_in_the_users_syntax() {
    let file = "crates/toss-terms/examples/peano.terms";
    let out = toss_with_stdin(
        &["term", file, "s s zero + s zero", "length (zero :: [ ])"],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "s s s zero\ns zero\n");
    // --trace shows each rewrite step before the normal form.
    let out = toss_with_stdin(&["term", file, "--trace", "s zero + zero"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "  s zero + zero  ->  s (zero + zero)\n  zero + zero  ->  zero\ns zero\n"
    );
}

#[test]
fn term_errors_are_located_and_fail() {
    let file = "crates/toss-terms/examples/peano.terms";
    let out = toss_with_stdin(&["term", file, "s + +"], "");
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("<term 1>:1:1: error: cannot parse"),
        "{stderr}"
    );
    assert!(stderr.contains("^^^^^"), "{stderr}");
    // The f/g loop of the example file stops at the step limit.
    let out = toss_with_stdin(&["term", file, "--max-steps", "500", "f zero"], "");
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no normal form after 500 rewrite steps"),
        "{stderr}"
    );
    assert!(stderr.ends_with("rewriting f zero\n"), "{stderr}");
    // A bad file: file, line, column.
    let dir = std::env::temp_dir().join(format!("toss-terms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.terms");
    std::fs::write(&bad, "Class 'nat'.\nElement 'zero' as nought.\n").expect("write");
    let out = toss_with_stdin(&["term", bad.to_str().expect("utf-8 path"), "zero"], "");
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("bad.terms:2:19: error: cannot read `nought` as a type"),
        "{stderr}"
    );
}

#[test]
fn term_reads_statements_and_terms_from_standard_input() {
    let file = "crates/toss-terms/examples/peano.terms";
    let input = "s zero * s s zero\nFunction 'double' nat as nat.\nLet double x be x + x.\ndouble s zero\nzero zero\n";
    let out = toss_with_stdin(&["term", file], input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "s s zero\ns s zero\n");
    assert!(
        text(&out.stderr).contains("<stdin line 5>:1:1: error"),
        "{}",
        text(&out.stderr)
    );
}

/// The README's first command: Breakthrough compiled into the binary,
/// played by UCT against UCT to its end with the board after each move,
/// replayed by the interpreter, and both speeds printed.
#[test]
fn demo_plays_a_compiled_game_to_its_end_and_prints_both_speeds() {
    let out = toss(&["demo", "--iters", "50", "--seconds", "0.1", "--seed", "3"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    let moves: usize = field(&stdout, "The game ended after ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no move count in\n{stdout}"));
    assert!(
        moves >= 15,
        "Breakthrough takes at least 15 moves: {stdout}"
    );
    // Each move numbered, by whom, and the board after it.
    let lines: Vec<&str> = stdout.lines().collect();
    for k in 1..=moves {
        let at = lines
            .iter()
            .position(|l| {
                l.starts_with(&format!("{k}. white plays "))
                    || l.starts_with(&format!("{k}. black plays "))
            })
            .unwrap_or_else(|| panic!("no move {k} in\n{stdout}"));
        assert!(!lines[at + 1].trim().is_empty(), "no board after move {k}");
    }
    // One side breaks through: the payoffs are 1 and -1.
    let result = field(&stdout, &format!("The game ended after {moves} moves: "));
    assert!(
        result == "white 1, black -1." || result == "white -1, black 1.",
        "{result}"
    );
    assert!(stdout.contains("replays the"), "{stdout}");
    let rate = |prefix: &str| -> f64 {
        field(&stdout, prefix)
            .split_whitespace()
            .next()
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("no rate after `{prefix}` in\n{stdout}"))
    };
    let generated = rate("  generated (derive):");
    let interpreted = rate("  interpreted:");
    assert!(generated > 0.0 && interpreted > 0.0, "{stdout}");
    // The same seed, the same game.
    let again = text(&toss(&["demo", "--iters", "50", "--seconds", "0.1", "--seed", "3"]).stdout);
    let game = |s: &str| s[..s.find("Random playouts").unwrap_or(s.len())].to_string();
    assert_eq!(game(&stdout), game(&again));
}

#[test]
fn demo_refuses_zero_iterations() {
    let out = toss(&["demo", "--iters", "0"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("at least 1 iteration"));
}

/// `toss fmt` formats a `.toss` file from its text: the comments and the
/// board literal of chess are kept, the lines stay short, the output is
/// its own formatting, and a syntax error is reported at its place.
#[test]
fn fmt_keeps_comments_and_boards_and_locates_syntax_errors() {
    let out = toss_with_stdin(&["fmt", "games/chess.toss"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let formatted = text(&out.stdout);
    let source = std::fs::read_to_string("games/chess.toss").expect("chess");
    let comment_lines = |s: &str| s.lines().filter(|l| l.contains("//")).count();
    assert_eq!(comment_lines(&formatted), comment_lines(&source));
    assert!(
        formatted.contains("// Chess (FIDE move rules).\n"),
        "{formatted}"
    );
    assert!(
        formatted.contains("\n  W+Rook+Cr W+Knight W+Bishop W+Queen W+King+Cr"),
        "{formatted}"
    );
    assert!(
        formatted.lines().all(|l| l.chars().count() <= 80),
        "{formatted}"
    );
    let dir = std::env::temp_dir().join(format!("toss-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let again = dir.join("chess.toss");
    std::fs::write(&again, &formatted).expect("written");
    let out = toss_with_stdin(&["fmt", again.to_str().expect("utf-8 path")], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), formatted);
    let out = toss_with_stdin(&["fmt", "tests/ui/games/syntax-error.toss"], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("tests/ui/games/syntax-error.toss:5:18"),
        "{err}"
    );
    assert!(err.contains("expected `]`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A person's session at Connect Four, typed on standard input: the
/// help, a move by its column, undo, save, more moves, load (back to
/// the saved position), quit; then the saved play resumed by
/// `toss play --from` and drawn by `toss show`.
#[test]
fn terminal_session_with_help_column_undo_save_load_and_quit() {
    let dir = std::env::temp_dir().join(format!("toss-cli-session-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let saved = dir.join("saved.toss");
    let saved_str = saved.to_str().expect("utf-8 path");
    let script = format!("help\nd\nundo\nd\nsave {saved_str}\nc\nload {saved_str}\nquit\n");
    let out = toss_with_stdin(
        &[
            "play",
            "games/connect4.toss",
            "--player",
            "human",
            "--player",
            "uct:iters=100",
        ],
        &script,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(stdout.contains("undo         take back"), "{stdout}");
    // `d` is the move into column d, the only cell of it a move fills.
    assert_eq!(
        stdout.matches("red plays DropRed{a: d1}").count(),
        2,
        "{stdout}"
    );
    assert!(stdout.contains("Took back 2 plies."), "{stdout}");
    assert!(stdout.contains("red plays DropRed{a: c1}"), "{stdout}");
    assert!(stdout.contains("(2 plies)."), "{stdout}");
    assert!(stdout.contains("Stopped after 2 plies."), "{stdout}");

    // The record is the game with MODEL and HISTORY: red in d1, yellow's
    // reply above or beside it.
    let record = std::fs::read_to_string(&saved).expect("saved");
    let history = &record[record.find("HISTORY").expect("a HISTORY")..];
    assert!(history.contains("red: DropRed {a: d1} -> 1"), "{history}");
    assert!(record.contains("\nMODEL "), "{record}");
    // The game's own comments are kept.
    assert!(
        record.starts_with(&std::fs::read_to_string("games/connect4.toss").expect("game")[..20])
    );

    // Resumed: the same two plies replayed, then quit. Undo goes back
    // past them to the start.
    let resumed = toss_with_stdin(
        &[
            "play", "--from", saved_str, "--player", "human", "--player", "random",
        ],
        "undo\nquit\n",
    );
    let r = text(&resumed.stdout);
    assert!(resumed.status.success(), "{}\n{r}", text(&resumed.stderr));
    assert!(r.contains("Took back 2 plies."), "{r}");
    assert!(r.contains("Stopped after 0 plies."), "{r}");

    // Resumed and saved again at once: the same file, byte for byte.
    let again = dir.join("again.toss");
    let again_str = again.to_str().expect("utf-8 path");
    let resaved = toss_with_stdin(
        &[
            "play", "--from", saved_str, "--player", "human", "--player", "random",
        ],
        &format!("save {again_str}\nquit\n"),
    );
    assert!(resaved.status.success(), "{}", text(&resaved.stderr));
    assert_eq!(
        std::fs::read_to_string(&again).expect("saved again"),
        record
    );

    // Any command reads the record as its game at the saved position.
    let svg = dir.join("saved.svg");
    let shown = toss(&[
        "show",
        saved_str,
        "--svg",
        svg.to_str().expect("utf-8 path"),
    ]);
    assert!(shown.status.success(), "{}", text(&shown.stderr));

    // A record of another game is refused.
    let other = toss_with_stdin(
        &["play", "games/tic-tac-toe.toss", "--from", saved_str],
        "quit\n",
    );
    assert!(!other.status.success());
    assert!(text(&other.stderr).contains("a play of another game"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A long player description widens its column: every row's figures
/// stay under the header's.
#[test]
fn match_table_columns_fit_long_player_names() {
    let long = "uct:iters=50,c=1.5,threads=1,parallel=tree";
    let out = toss(&[
        "match",
        "games/tic-tac-toe.toss",
        "--player",
        long,
        "--player",
        "random",
        "-n",
        "2",
        "--swap",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let header = stdout
        .lines()
        .find(|l| l.starts_with("player "))
        .unwrap_or_else(|| panic!("no header in\n{stdout}"));
    let wins_end = header.find("wins").expect("wins") + "wins".len();
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with(long) || l.starts_with("random "))
        .collect();
    assert!(rows.len() >= 4, "{stdout}");
    for row in rows {
        // The wins figure ends where the header's `wins` does.
        let before = &row[..wins_end];
        assert!(
            before.ends_with(|c: char| c.is_ascii_digit()) && row[wins_end..].starts_with(' '),
            "{row}\n{header}"
        );
    }
}
