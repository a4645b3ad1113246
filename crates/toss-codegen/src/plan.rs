//! The specialization plan: the code generator's own IR.
//!
//! Built at compile time from the game IR, the starting structure and the
//! interpreter's analysis of stable relations, it decides everything the
//! emitted code hard-wires:
//! - the element numbering (the ids of the starting structure) and the
//!   bitset width `W` (`64 * W >= elements`);
//! - which relations are stable (tabulated once, here) and which unary
//!   relations are fluent (one `Bits<W>` each in the generated state);
//! - how each fluent relation of another arity is kept ([`Repr`]): a
//!   binary one over at most `MAX_DENSE_ELEMENTS` elements densely (per
//!   element the set of its successors and of its predecessors, and the
//!   set of loops), any other as a sorted list of tuples. A matcher walks
//!   it from the elements bound before ([`SetExpr::Tuples`]: a row of
//!   successors or predecessors), a condition tests a tuple of bound
//!   elements ([`Cond::Holds`]), `{x | ex y (S(y) and E(y, x))}` is its
//!   image ([`Rel2::Fluent`]), and an effect removes the tuples over the
//!   matched elements (`emb`) and adds the right side's;
//! - constant masks (stable sets such as "the top row"), neighbour tables
//!   (per element, the set of its neighbours in a stable binary relation)
//!   and offset groups (a stable binary relation that is a grid step is
//!   "add `d` to the id" on a mask of sources: a shift);
//! - for every formula, a set expression (one free element variable) or a
//!   condition (a sentence) in bitset algebra: stable sub-formulas are
//!   evaluated here by the runtime solver and become masks or tables;
//!   `ex x1..xk (S1(x1) and .. and Sk(xk) and Stable(x1..xk))` becomes a
//!   *pattern*: the tuples of the stable part grouped by their id offsets,
//!   each group tested with shifts (the lines of tic-tac-toe, Connect Four,
//!   Gomoku); an existential whose body ties its variables through a
//!   fluent disjunction is distributed over it into such patterns (a piece
//!   that can jump: a king in any direction or a man forward); a monadic
//!   least fixed point becomes an iteration on bitsets;
//! - *offset form*, for `{x | ex y ..}` whose variables are tied through
//!   fluent relations (the lines of Reversi: from `x`, white discs, then a
//!   black one): each quantified variable is `x + o` for each offset `o`
//!   the stable relation linking it to the earlier ones allows, one branch
//!   per offset, united; in a branch a fluent `F(v)` is `F` shifted by the
//!   offset of `v`, a stable conjunct a mask of `x` (a table row when it
//!   also mentions the one bound element allowed, as `n` in `FlipsB(n,
//!   x)`), `v = n` a shifted singleton. The pairs (`x`, bound element) the
//!   stable conjuncts around a branch allow are tracked at build time and
//!   a branch they exclude is cut, so a line walked from `x` keeps its
//!   direction: Reversi's legal placements and flipped discs come out as
//!   eight directions of shifts, like a hand-written bitboard generator;
//! - for every rule, a matcher: one candidate set per left element (the
//!   positive unary tuples, the exactness of `emb` relations as negated
//!   bits, and the precondition conjuncts about that element alone),
//!   neighbour tables linking each element to earlier ones, sets of the
//!   fluent relations of other arities and of the exactness of `emb`
//!   relations of other arities given the earlier elements, and a shift
//!   for two-element rules linked by a grid step. The join order is chosen
//!   here ([`JoinOrder`]): greedily the element with the fewest estimated
//!   candidates on the starting structure given those bound before,
//!   against the declaration order, which lists the matches in the
//!   interpreter's canonical order for free; another order is taken only
//!   when it saves more than sorting its matches costs (the move list is
//!   then sorted, and the rule leaves the shared-prefix trees);
//! - the effect of each rule on the fluent bitsets and on fluent functions
//!   (functions some rule updates: per-element values in the state);
//! - labels with multiplicity `inf` (all matches at once, spec 1.4): one
//!   move when the rule has a match, whose matches are found in the state
//!   before the move, as the interpreter does, and applied either as sets
//!   (per left element, the set of its images loses and gains the rule's
//!   bits: the same as one after the other when no element is the image
//!   of two left elements and no function is updated, [`AllEffect::Sets`])
//!   or one after the other in canonical order;
//! - conditions on elements bound by the matcher or by a loop: a
//!   precondition over several left elements is a set computed once the
//!   earlier ones are bound, or a test per candidate; what set algebra
//!   cannot say at once becomes a loop `ex x in S (...)`; an existential
//!   precondition over several left elements is also tested, weakened to
//!   its conjuncts about the elements bound so far, at each earlier step
//!   (a chain of jumps is cut at its first impossible jump); `tc` from a bound
//!   element is a fixed point, a look-up in a table of rays when it steps
//!   in one grid direction; postconditions are tested after the effect
//!   (on a copy of the fluent bitsets alone when they read nothing else);
//! - for every mover, a shared-prefix tree ([`PrefixNode`]) of the labels a
//!   playout counts: matchers that agree on their first steps (the clock
//!   and the moving piece of draughts' jump chains, the amazon and its
//!   destination in amazons) enumerate those steps once per ply for all of
//!   them; a label whose last step has no per-candidate test is counted by
//!   a popcount per binding of the earlier elements
//!   ([`RulePlan::last_step_counted`]);
//! - per location, the sets a playout would compute more than once per
//!   ply (a rule's set of matches and a sentence of another label: the
//!   legal placements of Reversi and its pass rule's `CanB()`), computed
//!   once ([`shared_sets`]).
//!
//! Per rule and per payoff, what is outside this fragment runs on the
//! interpreter: a rule's matches ([`RulePlan::interpreted`]), the check of
//! each specialized match ([`RulePlan::check_fallback`]), its effect
//! ([`RulePlan::effect_fallback`]), a payoff. Only a game whose state is
//! not a fixed set of elements (rules that create or delete elements),
//! or whose moves
//! are not one label and one match (time, parameters, multiplicity `*`:
//! a move would be any of the sets of disjoint matches), makes
//! [`Plan::build`] fail; it then keeps the interpreter path, and the
//! generated impl's doc comment says why. [`Plan::dump`] prints the plan as text
//! (snapshot-tested), fallbacks included.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use toss_lang::print::{print_formula, print_real};
use toss_core::game::Game as _;
use toss_heuristics::Heuristics;
use toss_core::ir::subst::{BoundNames, Substitution};
use toss_core::ir::{self, Formula, Multiplicity, RealExpr, Var};
use toss_runtime::solver::Solver;
use toss_runtime::{Interpreter, Structure};

/// Why a game (or a part of it) is outside the specialized fragment.
pub type Unsupported = String;

/// A fluent binary relation over at most this many elements is dense (a
/// set of successors and one of predecessors per element): 2 N W words,
/// 4 KiB at 128 elements, in a state that is copied for postconditions and
/// kept per node of a search tree. Over more elements, or of another arity,
/// a fluent relation is a sorted list of tuples.
const MAX_DENSE_ELEMENTS: usize = 128;
/// At most this many offset groups make a stable binary relation a set of
/// shifts; more become a neighbour table.
const MAX_SHIFTS: usize = 8;
/// At most this many tuples over the left elements of a rule are tested
/// for exact matching on one relation (the interpreter's limit).
const MAX_EXACT_TUPLES: usize = 1 << 16;
/// At most this many tuples are tabulated for a pattern.
const MAX_PATTERN_TUPLES: usize = 200_000;
/// At most this many rows (elements squared) for a table of pairs.
const MAX_PAIR_ROWS: usize = 16_384;
/// At most this many patterns from distributing an existential over the
/// disjunctions in its body.
const MAX_DISTRIBUTED: usize = 8;
/// At most this many offsets for a variable of a formula in offset form,
/// and this many branches (offset choices) in all.
const MAX_OFFSETS: usize = 16;
const MAX_OFFSET_BRANCHES: usize = 4096;

/// `(base, bound element, offset of the extra variable)` per tuple of a
/// stable conjunct in offset form.
type OffsetPairs = Vec<(u32, u32, i32)>;

/// What a formula compiled in offset form ([`Builder::offset_set`]) knows
/// at a point: the quantified variables at their offsets from the base
/// element, the bound element it also mentions (at most one), and the
/// pairs `(base, bound element)` the stable conjuncts around allow.
struct Offsets {
    vars: Vec<(String, i32)>,
    param: Option<(String, Bound)>,
    ctx: BTreeSet<(u32, u32)>,
    branches: usize,
}

/// An element bound while a matcher or a condition runs: a left element
/// of the rule being matched, or the variable of a loop
/// ([`Cond::Exists`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Left(usize),
    Loop(usize),
}

/// A set of elements, computed from the state (and bound elements).
#[derive(Clone, Debug, PartialEq)]
pub enum SetExpr {
    Empty,
    Universe,
    /// A constant mask (index into [`Plan::masks`]).
    Mask(usize),
    /// A fluent unary relation (index into [`Plan::fluents`]).
    Fluent(usize),
    /// The variable of an enclosing [`SetExpr::Fix`].
    FixVar(usize),
    And(Vec<SetExpr>),
    Or(Vec<SetExpr>),
    /// Complement within the universe.
    Not(Box<SetExpr>),
    /// `{x | ex y in of, (y, x) in rel}`.
    Image {
        rel: Rel2,
        of: Box<SetExpr>,
    },
    /// The universe if `of` is non-empty, else the empty set.
    AllIf(Box<SetExpr>),
    /// The least fixed point of `var = body`, from the empty set.
    Fix {
        var: usize,
        body: Box<SetExpr>,
    },
    /// The singleton of a bound element.
    Elem(Bound),
    /// `table[of]`: the neighbours of a bound element in a stable relation.
    Row {
        table: usize,
        of: Bound,
    },
    /// `table[a * n + b]`: the `x` with `(a, b, x)` in a stable relation.
    Row2 {
        table: usize,
        a: Bound,
        b: Bound,
    },
    /// `{x | rel(args)}` for a fluent relation of arity 2 or more (index
    /// into [`Plan::fluent_rels`]), each argument a bound element or `x`
    /// (`None`): the successors of a bound element in a binary relation,
    /// its predecessors, or the elements related to themselves.
    Tuples {
        rel: usize,
        args: Vec<Option<Bound>>,
    },
    /// The universe if the condition holds, else the empty set.
    If(Box<Cond>),
    /// `from` and the cells of the ray `table[from]` before its first cell
    /// outside `through` (the nearest: the least id when `up`, the
    /// greatest otherwise).
    Ray {
        table: usize,
        from: Bound,
        through: Box<SetExpr>,
        up: bool,
    },
}

/// Whether a set expression uses the fixed-point variable `var`.
fn mentions_fix(s: &SetExpr, var: usize) -> bool {
    match s {
        SetExpr::FixVar(v) => *v == var,
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().any(|x| mentions_fix(x, var)),
        SetExpr::Not(x) | SetExpr::AllIf(x) => mentions_fix(x, var),
        SetExpr::Image { of, .. } => mentions_fix(of, var),
        SetExpr::Fix { body, .. } => mentions_fix(body, var),
        SetExpr::Ray { through, .. } => mentions_fix(through, var),
        // Conditions inside `If` cannot use a set variable of this plan.
        SetExpr::If(_)
        | SetExpr::Empty
        | SetExpr::Universe
        | SetExpr::Mask(_)
        | SetExpr::Fluent(_)
        | SetExpr::Elem(_)
        | SetExpr::Row { .. }
        | SetExpr::Row2 { .. }
        | SetExpr::Tuples { .. } => false,
    }
}

/// A binary relation `(y, x)`, as used by an image.
#[derive(Clone, Debug, PartialEq)]
pub enum Rel2 {
    /// Stable: `x = y + d` for `y` in the mask, one entry per offset `d`.
    Shifts(Vec<(i32, usize)>),
    /// Stable: a neighbour table (index into [`Plan::tables`]): `x in
    /// table[y]`.
    Table(usize),
    /// A fluent binary relation (index into [`Plan::fluent_rels`]):
    /// `rel(y, x)` when `forward`, else `rel(x, y)`.
    Fluent { rel: usize, forward: bool },
}

/// A condition on the state (and bound elements).
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    Const(bool),
    NonEmpty(SetExpr),
    /// `ex x1..xk (x1 in sets[0] and ... and Stable(x1..xk))` with the
    /// stable part given by a pattern (index into [`Plan::patterns`]).
    Pattern {
        pattern: usize,
        sets: Vec<SetExpr>,
    },
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    /// A bound element is in a set.
    In(Bound, SetExpr),
    /// A tuple of bound elements is in a fluent relation of arity other
    /// than 1 (index into [`Plan::fluent_rels`]).
    Holds {
        rel: usize,
        args: Vec<Bound>,
    },
    Eq(Bound, Bound),
    Cmp(Num, ir::CmpOp, Num),
    /// Some element of `over`, bound as `Bound::Loop(var)`, satisfies `body`.
    Exists {
        var: usize,
        over: SetExpr,
        body: Box<Cond>,
    },
}

/// A function: a stable one (a constant table) or a fluent one (in the
/// state), by index into [`Plan::stable_funs`] or [`Plan::funs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FunRef {
    Stable(usize),
    Fluent(usize),
}

/// A real-valued term (payoffs).
#[derive(Clone, Debug, PartialEq)]
pub enum Num {
    Const(f64),
    /// 1 where the condition holds, else 0.
    Cond(usize),
    /// The number of elements of a set, times a constant.
    Count(SetExpr, f64),
    Neg(Box<Num>),
    Add(Box<Num>, Box<Num>),
    Sub(Box<Num>, Box<Num>),
    Mul(Box<Num>, Box<Num>),
    /// A function's value on a bound element.
    Fun(FunRef, Bound),
    /// `body` summed over the elements of `over`, each bound as
    /// `Bound::Loop(var)` (a sum term whose body depends on its variable,
    /// as in the derived heuristics).
    Sum {
        var: usize,
        over: SetExpr,
        body: Box<Num>,
    },
    /// A closed term outside the fragment, evaluated by the runtime solver
    /// on the state's structure (index into [`HeuristicPlan::fallback`]).
    Solver(usize),
}

/// The derived heuristic (spec 3.3, the existential kind, with the
/// default `HeuristicConfig`) of every player in every location, compiled
/// like the payoffs: each maximal closed part the specializer cannot
/// compile falls back to the solver.
#[derive(Clone, Debug)]
pub struct HeuristicPlan {
    /// `per_location[l][p]`: player `p` in location `l`.
    pub per_location: Vec<Vec<Num>>,
    /// The parts evaluated by the solver: the term and why it is not
    /// compiled.
    pub fallback: Vec<(RealExpr, Unsupported)>,
}

/// A function as values per element (a fluent one: initial values).
#[derive(Clone, Debug)]
pub struct FunPlan {
    pub name: String,
    pub values: Vec<f64>,
    /// Whether some compiled term reads it.
    pub used: bool,
}

/// A fluent unary relation: one bitset in the state.
#[derive(Clone, Debug)]
pub struct Fluent {
    pub name: String,
    /// Members in the initial state.
    pub initial: Vec<u32>,
}

/// How a fluent relation of arity other than 1 is kept in the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repr {
    /// Binary over at most `MAX_DENSE_ELEMENTS` elements: per element the
    /// set of its successors and the set of its predecessors, and the set
    /// of elements related to themselves, so a step from a bound element
    /// either way is one look-up and an effect two bit operations per
    /// tuple.
    Dense,
    /// A sorted list of tuples: any arity, any number of elements, memory
    /// in proportion to the tuples.
    Sparse,
}

/// A fluent relation of arity other than 1.
#[derive(Clone, Debug)]
pub struct FluentRel {
    pub name: String,
    pub arity: usize,
    pub repr: Repr,
    /// Tuples in the initial state, sorted.
    pub initial: Vec<Vec<u32>>,
}

/// A constant set of elements and what it is.
#[derive(Clone, Debug)]
pub struct Mask {
    pub what: String,
    pub members: BTreeSet<u32>,
}

/// Per element `y`, the set of `x` with `(y, x)` in a stable relation (or,
/// for a table of pairs, per `a * n + b` the `x` with `(a, b, x)`).
#[derive(Clone, Debug)]
pub struct Table {
    pub what: String,
    pub rows: Vec<BTreeSet<u32>>,
}

/// The stable part of an existential sentence, tabulated and grouped by
/// offsets: a tuple `(t0, .., tk)` is in group `g` iff `t0` is in the
/// group's start mask and `ti = t0 + offsets[i]`.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub what: String,
    pub vars: Vec<String>,
    pub tuples: usize,
    pub groups: Vec<(Vec<i32>, usize)>,
}

/// How the candidates of a left element are restricted by an earlier one.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// The earlier left element.
    pub from: usize,
    /// Neighbour table: candidates are within `table[image of from]`.
    pub table: usize,
}

/// One step of a matcher: bind left element `elem`.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub elem: usize,
    pub cand: SetExpr,
    pub links: Vec<Link>,
    /// Earlier elements it must differ from (injectivity), where not
    /// implied by the candidate sets.
    pub distinct_from: Vec<usize>,
    /// Sets that depend on earlier elements (computed once they are bound).
    pub inner: Vec<SetExpr>,
    /// Conditions on the element and earlier ones, tested per candidate.
    pub checks: Vec<Cond>,
}

/// How the join order of a matcher was chosen: the greedy order (most
/// selective first) against the declaration order, in estimated partial
/// matches (bindings of a prefix of the order the loops go through, on
/// the starting structure), and whether the greedy one is used. It is,
/// when it saves more than sorting the matches into canonical order (about
/// `m log2 m` for `m` matches) costs.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinOrder {
    pub greedy: Vec<usize>,
    pub greedy_cost: f64,
    pub declared_cost: f64,
    /// Estimated matches.
    pub matches: f64,
    pub reordered: bool,
}

