//! Payoffs that are never finite: interval arithmetic over a payoff term
//! finds the parts that are infinite or NaN in every state where they are
//! evaluated (a literal overflowing to infinity, a division by a divisor
//! that is always 0, an overflow of every possible value, the square root
//! of a number that is always negative).
//!
//! Only what holds in every state is an error: a divisor whose interval
//! merely contains 0 (`1 / Sum (x | Q(x) : 1)`) may never reach it, and the
//! language has no conditional to guard it with, so rejecting it would
//! reject valid games. The interpreter and the generated code report a
//! payoff that turns out infinite or NaN at run time as a fault of the play
//! (`Game::fault`) instead. The intervals are those of
//! `toss_core::ir::bounds` (characteristic functions in `[0, 1]`, constants
//! themselves, end-points combined), here over the syntax tree so that the
//! error points at the offending part.

use crate::ast::*;
use crate::diagnostic::Diagnostic;

use super::Checker;

/// What the analysis knows of a term's values over all states.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Values {
    /// No finite bound found (function values, aggregates, real variables
    /// of quantifiers) or a value that may be non-finite only sometimes.
    Unknown,
    /// Every value lies in `[lo, hi]`, both finite.
    Within(f64, f64),
}

/// The interval of `xs` (end-point combinations of an operation monotone
/// on each argument), or why every value is non-finite, or `Unknown` when
/// only some are.
fn hull(xs: &[f64]) -> Result<Values, &'static str> {
    if xs.iter().all(|x| x.is_finite()) {
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        return Ok(Values::Within(lo, hi));
    }
    // All end-points beyond the largest float on one side: every value in
    // between is too.
    if xs.iter().all(|&x| x == f64::INFINITY) || xs.iter().all(|&x| x == f64::NEG_INFINITY) {
        return Err("every value of this term overflows to infinity");
    }
    if xs.iter().all(|x| x.is_nan()) {
        return Err("this term is NaN (not a number) in every state");
    }
    Ok(Values::Unknown)
}

impl Checker<'_> {
    /// Reports the parts of payoff `t` that are infinite or NaN whenever
    /// they are evaluated (see the module documentation).
    pub(super) fn payoff_finite(&mut self, t: &Term) {
        self.values(t, &mut Vec::new());
    }

    /// The values of `t`; `env` holds the values of the `let`-bound real
    /// variables in scope, innermost last. A part found never finite is
    /// reported and counts as `Unknown`, so one error does not cascade.
    fn values(&mut self, t: &Term, env: &mut Vec<(String, Values)>) -> Values {
        use Values::*;
        let never_finite = |c: &mut Self, why: &str| {
            c.err(
                Diagnostic::new(format!("payoff never finite: {why}"), t.span.clone()).with_note(
                    "a payoff must be a finite number in every state; \
                         an infinite or NaN payoff cannot be compared or averaged",
                ),
            );
            Unknown
        };
        let combine = |c: &mut Self, xs: &[f64]| match hull(xs) {
            Ok(v) => v,
            Err(why) => never_finite(c, why),
        };
        match &t.kind {
            TermKind::Num(x) if x.is_finite() => Within(*x, *x),
            TermKind::Num(_) => never_finite(
                self,
                "this number overflows to infinity (the largest 64-bit float is about 1.8e308)",
            ),
            TermKind::Var(v) => env
                .iter()
                .rev()
                .find(|(n, _)| *n == v.name)
                .map_or(Unknown, |(_, b)| *b),
            TermKind::Fun { .. } | TermKind::Min { .. } => Unknown,
            TermKind::Char(_) => Within(0.0, 1.0),
            TermKind::Neg(a) => match self.values(a, env) {
                Within(lo, hi) => Within(-hi, -lo),
                Unknown => Unknown,
            },
            TermKind::Add(a, b) | TermKind::Sub(a, b) | TermKind::Mul(a, b) => {
                let (va, vb) = (self.values(a, env), self.values(b, env));
                let (Within(al, ah), Within(bl, bh)) = (va, vb) else {
                    return Unknown;
                };
                let xs = match &t.kind {
                    TermKind::Add(..) => vec![al + bl, ah + bh],
                    TermKind::Sub(..) => vec![al - bh, ah - bl],
                    _ => vec![al * bl, al * bh, ah * bl, ah * bh],
                };
                combine(self, &xs)
            }
            TermKind::Div(a, b) => {
                let (va, vb) = (self.values(a, env), self.values(b, env));
                match (va, vb) {
                    // x / 0 is an infinity, or NaN for x = 0: never finite.
                    (_, Within(0.0, 0.0)) => {
                        never_finite(self, "division by zero: the divisor is always 0")
                    }
                    (Within(al, ah), Within(bl, bh)) if bl > 0.0 || bh < 0.0 => {
                        combine(self, &[al / bl, al / bh, ah / bl, ah / bh])
                    }
                    _ => Unknown,
                }
            }
            TermKind::Pow(a, b) => {
                let (va, vb) = (self.values(a, env), self.values(b, env));
                match (va, vb) {
                    (Within(al, ah), Within(k, k2)) if al == ah && k == k2 => {
                        combine(self, &[al.powf(k)])
                    }
                    // A natural exponent: x^k is monotone on each side of
                    // 0, so the end-points and 0 bound it.
                    (Within(al, ah), Within(k, k2))
                        if k == k2 && k >= 0.0 && k.fract() == 0.0 && k <= 64.0 =>
                    {
                        if al < 0.0 && ah > 0.0 {
                            // 0^k too (1 when k = 0), as toss_core's bounds.
                            let (x, y, z) = (al.powf(k), ah.powf(k), 0.0f64.powf(k));
                            if x.is_finite() && y.is_finite() {
                                Within(x.min(y).min(z), x.max(y).max(z))
                            } else {
                                Unknown
                            }
                        } else {
                            combine(self, &[al.powf(k), ah.powf(k)])
                        }
                    }
                    _ => Unknown,
                }
            }
            TermKind::Sqrt(a) => self.root(t, 2, a, env),
            TermKind::Root(n, a) => self.root(t, n.value, a, env),
            TermKind::Sum { body, .. } | TermKind::Product { body, .. } => {
                // The body is checked; the number of terms is not known
                // here (toss_core::ir::bounds counts the universe).
                self.values(body, env);
                Unknown
            }
            TermKind::Let { var, value, body } => {
                let v = self.values(value, env);
                env.push((var.name.clone(), v));
                let r = self.values(body, env);
                env.pop();
                r
            }
        }
    }

    /// The `n`-th root of `a` as the interpreter computes it: odd roots
    /// keep the sign, even roots of a negative number are NaN.
    fn root(&mut self, t: &Term, n: u32, a: &Term, env: &mut Vec<(String, Values)>) -> Values {
        let Values::Within(lo, hi) = self.values(a, env) else {
            return Values::Unknown;
        };
        if n == 0 {
            return Values::Unknown;
        }
        let r = |x: f64| {
            if x < 0.0 {
                -(-x).powf(1.0 / f64::from(n))
            } else {
                x.powf(1.0 / f64::from(n))
            }
        };
        if n % 2 == 1 {
            return Values::Within(r(lo), r(hi));
        }
        if hi < 0.0 {
            self.err(
                Diagnostic::new(
                    "payoff never finite: an even root of a number that is always negative is NaN",
                    t.span.clone(),
                )
                .with_note("a payoff must be a finite number in every state"),
            );
            return Values::Unknown;
        }
        if lo < 0.0 {
            // NaN only in the states where the radicand is negative.
            return Values::Unknown;
        }
        Values::Within(r(lo), r(hi))
    }
}
