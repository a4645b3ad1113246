//! One test per error kind: the message and the `file:line:col` it renders.

#![allow(clippy::unwrap_used)]

use toss_lang::{parse_game, render_diagnostics};

const BASE: &str = "PLAYERS a, b\nSTART [ e | P:1 {}; E:2 {} | f { e -> 1 } ]\nLOC 0 {}\n";

/// Parses `extra` after `BASE` and asserts some diagnostic contains `msg`
/// and renders at `line:col`.
#[track_caller]
fn expect_err(src: &str, msg: &str, line: usize, col: usize) {
    let diags = match parse_game(src, "t.toss") {
        Ok(_) => panic!("expected an error containing {msg:?}"),
        Err(d) => d,
    };
    let d = diags
        .iter()
        .find(|d| d.message.contains(msg))
        .unwrap_or_else(|| panic!("no diagnostic contains {msg:?}: {diags:#?}"));
    let out = render_diagnostics(std::slice::from_ref(d), src, "t.toss", false);
    let loc = format!("t.toss:{line}:{col}");
    assert!(out.contains(&loc), "expected {loc} in:\n{out}");
    assert!(out.contains(msg), "{out}");
    assert!(
        !out.contains('\u{1b}'),
        "plain rendering must have no colour"
    );
}

fn with_base(extra: &str) -> String {
    format!("{BASE}{extra}")
}

#[test]
fn base_is_valid() {
    assert!(parse_game(BASE, "t.toss").is_ok());
}

#[test]
fn syntax_error_says_what_was_expected() {
    let src = with_base("REL W() = P(x) and\n");
    expect_err(&src, "expected a formula", 4, 19);
    let src = with_base("REL W() = \n");
    expect_err(&src, "syntax error", 4, 10);
    let src = "PLAYERS a\nLOC 0 { PLAYER a { MOVES [M 1] } }";
    expect_err(src, "expected `,` or `->`, found `1`", 2, 29);
    let src = "PLAYERS a\nSTART [ a | P(a | ]";
    expect_err(src, "expected `)` or `,`, found `|`", 2, 17);
    let src = "PLAYERS a\nSTART [ | | ] )";
    expect_err(src, "syntax error", 2, 15);
}

#[test]
fn undefined_relation_in_formula() {
    expect_err(
        &with_base("REL W() = ex x Foo(x)\n"),
        "undefined relation `Foo`",
        4,
        16,
    );
}

#[test]
fn undefined_relation_in_emb() {
    let src = with_base("RULE M: [x | P(x) | ] -> [x | | ] emb P, Nope\n");
    expect_err(&src, "undefined relation `Nope`", 4, 42);
}

#[test]
fn undefined_relation_in_pre() {
    let src = with_base("RULE M: [x | | ] -> [x | | ] pre Nope(x)\n");
    expect_err(&src, "undefined relation `Nope`", 4, 34);
}

#[test]
fn undefined_rule_in_label() {
    let src = "PLAYERS a\nSTART [ | | ]\nLOC 0 { PLAYER a { MOVES [Go -> 0] } }\n";
    expect_err(src, "undefined rule `Go`", 3, 27);
}

#[test]
fn undefined_location() {
    let src = "PLAYERS a\nRULE Go: [x | | ] -> [x | | ]\nSTART [ | | ]\nLOC 0 { PLAYER a { MOVES [Go -> 7] } }\n";
    expect_err(src, "undefined location 7", 4, 33);
}

#[test]
fn undefined_player() {
    let src = "PLAYERS a\nSTART [ | | ]\nLOC 0 { PLAYER zed { } }\n";
    expect_err(src, "undefined player `zed`", 3, 16);
    let src = "PLAYERS a\nRULE Go: [x | | ] -> [x | | ]\nSTART [ | | ]\nLOC 0 {}\nHISTORY b: Go {x: y} -> 0\n";
    expect_err(src, "undefined player `b`", 5, 9);
}

