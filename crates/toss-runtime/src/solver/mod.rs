//! The logic solver: evaluates the formulas and real terms of the IR
//! (spec 1.3) on structures.
//!
//! Formulas are compiled once ([`Solver::compile_formula`],
//! [`Solver::compile_real`], [`Solver::compile_query`]) into an indexed form:
//! variables become slots, relation names become relation ids, defined
//! relations and `let` relations are inlined. Compilation normalises
//! (negations to the leaves, quantifiers pushed inward as in the TNF of
//! spec 3.2) and plans every existential block: variables are bound one at
//! a time from the most selective generator (equalities, successor and
//! predecessor lists of binary relations, prefix ranges of larger ones,
//! unary bitsets, and all elements only as a last resort), and each
//! conjunct is checked as soon as its variables are bound. Evaluation then
//! never looks up a name.
//!
//! What each construct supports:
//! - First-order logic with equality over the live elements; element
//!   constants given at evaluation.
//! - Set quantifiers: grounded into propositional logic over membership
//!   atoms and decided by a [`SatBackend`] (splr by default, or brute force),
//!   see [`sat`]. Alternation `ex X all Y` is handled by expanding the inner
//!   universal block over all subsets (small universes only). When a set
//!   variable occurs inside a fixed point, a closure or a real term, the
//!   quantifier is decided by enumerating subsets (universes below 64
//!   elements; practical up to about 20).
//! - Real terms: all arithmetic of the IR, `Sum`/`Product` over the
//!   satisfying assignments of their guard (planned like queries), `:(phi)`,
//!   `let`. A derivative `:f'(x)` reads the function `f'` of the structure,
//!   where the interpreter keeps the derivatives of ODE state (see
//!   [`crate::continuous`]); others are compile errors.
//! - Real quantifiers `ex :a`, `all :a` and `min :a phi`: supported when
//!   every comparison mentioning `:a` has `:a` alone on one side and a term
//!   without `:a` (and without other inner real variables) on the other;
//!   other uses are compile errors. The candidate values are those terms'
//!   values (over all assignments of their inner element variables); the
//!   truth of `phi` is constant between consecutive candidates, so testing
//!   each candidate, the midpoints, and one point below and above decides
//!   the quantifier exactly. `min` returns the infimum of the satisfying
//!   values: `-inf` if `phi` holds below every candidate, the candidate
//!   bounding the first satisfying interval otherwise (also when the
//!   interval is open), `+inf` if none.
//! - `lfp`/`gfp` of any arity by iteration from the empty / full relation
//!   over tuples of live elements; `tc` (reflexive transitive closure, over
//!   tuples too) by search from the source tuple, `tc m` by exactly `m`
//!   layers. Results are cached per evaluation call, keyed by the outer
//!   variables they depend on.
//! - Set at a time ([`Solver::compile_set`], [`Solver::set_of`], and
//!   unary `lfp`/`gfp` inside any formula): a formula in one free element
//!   variable built from unary relations, `and`/`or`/`not`, images
//!   `ex y (R(y, x) and phi(y))` and `R(c, x)` of a bound `c`, `tc`/`tc m`
//!   of a one-step body from or to a bound element, and closed
//!   subformulas is evaluated as bitsets (module `unary`); a stable binary
//!   relation that is a few translations of element ids (a grid step) is
//!   applied as shifts with masks; a closure from one element is walked
//!   element by element while it does not branch (a ray), and closures
//!   from the same element under the same conditions, joined by `or`, are
//!   evaluated together. The interpreter uses it to restrict rule
//!   matching by preconditions. An existential block that is one atom
//!   over all its variables and conditions on one variable each (Connect
//!   Four's `ex a, b, c, d (Q(a) and Q(b) and Q(c) and Q(d) and Four(a, b,
//!   c, d))`) is decided by computing the conditions as sets and scanning
//!   the atom's tuples from the members of the first one, testing bits.
//! - Comparisons are exact on `f64` unless [`Solver::set_epsilon`] sets
//!   the epsilon semantics of spec 1.3 (the interpreter does for games with
//!   continuous dynamics).
//!
//! Stable relations: [`Solver::set_stable`] declares relations no rule
//! changes, and [`Solver::set_stable_from`] tabulates every defined
//! relation that (transitively) uses only stable relations and no
//! functions, on the given structure (up to arity 6 and below 2^20 tuples;
//! tables of arity 3 and more are also kept flat, indexed by first element
//! and, up to 512 elements, by the first two). Formulas (also those compiled before)
//! then use the tables instead of the definitions whenever the evaluated
//! structure has the same live elements as that structure; otherwise they
//! fall back to the inlined definitions. The caller guarantees that the
//! stable relations really have the same tuples in every evaluated
//! structure.
//!
//! Structures passed to evaluation must have the signature of the one
//! given to [`Solver::new`] (same relations and functions at the same ids).

mod compile;
mod eval;
mod node;
mod plan;
pub mod sat;
#[cfg(test)]
mod tests;
mod unary;

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

use compile::Compiler;
use eval::{Env, Ev};
use node::{Node, RelRef, Search, Slot, Term};
use plan::Planner;
pub use sat::{BruteForce, Prop, SatBackend, Splr};
use toss_core::ir::{self, Formula, RealExpr};
use toss_core::structure::{BitSet, Elem, RelId, RelationData, Structure};
use unary::Shifts;

