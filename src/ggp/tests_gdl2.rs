//! GDL-II matches without sockets: the two forms of PLAY and STOP with
//! percepts, the candidate states of the player after percepts worked out
//! by hand (Monty Hall), and bad GDL-II messages, which get an error
//! reply and leave the player serving.

use super::tests::{err as refused, send};
use super::*;

fn player(random: bool) -> GgpPlayer {
    GgpPlayer::new(PlayerConfig {
        margin: Some(0.5),
        seed: 5,
        random_moves: random,
        hidden: hidden::HiddenConfig {
            playouts: 300,
            ..hidden::HiddenConfig::default()
        },
        ..PlayerConfig::default()
    })
}

/// A message served as asked: its reply.
fn ok(p: &GgpPlayer, msg: &str) -> String {
    let h = send(p, msg);
    assert_eq!(h.status, 200, "{msg}: {}", h.reply);
    assert!(h.reason.is_none(), "{msg}: {:?}", h.reason);
    h.reply
}

fn gdl2_rules(file: &str) -> String {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/gdl/gdl2")
        .join(file);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the corpus must be beside the repository)",
            p.display()
        )
    });
    referee::rules_text(&text).expect("rules")
}

fn battleships_rules() -> String {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("games/gdl/battleships.kif");
    referee::rules_text(&std::fs::read_to_string(p).expect("battleships.kif")).expect("rules")
}

/// The candidate states of match `id`, as sorted KIF strings.
fn candidates(p: &GgpPlayer, id: &str) -> Vec<String> {
    let m = lock(&p.registry).matches.get(id).cloned().expect("match");
    let m = lock(&m);
    let AnyMatch::Hidden(h) = &*m else {
        panic!("not a GDL-II match")
    };
    let mut v: Vec<String> = h
        .candidates()
        .iter()
        .map(|s| h.game().state_to_string(s))
        .collect();
    v.sort();
    v
}

