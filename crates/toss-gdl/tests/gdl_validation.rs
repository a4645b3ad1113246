//! Goals and arities at check time, and what only a play shows (goal
//! values derived out of range, several goals, a role without a legal
//! move) as faults of the play on the reasoner and on the grounded game.

use toss_core::Game;
use toss_core::game::rng_from_seed;
use toss_gdl::GdlGame;
use toss_gdl::ground::{GroundGame, GroundLimits};
use toss_gdl::kif::{check_gdl, load_game, parse_gdl};

/// One role, one step: `go` from `(s 0)` to the terminal `(s 1)`.
const STEP: &str = "(role r)
(init (s 0))
(<= (legal r go) (true (s 0)))
(<= (next (s 1)) (true (s 0)))
(<= terminal (true (s 1)))
";

/// The one error of `src`, with the text its span covers.
fn one_error(src: &str) -> (String, String) {
    let c = check_gdl(src);
    assert_eq!(c.errors.len(), 1, "{:?}", c.errors);
    let d = &c.errors[0];
    (d.message.clone(), src[d.span.clone()].to_string())
}

#[test]
fn constant_goal_values_are_numbers_from_0_to_100() {
    for (goal, msg, at) in [
        ("150", "goal value 150 is above 100", "150"),
        ("-5", "goal value -5 is negative", "-5"),
        ("high", "goal value `high` is not a number", "high"),
        ("(f 1)", "not a compound term", "(f 1)"),
    ] {
        let src = format!("{STEP}(goal r {goal})\n");
        let (m, text) = one_error(&src);
        assert!(m.contains(msg), "{goal}: {m}");
        assert_eq!(text, at, "{goal}");
    }
    for goal in ["0", "100", "?v"] {
        let src = format!("{STEP}(v 7) (<= (goal r {goal}) (v ?v))\n");
        let c = check_gdl(&src);
        assert!(c.errors.is_empty(), "{goal}: {:?}", c.errors);
    }
}

#[test]
fn a_relation_with_two_arities_is_an_error() {
    let src = format!("{STEP}(goal r 50)\n(p a)\n(p a b)\n");
    let (m, text) = one_error(&src);
    assert!(m.contains("relation `p` is used with 2 and with 1"), "{m}");
    assert_eq!(text, "(p a b)");
}

/// Both engines of `src`, which checks.
fn engines(src: &str) -> (GdlGame, GroundGame) {
    let g = load_game(src, "t.kif").unwrap_or_else(|d| panic!("{d:?}"));
    let desc = parse_gdl(src, "t.kif").unwrap_or_else(|d| panic!("{d:?}"));
    let n = GroundGame::from_description(&desc, GroundLimits::default()).expect("grounds");
    (g, n)
}

/// A random playout's fault on `g`, if any.
fn playout_fault<G: Game>(g: &G) -> Option<String> {
    let mut s = g.initial_state();
    let _ = g.random_playout_from(&mut s, &mut rng_from_seed(1), 100);
    g.fault()
}

#[test]
fn goal_values_derived_out_of_range_are_faults() {
    let src = format!("{STEP}(v 150)\n(<= (goal r ?x) (v ?x))\n");
    let (g, n) = engines(&src);
    for f in [playout_fault(&g), playout_fault(&n)] {
        let f = f.expect("a fault");
        assert!(
            f.contains("goal value 150 of role `r` is above 100") && f.contains("state: (s 1)"),
            "{f}"
        );
    }
    // Not a number: the reasoner reports it when a play reaches it; the
    // network cannot hold it, so grounding refuses the game.
    let src = format!("{STEP}(v high)\n(<= (goal r ?x) (v ?x))\n");
    let g = load_game(&src, "t.kif").unwrap_or_else(|d| panic!("{d:?}"));
    let f = playout_fault(&g).expect("a fault");
    assert!(
        f.contains("goal value `high` of role `r` is not a number"),
        "{f}"
    );
    let desc = parse_gdl(&src, "t.kif").unwrap_or_else(|d| panic!("{d:?}"));
    let refused = match GroundGame::from_description(&desc, GroundLimits::default()) {
        Ok(_) => panic!("grounded a goal value that is not a number"),
        Err(e) => e,
    };
    assert!(
        refused
            .to_string()
            .contains("goal value `high` of role `r` is not a number"),
        "{refused}"
    );
}

#[test]
fn several_goals_of_a_role_in_a_terminal_state_are_a_fault() {
    let src = format!("{STEP}(<= (goal r 50) (true (s 1)))\n(<= (goal r 100) (true (s 1)))\n");
    let (g, n) = engines(&src);
    for f in [playout_fault(&g), playout_fault(&n)] {
        let f = f.expect("a fault");
        assert!(
            f.contains("several goals [50, 100] for role `r`") && f.contains("state: (s 1)"),
            "{f}"
        );
    }
    // In a state that is not terminal, the goals are not the result yet.
    let src = format!(
        "{STEP}(<= (goal r 50) (true (s 0)))\n(<= (goal r 100) (true (s 0)))\n(<= (goal r 0) (true (s 1)))\n"
    );
    let (g, n) = engines(&src);
    let mut pay = [0.0];
    g.payoffs(&g.initial_state(), &mut pay);
    n.payoffs(&n.initial_state(), &mut pay);
    assert_eq!((g.fault(), n.fault()), (None, None));
}

#[test]
fn a_role_without_a_legal_move_in_a_state_not_terminal_is_a_fault() {
    let src = "(role a) (role b)
(init (s 0))
(<= (legal a go) (true (s 0)))
(<= (next (s 1)) (true (s 0)))
(<= terminal (true (s 1)))
(<= (goal ?r 50) (role ?r))
";
    let (g, n) = engines(src);
    let mut movers = Vec::new();
    g.movers(&g.initial_state(), &mut movers);
    assert!(movers.is_empty());
    n.movers(&n.initial_state(), &mut movers);
    assert!(movers.is_empty());
    for f in [g.fault(), n.fault()] {
        let f = f.expect("a fault");
        assert!(
            f.contains("role `b` has no legal move") && f.contains("state: (s 0)"),
            "{f}"
        );
    }
    // From then on every state is terminal, so plays stop.
    assert!(g.is_terminal(&g.initial_state()) && n.is_terminal(&n.initial_state()));
    // A clone, which a parallel search plays on, shares the fault.
    let (g, _) = engines(src);
    let copy = g.clone();
    assert!(playout_fault(&copy).is_some() && g.fault().is_some());
}

/// Distributing `or`s is exponential in their number: 30 of two disjuncts
/// in one rule would make 2^30 rules. The description is refused at the
/// rule, before any is built.
#[test]
fn distributing_too_many_ors_is_refused_at_the_rule() {
    let ors = "(or (p a) (p b)) ".repeat(30);
    let src = format!("(p a) (p b)\n(<= (q a) {ors})\n");
    let (m, text) = one_error(&src);
    assert!(
        m.contains("adds more than 500,000 terms")
            && m.contains("(limit: terms added by distributing or)"),
        "{m}"
    );
    assert_eq!(text, "(q a)");
    // 10 such `or`s (1,024 rules) are read.
    let ors = "(or (p a) (p b)) ".repeat(10);
    let src = format!("{STEP}(p a) (p b)\n(<= (goal r 50) {ors})\n");
    let c = check_gdl(&src);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
}
