//! The demand (magic-sets) transformation, restricted to the relations of
//! the state and move levels.
//!
//! Rules written for top-down provers often carry arguments that every
//! caller binds, such as the square a move ignores in
//! `(queenMoveIgnoring ?xIg ?yIg ?x1 ?y1 ?x2 ?y2)`; bottom-up evaluation
//! would derive such a relation for every value of those arguments. Here a
//! relation whose callers all bind some argument positions gets a demand
//! relation over those positions: each call site adds the values it asks
//! for (derived from the literals before the call, in the order the rule is
//! written, and from its own rule's demand), and each rule of the relation
//! reads its demand first. The relation is then derived only for the
//! values asked for in the current state, and is exact on them.
//!
//! Termination: a position counts as bound at a call site only if its term
//! is ground, a variable, or a function term whose variables are bound by
//! ordinary literals of the body, so demand values are terms of the
//! untransformed model or one function application over them: a finite set
//! whenever that model is finite. A relation is demanded only from literals
//! of its own level or below, so the levels of the relations do not change;
//! the caller checks this, and stratification, and keeps the untransformed
//! program when either fails.

use super::reasoner::{MOVE, STATE};
use super::{Atom, Description, Literal, Rule, Sym, Term};

/// The transformed description and the first demand symbol, or `None` when
/// no relation has an argument that all its callers bind.
pub(crate) fn transform(
    desc: &Description,
    level: &dyn Fn(Sym, usize) -> u8,
) -> Option<(Description, Sym)> {
    let keywords: Vec<Sym> = [
        "role", "init", "true", "next", "legal", "does", "goal", "terminal",
    ]
    .iter()
    .filter_map(|k| desc.symbol(k))
    .collect();
    // Candidate relations and their bound positions (bit sets), starting
    // from "all" and narrowed by every call site until nothing changes.
    let mut bound: Vec<((Sym, usize), u64, bool)> = Vec::new();
    for r in &desc.rules {
        let key = (r.head.rel, r.head.args.len());
        let l = level(key.0, key.1);
        if (l == STATE || l == MOVE)
            && key.1 > 0
            && key.1 <= 64
            && !keywords.contains(&key.0)
            && !bound.iter().any(|(k, _, _)| *k == key)
        {
            bound.push((key, full(key.1), false));
        }
    }
    if bound.is_empty() {
        return None;
    }
    loop {
        let mut changed = false;
        for r in &desc.rules {
            for site in call_sites(r, &bound, level) {
                let e = &mut bound[site.callee];
                e.2 = true;
                let nb = e.1 & site.positions;
                if nb != e.1 {
                    e.1 = nb;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Only relations that are called and have a bound position.
    for e in &mut bound {
        if !e.2 {
            e.1 = 0;
        }
    }
    if bound.iter().all(|e| e.1 == 0) {
        return None;
    }
    let mut out = desc.clone();
    let demand_from = out.symbols.len() as Sym;
    let mut demand_sym = vec![Sym::MAX; bound.len()];
    for (i, ((s, a), b, _)) in bound.iter().enumerate() {
        if *b != 0 {
            // A space never occurs in a KIF symbol, so the name is fresh.
            out.symbols
                .push(format!("demand {}/{a}", desc.symbols[*s as usize]));
            demand_sym[i] = out.symbols.len() as Sym - 1;
        }
    }
    let demand_atom = |i: usize, args: &[Term]| Atom {
        rel: demand_sym[i],
        args: args
            .iter()
            .enumerate()
            .filter(|(p, _)| bound[i].1 >> p & 1 == 1)
            .map(|(_, t)| t.clone())
            .collect(),
    };
    let mut rules = Vec::new();
    for r in &desc.rules {
        let mut nr = r.clone();
        if let Some(h) = find(&bound, &r.head)
            && bound[h].1 != 0
        {
            nr.body
                .insert(0, Literal::Pos(demand_atom(h, &r.head.args)));
        }
        rules.push(nr);
    }
    for r in &desc.rules {
        for site in call_sites(r, &bound, level) {
            let c = site.callee;
            if bound[c].1 == 0 {
                continue;
            }
            let (Literal::Pos(a) | Literal::Neg(a)) = &r.body[site.literal] else {
                continue;
            };
            let mut body = Vec::new();
            if site.head_demand {
                let h = find(&bound, &r.head).unwrap_or(0);
                body.push(Literal::Pos(demand_atom(h, &r.head.args)));
            }
            body.extend(site.uses.iter().map(|&j| r.body[j].clone()));
            let rule = Rule {
                head: demand_atom(c, &a.args),
                body,
                var_names: r.var_names.clone(),
            };
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
    }
    out.rules = rules;
    Some((out, demand_from))
}

type Candidates = [((Sym, usize), u64, bool)];

fn find(bound: &Candidates, a: &Atom) -> Option<usize> {
    bound
        .iter()
        .position(|(k, _, _)| *k == (a.rel, a.args.len()))
}

fn full(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// A call of a candidate relation in a rule body.
struct Site {
    /// Index of the callee among the candidates.
    callee: usize,
    /// Index of the literal in the body.
    literal: usize,
    /// Argument positions bound at the call.
    positions: u64,
    /// Whether the demand of the rule's own head binds variables.
    head_demand: bool,
    /// The positive body literals that bind the other variables.
    uses: Vec<usize>,
}

fn call_sites(r: &Rule, bound: &Candidates, level: &dyn Fn(Sym, usize) -> u8) -> Vec<Site> {
    let mut sites = Vec::new();
    let head_level = level(r.head.rel, r.head.args.len());
    let head_bits = find(bound, &r.head).map_or(0, |h| bound[h].1);
    for (j, l) in r.body.iter().enumerate() {
        let (Literal::Pos(a) | Literal::Neg(a)) = l else {
            continue;
        };
        let Some(c) = find(bound, a) else {
            continue;
        };
        let callee_level = level(a.rel, a.args.len());
        // A negative literal is tested once its variables are bound by all
        // positive literals; a positive one sees those written before it.
        let candidates: Vec<usize> = (0..r.body.len())
            .filter(|&k| (matches!(l, Literal::Neg(_)) || k < j) && k != j)
            .filter(|&k| match &r.body[k] {
                Literal::Pos(b) => level(b.rel, b.args.len()) <= callee_level,
                _ => false,
            })
            .collect();
        // Variables bound by ordinary literals, and by the head's demand.
        let mut by_lits = Vec::new();
        for &k in &candidates {
            if let Literal::Pos(b) = &r.body[k] {
                b.args.iter().for_each(|t| t.vars(&mut by_lits));
            }
        }
        let head_demand = head_bits != 0 && head_level <= callee_level;
        let mut by_head = Vec::new();
        if head_demand {
            for (p, t) in r.head.args.iter().enumerate() {
                if head_bits >> p & 1 == 1 {
                    t.vars(&mut by_head);
                }
            }
        }
        let mut positions = 0u64;
        for (p, t) in a.args.iter().enumerate() {
            let ok = match t {
                Term::Const(_) => true,
                Term::Var(v) => by_lits.contains(v) || by_head.contains(v),
                Term::Fn(..) => {
                    let mut vs = Vec::new();
                    t.vars(&mut vs);
                    vs.iter().all(|v| by_lits.contains(v))
                }
            };
            if ok {
                positions |= 1 << p;
            }
        }
        sites.push(Site {
            callee: c,
            literal: j,
            positions,
            head_demand,
            uses: candidates,
        });
    }
    sites
}