/// A rule's matcher and effect.
#[derive(Clone, Debug)]
pub struct RulePlan {
    pub name: String,
    pub lhs: Vec<String>,
    /// In join order (see [`RulePlan::join`]).
    pub steps: Vec<Step>,
    /// How the join order was chosen (rules of two or more left elements
    /// with a specialized matcher).
    pub join: Option<JoinOrder>,
    /// Two elements linked by a grid step: `b = a + d` for `a` in the mask.
    pub shift: Option<(i32, usize)>,
    /// The match-independent precondition (index into [`Plan::conds`]).
    pub sentence: Option<usize>,
    /// `(fluent, left element)` removed, then added.
    pub removes: Vec<(usize, usize)>,
    pub adds: Vec<(usize, usize)>,
    /// Fluent relations of arity other than 1 (indices into
    /// [`Plan::fluent_rels`]) whose tuples over the matched elements are
    /// removed (`emb`), then the tuples `(relation, left elements)` added.
    pub tuple_removes: Vec<usize>,
    pub tuple_adds: Vec<(usize, Vec<usize>)>,
    /// `(fluent function, left element, value)`: update equations, the
    /// values computed before the rule is applied.
    pub updates: Vec<(usize, usize, Num)>,
    /// The postcondition, tested on the state after the effect (left
    /// elements standing for their right counterparts).
    pub post: Option<Cond>,
    /// Why the matches come from the interpreter (the matcher is not
    /// specialized); `None` when it is.
    pub interpreted: Option<Unsupported>,
    /// Why each specialized match is also checked by the interpreter (a
    /// pre- or postcondition part the specializer cannot compile).
    pub check_fallback: Option<Unsupported>,
    /// Why the interpreter applies the rule (an effect the specializer
    /// cannot compile).
    pub effect_fallback: Option<Unsupported>,
    /// How a label with multiplicity `inf` applies the rule to all its
    /// matches at once; `None` when no label does.
    pub all: Option<AllEffect>,
}

/// How all matches of a rule are applied at once (multiplicity `inf`).
/// The interpreter finds the matches in the state before the move and
/// applies them one after the other in canonical order.
#[derive(Clone, Debug, PartialEq)]
pub enum AllEffect {
    /// As sets: per left element, the set of its images over all matches
    /// has the rule's bits removed, then added. The same as one after the
    /// other when no element is the image of two left elements (their
    /// candidate sets are disjoint: each element is changed the same way
    /// by every match it is in, and a change applied twice is applied once)
    /// and no function is updated.
    Sets,
    /// One after the other, in canonical order (listed first): why not as
    /// sets.
    Sequential(Unsupported),
}

impl RulePlan {
    /// Whether the matches are exactly the candidates of the steps (no
    /// per-candidate checks, postcondition or fallback), so that a rule of
    /// one element, or two linked by a grid step, has a set of matches.
    pub fn plain(&self) -> bool {
        self.interpreted.is_none()
            && self.check_fallback.is_none()
            && self.post.is_none()
            && self
                .steps
                .iter()
                .all(|s| s.inner.is_empty() && s.checks.is_empty())
    }

    /// Whether the matches form a set of elements: one left element, or
    /// two linked by a grid step, and [`RulePlan::plain`].
    pub fn has_set(&self) -> bool {
        self.plain() && (self.lhs.len() == 1 || self.shift.is_some())
    }

    /// Whether the matcher binds the left elements in another order than
    /// their declaration (its matches are then sorted into canonical
    /// order where the order matters).
    pub fn reordered(&self) -> bool {
        self.steps.iter().enumerate().any(|(i, s)| s.elem != i)
    }

    /// Whether a playout counts the matches through a [`PrefixNode`] tree:
    /// a specialized matcher of at least one step in declaration order
    /// (the drawn match is selected in the tree's canonical order),
    /// without a set of matches and without checks by the interpreter.
    pub fn in_prefix_tree(&self) -> bool {
        !self.has_set()
            && self.interpreted.is_none()
            && self.check_fallback.is_none()
            && !self.steps.is_empty()
            && !self.reordered()
    }

    /// Whether, once the earlier left elements are bound, the matches are
    /// the candidates of the last step (no per-candidate checks there and
    /// no postcondition): they are then counted by a popcount per prefix
    /// and the match of a rank is selected by skipping whole sets.
    pub fn last_step_counted(&self) -> bool {
        self.in_prefix_tree()
            && self.post.is_none()
            && self.steps.last().is_some_and(|s| s.checks.is_empty())
    }
}

/// A node of a mover's shared-prefix tree: the step at `depth` of every
/// label's matcher that passes through it. Labels whose matchers agree on
/// their first steps (up to the numbering of loop variables) share the
/// nodes of those steps, so a playout enumerates each shared prefix once
/// per ply to count the matches of all of them (the move of the drawn rank
/// is then selected in its label's matcher alone).
#[derive(Clone, Debug)]
pub struct PrefixNode {
    /// A rule whose step `depth` this node is (the first label's).
    pub rule: usize,
    pub depth: usize,
    /// The labels (indices into the player's labels) through this node.
    pub labels: Vec<usize>,
    /// The labels whose last step this is.
    pub ends: Vec<usize>,
    pub children: Vec<PrefixNode>,
}

/// A step with its loop variables numbered in order of appearance, so that
/// equal steps of different rules compare equal.
fn canonical_step(st: &Step) -> Step {
    let mut st = st.clone();
    let mut map = BTreeMap::new();
    renumber_set(&mut st.cand, &mut map);
    st.inner.iter_mut().for_each(|s| renumber_set(s, &mut map));
    st.checks
        .iter_mut()
        .for_each(|c| renumber_cond(c, &mut map));
    st
}

/// The shared-prefix forest of the labels `members` from step `depth` on,
/// nodes in order of their first label.
fn prefix_forest(
    rules: &[RulePlan],
    labels: &[LabelPlan],
    members: &[usize],
    depth: usize,
) -> Vec<PrefixNode> {
    let mut groups: Vec<(Step, Vec<usize>)> = Vec::new();
    for &lb in members {
        let key = canonical_step(&rules[labels[lb].rule].steps[depth]);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(lb),
            None => groups.push((key, vec![lb])),
        }
    }
    groups
        .into_iter()
        .map(|(_, group)| {
            let (ends, more): (Vec<usize>, Vec<usize>) = group
                .iter()
                .partition(|&&lb| rules[labels[lb].rule].steps.len() == depth + 1);
            PrefixNode {
                rule: labels[group[0]].rule,
                depth,
                children: prefix_forest(rules, labels, &more, depth + 1),
                labels: group,
                ends,
            }
        })
        .collect()
}

/// A label of a player in a location.
#[derive(Clone, Debug)]
pub struct LabelPlan {
    pub rule: usize,
    /// Multiplicity `inf`: one move, with every match of the rule.
    pub all: bool,
    /// `(location, probability)`; one entry or several with probabilities.
    pub targets: Vec<(usize, f64)>,
}

#[derive(Clone, Debug)]
pub struct PlayerPlan {
    /// The compiled payoff, or why the interpreter computes it.
    pub payoff: Result<Num, Unsupported>,
    pub labels: Vec<LabelPlan>,
    /// The shared-prefix tree of the labels counted in a playout
    /// ([`RulePlan::in_prefix_tree`]).
    pub prefixes: Vec<PrefixNode>,
}

#[derive(Clone, Debug)]
pub struct LocPlan {
    pub players: Vec<PlayerPlan>,
    /// Players with at least one label, in order.
    pub movers: Vec<usize>,
    /// The sets a playout computes once per ply in this location and
    /// shares between the movers' sets of matches and the sentences of
    /// their preconditions ([`shared_sets`]).
    pub shared: Vec<SetExpr>,
}

/// The whole specialization of one game.
#[derive(Clone, Debug)]
pub struct Plan {
    pub players: Vec<String>,
    pub elements: Vec<String>,
    pub words: usize,
    pub stable: Vec<String>,
    pub fluents: Vec<Fluent>,
    /// Fluent relations of arity other than 1, each kept as its
    /// [`Repr`] says.
    pub fluent_rels: Vec<FluentRel>,
    /// Functions some rule updates: per element values in the state.
    pub funs: Vec<FunPlan>,
    /// Functions no rule updates: constant tables.
    pub stable_funs: Vec<FunPlan>,
    pub masks: Vec<Mask>,
    pub tables: Vec<Table>,
    pub patterns: Vec<Pattern>,
    pub conds: Vec<(String, Cond)>,
    pub rules: Vec<RulePlan>,
    pub locations: Vec<LocPlan>,
    pub initial_location: usize,
    /// The compiled heuristic, when the derive asked for it.
    pub heuristic: Option<HeuristicPlan>,
    /// Bounds of every payoff (`Game::payoff_bounds`), found on the IR.
    pub payoff_bounds: Option<(f64, f64)>,
}

impl Plan {
    /// Whether some part runs on the interpreter (the generated code then
    /// converts states to structures where it needs to).
    pub fn has_fallback(&self) -> bool {
        self.rules.iter().any(|r| {
            r.interpreted.is_some() || r.check_fallback.is_some() || r.effect_fallback.is_some()
        }) || self
            .locations
            .iter()
            .any(|l| l.players.iter().any(|p| p.payoff.is_err()))
            || self
                .heuristic
                .as_ref()
                .is_some_and(|h| !h.fallback.is_empty())
    }
}

struct Builder<'g> {
    game: &'g ir::Game,
    sig: Structure,
    solver: Solver,
    n: u32,
    /// Fluent relation names (any arity).
    fluent_names: BTreeSet<String>,
    /// Unary fluents in signature order.
    fluents: Vec<Fluent>,
    /// The other fluent relations in signature order.
    fluent_rels: Vec<FluentRel>,
    masks: Vec<Mask>,
    tables: Vec<Table>,
    patterns: Vec<Pattern>,
    conds: Vec<(String, Cond)>,
    /// Names of the fixed-point variables in scope, innermost last.
    fix_scope: Vec<(String, usize)>,
    next_fix: usize,
    fresh: usize,
    /// Bound element variables in scope, innermost last.
    scope: Vec<(String, Bound)>,
    next_loop: usize,
    funs: Vec<FunPlan>,
    stable_funs: Vec<FunPlan>,
    /// Tuples of stable relations, per relation and arity (offset form).
    atom_tuples: BTreeMap<(String, usize), Vec<Vec<u32>>>,
    /// Whether sets may be compiled in offset form (see
    /// [`Builder::offset_set`]): `Some(true)` yes, `Some(false)` no,
    /// `None` only where a condition would otherwise loop in loops.
    offsets: Option<bool>,
}

/// The effect of a rule (see the fields of [`RulePlan`] of the same names).
struct Effect {
    removes: Vec<(usize, usize)>,
    adds: Vec<(usize, usize)>,
    tuple_removes: Vec<usize>,
    tuple_adds: Vec<(usize, Vec<usize>)>,
    updates: Vec<(usize, usize, Num)>,
}

/// How many masks, tables, patterns and conditions a builder had (what a
/// compilation that is discarded must not leave behind).
type Mark = (usize, usize, usize, usize);

/// The depth of nested loops (`ex q in S (...)`) of a condition: a test
/// with loops in loops (Reversi's lines walked disc by disc) costs more
/// than the same set in offset form.
fn loop_depth(c: &Cond) -> usize {
    match c {
        Cond::Exists { over, body, .. } => 1 + loop_depth(body).max(set_loop_depth(over)),
        Cond::Not(x) => loop_depth(x),
        Cond::And(v) | Cond::Or(v) => v.iter().map(loop_depth).max().unwrap_or(0),
        Cond::NonEmpty(s) | Cond::In(_, s) => set_loop_depth(s),
        Cond::Pattern { sets, .. } => sets.iter().map(set_loop_depth).max().unwrap_or(0),
        Cond::Const(_) | Cond::Eq(..) | Cond::Cmp(..) | Cond::Holds { .. } => 0,
    }
}

fn set_loop_depth(s: &SetExpr) -> usize {
    match s {
        SetExpr::If(c) => loop_depth(c),
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().map(set_loop_depth).max().unwrap_or(0),
        SetExpr::Not(x) | SetExpr::AllIf(x) => set_loop_depth(x),
        SetExpr::Image { of, .. } => set_loop_depth(of),
        SetExpr::Fix { body, .. } => set_loop_depth(body),
        SetExpr::Ray { through, .. } => set_loop_depth(through),
        _ => 0,
    }
}

impl Plan {
    /// Plans the specialization of `game`, or says why it is outside the
    /// supported fragment.
    pub fn build(game: &ir::Game) -> Result<Plan, Unsupported> {
        Plan::build_with(game, None)
    }

    /// [`Plan::build`], also compiling the derived heuristics `heuristics`
    /// (the terms `toss_heuristics::derive` gives for `game`).
    pub fn build_with(
        game: &ir::Game,
        heuristics: Option<&Heuristics>,
    ) -> Result<Plan, Unsupported> {
        let interp = Interpreter::new(game).map_err(|e| e.message)?;
        let init = interp.initial_state();
        let sig = init.structure.clone();
        let n = sig.num_elements();
        if sig.id_bound() != n {
            return Err("the starting structure has deleted elements".into());
        }
        let stable_ids: BTreeSet<usize> = interp.stable_relations().iter().copied().collect();
        let mut solver = Solver::new(&sig, &game.defined_relations).map_err(|e| e.message)?;
        solver.set_stable(interp.stable_relations());
        solver.set_stable_from(&sig);

        let mut stable = Vec::new();
        let mut fluent_names = BTreeSet::new();
        let mut fluents = Vec::new();
        let mut fluent_rels = Vec::new();
        for r in 0..sig.num_relations() {
            let name = sig.relation_name(r).to_string();
            if stable_ids.contains(&r) {
                stable.push(name);
                continue;
            }
            fluent_names.insert(name.clone());
            let arity = sig.arity(r);
            if arity != 1 {
                let repr = if arity == 2 && n <= MAX_DENSE_ELEMENTS {
                    Repr::Dense
                } else {
                    Repr::Sparse
                };
                let mut initial = sig.tuples(r);
                initial.sort();
                fluent_rels.push(FluentRel {
                    name,
                    arity,
                    repr,
                    initial,
                });
                continue;
            }
            let initial = sig.unary(r).map(|b| b.iter().collect()).unwrap_or_default();
            fluents.push(Fluent { name, initial });
        }
        stable.sort();

        // The state keeps the elements: no rule may create, delete or copy
        // one (the interpreter path handles such games).
        for r in &game.rules {
            if !r.dynamics.is_empty() {
                return Err(format!(
                    "rule {}: continuous dynamics are not specialized",
                    r.name
                ));
            }
            let mut images = BTreeSet::new();
            for b in &r.rhs.elements {
                let l = r
                    .map
                    .iter()
                    .find(|(rr, _)| rr == b)
                    .map(|(_, l)| l.clone())
                    .ok_or_else(|| format!("rule {}: right element {b} is new", r.name))?;
                if !images.insert(l) {
                    return Err(format!(
                        "rule {}: right element {b} copies a left element",
                        r.name
                    ));
                }
            }
            if images.len() != r.lhs.elements.len() {
                return Err(format!("rule {}: the rule deletes elements", r.name));
            }
        }
        // Functions some rule updates are fluent (values in the state); the
        // others are constant tables.
        let updated: BTreeSet<&str> = game
            .rules
            .iter()
            .flat_map(|r| {
                r.update
                    .iter()
                    .map(|u| u.function.as_str())
                    .chain(r.rhs.functions.iter().map(|(f, _, _)| f.as_str()))
            })
            .collect();
        let (mut funs, mut stable_funs) = (Vec::new(), Vec::new());
        for f in 0..sig.num_functions() {
            let name = sig.function_name(f).to_string();
            let values = (0..n as u32).map(|e| sig.fun_value(f, e)).collect();
            if updated.contains(name.as_str()) {
                fluent_names.insert(format!(":{name}"));
                funs.push(FunPlan {
                    name,
                    values,
                    used: true,
                });
            } else {
                stable_funs.push(FunPlan {
                    name,
                    values,
                    used: false,
                });
            }
        }

        let mut b = Builder {
            game,
            sig,
            solver,
            n: n as u32,
            fluent_names,
            fluents,
            fluent_rels,
            masks: Vec::new(),
            tables: Vec::new(),
            patterns: Vec::new(),
            conds: Vec::new(),
            fix_scope: Vec::new(),
            next_fix: 0,
            fresh: 0,
            scope: Vec::new(),
            next_loop: 0,
            funs,
            stable_funs,
            atom_tuples: BTreeMap::new(),
            offsets: None,
        };
        let mut rules = Vec::new();
        for r in &game.rules {
            rules.push(b.rule(r));
        }
        let mut locations = Vec::new();
        for loc in &game.locations {
            let mut players = Vec::new();
            let mut movers = Vec::new();
            for (p, pl) in loc.players.iter().enumerate() {
                let payoff = b.num(&pl.payoff);
                let mut labels = Vec::new();
                for l in &pl.moves {
                    labels.push(b.label(l).map_err(|e| format!("label {}: {e}", l.rule))?);
                }
                if !labels.is_empty() {
                    movers.push(p);
                }
                players.push(PlayerPlan {
                    payoff,
                    labels,
                    prefixes: Vec::new(),
                });
            }
            locations.push(LocPlan {
                players,
                movers,
                shared: Vec::new(),
            });
        }
        for loc in &mut locations {
            for pl in &mut loc.players {
                // A label of multiplicity inf is one move whatever its
                // number of matches: it is not counted in the forest.
                let members: Vec<usize> = (0..pl.labels.len())
                    .filter(|&lb| !pl.labels[lb].all && rules[pl.labels[lb].rule].in_prefix_tree())
                    .collect();
                pl.prefixes = prefix_forest(&rules, &pl.labels, &members, 0);
            }
        }
        for loc in &locations {
            for l in loc.players.iter().flat_map(|p| &p.labels) {
                if l.all && rules[l.rule].all.is_none() {
                    let r: &mut RulePlan = &mut rules[l.rule];
                    r.all = Some(all_effect(r));
                }
            }
        }
        for loc in &mut locations {
            loc.shared = shared_sets(&rules, &b.conds, loc);
        }
        let heuristic = heuristics.map(|h| b.heuristic(h));
        let elements = (0..n as u32)
            .map(|e| b.sig.element_name(e).to_string())
            .collect();
        Ok(Plan {
            players: game.players.clone(),
            elements,
            words: n.div_ceil(64).max(1),
            stable,
            fluents: b.fluents,
            fluent_rels: b.fluent_rels,
            funs: b.funs,
            stable_funs: b.stable_funs,
            masks: b.masks,
            tables: b.tables,
            patterns: b.patterns,
            conds: b.conds,
            rules,
            locations,
            initial_location: init.location,
            heuristic,
            payoff_bounds: interp.payoff_bounds(),
        })
    }

