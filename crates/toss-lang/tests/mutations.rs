//! Robustness of the front end: mutated game files must give a game or
//! diagnostics, never a panic.
//!
//! Seeds: every `*.toss` under the repository's `games/` directory, every
//! file under `tests/fixtures/`, and a few printed random games (so the test
//! has work to do before any game file exists). Each seed gets at least
//! 1000 mutants from a seeded xorshift generator: byte deletions, insertions
//! of random bytes (NUL, invalid UTF-8, brackets, operators), duplicated
//! spans, truncation, swapped tokens, and combinations. A mutant that parses
//! must also survive printing: its printed form parses back to the same
//! game.

use toss_testkit::arbitrary;
use toss_testkit::mutate;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use mutate::{XorShift, mutate};
use toss_lang::print_game;

const MUTANTS_PER_SEED: usize = 1000;

/// Runs the front end on one input; `Err` describes a panic or a broken
/// round trip.
fn check(input: &[u8]) -> Result<(), String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        match toss_lang::parse_game_bytes(input, "mutant.toss") {
            Ok(g) => {
                let printed = print_game(&g);
                match toss_lang::parse_game(&printed, "printed.toss") {
                    Ok(back) if back == g => Ok(()),
                    Ok(_) => Err(format!("printed game parses differently:\n{printed}")),
                    Err(d) => Err(format!("printed game does not parse: {d:?}\n{printed}")),
                }
            }
            Err(diagnostics) => {
                // Rendering must not panic either.
                let _ = format!("{diagnostics:?}");
                Ok(())
            }
        }
    }));
    match outcome {
        Ok(r) => r,
        Err(p) => Err(format!(
            "panic: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("?")
        )),
    }
}

fn collect(dir: &Path, ext: Option<&str>, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, ext, out);
        } else if ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)) {
            out.push(p);
        }
    }
}

fn seeds() -> Vec<(String, Vec<u8>)> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&manifest.join("../../games"), Some("toss"), &mut files);
    collect(&manifest.join("tests/fixtures"), None, &mut files);
    let mut seeds: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            Some((p.display().to_string(), bytes))
        })
        .collect();
    let mut rng = XorShift::new(7);
    for i in 0..3 {
        let choices: Vec<u32> = (0..600).map(|_| rng.next_u64() as u32).collect();
        let g = arbitrary::Choices::new(choices).game();
        seeds.push((
            format!("<printed random game {i}>"),
            print_game(&g).into_bytes(),
        ));
    }
    seeds
}

#[test]
fn mutated_inputs_never_panic() {
    // Panics are caught and reported below; keep the default hook from
    // printing a backtrace for each.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let seeds = seeds();
    for (seed_no, (name, src)) in seeds.iter().enumerate() {
        if let Err(e) = check(src) {
            failures.push(format!("{name} (unmutated): {e}"));
        }
        let mut rng = XorShift::new(0x5EED + seed_no as u64);
        for k in 0..MUTANTS_PER_SEED {
            let m = mutate(&mut rng, src);
            if let Err(e) = check(&m) {
                failures.push(format!(
                    "{name}, mutant {k}: {e}\ninput: {:?}",
                    String::from_utf8_lossy(&m)
                ));
            }
        }
    }
    std::panic::set_hook(hook);
    assert!(
        failures.is_empty(),
        "{} of {} inputs failed; first ones:\n{}",
        failures.len(),
        seeds.len() * (MUTANTS_PER_SEED + 1),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

#[test]
fn nesting_bombs_do_not_overflow_the_stack() {
    let mut failures = Vec::new();
    for (open, close) in [("(", ")"), ("not ", ""), (":(", ")"), ("[", "]"), ("-", "")] {
        for depth in [100usize, 1000, 5000] {
            let body = format!("{}true{}", open.repeat(depth), close.repeat(depth));
            let src = format!("PLAYERS a\nREL D() = {body}\nSTART [ | | ]\n");
            if let Err(e) = check(src.as_bytes()) {
                failures.push(format!("{open:?} x {depth}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