/// A compiled formula (from [`Solver::compile_formula`] or
/// [`Solver::compile_query`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormulaId(pub u32);

/// A compiled real term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RealId(pub u32);

/// A formula or term the solver cannot compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverError {
    pub message: String,
}

impl fmt::Display for SolverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SolverError {}

#[derive(Clone, Debug)]
enum Source {
    Formula(Formula),
    Real(RealExpr),
    Query(Formula, Vec<String>),
    /// A formula in one free variable evaluated as a set.
    Set(Formula, String),
}

#[derive(Clone, Debug)]
struct Entry {
    source: Source,
    constants: Vec<String>,
    params: Vec<String>,
    plain: Arc<Compiled>,
    tabled: Option<Arc<Compiled>>,
}

#[derive(Clone, Debug)]
pub(crate) enum Body {
    Formula(Node),
    Real(Term),
    Query(Vec<Search>),
    /// A set expression in the free variable.
    Set(unary::SetExpr),
}

#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    body: Body,
    /// The planned bodies of the formula's [`Node::Shared`] nodes.
    pub shared: Arc<[Node]>,
    /// The number of the solver's defined relations (the length of the
    /// values of shared ones).
    pub n_defs: u32,
    /// In a formula compiled with sharing (a large one), the caches whose
    /// values depend on the structure only, kept per structure by
    /// [`Solver::holds_memo`]; `None` when there are none (or the formula
    /// is small: evaluated per call, as it always was).
    pub closed_caches: Option<Vec<u32>>,
    n_const: usize,
    n_param: usize,
    free: Vec<Slot>,
    pub n_e: u32,
    pub n_r: u32,
    pub n_s: u32,
    pub n_local: u32,
    pub n_cache: u32,
    /// Memo slots of a set expression ([`unary::memoize`]).
    pub n_memo: u32,
    /// Some set quantifier is decided by enumerating subsets of the
    /// universe (see [`SET_ENUMERATION_LIMIT`]).
    pub enumerates_sets: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Table {
    arity: usize,
    pub data: RelationData,
    /// For arity 3 and more: the same tuples, flat and sorted, indexed by
    /// first element (evaluation scans the tuples starting with a bound
    /// element without a tree search or an allocation).
    pub rows: Option<Rows>,
}

/// Sorted tuples of one arity stored flat, with the range of the tuples
/// starting with each element.
#[derive(Clone, Debug)]
pub(crate) struct Rows {
    pub arity: usize,
    /// `start[x]..start[x + 1]`: the tuples (in units of tuples) whose first
    /// element is `x`.
    start: Vec<u32>,
    /// Element ids are below `bound`.
    bound: usize,
    /// `start2[x * bound + y]..start2[x * bound + y + 1]`: the tuples
    /// starting with `x, y` (for `bound * bound` up to
    /// [`MAX_PAIR_INDEX`]).
    start2: Option<Vec<u32>>,
    pub flat: Vec<Elem>,
}

/// Most entries of a [`Rows`] index by the first two elements (a board of
/// 512 cells).
const MAX_PAIR_INDEX: usize = 1 << 18;

impl Rows {
    fn new(arity: usize, bound: usize, tuples: &[Vec<Elem>]) -> Rows {
        let mut start = vec![0u32; bound + 1];
        for t in tuples {
            start[t[0] as usize + 1] += 1;
        }
        for i in 0..bound {
            start[i + 1] += start[i];
        }
        // The same by the first two elements, when the index is small
        // (the tuples are sorted, so each pair's tuples are contiguous).
        let start2 = (bound * bound <= MAX_PAIR_INDEX).then(|| {
            let mut s = vec![0u32; bound * bound + 1];
            for t in tuples {
                s[t[0] as usize * bound + t[1] as usize + 1] += 1;
            }
            for i in 0..bound * bound {
                s[i + 1] += s[i];
            }
            s
        });
        Rows {
            arity,
            bound,
            start,
            start2,
            flat: tuples.iter().flatten().copied().collect(),
        }
    }

    /// The tuples (flat) whose first element is `x`.
    #[inline]
    pub fn starting_with(&self, x: Elem) -> &[Elem] {
        let x = x as usize;
        if x + 1 >= self.start.len() {
            return &[];
        }
        let (a, b) = (self.start[x] as usize, self.start[x + 1] as usize);
        &self.flat[a * self.arity..b * self.arity]
    }

    /// The tuples (flat) whose first two elements are `x` and `y`:
    /// `Toward(x, n, y)` with `x` and `n` bound reads one row instead of
    /// scanning every line through `x`.
    #[inline]
    pub fn starting_with_two(&self, x: Elem, y: Elem) -> &[Elem] {
        let (x, y) = (x as usize, y as usize);
        if x >= self.bound || y >= self.bound {
            return &[];
        }
        let k = x * self.bound + y;
        let (a, b) = match &self.start2 {
            Some(s) => (s[k] as usize, s[k + 1] as usize),
            None => return self.scan_two(x as Elem, y as Elem),
        };
        &self.flat[a * self.arity..b * self.arity]
    }

