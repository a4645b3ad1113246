//! Static checks of a GDL description (reference/gdl.md sections 2 and 3)
//! and lowering to the runtime's IR.
//!
//! Errors: safety (head variables, and variables of negative literals,
//! `distinct` and equalities, must occur in a positive literal),
//! stratification (no negation inside a recursive cycle), the recursion
//! restriction, keyword arities and places (`true`/`does` only in bodies,
//! `init`/`next` only in heads, `role` only as ground facts,
//! `legal`/`goal`/`terminal` not depending on `does`, `init`/`base`/`input`
//! not depending on `true` or `does`), non-ground facts, a relation used
//! with several arities, a constant goal value outside 0..100. Warnings: a
//! function symbol used with several arities, empty bodies, `(p)` for `p`, empty and nested
//! disjunctions, `(not (distinct a b))` (not GDL; read as equality).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::{Atom, Description, Literal, Rule, Sym, Term, sccs};

use super::syntax::{AAtom, AClause, ALit, ATerm, Name, Span};
use toss_lang::Diagnostic;

/// A body literal of a rule with its disjunctions expanded.
#[derive(Clone, Copy)]
enum Flat<'a> {
    Pos(&'a AAtom),
    Neg(&'a AAtom, &'a Span),
    Distinct(&'a ATerm, &'a ATerm),
    Equal(&'a ATerm, &'a ATerm),
}

/// A rule with one choice per disjunction.
struct FlatRule<'a> {
    head: &'a AAtom,
    body: Vec<Flat<'a>>,
}

fn expand<'a>(body: &'a [ALit], out: &mut Vec<Vec<Flat<'a>>>) {
    let mut acc: Vec<Vec<Flat<'a>>> = vec![Vec::new()];
    for l in body {
        let mut alts: Vec<Vec<Flat<'a>>> = Vec::new();
        alternatives(l, &mut alts);
        let mut next = Vec::new();
        for a in &acc {
            for b in &alts {
                let mut v = a.clone();
                v.extend(b.iter().copied());
                next.push(v);
            }
        }
        acc = next;
    }
    out.extend(acc);
}

/// The term nodes of clause `c` once its `or`s are distributed: per rule
/// built, the head and one disjunct of each literal (as a float: it can be
/// astronomically large).
fn expanded_size(c: &AClause) -> f64 {
    // Per literal: how many disjuncts, and their sizes summed.
    let per_lit: Vec<(f64, f64)> = c
        .body
        .iter()
        .map(|l| {
            let mut n = 0.0;
            let mut sum = 0.0;
            disjunct_sizes(l, &mut |size| {
                n += 1.0;
                sum += size;
            });
            (n, sum)
        })
        .collect();
    let rules: f64 = per_lit.iter().map(|&(n, _)| n).product();
    // Each disjunct of literal i is in rules / n_i of the rules.
    let body: f64 = per_lit
        .iter()
        .map(|&(n, sum)| if n == 0.0 { 0.0 } else { sum * rules / n })
        .sum();
    rules * atom_size(&c.head) as f64 + body
}

/// The term nodes of clause `c` as written.
fn clause_size(c: &AClause) -> f64 {
    let mut size = atom_size(&c.head) as f64;
    for l in &c.body {
        disjunct_sizes(l, &mut |s| size += s);
    }
    size
}

/// Calls `f` with the size of each disjunct of `l` (nested `or`s flattened).
fn disjunct_sizes(l: &ALit, f: &mut dyn FnMut(f64)) {
    match l {
        ALit::Pos(a) | ALit::Neg(a, _) => f(atom_size(a) as f64),
        ALit::Distinct(a, b, _) | ALit::Equal(a, b, _) => {
            f((1 + term_size(a) + term_size(b)) as f64)
        }
        ALit::Or(ls, _) => {
            for x in ls {
                disjunct_sizes(x, f);
            }
        }
    }
}

fn atom_size(a: &AAtom) -> usize {
    1 + a.args.iter().map(term_size).sum::<usize>()
}

fn term_size(t: &ATerm) -> usize {
    let mut n = 0;
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        n += 1;
        if let ATerm::Fn(_, args, _) = t {
            stack.extend(args);
        }
    }
    n
}

