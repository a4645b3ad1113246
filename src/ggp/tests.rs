//! The protocol without sockets: reading and printing messages, the
//! replies of [`GgpPlayer`] and its match bookkeeping.

use std::time::{Duration, Instant};

use super::server::url_decode;
use super::*;

/// White picks left or right, then black does; white gets 100 exactly
/// when it picked right, so `(pick right)` is white's only winning move.
const PICK: &str = "(role white) (role black)
(init (control white))
(choice left) (choice right)
(<= (legal ?p (pick ?x)) (true (control ?p)) (choice ?x))
(<= (legal white noop) (true (control black)))
(<= (legal black noop) (true (control white)))
(<= (next (picked ?p ?x)) (does ?p (pick ?x)))
(<= (next (picked ?p ?x)) (true (picked ?p ?x)))
(<= (next (control black)) (true (control white)))
(<= terminal (true (picked black ?x)))
(<= (goal white 100) (true (picked white right)))
(<= (goal white 0) (not (true (picked white right))))
(<= (goal black 0) (true (picked white right)))
(<= (goal black 100) (not (true (picked white right))))";

/// Both roles show a hand at once; one step.
const SHOW: &str = "(role a) (role b)
(hand rock) (hand paper)
(<= (legal ?r (show ?h)) (role ?r) (hand ?h))
(<= (next (shown ?r ?h)) (does ?r (show ?h)))
(<= terminal (true (shown a ?h)))
(<= (goal ?r 50) (role ?r))";

fn player() -> GgpPlayer {
    GgpPlayer::new(PlayerConfig {
        margin: Some(0.9),
        seed: 3,
        ..PlayerConfig::default()
    })
}

pub(super) fn send(p: &GgpPlayer, msg: &str) -> Handled {
    p.handle(msg, Instant::now())
}

fn ok(p: &GgpPlayer, msg: &str) -> String {
    let h = send(p, msg);
    assert_eq!(h.status, 200, "{msg}: {}", h.reply);
    h.reply
}

/// A message that cannot be served: status 200 all the same, the reply
/// servers expect instead, and the reason.
pub(super) fn err(p: &GgpPlayer, msg: &str) -> (String, String) {
    let h = send(p, msg);
    assert_eq!(h.status, 200, "{msg}: {}", h.reply);
    let reason = h
        .reason
        .unwrap_or_else(|| panic!("{msg} was accepted: {}", h.reply));
    (h.reply, reason)
}

fn start(game: &str, id: &str, role: &str) -> String {
    format!("(START {id} {role} ({game}) 1 1)")
}