#[test]
fn arity_mismatch() {
    expect_err(
        &with_base("REL W() = ex x E(x)\n"),
        "arity mismatch: `E` has arity 2",
        4,
        16,
    );
    // defined relations
    let src = with_base("REL V(x) = P(x)\nREL W() = ex x V(x, x)\n");
    expect_err(&src, "arity mismatch: `V` has arity 1", 5, 16);
    // board relations
    let src = "PLAYERS a\nSTART [ | | ] \"\n . .\n\"\nLOC 0 {}\nREL W() = ex x R(x)\n";
    expect_err(src, "arity mismatch: `R` has arity 2", 6, 16);
    // tuples of a structure
    expect_err(
        &with_base("MODEL [ e | E {(e, e); (e)} | ]\n"),
        "arity mismatch",
        4,
        24,
    );
}

#[test]
fn free_variables() {
    expect_err(
        &with_base("REL W(x) = E(x, y)\n"),
        "free variable `y` in the body of REL W",
        4,
        17,
    );
    let src = "PLAYERS a\nSTART [ | P:1 {} | ]\nLOC 0 { PLAYER a { PAYOFF :(P(x)) } }\n";
    expect_err(src, "free variable `x` in a payoff", 3, 31);
    let src = "PLAYERS a\nSTART [ | | ]\nLOC 0 { PLAYER a { PAYOFF :v + 1 } }\n";
    expect_err(src, "free real variable `:v` in a payoff", 3, 27);
    let src = with_base("RULE M: [x | | ] -> [y | | ] pre P(y)\n");
    expect_err(
        &src,
        "free variable `y` in the precondition of rule M",
        4,
        36,
    );
    let src = with_base("RULE M: [x | | ] -> [y | | ] post P(x)\n");
    expect_err(
        &src,
        "free variable `x` in the postcondition of rule M",
        4,
        37,
    );
}

#[test]
fn rule_constants_and_parameters_are_allowed() {
    let src = "PLAYERS a\nSTART [ e | P:1 {} | f { e -> 1 } ]\n\
               LOC 0 { PLAYER a { MOVES [M, speed: 0 -- 1 -> 0] } }\n\
               RULE M: [x | | ] -> [y | | ] pre P(x) and :f(x) < :speed post P(y)\n\
               update :f(y) = :f(x) + :speed\n";
    // `update` must come before `pre` in the printer's order, but any order parses.
    let g = parse_game(src, "t.toss").expect("valid");
    assert_eq!(
        g.rules[0].pre,
        toss_lang::parse_formula("P(x) and :f(x) < :speed").unwrap()
    );
}

#[test]
fn defined_relation_on_right_side() {
    let src = with_base("REL V(x) = P(x)\nRULE M: [x | V(x) | ] -> [x | V(x) | ]\n");
    expect_err(
        &src,
        "the defined relation `V` may not appear on a rule's right side",
        5,
        31,
    );
}

#[test]
fn probabilities_must_sum_to_one() {
    let src = "PLAYERS a\nRULE Go: [x | | ] -> [x | | ]\nSTART [ | | ]\n\
               LOC 0 { PLAYER a { MOVES [Go -> 0 (p 0.5); 0 (p 0.4)] } }\n";
    expect_err(src, "sum to 0.9, not 1", 4, 26);
}

#[test]
fn ode_or_update_for_unknown_function() {
    let src = with_base("RULE M: [x | | ] -> [x | | ] update :g(x) = 1\n");
    expect_err(&src, "update for unknown function `g`", 4, 37);
    let src = with_base("RULE M: [x | | ] -> [x | | ] dynamics :h'(x) = 1\n");
    expect_err(&src, "ODE for unknown function `h`", 4, 39);
}

#[test]
fn duplicate_definitions() {
    expect_err(
        &with_base("REL V() = true\nREL V() = false\n"),
        "duplicate definition of relation `V`",
        5,
        5,
    );
    let src = with_base("RULE M: [x | | ] -> [x | | ]\nRULE M: [x | | ] -> [x | | ]\n");
    expect_err(&src, "duplicate definition of rule `M`", 5, 6);
    expect_err(
        &with_base("LOC 0 {}\n"),
        "duplicate definition of location 0",
        4,
        5,
    );
    expect_err(
        "PLAYERS a, a\nSTART [ | | ]\nLOC 0 {}\n",
        "duplicate player `a`",
        1,
        12,
    );
    let src = "PLAYERS a\nSTART [ | | ]\nLOC 0 { PLAYER a {} PLAYER a {} }\n";
    expect_err(
        src,
        "duplicate definition of player `a` in location 0",
        3,
        28,
    );
    expect_err(
        "PLAYERS a\nSTART [ q, r, q | | ]\nLOC 0 {}\n",
        "duplicate element `q`",
        2,
        15,
    );
    expect_err(
        &with_base("REL P(x) = true\n"),
        "duplicate definition of relation `P`",
        4,
        5,
    );
}