/// A count that may be past what an integer holds, for a message.
fn shown_count(x: f64) -> String {
    if x < 1e15 {
        toss_core::limits::thousands(x as u64)
    } else {
        format!("{x:.1e}")
    }
}

fn alternatives<'a>(l: &'a ALit, out: &mut Vec<Vec<Flat<'a>>>) {
    match l {
        ALit::Pos(a) => out.push(vec![Flat::Pos(a)]),
        ALit::Neg(a, s) => out.push(vec![Flat::Neg(a, s)]),
        ALit::Distinct(a, b, _) => out.push(vec![Flat::Distinct(a, b)]),
        ALit::Equal(a, b, _) => out.push(vec![Flat::Equal(a, b)]),
        ALit::Or(ls, _) => {
            for x in ls {
                alternatives(x, out);
            }
        }
    }
}

const KEYWORD_ARITY: [(&str, usize); 10] = [
    ("role", 1),
    ("init", 1),
    ("true", 1),
    ("next", 1),
    ("legal", 2),
    ("does", 2),
    ("goal", 2),
    ("terminal", 0),
    ("base", 1),
    ("input", 2),
];

type RelKey = (String, usize);

/// Checks clauses; returns the lowered description if there is no error.
pub fn check(
    clauses: &[AClause],
    errors: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
    rule_spans: &mut Vec<Span>,
) -> Option<Description> {
    let mut rules: Vec<FlatRule> = Vec::new();
    // Distributing `or`s is exponential in their number: the terms it adds
    // are counted before any rule is built, and a description past the
    // limit is refused at the clause that crosses it.
    let limit = toss_core::limits::GDL_DISTRIBUTED_TERMS;
    let mut added = 0.0;
    for c in clauses {
        let size = expanded_size(c) - clause_size(c);
        added += size;
        if added > limit.value as f64 {
            errors.push(Diagnostic::new(
                format!(
                    "distributing the `or`s of the rules up to this one (one rule per choice \
                     of disjuncts) adds more than {} terms, {} of them for this one (limit: {})",
                    toss_core::limits::thousands(limit.value as u64),
                    shown_count(size),
                    limit.name
                ),
                c.head.span.clone(),
            ));
            return None;
        }
        let mut bodies = Vec::new();
        expand(&c.body, &mut bodies);
        for b in bodies {
            rules.push(FlatRule {
                head: &c.head,
                body: b,
            });
        }
    }
    check_atoms(clauses, errors, warnings);
    check_safety(&rules, errors);
    // Dependency graph.
    let mut rel_ids: BTreeMap<RelKey, usize> = BTreeMap::new();
    let mut rel_names: Vec<String> = Vec::new();
    let mut id = |k: RelKey, text: &str, names: &mut Vec<String>| -> usize {
        let n = rel_ids.len();
        *rel_ids.entry(k).or_insert_with(|| {
            names.push(text.to_string());
            n
        })
    };
    let mut head_of = Vec::new();
    for r in &rules {
        head_of.push(id(r.head.key(), &r.head.rel.text, &mut rel_names));
        for l in &r.body {
            if let Flat::Pos(a) | Flat::Neg(a, _) = l {
                id(a.key(), &a.rel.text, &mut rel_names);
            }
        }
    }
    let kid = |k: &str, n: usize| rel_ids.get(&(k.to_string(), n)).copied();
    let nrel = rel_names.len();
    let mut succ = vec![Vec::new(); nrel];
    for (i, r) in rules.iter().enumerate() {
        for l in &r.body {
            if let Flat::Pos(a) | Flat::Neg(a, _) = l {
                succ[head_of[i]].push(rel_ids[&a.key()]);
            }
        }
    }
    let comps = sccs(nrel, &succ);
    let mut comp_of = vec![0; nrel];
    for (ci, c) in comps.iter().enumerate() {
        for &x in c {
            comp_of[x] = ci;
        }
    }
    let recursive: Vec<bool> = comps
        .iter()
        .map(|c| c.len() > 1 || succ[c[0]].contains(&c[0]))
        .collect();
    // Stratification, on the rule graph (a rule depends on the rules whose
    // head may unify with a body literal).
    let lowered = lower(&rules);
    rule_spans.extend(rules.iter().map(|r| r.head.span.clone()));
    let (rule_succ, rule_neg) = crate::rule_graph(&lowered);
    let rcomps = sccs(rules.len(), &rule_succ);
    let mut rcomp_of = vec![0; rules.len()];
    for (ci, c) in rcomps.iter().enumerate() {
        for &x in c {
            rcomp_of[x] = ci;
        }
    }
    for &(i, j, k) in &rule_neg {
        if rcomp_of[i] != rcomp_of[j] {
            continue;
        }
        if let Some(Flat::Neg(a, s)) = rules[i].body.get(k) {
            let d = Diagnostic::new(
                format!(
                    "not stratified: `{}` depends negatively on `{}`, which depends on it",
                    rules[i].head.rel.text, a.rel.text
                ),
                (*s).clone(),
            )
            .with_note("negation may not occur in a recursive cycle");
            if !errors.contains(&d) {
                errors.push(d);
            }
        }
    }
    check_recursion(&rules, &head_of, &recursive, &comp_of, &rel_ids, errors);
    // Dependence on `true` and `does`.
    let mut dep_true = vec![false; nrel];
    let mut dep_does = vec![false; nrel];
    if let Some(t) = kid("true", 1) {
        dep_true[t] = true;
    }
    if let Some(d) = kid("does", 2) {
        dep_does[d] = true;
    }
    for c in &comps {
        let mut t = c.iter().any(|&x| dep_true[x]);
        let mut d = c.iter().any(|&x| dep_does[x]);
        for &x in c {
            for &y in &succ[x] {
                t |= dep_true[y];
                d |= dep_does[y];
            }
        }
        for &x in c {
            dep_true[x] = t;
            dep_does[x] = d;
        }
    }
    for r in &rules {
        let hk = r.head.rel.key.as_str();
        let no_does = matches!(hk, "legal" | "goal" | "terminal");
        let no_true = matches!(hk, "init" | "base" | "input");
        if !no_does && !no_true {
            continue;
        }
        for l in &r.body {
            let (Flat::Pos(a) | Flat::Neg(a, _)) = l else {
                continue;
            };
            let b = rel_ids[&a.key()];
            let bad = if dep_does[b] {
                Some("does")
            } else if no_true && dep_true[b] {
                Some("true")
            } else {
                None
            };
            if let Some(k) = bad {
                let via = if a.rel.key == k {
                    String::new()
                } else {
                    format!(" (through `{}`)", a.rel.text)
                };
                let span = match l {
                    Flat::Neg(_, s) => (*s).clone(),
                    _ => a.span.clone(),
                };
                let d = Diagnostic::new(
                    format!("`{}` must not depend on `{k}`{via}", r.head.rel.text),
                    span,
                );
                if !errors.contains(&d) {
                    errors.push(d);
                }
            }
        }
    }
    // Lowered even with errors: a caller may still evaluate a description
    // that breaks only the restrictions its reasoner checks again (see
    // `check_gdl_forms`).
    Some(lowered)
}

