//! Lowering a checked AST to the game IR. The board literal expansion lives
//! in the `board` module and is re-exported here, where it used to be.

use toss_core::ir;
use toss_core::ir::derivative_name;
use toss_core::structure::Structure;

use crate::ast::*;
use crate::check::{Sig, base_relation};

pub use crate::board::{Board, Cell, KEYWORDS, add_board, column_name, parse_board};

/// Builds a state structure (START / MODEL).
fn structure(lit: &StructLit, sig: &Sig, declare_rule_only: bool) -> Structure {
    let mut s = Structure::new();
    for e in &lit.elements {
        s.add_element(&e.name);
    }
    for r in &lit.relations {
        let arity = r
            .declared_arity
            .as_ref()
            .map(|a| a.value)
            .or_else(|| r.tuples.first().map(|t| t.0.len()))
            .unwrap_or(0);
        s.declare_relation(&r.name.name, arity);
    }
    if let Some((text, _)) = &lit.board
        && let Ok(board) = parse_board(text)
    {
        add_board(&mut s, &board);
    }
    for r in &lit.relations {
        let Some(rid) = s.relation(&r.name.name) else {
            continue;
        };
        for (t, _) in &r.tuples {
            if t.len() != s.arity(rid) {
                continue;
            }
            let elems: Vec<_> = t.iter().map(|e| s.add_element(&e.name)).collect();
            s.add_tuple(rid, &elems);
        }
    }
    for f in &lit.functions {
        // `y' { b -> 5 }` gives the kept derivative, the function `y'`.
        let fid = s.declare_function(&derivative_name(&f.name.name, f.order));
        for (e, v) in &f.values {
            let e = s.add_element(&e.name);
            s.set_fun_value(fid, e, *v);
        }
    }
    if declare_rule_only {
        for (name, arity) in &sig.rule_only {
            s.declare_relation(name, *arity);
        }
        for f in &sig.funs {
            s.declare_function(f);
        }
    }
    s
}

/// A state structure literal checked by `check_states` (a position of a
/// plays file).
pub(crate) fn state(lit: &StructLit, sig: &Sig) -> Structure {
    structure(lit, sig, false)
}

fn names(ids: &[Ident]) -> Vec<String> {
    ids.iter().map(|i| i.name.clone()).collect()
}

fn var(v: &VarDecl) -> ir::Var {
    let n = v.name.name.clone();
    match v.kind {
        VarKind::Element => ir::Var::Element(n),
        VarKind::Set => ir::Var::Set(n),
        VarKind::Real => ir::Var::Real(n),
    }
}

pub fn formula(f: &Formula) -> ir::Formula {
    use ir::Formula as F;
    match &f.kind {
        FormulaKind::True => F::True,
        FormulaKind::False => F::False,
        FormulaKind::Rel { name, args } => F::Rel {
            name: name.name.clone(),
            args: names(args),
        },
        FormulaKind::Eq(a, b) => F::Eq(a.name.clone(), b.name.clone()),
        FormulaKind::Ne(a, b) => F::Not(Box::new(F::Eq(a.name.clone(), b.name.clone()))),
        FormulaKind::In { element, set } => F::In {
            element: element.name.clone(),
            set: set.name.clone(),
        },
        FormulaKind::Cmp { lhs, op, rhs } => F::Cmp {
            lhs: term(lhs),
            op: *op,
            rhs: term(rhs),
        },
        FormulaKind::Not(g) => F::Not(Box::new(formula(g))),
        FormulaKind::And(fs) => F::And(fs.iter().map(formula).collect()),
        FormulaKind::Or(fs) => F::Or(fs.iter().map(formula).collect()),
        FormulaKind::Implies(a, b) => F::Implies(Box::new(formula(a)), Box::new(formula(b))),
        FormulaKind::Iff(a, b) => F::Iff(Box::new(formula(a)), Box::new(formula(b))),
        FormulaKind::Exists { vars, body } => F::Exists {
            vars: vars.iter().map(var).collect(),
            body: Box::new(formula(body)),
        },
        FormulaKind::Forall { vars, body } => F::Forall {
            vars: vars.iter().map(var).collect(),
            body: Box::new(formula(body)),
        },
        FormulaKind::Fixpoint {
            kind,
            relation,
            params,
            body,
        } => F::Fixpoint {
            kind: *kind,
            relation: relation.name.clone(),
            params: names(params),
            body: Box::new(formula(body)),
        },
        FormulaKind::Tc {
            steps,
            from,
            to,
            body,
        } => F::Tc {
            steps: steps.as_ref().map(|s| s.value),
            from: names(from),
            to: names(to),
            body: Box::new(formula(body)),
        },
        FormulaKind::Let {
            relation,
            params,
            def,
            body,
        } => F::Let {
            relation: relation.name.clone(),
            params: names(params),
            def: Box::new(formula(def)),
            body: Box::new(formula(body)),
        },
        FormulaKind::LetReal { var, value, body } => F::LetReal {
            var: var.name.clone(),
            value: term(value),
            body: Box::new(formula(body)),
        },
    }
}

