//! Formulas (spec 5.2.3 and 5.2.6): GDL clause bodies as Toss formulas over
//! the elements, and the relations of the structure they need.
//!
//! A clause body is a conjunction of literals. Each positive `(true s)`
//! becomes an element variable, constrained by the root predicate of `s`,
//! the fluent predicate of the value at its fluent path, and the coordinate
//! predicates of its constant coordinates. A GDL variable that stands at a
//! coordinate path of some positive `(true s)` is *carried* by that element
//! variable: its further occurrences become subterm equalities `Eq_{p,q}`,
//! static relations over it become fact relations of the structure over the
//! carrying elements, and `distinct` becomes a negated equality. Every other
//! variable (at a fluent path, inside a compound argument, or in no `true`
//! literal) is *eliminated* (spec 5.2.2): the clause becomes a disjunction
//! over the values the aggregate playout allows for those variables
//! together. A state-dependent relation is translated once per ground
//! argument tuple into a defined relation without parameters; a call with
//! carried arguments becomes a disjunction over the relation's possible
//! tuples, each guarded by the coordinate predicates that select it.

use std::collections::{BTreeSet, HashMap, HashSet};

use toss_core::ir::{DefinedRelation, Formula, Var};

use crate::ground::Aggregate;
use crate::reasoner::{Program, STATE, STATIC};
use crate::terms::TermId;
use crate::{Description, Literal, Rule, Sym, Term};

use super::Refusal;
use super::elements::{Elements, HOLE, Path, at, leaf_paths, place, root};
use super::names::Namer;

/// Most formula atoms a translation may build.
pub(super) const MAX_ATOMS: usize = 2_000_000;
/// Most tuples of the relations a translation may add to the structure.
pub(super) const MAX_TUPLES: usize = 4_000_000;
/// Most atoms of a translated `terminal` or goal once its defined
/// relations are expanded as the Toss solver compiles them.
pub(super) const MAX_INLINED_ATOMS: u64 = 1_000_000;
/// Most value combinations of one clause's eliminated variables.
pub(super) const MAX_COMBINATIONS: usize = 100_000;

/// A relation of the structure made for formulas: a fact relation or a
/// subterm equality, with its tuples of element indexes.
pub(super) struct MadeRelation {
    pub name: String,
    pub arity: usize,
    pub tuples: Vec<Vec<usize>>,
}

/// The translation of formulas, with what it has made so far.
pub(super) struct Formulas<'a> {
    pub desc: &'a Description,
    pub agg: &'a Aggregate,
    pub els: &'a Elements,
    pub namer: &'a mut Namer,
    /// The original program's levels (static, state, move).
    pub levels: &'a Program,
    pub true_: Sym,
    pub defined: Vec<DefinedRelation>,
    pub relations: Vec<MadeRelation>,
    made: HashMap<String, String>,
    memo: HashMap<(Sym, Vec<Term>), String>,
    in_progress: HashSet<(Sym, Vec<Term>)>,
    /// The lifted calls being translated, by key: the name of the fixed
    /// point relation a recursive call of the same shape refers to, and
    /// whether one did.
    lifting: HashMap<String, (String, bool)>,
    by_head: HashMap<(Sym, usize), Vec<usize>>,
    /// Per root: the paths that are coordinate leaves of all its elements.
    uniform: Vec<BTreeSet<Path>>,
    atoms: usize,
    tuples: usize,
    /// Elements a rule's left side names, by their masked state term: a
    /// `true` literal of the same term is about that element itself.
    pub known: Vec<(Term, String)>,
    /// Clauses whose variables are not the aggregate playout's instances'
    /// (see `markers::Marked::rewritten`): their eliminated variables range
    /// over the values of their positive literals instead.
    pub rewritten: HashSet<usize>,
}

/// `lfp T(params) = body`, with the parameters every recursive call passes
/// on unchanged (the `y` of `between(x, y)`) left free in the body instead
/// of being parameters of `T`: a fixed point of fewer parameters, which the
/// solver computes set at a time when one is left.
fn least_fixpoint(t: &str, params: &[String], body: Formula) -> Formula {
    fn invariant(f: &Formula, t: &str, params: &[String], keep: &mut [bool], bound: &mut bool) {
        match f {
            Formula::Rel { name, args } if name == t => {
                for (k, a) in args.iter().enumerate() {
                    if a != &params[k] {
                        keep[k] = true;
                    }
                }
            }
            Formula::Not(g) => invariant(g, t, params, keep, bound),
            Formula::And(v) | Formula::Or(v) => {
                v.iter().for_each(|g| invariant(g, t, params, keep, bound))
            }
            Formula::Exists { vars, body } | Formula::Forall { vars, body } => {
                *bound |= vars.iter().any(|v| params.contains(&v.name().to_string()));
                invariant(body, t, params, keep, bound)
            }
            Formula::Fixpoint { body, .. } => invariant(body, t, params, keep, bound),
            _ => {}
        }
    }
    fn drop_args(f: Formula, t: &str, keep: &[bool]) -> Formula {
        match f {
            Formula::Rel { name, args } if name == t => Formula::Rel {
                name,
                args: args
                    .into_iter()
                    .zip(keep)
                    .filter(|(_, k)| **k)
                    .map(|(a, _)| a)
                    .collect(),
            },
            Formula::Not(g) => Formula::Not(Box::new(drop_args(*g, t, keep))),
            Formula::And(v) => Formula::And(v.into_iter().map(|g| drop_args(g, t, keep)).collect()),
            Formula::Or(v) => Formula::Or(v.into_iter().map(|g| drop_args(g, t, keep)).collect()),
            Formula::Exists { vars, body } => Formula::Exists {
                vars,
                body: Box::new(drop_args(*body, t, keep)),
            },
            Formula::Forall { vars, body } => Formula::Forall {
                vars,
                body: Box::new(drop_args(*body, t, keep)),
            },
            Formula::Fixpoint {
                kind,
                relation,
                params,
                body,
            } => Formula::Fixpoint {
                kind,
                relation,
                params,
                body: Box::new(drop_args(*body, t, keep)),
            },
            f => f,
        }
    }
    let mut keep = vec![false; params.len()];
    let mut bound = false;
    invariant(&body, t, params, &mut keep, &mut bound);
    let (params, body) = if bound {
        (params.to_vec(), body)
    } else {
        let kept = params
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(p, _)| p.clone())
            .collect();
        (kept, drop_args(body, t, &keep))
    };
    Formula::Fixpoint {
        kind: toss_core::ir::FixpointKind::Least,
        relation: t.to_string(),
        params,
        body: Box::new(body),
    }
}

/// See [`Formulas::call_slots`].
struct CallSlots {
    slots: Vec<String>,
    arg_slot: Vec<Option<(usize, Path)>>,
    spec: Vec<String>,
}