    /// The largest number of left elements of a rule (at least 1).
    pub fn max_lhs(&self) -> usize {
        self.rules
            .iter()
            .map(|r| r.lhs.len())
            .max()
            .unwrap_or(1)
            .max(1)
    }
}

// ---------------------------------------------------------------------------
// Formulas: free variables, fluency, renaming.

// Free element variables come from the runtime, shared with the heuristics
// (`tc x, y phi` and `lfp T(x) = phi` have `x`, `y` free).
use toss_heuristics::tnf::free_vars;

/// Relation names a formula uses (not following definitions).
fn rel_names(f: &Formula, out: &mut BTreeSet<String>) {
    match f {
        Formula::Rel { name, .. } => {
            out.insert(name.clone());
        }
        Formula::Not(g)
        | Formula::Exists { body: g, .. }
        | Formula::Forall { body: g, .. }
        | Formula::Fixpoint { body: g, .. }
        | Formula::Tc { body: g, .. } => rel_names(g, out),
        Formula::And(gs) | Formula::Or(gs) => gs.iter().for_each(|g| rel_names(g, out)),
        Formula::Implies(a, b) | Formula::Iff(a, b) => {
            rel_names(a, out);
            rel_names(b, out);
        }
        Formula::Let { def, body, .. } => {
            rel_names(def, out);
            rel_names(body, out);
        }
        Formula::Cmp { lhs, rhs, .. } => {
            real_rel_names(lhs, out);
            real_rel_names(rhs, out);
        }
        Formula::LetReal { value, body, .. } => {
            real_rel_names(value, out);
            rel_names(body, out);
        }
        Formula::True | Formula::False | Formula::Eq(..) | Formula::In { .. } => {}
    }
}

fn real_rel_names(t: &RealExpr, out: &mut BTreeSet<String>) {
    match t {
        RealExpr::Char(f) | RealExpr::Min { body: f, .. } => rel_names(f, out),
        RealExpr::Neg(a) | RealExpr::Root(_, a) => real_rel_names(a, out),
        RealExpr::Add(a, b)
        | RealExpr::Sub(a, b)
        | RealExpr::Mul(a, b)
        | RealExpr::Div(a, b)
        | RealExpr::Pow(a, b)
        | RealExpr::Let {
            value: a, body: b, ..
        } => {
            real_rel_names(a, out);
            real_rel_names(b, out);
        }
        RealExpr::Sum { guard, body, .. } | RealExpr::Product { guard, body, .. } => {
            rel_names(guard, out);
            real_rel_names(body, out);
        }
        // Functions, prefixed with `:`, so that fluent ones make a formula
        // fluent.
        RealExpr::Fun { name, .. } | RealExpr::Derivative { name, .. } => {
            out.insert(format!(":{name}"));
        }
        RealExpr::Const(_) | RealExpr::Var(_) => {}
    }
}

/// `s` without the `__N` suffixes of renamed variables (for display).
fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("__") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 2..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            out.push_str("__");
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

fn flatten_and(f: &Formula, out: &mut Vec<Formula>) {
    match f {
        Formula::And(gs) => gs.iter().for_each(|g| flatten_and(g, out)),
        Formula::True => {}
        g => out.push(g.clone()),
    }
}

fn and_of(mut v: Vec<SetExpr>) -> SetExpr {
    v.retain(|s| *s != SetExpr::Universe);
    if v.contains(&SetExpr::Empty) {
        return SetExpr::Empty;
    }
    match v.len() {
        0 => SetExpr::Universe,
        1 => v.remove(0),
        _ => SetExpr::And(v),
    }
}

