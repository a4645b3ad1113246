//! The GGP player over loopback: `toss ggp serve` processes play complete
//! matches of the corpus ticTacToe, connect4 and roshambo2 (simultaneous
//! moves) against each other, run by
//! the referee of `toss_cli::ggp::referee`. Every move is checked again here
//! by replaying the match with a fresh reasoner, every reply must arrive
//! within its clock, and the final goals must be those of the game. A
//! burst of malformed requests must leave the player serving, and so must
//! what an attacker or a real server would send: a huge `Content-Length`,
//! a client that sends a byte at a time, hundreds of idle connections, a
//! game whose moves explode, budgets of nothing on the slowest corpus
//! games, two matches at once.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use toss::Game;
use toss::gdl::{GdlGame, GdlMove};
use toss_cli::ggp::referee::{GGP_BASE_GRACE, MatchRecord, RefereeConfig, post, run_match};

/// Clocks of the matches, in seconds; the players keep 0.5 s back.
const START_CLOCK: u64 = 2;
const PLAY_CLOCK: u64 = 1;

mod common;
use common::{Player, spawn_player};

/// Starts a player on a free port (it prints the address it bound).
fn spawn(name: &str, seed: u64) -> Player {
    spawn_with(name, seed, &[])
}

/// [`spawn`] with more options of `toss ggp serve`; the players keep
/// 0.5 s of each clock back unless `extra` says otherwise.
fn spawn_with(name: &str, seed: u64, extra: &[&str]) -> Player {
    let mut args: Vec<&str> = Vec::new();
    if !extra.contains(&"--margin") {
        args.extend(["--margin", "0.5"]);
    }
    args.extend(extra);
    spawn_player(&format!("ggp-{name}"), seed, &args)
}

impl Player {
    /// A line of `/proc/PID/status` in kB or a count (`VmHWM`, `Threads`).
    fn status(&self, key: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc/PID/status");
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in /proc/PID/status"))
    }

    /// The player's log so far.
    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// The GDL corpus beside the repository, as CI has it: a test that needs
/// it fails without it.
fn corpus(file: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/gdl")
        .join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the corpus must be beside the repository)",
            p.display()
        )
    })
}

