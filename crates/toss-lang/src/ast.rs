//! The syntax tree of a `.toss` file, with byte spans on every node a
//! diagnostic can point at. Built by [`crate::parse`], checked by
//! [`crate::check`], lowered to the IR by [`crate::lower`].

use std::ops::Range;

pub use toss_core::ir::{CmpOp, Distribution, FixpointKind, Multiplicity};

/// A byte range in the source.
pub type Span = Range<usize>;

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A number with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Num<T> {
    pub value: T,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Item {
    Players {
        names: Vec<Ident>,
        span: Span,
    },
    /// `DATA key: value, ...`; each value as written, with its span.
    Data {
        entries: Vec<(Ident, Ident)>,
        span: Span,
    },
    /// `REPETITION :f(e) OF R, :g, ...` (functions written with `:`).
    Repetition {
        function: Ident,
        element: Ident,
        relations: Vec<Ident>,
        functions: Vec<Ident>,
        span: Span,
    },
    Rel(RelDef),
    Rule(RuleDef),
    Loc(LocDef),
    Start(StructLit),
    Model(StructLit),
    History {
        moves: Vec<HistMove>,
        span: Span,
    },
}

/// `REL Name(x, y) = phi` or `REL Name(x, y) { phi }`.
#[derive(Clone, Debug, PartialEq)]
pub struct RelDef {
    pub name: Ident,
    pub params: Vec<Ident>,
    pub body: Formula,
    pub span: Span,
}

/// `[ elements | relations | functions ] "board"`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct StructLit {
    pub elements: Vec<Ident>,
    pub relations: Vec<RelEntry>,
    pub functions: Vec<FunEntry>,
    /// The board string's contents (without quotes) and the span of the
    /// whole string literal.
    pub board: Option<(String, Span)>,
    pub span: Span,
}

/// `R (a, b)`, `R {(a, b); (c, d)}`, `P {a; b}`, `P:1 {}`.
#[derive(Clone, Debug, PartialEq)]
pub struct RelEntry {
    pub name: Ident,
    pub declared_arity: Option<Num<usize>>,
    /// Each tuple with its span.
    pub tuples: Vec<(Vec<Ident>, Span)>,
    pub span: Span,
}

/// `f { a -> 1.5, b -> -2 }`, or `f' { a -> 1 }` for the values of a kept
/// derivative (order >= 1).
#[derive(Clone, Debug, PartialEq)]
pub struct FunEntry {
    pub name: Ident,
    /// The number of primes: 0 for the function itself.
    pub order: u32,
    pub values: Vec<(Ident, f64)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub kind: FormulaKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Element,
    Set,
    Real,
}

/// A quantified variable; `name` is without the `:` of real variables.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub kind: VarKind,
    pub name: Ident,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FormulaKind {
    True,
    False,
    Rel {
        name: Ident,
        args: Vec<Ident>,
    },
    Eq(Ident, Ident),
    Ne(Ident, Ident),
    In {
        element: Ident,
        set: Ident,
    },
    Cmp {
        lhs: Term,
        op: CmpOp,
        rhs: Term,
    },
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
    Implies(Box<Formula>, Box<Formula>),
    Iff(Box<Formula>, Box<Formula>),
    Exists {
        vars: Vec<VarDecl>,
        body: Box<Formula>,
    },
    Forall {
        vars: Vec<VarDecl>,
        body: Box<Formula>,
    },
    Fixpoint {
        kind: FixpointKind,
        relation: Ident,
        params: Vec<Ident>,
        body: Box<Formula>,
    },
    Tc {
        steps: Option<Num<u32>>,
        from: Vec<Ident>,
        to: Vec<Ident>,
        body: Box<Formula>,
    },
    Let {
        relation: Ident,
        params: Vec<Ident>,
        def: Box<Formula>,
        body: Box<Formula>,
    },
    LetReal {
        var: Ident,
        value: Term,
        body: Box<Formula>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub kind: TermKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TermKind {
    Num(f64),
    /// `:a` (name without the colon).
    Var(Ident),
    /// `:f(x)` (order 0) or `:f'(x)` (order >= 1).
    Fun {
        name: Ident,
        order: u32,
        element: Ident,
    },
    Char(Box<Formula>),
    Neg(Box<Term>),
    Add(Box<Term>, Box<Term>),
    Sub(Box<Term>, Box<Term>),
    Mul(Box<Term>, Box<Term>),
    Div(Box<Term>, Box<Term>),
    Pow(Box<Term>, Box<Term>),
    Sqrt(Box<Term>),
    Root(Num<u32>, Box<Term>),
    Sum {
        vars: Vec<Ident>,
        guard: Box<Formula>,
        body: Box<Term>,
    },
    Product {
        vars: Vec<Ident>,
        guard: Box<Formula>,
        body: Box<Term>,
    },
    Min {
        var: Ident,
        body: Box<Formula>,
    },
    Let {
        var: Ident,
        value: Box<Term>,
        body: Box<Term>,
    },
}

/// `RULE Name: L -> R clauses`.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleDef {
    pub name: Ident,
    pub lhs: StructLit,
    pub rhs: StructLit,
    pub emb: Vec<Ident>,
    /// `with [r <- l]` as (right, left) pairs.
    pub with: Vec<(Ident, Ident)>,
    pub update: Vec<Equation>,
    pub dynamics: Vec<Equation>,
    pub pre: Option<Formula>,
    pub inv: Option<Formula>,
    pub post: Option<Formula>,
    pub span: Span,
}

/// `:f(a) = t` (update) or `:f'(a) = t` (dynamics).
#[derive(Clone, Debug, PartialEq)]
pub struct Equation {
    pub function: Ident,
    pub order: u32,
    pub element: Ident,
    /// The span of the left-hand side `:f'(a)`.
    pub target: Span,
    pub value: Term,
    pub span: Span,
}

/// `LOC n { PLAYER p { ... } ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct LocDef {
    pub id: Num<usize>,
    pub players: Vec<PlayerBlock>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlayerBlock {
    pub name: Ident,
    pub payoff: Option<Term>,
    pub moves: Vec<LabelDef>,
    pub span: Span,
}

/// `[Rule, mult: *, t: 0 -- 1 -> 1 (p 0.5); 2 (p 0.5)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelDef {
    pub rule: Ident,
    pub multiplicity: Option<Num<Multiplicity>>,
    /// Intervals by name; `t` is the time interval.
    pub intervals: Vec<(Ident, Bound, Bound)>,
    pub targets: Vec<TargetDef>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    Num(f64),
    Name(Ident),
}

#[derive(Clone, Debug, PartialEq)]
pub struct TargetDef {
    pub location: Num<usize>,
    pub probability: Option<Num<f64>>,
    pub draws: Vec<(Ident, Distribution)>,
    pub span: Span,
}

/// `player: Rule {l: e, ...} t: 0.5, p: 1 -> 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct HistMove {
    pub player: Ident,
    pub rule: Ident,
    pub matching: Vec<(Ident, Ident)>,
    pub values: Vec<(Ident, f64)>,
    pub target: Num<usize>,
    pub span: Span,
}

/// A plays file (docs/plays.md).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PlaysFile {
    pub players: Vec<Ident>,
    pub plays: Vec<PlayLit>,
}

/// `PLAY label position...`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayLit {
    pub label: toss_core::plays::PlayLabel,
    /// The span of `PLAY` and its label.
    pub span: Span,
    pub positions: Vec<StructLit>,
}