/// GDL-II: a `sees` rule whose role, a variable, occurs in no positive
/// literal of its body (`(<= (sees ?p (control ?x)) (true (control ?x)))`,
/// blind_breakthrough_5x5.kif) is read as every role perceiving it: the
/// body gets `(role ?p)`, with a warning. Without it the rule is unsafe.
pub(crate) fn sees_every_role(clauses: &mut [AClause], warnings: &mut Vec<Diagnostic>) {
    for c in clauses.iter_mut() {
        if c.head.rel.key != "sees" || c.head.args.len() != 2 || c.body.is_empty() {
            continue;
        }
        let ATerm::Var(v) = &c.head.args[0] else {
            continue;
        };
        let mut positive = Vec::new();
        positive_atoms(&c.body, &mut positive);
        let bound = positive.iter().any(|a| {
            let mut vs = Vec::new();
            a.vars(&mut vs);
            vs.iter().any(|x| x.key == v.key)
        });
        if bound {
            continue;
        }
        let role = AAtom {
            rel: Name {
                text: "role".into(),
                key: "role".into(),
                span: v.span.clone(),
            },
            args: vec![ATerm::Var(v.clone())],
            span: v.span.clone(),
        };
        warnings.push(Diagnostic::new(
            format!(
                "GDL-II: the role {} of this `sees` rule occurs in no positive literal: read as \
                 every role perceiving it (`(role {})` added to the body)",
                v.text, v.text
            ),
            v.span.clone(),
        ));
        c.body.push(ALit::Pos(role));
    }
}

