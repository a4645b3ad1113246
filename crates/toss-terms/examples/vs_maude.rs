//! Speed of normalisation against Maude on syntactic rules (Peano
//! addition and multiplication, naive Fibonacci, naive list reversal), one
//! interleaved run on one machine: for each workload and repetition, this
//! crate (memo table on, then off) and then Maude's `reduce` with the same
//! equations. Maude's time is the cpu time it reports for the reduction
//! alone (parsing and start-up excluded), in whole milliseconds: 0 means
//! under a millisecond. Ours is the cpu time of the thread running
//! `normalise` (wall time where Linux's schedstat is missing), a mean over
//! as many runs as take 50 ms. Maude's parser is slow on deeply nested
//! input, which its reported reduction time leaves out.
//!
//! `cargo run -p toss-terms --release --example vs_maude [REPS [NAME]]` (needs
//! `maude` on the path). Prints a table: rewrite steps, median times and
//! rewrites per second (steps / time; for Maude its rewrites over its cpu
//! time).

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
  sort List .
  op nil : -> List [ctor] .
  op cons : Nat List -> List [ctor] .
  op append : List List -> List .
  op rev : List -> List .
  vars X Y : Nat .
  vars L K : List .
  eq plus(zero, Y) = Y .
  eq plus(s(X), Y) = s(plus(X, Y)) .
  eq times(zero, Y) = zero .
  eq times(s(X), Y) = plus(Y, times(X, Y)) .
  eq fib(zero) = zero .
  eq fib(s(zero)) = s(zero) .
  eq fib(s(s(X))) = plus(fib(s(X)), fib(X)) .
  eq append(nil, K) = K .
  eq append(cons(X, L), K) = cons(X, append(L, K)) .
  eq rev(nil) = nil .
  eq rev(cons(X, L)) = append(rev(L), cons(X, nil)) .
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
    let list = Type::sym("list", vec![]);
    sig.add("nil", list.clone(), SymKind::Constructor);
    sig.add(
        "cons",
        Type::fun(vec![nat.clone(), list.clone()], list.clone()),
        SymKind::Constructor,
    );
    sig.add(
        "append",
        Type::fun(vec![list.clone(), list.clone()], list.clone()),
        SymKind::Function,
    );
    sig.add(
        "rev",
        Type::fun(vec![list.clone()], list.clone()),
        SymKind::Function,
    );
    let vtype: VType = [
        ("x".to_string(), nat.clone()),
        ("y".to_string(), nat),
        ("l".to_string(), list.clone()),
        ("k".to_string(), list),
    ]
    .into();
    let mut rules = Rules::new();
    for (l, r) in [
        ("plus(zero, y)", "y"),
        ("plus(s(x), y)", "s(plus(x, y))"),
        ("times(zero, y)", "zero"),
        ("times(s(x), y)", "plus(y, times(x, y))"),
        ("fib(zero)", "zero"),
        ("fib(s(zero))", "s(zero)"),
        ("fib(s(s(x)))", "plus(fib(s(x)), fib(x))"),
        ("append(nil, k)", "k"),
        ("append(cons(x, l), k)", "cons(x, append(l, k))"),
        ("rev(nil)", "nil"),
        ("rev(cons(x, l))", "append(rev(l), cons(x, nil))"),
    ] {
        let l = parse_functional(l, &sig, &vtype).map_err(|e| e.to_string())?;
        let r = parse_functional(r, &sig, &vtype).map_err(|e| e.to_string())?;
        rules.add(Rule::new(&sig, l, &vtype, r, &vtype).map_err(|e| e.to_string())?);
    }
    Ok((sig, rules, vtype))
}

/// Our time in ms and steps for one normalisation: the mean over as many
/// as take 50 ms together (the cpu clock ticks in milliseconds).
fn ours(sig: &Signature, rules: &Rules, t: &Term, memo: bool) -> Result<(f64, u64), String> {
    let limits = Limits {
        max_steps: 100_000_000,
        max_depth: 1_000_000,
        memo,
        ..Limits::default()
    };
    let (wall, cpu) = (Instant::now(), thread_cpu_ns());
    let mut runs = 0u32;
    let mut steps = 0;
    let elapsed_ms = || match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e6,
        _ => wall.elapsed().as_secs_f64() * 1e3,
    };
    while runs == 0 || elapsed_ms() < 50.0 {
        // A new normaliser each time: no memo table or shared term carries
        // over between runs.
        let mut n = Normaliser::new(sig, rules, limits);
        n.normalise(t).map_err(|e| e.to_string())?;
        steps = n.steps();
        runs += 1;
    }
    Ok((elapsed_ms() / f64::from(runs), steps))
}