impl Builder<'_> {
    fn def(&self, name: &str) -> Option<&ir::DefinedRelation> {
        self.game.defined_relations.iter().find(|d| d.name == name)
    }

    /// The index of a fluent relation of arity other than 1.
    fn fluent_rel(&self, name: &str) -> Option<usize> {
        self.fluent_rels.iter().position(|r| r.name == name)
    }

    /// Whether `f` depends on the state: it mentions, through definitions,
    /// a fluent relation or a fixed-point variable in scope.
    fn is_fluent(&self, f: &Formula) -> bool {
        let mut names = BTreeSet::new();
        rel_names(f, &mut names);
        let mut seen = BTreeSet::new();
        let mut todo: Vec<String> = names.into_iter().collect();
        while let Some(n) = todo.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            if self.fluent_names.contains(&n) || self.fix_scope.iter().any(|(v, _)| *v == n) {
                return true;
            }
            if let Some(d) = self.def(&n) {
                let mut more = BTreeSet::new();
                rel_names(&d.body, &mut more);
                todo.extend(more);
            }
        }
        false
    }

    fn fresh(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}__{}", self.fresh)
    }

    /// `f` with free element variables renamed by `map` and every bound
    /// element variable renamed fresh (no capture).
    fn rename(&mut self, f: &Formula, map: &BTreeMap<String, String>) -> Formula {
        let counter = &mut self.fresh;
        let mut fresh = |base: &str| {
            *counter += 1;
            format!("{base}__{}", *counter)
        };
        Substitution {
            bound: BoundNames::Fresh,
            fresh: &mut fresh,
        }
        .formula(f, map)
    }

    /// The body of a defined relation applied to `args`.
    fn inline(&mut self, name: &str, args: &[String]) -> Result<Formula, Unsupported> {
        let d = self
            .def(name)
            .ok_or_else(|| format!("unknown relation {name}"))?
            .clone();
        if d.params.len() != args.len() {
            return Err(format!("{name} applied to {} arguments", args.len()));
        }
        let map = d.params.iter().cloned().zip(args.iter().cloned()).collect();
        Ok(self.rename(&d.body, &map))
    }

    // -----------------------------------------------------------------------
    // Build-time evaluation of stable formulas.

    /// The tuples for `vars` satisfying the stable formula `f`.
    fn query(&mut self, f: &Formula, vars: &[String]) -> Result<Vec<Vec<u32>>, Unsupported> {
        let free: Vec<&str> = vars.iter().map(String::as_str).collect();
        let id = self
            .solver
            .compile_query(f, &free, &[], &[])
            .map_err(|e| format!("evaluating `{}`: {}", print_formula(f), e.message))?;
        Ok(self.solver.satisfying(&self.sig, id, &[], &[]))
    }

    fn holds(&mut self, f: &Formula) -> Result<bool, Unsupported> {
        let id = self
            .solver
            .compile_formula(f, &[], &[])
            .map_err(|e| format!("evaluating `{}`: {}", print_formula(f), e.message))?;
        Ok(self.solver.holds(&self.sig, id, &[], &[]))
    }

    fn mask(&mut self, what: String, members: BTreeSet<u32>) -> SetExpr {
        if members.is_empty() {
            return SetExpr::Empty;
        }
        if members.len() == self.n as usize {
            return SetExpr::Universe;
        }
        if let Some(i) = self.masks.iter().position(|m| m.members == members) {
            return SetExpr::Mask(i);
        }
        self.masks.push(Mask {
            what: clean(&what),
            members,
        });
        SetExpr::Mask(self.masks.len() - 1)
    }

    fn mask_index(&mut self, what: String, members: BTreeSet<u32>) -> usize {
        if let Some(i) = self.masks.iter().position(|m| m.members == members) {
            return i;
        }
        self.masks.push(Mask {
            what: clean(&what),
            members,
        });
        self.masks.len() - 1
    }

    fn table(&mut self, what: String, pairs: &[(u32, u32)]) -> usize {
        let mut rows = vec![BTreeSet::new(); self.n as usize];
        for &(y, x) in pairs {
            rows[y as usize].insert(x);
        }
        if let Some(i) = self.tables.iter().position(|t| t.rows == rows) {
            return i;
        }
        self.tables.push(Table {
            what: clean(&what),
            rows,
        });
        self.tables.len() - 1
    }

    /// A stable binary relation of pairs `(y, x)`, as shifts or a table.
    fn rel2(&mut self, what: &str, pairs: &[(u32, u32)]) -> Rel2 {
        let mut by_offset: BTreeMap<i32, BTreeSet<u32>> = BTreeMap::new();
        for &(y, x) in pairs {
            by_offset.entry(x as i32 - y as i32).or_default().insert(y);
        }
        if by_offset.len() <= MAX_SHIFTS {
            Rel2::Shifts(
                by_offset
                    .into_iter()
                    .map(|(d, ys)| {
                        let m = self.mask_index(format!("sources of offset {d} in {what}"), ys);
                        (d, m)
                    })
                    .collect(),
            )
        } else {
            Rel2::Table(self.table(what.to_string(), pairs))
        }
    }

    // -----------------------------------------------------------------------
    // Formulas to bitset algebra.

    /// The binding of a variable in scope.
    fn bound(&self, v: &str) -> Option<Bound> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == v)
            .map(|&(_, b)| b)
    }

    /// `{x | f}` where the free variables of `f` other than `x` are bound.
    fn set(&mut self, f: &Formula, x: &str) -> Result<SetExpr, Unsupported> {
        let fv = free_vars(f);
        let params: Vec<String> = fv.iter().filter(|v| *v != x).cloned().collect();
        if let Some(v) = params.iter().find(|v| self.bound(v).is_none()) {
            return Err(format!(
                "`{}` has the free variable {v} besides {x}",
                print_formula(f)
            ));
        }
        if let Formula::Eq(a, b) = f {
            let other = if a == x { b } else { a };
            if other == x {
                return Ok(SetExpr::Universe);
            }
            if let Some(o) = self.bound(other) {
                return Ok(SetExpr::Elem(o));
            }
        }
        if !params.is_empty() {
            if !fv.contains(x) {
                return Ok(match self.cond(f)? {
                    Cond::Const(true) => SetExpr::Universe,
                    Cond::Const(false) => SetExpr::Empty,
                    c => SetExpr::If(Box::new(c)),
                });
            }
            if !self.is_fluent(f) {
                return self.stable_set_with(f, x, &params);
            }
        } else if !self.is_fluent(f) {
            let what = format!("{{{x} | {}}}", print_formula(f));
            if fv.is_empty() {
                return Ok(if self.holds(f)? {
                    SetExpr::Universe
                } else {
                    SetExpr::Empty
                });
            }
            let members = self
                .query(f, &[x.to_string()])?
                .into_iter()
                .map(|t| t[0])
                .collect();
            return Ok(self.mask(what, members));
        }
        match f {
            Formula::Rel { name, args } => {
                if let Some(&(_, v)) = self.fix_scope.iter().rev().find(|(n, _)| n == name) {
                    return if args.len() == 1 && args[0] == x {
                        Ok(SetExpr::FixVar(v))
                    } else {
                        Err(format!("fixed-point variable {name} applied to {args:?}"))
                    };
                }
                if let Some(i) = self.fluents.iter().position(|fl| fl.name == *name) {
                    return if args.len() == 1 {
                        Ok(SetExpr::Fluent(i))
                    } else {
                        Err(format!("{name} with {} arguments", args.len()))
                    };
                }
                if let Some(rel) = self.fluent_rel(name) {
                    let args = args
                        .iter()
                        .map(|a| {
                            if a == x {
                                Ok(None)
                            } else {
                                self.bound(a)
                                    .map(Some)
                                    .ok_or_else(|| format!("{a} unbound"))
                            }
                        })
                        .collect::<Result<_, Unsupported>>()?;
                    return Ok(SetExpr::Tuples { rel, args });
                }
                let body = self.inline(name, args)?;
                self.set(&body, x)
            }
            Formula::Not(g) => Ok(SetExpr::Not(Box::new(self.set(g, x)?))),
            Formula::And(gs) => {
                let v = gs
                    .iter()
                    .map(|g| self.set(g, x))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(and_of(v))
            }
            Formula::Or(gs) => {
                let mut v = gs
                    .iter()
                    .map(|g| self.set(g, x))
                    .collect::<Result<Vec<_>, _>>()?;
                v.retain(|s| *s != SetExpr::Empty);
                Ok(match v.len() {
                    0 => SetExpr::Empty,
                    1 => v.remove(0),
                    _ => SetExpr::Or(v),
                })
            }
            Formula::Implies(a, b) => {
                let g = Formula::Or(vec![Formula::Not(a.clone()), (**b).clone()]);
                self.set(&g, x)
            }
            Formula::Iff(a, b) => {
                let g = Formula::Or(vec![
                    Formula::And(vec![(**a).clone(), (**b).clone()]),
                    Formula::And(vec![Formula::Not(a.clone()), Formula::Not(b.clone())]),
                ]);
                self.set(&g, x)
            }
            Formula::Exists { vars, body } => {
                let [Var::Element(y)] = vars.as_slice() else {
                    return Err(format!(
                        "quantifier over {} variables in `{}`",
                        vars.len(),
                        print_formula(f)
                    ));
                };
                self.exists_one(y, body, x)
            }
            Formula::Forall { vars, body } => {
                let g = Formula::Exists {
                    vars: vars.clone(),
                    body: Box::new(Formula::Not(body.clone())),
                };
                Ok(SetExpr::Not(Box::new(self.set(&g, x)?)))
            }
            Formula::Fixpoint {
                kind: ir::FixpointKind::Least,
                relation,
                params,
                body,
            } if params.len() == 1 && params[0] == x => {
                let v = self.next_fix;
                self.next_fix += 1;
                self.fix_scope.push((relation.clone(), v));
                let body = self.set(body, x);
                self.fix_scope.pop();
                Ok(self.ray_or_fix(v, body?))
            }
            Formula::Tc { .. } => self.tc_set(f, x),
            _ => Err(format!("cannot compile `{}` to a set", print_formula(f))),
        }
    }

    /// The fixed point `lfp T. {p} | (S & shift(d)[T])` (a ray from the
    /// bound element `p` through the set `S` in one grid direction) as a
    /// look-up in a table of full rays and a cut at the first cell outside
    /// `S`; any other fixed point is iterated.
    fn ray_or_fix(&mut self, var: usize, body: SetExpr) -> SetExpr {
        let fix = |body| SetExpr::Fix {
            var,
            body: Box::new(body),
        };
        let SetExpr::Or(alts) = &body else {
            return fix(body);
        };
        let (from, step) = match alts.as_slice() {
            [SetExpr::Elem(p), s] | [s, SetExpr::Elem(p)] => (*p, s),
            _ => return fix(body),
        };
        let parts: Vec<SetExpr> = match step {
            SetExpr::And(v) => v.clone(),
            s => vec![s.clone()],
        };
        let mut shift = None;
        let mut through = Vec::new();
        for p in parts {
            match p {
                SetExpr::Image {
                    rel: Rel2::Shifts(ref v),
                    ref of,
                } if v.len() == 1 && **of == SetExpr::FixVar(var) && shift.is_none() => {
                    shift = Some(v[0]);
                }
                p if !mentions_fix(&p, var) => through.push(p),
                _ => return fix(body),
            }
        }
        let Some((d, m)) = shift else {
            return fix(body);
        };
        if d == 0 {
            return fix(body);
        }
        let sources = self.masks[m].members.clone();
        let mut pairs = Vec::new();
        for e in 0..self.n {
            let mut cur = e;
            while sources.contains(&cur) {
                cur = (cur as i64 + d as i64) as u32;
                pairs.push((e, cur));
            }
        }
        let what = format!("the ray in direction {d:+} (sources m{m})");
        let table = self.table(what, &pairs);
        SetExpr::Ray {
            table,
            from,
            through: Box::new(and_of(through)),
            up: d > 0,
        }
    }

    /// `{x | f}` for a stable `f` whose other free variables (one or two)
    /// are bound: a table row per value of the bound ones.
    fn stable_set_with(
        &mut self,
        f: &Formula,
        x: &str,
        params: &[String],
    ) -> Result<SetExpr, Unsupported> {
        let n = self.n as usize;
        let mut vars = params.to_vec();
        vars.push(x.to_string());
        let what = clean(&format!(
            "{{{x} | {}}} by {}",
            print_formula(f),
            params.join(", ")
        ));
        match params {
            [p] => {
                let pairs: Vec<(u32, u32)> = self
                    .query(f, &vars)?
                    .into_iter()
                    .map(|t| (t[0], t[1]))
                    .collect();
                let table = self.table(what, &pairs);
                let of = self.bound(p).ok_or("unbound")?;
                Ok(SetExpr::Row { table, of })
            }
            [p, q] if n * n <= MAX_PAIR_ROWS => {
                let pairs: Vec<(u32, u32)> = self
                    .query(f, &vars)?
                    .into_iter()
                    .map(|t| (t[0] * self.n + t[1], t[2]))
                    .collect();
                let mut rows = vec![BTreeSet::new(); n * n];
                for &(y, x) in &pairs {
                    rows[y as usize].insert(x);
                }
                let table = match self.tables.iter().position(|t| t.rows == rows) {
                    Some(i) => i,
                    None => {
                        self.tables.push(Table { what, rows });
                        self.tables.len() - 1
                    }
                };
                let a = self.bound(p).ok_or("unbound")?;
                let b = self.bound(q).ok_or("unbound")?;
                Ok(SetExpr::Row2 { table, a, b })
            }
            _ => Err(format!(
                "`{}` relates {x} to {} bound elements",
                print_formula(f),
                params.len()
            )),
        }
    }

    /// `{x | tc u, v phi}` with the other end-point bound: the least fixed
    /// point of `{p} | step(T)` (a ray, for a grid step), forwards when `x`
    /// is the target, backwards when it is the source.
    fn tc_set(&mut self, f: &Formula, x: &str) -> Result<SetExpr, Unsupported> {
        let Formula::Tc {
            steps: None,
            from,
            to,
            body,
        } = f
        else {
            return Err(format!("cannot compile `{}` to a set", print_formula(f)));
        };
        let ([u], [v]) = (from.as_slice(), to.as_slice()) else {
            return Err(format!("tc over tuples in `{}`", print_formula(f)));
        };
        let t = self.fresh("T");
        let w = self.fresh("w");
        let forward = v == x && u != x && self.bound(u).is_some();
        let backward = u == x && v != x && self.bound(v).is_some();
        let (start, map) = if forward {
            (u, [(u.clone(), w.clone()), (v.clone(), x.to_string())])
        } else if backward {
            (v, [(u.clone(), x.to_string()), (v.clone(), w.clone())])
        } else {
            return Err(format!(
                "`{}` is not a closure from a bound element",
                print_formula(f)
            ));
        };
        let step = self.rename(body, &map.into_iter().collect());
        let fix = Formula::Fixpoint {
            kind: ir::FixpointKind::Least,
            relation: t.clone(),
            params: vec![x.to_string()],
            body: Box::new(Formula::Or(vec![
                Formula::Eq(x.to_string(), start.clone()),
                Formula::Exists {
                    vars: vec![Var::Element(w.clone())],
                    body: Box::new(Formula::And(vec![
                        Formula::Rel {
                            name: t,
                            args: vec![w],
                        },
                        step,
                    ])),
                },
            ])),
        };
        self.set(&fix, x)
    }

    /// `{x | ex y body}`: an image of the set of `y` under the stable
    /// link between `x` and `y`, or else in offset form (variables tied
    /// through a fluent relation: each at a fixed offset from `x`, lines
    /// on a board).
    fn exists_one(&mut self, y: &str, body: &Formula, x: &str) -> Result<SetExpr, Unsupported> {
        match self.exists_image(y, body, x) {
            Ok(s) => Ok(s),
            Err(e) => {
                let f = Formula::Exists {
                    vars: vec![Var::Element(y.to_string())],
                    body: Box::new(body.clone()),
                };
                if self.offsets != Some(true) || !self.is_fluent(&f) {
                    return Err(e);
                }
                self.offset_set(&f, x)
                    .map_err(|o| format!("{e}; in offset form: {o}"))
            }
        }
    }

    fn exists_image(&mut self, y: &str, body: &Formula, x: &str) -> Result<SetExpr, Unsupported> {
        if y == x {
            return Err(format!("variable {x} rebound"));
        }
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        let (mut on_x, mut on_y, mut both) = (Vec::new(), Vec::new(), Vec::new());
        for c in conj {
            let fv = free_vars(&c);
            match (fv.contains(x), fv.contains(y)) {
                (true, true) => both.push(c),
                (false, true) => on_y.push(c),
                _ => on_x.push(c),
            }
        }
        let mut parts = Vec::new();
        for c in &on_x {
            parts.push(self.set(c, x)?);
        }
        let mut inner = Vec::new();
        for c in &on_y {
            inner.push(self.set(c, y)?);
        }
        let inner = and_of(inner);
        if both.is_empty() {
            parts.push(SetExpr::AllIf(Box::new(inner)));
            return Ok(and_of(parts));
        }
        // One fluent binary relation between the two: its image, walked
        // from the set of `y` in either direction.
        if let [Formula::Rel { name, args }] = both.as_slice()
            && let Some(rel) = self.fluent_rel(name)
            && let [a, b] = args.as_slice()
            && a != b
        {
            parts.push(SetExpr::Image {
                rel: Rel2::Fluent {
                    rel,
                    forward: a == y,
                },
                of: Box::new(inner),
            });
            return Ok(and_of(parts));
        }
        let link = Formula::And(both);
        if self.is_fluent(&link) {
            return Err(format!(
                "`{}` links two variables through a fluent relation",
                print_formula(&link)
            ));
        }
        let pairs: Vec<(u32, u32)> = self
            .query(&link, &[y.to_string(), x.to_string()])?
            .into_iter()
            .map(|t| (t[0], t[1]))
            .collect();
        let rel = self.rel2(&print_formula(&link), &pairs);
        parts.push(SetExpr::Image {
            rel,
            of: Box::new(inner),
        });
        Ok(and_of(parts))
    }

    fn mark(&self) -> Mark {
        (
            self.masks.len(),
            self.tables.len(),
            self.patterns.len(),
            self.conds.len(),
        )
    }

    /// Forgets what was added since `m`.
    fn reset(&mut self, m: Mark) {
        self.masks.truncate(m.0);
        self.tables.truncate(m.1);
        self.patterns.truncate(m.2);
        self.conds.truncate(m.3);
    }

    /// `f` run with the offset form allowed or not (see
    /// [`Builder::offsets`]).
    fn with_offsets<T>(&mut self, mode: Option<bool>, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.offsets, mode);
        let out = f(self);
        self.offsets = saved;
        out
    }

    /// `{x | f}` in offset form: every quantified variable is `x + o` for
    /// an offset `o` the stable relation linking it to earlier variables
    /// allows (one branch per offset, united), so that a fluent unary
    /// relation of a variable is a shift of its bitset, a stable conjunct
    /// a mask of `x` (or a table row of the one bound element `f` also
    /// mentions), an equality with that element a shifted singleton. The
    /// pairs (`x`, bound element) the stable conjuncts around a branch
    /// allow are tracked at build time, and a branch they exclude is cut:
    /// walking a line of a board keeps one direction.
    fn offset_set(&mut self, f: &Formula, x: &str) -> Result<SetExpr, Unsupported> {
        let fv = free_vars(f);
        let params: Vec<&String> = fv.iter().filter(|v| *v != x).collect();
        let param = match params.as_slice() {
            [] => None,
            [p] => Some(((*p).clone(), self.bound(p).ok_or("unbound")?)),
            _ => return Err("more than one bound element".into()),
        };
        let ps = if param.is_some() { self.n } else { 1 };
        let ctx = (0..self.n)
            .flat_map(|b| (0..ps).map(move |p| (b, p)))
            .collect();
        let mut o = Offsets {
            vars: vec![(x.to_string(), 0)],
            param,
            ctx,
            branches: 0,
        };
        self.oform(f, &mut o)
    }

    /// The offset of `v` in `o`, if it is one of its variables.
    fn offset_of(o: &Offsets, v: &str) -> Option<i32> {
        o.vars.iter().rev().find(|(n, _)| n == v).map(|&(_, d)| d)
    }

    /// `{b | b + d in s}`.
    fn shifted(&mut self, s: SetExpr, d: i32) -> SetExpr {
        if d == 0 || matches!(s, SetExpr::Empty | SetExpr::Universe) {
            return s;
        }
        let n = self.n as i64;
        let sources = (0..self.n)
            .filter(|&y| (0..n).contains(&(y as i64 - d as i64)))
            .collect();
        let m = self.mask_index(format!("elements e with e - {d} an element"), sources);
        SetExpr::Image {
            rel: Rel2::Shifts(vec![(-d, m)]),
            of: Box::new(s),
        }
    }

    /// The tuples of a stable formula for `vars`; a relation applied to
    /// distinct variables is evaluated once per relation.
    fn stable_tuples(
        &mut self,
        f: &Formula,
        vars: &[String],
    ) -> Result<Vec<Vec<u32>>, Unsupported> {
        if let Formula::Rel { name, args } = f {
            let distinct: BTreeSet<&String> = args.iter().collect();
            if distinct.len() == args.len() && args.iter().all(|a| vars.contains(a)) {
                let key = (name.clone(), args.len());
                if !self.atom_tuples.contains_key(&key) {
                    let names: Vec<String> = (0..args.len()).map(|i| format!("a{i}")).collect();
                    let atom = Formula::Rel {
                        name: name.clone(),
                        args: names.clone(),
                    };
                    let t = self.query(&atom, &names)?;
                    self.atom_tuples.insert(key.clone(), t);
                }
                let pos: Vec<usize> = vars
                    .iter()
                    .map(|v| args.iter().position(|a| a == v).unwrap_or(0))
                    .collect();
                return Ok(self.atom_tuples[&key]
                    .iter()
                    .map(|t| pos.iter().map(|&i| t[i]).collect())
                    .collect());
            }
        }
        self.query(f, vars)
    }

    /// The pairs `(base, bound element)` satisfying the stable formula `f`
    /// with its variables at their offsets (the bound element 0 when `f`
    /// does not mention it).
    fn offset_pairs(
        &mut self,
        f: &Formula,
        o: &Offsets,
        extra: Option<&str>,
    ) -> Result<(OffsetPairs, bool), Unsupported> {
        let fv = free_vars(f);
        let mut vars = Vec::new();
        let mut with_param = false;
        for v in &fv {
            if Some(v.as_str()) == extra || Self::offset_of(o, v).is_some() {
                vars.push(v.clone());
            } else if o.param.as_ref().is_some_and(|(p, _)| p == v) {
                with_param = true;
            } else {
                return Err(format!("`{}` mentions {v}", print_formula(f)));
            }
        }
        let lead = vars
            .iter()
            .position(|v| Some(v.as_str()) != extra)
            .ok_or_else(|| format!("`{}` is not linked to the base", print_formula(f)))?;
        if let (true, Some((p, _))) = (with_param, &o.param) {
            vars.push(p.clone());
        }
        let k = vars.len() - usize::from(with_param);
        let tuples = self.stable_tuples(f, &vars)?;
        let mut out = Vec::new();
        'tuples: for t in tuples {
            let b = t[lead] as i64 - Self::offset_of(o, &vars[lead]).unwrap_or(0) as i64;
            if !(0..self.n as i64).contains(&b) {
                continue;
            }
            let mut off = 0;
            for (i, v) in vars[..k].iter().enumerate() {
                match Self::offset_of(o, v).filter(|_| Some(v.as_str()) != extra) {
                    Some(d) if t[i] as i64 - d as i64 != b => continue 'tuples,
                    Some(_) => {}
                    None => off = (t[i] as i64 - b) as i32,
                }
            }
            let p = if with_param { t[k] } else { 0 };
            out.push((b as u32, p, off));
        }
        Ok((out, with_param))
    }

    /// `ctx` restricted to the pairs of a stable conjunct.
    fn restrict(
        ctx: &BTreeSet<(u32, u32)>,
        pairs: &[(u32, u32, i32)],
        with_param: bool,
    ) -> BTreeSet<(u32, u32)> {
        if with_param {
            let allowed: BTreeSet<(u32, u32)> = pairs.iter().map(|&(b, p, _)| (b, p)).collect();
            ctx.intersection(&allowed).copied().collect()
        } else {
            let allowed: BTreeSet<u32> = pairs.iter().map(|&(b, _, _)| b).collect();
            ctx.iter()
                .filter(|(b, _)| allowed.contains(b))
                .copied()
                .collect()
        }
    }

    /// The set of `f` in offset form (see [`Builder::offset_set`]).
    fn oform(&mut self, f: &Formula, o: &mut Offsets) -> Result<SetExpr, Unsupported> {
        o.branches += 1;
        if o.branches > MAX_OFFSET_BRANCHES {
            return Err("too many branches".into());
        }
        if o.ctx.is_empty() {
            return Ok(SetExpr::Empty);
        }
        let fv = free_vars(f);
        if !fv.iter().any(|v| Self::offset_of(o, v).is_some()) {
            // About the bound element alone.
            return Ok(match self.cond(f)? {
                Cond::Const(true) => SetExpr::Universe,
                Cond::Const(false) => SetExpr::Empty,
                c => SetExpr::If(Box::new(c)),
            });
        }
        if let Formula::Eq(a, b) = f {
            return match (Self::offset_of(o, a), Self::offset_of(o, b)) {
                (Some(d), Some(e)) => Ok(if d == e {
                    SetExpr::Universe
                } else {
                    SetExpr::Empty
                }),
                (Some(d), None) | (None, Some(d)) => {
                    let other = if Self::offset_of(o, a).is_some() {
                        b
                    } else {
                        a
                    };
                    let e = self.bound(other).ok_or("unbound")?;
                    Ok(self.shifted(SetExpr::Elem(e), d))
                }
                (None, None) => Err("unbound".into()),
            };
        }
        if !self.is_fluent(f) {
            let (pairs, with_param) = self.offset_pairs(f, o, None)?;
            let what = clean(&print_formula(f));
            return Ok(match (&o.param, with_param) {
                (Some((_, of)), true) => {
                    let rows: Vec<(u32, u32)> = pairs.iter().map(|&(b, p, _)| (p, b)).collect();
                    let table = self.table(
                        format!("{{x | {what}}} at offsets, by the bound element"),
                        &rows,
                    );
                    SetExpr::Row { table, of: *of }
                }
                _ => {
                    let members = pairs.iter().map(|&(b, _, _)| b).collect();
                    self.mask(format!("{{x | {what}}} at offsets"), members)
                }
            });
        }
        match f {
            Formula::Rel { name, args } => {
                if let Some(i) = self.fluents.iter().position(|fl| fl.name == *name) {
                    let [a] = args.as_slice() else {
                        return Err(format!("{name} with {} arguments", args.len()));
                    };
                    let d = Self::offset_of(o, a).ok_or("unbound")?;
                    return Ok(self.shifted(SetExpr::Fluent(i), d));
                }
                if self.def(name).is_none() {
                    return Err(format!("{name} is not a unary fluent"));
                }
                let body = self.inline(name, args)?;
                self.oform(&body, o)
            }
            Formula::Not(g) => Ok(SetExpr::Not(Box::new(self.oform(g, o)?))),
            Formula::Or(gs) => {
                let mut v = Vec::new();
                for g in gs {
                    match self.oform(g, o)? {
                        SetExpr::Empty => {}
                        s => v.push(s),
                    }
                }
                Ok(match v.len() {
                    0 => SetExpr::Empty,
                    1 => v.remove(0),
                    _ => SetExpr::Or(v),
                })
            }
            Formula::And(_) => {
                let mut conj = Vec::new();
                flatten_and(f, &mut conj);
                // The stable conjuncts first: they narrow the pairs the
                // others are compiled under.
                let saved = o.ctx.clone();
                let mut parts = Vec::new();
                let mut rest = Vec::new();
                for c in conj {
                    let on_vars = free_vars(&c)
                        .iter()
                        .any(|v| Self::offset_of(o, v).is_some());
                    if on_vars && !self.is_fluent(&c) {
                        let (pairs, with_param) = self.offset_pairs(&c, o, None)?;
                        o.ctx = Self::restrict(&o.ctx, &pairs, with_param);
                        parts.push(self.oform(&c, o)?);
                    } else {
                        rest.push(c);
                    }
                }
                let mut out = Ok(SetExpr::Empty);
                if !o.ctx.is_empty() {
                    let mut ok = true;
                    for c in &rest {
                        match self.oform(c, o) {
                            Ok(SetExpr::Empty) => {
                                parts = vec![SetExpr::Empty];
                                break;
                            }
                            Ok(s) => parts.push(s),
                            Err(e) => {
                                out = Err(e);
                                ok = false;
                                break;
                            }
                        }
                    }
                    if ok {
                        out = Ok(and_of(parts));
                    }
                }
                o.ctx = saved;
                out
            }
            Formula::Implies(a, b) => {
                let g = Formula::Or(vec![Formula::Not(a.clone()), (**b).clone()]);
                self.oform(&g, o)
            }
            Formula::Iff(a, b) => {
                let g = Formula::Or(vec![
                    Formula::And(vec![(**a).clone(), (**b).clone()]),
                    Formula::And(vec![Formula::Not(a.clone()), Formula::Not(b.clone())]),
                ]);
                self.oform(&g, o)
            }
            Formula::Forall { vars, body } => {
                let g = Formula::Exists {
                    vars: vars.clone(),
                    body: Box::new(Formula::Not(body.clone())),
                };
                Ok(SetExpr::Not(Box::new(self.oform(&g, o)?)))
            }
            Formula::Exists { vars, body } => {
                let (y, inner) = match vars.as_slice() {
                    [Var::Element(y)] => (y.clone(), (**body).clone()),
                    [Var::Element(y), more @ ..] => (
                        y.clone(),
                        Formula::Exists {
                            vars: more.to_vec(),
                            body: body.clone(),
                        },
                    ),
                    _ => return Err("a set or real quantifier".into()),
                };
                let mut conj = Vec::new();
                flatten_and(body, &mut conj);
                // The offsets of `y`: those every stable conjunct linking
                // it to the variables allows, under the pairs around.
                let mut offsets: Option<BTreeSet<i32>> = None;
                for c in &conj {
                    let fv = free_vars(c);
                    let known = fv.iter().all(|v| {
                        *v == y
                            || Self::offset_of(o, v).is_some()
                            || o.param.as_ref().is_some_and(|(p, _)| p == v)
                    });
                    let linked = known
                        && fv.contains(&y)
                        && fv
                            .iter()
                            .any(|v| *v != y && Self::offset_of(o, v).is_some());
                    if !linked || self.is_fluent(c) {
                        continue;
                    }
                    let (pairs, with_param) = self.offset_pairs(c, o, Some(&y))?;
                    let here: BTreeSet<i32> = pairs
                        .iter()
                        .filter(|&&(b, p, _)| {
                            if with_param {
                                o.ctx.contains(&(b, p))
                            } else {
                                o.ctx.range((b, 0)..(b + 1, 0)).next().is_some()
                            }
                        })
                        .map(|&(_, _, d)| d)
                        .collect();
                    offsets = Some(match offsets {
                        None => here,
                        Some(prev) => prev.intersection(&here).copied().collect(),
                    });
                }
                let offsets = offsets
                    .ok_or_else(|| format!("{y} is not linked to the base by a stable relation"))?;
                if offsets.len() > MAX_OFFSETS {
                    return Err(format!("{y} has {} offsets", offsets.len()));
                }
                let mut alts = Vec::new();
                for d in offsets {
                    o.vars.push((y.clone(), d));
                    let r = self.oform(&inner, o);
                    o.vars.pop();
                    match r? {
                        SetExpr::Empty => {}
                        s => alts.push(s),
                    }
                }
                Ok(match alts.len() {
                    0 => SetExpr::Empty,
                    1 => alts.remove(0),
                    _ => SetExpr::Or(alts),
                })
            }
            _ => Err(format!(
                "cannot compile `{}` in offset form",
                print_formula(f)
            )),
        }
    }

    /// A sentence as a condition on the state.
    fn cond(&mut self, f: &Formula) -> Result<Cond, Unsupported> {
        let fv = free_vars(f);
        if let Some(v) = fv.iter().find(|v| self.bound(v).is_none()) {
            return Err(format!("`{}` has the free variable {v}", print_formula(f)));
        }
        if let Formula::Eq(a, b) = f {
            let (a, b) = (
                self.bound(a).ok_or("unbound")?,
                self.bound(b).ok_or("unbound")?,
            );
            return Ok(if a == b {
                Cond::Const(true)
            } else {
                Cond::Eq(a, b)
            });
        }
        if !self.is_fluent(f) {
            let Some(last) = fv.iter().next_back() else {
                return Ok(Cond::Const(self.holds(f)?));
            };
            let b = self.bound(last).ok_or("unbound")?;
            return Ok(Cond::In(b, self.set(f, last)?));
        }
        match f {
            Formula::Rel { name, args } => {
                if let Some(i) = self.fluents.iter().position(|fl| fl.name == *name) {
                    let [a] = args.as_slice() else {
                        return Err(format!("{name} with {} arguments", args.len()));
                    };
                    let b = self.bound(a).ok_or("unbound")?;
                    return Ok(Cond::In(b, SetExpr::Fluent(i)));
                }
                if let Some(rel) = self.fluent_rel(name) {
                    let args = args
                        .iter()
                        .map(|a| self.bound(a).ok_or("unbound"))
                        .collect::<Result<_, _>>()?;
                    return Ok(Cond::Holds { rel, args });
                }
                let body = self.inline(name, args)?;
                self.cond(&body)
            }
            Formula::Cmp { lhs, op, rhs } => Ok(Cond::Cmp(self.num(lhs)?, *op, self.num(rhs)?)),
            Formula::Not(g) => Ok(Cond::Not(Box::new(self.cond(g)?))),
            Formula::And(gs) => Ok(Cond::And(
                gs.iter().map(|g| self.cond(g)).collect::<Result<_, _>>()?,
            )),
            Formula::Or(gs) => Ok(Cond::Or(
                gs.iter().map(|g| self.cond(g)).collect::<Result<_, _>>()?,
            )),
            Formula::Implies(a, b) => Ok(Cond::Or(vec![
                Cond::Not(Box::new(self.cond(a)?)),
                self.cond(b)?,
            ])),
            Formula::Iff(a, b) => {
                let (a, b) = (self.cond(a)?, self.cond(b)?);
                Ok(Cond::Or(vec![
                    Cond::And(vec![a.clone(), b.clone()]),
                    Cond::And(vec![Cond::Not(Box::new(a)), Cond::Not(Box::new(b))]),
                ]))
            }
            Formula::Forall { vars, body } => {
                let g = Formula::Exists {
                    vars: vars.clone(),
                    body: Box::new(Formula::Not(body.clone())),
                };
                Ok(Cond::Not(Box::new(self.cond(&g)?)))
            }
            Formula::Exists { vars, body } => {
                let names: Vec<String> = vars
                    .iter()
                    .map(|v| match v {
                        Var::Element(n) => Ok(n.clone()),
                        _ => Err(format!("set or real quantifier in `{}`", print_formula(f))),
                    })
                    .collect::<Result<_, _>>()?;
                if self.offsets.is_some() {
                    return match self.exists_direct(&names, body, MAX_DISTRIBUTED) {
                        Ok(c) => Ok(c),
                        Err(_) => self.exists_loop(&names, body),
                    };
                }
                let direct = self.with_offsets(Some(false), |b| {
                    b.exists_direct(&names, body, MAX_DISTRIBUTED)
                });
                if let Ok(c) = direct {
                    return Ok(c);
                }
                let m = self.mark();
                let looped = self.with_offsets(Some(false), |b| b.exists_loop(&names, body));
                if matches!(&looped, Ok(c) if loop_depth(c) <= 1) {
                    return looped;
                }
                // Loops in loops: in offset form if it can be said so.
                self.reset(m);
                let direct = self.with_offsets(Some(true), |b| {
                    b.exists_direct(&names, body, MAX_DISTRIBUTED)
                });
                match direct {
                    Ok(c) => Ok(c),
                    Err(_) => {
                        self.reset(m);
                        self.exists_loop(&names, body)
                    }
                }
            }
            _ => Err(format!("cannot compile `{}`", print_formula(f))),
        }
    }

    /// `ex vars body` without a loop: a set (one variable) or a pattern;
    /// a disjunction among the conjuncts that ties several variables
    /// through a fluent relation is distributed over, `ex v (A and (B or
    /// C))` = `ex v (A and B) or ex v (A and C)`, each part a pattern, as
    /// long as at most `budget` parts result.
    fn exists_direct(
        &mut self,
        names: &[String],
        body: &Formula,
        budget: usize,
    ) -> Result<Cond, Unsupported> {
        let f = Formula::Exists {
            vars: names.iter().map(|v| Var::Element(v.clone())).collect(),
            body: Box::new(body.clone()),
        };
        let direct = if let [y] = names {
            self.set(body, y).map(Cond::NonEmpty)
        } else {
            self.pattern(&f, names, body)
        };
        let Err(e) = direct else {
            return direct;
        };
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        let split = conj.iter().position(|c| {
            let fv = free_vars(c);
            matches!(c, Formula::Or(alts) if alts.len() <= budget)
                && names.iter().filter(|v| fv.contains(*v)).count() > 1
                && self.is_fluent(c)
        });
        let Some(i) = split else {
            return Err(e);
        };
        let Formula::Or(alts) = conj.remove(i) else {
            return Err(e);
        };
        let share = budget / alts.len();
        let mut parts = Vec::new();
        for alt in alts {
            let mut b = conj.clone();
            b.push(alt);
            parts.push(self.exists_direct(names, &Formula::And(b), share)?);
        }
        Ok(Cond::Or(parts))
    }

    /// `ex y, v2..vk body` as a loop: `y` runs over the set of the
    /// conjuncts about `y` alone and is bound in the rest (for what set
    /// algebra cannot say at once, like a fluent link between variables).
    fn exists_loop(&mut self, vars: &[String], body: &Formula) -> Result<Cond, Unsupported> {
        let (y, rest_vars) = vars.split_first().ok_or("no variables")?;
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        let mut over = Vec::new();
        let mut rest = Vec::new();
        for c in conj {
            let fv = free_vars(&c);
            let alone = !rest_vars.iter().any(|v| fv.contains(v)) && fv.contains(y);
            match alone.then(|| self.set(&c, y)) {
                Some(Ok(s)) => over.push(s),
                _ => rest.push(c),
            }
        }
        let var = self.next_loop;
        self.next_loop += 1;
        self.scope.push((y.clone(), Bound::Loop(var)));
        let rest_f = Formula::And(rest);
        let body = if rest_vars.is_empty() {
            self.cond(&rest_f)
        } else {
            self.cond(&Formula::Exists {
                vars: rest_vars.iter().map(|v| Var::Element(v.clone())).collect(),
                body: Box::new(rest_f),
            })
        };
        self.scope.pop();
        Ok(Cond::Exists {
            var,
            over: and_of(over),
            body: Box::new(body?),
        })
    }

    /// `ex v1..vk body` with body a conjunction of one-variable parts and a
    /// stable part over several variables.
    fn pattern(
        &mut self,
        f: &Formula,
        vars: &[String],
        body: &Formula,
    ) -> Result<Cond, Unsupported> {
        let mut conj = Vec::new();
        flatten_and(body, &mut conj);
        // A fluent defined relation over several variables: unfold it.
        let mut i = 0;
        while i < conj.len() {
            if let Formula::Rel { name, args } = &conj[i]
                && args.len() > 1
                && self.def(name).is_some()
                && self.is_fluent(&conj[i])
            {
                let g = self.inline(name, &args.clone())?;
                conj.remove(i);
                let mut more = Vec::new();
                flatten_and(&g, &mut more);
                conj.splice(i..i, more);
                continue;
            }
            i += 1;
        }
        let mut sets: Vec<Vec<SetExpr>> = vec![Vec::new(); vars.len()];
        let mut closed = Vec::new();
        let mut stable = Vec::new();
        for c in &conj {
            let fv = free_vars(c);
            let mine: Vec<usize> = (0..vars.len()).filter(|&i| fv.contains(&vars[i])).collect();
            match mine.as_slice() {
                [] => closed.push(self.cond(c)?),
                [i] if self.is_fluent(c) => sets[*i].push(self.set(c, &vars[*i])?),
                _ if !self.is_fluent(c) => stable.push(c.clone()),
                _ => {
                    return Err(format!(
                        "`{}` ties several variables through a fluent relation",
                        print_formula(c)
                    ));
                }
            }
        }
        let stable_f = Formula::And(stable);
        let tuples = self.query(&stable_f, vars)?;
        if tuples.len() > MAX_PATTERN_TUPLES {
            return Err(format!("`{}` has too many tuples", print_formula(f)));
        }
        let mut groups: BTreeMap<Vec<i32>, BTreeSet<u32>> = BTreeMap::new();
        for t in &tuples {
            let offs = t.iter().map(|&e| e as i32 - t[0] as i32).collect();
            groups.entry(offs).or_default().insert(t[0]);
        }
        let what = clean(&print_formula(&stable_f));
        let groups: Vec<(Vec<i32>, usize)> = groups
            .into_iter()
            .map(|(offs, starts)| {
                let m = self.mask_index(format!("starts of offsets {offs:?} in {what}"), starts);
                (offs, m)
            })
            .collect();
        let pattern = match self.patterns.iter().position(|p| p.groups == groups) {
            Some(i) => i,
            None => {
                self.patterns.push(Pattern {
                    what,
                    vars: vars.iter().map(|v| clean(v)).collect(),
                    tuples: tuples.len(),
                    groups,
                });
                self.patterns.len() - 1
            }
        };
        let pat = Cond::Pattern {
            pattern,
            sets: sets.into_iter().map(and_of).collect(),
        };
        if closed.is_empty() {
            Ok(pat)
        } else {
            closed.push(pat);
            Ok(Cond::And(closed))
        }
    }

    fn cond_id(&mut self, what: String, c: Cond) -> usize {
        // Conditions equal up to the numbering of their loop variables (one
        // defined relation used by several rules) are computed once.
        let key = canonical_cond(&c);
        if let Some(i) = self
            .conds
            .iter()
            .position(|(_, d)| canonical_cond(d) == key)
        {
            return i;
        }
        self.conds.push((clean(&what), c));
        self.conds.len() - 1
    }

    fn num(&mut self, t: &RealExpr) -> Result<Num, Unsupported> {
        let bx = |n: Num| Box::new(n);
        Ok(match t {
            RealExpr::Const(c) => Num::Const(*c),
            RealExpr::Neg(a) => Num::Neg(bx(self.num(a)?)),
            RealExpr::Add(a, b) => Num::Add(bx(self.num(a)?), bx(self.num(b)?)),
            RealExpr::Sub(a, b) => Num::Sub(bx(self.num(a)?), bx(self.num(b)?)),
            RealExpr::Mul(a, b) => Num::Mul(bx(self.num(a)?), bx(self.num(b)?)),
            RealExpr::Char(f) => {
                if !free_vars(f).is_empty() {
                    return Err(format!(
                        "characteristic term with free variables `{}`",
                        print_real(t)
                    ));
                }
                let c = self.cond(f)?;
                Num::Cond(self.cond_id(print_formula(f), c))
            }
            RealExpr::Fun { name, element } => {
                let of = self
                    .bound(element)
                    .ok_or_else(|| format!("unbound element in `{}`", print_real(t)))?;
                let fun = if let Some(i) = self.funs.iter().position(|f| f.name == *name) {
                    FunRef::Fluent(i)
                } else if let Some(i) = self.stable_funs.iter().position(|f| f.name == *name) {
                    self.stable_funs[i].used = true;
                    FunRef::Stable(i)
                } else {
                    return Err(format!("unknown function {name}"));
                };
                Num::Fun(fun, of)
            }
            RealExpr::Sum { vars, guard, body } if vars.len() == 1 => {
                let over = self.set(guard, &vars[0])?;
                if let RealExpr::Const(k) = **body {
                    return Ok(Num::Count(over, k));
                }
                let var = self.next_loop;
                self.next_loop += 1;
                self.scope.push((vars[0].clone(), Bound::Loop(var)));
                let body = self.num(body);
                self.scope.pop();
                Num::Sum {
                    var,
                    over,
                    body: bx(body?),
                }
            }
            _ => return Err(format!("cannot compile the term `{}`", print_real(t))),
        })
    }

    /// A heuristic term: sums, differences and products are split, each
    /// maximal part that does not compile goes to the solver.
    fn heuristic_num(&mut self, t: &RealExpr, fallback: &mut Vec<(RealExpr, Unsupported)>) -> Num {
        let bx = |n: Num| Box::new(n);
        match t {
            RealExpr::Neg(a) => Num::Neg(bx(self.heuristic_num(a, fallback))),
            RealExpr::Add(a, b) => Num::Add(
                bx(self.heuristic_num(a, fallback)),
                bx(self.heuristic_num(b, fallback)),
            ),
            RealExpr::Sub(a, b) => Num::Sub(
                bx(self.heuristic_num(a, fallback)),
                bx(self.heuristic_num(b, fallback)),
            ),
            RealExpr::Mul(a, b) => Num::Mul(
                bx(self.heuristic_num(a, fallback)),
                bx(self.heuristic_num(b, fallback)),
            ),
            t => match self.num(t) {
                Ok(n) => n,
                Err(why) => {
                    let i = match fallback.iter().position(|(u, _)| u == t) {
                        Some(i) => i,
                        None => {
                            fallback.push((t.clone(), why));
                            fallback.len() - 1
                        }
                    };
                    Num::Solver(i)
                }
            },
        }
    }

    fn heuristic(&mut self, h: &Heuristics) -> HeuristicPlan {
        let mut fallback = Vec::new();
        let per_location = h
            .per_location
            .iter()
            .map(|ts| {
                ts.iter()
                    .map(|t| self.heuristic_num(t, &mut fallback))
                    .collect()
            })
            .collect();
        HeuristicPlan {
            per_location,
            fallback,
        }
    }

    // -----------------------------------------------------------------------
    // Rules and labels.

    fn rule(&mut self, r: &ir::Rule) -> RulePlan {
        let mut plan = RulePlan {
            name: r.name.clone(),
            lhs: r.lhs.elements.clone(),
            steps: Vec::new(),
            join: None,
            shift: None,
            sentence: None,
            removes: Vec::new(),
            adds: Vec::new(),
            tuple_removes: Vec::new(),
            tuple_adds: Vec::new(),
            updates: Vec::new(),
            post: None,
            interpreted: None,
            check_fallback: None,
            effect_fallback: None,
            all: None,
        };
        // Left elements in scope, for the conditions and update terms.
        let lhs_scope: Vec<(String, Bound)> = r
            .lhs
            .elements
            .iter()
            .enumerate()
            .map(|(i, l)| (l.clone(), Bound::Left(i)))
            .collect();
        self.scope = lhs_scope;
        match self.effect(r) {
            Ok(fx) => {
                plan.removes = fx.removes;
                plan.adds = fx.adds;
                plan.tuple_removes = fx.tuple_removes;
                plan.tuple_adds = fx.tuple_adds;
                plan.updates = fx.updates;
            }
            Err(e) => plan.effect_fallback = Some(e),
        }
        if let Err(e) = self.matcher(r, &mut plan) {
            plan.steps.clear();
            plan.join = None;
            plan.shift = None;
            plan.sentence = None;
            plan.post = None;
            plan.check_fallback = None;
            plan.interpreted = Some(e);
        }
        if plan.check_fallback.is_some() {
            // The interpreter checks the whole pre- and postcondition.
            plan.post = None;
        }
        self.scope.clear();
        plan
    }

    /// The effect on the state: fluent bits removed and added, tuples of
    /// other fluent relations removed and added, function updates.
    fn effect(&mut self, r: &ir::Rule) -> Result<Effect, Unsupported> {
        if !r.rhs.functions.is_empty() {
            return Err("function values on the right side are not specialized".into());
        }
        let lhs = &r.lhs.elements;
        let left_of = |b: &str| {
            r.map
                .iter()
                .find(|(rr, _)| rr == b)
                .and_then(|(_, l)| lhs.iter().position(|x| x == l))
                .ok_or_else(|| format!("right element {b} is new"))
        };
        let fluent_of = |n: &str, fl: &[Fluent]| fl.iter().position(|f| f.name == n);
        let mut removes = Vec::new();
        let mut tuple_removes = Vec::new();
        // A stable relation in `emb` keeps its tuples (the analysis found
        // that no rule changes it), whatever its arity.
        for e in &r.emb {
            if let Some(fi) = fluent_of(e, &self.fluents) {
                removes.extend((0..lhs.len()).map(|i| (fi, i)));
            } else if let Some(ri) = self.fluent_rel(e)
                && !tuple_removes.contains(&ri)
            {
                tuple_removes.push(ri);
            }
        }
        let mut adds = Vec::new();
        let mut tuple_adds = Vec::new();
        for t in &r.rhs.tuples {
            if t.optional {
                return Err("optional right tuples are not specialized".into());
            }
            if let Some(fi) = fluent_of(&t.relation, &self.fluents) {
                adds.push((fi, left_of(&t.args[0])?));
            } else if let Some(ri) = self.fluent_rel(&t.relation) {
                let args = t
                    .args
                    .iter()
                    .map(|a| left_of(a))
                    .collect::<Result<_, _>>()?;
                tuple_adds.push((ri, args));
            }
        }
        let mut updates = Vec::new();
        for u in &r.update {
            let f = self
                .funs
                .iter()
                .position(|f| f.name == u.function)
                .ok_or_else(|| format!("unknown function {}", u.function))?;
            let e = lhs
                .iter()
                .position(|l| *l == u.element)
                .ok_or_else(|| format!("update of {} on a right element", u.function))?;
            updates.push((f, e, self.num(&u.value)?));
        }
        Ok(Effect {
            removes,
            adds,
            tuple_removes,
            tuple_adds,
            updates,
        })
    }

    /// The matcher of a rule: candidate sets, links, per-candidate checks,
    /// the postcondition; what it cannot compile of the conditions becomes
    /// `check_fallback`. An error: the matches come from the interpreter.
    fn matcher(&mut self, r: &ir::Rule, plan: &mut RulePlan) -> Result<(), Unsupported> {
        if !r.nondistinct.is_empty() {
            return Err("non-distinct left elements are not specialized".into());
        }
        let lhs = &r.lhs.elements;
        let k = lhs.len();
        let idx = |n: &str| lhs.iter().position(|l| l == n);
        let fluent_of = |n: &str, fl: &[Fluent]| fl.iter().position(|f| f.name == n);

        let mut cands: Vec<Vec<SetExpr>> = vec![Vec::new(); k];
        let mut inner: Vec<Vec<SetExpr>> = vec![Vec::new(); k];
        let mut checks: Vec<Vec<Cond>> = vec![Vec::new(); k];
        // Quantified variables renamed apart: one named like a left element
        // must not stand for it.
        let pre = self.rename(&r.pre, &BTreeMap::new());
        let mut pre_conj = Vec::new();
        flatten_and(&pre, &mut pre_conj);
        // The join order: `order[p]` is the left element bound at step `p`,
        // `pos[e]` the step binding `e`. A constraint on several elements is
        // tested at the step of the last of them.
        let join = self.join_order(r);
        let order: Vec<usize> = match &join {
            Some(j) if j.reordered => j.greedy.clone(),
            _ => (0..k).collect(),
        };
        plan.join = join;
        let mut pos = vec![0; k];
        for (p, &e) in order.iter().enumerate() {
            pos[e] = p;
        }
        let mut links: Vec<Vec<Link>> = vec![Vec::new(); k];
        let mut link_irreflexive: Vec<Vec<usize>> = vec![Vec::new(); k];
        // Tuples of fluent relations of arity other than 1 and the
        // exactness of emb relations of such arities: compiled like
        // precondition conjuncts, but never left to the interpreter's check
        // of a match (which tests the conditions only).
        let mut exact_conj = Vec::new();
        for t in &r.lhs.tuples {
            // An optional tuple does not restrict matching; the effect
            // removes the emb relations of matched elements either way.
            if t.optional {
                continue;
            }
            let args: Vec<usize> = t
                .args
                .iter()
                .map(|a| idx(a).ok_or_else(|| format!("unknown element {a}")))
                .collect::<Result<_, _>>()?;
            if self.def(&t.relation).is_some() && self.sig.relation(&t.relation).is_none() {
                pre_conj.push(Formula::Rel {
                    name: t.relation.clone(),
                    args: t.args.clone(),
                });
                continue;
            }
            if let Some(fi) = fluent_of(&t.relation, &self.fluents) {
                cands[args[0]].push(SetExpr::Fluent(fi));
                continue;
            }
            // A tuple of another fluent relation: the successors (or
            // predecessors) of the elements bound before its last one.
            if self.fluent_rel(&t.relation).is_some() {
                exact_conj.push(Formula::Rel {
                    name: t.relation.clone(),
                    args: t.args.clone(),
                });
                continue;
            }
            let mut distinct: Vec<usize> = args.clone();
            distinct.sort_unstable();
            distinct.dedup();
            match distinct.as_slice() {
                [e] => {
                    let x = self.fresh("x");
                    let g = Formula::Rel {
                        name: t.relation.clone(),
                        args: vec![x.clone(); args.len()],
                    };
                    let m = self.set(&g, &x)?;
                    cands[*e].push(m);
                }
                [_, _] if args.len() == 2 => {
                    let (i, j) = (args[0], args[1]);
                    let (later, earlier) = if pos[i] > pos[j] { (i, j) } else { (j, i) };
                    let rel = self
                        .sig
                        .relation(&t.relation)
                        .ok_or_else(|| format!("unknown relation {}", t.relation))?;
                    let tuples = self.sig.tuples(rel);
                    // Pairs (earlier image, later image).
                    let pairs: Vec<(u32, u32)> = tuples
                        .iter()
                        .map(|p| {
                            if i == earlier {
                                (p[0], p[1])
                            } else {
                                (p[1], p[0])
                            }
                        })
                        .collect();
                    let what = format!(
                        "{}({}, {}) from {}",
                        t.relation, t.args[0], t.args[1], lhs[earlier]
                    );
                    let table = self.table(what, &pairs);
                    if pairs.iter().all(|(a, b)| a != b) {
                        link_irreflexive[later].push(earlier);
                    }
                    links[later].push(Link {
                        from: earlier,
                        table,
                    });
                }
                // A stable tuple over more elements: a constraint, compiled
                // like a precondition conjunct.
                _ => pre_conj.push(Formula::Rel {
                    name: t.relation.clone(),
                    args: t.args.clone(),
                }),
            }
        }
        // Exactness of emb relations: a tuple over the left elements that
        // the left side does not list (optional ones included) is absent.
        for e in &r.emb {
            let Some(rel) = self.sig.relation(e) else {
                continue;
            };
            let arity = self.sig.arity(rel);
            if arity == 1 {
                for (i, l) in lhs.iter().enumerate() {
                    let listed = r
                        .lhs
                        .tuples
                        .iter()
                        .any(|t| t.relation == *e && t.args[0] == *l);
                    if listed {
                        continue;
                    }
                    let x = self.fresh("x");
                    let g = Formula::Not(Box::new(Formula::Rel {
                        name: e.clone(),
                        args: vec![x.clone()],
                    }));
                    let s = self.set(&g, &x)?;
                    cands[i].push(s);
                }
                continue;
            }
            let total = k.checked_pow(arity as u32).unwrap_or(usize::MAX);
            if total > MAX_EXACT_TUPLES {
                return Err(format!(
                    "exact matching of {e} over {k} elements is {total} tuples"
                ));
            }
            let listed: BTreeSet<&[String]> = r
                .lhs
                .tuples
                .iter()
                .filter(|t| t.relation == *e)
                .map(|t| t.args.as_slice())
                .collect();
            for code in 0..total {
                let mut c = code;
                let mut args = vec![String::new(); arity];
                for a in args.iter_mut().rev() {
                    *a = lhs[c % k].clone();
                    c /= k;
                }
                if !listed.contains(args.as_slice()) {
                    exact_conj.push(Formula::Not(Box::new(Formula::Rel {
                        name: e.clone(),
                        args,
                    })));
                }
            }
        }
        for c in &exact_conj {
            let fv = free_vars(c);
            let Some(i) = (0..k)
                .filter(|&i| fv.contains(&lhs[i]))
                .max_by_key(|&i| pos[i])
            else {
                // A nullary relation: part of the match-independent
                // precondition (which always compiles for a relation).
                pre_conj.push(c.clone());
                continue;
            };
            let alone = (0..k).all(|j| j == i || !fv.contains(&lhs[j]));
            match self.set(c, &lhs[i]) {
                Ok(s) if alone => cands[i].push(s),
                Ok(s) => inner[i].push(s),
                Err(_) => checks[i].push(self.cond(c)?),
            }
        }
        // An existential precondition over several left elements is also
        // tested, weakened, on the earlier ones: what its conjuncts say
        // about the elements bound so far prunes the join early (a chain
        // of jumps is cut at its first impossible jump).
        let in_order: Vec<String> = order.iter().map(|&e| lhs[e].clone()).collect();
        let projections: Vec<Formula> = pre_conj
            .iter()
            .flat_map(|c| prefix_projections(c, &in_order))
            .collect();
        pre_conj.extend(projections);
        // Preconditions: per element (a candidate set, a set depending on
        // earlier elements, or a check), or match-independent.
        let mut sentence = Vec::new();
        let mut fallback: Option<Unsupported> = None;
        for c in &pre_conj {
            let fv = free_vars(c);
            let mine: Vec<usize> = (0..k).filter(|&i| fv.contains(&lhs[i])).collect();
            let Some(&i) = mine.iter().max_by_key(|&&i| pos[i]) else {
                sentence.push(c.clone());
                continue;
            };
            let mut set = self.set(c, &lhs[i]);
            let mut test = None;
            if set.is_err() {
                // A test per candidate, unless it has loops in loops (or
                // does not compile) and the set in offset form can be had.
                let m = self.mark();
                let t = self.with_offsets(Some(false), |b| b.cond(c));
                if matches!(&t, Ok(cd) if loop_depth(cd) <= 1) {
                    test = Some(t);
                } else {
                    self.reset(m);
                    set = self.with_offsets(Some(true), |b| b.set(c, &lhs[i]));
                    if set.is_err() {
                        self.reset(m);
                    }
                }
            }
            match set {
                Ok(s) if mine.len() == 1 => cands[i].push(s),
                Ok(s) => inner[i].push(s),
                Err(_) => match test.unwrap_or_else(|| self.cond(c)) {
                    Ok(cd) => {
                        let key = canonical_cond(&cd);
                        if !checks[i].iter().any(|d| canonical_cond(d) == key) {
                            checks[i].push(cd);
                        }
                    }
                    Err(e) => {
                        fallback.get_or_insert(format!("precondition: {}", clean(&e)));
                    }
                },
            }
        }
        if !sentence.is_empty() {
            let f = Formula::And(sentence);
            match self.cond(&f) {
                Ok(Cond::Const(true)) => {}
                Ok(c) => plan.sentence = Some(self.cond_id(print_formula(&f), c)),
                Err(e) => {
                    fallback.get_or_insert(format!("precondition: {}", clean(&e)));
                }
            }
        }
        // The postcondition, on the state after the effect: right elements
        // stand for their left counterparts.
        if r.post != Formula::True {
            if let Some(e) = &plan.effect_fallback {
                fallback.get_or_insert(format!("postcondition after an interpreted effect: {e}"));
            } else {
                let saved = std::mem::take(&mut self.scope);
                for b in &r.rhs.elements {
                    let l = r
                        .map
                        .iter()
                        .find(|(rr, _)| rr == b)
                        .and_then(|(_, l)| idx(l))
                        .ok_or_else(|| format!("right element {b} is new"))?;
                    self.scope.push((b.clone(), Bound::Left(l)));
                }
                let post = self.rename(&r.post, &BTreeMap::new());
                match self.cond(&post) {
                    Ok(c) => plan.post = Some(c),
                    Err(e) => {
                        fallback.get_or_insert(format!("postcondition: {}", clean(&e)));
                    }
                }
                self.scope = saved;
            }
        }
        plan.check_fallback = fallback;
        let cands: Vec<SetExpr> = cands.into_iter().map(and_of).collect();
        let mut steps = Vec::new();
        for (p, &i) in order.iter().enumerate() {
            let distinct_from = order[..p]
                .iter()
                .copied()
                .filter(|&j| !link_irreflexive[i].contains(&j) && !disjoint(&cands[i], &cands[j]))
                .collect();
            steps.push(Step {
                elem: i,
                cand: cands[i].clone(),
                links: std::mem::take(&mut links[i]),
                distinct_from,
                inner: std::mem::take(&mut inner[i]),
                checks: std::mem::take(&mut checks[i]),
            });
        }
        plan.steps = steps;
        // Two elements linked by one grid step: a shift (in declaration
        // order: `b = a + d`).
        if k == 2
            && !plan.reordered()
            && plan.steps[1].links.len() == 1
            && plan.steps[1].distinct_from.is_empty()
            && plan.plain()
        {
            let t = &self.tables[plan.steps[1].links[0].table];
            let mut offs = BTreeSet::new();
            let mut srcs = BTreeSet::new();
            let mut single = true;
            for (y, row) in t.rows.iter().enumerate() {
                if row.len() > 1 {
                    single = false;
                }
                for &x in row {
                    offs.insert(x as i32 - y as i32);
                    srcs.insert(y as u32);
                }
            }
            if single && offs.len() == 1 {
                let d = *offs.iter().next().unwrap_or(&0);
                let what = format!("sources of {}", t.what);
                let m = self.mask_index(what, srcs);
                plan.shift = Some((d, m));
            }
        }
        Ok(())
    }

    /// The join order of rule `r` (two or more left elements): greedily
    /// the element with the fewest estimated candidates given those bound
    /// before, against the declaration order. On the starting structure,
    /// an element's candidates are the elements with its unary tuples
    /// (positive, and for `emb` relations the absent ones), at least one;
    /// through a binary tuple with a bound element, the relation's average
    /// number of successors of a source (predecessors of a target), if
    /// fewer. The cost of an order is the sum over its steps of the
    /// estimated bindings of the elements up to the step.
    fn join_order(&self, r: &ir::Rule) -> Option<JoinOrder> {
        let lhs = &r.lhs.elements;
        let k = lhs.len();
        if k < 2 {
            return None;
        }
        let idx = |a: &str| lhs.iter().position(|l| l == a);
        let tuples: Vec<(usize, Vec<usize>)> = r
            .lhs
            .tuples
            .iter()
            .filter(|t| !t.optional)
            .filter_map(|t| {
                let rel = self.sig.relation(&t.relation)?;
                let args = t.args.iter().map(|a| idx(a)).collect::<Option<Vec<_>>>()?;
                Some((rel, args))
            })
            .collect();
        let unary: Vec<f64> = (0..k)
            .map(|e| {
                let lits: Vec<(usize, bool)> = tuples
                    .iter()
                    .filter(|(_, a)| a.iter().all(|&x| x == e))
                    .map(|(rel, _)| (*rel, true))
                    .chain(r.emb.iter().filter_map(|name| {
                        let rel = self.sig.relation(name)?;
                        // Optional tuples are listed too (not forbidden).
                        let listed = r
                            .lhs
                            .tuples
                            .iter()
                            .any(|t| t.relation == *name && t.args == [lhs[e].clone()]);
                        (self.sig.arity(rel) == 1 && !listed).then_some((rel, false))
                    }))
                    .collect();
                let count = (0..self.n)
                    .filter(|&x| {
                        lits.iter().all(|&(rel, want)| {
                            let t = vec![x; self.sig.arity(rel)];
                            self.sig.contains(rel, &t) == want
                        })
                    })
                    .count();
                count.max(1) as f64
            })
            .collect();
        // (from, to, average fan-out) per binary tuple between two elements.
        let mut fans: Vec<(usize, usize, f64)> = Vec::new();
        for (rel, a) in &tuples {
            let [u, v] = a.as_slice() else { continue };
            if u == v {
                continue;
            }
            let all = self.sig.tuples(*rel);
            let len = all.len() as f64;
            let sources: BTreeSet<u32> = all.iter().map(|t| t[0]).collect();
            let targets: BTreeSet<u32> = all.iter().map(|t| t[1]).collect();
            fans.push((*u, *v, len / sources.len().max(1) as f64));
            fans.push((*v, *u, len / targets.len().max(1) as f64));
        }
        let estimate = |e: usize, bound: &[usize]| {
            fans.iter()
                .filter(|(from, to, _)| *to == e && bound.contains(from))
                .map(|&(_, _, f)| f.max(1.0))
                .fold(unary[e], f64::min)
        };
        let cost = |order: &[usize]| {
            let (mut total, mut prefix) = (0.0, 1.0);
            for (p, &e) in order.iter().enumerate() {
                prefix *= estimate(e, &order[..p]);
                total += prefix;
            }
            (total, prefix)
        };
        let mut greedy: Vec<usize> = Vec::new();
        while greedy.len() < k {
            let next = (0..k)
                .filter(|e| !greedy.contains(e))
                .min_by(|&a, &b| estimate(a, &greedy).total_cmp(&estimate(b, &greedy)))?;
            greedy.push(next);
        }
        let declared: Vec<usize> = (0..k).collect();
        let (greedy_cost, matches) = cost(&greedy);
        let (declared_cost, _) = cost(&declared);
        let sort = matches * (matches + 1.0).log2();
        let reordered = greedy != declared && greedy_cost + sort < declared_cost;
        Some(JoinOrder {
            greedy,
            greedy_cost,
            declared_cost,
            matches,
            reordered,
        })
    }

    fn label(&mut self, l: &ir::Label) -> Result<LabelPlan, Unsupported> {
        if l.time.is_some() || !l.params.is_empty() {
            return Err("time and parameters are not specialized".into());
        }
        if l.multiplicity == Multiplicity::Any {
            // A move would be a set of matches, one of up to
            // `ANY_MOVES_LIMIT` sets of disjoint matches the interpreter
            // enumerates: not a fixed-size move of the generated code.
            return Err(
                "multiplicity * (a move is any set of disjoint matches) is not specialized".into(),
            );
        }
        let rule = self
            .game
            .rules
            .iter()
            .position(|r| r.name == l.rule)
            .ok_or_else(|| format!("unknown rule {}", l.rule))?;
        let mut targets = Vec::new();
        for t in &l.targets {
            if !t.draws.is_empty() {
                return Err("drawn interval end-points are not specialized".into());
            }
            targets.push((t.location, t.probability.unwrap_or(0.0)));
        }
        Ok(LabelPlan {
            rule,
            all: l.multiplicity == Multiplicity::All,
            targets,
        })
    }
}

