//! The game IR: what a `.toss` description means, after parsing, name
//! resolution and checks, before any engine compiles it.
//!
//! Names are kept as written (not resolved to indices) so that the IR prints
//! back to `.toss` text and compares structurally: `parse(print(g)) == g`.
//! Engines (the interpreter, the code generator) resolve names into their own
//! indexed forms. Every list keeps source order, so everything derived from
//! the IR is deterministic.
//!
//! Vocabulary follows the specification (chapter 1): a *structure* has a
//! universe of elements, relations and real-valued functions; a *rule*
//! rewrites a match (an embedding of its left side) into its right side; the
//! game graph has *locations*, each giving every player a *payoff* and a set
//! of *labels* (moves).

use crate::structure::Structure;

pub mod bounds;
pub mod simplify;
pub mod sizes;
pub mod subst;
pub mod walk;

pub use walk::{Node, free_vars, functions_used, relations_used, walk};

/// A whole game: signature, defined relations, rules, the game graph and the
/// starting structure.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// Player names in order; players are numbered from 0 in this order.
    pub players: Vec<String>,
    /// `DATA key: value` pairs (display hints, engine parameters).
    pub data: Vec<(String, String)>,
    /// `REL Name(x, ...) = formula`, in source order.
    pub defined_relations: Vec<DefinedRelation>,
    /// `RULE Name: ...`, in source order.
    pub rules: Vec<Rule>,
    /// `LOC n { ... }`; `locations[i].id == i` after lowering (ids are dense
    /// and sorted), and the play starts in location 0.
    pub locations: Vec<Location>,
    /// `START`: the starting structure (the board literal already expanded).
    pub start: Structure,
    /// `MODEL`: the current structure of a saved play, if given.
    pub model: Option<Structure>,
    /// `HISTORY`: the moves of a saved play, in order.
    pub history: Vec<HistoryMove>,
    /// `REPETITION :f(e) OF ...`, if given.
    pub repetition: Option<Repetition>,
}

/// `REPETITION :seen(e) OF R, S, :g`: the engines keep `:seen(e)` equal to
/// the number of earlier positions of the play that equal the current one,
/// a position being the location with the tuples of the relations and the
/// values of the functions listed. The engine sets it at the start (0)
/// and after every ply; no rule may update it. This says threefold
/// repetition (`:seen(e) >= 2`) without keeping copies of the board in the
/// structure: each engine keeps one fingerprint per ply
/// ([`crate::repetition::History`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Repetition {
    pub function: String,
    pub element: String,
    /// The relations of a position, in source order.
    pub relations: Vec<String>,
    /// The functions of a position, in source order.
    pub functions: Vec<String>,
}

/// `REL Name(x, y) = formula`: a relation defined by a formula whose free
/// first-order variables are among `params`. Zero-ary ones are called
/// `Name()`.
#[derive(Clone, Debug, PartialEq)]
pub struct DefinedRelation {
    pub name: String,
    pub params: Vec<String>,
    pub body: Formula,
}

