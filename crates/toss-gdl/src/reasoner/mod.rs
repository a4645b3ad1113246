//! The bottom-up reasoner: a description compiled to a [`Program`] (relations,
//! strata, rules with a join order and the indexes they need) and an
//! [`Engine`] that holds the facts of the three levels (static, per state,
//! per joint move) and the interned terms.
//!
//! Join orders are chosen when compiling: a negative, `distinct` or
//! equality literal is placed as soon as its variables are bound (safety
//! guarantees that this happens), a positive literal whose arguments are
//! all bound is a membership test, and otherwise the positive literal with
//! the most bound argument positions comes next (a game-independent
//! relation keyed on a bound position before a state literal keyed on a
//! part of its term). Each positive literal reads one hash index of its
//! relation, keyed on the argument positions that are bound at that point;
//! a function-term argument such as `(cell ?x ?y ?c)` with `?x`, `?y` bound
//! is keyed on its functor and bound sub-terms. A rule with a positive
//! literal over an empty relation is not run. Recursive components
//! are evaluated semi-naively: after a first full round, each rule is
//! re-run once per recursive body literal, that literal reading only the
//! facts new in the previous round.
//!
//! The program and its parts are here; compiling a description to it is in
//! `compile`, the indexed fact storage in `store`, and evaluation (the
//! engine and its joins) in `eval`.

use std::fmt;

use super::terms::{FxHashMap, TermId, TermStore};
use super::{Description, Rule, Sym, parse_nat, rule_graph, sccs};

mod compile;
mod eval;
mod store;

pub use eval::Engine;

/// Index of a relation (a symbol with an arity) in a [`Program`].
pub type RelId = usize;

/// Evaluation level of a relation.
pub const STATIC: u8 = 0;
pub const STATE: u8 = 1;
pub const MOVE: u8 = 2;

const NONE: u32 = u32::MAX;

/// Why a description cannot be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramError {
    /// Negation inside a recursive cycle.
    Unstratified(String),
    /// A variable of a negative literal, `distinct`, an equality or the head
    /// that no positive literal binds (rule number, variable name).
    Unsafe(usize, String),
    /// The static part derived more facts than the limit.
    TooLarge(usize),
    /// A static relation (named) derived more facts than the limit on
    /// facts per relation.
    TooManyFacts(String, usize),
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgramError::Unstratified(r) => {
                write!(f, "relation `{r}` depends negatively on itself")
            }
            ProgramError::Unsafe(i, v) => {
                write!(
                    f,
                    "rule {i} is unsafe: variable {v} is not bound by a positive literal"
                )
            }
            ProgramError::TooLarge(n) => {
                write!(f, "the game-independent relations exceed {n} facts")
            }
            ProgramError::TooManyFacts(rel, n) => {
                let what = format!("relation `{rel}`, which no state changes, has");
                if *n == toss_core::limits::GDL_FACTS_PER_RELATION.value {
                    let l = toss_core::limits::GDL_FACTS_PER_RELATION;
                    f.write_str(&l.exceeded(&what, "facts"))
                } else {
                    write!(f, "{what} more than {n} facts")
                }
            }
        }
    }
}

impl std::error::Error for ProgramError {}

/// How one argument position takes part in an index key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum PosKey {
    /// Not in the key.
    None,
    /// The whole term.
    Full,
    /// The top symbol and the sub-terms at the set bits.
    Functor(u32),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct IndexSpec(Vec<PosKey>);

/// A pattern: a rule term with its ground parts interned.
#[derive(Clone, Debug)]
enum Pat {
    Var(u32),
    Ground(TermId),
    Fn(Sym, Box<[Pat]>),
}

#[derive(Clone, Debug)]
enum CLit {
    Pos {
        rel: RelId,
        args: Box<[Pat]>,
        /// Index into the relation's indexes, or `NONE` for a full scan.
        index: u32,
        /// Read only the facts of the previous round.
        delta: bool,
    },
    Neg {
        rel: RelId,
        args: Box<[Pat]>,
    },
    Distinct(Pat, Pat),
    Equal(Pat, Pat),
}

#[derive(Clone, Debug)]
struct CRule {
    head_rel: RelId,
    head: Box<[Pat]>,
    nvars: usize,
    /// The full join order, and for recursive rules one order per recursive
    /// body literal (that literal reading the delta).
    plain: Box<[CLit]>,
    variants: Vec<(RelId, Box<[CLit]>)>,
}

/// A relation of the program.
#[derive(Clone, Debug)]
pub struct RelInfo {
    pub sym: Sym,
    pub arity: usize,
    pub level: u8,
    indexes: Vec<IndexSpec>,
}