/// Runs a match and checks it: no fault, every move legal (replayed with
/// a fresh reasoner), every reply in time, a terminal state whose goals
/// the referee reports and which sum to 100 (the two games are zero-sum
/// with draws at 50).
fn checked_match(file: &str, players: &[&Player], match_id: &str, seed: u64) -> MatchRecord {
    let source = corpus(file);
    let game = toss::gdl::kif::load_game(&source, file).expect("valid game");
    let addrs: Vec<String> = players.iter().map(|p| p.addr.clone()).collect();
    let cfg = RefereeConfig {
        match_id: match_id.into(),
        start_clock: START_CLOCK,
        play_clock: PLAY_CLOCK,
        seed,
        max_steps: 100,
        grace: Duration::ZERO,
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
    let x = spawn("ttt-x", 1);
    let o = spawn("ttt-o", 2);
    let rec = checked_match("ticTacToe.kif", &[&x, &o], "ttt.1", 1);
    // Tic-tac-toe ends after 5 to 9 marks.
    assert!(
        (5..=9).contains(&rec.moves.len()),
        "{} steps",
        rec.moves.len()
    );
    // The same through `toss ggp referee`, players swapped, with a match
    // record.
    let record = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ttt.cli.json");
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/gdl/ticTacToe.kif");
    let out = Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(["ggp", "referee"])
        .arg(&file)
        .args(["--player", &o.addr, "--player", &x.addr])
        .args(["--start", "2", "--play", "1", "--match-id", "ttt.cli"])
        .arg("--record")
        .arg(&record)
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
    // ggp-base's JSON: the moves as it prints terms, the goals.
    let json = std::fs::read_to_string(&record).expect("match record");
    let steps = lines.iter().filter(|l| l.contains(": step ")).count();
    assert!(json.starts_with("{\"matchId\": \"ttt.cli\", "), "{json}");
    assert!(
        json.contains("\"isCompleted\": true, \"isAborted\": false"),
        "{json}"
    );
    assert!(json.contains("\"moves\": [[\"( mark "), "{json}");
    assert_eq!(json.matches("\"( mark ").count(), steps, "{json}");
    assert_eq!(json.matches("\"( ( ").count(), steps + 1, "{json}");
    let goals = last.replace("goals xplayer ", "").replace(" oplayer ", "");
    assert!(
        json.contains(&format!("\"goalValues\": [{}]", goals.replace(',', ", "))),
        "{json}"
    );
    assert!(
        json.contains("\"startClock\": 2, \"playClock\": 1"),
        "{json}"
    );
}

#[test]
fn connect4_match_between_two_players() {
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
    let text = raw_reply(addr, bytes);
    text.lines().next()?.split_whitespace().nth(1)?.parse().ok()
}

/// Sends raw bytes; the whole reply, as text.
fn raw_reply(addr: &str, bytes: &[u8]) -> String {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return String::new();
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(20)));
    let _ = s.set_write_timeout(Some(Duration::from_secs(20)));
    let _ = s.write_all(bytes);
    let _ = s.shutdown(Shutdown::Write);
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
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
    let ttt = corpus("ticTacToe.kif");
    let a = spawn("burst-a", 5);
    let b = spawn("burst-b", 6);
    let rules = toss_cli::ggp::referee::rules_text(&ttt).expect("rules");
    let timeout = Duration::from_secs(20);
    let reply = |msg: &str| post(&a.addr, msg, timeout);
    // Messages of the protocol that cannot be served get status 200 and
    // what servers expect instead (ggp-base reads the body whatever the
    // status); only a body without a keyword of the protocol gets 400.
    let deep = "(".repeat(100_000);
    let ok = |body: &str| Ok((200, body.to_string()));
    type Reply = Result<(u16, String), String>;
    let cases: Vec<(String, Reply)> = vec![
        ("hello world".into(), Ok((400, String::new()))),
        ("".into(), Ok((400, String::new()))),
        ("(FOO bar)".into(), Ok((400, String::new()))),
        (deep, Ok((400, String::new()))),
        ("(INFO".into(), ok("busy")),
        ("(START m1 xplayer ((role xplayer) (init".into(), ok("busy")),
        ("(PLAY nosuch nil)".into(), ok("nil")),
        ("(STOP nosuch ((mark 1 1) noop))".into(), ok("done")),
        ("(ABORT nosuch)".into(), ok("aborted")),
        ("(PLAY)".into(), ok("nil")),
        (
            "(START m1 xplayer ((role xplayer) (<= (legal ?p ?m))) 2 1)".into(),
            ok("busy"),
        ),
        (format!("(START m1 nobody {rules} 2 1)"), ok("busy")),
        (format!("(START m1 xplayer {rules} 0 1)"), ok("busy")),
    ];
    for (msg, want) in &cases {
        let shown: String = msg.chars().take(60).collect();
        let got = reply(msg);
        match want {
            Ok((400, _)) => assert_eq!(got.map(|r| r.0), Ok(400), "{shown}"),
            want => assert_eq!(&got, want, "{shown}"),
        }
    }
    // The reason is in the log and in a header.
    let log = a.log_text();
    assert!(
        log.contains("PLAY: nil (no match `nosuch` is in progress)"),
        "{log}"
    );
    let head = raw_reply(&a.addr, &http("POST", b"(PLAY nosuch nil)"));
    assert!(
        head.contains("\r\nX-Toss-Reason: no match `nosuch` is in progress\r\n"),
        "{head}"
    );
    // A started match answers `nil` to bad moves, then is aborted.
    assert_eq!(
        reply(&format!("(START burst xplayer {rules} 1 1)")),
        ok("ready")
    );
    assert_eq!(reply("(PLAY burst ((mark 9 9) noop))"), ok("nil"));
    assert_eq!(reply("(PLAY burst ((mark 1 1)))"), ok("nil"));
    assert_eq!(reply("(PLAY burst (noop noop))"), ok("nil"));
    assert_eq!(reply("(ABORT burst)"), ok("aborted"));
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
        Some(200)
    );
    // Still serving: INFO, then a complete match.
    assert_eq!(
        post(&a.addr, "(INFO)", timeout),
        Ok((200, "((name toss) (status available))".to_string()))
    );
    let rec = checked_match("ticTacToe.kif", &[&a, &b], "ttt.after-burst", 3);
    assert!((5..=9).contains(&rec.moves.len()));
}

