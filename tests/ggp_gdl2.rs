//! GDL-II matches over loopback: `toss ggp serve` processes, the GDL-II
//! player against the random player (`--random`), run by `toss ggp
//! referee`, which draws the moves of the role `random` with its seed
//! and sends each player its own move and its percepts. The round trip:
//! every match ends with goals and no fault, the players' candidate
//! states never lose the truth (no guess in their logs), and each
//! player's STOP reports the goal the referee computed. The measured run
//! (ignored: minutes) gives the score of BENCHMARKS.md.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{Player, spawn_player};

/// Starts a player keeping 0.5 s of each clock back.
fn spawn(name: &str, seed: u64, extra: &[&str]) -> Player {
    let mut args = vec!["--margin", "0.5"];
    args.extend(extra);
    spawn_player(&format!("ggp2-{name}"), seed, &args)
}

impl Player {
    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

fn battleships() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("games/gdl/battleships.kif")
}

/// A GDL-II file of the corpus beside the repository (the test fails
/// without it).
fn gdl2(file: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/gdl/gdl2")
        .join(file);
    assert!(
        p.exists(),
        "{}: the corpus must be beside the repository",
        p.display()
    );
    p
}

/// Runs `toss ggp referee` and returns the goals of the seated roles (by
/// name) from its last line; panics with the output when the match was
/// not played to its end or had a fault.
fn referee(
    file: &PathBuf,
    players: &[&Player],
    id: &str,
    seed: u64,
    play: u64,
) -> Vec<(String, u64)> {
    referee_or_goal_fault(file, players, id, seed, play)
        .unwrap_or_else(|out| panic!("no goals: {out}"))
}

/// [`referee`], but a final state in which the game file gives a role
/// several goals (kriegTTT_4x4.kif's known fault) is `Err` with the
/// referee's output.
fn referee_or_goal_fault(
    file: &PathBuf,
    players: &[&Player],
    id: &str,
    seed: u64,
    play: u64,
) -> Result<Vec<(String, u64)>, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toss"));
    cmd.args(["ggp", "referee"]).arg(file);
    for p in players {
        cmd.args(["--player", &p.addr]);
    }
    let out = cmd
        .args([
            "--start",
            "5",
            "--play",
            &play.to_string(),
            "--match-id",
            id,
        ])
        .args(["--seed", &seed.to_string(), "--max-steps", "200"])
        .output()
        .expect("run toss ggp referee");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("defines several goals") {
        return Err(format!("{stdout}{stderr}"));
    }
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(!stdout.contains("fault"), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with(&format!("{id}: started, roles ")),
        "{stdout}"
    );
    let last = lines.last().copied().unwrap_or("");
    let goals = last
        .strip_prefix("goals ")
        .unwrap_or_else(|| panic!("no goals: {stdout}"));
    Ok(goals
        .split(", ")
        .map(|rg| {
            let (r, g) = rg.rsplit_once(' ').expect("role and goal");
            (r.to_string(), g.parse().expect("a goal"))
        })
        .collect())
}

/// The player's log lines of match `id`.
fn lines_of(p: &Player, id: &str) -> Vec<String> {
    p.log_text()
        .lines()
        .filter(|l| l.starts_with(&format!("ggp {id} ")))
        .map(str::to_string)
        .collect()
}

/// The player's candidate states held the truth all along (no guess, no
/// error reply) and its STOP reports the referee's goal for its role.
fn check_player_log(p: &Player, id: &str, role: &str, goals: &[(String, u64)]) {
    let lines = lines_of(p, id);
    assert!(
        lines.iter().any(|l| l.contains(" PLAY: ")),
        "{id}: no PLAY in the log:\n{}",
        p.log_text()
    );
    for l in &lines {
        assert!(!l.contains("(a guess)"), "{l}");
        assert!(!l.contains("no consistent state"), "{l}");
        assert!(!l.contains(" PLAY: nil"), "{l}");
    }
    let goal = goals
        .iter()
        .find(|(r, _)| r == role)
        .map(|(_, g)| *g)
        .expect("the role's goal");
    let stop = lines
        .iter()
        .find(|l| l.contains(" STOP: done"))
        .unwrap_or_else(|| panic!("{id}: no STOP:\n{}", lines.join("\n")));
    assert!(
        stop.contains(&format!("goals {role} {goal}")),
        "{id}: {stop} (referee: {goals:?})"
    );
}

