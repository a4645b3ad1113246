//! The grounded form against the reasoner: seeded playouts in lockstep
//! (movers, legal sets in order, states, terminal, goals) and perft.

mod gdl_common;

use gdl_common::{corpus, game, read};
use toss_core::Game;
use toss_core::game::{index_below, rng_from_seed};
use toss_gdl::GdlGame;
use toss_gdl::ground::{GroundError, GroundGame, GroundLimits};
use toss_gdl::kif::parse_gdl;

fn ground(rel: &str) -> GroundGame {
    let src = read(&corpus().join(rel));
    let desc = parse_gdl(&src, rel).unwrap_or_else(|_| panic!("{rel} parses"));
    GroundGame::from_description(&desc, GroundLimits::default())
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Plays `n` seeded random playouts on both at once, comparing everything
/// at every step; returns the number of steps compared.
fn lockstep(rel: &str, g: &GroundGame, r: &GdlGame, n: u64, max_steps: usize) -> usize {
    let mut steps = 0;
    for seed in 0..n {
        let mut rng = rng_from_seed(seed);
        let (mut s, mut t) = (g.initial_state(), r.initial_state());
        for step in 0..max_steps {
            let at = || format!("{rel} seed {seed} step {step}");
            assert_eq!(g.state_to_string(&s), r.state_to_string(&t), "{}", at());
            let term = g.is_terminal(&s);
            assert_eq!(term, r.is_terminal(&t), "terminal at {}", at());
            if term {
                break;
            }
            let mut joint_g = Vec::new();
            let mut joint_r = Vec::new();
            for p in 0..g.num_players() {
                let mut mg = Vec::new();
                let mut mr = Vec::new();
                g.legal_moves(&s, p, &mut mg);
                r.legal_moves(&t, p, &mut mr);
                let sg: Vec<String> = mg.iter().map(|m| g.move_to_string(&s, p, m)).collect();
                let sr: Vec<String> = mr.iter().map(|m| r.move_to_string(&t, p, m)).collect();
                assert_eq!(sg, sr, "legal moves of role {p} at {}", at());
                if mg.is_empty() {
                    return steps;
                }
                let i = index_below(&mut rng, mg.len());
                joint_g.push(mg[i]);
                joint_r.push(mr[i]);
            }
            g.apply(&mut s, &joint_g, &mut rng);
            r.apply(&mut t, &joint_r, &mut rng);
            steps += 1;
        }
        let term = g.is_terminal(&s);
        if term {
            assert_eq!(
                g.goal_values(&s),
                r.goal_values(&t),
                "{rel} seed {seed}: goals"
            );
        }
    }
    steps
}

/// The corpus games whose grounding exceeds the default limits: their
/// relaxed reachable sets are too large (amazons 10x10: every queen move
/// and arrow from every square; chess and skirmish: piece moves over every
/// square pair with their histories).
const REFUSED: [&str; 3] = ["amazons.kif", "chess.kif", "skirmish.kif"];

fn corpus_games() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus())
        .expect("the corpus directory lists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".kif"))
        .collect();
    names.sort();
    names
}

/// Every GDL-I game of the corpus grounds, or is refused by a grounding
/// limit (exactly the known ones); every grounded game plays seeded
/// playouts in lockstep with the reasoner.
fn corpus_in_lockstep(playouts: u64, slow_playouts: u64) {
    let names = corpus_games();
    assert!(names.len() >= 66, "the corpus has its 66 games");
    let mut refused = Vec::new();
    let mut grounded = 0;
    for n in &names {
        let src = read(&corpus().join(n));
        let desc = parse_gdl(&src, n).unwrap_or_else(|_| panic!("{n} parses"));
        match GroundGame::from_description(&desc, GroundLimits::default()) {
            Ok(g) => {
                let r = game(n);
                // A reasoner playout of these takes a large part of a second.
                let slow = g.program().num_literals() > 100_000;
                let k = if slow { slow_playouts } else { playouts };
                lockstep(n, &g, &r, k, 400);
                grounded += 1;
            }
            Err(e) => {
                assert!(
                    matches!(
                        e,
                        GroundError::TooManyFacts(_) | GroundError::TooManyInstances(_)
                    ),
                    "{n}: refused for another reason than a limit: {e}"
                );
                refused.push(n.as_str());
            }
        }
    }
    assert_eq!(refused, REFUSED);
    assert_eq!(grounded, names.len() - REFUSED.len());
}

#[test]
fn corpus_grounds_and_agrees_with_the_reasoner() {
    corpus_in_lockstep(10, 2);
}

#[test]
#[ignore = "exhaustive: 1,000 playouts per game (100 for the largest networks), about 6 minutes"]
fn corpus_grounds_and_agrees_with_the_reasoner_exhaustive() {
    corpus_in_lockstep(1000, 100);
}

fn check_perft(file: &str, expected: &[u64]) {
    let g = ground(file);
    let s = g.initial_state();
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(g.perft(&s, d + 1), n, "{file}: perft({})", d + 1);
    }
}

