//! Bounds of payoffs: an interval that every payoff term of a game stays
//! in, whatever the state, found by interval arithmetic on the terms.
//!
//! UCT needs the payoff range Delta (spec 3.1: the exploration term scales
//! with it) and a heuristic mapped to payoffs must stay within the range.
//! `:(phi)` is 0 or 1, constants are themselves, arithmetic combines
//! intervals, and a `Sum` or `Product` over `k` element variables has at
//! most `n^k` terms when no rule creates elements (`n` the size of the
//! starting structure, which deletions only shrink). Function values, real
//! variables and `min` carry no bound, and neither does a division whose
//! divisor may be 0: a game whose payoffs use them has no bound here.

use super::{Game, RealExpr};

/// A closed interval `[lo, hi]` of reals that a term stays in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub lo: f64,
    pub hi: f64,
}

impl Bounds {
    fn point(x: f64) -> Bounds {
        Bounds { lo: x, hi: x }
    }

    /// The least interval holding all of `xs` (finite ones only).
    fn hull(xs: &[f64]) -> Option<Bounds> {
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo.is_finite() && hi.is_finite()).then_some(Bounds { lo, hi })
    }

    fn union(self, other: Bounds) -> Bounds {
        Bounds {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

/// The least interval containing every payoff of every player in every
/// location of `game`, or `None` when some payoff term has no bound this
/// analysis can find.
pub fn payoff_bounds(game: &Game) -> Option<Bounds> {
    let universe = universe_bound(game);
    let mut all: Option<Bounds> = None;
    for loc in &game.locations {
        for pl in &loc.players {
            let b = term_bounds(&pl.payoff, universe, &mut Vec::new())?;
            all = Some(all.map_or(b, |a| a.union(b)));
        }
    }
    all
}

/// The most elements a state of `game` can have: the count of the starting
/// structure (or of the saved play's, if larger) when no rule creates
/// elements (a right-side element that no left element is substituted
/// by), else unknown.
fn universe_bound(game: &Game) -> Option<usize> {
    let model = game.model.as_ref().map_or(0, |m| m.num_elements());
    (!creates_elements(game)).then(|| game.start.num_elements().max(model))
}

/// Whether some rule of `game` creates elements: a right-side element that
/// no left element is substituted by.
pub fn creates_elements(game: &Game) -> bool {
    game.rules.iter().any(|r| {
        r.rhs
            .elements
            .iter()
            .any(|e| !r.map.iter().any(|(rhs, _)| rhs == e))
    })
}

/// Bounds of `t`; `env` holds the bounds of the `let`-bound real variables
/// in scope, innermost last.
fn term_bounds(
    t: &RealExpr,
    universe: Option<usize>,
    env: &mut Vec<(String, Bounds)>,
) -> Option<Bounds> {
    let mut sub = |t: &RealExpr| term_bounds(t, universe, env);
    Some(match t {
        RealExpr::Const(c) if c.is_finite() => Bounds::point(*c),
        RealExpr::Const(_) => return None,
        RealExpr::Char(_) => Bounds { lo: 0.0, hi: 1.0 },
        RealExpr::Neg(a) => {
            let a = sub(a)?;
            Bounds {
                lo: -a.hi,
                hi: -a.lo,
            }
        }
        RealExpr::Add(a, b) => {
            let (a, b) = (sub(a)?, sub(b)?);
            Bounds::hull(&[a.lo + b.lo, a.hi + b.hi])?
        }
        RealExpr::Sub(a, b) => {
            let (a, b) = (sub(a)?, sub(b)?);
            Bounds::hull(&[a.lo - b.hi, a.hi - b.lo])?
        }
        RealExpr::Mul(a, b) => {
            let (a, b) = (sub(a)?, sub(b)?);
            Bounds::hull(&[a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])?
        }
        RealExpr::Div(a, b) => {
            let (a, b) = (sub(a)?, sub(b)?);
            if b.lo <= 0.0 && b.hi >= 0.0 {
                return None;
            }
            Bounds::hull(&[a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi])?
        }
        RealExpr::Pow(a, b) => {
            let (a, b) = (sub(a)?, sub(b)?);
            // Only a constant natural exponent: x^k is monotone on each
            // side of 0, so the end-points and 0 bound it.
            let k = b.lo;
            if b.lo != b.hi || k < 0.0 || k.fract() != 0.0 || k > 64.0 {
                return None;
            }
            let mut xs = vec![a.lo.powf(k), a.hi.powf(k)];
            if a.lo < 0.0 && a.hi > 0.0 {
                xs.push(0.0f64.powf(k));
            }
            Bounds::hull(&xs)?
        }
        RealExpr::Root(n, a) => {
            let a = sub(a)?;
            if a.lo < 0.0 {
                return None;
            }
            let r = |x: f64| x.powf(1.0 / f64::from(*n));
            Bounds::hull(&[r(a.lo), r(a.hi)])?
        }
        RealExpr::Sum { vars, body, .. } => {
            let b = sub(body)?;
            let terms = max_terms(universe?, vars.len())?;
            // Any number of terms from none (the sum 0) to `terms`.
            Bounds::hull(&[0.0, terms * b.lo, terms * b.hi])?
        }
        RealExpr::Product { vars, body, .. } => {
            let b = sub(body)?;
            let terms = max_terms(universe?, vars.len())?;
            let m = b.lo.abs().max(b.hi.abs());
            if b.lo >= 0.0 && b.hi <= 1.0 {
                // Factors in [0, 1]: the empty product is 1.
                Bounds { lo: 0.0, hi: 1.0 }
            } else if m <= 1.0 {
                Bounds { lo: -1.0, hi: 1.0 }
            } else {
                let big = m.powf(terms);
                if b.lo >= 0.0 {
                    Bounds::hull(&[0.0, big.max(1.0)])?
                } else {
                    Bounds::hull(&[-big, big])?
                }
            }
        }
        RealExpr::Let { var, value, body } => {
            let v = sub(value)?;
            env.push((var.clone(), v));
            let b = term_bounds(body, universe, env);
            env.pop();
            b?
        }
        RealExpr::Var(name) => env.iter().rev().find(|(v, _)| v == name)?.1,
        RealExpr::Fun { .. } | RealExpr::Derivative { .. } | RealExpr::Min { .. } => return None,
    })
}

/// `n^k` as a float, `None` if it overflows.
fn max_terms(n: usize, k: usize) -> Option<f64> {
    let t = (n as f64).powi(i32::try_from(k).ok()?);
    t.is_finite().then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Formula;

    fn c(x: f64) -> Box<RealExpr> {
        Box::new(RealExpr::Const(x))
    }

    fn chr() -> Box<RealExpr> {
        Box::new(RealExpr::Char(Box::new(Formula::True)))
    }

    fn bounds(t: &RealExpr, n: Option<usize>) -> Option<(f64, f64)> {
        term_bounds(t, n, &mut Vec::new()).map(|i| (i.lo, i.hi))
    }

    #[test]
    fn win_minus_loss_is_within_one() {
        let t = RealExpr::Sub(chr(), chr());
        assert_eq!(bounds(&t, None), Some((-1.0, 1.0)));
        let t = RealExpr::Mul(c(100.0), chr());
        assert_eq!(bounds(&t, None), Some((0.0, 100.0)));
        let t = RealExpr::Add(c(50.0), RealExpr::Neg(chr()).into());
        assert_eq!(bounds(&t, None), Some((49.0, 50.0)));
    }

    #[test]
    fn products_and_quotients() {
        // (2 - :(phi)) * (:(psi) - 3): [1, 2] * [-3, -2] = [-6, -2].
        let t = RealExpr::Mul(
            RealExpr::Sub(c(2.0), chr()).into(),
            RealExpr::Sub(chr(), c(3.0)).into(),
        );
        assert_eq!(bounds(&t, None), Some((-6.0, -2.0)));
        // 1 / (1 + :(phi)) is in [1/2, 1]; 1 / :(phi) has no bound.
        let t = RealExpr::Div(c(1.0), RealExpr::Add(c(1.0), chr()).into());
        assert_eq!(bounds(&t, None), Some((0.5, 1.0)));
        assert_eq!(bounds(&RealExpr::Div(c(1.0), chr()), None), None);
        // (:(phi) - 2)^2 is in [1, 4]; (:(phi) - 0.5)^2 in [0, 0.25].
        let t = RealExpr::Pow(RealExpr::Sub(chr(), c(2.0)).into(), c(2.0));
        assert_eq!(bounds(&t, None), Some((1.0, 4.0)));
        let t = RealExpr::Pow(RealExpr::Sub(chr(), c(0.5)).into(), c(2.0));
        assert_eq!(bounds(&t, None), Some((0.0, 0.25)));
        assert_eq!(bounds(&RealExpr::Pow(chr(), c(0.5)), None), None);
    }

    #[test]
    fn sums_count_tuples_of_the_universe() {
        let sum = |vars: &[&str], body: Box<RealExpr>| RealExpr::Sum {
            vars: vars.iter().map(|v| v.to_string()).collect(),
            guard: Box::new(Formula::True),
            body,
        };
        // Sum (x | ... : :(phi) - 1) over 9 elements: 9 terms in [-1, 0].
        let t = sum(&["x"], RealExpr::Sub(chr(), c(1.0)).into());
        assert_eq!(bounds(&t, Some(9)), Some((-9.0, 0.0)));
        // Two variables: 81 terms of 2.
        assert_eq!(
            bounds(&sum(&["x", "y"], c(2.0)), Some(9)),
            Some((0.0, 162.0))
        );
        // Elements created by a rule: no bound.
        assert_eq!(bounds(&sum(&["x"], chr()), None), None);
    }

    #[test]
    fn let_binds_and_functions_are_unbounded() {
        let t = RealExpr::Let {
            var: "a".into(),
            value: RealExpr::Add(chr(), chr()).into(),
            body: RealExpr::Mul(
                Box::new(RealExpr::Var("a".into())),
                Box::new(RealExpr::Var("a".into())),
            )
            .into(),
        };
        assert_eq!(bounds(&t, None), Some((0.0, 4.0)));
        let f = RealExpr::Fun {
            name: "x".into(),
            element: "e".into(),
        };
        assert_eq!(bounds(&f, None), None);
        assert_eq!(bounds(&RealExpr::Var("p".into()), None), None);
    }
}
