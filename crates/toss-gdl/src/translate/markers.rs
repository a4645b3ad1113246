//! Moves as marks and the state change as update plies: the translation of
//! games whose moves the rules of [`super::rules`] cannot express (a move
//! that changes squares it does not name, a frame clause that reads the
//! state, a `next` clause that changes elements neither the move nor the
//! state names), and of games whose turns follow no cycle of single
//! movers (simultaneous moves). It is the spec's general interaction
//! (5.2.7): with a cycle of movers, one mover at a time (the idle roles'
//! `noop`s marked with the move); without one, every role moves at every
//! joint move, as in GDL, and the first role plays the update plies.
//!
//! Every move the aggregate playout allows is an element: the state term
//! `(does white (drop 3))` becomes `(does_drop_1 white 3)`, one root per
//! move shape, so that its arguments are coordinates like a cell's. In the
//! `next` clauses `(does r m)` reads as `(true (does_.. r ..))`, and the
//! clauses become formulas like any other condition on the state.
//!
//! A turn is then a ply of its mover (or movers) followed by plies of one
//! of them (one turn, [`toss_core::Game::continues_turn`]):
//! 1. the move: one rule per move shape of the mover marks the move's
//!    element (its precondition: the `legal` clauses of that shape, and not
//!    `terminal`), and the idle roles' `noop` elements;
//! 2. for every root and fluent value, `N(x)` is marked on every element
//!    where a `next` clause makes the value (`Next(x)`, read in the state
//!    before the move, which no earlier update ply has changed);
//! 3. for every value, it is removed where `N` is not marked, and set
//!    where it is (the mark removed with it);
//! 4. the move marks are cleared.
//!
//! Each update ply applies its rule to all its matches (multiplicity
//! `inf`); where there is none, a rule with no elements whose precondition
//! says so is the ply's one move. So every update ply has exactly one move,
//! and the GDL move is read off the first ply alone.

use std::collections::{BTreeSet, HashMap};

use toss_core::ir::{
    self, DefinedRelation, Formula, Label, Multiplicity, RuleSide, RuleTuple, Target,
};

use crate::{Atom, Description, Literal, Rule, Sym, Term};

use super::Refusal;
use super::elements::{Elements, HOLE, at, leaf_paths, place, root};
use super::formulas::{Carrier, Formulas, and, apply, match_term, next_combination, not, or, rel};
use super::rules::{Built, Keywords, MoveOf, Turns};

/// Most value combinations of the pattern variables enumerated for one
/// clause (those no element carries).
const MAX_PATTERN_VALUES: usize = 10_000;

/// The description with moves as state terms.
pub(super) struct Marked {
    /// The description with new symbols, one root per move shape, and
    /// `does` read as `true` in every body.
    pub desc: Description,
    /// The state terms of every move the aggregate playout allows.
    pub move_terms: Vec<Term>,
    /// Per move shape (its functor, or the constant, and arity): its root.
    pub shapes: Vec<((Sym, usize), Sym)>,
    /// The clauses whose variables are not the aggregate playout's
    /// instances' (split or dropped, and those split off at the end).
    pub rewritten: Vec<usize>,
}

fn shape_root(shapes: &[((Sym, usize), Sym)], m: &Term) -> Option<Sym> {
    let key = match m {
        Term::Const(c) => (*c, 0),
        Term::Fn(f, a) => (*f, a.len()),
        Term::Var(_) => return None,
    };
    shapes.iter().find(|(k, _)| *k == key).map(|(_, r)| *r)
}

/// The state term of role `r`'s move `m`: `(does_f r args..)`.
fn move_term(shapes: &[((Sym, usize), Sym)], r: &Term, m: &Term) -> Option<Term> {
    let root = shape_root(shapes, m)?;
    let mut args = vec![r.clone()];
    if let Term::Fn(_, a) = m {
        args.extend(a.iter().cloned());
    }
    Some(Term::Fn(root, args))
}