/// Necessary conditions of the precondition conjunct `c` = `ex vars (c1
/// and .. and cn)` on prefixes of the left elements `lhs`: for each left
/// element `lhs[t]` some conjunct ends at (but not the last such), the
/// conjuncts about `lhs[0..=t]` only, grouped into parts connected by the
/// quantified variables they share; each part that mentions `lhs[t]` is
/// one condition (`ex` over its variables). Dropping conjuncts under `ex`
/// only weakens it, so the match set is unchanged.
fn prefix_projections(c: &Formula, lhs: &[String]) -> Vec<Formula> {
    let Formula::Exists { vars, body } = c else {
        return Vec::new();
    };
    let Some(names) = vars
        .iter()
        .map(|v| match v {
            Var::Element(n) => Some(n.clone()),
            _ => None,
        })
        .collect::<Option<Vec<String>>>()
    else {
        return Vec::new();
    };
    let mut conj = Vec::new();
    flatten_and(body, &mut conj);
    // Per conjunct: the quantified variables it uses, and the position of
    // the last left element it mentions (a quantified variable shadows a
    // left element of the same name).
    let info: Vec<(BTreeSet<usize>, Option<usize>)> = conj
        .iter()
        .map(|g| {
            let fv = free_vars(g);
            let qs = (0..names.len())
                .filter(|&i| fv.contains(&names[i]))
                .collect();
            let last = (0..lhs.len())
                .filter(|&i| fv.contains(&lhs[i]) && !names.contains(&lhs[i]))
                .max();
            (qs, last)
        })
        .collect();
    let Some(end) = info.iter().filter_map(|(_, p)| *p).max() else {
        return Vec::new();
    };
    let thresholds: BTreeSet<usize> = info
        .iter()
        .filter_map(|(_, p)| *p)
        .filter(|&p| p < end)
        .collect();
    let mut out = Vec::new();
    for t in thresholds {
        let kept: Vec<usize> = (0..conj.len())
            .filter(|&i| info[i].1.is_none_or(|p| p <= t))
            .collect();
        // Connected parts: union of conjuncts sharing a quantified variable.
        let mut part: Vec<usize> = (0..conj.len()).collect();
        for (a, &i) in kept.iter().enumerate() {
            for &j in &kept[a + 1..] {
                if !info[i].0.is_disjoint(&info[j].0) {
                    let (ri, rj) = (root(&mut part, i), root(&mut part, j));
                    part[ri] = rj;
                }
            }
        }
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &i in &kept {
            let r = root(&mut part, i);
            groups.entry(r).or_default().push(i);
        }
        for members in groups.values() {
            if !members.iter().any(|&i| info[i].1 == Some(t)) {
                continue;
            }
            let qs: BTreeSet<usize> = members.iter().flat_map(|&i| info[i].0.clone()).collect();
            let body = Formula::And(members.iter().map(|&i| conj[i].clone()).collect());
            out.push(if qs.is_empty() {
                body
            } else {
                Formula::Exists {
                    vars: qs.iter().map(|&q| Var::Element(names[q].clone())).collect(),
                    body: Box::new(body),
                }
            });
        }
    }
    out
}