/// A variable's carrier: the element variable and the coordinate path.
pub(super) type Carrier = (String, Path);

pub(super) fn and(parts: Vec<Formula>) -> Formula {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Formula::True => {}
            Formula::False => return Formula::False,
            Formula::And(v) => out.extend(v),
            p => out.push(p),
        }
    }
    // An atom and its negation: contradictory (a rule variant that can
    // never fire is dropped by its caller).
    for f in &out {
        if let Formula::Not(g) = f
            && matches!(**g, Formula::Rel { .. })
            && out.contains(g)
        {
            return Formula::False;
        }
    }
    out.dedup();
    match out.len() {
        0 => Formula::True,
        1 => out.pop().expect("one part"),
        _ => Formula::And(out),
    }
}

pub(super) fn or(parts: Vec<Formula>) -> Formula {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Formula::False => {}
            Formula::True => return Formula::True,
            Formula::Or(v) => out.extend(v),
            p => out.push(p),
        }
    }
    match out.len() {
        0 => Formula::False,
        1 => out.pop().expect("one part"),
        _ => Formula::Or(out),
    }
}

pub(super) fn not(f: Formula) -> Formula {
    match f {
        Formula::True => Formula::False,
        Formula::False => Formula::True,
        Formula::Not(g) => *g,
        f => Formula::Not(Box::new(f)),
    }
}

/// Advances `idx` to the next combination (an odometer, the last place
/// fastest) of places with `len(k)` values each; false after the last.
pub(super) fn next_combination(idx: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for k in (0..idx.len()).rev() {
        idx[k] += 1;
        if idx[k] < len(k) {
            return true;
        }
        idx[k] = 0;
    }
    false
}

pub(super) fn rel(name: &str, args: &[&str]) -> Formula {
    Formula::Rel {
        name: name.to_string(),
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}

/// Binds the variables of `pat` so that it equals the ground `g`.
pub(super) fn match_term(pat: &Term, g: &Term, bind: &mut HashMap<u32, Term>) -> bool {
    match (pat, g) {
        (Term::Var(v), g) => match bind.get(v) {
            Some(b) => b == g,
            None => {
                bind.insert(*v, g.clone());
                true
            }
        },
        (Term::Const(a), Term::Const(b)) => a == b,
        (Term::Fn(f, xs), Term::Fn(h, ys)) => {
            f == h && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| match_term(x, y, bind))
        }
        _ => false,
    }
}

/// `t` with the bound variables replaced.
pub(super) fn apply(t: &Term, bind: &HashMap<u32, Term>) -> Term {
    match t {
        Term::Var(v) => bind.get(v).cloned().unwrap_or_else(|| t.clone()),
        Term::Fn(f, a) => Term::Fn(*f, a.iter().map(|x| apply(x, bind)).collect()),
        t => t.clone(),
    }
}

/// `t` with every variable renumbered `by` higher (renaming a clause
/// apart from another).
pub(super) fn shift(t: &Term, by: u32) -> Term {
    match t {
        Term::Var(v) => Term::Var(v + by),
        Term::Fn(f, a) => Term::Fn(*f, a.iter().map(|x| shift(x, by)).collect()),
        t => t.clone(),
    }
}

/// The literal with `f` applied to each of its terms.
pub(super) fn map_lit(l: &Literal, f: impl Fn(&Term) -> Term) -> Literal {
    let atom = |a: &crate::Atom| crate::Atom {
        rel: a.rel,
        args: a.args.iter().map(&f).collect(),
    };
    match l {
        Literal::Pos(a) => Literal::Pos(atom(a)),
        Literal::Neg(a) => Literal::Neg(atom(a)),
        Literal::Distinct(x, y) => Literal::Distinct(f(x), f(y)),
        Literal::Equal(x, y) => Literal::Equal(f(x), f(y)),
    }
}

/// The engine's term id of a ground term, if it was ever built.
pub(super) fn term_id(agg: &Aggregate, t: &Term) -> Option<TermId> {
    match t {
        Term::Var(_) => None,
        Term::Const(c) => agg.engine.terms.lookup(*c, &[]),
        Term::Fn(f, a) => {
            let ids: Option<Vec<TermId>> = a.iter().map(|x| term_id(agg, x)).collect();
            agg.engine.terms.lookup(*f, &ids?)
        }
    }
}

/// The ground term of an engine id.
pub(super) fn term_of(agg: &Aggregate, t: TermId) -> Term {
    let (s, args) = agg.engine.terms.node(t);
    if args.is_empty() {
        Term::Const(s)
    } else {
        Term::Fn(s, args.iter().map(|&a| term_of(agg, a)).collect())
    }
}

/// The size of each defined relation as the solver compiles it (its
/// relations expanded, closed ones above a size once each; see
/// [`toss_core::ir::sizes`]), saturating.
pub(super) fn compiled_sizes(defined: &[DefinedRelation]) -> HashMap<String, u64> {
    let index: HashMap<String, usize> = defined
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.clone(), i))
        .collect();
    let sizes = toss_core::ir::sizes::compiled_sizes(defined, &index);
    defined
        .iter()
        .zip(sizes)
        .map(|(d, n)| (d.name.clone(), n))
        .collect()
}

impl<'a> Formulas<'a> {
    pub fn new(
        desc: &'a Description,
        agg: &'a Aggregate,
        els: &'a Elements,
        namer: &'a mut Namer,
        levels: &'a Program,
        true_: Sym,
    ) -> Self {
        let mut by_head: HashMap<(Sym, usize), Vec<usize>> = HashMap::new();
        for (i, r) in desc.rules.iter().enumerate() {
            by_head
                .entry((r.head.rel, r.head.args.len()))
                .or_default()
                .push(i);
        }
        let mut uniform: Vec<Option<BTreeSet<Path>>> = vec![None; els.roots.len()];
        for e in &els.elements {
            let paths: BTreeSet<Path> = e.coords.iter().map(|(p, _)| p.clone()).collect();
            let u = &mut uniform[e.root];
            *u = Some(match u.take() {
                None => paths,
                Some(prev) => prev.intersection(&paths).cloned().collect(),
            });
        }
        Formulas {
            desc,
            agg,
            els,
            namer,
            levels,
            true_,
            defined: Vec::new(),
            relations: Vec::new(),
            made: HashMap::new(),
            memo: HashMap::new(),
            in_progress: HashSet::new(),
            lifting: HashMap::new(),
            by_head,
            uniform: uniform.into_iter().map(Option::unwrap_or_default).collect(),
            atoms: 0,
            tuples: 0,
            known: Vec::new(),
            rewritten: HashSet::new(),
        }
    }

