//! The conformance cases of shared/corpus/gdl/conformance/EXPECTED.md.

mod gdl_common;

use gdl_common::{corpus, legal_strings, read, step};
use toss_core::Game;
use toss_gdl::GdlGame;
use toss_gdl::kif::{GdlCheck, check_gdl, load_game};

fn src(rel: &str) -> String {
    read(&corpus().join("conformance").join(rel))
}

fn checked(rel: &str) -> GdlCheck {
    check_gdl(&src(rel))
}

fn game(rel: &str) -> GdlGame {
    let s = src(rel);
    load_game(&s, rel).unwrap_or_else(|ds| {
        panic!(
            "{rel}: {}",
            toss_lang::render_diagnostics(&ds, &s, rel, false)
        )
    })
}

fn valid(rel: &str) {
    let c = checked(rel);
    assert!(c.errors.is_empty(), "{rel}: {:?}", c.errors);
    assert!(c.description.is_some());
}

fn invalid(rel: &str) -> Vec<toss_lang::Diagnostic> {
    let c = checked(rel);
    assert!(!c.errors.is_empty(), "{rel} should be invalid");
    c.errors
}

#[test]
fn tictactoe_game() {
    let g = game("ggp-base/ticTacToe.kif");
    assert_eq!(g.player_names(), ["xplayer", "oplayer"]);
    let mut s = g.initial_state();
    assert!(!g.terminal(&s));
    assert_eq!(legal_strings(&g, &s, 0).len(), 9);
    assert_eq!(legal_strings(&g, &s, 1), ["noop"]);
    assert_eq!(g.perft(&s, 1), 9);
    let moves = [
        ["(mark 1 1)", "noop"],
        ["noop", "(mark 1 3)"],
        ["(mark 3 1)", "noop"],
        ["noop", "(mark 2 2)"],
        ["(mark 2 1)", "noop"],
    ];
    for (i, j) in moves.iter().enumerate() {
        assert!(!g.terminal(&s), "step {i}");
        s = step(&g, &s, j);
    }
    assert!(g.terminal(&s));
    assert_eq!(g.goals(&s), Ok(vec![100, 0]));
}

#[test]
fn case_1a_time_invariant_goal() {
    let c = checked("ggp-base/test_case_1a.kif");
    assert!(c.errors.is_empty());
    assert!(!c.warnings.is_empty(), "empty-bodied rule warns");
    let g = game("ggp-base/test_case_1a.kif");
    let s = g.initial_state();
    assert!(!g.terminal(&s));
    assert_eq!(g.goals(&s), Ok(vec![100]));
    let s = step(&g, &s, &["proceed"]);
    assert!(g.terminal(&s));
    assert_eq!(g.goals(&s), Ok(vec![100]));
}

#[test]
fn valid_cases() {
    for f in [
        "ggp-base/test_case_1b.kif",
        "ggp-base/test_case_2a.kif",
        "ggp-base/test_case_2b.kif",
        "ggp-base/test_case_2c.kif",
        "ggp-base/test_case_3d.kif",
        "ggp-base/test_case_4a.kif",
        "ggp-base/connectFour.kif",
        "ggp-base/simpleMutex.kif",
        "gdl-validation/ticTacToe.kif",
    ] {
        valid(f);
    }
}

#[test]
fn case_3a_parenthesised_proposition() {
    let c = checked("ggp-base/test_case_3a.kif");
    assert!(c.errors.is_empty());
    assert!(!c.warnings.is_empty(), "`(open2)` warns");
    // As ggp-base's prover reads it: `(open2)` is not `open2`, which
    // nothing defines.
    let g = game("ggp-base/test_case_3a.kif");
    assert_eq!(
        legal_strings(&g, &g.initial_state(), 0),
        ["(move correct_failure)"]
    );
}

#[test]
fn unsafe_cases_are_invalid() {
    let e = invalid("ggp-base/test_case_3b.kif");
    assert!(e.iter().all(|d| d.message.contains("unsafe")), "{e:?}");
    let e = invalid("ggp-base/test_case_3e.kif");
    assert!(e.iter().all(|d| d.message.contains("unsafe")), "{e:?}");
    let e = invalid("ggp-base/test_case_3f.kif");
    assert!(e.iter().all(|d| d.message.contains("unsafe")), "{e:?}");
}

#[test]
fn case_3c_undefined_is_false() {
    valid("ggp-base/test_case_3c.kif");
    let g = game("ggp-base/test_case_3c.kif");
    let s = g.initial_state();
    assert!(!g.terminal(&s));
    assert_eq!(legal_strings(&g, &s, 0), ["win"]);
    let s = step(&g, &s, &["win"]);
    assert!(g.terminal(&s));
    assert_eq!(g.goals(&s), Ok(vec![100]));
}