pub fn term(t: &Term) -> ir::RealExpr {
    use ir::RealExpr as E;
    let b = |x: &Term| Box::new(term(x));
    match &t.kind {
        TermKind::Num(v) => E::Const(*v),
        TermKind::Var(v) => E::Var(v.name.clone()),
        TermKind::Fun {
            name,
            order,
            element,
        } => {
            if *order == 0 {
                E::Fun {
                    name: name.name.clone(),
                    element: element.name.clone(),
                }
            } else {
                E::Derivative {
                    name: name.name.clone(),
                    order: *order,
                    element: element.name.clone(),
                }
            }
        }
        TermKind::Char(f) => E::Char(Box::new(formula(f))),
        TermKind::Neg(a) => E::Neg(b(a)),
        TermKind::Add(x, y) => E::Add(b(x), b(y)),
        TermKind::Sub(x, y) => E::Sub(b(x), b(y)),
        TermKind::Mul(x, y) => E::Mul(b(x), b(y)),
        TermKind::Div(x, y) => E::Div(b(x), b(y)),
        TermKind::Pow(x, y) => E::Pow(b(x), b(y)),
        TermKind::Sqrt(a) => E::Root(2, b(a)),
        TermKind::Root(n, a) => E::Root(n.value, b(a)),
        TermKind::Sum { vars, guard, body } => E::Sum {
            vars: names(vars),
            guard: Box::new(formula(guard)),
            body: b(body),
        },
        TermKind::Product { vars, guard, body } => E::Product {
            vars: names(vars),
            guard: Box::new(formula(guard)),
            body: b(body),
        },
        TermKind::Min { var, body } => E::Min {
            var: var.name.clone(),
            body: Box::new(formula(body)),
        },
        TermKind::Let { var, value, body } => E::Let {
            var: var.name.clone(),
            value: b(value),
            body: b(body),
        },
    }
}

fn rule_side(lit: &StructLit, nondistinct: &mut Vec<(String, String)>) -> ir::RuleSide {
    let mut side = ir::RuleSide {
        elements: names(&lit.elements),
        ..Default::default()
    };
    for r in &lit.relations {
        if r.name.name == "nondistinct" {
            for (t, _) in &r.tuples {
                if let [a, b] = t.as_slice() {
                    nondistinct.push((a.name.clone(), b.name.clone()));
                }
            }
            continue;
        }
        let (name, optional) = base_relation(&r.name.name);
        for (t, _) in &r.tuples {
            side.tuples.push(ir::RuleTuple {
                relation: name.to_string(),
                args: names(t),
                optional,
            });
        }
    }
    for f in &lit.functions {
        for (e, v) in &f.values {
            side.functions
                .push((derivative_name(&f.name.name, f.order), e.name.clone(), *v));
        }
    }
    side
}

fn rule(r: &RuleDef) -> ir::Rule {
    let mut nondistinct = Vec::new();
    let lhs = rule_side(&r.lhs, &mut nondistinct);
    let mut ignored = Vec::new();
    let rhs = rule_side(&r.rhs, &mut ignored);
    let mut map: Vec<(String, String)> = Vec::new();
    for e in &rhs.elements {
        if let Some((_, l)) = r.with.iter().find(|(rt, _)| rt.name == *e) {
            map.push((e.clone(), l.name.clone()));
        } else if lhs.elements.contains(e) {
            map.push((e.clone(), e.clone()));
        }
    }
    let opt = |f: &Option<Formula>| f.as_ref().map_or(ir::Formula::True, formula);
    ir::Rule {
        name: r.name.name.clone(),
        emb: names(&r.emb),
        map,
        nondistinct,
        pre: opt(&r.pre),
        inv: opt(&r.inv),
        post: opt(&r.post),
        update: r
            .update
            .iter()
            .map(|e| ir::UpdateEquation {
                // `update :f'(r) = t` sets the kept derivative, the
                // function named `f'` (toss_core::ir::derivative_name).
                function: derivative_name(&e.function.name, e.order),
                element: e.element.name.clone(),
                value: term(&e.value),
            })
            .collect(),
        dynamics: r
            .dynamics
            .iter()
            .map(|e| ir::OdeEquation {
                function: e.function.name.clone(),
                order: e.order,
                element: e.element.name.clone(),
                value: term(&e.value),
            })
            .collect(),
        lhs,
        rhs,
    }
}