/// A message sent and its reply: the status and body, and the time from
/// connecting to the end of the reply.
fn timed(addr: &str, msg: &str, timeout: Duration) -> (Result<(u16, String), String>, Duration) {
    let t = Instant::now();
    let r = post(addr, msg, timeout);
    (r, t.elapsed())
}

#[test]
fn a_huge_content_length_and_idle_connections_leave_the_player_serving() {
    let p = spawn("huge", 11);
    // One request used to abort the process (the body was allocated).
    let t = Instant::now();
    let head = raw_reply(
        &p.addr,
        b"POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: 99999999999\r\n\r\n",
    );
    assert!(head.starts_with("HTTP/1.0 413 "), "{head}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let info = post(&p.addr, "(INFO)", Duration::from_secs(5));
    assert_eq!(info.map(|r| r.0), Ok(200));
    assert!(p.status("VmHWM") < 100_000, "{} kB", p.status("VmHWM"));
    // Idle connections, more than are served at once: the player keeps a
    // thread for each while it waits for its request, and ends them when
    // the connections close.
    let idle: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&p.addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let busy = p.status("Threads");
    assert!((200..=300).contains(&busy), "{busy} threads");
    drop(idle);
    let t = Instant::now();
    while p.status("Threads") > 4 && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(p.status("Threads") <= 4, "{} threads", p.status("Threads"));
    let info = post(&p.addr, "(INFO)", Duration::from_secs(5));
    assert_eq!(info.map(|r| r.0), Ok(200));
    // The log says why the extra connections were refused.
    assert!(
        p.log_text().contains("connections are open"),
        "{}",
        p.log_text()
    );
}

#[test]
fn a_slow_client_holds_up_nobody() {
    let rules = toss_cli::ggp::referee::rules_text(&corpus("ticTacToe.kif")).expect("rules");
    let p = spawn("slow", 12);
    let long = Duration::from_secs(10);
    for id in ["slow.a", "slow.b"] {
        let r = post(&p.addr, &format!("(START {id} xplayer {rules} 1 2)"), long);
        assert_eq!(r, Ok((200, "ready".to_string())));
    }
    let body = b"(PLAY slow.a nil)";
    std::thread::scope(|sc| {
        let slow = sc.spawn(|| {
            let t = Instant::now();
            let mut s = TcpStream::connect(&p.addr).expect("connect");
            let head = format!("POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n", body.len());
            s.write_all(head.as_bytes()).expect("write");
            // 17 bytes, one every 80 ms: the body is complete after 1.3 s
            // of the 2 s clock.
            for b in body {
                std::thread::sleep(Duration::from_millis(80));
                s.write_all(&[*b]).expect("write");
            }
            let mut reply = Vec::new();
            s.set_read_timeout(Some(long)).expect("timeout");
            let _ = s.read_to_end(&mut reply);
            (String::from_utf8_lossy(&reply).into_owned(), t.elapsed())
        });
        std::thread::sleep(Duration::from_millis(200));
        // Meanwhile, INFO and the other match are answered on time.
        let (info, took) = timed(&p.addr, "(INFO)", long);
        assert_eq!(info.map(|r| r.0), Ok(200));
        assert!(took < Duration::from_millis(500), "INFO took {took:?}");
        let (play, took) = timed(&p.addr, "(PLAY slow.b nil)", long);
        assert!(
            play.as_ref()
                .is_ok_and(|r| r.0 == 200 && r.1.starts_with("(mark ")),
            "{play:?}"
        );
        assert!(took <= Duration::from_secs(2), "PLAY took {took:?}");
        // The slow request's clock counted from its arrival: the reply
        // comes within 2 s of connecting, not 2 s after the last byte.
        let (reply, took) = slow.join().expect("slow client");
        assert!(reply.starts_with("HTTP/1.0 200 "), "{reply}");
        assert!(
            reply.ends_with(')') && reply.contains("\r\n\r\n(mark "),
            "{reply}"
        );
        assert!(
            (Duration::from_millis(1300)..=Duration::from_secs(2)).contains(&took),
            "the slow PLAY was answered after {took:?}"
        );
    });
}

/// A game of one role whose 300^3 legal moves would take gigabytes.
fn exploding_game() -> String {
    let numbers: String = (1..=300).map(|i| format!("(n {i}) ")).collect();
    format!(
        "((role p) (init (s 0)) {numbers}
         (<= (legal p (m ?x ?y ?z)) (true (s 0)) (n ?x) (n ?y) (n ?z))
         (<= (next (s 1)) (true (s 0))) (<= terminal (true (s 1)))
         (<= (goal p 100) (true (s 1))) (<= (goal p 0) (true (s 0))))"
    )
}