#[test]
fn label_parameter_not_of_rule() {
    let src = "PLAYERS a\nRULE Go: [x | | ] -> [x | | ] pre :v < 1\nSTART [ | | ]\n\
               LOC 0 { PLAYER a { MOVES [Go, t: 0 -- 1, v: 0 -- 1, w: 0 -- 2 -> 0] } }\n";
    expect_err(src, "`w` is not a parameter of rule `Go`", 4, 53);
}

#[test]
fn missing_start_players_location_zero() {
    expect_err("START [ | | ]\nLOC 0 {}\n", "missing PLAYERS", 2, 9);
    expect_err("PLAYERS a\nLOC 0 {}\n", "missing START", 2, 9);
    expect_err(
        "PLAYERS a\nSTART [ | | ]\nLOC 1 {}\n",
        "missing location 0",
        3,
        1,
    );
    expect_err("", "missing PLAYERS", 1, 1);
}

#[test]
fn non_dense_locations() {
    let src = "PLAYERS a\nSTART [ | | ]\nLOC 0 {}\nLOC 2 {}\n";
    expect_err(
        src,
        "location numbers must be 0..1 without gaps, found 2",
        4,
        5,
    );
}

#[test]
fn all_errors_are_collected() {
    let src = "PLAYERS a\nSTART [ | | ]\nLOC 0 { PLAYER b { MOVES [X -> 3] } }\nREL W() = Y()\n";
    let diags = parse_game(src, "t.toss").unwrap_err();
    assert!(diags.len() >= 4, "{diags:#?}");
}

#[test]
fn board_errors() {
    let src = "PLAYERS a\nSTART [ | | ] \"\n . .\n . . .\n\"\nLOC 0 {}\n";
    expect_err(src, "board rows must have the same number of cells", 4, 2);
    let src = "PLAYERS a\nSTART [ | | ] \"\n . 3x\n\"\nLOC 0 {}\n";
    expect_err(src, "invalid board cell `3x`", 3, 4);
    // A reserved word cannot name a relation, so it cannot be a piece.
    let src = "PLAYERS a\nSTART [ | | ] \"\n . and\n\"\nLOC 0 {}\n";
    expect_err(src, "invalid board cell `and`", 3, 4);
}

#[test]
fn render_with_colour_and_line_col() {
    let src = "PLAYERS a\nSTART [ | | ]\nLOC 0 {}\nREL W() = ex x Foo(x)\n";
    let diags = parse_game(src, "t.toss").unwrap_err();
    let out = render_diagnostics(&diags, src, "t.toss", true);
    assert!(out.contains('\u{1b}'));
    assert_eq!(toss_lang::line_col(src, src.find("Foo").unwrap()), (4, 16));
    assert_eq!(toss_lang::line_col("é\nab", 4), (2, 2));
    assert_eq!(toss_lang::line_col("éa", 1), (1, 1));
    assert_eq!(toss_lang::line_col("ab", 99), (1, 3));
}

// ---- continuous dynamics (spec 1.2)

/// A game with a function `y` and a label for rule `Fall` (time 0 to 1),
/// whose definition follows on line 4.
const CONT: &str = "PLAYERS a\nSTART [ e | P:1 {} | y { e -> 1 } ]\n\
                    LOC 0 { PLAYER a { MOVES [Fall, t: 0 -- 1 -> 0] } }\n";

/// Like [`expect_err`], and the rendered diagnostic contains each of `also`
/// (what is expected, notes, labels).
#[track_caller]
fn expect_err_saying(src: &str, msg: &str, line: usize, col: usize, also: &[&str]) {
    expect_err(src, msg, line, col);
    let diags = parse_game(src, "t.toss").unwrap_err();
    let d = diags.iter().find(|d| d.message.contains(msg)).unwrap();
    let out = render_diagnostics(std::slice::from_ref(d), src, "t.toss", false);
    for a in also {
        assert!(out.contains(a), "expected {a:?} in:\n{out}");
    }
}