#[test]
fn messages_are_read_case_insensitively() {
    assert_eq!(parse_message("(INFO)"), Ok(Message::Info));
    assert_eq!(parse_message("  ( info )\r\n"), Ok(Message::Info));
    match parse_message("(start m1 White ((role white) (init (p))) 10 5)") {
        Ok(Message::Start {
            match_id,
            role,
            rules,
            start_clock,
            play_clock,
        }) => {
            assert_eq!((match_id.as_str(), role.as_str()), ("m1", "White"));
            assert_eq!(rules.len(), 2);
            assert_eq!(sexpr_to_string(&rules[1]), "(init (p))");
            assert_eq!((start_clock, play_clock), (10.0, 5.0));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        parse_message("(Play m1 NIL)"),
        Ok(Message::Play {
            match_id: "m1".into(),
            moves: None,
            turn: None,
        })
    );
    match parse_message("(PLAY m1 ((mark 1 1) noop))") {
        Ok(Message::Play {
            moves: Some(moves), ..
        }) => {
            let m: Vec<String> = moves.iter().map(sexpr_to_string).collect();
            assert_eq!(m, ["(mark 1 1)", "noop"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parse_message("(stop m1 (noop (mark 2 2)))"),
        Ok(Message::Stop { moves: Some(m), .. }) if m.len() == 2
    ));
    assert_eq!(
        parse_message("(abort m7)"),
        Ok(Message::Abort {
            match_id: "m7".into()
        })
    );
    assert!(matches!(
        parse_message("(PREVIEW ((role x)) 30)"),
        Ok(Message::Preview { rules, clock }) if rules.len() == 1 && clock == 30.0
    ));
}

#[test]
fn malformed_messages_are_errors_that_say_why() {
    let cases: &[(&str, &str)] = &[
        ("", "empty message"),
        ("INFO", "a message is a list"),
        ("(INFO) (INFO)", "one list"),
        ("(INFO", "unclosed `(`"),
        ("(INFO))", "unmatched `)`"),
        ("((INFO))", "starts with its keyword"),
        ("(HELLO)", "unknown message `HELLO`"),
        ("(INFO extra)", "INFO takes 0 arguments"),
        ("(START m1 x ((role x)) 10)", "START takes 5 arguments"),
        ("(PLAY m1)", "PLAY takes 2 arguments"),
        ("(PLAY (m 1) nil)", "the match id must be a symbol"),
        ("(PLAY m1 none)", "expected `nil` or a list of moves"),
        (
            "(START m1 x ((role x)) ten 5)",
            "the start clock must be a positive number",
        ),
        (
            "(START m1 x ((role x)) 10 -5)",
            "the play clock must be a positive number",
        ),
        (
            "(START m1 x ((role x)) 10 inf)",
            "the play clock must be a positive number",
        ),
        ("(START m1 x rules 10 5)", "must be a list of rules"),
        ("(ABORT)", "ABORT takes 1 argument"),
    ];
    for (msg, want) in cases {
        match parse_message(msg) {
            Ok(m) => panic!("{msg:?} read as {m:?}"),
            Err(e) => {
                assert_eq!(e.status, 400, "{msg:?}");
                assert!(e.message.contains(want), "{msg:?}: {}", e.message);
            }
        }
    }
    // Where: line and column in the message.
    let e = parse_message("(PLAY m1\n  ((mark 1 1) noop)").unwrap_err();
    assert!(e.message.contains("1:1: unclosed `(`"), "{}", e.message);
}

#[test]
fn sexpr_printing_round_trips() {
    let text = "(START m ( role x ) ((<= (legal ?p (mark ?x)) (true (cell ?x b)))) 1 2)";
    let forms = toss_gdl::kif::syntax::read_data(text).unwrap();
    let printed = sexpr_to_string(&forms[0]);
    assert_eq!(
        printed,
        "(START m (role x) ((<= (legal ?p (mark ?x)) (true (cell ?x b)))) 1 2)"
    );
    let again = toss_gdl::kif::syntax::read_data(&printed).unwrap();
    assert_eq!(sexpr_to_string(&again[0]), printed);
    // Deep nesting is printed without recursion.
    let deep = format!("{}a{}", "(f ".repeat(200), ")".repeat(200));
    let forms = toss_gdl::kif::syntax::read_data(&deep).unwrap();
    assert_eq!(sexpr_to_string(&forms[0]), deep);
}

#[test]
fn a_match_from_start_to_stop() {
    let p = player();
    assert_eq!(ok(&p, "(INFO)"), "((name toss) (status available))");
    assert_eq!(ok(&p, &start(PICK, "m1", "white")), "ready");
    assert_eq!(p.match_ids(), ["m1"]);
    // Matches are played at once up to the limit: still available.
    assert_eq!(ok(&p, "(INFO)"), "((name toss) (status available))");
    // The winning move.
    assert_eq!(ok(&p, "(PLAY m1 nil)"), "(pick right)");
    // A retried first request is answered again.
    assert_eq!(ok(&p, "(PLAY m1 nil)"), "(pick right)");
    // The referee decides: white picked left; now white can only wait.
    assert_eq!(ok(&p, "(PLAY m1 ((pick left) noop))"), "noop");
    assert_eq!(ok(&p, "(STOP m1 (noop (pick right)))"), "done");
    assert!(p.match_ids().is_empty());
    assert_eq!(ok(&p, "(INFO)"), "((name toss) (status available))");
    assert_eq!(err(&p, "(PLAY m1 nil)").0, "nil");
}

#[test]
fn the_player_of_the_second_role_answers_too() {
    let p = player();
    assert_eq!(ok(&p, &start(PICK, "m2", "BLACK")), "ready");
    assert_eq!(ok(&p, "(PLAY m2 nil)"), "noop");
    let reply = ok(&p, "(PLAY m2 ((pick right) noop))");
    assert!(reply == "(pick left)" || reply == "(pick right)", "{reply}");
    assert_eq!(ok(&p, "(ABORT m2)"), "aborted");
    assert!(p.match_ids().is_empty());
}

#[test]
fn messages_in_upper_case_get_moves_in_upper_case() {
    let p = player();
    let msg = start(PICK, "M3", "WHITE").to_ascii_uppercase();
    assert_eq!(ok(&p, &msg), "ready");
    assert_eq!(ok(&p, "(PLAY M3 NIL)"), "(PICK RIGHT)");
    assert_eq!(ok(&p, "(PLAY M3 ((pick right) NOOP))"), "NOOP");
    // The same on the translated game and on the grounded game (time
    // enough to translate or ground).
    for (engine, name) in [(Engine::Toss, "translated"), (Engine::Grounded, "grounded")] {
        let p = GgpPlayer::new(PlayerConfig {
            engine,
            ..p.config.clone()
        });
        let msg = format!("(START G3 white ({PICK}) 3 1)").to_ascii_uppercase();
        let h = send(&p, &msg);
        assert_eq!(engine_of(&h.log), name, "{}", h.log);
        assert_eq!(ok(&p, "(PLAY G3 NIL)"), "(PICK RIGHT)");
        assert_eq!(ok(&p, "(PLAY G3 ((pick right) NOOP))"), "NOOP");
    }
}

#[test]
fn simultaneous_moves() {
    let p = player();
    ok(&p, &start(SHOW, "s", "b"));
    let reply = ok(&p, "(PLAY s nil)");
    assert!(reply == "(show rock)" || reply == "(show paper)", "{reply}");
    assert_eq!(ok(&p, "(STOP s ((show paper) (show rock)))"), "done");
}

#[test]
fn bad_moves_are_refused_and_the_match_goes_on() {
    let p = player();
    ok(&p, &start(PICK, "m", "white"));
    ok(&p, "(PLAY m nil)");
    let cases: &[(&str, &str)] = &[
        (
            "(PLAY m ((pick right)))",
            "expected 2 moves, one per role (white, black), got 1",
        ),
        ("(PLAY m ((pick up) noop))", "the game has no symbol `up`"),
        ("(PLAY m ((pick ?x) noop))", "no variables"),
        (
            "(PLAY m (noop noop))",
            "`noop` is not legal for role white at step 1",
        ),
        (
            "(PLAY m ((pick left) (pick left)))",
            "`(pick left)` is not legal for role black",
        ),
        ("(PLAY other nil)", "no match `other`"),
    ];
    for (msg, want) in cases {
        let (_, text) = err(&p, msg);
        assert!(text.contains(want), "{msg}: {text}");
    }
    // The state did not change: the legal joint move is accepted.
    assert_eq!(ok(&p, "(PLAY m ((pick left) noop))"), "noop");
    assert!(err(&p, "(PLAY m nil)").1.contains("already played"));
    // The last move ends the game: PLAY is refused, STOP accepted.
    let (_, text) = err(&p, "(PLAY m (noop (pick left)))");
    assert!(text.contains("is over after 2 steps"), "{text}");
    assert_eq!(ok(&p, "(STOP m nil)"), "done");
}

#[test]
fn a_stop_with_an_illegal_move_is_refused_and_drops_the_match() {
    let p = player();
    ok(&p, &start(PICK, "m", "white"));
    ok(&p, "(PLAY m ((pick left) noop))");
    let (reply, _) = err(&p, "(STOP m ((pick left) noop))");
    assert_eq!(reply, "done");
    assert!(p.match_ids().is_empty());
}

#[test]
fn start_and_preview_check_the_description() {
    let p = player();
    let (reply, text) = err(&p, "(START m white ((role white) (<= (p ?x) (q))) 1 1)");
    assert_eq!(reply, "busy");
    // Column 37 of the message is the `?x` of the head.
    assert!(
        text.starts_with("invalid game description: 1:37: unsafe rule: variable ?x"),
        "{text}"
    );
    let (_, text) = err(&p, "(START m white ((role white) (init p)) 1 1)");
    assert!(text.contains("not a game"), "{text}");
    let (_, text) = err(&p, &start(PICK, "m", "red"));
    assert!(
        text.contains("`red` is not a role of this game (roles: white, black)"),
        "{text}"
    );
    assert!(p.match_ids().is_empty());
    ok(&p, &start(PICK, "m", "white"));
    let (_, text) = err(&p, &start(PICK, "m", "black"));
    assert!(text.contains("already started"), "{text}");
    assert_eq!(ok(&p, &format!("(PREVIEW ({PICK}) 5)")), "ready");
    assert!(err(&p, "(PREVIEW ((role)) 5)").1.contains("invalid"));
    assert_eq!(p.match_ids(), ["m"]);
}

#[test]
fn several_matches_at_once() {
    let p = player();
    ok(&p, &start(PICK, "one", "white"));
    ok(&p, &start(SHOW, "two", "a"));
    assert_eq!(ok(&p, "(PLAY one nil)"), "(pick right)");
    ok(&p, "(PLAY two nil)");
    assert_eq!(p.match_ids(), ["one", "two"]);
    ok(&p, "(ABORT one)");
    assert_eq!(p.match_ids(), ["two"]);
    ok(&p, "(STOP two ((show rock) (show rock)))");
    assert!(p.match_ids().is_empty());
}

#[test]
fn silent_matches_expire() {
    let p = player();
    let t0 = Instant::now();
    assert_eq!(p.handle(&start(PICK, "old", "white"), t0).status, 200);
    assert_eq!(
        p.handle(&start(PICK, "new", "white"), t0 + Duration::from_secs(30))
            .status,
        200
    );
    // Clocks 1 s and 1 s: the limit is 60 + 4 * 2 = 68 s.
    assert!(p.expire(t0 + Duration::from_secs(60)).is_empty());
    assert_eq!(p.expire(t0 + Duration::from_secs(69)), ["old"]);
    assert_eq!(p.match_ids(), ["new"]);
    // A message keeps a match alive.
    assert_eq!(
        p.handle("(PLAY new nil)", t0 + Duration::from_secs(90))
            .status,
        200
    );
    assert!(p.expire(t0 + Duration::from_secs(150)).is_empty());
    assert_eq!(p.expire(t0 + Duration::from_secs(159)), ["new"]);
}

#[test]
fn the_margin_and_the_budget() {
    let c = PlayerConfig::default();
    assert_eq!(c.margin_for(10.0), Duration::from_secs(1));
    assert_eq!(c.margin_for(2.0), Duration::from_millis(500));
    let c = PlayerConfig {
        margin: Some(0.25),
        ..PlayerConfig::default()
    };
    assert_eq!(c.margin_for(10.0), Duration::from_millis(250));
    let past = Instant::now() - Duration::from_secs(3);
    assert_eq!(c.budget(2.0, past), Duration::ZERO);
    assert!(c.budget(10.0, Instant::now()) <= Duration::from_millis(9750));
}

#[test]
fn url_decoding() {
    assert_eq!(url_decode("(INFO)").as_deref(), Some("(INFO)"));
    assert_eq!(
        url_decode("(PLAY%20m1+nil)").as_deref(),
        Some("(PLAY m1 nil)")
    );
    assert_eq!(url_decode("%2"), None);
    assert_eq!(url_decode("%zz"), None);
    assert_eq!(url_decode("%ff"), None);
}

#[test]
fn several_threads_search_with_copies_of_the_game() {
    let p = GgpPlayer::new(PlayerConfig {
        margin: Some(0.8),
        threads: 3,
        ..PlayerConfig::default()
    });
    ok(&p, &start(PICK, "t", "white"));
    assert_eq!(ok(&p, "(PLAY t nil)"), "(pick right)");
    assert_eq!(ok(&p, "(PLAY t ((pick right) noop))"), "noop");
    ok(&p, &start(SHOW, "s", "a"));
    let reply = ok(&p, "(PLAY s nil)");
    assert!(reply == "(show rock)" || reply == "(show paper)", "{reply}");
}

#[test]
fn a_start_beyond_the_limit_of_matches_is_answered_busy() {
    let p = GgpPlayer::new(PlayerConfig {
        margin: Some(0.9),
        max_matches: 2,
        ..PlayerConfig::default()
    });
    assert_eq!(ok(&p, &start(PICK, "a", "white")), "ready");
    assert_eq!(ok(&p, &start(PICK, "b", "white")), "ready");
    assert_eq!(ok(&p, &start(PICK, "c", "white")), "busy");
    assert_eq!(p.match_ids(), ["a", "b"]);
    ok(&p, "(ABORT a)");
    assert_eq!(ok(&p, &start(PICK, "c", "white")), "ready");
}

#[test]
fn without_time_for_an_iteration_the_move_comes_from_the_kept_tree() {
    // The play clock is the margin: PLAY starts no iteration and answers
    // from the tree grown at START.
    let p = GgpPlayer::new(PlayerConfig {
        margin: Some(0.5),
        ..PlayerConfig::default()
    });
    let msg = format!("(START m white ({PICK}) 1 0.5)");
    let h = send(&p, &msg);
    assert!(!h.log.contains(" 0 iterations in"), "{}", h.log);
    let h = send(&p, "(PLAY m nil)");
    assert_eq!(h.reply, "(pick right)");
    assert!(h.log.contains(", 0 iterations in"), "{}", h.log);
    // No time at START either: no tree, the first legal move.
    let msg = format!("(START n white ({PICK}) 0.5 0.5)");
    let h = send(&p, &msg);
    assert!(h.log.contains(" 0 iterations in"), "{}", h.log);
    assert_eq!(ok(&p, "(PLAY n nil)"), "(pick left)");
}

/// ggp-base's `games/test/test_case_3a.kif`: `(open2)` is a relation of
/// no arguments, not the proposition `open2`, so nothing defines the
/// `open2` of the legal rules and only `correct_failure` is legal.
const CASE_3A: &str = "(role xplayer) (init (cell 1 1 b))
(<= open1 (true (cell ?x ?y b)))
(<= (open2) (true (cell ?x ?y b)))
(<= (legal xplayer (move correct_correct)) open1 open2)
(<= (legal xplayer (move correct_failure)) open1 (not open2))
(<= (legal xplayer (move failure_correct)) (not open1) open2)
(<= (legal xplayer (move failure_failure)) (not open1) (not open2))
(<= (next ?x) (does xplayer (move ?x)))
(<= (goal xplayer 100) (true correct_correct))
(<= (goal xplayer 75) (true correct_failure))
(<= (goal xplayer 50) (true failure_correct))
(<= (goal xplayer 25) (true failure_failure))
(<= terminal (not (true (cell 1 1 b))))";

#[test]
fn a_relation_in_parentheses_is_read_as_ggp_base_reads_it() {
    let p = player();
    ok(&p, &start(CASE_3A, "3a", "xplayer"));
    assert_eq!(ok(&p, "(PLAY 3a nil)"), "(move correct_failure)");
    // A function of no arguments is not a constant either, and is
    // printed back in parentheses.
    let game = "(role r) (init (at (home))) (<= (legal r (go (home))) (true (at (home))))
(<= (legal r stay) (true (at home)))
(<= (next (at home)) (does r (go (home)))) (<= terminal (true (at home)))
(<= (goal r 100) (true (at home))) (<= (goal r 0) (true (at (home))))";
    ok(&p, &start(game, "f0", "r"));
    assert_eq!(ok(&p, "(PLAY f0 nil)"), "(go (home))");
    assert_eq!(ok(&p, "(STOP f0 ((go (home))))"), "done");
}

#[test]
fn a_game_breaking_only_the_restrictions_on_rules_is_played_with_a_warning() {
    let p = player();
    // `anc` is recursive through two recursive literals (GDL's recursion
    // restriction), which the reasoner evaluates all the same.
    let game = "(role r) (parent a b) (parent b c) (init (at a))
(<= (anc ?x ?y) (parent ?x ?y)) (<= (anc ?x ?z) (anc ?x ?y) (anc ?y ?z))
(<= (legal r (go ?y)) (true (at ?x)) (anc ?x ?y))
(<= (next (at ?y)) (does r (go ?y))) (<= terminal (true (at c)))
(<= (goal r 100) (true (at c))) (<= (goal r 0) (not (true (at c))))";
    let h = send(&p, &start(game, "w", "r"));
    assert_eq!(h.reply, "ready", "{}", h.log);
    assert!(
        h.log
            .contains("warning: the description does not validate (2:57: recursion"),
        "{}",
        h.log
    );
    assert!(h.log.contains("recursion restriction"), "{}", h.log);
    assert!(
        h.log
            .contains("engine reasoner (not grounded: the description does not validate)"),
        "{}",
        h.log
    );
    let mv = ok(&p, "(PLAY w nil)");
    assert!(mv == "(go b)" || mv == "(go c)", "{mv}");
    // Unsafe rules are refused: the reasoner cannot evaluate them.
    let (reply, why) = err(
        &p,
        "(START u r ((role r) (<= (legal r ?m) (true (s 0)))) 1 1)",
    );
    assert_eq!(reply, "busy");
    assert!(why.contains("unsafe rule"), "{why}");
}

/// White plays calm (black then settles: white 60) or risky (black
/// punishes: white 0, or passes: white 100); every reply of black ends
/// the game.
const TRAP: &str = "(role white) (role black) (init (control white)) (num 1) (num 2) (num 3)
(<= (legal white calm) (true (control white))) (<= (legal white risky) (true (control white)))
(<= (legal black noop) (true (control white))) (<= (legal white noop) (true (control black)))
(<= (legal black punish) (true (chose risky))) (<= (legal black (pass ?n)) (true (chose risky)) (num ?n))
(<= (legal black settle) (true (chose calm)))
(<= (next (chose ?m)) (does white ?m) (distinct ?m noop))
(<= (next (control black)) (true (control white)))
(<= (next (ended ?m)) (does black ?m) (distinct ?m noop))
(<= terminal (true (ended ?m)))
(<= (goal white 0) (true (ended punish))) (<= (goal black 100) (true (ended punish)))
(<= (goal white 100) (true (ended (pass ?n)))) (<= (goal black 0) (true (ended (pass ?n))))
(<= (goal white 60) (true (ended settle))) (<= (goal black 40) (true (ended settle)))";

/// Each of our legal moves in the current state of `m` (by its text, in
/// text order) with the least goal of ours an opponent can end the game
/// with after it ([`Match::traps`]).
fn traps_of<G: MatchGame>(m: &Match<G>, deadline: Instant) -> Vec<(String, Option<f64>)> {
    let mut legal = vec![Vec::new(); m.game.num_players()];
    for (r, l) in legal.iter_mut().enumerate() {
        m.game.legal_moves(&m.state, r, l);
    }
    let mut t: Vec<(String, Option<f64>)> = legal[m.role]
        .iter()
        .zip(m.traps(&legal, deadline))
        .map(|(mv, t)| (m.game.move_text(&m.reader, &m.state, m.role, mv), t))
        .collect();
    t.sort_by(|a, b| a.0.cmp(&b.0));
    t
}

#[test]
fn the_least_an_opponent_can_end_the_game_with_after_each_move() {
    let p = player();
    ok(&p, &start(TRAP, "t", "white"));
    let m = lock(&p.registry).matches.get("t").cloned().expect("match");
    let m = lock(&m);
    let traps =
        |deadline| on_gdl1_match!(&*m, m => traps_of(m, deadline), _h => panic!("a GDL-I game"));
    let later = Instant::now() + Duration::from_secs(10);
    assert_eq!(
        traps(later),
        [
            ("calm".to_string(), Some(60.0)),
            ("risky".to_string(), Some(0.0))
        ]
    );
    // Without the time to look at every move, no judgement.
    assert_eq!(
        traps(Instant::now()),
        [("calm".to_string(), None), ("risky".to_string(), None)]
    );
}

/// A game of the GDL corpus beside the repository.
fn corpus(file: &str) -> String {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/gdl")
        .join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the corpus must be beside the repository)",
            p.display()
        )
    })
}

