//! Structure rewriting rules and locations (spec 5.2.4, 5.2.5, 5.2.7), for
//! turn-based games.
//!
//! **Turns.** As in the spec, turn-taking is detected on seeded random
//! playouts of the reasoner: in every state at most one role has a choice
//! and every other role has one legal move, a constant (its `noop`); the
//! roles with a choice must follow a fixed cycle, which becomes a cycle of
//! locations. Games with concurrent moves are refused for now.
//!
//! **Rules.** For the mover of a location and each of its `legal` clauses
//! (move term `l`), the relevant `next` clauses are those whose `does`
//! atoms match `l` for the mover and the `noop` of every other role. The
//! heads of the relevant non-frame clauses, with the fluent path masked,
//! name the *changed elements*: the left side of the rule, matched by
//! their root and coordinates. For each changed element and each value at
//! its fluent path, the condition that the next state has that value there
//! is the disjunction of the bodies of the relevant clauses (frame clauses
//! included) whose head can be that term. The rule is split into one rule
//! per combination of outcomes (a value, or none), each with the
//! conditions that select exactly that outcome in its precondition; its
//! right side sets the changed elements' fluents to the outcome (all
//! fluent predicates are matched with `emb`, and the left side lists them
//! as optional, so whatever the element had is replaced). Variables of `l`
//! that no changed element carries are eliminated: one rule per value.
//! Every rule's precondition has the translated `legal` body and `not
//! terminal`.
//!
//! **What is assumed.** Elements other than the changed ones keep their
//! fluents: the relevant frame clauses are taken to copy them (the spec's
//! erasure clauses make the same assumption). A clause whose changed
//! element is determined by the state rather than by the move (Connect
//! Four's lowest empty cell) is assumed to determine one element. Both are
//! checked by the tests in lockstep with the reasoner, not proved.

use std::collections::HashMap;

use toss_core::game::{Game, index_below, rng_from_seed};
use toss_core::ir::{self, Formula, Label, Multiplicity, RuleSide, RuleTuple, Target};

use crate::{Description, GdlGame, Literal, Sym, Term};

use super::Refusal;
use super::elements::{Elements, HOLE, Path, at, leaf_paths, place, root};
use super::formulas::{Carrier, Formulas, and, map_lit, not, or, shift};

/// The turn structure: the cycle of movers and every role's `noop`.
pub(super) struct Turns {
    pub cycle: Vec<usize>,
    pub noop: Vec<Option<Term>>,
    /// The states seen, as their fluents in KIF.
    pub states: Vec<Vec<String>>,
    /// Per location: whether its mover was seen with its idle move legal.
    pub idle_at_turn: Vec<bool>,
}

/// Seeded random playouts on which turn-taking is read.
const TURN_PLAYOUTS: u64 = 20;
const TURN_STEPS: usize = 300;

/// Reads the turn structure off seeded playouts of the reasoner.
pub(super) fn detect_turns(
    game: &GdlGame,
    desc: &Description,
    roles: &[Sym],
) -> Result<Turns, Refusal> {
    let n = roles.len();
    let mut noop: Vec<Option<String>> = vec![None; n];
    // Observations: (step, mover) along each playout.
    let mut seen: Vec<Vec<Option<usize>>> = Vec::new();
    let mut states: Vec<Vec<String>> = Vec::new();
    // Per playout and step: each role's legal moves.
    let mut legal_seen: Vec<Vec<Vec<Vec<String>>>> = Vec::new();
    for seed in 0..TURN_PLAYOUTS {
        let mut rng = rng_from_seed(seed);
        let mut s = game.initial_state();
        let mut movers = Vec::new();
        let mut legals = Vec::new();
        for _ in 0..TURN_STEPS {
            states.push(s.0.iter().map(|&f| game.term_to_string(f)).collect());
            if game.is_terminal(&s) {
                break;
            }
            let mut joint = Vec::new();
            let mut choosers = Vec::new();
            let mut step_legal = Vec::new();
            for (p, idle) in noop.iter_mut().enumerate() {
                let mut ms = Vec::new();
                game.legal_moves(&s, p, &mut ms);
                if ms.is_empty() {
                    break;
                }
                let texts: Vec<String> = ms.iter().map(|m| game.term_to_string(m.0)).collect();
                step_legal.push(texts.clone());
                if texts.len() == 1 && !texts[0].starts_with('(') {
                    // The first idle move seen is the role's `noop`.
                    if idle.is_none() {
                        *idle = Some(texts[0].clone());
                    }
                } else {
                    choosers.push(p);
                }
                joint.push(ms[index_below(&mut rng, ms.len())]);
            }
            if joint.len() < n {
                break;
            }
            if choosers.len() > 1 {
                return Err(Refusal::Unsupported {
                    what: "simultaneous moves (two roles with a choice in one state)".to_string(),
                });
            }
            movers.push(choosers.first().copied());
            legals.push(step_legal);
            game.apply(&mut s, &joint, &mut rng);
        }
        seen.push(movers);
        legal_seen.push(legals);
    }
    // The shortest cycle consistent with every observation.
    'k: for k in 1..=2 * n.max(1) {
        let mut cycle: Vec<Option<usize>> = vec![None; k];
        for play in &seen {
            for (t, m) in play.iter().enumerate() {
                if let Some(m) = m {
                    match cycle[t % k] {
                        None => cycle[t % k] = Some(*m),
                        Some(c) if c == *m => {}
                        Some(_) => continue 'k,
                    }
                }
            }
        }
        if cycle.iter().any(Option::is_none) {
            continue;
        }
        let cycle: Vec<usize> = cycle.into_iter().map(|c| c.expect("checked")).collect();
        // Roles that are not the mover somewhere need their noop.
        let noop: Vec<Option<Term>> = noop
            .iter()
            .map(|t| t.as_ref().and_then(|t| desc.symbol(t).map(Term::Const)))
            .collect();
        for (i, &m) in cycle.iter().enumerate() {
            for (q, nq) in noop.iter().enumerate() {
                if q != m && nq.is_none() {
                    return Err(Refusal::Unsupported {
                        what: format!(
                            "turns: in location {i} role {} waits but has no idle move",
                            desc.symbols[roles[q] as usize]
                        ),
                    });
                }
            }
        }
        let mut idle_at_turn = vec![false; k];
        for play in &legal_seen {
            for (t, step) in play.iter().enumerate() {
                let m = cycle[t % k];
                if let (Some(moves), Some(Term::Const(c))) = (step.get(m), &noop[m]) {
                    let name = &desc.symbols[*c as usize];
                    if moves.iter().any(|x| x.eq_ignore_ascii_case(name)) {
                        idle_at_turn[t % k] = true;
                    }
                }
            }
        }
        return Ok(Turns {
            cycle,
            noop,
            states,
            idle_at_turn,
        });
    }
    Err(Refusal::Unsupported {
        what: "turns that follow no fixed cycle of movers".to_string(),
    })
}