/// Three roles of 300 moves each: 27,000,000 joint moves, 900 legal ones.
fn exploding_joint_game() -> String {
    let numbers: String = (1..=300).map(|i| format!("(n {i}) ")).collect();
    format!(
        "((role a) (role b) (role c) (init (s 0)) {numbers}
         (<= (legal ?r (m ?x)) (role ?r) (true (s 0)) (n ?x))
         (<= (next (s 1)) (true (s 0))) (<= terminal (true (s 1)))
         (<= (goal ?r 50) (role ?r)))"
    )
}

#[test]
fn an_exploding_start_is_refused_and_the_player_stays_small() {
    let p = spawn("explode", 13);
    let long = Duration::from_secs(30);
    let (r, took) = timed(
        &p.addr,
        &format!("(START boom p {} 5 2)", exploding_game()),
        long,
    );
    assert_eq!(r, Ok((200, "busy".to_string())));
    assert!(took <= Duration::from_secs(5), "START took {took:?}");
    assert!(p.status("VmHWM") < 1_000_000, "{} kB", p.status("VmHWM"));
    assert!(
        p.log_text().contains("the limit of the reasoner"),
        "{}",
        p.log_text()
    );
    let (info, took) = timed(&p.addr, "(INFO)", long);
    assert_eq!(
        info,
        Ok((200, "((name toss) (status available))".to_string()))
    );
    assert!(took < Duration::from_millis(500));
    // Joint moves beyond the limit: played, with a random legal move.
    let (r, _) = timed(
        &p.addr,
        &format!("(START wide b {} 2 1)", exploding_joint_game()),
        long,
    );
    assert_eq!(r, Ok((200, "ready".to_string())));
    let (r, took) = timed(&p.addr, "(PLAY wide nil)", long);
    let mv = r.expect("reply").1;
    let n: u32 = mv
        .strip_prefix("(m ")
        .and_then(|m| m.strip_suffix(')'))
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("not a move: {mv}"));
    assert!((1..=300).contains(&n));
    assert!(took <= Duration::from_secs(1), "PLAY took {took:?}");
    assert!(p.status("VmHWM") < 1_000_000, "{} kB", p.status("VmHWM"));
    // And an ordinary match afterwards.
    let rules = toss_cli::ggp::referee::rules_text(&corpus("ticTacToe.kif")).expect("rules");
    let r = post(&p.addr, &format!("(START after xplayer {rules} 1 1)"), long);
    assert_eq!(r, Ok((200, "ready".to_string())));
}