/// A formula of the logic of spec 1.3: first-order logic with equality, set
/// (monadic second-order) variables, real comparisons, fixed points and
/// transitive closure.
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    /// `true` (also the empty conjunction).
    True,
    /// `false`.
    False,
    /// `R(x, y)`: a relation of the signature or a defined relation (the
    /// front end checks the arity). `args` are first-order variables, or
    /// element names where constants are allowed (rule constraints).
    Rel { name: String, args: Vec<String> },
    /// `x = y` between elements.
    Eq(String, String),
    /// `x in X`: membership of an element variable in a set variable.
    In { element: String, set: String },
    /// `t1 < t2` and the other comparisons of real terms, with the epsilon
    /// semantics of spec 1.3 when functions evolve continuously.
    Cmp {
        lhs: RealExpr,
        op: CmpOp,
        rhs: RealExpr,
    },
    /// `not phi`.
    Not(Box<Formula>),
    /// `phi and psi and ...`.
    And(Vec<Formula>),
    /// `phi or psi or ...`.
    Or(Vec<Formula>),
    /// `phi -> psi`.
    Implies(Box<Formula>, Box<Formula>),
    /// `phi <-> psi`.
    Iff(Box<Formula>, Box<Formula>),
    /// `ex x, X, :a phi`.
    Exists { vars: Vec<Var>, body: Box<Formula> },
    /// `all x, X, :a phi`.
    Forall { vars: Vec<Var>, body: Box<Formula> },
    /// `lfp T(x, y) = phi` / `gfp T(x, y) = phi`: the least (greatest) fixed
    /// point of `T(x, y) <-> phi`, where `phi` may use `T` positively. The
    /// formula holds for the free variables `params` when that tuple is in
    /// the fixed point; other free variables of `phi` are parameters.
    Fixpoint {
        kind: FixpointKind,
        relation: String,
        params: Vec<String>,
        body: Box<Formula>,
    },
    /// `tc x, y phi` (reflexive transitive closure of `phi(x, y)`), or
    /// `tc m x, y phi` (exactly `m` steps, TC^m of spec chapter 4). With
    /// several variables on each side the closure is over tuples.
    Tc {
        steps: Option<u32>,
        from: Vec<String>,
        to: Vec<String>,
        body: Box<Formula>,
    },
    /// `let R(x, y) = phi in psi`: a local defined relation.
    Let {
        relation: String,
        params: Vec<String>,
        def: Box<Formula>,
        body: Box<Formula>,
    },
    /// `let :a = t in phi`: a local real value.
    LetReal {
        var: String,
        value: RealExpr,
        body: Box<Formula>,
    },
}

/// A quantified variable, of the kind its spelling says (spec 1.3): `x`
/// first-order (elements), `X` set of elements, `:a` real number.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    Element(String),
    Set(String),
    Real(String),
}

impl Var {
    pub fn name(&self) -> &str {
        match self {
            Var::Element(n) | Var::Set(n) | Var::Real(n) => n,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FixpointKind {
    Least,
    Greatest,
}

/// Comparison of real terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

/// A real-valued term (spec 1.3, with the arithmetic of spec 1.2).
#[derive(Clone, Debug, PartialEq)]
pub enum RealExpr {
    /// A literal number.
    Const(f64),
    /// `:a`: a real variable (quantified, `let`-bound, or a rule parameter).
    Var(String),
    /// `:f(x)`: the value of function `f` on element `x`.
    Fun {
        name: String,
        element: String,
    },
    /// `:f'(x)`, `:f''(x)`: a derivative of `f` on `x` during continuous
    /// evolution (order >= 1); only in `dynamics` and `inv`.
    Derivative {
        name: String,
        order: u32,
        element: String,
    },
    /// `:(phi)`: 1 where `phi` holds, else 0.
    Char(Box<Formula>),
    Neg(Box<RealExpr>),
    Add(Box<RealExpr>, Box<RealExpr>),
    Sub(Box<RealExpr>, Box<RealExpr>),
    Mul(Box<RealExpr>, Box<RealExpr>),
    Div(Box<RealExpr>, Box<RealExpr>),
    Pow(Box<RealExpr>, Box<RealExpr>),
    /// `root(n, t)`: the natural n-th root (n > 1); `sqrt(t)` is `root(2, t)`.
    Root(u32, Box<RealExpr>),
    /// `Sum (x, y | phi : t)`.
    Sum {
        vars: Vec<String>,
        guard: Box<Formula>,
        body: Box<RealExpr>,
    },
    /// `Product (x, y | phi : t)`.
    Product {
        vars: Vec<String>,
        guard: Box<Formula>,
        body: Box<RealExpr>,
    },
    /// `min :a (phi)`: the least value of `:a` for which `phi` holds
    /// (infinity if none).
    Min {
        var: String,
        body: Box<Formula>,
    },
    /// `let :a = t in s`.
    Let {
        var: String,
        value: Box<RealExpr>,
        body: Box<RealExpr>,
    },
}

/// A structure rewriting rule `L -> R` with its constraints and continuous
/// part (spec 1.1-1.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub name: String,
    /// The left side: elements to match and tuples they must carry.
    pub lhs: RuleSide,
    /// The right side: what the matched elements are replaced with.
    pub rhs: RuleSide,
    /// tau_e: relations matched exactly (all others are tau_h, positive).
    pub emb: Vec<String>,
    /// The partial map s from right-side elements to left-side elements, as
    /// `(rhs, lhs)` pairs. Lowering fills it: an explicit `with [r <- l]`
    /// entry, otherwise a right element maps to the left element of the same
    /// name if there is one.
    pub map: Vec<(String, String)>,
    /// Pairs of left-side elements that may be matched to the same element
    /// (spec 5.2.4); all other pairs must be matched injectively.
    pub nondistinct: Vec<(String, String)>,
    /// `pre`: left-side element names are constants here.
    pub pre: Formula,
    /// `inv`: must hold throughout continuous evolution.
    pub inv: Formula,
    /// `post`: right-side element names are constants here.
    pub post: Formula,
    /// `update :f(r) = t`: new function values of right-side elements, from
    /// the evolved values of left-side elements.
    pub update: Vec<UpdateEquation>,
    /// `dynamics :f'(l) = t`: the ODE system (spec 1.2).
    pub dynamics: Vec<OdeEquation>,
}

/// One side of a rule: a small structure whose elements are named.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RuleSide {
    pub elements: Vec<String>,
    /// Relation tuples over `elements`, in source order.
    pub tuples: Vec<RuleTuple>,
    /// Function values given on this side (`f { a -> 1.5 }`).
    pub functions: Vec<(String, String, f64)>,
}

/// A tuple of a rule side; an optional one (`_opt_R(a, b)` in the source)
/// may be absent in the match (spec 1.1).
#[derive(Clone, Debug, PartialEq)]
pub struct RuleTuple {
    pub relation: String,
    pub args: Vec<String>,
    pub optional: bool,
}

/// `update :f(r) = t`.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateEquation {
    pub function: String,
    pub element: String,
    pub value: RealExpr,
}