/// Moves as state terms: `legal_facts` are the `(role, move)` pairs of the
/// aggregate playout.
pub(super) fn prepare(
    desc: &Description,
    legal_facts: &[(Term, Term)],
    does: Option<Sym>,
    true_: Sym,
) -> Result<Marked, Refusal> {
    let mut d = desc.clone();
    let mut shapes: Vec<((Sym, usize), Sym)> = Vec::new();
    for (_, m) in legal_facts {
        let key = match m {
            Term::Const(c) => (*c, 0),
            Term::Fn(f, a) => (*f, a.len()),
            Term::Var(_) => continue,
        };
        if shapes.iter().any(|(k, _)| *k == key) {
            continue;
        }
        // A space: no GDL symbol has one, so the name is new.
        let name = format!("does {}/{}", desc.symbols[key.0 as usize], key.1);
        d.symbols.push(name);
        shapes.push((key, (d.symbols.len() - 1) as Sym));
    }
    shapes.sort_by_key(|(k, _)| (desc.symbols[k.0 as usize].clone(), k.1));
    let mut move_terms = Vec::new();
    for (r, m) in legal_facts {
        if let Some(t) = move_term(&shapes, r, m) {
            move_terms.push(t);
        }
    }
    let Some(does) = does else {
        return Ok(Marked {
            desc: d,
            move_terms,
            shapes,
            rewritten: Vec::new(),
        });
    };
    // `(does r m)` as `(true (does_f r ..))`; a clause whose move is a
    // variable splits into one clause per shape.
    // Each clause keeps its index (the aggregate playout's instances are
    // by index); the further clauses of a split one go at the end, and
    // both are `rewritten`: their variables are no longer the instances'.
    let mut rules = Vec::new();
    let mut extra = Vec::new();
    let mut rewritten = Vec::new();
    for (i, original) in d.rules.iter().enumerate() {
        let mut out: Vec<Rule> = Vec::new();
        let mut split = false;
        let mut work: Vec<Rule> = vec![original.clone()];
        while let Some(mut r) = work.pop() {
            let pos = r.body.iter().position(|l| {
            matches!(l, Literal::Pos(a) | Literal::Neg(a) if a.rel == does && a.args.len() == 2)
        });
            let Some(k) = pos else {
                out.push(r);
                continue;
            };
            let (Literal::Pos(a) | Literal::Neg(a)) = &r.body[k] else {
                unreachable!("a does literal")
            };
            let negated = matches!(r.body[k], Literal::Neg(_));
            let (role, m) = (a.args[0].clone(), a.args[1].clone());
            if !matches!(role, Term::Const(_)) {
                return Err(Refusal::Unsupported {
                    what: "`does` of a role that is not a constant".to_string(),
                });
            }
            match &m {
                Term::Var(v) if negated => {
                    // No move of any shape: one negated literal per shape,
                    // each with variables of its own.
                    let v = *v;
                    let mut others = Vec::new();
                    r.head.args.iter().for_each(|t| t.vars(&mut others));
                    r.body
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != k)
                        .for_each(|(_, l)| l.vars(&mut others));
                    if others.contains(&v) {
                        return Err(Refusal::Unsupported {
                            what: "a negated `does` whose move is a variable bound elsewhere"
                                .to_string(),
                        });
                    }
                    let mut lits = Vec::new();
                    for &((_, arity), shape) in &shapes {
                        let base = r.var_names.len() as u32;
                        for i in 0..arity {
                            r.var_names.push(format!("?m{i}"));
                        }
                        let mut args = vec![role.clone()];
                        args.extend((0..arity as u32).map(|i| Term::Var(base + i)));
                        lits.push(Literal::Neg(Atom {
                            rel: true_,
                            args: vec![Term::Fn(shape, args)],
                        }));
                    }
                    r.body.remove(k);
                    r.body.extend(lits);
                    work.push(r);
                }
                Term::Var(v) => {
                    // One clause per shape, the variable bound to a pattern
                    // of fresh variables.
                    let mut parts = Vec::new();
                    for &((f, arity), _) in &shapes {
                        let mut c = r.clone();
                        let base = c.var_names.len() as u32;
                        let pat = if arity == 0 {
                            Term::Const(f)
                        } else {
                            for i in 0..arity {
                                c.var_names.push(format!("?m{i}"));
                            }
                            Term::Fn(f, (0..arity as u32).map(|i| Term::Var(base + i)).collect())
                        };
                        let b: HashMap<u32, Term> = [(*v, pat)].into_iter().collect();
                        c.head = Atom {
                            rel: c.head.rel,
                            args: c.head.args.iter().map(|t| apply(t, &b)).collect(),
                        };
                        c.body = c
                            .body
                            .iter()
                            .map(|l| super::formulas::map_lit(l, |t| apply(t, &b)))
                            .collect();
                        parts.push(c);
                    }
                    // Rewritten clauses go back on the stack, in order.
                    work.extend(parts.into_iter().rev());
                    split = true;
                }
                _ => match move_term(&shapes, &role, &m) {
                    Some(t) => {
                        let atom = Atom {
                            rel: true_,
                            args: vec![t],
                        };
                        r.body[k] = if negated {
                            Literal::Neg(atom)
                        } else {
                            Literal::Pos(atom)
                        };
                        work.push(r);
                    }
                    // A move no state allows: the literal never holds.
                    None => {
                        if negated {
                            r.body.remove(k);
                            work.push(r);
                        }
                    }
                },
            }
        }
        if out.len() == 1 && !split {
            rules.push(out.pop().expect("one clause"));
            continue;
        }
        rewritten.push(i);
        let mut out = out.into_iter();
        rules.push(out.next().unwrap_or_else(|| {
            // No clause left: one that never holds keeps the index.
            let mut dead = original.clone();
            dead.body = vec![Literal::Distinct(Term::Const(true_), Term::Const(true_))];
            dead
        }));
        extra.extend(out);
    }
    for r in extra {
        rewritten.push(rules.len());
        rules.push(r);
    }
    d.rules = rules;
    Ok(Marked {
        desc: d,
        move_terms,
        shapes,
        rewritten,
    })
}

