//! From the name-based IR to the slot-based `Node`/`Term` form: name
//! resolution, inlining of defined and `let` relations, real-quantifier
//! candidates.

use std::collections::HashMap;

use super::SolverError;
use super::node::*;
use toss_core::ir::{self, Formula, RealExpr, Var};
use toss_core::structure::Structure;

fn err<T>(message: impl Into<String>) -> Result<T, SolverError> {
    Err(SolverError {
        message: message.into(),
    })
}

#[derive(Clone, Copy)]
struct Mark {
    e: usize,
    r: usize,
    s: usize,
    rels: usize,
}

enum LocalRel<'a> {
    Fix {
        idx: u32,
        arity: usize,
    },
    Let {
        params: &'a [String],
        def: &'a Formula,
        mark: Mark,
    },
}

pub(crate) struct Compiler<'a> {
    sig: &'a Structure,
    defs: &'a [ir::DefinedRelation],
    def_index: &'a HashMap<String, usize>,
    /// Tabulated defined relations: def index -> table index.
    tables: &'a HashMap<usize, u32>,
    elems: Vec<(String, Slot)>,
    reals: Vec<(String, RSlot)>,
    sets: Vec<(String, SSlot)>,
    rels: Vec<(String, LocalRel<'a>)>,
    pub n_e: u32,
    pub n_r: u32,
    pub n_s: u32,
    pub n_local: u32,
    pub n_cache: u32,
    def_stack: Vec<usize>,
    /// Per defined relation: its size with the relations it uses inlined
    /// (saturating; see [`ir::sizes::inlined_sizes`]).
    def_sizes: &'a [u64],
    /// The bodies of the [`Node::Shared`] nodes, unplanned, by index.
    pub shared: Vec<Node>,
    /// Whether closed defined relations are shared in this formula (it is
    /// large; see [`ir::sizes::SHARING_ABOVE`]).
    pub sharing: bool,
    /// Per cache: whether its fixed point or closure depends on nothing
    /// but the structure (its value can be kept for the structure).
    pub cache_closed: Vec<bool>,
    shared_of: HashMap<usize, u32>,
}

impl<'a> Compiler<'a> {
    pub fn new(
        sig: &'a Structure,
        defs: &'a [ir::DefinedRelation],
        def_index: &'a HashMap<String, usize>,
        tables: &'a HashMap<usize, u32>,
        def_sizes: &'a [u64],
    ) -> Self {
        Compiler {
            sig,
            defs,
            def_index,
            tables,
            elems: Vec::new(),
            reals: Vec::new(),
            sets: Vec::new(),
            rels: Vec::new(),
            n_e: 0,
            n_r: 0,
            n_s: 0,
            n_local: 0,
            n_cache: 0,
            def_stack: Vec::new(),
            def_sizes,
            shared: Vec::new(),
            sharing: false,
            cache_closed: Vec::new(),
            shared_of: HashMap::new(),
        }
    }

    pub fn push_elem(&mut self, name: &str) -> Slot {
        let s = self.n_e;
        self.n_e += 1;
        self.elems.push((name.to_string(), s));
        s
    }

    pub fn push_real(&mut self, name: &str) -> RSlot {
        let s = self.n_r;
        self.n_r += 1;
        self.reals.push((name.to_string(), s));
        s
    }

    fn push_set(&mut self, name: &str) -> SSlot {
        let s = self.n_s;
        self.n_s += 1;
        self.sets.push((name.to_string(), s));
        s
    }

    fn elem(&self, name: &str) -> Result<Slot, SolverError> {
        match self.elems.iter().rev().find(|(n, _)| n == name) {
            Some(&(_, s)) => Ok(s),
            None => err(format!(
                "unbound element variable or unknown constant `{name}`"
            )),
        }
    }

    fn real(&self, name: &str) -> Result<RSlot, SolverError> {
        match self.reals.iter().rev().find(|(n, _)| n == name) {
            Some(&(_, s)) => Ok(s),
            None => err(format!("unbound real variable `:{name}`")),
        }
    }

    fn set(&self, name: &str) -> Result<SSlot, SolverError> {
        match self.sets.iter().rev().find(|(n, _)| n == name) {
            Some(&(_, s)) => Ok(s),
            None => err(format!("unbound set variable `{name}`")),
        }
    }

    fn mark(&self) -> Mark {
        Mark {
            e: self.elems.len(),
            r: self.reals.len(),
            s: self.sets.len(),
            rels: self.rels.len(),
        }
    }