/// `dynamics :f^(k)(l) = t`: the k-th derivative of `f` on `l` (k >= 1).
#[derive(Clone, Debug, PartialEq)]
pub struct OdeEquation {
    pub function: String,
    pub order: u32,
    pub element: String,
    pub value: RealExpr,
}

/// `LOC n { PLAYER p { PAYOFF t MOVES ... } ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Location {
    pub id: usize,
    /// One entry per player, in player order.
    pub players: Vec<PlayerLocation>,
}

/// What one player can do, and gets, in one location.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerLocation {
    /// The payoff if the play ends here (0 if not written).
    pub payoff: RealExpr,
    /// The labels (moves) available to this player here.
    pub moves: Vec<Label>,
}

/// A move label (spec 1.4): a rule, a time interval, parameter intervals, a
/// multiplicity, and the edges to the next location.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub rule: String,
    /// `t: a -- b`; `None` when not written (discrete moves).
    pub time: Option<Interval>,
    /// `p: a -- b` for each rule parameter `:p`.
    pub params: Vec<(String, Interval)>,
    pub multiplicity: Multiplicity,
    /// One edge, or several carrying probabilities that sum to 1.
    pub targets: Vec<Target>,
}

/// An interval `a -- b`; an end-point may be a name drawn from a
/// distribution on the edge taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    pub lo: Bound,
    pub hi: Bound,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    Num(f64),
    /// A name whose value each target edge draws (`x ~ normal(m, s)`).
    Drawn(String),
}

/// How many matches one application of a label uses (spec 1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Multiplicity {
    /// One match chosen by the player.
    #[default]
    One,
    /// Any set of pairwise non-intersecting matches chosen by the player.
    Any,
    /// All matches at once.
    All,
}

/// An edge of a label to the next location.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub location: usize,
    /// Its probability, when the label has several edges.
    pub probability: Option<f64>,
    /// How the drawn interval end-points are distributed on this edge.
    pub draws: Vec<(String, Distribution)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    Normal { mean: f64, std_dev: f64 },
    Uniform { lo: f64, hi: f64 },
    Exponential { rate: f64 },
}

/// One move of a saved play (`HISTORY`).
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryMove {
    pub player: String,
    pub rule: String,
    /// Left-side element -> matched element of the structure.
    pub matching: Vec<(String, String)>,
    pub time: Option<f64>,
    pub params: Vec<(String, f64)>,
    pub target: usize,
}

/// `f` followed by `order` primes: the name under which the structure keeps
/// the `order`-th derivative of `f`.
pub fn derivative_name(function: &str, order: u32) -> String {
    let mut s = function.to_string();
    for _ in 0..order {
        s.push('\'');
    }
    s
}
