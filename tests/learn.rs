//! `toss plays` and `toss learn` as a user runs them (spec chapter 4).

mod common;

use common::{path_str, temp_file, text, toss};

/// The last line of `toss perft FILE DEPTH`: the count.
fn perft(file: &str, depth: usize) -> String {
    let out = toss(&["perft", file, &depth.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn plays_are_reproducible_and_learnt_into_a_game_that_checks() {
    let args = [
        "plays",
        "games/connect4.toss",
        "-n",
        "3",
        "--not-won",
        "2",
        "--illegal",
        "2",
        "--seed",
        "5",
    ];
    let a = toss(&args);
    assert!(a.status.success(), "{}", text(&a.stderr));
    let b = toss(&args);
    assert_eq!(a.stdout, b.stdout, "a seed gives the same plays");
    let plays = text(&a.stdout);
    assert_eq!(plays.matches("\nPLAY illegal\n").count(), 2, "{plays}");
    assert!(plays.matches("\nPLAY not won\n").count() >= 2, "{plays}");
    let file = temp_file("learn", "c4.plays", &plays);
    let out = toss(&["learn", path_str(&file), "--explain"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let game = text(&out.stdout);
    assert!(
        game.contains("// Distinguish, the precondition of rule"),
        "{game}"
    );
    let learnt = temp_file("learn", "c4.toss", &game);
    let check = toss(&["check", path_str(&learnt)]);
    assert!(check.status.success(), "{}", text(&check.stderr));
}

/// Tic-tac-toe from 4 won plays of each player and unfinished ones chosen
/// by the teacher: the learnt game has the original's perft to depth 9
/// (every play to its end).
#[test]
fn tic_tac_toe_is_learnt_from_plays_the_teacher_chose() {
    let out = toss(&[
        "plays",
        "games/tic-tac-toe.toss",
        "--teach",
        "--first-wins",
        "4",
        "--second-wins",
        "4",
        "--not-won",
        "17",
        "--seed",
        "2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plays = text(&out.stdout);
    assert!(plays.matches("\nPLAY 1 wins\n").count() <= 4, "{plays}");
    let file = temp_file("learn", "ttt.plays", &plays);
    let out = toss(&["learn", path_str(&file)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let learnt = temp_file("learn", "ttt.toss", &text(&out.stdout));
    for depth in [1, 5, 9] {
        assert_eq!(
            perft(path_str(&learnt), depth),
            perft("games/tic-tac-toe.toss", depth),
            "depth {depth}"
        );
    }
}

#[test]
fn bad_plays_get_clear_errors() {
    let board = |cells: &str| format!("[ | P:1 {{}} | ] \"\n{cells}\n\"\n");
    // Not a plays file: located.
    let f = temp_file("learn", "syntax.plays", "PLAY 3 wins\n");
    let out = toss(&["learn", path_str(&f)]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("syntax.plays:1:6"),
        "{}",
        text(&out.stderr)
    );
    // The same position won and not won.
    let src = format!(
        "PLAY 1 wins\n{}{}PLAY not won\n{}{}",
        board(". ."),
        board("P ."),
        board(". ."),
        board("P ."),
    );
    let f = temp_file("learn", "labels.plays", &src);
    let out = toss(&["learn", path_str(&f)]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("inconsistent labels") && err.contains("play 1, position 2 (line 5)"),
        "{err}"
    );
    // A move that changes the board.
    let src = "PLAY not won\n[ a, b | E { (a, b) } | ]\n[ a, b | E { (b, a) } | ]\n";
    let f = temp_file("learn", "board.plays", src);
    let out = toss(&["learn", path_str(&f)]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("play 1, position 2 (line 3): relation `E` differs"),
        "{err}"
    );
    // A move shown legal and illegal from the same position.
    let src = format!(
        "PLAY not won\n{}{}PLAY illegal\n{}{}",
        board(". ."),
        board("P ."),
        board(". ."),
        board("P ."),
    );
    let f = temp_file("learn", "moves.plays", &src);
    let out = toss(&["learn", path_str(&f)]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("shown illegal"),
        "{}",
        text(&out.stderr)
    );
}

/// Mutated plays files give diagnostics, a learnt game or a learning error,
/// never a panic (and each within a bounded time: the examples are small).
#[test]
fn mutated_plays_never_panic() {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use toss_testkit::mutate::{XorShift, mutate};
    let out = toss(&["plays", "games/tic-tac-toe.toss", "-n", "4", "--seed", "9"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let seed = out.stdout;
    let mut rng = XorShift::new(17);
    let (mut parsed, mut learnt) = (0, 0);
    for i in 0..2000 {
        let bytes = mutate(&mut rng, &seed);
        let Ok(source) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let r = catch_unwind(AssertUnwindSafe(|| {
            let Ok(plays) = toss::lang::plays::parse_plays(source) else {
                return (false, false);
            };
            let limits = toss::heuristics::learn::Limits::default();
            (
                true,
                toss::heuristics::learn::learn_game(&plays, &limits).is_ok(),
            )
        }));
        let (p, l) = r.unwrap_or_else(|_| panic!("mutant {i} panicked:\n{source}"));
        parsed += p as usize;
        learnt += l as usize;
    }
    // The mutants reach the learner, and some of them learn a game.
    assert!(
        parsed > 30 && learnt > 10,
        "{parsed} parsed, {learnt} learnt"
    );
}
