//! Speed of normalisation against Maude on Peano arithmetic, one
//! interleaved run on one machine: for each workload and repetition, this
//! crate (memo table on, then off) and then Maude's `reduce` with the same
//! equations. Maude's time is the cpu time it reports for the reduction
//! alone (parsing and start-up excluded), in whole milliseconds: 0 means
//! under a millisecond. Ours is the wall time of `normalise`. The inputs
//! are short texts: Maude's parser is slow on deeply nested input, which
//! a wall-time measurement would count.
//!
//! `cargo run -p toss-terms --release --example vs_maude [REPS]` (needs
//! `maude` on the path). Prints a table: rewrite steps and median times.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use toss_terms::normalise::{Limits, Normaliser};
use toss_terms::rewrite::{Rule, Rules};
use toss_terms::term::{Signature, SymKind, Term, VType, parse_functional};
use toss_terms::types::Type;

const MAUDE_MODULE: &str = "
fmod PEANO is
  sort Nat .
  op zero : -> Nat [ctor] .
  op s : Nat -> Nat [ctor] .
  ops plus times : Nat Nat -> Nat .
  op fib : Nat -> Nat .
  vars X Y : Nat .
  eq plus(zero, Y) = Y .
  eq plus(s(X), Y) = s(plus(X, Y)) .
  eq times(zero, Y) = zero .
  eq times(s(X), Y) = plus(Y, times(X, Y)) .
  eq fib(zero) = zero .
  eq fib(s(zero)) = s(zero) .
  eq fib(s(s(X))) = plus(fib(s(X)), fib(X)) .
endfm
";

fn numeral(n: usize) -> String {
    format!("{}zero{}", "s(".repeat(n), ")".repeat(n))
}

fn program() -> Result<(Signature, Rules, VType), String> {
    let nat = Type::sym("nat", vec![]);
    let mut sig = Signature::new();
    sig.add("zero", nat.clone(), SymKind::Constructor);
    sig.add(
        "s",
        Type::fun(vec![nat.clone()], nat.clone()),
        SymKind::Constructor,
    );
    for f in ["plus", "times"] {
        sig.add(
            f,
            Type::fun(vec![nat.clone(), nat.clone()], nat.clone()),
            SymKind::Function,
        );
    }
    sig.add(
        "fib",
        Type::fun(vec![nat.clone()], nat.clone()),
        SymKind::Function,
    );
    let vtype: VType = [("x".to_string(), nat.clone()), ("y".to_string(), nat)].into();
    let mut rules = Rules::new();
    for (l, r) in [
        ("plus(zero, y)", "y"),
        ("plus(s(x), y)", "s(plus(x, y))"),
        ("times(zero, y)", "zero"),
        ("times(s(x), y)", "plus(y, times(x, y))"),
        ("fib(zero)", "zero"),
        ("fib(s(zero))", "s(zero)"),
        ("fib(s(s(x)))", "plus(fib(s(x)), fib(x))"),
    ] {
        let l = parse_functional(l, &sig, &vtype).map_err(|e| e.to_string())?;
        let r = parse_functional(r, &sig, &vtype).map_err(|e| e.to_string())?;
        rules.add(Rule::new(&sig, l, &vtype, r, &vtype).map_err(|e| e.to_string())?);
    }
    Ok((sig, rules, vtype))
}

/// Our time in ms and steps for one normalisation.
fn ours(sig: &Signature, rules: &Rules, t: &Term, memo: bool) -> Result<(f64, u64), String> {
    let limits = Limits {
        max_steps: 100_000_000,
        max_depth: 1_000_000,
        memo,
        ..Limits::default()
    };
    let mut n = Normaliser::new(sig, rules, limits);
    let start = Instant::now();
    n.normalise(t).map_err(|e| e.to_string())?;
    Ok((start.elapsed().as_secs_f64() * 1e3, n.steps()))
}

