//! Robustness of loading and playing: mutated game files of both front ends
//! must give diagnostics, a game, or a game that faults, never a panic.
//! Unlike `toss-lang`'s mutation test (the parser and printer alone), every
//! mutant that parses is loaded into its engines and played a few seeded
//! random plies (`exercise`). The fuzz target `play` runs the same code on
//! the fuzzer's inputs.
//!
//! Seeds: the games of `games/`, the fixtures of `tests/fixtures/`, and the
//! GDL corpus of `../shared`. The ignored test runs twenty times as many
//! mutants: `cargo test --release --test mutated_games -- --ignored`.

mod exercise;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use toss_testkit::corpus;
use toss_testkit::mutate::{XorShift, mutate};

/// What a seed's language does with an input.
type Exercise = fn(&[u8], u64) -> exercise::Reached;

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out
}

/// Every seed file with the function that exercises its language.
fn seeds() -> Vec<(PathBuf, Exercise)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds: Vec<(PathBuf, Exercise)> = Vec::new();
    for dir in [root.join("games"), root.join("tests/fixtures")] {
        seeds.extend(files(&dir, "toss").into_iter().map(|p| {
            let f: Exercise = exercise::exercise_toss;
            (p, f)
        }));
    }
    for dir in [root.join("tests/fixtures"), corpus::gdl_dir()] {
        seeds.extend(files(&dir, "kif").into_iter().map(|p| {
            let f: Exercise = exercise::exercise_kif;
            (p, f)
        }));
    }
    seeds
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> &str {
    p.downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| p.downcast_ref::<&str>().copied())
        .unwrap_or("?")
}

/// What a run did: inputs tried, how many were played, the failures (each
/// with its seed, mutant number and input).
struct Outcome {
    inputs: usize,
    played: usize,
    failures: Vec<String>,
}

/// Exercises `mutants` mutants of every seed, and the seed itself.
fn run(mutants: usize) -> Outcome {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let seeds = seeds();
    assert!(seeds.len() > 60, "too few seeds: {}", seeds.len());
    let mut failures = Vec::new();
    let (mut inputs, mut played) = (0, 0);
    for (seed_no, (path, exercise)) in seeds.iter().enumerate() {
        let src = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut rng = XorShift::new(0xF022 + seed_no as u64);
        for k in 0..=mutants {
            let input = if k == 0 {
                src.clone()
            } else {
                mutate(&mut rng, &src)
            };
            inputs += 1;
            match catch_unwind(AssertUnwindSafe(|| exercise(&input, k as u64))) {
                Ok(reached) => played += usize::from(reached == exercise::Reached::Played),
                Err(p) => failures.push(format!(
                    "{}, mutant {k}: panic: {}\ninput: {:?}",
                    path.display(),
                    panic_text(&*p),
                    String::from_utf8_lossy(&input)
                )),
            }
        }
    }
    std::panic::set_hook(hook);
    Outcome {
        inputs,
        played,
        failures,
    }
}

/// No failure, and enough mutants got past the front end to the engines
/// for the run to mean something (most mutations break the syntax).
fn assert_sound(o: &Outcome) {
    assert!(
        o.failures.is_empty(),
        "{} of {} inputs failed; first ones:\n{}",
        o.failures.len(),
        o.inputs,
        o.failures[..o.failures.len().min(5)].join("\n\n")
    );
    assert!(
        o.played * 10 >= o.inputs,
        "only {} of {} inputs were loaded and played",
        o.played,
        o.inputs
    );
}

#[test]
fn mutated_games_load_and_play_without_panics() {
    assert_sound(&run(25));
}

#[test]
#[ignore = "minutes: twenty times the mutants of the default test"]
fn many_mutated_games_load_and_play_without_panics() {
    assert_sound(&run(500));
}