/// The positive atoms of a body, those inside `or` too.
fn positive_atoms<'a>(body: &'a [ALit], out: &mut Vec<&'a AAtom>) {
    for l in body {
        match l {
            ALit::Pos(a) => out.push(a),
            ALit::Or(ls, _) => positive_atoms(ls, out),
            ALit::Neg(..) | ALit::Distinct(..) | ALit::Equal(..) => {}
        }
    }
}

/// The atoms of the clauses: keyword arities and places, ground facts
/// (errors), and relations or functions used with several arities
/// (warnings).
fn check_atoms(clauses: &[AClause], errors: &mut Vec<Diagnostic>, warnings: &mut Vec<Diagnostic>) {
    // Keyword arities and places; ground facts.
    let kw_arity: HashMap<&str, usize> = KEYWORD_ARITY.iter().copied().collect();
    let mut seen_atoms: Vec<(&AAtom, bool)> = Vec::new();
    for c in clauses {
        seen_atoms.push((&c.head, true));
        let from = seen_atoms.len();
        collect_atoms(&c.body, &mut seen_atoms);
        if c.head.rel.key == "sees" {
            // GDL-II: percepts are computed with `next`, and a `sees`
            // rule may read it (blind_breakthrough_5x5.kif): such a `next`
            // is in its place (its arity is still checked).
            for (a, in_place) in &mut seen_atoms[from..] {
                *in_place |= a.rel.key == "next";
            }
        }
        if !c.is_rule || c.body.is_empty() {
            let mut vs = Vec::new();
            c.head.vars(&mut vs);
            if let Some(v) = vs.first() {
                errors.push(Diagnostic::new(
                    format!("variable {} in a fact: facts must be ground", v.text),
                    v.span.clone(),
                ));
            }
        }
        let h = c.head.rel.key.as_str();
        if matches!(h, "true" | "does") {
            errors.push(Diagnostic::new(
                format!(
                    "`{}` may appear only in rule bodies, not in a head",
                    c.head.rel.text
                ),
                c.head.span.clone(),
            ));
        }
        if h == "goal"
            && let [_, value] = c.head.args.as_slice()
        {
            check_goal_value(value, errors);
        }
        if h == "role" && !c.body.is_empty() {
            errors.push(Diagnostic::new(
                "`role` must be given by ground facts",
                c.span.clone(),
            ));
        }
    }
    for (a, is_head) in &seen_atoms {
        let k = a.rel.key.as_str();
        if let Some(&n) = kw_arity.get(k)
            && a.args.len() != n
        {
            errors.push(Diagnostic::new(
                format!(
                    "`{}` takes {n} argument(s), not {}",
                    a.rel.text,
                    a.args.len()
                ),
                a.span.clone(),
            ));
        }
        if !is_head && matches!(k, "init" | "next") {
            errors.push(Diagnostic::new(
                format!(
                    "`{}` may appear only in rule heads, not in a body",
                    a.rel.text
                ),
                a.span.clone(),
            ));
        }
    }
    // Arity consistency: GDL gives every relation one arity (reference
    // gdl.md, restriction 5), so a relation used with two is an error (the
    // reasoner would silently treat them as two relations); a function
    // symbol with two arities stays a warning, as in gdl-validation.
    let mut rel_arities: BTreeMap<String, BTreeMap<usize, Span>> = BTreeMap::new();
    let mut fn_arities: BTreeMap<String, BTreeMap<usize, Span>> = BTreeMap::new();
    for (a, _) in &seen_atoms {
        rel_arities
            .entry(a.rel.key.clone())
            .or_default()
            .entry(a.args.len())
            .or_insert(a.span.clone());
        for t in &a.args {
            fn_terms(t, &mut fn_arities);
        }
    }
    let relations = rel_arities.iter().map(|r| (r, true));
    for ((name, m), is_relation) in relations.chain(fn_arities.iter().map(|f| (f, false))) {
        if m.len() > 1 {
            let mut it = m.iter();
            let (a0, s0) = it.next().map(|(a, s)| (*a, s.clone())).unwrap_or((0, 0..0));
            for (a, s) in it {
                let d = Diagnostic::new(
                    format!(
                        "{} `{name}` is used with {a} and with {a0} arguments",
                        if is_relation { "relation" } else { "function" }
                    ),
                    s.clone(),
                )
                .with_label(s0.clone(), format!("used with {a0} here"));
                if is_relation {
                    errors.push(d.with_note("a GDL relation has one arity"));
                } else {
                    warnings.push(d);
                }
            }
        }
    }
}

