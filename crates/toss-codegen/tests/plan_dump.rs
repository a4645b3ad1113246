//! The specialization plan and the generated code: every game in games/ is
//! in the specialized fragment; snapshots of the plan dumps and of the
//! formatted expansions of tic-tac-toe and Breakthrough; the output is
//! deterministic.

use std::path::{Path, PathBuf};

use quote::quote;
use toss_codegen::plan::Plan;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn game(name: &str) -> toss_runtime::ir::Game {
    let path = root().join(format!("games/{name}.toss"));
    let text = std::fs::read_to_string(&path).expect("game file");
    toss_lang::parse_game(&text, name).expect("valid game")
}

const GAMES: [&str; 8] = [
    "tic-tac-toe",
    "breakthrough",
    "connect4",
    "gomoku",
    "pawn-whopping",
    "hex",
    "dice",
    "concurrent-tic-tac-toe",
];

#[test]
fn every_game_is_specialized() {
    for g in GAMES {
        if let Err(e) = Plan::build(&game(g)) {
            panic!("{g} is not specialized: {e}");
        }
    }
}

fn dump(name: &str) -> String {
    Plan::build(&game(name))
        .map(|p| p.dump())
        .unwrap_or_else(|e| e)
}

#[test]
fn tic_tac_toe_plan() {
    insta::assert_snapshot!(dump("tic-tac-toe"));
}

#[test]
fn breakthrough_plan() {
    insta::assert_snapshot!(dump("breakthrough"));
}

#[test]
fn hex_plan() {
    insta::assert_snapshot!(dump("hex"));
}

/// The formatted expansion of `#[derive(Game)]` for a game, with the
/// machine-dependent path redacted.
fn expansion(ty: &str, file: &str) -> String {
    let ident = syn::Ident::new(ty, proc_macro2::Span::call_site());
    let input = quote! {
        #[toss(file = #file)]
        pub struct #ident;
    };
    let base = root();
    let tokens = toss_codegen::derive_game_in(input, &base);
    let parsed: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = prettyplease::unparse(&parsed);
    text.replace(&base.to_string_lossy().into_owned(), "[root]")
}

#[test]
fn tic_tac_toe_expansion() {
    insta::assert_snapshot!(expansion("TicTacToe", "games/tic-tac-toe.toss"));
}

#[test]
fn breakthrough_expansion() {
    insta::assert_snapshot!(expansion("Breakthrough", "games/breakthrough.toss"));
}

#[test]
fn expansion_is_deterministic() {
    for (ty, g) in [("Gomoku", "games/gomoku.toss"), ("Hex", "games/hex.toss")] {
        assert_eq!(expansion(ty, g), expansion(ty, g), "{g}");
    }
}

#[test]
fn games_outside_the_fragment_forward_to_the_interpreter() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = quote! {
        #[toss(file = "tests/fixtures/counter.toss")]
        struct Counter;
    };
    let tokens = toss_codegen::derive_game_in(input, base);
    let parsed: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = prettyplease::unparse(&parsed);
    assert!(
        text.contains("function updates are not specialized"),
        "{text}"
    );
    assert!(text.contains("::toss::Game::legal_moves(Counter::interpreter()"));
}

/// Games outside the fragment, and why (they keep the interpreter path).
#[test]
fn games_outside_the_fragment() {
    for (g, why) in [
        ("english-draughts", "function updates are not specialized"),
        ("chess", "function updates are not specialized"),
        ("amazons", "ties several left elements"),
    ] {
        match Plan::build(&game(g)) {
            Ok(_) => panic!("{g} is now specialized: move it to GAMES"),
            Err(e) => assert!(e.contains(why), "{g}: {e}"),
        }
    }
}

/// A game with dynamics: its ODE right-hand sides and update terms become
/// functions of the type, the rest forwards to the interpreter built with
/// them.
#[test]
fn bounce_expansion() {
    let text = expansion("Bounce", "games/bounce.toss");
    assert!(text.contains("checked_interpreter_compiled"), "{text}");
    insta::assert_snapshot!(text);
}

/// Continuous games are outside the specialized fragment.
#[test]
fn continuous_games_keep_the_interpreter() {
    for g in ["bounce", "cat-and-mouse", "pursuit"] {
        assert!(toss_codegen::ode::has_dynamics(&game(g)), "{g}");
        assert!(Plan::build(&game(g)).is_err(), "{g}");
    }
}
