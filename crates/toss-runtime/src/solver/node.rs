//! The solver's internal, indexed form of formulas and real terms.
//!
//! Names are gone: variables are *slots* (fresh per binding, so shadowing
//! and inlining never clash), relations are ids of the signature or of
//! tabulated defined relations. `plan` turns `Exists`/`Forall` into planned
//! `Search` nodes; evaluation never sees them afterwards.

use std::collections::BTreeSet;

use toss_core::ir::CmpOp;
use toss_core::structure::{FunId, RelId};

/// Slot of an element variable.
pub(crate) type Slot = u32;
/// Slot of a real variable.
pub(crate) type RSlot = u32;
/// Slot of a set variable.
pub(crate) type SSlot = u32;

/// Where an atom's tuples live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RelRef {
    /// A relation of the structure being evaluated.
    Struct(RelId),
    /// A table of the solver (a defined relation tabulated over the stable
    /// relations).
    Table(u32),
}

#[derive(Clone, Debug)]
pub(crate) enum Node {
    True,
    False,
    Atom {
        rel: RelRef,
        args: Box<[Slot]>,
    },
    /// A closed defined relation (no parameters) too large to inline at
    /// every use: `def` its index among the solver's definitions, `local`
    /// the index of its planned body among the formula's shared nodes. Its
    /// value depends on the structure only: it is evaluated at most once
    /// per evaluation call, or per structure with a [`super::SetMemo`].
    Shared {
        def: u32,
        local: u32,
    },
    /// Membership in the current iterate of a fixed point.
    Local {
        idx: u32,
        args: Box<[Slot]>,
    },
    Eq(Slot, Slot),
    In {
        elem: Slot,
        set: SSlot,
    },
    Cmp {
        lhs: Term,
        op: CmpOp,
        rhs: Term,
    },
    Not(Box<Node>),
    And(Vec<Node>),
    Or(Vec<Node>),
    /// Only before planning.
    Exists {
        vars: Vec<Slot>,
        body: Box<Node>,
    },
    /// Only before planning.
    Forall {
        vars: Vec<Slot>,
        body: Box<Node>,
    },
    /// A planned existential search (after planning); shared, as
    /// distributing over a disjunction copies the other conjuncts.
    Search(std::sync::Arc<Search>),
    SetQ(Box<SetQ>),
    RealQ(Box<RealQ>),
    Fix(Box<Fix>),
    Tc(Box<Tc>),
    LetReal {
        slot: RSlot,
        value: Term,
        body: Box<Node>,
    },
}

/// `ex X, Y phi` (after planning always existential; `all` becomes
/// `not ex not`).
#[derive(Clone, Debug)]
pub(crate) struct SetQ {
    pub forall: bool,
    pub vars: Vec<SSlot>,
    pub body: Node,
    /// Decide by grounding to SAT (else by enumerating subsets).
    pub sat: bool,
}

/// `ex :a phi`, `all :a phi` and `min :a phi`.
#[derive(Clone, Debug)]
pub(crate) struct RealQ {
    pub forall: bool,
    pub var: RSlot,
    pub body: Node,
    /// The terms `:a` is compared with; the truth of `body` is constant
    /// between their values.
    pub cands: Vec<Cand>,
}

#[derive(Clone, Debug)]
pub(crate) struct Cand {
    pub term: Term,
    /// Element slots of `term` bound inside the quantifier: the candidate
    /// values are taken over all their assignments.
    pub inner: Vec<Slot>,
}

/// Caching of a fixed point / closure per evaluation call, keyed by the
/// values of the outer variables it depends on.
#[derive(Clone, Debug)]
pub(crate) struct CacheInfo {
    pub idx: u32,
    pub deps_e: Vec<Slot>,
    pub deps_r: Vec<RSlot>,
    pub enabled: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Fix {
    pub greatest: bool,
    pub local: u32,
    pub inner: Vec<Slot>,
    pub outer: Vec<Slot>,
    pub body: Node,
    /// Planned enumeration of `inner` satisfying `body`.
    pub search: Option<Search>,
    /// For a unary fixed point whose body is a set expression: its
    /// set-at-a-time form (evaluated instead of `search`).
    pub unary: Option<super::unary::SetExpr>,
    pub cache: CacheInfo,
}

#[derive(Clone, Debug)]
pub(crate) struct Tc {
    pub steps: Option<u32>,
    pub inner_from: Vec<Slot>,
    pub inner_to: Vec<Slot>,
    pub outer_from: Vec<Slot>,
    pub outer_to: Vec<Slot>,
    pub body: Node,
    /// Planned enumeration of `inner_to` given `inner_from`.
    pub search: Option<Search>,
    pub cache: CacheInfo,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Clone, Debug)]
