//! Robustness of the derive: whatever the game file holds, the expansion is
//! Rust that parses, and an error is a `compile_error!` that points into
//! the game file (`file:line:col`), never a panic of the macro.
//!
//! Inputs: random valid games of every construct (the generator of the
//! front end's property tests, printed to `.toss` text), and seeded
//! mutants of the small games in `games/` and of the code generator's
//! fixtures (the mutations of the front end's robustness test). A mutant
//! that still parses goes through the whole derive: the interpreter's
//! construction, the specialization plan and the code generation.

use toss_testkit::arbitrary;
use toss_testkit::mutate;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use mutate::{XorShift, mutate};
use quote::quote;

const RANDOM_GAMES: usize = 300;
const MUTANTS_PER_SEED: usize = 150;

/// A directory of its own for the files the derive reads, one per test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toss-codegen-robustness-{}-{test}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Whether `message` names a place in `m.toss`: `m.toss:LINE:COL`.
fn located(message: &str) -> bool {
    message.match_indices("m.toss:").any(|(i, _)| {
        let rest = &message[i + "m.toss:".len()..];
        let mut parts = rest.splitn(3, ':');
        let line = parts.next().unwrap_or("");
        let col = parts.next().unwrap_or("");
        !line.is_empty()
            && line.bytes().all(|b| b.is_ascii_digit())
            && col.bytes().take_while(u8::is_ascii_digit).count() > 0
    })
}

/// What the derive made of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// A located error (a compile error pointing into the file).
    Error,
    /// An impl forwarding to the interpreter (outside the fragment).
    Interpreted,
    /// A specialized impl.
    Specialized,
}

/// Derives a game from `source` (written to `dir/m.toss`); `Err` says
/// what went wrong: a panic, an expansion that does not parse, or an error
/// without a place in the file.
fn check(dir: &Path, source: &[u8]) -> Result<Outcome, String> {
    std::fs::write(dir.join("m.toss"), source).map_err(|e| e.to_string())?;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        toss_codegen::derive_game_in(
            quote! {
                #[toss(file = "m.toss")]
                struct M;
            },
            dir,
        )
    }));
    let tokens = match outcome {
        Ok(t) => t,
        Err(p) => {
            return Err(format!(
                "panic: {}",
                p.downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| p.downcast_ref::<&str>().copied())
                    .unwrap_or("?")
            ));
        }
    };
    let file: syn::File =
        syn::parse2(tokens.clone()).map_err(|e| format!("the expansion does not parse: {e}"))?;
    for item in &file.items {
        if let syn::Item::Macro(m) = item
            && m.mac
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "compile_error")
        {
            let lit: syn::LitStr = m
                .mac
                .parse_body()
                .map_err(|e| format!("compile_error! without a message: {e}"))?;
            if !located(&lit.value()) {
                return Err(format!("an error without its place: {}", lit.value()));
            }
            return Ok(Outcome::Error);
        }
    }
    let text = tokens.to_string();
    Ok(if text.contains("the specializer does not handle it") {
        Outcome::Interpreted
    } else {
        Outcome::Specialized
    })
}

fn seeds() -> Vec<(String, Vec<u8>)> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let small = [
        "tic-tac-toe",
        "connect4",
        "breakthrough",
        "dice",
        "concurrent-tic-tac-toe",
        "pawn-whopping",
        "hex",
        "bounce",
    ];
    let mut files: Vec<PathBuf> = small
        .iter()
        .map(|g| manifest.join(format!("../../games/{g}.toss")))
        .collect();
    for f in ["counter", "grow", "partial", "capture"] {
        files.push(manifest.join(format!("tests/fixtures/{f}.toss")));
    }
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.display().to_string(), bytes)
        })
        .collect()
}

/// Counts of each outcome, for the report.
type Tally = std::collections::BTreeMap<Outcome, usize>;

fn report(failures: &[String], total: usize, tally: &Tally) {
    eprintln!("{total} inputs: {tally:?}");
    for f in failures {
        eprintln!("FAILURE {}", f.lines().next().unwrap_or(""));
    }
    assert!(
        failures.is_empty(),
        "{} of {total} inputs failed; first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

#[test]
fn random_games_derive() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let dir = scratch("random");
    let mut rng = XorShift::new(11);
    let mut failures = Vec::new();
    let mut tally = Tally::new();
    for i in 0..RANDOM_GAMES {
        let choices: Vec<u32> = (0..600).map(|_| rng.next_u64() as u32).collect();
        let game = arbitrary::Choices::new(choices).game();
        let text = toss_lang::print_game(&game);
        match check(&dir, text.as_bytes()) {
            Ok(o) => *tally.entry(o).or_default() += 1,
            Err(e) => failures.push(format!("random game {i}: {e}\n{text}")),
        }
    }
    std::panic::set_hook(hook);
    let _ = std::fs::remove_dir_all(&dir);
    report(&failures, RANDOM_GAMES, &tally);
}

#[test]
fn mutated_games_derive() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let dir = scratch("mutants");
    let mut failures = Vec::new();
    let mut tally = Tally::new();
    let seeds = seeds();
    for (seed_no, (name, src)) in seeds.iter().enumerate() {
        match check(&dir, src) {
            Ok(Outcome::Error) => failures.push(format!("{name} (unmutated): an error")),
            Ok(_) => {}
            Err(e) => failures.push(format!("{name} (unmutated): {e}")),
        }
        let mut rng = XorShift::new(0xC0DE + seed_no as u64);
        for k in 0..MUTANTS_PER_SEED {
            let m = mutate(&mut rng, src);
            match check(&dir, &m) {
                Ok(o) => *tally.entry(o).or_default() += 1,
                Err(e) => failures.push(format!(
                    "{name}, mutant {k}: {e}\ninput: {:?}",
                    String::from_utf8_lossy(&m)
                )),
            }
        }
    }
    std::panic::set_hook(hook);
    let _ = std::fs::remove_dir_all(&dir);
    report(&failures, seeds.len() * (MUTANTS_PER_SEED + 1), &tally);
}