/// `desc` without the negated literals whose variables no positive
/// literal binds (a negated `does` read as a state literal with variables
/// of its own): the dependencies of the relations, for their levels.
pub(super) fn for_levels(desc: &Description) -> Description {
    let mut d = desc.clone();
    for r in &mut d.rules {
        let mut bound = Vec::new();
        for l in &r.body {
            if let Literal::Pos(a) = l {
                a.args.iter().for_each(|t| t.vars(&mut bound));
            }
        }
        r.body.retain(|l| match l {
            Literal::Neg(_) => {
                let mut vs = Vec::new();
                l.vars(&mut vs);
                vs.iter().all(|v| bound.contains(v))
            }
            _ => true,
        });
    }
    d
}

/// A formula with the free element variable `x`: `x` is an element of the
/// state term `pattern` (under `bind`; its fluent value, if any, ground)
/// and the body of clause `clause` holds. Variables of the pattern are read at `x`'s
/// coordinates, or, where the body needs them as values, enumerated.
fn instance_formula(
    tr: &mut Formulas<'_>,
    pattern: &Term,
    bind: &HashMap<u32, Term>,
    clause: usize,
    x: &str,
) -> Result<Formula, Refusal> {
    let els: &Elements = tr.els;
    let body = tr.desc.rules[clause].body.clone();
    let body = &body[..];
    let pattern = apply(pattern, bind);
    let Some(&ri) = root(&pattern).and_then(|rk| els.root_of.get(&rk)) else {
        return Ok(Formula::False);
    };
    let fluent = els.roots[ri].fluent.clone();
    let coordinate =
        |q: &Vec<(Sym, u32)>| !q.is_empty() && !fluent.as_ref().is_some_and(|p| q.starts_with(p));
    // The pattern's variables at coordinates; those the body cannot take
    // as carried by `x` are enumerated over the values there.
    let mut pre: HashMap<u32, Carrier> = HashMap::new();
    for q in leaf_paths(&pattern).into_iter().filter(coordinate) {
        if let Some(Term::Var(v)) = at(&pattern, &q) {
            pre.entry(*v).or_insert_with(|| (x.to_string(), q.clone()));
        }
    }
    let (_, elim) = tr.classify(body, bind, &pre);
    let mut enumerated: Vec<(u32, Vec<Term>)> = Vec::new();
    for (v, (_, q)) in &pre {
        if elim.contains(v) || !tr.is_uniform_coordinate(&pattern, q) {
            let vals: BTreeSet<Term> = els
                .coord
                .keys()
                .filter(|(p, _)| p == q)
                .map(|(_, t)| t.clone())
                .collect();
            enumerated.push((*v, vals.into_iter().collect()));
        }
    }
    enumerated.sort_by_key(|(v, _)| *v);
    let mut total = 1usize;
    for (_, vals) in &enumerated {
        total = total.saturating_mul(vals.len());
    }
    if total > MAX_PATTERN_VALUES {
        return Err(Refusal::SizeLimit {
            what: format!(
                "a move or `next` clause with more than {MAX_PATTERN_VALUES} values of its \
                 uncarried variables"
            ),
        });
    }
    let mut parts = Vec::new();
    let mut idx = vec![0usize; enumerated.len()];
    if enumerated.iter().any(|(_, vals)| vals.is_empty()) {
        return Ok(Formula::False);
    }
    loop {
        let mut b = bind.clone();
        for (k, (v, vals)) in enumerated.iter().enumerate() {
            b.insert(*v, vals[idx[k]].clone());
        }
        let p = apply(&pattern, &b);
        let mut conds = vec![rel(&els.roots[ri].root_pred, &[x])];
        let mut carriers: HashMap<u32, Carrier> = HashMap::new();
        let mut possible = true;
        for q in leaf_paths(&p).into_iter().filter(coordinate) {
            match at(&p, &q).expect("a leaf path") {
                Term::Var(v) => match carriers.get(v).cloned() {
                    Some(c) => conds.push(tr.equality_of(&c, &(x.to_string(), q.clone()))?),
                    None => {
                        carriers.insert(*v, (x.to_string(), q.clone()));
                    }
                },
                c => match els.coord.get(&(q.clone(), c.clone())) {
                    Some((pred, _)) => conds.push(rel(pred, &[x])),
                    None => possible = false,
                },
            }
        }
        if possible {
            // The body's state literals on `x` itself read its fluents.
            let masked = match &fluent {
                Some(fp) => place(&p, fp, &Term::Const(HOLE)),
                None => p.clone(),
            };
            tr.known = vec![(masked, x.to_string())];
            let f = tr.clause_carried(clause, &b, &carriers);
            tr.known.clear();
            let f = f?;
            if f != Formula::False {
                conds.push(f);
                parts.push(and(conds));
            }
        }
        if !next_combination(&mut idx, |k| enumerated[k].1.len()) {
            return Ok(or(parts));
        }
    }
}

