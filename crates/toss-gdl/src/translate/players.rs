//! Player elimination (spec 5.2): variables that clearly stand for a player
//! (the first argument of `legal` and `goal` heads, of `does` and `(not
//! (does ...))`, of a positive `role` literal) are replaced by each role in turn, duplicating
//! the rule; the `role` literals that become facts are dropped.

use crate::{Atom, Description, Literal, Rule, Sym, Term};

fn subst(t: &Term, v: u32, c: Sym) -> Term {
    match t {
        Term::Var(x) if *x == v => Term::Const(c),
        Term::Fn(f, a) => Term::Fn(*f, a.iter().map(|x| subst(x, v, c)).collect()),
        t => t.clone(),
    }
}

fn subst_atom(a: &Atom, v: u32, c: Sym) -> Atom {
    Atom {
        rel: a.rel,
        args: a.args.iter().map(|t| subst(t, v, c)).collect(),
    }
}

fn subst_rule(r: &Rule, v: u32, c: Sym) -> Rule {
    Rule {
        head: subst_atom(&r.head, v, c),
        body: r
            .body
            .iter()
            .map(|l| match l {
                Literal::Pos(a) => Literal::Pos(subst_atom(a, v, c)),
                Literal::Neg(a) => Literal::Neg(subst_atom(a, v, c)),
                Literal::Distinct(a, b) => Literal::Distinct(subst(a, v, c), subst(b, v, c)),
                Literal::Equal(a, b) => Literal::Equal(subst(a, v, c), subst(b, v, c)),
            })
            .collect(),
        var_names: r.var_names.clone(),
    }
}

/// The description with player variables eliminated, and per rule the
/// index of the rule of `desc` it comes from. `roles` are the role
/// constants; `kw` the symbols of `legal`, `goal`, `does` and `role`.
pub(super) fn eliminate(
    desc: &Description,
    roles: &[Sym],
    kw: [Option<Sym>; 4],
) -> (Description, Vec<usize>) {
    let [legal, goal, does, role] = kw;
    let is = |s: Option<Sym>, rel: Sym| s == Some(rel);
    let mut rules = Vec::new();
    let mut origin = Vec::new();
    for (i, r) in desc.rules.iter().enumerate() {
        let mut player_vars: Vec<u32> = Vec::new();
        if (is(legal, r.head.rel) || is(goal, r.head.rel))
            && r.head.args.len() == 2
            && let Term::Var(v) = r.head.args[0]
        {
            player_vars.push(v);
        }
        for l in &r.body {
            let (Literal::Pos(a) | Literal::Neg(a)) = l else {
                continue;
            };
            let player_position = (is(does, a.rel) && a.args.len() == 2)
                || (matches!(l, Literal::Pos(_)) && is(role, a.rel) && a.args.len() == 1);
            if player_position && let Term::Var(v) = a.args[0] {
                player_vars.push(v);
            }
        }
        player_vars.sort_unstable();
        player_vars.dedup();
        let mut out = vec![r.clone()];
        for &v in &player_vars {
            out = out
                .iter()
                .flat_map(|r| roles.iter().map(move |&c| subst_rule(r, v, c)))
                .collect();
        }
        for mut r in out {
            // `(role c)` for a role c is a fact; for anything else false.
            let mut dead = false;
            r.body.retain(|l| match l {
                Literal::Pos(a) if is(role, a.rel) && a.args.len() == 1 => match a.args[0] {
                    Term::Const(c) => {
                        dead |= !roles.contains(&c);
                        false
                    }
                    _ => true,
                },
                _ => true,
            });
            if !dead {
                rules.push(r);
                origin.push(i);
            }
        }
    }
    (
        Description {
            symbols: desc.symbols.clone(),
            rules,
        },
        origin,
    )
}