#[test]
fn ode_right_hand_sides_are_arithmetic() {
    let src = format!(
        "{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ] dynamics :y'(x) = :(P(x)) * 2\n"
    );
    expect_err_saying(
        &src,
        "a characteristic function `:(...)` in an ODE's right-hand side",
        4,
        63,
        &["expected a number, a function value `:f(l)`", "spec 1.2"],
    );
    let src = format!(
        "{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ]\n  \
         dynamics :y'(x) = 1 + Sum (z | P(z) : :y(z))\n"
    );
    expect_err(&src, "a sum `Sum (...)` in an ODE's right-hand side", 5, 25);
    let src = format!(
        "{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ]\n  \
         dynamics :y'(x) = let :a = 2 in :a * :y(x)\n"
    );
    expect_err(&src, "a `let` term in an ODE's right-hand side", 5, 21);
    // Update terms may be any term (the logic solver evaluates them).
    let src = format!(
        "{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ]\n  \
         update :y(x) = Sum (z | P(z) : :y(z)) dynamics :y'(x) = -:y(x) + 2 ^ sqrt(3)\n"
    );
    assert!(parse_game(&src, "t.toss").is_ok());
}

#[test]
fn odes_of_one_function_have_one_order() {
    let src = format!(
        "{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ] dynamics :y''(x) = -9.81\n\
         RULE Lift: [x | P (x) | ] -> [x | P (x) | ] dynamics :y'(x) = 1\n"
    );
    expect_err_saying(
        &src,
        "ODEs of different orders for `:y`: 1 here, 2 in the first one",
        5,
        54,
        &[
            "expected an equation for `:y''(x)`",
            "the first ODE for `:y`, of order 2",
            " 4 | RULE Fall",
        ],
    );
}

#[test]
fn updates_and_terms_use_kept_derivatives_only() {
    // An ODE of order 2 keeps y' (below 2), not y''.
    let src = format!(
        "{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ] update :y''(x) = 0 \
         dynamics :y''(x) = -9.81\n"
    );
    expect_err_saying(
        &src,
        "`update :y''(x)` sets a derivative that is not kept",
        4,
        52,
        &[
            "expected `:y(x)` or `:y'(x)`",
            "the ODEs for `:y` are of order 2",
        ],
    );
    // Without an ODE for y no derivative of it is kept.
    let src = format!("{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ] update :y'(x) = 0\n");
    expect_err_saying(
        &src,
        "`update :y'(x)` sets a derivative that is not kept",
        4,
        52,
        &[
            "expected `:y(x)`",
            "no `dynamics` equation defines a derivative of `:y`",
        ],
    );
    let src = format!(
        "{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ] dynamics :y''(x) = -9.81 \
         inv :y''(x) >= 0\n"
    );
    expect_err(&src, "the derivative `:y''(x)` is not kept", 4, 74);
    let src =
        format!("{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ] dynamics :y''(x) = :y''(x)\n");
    expect_err(&src, "the derivative `:y''(x)` is not kept", 4, 64);
    // In a payoff (the ODE comes later in the file).
    let src = "PLAYERS a\nSTART [ e | P:1 {} | y { e -> 1 } ]\n\
               LOC 0 { PLAYER a { PAYOFF Sum (z | P(z) : :y'(z)) MOVES [Fall, t: 0 -- 1 -> 0] } }\n\
               RULE Fall: [x | P (x) | ] -> [x | P (x) | ] dynamics :y'(x) = 1\n";
    expect_err(src, "the derivative `:y'(z)` is not kept", 3, 43);
    // Kept derivatives may be read and set anywhere.
    let src = format!(
        "{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ] update :y'(x) = -:y'(x) \
         dynamics :y''(x) = -:y'(x) pre :y'(x) < 1 inv :y(x) + :y'(x) >= 0\n"
    );
    assert!(parse_game(&src, "t.toss").is_ok());
}

