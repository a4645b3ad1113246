//! Differential test against Maude: random Peano terms normalised by this
//! crate and by Maude's `reduce` agree. Maude's equations are confluent
//! and terminating here, so the normal form is unique and the order of
//! the rules (ours is first-match) cannot change it.
//!
//! Needs the `maude` binary on the path, so it is ignored by default:
//! `cargo test -p toss-terms --release --test maude -- --ignored`. Run so,
//! it fails when Maude is missing; it never passes by skipping.

use std::io::Write;
use std::process::{Command, Stdio};

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
  op double : Nat -> Nat .
  vars X Y : Nat .
  eq plus(zero, Y) = Y .
  eq plus(s(X), Y) = s(plus(X, Y)) .
  eq times(zero, Y) = zero .
  eq times(s(X), Y) = plus(Y, times(X, Y)) .
  eq fib(zero) = zero .
  eq fib(s(zero)) = s(zero) .
  eq fib(s(s(X))) = plus(fib(s(X)), fib(X)) .
  eq double(X) = plus(X, X) .
endfm
";

const RULES: [(&str, &str); 8] = [
    ("plus(zero, y)", "y"),
    ("plus(s(x), y)", "s(plus(x, y))"),
    ("times(zero, y)", "zero"),
    ("times(s(x), y)", "plus(y, times(x, y))"),
    ("fib(zero)", "zero"),
    ("fib(s(zero))", "s(zero)"),
    ("fib(s(s(x)))", "plus(fib(s(x)), fib(x))"),
    ("double(x)", "plus(x, x)"),
];

fn program() -> (Signature, Rules, VType) {
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
    for f in ["fib", "double"] {
        sig.add(
            f,
            Type::fun(vec![nat.clone()], nat.clone()),
            SymKind::Function,
        );
    }
    let vtype: VType = [("x".to_string(), nat.clone()), ("y".to_string(), nat)].into();
    let mut rules = Rules::new();
    for (l, r) in RULES {
        let l = parse_functional(l, &sig, &vtype).expect("lhs");
        let r = parse_functional(r, &sig, &vtype).expect("rhs");
        rules.add(Rule::new(&sig, l, &vtype, r, &vtype).expect("rule"));
    }
    (sig, rules, vtype)
}

/// A small deterministic generator (no dependency needed for a test).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    /// A term and its value; `None` when some value on the way would
    /// exceed [`MAX_VALUE`] (unary numerals that large are slow for both).
    fn term(&mut self, depth: u32) -> Option<(String, u64)> {
        let leaf = |n: u64| {
            (
                format!("{}zero{}", "s(".repeat(n as usize), ")".repeat(n as usize)),
                n,
            )
        };
        if depth == 0 {
            return Some(leaf(self.next(4)));
        }
        let (text, v) = match self.next(6) {
            0 => {
                let (a, x) = self.term(depth - 1)?;
                (format!("s({a})"), x + 1)
            }
            1 => {
                let ((a, x), (b, y)) = (self.term(depth - 1)?, self.term(depth - 1)?);
                (format!("plus({a}, {b})"), x + y)
            }
            2 => {
                let ((a, x), (b, y)) = (self.term(depth - 1)?, self.term(depth - 1)?);
                (format!("times({a}, {b})"), x * y)
            }
            3 => {
                let (a, x) = self.term(depth - 1)?;
                if x > 12 {
                    return None;
                }
                let fib = (0..x).fold((0u64, 1u64), |(f, g), _| (g, f + g)).0;
                (format!("fib({a})"), fib)
            }
            4 => {
                let (a, x) = self.term(depth - 1)?;
                (format!("double({a})"), 2 * x)
            }
            _ => leaf(self.next(4)),
        };
        (v <= MAX_VALUE).then_some((text, v))
    }
}

/// Largest value a generated term or its parts may have.
const MAX_VALUE: u64 = 300;

/// Maude's results of `reduce` for each term, in order.
fn maude(terms: &[String]) -> Vec<String> {
    let mut input = String::from(MAUDE_MODULE);
    for t in terms {
        input.push_str(&format!("red {t} .\n"));
    }
    input.push_str("quit\n");
    let mut child = Command::new("maude")
        .args(["-no-banner", "-no-advise", "-batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Maude must be installed (`maude` on the path) for this test");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write to maude");
    let out = child.wait_with_output().expect("maude output");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // `result Nat: ...` may wrap over lines for long terms: join them.
    let mut results = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("result Nat: ") {
            if let Some(c) = current.take() {
                results.push(c);
            }
            current = Some(rest.trim().to_string());
        } else if let Some(c) = current.as_mut() {
            if line.starts_with("====") || line.starts_with("Bye") || line.starts_with("reduce") {
                results.push(current.take().unwrap_or_default());
            } else {
                c.push_str(line.trim());
            }
        }
    }
    if let Some(c) = current {
        results.push(c);
    }
    results
}

/// The numeral a term is, if it is one (Maude and we may both print deep
/// numerals; comparing numbers avoids the reader's depth limit).
fn value(t: &Term) -> Option<usize> {
    let mut n = 0;
    let mut cur = t;
    loop {
        match (cur.head.name(), cur.args.as_slice()) {
            ("zero", []) => return Some(n),
            ("s", [inner]) => {
                n += 1;
                cur = inner;
            }
            _ => return None,
        }
    }
}

fn maude_value(text: &str) -> Option<usize> {
    let t = text.trim();
    let n = t.matches("s(").count();
    (t == format!("{}zero{}", "s(".repeat(n), ")".repeat(n))).then_some(n)
}

#[test]
#[ignore = "needs the maude binary: run with --ignored"]
fn normal_forms_agree_with_maude() {
    let (sig, rules, vtype) = program();
    let mut generator = Lcg(2026);
    let mut cases: Vec<(String, u64)> = Vec::new();
    while cases.len() < 300 {
        if let Some(c) = generator.term(3) {
            cases.push(c);
        }
    }
    let texts: Vec<String> = cases.iter().map(|(t, _)| t.clone()).collect();
    let expected = maude(&texts);
    assert_eq!(expected.len(), texts.len(), "one Maude result per term");
    for ((text, value_by_arithmetic), m) in cases.iter().zip(&expected) {
        let t = parse_functional(text, &sig, &vtype).expect("term");
        let ours = Normaliser::new(&sig, &rules, Limits::default())
            .normalise(&t)
            .unwrap_or_else(|e| panic!("{text}: {e} (Maude: {m})"));
        assert_eq!(value(&ours), maude_value(m), "{text}: Maude says {m}");
        assert_eq!(value(&ours), Some(*value_by_arithmetic as usize), "{text}");
    }
}
