//! Invalid games do not pass as valid: payoffs that are not finite, GDL
//! goals outside 0..100, relations with two arities, roles without a legal
//! move. Each finding of the issue with its small input, through the
//! `toss` binary, the derive and the engines.

use std::path::PathBuf;

mod common;

use common::{path_str, text, toss};

use toss::Game;

/// Writes `content` to a fresh file named `name` in a directory of this
/// test process.
fn write(name: &str, content: &str) -> PathBuf {
    common::temp_file("validation", name, content)
}

/// A one-player game whose payoff is `payoff`.
fn toss_game(payoff: &str) -> String {
    format!("PLAYERS a\nSTART [ e | P:1 {{}} | ]\nLOC 0 {{\n  PLAYER a {{ PAYOFF {payoff} }}\n}}\n")
}

#[test]
fn payoffs_never_finite_fail_the_check_at_their_place() {
    for (name, payoff, col, msg) in [
        ("div.toss", "1/0", 21, "division by zero"),
        ("nan.toss", "0/0", 21, "division by zero"),
        ("inf.toss", "1e999-1e999", 21, "overflows to infinity"),
        // x^0 is 1 for every x, 0 included.
        (
            "pow0.toss",
            "1/((:(ex x P(x)) - 0.5)^0 - 1)",
            21,
            "division by zero",
        ),
    ] {
        let f = write(name, &toss_game(payoff));
        let out = toss(&["check", path_str(&f)]);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{payoff}: {}", text(&out.stdout));
        assert!(stderr.contains(msg), "{payoff}: {stderr}");
        assert!(
            stderr.contains(&format!("{name}:4:{col}")),
            "{payoff}: {stderr}"
        );
    }
}

