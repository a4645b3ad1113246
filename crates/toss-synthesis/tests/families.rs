//! The families of the issue: the seed's game against its original
//! `win/2`, subtraction games under normal play, Kayles and Dawson's
//! chess against the periods CGSuite and Winning Ways give, and the
//! refusals.

use toss_synthesis::family::{Family, Octal, Play, Subtraction};
use toss_synthesis::logic::Program;
use toss_synthesis::program::Val;
use toss_synthesis::{SynthError, Synthesis, check, synthesize};

fn subtraction(set: &[u32], play: Play) -> Synthesis {
    let family = Family::Subtraction(Subtraction::new(set, play).expect("a set"));
    synthesize(&family, 10_000).expect("periodic")
}

fn octal(code: &str) -> Synthesis {
    let family = Family::Octal(Octal::parse(code).expect("a code"));
    synthesize(&family, 10_000).expect("periodic")
}

#[test]
fn the_seed_game_answers_as_win_2_up_to_a_million() {
    let s = subtraction(&[1, 2], Play::EmptyTableWins);
    assert_eq!((s.preperiod(), s.period()), (2, 3));
    assert_eq!(s.periodicity.preperiod, 1, "the answers repeat from n = 1");
    assert_eq!(s.outcome_preperiod, Some(0), "won/lost repeats from n = 0");
    assert!(s.periodicity.check(match &s.values {
        toss_synthesis::Values::Answers(a) => a,
        toss_synthesis::Values::Grundy(_) => unreachable!(),
    }));
    // The emitted program and the Rust table against win/2, every N.
    let report = check(&s, 1_000_000).unwrap();
    assert_eq!(report.winning, 666_667);
    // No winning move exactly when N = 1 mod 3, N >= 1: the emitted
    // program itself, read back from its text.
    let mut program = Program::parse(&s.logic_program()).unwrap();
    for n in 0..=1_000_000u64 {
        let a = program.query("det_win", n).unwrap();
        assert_eq!(a.is_none(), n % 3 == 1, "n = {n}: {a:?}");
        assert_eq!(a == Some(Val::Any), n == 0, "n = {n}");
    }
}

#[test]
fn the_seed_game_gives_the_seeds_program() {
    let s = subtraction(&[1, 2], Play::EmptyTableWins);
    let text = s.logic_program();
    let clauses: Vec<&str> = text.lines().filter(|l| !l.starts_with('%')).collect();
    assert_eq!(
        clauses,
        [
            "det_win(0,M).",
            "det_win(s(s(N)),M) :- new3(N,M).",
            "new3(0,1).",
            "new3(s(N),M) :- new4(N,M).",
            "new4(0,2).",
            "new4(s(s(N)),M) :- new3(N,M).",
        ]
    );
}

#[test]
fn normal_play_subtraction_games() {
    let s = subtraction(&[1, 2], Play::Normal);
    assert_eq!(s.period(), 3);
    assert_eq!(check(&s, 100_000).unwrap().winning, 100_001 - 33_334);
    let s = subtraction(&[1, 3, 4], Play::Normal);
    assert_eq!(s.period(), 7);
    // Lost exactly at n = 0 or 2 mod 7.
    let r = check(&s, 70_000).unwrap();
    assert_eq!(r.winning, 70_001 - 10_001 - 10_000);
    for n in 0..100u64 {
        let lost = matches!(n % 7, 0 | 2);
        assert_eq!(s.automaton.answer(n).is_none(), lost, "n = {n}");
    }
}

#[test]
fn misere_differs_from_the_seed_without_1() {
    let misere = subtraction(&[2, 3], Play::Misere);
    let seed = subtraction(&[2, 3], Play::EmptyTableWins);
    assert_eq!(misere.automaton.answer(1), Some(Val::Any));
    assert_eq!(seed.automaton.answer(1), None);
    for s in [misere, seed] {
        check(&s, 10_000).unwrap();
    }
    // With 1 in the set they are the same game.
    let a = subtraction(&[1, 3, 4], Play::Misere);
    let b = subtraction(&[1, 3, 4], Play::EmptyTableWins);
    assert_eq!(a.automaton, b.automaton);
}

#[test]
fn kayles_has_period_12_after_71() {
    let s = octal("0.77");
    assert_eq!((s.preperiod(), s.period()), (71, 12));
    // Guy–Smith with t = 2 asks n < 2*71 + 12 + 2 = 156.
    assert!(s.periodicity.verified.end >= 156);
    let r = check(&s, 5_000).unwrap();
    assert!(r.winning > 4_000);
}

#[test]
fn dawsons_chess_has_period_34_after_52() {
    let s = octal("0.137");
    assert_eq!((s.preperiod(), s.period()), (52, 34));
    check(&s, 2_000).unwrap();
}

#[test]
fn an_open_octal_game_is_not_periodic_within_a_small_bound() {
    // 0.007 (Stars and Bars): no period is known.
    let family = Family::Octal(Octal::parse("0.007").unwrap());
    match synthesize(&family, 2_000) {
        Err(e @ SynthError::NotPeriodic { bound: 2_000, .. }) => {
            assert!(
                e.to_string().contains("not periodic within bound 2000"),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Kayles with too small a bound: the candidate is named.
    let family = Family::Octal(Octal::parse("0.77").unwrap());
    let Err(SynthError::NotPeriodic {
        candidate: Some(c), ..
    }) = synthesize(&family, 120)
    else {
        panic!("Kayles proven within 120");
    };
    assert_eq!((c.period, c.agrees.start), (12, 71));
}

#[test]
fn a_bound_above_the_cap_is_refused() {
    let family = Family::Octal(Octal::parse("0.77").unwrap());
    assert!(matches!(
        synthesize(&family, 1_000_000),
        Err(SynthError::BoundTooLarge { .. })
    ));
    let family = Family::Subtraction(Subtraction::new(&[1, 2], Play::Normal).unwrap());
    assert!(matches!(
        synthesize(&family, u64::MAX),
        Err(SynthError::BoundTooLarge { .. })
    ));
    let s = subtraction(&[1, 2], Play::Normal);
    assert!(check(&s, u64::MAX).is_err());
}
