//! Arbitrary bytes into the `.terms` front end and normalisation: the
//! text before the first NUL byte is added, statement by statement, to the
//! Peano and list example (`crates/toss-terms/examples/peano.terms`), each
//! line after it (at most four) is a term to evaluate. Loading must give
//! a program or an error located inside the text; evaluating, a normal
//! form, a normalisation error (step or depth limit, a meta-level error)
//! or a parse error located inside the term; never a panic. A hang is a
//! finding too (`-timeout`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use toss_terms::normalise::Limits;
use toss_terms::program::{EvalError, Program};

const PEANO: &str = include_str!("../../crates/toss-terms/examples/peano.terms");

thread_local! {
    static EXAMPLE: Program = match Program::load(PEANO) {
        Ok(p) => p,
        Err(e) => panic!("the example does not load: {e:?}"),
    };
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (file, terms) = text.split_once('\0').unwrap_or((text, ""));
    // The example read once (libFuzzer runs one input at a time).
    let mut program = EXAMPLE.with(Clone::clone);
    if let Err(e) = program.add_statements(file, 0) {
        assert!(
            e.at + e.len <= file.len() && file.is_char_boundary(e.at),
            "error outside the file ({} bytes): {e:?}",
            file.len()
        );
        let _ = e.render("fuzz.terms", file);
    }
    let limits = Limits {
        max_steps: 5_000,
        ..Limits::default()
    };
    for (i, term) in terms.lines().take(4).enumerate() {
        // The first traced: the trace shows each step in the user's syntax.
        match program.evaluate(term, limits, i == 0) {
            Ok(e) => {
                let _ = program.parse_term(&e.normal_form, 0);
            }
            Err(EvalError::Parse(e)) => {
                assert!(
                    e.at + e.len <= term.len() && term.is_char_boundary(e.at),
                    "error outside the term ({} bytes): {e:?}",
                    term.len()
                );
                let _ = e.render("<term>", term);
            }
            Err(EvalError::Normalise(e, _)) => {
                let _ = program.describe(&e);
            }
        }
    }
});