pub(crate) enum Term {
    Const(f64),
    Var(RSlot),
    Fun {
        fun: FunId,
        elem: Slot,
    },
    Char(Box<Node>),
    Neg(Box<Term>),
    Bin(BinOp, Box<Term>, Box<Term>),
    Root(u32, Box<Term>),
    Agg(Box<Agg>),
    Min(Box<RealQ>),
    Let {
        slot: RSlot,
        value: Box<Term>,
        body: Box<Term>,
    },
}

/// `Sum` / `Product` over the satisfying assignments of a guard.
#[derive(Clone, Debug)]
pub(crate) struct Agg {
    pub product: bool,
    pub vars: Vec<Slot>,
    pub guard: Node,
    pub search: Option<Search>,
    pub body: Term,
}

/// A planned search: check `pre`, then bind variables step by step, each
/// step from a generator, followed by the filters that became decidable.
#[derive(Clone, Debug, Default)]
pub(crate) struct Search {
    pub vars: Vec<Slot>,
    pub pre: Vec<Node>,
    pub steps: Vec<Step>,
    /// The free variables (computed once by [`Search::new`]: planning asks
    /// for them at every enclosing level).
    pub free: Vars,
    /// Set at a time form of the search as a sentence, when it has one:
    /// decided by it instead of the steps when only its truth is asked.
    pub join: Option<std::sync::Arc<TableJoin>>,
}

/// `ex x1..xk (R(x1, .., xk) and phi1(x1) and .. and phik(xk))` with
/// distinct `xi` and each `phii` a set expression (Connect Four's
/// `ex a, b, c, d (Q(a) and Q(b) and Q(c) and Q(d) and Four(a, b, c, d))`):
/// the sets are computed once with word operations, then the tuples of `R`
/// starting with a member of the first set are tested bit by bit.
#[derive(Clone, Debug)]
pub(crate) struct TableJoin {
    pub rel: RelRef,
    /// The distinct sets.
    pub sets: Vec<super::unary::SetExpr>,
    /// Per argument position, the index in `sets` of the set its element
    /// must be in (`None`: any; the first position always has one).
    pub of_pos: Vec<Option<usize>>,
}