#[test]
fn a_payoff_dividing_by_a_count_that_reaches_zero_is_a_fault_of_playout_and_match() {
    let file = "tests/fixtures/count-divisor.toss";
    let out = toss(&["check", file]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for args in [
        vec!["playout", file, "-n", "3"],
        vec!["match", file, "--player", "random", "-n", "2"],
    ] {
        let out = toss(&args);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(!out.status.success(), "{args:?}: {stdout}");
        assert!(
            stderr.contains("the payoff of player `a` in location 0 is inf"),
            "{args:?}: {stderr}"
        );
        assert!(
            !stdout.contains("NaN") && !stdout.contains("inf"),
            "{stdout}"
        );
    }
}

#[derive(toss::Game)]
#[toss(file = "tests/fixtures/count-divisor.toss")]
struct CountDivisor;

#[derive(toss::Game)]
#[toss(file = "tests/fixtures/growing-value.toss")]
struct GrowingValue;

/// The generated code reports the payoff through the same fault, whether
/// the interpreter computes the payoff (a quotient: count-divisor.toss) or
/// the generated code does (growing-value.toss).
#[test]
fn generated_payoff_not_finite_is_a_fault() {
    let mut rng = toss::rng_from_seed(3);
    let g = CountDivisor;
    let mut s = g.initial_state();
    let mut pay = [0.0];
    g.payoffs(&s, &mut pay);
    assert_eq!(pay, [0.5]);
    assert!(g.fault().is_none());
    let mut moves = Vec::new();
    while !g.is_terminal(&s) {
        g.legal_moves(&s, 0, &mut moves);
        g.apply(&mut s, &moves[..1], &mut rng);
    }
    g.payoffs(&s, &mut pay);
    let fault = g.fault().expect("a fault");
    assert!(
        fault.contains("the payoff of player `a` in location 0 is inf"),
        "{fault}"
    );

    let g = GrowingValue;
    let mut s = g.initial_state();
    let mut moves = Vec::new();
    for expected in [1.0, 1e200] {
        g.payoffs(&s, &mut pay);
        assert_eq!(pay, [expected]);
        assert!(g.fault().is_none());
        g.legal_moves(&s, 0, &mut moves);
        g.apply(&mut s, &moves[..1], &mut rng);
    }
    g.payoffs(&s, &mut pay);
    let fault = g.fault().expect("a fault");
    assert!(
        fault.contains("the payoff of player `a` in location 0 is inf")
            && fault.contains("x {e: inf}"),
        "{fault}"
    );
}

/// One role, one step: `go` from `(s 0)` to the terminal `(s 1)`.
const STEP: &str = "(role r)
(init (s 0))
(<= (legal r go) (true (s 0)))
(<= (next (s 1)) (true (s 0)))
(<= terminal (true (s 1)))
";

#[test]
fn gdl_goal_values_and_arities_fail_the_check_at_their_place() {
    for (name, extra, msg, line_col) in [
        (
            "goal150.kif",
            "(goal r 150)",
            "goal value 150 is above 100",
            "6:9",
        ),
        (
            "goal-5.kif",
            "(goal r -5)",
            "goal value -5 is negative",
            "6:9",
        ),
        (
            "high.kif",
            "(goal r high)",
            "goal value `high` is not a number",
            "6:9",
        ),
        (
            "arity.kif",
            "(goal r 50) (p a) (p a b)",
            "relation `p` is used with 2 and with 1 arguments",
            "6:19",
        ),
    ] {
        let f = write(name, &format!("{STEP}{extra}\n"));
        let out = toss(&["check", path_str(&f)]);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{name}: {}", text(&out.stdout));
        assert!(stderr.contains(msg), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{name}:{line_col}")),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn gdl_warnings_are_shown_by_check_with_their_place() {
    let f = write("warn.kif", &format!("{STEP}(goal r 50)\n(<= extra)\n"));
    let out = toss(&["check", path_str(&f)]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("ok (GDL)"), "{stdout}");
    assert!(
        stderr.contains("Warning") && stderr.contains("rule with an empty body"),
        "{stderr}"
    );
    assert!(stderr.contains("warn.kif:7:1"), "{stderr}");
}

#[test]
fn gdl_faults_stop_playout_with_the_role_and_the_state() {
    let stuck = write(
        "stuck.kif",
        "(role a) (role b)
(init (s 0))
(<= (legal a go) (true (s 0)))
(<= (next (s 1)) (true (s 0)))
(<= terminal (true (s 1)))
(<= (goal ?r 50) (role ?r))
",
    );
    let several = write(
        "several.kif",
        &format!("{STEP}(<= (goal r 50) (true (s 1)))\n(<= (goal r 100) (true (s 1)))\n"),
    );
    let high = write(
        "derived-high.kif",
        &format!("{STEP}(v high)\n(<= (goal r ?x) (v ?x))\n"),
    );
    for (file, engine, msg) in [
        (&stuck, "auto", "role `b` has no legal move"),
        (&stuck, "reasoner", "role `b` has no legal move"),
        (&several, "auto", "several goals [50, 100] for role `r`"),
        (&several, "reasoner", "several goals [50, 100] for role `r`"),
        (
            &high,
            "reasoner",
            "goal value `high` of role `r` is not a number",
        ),
        // The network cannot hold the value: not grounded, so the reasoner
        // plays and faults.
        (
            &high,
            "auto",
            "goal value `high` of role `r` is not a number",
        ),
    ] {
        let out = toss(&["--engine", engine, "playout", path_str(file), "-n", "2"]);
        let stderr = text(&out.stderr);
        assert!(
            !out.status.success(),
            "{file:?} {engine}: {}",
            text(&out.stdout)
        );
        assert!(
            stderr.contains(msg) && stderr.contains("state: (s "),
            "{file:?} {engine}: {stderr}"
        );
    }
}

/// A goal value that is not a number is not silently 0 on the grounded
/// network: the grounding refuses the game, naming the value.
#[test]
fn gdl_grounding_refuses_a_goal_value_that_is_not_a_number() {
    let high = write(
        "ground-high.kif",
        &format!("{STEP}(v high)\n(<= (goal r ?x) (v ?x))\n"),
    );
    let out = toss(&[
        "--engine",
        "grounded",
        "playout",
        path_str(&high),
        "-n",
        "2",
    ]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(
        stderr.contains("not grounded: goal value `high` of role `r` is not a number"),
        "{stderr}"
    );
}
