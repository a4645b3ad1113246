//! GDL (the Game Description Language of General Game Playing): the IR of a
//! description, a bottom-up reasoner and [`GdlGame`], which implements the
//! [`Game`](toss_core::Game) trait of the core.
//!
//! The IR is what the KIF front end ([`kif`]) lowers to: symbols (compared
//! case-insensitively by the parser, which keeps the first spelling seen),
//! terms with function terms, literals and rules. Disjunctions are already
//! expanded (a rule with `(or a b)` becomes two rules); `(p)` is kept apart
//! from the bare `p`, as ggp-base reads it. Facts are rules with an empty
//! body.
//!
//! Evaluation (the private `reasoner` module): relations are split in three levels, those
//! that depend neither on `true` nor on `does` (computed once per game: the
//! `succ`/`add` tables, board adjacency, `role`, `init`), those that depend
//! on `true` but not on `does` (once per state: `legal`, `goal`, `terminal`
//! and what they use) and those that depend on `does` (once per joint move:
//! `next`). Each level is evaluated bottom-up, stratum by stratum (strongly
//! connected components of the dependency graph in topological order), with
//! semi-naive iteration inside recursive components, over ground terms
//! interned as `u32` ids. Bottom-up evaluation of a safe, stratified program
//! that respects the GDL recursion restriction always terminates, whatever a
//! query binds. Before compiling, the state- and move-level relations go
//! through a demand (magic-sets) transformation, so that a relation whose
//! callers always bind some arguments is derived only for the values they
//! ask for.
//!
//! Dependency rule: `toss-core` (the `Game` trait) and `toss-lang` (its
//! diagnostics) only. The translation of GDL to Toss (spec chapter 5) and
//! the grounding for the derive belong here, in folders of their own
//! ([`ground`]: the propositional network of the run-time grounded form and
//! of the derive; [`translate`]: the Toss game of a GDL game). Its tests
//! also use the runtime (the solver and interpreter that check the
//! translation).

mod demand;
mod game;
pub mod ground;
pub mod kif;
mod reasoner;
mod terms;
pub mod translate;

pub use game::{GdlGame, GdlMove, GdlState, GoalError};
pub use reasoner::{Program, ProgramError};
pub use terms::{TermId, TermStore};

/// Index of a symbol in [`Description::symbols`].
pub type Sym = u32;

/// A term of a rule. Ordered by symbol ids (an order that is the same on
/// every run, not alphabetical).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// A variable, numbered within its rule (see [`Rule::var_names`]).
    Var(u32),
    /// An object constant.
    Const(Sym),
    /// A function term `(f t1 ... tn)`, n >= 1.
    Fn(Sym, Vec<Term>),
}

impl Term {
    /// Whether the term has no variables.
    pub fn is_ground(&self) -> bool {
        match self {
            Term::Var(_) => false,
            Term::Const(_) => true,
            Term::Fn(_, a) => a.iter().all(Term::is_ground),
        }
    }

    /// Pushes the variables of the term (with repetitions).
    pub fn vars(&self, out: &mut Vec<u32>) {
        match self {
            Term::Var(v) => out.push(*v),
            Term::Const(_) => {}
            Term::Fn(_, a) => a.iter().for_each(|t| t.vars(out)),
        }
    }
}

/// An atomic sentence `(r t1 ... tn)`; a proposition has no arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    pub rel: Sym,
    pub args: Vec<Term>,
}

/// A body literal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    Pos(Atom),
    /// Negation as failure.
    Neg(Atom),
    /// Syntactic inequality of two terms.
    Distinct(Term, Term),
    /// Syntactic equality of two terms: `(not (distinct a b))`, which is
    /// not GDL but which servers send. Read as ggp-base's prover reads it,
    /// a test once both terms are bound (it binds no variable).
    Equal(Term, Term),
}

impl Literal {
    /// Pushes the variables of the literal (with repetitions).
    pub fn vars(&self, out: &mut Vec<u32>) {
        match self {
            Literal::Pos(a) | Literal::Neg(a) => a.args.iter().for_each(|t| t.vars(out)),
            Literal::Distinct(a, b) | Literal::Equal(a, b) => {
                a.vars(out);
                b.vars(out);
            }
        }
    }
}