/// The cpu time of this thread in nanoseconds (Linux), like the cpu time
/// Maude reports: on a shared machine wall time counts the waits too.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
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
        Workload::call("fib", &[15]),
        Workload::call("fib", &[20]),
        Workload::call("fib", &[25]),
        Workload::call("times", &[30, 100]),
        Workload::call("times", &[100, 100]),
        Workload::call("times", &[300, 300]),
        Workload::reverse(500),
        Workload::reverse(1000),
    ];
    println!(
        "{:<16} {:>9} {:>9} {:>9} {:>10} {:>12} {:>9} {:>9} {:>12}",
        "workload",
        "steps",
        "memo ms",
        "steps",
        "no-memo ms",
        "no-memo rw/s",
        "maude rw",
        "maude ms",
        "maude rw/s"
    );
    // An optional second argument keeps the workloads whose name starts
    // with it (for profiling one).
    let only = std::env::args().nth(2).unwrap_or_default();
    for w in workloads.iter().filter(|w| w.name.starts_with(&only)) {
        // Checked against the signature like typed text would be.
        toss_terms::typing::reconstruct(&sig, &w.term, &vtype).map_err(|e| e.to_string())?;
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        let (mut sa, mut sb, mut sc) = (0, 0, 0);
        for _ in 0..reps {
            let (ms, st) = ours(&sig, &rules, &w.term, true)?;
            a.push(ms);
            sa = st;
            let (ms, st) = ours(&sig, &rules, &w.term, false)?;
            b.push(ms);
            sb = st;
            let (ms, rw) = maude(&w.text)?;
            c.push(ms);
            sc = rw;
        }
        let (b, c) = (median(b), median(c));
        let rate = |steps: u64, ms: f64| {
            if ms > 0.0 {
                format!("{:.0}", steps as f64 / ms * 1e3)
            } else {
                "-".to_string()
            }
        };
        println!(
            "{:<16} {:>9} {:>9.2} {:>9} {:>10.2} {:>12} {:>9} {:>9.0} {:>12}",
            w.name,
            sa,
            median(a),
            sb,
            b,
            rate(sb, b),
            sc,
            c,
            rate(sc, c)
        );
    }
    Ok(())
}

/// A term to normalise: its name in the table, the term built directly
/// (numerals and lists nest deeper than the reader's limit for typed
/// text) and the same term as text for Maude.
struct Workload {
    name: String,
    term: Term,
    text: String,
}

impl Workload {
    /// `f(n1, ..., nk)` on numerals.
    fn call(f: &str, numbers: &[usize]) -> Workload {
        let shown: Vec<String> = numbers.iter().map(usize::to_string).collect();
        let texts: Vec<String> = numbers.iter().map(|&n| numeral(n)).collect();
        Workload {
            name: format!("{f}({})", shown.join(", ")),
            term: Term::sym(f, numbers.iter().map(|&n| numeral_term(n)).collect()),
            text: format!("{f}({})", texts.join(", ")),
        }
    }

    /// `rev` of a list of `n` small numerals (0 to 6 repeating, so the
    /// reversed lists are new terms).
    fn reverse(n: usize) -> Workload {
        let items = (0..n).map(|i| i % 7);
        let term = items.clone().rev().fold(Term::sym("nil", vec![]), |l, k| {
            Term::sym("cons", vec![numeral_term(k), l])
        });
        let mut text: String = items.map(|k| format!("cons({}, ", numeral(k))).collect();
        text.push_str("nil");
        text.push_str(&")".repeat(n));
        Workload {
            name: format!("rev({n})"),
            term: Term::sym("rev", vec![term]),
            text: format!("rev({text})"),
        }
    }
}

fn numeral_term(n: usize) -> Term {
    (0..n).fold(Term::sym("zero", vec![]), |t, _| Term::sym("s", vec![t]))
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
