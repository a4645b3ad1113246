//! The derived program: an automaton reading the size `n` in unary, a
//! prefix chain of states and then a cycle, emitted as a logic program in
//! the seed's notation and as Rust that answers in constant time.
//!
//! For the seed's game the logic program is the seed's final one:
//!
//! ```text
//! det_win(0,M).
//! det_win(s(s(N)),M) :- new3(N,M).
//! new3(0,1).
//! new3(s(N),M) :- new4(N,M).
//! new4(0,2).
//! new4(s(s(N)),M) :- new3(N,M).
//! ```
//!
//! Each predicate is a state at a position `q`: its fact `state(0,V)`
//! answers at `q`, its rule strips the tokens to the next state. Only
//! positions with an answer are states (a lost position has none: the
//! seed's "transient clauses" are unfolded into the `s(s(N))` that skips
//! it), except the entry predicate at 0. States are named `new3`,
//! `new4`, ... in position order, as in the seed, whose `new1` and
//! `new2` name predicates of the nondeterministic program before
//! determinization.

use std::fmt::Write;

/// An answer of the program at one position; `None` where it fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    /// Holds for every second argument (`det_win(0,M).`).
    Any,
    Int(u32),
}

/// What the second argument of the entry predicate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `det_win(N,M)`: `M` is a winning move from `N` tokens.
    WinningMove,
    /// `grundy(N,G)`: `G` is the Grundy value of a heap of `N`.
    Grundy,
}

impl Kind {
    /// The entry predicate and the names of its two variables.
    pub fn names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Kind::WinningMove => ("det_win", "N", "M"),
            Kind::Grundy => ("grundy", "N", "G"),
        }
    }
}

/// The first state number, as in the seed (see the module doc).
const FIRST_STATE: usize = 3;

/// Answers `prefix[n]` for `n < prefix.len()`, then `cycle[(n - prefix.len()) % cycle.len()]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Automaton {
    pub kind: Kind,
    pub prefix: Vec<Option<Val>>,
    pub cycle: Vec<Option<Val>>,
}

impl Automaton {
    /// The automaton of `values`, which repeat with `period` from
    /// `start`; `start + period` values must be given. For winning moves
    /// the cycle starts at the first position from `start` with an
    /// answer, as losing positions are not states (module doc).
    pub fn new(kind: Kind, values: &[Option<Val>], start: usize, period: usize) -> Self {
        let at = |n: usize| {
            if n < start {
                values[n]
            } else {
                values[start + (n - start) % period]
            }
        };
        let begin = match kind {
            Kind::Grundy => start,
            Kind::WinningMove => (start..start + period)
                .find(|&n| at(n).is_some())
                .unwrap_or(start),
        };
        Automaton {
            kind,
            prefix: (0..begin).map(at).collect(),
            cycle: (begin..begin + period).map(at).collect(),
        }
    }

    /// Where the cycle starts: the automaton's preperiod.
    pub fn preperiod(&self) -> usize {
        self.prefix.len()
    }

    pub fn period(&self) -> usize {
        self.cycle.len()
    }

    /// The answer at `n`, as the emitted programs compute it.
    pub fn answer(&self, n: u64) -> Option<Val> {
        let a = self.prefix.len() as u64;
        if n < a {
            self.prefix[n as usize]
        } else {
            self.cycle[((n - a) % self.cycle.len() as u64) as usize]
        }
    }

    /// The positions that are states, in order, below `preperiod + period`.
    fn states(&self) -> Vec<usize> {
        let end = self.preperiod() + self.period();
        (0..end)
            .filter(|&q| q == 0 || self.answer(q as u64).is_some())
            .collect()
    }

    /// The logic program in the seed's notation.
    pub fn to_logic(&self) -> String {
        let (entry, n, m) = self.kind.names();
        let states = self.states();
        let name = |i: usize| {
            if states[i] == 0 {
                entry.to_string()
            } else {
                format!("new{}", FIRST_STATE + i - 1)
            }
        };
        let a = self.preperiod();
        let mut out = String::new();
        let _ = match self.kind {
            Kind::WinningMove => writeln!(
                out,
                "% {entry}({n},{m}): {m} is a winning move from {n} tokens ({n} in unary, \
                 0 and s/1); it holds for every {m} when the game is already won, and \
                 fails when the player to move loses."
            ),
            Kind::Grundy => writeln!(
                out,
                "% {entry}({n},{m}): {m} is the Grundy value of a heap of {n} tokens \
                 ({n} in unary, 0 and s/1)."
            ),
        };
        let _ = writeln!(
            out,
            "% States: a prefix for n < {a}, then a cycle of {} from n = {a}.",
            self.period()
        );
        for (i, &q) in states.iter().enumerate() {
            if let Some(v) = self.answer(q as u64) {
                let v = match v {
                    Val::Any => m.to_string(),
                    Val::Int(k) => k.to_string(),
                };
                let _ = writeln!(out, "{}(0,{v}).", name(i));
            }
            // The next state, wrapping from the last to the cycle's start.
            let (j, to) = match states.get(i + 1) {
                Some(&next) => (i + 1, next),
                None => {
                    let j = states.iter().position(|&s| s == a).unwrap_or(0);
                    (j, a + self.period())
                }
            };
            let mut arg = n.to_string();
            for _ in q..to {
                arg = format!("s({arg})");
            }
            let _ = writeln!(out, "{}({arg},{m}) :- {}({n},{m}).", name(i), name(j));
        }
        out
    }