/// A rule `(<= head body...)`; a fact when the body is empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    pub head: Atom,
    pub body: Vec<Literal>,
    /// Names of the variables `0..var_names.len()` (for messages).
    pub var_names: Vec<String>,
}

/// A GDL description: symbols and rules (disjunctions expanded).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Description {
    /// Symbol names, spelled as first seen.
    pub symbols: Vec<String>,
    pub rules: Vec<Rule>,
}

impl Description {
    /// The symbol with this name (ASCII case-insensitive).
    pub fn symbol(&self, name: &str) -> Option<Sym> {
        self.symbols
            .iter()
            .position(|s| s.eq_ignore_ascii_case(name))
            .map(|i| i as Sym)
    }

    /// A term in KIF syntax.
    pub fn term_to_string(&self, t: &Term, var_names: &[String]) -> String {
        match t {
            Term::Var(v) => var_names
                .get(*v as usize)
                .cloned()
                .unwrap_or_else(|| format!("?v{v}")),
            Term::Const(s) => self.symbols[*s as usize].clone(),
            Term::Fn(f, a) => {
                let mut s = format!("({}", self.symbols[*f as usize]);
                for x in a {
                    s.push(' ');
                    s.push_str(&self.term_to_string(x, var_names));
                }
                s.push(')');
                s
            }
        }
    }
}

/// The strongly connected components of a directed graph on `0..n`, in
/// reverse topological order of the condensation (a component comes after
/// every component it has an edge to), i.e. dependencies first when edges
/// point from a relation to the relations it depends on. Iterative Tarjan.
pub fn sccs(n: usize, succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    let mut call: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        call.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if *i < succ[v].len() {
                let w = succ[v][*i];
                *i += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comp.sort_unstable();
                    out.push(comp);
                }
            }
        }
    }
    out
}

/// Whether two rule terms (variables of each renamed apart) may unify;
/// repeated variables are not checked, so this errs towards `true`.
pub fn may_unify(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Var(_), _) | (_, Term::Var(_)) => true,
        (Term::Const(x), Term::Const(y)) => x == y,
        (Term::Fn(f, xs), Term::Fn(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| may_unify(x, y))
        }
        _ => false,
    }
}

/// The rule dependency graph: `succ[i]` lists the rules whose head may
/// unify with a body literal of rule `i`; the second list holds the
/// negative edges as (rule, rule it depends on, body literal index).
#[allow(clippy::type_complexity)]
pub fn rule_graph(desc: &Description) -> (Vec<Vec<usize>>, Vec<(usize, usize, usize)>) {
    let mut by_head: std::collections::HashMap<(Sym, usize), Vec<usize>> = Default::default();
    for (i, r) in desc.rules.iter().enumerate() {
        by_head
            .entry((r.head.rel, r.head.args.len()))
            .or_default()
            .push(i);
    }
    let mut succ = vec![Vec::new(); desc.rules.len()];
    let mut neg = Vec::new();
    for (i, r) in desc.rules.iter().enumerate() {
        for (k, l) in r.body.iter().enumerate() {
            let (Literal::Pos(a) | Literal::Neg(a)) = l else {
                continue;
            };
            for &j in by_head
                .get(&(a.rel, a.args.len()))
                .map_or(&[][..], |v| &v[..])
            {
                let h = &desc.rules[j].head;
                if a.args.iter().zip(&h.args).all(|(x, y)| may_unify(x, y)) {
                    succ[i].push(j);
                    if matches!(l, Literal::Neg(_)) {
                        neg.push((i, j, k));
                    }
                }
            }
        }
        succ[i].sort_unstable();
        succ[i].dedup();
    }
    (succ, neg)
}

/// Whether a symbol name is a decimal natural number (goal values, ordering).
pub fn parse_nat(name: &str) -> Option<u64> {
    if name.is_empty() || name.len() > 18 || !name.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    name.parse().ok()
}