    fn new_cache(&mut self) -> u32 {
        self.n_cache += 1;
        self.n_cache - 1
    }

    /// Compiles `body` where `params` denote the slots `args`, in the scope
    /// `mark` (a prefix of the current scope).
    fn inline(
        &mut self,
        mark: Mark,
        params: &'a [String],
        args: &[Slot],
        body: &'a Formula,
    ) -> Result<Node, SolverError> {
        let elems = self.elems.split_off(mark.e);
        let reals = self.reals.split_off(mark.r);
        let sets = self.sets.split_off(mark.s);
        let rels = self.rels.split_off(mark.rels);
        for (p, &a) in params.iter().zip(args) {
            self.elems.push((p.clone(), a));
        }
        let res = self.formula(body);
        self.elems.truncate(mark.e);
        self.elems.extend(elems);
        self.reals.extend(reals);
        self.sets.extend(sets);
        self.rels.extend(rels);
        res
    }

    pub fn formula(&mut self, f: &'a Formula) -> Result<Node, SolverError> {
        Ok(match f {
            Formula::True => Node::True,
            Formula::False => Node::False,
            Formula::Rel { name, args } => {
                let slots = args
                    .iter()
                    .map(|a| self.elem(a))
                    .collect::<Result<Vec<_>, _>>()?;
                self.relation(name, slots)?
            }
            Formula::Eq(a, b) => Node::Eq(self.elem(a)?, self.elem(b)?),
            Formula::In { element, set } => Node::In {
                elem: self.elem(element)?,
                set: self.set(set)?,
            },
            Formula::Cmp { lhs, op, rhs } => Node::Cmp {
                lhs: self.term(lhs)?,
                op: *op,
                rhs: self.term(rhs)?,
            },
            Formula::Not(x) => Node::Not(Box::new(self.formula(x)?)),
            Formula::And(xs) => Node::And(
                xs.iter()
                    .map(|x| self.formula(x))
                    .collect::<Result<_, _>>()?,
            ),
            Formula::Or(xs) => Node::Or(
                xs.iter()
                    .map(|x| self.formula(x))
                    .collect::<Result<_, _>>()?,
            ),
            Formula::Implies(a, b) => Node::Or(vec![
                Node::Not(Box::new(self.formula(a)?)),
                self.formula(b)?,
            ]),
            Formula::Iff(a, b) => {
                let a = self.formula(a)?;
                let b = self.formula(b)?;
                Node::Or(vec![
                    Node::And(vec![a.clone(), b.clone()]),
                    Node::And(vec![Node::Not(Box::new(a)), Node::Not(Box::new(b))]),
                ])
            }
            Formula::Exists { vars, body } => self.quantifier(false, vars, body)?,
            Formula::Forall { vars, body } => self.quantifier(true, vars, body)?,
            Formula::Fixpoint {
                kind,
                relation,
                params,
                body,
            } => {
                let outer = params
                    .iter()
                    .map(|p| self.elem(p))
                    .collect::<Result<Vec<_>, _>>()?;
                let mark = self.mark();
                let inner: Vec<Slot> = params.iter().map(|p| self.push_elem(p)).collect();
                let idx = self.n_local;
                self.n_local += 1;
                self.rels.push((
                    relation.clone(),
                    LocalRel::Fix {
                        idx,
                        arity: params.len(),
                    },
                ));
                let body = self.formula(body);
                self.rels.truncate(mark.rels);
                self.elems.truncate(mark.e);
                let body = body?;
                let cache = self.cache_info(&body, &inner, Some(idx));
                Node::Fix(Box::new(Fix {
                    greatest: *kind == ir::FixpointKind::Greatest,
                    local: idx,
                    inner,
                    outer,
                    body,
                    search: None,
                    unary: None,
                    cache,
                }))
            }
            Formula::Tc {
                steps,
                from,
                to,
                body,
            } => {
                if from.len() != to.len() || from.is_empty() {
                    return err("tc needs the same positive number of variables on each side");
                }
                let outer_from = from
                    .iter()
                    .map(|p| self.elem(p))
                    .collect::<Result<Vec<_>, _>>()?;
                let outer_to = to
                    .iter()
                    .map(|p| self.elem(p))
                    .collect::<Result<Vec<_>, _>>()?;
                let mark = self.mark();
                let inner_from: Vec<Slot> = from.iter().map(|p| self.push_elem(p)).collect();
                let inner_to: Vec<Slot> = to.iter().map(|p| self.push_elem(p)).collect();
                let body = self.formula(body);
                self.elems.truncate(mark.e);
                let body = body?;
                let bound: Vec<Slot> = inner_from.iter().chain(&inner_to).copied().collect();
                let cache = self.cache_info(&body, &bound, None);
                Node::Tc(Box::new(Tc {
                    steps: *steps,
                    inner_from,
                    inner_to,
                    outer_from,
                    outer_to,
                    body,
                    search: None,
                    cache,
                }))
            }
            Formula::Let {
                relation,
                params,
                def,
                body,
            } => {
                let mark = self.mark();
                self.rels
                    .push((relation.clone(), LocalRel::Let { params, def, mark }));
                let res = self.formula(body);
                self.rels.truncate(mark.rels);
                res?
            }
            Formula::LetReal { var, value, body } => {
                let value = self.term(value)?;
                let mark = self.mark();
                let slot = self.push_real(var);
                let body = self.formula(body);
                self.reals.truncate(mark.r);
                Node::LetReal {
                    slot,
                    value,
                    body: Box::new(body?),
                }
            }
        })
    }