    /// Whether a literal reads the state (`true`, or a relation that
    /// depends on it).
    pub fn reads_state(&self, l: &Literal) -> bool {
        match l {
            Literal::Pos(a) | Literal::Neg(a) => {
                a.rel == self.true_ || self.level(a.rel, a.args.len()) != STATIC
            }
            _ => false,
        }
    }

    fn level(&self, rel: Sym, arity: usize) -> u8 {
        self.levels.level_of(rel, arity).unwrap_or(STATIC)
    }

    fn count(&mut self, n: usize) -> Result<(), Refusal> {
        self.atoms += n;
        if self.atoms > MAX_ATOMS {
            return Err(Refusal::SizeLimit {
                what: format!("formulas of more than {MAX_ATOMS} atoms"),
            });
        }
        Ok(())
    }

    /// The defined relation (without parameters) that holds exactly when
    /// the state-dependent atom `(rel args)` holds; `args` ground.
    pub fn atom_relation(&mut self, rel: Sym, args: &[Term]) -> Result<String, Refusal> {
        let key = (rel, args.to_vec());
        if let Some(n) = self.memo.get(&key) {
            return Ok(n.clone());
        }
        let rname = self.desc.symbols[rel as usize].clone();
        if !self.in_progress.insert(key.clone()) {
            return Err(Refusal::Recursion { relation: rname });
        }
        // A rule's left elements mean nothing inside a definition.
        let known = std::mem::take(&mut self.known);
        let mut parts = Vec::new();
        let rules = self
            .by_head
            .get(&(rel, args.len()))
            .cloned()
            .unwrap_or_default();
        for i in rules {
            let mut bind = HashMap::new();
            let head = &self.desc.rules[i].head;
            if head
                .args
                .iter()
                .zip(args)
                .all(|(p, g)| match_term(p, g, &mut bind))
            {
                parts.push(self.clause(i, &bind)?);
            }
        }
        let mut label = vec![rname.clone()];
        label.extend(args.iter().map(|a| self.desc.term_to_string(a, &[])));
        let text = if args.is_empty() {
            rname
        } else {
            format!("({})", label.join(" "))
        };
        let name = self
            .namer
            .name(&format!("relation {text}"), &label.join("_"));
        self.defined.push(DefinedRelation {
            name: name.clone(),
            params: Vec::new(),
            body: or(parts),
        });
        self.known = known;
        self.in_progress.remove(&key);
        self.memo.insert(key, name.clone());
        Ok(name)
    }

    /// Whether path `p` is a coordinate leaf of every element of `root`.
    pub fn is_uniform_coordinate(&self, t: &Term, p: &Path) -> bool {
        root(t)
            .and_then(|rk| self.els.root_of.get(&rk))
            .is_some_and(|&r| self.uniform[r].contains(p))
    }

    /// The body of rule `i` under `bind` (its head variables bound).
    pub fn clause(&mut self, i: usize, bind: &HashMap<u32, Term>) -> Result<Formula, Refusal> {
        let rule: &Rule = &self.desc.rules[i];
        let rule = rule.clone();
        if self.rewritten.contains(&i) {
            return self.body_formula(&rule.body, bind, &HashMap::new());
        }
        // Which variables are carried and which are eliminated.
        for l in &rule.body {
            if let Literal::Pos(a) | Literal::Neg(a) = l
                && a.rel == self.true_
                && a.args.len() == 1
                && matches!(apply(&a.args[0], bind), Term::Var(_))
            {
                return Err(Refusal::VariableStateTerm);
            }
        }
        self.over_instances(i, &rule.body, bind, &HashMap::new())
    }

    /// `body` (of rule `i`) with its eliminated variables taking the value
    /// combinations the aggregate playout's instances of the rule allow,
    /// consistent with `bind`; the variables of `pre` carried.
    fn over_instances(
        &mut self,
        i: usize,
        body: &[Literal],
        bind: &HashMap<u32, Term>,
        pre: &HashMap<u32, Carrier>,
    ) -> Result<Formula, Refusal> {
        let (_, elim) = self.classify(body, bind, pre);
        if elim.iter().any(|v| pre.contains_key(v)) {
            return Err(Refusal::Unsupported {
                what: "a coordinate of a changed element used as a fluent value".to_string(),
            });
        }
        let mut elim: Vec<u32> = elim.into_iter().collect();
        elim.sort_unstable();
        let combos = self.combinations(i, bind, &elim)?;
        let mut parts = Vec::new();
        for combo in combos {
            let mut b = bind.clone();
            for (v, t) in elim.iter().zip(combo) {
                b.insert(*v, t);
            }
            parts.push(self.conjunction(body, &b, pre)?);
        }
        Ok(or(parts))
    }

    /// The body of rule `i` under `bind`, the variables of `pre` carried by
    /// given elements; the others eliminated over the combinations the
    /// aggregate playout's instances of the rule allow (over the values of
    /// their positive literals where the rule has none, see
    /// [`Formulas::body_formula`]).
    pub fn clause_carried(
        &mut self,
        i: usize,
        bind: &HashMap<u32, Term>,
        pre: &HashMap<u32, Carrier>,
    ) -> Result<Formula, Refusal> {
        let body = self.desc.rules[i].body.clone();
        if self.rewritten.contains(&i) || !matches!(self.agg.instances.get(i), Some(Some(_))) {
            return self.body_formula(&body, bind, pre);
        }
        self.over_instances(i, &body, bind, pre)
    }

    /// A conjunction of literals (not a rule of the description) under
    /// `bind`, where the variables of `pre` are carried by given elements
    /// (a rule's left side); the other unbound variables are eliminated
    /// over the values their positive occurrences allow.
    pub fn body_formula(
        &mut self,
        body: &[Literal],
        bind: &HashMap<u32, Term>,
        pre: &HashMap<u32, Carrier>,
    ) -> Result<Formula, Refusal> {
        let (_, mut elim) = self.classify(body, bind, pre);
        if elim.iter().any(|v| pre.contains_key(v)) {
            return Err(Refusal::Unsupported {
                what: "a coordinate of a changed element used as a fluent value".to_string(),
            });
        }
        elim.retain(|v| !pre.contains_key(v));
        let mut elim: Vec<u32> = elim.into_iter().collect();
        elim.sort_unstable();
        let mut domains: Vec<Vec<Term>> = Vec::new();
        for &v in &elim {
            domains.push(self.domain(body, bind, v)?);
        }
        let mut total: usize = 1;
        for d in &domains {
            total = total.saturating_mul(d.len());
        }
        if total > MAX_COMBINATIONS {
            return Err(Refusal::SizeLimit {
                what: format!(
                    "a clause with more than {MAX_COMBINATIONS} values of its eliminated variables"
                ),
            });
        }
        let mut parts = Vec::new();
        let mut idx = vec![0usize; elim.len()];
        if domains.iter().any(Vec::is_empty) {
            return Ok(Formula::False);
        }
        loop {
            let mut b = bind.clone();
            for (k, &v) in elim.iter().enumerate() {
                b.insert(v, domains[k][idx[k]].clone());
            }
            parts.push(self.conjunction(body, &b, pre)?);
            if !next_combination(&mut idx, |k| domains[k].len()) {
                return Ok(or(parts));
            }
        }
    }