/// Plays `steps` steps of `file` against `p` (playing the first role; the
/// others play their first legal move) after a START with these clocks;
/// every reply must be a legal move within the clock. Returns the
/// player's log lines about the match's PLAYs.
fn clocked_steps(
    p: &Player,
    file: &str,
    id: &str,
    clocks: (f64, f64),
    steps: usize,
) -> Vec<String> {
    let source = corpus(file);
    let game: GdlGame = toss::gdl::kif::load_game(&source, file).expect("valid game");
    let rules = toss_cli::ggp::referee::rules_text(&source).expect("rules");
    let role = &game.player_names()[0];
    let long = Duration::from_secs(30);
    let clock = |c: f64| Duration::from_secs_f64(c);
    let msg = format!("(START {id} {role} {rules} {} {})", clocks.0, clocks.1);
    let (r, took) = timed(&p.addr, &msg, long);
    assert_eq!(r, Ok((200, "ready".to_string())), "{id}");
    assert!(took <= clock(clocks.0), "{id}: START took {took:?}");
    let mut state = game.initial_state();
    let mut last = "nil".to_string();
    let mut legal = Vec::new();
    for step in 1..=steps {
        let (r, took) = timed(&p.addr, &format!("(PLAY {id} {last})"), long);
        assert!(took <= clock(clocks.1), "{id}: step {step} took {took:?}");
        let text = r.expect("reply").1;
        let mine = toss::gdl::kif::parse_ground_term(&game, &text)
            .unwrap_or_else(|d| panic!("{id}: step {step}: `{text}`: {d}"));
        game.legal_moves(&state, 0, &mut legal);
        assert!(
            legal.contains(&GdlMove(mine)),
            "{id}: step {step}: `{text}`"
        );
        let mut joint = vec![GdlMove(mine)];
        for q in 1..game.num_players() {
            game.legal_moves(&state, q, &mut legal);
            joint.push(legal[0]);
        }
        let texts: Vec<String> = joint.iter().map(|m| game.term_to_string(m.0)).collect();
        last = format!("({})", texts.join(" "));
        state = game.next_state(&state, &joint);
    }
    let tag = format!("ggp {id} PLAY: ");
    p.log_text()
        .lines()
        .filter(|l| l.starts_with(&tag))
        .map(str::to_string)
        .collect()
}

/// The iterations a PLAY line of the log reports.
fn iterations(line: &str) -> u64 {
    line.find(" iterations in ")
        .and_then(|i| line[..i].rsplit(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no iterations in `{line}`"))
}

#[test]
fn zero_and_tiny_budgets_on_the_slowest_games() {
    // The margin is the whole START clock and the first play clock: no
    // time to search at all; then 0.2 s, less than one of the iterations
    // that expand a new position (every joint move played out once:
    // about 20 playouts in chess_200, 10,000 in smallest_4player).
    let p = spawn_with("budgets", 14, &["--margin", "1"]);
    for file in ["chess_200.kif", "smallest_4player.kif"] {
        let zero = clocked_steps(&p, file, &format!("{file}.zero"), (1.0, 1.0), 3);
        assert_eq!(zero.len(), 3, "{zero:?}");
        for l in &zero {
            assert_eq!(iterations(l), 0, "{l}");
        }
        // Every move is searched, after however slow an iteration.
        let tiny = clocked_steps(&p, file, &format!("{file}.tiny"), (1.0, 1.2), 4);
        assert_eq!(tiny.len(), 4, "{tiny:?}");
        for l in &tiny {
            assert!(iterations(l) >= 1, "{l}");
        }
    }
}

#[test]
fn two_matches_at_once_are_each_on_time() {
    let x = spawn("two-x", 15);
    let o = spawn("two-o", 16);
    std::thread::scope(|sc| {
        let a = sc.spawn(|| checked_match("ticTacToe.kif", &[&x, &o], "two.1", 5));
        let b = sc.spawn(|| checked_match("ticTacToe.kif", &[&o, &x], "two.2", 6));
        for h in [a, b] {
            let rec = h.join().expect("match");
            assert!((5..=9).contains(&rec.moves.len()));
        }
    });
}

/// A player that answers START at once and PLAY after `delay` with the
/// only move of [`ONE_MOVE`].
fn late_player(delay: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address").to_string();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { continue };
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // The request: its head and Content-Length bytes.
                let complete = |b: &[u8]| {
                    let text = String::from_utf8_lossy(b);
                    let Some(end) = text.find("\r\n\r\n") else {
                        return false;
                    };
                    let len: usize = text[..end]
                        .lines()
                        .find_map(|l| l.strip_prefix("Content-Length: ")?.parse().ok())
                        .unwrap_or(0);
                    b.len() >= end + 4 + len
                };
                while !complete(&buf) {
                    match s.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&buf).to_string();
                let reply = if text.contains("(START") {
                    "ready"
                } else if text.contains("(PLAY") {
                    std::thread::sleep(delay);
                    "go"
                } else {
                    "done"
                };
                let _ = write!(
                    s,
                    "HTTP/1.0 200 OK\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{reply}",
                    reply.len()
                );
            });
        }
    });
    addr
}

