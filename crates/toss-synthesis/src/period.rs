//! Preperiod and period of a sequence of values, with the proof that it
//! repeats forever, not only as far as it was computed.
//!
//! A sequence `v` has period `p` from `n0` when `v(n + p) = v(n)` for all
//! `n >= n0`. Computed values show it only up to the bound; a theorem
//! turns a finite check into "forever" ([`Rule`]). The search takes the
//! smallest `p` whose repeat the rule proves within the values, and for
//! it the smallest `n0`: the start of the longest tail on which
//! `v(n + p) = v(n)`. That `p` is the least period (every eventual
//! period is a multiple of it, with the same preperiod, so a proof for a
//! multiple comes with one for it).

use std::fmt;
use std::ops::Range;

/// The theorem that turns a finite repeat into periodicity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A subtraction game with largest move `width`: from `n = width` on,
    /// every move is available and a position's answer is a function of
    /// the `width` answers before it. So if the `width` values from `n0`
    /// equal those from `n0 + p`, every later value repeats too (by
    /// induction), for any `n0 >= 0`.
    Window { width: usize },
    /// Guy–Smith for a finite octal game whose moves remove at most `t`
    /// tokens: if `G(n + p) = G(n)` for all `n0 <= n < 2 n0 + p + t`,
    /// then for all `n >= n0` (Winning Ways ch. 4; Siegel, Combinatorial
    /// Game Theory, IV.2).
    GuySmith { t: usize },
}

impl Rule {
    /// The end (exclusive) of the `n` whose repeat must be checked for a
    /// repeat with period `p` from `n0`.
    pub fn end(self, n0: usize, p: usize) -> usize {
        match self {
            Rule::Window { width } => n0 + width,
            Rule::GuySmith { t } => 2 * n0 + p + t,
        }
    }
}

/// A proven repeat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Periodicity {
    /// `n0`: the values repeat from here (the last exception is at
    /// `n0 - 1`).
    pub preperiod: usize,
    pub period: usize,
    pub rule: Rule,
    /// The `n` for which `v(n + period) = v(n)` was checked: it covers
    /// what `rule` requires, `preperiod .. rule.end(preperiod, period)`.
    pub verified: Range<usize>,
}

impl Periodicity {
    /// Checks the proof again on `values`, independently of the search:
    /// the range covers what the rule asks and every value in it repeats.
    pub fn check<T: PartialEq>(&self, values: &[T]) -> bool {
        let needed = self.preperiod..self.rule.end(self.preperiod, self.period);
        self.period > 0
            && self.verified.start <= needed.start
            && self.verified.end >= needed.end
            && self.verified.end + self.period <= values.len()
            && self
                .verified
                .clone()
                .all(|n| values[n] == values[n + self.period])
    }
}

impl fmt::Display for Periodicity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (n0, p) = (self.preperiod, self.period);
        let end = self.rule.end(n0, p);
        match self.rule {
            Rule::Window { width } => write!(
                f,
                "v(n + {p}) = v(n) for {n0} <= n < {end}: a window of {width} (the largest \
                 move) consecutive positions repeats, and from n = {width} on each value is a \
                 function of the {width} before it, so the repeat goes on forever"
            ),
            Rule::GuySmith { t } => write!(
                f,
                "G(n + {p}) = G(n) for {n0} <= n < {end} = 2*{n0} + {p} + {t} (t = {t}, the most \
                 tokens a move removes): periodic forever by the Guy–Smith theorem"
            ),
        }?;
        write!(
            f,
            "; checked for {} <= n < {}",
            self.verified.start, self.verified.end
        )
    }
}

/// The best repeat seen when none is proven: period `period` holds on
/// `agrees` (`v(n + period) = v(n)` there), and the rule needs values up
/// to `needed - 1` to prove it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub period: usize,
    pub agrees: Range<usize>,
    pub needed: usize,
}

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Search {
    Proven(Periodicity),
    /// No repeat proven within the values; the candidate is the period
    /// with the longest agreeing tail, if any tail is at least as long as
    /// its period.
    NotProven {
        candidate: Option<Candidate>,
    },
}

/// Searches `values` for the least proven period (see the module doc).
pub fn find<T: PartialEq>(values: &[T], rule: Rule) -> Search {
    let len = values.len();
    let mut best: Option<Candidate> = None;
    // A period whose proof needs more values than there are even from
    // n0 = 0 is not tried (nor a longer one).
    for p in (1..len).take_while(|&p| rule.end(0, p) + p <= len) {
        // The agreeing tail: n in n0..len - p with v(n + p) = v(n).
        let mut n0 = len - p;
        while n0 > 0 && values[n0 - 1] == values[n0 - 1 + p] {
            n0 -= 1;
        }
        let end = rule.end(n0, p);
        if end + p <= len {
            return Search::Proven(Periodicity {
                preperiod: n0,
                period: p,
                rule,
                verified: n0..len - p,
            });
        }
        let run = len - p - n0;
        if run >= p && best.as_ref().is_none_or(|b| run > b.agrees.len()) {
            best = Some(Candidate {
                period: p,
                agrees: n0..len - p,
                needed: end + p,
            });
        }
    }
    Search::NotProven { candidate: best }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_least_period_and_preperiod() {
        let v = [9, 8, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3];
        let Search::Proven(p) = find(&v, Rule::Window { width: 2 }) else {
            panic!("not proven");
        };
        assert_eq!((p.preperiod, p.period), (2, 3));
        assert!(p.check(&v));
        // A window as wide as the sequence proves nothing.
        assert!(matches!(
            find(&v, Rule::Window { width: 13 }),
            Search::NotProven { .. }
        ));
    }

    #[test]
    fn guy_smith_needs_twice_the_preperiod() {
        // Period 2 from n0 = 3: the rule asks n < 2*3 + 2 + 1 = 9, so
        // values up to n = 10.
        let mut v = vec![5, 6, 7];
        v.extend([1, 2].iter().cycle().take(8));
        assert_eq!(v.len(), 11);
        assert!(matches!(
            find(&v, Rule::GuySmith { t: 1 }),
            Search::Proven(Periodicity {
                preperiod: 3,
                period: 2,
                ..
            })
        ));
        v.pop();
        let Search::NotProven { candidate } = find(&v, Rule::GuySmith { t: 1 }) else {
            panic!("proven on too few values");
        };
        let c = candidate.unwrap();
        assert_eq!((c.period, c.agrees.start, c.needed), (2, 3, 11));
    }

    #[test]
    fn a_tampered_proof_fails_its_check() {
        let v = [1, 2, 1, 2, 1, 2, 1];
        let Search::Proven(mut p) = find(&v, Rule::Window { width: 2 }) else {
            panic!("not proven");
        };
        assert!(p.check(&v));
        p.period = 1;
        assert!(!p.check(&v));
    }
}