#[test]
fn gdl2_matches_round_trip_through_the_referee() {
    let smart = spawn("smart", 1, &["--playouts", "150"]);
    let random = spawn("random", 2, &["--random"]);
    // Battleships, both seats.
    let g = referee(&battleships(), &[&smart, &random], "bs.1", 1, 5);
    check_player_log(&smart, "bs.1", "red", &g);
    check_player_log(&random, "bs.1", "blue", &g);
    assert_eq!(g.iter().map(|x| x.1).sum::<u64>(), 100, "{g:?}");
    let g = referee(&battleships(), &[&random, &smart], "bs.2", 2, 5);
    check_player_log(&smart, "bs.2", "blue", &g);
    check_player_log(&random, "bs.2", "red", &g);
    // Monty Hall: the referee plays `random` (it has no seat).
    let g = referee(&gdl2("montyhall.kif"), &[&smart], "mh.1", 3, 5);
    assert_eq!(g.len(), 2, "{g:?}");
    check_player_log(&smart, "mh.1", "candidate", &g);
    // The candidate saw the host open a door other than its own.
    let play3 = lines_of(&smart, "mh.1")
        .into_iter()
        .find(|l| l.contains("step 3,"))
        .expect("third PLAY");
    assert!(play3.contains("2 candidate states"), "{play3}");
    // kriegTTT_4x4 (simultaneous marks, each player seeing only whether
    // its own mark took): a match to its end, unless the file's goal
    // fault is reached (then the referee says so).
    let kt = gdl2("kriegTTT_4x4.kif");
    match referee_or_goal_fault(&kt, &[&smart, &random], "kt.1", 4, 5) {
        Ok(g) => {
            check_player_log(&smart, "kt.1", "xplayer", &g);
            check_player_log(&random, "kt.1", "oplayer", &g);
        }
        Err(out) => assert!(out.contains("several goals"), "{out}"),
    }
}

/// Bad GDL-II messages over HTTP get the fallback reply with status 200
/// and leave the player serving; the match goes on afterwards.
#[test]
fn bad_gdl2_messages_over_http_leave_the_player_serving() {
    use toss_cli::ggp::referee::{post, rules_text};
    let p = spawn("bad", 3, &["--playouts", "50"]);
    let t = std::time::Duration::from_secs(10);
    let rules =
        rules_text(&std::fs::read_to_string(battleships()).expect("battleships")).expect("rules");
    let send = |m: &str| post(&p.addr, m, t).unwrap_or_else(|e| panic!("{m}: {e}"));
    assert_eq!(
        send(&format!("(START b red {rules} 5 5)")),
        (200, "ready".into())
    );
    let first = send("(PLAY b 0 nil nil)");
    assert_eq!(first.0, 200);
    assert!(first.1.starts_with("(place "), "{first:?}");
    let long = format!("(PLAY b 1 {} nil nil)", "x".repeat(100_000));
    let deep = format!("(PLAY b 1 noop ({}{}))", "(".repeat(5000), ")".repeat(5000));
    let bad = [
        "(PLAY b 0 (place 1 1 h) nil)",
        "(PLAY b 1 (place 1 1 h) nil nil)",
        "(PLAY b one (place 1 1 h) nil)",
        "(PLAY b 18446744073709551616 (place 1 1 h) nil)",
        "(PLAY b 1 (place ?x 1 h) nil)",
        "(PLAY b 1 (place 1 1 h) ((hit ?x 1)))",
        "(PLAY b 1 (place 1 1 h) (nosuchpercept))",
        "(PLAY b 1 (place 1 1 h) ((hit 1 1)",
        "(PLAY b 1 (place 1 1 h) hit)",
        "(PLAY zz 1 (place 1 1 h) nil)",
        "(STOP b x nil nil)",
        "(PLAY b 1 () ())",
        &long,
        &deep,
    ];
    for m in bad {
        let (status, reply) = send(m);
        assert_eq!(status, 200, "{}", &m[..m.len().min(80)]);
        assert!(
            reply == "nil" || reply == "done",
            "{}: {reply}",
            &m[..m.len().min(80)]
        );
    }
    // Still serving, and the match goes on from where it was.
    assert_eq!(
        send("(INFO)"),
        (200, "((name toss) (status available))".into())
    );
    let second = send(&format!("(PLAY b 1 {} nil)", first.1));
    assert_eq!(second.0, 200);
    assert!(second.1.starts_with("(place "), "{second:?}");
    // A turn further on: the steps missed are guessed, and the player
    // answers with a move.
    let later = send(&format!("(PLAY b 9 {} ((miss 1 1)))", "(fire 1 1)"));
    assert_eq!(later.0, 200);
    assert!(
        later.1.starts_with("(fire ") || later.1 == "noop",
        "{later:?}"
    );
    assert!(p.log_text().contains("7 steps missed"), "{}", p.log_text());
    assert_eq!(send("(ABORT b)"), (200, "aborted".into()));
    let log = p.log_text();
    assert!(!log.contains("panic"), "{log}");
}