/// One role, one move.
const ONE_MOVE: &str = "(role a) (init (s 0)) (<= (legal a go) (true (s 0)))
(<= (next (s 1)) (true (s 0))) (<= terminal (true (s 1)))
(<= (goal a 100) (true (s 1))) (<= (goal a 0) (true (s 0)))";

#[test]
fn the_referee_accepts_a_late_reply_within_the_grace() {
    let game = toss::gdl::kif::load_game(ONE_MOVE, "one.kif").expect("game");
    let addr = late_player(Duration::from_millis(1400));
    let cfg = |grace| RefereeConfig {
        match_id: "late".into(),
        start_clock: 1,
        play_clock: 1,
        seed: 0,
        max_steps: 10,
        grace,
    };
    // ggp-base's grace: a reply 0.4 s after the clock is accepted.
    assert_eq!(GGP_BASE_GRACE, Duration::from_secs(1));
    let rec = run_match(
        &game,
        ONE_MOVE,
        std::slice::from_ref(&addr),
        &cfg(GGP_BASE_GRACE),
        |_| {},
    )
    .expect("match");
    assert!(rec.faults.is_empty(), "{:?}", rec.faults);
    assert_eq!(rec.not_played, None);
    assert_eq!(rec.goals, Ok(vec![100]));
    // Without grace it is a fault, and as the player never gave a valid
    // reply, the match was not played.
    let rec = run_match(&game, ONE_MOVE, &[addr], &cfg(Duration::ZERO), |_| {}).expect("match");
    assert_eq!(rec.faults.len(), 1, "{:?}", rec.faults);
    assert_eq!(rec.faults[0].step, 1);
    assert_eq!(
        rec.not_played.as_deref(),
        Some("no valid reply to PLAY from a")
    );
    assert!(rec.to_ggp_json(&[]).contains("\"isAborted\": true"));
}

#[test]
fn the_referee_fails_when_no_player_answers() {
    // A port with nothing listening.
    let free = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = free.local_addr().expect("address").to_string();
    drop(free);
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/gdl/ticTacToe.kif");
    let record = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nobody.json");
    let out = Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(["ggp", "referee"])
        .arg(&file)
        .args([
            "--player", &addr, "--player", &addr, "--start", "1", "--play", "1",
        ])
        .arg("--record")
        .arg(&record)
        .output()
        .expect("run toss ggp referee");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stdout}{stderr}");
    assert!(!stdout.contains("goals"), "{stdout}");
    assert!(
        stderr.contains("the match was not played: START failed"),
        "{stderr}"
    );
    let json = std::fs::read_to_string(&record).expect("match record");
    assert!(
        json.contains("\"isCompleted\": false, \"isAborted\": true"),
        "{json}"
    );
    assert!(!json.contains("goalValues"), "{json}");
}
