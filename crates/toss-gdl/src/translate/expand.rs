//! Expanding the game (spec 5.2.3), the two steps that make `does` visible
//! where the rules of spec 5.2.4 look for it.
//!
//! **Unfolding `legal`.**
//! Many games write `(<= (legal ?p ?m) (legalMove ?p ?m))` and give the
//! shapes of the moves in the clauses of `legalMove`. The rules of spec
//! 5.2.4 are built from a `legal` clause whose head says the shape of its
//! move, so that a `does` atom of a `next` clause can be matched onto it.
//! Here a body atom that binds the move variable is resolved with each
//! clause of its relation, in turn, until the move has a shape. Only
//! relations that do not depend on themselves are resolved, and the number
//! of clauses made is bounded, so unfolding always ends; a clause that
//! cannot be unfolded is left as it is (and the rules refuse it later,
//! saying why).
//!
//! **Inlining the relations that use `does`** into the `next` clauses
//! (`(<= (affected ?x ?y) (does ?p (move ?x ?y ?u ?v)))` used as
//! `(not (affected ?x ?y))` in a frame clause). A positive call is resolved
//! with each clause of its relation. A negated call becomes one negated
//! `does` per clause of its relation, when each of those clauses is a
//! single `does`: `(not (does ?p (move ?x ?y ?u ?v)))` whose `?u ?v` occur
//! nowhere else, read as "no move from x y"
//! (the rules turn it into disequalities on the other coordinates). A call
//! that does not have this form is left, and refused later with its reason.

use std::collections::{HashMap, HashSet};

use super::formulas::{map_lit, shift};
use crate::{Atom, Description, Literal, Rule, Sym, Term};

/// The clauses of each relation, in file order.
fn clauses_by_relation(desc: &Description) -> HashMap<Sym, Vec<&Rule>> {
    let mut by_rel: HashMap<Sym, Vec<&Rule>> = HashMap::new();
    for r in &desc.rules {
        by_rel.entry(r.head.rel).or_default().push(r);
    }
    by_rel
}

/// Most clauses one `legal` clause may unfold into.
const MAX_UNFOLDED: usize = 4096;

/// The description with the `legal` clauses whose move is a variable
/// unfolded as far as they can be, and per rule the index of the rule of
/// `desc` it comes from.
pub(super) fn unfold_legal(
    desc: &Description,
    legal: Sym,
    keywords: &[Sym],
) -> (Description, Vec<usize>) {
    let by_rel = clauses_by_relation(desc);
    let recursive = recursive_relations(desc);
    let resolvable = |rel: Sym| {
        rel != legal
            && !keywords.contains(&rel)
            && by_rel.contains_key(&rel)
            && !recursive.contains(&rel)
    };
    let selected = |r: &Rule| {
        r.head.rel == legal && r.head.args.len() == 2 && matches!(r.head.args[1], Term::Var(_))
    };
    rewrite(desc, selected, |c| {
        let Term::Var(m) = c.head.args[1] else {
            return None;
        };
        let i = c.body.iter().position(|l| match l {
            Literal::Pos(a) => resolvable(a.rel) && a.args.iter().any(|t| has_var(t, m)),
            _ => false,
        })?;
        let Literal::Pos(call) = &c.body[i] else {
            unreachable!("picked a positive literal")
        };
        Some(
            by_rel[&call.rel]
                .iter()
                .filter_map(|callee| resolve(c, i, call, callee))
                .collect(),
        )
    })
}

/// The description with the relations that use `does` inlined into the
/// `next` clauses as far as they can be, and per rule the index of the
/// rule of `desc` it comes from.
pub(super) fn inline_does_relations(
    desc: &Description,
    next: Sym,
    does: Sym,
    keywords: &[Sym],
) -> (Description, Vec<usize>) {
    let by_rel = clauses_by_relation(desc);
    let recursive = recursive_relations(desc);
    let uses_does = relations_using(desc, does);
    let inlinable = |rel: Sym| {
        uses_does.contains(&rel)
            && !keywords.contains(&rel)
            && rel != next
            && by_rel.contains_key(&rel)
            && !recursive.contains(&rel)
    };
    rewrite(
        desc,
        |r| r.head.rel == next,
        |c| {
            for (i, l) in c.body.iter().enumerate() {
                match l {
                    Literal::Pos(a) if inlinable(a.rel) => {
                        return Some(
                            by_rel[&a.rel]
                                .iter()
                                .filter_map(|callee| resolve(c, i, a, callee))
                                .collect(),
                        );
                    }
                    Literal::Neg(a) if inlinable(a.rel) => {
                        if let Some(n) = negate_call(c, i, a, &by_rel[&a.rel], does) {
                            return Some(vec![n]);
                        }
                    }
                    _ => {}
                }
            }
            None
        },
    )
}