/// The rules of a corpus game, as a START carries them.
fn corpus_rules(file: &str) -> String {
    referee::rules_text(&corpus(file)).expect("rules")
}

/// The engine a START's log line names: `translated`, `grounded` or
/// `reasoner`.
fn engine_of(log: &str) -> &str {
    let at = log
        .find(", engine ")
        .unwrap_or_else(|| panic!("no engine in `{log}`"));
    log[at + 9..].split(' ').next().unwrap_or("")
}

/// What the match `id` of `p` is played on: `translated`, `grounded` or
/// `reasoner`.
fn engine_played(p: &GgpPlayer, id: &str) -> &'static str {
    let m = lock(&p.registry).matches.get(id).cloned().expect("match");
    match &*lock(&m) {
        AnyMatch::Translated(_) => "translated",
        AnyMatch::Grounded(_) => "grounded",
        AnyMatch::Reasoner(_) => "reasoner",
        AnyMatch::Hidden(_) => "hidden",
    }
}

/// Plays a whole match of a corpus game with one match of `p` per role
/// (ids `{id}.0`, `{id}.1`, ...), the moves relayed as a referee does and
/// checked on a fresh reasoner; returns the START log lines and the goals
/// of the final state (which the STOP lines must report). Each match
/// must still be played on the engine its START log line names when the
/// game ends.
fn relayed_match(p: &GgpPlayer, file: &str, id: &str) -> (Vec<String>, Vec<u64>) {
    let game = toss_gdl::kif::load_game(&corpus(file), file).expect("valid game");
    let rules = corpus_rules(file);
    let roles = game.player_names().to_vec();
    let ids: Vec<String> = (0..roles.len()).map(|r| format!("{id}.{r}")).collect();
    let starts: Vec<String> = roles
        .iter()
        .zip(&ids)
        .map(|(role, mid)| {
            let h = send(p, &format!("(START {mid} {role} {rules} 3 1)"));
            assert_eq!(h.reply, "ready", "{}", h.log);
            h.log
        })
        .collect();
    let mut state = game.initial_state();
    let mut last = "nil".to_string();
    let mut legal = Vec::new();
    let mut steps = 0;
    while !game.terminal(&state) {
        steps += 1;
        assert!(steps <= 100, "{file}: no end");
        let mut joint = Vec::new();
        for (r, mid) in ids.iter().enumerate() {
            let text = ok(p, &format!("(PLAY {mid} {last})"));
            let t = toss_gdl::kif::parse_ground_term(&game, &text)
                .unwrap_or_else(|d| panic!("{file} step {steps}: `{text}`: {d}"));
            game.legal_moves(&state, r, &mut legal);
            assert!(
                legal.contains(&toss_gdl::GdlMove(t)),
                "{file} step {steps}: `{text}` is not legal for {}",
                roles[r]
            );
            joint.push(toss_gdl::GdlMove(t));
        }
        let texts: Vec<String> = joint.iter().map(|m| game.term_to_string(m.0)).collect();
        last = format!("({})", texts.join(" "));
        state = game.next_state(&state, &joint);
    }
    for (mid, log) in ids.iter().zip(&starts) {
        assert_eq!(engine_played(p, mid), engine_of(log), "{log}");
    }
    let goals = game.goals(&state).expect("goals");
    let want = format!("goals {}", goals_text(&roles, &goals));
    for mid in &ids {
        let h = send(p, &format!("(STOP {mid} {last})"));
        assert_eq!(h.reply, "done", "{}", h.log);
        assert!(h.log.contains(&want), "{} (want {want})", h.log);
    }
    assert!(p.match_ids().is_empty());
    (starts, goals)
}

