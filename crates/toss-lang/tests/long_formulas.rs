//! One long formula: a disjunction of many atoms is checked in time and
//! memory linear in its length, without deep recursion, and one over
//! [`toss_lang::MAX_CONNECTIVES`] is refused with a located error.

use std::fmt::Write;

use toss_core::ir::Formula;

/// A game whose relation `W(x)` is `Q0(x) or ... or Q{n-1}(x)`, every `Qk`
/// declared (empty) in the starting structure.
fn disjunction_game(n: usize) -> String {
    let mut src = String::from("PLAYERS a\nREL W(x) = ");
    for k in 0..n {
        if k > 0 {
            src.push_str(" or ");
        }
        let _ = write!(src, "Q{k}(x)");
    }
    src.push_str("\nLOC 0 { PLAYER a { PAYOFF :(ex x W(x)) } }\nSTART [ e | ");
    for k in 0..n {
        let _ = write!(src, "Q{k}:1 {{}}; ");
    }
    src.push_str("| ]\n");
    src
}

#[test]
fn a_disjunction_of_200000_atoms_checks() {
    let n = 200_000;
    let game = toss_lang::parse_game(&disjunction_game(n), "long.toss").expect("valid game");
    let w = &game.defined_relations[0];
    assert_eq!(w.name, "W");
    let Formula::Or(atoms) = &w.body else {
        panic!("W is not one disjunction: {:?}", w.body);
    };
    assert_eq!(atoms.len(), n);
    assert!(
        matches!(&atoms[n - 1], Formula::Rel { name, .. } if name == "Q199999"),
        "{:?}",
        atoms[n - 1]
    );
}

#[test]
fn a_disjunction_over_the_limit_is_refused_where_it_passes_it() {
    let n = toss_lang::MAX_CONNECTIVES + 2;
    let src = disjunction_game(n);
    let err = toss_lang::parse_game(&src, "long.toss").expect_err("over the limit");
    assert_eq!(err.len(), 1);
    let d = &err[0];
    assert!(
        d.message.contains(&toss_lang::MAX_CONNECTIVES.to_string()),
        "{}",
        d.message
    );
    // The connective after the last one allowed: the one before the atom
    // `Q{MAX_CONNECTIVES + 1}`.
    let past = format!(" or Q{}(x)", toss_lang::MAX_CONNECTIVES + 1);
    let at = src.find(&past).expect("the atom") + 1;
    assert_eq!(d.span, at..at + 2);
    let shown = toss_lang::render_diagnostics(&err, &src, "long.toss", false);
    assert!(shown.contains("long.toss:2:"), "{shown}");
    // The 6 MB line is shown as an excerpt, not whole.
    assert!(shown.len() < 2_000, "{} bytes", shown.len());
}

#[test]
fn many_errors_are_counted_beyond_those_shown() {
    // Undeclared relations: one error per atom.
    let n = toss_lang::diagnostic::MAX_RENDERED + 50;
    let mut src = String::from("PLAYERS a\nREL W(x) = ");
    for k in 0..n {
        if k > 0 {
            src.push_str(" or ");
        }
        let _ = write!(src, "Q{k}(x)");
    }
    src.push_str("\nLOC 0 { PLAYER a { PAYOFF 0 } }\nSTART [ e | | ]\n");
    let err = toss_lang::parse_game(&src, "many.toss").expect_err("undeclared");
    assert_eq!(err.len(), n);
    let shown = toss_lang::render_diagnostics(&err, &src, "many.toss", false);
    assert_eq!(shown.matches("undefined relation").count(), n - 50);
    assert!(shown.contains("and 50 more errors"), "{shown}");
}
