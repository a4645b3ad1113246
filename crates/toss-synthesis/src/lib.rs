//! Strategy synthesis for impartial games with a size parameter (after
//! Pettorossi and Proietti's derivation of `det_win` from `win/2`,
//! `../shared/spec/strategy-synthesis-impartial-games.txt`): compute the
//! values of a family up to a bound, find the preperiod and period,
//! prove that the repeat goes on forever, and emit the derived program.
//!
//! - [`family`]: subtraction games (normal, misère, the seed's "who finds
//!   the table empty wins") and octal games by their code;
//! - [`values`]: winning moves and Grundy values up to a bound, and the
//!   original `win/2` evaluated by its clauses;
//! - [`period`]: the search for the least period and its proof (a window
//!   of the largest move for subtraction games, Guy–Smith for octal
//!   games);
//! - [`program`]: the automaton as a logic program in the seed's notation
//!   and as constant-time Rust; [`logic`]: an interpreter for that
//!   program, so checks run the emitted text itself.
//!
//! Dependency rule: std only, and no workspace crate: the games here are
//! numbers, not structures, and the command line (`toss synthesize`)
//! prints what [`synthesize`] and [`check`] return.

pub mod family;
pub mod logic;
pub mod period;
pub mod program;
pub mod values;

use std::fmt;

use family::Family;
use period::{Candidate, Periodicity, Rule, Search};
use program::{Automaton, Kind, Val};
use values::{Answer, OctalValues, SubtractionValues, WinRelation, WinRow};

/// The bound when none is given.
pub const DEFAULT_BOUND: u64 = 10_000;
/// The largest bound for a subtraction game: values are computed in
/// linear time, one byte-sized answer each.
pub const MAX_SUBTRACTION_BOUND: u64 = 10_000_000;
/// The largest bound for an octal game: splitting a heap in two makes
/// the computation quadratic (about 5 * 10^9 steps at this bound).
pub const MAX_OCTAL_BOUND: u64 = 100_000;

/// The largest bound (of [`synthesize`] and [`check`]) for `family`.
pub fn max_bound(family: &Family) -> u64 {
    match family {
        Family::Subtraction(_) => MAX_SUBTRACTION_BOUND,
        Family::Octal(_) => MAX_OCTAL_BOUND,
    }
}

/// The values computed.
#[derive(Clone, Debug)]
pub enum Values {
    /// A subtraction game: the answer at each `n`.
    Answers(Vec<Answer>),
    /// An octal game: the Grundy value of each heap.
    Grundy(Vec<u32>),
}

impl Values {
    /// The first `count` values as text: `*` already won, `-` lost, a
    /// winning move; or Grundy values.
    pub fn prefix(&self, count: usize) -> String {
        let cells: Vec<String> = match self {
            Values::Answers(a) => a
                .iter()
                .take(count)
                .map(|a| match a {
                    Answer::Won => "*".to_string(),
                    Answer::Lost => "-".to_string(),
                    Answer::Move(m) => m.to_string(),
                })
                .collect(),
            Values::Grundy(g) => g.iter().take(count).map(u32::to_string).collect(),
        };
        cells.join(" ")
    }
}

/// A family's program with its proof.
///
/// The numbers reported are the automaton's: [`Synthesis::preperiod`] is
/// where its cycle starts, [`Synthesis::period`] the cycle's length. For
/// the seed's game ({1, 2}, who finds the table empty wins) the answers
/// from `n = 0` are `* - 1 2 - 1 2 - ...` (`*`: the game is already won,
/// `det_win(0,M)` for every `M`; `-`: no winning move). The outcome
/// sequence, won or lost, repeats from `n = 0` (`W L W`), the answers
/// from `n = 1` (position 0 alone is "already won"); the automaton's
/// cycle starts at 2, because its states are the positions with an
/// answer, a lost position being the gap a rule's `s(s(N))` skips: 1 is
/// lost, so the cycle starts at the next position, and `det_win` strips
/// two symbols, `det_win(s(s(N)),M) :- new3(N,M)`. So preperiod 2 and
/// period 3, as in the seed, with [`Synthesis::outcome_preperiod`] 0 and
/// [`Periodicity::preperiod`] 1. For an octal game every position has a
/// Grundy value, and the three coincide.
#[derive(Clone, Debug)]
pub struct Synthesis {
    pub family: Family,
    /// The values computed, for `n = 0..values.len()`: the bound was
    /// doubled from 64 until the repeat was proven.
    pub values: Values,
    /// The proven repeat of the answers (winning moves or Grundy values).
    pub periodicity: Periodicity,
    /// For a subtraction game, where the won/lost sequence repeats from.
    pub outcome_preperiod: Option<usize>,
    pub automaton: Automaton,
}