/// A player on the translated game (`--engine toss`).
fn translating_player() -> GgpPlayer {
    GgpPlayer::new(PlayerConfig {
        engine: Engine::Toss,
        ..player().config
    })
}

/// A player that never translates (`--engine grounded`).
fn grounding_player() -> GgpPlayer {
    GgpPlayer::new(PlayerConfig {
        engine: Engine::Grounded,
        ..player().config
    })
}

/// A game that translates is played on the translated game (`--engine
/// toss`): a whole match of legal moves, the state following the
/// reasoner's at every step (or the moves would be refused), the goals
/// reported at STOP.
#[test]
fn tic_tac_toe_is_played_on_the_translated_game() {
    let p = translating_player();
    let (starts, goals) = relayed_match(&p, "ticTacToe.kif", "ttt");
    for log in &starts {
        assert_eq!(engine_of(log), "translated", "{log}");
        assert!(
            log.contains(" rules, 2 locations, 10 elements, translated in "),
            "{log}"
        );
        assert!(
            log.contains(&format!("; player {}", translated::PLAYER)),
            "{log}"
        );
    }
    assert!(
        [[100, 0], [0, 100], [50, 50]].iter().any(|g| goals == g),
        "{goals:?}"
    );
}

/// A game whose moves become marks and update plies (nim1.kif: a move
/// takes from a heap it does not name as an element) is played on the
/// translated game too: the update plies follow each move unseen.
#[test]
fn nim_is_played_on_the_translated_game_with_moves_as_marks() {
    let p = translating_player();
    let (starts, goals) = relayed_match(&p, "nim1.kif", "nim");
    for log in &starts {
        assert_eq!(engine_of(log), "translated", "{log}");
    }
    assert!([[100, 0], [0, 100]].iter().any(|g| goals == g), "{goals:?}");
}