    /// The variables of a body that positive `true` literals carry at
    /// coordinate paths, and those that must be eliminated.
    pub fn classify(
        &self,
        body: &[Literal],
        bind: &HashMap<u32, Term>,
        pre: &HashMap<u32, Carrier>,
    ) -> (HashSet<u32>, HashSet<u32>) {
        let mut carried_at: HashSet<u32> = pre.keys().copied().collect();
        let mut eliminate: HashSet<u32> = HashSet::new();
        let nested = |t: &Term, out: &mut HashSet<u32>| {
            if let Term::Fn(..) = t {
                let mut v = Vec::new();
                t.vars(&mut v);
                out.extend(v);
            }
        };
        for l in body {
            match l {
                Literal::Pos(a) | Literal::Neg(a) if a.rel == self.true_ && a.args.len() == 1 => {
                    let s = apply(&a.args[0], bind);
                    for p in leaf_paths(&s) {
                        if let Some(Term::Var(v)) = at(&s, &p) {
                            if self.is_uniform_coordinate(&s, &p) {
                                if matches!(l, Literal::Pos(_)) {
                                    carried_at.insert(*v);
                                }
                            } else {
                                eliminate.insert(*v);
                            }
                        }
                    }
                }
                Literal::Pos(a) | Literal::Neg(a) => {
                    a.args.iter().for_each(|t| nested(t, &mut eliminate))
                }
                Literal::Distinct(x, y) | Literal::Equal(x, y) => {
                    nested(x, &mut eliminate);
                    nested(y, &mut eliminate);
                }
            }
        }
        // A variable of one negated state literal alone, at a coordinate
        // (`(not (true (does_puton player ?x ?y)))` with `?x` nowhere
        // else, from an inlined negated call): quantified inside the
        // negation, neither carried nor eliminated.
        let mut in_literals: HashMap<u32, usize> = HashMap::new();
        for l in body {
            let mut vs = Vec::new();
            l.vars(&mut vs);
            vs.sort_unstable();
            vs.dedup();
            for v in vs {
                *in_literals.entry(v).or_insert(0) += 1;
            }
        }
        let mut local: HashSet<u32> = HashSet::new();
        for l in body {
            let Literal::Neg(a) = l else { continue };
            if a.rel != self.true_ || a.args.len() != 1 {
                continue;
            }
            let s = apply(&a.args[0], bind);
            for p in leaf_paths(&s) {
                if let Some(Term::Var(v)) = at(&s, &p)
                    && in_literals.get(v) == Some(&1)
                    && !pre.contains_key(v)
                    && self.is_uniform_coordinate(&s, &p)
                {
                    local.insert(*v);
                }
            }
        }
        let mut all = Vec::new();
        body.iter().for_each(|l| l.vars(&mut all));
        for v in all {
            if !bind.contains_key(&v) && !carried_at.contains(&v) && !local.contains(&v) {
                eliminate.insert(v);
            }
        }
        eliminate.retain(|v| !bind.contains_key(v));
        let carried = carried_at
            .into_iter()
            .filter(|v| !eliminate.contains(v) && !bind.contains_key(v))
            .collect();
        (carried, eliminate)
    }

    /// The values a variable to eliminate can take: the intersection, over
    /// its positive occurrences, of the values there.
    fn domain(
        &self,
        body: &[Literal],
        bind: &HashMap<u32, Term>,
        v: u32,
    ) -> Result<Vec<Term>, Refusal> {
        let mut dom: Option<BTreeSet<Term>> = None;
        let mut meet = |vals: BTreeSet<Term>| {
            dom = Some(match dom.take() {
                None => vals,
                Some(d) => d.intersection(&vals).cloned().collect(),
            });
        };
        let agg = self.agg;
        for l in body {
            let Literal::Pos(a) = l else { continue };
            if a.rel == self.true_ && a.args.len() == 1 {
                let s = apply(&a.args[0], bind);
                let Some(&r) = root(&s).and_then(|rk| self.els.root_of.get(&rk)) else {
                    continue;
                };
                let info = &self.els.roots[r];
                for p in leaf_paths(&s) {
                    if at(&s, &p) != Some(&Term::Var(v)) {
                        continue;
                    }
                    let vals: BTreeSet<Term> = if info.fluent.as_ref() == Some(&p) {
                        info.values.keys().cloned().collect()
                    } else {
                        self.els
                            .coord
                            .keys()
                            .filter(|(q, _)| *q == p)
                            .map(|(_, t)| t.clone())
                            .collect()
                    };
                    meet(vals);
                }
                continue;
            }
            for (i, t) in a.args.iter().enumerate() {
                if apply(t, bind) != Term::Var(v) {
                    continue;
                }
                let mut vals = BTreeSet::new();
                if let Some(r) = agg.prog.relation(a.rel, a.args.len()) {
                    for row in agg.engine.tuples(&agg.prog, r) {
                        vals.insert(term_of(agg, row[i]));
                    }
                }
                meet(vals);
            }
        }
        match dom {
            Some(d) => Ok(d.into_iter().collect()),
            None => Err(Refusal::Unsupported {
                what: "a variable in no positive literal of its condition".to_string(),
            }),
        }
    }

    /// Whether a literal holds that reads no state (a static relation,
    /// `distinct`, equality) once `b` binds it; `None` when it reads the
    /// state or is not ground.
    pub fn static_holds(&self, l: &Literal, b: &HashMap<u32, Term>) -> Option<bool> {
        let agg = self.agg;
        match l {
            Literal::Pos(a) | Literal::Neg(a) => {
                if a.rel == self.true_ || self.level(a.rel, a.args.len()) != STATIC {
                    return None;
                }
                let args: Vec<Term> = a.args.iter().map(|t| apply(t, b)).collect();
                if !args.iter().all(Term::is_ground) {
                    return None;
                }
                let holds = agg.prog.relation(a.rel, args.len()).is_some_and(|r| {
                    let ids: Option<Vec<TermId>> = args.iter().map(|t| term_id(agg, t)).collect();
                    ids.is_some_and(|ids| agg.engine.holds(&agg.prog, r, &ids))
                });
                Some(holds == matches!(l, Literal::Pos(_)))
            }
            Literal::Distinct(x, y) | Literal::Equal(x, y) => {
                let (x, y) = (apply(x, b), apply(y, b));
                if !x.is_ground() || !y.is_ground() {
                    return None;
                }
                Some((x == y) == matches!(l, Literal::Equal(..)))
            }
        }
    }