fn one_move_then_win(rel: &str, mv: &str) {
    valid(rel);
    let g = game(rel);
    let s = g.initial_state();
    assert!(!g.terminal(&s), "{rel}");
    assert_eq!(legal_strings(&g, &s, 0), [mv], "{rel}");
    let s = step(&g, &s, &[mv]);
    assert!(g.terminal(&s), "{rel}");
    assert_eq!(g.goals(&s), Ok(vec![100]), "{rel}");
}

#[test]
fn case_5a_recursion_through_functions() {
    one_move_then_win("ggp-base/test_case_5a.kif", "proceed");
}

#[test]
fn case_5b_doubled_variables() {
    valid("ggp-base/test_case_5b.kif");
    let g = game("ggp-base/test_case_5b.kif");
    let s = g.initial_state();
    assert_eq!(legal_strings(&g, &s, 0), ["(draw 1 1 1 2)"]);
    let s = step(&g, &s, &["(draw 1 1 1 2)"]);
    assert!(g.terminal(&s));
}

#[test]
fn case_5c_cycle_without_base_case() {
    one_move_then_win("ggp-base/test_case_5c.kif", "proceed");
}

#[test]
fn case_5d_mutual_recursion_and_init_rules() {
    one_move_then_win("ggp-base/test_case_5d.kif", "proceed");
}

#[test]
fn case_5e_left_recursion() {
    let g = game("ggp-base/test_case_5e.kif");
    let mut l = legal_strings(&g, &g.initial_state(), 0);
    l.sort();
    assert_eq!(
        l,
        [
            "(reduce a 0)",
            "(reduce a 1)",
            "(reduce c 0)",
            "(reduce c 1)",
            "(reduce c 2)",
            "(reduce c 3)",
            "(reduce c 4)"
        ]
    );
}

#[test]
fn distinct_at_beginning_of_rule() {
    let g = game("ggp-base/test_distinct_beginning_rule.kif");
    let s = g.initial_state();
    let l = legal_strings(&g, &s, 0);
    assert_eq!(l.len(), 2, "{l:?}");
    let s = step(&g, &s, &["(do a b)"]);
    assert!(g.terminal(&s));
    assert_eq!(g.goals(&s), Ok(vec![100]));
}

/// Strict GDL refuses `(not (distinct ...))`; it is read, with a warning
/// at each of the 7, as equality, which gives what the file expects after
/// ggp-base's cleaner: one legal move, then terminal with goal 100.
#[test]
fn not_distinct_is_equality_with_warnings() {
    let rel = "ggp-base/test_clean_not_distinct.kif";
    let c = checked(rel);
    let w: Vec<_> = c
        .warnings
        .iter()
        .filter(|w| w.message.contains("read as equality"))
        .collect();
    assert_eq!(w.len(), 7, "{:?}", c.warnings);
    one_move_then_win(rel, "proceed");
}

/// A relation has one arity in GDL: two are an error. A function symbol
/// with two arities is a warning, as in gdl-validation.
#[test]
fn arity_differences_of_relations_are_errors_of_functions_warnings() {
    let f = "ggp-base/test_invalid_function_arities_differ.kif";
    let c = checked(f);
    assert!(c.errors.is_empty(), "{f}: {:?}", c.errors);
    assert!(
        c.warnings
            .iter()
            .any(|w| w.message.contains("function") && w.message.contains("used with")),
        "{f}: {:?}",
        c.warnings
    );
    let f = "ggp-base/test_invalid_sentence_arities_differ.kif";
    let c = checked(f);
    assert!(
        c.errors
            .iter()
            .any(|e| e.message.contains("relation") && e.message.contains("used with")),
        "{f}: {:?}",
        c.errors
    );
}

/// One error (or problem) at exactly this byte range.
fn one_problem_at(rel: &str, span: std::ops::Range<usize>, warnings_too: bool) {
    let c = checked(rel);
    let mut all = c.errors.clone();
    if warnings_too {
        all.extend(c.warnings.iter().cloned());
    }
    assert_eq!(all.len(), 1, "{rel}: {all:?}");
    assert_eq!(all[0].span, span, "{rel}: {}", all[0].message);
}