    fn cache_info(&mut self, body: &Node, bound: &[Slot], own_local: Option<u32>) -> CacheInfo {
        let v = node_vars(body);
        let uses_outer_locals = v.locals.iter().any(|&l| Some(l) != own_local);
        let enabled = !uses_outer_locals && v.s.is_empty();
        let info = CacheInfo {
            idx: self.new_cache(),
            deps_e: v.e.iter().copied().filter(|x| !bound.contains(x)).collect(),
            deps_r: v.r.iter().copied().collect(),
            enabled,
        };
        self.cache_closed
            .push(enabled && info.deps_e.is_empty() && info.deps_r.is_empty());
        info
    }

    fn relation(&mut self, name: &str, args: Vec<Slot>) -> Result<Node, SolverError> {
        if let Some(i) = self.rels.iter().rposition(|(n, _)| n == name) {
            match &self.rels[i].1 {
                LocalRel::Fix { idx, arity } => {
                    if *arity != args.len() {
                        return err(format!(
                            "`{name}` has arity {arity}, used with {}",
                            args.len()
                        ));
                    }
                    return Ok(Node::Local {
                        idx: *idx,
                        args: args.into(),
                    });
                }
                LocalRel::Let { params, def, mark } => {
                    let (params, def, mark) = (*params, *def, *mark);
                    if params.len() != args.len() {
                        return err(format!(
                            "`{name}` has arity {}, used with {}",
                            params.len(),
                            args.len()
                        ));
                    }
                    return self.inline(mark, params, &args, def);
                }
            }
        }
        if let Some(&d) = self.def_index.get(name) {
            let def = &self.defs[d];
            if def.params.len() != args.len() {
                return err(format!(
                    "`{name}` has arity {}, used with {}",
                    def.params.len(),
                    args.len()
                ));
            }
            if let Some(&t) = self.tables.get(&d) {
                return Ok(Node::Atom {
                    rel: RelRef::Table(t),
                    args: args.into(),
                });
            }
            if self.def_stack.contains(&d) {
                return err(format!("defined relation `{name}` is recursive"));
            }
            // A DAG of closed relations (GDL relations translated per
            // ground instance) would be exponential inlined.
            let share = self.sharing && ir::sizes::shared(self.defs, self.def_sizes, d);
            if share && let Some(&local) = self.shared_of.get(&d) {
                return Ok(Node::Shared {
                    def: d as u32,
                    local,
                });
            }
            self.def_stack.push(d);
            let mark = Mark {
                e: 0,
                r: 0,
                s: 0,
                rels: 0,
            };
            let res = self.inline(mark, &def.params, &args, &def.body);
            self.def_stack.pop();
            if share {
                let local = self.shared.len() as u32;
                self.shared.push(res?);
                self.shared_of.insert(d, local);
                return Ok(Node::Shared {
                    def: d as u32,
                    local,
                });
            }
            return res;
        }
        if let Some(r) = self.sig.relation(name) {
            if self.sig.arity(r) != args.len() {
                return err(format!(
                    "relation `{name}` has arity {}, used with {}",
                    self.sig.arity(r),
                    args.len()
                ));
            }
            return Ok(Node::Atom {
                rel: RelRef::Struct(r),
                args: args.into(),
            });
        }
        err(format!("unknown relation `{name}`"))
    }

