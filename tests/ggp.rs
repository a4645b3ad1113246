//! The GGP player over loopback: `toss ggp serve` processes play complete
//! matches of the corpus ticTacToe, connect4 and roshambo2 (simultaneous
//! moves) against each other, run by
//! the referee of `toss_cli::ggp::referee`. Every move is checked again here
//! by replaying the match with a fresh reasoner, every reply must arrive
//! within its clock, and the final goals must be those of the game. A
//! burst of malformed requests must leave the player serving.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

use toss::Game;
use toss::gdl::GdlMove;
use toss_cli::ggp::referee::{MatchRecord, RefereeConfig, post, run_match};

/// Clocks of the matches, in seconds; the players keep 0.5 s back.
const START_CLOCK: u64 = 2;
const PLAY_CLOCK: u64 = 1;

/// A `toss ggp serve` process, killed when dropped (on every path).
struct Player {
    child: Child,
    addr: String,
    log: PathBuf,
    _stdout: BufReader<ChildStdout>,
}

impl Drop for Player {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts a player on a free port (it prints the address it bound).
fn spawn(name: &str, seed: u64) -> Player {
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ggp-{name}.log"));
    let err = std::fs::File::create(&log).expect("log file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(["ggp", "serve", "--port", "0", "--host", "127.0.0.1"])
        .args(["--margin", "0.5", "--seed", &seed.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(err)
        .spawn()
        .expect("run toss ggp serve");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let read = stdout.read_line(&mut line);
    let mut player = Player {
        child,
        addr: String::new(),
        log,
        _stdout: stdout,
    };
    assert!(read.is_ok_and(|n| n > 0), "no address from the player");
    player.addr = line
        .trim()
        .strip_prefix("toss ggp: listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    player
}

/// The GDL corpus beside the repository, as CI has it.
fn corpus(file: &str) -> Option<String> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/gdl")
        .join(file);
    std::fs::read_to_string(p).ok()
}

/// Runs a match and checks it: no fault, every move legal (replayed with
/// a fresh reasoner), every reply in time, a terminal state whose goals
/// the referee reports and which sum to 100 (the two games are zero-sum
/// with draws at 50).
fn checked_match(file: &str, players: &[&Player], match_id: &str, seed: u64) -> MatchRecord {
    let source = corpus(file).expect("corpus file");
    let game = toss::gdl::kif::load_game(&source, file).expect("valid game");
    let addrs: Vec<String> = players.iter().map(|p| p.addr.clone()).collect();
    let cfg = RefereeConfig {
        match_id: match_id.into(),
        start_clock: START_CLOCK,
        play_clock: PLAY_CLOCK,
        seed,
        max_steps: 100,
    };
    let logs: Vec<String> = players
        .iter()
        .map(|p| p.log.display().to_string())
        .collect();
    let rec = run_match(&game, &source, &addrs, &cfg, |l| eprintln!("{l}"))
        .unwrap_or_else(|e| panic!("{match_id}: {e} (player logs: {logs:?})"));
    assert!(
        rec.faults.is_empty(),
        "{match_id}: faults {:?} (player logs: {logs:?})",
        rec.faults
    );
    for (p, t) in rec.start_times.iter().enumerate() {
        assert!(
            *t <= Duration::from_secs(START_CLOCK),
            "{match_id}: START reply of role {p} after {t:?}"
        );
    }
    for (step, times) in rec.reply_times.iter().enumerate() {
        for (p, t) in times.iter().enumerate() {
            assert!(
                *t <= Duration::from_secs(PLAY_CLOCK),
                "{match_id}: step {}, role {p} replied after {t:?}",
                step + 1
            );
        }
    }
    // Replay with a reasoner of its own.
    let fresh = toss::gdl::kif::load_game(&source, file).expect("valid game");
    let mut s = fresh.initial_state();
    let mut legal = Vec::new();
    for (step, joint) in rec.moves.iter().enumerate() {
        assert!(!fresh.is_terminal(&s), "{match_id}: moves after the end");
        assert_eq!(joint.len(), fresh.num_players());
        let mut ms = Vec::new();
        for (p, text) in joint.iter().enumerate() {
            let t = toss::gdl::kif::parse_ground_term(&fresh, text)
                .unwrap_or_else(|d| panic!("{match_id}: step {}: `{text}`: {d}", step + 1));
            fresh.legal_moves(&s, p, &mut legal);
            assert!(
                legal.contains(&GdlMove(t)),
                "{match_id}: step {}: `{text}` is not legal for role {p}",
                step + 1
            );
            ms.push(GdlMove(t));
        }
        s = fresh.next_state(&s, &ms);
    }
    assert!(fresh.is_terminal(&s), "{match_id}: the match stopped early");
    let goals = fresh.goals(&s).expect("goals defined");
    assert_eq!(rec.goals.as_ref().ok(), Some(&goals), "{match_id}");
    assert_eq!(
        goals.iter().sum::<u64>(),
        100,
        "{match_id}: goals {goals:?}"
    );
    rec
}

#[test]
fn tictactoe_match_between_two_players() {
    if corpus("ticTacToe.kif").is_none() {
        eprintln!("SKIPPED: ../shared/corpus/gdl is not beside the repository");
        return;
    }
    let x = spawn("ttt-x", 1);
    let o = spawn("ttt-o", 2);
    let rec = checked_match("ticTacToe.kif", &[&x, &o], "ttt.1", 1);
    // Tic-tac-toe ends after 5 to 9 marks.
    assert!(
        (5..=9).contains(&rec.moves.len()),
        "{} steps",
        rec.moves.len()
    );
    // The same through `toss ggp referee`, players swapped.
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/gdl/ticTacToe.kif");
    let out = Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(["ggp", "referee"])
        .arg(&file)
        .args(["--player", &o.addr, "--player", &x.addr])
        .args(["--start", "2", "--play", "1", "--match-id", "ttt.cli"])
        .output()
        .expect("run toss ggp referee");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "ttt.cli: started, roles xplayer, oplayer");
    assert!(lines[1].starts_with("ttt.cli: step 1: (mark "), "{stdout}");
    assert!(!stdout.contains("fault"), "{stdout}");
    let last = lines.last().copied().unwrap_or("");
    assert!(
        [
            "goals xplayer 100, oplayer 0",
            "goals xplayer 0, oplayer 100",
            "goals xplayer 50, oplayer 50"
        ]
        .contains(&last),
        "{stdout}"
    );
}

#[test]
fn connect4_match_between_two_players() {
    if corpus("connect4.kif").is_none() {
        eprintln!("SKIPPED: ../shared/corpus/gdl is not beside the repository");
        return;
    }
    let white = spawn("c4-white", 3);
    let black = spawn("c4-black", 4);
    let rec = checked_match("connect4.kif", &[&white, &black], "c4.1", 2);
    // A line of four needs at least 7 discs; the board holds 42.
    assert!(
        (7..=42).contains(&rec.moves.len()),
        "{} steps",
        rec.moves.len()
    );
}

#[test]
fn simultaneous_match_between_two_players() {
    if corpus("roshambo2.kif").is_none() {
        eprintln!("SKIPPED: ../shared/corpus/gdl is not beside the repository");
        return;
    }
    let white = spawn("rps-white", 7);
    let black = spawn("rps-black", 8);
    // Both roles throw in every step; the game stops at step 10 at the latest.
    let rec = checked_match("roshambo2.kif", &[&white, &black], "rps.1", 4);
    assert!(
        (5..=9).contains(&rec.moves.len()),
        "{} steps",
        rec.moves.len()
    );
}

/// Sends raw bytes and reads the reply until the player closes the
/// connection: the status, if the reply is HTTP.
fn raw(addr: &str, bytes: &[u8]) -> Option<u16> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
    s.set_write_timeout(Some(Duration::from_secs(20))).ok()?;
    let _ = s.write_all(bytes);
    let _ = s.shutdown(Shutdown::Write);
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    let text = String::from_utf8_lossy(&reply);
    text.lines().next()?.split_whitespace().nth(1)?.parse().ok()
}

fn http(method: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "{method} / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

#[test]
fn malformed_requests_leave_the_player_serving() {
    let Some(ttt) = corpus("ticTacToe.kif") else {
        eprintln!("SKIPPED: ../shared/corpus/gdl is not beside the repository");
        return;
    };
    let a = spawn("burst-a", 5);
    let b = spawn("burst-b", 6);
    let rules = toss_cli::ggp::referee::rules_text(&ttt).expect("rules");
    let timeout = Duration::from_secs(20);
    let status = |msg: &str| post(&a.addr, msg, timeout).map(|r| r.0);
    // Malformed or unexpected messages: an error status each.
    let deep = "(".repeat(100_000);
    let cases: Vec<(String, u16)> = vec![
        ("hello world".into(), 400),
        ("".into(), 400),
        ("(FOO bar)".into(), 400),
        ("(INFO".into(), 400),
        ("(START m1 xplayer ((role xplayer) (init".into(), 400),
        ("(PLAY nosuch nil)".into(), 404),
        ("(STOP nosuch ((mark 1 1) noop))".into(), 404),
        ("(ABORT nosuch)".into(), 404),
        ("(PLAY)".into(), 400),
        (deep, 400),
        (
            "(START m1 xplayer ((role xplayer) (<= (legal ?p ?m))) 2 1)".into(),
            400,
        ),
        (format!("(START m1 nobody {rules} 2 1)"), 400),
        (format!("(START m1 xplayer {rules} 0 1)"), 400),
    ];
    for (msg, want) in &cases {
        let shown: String = msg.chars().take(60).collect();
        assert_eq!(status(msg), Ok(*want), "{shown}");
    }
    // A started match refuses bad moves, then is aborted.
    assert_eq!(
        status(&format!("(START burst xplayer {rules} 1 1)")),
        Ok(200)
    );
    assert_eq!(status("(PLAY burst ((mark 9 9) noop))"), Ok(400));
    assert_eq!(status("(PLAY burst ((mark 1 1)))"), Ok(400));
    assert_eq!(status("(PLAY burst (noop noop))"), Ok(400));
    assert_eq!(status("(ABORT burst)"), Ok(200));
    // Not the protocol at the HTTP level.
    assert_eq!(raw(&a.addr, &http("PUT", b"(INFO)")), Some(405));
    assert_eq!(raw(&a.addr, &http("DELETE", b"")), Some(405));
    assert_eq!(raw(&a.addr, b"GET / HTTP/1.0\r\n\r\n"), Some(400));
    assert_eq!(raw(&a.addr, &http("POST", &[0xff, 0xfe, b'('])), Some(400));
    assert_eq!(raw(&a.addr, &http("POST", &vec![b'x'; 5 << 20])), Some(413));
    let _ = raw(&a.addr, b"\x00\x01\x02 not http at all\r\n\r\n");
    let _ = raw(&a.addr, b"");
    // A body shorter than announced.
    let _ = raw(
        &a.addr,
        b"POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n(INFO)",
    );
    // Many at once, from several connections.
    std::thread::scope(|sc| {
        for t in 0..6 {
            let addr = a.addr.clone();
            sc.spawn(move || {
                for i in 0..10 {
                    let body = format!("(garbage {t} {i}");
                    assert_eq!(raw(&addr, &http("POST", body.as_bytes())), Some(400));
                }
            });
        }
    });
    // The GET form of ggp-base, URL-encoded.
    assert_eq!(raw(&a.addr, b"GET /(INFO) HTTP/1.0\r\n\r\n"), Some(200));
    assert_eq!(
        raw(&a.addr, b"GET /%28ABORT+nosuch%29 HTTP/1.0\r\n\r\n"),
        Some(404)
    );
    // Still serving: INFO, then a complete match.
    assert_eq!(
        post(&a.addr, "(INFO)", timeout),
        Ok((200, "((name toss) (status available))".to_string()))
    );
    let rec = checked_match("ticTacToe.kif", &[&a, &b], "ttt.after-burst", 3);
    assert!((5..=9).contains(&rec.moves.len()));
}