/// The value of a `goal` head written as a constant: GDL's utilities are
/// the integers 0 to 100 (reference gdl.md, section 2); any other value
/// would be no goal at run time. A variable is checked when it is bound
/// (`Game::fault`).
fn check_goal_value(value: &ATerm, errors: &mut Vec<Diagnostic>) {
    let why = match value {
        ATerm::Var(_) => return,
        ATerm::Const(n) => match crate::parse_nat(&n.text) {
            Some(v) if v <= 100 => return,
            Some(v) => format!("goal value {v} is above 100"),
            None if n.text.starts_with('-') && crate::parse_nat(&n.text[1..]).is_some() => {
                format!("goal value {} is negative", n.text)
            }
            None => format!("goal value `{}` is not a number", n.text),
        },
        ATerm::Fn(..) => "a goal value is a number, not a compound term".to_string(),
    };
    errors.push(
        Diagnostic::new(why, value.span()).with_note("a goal value is an integer from 0 to 100"),
    );
}

/// Safety: the variables of the head, of negations, of `distinct` and of
/// equalities occur in a positive literal of the body (an equality binds
/// nothing, as in ggp-base's prover, where it is a test).
fn check_safety(rules: &[FlatRule], errors: &mut Vec<Diagnostic>) {
    // Safety (facts are checked for groundness above).
    for r in rules.iter().filter(|r| !r.body.is_empty()) {
        let mut bound: BTreeSet<&str> = BTreeSet::new();
        for l in &r.body {
            if let Flat::Pos(a) = l {
                let mut vs = Vec::new();
                a.vars(&mut vs);
                bound.extend(vs.iter().map(|v| v.key.as_str()));
            }
        }
        let mut check_vars = |vs: Vec<&Name>, place: &str| {
            for v in vs {
                if !bound.contains(v.key.as_str()) {
                    let d = Diagnostic::new(
                        format!(
                            "unsafe rule: variable {} {place} does not occur in a positive literal of the body",
                            v.text
                        ),
                        v.span.clone(),
                    );
                    if !errors.contains(&d) {
                        errors.push(d);
                    }
                }
            }
        };
        let mut vs = Vec::new();
        r.head.vars(&mut vs);
        check_vars(vs, "of the head");
        for l in &r.body {
            let mut vs = Vec::new();
            match l {
                Flat::Neg(a, _) => {
                    a.vars(&mut vs);
                    check_vars(vs, "of a negation");
                }
                Flat::Distinct(a, b) => {
                    a.vars(&mut vs);
                    b.vars(&mut vs);
                    check_vars(vs, "of `distinct`");
                }
                Flat::Equal(a, b) => {
                    a.vars(&mut vs);
                    b.vars(&mut vs);
                    check_vars(vs, "of `(not (distinct ...))`");
                }
                Flat::Pos(_) => {}
            }
        }
    }
}