    /// A fresh identifier for `key` (see [`Namer`]).
    pub fn name(&mut self, key: &str, wanted: &str) -> String {
        self.namer.name(key, wanted)
    }

    /// `Eq_{p,q}(a, b)` for two carriers.
    pub fn equality_of(&mut self, a: &Carrier, b: &Carrier) -> Result<Formula, Refusal> {
        if a == b {
            return Ok(Formula::True);
        }
        let eq = self.eq_relation(&a.1, &b.1)?;
        Ok(rel(&eq, &[&a.0, &b.0]))
    }

    /// The value combinations of the variables `vars` of rule `i` that
    /// the aggregate playout allows.
    pub fn move_combinations(&mut self, i: usize, vars: &[u32]) -> Result<Vec<Vec<Term>>, Refusal> {
        if matches!(self.agg.instances.get(i), Some(Some(_))) {
            return self.combinations(i, &HashMap::new(), vars);
        }
        // A game-independent rule (no instance relation): its head's facts.
        let agg = self.agg;
        let head = &self.desc.rules[i].head;
        let mut out: BTreeSet<Vec<Term>> = BTreeSet::new();
        if let Some(r) = agg.prog.relation(head.rel, head.args.len()) {
            for t in agg.engine.tuples(&agg.prog, r) {
                let mut bind = HashMap::new();
                let ok = head
                    .args
                    .iter()
                    .zip(t)
                    .all(|(p, &g)| match_term(p, &term_of(agg, g), &mut bind));
                if ok {
                    out.insert(vars.iter().map(|v| bind[v].clone()).collect());
                }
            }
        }
        Ok(out.into_iter().collect())
    }

