//! An interpreter for the programs [`crate::program`] emits, read back
//! from their text, so that tests check the emitted program itself.
//!
//! The fragment: binary predicates `p(T,V)` where `T` is a natural in
//! unary (`0`, `s(...)`) or `s^k` of a variable, and `V` an integer or a
//! variable; a clause is a fact or has one body atom `q(s^j(N),V)` whose
//! second argument is the head's variable `V`. `%` starts a comment.
//! Anything else is refused with the line it is on. A query `p(n,V)`
//! with `V` free is answered as Prolog answers it first: clauses in
//! order, depth first. Answers are tabled per `(p, n)` (a cache of the
//! answers a little below the query's `n`: increasing queries reuse
//! them, and the table stays bounded), and the resolution runs on
//! an explicit stack, so `n` in the millions neither recomputes long
//! chains nor overflows the call stack. A resolution deeper than `n`
//! plus the number of clauses is stopped: every step of an emitted
//! program strips an `s`, and one that loops would otherwise grow the
//! stack without end.

use std::collections::HashMap;

use crate::program::Val;

/// The first argument: `s^succs(0)` or `s^succs(Var)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Nat {
    succs: u64,
    var: bool,
}

/// The second argument.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Arg {
    Int(u32),
    Var(String),
}

#[derive(Clone, Debug)]
struct Clause {
    nat: Nat,
    /// The head's second argument; in a rule, a variable the body shares.
    val: Arg,
    /// The body atom: its predicate and first argument.
    body: Option<(usize, Nat)>,
}

/// A parsed program.
#[derive(Clone, Debug)]
pub struct Program {
    names: Vec<String>,
    clauses: Vec<Vec<Clause>>,
    memo: HashMap<(usize, u64), Option<Val>>,
}