/// Maude's reported cpu time in ms and rewrites for one reduction.
fn maude(term: &str) -> Result<(f64, u64), String> {
    let input = format!("{MAUDE_MODULE}\nred {term} .\nquit\n");
    let mut child = Command::new("maude")
        .args(["-no-banner", "-no-advise", "-batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run maude: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(input.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    // rewrites: 57 in 0ms cpu (0ms real) (~ rewrites/second)
    let line = text
        .lines()
        .find(|l| l.starts_with("rewrites:"))
        .ok_or_else(|| format!("no `rewrites:` line from maude: {text}"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let rewrites = words
        .get(1)
        .and_then(|w| w.parse().ok())
        .ok_or("rewrites count")?;
    let cpu_ms = words
        .get(3)
        .and_then(|w| w.strip_suffix("ms"))
        .and_then(|w| w.parse().ok())
        .ok_or("cpu time")?;
    Ok((cpu_ms, rewrites))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run() -> Result<(), String> {
    let reps: usize = std::env::args()
        .nth(1)
        .map_or(Ok(5), |a| a.parse().map_err(|_| "REPS must be a number"))?;
    if reps == 0 {
        return Err("REPS must be at least 1".into());
    }
    let (sig, rules, vtype) = program()?;
    let workloads = [
        format!("fib({})", numeral(15)),
        format!("fib({})", numeral(20)),
        format!("times({}, {})", numeral(100), numeral(100)),
        format!("times({}, {})", numeral(30), numeral(100)),
    ];
    println!(
        "{:<18} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "workload", "steps", "memo ms", "steps", "no-memo ms", "maude rw", "maude ms"
    );
    for w in &workloads {
        // The reader's depth limit is for text typed by people.
        let t = build(w, &sig, &vtype)?;
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        let (mut sa, mut sb, mut sc) = (0, 0, 0);
        for _ in 0..reps {
            let (ms, st) = ours(&sig, &rules, &t, true)?;
            a.push(ms);
            sa = st;
            let (ms, st) = ours(&sig, &rules, &t, false)?;
            b.push(ms);
            sb = st;
            let (ms, rw) = maude(w)?;
            c.push(ms);
            sc = rw;
        }
        let name = describe(w);
        println!(
            "{:<18} {:>10} {:>10.2} {:>10} {:>10.2} {:>10} {:>10.0}",
            name,
            sa,
            median(a),
            sb,
            median(b),
            sc,
            median(c)
        );
    }
    Ok(())
}

/// `fib(20)`, `times(100, 100)`: the workload with numerals as numbers.
fn describe(w: &str) -> String {
    let open = w.find('(').unwrap_or(w.len());
    let sizes: Vec<String> = w[open.min(w.len())..]
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split(", ")
        .map(|a| a.matches("s(").count().to_string())
        .collect();
    format!("{}({})", &w[..open], sizes.join(", "))
}

/// Builds `f(numeral, numeral)` terms directly: deeper than the reader's
/// limit for typed text.
fn build(w: &str, sig: &Signature, vtype: &VType) -> Result<Term, String> {
    let open = w.find('(').ok_or("workload")?;
    let f = &w[..open];
    let args: Vec<Term> = w[open + 1..w.len() - 1]
        .split(", ")
        .map(|a| {
            let n = a.matches("s(").count();
            (0..n).fold(Term::sym("zero", vec![]), |t, _| Term::sym("s", vec![t]))
        })
        .collect();
    let t = Term::sym(f, args);
    // Checked against the signature like typed text would be.
    toss_terms::typing::reconstruct(sig, &t, vtype).map_err(|e| e.to_string())?;
    Ok(t)
}

fn main() {
    // Numerals nest thousands deep; normalisation recurses over them.
    let handle = std::thread::Builder::new().stack_size(1 << 30).spawn(run);
    match handle.map(|h| h.join()) {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        _ => {
            eprintln!("error: the benchmark thread failed");
            std::process::exit(1);
        }
    }
}
