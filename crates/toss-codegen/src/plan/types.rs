//! The plan's IR: bound elements, set expressions, conditions and real
//! terms in bitset algebra, the constant masks, tables and patterns, the
//! fluent relations and functions of the state with their representation
//! ([`Repr`]), rule plans (matcher steps, join order, effect), labels,
//! locations, shared-prefix trees, and the whole [`Plan`].

use std::collections::BTreeSet;

use toss_core::ir::{self, RealExpr};

use super::Unsupported;

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
///
/// A representation is one variant here plus one emitter file in `emit/`
/// holding all its code (`emit/dense.rs`, `emit/sparse.rs`), dispatched in
/// `emit/tuples.rs` alone; the classification chooses it.
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
    /// Each rule's `file:line:col` in the game file, for the fault
    /// messages of resource limits (empty where unknown, as for a GDL
    /// translation, whose rules have no place in a file).
    pub rule_positions: Vec<String>,
    /// `REPETITION`, when the game has it.
    pub repetition: Option<RepetitionPlan>,
}

/// `REPETITION :f(e) OF ...` over the state: the count's place and the
/// fluent parts of a position (stable relations and functions never
/// change, so they cannot tell two positions of a play apart).
#[derive(Clone, Debug)]
pub struct RepetitionPlan {
    /// Index into [`Plan::funs`] of the count, and its element.
    pub count: usize,
    pub element: u32,
    /// Indices into [`Plan::fluents`].
    pub unary: Vec<usize>,
    /// Indices into [`Plan::fluent_rels`].
    pub tuples: Vec<usize>,
    /// Indices into [`Plan::funs`].
    pub funs: Vec<usize>,
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