fn bound(b: &Bound) -> ir::Bound {
    match b {
        Bound::Num(v) => ir::Bound::Num(*v),
        Bound::Name(n) => ir::Bound::Drawn(n.name.clone()),
    }
}

fn label(l: &LabelDef) -> ir::Label {
    let mut time = None;
    let mut params = Vec::new();
    for (n, lo, hi) in &l.intervals {
        let iv = ir::Interval {
            lo: bound(lo),
            hi: bound(hi),
        };
        if n.name == "t" {
            time = Some(iv);
        } else {
            params.push((n.name.clone(), iv));
        }
    }
    ir::Label {
        rule: l.rule.name.clone(),
        time,
        params,
        multiplicity: l
            .multiplicity
            .as_ref()
            .map_or_else(Default::default, |m| m.value),
        targets: l
            .targets
            .iter()
            .map(|t| ir::Target {
                location: t.location.value,
                probability: t.probability.as_ref().map(|p| p.value),
                draws: t
                    .draws
                    .iter()
                    .map(|(n, d)| (n.name.clone(), d.clone()))
                    .collect(),
            })
            .collect(),
    }
}

/// Lowers a checked file.
pub(crate) fn lower(file: &File, sig: &Sig) -> ir::Game {
    let mut game = ir::Game {
        players: sig.players.clone(),
        data: Vec::new(),
        defined_relations: Vec::new(),
        rules: Vec::new(),
        locations: Vec::new(),
        start: Structure::new(),
        model: None,
        history: Vec::new(),
        repetition: None,
    };
    let mut locs: Vec<&LocDef> = Vec::new();
    for item in &file.items {
        match item {
            Item::Players { .. } => {}
            Item::Data { entries, .. } => game.data.extend(
                entries
                    .iter()
                    .map(|(k, v)| (k.name.clone(), v.name.clone())),
            ),
            Item::Repetition {
                function,
                element,
                relations,
                functions,
                ..
            } => {
                game.repetition = Some(ir::Repetition {
                    function: function.name.clone(),
                    element: element.name.clone(),
                    relations: names(relations),
                    functions: names(functions),
                })
            }
            Item::Rel(r) => game.defined_relations.push(ir::DefinedRelation {
                name: r.name.name.clone(),
                params: names(&r.params),
                body: formula(&r.body),
            }),
            Item::Rule(r) => game.rules.push(rule(r)),
            Item::Loc(l) => locs.push(l),
            Item::Start(s) => game.start = structure(s, sig, true),
            Item::Model(s) => game.model = Some(structure(s, sig, true)),
            Item::History { moves, .. } => {
                for m in moves {
                    let mut time = None;
                    let mut params = Vec::new();
                    for (k, v) in &m.values {
                        if k.name == "t" {
                            time = Some(*v);
                        } else {
                            params.push((k.name.clone(), *v));
                        }
                    }
                    game.history.push(ir::HistoryMove {
                        player: m.player.name.clone(),
                        rule: m.rule.name.clone(),
                        matching: m
                            .matching
                            .iter()
                            .map(|(a, b)| (a.name.clone(), b.name.clone()))
                            .collect(),
                        time,
                        params,
                        target: m.target.value,
                    });
                }
            }
        }
    }
    locs.sort_by_key(|l| l.id.value);
    for l in locs {
        let players = sig
            .players
            .iter()
            .map(|p| match l.players.iter().find(|b| b.name.name == *p) {
                Some(b) => ir::PlayerLocation {
                    payoff: b.payoff.as_ref().map_or(ir::RealExpr::Const(0.0), term),
                    moves: b.moves.iter().map(label).collect(),
                },
                None => ir::PlayerLocation {
                    payoff: ir::RealExpr::Const(0.0),
                    moves: Vec::new(),
                },
            })
            .collect();
        game.locations.push(ir::Location {
            id: l.id.value,
            players,
        });
    }
    game
}