    fn combinations(
        &mut self,
        i: usize,
        bind: &HashMap<u32, Term>,
        elim: &[u32],
    ) -> Result<Vec<Vec<Term>>, Refusal> {
        let Some(Some((Some(irel), cols))) = self.agg.instances.get(i) else {
            return Ok(Vec::new());
        };
        let mut fixed: Vec<(usize, TermId)> = Vec::new();
        for (k, v) in cols.iter().enumerate() {
            if let Some(t) = bind.get(v) {
                match term_id(self.agg, t) {
                    Some(id) => fixed.push((k, id)),
                    None => return Ok(Vec::new()),
                }
            }
        }
        let mut pos = Vec::new();
        for v in elim {
            match cols.iter().position(|c| c == v) {
                Some(k) => pos.push(k),
                // Not in a positive literal: the rule is unsafe, which the
                // front end refuses; nothing to translate.
                None => return Ok(Vec::new()),
            }
        }
        let mut seen: BTreeSet<Vec<TermId>> = BTreeSet::new();
        for t in self.agg.engine.tuples(&self.agg.prog, *irel) {
            if fixed.iter().all(|&(k, id)| t[k] == id) {
                seen.insert(pos.iter().map(|&k| t[k]).collect());
                if seen.len() > MAX_COMBINATIONS {
                    return Err(Refusal::SizeLimit {
                        what: format!(
                            "a clause with more than {MAX_COMBINATIONS} values of its eliminated variables"
                        ),
                    });
                }
            }
        }
        // Deterministic order: by the terms' canonical order.
        let mut out: Vec<Vec<TermId>> = seen.into_iter().collect();
        out.sort_by(|a, b| {
            a.iter()
                .zip(b)
                .map(|(&x, &y)| self.agg.prog.cmp_terms(&self.agg.engine.terms, x, y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        Ok(out
            .into_iter()
            .map(|c| c.into_iter().map(|t| term_of(self.agg, t)).collect())
            .collect())
    }

    /// One conjunction: the body with every variable bound or carried.
    fn conjunction(
        &mut self,
        body: &[Literal],
        b: &HashMap<u32, Term>,
        pre: &HashMap<u32, Carrier>,
    ) -> Result<Formula, Refusal> {
        let mut evars: Vec<String> = Vec::new();
        let mut ev_of: Vec<(Term, String)> = Vec::new();
        let mut carrier: HashMap<u32, Carrier> = pre.clone();
        let mut conj: Vec<Formula> = Vec::new();
        // Positive state literals first: they introduce the element
        // variables that carry the others.
        for l in body {
            let Literal::Pos(a) = l else { continue };
            if a.rel != self.true_ || a.args.len() != 1 {
                continue;
            }
            let s = apply(&a.args[0], b);
            if ev_of.iter().any(|(t, _)| *t == s) {
                continue;
            }
            if let Some(f) = self.known_holds(&s) {
                conj.push(f);
                continue;
            }
            let name = format!("v{}", evars.len() + 1);
            match self.element_formula(&s, &name, &mut carrier)? {
                None => return Ok(Formula::False),
                Some(fs) => conj.extend(fs),
            }
            evars.push(name.clone());
            ev_of.push((s, name));
        }
        let mut fresh = 0;
        for l in body {
            let f = match l {
                Literal::Pos(a) if a.rel == self.true_ && a.args.len() == 1 => continue,
                Literal::Neg(a) if a.rel == self.true_ && a.args.len() == 1 => {
                    let s = apply(&a.args[0], b);
                    not(self.state_term(&s, &ev_of, &carrier, &mut fresh)?)
                }
                Literal::Pos(a) => self.atom(a.rel, &a.args, b, &carrier)?,
                Literal::Neg(a) => not(self.atom(a.rel, &a.args, b, &carrier)?),
                Literal::Distinct(x, y) => not(self.equal(x, y, b, &carrier)?),
                Literal::Equal(x, y) => self.equal(x, y, b, &carrier)?,
            };
            if f == Formula::False {
                return Ok(Formula::False);
            }
            conj.push(f);
        }
        self.count(conj.len())?;
        let body = and(conj);
        if evars.is_empty() || body == Formula::False {
            return Ok(body);
        }
        Ok(Formula::Exists {
            vars: evars.into_iter().map(Var::Element).collect(),
            body: Box::new(body),
        })
    }

    /// The constraints on element variable `name` for matching the state
    /// term pattern `s`; `None` when no element can match. The first
    /// occurrence of a carried variable makes `name` its carrier.
    fn element_formula(
        &mut self,
        s: &Term,
        name: &str,
        carrier: &mut HashMap<u32, Carrier>,
    ) -> Result<Option<Vec<Formula>>, Refusal> {
        let els = self.els;
        let Some(&r) = root(s).and_then(|rk| els.root_of.get(&rk)) else {
            return Ok(None);
        };
        let info = &els.roots[r];
        let mut out = vec![rel(&info.root_pred, &[name])];
        match &info.fluent {
            None => out.push(rel(info.presence.as_deref().expect("a presence"), &[name])),
            Some(p) => {
                let Some(v) = at(s, p) else { return Ok(None) };
                let Some((_, pred)) = info.values.get(v) else {
                    return Ok(None);
                };
                out.push(rel(pred, &[name]));
            }
        }
        let fluent = info.fluent.clone();
        for q in leaf_paths(s) {
            if q.is_empty() || fluent.as_ref().is_some_and(|p| q.starts_with(p)) {
                continue;
            }
            match at(s, &q).expect("a leaf path") {
                Term::Var(v) => match carrier.get(v).cloned() {
                    Some((cv, cp)) => {
                        let eq = self.eq_relation(&cp, &q)?;
                        out.push(rel(&eq, &[&cv, name]));
                    }
                    None => {
                        carrier.insert(*v, (name.to_string(), q.clone()));
                    }
                },
                c => match els.coord.get(&(q.clone(), c.clone())) {
                    Some((pred, _)) => out.push(rel(pred, &[name])),
                    None => return Ok(None),
                },
            }
        }
        Ok(Some(out))
    }

    /// When `s` is the state term of a known element (a rule's left side),
    /// the fluent predicate of its value on that element.
    fn known_holds(&self, s: &Term) -> Option<Formula> {
        let els = self.els;
        let r = *root(s).and_then(|rk| els.root_of.get(&rk))?;
        let info = &els.roots[r];
        let ms = match &info.fluent {
            Some(p) => place(s, p, &Term::Const(HOLE)),
            None => s.clone(),
        };
        let (_, name) = self.known.iter().find(|(m, _)| *m == ms)?;
        Some(match &info.fluent {
            None => rel(info.presence.as_deref().expect("a presence"), &[name]),
            Some(p) => match at(s, p).and_then(|v| info.values.get(v)) {
                Some((_, pred)) => rel(pred, &[name]),
                None => Formula::False,
            },
        })
    }

    /// A formula saying that the state term `s` (variables bound or
    /// carried) holds.
    fn state_term(
        &mut self,
        s: &Term,
        ev_of: &[(Term, String)],
        carrier: &HashMap<u32, Carrier>,
        fresh: &mut usize,
    ) -> Result<Formula, Refusal> {
        let els = self.els;
        let Some(&r) = root(s).and_then(|rk| els.root_of.get(&rk)) else {
            return Ok(Formula::False);
        };
        let info = &els.roots[r];
        let masked = |t: &Term| match &info.fluent {
            Some(p) => place(t, p, &Term::Const(HOLE)),
            None => t.clone(),
        };
        let ms = masked(s);
        if let Some(f) = self.known_holds(s) {
            return Ok(f);
        }
        if let Some((_, u)) = ev_of
            .iter()
            .find(|(t, _)| root(t) == root(s) && masked(t) == ms)
        {
            // The element of `u` is the one `s` would be on.
            return Ok(match &info.fluent {
                None => rel(info.presence.as_deref().expect("a presence"), &[u]),
                Some(p) => match at(s, p).and_then(|v| info.values.get(v)) {
                    Some((_, pred)) => rel(pred, &[u]),
                    None => Formula::False,
                },
            });
        }
        *fresh += 1;
        let name = format!("w{fresh}");
        // A variable first met here is local to this negated literal (see
        // `classify`): `w` carries it, inside the negation.
        let mut c = carrier.clone();
        let Some(parts) = self.element_formula(s, &name, &mut c)? else {
            return Ok(Formula::False);
        };
        self.count(parts.len())?;
        Ok(Formula::Exists {
            vars: vec![Var::Element(name)],
            body: Box::new(and(parts)),
        })
    }

    /// `(= x y)` with the variables bound or carried.
    fn equal(
        &mut self,
        x: &Term,
        y: &Term,
        b: &HashMap<u32, Term>,
        carrier: &HashMap<u32, Carrier>,
    ) -> Result<Formula, Refusal> {
        let (x, y) = (apply(x, b), apply(y, b));
        let carried = |t: &Term| match t {
            Term::Var(v) => carrier.get(v).cloned(),
            _ => None,
        };
        match (carried(&x), carried(&y)) {
            (None, None) => {
                if x.is_ground() && y.is_ground() {
                    Ok(if x == y {
                        Formula::True
                    } else {
                        Formula::False
                    })
                } else {
                    Err(Refusal::Unsupported {
                        what: "an equality over an unbound variable".to_string(),
                    })
                }
            }
            (Some((cv, cp)), None) | (None, Some((cv, cp))) => {
                let c = if matches!(x, Term::Var(_)) { &y } else { &x };
                Ok(match self.els.coord.get(&(cp, c.clone())) {
                    Some((pred, _)) => rel(pred, &[&cv]),
                    None => Formula::False,
                })
            }
            (Some((xv, xp)), Some((yv, yp))) => {
                if x == y {
                    return Ok(Formula::True);
                }
                let eq = self.eq_relation(&xp, &yp)?;
                Ok(rel(&eq, &[&xv, &yv]))
            }
        }
    }

    /// A literal's atom other than `true`: static, state-dependent.
    fn atom(
        &mut self,
        rel_sym: Sym,
        args: &[Term],
        b: &HashMap<u32, Term>,
        carrier: &HashMap<u32, Carrier>,
    ) -> Result<Formula, Refusal> {
        let args: Vec<Term> = args.iter().map(|t| apply(t, b)).collect();
        let level = self.level(rel_sym, args.len());
        let ground = args.iter().all(Term::is_ground);
        if level > STATE {
            return Err(Refusal::Unsupported {
                what: format!(
                    "`{}` (it depends on `does`) in a condition on the state",
                    self.desc.symbols[rel_sym as usize]
                ),
            });
        }
        if level == STATIC {
            if ground {
                let holds = self
                    .agg
                    .prog
                    .relation(rel_sym, args.len())
                    .is_some_and(|r| {
                        let ids: Option<Vec<TermId>> =
                            args.iter().map(|t| term_id(self.agg, t)).collect();
                        ids.is_some_and(|ids| self.agg.engine.holds(&self.agg.prog, r, &ids))
                    });
                return Ok(if holds { Formula::True } else { Formula::False });
            }
            return self.fact_relation(rel_sym, &args, carrier);
        }
        if ground {
            let name = self.atom_relation(rel_sym, &args)?;
            return Ok(rel(&name, &[]));
        }
        // A state relation called with carried arguments: a relation with
        // element parameters where its clauses allow it, else one disjunct
        // per tuple the aggregate playout allows.
        if let Some(f) = self.lifted_call(rel_sym, &args, carrier)? {
            return Ok(f);
        }
        let Some(r) = self.agg.prog.relation(rel_sym, args.len()) else {
            return Ok(Formula::False);
        };
        let rows: Vec<Vec<TermId>> = self
            .agg
            .engine
            .tuples(&self.agg.prog, r)
            .map(<[_]>::to_vec)
            .collect();
        let mut parts = Vec::new();
        'rows: for row in rows {
            let mut seen: HashMap<u32, TermId> = HashMap::new();
            let mut guard = Vec::new();
            let mut tuple = Vec::new();
            for (a, &id) in args.iter().zip(&row) {
                match a {
                    Term::Var(v) => {
                        if let Some(&prev) = seen.get(v) {
                            if prev != id {
                                continue 'rows;
                            }
                        } else {
                            seen.insert(*v, id);
                            let (cv, cp) =
                                carrier
                                    .get(v)
                                    .cloned()
                                    .ok_or_else(|| Refusal::Unsupported {
                                        what: "a relation called with an unbound variable"
                                            .to_string(),
                                    })?;
                            let value = term_of(self.agg, id);
                            match self.els.coord.get(&(cp, value)) {
                                Some((pred, _)) => guard.push(rel(pred, &[&cv])),
                                None => continue 'rows,
                            }
                        }
                    }
                    t => {
                        if term_id(self.agg, t) != Some(id) {
                            continue 'rows;
                        }
                    }
                }
                tuple.push(term_of(self.agg, id));
            }
            let name = self.atom_relation(rel_sym, &tuple)?;
            guard.push(rel(&name, &[]));
            self.count(guard.len())?;
            parts.push(and(guard));
        }
        Ok(or(parts))
    }

    /// The arguments of a call over carried variables: one slot per
    /// carrying element, each argument's slot and path (`None` for a
    /// ground argument), and the call's description for keys and names.
    /// `None` when a variable is not carried.
    fn call_slots(&self, args: &[Term], carrier: &HashMap<u32, Carrier>) -> Option<CallSlots> {
        let mut c = CallSlots {
            slots: Vec::new(),
            arg_slot: Vec::new(),
            spec: Vec::new(),
        };
        for a in args {
            match a {
                Term::Var(v) => {
                    let (name, p) = carrier.get(v)?;
                    let k = match c.slots.iter().position(|x| x == name) {
                        Some(k) => k,
                        None => {
                            c.slots.push(name.clone());
                            c.slots.len() - 1
                        }
                    };
                    c.spec
                        .push(format!("#{k}{}", super::elements::path_name(self.desc, p)));
                    c.arg_slot.push(Some((k, p.clone())));
                }
                t => {
                    c.spec.push(self.desc.term_to_string(t, &[]));
                    c.arg_slot.push(None);
                }
            }
        }
        Some(c)
    }

    /// `(rel args)` with carried variables among `args`, as a defined
    /// relation whose parameters are the carrying elements (each GDL
    /// argument read at its carrier's path). `None` when a clause of the
    /// relation has a compound term where a carried argument goes, or the
    /// relation is recursive.
    fn lifted_call(
        &mut self,
        rel_sym: Sym,
        args: &[Term],
        carrier: &HashMap<u32, Carrier>,
    ) -> Result<Option<Formula>, Refusal> {
        let Some(CallSlots {
            slots,
            arg_slot,
            spec,
        }) = self.call_slots(args, carrier)
        else {
            return Ok(None);
        };
        let rname = self.desc.symbols[rel_sym as usize].clone();
        let key = format!("lifted {rname}/{} {}", args.len(), spec.join(" "));
        let params: Vec<String> = (0..slots.len()).map(|k| format!("p{}", k + 1)).collect();
        let call_args: Vec<&str> = slots.iter().map(String::as_str).collect();
        if let Some(n) = self.made.get(&key) {
            return Ok(Some(rel(n, &call_args)));
        }
        // A recursive call of the shape being translated: the fixed point
        // relation of its definition (GDL's recursion is positive, so the
        // least fixed point is the relation).
        if let Some((t, used)) = self.lifting.get_mut(&key) {
            *used = true;
            return Ok(Some(rel(t, &call_args)));
        }
        let rules = self
            .by_head
            .get(&(rel_sym, args.len()))
            .cloned()
            .unwrap_or_default();
        // Every clause must take a variable (or a constant) where a carried
        // argument goes.
        for &i in &rules {
            let head = &self.desc.rules[i].head;
            for (h, a) in head.args.iter().zip(&arg_slot) {
                if a.is_some() && matches!(h, Term::Fn(..)) {
                    return Ok(None);
                }
            }
        }
        if !self.in_progress.insert((rel_sym, vec![Term::Const(HOLE)])) {
            return Ok(None);
        }
        let fixpoint = self
            .namer
            .name(&format!("fixpoint {key}"), &format!("T_{rname}"));
        self.lifting.insert(key.clone(), (fixpoint, false));
        let known = std::mem::take(&mut self.known);
        let mut parts = Vec::new();
        for &i in &rules {
            let rule = self.desc.rules[i].clone();
            let mut bind = HashMap::new();
            let mut pre: HashMap<u32, Carrier> = HashMap::new();
            let mut extra = Vec::new();
            let mut ok = true;
            for (h, (a, slot)) in rule.head.args.iter().zip(args.iter().zip(&arg_slot)) {
                match slot {
                    None => match h {
                        // Carried before: its coordinate is this value.
                        Term::Var(v) if pre.contains_key(v) => {
                            let (cv, cp) = pre[v].clone();
                            match self.els.coord.get(&(cp, a.clone())) {
                                Some((pred, _)) => extra.push(rel(pred, &[&cv])),
                                None => ok = false,
                            }
                        }
                        _ => {
                            if !match_term(h, a, &mut bind) {
                                ok = false;
                            }
                        }
                    },
                    Some((k, p)) => match h {
                        Term::Var(v) => match pre.get(v) {
                            // The same variable twice: equal coordinates.
                            Some(first) => {
                                let first = first.clone();
                                extra.push(
                                    self.equality_of(&first, &(params[*k].clone(), p.clone()))?,
                                );
                            }
                            // Bound to a value before: the coordinate is it.
                            None => match bind.get(v) {
                                Some(g) => match self.els.coord.get(&(p.clone(), g.clone())) {
                                    Some((pred, _)) => extra.push(rel(pred, &[&params[*k]])),
                                    None => ok = false,
                                },
                                None => {
                                    pre.insert(*v, (params[*k].clone(), p.clone()));
                                }
                            },
                        },
                        c => match self.els.coord.get(&(p.clone(), c.clone())) {
                            Some((pred, _)) => extra.push(rel(pred, &[&params[*k]])),
                            None => ok = false,
                        },
                    },
                }
            }
            if !ok {
                continue;
            }
            let body = match self.body_formula(&rule.body, &bind, &pre) {
                Ok(b) => b,
                // Not expressible over parameters: the caller expands the
                // call over tuples instead.
                Err(Refusal::Unsupported { .. }) => {
                    self.known = known;
                    self.in_progress.remove(&(rel_sym, vec![Term::Const(HOLE)]));
                    self.lifting.remove(&key);
                    return Ok(None);
                }
                Err(e) => return Err(e),
            };
            extra.push(body);
            parts.push(and(extra));
        }
        self.known = known;
        self.in_progress.remove(&(rel_sym, vec![Term::Const(HOLE)]));
        let (fixpoint, recursive) = self.lifting.remove(&key).expect("pushed above");
        let name = self
            .namer
            .name(&key, &format!("{rname}_{}", spec_short(&spec)));
        let body = if recursive {
            least_fixpoint(&fixpoint, &params, or(parts))
        } else {
            or(parts)
        };
        self.defined.push(DefinedRelation {
            name: name.clone(),
            params,
            body,
        });
        self.made.insert(key, name.clone());
        Ok(Some(rel(&name, &call_args)))
    }

    /// A static relation over carried variables (and constants), as a
    /// relation of the structure over their carrying elements.
    fn fact_relation(
        &mut self,
        rel_sym: Sym,
        args: &[Term],
        carrier: &HashMap<u32, Carrier>,
    ) -> Result<Formula, Refusal> {
        // One relation argument per carrying element (not per variable):
        // the element's coordinates at the paths of its variables.
        let CallSlots {
            slots,
            arg_slot,
            spec,
        } = self
            .call_slots(args, carrier)
            .ok_or_else(|| Refusal::Unsupported {
                what: "a relation called with an unbound variable".to_string(),
            })?;
        let rname = self.desc.symbols[rel_sym as usize].clone();
        let key = format!("fact {rname}/{} {}", args.len(), spec.join(" "));
        let element_refs: Vec<&str> = slots.iter().map(String::as_str).collect();
        if let Some(n) = self.made.get(&key) {
            return Ok(rel(n, &element_refs));
        }
        let mut rows: BTreeSet<Vec<usize>> = BTreeSet::new();
        let (agg, els) = (self.agg, self.els);
        if let Some(r) = agg.prog.relation(rel_sym, args.len()) {
            let fixed: Vec<Option<Option<TermId>>> = args
                .iter()
                .map(|a| match a {
                    Term::Var(_) => None,
                    t => Some(term_id(agg, t)),
                })
                .collect();
            'tuples: for t in agg.engine.tuples(&agg.prog, r) {
                // Per slot: the (path, value) pairs its element must have.
                let mut need: Vec<Vec<(Path, Term)>> = vec![Vec::new(); slots.len()];
                for (i, a) in arg_slot.iter().enumerate() {
                    match (a, &fixed[i]) {
                        (None, Some(id)) => {
                            if *id != Some(t[i]) {
                                continue 'tuples;
                            }
                        }
                        (Some((k, p)), _) => need[*k].push((p.clone(), term_of(agg, t[i]))),
                        (None, None) => unreachable!("a ground argument is fixed"),
                    }
                }
                let mut choices: Vec<Vec<usize>> = Vec::new();
                for pairs in &need {
                    let mut cand: Option<Vec<usize>> = None;
                    for (p, v) in pairs {
                        let Some((_, es)) = els.coord.get(&(p.clone(), v.clone())) else {
                            continue 'tuples;
                        };
                        cand = Some(match cand {
                            None => es.clone(),
                            Some(c) => c.into_iter().filter(|e| es.contains(e)).collect(),
                        });
                    }
                    let c = cand.unwrap_or_default();
                    if c.is_empty() {
                        continue 'tuples;
                    }
                    choices.push(c);
                }
                let refs: Vec<&[usize]> = choices.iter().map(Vec::as_slice).collect();
                product(&refs, &mut Vec::new(), &mut rows);
                if self.tuples + rows.len() > MAX_TUPLES {
                    return Err(Refusal::SizeLimit {
                        what: format!("relations of more than {MAX_TUPLES} tuples"),
                    });
                }
            }
        }
        let wanted = format!("{rname}_{}", spec_short(&spec));
        let name = self.namer.name(&key, &wanted);
        self.tuples += rows.len();
        self.relations.push(MadeRelation {
            name: name.clone(),
            arity: slots.len(),
            tuples: rows.into_iter().collect(),
        });
        self.made.insert(key, name.clone());
        Ok(rel(&name, &element_refs))
    }

    /// The subterm equality `Eq_{p,q}` (spec 5.2.3) as a relation.
    fn eq_relation(&mut self, p: &Path, q: &Path) -> Result<String, Refusal> {
        let (pn, qn) = (
            super::elements::path_name(self.desc, p),
            super::elements::path_name(self.desc, q),
        );
        let key = format!("eq {pn} {qn}");
        if let Some(n) = self.made.get(&key) {
            return Ok(n.clone());
        }
        let mut rows: BTreeSet<Vec<usize>> = BTreeSet::new();
        for ((path, value), (_, es)) in &self.els.coord {
            if path != p {
                continue;
            }
            if let Some((_, fs)) = self.els.coord.get(&(q.clone(), value.clone())) {
                for &a in es {
                    for &b in fs {
                        rows.insert(vec![a, b]);
                    }
                }
            }
        }
        if self.tuples + rows.len() > MAX_TUPLES {
            return Err(Refusal::SizeLimit {
                what: format!("relations of more than {MAX_TUPLES} tuples"),
            });
        }
        self.tuples += rows.len();
        let short = |p: &Path| {
            let mut s = self.desc.symbols[p[0].0 as usize].clone();
            s.push_str(
                &p.iter()
                    .map(|&(_, i)| (i + 1).to_string())
                    .collect::<Vec<_>>()
                    .join("_"),
            );
            s
        };
        let name = self
            .namer
            .name(&key, &format!("Eq_{}_{}", short(p), short(q)));
        self.relations.push(MadeRelation {
            name: name.clone(),
            arity: 2,
            tuples: rows.into_iter().collect(),
        });
        self.made.insert(key, name.clone());
        Ok(name)
    }
}

/// Every choice of one element per list, appended to `out`.
fn product(choices: &[&[usize]], prefix: &mut Vec<usize>, out: &mut BTreeSet<Vec<usize>>) {
    match choices.split_first() {
        None => {
            out.insert(prefix.clone());
        }
        Some((first, rest)) => {
            for &e in *first {
                prefix.push(e);
                product(rest, prefix, out);
                prefix.pop();
            }
        }
    }
}

/// A fact relation's argument description shortened for its name.
fn spec_short(spec: &[String]) -> String {
    spec.iter()
        .map(|s| {
            s.chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("_")
}