/// How rule `r` is applied to all its matches at once (see [`AllEffect`]).
fn all_effect(r: &RulePlan) -> AllEffect {
    if let Some(why) = &r.effect_fallback {
        return AllEffect::Sequential(format!("the effect is interpreted: {why}"));
    }
    if !r.updates.is_empty() {
        return AllEffect::Sequential("it updates functions".into());
    }
    if !r.tuple_removes.is_empty() || !r.tuple_adds.is_empty() {
        return AllEffect::Sequential("it changes a fluent relation of arity other than 1".into());
    }
    if r.interpreted.is_some() {
        return AllEffect::Sequential("the matches are interpreted".into());
    }
    for (i, a) in r.steps.iter().enumerate() {
        for b in &r.steps[..i] {
            if !disjoint(&a.cand, &b.cand) {
                return AllEffect::Sequential(format!(
                    "{} and {} may match one element",
                    r.lhs[b.elem], r.lhs[a.elem]
                ));
            }
        }
    }
    AllEffect::Sets
}

/// The representative of `i`'s part in a union-find forest.
fn root(part: &mut [usize], mut i: usize) -> usize {
    while part[i] != i {
        part[i] = part[part[i]];
        i = part[i];
    }
    i
}

/// `c` with its loop variables numbered in order of appearance, so that
/// two conditions differing only in that numbering compare equal.
fn canonical_cond(c: &Cond) -> Cond {
    let mut c = c.clone();
    renumber_cond(&mut c, &mut BTreeMap::new());
    c
}