#[test]
fn structures_give_kept_derivatives_only() {
    let rule = "RULE Fall: [x | P (x) | ] -> [x | P (x) | ] dynamics :y''(x) = -9.81\n";
    let src = format!(
        "PLAYERS a\nSTART [ e | P:1 {{}} | y {{ e -> 1 }}; y'' {{ e -> 2 }} ]\n\
         LOC 0 {{ PLAYER a {{ MOVES [Fall, t: 0 -- 1 -> 0] }} }}\n{rule}"
    );
    expect_err_saying(
        &src,
        "`y''` gives values of a derivative that is not kept",
        2,
        36,
        &["expected `y` or `y'`"],
    );
    let src = src.replace("y''", "y'").replace(":y'(x)", ":y''(x)");
    let g = parse_game(&src, "t.toss")
        .unwrap_or_else(|d| panic!("{}", render_diagnostics(&d, &src, "t.toss", false)));
    let v = g.start.function("y'").expect("the kept derivative");
    assert_eq!(g.start.fun_value(v, g.start.element("e").unwrap()), 2.0);
    // No space between the name and its primes, as in `:y'(x)`.
    let spaced = src.replace("y' {", "y ' {");
    assert!(parse_game(&spaced, "t.toss").is_err());
}

#[test]
fn epsilon_is_a_non_negative_number() {
    let fall = "RULE Fall: [x | P (x) | ] -> [x | P (x) | ]\n";
    let src = format!("{CONT}{fall}DATA depth: 2, epsilon: -1e-9\n");
    expect_err_saying(
        &src,
        "`DATA epsilon: -1e-9` is not a non-negative number",
        5,
        25,
        &["expected a non-negative number"],
    );
    let src = format!("{CONT}{fall}DATA epsilon: fast\n");
    expect_err(
        &src,
        "`DATA epsilon: fast` is not a non-negative number",
        5,
        15,
    );
    assert!(parse_game(&format!("{CONT}{fall}DATA epsilon: 1e-6\n"), "t.toss").is_ok());
}

#[test]
fn rule_parameters_get_intervals() {
    let src =
        format!("{CONT}RULE Fall: [x | P (x) | ] -> [x | P (x) | ] dynamics :y'(x) = :k * :y(x)\n");
    expect_err_saying(
        &src,
        "the parameter `:k` of rule `Fall` gets no interval: no label gives one",
        4,
        63,
        &["[Fall, k: 0 -- 1 -> 0]"],
    );
    let src = src.replace("t: 0 -- 1", "t: 0 -- 1, k: -1 -- 1");
    assert!(parse_game(&src, "t.toss").is_ok());
}

#[test]
fn simultaneous_labels_with_different_edges() {
    let src = "PLAYERS a, b\n\
               RULE A: [x | P:1 {} | ] -> [x | P (x) | ] emb P\n\
               RULE B: [x | Q:1 {} | ] -> [x | Q (x) | ] emb Q\n\
               LOC 0 { PLAYER a { MOVES [A -> 1] } PLAYER b { MOVES [B -> 2] } }\n\
               LOC 1 {}\nLOC 2 {}\n\
               START [ x, y | P:1 {}; Q:1 {} | ]\n";
    expect_err(src, "players move simultaneously", 4, 54);
    // The same edges for both: fine.
    let ok = src.replace("[B -> 2]", "[B -> 1]");
    assert!(parse_game(&ok, "t.toss").is_ok());
    // Same location, different probabilities: an error too.
    let src = src
        .replace("[A -> 1]", "[A -> 1 (p 0.5); 2 (p 0.5)]")
        .replace("[B -> 2]", "[B -> 1 (p 0.25); 2 (p 0.75)]");
    expect_err(&src, "players move simultaneously", 4, 73);
}

#[test]
fn fixed_point_must_be_monotone() {
    expect_err(
        &with_base("REL Odd(x) = lfp O(x) = P(x) or not O(x)\n"),
        "`O` occurs negatively in the body of its own fixed point",
        4,
        37,
    );
    // Through `->` and inside a counting term: negative.
    expect_err(
        &with_base("REL V(x) = gfp O(x) = O(x) -> P(x)\n"),
        "occurs negatively",
        4,
        23,
    );
    expect_err(
        &with_base("REL V(x) = lfp O(x) = P(x) or :(O(x)) > 0\n"),
        "occurs negatively",
        4,
        33,
    );
    // Two negations make a positive occurrence; a shadowing inner fixed
    // point hides the outer relation.
    assert!(
        parse_game(
            &with_base("REL V(x) = lfp O(x) = P(x) or not not O(x)\n"),
            "t.toss"
        )
        .is_ok()
    );
    assert!(
        parse_game(
            &with_base("REL V(x) = lfp O(x) = P(x) or not (lfp O(x) = P(x) or O(x))\n"),
            "t.toss"
        )
        .is_ok()
    );
}