impl Synthesis {
    pub fn preperiod(&self) -> usize {
        self.automaton.preperiod()
    }

    pub fn period(&self) -> usize {
        self.automaton.period()
    }

    /// How many values were computed.
    pub fn computed(&self) -> usize {
        match &self.values {
            Values::Answers(a) => a.len(),
            Values::Grundy(g) => g.len(),
        }
    }

    /// The derived logic program.
    pub fn logic_program(&self) -> String {
        self.automaton.to_logic()
    }

    /// The derived Rust function.
    pub fn rust_program(&self) -> String {
        self.automaton
            .to_rust(&format!("Derived for the {}.", self.family))
    }
}

/// Why there is no program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SynthError {
    /// The bound asked is above the family's cap ([`max_bound`]).
    BoundTooLarge { bound: u64, cap: u64 },
    /// No repeat proven with values up to `bound`.
    NotPeriodic {
        bound: u64,
        rule: Rule,
        candidate: Option<Candidate>,
    },
}

impl fmt::Display for SynthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SynthError::BoundTooLarge { bound, cap } => write!(
                f,
                "bound {bound} is above the limit {cap} for this family (it keeps time and \
                 memory bounded)"
            ),
            SynthError::NotPeriodic {
                bound,
                rule,
                candidate,
            } => {
                write!(
                    f,
                    "not periodic within bound {bound}: values computed for n = 0..={bound}, \
                     and no repeat proven"
                )?;
                let what = match rule {
                    Rule::Window { width } => format!("a window of {width} (the largest move)"),
                    Rule::GuySmith { t } => format!("the Guy–Smith theorem (t = {t})"),
                };
                match candidate {
                    Some(c) => write!(
                        f,
                        "; the longest repeat found is period {} on {} <= n <= {} (v(n + {}) = \
                         v(n)), which {what} proves with values up to n = {}: a bound of at \
                         least {} may prove it",
                        c.period,
                        c.agrees.start,
                        c.agrees.end - 1,
                        c.period,
                        c.needed - 1,
                        c.needed - 1
                    ),
                    None => write!(f, "; no repeat as long as its period was seen"),
                }
            }
        }
    }
}

impl std::error::Error for SynthError {}

/// The values of `family` for `n = 0..len`, extended on demand.
enum Computer {
    Subtraction(SubtractionValues),
    Octal(OctalValues),
}

/// Computes the values, doubling from 64 up to `bound` until a repeat
/// is proven, and derives the program.
pub fn synthesize(family: &Family, bound: u64) -> Result<Synthesis, SynthError> {
    let cap = max_bound(family);
    if bound > cap {
        return Err(SynthError::BoundTooLarge { bound, cap });
    }
    // Below the cap, so it fits a usize.
    let full = usize::try_from(bound)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let (mut computer, rule) = match family {
        Family::Subtraction(s) => (
            Computer::Subtraction(SubtractionValues::new(s)),
            Rule::Window {
                width: s.max_move(),
            },
        ),
        Family::Octal(o) => (
            Computer::Octal(OctalValues::new(o)),
            Rule::GuySmith { t: o.max_removed() },
        ),
    };
    let mut len = full.min(64);
    loop {
        let search = match &mut computer {
            Computer::Subtraction(v) => {
                v.extend_to(len);
                period::find(v.answers(), rule)
            }
            Computer::Octal(v) => {
                v.extend_to(len);
                period::find(v.values(), rule)
            }
        };
        match search {
            Search::Proven(periodicity) => return Ok(derive(family, computer, periodicity)),
            Search::NotProven { candidate } if len == full => {
                return Err(SynthError::NotPeriodic {
                    bound,
                    rule,
                    candidate,
                });
            }
            Search::NotProven { .. } => len = full.min(len.saturating_mul(2)),
        }
    }
}