/// Wilson score interval (95%) of a mean of scores in 0..=1 over `n`.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z = 1.96f64;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    (c - h, c + h)
}

/// The measured run of BENCHMARKS.md: `GDL2_GAMES` (default 40) games of
/// Battleships and of kriegTTT_4x4, seats alternating, and as many of
/// Monty Hall for the GDL-II player and for the random player (switching
/// wins 2/3, a coin 1/2). `cargo test --release --test ggp_gdl2 -- --ignored --nocapture`.
#[test]
#[ignore = "minutes: the measured run of BENCHMARKS.md"]
fn gdl2_player_against_random_measured() {
    let n: u64 = std::env::var("GDL2_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let playouts = std::env::var("GDL2_PLAYOUTS").unwrap_or_else(|_| "1000".into());
    let smart = spawn("m-smart", 11, &["--playouts", &playouts]);
    let random = spawn("m-random", 12, &["--random"]);
    let mut report = Vec::new();
    let mut score = 0.0;
    for i in 0..n {
        let id = format!("mbs.{i}");
        let (players, ours) = if i % 2 == 0 {
            ([&smart, &random], "red")
        } else {
            ([&random, &smart], "blue")
        };
        let g = referee(&battleships(), &players, &id, 100 + i, 10);
        check_player_log(&smart, &id, ours, &g);
        score += g.iter().find(|(r, _)| r == ours).map_or(0, |x| x.1) as f64 / 100.0;
    }
    let (bs_lo, hi) = wilson(score / n as f64, n as f64);
    report.push(format!(
        "battleships, GDL-II player (--playouts {playouts}) against random, {n} games, seats alternating: score {score}/{n} = {:.3}, Wilson 95% [{bs_lo:.3}, {hi:.3}]",
        score / n as f64
    ));
    let (mut kt, mut kt_n, mut faulty) = (0.0, 0u64, 0u64);
    for i in 0..n {
        let id = format!("mkt.{i}");
        let (players, ours) = if i % 2 == 0 {
            ([&smart, &random], "xplayer")
        } else {
            ([&random, &smart], "oplayer")
        };
        match referee_or_goal_fault(&gdl2("kriegTTT_4x4.kif"), &players, &id, 300 + i, 10) {
            Ok(g) => {
                check_player_log(&smart, &id, ours, &g);
                kt += g.iter().find(|(r, _)| r == ours).map_or(0, |x| x.1) as f64 / 100.0;
                kt_n += 1;
            }
            Err(_) => faulty += 1,
        }
    }
    let (lo, hi) = wilson(kt / kt_n.max(1) as f64, kt_n.max(1) as f64);
    report.push(format!(
        "kriegTTT_4x4, GDL-II player against random, {n} games, seats alternating: {faulty} ended in the file's goal fault; score {kt}/{kt_n} = {:.3}, Wilson 95% [{lo:.3}, {hi:.3}]",
        kt / kt_n.max(1) as f64
    ));
    for (who, p) in [("GDL-II player", &smart), ("random player", &random)] {
        let mut wins = 0.0;
        for i in 0..n {
            let id = format!("mmh.{}.{i}", if who.starts_with('G') { "s" } else { "r" });
            let g = referee(&gdl2("montyhall.kif"), &[p], &id, 500 + i, 10);
            wins += g.iter().find(|(r, _)| r == "candidate").map_or(0, |x| x.1) as f64 / 100.0;
        }
        let (lo, hi) = wilson(wins / n as f64, n as f64);
        report.push(format!(
            "montyhall, {who} as the candidate, {n} games: won {wins}/{n} = {:.3}, Wilson 95% [{lo:.3}, {hi:.3}]",
            wins / n as f64
        ));
    }
    for r in &report {
        eprintln!("{r}");
    }
    // The GDL-II player must beat the random one at Battleships.
    assert!(bs_lo > 0.5, "{}", report.join("\n"));
}
