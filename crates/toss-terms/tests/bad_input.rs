//! Bad input to the `.terms` front end and to normalisation: deep nesting
//! and huge inputs give located errors (or a result), never a panic, a
//! stack overflow or a hang. Each case runs on a thread with the default
//! test stack and must finish within [`SECONDS`].

use std::time::{Duration, Instant};

use toss_terms::diag::Located;
use toss_terms::normalise::Limits;
use toss_terms::program::{EvalError, Program};

const PEANO: &str = include_str!("../examples/peano.terms");

/// Most seconds one case may take (release build, shared machine).
const SECONDS: u64 = 20;

/// Runs `f` on a thread with a 2 MiB stack (as test threads have) and
/// checks it returns in time.
fn bounded<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let start = Instant::now();
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("thread");
    let out = handle.join().unwrap_or_else(|_| panic!("{name}: panicked"));
    let took = start.elapsed();
    assert!(took < Duration::from_secs(SECONDS), "{name}: took {took:?}");
    out
}

/// A located error points into its text.
fn inside(name: &str, e: &Located, text: &str) {
    assert!(
        e.at + e.len <= text.len() && text.is_char_boundary(e.at),
        "{name}: {e:?} outside {} bytes",
        text.len()
    );
    let shown = e.render("f.terms", text);
    assert!(shown.contains("f.terms:"), "{name}: {shown}");
}

fn load_case(name: &str, text: String) {
    let label = name.to_string();
    let result = bounded(name, move || {
        let r = Program::load(&text).map(|_| ());
        (r, text)
    });
    if let (Err(e), text) = &result {
        inside(&label, e, text);
    }
}

fn eval_case(name: &str, term: String) {
    let label = name.to_string();
    let (r, term) = bounded(name, move || {
        let p = Program::load(PEANO).expect("loads");
        // Only the parse error leaves the thread (terms are not `Send`).
        let r = match p.evaluate(&term, Limits::default(), false) {
            Ok(_) | Err(EvalError::Normalise(..)) => None,
            Err(EvalError::Parse(e)) => Some(e),
        };
        (r, term)
    });
    if let Some(e) = r {
        inside(&label, &e, &term);
    }
}

#[test]
fn deep_nesting_in_files() {
    let n = 100_000;
    load_case("open brackets", "(".repeat(n));
    load_case("brackets in a rule", {
        let mut t = String::from(PEANO);
        t.push_str(&format!(
            "Let {}zero{} + y be y.",
            "( ".repeat(n),
            " )".repeat(n)
        ));
        t
    });
    load_case(
        "a deep type",
        format!("Class 'nat'. Element 'x' as nat{}.", " list".repeat(n)),
    );
    load_case(
        "deep type arguments",
        format!("Class 'nat'. Element 'x' nat{} as nat.", " list".repeat(n)),
    );
    load_case(
        "a deep type variable",
        format!("Class 'nat'. Variable 'x' as ?a{}.", " list".repeat(n)),
    );
}

#[test]
fn deep_nesting_in_terms() {
    let n = 100_000;
    eval_case(
        "brackets",
        format!("{}zero{}", "( ".repeat(n), " )".repeat(n)),
    );
    eval_case("successors", format!("{}zero", "s ".repeat(n)));
    eval_case("unclosed", "( ".repeat(n));
    eval_case(
        "verbatim",
        format!("{}zero{}", "<| ".repeat(n), " |>".repeat(n)),
    );
    eval_case(
        "a deep list",
        format!("length ({}[ ])", "zero :: ".repeat(n)),
    );
}

#[test]
fn huge_files() {
    load_case(
        "many declarations",
        "Class 'nat'. Element 'zero' as nat.\n".to_string()
            + &(0..5_000)
                .map(|i| format!("Element 'c{i}' as nat.\n"))
                .collect::<String>(),
    );
    load_case(
        "declarations between rules",
        PEANO.to_string()
            + &(0..3_000)
                .map(|i| format!("Element 'c{i}' as nat.\nLet zero + c{i} be zero.\n"))
                .collect::<String>(),
    );
    load_case(
        "many rules",
        PEANO.to_string()
            + &(0..5_000)
                .map(|_| "Let zero + y be y.\n")
                .collect::<String>(),
    );
    load_case(
        "a long word",
        format!("Class 'nat'. Element '{}' as nat.", "x".repeat(1 << 20)),
    );
    load_case("many strings", format!("Class{}.", " 'a'".repeat(100_000)));
    load_case("a long comment", format!("// {}", "x".repeat(1 << 22)));
    load_case(
        "no end",
        format!(
            "Class 'nat'. Element 'zero' as nat {}",
            "nat ".repeat(100_000)
        ),
    );
    load_case("quotes", "'".repeat(100_001));
    load_case("double quotes", "\"".repeat(100_001));
    load_case("dots", ". ".repeat(100_000));
    // Found by the fuzzer: a comment looked for inside a character of
    // two bytes.
    load_case(
        "multibyte characters",
        "\u{608} x) + y.\u{608}// c.\nVariable 'w' as ?a list.\n\u{608}//".to_string(),
    );
}

#[test]
fn huge_terms() {
    eval_case("many tokens", "zero + ".repeat(50_000) + "zero");
    eval_case(
        "a long quoted string",
        format!("\"{}\"", "x".repeat(1 << 20)),
    );
    eval_case("entities", "&amp;".repeat(100_000));
    // Found by the fuzzer: `?` starts a term type (`? string`) and any
    // token is a string, so a run of them reads in many ways.
    for n in [10, 20, 45, 100, 199] {
        eval_case(
            &format!("{n} question marks"),
            format!("if true then zero else {}(zero)", "?".repeat(n)),
        );
    }
}