// The counts of the reasoner's perft tests (crates/toss-gdl/tests/gdl_perft.rs):
// tic-tac-toe's are the known ones (255,168 games in all).
#[test]
fn perft_tictactoe_connect_four_breakthrough() {
    check_perft(
        "ticTacToe.kif",
        &[9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872],
    );
    check_perft("connect4.kif", &[7, 49, 343, 2401, 16807, 117649]);
    check_perft("connectFour.kif", &[8, 64, 512, 4096, 32768, 262144]);
    check_perft("breakthrough.kif", &[22, 484, 11132, 256036]);
}

#[test]
fn grounding_is_deterministic_and_dumps_the_network() {
    for n in ["ticTacToe.kif", "reversi.kif", "pacman3p.kif"] {
        let a = ground(n).program().dump();
        let b = ground(n).program().dump();
        assert_eq!(a, b, "{n}: two groundings differ");
    }
    insta::assert_snapshot!(
        "tictactoe_network",
        ground("ticTacToe.kif").program().dump()
    );
}

#[test]
fn a_limit_refuses_with_its_name() {
    let src = read(&corpus().join("breakthrough.kif"));
    let desc = parse_gdl(&src, "breakthrough.kif").expect("parses");
    let tight = GroundLimits {
        facts: 100,
        instances: 2_000_000,
    };
    let e = GroundGame::from_description(&desc, tight).expect_err("over the limit");
    assert_eq!(e, GroundError::TooManyFacts(100));
    assert!(e.to_string().contains("more than 100 facts"), "{e}");
    let tight = GroundLimits {
        facts: 1_000_000,
        instances: 500,
    };
    let e = GroundGame::from_description(&desc, tight).expect_err("over the limit");
    assert_eq!(e, GroundError::TooManyInstances(500));
}

/// The grounded game's own playout loop makes the trait's random draws: a
/// seed gives the reasoner's playout (length and payoffs).
#[test]
fn seeded_playouts_equal_the_reasoners() {
    for n in [
        "ticTacToe.kif",
        "connect4.kif",
        "breakthroughSmall.kif",
        "pacman3p.kif",
        "connectFourSimultaneous.kif",
        "roshambo2.kif",
    ] {
        let g = ground(n);
        let r = game(n);
        for seed in 0..20 {
            let a = g.random_playout(&mut rng_from_seed(seed), 10_000);
            let b = r.random_playout(&mut rng_from_seed(seed), 10_000);
            assert_eq!(a, b, "{n} seed {seed}");
            // Cut short: the same turns and the payoffs of the state reached.
            let a = g.random_playout(&mut rng_from_seed(seed), 5);
            let b = r.random_playout(&mut rng_from_seed(seed), 5);
            assert_eq!(a, b, "{n} seed {seed}, 5 turns");
        }
    }
}

/// The game-independent relations are evaluated when grounding and folded
/// away: a `succ` table ten times as long, beyond every value the game
/// reaches, gives the same network (so the same cost per playout). (Where
/// the table is what bounds the board, as Breakthrough's rows, a longer
/// one makes the relaxed reachable states larger, and the network with
/// them, though play never gets there.)
#[test]
fn a_longer_static_table_gives_the_same_network() {
    for n in ["connect4.kif", "chomp.kif"] {
        let src = read(&corpus().join(n));
        let mut longer = src.clone();
        let last = (1..200)
            .rev()
            .find(|k| src.contains(&format!("(succ {k} {})", k + 1)))
            .expect("the game has a succ chain");
        for k in last + 1..10 * (last + 1) {
            longer.push_str(&format!("\n(succ {k} {})", k + 1));
        }
        let a = GroundGame::from_description(
            &parse_gdl(&src, n).expect("parses"),
            GroundLimits::default(),
        )
        .expect("grounds");
        let b = GroundGame::from_description(
            &parse_gdl(&longer, n).expect("parses"),
            GroundLimits::default(),
        )
        .expect("grounds");
        assert!(longer.len() > src.len() + 100, "{n}: the table grew");
        assert_eq!(a.program().dump(), b.program().dump(), "{n}");
    }
}

/// A game without a fluent (no `init`, no `next` that can hold) still has
/// a one-word state: its grounded playouts ran past the next state's
/// words (found by the `play` fuzz target) and now agree with the
/// reasoner's.
#[test]
fn a_game_without_fluents_plays_like_the_reasoner() {
    let src = "(role robot) (legal robot wait) (goal robot 50) \
               (<= terminal (true done)) (<= (next done) (true done))";
    let desc = parse_gdl(src, "no-fluents.kif").expect("parses");
    let g = GroundGame::from_description(&desc, GroundLimits::default()).expect("grounds");
    let r = toss_gdl::kif::build_game(&desc).expect("builds");
    for seed in 0..3 {
        let a = g.random_playout(&mut rng_from_seed(seed), 20);
        let b = r.random_playout(&mut rng_from_seed(seed), 20);
        assert_eq!(a, b, "seed {seed}");
        assert_eq!(a.0, 20, "the play never ends: cut at 20 turns");
    }
    assert_eq!(lockstep("no-fluents.kif", &g, &r, 2, 10), 20);
}