/// `desc` with each clause that `selected` picks rewritten until `step`
/// is done with it (`None`; otherwise the clauses that replace it), and
/// per rule the index of the rule of `desc` it comes from. A clause whose
/// rewriting makes more than [`MAX_UNFOLDED`] clauses is kept as it was.
fn rewrite(
    desc: &Description,
    selected: impl Fn(&Rule) -> bool,
    step: impl Fn(&Rule) -> Option<Vec<Rule>>,
) -> (Description, Vec<usize>) {
    let mut rules = Vec::new();
    let mut origin = Vec::new();
    'rules: for (ri, r) in desc.rules.iter().enumerate() {
        if !selected(r) {
            rules.push(r.clone());
            origin.push(ri);
            continue;
        }
        let mut done = Vec::new();
        let mut todo = vec![r.clone()];
        while let Some(c) = todo.pop() {
            match step(&c) {
                Some(next) => todo.extend(next),
                None => done.push(c),
            }
            if done.len() + todo.len() > MAX_UNFOLDED {
                rules.push(r.clone());
                origin.push(ri);
                continue 'rules;
            }
        }
        // Clauses come off the stack last first: restore their order.
        done.reverse();
        origin.extend(std::iter::repeat_n(ri, done.len()));
        rules.extend(done);
    }
    (
        Description {
            symbols: desc.symbols.clone(),
            rules,
        },
        origin,
    )
}

/// The clause `c` with its negated call `(not call)` (body literal `i`)
/// replaced by one negated literal per clause of the called relation;
/// `None` unless every clause, matched onto the call without binding the
/// caller's variables, has a single `does` as its body.
fn negate_call(c: &Rule, i: usize, call: &Atom, callees: &[&Rule], does: Sym) -> Option<Rule> {
    let mut var_names = c.var_names.clone();
    let mut negated = Vec::new();
    for callee in callees {
        let offset = var_names.len() as u32;
        let mut s: HashMap<u32, Term> = HashMap::new();
        let mut unifies = true;
        for (a, b) in call.args.iter().zip(&callee.head.args) {
            // The callee first: its variables are the ones bound.
            if !unify(&shift(b, offset), a, &mut s) {
                unifies = false;
                break;
            }
        }
        if !unifies {
            // This clause never derives the call: nothing to negate.
            continue;
        }
        // Binding a caller variable would make the negation conditional.
        if s.keys().any(|&v| v < offset) {
            return None;
        }
        let [Literal::Pos(a)] = callee.body.as_slice() else {
            return None;
        };
        if a.rel != does {
            return None;
        }
        negated.push(Literal::Neg(Atom {
            rel: a.rel,
            args: a
                .args
                .iter()
                .map(|t| resolve_term(&shift(t, offset), &s))
                .collect(),
        }));
        var_names.extend(callee.var_names.iter().map(|n| format!("{n}'")));
    }
    let mut body = c.body.clone();
    body.splice(i..=i, negated);
    Some(Rule {
        head: c.head.clone(),
        body,
        var_names,
    })
}

/// The description without the negated `does` that have variables of
/// their own (made by [`inline_does_relations`]), which GDL's safety rule
/// forbids: what the reasoner's program and the aggregate playout are
/// built from. The rules keep their order, so clause indices agree; the
/// aggregate playout drops negated `does` anyway (it over-approximates).
pub(super) fn safe_for_evaluation(desc: &Description, does: Sym) -> Description {
    let rules = desc
        .rules
        .iter()
        .map(|r| {
            let mut bound = Vec::new();
            r.body.iter().for_each(|l| {
                if let Literal::Pos(a) = l {
                    a.args.iter().for_each(|t| t.vars(&mut bound));
                }
            });
            let mut r = r.clone();
            r.body.retain(|l| match l {
                Literal::Neg(a) if a.rel == does => {
                    let mut vs = Vec::new();
                    l.vars(&mut vs);
                    vs.iter().all(|v| bound.contains(v))
                }
                _ => true,
            });
            r
        })
        .collect();
    Description {
        symbols: desc.symbols.clone(),
        rules,
    }
}

