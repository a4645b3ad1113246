//! `#[derive(Game)]` includes a game file; the derived type plays exactly as
//! the interpreter of the same file.

use toss::Game;

#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss")]
struct TicTacToe;

#[test]
fn derived_tic_tac_toe_has_the_known_perft_counts() {
    let g = TicTacToe;
    let s = g.initial_state();
    let counts: Vec<u64> = (1..=4).map(|d| g.perft(&s, d)).collect();
    assert_eq!(counts, [9, 72, 504, 3024]);
    assert_eq!(g.player_names().len(), 2);
}

#[test]
fn derived_and_interpreted_playouts_agree_for_a_seed() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/games/tic-tac-toe.toss"
    ))
    .expect("game file");
    let interpreted = toss::interpret(&source, "tic-tac-toe.toss").expect("valid game");
    for seed in 0..50 {
        let a = TicTacToe.random_playout(&mut toss::rng_from_seed(seed), 100);
        let b = interpreted.random_playout(&mut toss::rng_from_seed(seed), 100);
        assert_eq!(a, b, "seed {seed}");
    }
    assert_eq!(TicTacToe::SOURCE, source);
}

/// A function counter in the state (specialized) and a payoff the
/// interpreter computes: plays like the interpreter.
#[derive(toss::Game)]
#[toss(file = "crates/toss-codegen/tests/fixtures/counter.toss")]
struct Counter;

#[test]
fn a_partly_specialized_game_plays_like_the_interpreter() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/toss-codegen/tests/fixtures/counter.toss"
    ))
    .expect("game file");
    let interpreted = toss::interpret(&source, "counter.toss").expect("valid game");
    let s = Counter.initial_state();
    assert_eq!(
        Counter.perft(&s, 6),
        interpreted.perft(&interpreted.initial_state(), 6)
    );
    for seed in 0..20 {
        let a = Counter.random_playout(&mut toss::rng_from_seed(seed), 100);
        let b = interpreted.random_playout(&mut toss::rng_from_seed(seed), 100);
        assert_eq!(a, b, "seed {seed}");
        assert_eq!(a.0, 6);
    }
}

/// A game outside the fragment (a rule creates elements) keeps the
/// interpreter path and still plays like the interpreter.
#[derive(toss::Game)]
#[toss(file = "crates/toss-codegen/tests/fixtures/grow.toss")]
struct Grow;

#[test]
fn a_game_outside_the_fragment_still_compiles_and_plays() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/toss-codegen/tests/fixtures/grow.toss"
    ))
    .expect("game file");
    let interpreted = toss::interpret(&source, "grow.toss").expect("valid game");
    let s = Grow.initial_state();
    // Two P elements, each can grow a Q until there are three: 2^3 plays.
    assert_eq!(Grow.perft(&s, 3), 8);
    assert_eq!(Grow.perft(&s, 4), 0);
    assert_eq!(
        Grow.perft(&s, 3),
        interpreted.perft(&interpreted.initial_state(), 3)
    );
    let a = Grow.random_playout(&mut toss::rng_from_seed(1), 100);
    assert_eq!((a.0, a.1.to_vec()), (3, vec![3.0]));
}

/// A game beyond a limit of the interpreter (more `*` move sets than it
/// lists): the derived type, which runs that label on the interpreter,
/// reports the interpreter's fault, and a playout stops at once.
#[derive(toss::Game)]
#[toss(file = "tests/fixtures/many-marks.toss")]
struct ManyMarks;

#[test]
fn derived_game_reports_the_interpreters_fault() {
    let g = ManyMarks;
    assert!(g.fault().is_none());
    let (plies, _) = g.random_playout(&mut toss::rng_from_seed(1), 10);
    assert_eq!(plies, 0);
    let fault = g.fault().expect("a fault");
    assert!(fault.contains("multiplicity `*`"), "{fault}");
}