    /// Rust source: one function answering in constant time from two
    /// tables.
    pub fn to_rust(&self, about: &str) -> String {
        let (a, p) = (self.preperiod(), self.period());
        let (func, ty, doc) = match self.kind {
            Kind::WinningMove => (
                "winning_move",
                "Option<u32>",
                "/// The winning move from `n` tokens: `None` when the player to move loses,\n\
                 /// `Some(0)` when the game is already won (nothing to take), else `Some(m)`.",
            ),
            Kind::Grundy => (
                "grundy",
                "u32",
                "/// The Grundy value of a heap of `n` tokens.",
            ),
        };
        let cell = |v: Option<Val>| match (self.kind, v) {
            (Kind::WinningMove, None) => "None".to_string(),
            (Kind::WinningMove, Some(Val::Any)) => "Some(0)".to_string(),
            (Kind::WinningMove, Some(Val::Int(k))) => format!("Some({k})"),
            (Kind::Grundy, Some(Val::Int(k))) => k.to_string(),
            // A Grundy automaton answers everywhere.
            (Kind::Grundy, _) => "0".to_string(),
        };
        let table = |vals: &[Option<Val>]| {
            let cells: Vec<String> = vals.iter().map(|&v| cell(v)).collect();
            cells.join(", ")
        };
        let mut out = String::new();
        let _ = writeln!(out, "/// {about}");
        let _ = writeln!(out, "///");
        let _ = writeln!(out, "{doc}");
        let _ = writeln!(
            out,
            "/// Constant time: a table below n = {a}, then n mod {p} on the cycle."
        );
        let _ = writeln!(out, "pub fn {func}(n: u64) -> {ty} {{");
        if a > 0 {
            let _ = writeln!(
                out,
                "    const PREFIX: [{ty}; {a}] = [{}];",
                table(&self.prefix)
            );
        }
        let _ = writeln!(
            out,
            "    const CYCLE: [{ty}; {p}] = [{}];",
            table(&self.cycle)
        );
        if a > 0 {
            let _ = writeln!(out, "    if n < {a} {{");
            let _ = writeln!(out, "        PREFIX[n as usize]");
            let _ = writeln!(out, "    }} else {{");
            let _ = writeln!(out, "        CYCLE[((n - {a}) % {p}) as usize]");
            let _ = writeln!(out, "    }}");
        } else {
            let _ = writeln!(out, "    CYCLE[(n % {p}) as usize]");
        }
        let _ = writeln!(out, "}}");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clauses(text: &str) -> Vec<&str> {
        text.lines().filter(|l| !l.starts_with('%')).collect()
    }

    fn seed() -> Automaton {
        use Val::*;
        // The seed's answers from n = 0: any, none, 1, 2, none, 1, 2, ...
        let v = [Some(Any), None, Some(Int(1)), Some(Int(2)), None];
        // The moves repeat from n = 1; the cycle starts at 2.
        Automaton::new(Kind::WinningMove, &v, 1, 3)
    }

    #[test]
    fn the_seed_automaton_is_the_seeds_program() {
        let a = seed();
        assert_eq!((a.preperiod(), a.period()), (2, 3));
        let text = a.to_logic();
        let program = clauses(&text);
        assert_eq!(
            program,
            [
                "det_win(0,M).",
                "det_win(s(s(N)),M) :- new3(N,M).",
                "new3(0,1).",
                "new3(s(N),M) :- new4(N,M).",
                "new4(0,2).",
                "new4(s(s(N)),M) :- new3(N,M).",
            ]
        );
        let rust = a.to_rust("The seed's game.");
        assert!(rust.contains("const CYCLE: [Option<u32>; 3] = [Some(1), Some(2), None];"));
        assert!(rust.contains("CYCLE[((n - 2) % 3) as usize]"));
    }

    #[test]
    fn a_grundy_cycle_from_zero_loops_through_the_entry() {
        let v = [Some(Val::Int(0)), Some(Val::Int(1))];
        let a = Automaton::new(Kind::Grundy, &v, 0, 2);
        let text = a.to_logic();
        let program = clauses(&text);
        assert_eq!(
            program,
            [
                "grundy(0,0).",
                "grundy(s(N),G) :- new3(N,G).",
                "new3(0,1).",
                "new3(s(N),G) :- grundy(N,G).",
            ]
        );
        assert!(a.to_rust("x").contains("CYCLE[(n % 2) as usize]"));
        assert_eq!(a.answer(7), Some(Val::Int(1)));
    }
}