/// The relations whose clauses use `rel`, directly or through others.
fn relations_using(desc: &Description, rel: Sym) -> HashSet<Sym> {
    let mut out: HashSet<Sym> = HashSet::new();
    loop {
        let before = out.len();
        for r in &desc.rules {
            let uses = r.body.iter().any(|l| match l {
                Literal::Pos(a) | Literal::Neg(a) => a.rel == rel || out.contains(&a.rel),
                _ => false,
            });
            if uses {
                out.insert(r.head.rel);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The clause `c` with its body literal `i` (the atom `call`) replaced by
/// the body of `callee`, under their most general unifier; `None` when
/// they do not unify.
fn resolve(c: &Rule, i: usize, call: &Atom, callee: &Rule) -> Option<Rule> {
    let offset = c.var_names.len() as u32;
    let renamed = |t: &Term| shift(t, offset);
    let mut s: HashMap<u32, Term> = HashMap::new();
    if call.args.len() != callee.head.args.len() {
        return None;
    }
    for (a, b) in call.args.iter().zip(&callee.head.args) {
        if !unify(a, &renamed(b), &mut s) {
            return None;
        }
    }
    let apply = |t: &Term| resolve_term(t, &s);
    let mut body = Vec::with_capacity(c.body.len() + callee.body.len());
    for (k, l) in c.body.iter().enumerate() {
        if k == i {
            body.extend(
                callee
                    .body
                    .iter()
                    .map(|l| map_lit(l, |t| apply(&renamed(t)))),
            );
        } else {
            body.push(map_lit(l, apply));
        }
    }
    let mut var_names = c.var_names.clone();
    var_names.extend(callee.var_names.iter().map(|n| format!("{n}'")));
    Some(Rule {
        head: Atom {
            rel: c.head.rel,
            args: c.head.args.iter().map(apply).collect(),
        },
        body,
        var_names,
    })
}

/// `t` with the substitution applied through chains of bound variables.
fn resolve_term(t: &Term, s: &HashMap<u32, Term>) -> Term {
    match t {
        Term::Var(v) => match s.get(v) {
            Some(b) => resolve_term(b, s),
            None => t.clone(),
        },
        Term::Fn(f, a) => Term::Fn(*f, a.iter().map(|x| resolve_term(x, s)).collect()),
        t => t.clone(),
    }
}

/// Extends `s` to a unifier of `a` and `b` (with the occurs check).
fn unify(a: &Term, b: &Term, s: &mut HashMap<u32, Term>) -> bool {
    let (a, b) = (walk(a, s), walk(b, s));
    match (&a, &b) {
        (Term::Var(x), Term::Var(y)) if x == y => true,
        (Term::Var(x), t) | (t, Term::Var(x)) => {
            if has_var(&resolve_term(t, s), *x) {
                return false;
            }
            s.insert(*x, t.clone());
            true
        }
        (Term::Const(x), Term::Const(y)) => x == y,
        (Term::Fn(f, xs), Term::Fn(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| unify(x, y, s))
        }
        _ => false,
    }
}

/// A bound variable's binding, followed to its end.
fn walk(t: &Term, s: &HashMap<u32, Term>) -> Term {
    let mut t = t.clone();
    while let Term::Var(v) = t {
        match s.get(&v) {
            Some(b) => t = b.clone(),
            None => break,
        }
    }
    t
}

/// The relations that depend on themselves (through any body literal).
fn recursive_relations(desc: &Description) -> HashSet<Sym> {
    let mut index: HashMap<Sym, usize> = HashMap::new();
    let mut rels: Vec<Sym> = Vec::new();
    let mut id = |s: Sym| {
        *index.entry(s).or_insert_with(|| {
            rels.push(s);
            rels.len() - 1
        })
    };
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for r in &desc.rules {
        let h = id(r.head.rel);
        for l in &r.body {
            if let Literal::Pos(a) | Literal::Neg(a) = l {
                edges.push((h, id(a.rel)));
            }
        }
    }
    let mut succ = vec![Vec::new(); rels.len()];
    for (h, b) in edges {
        succ[h].push(b);
    }
    crate::sccs(rels.len(), &succ)
        .into_iter()
        .filter(|c| c.len() > 1 || succ[c[0]].contains(&c[0]))
        .flatten()
        .map(|i| rels[i])
        .collect()
}

fn has_var(t: &Term, v: u32) -> bool {
    match t {
        Term::Var(x) => *x == v,
        Term::Fn(_, a) => a.iter().any(|x| has_var(x, v)),
        Term::Const(_) => false,
    }
}