/// A simultaneous game (roshambo2.kif) is played on its translation too:
/// both roles move at every joint move.
#[test]
fn a_simultaneous_game_is_played_on_the_translated_game() {
    let p = translating_player();
    let (starts, goals) = relayed_match(&p, "roshambo2.kif", "rps-t");
    for log in &starts {
        assert_eq!(engine_of(log), "translated", "{log}");
    }
    assert!(
        [[100, 0], [0, 100], [50, 50]].iter().any(|g| goals == g),
        "{goals:?}"
    );
}

/// The default engine does not translate (its player is the weaker, see
/// the START engine choice); `--engine toss` refuses the START of a game
/// the translation refuses (gt_prisoner.kif: turns of more plies than the
/// limit), saying why.
#[test]
fn a_game_that_does_not_translate_is_played_as_before() {
    let p = player();
    let rules = corpus_rules("gt_prisoner.kif");
    let h = send(&p, &format!("(START c white {rules} 3 1)"));
    assert_eq!(h.reply, "ready", "{}", h.log);
    assert_ne!(engine_of(&h.log), "translated", "{}", h.log);
    assert_eq!(engine_played(&p, "c"), engine_of(&h.log));
    assert!(!h.log.contains("translated"), "{}", h.log);
    let mv = ok(&p, "(PLAY c nil)");
    assert!(["cooperate", "defect"].contains(&mv.as_str()), "{mv}");
    ok(&p, "(ABORT c)");
    let p = GgpPlayer::new(PlayerConfig {
        engine: Engine::Toss,
        ..player().config
    });
    let (reply, why) = err(&p, &format!("(START c white {rules} 3 1)"));
    assert_eq!(reply, "busy");
    assert!(
        why.contains("--engine toss, but the game is not translated: "),
        "{why}"
    );
    assert!(p.match_ids().is_empty());
}

