//! Making a learnt sentence readable without changing its meaning:
//! constants folded, nested `and`/`or` flattened, a quantified variable
//! equal to another one merged into it, quantified variables that are not
//! used dropped, and bound variables renamed `x0`, `x1`, ... in order.
//! Learnt sentences bind every name once, so renaming never captures.

use std::collections::BTreeMap;

use toss_core::ir::subst::{BoundNames, Substitution};
use toss_core::ir::walk::free_vars;
use toss_core::ir::{Formula, Var};

pub fn tidy(f: &Formula) -> Formula {
    let f = merge_equalities(&fold(f));
    let mut n = 0;
    let mut fresh = |_: &str| {
        n += 1;
        format!("x{}", n - 1)
    };
    Substitution {
        bound: BoundNames::Fresh,
        fresh: &mut fresh,
    }
    .formula(&fold(&f), &BTreeMap::new())
}

/// `f` with `g` applied to each immediate subformula.
pub(super) fn map(f: &Formula, g: &mut dyn FnMut(&Formula) -> Formula) -> Formula {
    match f {
        Formula::Not(a) => Formula::Not(Box::new(g(a))),
        Formula::And(cs) => Formula::And(cs.iter().map(&mut *g).collect()),
        Formula::Or(cs) => Formula::Or(cs.iter().map(&mut *g).collect()),
        Formula::Implies(a, b) => Formula::Implies(Box::new(g(a)), Box::new(g(b))),
        Formula::Iff(a, b) => Formula::Iff(Box::new(g(a)), Box::new(g(b))),
        Formula::Exists { vars, body } => Formula::Exists {
            vars: vars.clone(),
            body: Box::new(g(body)),
        },
        Formula::Forall { vars, body } => Formula::Forall {
            vars: vars.clone(),
            body: Box::new(g(body)),
        },
        Formula::Tc {
            steps,
            from,
            to,
            body,
        } => Formula::Tc {
            steps: *steps,
            from: from.clone(),
            to: to.clone(),
            body: Box::new(g(body)),
        },
        other => other.clone(),
    }
}

/// Constants folded, `and`/`or` flattened, unused quantified variables
/// dropped.
fn fold(f: &Formula) -> Formula {
    let f = map(f, &mut fold);
    match f {
        Formula::Eq(a, b) if a == b => Formula::True,
        Formula::Not(a) => match *a {
            Formula::True => Formula::False,
            Formula::False => Formula::True,
            Formula::Not(b) => *b,
            a => Formula::Not(Box::new(a)),
        },
        Formula::And(cs) => junction(cs, true),
        Formula::Or(cs) => junction(cs, false),
        Formula::Implies(a, b) => match (*a, *b) {
            (Formula::False, _) | (_, Formula::True) => Formula::True,
            (Formula::True, b) => b,
            (a, Formula::False) => Formula::Not(Box::new(a)),
            (a, b) => Formula::Implies(Box::new(a), Box::new(b)),
        },
        Formula::Exists { vars, body } => quantifier(vars, *body, true),
        Formula::Forall { vars, body } => quantifier(vars, *body, false),
        f => f,
    }
}

/// `and` (`and` true) or `or` of `cs`: nested ones flattened, the unit
/// dropped, the absorbing constant returned.
fn junction(cs: Vec<Formula>, and: bool) -> Formula {
    let (unit, zero) = if and {
        (Formula::True, Formula::False)
    } else {
        (Formula::False, Formula::True)
    };
    let mut out = Vec::new();
    for c in cs {
        match c {
            c if c == unit => {}
            c if c == zero => return zero,
            Formula::And(inner) if and => out.extend(inner),
            Formula::Or(inner) if !and => out.extend(inner),
            c => out.push(c),
        }
    }
    match out.len() {
        0 => unit,
        1 => out.pop().expect("one"),
        _ if and => Formula::And(out),
        _ => Formula::Or(out),
    }
}

/// `ex` (`exists` true) or `all` of the variables `body` uses, or `body`
/// alone when it uses none.
fn quantifier(vars: Vec<Var>, body: Formula, exists: bool) -> Formula {
    let free = free_vars(&body);
    let vars: Vec<Var> = vars
        .into_iter()
        .filter(|v| free.contains(v.name()))
        .collect();
    let body = Box::new(body);
    match (vars.is_empty(), exists) {
        (true, _) => *body,
        (false, true) => Formula::Exists { vars, body },
        (false, false) => Formula::Forall { vars, body },
    }
}

/// In `ex x, y (... and x = y and ...)`, `y` replaced by `x`.
fn merge_equalities(f: &Formula) -> Formula {
    let f = map(f, &mut merge_equalities);
    let Formula::Exists { mut vars, body } = f else {
        return f;
    };
    let mut conj = match *body {
        Formula::And(cs) => cs,
        b => vec![b],
    };
    loop {
        let pick = conj.iter().enumerate().find_map(|(i, c)| match c {
            Formula::Eq(a, b) if a != b => {
                if vars.iter().any(|v| v.name() == b) {
                    Some((i, b.clone(), a.clone()))
                } else if vars.iter().any(|v| v.name() == a) {
                    Some((i, a.clone(), b.clone()))
                } else {
                    None
                }
            }
            _ => None,
        });
        let Some((i, gone, kept)) = pick else { break };
        conj.remove(i);
        vars.retain(|v| v.name() != gone);
        let map = BTreeMap::from([(gone, kept)]);
        let mut keep_names = |v: &str| v.to_string();
        let mut subst = Substitution {
            bound: BoundNames::KeepUnlessCaptured,
            fresh: &mut keep_names,
        };
        conj = conj.iter().map(|c| subst.formula(c, &map)).collect();
    }
    Formula::Exists {
        vars,
        body: Box::new(Formula::And(conj)),
    }
}