/// How a rule's GDL move is read off a match: the move term with the
/// variables of the changed elements' coordinates.
#[derive(Clone, Debug)]
pub(super) struct MoveOf {
    pub role: usize,
    pub term: Term,
    /// Variable of `term` -> (index of the left element, coordinate path).
    pub from: Vec<(u32, usize, Path)>,
    /// When the move is the first left element's move term
    /// ([`super::markers`]): its functor (or constant) and arity.
    pub element: Option<(Sym, usize)>,
}

/// One-sided matching for `does`: binds the clause's own variables (ids
/// at least `own`) to terms of `l`; where `l` has a variable against
/// structure, or a shared variable meets a term, an equality condition.
fn match_onto(
    d: &Term,
    l: &Term,
    own: u32,
    bind: &mut HashMap<u32, Term>,
    eqs: &mut Vec<(Term, Term)>,
) -> Result<bool, Refusal> {
    match (d, l) {
        (Term::Var(v), _) if *v >= own => match bind.get(v) {
            Some(b) => {
                eqs.push((b.clone(), l.clone()));
                Ok(true)
            }
            None => {
                bind.insert(*v, l.clone());
                Ok(true)
            }
        },
        (_, Term::Var(_)) | (Term::Var(_), _) => {
            let mut vs = Vec::new();
            d.vars(&mut vs);
            if vs.iter().any(|&v| v >= own) {
                return Err(Refusal::Unsupported {
                    what: "a `does` pattern more specific than its `legal` move".to_string(),
                });
            }
            eqs.push((d.clone(), l.clone()));
            Ok(true)
        }
        (Term::Const(a), Term::Const(b)) => Ok(a == b),
        (Term::Fn(f, xs), Term::Fn(g, ys)) => {
            if f != g || xs.len() != ys.len() {
                return Ok(false);
            }
            for (x, y) in xs.iter().zip(ys) {
                if !match_onto(x, y, own, bind, eqs)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// The positions where `d` and `t` may differ, as pairs of subterms, when
/// they can be equal at all (`None`: they never are; empty: always).
fn disequalities(d: &Term, t: &Term) -> Option<Vec<(Term, Term)>> {
    match (d, t) {
        _ if d == t => Some(Vec::new()),
        (Term::Var(_), _) | (_, Term::Var(_)) => Some(vec![(d.clone(), t.clone())]),
        (Term::Fn(f, xs), Term::Fn(g, ys)) if f == g && xs.len() == ys.len() => {
            let mut out = Vec::new();
            for (x, y) in xs.iter().zip(ys) {
                out.extend(disequalities(x, y)?);
            }
            Some(out)
        }
        _ => None,
    }
}

fn shift_lit(l: &Literal, by: u32) -> Literal {
    map_lit(l, |t| shift(t, by))
}

fn subst_lit(l: &Literal, b: &HashMap<u32, Term>) -> Literal {
    map_lit(l, |t| super::formulas::apply(t, b))
}

/// The variables of clause `n` (shifted by `by`) that occur once, inside
/// a negated `does`: the positions the negation leaves open.
fn local_vars(n: &crate::Rule, by: u32, does: crate::Sym) -> Vec<u32> {
    let mut all = Vec::new();
    n.head.args.iter().for_each(|t| t.vars(&mut all));
    n.body.iter().for_each(|x| x.vars(&mut all));
    let mut out = Vec::new();
    for l in &n.body {
        if let Literal::Neg(a) = l
            && a.rel == does
        {
            let mut vs = Vec::new();
            l.vars(&mut vs);
            for v in vs {
                if all.iter().filter(|&&w| w == v).count() == 1 {
                    out.push(v + by);
                }
            }
        }
    }
    out
}

/// `t` with a fresh variable (from `next` on) at every leaf but the
/// root's symbol and the fluent path's hole.
fn fresh_vars(t: &Term, next: &mut u32) -> Term {
    fn leaf(t: &Term, next: &mut u32) -> Term {
        match t {
            Term::Fn(f, a) => Term::Fn(*f, a.iter().map(|x| leaf(x, next)).collect()),
            Term::Const(HOLE) => t.clone(),
            _ => {
                let v = Term::Var(*next);
                *next += 1;
                v
            }
        }
    }
    match t {
        Term::Fn(f, a) => Term::Fn(*f, a.iter().map(|x| leaf(x, next)).collect()),
        t => t.clone(),
    }
}

/// A relevant `next` clause for one rule: head and body with the `does`
/// atoms resolved.
struct Relevant {
    head: Term,
    body: Vec<Literal>,
    frame: bool,
}

/// The constraints that the element `name` matches the masked state term
/// `m` (of root `ri`): its root and constant coordinates; a variable met
/// first is carried by it, one met before is an equality of coordinates.
fn pin(
    tr: &mut Formulas<'_>,
    els: &Elements,
    m: &Term,
    ri: usize,
    name: &str,
    carriers: &mut HashMap<u32, Carrier>,
) -> Result<Vec<Formula>, Refusal> {
    let mut out = vec![Formula::Rel {
        name: els.roots[ri].root_pred.clone(),
        args: vec![name.to_string()],
    }];
    for q in leaf_paths(m) {
        if q.is_empty() {
            continue;
        }
        match at(m, &q).expect("a leaf") {
            Term::Const(HOLE) => {}
            Term::Var(v) => {
                if let Some(first) = carriers.get(v).cloned() {
                    out.push(tr.equality_of(&first, &(name.to_string(), q.clone()))?);
                } else {
                    carriers.insert(*v, (name.to_string(), q.clone()));
                }
            }
            c => match els.coord.get(&(q.clone(), c.clone())) {
                Some((pred, _)) => out.push(Formula::Rel {
                    name: pred.clone(),
                    args: vec![name.to_string()],
                }),
                None => out.push(Formula::False),
            },
        }
    }
    Ok(out)
}

/// Most (move, element) pairs the frame check looks at for one clause.
const MAX_FRAME_CHECKS: usize = 20_000_000;

/// Checks what the rules assume: every element that is not a changed
/// element keeps its fluents. For each possible move (the aggregate
/// playout's instances of the `legal` clause), each element the move does
/// not name and each of its values, some relevant frame clause must copy
/// it, decided on the static relations alone. A loss, a frame condition
/// that reads the state, and a root that no frame clause copies are
/// refused: the rule could not express the move's effect. The `cleared`
/// roots are changed by a picked element of their own, not kept.
#[allow(clippy::too_many_arguments)]
fn check_frames(
    tr: &mut Formulas<'_>,
    els: &Elements,
    relevant: &[Relevant],
    targets: &[(Term, usize)],
    cleared: &[usize],
    l: &Term,
    ci: usize,
    kw: &Keywords,
) -> Result<(), Refusal> {
    let frames: Vec<&Relevant> = relevant.iter().filter(|r| r.frame).collect();
    for ri in (0..els.roots.len()).filter(|ri| !cleared.contains(ri)) {
        let always = |e: &super::elements::Element| {
            targets
                .iter()
                .any(|(m, r)| *r == ri && m.is_ground() && *m == e.key)
        };
        if !els.elements.iter().any(|e| e.root == ri && !always(e)) {
            continue;
        }
        let mine: Vec<&&Relevant> = frames
            .iter()
            .filter(|f| root(&f.head).and_then(|rk| els.root_of.get(&rk)) == Some(&ri))
            .collect();
        if mine.is_empty() {
            return Err(Refusal::Unsupported {
                what: format!(
                    "a move that no frame clause copies the fluents of `{}` through",
                    tr.desc.symbols[els.roots[ri].sym as usize]
                ),
            });
        }
        let mut lvars = Vec::new();
        l.vars(&mut lvars);
        lvars.sort_unstable();
        lvars.dedup();
        let moves = tr.move_combinations(ci, &lvars)?;
        if moves.len().saturating_mul(els.elements.len()) > MAX_FRAME_CHECKS {
            return Err(Refusal::SizeLimit {
                what: format!("more than {MAX_FRAME_CHECKS} (move, element) pairs to check"),
            });
        }
        let info = &els.roots[ri];
        let mut unknown = false;
        'moves: for m in &moves {
            let mut mb: HashMap<u32, Term> = HashMap::new();
            for (v, t) in lvars.iter().zip(m) {
                mb.insert(*v, t.clone());
            }
            let named: Vec<Term> = targets
                .iter()
                .map(|(t, _)| super::formulas::apply(t, &mb))
                .collect();
            for e in els.elements.iter().filter(|e| e.root == ri) {
                if named.contains(&e.key) {
                    continue;
                }
                let values: Vec<Term> = match &info.fluent {
                    Some(p) => info.values.keys().map(|v| place(&e.key, p, v)).collect(),
                    None => vec![e.key.clone()],
                };
                for term in values {
                    // Kept (some frame clause copies it), lost (none can),
                    // or unknown (a condition reads the state).
                    let mut kept = false;
                    let mut maybe = false;
                    for f in &mine {
                        let head = super::formulas::apply(&f.head, &mb);
                        let mut b = mb.clone();
                        if !super::formulas::match_term(&head, &term, &mut b) {
                            continue;
                        }
                        let mut all = Some(true);
                        for lit in f.body.iter().filter(|x| {
                            !matches!(x, Literal::Pos(a) if a.rel == kw.true_ && a.args.len() == 1 && a.args[0] == f.head)
                        }) {
                            match tr.static_holds(lit, &b) {
                                Some(true) => {}
                                Some(false) => {
                                    all = Some(false);
                                    break;
                                }
                                None => all = None,
                            }
                        }
                        match all {
                            Some(true) => {
                                kept = true;
                                break;
                            }
                            None => maybe = true,
                            Some(false) => {}
                        }
                    }
                    if kept {
                        continue;
                    }
                    if maybe {
                        unknown = true;
                        break 'moves;
                    }
                    return Err(Refusal::Unsupported {
                        what: format!(
                            "a move that changes an element it does not name ({})",
                            tr.desc.term_to_string(&term, &[])
                        ),
                    });
                }
            }
        }
        if unknown {
            return Err(Refusal::Unsupported {
                what: format!(
                    "a frame clause of `{}` whose condition reads the state",
                    tr.desc.symbols[els.roots[ri].sym as usize]
                ),
            });
        }
    }
    Ok(())
}

/// Most rules one `legal` clause (for one value of its eliminated
/// variables) may become.
const MAX_VARIANTS: usize = 256;

/// Most combinations of outcomes looked at for one `legal` clause (for one
/// value of its eliminated variables).
const MAX_COMBINATIONS: usize = 65_536;

/// The keyword symbols the rules need.
pub(super) struct Keywords {
    pub legal: Sym,
    pub next: Sym,
    pub does: Sym,
    pub true_: Sym,
}

/// What the rules of a game are made of.
pub(super) struct Built {
    pub rules: Vec<ir::Rule>,
    pub moves: HashMap<String, MoveOf>,
    /// Per location and role: its labels.
    pub labels: Vec<Vec<Vec<Label>>>,
    /// Unary relations the rules use besides the fluents (declared empty).
    pub marks: Vec<String>,
}

/// Builds the rules and labels of every location. `translating` is set to the
/// `legal` clause being translated, to locate a refusal.
#[allow(clippy::too_many_arguments)]
pub(super) fn build(
    tr: &mut Formulas<'_>,
    desc: &Description,
    els: &Elements,
    roles: &[Sym],
    turns: &Turns,
    kw: &Keywords,
    terminal: Option<&str>,
    single: &[bool],
    sole: &[bool],
    translating: &mut Option<usize>,
) -> Result<Built, Refusal> {
    let mut built = Built {
        rules: Vec::new(),
        moves: HashMap::new(),
        labels: vec![vec![Vec::new(); roles.len()]; turns.cycle.len()],
        marks: Vec::new(),
    };
    let next_rules: Vec<usize> = (0..desc.rules.len())
        .filter(|&i| desc.rules[i].head.rel == kw.next && desc.rules[i].head.args.len() == 1)
        .collect();
    for (loc, &mover) in turns.cycle.iter().enumerate() {
        let target_loc = (loc + 1) % turns.cycle.len();
        for (ci, c) in desc.rules.iter().enumerate() {
            if c.head.rel != kw.legal
                || c.head.args.len() != 2
                || c.head.args[0] != Term::Const(roles[mover])
            {
                continue;
            }
            *translating = Some(ci);
            let l = c.head.args[1].clone();
            // The mover's idle move, never seen legal at its own turn, is
            // the `noop` of the other locations: no rule here.
            if Some(&l) == turns.noop[mover].as_ref() && !turns.idle_at_turn[loc] {
                continue;
            }
            let mut cvars = Vec::new();
            c.head.args.iter().for_each(|t| t.vars(&mut cvars));
            c.body.iter().for_each(|x| x.vars(&mut cvars));
            let own = cvars
                .iter()
                .max()
                .map_or(0, |m| m + 1)
                .max(c.var_names.len() as u32);
            // The relevant next clauses, renamed apart.
            let mut relevant: Vec<Relevant> = Vec::new();
            let mut offset = own;
            for &ni in &next_rules {
                let n = &desc.rules[ni];
                let by = offset;
                let mut nv = Vec::new();
                n.head.args.iter().for_each(|t| t.vars(&mut nv));
                n.body.iter().for_each(|x| x.vars(&mut nv));
                offset += nv
                    .iter()
                    .max()
                    .map_or(0, |m| m + 1)
                    .max(n.var_names.len() as u32);
                let mut bind = HashMap::new();
                let mut eqs = Vec::new();
                let mut ok = true;
                let mut body = Vec::new();
                // `(not (does r d))`: d against the move, as disequalities.
                let mut negated: Vec<(Term, Term)> = Vec::new();
                for lit in &n.body {
                    let lit = shift_lit(lit, by);
                    match &lit {
                        Literal::Pos(a) if a.rel == kw.does && a.args.len() == 2 => {
                            let Term::Const(q) = a.args[0] else {
                                return Err(Refusal::Unsupported {
                                    what: "`does` of a role that is not a constant".to_string(),
                                });
                            };
                            let Some(qi) = roles.iter().position(|&r| r == q) else {
                                ok = false;
                                break;
                            };
                            let against = if qi == mover {
                                l.clone()
                            } else {
                                match &turns.noop[qi] {
                                    Some(t) => t.clone(),
                                    None => {
                                        ok = false;
                                        break;
                                    }
                                }
                            };
                            if !match_onto(&a.args[1], &against, by, &mut bind, &mut eqs)? {
                                ok = false;
                                break;
                            }
                        }
                        Literal::Neg(a) if a.rel == kw.does && a.args.len() == 2 => {
                            let Term::Const(q) = a.args[0] else {
                                return Err(Refusal::Unsupported {
                                    what: "`does` of a role that is not a constant".to_string(),
                                });
                            };
                            let Some(qi) = roles.iter().position(|&r| r == q) else {
                                continue;
                            };
                            let against = if qi == mover {
                                l.clone()
                            } else {
                                match &turns.noop[qi] {
                                    Some(t) => t.clone(),
                                    None => continue,
                                }
                            };
                            negated.push((a.args[1].clone(), against));
                        }
                        _ => body.push(lit),
                    }
                }
                if !ok {
                    continue;
                }
                let head = super::formulas::apply(&shift(&n.head.args[0], by), &bind);
                let mut body: Vec<Literal> = body.iter().map(|x| subst_lit(x, &bind)).collect();
                for (a, b) in eqs {
                    body.push(Literal::Equal(
                        super::formulas::apply(&a, &bind),
                        super::formulas::apply(&b, &bind),
                    ));
                }
                // Each negated `does` is a disjunction of disequalities
                // between the pattern and the move: one clause per choice.
                let mut variants: Vec<Vec<Literal>> = vec![body];
                let mut dead = false;
                let local = local_vars(n, by, kw.does);
                for (d, against) in &negated {
                    let d = super::formulas::apply(d, &bind);
                    // A position of the pattern that is a variable of its
                    // own (from an inlined relation, `(not (affected ?x
                    // ?y))`) matches any value: never where they differ.
                    let pairs = match disequalities(&d, against) {
                        None => None,
                        Some(pairs) => {
                            let mut kept = Vec::new();
                            for (x, y) in pairs {
                                if matches!(x, Term::Var(v) if local.contains(&v)) {
                                    continue;
                                }
                                let mut vs = Vec::new();
                                x.vars(&mut vs);
                                y.vars(&mut vs);
                                if vs.iter().any(|v| local.contains(v)) {
                                    return Err(Refusal::Unsupported {
                                        what: "a negated `does` whose own variable is inside a \
                                               subterm"
                                            .to_string(),
                                    });
                                }
                                kept.push((x, y));
                            }
                            Some(kept)
                        }
                    };
                    match pairs {
                        None => {}
                        Some(pairs) if pairs.is_empty() => {
                            dead = true;
                            break;
                        }
                        Some(pairs) => {
                            variants = variants
                                .iter()
                                .flat_map(|v| {
                                    pairs.iter().map(move |(x, y)| {
                                        let mut v = v.clone();
                                        v.push(Literal::Distinct(x.clone(), y.clone()));
                                        v
                                    })
                                })
                                .collect();
                        }
                    }
                }
                if dead {
                    continue;
                }
                for body in variants {
                    let frame = body.iter().any(|x| {
                        matches!(x, Literal::Pos(a) if a.rel == kw.true_ && a.args.len() == 1 && a.args[0] == head)
                    });
                    relevant.push(Relevant {
                        head: head.clone(),
                        body,
                        frame,
                    });
                }
            }
            // The changed elements: masked heads of non-frame clauses. One
            // whose coordinates the move does not fix is the element its
            // clause picks: that clause's body joins the precondition.
            let mut targets: Vec<(Term, usize)> = Vec::new();
            let mut picked: Vec<(Term, usize, &[Literal])> = Vec::new();
            let mut lv = Vec::new();
            l.vars(&mut lv);
            for r in relevant.iter().filter(|r| !r.frame) {
                let Some(&ri) = root(&r.head).and_then(|rk| els.root_of.get(&rk)) else {
                    continue;
                };
                let masked = match &els.roots[ri].fluent {
                    Some(p) => {
                        if at(&r.head, p).is_none() {
                            continue;
                        }
                        place(&r.head, p, &Term::Const(HOLE))
                    }
                    None => r.head.clone(),
                };
                let mut vs = Vec::new();
                masked.vars(&mut vs);
                if vs.iter().any(|v| !lv.contains(v)) {
                    // A picked element is one, found by the state; a clause
                    // that reads no state may change several at once.
                    let reads_state = r.body.iter().any(|x| tr.reads_state(x));
                    if !reads_state {
                        return Err(Refusal::Unsupported {
                            what: "a `next` clause that changes elements neither the move nor \
                                   the state names"
                                .to_string(),
                        });
                    }
                    picked.push((masked, ri, &r.body));
                } else if !targets.iter().any(|(m, _)| *m == masked) {
                    targets.push((masked, ri));
                }
            }
            // Elements the legal body reads at coordinates the move fixes
            // (the piece's square of a move): their fluents may be erased
            // by a frame clause that stops copying them, so they are
            // changed elements too (the spec's erasure clauses).
            let mut mvars = Vec::new();
            l.vars(&mut mvars);
            for lit in &c.body {
                let Literal::Pos(a) = lit else { continue };
                if a.rel != kw.true_ || a.args.len() != 1 {
                    continue;
                }
                let s = &a.args[0];
                let Some(&ri) = root(s).and_then(|rk| els.root_of.get(&rk)) else {
                    continue;
                };
                let masked = match &els.roots[ri].fluent {
                    Some(p) => {
                        if at(s, p).is_none() {
                            continue;
                        }
                        place(s, p, &Term::Const(HOLE))
                    }
                    None => s.clone(),
                };
                let mut vs = Vec::new();
                masked.vars(&mut vs);
                if vs.iter().all(|v| mvars.contains(v))
                    && !targets.iter().any(|(m, _)| *m == masked)
                {
                    targets.push((masked, ri));
                }
            }
            // A root that no relevant frame clause copies loses the
            // fluents of every element the move does not name. Where the
            // sampled plays show at most one element of the root holding a
            // fluent, that element is picked by the state (any fluent on
            // it) and changed like the others: its outcome is what the
            // `next` clauses give it, usually nothing.
            let mut fresh = offset;
            let mut cleared: Vec<usize> = Vec::new();
            let mut clear_bodies: Vec<(Term, usize, Vec<Literal>)> = Vec::new();
            for (ri, info) in els.roots.iter().enumerate() {
                let copied = relevant.iter().any(|r| {
                    r.frame && root(&r.head).and_then(|rk| els.root_of.get(&rk)) == Some(&ri)
                });
                let named = |e: &super::elements::Element| {
                    targets
                        .iter()
                        .any(|(m, r)| *r == ri && m.is_ground() && *m == e.key)
                };
                if copied || !sole[ri] || !els.elements.iter().any(|e| e.root == ri && !named(e)) {
                    continue;
                }
                let Some(e0) = els.elements.iter().find(|e| e.root == ri) else {
                    continue;
                };
                // The element's pattern: its key with a fresh variable at
                // every coordinate; the state term adds one at the value.
                let pattern = fresh_vars(&e0.key, &mut fresh);
                let state = match &info.fluent {
                    Some(p) => {
                        let v = Term::Var(fresh);
                        fresh += 1;
                        place(&pattern, p, &v)
                    }
                    None => pattern.clone(),
                };
                cleared.push(ri);
                clear_bodies.push((
                    pattern,
                    ri,
                    vec![Literal::Pos(crate::Atom {
                        rel: kw.true_,
                        args: vec![state],
                    })],
                ));
            }
            for (m, ri, body) in &clear_bodies {
                picked.push((m.clone(), *ri, body));
            }
            if picked.len() > 4 {
                return Err(Refusal::SizeLimit {
                    what: "a move with more than 4 elements picked by the state".to_string(),
                });
            }
            check_frames(tr, els, &relevant, &targets, &cleared, &l, ci, kw)?;
            let fixed_targets = targets;
            for mask in 0..(1usize << picked.len()) {
                let mut targets = fixed_targets.clone();
                let mut included = Vec::new();
                let mut excluded = Vec::new();
                for (i, (m, ri, body)) in picked.iter().enumerate() {
                    if mask & (1 << i) != 0 {
                        targets.push((m.clone(), *ri));
                        included.push((m.clone(), *ri, *body));
                    } else {
                        excluded.push((m.clone(), *ri, *body));
                    }
                }
                // Carriers of the target coordinates, and the constraints that
                // pin each left element to its pattern.
                let mut carriers: HashMap<u32, Carrier> = HashMap::new();
                let lhs_names: Vec<String> =
                    (0..targets.len()).map(|k| format!("a{}", k + 1)).collect();
                let mut pin_formulas: Vec<Formula> = Vec::new();
                for (k, (m, ri)) in targets.iter().enumerate() {
                    pin_formulas.extend(pin(tr, els, m, *ri, &lhs_names[k], &mut carriers)?);
                }
                // Variables of the move term that no changed element carries
                // are eliminated: one rule per value.
                let mut lvars = Vec::new();
                l.vars(&mut lvars);
                lvars.sort_unstable();
                lvars.dedup();
                let free: Vec<u32> = lvars
                    .iter()
                    .copied()
                    .filter(|v| !carriers.contains_key(v))
                    .collect();
                let combos = tr.move_combinations(ci, &free)?;
                for combo in combos {
                    let mut b: HashMap<u32, Term> = HashMap::new();
                    for (v, t) in free.iter().zip(&combo) {
                        b.insert(*v, t.clone());
                    }
                    tr.known = targets
                        .iter()
                        .zip(&lhs_names)
                        .map(|((m, _), n)| (super::formulas::apply(m, &b), n.clone()))
                        .collect();
                    let mut legal = tr.body_formula(&c.body, &b, &carriers)?;
                    for (_, _, body) in &included {
                        legal = and(vec![legal, tr.body_formula(body, &b, &carriers)?]);
                    }
                    // A picking clause left out fires for no other element.
                    for (m, ri, body) in &excluded {
                        let mut c2 = carriers.clone();
                        let mut parts = pin(tr, els, m, *ri, "e", &mut c2)?;
                        parts.push(tr.body_formula(body, &b, &c2)?);
                        for (k, (_, rj)) in targets.iter().enumerate() {
                            if rj == ri {
                                parts.push(not(Formula::Eq("e".to_string(), lhs_names[k].clone())));
                            }
                        }
                        legal = and(vec![
                            legal,
                            not(Formula::Exists {
                                vars: vec![toss_core::ir::Var::Element("e".to_string())],
                                body: Box::new(and(parts)),
                            }),
                        ]);
                    }
                    if legal == Formula::False {
                        continue;
                    }
                    // Outcome conditions per changed element and value.
                    let mut outcomes: Vec<Vec<(Option<String>, Formula)>> = Vec::new();
                    for (m, ri) in &targets {
                        let info = &els.roots[*ri];
                        let values: Vec<(Term, Option<String>, String)> = match &info.fluent {
                            Some(p) => info
                                .values
                                .values()
                                .map(|(v, pred)| (place(m, p, v), Some(pred.clone()), pred.clone()))
                                .collect(),
                            None => vec![(
                                m.clone(),
                                info.presence.clone(),
                                info.presence.clone().expect("a presence"),
                            )],
                        };
                        let mut conds: Vec<(Option<String>, Formula)> = Vec::new();
                        for (term, pred, _) in &values {
                            let mut parts = Vec::new();
                            for r in &relevant {
                                let mut bind = HashMap::new();
                                let mut eqs = Vec::new();
                                // The clause's own variables are those not in
                                // the legal clause (ids >= own).
                                if !match_onto(&r.head, term, own, &mut bind, &mut eqs)? {
                                    continue;
                                }
                                let mut body: Vec<Literal> =
                                    r.body.iter().map(|x| subst_lit(x, &bind)).collect();
                                for (x, y) in eqs {
                                    body.push(Literal::Equal(x, y));
                                }
                                parts.push(tr.body_formula(&body, &b, &carriers)?);
                            }
                            conds.push((pred.clone(), or(parts)));
                        }
                        outcomes.push(conds);
                    }
                    // One rule per combination of outcomes. An element of a
                    // root seen with one value at a time gets one value or
                    // none; otherwise each value is had or not,
                    // independently.
                    let mut choices: Vec<Vec<(Option<String>, Formula)>> = Vec::new();
                    let mut choice_target: Vec<usize> = Vec::new();
                    for (k, conds) in outcomes.iter().enumerate() {
                        if single[targets[k].1] {
                            let mut opts = Vec::new();
                            let any_true = conds.iter().any(|(_, f)| *f == Formula::True);
                            for (i, (pred, f)) in conds.iter().enumerate() {
                                if *f == Formula::False {
                                    continue;
                                }
                                let mut parts = vec![f.clone()];
                                for (j, (_, g)) in conds.iter().enumerate() {
                                    if j != i {
                                        parts.push(not(g.clone()));
                                    }
                                }
                                let f = and(parts);
                                if f != Formula::False {
                                    opts.push((pred.clone(), f));
                                }
                            }
                            if !any_true {
                                let none = and(conds.iter().map(|(_, g)| not(g.clone())).collect());
                                if none != Formula::False {
                                    opts.push((None, none));
                                }
                            }
                            choices.push(opts);
                            choice_target.push(k);
                            continue;
                        }
                        for (pred, f) in conds {
                            let mut opts = Vec::new();
                            if *f != Formula::False {
                                opts.push((pred.clone(), f.clone()));
                            }
                            if *f != Formula::True {
                                opts.push((None, not(f.clone())));
                            }
                            choices.push(opts);
                            choice_target.push(k);
                        }
                    }
                    // Combinations whose precondition is plainly false (a
                    // fluent both had and not) are dropped as they are met.
                    let count = choices
                        .iter()
                        .try_fold(1usize, |n, c| n.checked_mul(c.len()))
                        .unwrap_or(usize::MAX);
                    if count > MAX_COMBINATIONS {
                        return Err(Refusal::SizeLimit {
                            what: format!(
                                "a legal clause with more than {MAX_COMBINATIONS} outcome combinations"
                            ),
                        });
                    }
                    let mut made = 0usize;
                    let mut idx = vec![0usize; choices.len()];
                    if choices.iter().any(Vec::is_empty) {
                        continue;
                    }
                    loop {
                        let mut pre = vec![legal.clone()];
                        pre.extend(pin_formulas.iter().cloned());
                        if let Some(t) = terminal {
                            pre.push(not(Formula::Rel {
                                name: t.to_string(),
                                args: Vec::new(),
                            }));
                        }
                        let mut rhs_tuples = Vec::new();
                        for (k, opts) in choices.iter().enumerate() {
                            let (pred, f) = &opts[idx[k]];
                            pre.push(f.clone());
                            if let Some(p) = pred {
                                rhs_tuples.push(RuleTuple {
                                    relation: p.clone(),
                                    args: vec![lhs_names[choice_target[k]].clone()],
                                    optional: false,
                                });
                            }
                        }
                        let pre = and(pre);
                        if pre != Formula::False {
                            made += 1;
                            if made > MAX_VARIANTS {
                                return Err(Refusal::SizeLimit {
                                    what: format!(
                                        "a legal clause with more than {MAX_VARIANTS} outcome variants"
                                    ),
                                });
                            }
                            let mut lhs_tuples = Vec::new();
                            let mut emb: Vec<String> = Vec::new();
                            for (k, (_, ri)) in targets.iter().enumerate() {
                                let info = &els.roots[*ri];
                                for p in info
                                    .presence
                                    .iter()
                                    .chain(info.values.values().map(|(_, p)| p))
                                {
                                    lhs_tuples.push(RuleTuple {
                                        relation: p.clone(),
                                        args: vec![lhs_names[k].clone()],
                                        optional: true,
                                    });
                                    if !emb.contains(p) {
                                        emb.push(p.clone());
                                    }
                                }
                            }
                            if lhs_tuples.len() > 64 {
                                return Err(Refusal::SizeLimit {
                                    what: "a rule whose elements have more than 64 fluent values"
                                        .to_string(),
                                });
                            }
                            let rname = tr.name(
                                &format!("rule {loc} {ci} {mask} {combo:?} {idx:?}"),
                                &format!(
                                    "{}_{}",
                                    desc.symbols[roles[mover] as usize],
                                    built.rules.len()
                                ),
                            );
                            let term = super::formulas::apply(&l, &b);
                            let mut from = Vec::new();
                            let mut tv = Vec::new();
                            term.vars(&mut tv);
                            tv.sort_unstable();
                            tv.dedup();
                            for v in tv {
                                let (name, path) = &carriers[&v];
                                let k = lhs_names
                                    .iter()
                                    .position(|n| n == name)
                                    .expect("a left element");
                                from.push((v, k, path.clone()));
                            }
                            built.moves.insert(
                                rname.clone(),
                                MoveOf {
                                    role: mover,
                                    term,
                                    from,
                                    element: None,
                                },
                            );
                            built.rules.push(ir::Rule {
                                name: rname.clone(),
                                lhs: RuleSide {
                                    elements: lhs_names.clone(),
                                    tuples: lhs_tuples,
                                    functions: Vec::new(),
                                },
                                rhs: RuleSide {
                                    elements: lhs_names.clone(),
                                    tuples: rhs_tuples,
                                    functions: Vec::new(),
                                },
                                emb,
                                map: lhs_names.iter().map(|n| (n.clone(), n.clone())).collect(),
                                nondistinct: Vec::new(),
                                pre,
                                inv: Formula::True,
                                post: Formula::True,
                                update: Vec::new(),
                                dynamics: Vec::new(),
                            });
                            built.labels[loc][mover].push(Label {
                                rule: rname,
                                time: None,
                                params: Vec::new(),
                                multiplicity: Multiplicity::One,
                                targets: vec![Target {
                                    location: target_loc,
                                    probability: None,
                                    draws: Vec::new(),
                                }],
                            });
                        }
                        // Next combination.
                        let mut k = choices.len();
                        loop {
                            if k == 0 {
                                break;
                            }
                            k -= 1;
                            idx[k] += 1;
                            if idx[k] < choices[k].len() {
                                break;
                            }
                            idx[k] = 0;
                        }
                        if idx.iter().all(|&i| i == 0) {
                            break;
                        }
                    }
                }
            }
        }
    }
    tr.known.clear();
    Ok(built)
}