/// One update ply: its rule, applied to all matches, and the rule with no
/// elements that is the ply's move when the first has no match.
struct Step {
    rule: ir::Rule,
    skip: ir::Rule,
}

/// A rule whose sides have the same `elements`, each right element the
/// left one of its name.
fn rule(
    name: String,
    elements: &[String],
    lhs: Vec<RuleTuple>,
    rhs: Vec<RuleTuple>,
    emb: Vec<String>,
    pre: Formula,
) -> ir::Rule {
    ir::Rule {
        name,
        lhs: RuleSide {
            elements: elements.to_vec(),
            tuples: lhs,
            functions: Vec::new(),
        },
        rhs: RuleSide {
            elements: elements.to_vec(),
            tuples: rhs,
            functions: Vec::new(),
        },
        emb,
        map: elements.iter().map(|e| (e.clone(), e.clone())).collect(),
        nondistinct: Vec::new(),
        pre,
        inv: Formula::True,
        post: Formula::True,
        update: Vec::new(),
        dynamics: Vec::new(),
    }
}

/// A rule of the one element `x`.
fn one_element_rule(
    name: String,
    lhs: Vec<RuleTuple>,
    rhs: Vec<RuleTuple>,
    emb: Vec<String>,
    pre: Formula,
) -> ir::Rule {
    rule(name, &["x".to_string()], lhs, rhs, emb, pre)
}

fn tuple(relation: &str, x: &str) -> RuleTuple {
    RuleTuple {
        relation: relation.to_string(),
        args: vec![x.to_string()],
        optional: false,
    }
}

/// The step of a one-element rule: its skip says that no element has
/// `lhs` (the relations of its left side) and `pre`.
fn step(tr: &mut Formulas<'_>, rule: ir::Rule, key: &str) -> Step {
    let mut conds: Vec<Formula> = rule
        .lhs
        .tuples
        .iter()
        .map(|t| rel(&t.relation, &["x"]))
        .collect();
    conds.push(rule.pre.clone());
    let name = tr.name(&format!("skip {key}"), &format!("Skip_{}", rule.name));
    let nothing = not(Formula::Exists {
        vars: vec![ir::Var::Element("x".to_string())],
        body: Box::new(and(conds)),
    });
    let skip = self::rule(name, &[], Vec::new(), Vec::new(), Vec::new(), nothing);
    Step { rule, skip }
}