/// Spec 1.1: an optional right tuple is added iff its left counterpart was
/// matched, so the counterpart must exist, over elements the right ones
/// replace.
#[test]
fn optional_right_tuple_needs_its_left_counterpart() {
    // Line 4: `RULE M: [a | P (a) | ] -> [a | _opt_P (a) | ]`.
    let src = with_base("RULE M: [a | P (a) | ] -> [a | _opt_P (a) | ]\n");
    expect_err(
        &src,
        "without its left counterpart: the left side has no `_opt_P(a)`",
        4,
        39,
    );
    // A new right element replaces no left one.
    let src = with_base("RULE M: [a | _opt_P (a) | ] -> [a, c | _opt_E (a, c) | ]\n");
    expect_err(
        &src,
        "optional right tuple over `c`, which replaces no left element",
        4,
        51,
    );
    // With the counterpart (through `with`), the rule checks.
    let ok = with_base("RULE M: [a | _opt_P (a) | ] -> [b | _opt_P (b) | ] with [b <- a]\n");
    assert!(parse_game(&ok, "t.toss").is_ok());
}

/// A real quantifier is decided over the values its variable is compared
/// with: the variable alone on one side of each comparison.
#[test]
fn quantified_real_alone_in_comparisons() {
    let src = with_base("REL W() = ex :a (:a + 1 < 2)\n");
    expect_err(
        &src,
        "`:a` is not alone on one side of this comparison",
        4,
        18,
    );
    // Also inside a characteristic function on one side.
    let src = with_base("REL W() = ex :a (:a < 2 and :(:a < 1) * 2 > 1)\n");
    expect_err(
        &src,
        "`:a` is not alone on one side of this comparison",
        4,
        29,
    );
    let src = with_base("REL W() = ex :a ex :b (:a < :b)\n");
    expect_err(&src, "a real variable bound inside its quantifier", 4, 29);
    let src = with_base("REL W() = ex :a (let :b = :a in :b > 0)\n");
    expect_err(&src, "`:a` in the value of a `let`", 4, 27);
    let src = with_base("LOC 1 { PLAYER a { PAYOFF min :a (:a >= 2 or 2 * :a > 1) } }\n");
    expect_err(
        &src,
        "`:a` is not alone on one side of this comparison",
        4,
        46,
    );
    // Shadowed by an inner quantifier: the inner one's own variable.
    let src = with_base("REL W() = ex :a (:a < 1 and ex :a (:a > 0))\n");
    assert!(parse_game(&src, "t.toss").is_ok());
}

/// A payoff infinite or NaN in every state is an error at its part; one
/// that is only sometimes not finite is left to the run time.
#[test]
fn payoffs_never_finite() {
    let game = |payoff: &str| {
        format!(
            "PLAYERS a\nSTART [ e | P:1 {{}} | ]\nLOC 0 {{\n  PLAYER a {{ PAYOFF {payoff} }}\n}}\n"
        )
    };
    expect_err(&game("1/0"), "division by zero", 4, 21);
    expect_err(&game("0/0"), "division by zero", 4, 21);
    expect_err(&game("1e999-1e999"), "overflows to infinity", 4, 21);
    expect_err(
        &game("1e308 * 10 * (1 + :(ex x P(x)))"),
        "every value of this term overflows",
        4,
        21,
    );
    expect_err(&game("sqrt(0 - 1 - :(ex x P(x)))"), "even root", 4, 21);
    expect_err(&game("(0 - 8) ^ 0.5"), "NaN", 4, 22);
    expect_err(&game("let :z = 0 in 3 / :z"), "division by zero", 4, 35);
    // The error points at the part, not the whole payoff.
    expect_err(&game("1 + 2 / 0"), "division by zero", 4, 25);
    // Only sometimes zero: the interpreter faults when it is.
    for ok in [
        "1 / :(ex x P(x))",
        "1 / (1 + :(ex x P(x)))",
        "1 / Sum (x | P(x) : 1)",
        "1e308 * 0.5",
    ] {
        if let Err(d) = parse_game(&game(ok), "t.toss") {
            panic!("{ok}: {d:#?}");
        }
    }
}