#[test]
fn gdl_validation_syntax_cases() {
    let s = src("gdl-validation/badparens3.kif");
    let crlf = s.contains("\r\n");
    one_problem_at("gdl-validation/badparens1.kif", 4..5, true);
    one_problem_at("gdl-validation/badparens2.kif", 8..9, true);
    one_problem_at(
        "gdl-validation/badparens3.kif",
        if crlf { 17..18 } else { 16..17 },
        true,
    );
    one_problem_at("gdl-validation/badparens4.kif", 3..4, true);
    one_problem_at("gdl-validation/badparens5.kif", 2..3, true);
    one_problem_at("gdl-validation/misplacedDatalogKeyword1.kif", 0..18, false);
    one_problem_at("gdl-validation/misplacedDatalogKeyword2.kif", 5..8, false);
    one_problem_at("gdl-validation/misplacedDatalogKeyword3.kif", 6..9, false);
    one_problem_at("gdl-validation/varInTopLevelSentence.kif", 10..15, true);
    one_problem_at("gdl-validation/emptyDisjunction.kif", 31..36, true);
    one_problem_at("gdl-validation/baseDependsOnTrue.kif", 15..25, true);
    let c = checked("gdl-validation/commentEof.kif");
    assert!(c.errors.is_empty());
    assert_eq!(c.forms, 0);
}

#[test]
fn formatter_pairs_read_the_same() {
    for (a, b) in [
        (
            "gdl-validation/formatter1Before.kif",
            "gdl-validation/formatter1After.kif",
        ),
        (
            "gdl-validation/formatter2Before.kif",
            "gdl-validation/formatter2After.kif",
        ),
    ] {
        let (x, y) = (checked(a), checked(b));
        assert!(
            x.errors.is_empty() && y.errors.is_empty(),
            "{:?} {:?}",
            x.errors,
            y.errors
        );
        assert_eq!(x.description, y.description, "{a} vs {b}");
    }
}

#[test]
fn missing_goal_is_the_files_fault() {
    let src = "(role a) (role b) (init s0) (legal a go) (legal b noop)
        (<= (next s1) (true s0)) (<= terminal (true s1))
        (<= (goal a 100) (true s1))";
    let g = load_game(src, "nogoal.kif").expect("loads");
    let s = step(&g, &g.initial_state(), &["go", "noop"]);
    assert!(g.terminal(&s));
    let e = g.goals(&s).expect_err("b has no goal");
    assert_eq!(e.role, "b");
    assert!(
        e.to_string().contains("fault of the game description"),
        "{e}"
    );
    let mut pay = [1.0; 2];
    g.payoffs(&s, &mut pay);
    assert_eq!(pay, [100.0, 0.0]);
}

#[test]
fn stratified_per_rule_not_per_relation() {
    let src = "(role r) (init s) (legal r go) (<= (next f) (true s))
        (<= terminal (true f))
        (<= (goal r 0) (true f) (true quit))
        (<= (goal r 100) (not (goal r 0)))";
    let g = load_game(src, "strat.kif").expect("stratified by rule");
    let s = step(&g, &g.initial_state(), &["go"]);
    assert_eq!(g.goals(&s), Ok(vec![100]));
    let bad = "(role r) (<= p (not q)) (<= q (not p))";
    let e = toss_gdl::kif::parse_gdl(bad, "bad.kif").expect_err("unstratified");
    assert!(e[0].message.contains("not stratified"));
    assert_eq!(e[0].location(bad, "bad.kif"), "bad.kif:1:16");
}

#[test]
fn keyword_misuse_is_reported() {
    let src = "(role r) (init s) (<= (legal r go) (does r go)) (<= (next s) (true s))
        (<= terminal (true s)) (goal r 100)";
    let e = toss_gdl::kif::parse_gdl(src, "kw.kif").expect_err("legal depends on does");
    assert!(e[0].message.contains("must not depend on `does`"), "{e:?}");
    let src = "(role r) (p 1) (<= (p (f ?x)) (p ?x))";
    let e = toss_gdl::kif::parse_gdl(src, "rec.kif").expect_err("recursion restriction");
    assert!(e[0].message.contains("recursion restriction"), "{e:?}");
}

#[test]
fn deep_nesting_is_a_diagnostic_not_a_crash() {
    let src = format!("(role {}x{})", "(f ".repeat(100_000), ")".repeat(100_000));
    let c = check_gdl(&src);
    assert!(!c.errors.is_empty());
}

#[test]
fn case_insensitive_symbols_and_crlf() {
    let src = "(ROLE Robot)\r\n(init(Cell 1))\r\n(<= (LEGAL robot (go ?x)) (TRUE (cell ?X)))\r\n\
        (<= (next (cell 2)) (does ROBOT (go 1)))\r\n(<= terminal (true (cell 2)))\r\n(goal robot 100)";
    let g = load_game(src, "case.kif").expect("loads");
    assert_eq!(g.player_names(), ["Robot"]);
    let s = g.initial_state();
    assert_eq!(legal_strings(&g, &s, 0), ["(go 1)"]);
    let s = step(&g, &s, &["(GO 1)"]);
    assert!(g.terminal(&s));
}