/// The recursion restriction on the rules whose head is in a recursive
/// component of the relation graph (`comp_of`, `recursive`).
fn check_recursion(
    rules: &[FlatRule],
    head_of: &[usize],
    recursive: &[bool],
    comp_of: &[usize],
    rel_ids: &BTreeMap<RelKey, usize>,
    errors: &mut Vec<Diagnostic>,
) {
    for (i, r) in rules.iter().enumerate() {
        let h = head_of[i];
        // Recursion restriction.
        if !recursive[comp_of[h]] {
            continue;
        }
        let mut outside_vars: BTreeSet<&str> = BTreeSet::new();
        for l in &r.body {
            if let Flat::Pos(a) = l
                && comp_of[rel_ids[&a.key()]] != comp_of[h]
            {
                let mut vs = Vec::new();
                a.vars(&mut vs);
                outside_vars.extend(vs.iter().map(|v| v.key.as_str()));
            }
        }
        for l in &r.body {
            let Flat::Pos(a) = l else { continue };
            if comp_of[rel_ids[&a.key()]] != comp_of[h] {
                continue;
            }
            for t in &a.args {
                let ok = t.is_ground() || r.head.args.iter().any(|u| u.same(t)) || {
                    let mut vs = Vec::new();
                    t.vars(&mut vs);
                    vs.iter().all(|v| outside_vars.contains(v.key.as_str()))
                };
                if !ok {
                    let d = Diagnostic::new(
                        format!(
                            "recursion restriction: argument of recursive `{}` is neither ground, nor an argument of the head, nor bound by a non-recursive positive literal",
                            a.rel.text
                        ),
                        t.span(),
                    )
                    .with_note("GDL restricts recursion so that the set of true sentences stays finite");
                    if !errors.contains(&d) {
                        errors.push(d);
                    }
                }
            }
        }
    }
}

fn collect_atoms<'a>(body: &'a [ALit], out: &mut Vec<(&'a AAtom, bool)>) {
    for l in body {
        match l {
            ALit::Pos(a) | ALit::Neg(a, _) => out.push((a, false)),
            ALit::Distinct(..) | ALit::Equal(..) => {}
            ALit::Or(ls, _) => collect_atoms(ls, out),
        }
    }
}

fn fn_terms(t: &ATerm, out: &mut BTreeMap<String, BTreeMap<usize, Span>>) {
    if let ATerm::Fn(f, args, s) = t {
        out.entry(f.key.clone())
            .or_default()
            .entry(args.len())
            .or_insert(s.clone());
        for a in args {
            fn_terms(a, out);
        }
    }
}

struct Lower {
    symbols: Vec<String>,
    by_key: HashMap<String, Sym>,
}

impl Lower {
    fn sym(&mut self, n: &Name) -> Sym {
        if let Some(&s) = self.by_key.get(&n.key) {
            return s;
        }
        let s = self.symbols.len() as Sym;
        self.symbols.push(n.text.clone());
        self.by_key.insert(n.key.clone(), s);
        s
    }

    fn term(&mut self, t: &ATerm, vars: &mut Vec<(String, String)>) -> Term {
        match t {
            ATerm::Var(n) => {
                let i = match vars.iter().position(|(k, _)| *k == n.key) {
                    Some(i) => i,
                    None => {
                        vars.push((n.key.clone(), n.text.clone()));
                        vars.len() - 1
                    }
                };
                Term::Var(i as u32)
            }
            ATerm::Const(n) => Term::Const(self.sym(n)),
            ATerm::Fn(f, args, _) => {
                let f = self.sym(f);
                Term::Fn(f, args.iter().map(|a| self.term(a, vars)).collect())
            }
        }
    }

    fn atom(&mut self, a: &AAtom, vars: &mut Vec<(String, String)>) -> Atom {
        Atom {
            rel: self.sym(&a.rel),
            args: a.args.iter().map(|t| self.term(t, vars)).collect(),
        }
    }
}

fn lower(rules: &[FlatRule]) -> Description {
    let mut l = Lower {
        symbols: Vec::new(),
        by_key: HashMap::new(),
    };
    let mut out = Vec::new();
    for r in rules {
        let mut vars = Vec::new();
        let head = l.atom(r.head, &mut vars);
        let body = r
            .body
            .iter()
            .map(|x| match x {
                Flat::Pos(a) => Literal::Pos(l.atom(a, &mut vars)),
                Flat::Neg(a, _) => Literal::Neg(l.atom(a, &mut vars)),
                Flat::Distinct(a, b) => {
                    Literal::Distinct(l.term(a, &mut vars), l.term(b, &mut vars))
                }
                Flat::Equal(a, b) => Literal::Equal(l.term(a, &mut vars), l.term(b, &mut vars)),
            })
            .collect();
        out.push(Rule {
            head,
            body,
            var_names: vars.into_iter().map(|(_, t)| t).collect(),
        });
    }
    Description {
        symbols: l.symbols,
        rules: out,
    }
}