/// The rules and locations of a turn-based game with moves as marks:
/// per turn of `turns.cycle`, the move location and its update plies.
#[allow(clippy::too_many_arguments)]
pub(super) fn build(
    tr: &mut Formulas<'_>,
    desc: &Description,
    marked: &Marked,
    roles: &[Sym],
    turns: Option<&Turns>,
    kw: &Keywords,
    terminal: Option<&str>,
    translating: &mut Option<usize>,
) -> Result<Built, Refusal> {
    let els: &Elements = tr.els;
    // The move rules: per role and move shape, the `legal` clauses of that
    // shape as one defined relation of the move element.
    let mut legal_of: HashMap<(usize, Sym), Vec<usize>> = HashMap::new();
    for (ci, c) in desc.rules.iter().enumerate() {
        if c.head.rel != kw.legal || c.head.args.len() != 2 {
            continue;
        }
        let Some(p) = roles.iter().position(|&r| c.head.args[0] == Term::Const(r)) else {
            continue;
        };
        let Some(shape) = shape_root(&marked.shapes, &c.head.args[1]) else {
            if matches!(c.head.args[1], Term::Var(_)) {
                return Err(Refusal::Unsupported {
                    what: "a `legal` clause whose move is a variable".to_string(),
                });
            }
            continue;
        };
        legal_of.entry((p, shape)).or_default().push(ci);
    }
    let mut keys: Vec<(usize, Sym)> = legal_of.keys().copied().collect();
    keys.sort_unstable();
    // Per role: each shape's rule name, precondition and move.
    let mut move_rules: Vec<Vec<(String, Formula, MoveOf, Sym)>> = vec![Vec::new(); roles.len()];
    let mut defined: Vec<DefinedRelation> = Vec::new();
    for (p, shape) in keys {
        let mut parts = Vec::new();
        for &ci in &legal_of[&(p, shape)] {
            *translating = Some(ci);
            let c = &desc.rules[ci];
            let pattern = move_term(&marked.shapes, &c.head.args[0], &c.head.args[1])
                .expect("a move of a shape");
            parts.push(instance_formula(tr, &pattern, &HashMap::new(), ci, "m")?);
        }
        *translating = None;
        let shape_name = &desc.symbols[shape as usize];
        let role_name = &desc.symbols[roles[p] as usize];
        let lname = tr.name(
            &format!("legal {role_name} {shape_name}"),
            &format!("Legal_{role_name}_{shape_name}"),
        );
        defined.push(DefinedRelation {
            name: lname.clone(),
            params: vec!["m".to_string()],
            body: or(parts),
        });
        let rname = tr.name(
            &format!("move {role_name} {shape_name}"),
            &format!("{role_name}_{shape_name}"),
        );
        let (functor, arity) = marked
            .shapes
            .iter()
            .find(|(_, r)| *r == shape)
            .map(|(k, _)| *k)
            .expect("a shape");
        let mut pre = vec![rel(&lname, &["m"])];
        if let Some(t) = terminal {
            pre.push(not(rel(t, &[])));
        }
        move_rules[p].push((
            rname,
            and(pre),
            MoveOf {
                role: p,
                term: Term::Const(functor),
                from: Vec::new(),
                element: Some((functor, arity)),
            },
            shape,
        ));
    }
    // The marks' elements: a move's element is the only one of its shape
    // root with the role at the first coordinate.
    let presence = |t: &Term| -> Option<(String, String, Vec<String>)> {
        let (e, pred) = els.locate(t)?;
        let info = &els.roots[els.elements[e].root];
        let mut coords = Vec::new();
        for (q, v) in &els.elements[e].coords {
            coords.push(els.coord.get(&(q.clone(), v.clone()))?.0.clone());
        }
        Some((info.root_pred.clone(), pred.to_string(), coords))
    };
    let mut built = Built {
        rules: Vec::new(),
        moves: HashMap::new(),
        labels: Vec::new(),
        marks: Vec::new(),
    };
    // The update plies, the same for every turn.
    let mut steps: Vec<Step> = Vec::new();
    let shape_roots: Vec<Sym> = marked.shapes.iter().map(|(_, r)| *r).collect();
    let mut values: Vec<(usize, Term, String)> = Vec::new();
    for (ri, info) in els.roots.iter().enumerate() {
        if shape_roots.contains(&info.sym) {
            continue;
        }
        match &info.presence {
            Some(p) => values.push((ri, Term::Const(HOLE), p.clone())),
            None => {
                for (v, p) in info.values.values() {
                    values.push((ri, v.clone(), p.clone()));
                }
            }
        }
    }
    let mut marks: Vec<(String, Option<String>)> = Vec::new();
    for (ri, v, pred) in &values {
        let info = &els.roots[*ri];
        let mut parts = Vec::new();
        for (ci, c) in desc.rules.iter().enumerate() {
            if c.head.rel != kw.next || c.head.args.len() != 1 {
                continue;
            }
            let head = &c.head.args[0];
            if root(head) != Some((info.sym, info.arity)) {
                continue;
            }
            *translating = Some(ci);
            let mut bind = HashMap::new();
            if let Some(fp) = &info.fluent {
                match at(head, fp) {
                    Some(h) if match_term(h, v, &mut bind) => {}
                    _ => continue,
                }
            }
            parts.push(instance_formula(tr, head, &bind, ci, "x")?);
        }
        *translating = None;
        let body = or(parts);
        let next_name = tr.name(&format!("next {pred}"), &format!("Next_{pred}"));
        let mark = tr.name(&format!("mark {pred}"), &format!("N_{pred}"));
        if body != Formula::False {
            defined.push(DefinedRelation {
                name: next_name.clone(),
                params: vec!["x".to_string()],
                body,
            });
            let r = one_element_rule(
                tr.name(&format!("compute {pred}"), &format!("Compute_{pred}")),
                vec![tuple(&info.root_pred, "x")],
                vec![tuple(&info.root_pred, "x"), tuple(&mark, "x")],
                Vec::new(),
                rel(&next_name, &["x"]),
            );
            steps.push(step(tr, r, &format!("compute {pred}")));
            built.marks.push(mark.clone());
            marks.push((pred.clone(), Some(mark)));
        } else {
            // No clause makes the value: it is removed everywhere.
            marks.push((pred.clone(), None));
        }
    }
    for (pred, mark) in &marks {
        let lhs_pre = match mark {
            Some(mark) => not(rel(mark, &["x"])),
            None => Formula::True,
        };
        let r = one_element_rule(
            tr.name(&format!("remove {pred}"), &format!("Remove_{pred}")),
            vec![tuple(pred, "x")],
            Vec::new(),
            vec![pred.clone()],
            lhs_pre,
        );
        steps.push(step(tr, r, &format!("remove {pred}")));
        if let Some(mark) = mark {
            let r = one_element_rule(
                tr.name(&format!("set {pred}"), &format!("Set_{pred}")),
                vec![tuple(mark, "x")],
                vec![tuple(pred, "x")],
                vec![mark.clone()],
                Formula::True,
            );
            steps.push(step(tr, r, &format!("set {pred}")));
        }
    }
    for info in els.roots.iter().filter(|i| shape_roots.contains(&i.sym)) {
        let Some(pred) = info.presence.clone() else {
            continue;
        };
        let r = one_element_rule(
            tr.name(&format!("clear {pred}"), &format!("Clear_{pred}")),
            vec![tuple(&pred, "x")],
            Vec::new(),
            vec![pred.clone()],
            Formula::True,
        );
        steps.push(step(tr, r, &format!("clear {pred}")));
    }
    let per_turn = 1 + steps.len();
    if per_turn > toss_core::limits::PLIES_PER_TURN.value {
        return Err(Refusal::SizeLimit {
            what: format!(
                "{per_turn} plies a turn (the move and an update ply per fluent value; limit {})",
                toss_core::limits::PLIES_PER_TURN.value
            ),
        });
    }
    // The turns: a cycle of movers, or every role at every joint move.
    let cycle: Vec<Option<usize>> = match turns {
        Some(t) => t.cycle.iter().map(|&m| Some(m)).collect(),
        None => vec![None],
    };
    // Per mover: its move rules (the idle roles' `noop` elements marked
    // too), made once however many turns of the cycle are the mover's;
    // with no mover, every role's rules.
    let mut made: HashMap<Option<usize>, Vec<(usize, String)>> = HashMap::new();
    for &turn in &cycle {
        if made.contains_key(&turn) {
            continue;
        }
        let mut names = Vec::new();
        let here: Vec<usize> = match turn {
            Some(m) => vec![m],
            None => (0..roles.len()).collect(),
        };
        for (mover, (name, pre, m, shape)) in here
            .iter()
            .flat_map(|&p| move_rules[p].iter().map(move |r| (p, r)))
        {
            let arity = 1 + m.element.map_or(0, |(_, a)| a);
            let Some(&sri) = els.root_of.get(&(*shape, arity)) else {
                continue;
            };
            let info = &els.roots[sri];
            let presence_pred = info.presence.clone().expect("a move root has presence");
            let Some((role_coord, _)) = els
                .coord
                .get(&(vec![(*shape, 0)], Term::Const(roles[mover])))
            else {
                continue;
            };
            let mut lhs = vec![tuple(&info.root_pred, "m"), tuple(role_coord, "m")];
            let mut marks = vec![tuple(&presence_pred, "m")];
            let mut elements = vec!["m".to_string()];
            let idle: Vec<(usize, &Option<Term>)> = match turns {
                Some(t) => t
                    .noop
                    .iter()
                    .enumerate()
                    .filter(|(q, _)| *q != mover)
                    .collect(),
                None => Vec::new(),
            };
            for (q, nq) in idle {
                let Some(nq) = nq else {
                    return Err(Refusal::Unsupported {
                        what: "turns: a waiting role without an idle move".to_string(),
                    });
                };
                let found = move_term(&marked.shapes, &Term::Const(roles[q]), nq)
                    .and_then(|t| presence(&t));
                let Some((root_pred, pres, coords)) = found else {
                    return Err(Refusal::Unsupported {
                        what: "turns: an idle move no state allows".to_string(),
                    });
                };
                let name = format!("n{q}");
                lhs.push(tuple(&root_pred, &name));
                for c in coords {
                    lhs.push(tuple(&c, &name));
                }
                marks.push(tuple(&pres, &name));
                elements.push(name);
            }
            let mut rhs = lhs.clone();
            rhs.extend(marks);
            let rule = rule(name.clone(), &elements, lhs, rhs, Vec::new(), pre.clone());
            built.moves.insert(rule.name.clone(), m.clone());
            names.push((mover, rule.name.clone()));
            built.rules.push(rule);
        }
        made.insert(turn, names);
    }
    for s in &steps {
        built.rules.push(s.rule.clone());
        built.rules.push(s.skip.clone());
    }
    // Per turn: the move location, then one location per update ply.
    let n = cycle.len();
    for (i, &turn) in cycle.iter().enumerate() {
        let first = i * per_turn;
        let next_turn = ((i + 1) % n) * per_turn;
        let mut labels = vec![Vec::new(); roles.len()];
        for (p, r) in &made[&turn] {
            labels[*p].push(label(r, Multiplicity::One, first + 1));
        }
        built.labels.push(labels);
        // The update plies are the mover's (the first role's after a
        // joint move): they continue its turn.
        let mover = turn.unwrap_or(0);
        for (k, s) in steps.iter().enumerate() {
            let to = if k + 1 == steps.len() {
                next_turn
            } else {
                first + 2 + k
            };
            let mut labels = vec![Vec::new(); roles.len()];
            labels[mover] = vec![
                label(&s.rule.name, Multiplicity::All, to),
                label(&s.skip.name, Multiplicity::One, to),
            ];
            built.labels.push(labels);
        }
    }
    tr.defined.extend(defined);
    Ok(built)
}

fn label(rule: &str, multiplicity: Multiplicity, to: usize) -> Label {
    Label {
        rule: rule.to_string(),
        time: None,
        params: Vec::new(),
        multiplicity,
        targets: vec![Target {
            location: to,
            probability: None,
            draws: Vec::new(),
        }],
    }
}