#[test]
fn tic_tac_toe_is_played_on_the_grounded_game() {
    let p = grounding_player();
    let (starts, goals) = relayed_match(&p, "ticTacToe.kif", "ttt");
    for log in &starts {
        assert_eq!(engine_of(log), "grounded", "{log}");
        assert!(log.contains(" gates, grounded in "), "{log}");
    }
    assert!(
        [[100, 0], [0, 100], [50, 50]].iter().any(|g| goals == g),
        "{goals:?}"
    );
}

#[test]
fn a_simultaneous_game_is_played_on_the_grounded_game() {
    let p = player();
    let (starts, goals) = relayed_match(&p, "roshambo2.kif", "rps");
    for log in &starts {
        assert_eq!(engine_of(log), "grounded", "{log}");
    }
    assert_eq!(goals.len(), 2);
}

#[test]
fn a_game_beyond_the_grounding_limits_is_played_on_the_reasoner() {
    let p = GgpPlayer::new(PlayerConfig {
        margin: Some(0.9),
        engine: Engine::Grounded,
        ground_limits: GroundLimits {
            facts: 1,
            instances: 1,
        },
        ..PlayerConfig::default()
    });
    let h = send(&p, &start(PICK, "m", "white"));
    assert_eq!(h.reply, "ready", "{}", h.log);
    assert_eq!(engine_of(&h.log), "reasoner", "{}", h.log);
    assert!(
        h.log
            .contains("engine reasoner (not grounded: grounding limit: "),
        "{}",
        h.log
    );
    assert_eq!(ok(&p, "(PLAY m nil)"), "(pick right)");
    assert_eq!(ok(&p, "(PLAY m ((pick right) noop))"), "noop");
    let h = send(&p, "(STOP m (noop (pick left)))");
    assert!(h.log.contains("goals white 100, black 0"), "{}", h.log);
    // Without time at START, no grounding either.
    let h = send(&p, &format!("(START n white ({PICK}) 0.5 1)"));
    assert_eq!(h.reply, "ready", "{}", h.log);
    assert!(
        h.log
            .contains("engine reasoner (not grounded: no time in the START clock)"),
        "{}",
        h.log
    );
}