impl Search {
    pub fn new(vars: Vec<Slot>, pre: Vec<Node>, steps: Vec<Step>) -> Search {
        let mut s = Search {
            vars,
            pre,
            steps,
            free: Vars::default(),
            join: None,
        };
        let mut free = Vars::default();
        search_vars(&s, &mut free);
        s.free = free;
        s
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub generator: Gen,
    pub filters: Vec<Node>,
}

#[derive(Clone, Debug)]
pub(crate) enum Gen {
    /// Every live element.
    All(Slot),
    /// `var = from` with `from` bound.
    Eq { var: Slot, from: Slot },
    /// The tuples of a relation matching the bound arguments.
    Atom { rel: RelRef, args: Box<[Arg]> },
    /// The members of the unary relations `pos` that are in none of `neg`
    /// (a unary generator with the unary filters of its variable, `W(s)
    /// and King(s)`, intersected word by word instead of tested per member).
    Unaries {
        var: Slot,
        pos: Box<[RelRef]>,
        neg: Box<[RelRef]>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    /// Already bound: must match.
    Bound(Slot),
    /// Bound by this tuple.
    Bind(Slot),
    /// Bound earlier in this same tuple: must match.
    Check(Slot),
}

/// Free variables of a node or term.
#[derive(Clone, Debug, Default)]
pub(crate) struct Vars {
    pub e: BTreeSet<Slot>,
    pub r: BTreeSet<RSlot>,
    pub s: BTreeSet<SSlot>,
    pub locals: BTreeSet<u32>,
}

impl Vars {
    fn merge_without(&mut self, inner: Vars, e: &[Slot], r: &[RSlot], s: &[SSlot]) {
        for x in inner.e {
            if !e.contains(&x) {
                self.e.insert(x);
            }
        }
        for x in inner.r {
            if !r.contains(&x) {
                self.r.insert(x);
            }
        }
        for x in inner.s {
            if !s.contains(&x) {
                self.s.insert(x);
            }
        }
        self.locals.extend(inner.locals);
    }
}

pub(crate) fn node_vars(n: &Node) -> Vars {
    let mut v = Vars::default();
    add_node(n, &mut v);
    v
}

pub(crate) fn term_vars(t: &Term) -> Vars {
    let mut v = Vars::default();
    add_term(t, &mut v);
    v
}

fn add_search(s: &Search, v: &mut Vars) {
    v.e.extend(&s.free.e);
    v.r.extend(&s.free.r);
    v.s.extend(&s.free.s);
    v.locals.extend(&s.free.locals);
}

fn search_vars(s: &Search, v: &mut Vars) {
    let mut inner = Vars::default();
    for f in &s.pre {
        add_node(f, &mut inner);
    }
    for st in &s.steps {
        match &st.generator {
            Gen::All(x) => {
                inner.e.insert(*x);
            }
            Gen::Eq { var, from } => {
                inner.e.insert(*var);
                inner.e.insert(*from);
            }
            Gen::Unaries { var, .. } => {
                inner.e.insert(*var);
            }
            Gen::Atom { args, .. } => {
                for a in args.iter() {
                    match a {
                        Arg::Bound(x) | Arg::Bind(x) | Arg::Check(x) => {
                            inner.e.insert(*x);
                        }
                    }
                }
            }
        }
        for f in &st.filters {
            add_node(f, &mut inner);
        }
    }
    v.merge_without(inner, &s.vars, &[], &[]);
}

pub(crate) fn add_node(n: &Node, v: &mut Vars) {
    match n {
        Node::True | Node::False | Node::Shared { .. } => {}
        Node::Atom { args, .. } => v.e.extend(args.iter().copied()),
        Node::Local { idx, args } => {
            v.e.extend(args.iter().copied());
            v.locals.insert(*idx);
        }
        Node::Eq(a, b) => {
            v.e.insert(*a);
            v.e.insert(*b);
        }
        Node::In { elem, set } => {
            v.e.insert(*elem);
            v.s.insert(*set);
        }
        Node::Cmp { lhs, rhs, .. } => {
            add_term(lhs, v);
            add_term(rhs, v);
        }
        Node::Not(x) => add_node(x, v),
        Node::And(xs) | Node::Or(xs) => xs.iter().for_each(|x| add_node(x, v)),
        Node::Exists { vars, body } | Node::Forall { vars, body } => {
            let inner = node_vars(body);
            v.merge_without(inner, vars, &[], &[]);
        }
        Node::Search(s) => add_search(s, v),
        Node::SetQ(q) => {
            let inner = node_vars(&q.body);
            v.merge_without(inner, &[], &[], &q.vars);
        }
        Node::RealQ(q) => add_realq(q, v),
        Node::Fix(f) => {
            v.e.extend(f.outer.iter().copied());
            let mut inner = node_vars(&f.body);
            if let Some(s) = &f.search {
                add_search(s, &mut inner);
            }
            inner.locals.remove(&f.local);
            v.merge_without(inner, &f.inner, &[], &[]);
        }
        Node::Tc(t) => {
            v.e.extend(t.outer_from.iter().copied());
            v.e.extend(t.outer_to.iter().copied());
            let mut inner = node_vars(&t.body);
            if let Some(s) = &t.search {
                add_search(s, &mut inner);
            }
            let bound: Vec<Slot> = t.inner_from.iter().chain(&t.inner_to).copied().collect();
            v.merge_without(inner, &bound, &[], &[]);
        }
        Node::LetReal { slot, value, body } => {
            add_term(value, v);
            let inner = node_vars(body);
            v.merge_without(inner, &[], &[*slot], &[]);
        }
    }
}

fn add_realq(q: &RealQ, v: &mut Vars) {
    let mut inner = node_vars(&q.body);
    for c in &q.cands {
        let mut cv = term_vars(&c.term);
        cv.e.retain(|x| !c.inner.contains(x));
        inner.e.extend(cv.e);
        inner.r.extend(cv.r);
        inner.s.extend(cv.s);
        inner.locals.extend(cv.locals);
    }
    v.merge_without(inner, &[], &[q.var], &[]);
}

pub(crate) fn add_term(t: &Term, v: &mut Vars) {
    match t {
        Term::Const(_) => {}
        Term::Var(r) => {
            v.r.insert(*r);
        }
        Term::Fun { elem, .. } => {
            v.e.insert(*elem);
        }
        Term::Char(n) => add_node(n, v),
        Term::Neg(x) | Term::Root(_, x) => add_term(x, v),
        Term::Bin(_, a, b) => {
            add_term(a, v);
            add_term(b, v);
        }
        Term::Agg(a) => {
            let mut inner = node_vars(&a.guard);
            if let Some(s) = &a.search {
                add_search(s, &mut inner);
            }
            add_term(&a.body, &mut inner);
            v.merge_without(inner, &a.vars, &[], &[]);
        }
        Term::Min(q) => add_realq(q, v),
        Term::Let { slot, value, body } => {
            add_term(value, v);
            let inner = term_vars(body);
            v.merge_without(inner, &[], &[*slot], &[]);
        }
    }
}
