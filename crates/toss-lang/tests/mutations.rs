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

mod arbitrary;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use toss_lang::print_game;

const MUTANTS_PER_SEED: usize = 1000;

/// A tiny deterministic PRNG (xorshift64*), so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Bytes worth inserting: structure, operators, keywords' first letters,
/// NUL, stray continuation bytes and truncated multi-byte sequences.
const INTERESTING: &[&[u8]] = &[
    b"\0",
    b"\xff",
    b"\xc0",
    b"\x80",
    b"\xe2\x88",
    b"\xf0\x9f\x98",
    "∧".as_bytes(),
    "¬".as_bytes(),
    b"[",
    b"]",
    b"(",
    b")",
    b"{",
    b"}",
    b"|",
    b";",
    b",",
    b":",
    b"-",
    b"--",
    b"->",
    b"<-",
    b"<->",
    b"=",
    b"!=",
    b"'",
    b"\"",
    b"\n",
    b" ",
    b"\t",
    b"//",
    b"0",
    b"1e999",
    b"-1e-999",
    b"99999999999999999999999",
    b".",
    b"_opt_",
    b"ex ",
    b"not ",
    b"let ",
    b"tc ",
    b"lfp ",
    b"LOC ",
    b"PLAYER ",
    b"START ",
    b"RULE ",
    b"REL ",
    b"~",
    b"*",
    b"^",
];

fn mutate(rng: &mut XorShift, src: &[u8]) -> Vec<u8> {
    let mut s = src.to_vec();
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let len = s.len();
        match rng.below(8) {
            // Delete a short span.
            0 if len > 0 => {
                let at = rng.below(len);
                let n = (1 + rng.below(8)).min(len - at);
                s.drain(at..at + n);
            }
            // Insert random bytes.
            1 => {
                let at = rng.below(len + 1);
                let n = 1 + rng.below(4);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                s.splice(at..at, bytes);
            }
            // Insert an interesting byte string.
            2 | 3 => {
                let at = rng.below(len + 1);
                let piece = INTERESTING[rng.below(INTERESTING.len())];
                s.splice(at..at, piece.iter().copied());
            }
            // Duplicate a span.
            4 if len > 0 => {
                let at = rng.below(len);
                let n = (1 + rng.below(64)).min(len - at);
                let span: Vec<u8> = s[at..at + n].to_vec();
                let to = rng.below(len + 1);
                s.splice(to..to, span);
            }
            // Truncate.
            5 if len > 0 => s.truncate(rng.below(len)),
            // Swap two tokens.
            6 => swap_tokens(rng, &mut s),
            // Replace one byte.
            7 if len > 0 => {
                let at = rng.below(len);
                s[at] = rng.next() as u8;
            }
            _ => {}
        }
    }
    s
}

/// Swaps two whitespace-separated tokens.
fn swap_tokens(rng: &mut XorShift, s: &mut Vec<u8>) {
    let mut tokens: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, b) in s.iter().enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(st)) => {
                tokens.push((st, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        tokens.push((st, s.len()));
    }
    if tokens.len() < 2 {
        return;
    }
    let i = rng.below(tokens.len());
    let j = rng.below(tokens.len());
    let (a, b) = if tokens[i].0 <= tokens[j].0 {
        (tokens[i], tokens[j])
    } else {
        (tokens[j], tokens[i])
    };
    if a.1 > b.0 {
        return;
    }
    let mut out = Vec::with_capacity(s.len());
    out.extend_from_slice(&s[..a.0]);
    out.extend_from_slice(&s[b.0..b.1]);
    out.extend_from_slice(&s[a.1..b.0]);
    out.extend_from_slice(&s[a.0..a.1]);
    out.extend_from_slice(&s[b.1..]);
    *s = out;
}

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
        let choices: Vec<u32> = (0..600).map(|_| rng.next() as u32).collect();
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