    fn quantifier(
        &mut self,
        forall: bool,
        vars: &'a [Var],
        body: &'a Formula,
    ) -> Result<Node, SolverError> {
        let mark = self.mark();
        let marks_r = self.n_r;
        let marks_e = self.n_e;
        let slots: Vec<(u8, u32)> = vars
            .iter()
            .map(|v| match v {
                Var::Element(n) => (0, self.push_elem(n)),
                Var::Set(n) => (1, self.push_set(n)),
                Var::Real(n) => (2, self.push_real(n)),
            })
            .collect();
        let body = self.formula(body);
        self.elems.truncate(mark.e);
        self.reals.truncate(mark.r);
        self.sets.truncate(mark.s);
        let mut node = body?;
        // Wrap from the innermost variable out, grouping runs of one kind.
        let mut i = slots.len();
        while i > 0 {
            let kind = slots[i - 1].0;
            let mut j = i;
            while j > 0 && slots[j - 1].0 == kind {
                j -= 1;
            }
            let group: Vec<u32> = slots[j..i].iter().map(|s| s.1).collect();
            node = match kind {
                0 => {
                    if forall {
                        Node::Forall {
                            vars: group,
                            body: Box::new(node),
                        }
                    } else {
                        Node::Exists {
                            vars: group,
                            body: Box::new(node),
                        }
                    }
                }
                1 => Node::SetQ(Box::new(SetQ {
                    forall,
                    vars: group,
                    body: node,
                    sat: false,
                })),
                _ => {
                    for &var in group.iter().rev() {
                        let cands = candidates(var, &node, marks_e, marks_r)?;
                        node = Node::RealQ(Box::new(RealQ {
                            forall,
                            var,
                            body: node,
                            cands,
                        }));
                    }
                    node
                }
            };
            i = j;
        }
        Ok(node)
    }

    pub fn term(&mut self, t: &'a RealExpr) -> Result<Term, SolverError> {
        let bin = |c: &mut Self, op, a, b| -> Result<Term, SolverError> {
            Ok(Term::Bin(op, Box::new(c.term(a)?), Box::new(c.term(b)?)))
        };
        Ok(match t {
            RealExpr::Const(c) => Term::Const(*c),
            RealExpr::Var(n) => Term::Var(self.real(n)?),
            RealExpr::Fun { name, element } => match self.sig.function(name) {
                Some(f) => Term::Fun {
                    fun: f,
                    elem: self.elem(element)?,
                },
                None => return err(format!("unknown function `:{name}`")),
            },
            // A derivative the structure keeps (below the order of the
            // function's ODE, see `crate::continuous`) reads like a function.
            RealExpr::Derivative {
                name,
                order,
                element,
            } => match self
                .sig
                .function(&toss_core::ir::derivative_name(name, *order))
            {
                Some(f) => Term::Fun {
                    fun: f,
                    elem: self.elem(element)?,
                },
                None => {
                    return err(format!(
                        "the derivative `:{}({element})` is not kept: only derivatives below \
                         the order of an ODE for `:{name}` are",
                        toss_core::ir::derivative_name(name, *order)
                    ));
                }
            },
            RealExpr::Char(f) => Term::Char(Box::new(self.formula(f)?)),
            RealExpr::Neg(x) => Term::Neg(Box::new(self.term(x)?)),
            RealExpr::Add(a, b) => bin(self, BinOp::Add, a, b)?,
            RealExpr::Sub(a, b) => bin(self, BinOp::Sub, a, b)?,
            RealExpr::Mul(a, b) => bin(self, BinOp::Mul, a, b)?,
            RealExpr::Div(a, b) => bin(self, BinOp::Div, a, b)?,
            RealExpr::Pow(a, b) => bin(self, BinOp::Pow, a, b)?,
            RealExpr::Root(n, x) => {
                if *n == 0 {
                    return err("root of degree 0");
                }
                Term::Root(*n, Box::new(self.term(x)?))
            }
            RealExpr::Sum { vars, guard, body } | RealExpr::Product { vars, guard, body } => {
                let mark = self.mark();
                let slots: Vec<Slot> = vars.iter().map(|v| self.push_elem(v)).collect();
                let g = self.formula(guard);
                let b = self.term(body);
                self.elems.truncate(mark.e);
                Term::Agg(Box::new(Agg {
                    product: matches!(t, RealExpr::Product { .. }),
                    vars: slots,
                    guard: g?,
                    search: None,
                    body: b?,
                }))
            }
            RealExpr::Min { var, body } => {
                let mark = self.mark();
                let (me, mr) = (self.n_e, self.n_r);
                let slot = self.push_real(var);
                let b = self.formula(body);
                self.reals.truncate(mark.r);
                let b = b?;
                let cands = candidates(slot, &b, me, mr)?;
                Term::Min(Box::new(RealQ {
                    forall: false,
                    var: slot,
                    body: b,
                    cands,
                }))
            }
            RealExpr::Let { var, value, body } => {
                let value = self.term(value)?;
                let mark = self.mark();
                let slot = self.push_real(var);
                let b = self.term(body);
                self.reals.truncate(mark.r);
                Term::Let {
                    slot,
                    value: Box::new(value),
                    body: Box::new(b?),
                }
            }
        })
    }
}