#[test]
fn recursive_rel_definitions_are_located() {
    // Through another REL: at the first definition of the cycle (line 4).
    expect_err(
        &with_base("REL A(x) = B(x)\nREL B(x) = P(x) and A(x)\n"),
        "REL `A` is defined through itself: A -> B -> A",
        4,
        5,
    );
    // Directly, under a quantifier.
    expect_err(
        &with_base("REL C(x) = ex y (E(x, y) and C(y))\n"),
        "REL `C` is defined through itself: C -> C",
        4,
        5,
    );
    // A fixed point binding the name is not a use of the REL.
    let ok = with_base("REL D(x) = lfp D(x) = (P(x) or ex y (E(x, y) and D(y)))\n");
    assert!(parse_game(&ok, "t.toss").is_ok());
}

#[test]
fn history_moves_name_existing_elements() {
    let rule = "RULE Mark: [a | P:1 {} | ] -> [a | P (a) | ]\nLOC 1 {}\n";
    // A good saved play loads.
    let ok = with_base(&format!("{rule}HISTORY a: Mark {{a: e}} -> 1\n"));
    assert!(parse_game(&ok, "t.toss").is_ok(), "{ok}");
    // An element that is in no structure.
    expect_err(
        &with_base(&format!("{rule}HISTORY a: Mark {{a: nowhere}} -> 1\n")),
        "no element `nowhere` in the starting or the current structure",
        6,
        21,
    );
    // A left element the rule does not have.
    expect_err(
        &with_base(&format!("{rule}HISTORY a: Mark {{b: e}} -> 1\n")),
        "rule `Mark` has no left-side element `b`",
        6,
        18,
    );
}

/// `_opt_` followed by something that is no name (a mutant found
/// `_opt_1e999P`, whose relation `1e999P` could not be printed back).
#[test]
fn optional_tuple_of_a_relation_that_is_no_name() {
    let src = with_base("RULE M: [a | _opt_1e9P (a) | ] -> [a | | ]\n");
    expect_err(
        &src,
        "`_opt_` must be followed by a relation name, found `1e9P`",
        4,
        14,
    );
}

/// REPETITION: what it keeps must be declared, what it lists must be the
/// structure's, and no rule may set its count.
#[test]
fn repetition_errors() {
    // Line 4 is the REPETITION.
    let src = with_base("REPETITION :seen(e) OF P\n");
    expect_err(
        &src,
        "REPETITION keeps `:seen`, which START does not declare",
        4,
        12,
    );
    let src = with_base("REPETITION :f(z) OF P\n");
    expect_err(&src, "no element `z` in the starting structure", 4, 15);
    let src = with_base("REPETITION :f(e) OF P, Q\n");
    expect_err(&src, "`Q` is not a relation of the structure", 4, 24);
    let src = with_base("REPETITION :f(e) OF P, :g\n");
    expect_err(&src, "`:g` is not a function of the structure", 4, 24);
    let src = with_base("REPETITION :f(e) OF P, :f\n");
    expect_err(&src, "`:f` is the count itself", 4, 24);
    let src = with_base("REL D(x) = P(x)\nREPETITION :f(e) OF D\n");
    expect_err(&src, "`D` is a defined relation", 5, 21);
    let src = with_base("REPETITION :f(e) OF P\nREPETITION :f(e) OF E\n");
    expect_err(&src, "a second REPETITION", 5, 1);
    let src = with_base(
        "REPETITION :f(e) OF P\nRULE M: [a | P (a) | ] -> [a | P (a) | ] update :f(a) = 1\n",
    );
    expect_err(&src, "rule `M` sets `:f`, which REPETITION keeps", 4, 12);
    // Without a list.
    let src = with_base("REPETITION :f(e) OF\n");
    expect_err(&src, "expected a relation name or `:function`", 4, 20);
    // Valid, and printed back.
    let ok = with_base("REPETITION :f(e) OF P, E\n");
    let g = parse_game(&ok, "t.toss").unwrap();
    let r = g.repetition.as_ref().unwrap();
    assert_eq!((r.function.as_str(), r.element.as_str()), ("f", "e"));
    assert_eq!(r.relations, ["P", "E"]);
    let printed = toss_lang::print_game(&g);
    assert!(printed.contains("REPETITION :f(e) OF P, E"), "{printed}");
    assert_eq!(parse_game(&printed, "p.toss").unwrap(), g);
}