fn renumber_bound(b: &mut Bound, map: &mut BTreeMap<usize, usize>) {
    if let Bound::Loop(v) = b {
        let next = map.len();
        *v = *map.entry(*v).or_insert(next);
    }
}

fn renumber_set(s: &mut SetExpr, map: &mut BTreeMap<usize, usize>) {
    match s {
        SetExpr::And(v) | SetExpr::Or(v) => v.iter_mut().for_each(|x| renumber_set(x, map)),
        SetExpr::Not(x) | SetExpr::AllIf(x) => renumber_set(x, map),
        SetExpr::Image { of, .. } => renumber_set(of, map),
        SetExpr::Fix { body, .. } => renumber_set(body, map),
        SetExpr::Elem(b) | SetExpr::Row { of: b, .. } => renumber_bound(b, map),
        SetExpr::Row2 { a, b, .. } => {
            renumber_bound(a, map);
            renumber_bound(b, map);
        }
        SetExpr::If(c) => renumber_cond(c, map),
        SetExpr::Ray { from, through, .. } => {
            renumber_bound(from, map);
            renumber_set(through, map);
        }
        SetExpr::Tuples { args, .. } => args
            .iter_mut()
            .flatten()
            .for_each(|b| renumber_bound(b, map)),
        SetExpr::Empty
        | SetExpr::Universe
        | SetExpr::Mask(_)
        | SetExpr::Fluent(_)
        | SetExpr::FixVar(_) => {}
    }
}

fn renumber_num(n: &mut Num, map: &mut BTreeMap<usize, usize>) {
    match n {
        Num::Count(s, _) => renumber_set(s, map),
        Num::Neg(a) => renumber_num(a, map),
        Num::Add(a, b) | Num::Sub(a, b) | Num::Mul(a, b) => {
            renumber_num(a, map);
            renumber_num(b, map);
        }
        Num::Fun(_, b) => renumber_bound(b, map),
        Num::Sum { var, over, body } => {
            let next = map.len();
            *var = *map.entry(*var).or_insert(next);
            renumber_set(over, map);
            renumber_num(body, map);
        }
        Num::Const(_) | Num::Cond(_) | Num::Solver(_) => {}
    }
}

fn renumber_cond(c: &mut Cond, map: &mut BTreeMap<usize, usize>) {
    match c {
        Cond::Const(_) => {}
        Cond::NonEmpty(s) => renumber_set(s, map),
        Cond::Pattern { sets, .. } => sets.iter_mut().for_each(|s| renumber_set(s, map)),
        Cond::Not(x) => renumber_cond(x, map),
        Cond::And(v) | Cond::Or(v) => v.iter_mut().for_each(|x| renumber_cond(x, map)),
        Cond::In(b, s) => {
            renumber_bound(b, map);
            renumber_set(s, map);
        }
        Cond::Eq(a, b) => {
            renumber_bound(a, map);
            renumber_bound(b, map);
        }
        Cond::Holds { args, .. } => args.iter_mut().for_each(|b| renumber_bound(b, map)),
        Cond::Cmp(a, _, b) => {
            renumber_num(a, map);
            renumber_num(b, map);
        }
        Cond::Exists { var, over, body } => {
            let next = map.len();
            *var = *map.entry(*var).or_insert(next);
            renumber_set(over, map);
            renumber_cond(body, map);
        }
    }
}

/// Whether a condition reads nothing of the state but its fluent unary
/// relations (no fluent function or relation of another arity, no
/// compiled sentence by reference, no solver): a postcondition of that
/// kind is evaluated on the effect applied to a copy of the bitsets alone.
pub fn reads_only_relations(c: &Cond) -> bool {
    match c {
        Cond::Const(_) | Cond::Eq(..) => true,
        Cond::Holds { .. } => false,
        Cond::NonEmpty(s) | Cond::In(_, s) => set_reads_only_relations(s),
        Cond::Pattern { sets, .. } => sets.iter().all(set_reads_only_relations),
        Cond::Not(x) => reads_only_relations(x),
        Cond::And(v) | Cond::Or(v) => v.iter().all(reads_only_relations),
        Cond::Cmp(a, _, b) => num_reads_only_relations(a) && num_reads_only_relations(b),
        Cond::Exists { over, body, .. } => {
            set_reads_only_relations(over) && reads_only_relations(body)
        }
    }
}

fn set_reads_only_relations(s: &SetExpr) -> bool {
    match s {
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().all(set_reads_only_relations),
        SetExpr::Not(x) | SetExpr::AllIf(x) => set_reads_only_relations(x),
        SetExpr::Image {
            rel: Rel2::Fluent { .. },
            ..
        }
        | SetExpr::Tuples { .. } => false,
        SetExpr::Image { of, .. } => set_reads_only_relations(of),
        SetExpr::Fix { body, .. } => set_reads_only_relations(body),
        SetExpr::Ray { through, .. } => set_reads_only_relations(through),
        SetExpr::If(c) => reads_only_relations(c),
        SetExpr::Empty
        | SetExpr::Universe
        | SetExpr::Mask(_)
        | SetExpr::Fluent(_)
        | SetExpr::FixVar(_)
        | SetExpr::Elem(_)
        | SetExpr::Row { .. }
        | SetExpr::Row2 { .. } => true,
    }
}

fn num_reads_only_relations(n: &Num) -> bool {
    match n {
        Num::Const(_) | Num::Fun(FunRef::Stable(_), _) => true,
        Num::Fun(FunRef::Fluent(_), _) | Num::Cond(_) | Num::Solver(_) => false,
        Num::Count(s, _) => set_reads_only_relations(s),
        Num::Neg(a) => num_reads_only_relations(a),
        Num::Add(a, b) | Num::Sub(a, b) | Num::Mul(a, b) => {
            num_reads_only_relations(a) && num_reads_only_relations(b)
        }
        Num::Sum { over, body, .. } => {
            set_reads_only_relations(over) && num_reads_only_relations(body)
        }
    }
}

/// Whether two candidate sets are syntactically disjoint: one requires a
/// fluent the other excludes.
fn disjoint(a: &SetExpr, b: &SetExpr) -> bool {
    let lits = |s: &SetExpr| -> Vec<SetExpr> {
        match s {
            SetExpr::And(v) => v.clone(),
            s => vec![s.clone()],
        }
    };
    let (la, lb) = (lits(a), lits(b));
    la.iter().any(|x| {
        lb.iter().any(|y| match (x, y) {
            (SetExpr::Fluent(f), SetExpr::Not(g)) | (SetExpr::Not(g), SetExpr::Fluent(f)) => {
                **g == SetExpr::Fluent(*f)
            }
            _ => false,
        })
    })
}

/// For a pattern group whose offsets are `0, d, 2d, .., (k - 1) d` (a
/// line of `k` cells, `k >= 4`), the offsets by which a set `t` of starts
/// is intersected with itself shifted back, starting from `t = v`, so that
/// `t` ends as the starts `x` with `v` at `x + i d` for every `i < k`:
/// each step doubles the length covered (up to `k`), so a line of four
/// takes two shifts instead of three, of five three instead of four (as a
/// bitboard engine tests Connect Four lines). `None` for other offsets or
/// shorter lines, whose terms stay one shift each.
pub fn line_doubling(offs: &[i32]) -> Option<Vec<i32>> {
    let k = offs.len();
    let d = *offs.get(1)?;
    if k < 4 || d == 0 || offs.iter().enumerate().any(|(i, &o)| o != i as i32 * d) {
        return None;
    }
    let (mut covered, mut steps) = (1, Vec::new());
    while covered < k {
        let s = covered.min(k - covered);
        steps.push(s as i32 * d);
        covered += s;
    }
    Some(steps)
}

// ---------------------------------------------------------------------------
// Sets shared within a ply.

/// The parts of a set expression where the playout code can use a set
/// computed beforehand instead (the same traversal for finding shared sets
/// and for emitting them).
pub fn shareable_parts(s: &SetExpr) -> Vec<&SetExpr> {
    match s {
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().collect(),
        SetExpr::Not(x) | SetExpr::AllIf(x) => vec![&**x],
        SetExpr::Image {
            rel: Rel2::Shifts(_),
            of,
        } => vec![&**of],
        _ => Vec::new(),
    }
}

/// The sets of a condition where the playout code can use a set computed
/// beforehand (see [`shareable_parts`]); the parts of a condition it
/// recurses into are [`shareable_conds`].
pub fn shareable_sets(c: &Cond) -> Vec<&SetExpr> {
    match c {
        Cond::NonEmpty(SetExpr::And(v)) if v.iter().any(|x| matches!(x, SetExpr::Ray { .. })) => {
            Vec::new()
        }
        Cond::NonEmpty(s) | Cond::In(_, s) => vec![s],
        _ => Vec::new(),
    }
}

/// The sub-conditions of a condition the playout code recurses into when
/// it uses sets computed beforehand.
pub fn shareable_conds(c: &Cond) -> Vec<&Cond> {
    match c {
        Cond::Not(x) => vec![&**x],
        Cond::And(v) | Cond::Or(v) => v.iter().collect(),
        _ => Vec::new(),
    }
}

/// Occurrences of `e` in `s` (at the parts [`shareable_parts`] reaches).
pub fn set_occurrences(s: &SetExpr, e: &SetExpr) -> usize {
    if s == e {
        return 1;
    }
    shareable_parts(s)
        .into_iter()
        .map(|x| set_occurrences(x, e))
        .sum()
}

pub fn cond_occurrences(c: &Cond, e: &SetExpr) -> usize {
    shareable_sets(c)
        .into_iter()
        .map(|s| set_occurrences(s, e))
        .sum::<usize>()
        + shareable_conds(c)
            .into_iter()
            .map(|x| cond_occurrences(x, e))
            .sum::<usize>()
}

/// Whether a set costs more than a few word operations to compute (it
/// has an image or a fixed point) and depends on the state alone (every
/// fixed-point variable in it is bound in it).
fn worth_sharing(s: &SetExpr) -> bool {
    fn costly(s: &SetExpr) -> bool {
        match s {
            SetExpr::Image { .. } | SetExpr::Fix { .. } => true,
            SetExpr::And(v) | SetExpr::Or(v) => v.iter().any(costly),
            SetExpr::Not(x) | SetExpr::AllIf(x) => costly(x),
            _ => false,
        }
    }
    fn closed(s: &SetExpr, bound: &mut Vec<usize>) -> bool {
        match s {
            SetExpr::FixVar(v) => bound.contains(v),
            SetExpr::Fix { var, body } => {
                bound.push(*var);
                let ok = closed(body, bound);
                bound.pop();
                ok
            }
            SetExpr::And(v) | SetExpr::Or(v) => v.iter().all(|x| closed(x, bound)),
            SetExpr::Not(x) | SetExpr::AllIf(x) => closed(x, bound),
            SetExpr::Image { of, .. } => closed(of, bound),
            SetExpr::Ray { through, .. } => closed(through, bound),
            SetExpr::Empty
            | SetExpr::Universe
            | SetExpr::Mask(_)
            | SetExpr::Fluent(_)
            | SetExpr::Elem(_)
            | SetExpr::Row { .. }
            | SetExpr::Row2 { .. }
            | SetExpr::Tuples { .. }
            | SetExpr::If(_) => true,
        }
    }
    costly(s) && closed(s, &mut Vec::new())
}

fn set_size(s: &SetExpr) -> usize {
    1 + match s {
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().map(set_size).sum(),
        SetExpr::Not(x) | SetExpr::AllIf(x) => set_size(x),
        SetExpr::Image { of, .. } => set_size(of),
        SetExpr::Fix { body, .. } => set_size(body),
        SetExpr::Ray { through, .. } => set_size(through),
        _ => 0,
    }
}

/// The sets a playout in location `loc` would compute more than once per
/// ply: parts (with an image or a fixed point) of the candidate sets of
/// the movers' rules with a set of matches and no sentence (computed in
/// every ply) that occur again in another such set or in a sentence of a
/// mover's label (Reversi's legal placements are the placement rule's
/// candidates and, in `CanB()`, the pass rule's precondition). The largest
/// such parts, smallest first (a set may use the ones before it).
pub fn shared_sets(rules: &[RulePlan], conds: &[(String, Cond)], loc: &LocPlan) -> Vec<SetExpr> {
    let mut every_ply = Vec::new();
    let mut sets = Vec::new();
    let mut sentences = Vec::new();
    for &p in &loc.movers {
        for l in &loc.players[p].labels {
            let r = &rules[l.rule];
            if let Some(c) = r.sentence
                && !sentences.contains(&c)
            {
                sentences.push(c);
            }
            if !l.all && r.has_set() {
                for st in &r.steps {
                    sets.push(&st.cand);
                    if r.sentence.is_none() {
                        every_ply.push(&st.cand);
                    }
                }
            }
        }
    }
    let occurrences = |e: &SetExpr| -> usize {
        sets.iter().map(|s| set_occurrences(s, e)).sum::<usize>()
            + sentences
                .iter()
                .map(|&c| cond_occurrences(&conds[c].1, e))
                .sum::<usize>()
    };
    let mut shared = Vec::new();
    let mut todo: Vec<&SetExpr> = every_ply.into_iter().rev().collect();
    while let Some(s) = todo.pop() {
        if shared.contains(s) {
            continue;
        }
        if worth_sharing(s) && occurrences(s) >= 2 {
            shared.push(s.clone());
            continue;
        }
        todo.extend(shareable_parts(s).into_iter().rev());
    }
    shared.sort_by_key(set_size);
    shared
}