fn term_mentions(t: &Term, var: RSlot) -> bool {
    term_vars(t).r.contains(&var)
}

/// The candidate terms of a real quantifier over `var`: every comparison
/// mentioning `var` must have `var` alone on one side and a term without it
/// on the other; no other use of `var` is supported.
fn candidates(
    var: RSlot,
    body: &Node,
    inner_e_from: Slot,
    inner_r_from: RSlot,
) -> Result<Vec<Cand>, SolverError> {
    let mut out = Vec::new();
    walk_node(var, body, &mut out)?;
    let mut cands = Vec::new();
    for term in out {
        let v = term_vars(&term);
        if v.r.iter().any(|&r| r >= inner_r_from) {
            return err(
                "a real quantifier's variable is compared with a term using another inner real variable (unsupported)",
            );
        }
        let inner = v.e.iter().copied().filter(|&e| e >= inner_e_from).collect();
        cands.push(Cand { term, inner });
    }
    Ok(cands)
}

fn unsupported<T>() -> Result<T, SolverError> {
    err("a quantified real variable may only occur alone on one side of a comparison (`:a < t`)")
}

fn walk_node(var: RSlot, n: &Node, out: &mut Vec<Term>) -> Result<(), SolverError> {
    match n {
        Node::Cmp { lhs, rhs, .. } => {
            let (l, r) = (term_mentions(lhs, var), term_mentions(rhs, var));
            match (l, r) {
                (false, false) => {
                    walk_term(var, lhs, out)?;
                    walk_term(var, rhs, out)?;
                }
                (true, false) if matches!(lhs, Term::Var(v) if *v == var) => {
                    walk_term(var, rhs, out)?;
                    out.push(rhs.clone());
                }
                (false, true) if matches!(rhs, Term::Var(v) if *v == var) => {
                    walk_term(var, lhs, out)?;
                    out.push(lhs.clone());
                }
                _ => return unsupported(),
            }
        }
        Node::Not(x) => walk_node(var, x, out)?,
        Node::And(xs) | Node::Or(xs) => {
            for x in xs {
                walk_node(var, x, out)?;
            }
        }
        Node::Exists { body, .. } | Node::Forall { body, .. } => walk_node(var, body, out)?,
        Node::SetQ(q) => walk_node(var, &q.body, out)?,
        Node::RealQ(q) => walk_node(var, &q.body, out)?,
        Node::Fix(f) => walk_node(var, &f.body, out)?,
        Node::Tc(t) => walk_node(var, &t.body, out)?,
        Node::LetReal { value, body, .. } => {
            if term_mentions(value, var) {
                return unsupported();
            }
            walk_node(var, body, out)?;
        }
        Node::True
        | Node::False
        | Node::Shared { .. }
        | Node::Atom { .. }
        | Node::Local { .. }
        | Node::Eq(..)
        | Node::In { .. }
        | Node::Search(_) => {}
    }
    Ok(())
}

/// A term not directly compared with `var`: it may mention `var` only inside
/// formulas (characteristic functions, guards).
fn walk_term(var: RSlot, t: &Term, out: &mut Vec<Term>) -> Result<(), SolverError> {
    match t {
        Term::Var(v) if *v == var => unsupported(),
        Term::Const(_) | Term::Var(_) | Term::Fun { .. } => Ok(()),
        Term::Char(n) => walk_node(var, n, out),
        Term::Neg(x) | Term::Root(_, x) => walk_term(var, x, out),
        Term::Bin(_, a, b) => {
            walk_term(var, a, out)?;
            walk_term(var, b, out)
        }
        Term::Agg(a) => {
            walk_node(var, &a.guard, out)?;
            walk_term(var, &a.body, out)
        }
        Term::Min(q) => walk_node(var, &q.body, out),
        Term::Let { value, body, .. } => {
            walk_term(var, value, out)?;
            walk_term(var, body, out)
        }
    }
}