fn derive(family: &Family, computer: Computer, periodicity: Periodicity) -> Synthesis {
    let (n0, p) = (periodicity.preperiod, periodicity.period);
    match computer {
        Computer::Subtraction(v) => {
            let answers = v.answers().to_vec();
            let vals: Vec<Option<Val>> = answers
                .iter()
                .map(|a| match *a {
                    Answer::Won => Some(Val::Any),
                    Answer::Move(m) => Some(Val::Int(m)),
                    Answer::Lost => None,
                })
                .collect();
            let outcomes: Vec<bool> = answers.iter().map(|a| a.is_win()).collect();
            let outcome_preperiod = match period::find(&outcomes, periodicity.rule) {
                Search::Proven(q) => Some(q.preperiod),
                Search::NotProven { .. } => None,
            };
            Synthesis {
                family: family.clone(),
                automaton: Automaton::new(Kind::WinningMove, &vals, n0, p),
                values: Values::Answers(answers),
                periodicity,
                outcome_preperiod,
            }
        }
        Computer::Octal(v) => {
            let grundy = v.values().to_vec();
            let vals: Vec<Option<Val>> = grundy.iter().map(|&g| Some(Val::Int(g))).collect();
            Synthesis {
                family: family.clone(),
                automaton: Automaton::new(Kind::Grundy, &vals, n0, p),
                values: Values::Grundy(grundy),
                periodicity,
                outcome_preperiod: None,
            }
        }
    }
}

/// What [`check`] verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Every `n <= upto` was checked.
    pub upto: u64,
    /// The positions `n <= upto` the player to move wins (a winning move,
    /// the game already won, or a nonzero Grundy value).
    pub winning: u64,
}

/// Checks the emitted logic program (parsed back and interpreted) and
/// the table the Rust function holds against the direct evaluation for
/// every `n <= upto`: for a subtraction game the original `win/2`
/// ([`WinRelation`]), for an octal game the Grundy values by mex. An
/// answer agrees when the program fails exactly where `win(n,M)` holds
/// for no `M`, holds for every `M` exactly where `win(n,M)` does, and
/// otherwise gives an `M` with `win(n,M)`.
pub fn check(s: &Synthesis, upto: u64) -> Result<CheckReport, String> {
    let cap = max_bound(&s.family);
    if upto > cap {
        return Err(format!(
            "check bound {upto} is above the limit {cap} for this family"
        ));
    }
    let mut program = logic::Program::parse(&s.logic_program())
        .map_err(|e| format!("the emitted logic program does not parse back: {e}"))?;
    let (entry, _, _) = s.automaton.kind.names();
    let mut winning = 0;
    match &s.family {
        Family::Subtraction(game) => {
            let mut win = WinRelation::new(game);
            for n in 0..=upto {
                let row = win.next_row();
                let logic = program.query(entry, n)?;
                let table = s.automaton.answer(n);
                let agrees = |a: Option<Val>| match (a, row) {
                    (None, WinRow::Moves(bits)) => bits == 0,
                    (Some(Val::Any), r) => r == WinRow::Every,
                    (Some(Val::Int(m)), WinRow::Moves(_)) => win.holds(row, m),
                    _ => false,
                };
                if !agrees(logic) || !agrees(table) {
                    return Err(format!(
                        "n = {n}: win/2 gives {row:?}, the logic program {logic:?}, the \
                         table {table:?}"
                    ));
                }
                if row != WinRow::Moves(0) {
                    winning += 1;
                }
            }
        }
        Family::Octal(game) => {
            let mut values = OctalValues::new(game);
            let len = usize::try_from(upto)
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            values.extend_to(len);
            for (n, &g) in (0..).zip(values.values()) {
                let logic = program.query(entry, n)?;
                let table = s.automaton.answer(n);
                let expected = Some(Val::Int(g));
                if logic != expected || table != expected {
                    return Err(format!(
                        "n = {n}: the Grundy value is {g}, the logic program gives {logic:?}, \
                         the table {table:?}"
                    ));
                }
                if g != 0 {
                    winning += 1;
                }
            }
        }
    }
    Ok(CheckReport { upto, winning })
}
