//! Games cut at a limit: every command that plays games to their end says
//! when one was stopped at its ply limit instead, keeps it out of the
//! results, and exits with status 3 (`toss_cli::LIMIT_STATUS`).

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod common;

use common::{field, path_str, text, toss};

/// Two players passing forever; `a`'s payoff is 1 and `b`'s 0 everywhere,
/// so a cut game read as finished would be a win for `a`.
const FOREVER_TOSS: &str = "PLAYERS a, b
RULE Pass: [x | | ] -> [x | | ]
LOC 0 {
  PLAYER a { PAYOFF 1 MOVES [Pass -> 1] }
  PLAYER b { PAYOFF 0 }
}
LOC 1 {
  PLAYER a { PAYOFF 1 }
  PLAYER b { PAYOFF 0 MOVES [Pass -> 0] }
}
START [ e | | ]
";

/// The same in GDL: two roles taking turns, nothing terminal, `a`'s goal
/// 100 and `b`'s 0.
const FOREVER_KIF: &str = "(role a) (role b)
(init (control a))
(<= (legal a go) (true (control a)))
(<= (legal a noop) (true (control b)))
(<= (legal b go) (true (control b)))
(<= (legal b noop) (true (control a)))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= terminal (true (over)))
(goal a 100)
(goal b 0)
";

const STATUS: i32 = toss_cli::LIMIT_STATUS as i32;

/// Writes `contents` to `name` in a directory of this test process.
fn file(name: &str, contents: &str) -> PathBuf {
    common::temp_file("limits", name, contents)
}

/// The `game ` progress lines of a match, from standard error.
fn game_lines(out: &Output) -> Vec<String> {
    text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("game "))
        .map(String::from)
        .collect()
}

/// A match whose games never end: each game cut, none a win or a draw,
/// no score, status 3; and the same for a seed, twice.
#[test]
fn match_reports_cut_games_apart_from_results() {
    let game = file("forever.toss", FOREVER_TOSS);
    let args = [
        "match",
        path_str(&game),
        "--player",
        "random",
        "--player",
        "random",
        "-n",
        "3",
        "--max-plies",
        "50",
        "--seed",
        "4",
    ];
    let out = toss(&args);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    let lines = game_lines(&out);
    assert_eq!(lines.len(), 3, "{}", text(&out.stderr));
    for line in &lines {
        assert!(line.ends_with("; cut at 50 plies"), "{line}");
        assert!(!line.contains("wins") && !line.contains("draw"), "{line}");
    }
    assert!(
        stdout.contains("cut at 50 plies (no result, not in the table): 3 of 3 games"),
        "{stdout}"
    );
    // No win, draw or loss counted for anyone.
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("random "))
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    for row in rows {
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(&cols[2..6], ["0", "0", "0", "-"], "{row}");
    }
    assert_eq!(
        stdout.lines().last(),
        Some("result random - random -"),
        "{stdout}"
    );
    let again = toss(&args);
    assert_eq!(again.stdout, out.stdout);
    assert_eq!(game_lines(&again), lines);
}