#[derive(Clone, Debug)]
struct Scc {
    rels: Vec<RelId>,
    rules: Vec<usize>,
    recursive: bool,
    level: u8,
}

/// Relation ids of the GDL keywords (present even when unused).
#[derive(Clone, Debug)]
pub struct Keywords {
    pub role: RelId,
    pub init: RelId,
    pub true_: RelId,
    pub next: RelId,
    pub legal: RelId,
    pub does: RelId,
    pub goal: RelId,
    pub terminal: RelId,
}

/// A compiled description. Immutable; shared by the engines of a game.
#[derive(Clone, Debug)]
pub struct Program {
    pub symbols: Vec<String>,
    pub rels: Vec<RelInfo>,
    rel_by: FxHashMap<(Sym, usize), RelId>,
    rules: Vec<CRule>,
    sccs: Vec<Scc>,
    pub kw: Keywords,
    /// Rank of each symbol in the canonical order of terms.
    sym_rank: Vec<u32>,
    /// The state-level components needed for `terminal`, `legal`, `goal`
    /// and for the `next` rules; the move-level components `next` needs.
    pub(crate) need_terminal: Vec<usize>,
    pub(crate) need_legal: Vec<usize>,
    pub(crate) need_goal: Vec<usize>,
    pub(crate) need_next_state: Vec<usize>,
    pub(crate) need_next_move: Vec<usize>,
    /// GDL-II: the relation `sees/2`, if the description has it, and the
    /// components `next` and `sees` need together (state and move level).
    pub(crate) sees: Option<RelId>,
    pub(crate) need_percepts_state: Vec<usize>,
    pub(crate) need_percepts_move: Vec<usize>,
    state_rels: Vec<RelId>,
    move_rels: Vec<RelId>,
    rule_heads: Vec<RelId>,
    rule_succ: Vec<Vec<usize>>,
    rcomp_of: Vec<usize>,
    /// Terms interned when compiling (rule constants).
    base_terms: TermStore,
    /// Symbols of the numbers `0..=100`? No: symbol id -> goal value.
    pub(crate) nat_value: Vec<Option<u64>>,
}

/// Maximum number of facts the static part may derive.
pub const STATIC_FACT_LIMIT: usize = 50_000_000;

impl Program {
    /// The level of a relation, if the program has it.
    pub(crate) fn level_of(&self, sym: Sym, arity: usize) -> Option<u8> {
        self.rel_by.get(&(sym, arity)).map(|&r| self.rels[r].level)
    }

    /// Compiles a description. Checks stratification and safety (the parser
    /// reports these with positions; this is the runtime's own guard).
    pub fn new(desc: &Description) -> Result<Program, ProgramError> {
        Program::compile(desc, Sym::MAX)
    }

    /// The relation with this symbol and arity.
    pub fn relation(&self, sym: Sym, arity: usize) -> Option<RelId> {
        self.rel_by.get(&(sym, arity)).copied()
    }

    /// The state-level components a relation depends on (itself included),
    /// in evaluation order.
    pub fn state_closure(&self, r: RelId) -> Vec<usize> {
        let n = self.rule_heads.len();
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = (0..n).filter(|&i| self.rule_heads[i] == r).collect();
        while let Some(x) = stack.pop() {
            if !seen[x] {
                seen[x] = true;
                stack.extend(self.rule_succ[x].iter().copied());
            }
        }
        let mut cs: Vec<usize> = (0..n)
            .filter(|&x| seen[x])
            .map(|x| self.rcomp_of[x])
            .filter(|&c| self.sccs[c].level == STATE)
            .collect();
        cs.sort_unstable();
        cs.dedup();
        cs
    }

    /// The name of a relation, `name/arity`.
    pub fn relation_name(&self, r: RelId) -> String {
        format!(
            "{}/{}",
            self.symbols[self.rels[r].sym as usize], self.rels[r].arity
        )
    }

    /// Compares two ground terms in the canonical order (numbers by value,
    /// then symbols by name, then arguments left to right).
    pub fn cmp_terms(&self, terms: &TermStore, a: TermId, b: TermId) -> std::cmp::Ordering {
        if a == b {
            return std::cmp::Ordering::Equal;
        }
        let ((sa, aa), (sb, ba)) = (terms.node(a), terms.node(b));
        aa.len()
            .cmp(&ba.len())
            .then_with(|| self.sym_rank[sa as usize].cmp(&self.sym_rank[sb as usize]))
            .then_with(|| {
                for (&x, &y) in aa.iter().zip(ba) {
                    if x == y {
                        continue;
                    }
                    let o = self.cmp_terms(terms, x, y);
                    if o.is_ne() {
                        return o;
                    }
                }
                std::cmp::Ordering::Equal
            })
    }
}
