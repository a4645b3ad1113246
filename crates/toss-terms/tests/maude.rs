//! Differential test against Maude: random terms of three systems (Peano
//! arithmetic, lists, booleans with comparisons) normalised by this crate
//! and by Maude's `reduce` agree.
//!
//! Each system is one Maude module in `tests/maude/*.maude`; both sides
//! come from that file: Maude reads it as it is, and this test reads its
//! `op`, `var` and `eq` declarations into our signature and rules (sorts
//! as type symbols, `[ctor]` operators as constructors, the others as
//! function names, an equation as a rule, an `[owise]` one after the
//! other rules of its function). Maude's `Bool`, `true`, `false` and
//! `if_then_else_fi` (its module BOOL) stand for the boolean type, its
//! constants and the if-then-else of the basic definitions (spec 2.2.4).
//! The equations are confluent and terminating on ground terms, so the
//! normal form is unique and the order of the rules (ours is first-match)
//! cannot change it, except for `[owise]`, which is tried last by both.
//!
//! Needs the `maude` binary on the path, so it is ignored by default:
//! `cargo test -p toss-terms --release --test maude -- --ignored`. Run so,
//! it fails when Maude is missing; it never passes by skipping.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use toss_terms::decl::names;
use toss_terms::normalise::{Limits, Normaliser};
use toss_terms::rewrite::{Rule, Rules};
use toss_terms::term::{Head, Signature, SymKind, Term, VType, parse_functional};
use toss_terms::types::Type;

const PEANO: &str = include_str!("maude/peano.maude");
const LISTS: &str = include_str!("maude/lists.maude");
const BOOLEANS: &str = include_str!("maude/booleans.maude");

/// An operator of a module: its argument sorts and result sort.
#[derive(Clone, Debug)]
struct Op {
    name: String,
    args: Vec<String>,
    result: String,
    ctor: bool,
}

/// A Maude module read as our signature and rules.
struct System {
    ops: Vec<Op>,
    sig: Signature,
    rules: Rules,
}

/// Our type of a Maude sort.
fn sort_type(sort: &str) -> Type {
    if sort == "Bool" {
        Type::sym(names::BOOLEAN, vec![])
    } else {
        Type::sym(sort, vec![])
    }
}

/// Our symbol of a Maude constant or operator name.
fn our_name(name: &str) -> &str {
    match name {
        "true" => names::TRUE,
        "false" => names::FALSE,
        other => other,
    }
}

/// Maude's name of one of our symbols.
fn maude_name(name: &str) -> &str {
    match name {
        names::TRUE => "true",
        names::FALSE => "false",
        other => other,
    }
}

