//! The resource limits (`toss_core::limits`) as a user of the `toss`
//! binary meets them: a game past one stops at once with a message naming
//! the limit and where it is, never by eating the machine.

use std::process::Output;
use std::time::{Duration, Instant};

mod common;

use common::text;

/// Runs `toss args`, timed.
fn toss(args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = common::toss(args);
    (out, start.elapsed())
}

/// Far above what the limits take (a fraction of a second in release),
/// far below what the games would take without them (hours).
const QUICK: Duration = Duration::from_secs(60);

#[test]
fn check_warns_about_a_rule_that_can_explode_at_its_position() {
    let (out, _) = toss(&["check", "tests/fixtures/explode5.toss"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "warning: tests/fixtures/explode5.toss:6:6: rule `Pick` may have up to \
             102,400,000 matches in one state"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("(limit: matches per rule)"), "{stdout}");
}

#[test]
fn check_does_not_warn_about_tic_tac_toe() {
    let (out, _) = toss(&["check", "games/tic-tac-toe.toss"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stdout).contains("warning"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn playout_stops_at_the_limit_of_matches_per_rule() {
    let (out, took) = toss(&["playout", "-n", "100", "tests/fixtures/explode5.toss"]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(
        stderr.contains(
            "tests/fixtures/explode5.toss:6:6: rule `Pick` has more than 1,000,000 matches in \
             one state (limit: matches per rule)"
        ),
        "{stderr}"
    );
    assert!(took < QUICK, "{took:?}");
}

#[test]
fn match_and_perft_stop_at_the_limit_too() {
    for args in [
        &[
            "match",
            "tests/fixtures/explode5.toss",
            "--player",
            "random",
            "-n",
            "2",
        ][..],
        &["perft", "tests/fixtures/explode5.toss", "2"][..],
    ] {
        let (out, took) = toss(args);
        let all = text(&out.stderr) + &text(&out.stdout);
        assert!(all.contains("(limit: matches per rule)"), "{args:?}: {all}");
        assert!(took < QUICK, "{args:?}: {took:?}");
    }
}

#[test]
fn gdl_legal_moves_past_the_limit_of_a_relation_no_state_changes_fail_to_load() {
    let (out, took) = toss(&["check", "tests/fixtures/many-legal.kif"]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(
            "relation `legal`, which no state changes, has more than 1,000,000 facts (limit: \
             facts per relation)"
        ),
        "{stderr}"
    );
    // At the rule defining `legal`.
    assert!(stderr.contains("many-legal.kif:10:5"), "{stderr}");
    assert!(took < QUICK, "{took:?}");
}

#[test]
fn gdl_legal_moves_past_the_limit_in_a_state_are_a_fault() {
    let (out, took) = toss(&["check", "tests/fixtures/many-legal-state.kif"]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    // At the rule defining `legal`, once.
    let fault = "tests/fixtures/many-legal-state.kif:10:5: relation `legal` has more than \
                 1,000,000 legal moves in one state (limit: legal moves per state)";
    assert!(stderr.contains(&format!("error: {fault}")), "{stderr}");
    assert!(took < QUICK, "{took:?}");
    for engine in ["reasoner", "auto"] {
        let (out, took) = toss(&[
            "playout",
            "-n",
            "3",
            "--engine",
            engine,
            "tests/fixtures/many-legal-state.kif",
        ]);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{engine}");
        assert!(stderr.contains(fault), "{engine}: {stderr}");
        assert!(took < QUICK, "{engine}: {took:?}");
    }
}

#[derive(toss::Game)]
#[toss(file = "tests/fixtures/explode5.toss")]
struct Explode5;

/// The same game again: generated code keeps its fault per game type.
#[derive(toss::Game)]
#[toss(file = "tests/fixtures/explode5.toss")]
struct Explode5Playout;

#[derive(toss::Game)]
#[toss(file = "tests/fixtures/explode5-rejected.toss")]
struct Explode5Rejected;

/// A precondition that rejects every match does not make the generated
/// matcher run through all 78 million candidates: it counts them before
/// the check, as the interpreter does, and stops at the limit.
#[test]
fn generated_matchers_count_the_matches_a_precondition_rejects() {
    use toss::Game;
    let start = Instant::now();
    let g = Explode5Rejected;
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    assert!(moves.is_empty());
    assert_eq!(
        g.fault(),
        Some(format!(
            "tests/fixtures/explode5-rejected.toss:6:6: {PICK_FAULT}"
        ))
    );
    assert_eq!(
        interpreted_first_moves_fault("explode5-rejected.toss"),
        Some(format!("explode5-rejected.toss:6:6: {PICK_FAULT}"))
    );
    assert!(start.elapsed() < QUICK, "{:?}", start.elapsed());
}

/// The fixture `name` loaded by `toss::interpret` (shown as `name`): its
/// first player's moves in the first state, which must be none, and the
/// fault that listing them ran into.
fn interpreted_first_moves_fault(name: &str) -> Option<String> {
    use toss::Game;
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(path).expect("game file");
    let interpreted = toss::interpret(&source, name).expect("valid game");
    let s = interpreted.initial_state();
    let mut moves = Vec::new();
    interpreted.legal_moves(&s, 0, &mut moves);
    assert!(moves.is_empty(), "{name}");
    interpreted.fault()
}

const PICK_FAULT: &str =
    "rule `Pick` has more than 1,000,000 matches in one state (limit: matches per rule)";

#[test]
fn generated_legal_moves_stop_at_the_limit_as_the_interpreter_does() {
    use toss::Game;
    let start = Instant::now();
    let g = Explode5;
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    assert!(moves.is_empty());
    // The derive names the file as its attribute does, the interpreter as
    // it was given; both say where the rule is.
    assert_eq!(
        g.fault(),
        Some(format!("tests/fixtures/explode5.toss:6:6: {PICK_FAULT}"))
    );
    let mut movers = Vec::new();
    g.movers(&s, &mut movers);
    assert!(movers.is_empty(), "every state is terminal after a fault");

    assert_eq!(
        interpreted_first_moves_fault("explode5.toss"),
        Some(format!("explode5.toss:6:6: {PICK_FAULT}"))
    );
    assert!(start.elapsed() < QUICK, "{:?}", start.elapsed());
}

#[test]
fn generated_playouts_end_at_once_after_a_fault() {
    use toss::Game;
    let start = Instant::now();
    let g = Explode5Playout;
    // Generated playouts count this rule's matches without listing them
    // (no memory grows): one turn is played before the moves are listed.
    let (turns, _) = g.random_playout(&mut toss::rng_from_seed(0), 1);
    assert_eq!(turns, 1);
    assert_eq!(g.fault(), None);
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    assert_eq!(
        g.fault(),
        Some(format!("tests/fixtures/explode5.toss:6:6: {PICK_FAULT}"))
    );
    // From then on every playout ends at once.
    let (turns, _) = g.random_playout(&mut toss::rng_from_seed(1), 100);
    assert_eq!(turns, 0);
    assert!(start.elapsed() < QUICK, "{:?}", start.elapsed());
}

const TURN_FAULT: &str =
    "a player would move more than 100 plies in one turn (limit: plies per turn)";

/// A turn that never ends (player a moves forever, b never): playout,
/// perft, the searching players and the solver each stop at the limit of
/// plies per turn with the fault, instead of running without end (playout)
/// or overflowing the stack (perft, alpha-beta, the solver).
#[test]
fn a_turn_that_never_ends_is_a_fault_of_every_command() {
    let game = "tests/fixtures/endless-turn.toss";
    for args in [
        &["playout", "-n", "2", game][..],
        &["perft", game, "3"],
        &["perft", "--divide", game, "2"],
        &["solve", game, "--time", "20"],
        &[
            "match",
            game,
            "-n",
            "1",
            "--player",
            "uct:iters=200",
            "--player",
            "random",
        ],
        &[
            "match",
            game,
            "-n",
            "1",
            "--player",
            "alphabeta",
            "--player",
            "random",
        ],
        &[
            "match",
            game,
            "-n",
            "1",
            "--player",
            "solver:time=5",
            "--player",
            "random",
        ],
    ] {
        let (out, took) = toss(args);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {}", text(&out.stdout));
        assert!(stderr.contains(TURN_FAULT), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        if args[0] == "perft" {
            assert!(text(&out.stdout).is_empty(), "{args:?}: no count printed");
        }
        assert!(took < QUICK, "{args:?}: {took:?}");
    }
}

#[derive(toss::Game)]
#[toss(file = "tests/fixtures/endless-turn.toss")]
struct EndlessTurn;

/// The derived game's own playout loop and the trait's perft stop at the
/// same limit with the same fault.
#[test]
fn a_derived_turn_that_never_ends_is_a_fault() {
    use toss::Game;
    let g = EndlessTurn;
    let (turns, _) = g.random_playout(&mut toss::rng_from_seed(3), 10);
    assert!(turns <= 1, "{turns}");
    assert_eq!(g.fault().as_deref(), Some(TURN_FAULT));
    let s = g.initial_state();
    assert_eq!(g.perft(&s, 2), 0, "every state is terminal after a fault");
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/endless-turn.toss"
    ))
    .expect("game file");
    let interpreted = toss::interpret(&source, "endless-turn.toss").expect("valid game");
    let si = interpreted.initial_state();
    interpreted.perft(&si, 1);
    assert_eq!(interpreted.fault().as_deref(), Some(TURN_FAULT));
}

/// A rule that adds 20,000 elements a ply: the 51st ply passes the limit
/// of elements per structure, and the fault names the rule and its place.
#[test]
fn a_structure_past_the_element_limit_is_a_fault_at_the_rule() {
    let new: Vec<String> = (0..20_000).map(|i| format!("n{i}")).collect();
    let game = common::temp_file(
        "resource_limits",
        "grow.toss",
        &format!(
            "PLAYERS a\nRULE Grow:\n  [x | | ] -> [x, {} | | ]\n\
             LOC 0 {{\n  PLAYER a {{\n    PAYOFF 0\n    MOVES [Grow -> 0]\n  }}\n}}\n\
             START [ e | | ]\n",
            new.join(", ")
        ),
    );
    let path = game.to_str().expect("utf-8 path");
    let (out, took) = toss(&["playout", "-n", "1", path]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(&format!(
            "{path}:2:6: after rule `Grow` the structure has more than 1,000,000 elements \
             (limit: elements per structure)"
        )),
        "{stderr}"
    );
    assert!(took < QUICK, "{took:?}");
}