    /// [`Rows::starting_with_two`] by binary search in the sorted tuples
    /// starting with `x`.
    fn scan_two(&self, x: Elem, y: Elem) -> &[Elem] {
        let rows = self.starting_with(x);
        let a = self.arity;
        let n = rows.len() / a;
        let second = |i: usize| rows[i * a + 1];
        let lo = {
            let (mut lo, mut hi) = (0, n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if second(mid) < y {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        let mut end = lo;
        while end < n && second(end) == y {
            end += 1;
        }
        &rows[lo * a..end * a]
    }

    #[inline]
    pub fn contains(&self, t: &[Elem]) -> bool {
        // Stepping by the arity (not `chunks_exact`, whose length is a
        // division by a run-time arity: a visible cost in reversi).
        let mut rest = self.starting_with_two(t[0], t[1]);
        while rest.len() >= self.arity {
            let (row, r) = rest.split_at(self.arity);
            if row == t {
                return true;
            }
            rest = r;
        }
        false
    }
}

/// The values, on one structure, of the parts of formulas that depend on
/// the structure only: of set formulas (see [`Solver::set_of_memo`]), and
/// of the shared closed defined relations (see [`Solver::holds_memo`]).
#[derive(Default)]
pub struct SetMemo(Vec<(u32, Vec<Option<unary::Words>>)>, Vec<u8>, FixCaches);

/// Per formula, the values of its fixed points and closures on one
/// structure, keyed as within an evaluation call (by the outer variables
/// they depend on): a lifted recursive relation of a translated GDL game
/// is a fixed point evaluated for every candidate of a rule.
type FixCaches = Vec<(u32, Vec<HashMap<Vec<u64>, eval::TupleSet>>)>;

impl SetMemo {
    /// Forgets every value (for use with another structure), keeping the
    /// slots allocated.
    pub fn clear(&mut self) {
        for (_, slots) in &mut self.0 {
            slots.iter_mut().for_each(|w| *w = None);
        }
        self.1.iter_mut().for_each(|v| *v = 0);
        for (_, caches) in &mut self.2 {
            caches.iter_mut().for_each(HashMap::clear);
        }
    }

    /// Runs `f` with the memo's values of shared relations in `env` (for a
    /// formula with shared nodes), keeping what it evaluates.
    fn with_shared<R>(&mut self, c: &Compiled, env: &mut Env, f: impl FnOnce(&mut Env) -> R) -> R {
        if c.shared.is_empty() {
            return f(env);
        }
        if self.1.len() != c.n_defs as usize {
            self.1 = vec![0; c.n_defs as usize];
        }
        std::mem::swap(&mut env.shared_values, &mut self.1);
        let out = f(env);
        std::mem::swap(&mut env.shared_values, &mut self.1);
        out
    }
}

/// Evaluates formulas and real terms on structures of one signature.
#[derive(Clone, Debug)]
pub struct Solver {
    sig: Structure,
    defs: Vec<ir::DefinedRelation>,
    def_index: HashMap<String, usize>,
    /// Per defined relation: its inlined size ([`ir::sizes::inlined_sizes`]).
    def_sizes: Vec<u64>,
    stable: BTreeSet<RelId>,
    /// Tabulated defined relations: def index -> table.
    table_map: HashMap<usize, u32>,
    pub(crate) tables: Vec<Table>,
    /// The live elements of the structure the tables were computed on.
    tables_live: Option<BitSet>,
    entries: Vec<Entry>,
    /// Stable binary relations as translations of element ids (forward,
    /// backward), valid on structures with the live elements `tables_live`.
    shifts: HashMap<RelRef, (Arc<Shifts>, Arc<Shifts>)>,
    pub(crate) backend: Arc<dyn SatBackend>,
    pub(crate) epsilon: f64,
    /// The first evaluation that could not be done (see [`Solver::fault`]).
    fault: std::sync::OnceLock<String>,
}

/// The most elements over which a set quantifier is decided by enumerating
/// all subsets; above it the evaluation stops with a fault
/// ([`Solver::fault`]). The value is
/// [`SET_ENUMERATION_ELEMENTS`](toss_core::limits::SET_ENUMERATION_ELEMENTS).
pub const SET_ENUMERATION_LIMIT: usize = toss_core::limits::SET_ENUMERATION_ELEMENTS.value;

/// Why a set quantifier over `n` elements is refused.
pub(crate) fn enumeration_fault(n: usize) -> String {
    format!(
        "a set quantifier over {n} elements would need all 2^{n} subsets enumerated: its set \
         variable occurs inside a fixed point, a transitive closure or a real term, or a \
         universal set quantifier sits inside an existential one, which the SAT backend does \
         not decide; enumeration is limited to {SET_ENUMERATION_LIMIT} elements"
    )
}

impl Solver {
    /// `signature`: a structure carrying the game's relations and functions
    /// (e.g. the start structure); `defined`: the game's `REL` definitions
    /// (they may refer to each other, non-recursively).
    pub fn new(
        signature: &Structure,
        defined: &[ir::DefinedRelation],
    ) -> Result<Solver, SolverError> {
        let mut def_index = HashMap::new();
        for (i, d) in defined.iter().enumerate() {
            if def_index.insert(d.name.clone(), i).is_some() {
                return Err(SolverError {
                    message: format!("relation `{}` defined twice", d.name),
                });
            }
        }
        let solver = Solver {
            sig: signature.clone(),
            defs: defined.to_vec(),
            def_sizes: ir::sizes::inlined_sizes(defined, &def_index),
            def_index,
            stable: BTreeSet::new(),
            table_map: HashMap::new(),
            tables: Vec::new(),
            tables_live: None,
            entries: Vec::new(),
            shifts: HashMap::new(),
            backend: Arc::new(Splr),
            epsilon: 0.0,
            fault: std::sync::OnceLock::new(),
        };
        // Check every definition compiles (names, arities, recursion).
        for d in &solver.defs {
            let params: Vec<&str> = d.params.iter().map(|s| s.as_str()).collect();
            solver
                .compile(&Source::Formula(d.body.clone()), &params, &[], false)
                .map_err(|e| SolverError {
                    message: format!("in definition of `{}`: {}", d.name, e.message),
                })?;
        }
        Ok(solver)
    }

    /// The first evaluation this solver could not carry out, if any: a set
    /// quantifier over more than [`SET_ENUMERATION_LIMIT`] elements that
    /// only enumeration decides. Such an evaluation answers `false`, so a
    /// caller must check this before trusting results.
    pub fn fault(&self) -> Option<&str> {
        self.fault.get().map(|s| s.as_str())
    }

    pub(crate) fn report_fault(&self, message: String) {
        let _ = self.fault.set(message);
    }

    /// Whether some compiled formula or term decides a set quantifier by
    /// enumerating subsets (it then works only on structures of at most
    /// [`SET_ENUMERATION_LIMIT`] elements).
    pub fn enumerates_sets(&self) -> bool {
        self.entries.iter().any(|e| e.plain.enumerates_sets)
    }

    /// Whether `f`, compiled alone with the free element variables
    /// `constants`, decides a set quantifier by enumerating subsets (false
    /// when it does not compile that way).
    pub fn formula_enumerates_sets(&self, f: &Formula, constants: &[&str]) -> bool {
        self.compile(&Source::Formula(f.clone()), constants, &[], false)
            .is_ok_and(|c| c.enumerates_sets)
    }

    /// Replaces the SAT backend used for set quantifiers (splr by default).
    pub fn set_sat_backend(&mut self, backend: Arc<dyn SatBackend>) {
        self.backend = backend;
    }

    /// Sets the epsilon of comparisons (spec 1.3); 0, the default, compares
    /// exactly. With `eps > 0`, `a < b` holds when `a + eps < b - eps`,
    /// `a = b` when `|a - b| <= 2 eps`, and `<=`, `>=`, `!=` are the
    /// complements of `>`, `<`, `=`.
    pub fn set_epsilon(&mut self, eps: f64) {
        self.epsilon = eps;
    }

    fn compile(
        &self,
        source: &Source,
        constants: &[&str],
        params: &[&str],
        tabled: bool,
    ) -> Result<Compiled, SolverError> {
        let none = HashMap::new();
        let tables = if tabled { &self.table_map } else { &none };
        let mut c = Compiler::new(
            &self.sig,
            &self.defs,
            &self.def_index,
            tables,
            &self.def_sizes,
        );
        c.sharing = self.source_size(source) > ir::sizes::SHARING_ABOVE;
        for k in constants {
            c.push_elem(k);
        }
        for p in params {
            c.push_real(p);
        }
        let arity = |r: RelRef| match r {
            RelRef::Struct(r) => self.sig.arity(r),
            RelRef::Table(t) => self.tables[t as usize].arity,
        };
        let shifts = |r: RelRef, forward: bool| -> Option<Arc<Shifts>> {
            if !tabled {
                return None;
            }
            self.shifts
                .get(&r)
                .map(|(f, b)| if forward { f.clone() } else { b.clone() })
        };
        let planner = Planner {
            table_arity: &arity,
            shifts: &shifts,
            budget: std::cell::Cell::new(plan::MAX_TOTAL_BRANCHES),
            enumerates: std::cell::Cell::new(false),
        };
        let mut free = Vec::new();
        let mut n_memo = 0;
        let body = match source {
            Source::Formula(f) => Body::Formula(planner.formula(c.formula(f)?)),
            Source::Real(t) => Body::Real(planner.term(c.term(t)?)),
            Source::Query(f, vars) => {
                for v in vars {
                    if constants.contains(&v.as_str()) {
                        return Err(SolverError {
                            message: format!("query variable `{v}` is also a constant"),
                        });
                    }
                    free.push(c.push_elem(v));
                }
                let node = planner.formula(c.formula(f)?);
                Body::Query(planner.enumerate_dnf(free.clone(), node))
            }
            Source::Set(f, v) => {
                let x = c.push_elem(v);
                free.push(x);
                let node = c.formula(f)?;
                match planner.set_expr(&node, x, &[x], None) {
                    Some(e) => Body::Set(unary::memoize(unary::merge_closures(e), &mut n_memo)),
                    None => {
                        return Err(SolverError {
                            message: "not a set expression".into(),
                        });
                    }
                }
            }
        };
        let shared: Vec<Node> = std::mem::take(&mut c.shared)
            .into_iter()
            .map(|n| planner.formula(n))
            .collect();
        Ok(Compiled {
            body,
            shared: shared.into(),
            n_defs: self.defs.len() as u32,
            closed_caches: (c.sharing && c.cache_closed.iter().any(|&b| b)).then(|| {
                (0..c.cache_closed.len() as u32)
                    .filter(|&i| c.cache_closed[i as usize])
                    .collect()
            }),
            n_const: constants.len(),
            n_param: params.len(),
            free,
            n_e: c.n_e,
            n_r: c.n_r,
            n_s: c.n_s,
            n_local: c.n_local,
            n_cache: c.n_cache,
            n_memo,
            enumerates_sets: planner.enumerates.get(),
        })
    }

    fn add(
        &mut self,
        source: Source,
        constants: &[&str],
        params: &[&str],
    ) -> Result<u32, SolverError> {
        let plain = Arc::new(self.compile(&source, constants, params, false)?);
        let tabled = if self.table_map.is_empty() && self.shifts.is_empty() {
            None
        } else {
            Some(Arc::new(self.compile(&source, constants, params, true)?))
        };
        self.entries.push(Entry {
            source,
            constants: constants.iter().map(|s| s.to_string()).collect(),
            params: params.iter().map(|s| s.to_string()).collect(),
            plain,
            tabled,
        });
        Ok(self.entries.len() as u32 - 1)
    }

    /// Compiles a formula in which the element names `constants` (in order)
    /// denote elements given at evaluation, and the real variables `params`
    /// (names without ':') reals given at evaluation. Every other free
    /// variable is an error.
    pub fn compile_formula(
        &mut self,
        f: &Formula,
        constants: &[&str],
        params: &[&str],
    ) -> Result<FormulaId, SolverError> {
        self.add(Source::Formula(f.clone()), constants, params)
            .map(FormulaId)
    }

    /// Compiles a real term, like [`Solver::compile_formula`].
    pub fn compile_real(
        &mut self,
        t: &RealExpr,
        constants: &[&str],
        params: &[&str],
    ) -> Result<RealId, SolverError> {
        self.add(Source::Real(t.clone()), constants, params)
            .map(RealId)
    }

    /// Compiles a query: [`Solver::satisfying`] lists the tuples of elements
    /// for `free` that satisfy `f`.
    pub fn compile_query(
        &mut self,
        f: &Formula,
        free: &[&str],
        constants: &[&str],
        params: &[&str],
    ) -> Result<FormulaId, SolverError> {
        let free = free.iter().map(|s| s.to_string()).collect();
        self.add(Source::Query(f.clone(), free), constants, params)
            .map(FormulaId)
    }

    /// Compiles `f`, with the one free element variable `var`, for
    /// set-at-a-time evaluation by [`Solver::set_of`], if it is in the
    /// fragment that allows it (unary relations combined by `and`, `or`,
    /// `not`, images under binary relations, closed subformulas, unary
    /// fixed points); `None` otherwise.
    /// `constants` and `params` as in [`Solver::compile_formula`].
    pub fn compile_set(
        &mut self,
        f: &Formula,
        var: &str,
        constants: &[&str],
        params: &[&str],
    ) -> Result<Option<FormulaId>, SolverError> {
        let source = Source::Set(f.clone(), var.to_string());
        if self.compile(&source, constants, params, false).is_err() {
            // Either not in the fragment or not a valid formula: let the
            // caller's tuple-at-a-time compilation report the latter.
            return Ok(None);
        }
        self.add(source, constants, params)
            .map(|i| Some(FormulaId(i)))
    }

    /// The elements satisfying a formula compiled by
    /// [`Solver::compile_set`], for these constants and parameters.
    pub fn set_of(
        &self,
        s: &Structure,
        f: FormulaId,
        constants: &[Elem],
        params: &[f64],
    ) -> BitSet {
        let c = self.pick(f.0, s);
        let ev = Ev { sv: self, st: s };
        Self::with_env(c, constants, params, |env| match &c.body {
            Body::Set(e) => unary::to_bitset(ev.set_words(e, env, &[])),
            _ => panic!("set_of() called on a formula not compiled by compile_set()"),
        })
    }

    /// [`Solver::set_of`], keeping in `memo` the parts of the formula that
    /// depend on the structure only, for later calls on the same structure
    /// (with any constants and parameters). A memo must be used with one
    /// structure only (a fresh one per state).
    pub fn set_of_memo(
        &self,
        s: &Structure,
        f: FormulaId,
        constants: &[Elem],
        params: &[f64],
        memo: &mut SetMemo,
    ) -> BitSet {
        let c = self.pick(f.0, s);
        if c.n_memo == 0 && c.shared.is_empty() {
            return self.set_of(s, f, constants, params);
        }
        let ev = Ev { sv: self, st: s };
        let i = match memo.0.iter().position(|(id, _)| *id == f.0) {
            Some(i) => i,
            None => {
                memo.0.push((f.0, vec![None; c.n_memo as usize]));
                memo.0.len() - 1
            }
        };
        let mut slots = std::mem::take(&mut memo.0[i].1);
        slots.resize(c.n_memo as usize, None);
        let out = Self::with_env(c, constants, params, |env| {
            std::mem::swap(&mut env.memo, &mut slots);
            let out = memo.with_shared(c, env, |env| match &c.body {
                Body::Set(e) => unary::to_bitset(ev.set_words(e, env, &[])),
                _ => panic!("set_of_memo() called on a formula not compiled by compile_set()"),
            });
            std::mem::swap(&mut env.memo, &mut slots);
            out
        });
        memo.0[i].1 = slots;
        out
    }

    /// [`Solver::holds`], keeping in `memo` the values of the shared closed
    /// defined relations, for later calls on the same structure. A memo
    /// must be used with one structure only (a fresh one per state).
    pub fn holds_memo(
        &self,
        s: &Structure,
        f: FormulaId,
        constants: &[Elem],
        params: &[f64],
        memo: &mut SetMemo,
    ) -> bool {
        let c = self.pick(f.0, s);
        let ev = Ev { sv: self, st: s };
        let Some(closed) = &c.closed_caches else {
            return Self::with_env(c, constants, params, |env| {
                memo.with_shared(c, env, |env| ev.holds_body(&c.body, env))
            });
        };
        let i = match memo.2.iter().position(|(id, _)| *id == f.0) {
            Some(i) => i,
            None => {
                memo.2.push((f.0, vec![HashMap::new(); c.n_cache as usize]));
                memo.2.len() - 1
            }
        };
        let mut caches = std::mem::take(&mut memo.2[i].1);
        // A memo outlives an interpreter (a per-thread pool): an entry may
        // be another solver's formula of the same id, emptied by `clear`.
        caches.resize_with(c.n_cache as usize, HashMap::new);
        let out = Self::with_env(c, constants, params, |env| {
            // Only the caches that depend on the structure alone carry
            // over; the others are this call's.
            for &k in closed {
                std::mem::swap(&mut env.caches[k as usize], &mut caches[k as usize]);
            }
            let out = memo.with_shared(c, env, |env| ev.holds_body(&c.body, env));
            for &k in closed {
                std::mem::swap(&mut env.caches[k as usize], &mut caches[k as usize]);
            }
            out
        });
        memo.2[i].1 = caches;
        out
    }

    /// The size of a formula or term to compile with its defined
    /// relations inlined ([`ir::sizes::node_size`]).
    fn source_size(&self, source: &Source) -> u64 {
        use ir::walk::Node as N;
        let n = match source {
            Source::Formula(f) | Source::Query(f, _) | Source::Set(f, _) => N::Formula(f),
            Source::Real(t) => N::Real(t),
        };
        ir::sizes::node_size(n, &self.def_index, &self.def_sizes)
    }

    fn pick(&self, id: u32, s: &Structure) -> &Compiled {
        let e = &self.entries[id as usize];
        match (&e.tabled, &self.tables_live) {
            // Word by word: a slice comparison calls `memcmp`, a visible
            // cost at one call per evaluation.
            (Some(t), Some(live))
                if s.live().words().len() == live.words().len()
                    && s.live()
                        .words()
                        .iter()
                        .zip(live.words())
                        .all(|(a, b)| a == b) =>
            {
                t
            }
            _ => &e.plain,
        }
    }

    fn env(c: &Compiled, constants: &[Elem], params: &[f64]) -> Env {
        assert_eq!(constants.len(), c.n_const, "wrong number of constants");
        assert_eq!(params.len(), c.n_param, "wrong number of real parameters");
        let mut env = Env::new(c);
        env.e[..constants.len()].copy_from_slice(constants);
        env.r[..params.len()].copy_from_slice(params);
        env
    }

    /// Runs `f` with an environment for `c` taken from a per-thread pool:
    /// evaluation is called per match and per state in playouts, and
    /// allocating the slot vectors each time cost more than the evaluation
    /// of small formulas.
    fn with_env<R>(
        c: &Compiled,
        constants: &[Elem],
        params: &[f64],
        f: impl FnOnce(&mut Env) -> R,
    ) -> R {
        assert_eq!(constants.len(), c.n_const, "wrong number of constants");
        assert_eq!(params.len(), c.n_param, "wrong number of real parameters");
        // Boxed, so that taking one from the pool and returning it moves a
        // pointer, not the slot vectors.
        thread_local! {
            #[allow(clippy::vec_box)]
            static POOL: std::cell::RefCell<Vec<Box<Env>>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let mut env = match POOL.with(|p| p.borrow_mut().pop()) {
            Some(mut env) => {
                env.reset(c);
                env
            }
            None => Box::new(Env::new(c)),
        };
        env.e[..constants.len()].copy_from_slice(constants);
        env.r[..params.len()].copy_from_slice(params);
        let out = f(&mut env);
        POOL.with(|p| p.borrow_mut().push(env));
        out
    }

    /// Whether the compiled formula holds in `s` with these constants and
    /// parameters. (For a query, whether it has a satisfying tuple.)
    pub fn holds(&self, s: &Structure, f: FormulaId, constants: &[Elem], params: &[f64]) -> bool {
        let c = self.pick(f.0, s);
        let ev = Ev { sv: self, st: s };
        Self::with_env(c, constants, params, |env| match &c.body {
            Body::Formula(n) => ev.holds(n, env),
            Body::Query(qs) => qs.iter().any(|q| ev.run(q, env, &mut |_, _| true)),
            Body::Real(_) => panic!("holds() called on a real term"),
            Body::Set(e) => ev.set_words(e, env, &[]).iter().any(|&w| w != 0),
        })
    }

    /// The value of the compiled term in `s`.
    pub fn value(&self, s: &Structure, t: RealId, constants: &[Elem], params: &[f64]) -> f64 {
        let c = self.pick(t.0, s);
        let ev = Ev { sv: self, st: s };
        Self::with_env(c, constants, params, |env| match &c.body {
            Body::Real(t) => ev.value(t, env),
            _ => panic!("value() called on a formula"),
        })
    }

    /// All tuples of elements for the query's free variables that satisfy
    /// it, in lexicographic order of element ids, without repetitions.
    pub fn satisfying(
        &self,
        s: &Structure,
        q: FormulaId,
        constants: &[Elem],
        params: &[f64],
    ) -> Vec<Vec<Elem>> {
        let c = self.pick(q.0, s);
        let mut env = Self::env(c, constants, params);
        let ev = Ev { sv: self, st: s };
        let mut out: Vec<Vec<Elem>> = Vec::new();
        match &c.body {
            Body::Query(qs) => {
                for search in qs {
                    if sat::has_sat_filter(search) {
                        out.extend(sat::enumerate(&ev, search, &c.free, &mut env));
                        continue;
                    }
                    ev.run(search, &mut env, &mut |_, env| {
                        out.push(c.free.iter().map(|&v| env.e[v as usize]).collect());
                        false
                    });
                }
            }
            Body::Formula(n) => {
                if ev.holds(n, &mut env) {
                    out.push(Vec::new());
                }
            }
            Body::Real(_) => panic!("satisfying() called on a real term"),
            Body::Set(e) => {
                let w = ev.set_words(e, &mut env, &[]);
                out.extend(unary::to_bitset(w).iter().map(|x| vec![x]));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Declares the relations that no rule changes in this game. Takes
    /// effect with [`Solver::set_stable_from`].
    pub fn set_stable(&mut self, stable: &[RelId]) {
        self.stable = stable.iter().copied().collect();
    }

    /// Tabulates, on `s`, every defined relation whose body uses (also
    /// through other definitions) only stable relations and no functions,
    /// and recompiles all formulas to use these tables on structures with
    /// the live elements of `s`.
    pub fn set_stable_from(&mut self, s: &Structure) {
        self.table_map.clear();
        self.tables.clear();
        self.tables_live = None;
        self.shifts.clear();
        let mut stable_def = vec![None; self.defs.len()];
        for d in 0..self.defs.len() {
            self.def_is_stable(d, &mut stable_def, &mut Vec::new());
        }
        for (d, stable) in stable_def.into_iter().enumerate() {
            if stable != Some(true) || self.defs[d].params.len() > MAX_TABLE_ARITY {
                continue;
            }
            let def = &self.defs[d];
            let params: Vec<&str> = def.params.iter().map(|p| p.as_str()).collect();
            let source = Source::Query(def.body.clone(), def.params.clone());
            let Ok(c) = self.compile(&source, &[], &[], true) else {
                continue;
            };
            let _ = params;
            let tuples = {
                let mut env = Self::env(&c, &[], &[]);
                let ev = Ev { sv: self, st: s };
                let mut out: Vec<Vec<Elem>> = Vec::new();
                let mut full = false;
                if let Body::Query(qs) = &c.body {
                    for search in qs {
                        full = full
                            || ev.run(search, &mut env, &mut |_, env| {
                                out.push(c.free.iter().map(|&v| env.e[v as usize]).collect());
                                out.len() >= MAX_TABLE_TUPLES
                            });
                    }
                }
                out.sort_unstable();
                out.dedup();
                if full {
                    continue;
                }
                out
            };
            let arity = def.params.len();
            let rows = (arity >= 3).then(|| Rows::new(arity, s.id_bound(), &tuples));
            let data = table_data(arity, s.id_bound(), tuples);
            self.tables.push(Table { arity, data, rows });
            self.table_map.insert(d, self.tables.len() as u32 - 1);
        }
        // Stable binary relations (of the signature and tabulated) as
        // translations, for set-at-a-time images.
        let bound = s.id_bound();
        let mut binary: Vec<(RelRef, &RelationData)> = self
            .stable
            .iter()
            .filter(|&&r| s.arity(r) == 2)
            .map(|&r| (RelRef::Struct(r), s.relation_data(r)))
            .collect();
        for (t, table) in self.tables.iter().enumerate() {
            if table.arity == 2 {
                binary.push((RelRef::Table(t as u32), &table.data));
            }
        }
        let shifts: Vec<_> = binary
            .into_iter()
            .filter_map(|(r, d)| Shifts::of(d, bound).map(|x| (r, x)))
            .collect();
        self.shifts.extend(shifts);
        if !self.table_map.is_empty() || !self.shifts.is_empty() {
            self.tables_live = Some(s.live().clone());
        }
        for i in 0..self.entries.len() {
            let e = &self.entries[i];
            let consts: Vec<&str> = e.constants.iter().map(|s| s.as_str()).collect();
            let params: Vec<&str> = e.params.iter().map(|s| s.as_str()).collect();
            let tabled = if self.table_map.is_empty() && self.shifts.is_empty() {
                None
            } else {
                self.compile(&e.source, &consts, &params, true)
                    .ok()
                    .map(Arc::new)
            };
            self.entries[i].tabled = tabled;
        }
    }

    fn def_is_stable(
        &self,
        d: usize,
        memo: &mut Vec<Option<bool>>,
        stack: &mut Vec<usize>,
    ) -> bool {
        if let Some(b) = memo[d] {
            return b;
        }
        if stack.contains(&d) {
            return false;
        }
        stack.push(d);
        let mut names = BTreeSet::new();
        let mut funs = false;
        ir_deps(&self.defs[d].body, &mut Vec::new(), &mut names, &mut funs);
        let mut ok = !funs;
        for n in names {
            if !ok {
                break;
            }
            ok = if let Some(&d2) = self.def_index.get(&n) {
                self.def_is_stable(d2, memo, stack)
            } else {
                self.sig
                    .relation(&n)
                    .is_some_and(|r| self.stable.contains(&r))
            };
        }
        stack.pop();
        memo[d] = Some(ok);
        ok
    }
}

/// Defined relations of up to this arity are tabulated (lines of five on
/// a Gomoku board are a 5-ary stable relation)...
const MAX_TABLE_ARITY: usize = 6;
/// ...unless they have this many tuples or more (then the definition is
/// evaluated instead; the table would be too large to pay off).
const MAX_TABLE_TUPLES: usize = toss_core::limits::STABLE_TABLE_TUPLES.value;

fn table_data(arity: usize, bound: usize, tuples: Vec<Vec<Elem>>) -> RelationData {
    match arity {
        0 => RelationData::Nullary(!tuples.is_empty()),
        1 => {
            let mut b = BitSet::with_capacity(bound);
            for t in &tuples {
                b.insert(t[0]);
            }
            RelationData::Unary(b)
        }
        2 => {
            let mut fwd = vec![Vec::new(); bound];
            let mut bwd = vec![Vec::new(); bound];
            for t in &tuples {
                fwd[t[0] as usize].push(t[1]);
                bwd[t[1] as usize].push(t[0]);
            }
            for v in bwd.iter_mut() {
                v.sort_unstable();
            }
            RelationData::Binary {
                fwd,
                bwd,
                len: tuples.len(),
            }
        }
        _ => RelationData::General(tuples.into_iter().map(|t| t.into_boxed_slice()).collect()),
    }
}

/// Relation names used by `f` (other than local ones) and whether it uses
/// functions.
fn ir_deps(f: &Formula, locals: &mut Vec<String>, names: &mut BTreeSet<String>, funs: &mut bool) {
    match f {
        Formula::True | Formula::False | Formula::Eq(..) | Formula::In { .. } => {}
        Formula::Rel { name, .. } => {
            if !locals.contains(name) {
                names.insert(name.clone());
            }
        }
        Formula::Cmp { lhs, rhs, .. } => {
            ir_term_deps(lhs, locals, names, funs);
            ir_term_deps(rhs, locals, names, funs);
        }
        Formula::Not(x) => ir_deps(x, locals, names, funs),
        Formula::And(xs) | Formula::Or(xs) => {
            xs.iter().for_each(|x| ir_deps(x, locals, names, funs))
        }
        Formula::Implies(a, b) | Formula::Iff(a, b) => {
            ir_deps(a, locals, names, funs);
            ir_deps(b, locals, names, funs);
        }
        Formula::Exists { body, .. } | Formula::Forall { body, .. } | Formula::Tc { body, .. } => {
            ir_deps(body, locals, names, funs)
        }
        Formula::Fixpoint { relation, body, .. } => {
            locals.push(relation.clone());
            ir_deps(body, locals, names, funs);
            locals.pop();
        }
        Formula::Let {
            relation,
            def,
            body,
            ..
        } => {
            ir_deps(def, locals, names, funs);
            locals.push(relation.clone());
            ir_deps(body, locals, names, funs);
            locals.pop();
        }
        Formula::LetReal { value, body, .. } => {
            ir_term_deps(value, locals, names, funs);
            ir_deps(body, locals, names, funs);
        }
    }
}

fn ir_term_deps(
    t: &RealExpr,
    locals: &mut Vec<String>,
    names: &mut BTreeSet<String>,
    funs: &mut bool,
) {
    match t {
        RealExpr::Const(_) | RealExpr::Var(_) => {}
        RealExpr::Fun { .. } | RealExpr::Derivative { .. } => *funs = true,
        RealExpr::Char(f) => ir_deps(f, locals, names, funs),
        RealExpr::Neg(x) | RealExpr::Root(_, x) => ir_term_deps(x, locals, names, funs),
        RealExpr::Add(a, b)
        | RealExpr::Sub(a, b)
        | RealExpr::Mul(a, b)
        | RealExpr::Div(a, b)
        | RealExpr::Pow(a, b) => {
            ir_term_deps(a, locals, names, funs);
            ir_term_deps(b, locals, names, funs);
        }
        RealExpr::Sum { guard, body, .. } | RealExpr::Product { guard, body, .. } => {
            ir_deps(guard, locals, names, funs);
            ir_term_deps(body, locals, names, funs);
        }
        RealExpr::Min { body, .. } => ir_deps(body, locals, names, funs),
        RealExpr::Let { value, body, .. } => {
            ir_term_deps(value, locals, names, funs);
            ir_term_deps(body, locals, names, funs);
        }
    }
}