/// The candidate states of match `id` with their weights, by state.
fn weighted(p: &GgpPlayer, id: &str) -> Vec<(String, f64)> {
    let m = lock(&p.registry).matches.get(id).cloned().expect("match");
    let m = lock(&m);
    let AnyMatch::Hidden(h) = &*m else {
        panic!("not a GDL-II match")
    };
    let mut v: Vec<(String, f64)> = h
        .candidates()
        .iter()
        .zip(h.weights())
        .map(|(s, &w)| (h.game().state_to_string(s), w))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[test]
fn gdl2_forms_of_play_and_stop_are_read() {
    match parse_message("(PLAY m 0 NIL NIL)") {
        Ok(Message::Play {
            match_id,
            moves: None,
            turn:
                Some(Turn {
                    number: 0,
                    last_move: None,
                }),
        }) => assert_eq!(match_id, "m"),
        other => panic!("{other:?}"),
    }
    match parse_message("(play m 3 (fire 1 2) ((hit 1 2) (shot 4 4)))") {
        Ok(Message::Play {
            moves: Some(p),
            turn:
                Some(Turn {
                    number: 3,
                    last_move: Some(l),
                }),
            ..
        }) => {
            assert_eq!(sexpr_to_string(&l), "(fire 1 2)");
            let p: Vec<String> = p.iter().map(sexpr_to_string).collect();
            assert_eq!(p, ["(hit 1 2)", "(shot 4 4)"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parse_message("(STOP m 7 noop nil)"),
        Ok(Message::Stop {
            moves: None,
            turn: Some(Turn { number: 7, .. }),
            ..
        })
    ));
    // Bad forms say why.
    for (msg, why) in [
        (
            "(PLAY m x nil nil)",
            "the turn number must be a natural number",
        ),
        (
            "(PLAY m -1 nil nil)",
            "the turn number must be a natural number",
        ),
        (
            "(PLAY m 99999999999999999999999 nil nil)",
            "the turn number must be a natural number",
        ),
        ("(PLAY m (1) nil nil)", "the turn number must be a symbol"),
        (
            "(PLAY m 1 noop hit)",
            "expected `nil` or a list of percepts",
        ),
        ("(PLAY m 1 noop)", "PLAY takes 2 arguments"),
        ("(STOP m 1 noop nil nil)", "STOP takes 2 arguments"),
        ("(PLAY (m) 1 noop nil)", "the match id must be a symbol"),
    ] {
        match parse_message(msg) {
            Err(e) => assert!(e.message.contains(why), "{msg}: {}", e.message),
            Ok(m) => panic!("{msg} read as {m:?}"),
        }
    }
}

/// Monty Hall as the candidate, the percepts written by hand from the
/// rules: after choosing door 1 the car may be anywhere (3 candidate
/// states); once the host opened door 3 it is behind 1 or 2; after the
/// switch the candidate sees the car behind door 2 and knows it won.
#[test]
fn monty_hall_candidates_follow_the_percepts() {
    let p = player(false);
    let rules = gdl2_rules("montyhall.kif");
    assert_eq!(
        ok(&p, &format!("(START mh candidate {rules} 10 5)")),
        "ready"
    );
    assert_eq!(candidates(&p, "mh").len(), 1);
    let first = ok(&p, "(PLAY mh 0 nil nil)");
    assert!(first.starts_with("(choose "), "{first}");
    // Whatever it chose, the referee says it chose door 1.
    let reply = ok(&p, "(PLAY mh 1 (choose 1) ((does candidate (choose 1))))");
    assert_eq!(reply, "noop");
    let c = candidates(&p, "mh");
    assert_eq!(c.len(), 3, "{c:#?}");
    for d in 1..=3 {
        assert!(
            c.iter().any(|s| s.contains(&format!("(car {d})"))),
            "{c:#?}"
        );
    }
    let reply = ok(&p, "(PLAY mh 2 noop ((does candidate noop) (open_door 3)))");
    // The host had two doors to open when the car is behind door 1, one
    // when it is behind door 2: door 2 weighs twice as much, and
    // switching wins 2/3 (300 playouts tell).
    assert_eq!(reply, "switch");
    let w = weighted(&p, "mh");
    assert_eq!(w.len(), 2);
    assert!(
        (w[0].1 - 1.0 / 3.0).abs() < 1e-9 && w[0].0.contains("(car 1)"),
        "{w:?}"
    );
    assert!(
        (w[1].1 - 2.0 / 3.0).abs() < 1e-9 && w[1].0.contains("(car 2)"),
        "{w:?}"
    );
    let c = candidates(&p, "mh");
    assert_eq!(
        c,
        [
            "(car 1) (chosen 1) (closed 1) (closed 2) (step 3)",
            "(car 2) (chosen 1) (closed 1) (closed 2) (step 3)"
        ]
    );
    let h = send(&p, "(STOP mh 3 switch ((car 2) (does candidate switch)))");
    assert_eq!(h.reply, "done");
    assert!(h.log.contains("goals candidate 100"), "{}", h.log);
}

/// The Dresden form: `(PLAY id (percept ...))`, the player's own move
/// being the one it replied.
#[test]
fn the_percepts_only_form_is_read_in_a_gdl2_match() {
    let p = player(false);
    let rules = gdl2_rules("montyhall.kif");
    ok(&p, &format!("(START d candidate {rules} 10 5)"));
    let first = ok(&p, "(PLAY d NIL)");
    ok(&p, &format!("(PLAY d ((does candidate {first})))"));
    assert_eq!(candidates(&p, "d").len(), 3);
}

#[test]
fn bad_gdl2_messages_get_an_error_reply_and_the_player_goes_on() {
    let p = player(false);
    let rules = battleships_rules();
    ok(&p, &format!("(START b red {rules} 10 5)"));
    // The random role is not a seat.
    let mh = gdl2_rules("montyhall.kif");
    let (reply, why) = refused(&p, &format!("(START r random {mh} 10 5)"));
    assert_eq!(reply, "busy");
    assert!(why.contains("played by the referee"), "{why}");
    // Before the first PLAY: no move to report.
    let (reply, why) = refused(&p, "(PLAY b 0 (place 1 1 h) nil)");
    assert_eq!(reply, "nil");
    assert!(why.contains("carries no move"), "{why}");
    let first = ok(&p, "(PLAY b 0 nil nil)");
    assert!(first.starts_with("(place "), "{first}");
    // The GDL-I form of a joint move is read as percepts here: two terms
    // no role perceives after a placement, so no state is consistent and
    // the player plays on a guess (a legal move all the same).
    for (msg, why) in [
        ("(PLAY b 0 nil nil)", "came again"),
        ("(PLAY b 1 (place ?x 1 h) nil)", "not a move of the game"),
        ("(PLAY b 1 (zzz 1 1 h) nil)", "not a move of the game"),
        (
            "(PLAY b 1 (place 1 1 h) ((hit ?x 1)))",
            "not a term of the game",
        ),
        (
            "(PLAY b 1 (place 1 1 h) ((unknownsymbol)))",
            "not a term of the game",
        ),
        (
            "(PLAY b 1 (place 1 1 h) ((((((((((())))))))))))",
            "not a term of the game",
        ),
        (
            "(PLAY b 1 (place 1 1 h) (((((((((()))))))))))))",
            "malformed message",
        ),
        ("(PLAY b 1 (place 1 1 h) ((hit 1 1)", "malformed message"),
        ("(PLAY nosuchmatch 1 (place 1 1 h) nil)", "no match"),
        (
            "(PLAY b 1 (place 1 1 h) hit)",
            "expected `nil` or a list of percepts",
        ),
    ] {
        let (reply, reason) = refused(&p, msg);
        assert_eq!(reply, "nil", "{msg}");
        assert!(reason.contains(why), "{msg}: {reason}");
    }
    // Nothing of the above changed the match: the step is still 1.
    let second = ok(&p, &format!("(PLAY b 1 {first} nil)"));
    assert!(second.starts_with("(place "), "{second}");
    // The GDL-II form in a GDL-I match is refused.
    let ttt = referee::rules_text(
        "(role x) (role o) (init (c)) (<= (legal ?r n) (role ?r)) (<= (next (d)) (true (c))) \
         (<= terminal (true (d))) (<= (goal ?r 50) (role ?r))",
    )
    .expect("rules");
    ok(&p, &format!("(START t x {ttt} 10 5)"));
    let (reply, why) = refused(&p, "(PLAY t 0 nil nil)");
    assert_eq!(reply, "nil");
    assert!(why.contains("GDL-I game"), "{why}");
    let (reply, _) = refused(&p, "(STOP t 1 n nil)");
    assert_eq!(reply, "done");
    // Percepts no state can give: the player guesses and still answers
    // with a legal move, then goes on.
    let h = send(&p, &format!("(PLAY b 2 {second} ((hit 1 1)))"));
    assert_eq!(h.status, 200);
    assert!(h.reply.starts_with("(fire "), "{}", h.reply);
    assert!(h.log.contains("(a guess)"), "{}", h.log);
    let h = send(&p, "(STOP b 3 noop nil)");
    assert_eq!(h.reply, "done");
    assert_eq!(ok(&p, "(INFO)"), "((name toss) (status available))");
}

/// The random player of a GDL-II game plays legal moves from its
/// candidate states, and two players of battleships relayed by hand
/// keep consistent candidates all the way.
#[test]
fn a_relayed_battleships_match_keeps_consistent_candidates() {
    let source = std::fs::read_to_string(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("games/gdl/battleships.kif"),
    )
    .expect("battleships.kif");
    let game = toss_gdl::kif::load_game(&source, "battleships.kif").expect("valid");
    let rules = referee::rules_text(&source).expect("rules");
    let smart = player(false);
    let random = player(true);
    ok(&smart, &format!("(START g red {rules} 10 5)"));
    ok(&random, &format!("(START g blue {rules} 10 5)"));
    let mut state = game.initial_state();
    let mut msgs = [
        "(PLAY g 0 nil nil)".to_string(),
        "(PLAY g 0 nil nil)".to_string(),
    ];
    let mut turn = 0;
    while !game.is_terminal(&state) {
        let replies = [ok(&smart, &msgs[0]), ok(&random, &msgs[1])];
        // The true state is among each player's candidates (few enough
        // here to be tracked exactly: at most 24 * 20 layouts).
        let truth = game.state_to_string(&state);
        for (p, q) in [(&smart, "smart"), (&random, "random")] {
            let c = candidates(p, "g");
            assert!(
                c.contains(&truth),
                "{q}, turn {turn}: {truth} not among {} candidates",
                c.len()
            );
        }
        let joint: Vec<toss_gdl::GdlMove> = replies
            .iter()
            .map(|r| toss_gdl::GdlMove(toss_gdl::kif::parse_ground_term(&game, r).expect("a term")))
            .collect();
        let mut legal = Vec::new();
        for (q, m) in joint.iter().enumerate() {
            game.legal_moves(&state, q, &mut legal);
            assert!(legal.contains(m), "{} is not legal", replies[q]);
        }
        let (next, seen) = game.next_and_percepts(&state, &joint);
        turn += 1;
        for q in 0..2 {
            let p: Vec<String> = seen[q].iter().map(|&t| game.term_to_string(t)).collect();
            let p = if p.is_empty() {
                "nil".into()
            } else {
                format!("({})", p.join(" "))
            };
            msgs[q] = format!("(PLAY g {turn} {} {p})", replies[q]);
        }
        state = next;
    }
    let goals = game.goals(&state).expect("goals");
    for (q, p) in [&smart, &random].into_iter().enumerate() {
        let h = send(p, &msgs[q].replacen("PLAY", "STOP", 1));
        assert_eq!(h.reply, "done");
        let role = ["red", "blue"][q];
        assert!(
            h.log.contains(&format!("goals {role} {}", goals[q])),
            "{}",
            h.log
        );
    }
}