/// A match of a game that ends within the limit is complete: status 0 and
/// no game cut; a limit below the game's length cuts some games but not
/// those that ended first, and the table counts only the finished ones.
#[test]
fn match_cuts_only_the_games_still_going_at_the_limit() {
    let out = toss(&[
        "match",
        "games/tic-tac-toe.toss",
        "--player",
        "random",
        "--player",
        "random",
        "-n",
        "8",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // No game was cut: the table says nothing of cutting.
    assert!(!stdout.contains("not in the table"), "{stdout}");
    assert!(stdout.contains("result random"), "{stdout}");
    // Tic-tac-toe lasts 5 to 9 plies: at 6, the games that end at 5 or 6
    // plies finish, the others are cut.
    let out = toss(&[
        "match",
        "games/tic-tac-toe.toss",
        "--player",
        "random",
        "--player",
        "random",
        "-n",
        "20",
        "--max-plies",
        "6",
    ]);
    let stdout = text(&out.stdout);
    let lines = game_lines(&out);
    let cut = lines
        .iter()
        .filter(|l| l.ends_with("; cut at 6 plies"))
        .count();
    assert_eq!(lines.len(), 20);
    assert!(cut > 0, "{lines:?}");
    assert_eq!(out.status.code(), Some(STATUS));
    for l in lines.iter().filter(|l| !l.contains("cut at")) {
        assert!(l.ends_with("; 5 plies") || l.ends_with("; 6 plies"), "{l}");
    }
    assert!(
        stdout.contains(&format!(
            "cut at 6 plies (no result, not in the table): {cut} of 20 games"
        )),
        "{stdout}"
    );
    let all: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("random ") && l.contains(" all "))
        .collect();
    assert_eq!(all.len(), 2, "{stdout}");
    for row in all {
        let cols: Vec<&str> = row.split_whitespace().collect();
        let games: usize = cols[2..5]
            .iter()
            .map(|c| c.parse::<usize>().expect("count"))
            .sum();
        assert_eq!(games, 20 - cut, "{row}");
    }
}

/// The GDL game that never ends is cut on both engines that run it.
#[test]
fn match_cuts_a_gdl_game_that_never_ends() {
    let game = file("forever.kif", FOREVER_KIF);
    for engine in ["grounded", "reasoner"] {
        let out = toss(&[
            "--engine",
            engine,
            "match",
            path_str(&game),
            "--player",
            "random",
            "--player",
            "random",
            "-n",
            "2",
            "--max-plies",
            "30",
        ]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(STATUS), "{engine}: {stdout}");
        let lines = game_lines(&out);
        assert_eq!(lines.len(), 2, "{engine}: {lines:?}");
        assert!(
            lines.iter().all(|l| l.ends_with("; cut at 30 plies")),
            "{engine}: {lines:?}"
        );
        assert!(
            stdout.contains("(no result, not in the table): 2 of 2 games"),
            "{engine}: {stdout}"
        );
    }
}

/// `toss play` between two programs stops at --max-plies, says the play
/// was cut rather than print its payoffs, and exits with status 3.
#[test]
fn play_between_programs_stops_at_the_limit() {
    let game = file("forever-play.toss", FOREVER_TOSS);
    let out = toss(&[
        "play",
        path_str(&game),
        "--player",
        "random",
        "--player",
        "random",
        "--max-plies",
        "7",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    assert_eq!(stdout.matches(" plays Pass").count(), 7, "{stdout}");
    assert!(
        stdout
            .contains("The play was cut at the limit of 7 plies (--max-plies); it has no result."),
        "{stdout}"
    );
    assert!(!stdout.contains("The play has ended."), "{stdout}");
    // GDL too.
    let kif = file("forever-play.kif", FOREVER_KIF);
    let out = toss(&[
        "play",
        path_str(&kif),
        "--player",
        "random",
        "--player",
        "random",
        "--max-plies",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("cut at the limit of 4 plies"));
    // A play that ends before the limit is not cut.
    let out = toss(&[
        "play",
        "games/tic-tac-toe.toss",
        "--player",
        "random",
        "--player",
        "random",
        "--max-plies",
        "9",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("The play has ended."));
}

/// `toss playout` counts the playouts cut at --max-plies apart, and its
/// means are those of the finished ones.
#[test]
fn playout_counts_cut_playouts_apart() {
    let game = file("forever-playout.toss", FOREVER_TOSS);
    let out = toss(&["playout", path_str(&game), "-n", "10", "--max-plies", "20"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    assert!(
        stdout.contains("finished: 0, cut at 20 turns: 10"),
        "{stdout}"
    );
    // No mean of payoffs no playout reached.
    assert!(!stdout.contains("mean payoff"), "{stdout}");
    assert!(stdout.contains("no playout finished"), "{stdout}");
    // Tic-tac-toe cut at 7 turns: the finished playouts lasted at most 7
    // turns, and the means are theirs alone.
    let out = toss(&[
        "playout",
        "games/tic-tac-toe.toss",
        "-n",
        "300",
        "--max-plies",
        "7",
        "--seed",
        "3",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    let counts = field(&stdout, "finished: ");
    let (finished, cut) = counts
        .split_once(", cut at 7 turns: ")
        .unwrap_or_else(|| panic!("{counts}"));
    let (finished, cut): (u64, u64) = (finished.parse().expect("n"), cut.parse().expect("n"));
    assert_eq!(finished + cut, 300);
    assert!(finished > 0 && cut > 0, "{stdout}");
    let turns: f64 = field(&stdout, "mean length: ")
        .split_once(" turns")
        .expect("turns")
        .0
        .parse()
        .expect("a number");
    assert!((5.0..=7.0).contains(&turns), "{stdout}");
    // With no limit given every playout finishes: status 0.
    let out = toss(&["playout", "games/tic-tac-toe.toss", "-n", "300"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("finished: 300, cut at 100000 turns: 0"));
    // GDL.
    let kif = file("forever-playout.kif", FOREVER_KIF);
    let out = toss(&["playout", path_str(&kif), "-n", "5", "--max-plies", "30"]);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("finished: 0, cut at 30 turns: 5"));
}

/// `toss simulate` stopped by a limit before --until says so and exits
/// with status 3: the ply limit (bounce.toss has 10 bounces), and the
/// integrator's step limit (RK4 at a step of 1e-7 needs 10^7 steps for
/// the first second).
#[test]
fn simulate_stopped_by_a_limit_says_so() {
    let out = toss(&[
        "simulate",
        "games/bounce.toss",
        "--until",
        "100",
        "--max-plies",
        "3",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    assert_eq!(stdout.matches("rule=Bounce").count(), 3, "{stdout}");
    assert!(
        stdout.contains("stopped at the limit of 3 plies (--max-plies), before t=100\nfinal t="),
        "{stdout}"
    );
    let out = toss(&[
        "simulate",
        "games/bounce.toss",
        "--until",
        "5",
        "--step",
        "1e-7",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    assert!(
        stdout.contains("stopped at the limit of the integrator: more than 10000000 steps"),
        "{stdout}"
    );
    // The whole play (10 bounces, over by t = 12) within the limits.
    let out = toss(&["simulate", "games/bounce.toss", "--until", "100"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("rule=Bounce").count(), 10, "{stdout}");
    assert!(!stdout.contains("stopped"), "{stdout}");
}

/// The exit status is documented where a user looks for it.
#[test]
fn help_documents_the_limit_status() {
    let out = toss(&["--help"]);
    assert!(
        text(&out.stdout).contains("3 a limit stopped the work"),
        "{}",
        text(&out.stdout)
    );
    for command in ["playout", "play", "match", "simulate"] {
        let out = toss(&[command, "--help"]);
        let help = text(&out.stdout);
        assert!(help.contains("Exit status 3"), "{command}: {help}");
        assert!(help.contains("--max-plies"), "{command}: {help}");
    }
    let out = toss(&["ggp", "referee", "--help"]);
    let help = text(&out.stdout);
    assert!(
        help.contains("Exit status 3") && help.contains("--max-steps"),
        "{help}"
    );
}

/// A `toss ggp serve` process, killed when dropped (on every path).
struct Player(std::process::Child, String);

impl Drop for Player {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a GGP player on a free port; it thinks 0.1 s of each second.
fn ggp_player() -> Player {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(["ggp", "serve", "--port", "0", "--host", "127.0.0.1"])
        .args(["--margin", "0.9"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run toss ggp serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut player = Player(child, String::new());
    let mut line = String::new();
    let read = std::io::BufReader::new(stdout).read_line(&mut line);
    assert!(read.is_ok_and(|n| n > 0), "no address from the player");
    player.1 = line
        .trim()
        .strip_prefix("toss ggp: listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    player
}

/// The referee cuts a match whose game has not ended after --max-steps:
/// it says so, reports no goals, records the match as aborted and exits
/// with status 3.
#[test]
fn referee_cuts_a_match_at_its_step_limit() {
    let game = file("forever-referee.kif", FOREVER_KIF);
    let record = file("forever-referee.json", "");
    let (a, b) = (ggp_player(), ggp_player());
    let out = toss(&[
        "ggp",
        "referee",
        path_str(&game),
        "--player",
        &a.1,
        "--player",
        &b.1,
        "--start",
        "1",
        "--play",
        "1",
        "--max-steps",
        "3",
        "--record",
        path_str(&record),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(STATUS),
        "{stdout}{}",
        text(&out.stderr)
    );
    assert_eq!(stdout.matches(": step ").count(), 3, "{stdout}");
    assert!(
        stdout.contains("cut at 3 steps (--max-steps): the game had not ended, no goals"),
        "{stdout}"
    );
    assert!(!stdout.contains("goals a"), "{stdout}");
    let json = std::fs::read_to_string(&record).expect("match record");
    assert!(
        json.contains("\"isCompleted\": false, \"isAborted\": true"),
        "{json}"
    );
    assert!(!json.contains("goalValues"), "{json}");
}

/// `toss term`: a term with no normal form within --max-steps is stopped
/// by a limit (status 3); one that does not parse is an error (status 1).
#[test]
fn term_at_its_step_limit_exits_with_the_limit_status() {
    let file = "crates/toss-terms/examples/peano.terms";
    let out = toss(&["term", file, "--max-steps", "500", "f zero"]);
    assert_eq!(out.status.code(), Some(STATUS), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no normal form after 500 rewrite steps"));
    let out = toss(&["term", file, "--max-steps", "500", "f zero", "s + +"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = toss(&["term", file, "s zero + zero"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