/// Splits Maude text into tokens: `(`, `)` and `,` alone, other runs of
/// non-space characters as words; `***` comments dropped.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split("***").next().unwrap_or("");
        let mut word = String::new();
        for c in line.chars() {
            if c.is_whitespace() || "(),".contains(c) {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                if !c.is_whitespace() {
                    out.push(c.to_string());
                }
            } else {
                word.push(c);
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

/// Reads a Maude term in prefix notation with `if _ then _ else _ fi`.
fn read_term(toks: &[String], pos: &mut usize, vars: &BTreeMap<String, String>) -> Term {
    let word = toks[*pos].clone();
    *pos += 1;
    if word == "if" {
        let mut parts = vec![read_term(toks, pos, vars)];
        for keyword in ["then", "else"] {
            assert_eq!(toks[*pos], keyword, "if without {keyword}");
            *pos += 1;
            parts.push(read_term(toks, pos, vars));
        }
        assert_eq!(toks[*pos], "fi", "if without fi");
        *pos += 1;
        return Term::sym(names::IF, parts);
    }
    let mut args = Vec::new();
    if toks.get(*pos).map(String::as_str) == Some("(") {
        *pos += 1;
        loop {
            args.push(read_term(toks, pos, vars));
            *pos += 1;
            match toks[*pos - 1].as_str() {
                "," => {}
                ")" => break,
                other => panic!("expected `,` or `)`, found {other}"),
            }
        }
    }
    if vars.contains_key(&word) {
        Term::var(word, args)
    } else {
        Term::sym(our_name(&word), args)
    }
}

/// Reads a module: operators, variables and equations.
fn load(module: &str) -> System {
    let toks = tokens(module);
    let mut ops = Vec::new();
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    let mut equations = Vec::new();
    let mut owise = Vec::new();
    // Statements end with a `.` token.
    let mut start = 0;
    while start < toks.len() {
        let end = toks[start..]
            .iter()
            .position(|t| t == ".")
            .map_or(toks.len(), |n| start + n);
        let stmt = &toks[start..end];
        start = end + 1;
        match stmt.first().map(String::as_str) {
            Some("op" | "ops") => {
                let colon = stmt.iter().position(|t| t == ":").expect("op without :");
                let arrow = stmt.iter().position(|t| t == "->").expect("op without ->");
                let args = stmt[colon + 1..arrow].to_vec();
                let result = stmt[arrow + 1].clone();
                let ctor = stmt[arrow + 2..].iter().any(|t| t.contains("ctor"));
                for name in &stmt[1..colon] {
                    ops.push(Op {
                        name: name.clone(),
                        args: args.clone(),
                        result: result.clone(),
                        ctor,
                    });
                }
            }
            Some("var" | "vars") => {
                let colon = stmt.iter().position(|t| t == ":").expect("var without :");
                for name in &stmt[1..colon] {
                    vars.insert(name.clone(), stmt[colon + 1].clone());
                }
            }
            Some("eq") => {
                let mut pos = 1;
                let lhs = read_term(stmt, &mut pos, &vars);
                assert_eq!(stmt[pos], "=", "eq without =");
                pos += 1;
                let rhs = read_term(stmt, &mut pos, &vars);
                let rest = &stmt[pos..];
                if rest.iter().any(|t| t.contains("owise")) {
                    owise.push((lhs, rhs));
                } else {
                    assert!(rest.is_empty(), "unread: {rest:?}");
                    equations.push((lhs, rhs));
                }
            }
            _ => {}
        }
    }
    let mut sig = Signature::new();
    let boolean = sort_type("Bool");
    sig.add(names::TRUE, boolean.clone(), SymKind::Constructor);
    sig.add(names::FALSE, boolean.clone(), SymKind::Constructor);
    let a = Type::var("a");
    sig.add(
        names::IF,
        Type::fun(vec![boolean, a.clone(), a.clone()], a),
        SymKind::Function,
    );
    for op in &ops {
        let ty = Type::fun(
            op.args.iter().map(|s| sort_type(s)).collect(),
            sort_type(&op.result),
        );
        let kind = if op.ctor {
            SymKind::Constructor
        } else {
            SymKind::Function
        };
        sig.add(op.name.as_str(), ty, kind);
    }
    let vtype: VType = vars
        .iter()
        .map(|(x, sort)| (x.clone(), sort_type(sort)))
        .collect();
    let mut rules = Rules::new();
    for (l, r) in equations.into_iter().chain(owise) {
        let rule = Rule::new(&sig, l.clone(), &vtype, r.clone(), &vtype)
            .unwrap_or_else(|e| panic!("{l} = {r}: {e}"));
        rules.add(rule);
    }
    System { ops, sig, rules }
}

/// A term in Maude's syntax.
fn maude_text(t: &Term) -> String {
    let name = t.head.name();
    if name == names::IF && t.args.len() == 3 {
        return format!(
            "if {} then {} else {} fi",
            maude_text(&t.args[0]),
            maude_text(&t.args[1]),
            maude_text(&t.args[2])
        );
    }
    let mut out = maude_name(name).to_string();
    if !t.args.is_empty() {
        let args: Vec<String> = t.args.iter().map(maude_text).collect();
        out.push('(');
        out.push_str(&args.join(", "));
        out.push(')');
    }
    out
}

/// Maude's results of `reduce` for each term, in order, as text.
fn maude(module: &str, terms: &[String]) -> Vec<String> {
    let mut input = String::from(module);
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
    // Written from another thread: Maude's output could fill its pipe
    // while we write.
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("maude output");
    writer
        .join()
        .expect("writer thread")
        .expect("write to maude");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("Warning") && !stderr.contains("rror"),
        "Maude complains: {stderr}"
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // `result Sort: ...` may wrap over lines for long terms: join them.
    let mut results = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("result ") {
            if let Some(c) = current.take() {
                results.push(c);
            }
            let (_, value) = rest.split_once(": ").expect("result Sort: value");
            current = Some(value.trim().to_string());
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

fn without_space(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
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

    fn numeral(&mut self) -> Term {
        (0..self.next(5)).fold(Term::sym("zero", vec![]), |t, _| Term::sym("s", vec![t]))
    }

    /// A constructor term of a sort: a numeral below 5, a list of up to 5
    /// of them, a boolean.
    fn value(&mut self, sort: &str) -> Term {
        match sort {
            "Nat" => self.numeral(),
            "List" => (0..self.next(6)).fold(Term::sym("nil", vec![]), |l, _| {
                Term::sym("cons", vec![self.numeral(), l])
            }),
            "Bool" => Term::sym(
                if self.next(2) == 0 {
                    names::TRUE
                } else {
                    names::FALSE
                },
                vec![],
            ),
            other => panic!("no values of sort {other}"),
        }
    }

    /// A random ground term of a sort over the functions of `ops`, `depth`
    /// calls deep at most; if-then-else among them.
    fn term(&mut self, ops: &[Op], sort: &str, depth: u32) -> Term {
        let functions: Vec<&Op> = ops.iter().filter(|o| !o.ctor && o.result == sort).collect();
        let pick = self.next(functions.len() as u64 + 2) as usize;
        if depth == 0 || pick > functions.len() {
            return self.value(sort);
        }
        if pick == functions.len() {
            let c = self.term(ops, "Bool", depth - 1);
            let yes = self.term(ops, sort, depth - 1);
            let no = self.term(ops, sort, depth - 1);
            return Term::sym(names::IF, vec![c, yes, no]);
        }
        let op = functions[pick];
        let args = op
            .args
            .iter()
            .map(|s| self.term(ops, s, depth - 1))
            .collect();
        Term::sym(op.name.as_str(), args)
    }
}

/// Normalises each term with us (with the memo table and without it) and
/// with Maude and compares the normal forms as Maude writes them.
fn agree(module: &str, system: &System, terms: &[Term]) {
    let texts: Vec<String> = terms.iter().map(maude_text).collect();
    let expected = maude(module, &texts);
    assert_eq!(expected.len(), texts.len(), "one Maude result per term");
    for ((t, text), m) in terms.iter().zip(&texts).zip(&expected) {
        for memo in [true, false] {
            let limits = Limits {
                memo,
                ..Limits::default()
            };
            let ours = Normaliser::new(&system.sig, &system.rules, limits)
                .normalise(t)
                .unwrap_or_else(|e| panic!("{text}: {e} (Maude: {m}, memo {memo})"));
            assert!(
                ours.term_vars().is_empty() && !has_function(&ours, &system.sig),
                "{text}: our normal form {ours} is not a value (Maude: {m}, memo {memo})"
            );
            assert_eq!(
                without_space(&maude_text(&ours)),
                without_space(m),
                "{text}: ours is {ours}, Maude's {m} (memo {memo})"
            );
        }
    }
}

fn has_function(t: &Term, sig: &Signature) -> bool {
    matches!(&t.head, Head::Sym(f) if sig.is_function(f))
        || t.args.iter().any(|a| has_function(a, sig))
}

/// Random terms of every sort of a system, `n` of them.
fn random_terms(system: &System, seed: u64, n: usize, depth: u32) -> Vec<Term> {
    let mut sorts: Vec<&str> = system.ops.iter().map(|o| o.result.as_str()).collect();
    sorts.sort_unstable();
    sorts.dedup();
    let mut generator = Lcg(seed);
    (0..n)
        .map(|i| generator.term(&system.ops, sorts[i % sorts.len()], depth))
        .collect()
}

/// Peano terms with their values; `None` when some value on the way would
/// exceed [`MAX_VALUE`] (unary numerals that large are slow for both).
fn peano_term(g: &mut Lcg, depth: u32) -> Option<(String, u64)> {
    let leaf = |n: u64| {
        (
            format!("{}zero{}", "s(".repeat(n as usize), ")".repeat(n as usize)),
            n,
        )
    };
    if depth == 0 {
        return Some(leaf(g.next(4)));
    }
    let (text, v) = match g.next(6) {
        0 => {
            let (a, x) = peano_term(g, depth - 1)?;
            (format!("s({a})"), x + 1)
        }
        1 => {
            let ((a, x), (b, y)) = (peano_term(g, depth - 1)?, peano_term(g, depth - 1)?);
            (format!("plus({a}, {b})"), x + y)
        }
        2 => {
            let ((a, x), (b, y)) = (peano_term(g, depth - 1)?, peano_term(g, depth - 1)?);
            (format!("times({a}, {b})"), x * y)
        }
        3 => {
            let (a, x) = peano_term(g, depth - 1)?;
            if x > 12 {
                return None;
            }
            let fib = (0..x).fold((0u64, 1u64), |(f, g), _| (g, f + g)).0;
            (format!("fib({a})"), fib)
        }
        4 => {
            let (a, x) = peano_term(g, depth - 1)?;
            (format!("double({a})"), 2 * x)
        }
        _ => leaf(g.next(4)),
    };
    (v <= MAX_VALUE).then_some((text, v))
}

/// Largest value a generated Peano term or its parts may have.
const MAX_VALUE: u64 = 300;

/// The numeral a term is, if it is one.
fn value(t: &Term) -> Option<u64> {
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

#[test]
#[ignore = "needs the maude binary: run with --ignored"]
fn peano_normal_forms_agree_with_maude() {
    let system = load(PEANO);
    let mut generator = Lcg(2026);
    let mut cases: Vec<(String, u64)> = Vec::new();
    while cases.len() < 300 {
        if let Some(c) = peano_term(&mut generator, 3) {
            cases.push(c);
        }
    }
    let vtype = VType::new();
    let terms: Vec<Term> = cases
        .iter()
        .map(|(text, _)| parse_functional(text, &system.sig, &vtype).expect("term"))
        .collect();
    agree(PEANO, &system, &terms);
    // And the values are right.
    for ((text, v), t) in cases.iter().zip(&terms) {
        let ours = Normaliser::new(&system.sig, &system.rules, Limits::default())
            .normalise(t)
            .expect("normal form");
        assert_eq!(value(&ours), Some(*v), "{text}");
    }
}

#[test]
#[ignore = "needs the maude binary: run with --ignored"]
fn list_normal_forms_agree_with_maude() {
    let system = load(LISTS);
    let terms = random_terms(&system, 22, 400, 4);
    agree(LISTS, &system, &terms);
}

#[test]
#[ignore = "needs the maude binary: run with --ignored"]
fn boolean_normal_forms_agree_with_maude() {
    let system = load(BOOLEANS);
    let terms = random_terms(&system, 7, 400, 4);
    agree(BOOLEANS, &system, &terms);
}

/// The reading of the modules, without Maude: their equations are rules
/// (each of the six conditions holds), the `[owise]` one last, and a few
/// terms normalise as the equations say.
#[test]
fn the_modules_read_as_rules() {
    let lists = load(LISTS);
    let booleans = load(BOOLEANS);
    assert_eq!(load(PEANO).rules.of("plus").len(), 2);
    assert_eq!(lists.rules.of("insert").len(), 2);
    let same = booleans.rules.of("same");
    assert_eq!(same.len(), 2);
    assert_eq!(same[1].rhs().head.name(), names::FALSE);
    let norm = |system: &System, t: Term| {
        Normaliser::new(&system.sig, &system.rules, Limits::default())
            .normalise(&t)
            .map(|n| maude_text(&n))
    };
    let num = |n: usize| (0..n).fold(Term::sym("zero", vec![]), |t, _| Term::sym("s", vec![t]));
    let list = |ns: &[usize]| {
        ns.iter().rev().fold(Term::sym("nil", vec![]), |l, &n| {
            Term::sym("cons", vec![num(n), l])
        })
    };
    assert_eq!(
        norm(&lists, Term::sym("isort", vec![list(&[2, 0, 1])])),
        Ok(maude_text(&list(&[0, 1, 2])))
    );
    assert_eq!(
        norm(&lists, Term::sym("rev", vec![list(&[2, 0, 1])])),
        Ok(maude_text(&list(&[1, 0, 2])))
    );
    assert_eq!(
        norm(&booleans, Term::sym("same", vec![num(2), num(2)])),
        Ok("true".to_string())
    );
    assert_eq!(
        norm(&booleans, Term::sym("max", vec![num(1), num(3)])),
        Ok(maude_text(&num(3)))
    );
    let ite = Term::sym(
        names::IF,
        vec![
            Term::sym("even", vec![num(3)]),
            num(1),
            Term::sym("min", vec![num(4), num(2)]),
        ],
    );
    assert_eq!(
        maude_text(&ite),
        "if even(s(s(s(zero)))) then s(zero) else min(s(s(s(s(zero)))), s(s(zero))) fi"
    );
    assert_eq!(norm(&booleans, ite), Ok(maude_text(&num(2))));
}