/// The most tabled answers before the table is pruned.
const MEMO_LIMIT: usize = 1 << 20;

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn line(&self) -> usize {
        1 + self.src[..self.pos].iter().filter(|&&b| b == b'\n').count()
    }

    fn error(&self, what: &str) -> String {
        format!("line {}: {what}", self.line())
    }

    fn skip(&mut self) {
        while self.pos < self.src.len() {
            match self.src[self.pos] {
                b'%' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b if b.is_ascii_whitespace() => self.pos += 1,
                _ => break,
            }
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip();
        if self.src[self.pos..].starts_with(s.as_bytes()) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{s}`")))
        }
    }

    fn word(&mut self) -> Result<String, String> {
        self.skip();
        let start = self.pos;
        while self.pos < self.src.len()
            && (self.src[self.pos].is_ascii_alphanumeric() || self.src[self.pos] == b'_')
        {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error("expected a name or a number"));
        }
        Ok(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
    }

    /// `0`, a variable, or `s(...)` of one; returns the variable's name.
    fn nat(&mut self) -> Result<(Nat, Option<String>), String> {
        let w = self.word()?;
        if w == "s" {
            self.expect("(")?;
            let (inner, var) = self.nat()?;
            self.expect(")")?;
            return Ok((
                Nat {
                    succs: inner.succs + 1,
                    var: inner.var,
                },
                var,
            ));
        }
        if w == "0" {
            return Ok((
                Nat {
                    succs: 0,
                    var: false,
                },
                None,
            ));
        }
        if is_var(&w) {
            return Ok((
                Nat {
                    succs: 0,
                    var: true,
                },
                Some(w),
            ));
        }
        Err(self.error(&format!(
            "`{w}` is not 0, s(...) or a variable (outside the fragment)"
        )))
    }

    fn arg(&mut self) -> Result<Arg, String> {
        let w = self.word()?;
        if is_var(&w) {
            return Ok(Arg::Var(w));
        }
        w.parse()
            .map(Arg::Int)
            .map_err(|_| self.error(&format!("`{w}` is not an integer or a variable")))
    }

    /// `name(nat,arg)`.
    fn atom(&mut self) -> Result<(String, Nat, Option<String>, Arg), String> {
        let name = self.word()?;
        if is_var(&name) || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.error(&format!("`{name}` is not a predicate name")));
        }
        self.expect("(")?;
        let (nat, var) = self.nat()?;
        self.expect(",")?;
        let arg = self.arg()?;
        self.expect(")")?;
        Ok((name, nat, var, arg))
    }
}

fn is_var(w: &str) -> bool {
    w.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
}

impl Program {
    /// Parses a program of the fragment (module doc).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut p = Parser {
            src: text.as_bytes(),
            pos: 0,
        };
        let mut names: Vec<String> = Vec::new();
        let index = |names: &mut Vec<String>, n: &str| match names.iter().position(|x| x == n) {
            Some(i) => i,
            None => {
                names.push(n.to_string());
                names.len() - 1
            }
        };
        let mut raw: Vec<(usize, Clause)> = Vec::new();
        loop {
            p.skip();
            if p.pos == p.src.len() {
                break;
            }
            let (name, nat, var, val) = p.atom()?;
            let head = index(&mut names, &name);
            let body = if p.eat(":-") {
                let (bname, bnat, bvar, bval) = p.atom()?;
                if bnat.var && bvar != var {
                    return Err(p.error("the body's first argument must use the head's variable"));
                }
                match (&val, &bval) {
                    (Arg::Var(a), Arg::Var(b)) if a == b => {}
                    _ => {
                        return Err(p.error(
                            "a rule's second argument must be one variable in head and body",
                        ));
                    }
                }
                Some((index(&mut names, &bname), bnat))
            } else {
                None
            };
            p.expect(".")?;
            raw.push((head, Clause { nat, val, body }));
        }
        let mut clauses = vec![Vec::new(); names.len()];
        for (head, c) in raw {
            clauses[head].push(c);
        }
        Ok(Program {
            names,
            clauses,
            memo: HashMap::new(),
        })
    }

    /// The first answer `V` of the query `pred(n,V)`, `Ok(None)` when it
    /// fails; an error for an unknown predicate or a resolution deeper
    /// than the bound.
    pub fn query(&mut self, pred: &str, n: u64) -> Result<Option<Val>, String> {
        let Some(p) = self.names.iter().position(|x| x == pred) else {
            return Err(format!("no predicate `{pred}` in the program"));
        };
        // Only answers at most `window` below the query are tabled, so
        // the table stays within MEMO_LIMIT / 2 after pruning.
        let window = (MEMO_LIMIT / (2 * self.names.len().max(1))) as u64;
        if self.memo.len() > MEMO_LIMIT {
            self.memo.retain(|&(_, m), _| m.saturating_add(window) >= n);
        }
        let query_n = n;
        let clause_count: usize = self.clauses.iter().map(Vec::len).sum();
        let max_depth = usize::try_from(n)
            .unwrap_or(usize::MAX)
            .saturating_add(clause_count + 1);
        // Frames: (predicate, n, next clause to try).
        let mut stack: Vec<(usize, u64, usize)> = vec![(p, n, 0)];
        let mut returned: Option<Option<Val>> = None;
        while let Some(&mut (pred, n, ref mut next)) = stack.last_mut() {
            let result = if let Some(r) = returned.take() {
                if r.is_some() {
                    Some(r)
                } else {
                    // The body of clause `next` failed: try the one after.
                    *next += 1;
                    None
                }
            } else {
                self.memo.get(&(pred, n)).copied()
            };
            let result = match result {
                Some(r) => Some(r),
                None => {
                    let mut found = None;
                    let mut call = None;
                    let clauses = &self.clauses[pred];
                    while *next < clauses.len() {
                        let c = &clauses[*next];
                        let fits = if c.nat.var {
                            n >= c.nat.succs
                        } else {
                            n == c.nat.succs
                        };
                        if fits {
                            match c.body {
                                None => {
                                    found = Some(Some(match c.val {
                                        Arg::Int(k) => Val::Int(k),
                                        Arg::Var(_) => Val::Any,
                                    }));
                                }
                                Some((q, bnat)) => {
                                    let rest = n - c.nat.succs;
                                    let arg = if bnat.var { rest } else { 0 };
                                    call = Some((q, arg.saturating_add(bnat.succs)));
                                }
                            }
                            break;
                        }
                        *next += 1;
                    }
                    match (found, call) {
                        (Some(r), _) => Some(r),
                        (None, Some((q, m))) => {
                            if stack.len() >= max_depth {
                                return Err(format!(
                                    "no answer to {pred}({query_n},_) within {max_depth} nested calls",
                                    pred = self.names[p]
                                ));
                            }
                            stack.push((q, m, 0));
                            None
                        }
                        (None, None) => Some(None),
                    }
                }
            };
            if let Some(r) = result {
                if n.saturating_add(window) >= query_n {
                    self.memo.insert((pred, n), r);
                }
                stack.pop();
                returned = Some(r);
            }
        }
        Ok(returned.flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "
        det_win(0,M).          % the seed's final program
        det_win(s(s(N)),M) :- new3(N,M).
        new3(0,1).
        new3(s(N),M) :- new4(N,M).
        new4(0,2).
        new4(s(s(N)),M) :- new3(N,M).
    ";

    #[test]
    fn runs_the_seeds_program() {
        let mut p = Program::parse(SEED).unwrap();
        let answers: Vec<_> = (0..8).map(|n| p.query("det_win", n).unwrap()).collect();
        use Val::*;
        assert_eq!(
            answers,
            [
                Some(Any),
                None,
                Some(Int(1)),
                Some(Int(2)),
                None,
                Some(Int(1)),
                Some(Int(2)),
                None
            ]
        );
        // Cold, deep: the stack is a vector.
        let mut cold = Program::parse(SEED).unwrap();
        assert_eq!(cold.query("det_win", 3_000_000).unwrap(), Some(Int(2)));
    }

    #[test]
    fn backtracks_over_a_failing_body() {
        let mut p = Program::parse("p(s(N),V) :- q(N,V).\np(N,7).\nq(0,1).").unwrap();
        assert_eq!(p.query("p", 1).unwrap(), Some(Val::Int(1)));
        assert_eq!(p.query("p", 2).unwrap(), Some(Val::Int(7)));
    }

    #[test]
    fn refuses_what_is_outside_the_fragment() {
        assert!(Program::parse("p(f(X),1).").is_err());
        assert!(Program::parse("p(N,1) :- q(N,1).").is_err());
        assert!(Program::parse("p(N,M) :- q(K,M).").is_err());
        assert!(Program::parse("p(0,1)").is_err());
        let mut p = Program::parse("p(N,M) :- p(s(N),M).").unwrap();
        assert!(p.query("p", 0).is_err());
        assert!(p.query("q", 0).is_err());
    }
}
