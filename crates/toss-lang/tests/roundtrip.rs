//! Printing and parsing are inverse: `parse_game(print_game(g)) == g` for
//! random valid games, and every game file under `games/` survives
//! parse -> print -> parse unchanged.

use toss_testkit::arbitrary;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use toss_core::ir::Game;
use toss_lang::{parse_game, print_game, render_diagnostics};

fn reparse(g: &Game) -> Result<Game, String> {
    let text = print_game(g);
    parse_game(&text, "printed.toss").map_err(|d| {
        format!(
            "{}\n--- printed ---\n{text}",
            render_diagnostics(&d, &text, "printed.toss", false)
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn printed_random_games_parse_back_identical(g in arbitrary::arb_game()) {
        let back = reparse(&g).map_err(TestCaseError::fail)?;
        prop_assert!(back == g, "round trip changed the game\n--- printed ---\n{}\n--- expected ---\n{:#?}\n--- got ---\n{:#?}", print_game(&g), g, back);
        // Canonical: printing the parsed game gives the same text.
        prop_assert_eq!(print_game(&back), print_game(&g));
    }

    #[test]
    fn printed_random_formulas_parse_back_identical(f in arbitrary::arb_formula()) {
        let text = toss_lang::print_formula(&f);
        let back = toss_lang::parse_formula(&text)
            .map_err(|d| TestCaseError::fail(format!("{d:?}\n{text}")))?;
        prop_assert!(back == f, "{}\n{:?}\n{:?}", text, f, back);
    }
}

fn game_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "toss") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../games"),
        &mut files,
    );
    files
}

/// Every game file round-trips: parse, print, parse, same IR (and the
/// printed text is a fixed point of printing). Passes vacuously when there
/// are no game files yet.
#[test]
fn game_files_round_trip() {
    let mut failures = Vec::new();
    let files = game_files();
    for path in &files {
        let name = path.display().to_string();
        let Ok(src) = std::fs::read_to_string(path) else {
            failures.push(format!("{name}: unreadable"));
            continue;
        };
        let g = match parse_game(&src, &name) {
            Ok(g) => g,
            Err(d) => {
                failures.push(render_diagnostics(&d, &src, &name, false));
                continue;
            }
        };
        match reparse(&g) {
            Ok(back) if back == g => {
                if print_game(&back) != print_game(&g) {
                    failures.push(format!("{name}: printing is not a fixed point"));
                }
            }
            Ok(_) => failures.push(format!("{name}: printed form parses to a different game")),
            Err(e) => failures.push(format!("{name}: printed form does not parse:\n{e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn printing_is_deterministic() {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..64 {
        let choices: Vec<u32> = (0..600)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng as u32
            })
            .collect();
        let g = arbitrary::Choices::new(choices).game();
        assert_eq!(print_game(&g), print_game(&g.clone()));
    }
}