#[test]
fn illegal_moves_are_refused_on_the_grounded_and_the_translated_game() {
    for (p, engine) in [
        (grounding_player(), "grounded"),
        (translating_player(), "translated"),
    ] {
        illegal_moves_are_refused(&p, engine);
    }
}

fn illegal_moves_are_refused(p: &GgpPlayer, engine: &str) {
    let rules = corpus_rules("ticTacToe.kif");
    let h = send(p, &format!("(START g xplayer {rules} 3 1)"));
    assert_eq!(engine_of(&h.log), engine, "{}", h.log);
    let first = ok(p, "(PLAY g nil)");
    assert!(first.starts_with("(mark "), "{first}");
    let cases: &[(&str, &str)] = &[
        ("(PLAY g ((mark 1 1)))", "expected 2 moves"),
        ("(PLAY g ((mark 4 4) noop))", "the game has no symbol `4`"),
        ("(PLAY g ((mark ?x 1) noop))", "no variables"),
        // Symbols of the game, but never an action of the role.
        (
            "(PLAY g ((mark x 1) noop))",
            "`(mark x 1)` is not legal for role xplayer at step 1",
        ),
        (
            "(PLAY g (noop noop))",
            "`noop` is not legal for role xplayer at step 1",
        ),
        (
            "(PLAY g ((mark 1 1) (mark 2 2)))",
            "`(mark 2 2)` is not legal for role oplayer at step 1",
        ),
    ];
    for (msg, want) in cases {
        let (reply, text) = err(p, msg);
        assert_eq!(reply, "nil", "{msg}");
        assert!(text.contains(want), "{msg}: {text}");
    }
    // The state did not change; moves are read case-insensitively.
    let reply = ok(p, "(PLAY g ((MARK 1 1) NOOP))");
    assert_eq!(reply, "noop");
    let (_, text) = err(p, "(PLAY g (noop (mark 1 1)))");
    assert!(
        text.contains("`(mark 1 1)` is not legal for role oplayer at step 2"),
        "{text}"
    );
    ok(p, "(ABORT g)");
}