// ---------------------------------------------------------------------------
// The text dump.

fn bound_text(b: Bound) -> String {
    match b {
        Bound::Left(i) => format!("e{i}"),
        Bound::Loop(i) => format!("q{i}"),
    }
}

fn cmp_text(op: ir::CmpOp) -> &'static str {
    match op {
        ir::CmpOp::Lt => "<",
        ir::CmpOp::Le => "<=",
        ir::CmpOp::Eq => "=",
        ir::CmpOp::Ne => "!=",
        ir::CmpOp::Ge => ">=",
        ir::CmpOp::Gt => ">",
    }
}

impl Plan {
    fn names(&self, members: &BTreeSet<u32>) -> String {
        let v: Vec<&str> = members
            .iter()
            .map(|&e| self.elements[e as usize].as_str())
            .collect();
        format!("{{{}}}", v.join(", "))
    }

    pub fn set_text(&self, s: &SetExpr) -> String {
        match s {
            SetExpr::Empty => "{}".into(),
            SetExpr::Universe => "U".into(),
            SetExpr::Mask(i) => format!("m{i}"),
            SetExpr::Fluent(i) => self.fluents[*i].name.clone(),
            SetExpr::FixVar(v) => format!("T{v}"),
            SetExpr::And(v) => {
                let p: Vec<String> = v.iter().map(|s| self.set_text(s)).collect();
                format!("({})", p.join(" & "))
            }
            SetExpr::Or(v) => {
                let p: Vec<String> = v.iter().map(|s| self.set_text(s)).collect();
                format!("({})", p.join(" | "))
            }
            SetExpr::Not(s) => format!("!{}", self.set_text(s)),
            SetExpr::Image { rel, of } => format!("{}[{}]", self.rel_text(rel), self.set_text(of)),
            SetExpr::AllIf(s) => format!("all_if({})", self.set_text(s)),
            SetExpr::Fix { var, body } => format!("lfp T{var}. {}", self.set_text(body)),
            SetExpr::Elem(b) => format!("{{{}}}", bound_text(*b)),
            SetExpr::Row { table, of } => format!("t{table}[{}]", bound_text(*of)),
            SetExpr::Row2 { table, a, b } => {
                format!("t{table}[{}, {}]", bound_text(*a), bound_text(*b))
            }
            SetExpr::If(c) => format!("all_if({})", self.cond_text(c)),
            SetExpr::Tuples { rel, args } => {
                let a: Vec<String> = args
                    .iter()
                    .map(|b| b.map_or_else(|| "x".to_string(), bound_text))
                    .collect();
                format!("{}({})", self.fluent_rels[*rel].name, a.join(", "))
            }
            SetExpr::Ray {
                table,
                from,
                through,
                up,
            } => format!(
                "ray t{table}[{}] through {} (cut at the {} blocker)",
                bound_text(*from),
                self.set_text(through),
                if *up { "least" } else { "greatest" }
            ),
        }
    }

    fn rel_text(&self, r: &Rel2) -> String {
        match r {
            Rel2::Shifts(v) => {
                let p: Vec<String> = v.iter().map(|(d, m)| format!("{d:+}@m{m}")).collect();
                format!("shift({})", p.join(" "))
            }
            Rel2::Table(t) => format!("t{t}"),
            Rel2::Fluent { rel, forward } => {
                let name = &self.fluent_rels[*rel].name;
                if *forward {
                    name.clone()
                } else {
                    format!("{name}^-1")
                }
            }
        }
    }

    pub fn cond_text(&self, c: &Cond) -> String {
        match c {
            Cond::Const(b) => b.to_string(),
            Cond::NonEmpty(s) => format!("nonempty {}", self.set_text(s)),
            Cond::Pattern { pattern, sets } => {
                let p: Vec<String> = sets.iter().map(|s| self.set_text(s)).collect();
                format!("p{pattern}({})", p.join(", "))
            }
            Cond::Not(c) => format!("not {}", self.cond_text(c)),
            Cond::And(v) => {
                let p: Vec<String> = v.iter().map(|c| self.cond_text(c)).collect();
                format!("({})", p.join(" and "))
            }
            Cond::Or(v) => {
                let p: Vec<String> = v.iter().map(|c| self.cond_text(c)).collect();
                format!("({})", p.join(" or "))
            }
            Cond::In(b, s) => format!("{} in {}", bound_text(*b), self.set_text(s)),
            Cond::Eq(a, b) => format!("{} = {}", bound_text(*a), bound_text(*b)),
            Cond::Holds { rel, args } => {
                let a: Vec<String> = args.iter().map(|b| bound_text(*b)).collect();
                format!("{}({})", self.fluent_rels[*rel].name, a.join(", "))
            }
            Cond::Cmp(a, op, b) => format!(
                "{} {} {}",
                self.num_text(a),
                cmp_text(*op),
                self.num_text(b)
            ),
            Cond::Exists { var, over, body } => format!(
                "ex q{var} in {} ({})",
                self.set_text(over),
                self.cond_text(body)
            ),
        }
    }

    pub fn num_text(&self, n: &Num) -> String {
        match n {
            Num::Const(c) => format!("{c}"),
            Num::Cond(c) => format!("[c{c}]"),
            Num::Count(s, k) => format!("{k} * #{}", self.set_text(s)),
            Num::Neg(a) => format!("-{}", self.num_text(a)),
            Num::Add(a, b) => format!("({} + {})", self.num_text(a), self.num_text(b)),
            Num::Sub(a, b) => format!("({} - {})", self.num_text(a), self.num_text(b)),
            Num::Mul(a, b) => format!("({} * {})", self.num_text(a), self.num_text(b)),
            Num::Fun(f, b) => {
                let name = match f {
                    FunRef::Stable(i) => &self.stable_funs[*i].name,
                    FunRef::Fluent(i) => &self.funs[*i].name,
                };
                format!(":{name}({})", bound_text(*b))
            }
            Num::Sum { var, over, body } => {
                let b = self.num_text(body);
                // Sums, differences and products print in parentheses.
                let b = match **body {
                    Num::Add(..) | Num::Sub(..) | Num::Mul(..) => b,
                    _ => format!("({b})"),
                };
                format!("sum q{var} in {} {b}", self.set_text(over))
            }
            Num::Solver(i) => format!("[h{i} by the solver]"),
        }
    }

    /// A one-line description of a matcher (for the dump and doc comments).
    pub fn matcher_text(&self, r: &RulePlan) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(j) = &r.join {
            let names = |o: &[usize]| {
                o.iter()
                    .map(|&e| r.lhs[e].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let declared: Vec<usize> = (0..r.lhs.len()).collect();
            out.push(if j.reordered {
                format!(
                    "join order {} (estimated {:.1} partial matches, {:.1} in declaration order; \
                     about {:.1} matches, sorted into canonical order)",
                    names(&j.greedy),
                    j.greedy_cost,
                    j.declared_cost,
                    j.matches
                )
            } else if j.greedy == declared {
                format!(
                    "join order {} as declared, also the most selective first (estimated {:.1} \
                     partial matches)",
                    names(&declared),
                    j.declared_cost
                )
            } else {
                format!(
                    "join order {} as declared (estimated {:.1} partial matches; {} first would \
                     take {:.1} and a sort of about {:.1} matches)",
                    names(&declared),
                    j.declared_cost,
                    names(&j.greedy),
                    j.greedy_cost,
                    j.matches
                )
            });
        }
        for st in &r.steps {
            let mut line = format!("{} in {}", r.lhs[st.elem], self.set_text(&st.cand));
            for l in &st.links {
                line.push_str(&format!(" & t{}[{}]", l.table, r.lhs[l.from]));
            }
            for &j in &st.distinct_from {
                line.push_str(&format!(", != {}", r.lhs[j]));
            }
            for s in &st.inner {
                line.push_str(&format!(" & {}", self.set_text(s)));
            }
            for c in &st.checks {
                line.push_str(&format!(", if {}", self.cond_text(c)));
            }
            out.push(line);
        }
        if let Some(c) = &r.post {
            let on = if reads_only_relations(c) {
                " (applied to a copy of the fluent bitsets alone)"
            } else {
                ""
            };
            out.push(format!("after the effect{on}: {}", self.cond_text(c)));
        }
        // A label of multiplicity inf is one move, never counted by its
        // matches.
        let counted_label = self
            .locations
            .iter()
            .flat_map(|l| l.players.iter().flat_map(|p| &p.labels))
            .any(|l| !l.all && std::ptr::eq(&self.rules[l.rule], r));
        if counted_label && r.last_step_counted() && r.steps.len() > 1 {
            out.push(format!(
                "counted by a popcount of the candidates of {} per binding of the earlier elements",
                r.lhs[r.steps.len() - 1]
            ));
        }
        if let Some(why) = &r.interpreted {
            out.push(format!("matches from the interpreter ({why})"));
        }
        if let Some(why) = &r.check_fallback {
            out.push(format!("each match checked by the interpreter ({why})"));
        }
        if let Some((d, m)) = r.shift {
            out.push(format!(
                "as a shift: {} = {} {d:+} for {} in m{m}",
                r.lhs[1], r.lhs[0], r.lhs[0]
            ));
        }
        out
    }

    /// A shared-prefix forest, one line per node: the left element it
    /// binds, the labels through it and those ending there.
    fn prefix_text(
        &self,
        labels: &[LabelPlan],
        nodes: &[PrefixNode],
        indent: usize,
        o: &mut String,
    ) {
        for n in nodes {
            let r = &self.rules[n.rule];
            let name = |lb: &usize| self.rules[labels[*lb].rule].name.clone();
            let through: Vec<String> = n.labels.iter().map(name).collect();
            let ends: Vec<String> = n
                .ends
                .iter()
                .map(|lb| {
                    let rule = &self.rules[labels[*lb].rule];
                    let how = if rule.last_step_counted() {
                        "popcount"
                    } else {
                        "per match"
                    };
                    format!("{} ({how})", rule.name)
                })
                .collect();
            let mut line = format!(
                "{}{} [{}]",
                "    ".repeat(indent) + &"  ".repeat(n.depth),
                r.lhs[n.depth],
                through.join(", ")
            );
            if !ends.is_empty() {
                line.push_str(&format!(" ends {}", ends.join(", ")));
            }
            let _ = writeln!(o, "{line}");
            self.prefix_text(labels, &n.children, indent, o);
        }
    }

    /// The plan as text: what is stable, the precomputed sets, the
    /// compiled conditions and the matchers with their join orders.
    pub fn dump(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "players: {}\nelements: {} in {} word(s)",
            self.players.join(", "),
            self.elements.len(),
            self.words
        );
        let _ = writeln!(o, "stable: {}", self.stable.join(", "));
        match self.payoff_bounds {
            Some((lo, hi)) => {
                let _ = writeln!(o, "payoffs within [{lo}, {hi}]");
            }
            None => {
                let _ = writeln!(o, "payoffs without a bound found");
            }
        }
        for (i, f) in self.fluents.iter().enumerate() {
            let m: BTreeSet<u32> = f.initial.iter().copied().collect();
            let _ = writeln!(
                o,
                "fluent {i}: {} (bitset), initially {}",
                f.name,
                self.names(&m)
            );
        }
        for (i, r) in self.fluent_rels.iter().enumerate() {
            let how = match r.repr {
                Repr::Dense => format!(
                    "dense: per element its successors and its predecessors, 2 x {} sets, \
                     and the set of loops",
                    self.elements.len()
                ),
                Repr::Sparse if r.arity == 0 => "sparse: the empty tuple while it holds".into(),
                Repr::Sparse => format!("sparse: a sorted list of {}-tuples", r.arity),
            };
            let tuples: Vec<String> = r
                .initial
                .iter()
                .map(|t| {
                    let names: Vec<&str> = t
                        .iter()
                        .map(|&e| self.elements[e as usize].as_str())
                        .collect();
                    format!("({})", names.join(", "))
                })
                .collect();
            let _ = writeln!(
                o,
                "fluent relation {i}: {}/{} ({how}), initially {{{}}}",
                r.name,
                r.arity,
                tuples.join(", ")
            );
        }
        for (i, f) in self.funs.iter().enumerate() {
            let _ = writeln!(o, "function {i}: :{} (values in the state)", f.name);
        }
        for (i, m) in self.masks.iter().enumerate() {
            let _ = writeln!(
                o,
                "mask m{i} = {}\n    ({})",
                self.names(&m.members),
                m.what
            );
        }
        for (i, t) in self.tables.iter().enumerate() {
            let n: usize = t.rows.iter().map(BTreeSet::len).sum();
            let _ = writeln!(o, "table t{i}: {} ({n} pairs)", t.what);
        }
        for (i, p) in self.patterns.iter().enumerate() {
            let _ = writeln!(
                o,
                "pattern p{i}({}): {} ({} tuples, {} offset groups)",
                p.vars.join(", "),
                p.what,
                p.tuples,
                p.groups.len()
            );
            for (offs, m) in &p.groups {
                let _ = writeln!(o, "    offsets {offs:?} from m{m}");
            }
        }
        for (i, (what, c)) in self.conds.iter().enumerate() {
            let _ = writeln!(o, "cond c{i} = {}\n    ({what})", self.cond_text(c));
        }
        for r in &self.rules {
            let _ = writeln!(o, "rule {}({}):", r.name, r.lhs.join(", "));
            if let Some(c) = r.sentence {
                let _ = writeln!(o, "    when c{c}");
            }
            for line in self.matcher_text(r) {
                let _ = writeln!(o, "    {line}");
            }
            let fx = |v: &[(usize, usize)]| -> String {
                let p: Vec<String> = v
                    .iter()
                    .map(|&(f, e)| format!("{}({})", self.fluents[f].name, r.lhs[e]))
                    .collect();
                p.join(" ")
            };
            match &r.effect_fallback {
                None => {
                    let mut removes = fx(&r.removes);
                    for &t in &r.tuple_removes {
                        let sep = if removes.is_empty() { "" } else { " " };
                        let _ = write!(
                            removes,
                            "{sep}{}(over {})",
                            self.fluent_rels[t].name,
                            r.lhs.join(", ")
                        );
                    }
                    let mut adds = fx(&r.adds);
                    for (t, args) in &r.tuple_adds {
                        let sep = if adds.is_empty() { "" } else { " " };
                        let a: Vec<&str> = args.iter().map(|&e| r.lhs[e].as_str()).collect();
                        let _ =
                            write!(adds, "{sep}{}({})", self.fluent_rels[*t].name, a.join(", "));
                    }
                    let _ = writeln!(o, "    removes {removes}; adds {adds}");
                    for (f, e, v) in &r.updates {
                        let _ = writeln!(
                            o,
                            "    sets :{}({}) = {}",
                            self.funs[*f].name,
                            r.lhs[*e],
                            self.num_text(v)
                        );
                    }
                }
                Some(why) => {
                    let _ = writeln!(o, "    applied by the interpreter ({why})");
                }
            }
            match &r.all {
                None => {}
                Some(AllEffect::Sets) => {
                    let _ = writeln!(
                        o,
                        "    all matches at once: as sets of images per left element"
                    );
                }
                Some(AllEffect::Sequential(why)) => {
                    let _ = writeln!(
                        o,
                        "    all matches at once: listed, then applied one after the other ({why})"
                    );
                }
            }
        }
        for (li, l) in self.locations.iter().enumerate() {
            let _ = writeln!(o, "location {li}:");
            for (i, s) in l.shared.iter().enumerate() {
                let _ = writeln!(o, "    computed once per ply: sh{i} = {}", self.set_text(s));
            }
            for (p, pl) in l.players.iter().enumerate() {
                let labels: Vec<String> = pl
                    .labels
                    .iter()
                    .map(|lb| {
                        let t: Vec<String> = lb
                            .targets
                            .iter()
                            .map(|(l, pr)| {
                                if lb.targets.len() > 1 {
                                    format!("{l} (p {pr})")
                                } else {
                                    l.to_string()
                                }
                            })
                            .collect();
                        let mult = if lb.all { ", mult: inf" } else { "" };
                        format!("{}{mult} -> {}", self.rules[lb.rule].name, t.join("; "))
                    })
                    .collect();
                let payoff = match &pl.payoff {
                    Ok(n) => self.num_text(n),
                    Err(why) => format!("by the interpreter ({why})"),
                };
                let _ = writeln!(
                    o,
                    "    {}: payoff {payoff}; moves [{}]",
                    self.players[p],
                    labels.join(", ")
                );
                if !pl.prefixes.is_empty() {
                    let _ = writeln!(
                        o,
                        "    {}: matches counted over shared prefixes (each node enumerated once):",
                        self.players[p]
                    );
                    self.prefix_text(&pl.labels, &pl.prefixes, 2, &mut o);
                }
            }
        }
        if let Some(h) = &self.heuristic {
            let _ = writeln!(
                o,
                "heuristic (existential, default configuration): {} part(s) by the solver",
                h.fallback.len()
            );
            for (li, l) in h.per_location.iter().enumerate() {
                for (p, n) in l.iter().enumerate() {
                    let _ = writeln!(
                        o,
                        "    location {li}, {}: {}",
                        self.players[p],
                        self.num_text(n)
                    );
                }
            }
            for (i, (t, why)) in h.fallback.iter().enumerate() {
                let _ = writeln!(o, "    h{i} = {}\n        ({why})", clean(&print_real(t)));
            }
        }
        o
    }
}