#[test]
fn a_grounding_not_done_in_half_the_start_budget_is_dropped() {
    let p = grounding_player();
    let rules = corpus_rules("amazons.kif");
    // A budget of 0.1 s: grounding is waited for 0.05 s, and amazons takes
    // about 0.3 s to be refused by the grounding limit.
    let t = Instant::now();
    let h = send(&p, &format!("(START a white {rules} 1 1)"));
    assert!(t.elapsed() < Duration::from_secs(1), "{}", h.log);
    assert_eq!(h.reply, "ready", "{}", h.log);
    assert!(
        h.log
            .contains("engine reasoner (not grounded: grounding took more than 0.0"),
        "{}",
        h.log
    );
    // The match is played on the reasoner meanwhile.
    let mv = ok(&p, "(PLAY a nil)");
    assert!(!mv.is_empty() && mv != "nil", "{mv}");
    // The grounding thread ends by itself; its result is dropped.
    let until = Instant::now() + Duration::from_secs(20);
    while p.groundings.running() > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(p.groundings.running(), 0);
    // With the time, amazons is refused by the grounding limit.
    let h = send(&p, &format!("(START b black {rules} 5 1)"));
    assert_eq!(h.reply, "ready", "{}", h.log);
    assert!(
        h.log
            .contains("engine reasoner (not grounded: grounding limit: a relation"),
        "{}",
        h.log
    );
}

#[test]
fn the_engine_asked_for_is_the_one_played_on() {
    let on = |engine| {
        GgpPlayer::new(PlayerConfig {
            margin: Some(0.9),
            engine,
            ..PlayerConfig::default()
        })
    };
    let p = on(Engine::Reasoner);
    let h = send(&p, &format!("(START r white ({PICK}) 3 1)"));
    assert!(
        h.log
            .contains("engine reasoner (not grounded: the reasoner was asked for)"),
        "{}",
        h.log
    );
    assert_eq!(ok(&p, "(PLAY r nil)"), "(pick right)");
    let p = on(Engine::Grounded);
    let h = send(&p, &format!("(START g white ({PICK}) 3 1)"));
    assert_eq!(engine_of(&h.log), "grounded", "{}", h.log);
    assert!(h.log.contains(" s, not compared"), "{}", h.log);
    assert_eq!(ok(&p, "(PLAY g nil)"), "(pick right)");
    let p = on(Engine::Toss);
    let h = send(&p, &format!("(START t white ({PICK}) 3 1)"));
    assert_eq!(engine_of(&h.log), "translated", "{}", h.log);
    assert_eq!(engine_played(&p, "t"), "translated");
    assert_eq!(ok(&p, "(PLAY t nil)"), "(pick right)");
}

/// The player of translated games is the one configured, and only a
/// uct+heur player is taken.
#[test]
fn the_player_of_translated_games_is_the_one_configured() {
    let spec = "uct+heur:playout=evaluate,scale=5,c=2";
    let p = GgpPlayer::new(PlayerConfig {
        translated_player: spec.parse().expect("parses"),
        ..translating_player().config
    });
    let h = send(&p, &start(PICK, "m", "white"));
    assert_eq!(engine_of(&h.log), "translated", "{}", h.log);
    assert!(h.log.contains(&format!("; player {spec})")), "{}", h.log);
    assert_eq!(ok(&p, "(PLAY m nil)"), "(pick right)");
    assert_eq!(player().config.translated_player.text, translated::PLAYER);
    let plain = "uct:c=1".parse().expect("parses");
    let why = translated::check_player(&plain).expect_err("plain UCT");
    assert!(why.contains("a uct+heur player"), "{why}");
}

/// Role `b` has no legal move in the initial state, which is not
/// terminal: a fault of the description, whichever role the player has,
/// and the reason names `b`, not the player's role.
#[test]
fn a_role_without_a_legal_move_is_named_whichever_role_we_play() {
    const STUCK: &str = "(role a) (role b)
(init (s 0))
(<= (legal a go) (true (s 0)))
(<= (next (s 1)) (true (s 0)))
(<= terminal (true (s 1)))
(<= (goal ?r 50) (role ?r))";
    for role in ["a", "b"] {
        let p = player();
        ok(&p, &start(STUCK, "m", role));
        let (reply, reason) = err(&p, "(PLAY m nil)");
        assert_eq!(reply, "nil", "{role}");
        assert!(
            reason.contains("role `b` has no legal move")
                || reason.contains("role b has no legal move"),
            "{role}: {reason}"
        );
        assert!(!reason.contains("role a "), "{role}: {reason}");
    }
}
