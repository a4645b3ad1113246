//! Step 1 of grounding: the relaxed program and the rule instances over
//! its facts (see the module documentation of `ground`).

use crate::reasoner::{Engine, Program, ProgramError, STATIC};
use crate::terms::{FxHashMap, TermId};
use crate::{Atom, Description, Literal, Rule, Sym, Term};

use super::{GroundError, GroundLimits, Lit};

/// The ground atoms and rule instances, before simplification. Signals are
/// numbered as in [`super::GroundProgram`], with one gate per derived atom
/// (`gate_base + atom`).
pub(super) struct Instances {
    pub roles: Vec<String>,
    pub fluents: Vec<String>,
    pub fluent_parts: Vec<(String, Vec<String>)>,
    pub init: Vec<u32>,
    pub moves: Vec<Vec<String>>,
    /// The derived atoms, in KIF.
    pub atoms: Vec<String>,
    /// (atom, conjunction): one per rule instance that survived folding.
    pub clauses: Vec<(u32, Vec<Lit>)>,
    pub gate_base: u32,
    pub terminal: Lit,
    pub legal: Vec<Vec<Lit>>,
    pub goals: Vec<Vec<(u64, Lit)>>,
    pub next: Vec<Lit>,
}

/// Symbols of the relaxed program that no KIF file can spell (they hold a
/// space).
const REACH: &str = "reachable fluent";
const ANY_DOES: &str = "possible action";

struct Relaxed {
    desc: Description,
    true_: Sym,
    does: Sym,
    reach: Sym,
    any_does: Sym,
    /// Per rule of the original description: its instance relation and the
    /// variables that are its columns (none for game-independent rules).
    inst: Vec<Option<(Sym, Vec<u32>)>>,
}

fn sym_in(symbols: &mut Vec<String>, name: &str) -> Sym {
    match symbols.iter().position(|s| s.eq_ignore_ascii_case(name)) {
        Some(i) => i as Sym,
        None => {
            symbols.push(name.to_string());
            (symbols.len() - 1) as Sym
        }
    }
}

/// Splits the state- and move-level rules so that a variable no later
/// literal (nor the head) reads is projected out as soon as it dies: `h(X)
/// :- a(X, Y), b(Y, Z), c(Z)` becomes `aux(X, Z) :- a(X, Y), b(Y, Z)` and
/// `h(X) :- aux(X, Z), c(Z)`. The ground instances of `aux` then share the
/// values of `Y`: without it, a rule that joins several pieces of the state
/// grounds to the product of their sizes. Negative, `distinct` and equality
/// literals move to the first place where their variables are bound, as
/// safety allows.
fn decompose(desc: &Description, is_static: &dyn Fn(Sym, usize) -> bool) -> Description {
    let mut symbols = desc.symbols.clone();
    let mut rules = Vec::new();
    for (i, r) in desc.rules.iter().enumerate() {
        if is_static(r.head.rel, r.head.args.len()) || r.body.len() < 3 {
            rules.push(r.clone());
            continue;
        }
        let vars_of = |l: &Literal| {
            let mut v = Vec::new();
            l.vars(&mut v);
            v
        };
        // Positive literals in their order; the others as soon as bound.
        let mut order: Vec<Literal> = Vec::new();
        let mut waiting: Vec<&Literal> = r
            .body
            .iter()
            .filter(|l| !matches!(l, Literal::Pos(_)))
            .collect();
        let mut bound: Vec<u32> = Vec::new();
        for l in r.body.iter().filter(|l| matches!(l, Literal::Pos(_))) {
            order.push(l.clone());
            bound.extend(vars_of(l));
            waiting.retain(|w| {
                let ready = vars_of(w).iter().all(|v| bound.contains(v));
                if ready {
                    order.push((*w).clone());
                }
                !ready
            });
        }
        order.extend(waiting.into_iter().cloned());
        let mut head_vars = Vec::new();
        r.head.args.iter().for_each(|t| t.vars(&mut head_vars));
        let mut prefix: Vec<Literal> = Vec::new();
        let mut prefix_vars: Vec<u32> = Vec::new();
        let mut k = 0;
        for j in 0..order.len() {
            prefix.push(order[j].clone());
            if matches!(order[j], Literal::Pos(_)) {
                prefix_vars.extend(vars_of(&order[j]));
                prefix_vars.sort_unstable();
                prefix_vars.dedup();
            }
            if j + 1 == order.len() || prefix.len() < 2 {
                continue;
            }
            let mut needed = head_vars.clone();
            order[j + 1..].iter().for_each(|l| l.vars(&mut needed));
            let live: Vec<u32> = prefix_vars
                .iter()
                .copied()
                .filter(|v| needed.contains(v))
                .collect();
            if live.len() == prefix_vars.len() {
                continue;
            }
            let aux = sym_in(&mut symbols, &format!("split {i} {k}"));
            k += 1;
            let atom = Atom {
                rel: aux,
                args: live.iter().map(|&v| Term::Var(v)).collect(),
            };
            rules.push(Rule {
                head: atom.clone(),
                body: std::mem::take(&mut prefix),
                var_names: r.var_names.clone(),
            });
            prefix.push(Literal::Pos(atom));
            prefix_vars = live;
        }
        rules.push(Rule {
            head: r.head.clone(),
            body: prefix,
            var_names: r.var_names.clone(),
        });
    }
    Description { symbols, rules }
}

fn relax(desc: &Description, is_static: &dyn Fn(Sym, usize) -> bool) -> Relaxed {
    let mut symbols = desc.symbols.clone();
    let true_ = sym_in(&mut symbols, "true");
    let does = sym_in(&mut symbols, "does");
    let init = sym_in(&mut symbols, "init");
    let next = sym_in(&mut symbols, "next");
    let legal = sym_in(&mut symbols, "legal");
    let reach = sym_in(&mut symbols, REACH);
    let any_does = sym_in(&mut symbols, ANY_DOES);
    let mut rules = Vec::new();
    let mut inst = Vec::new();
    for (i, r) in desc.rules.iter().enumerate() {
        if is_static(r.head.rel, r.head.args.len()) {
            rules.push(r.clone());
            inst.push(None);
            continue;
        }
        let body: Vec<Literal> = r
            .body
            .iter()
            .filter_map(|l| match l {
                Literal::Pos(a) if a.rel == true_ && a.args.len() == 1 => {
                    Some(Literal::Pos(Atom {
                        rel: reach,
                        args: a.args.clone(),
                    }))
                }
                Literal::Pos(a) if a.rel == does && a.args.len() == 2 => Some(Literal::Pos(Atom {
                    rel: any_does,
                    args: a.args.clone(),
                })),
                Literal::Neg(a) if !is_static(a.rel, a.args.len()) => None,
                l => Some(l.clone()),
            })
            .collect();
        let mut vars = Vec::new();
        for l in &body {
            if let Literal::Pos(a) = l {
                a.args.iter().for_each(|t| t.vars(&mut vars));
            }
        }
        vars.sort_unstable();
        vars.dedup();
        let isym = sym_in(&mut symbols, &format!("instance {i}"));
        rules.push(Rule {
            head: r.head.clone(),
            body: body.clone(),
            var_names: r.var_names.clone(),
        });
        rules.push(Rule {
            head: Atom {
                rel: isym,
                args: vars.iter().map(|&v| Term::Var(v)).collect(),
            },
            body,
            var_names: r.var_names.clone(),
        });
        inst.push(Some((isym, vars)));
    }
    let one = |head: Sym, from: Sym, n: usize| Rule {
        head: Atom {
            rel: head,
            args: (0..n as u32).map(Term::Var).collect(),
        },
        body: vec![Literal::Pos(Atom {
            rel: from,
            args: (0..n as u32).map(Term::Var).collect(),
        })],
        var_names: (0..n).map(|i| format!("?x{i}")).collect(),
    };
    rules.push(one(reach, init, 1));
    rules.push(one(reach, next, 1));
    rules.push(one(any_does, legal, 2));
    Relaxed {
        desc: Description { symbols, rules },
        true_,
        does,
        reach,
        any_does,
        inst,
    }
}

/// Interns a rule term under a binding (variable -> term).
fn ground_term(e: &mut Engine, t: &Term, bind: &[TermId]) -> TermId {
    match t {
        Term::Var(v) => bind[*v as usize],
        Term::Const(s) => e.terms.intern(*s, &[]),
        Term::Fn(f, args) => {
            let a: Vec<TermId> = args.iter().map(|x| ground_term(e, x, bind)).collect();
            e.terms.intern(*f, &a)
        }
    }
}

struct Grounder<'a> {
    prog: &'a Program,
    e: Engine,
    is_static: &'a dyn Fn(Sym, usize) -> bool,
    true_: Sym,
    does: Sym,
    fluent_of: FxHashMap<TermId, u32>,
    input_of: FxHashMap<(TermId, TermId), u32>,
    atom_of: FxHashMap<(usize, Vec<TermId>), u32>,
    atoms: Vec<String>,
    gate_base: u32,
}

impl Grounder<'_> {
    /// The literal of a ground atom (positive).
    fn atom_lit(&mut self, rel: Sym, args: &[TermId]) -> Lit {
        if rel == self.true_ && args.len() == 1 {
            return self
                .fluent_of
                .get(&args[0])
                .map_or(Lit::FALSE, |&f| Lit::new(f, false));
        }
        if rel == self.does && args.len() == 2 {
            return self
                .input_of
                .get(&(args[0], args[1]))
                .map_or(Lit::FALSE, |&i| Lit::new(i, false));
        }
        let Some(r) = self.prog.relation(rel, args.len()) else {
            return Lit::FALSE;
        };
        if !self.e.holds(self.prog, r, args) {
            return Lit::FALSE;
        }
        if (self.is_static)(rel, args.len()) {
            return Lit::TRUE;
        }
        let key = (r, args.to_vec());
        let n = self.atoms.len() as u32;
        let a = *self.atom_of.entry(key).or_insert(n);
        if a == n {
            let mut s = format!("({}", self.prog.symbols[rel as usize]);
            for &t in args {
                s.push(' ');
                s.push_str(&self.e.terms.to_kif(t, &self.prog.symbols));
            }
            s.push(')');
            if args.is_empty() {
                s = self.prog.symbols[rel as usize].clone();
            }
            self.atoms.push(s);
        }
        Lit::new(self.gate_base + a, false)
    }

    fn lit_of(&mut self, a: &Atom, bind: &[TermId]) -> Lit {
        let args: Vec<TermId> = a
            .args
            .iter()
            .map(|t| ground_term(&mut self.e, t, bind))
            .collect();
        self.atom_lit(a.rel, &args)
    }
}

fn too_large(e: ProgramError, limits: GroundLimits) -> GroundError {
    match e {
        ProgramError::TooLarge(_) | ProgramError::TooManyFacts(..) => {
            GroundError::TooManyFacts(limits.facts)
        }
        e => GroundError::Program(e),
    }
}

/// The instances of `desc`, with its rules split first ([`decompose`]) when
/// `split_rules`.
pub(super) fn instantiate(
    desc: &Description,
    limits: GroundLimits,
    split_rules: bool,
) -> Result<Instances, GroundError> {
    let split;
    let desc = if split_rules {
        let orig = Program::new(desc).map_err(GroundError::Program)?;
        split = decompose(desc, &|rel, arity| {
            orig.level_of(rel, arity).is_none_or(|l| l == STATIC)
        });
        &split
    } else {
        desc
    };
    let orig = Program::new(desc).map_err(GroundError::Program)?;
    let is_static = |rel: Sym, arity: usize| orig.level_of(rel, arity).is_none_or(|l| l == STATIC);
    let relaxed = relax(desc, &is_static);
    let prog = Program::new(&relaxed.desc).map_err(GroundError::Program)?;
    let e = prog
        .engine_with_limit(limits.facts)
        .map_err(|x| too_large(x, limits))?;
    let kw = &prog.kw;
    let cmp = |e: &Engine, a: &TermId, b: &TermId| prog.cmp_terms(&e.terms, *a, *b);

    let mut role_terms: Vec<TermId> = Vec::new();
    for t in e.tuples(&prog, kw.role) {
        if !role_terms.contains(&t[0]) {
            role_terms.push(t[0]);
        }
    }
    if role_terms.is_empty() {
        return Err(GroundError::NoRoles);
    }
    let to_kif = |e: &Engine, t: TermId| e.terms.to_kif(t, &prog.symbols);
    let roles: Vec<String> = role_terms.iter().map(|&t| to_kif(&e, t)).collect();

    let reach = prog
        .relation(relaxed.reach, 1)
        .expect("the relaxed program defines its reachable fluents");
    let mut fluents: Vec<TermId> = e.tuples(&prog, reach).map(|t| t[0]).collect();
    fluents.sort_unstable_by(|a, b| cmp(&e, a, b));
    fluents.dedup();
    let fluent_of: FxHashMap<TermId, u32> = fluents
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, 1 + i as u32))
        .collect();
    let any_does = prog
        .relation(relaxed.any_does, 2)
        .expect("the relaxed program defines its possible actions");
    let mut moves: Vec<Vec<TermId>> = vec![Vec::new(); roles.len()];
    for t in e.tuples(&prog, any_does) {
        if let Some(r) = role_terms.iter().position(|&x| x == t[0]) {
            moves[r].push(t[1]);
        }
    }
    let mut input_of = FxHashMap::default();
    let mut next_input = 1 + fluents.len() as u32;
    for (r, ms) in moves.iter_mut().enumerate() {
        ms.sort_unstable_by(|a, b| cmp(&e, a, b));
        ms.dedup();
        for &m in ms.iter() {
            input_of.insert((role_terms[r], m), next_input);
            next_input += 1;
        }
    }
    let init: Vec<u32> = {
        let mut v: Vec<u32> = e
            .tuples(&prog, kw.init)
            .filter_map(|t| fluent_of.get(&t[0]).map(|&s| s - 1))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let fluent_parts = fluents
        .iter()
        .map(|&f| {
            let (s, args) = e.terms.node(f);
            (
                prog.symbols[s as usize].clone(),
                args.iter().map(|&a| to_kif(&e, a)).collect(),
            )
        })
        .collect();
    let fluent_names: Vec<String> = fluents.iter().map(|&t| to_kif(&e, t)).collect();
    let move_names: Vec<Vec<String>> = moves
        .iter()
        .map(|ms| ms.iter().map(|&t| to_kif(&e, t)).collect())
        .collect();

    let mut g = Grounder {
        prog: &prog,
        e,
        is_static: &is_static,
        true_: relaxed.true_,
        does: relaxed.does,
        fluent_of,
        input_of,
        atom_of: FxHashMap::default(),
        atoms: Vec::new(),
        gate_base: next_input,
    };

    let mut clauses = Vec::new();
    for (i, rule) in desc.rules.iter().enumerate() {
        let Some((isym, vars)) = &relaxed.inst[i] else {
            continue;
        };
        let Some(irel) = prog.relation(*isym, vars.len()) else {
            continue;
        };
        let rows: Vec<Vec<TermId>> = g.e.tuples(&prog, irel).map(<[_]>::to_vec).collect();
        if clauses.len() + rows.len() > limits.instances {
            return Err(GroundError::TooManyInstances(limits.instances));
        }
        let nvars = rule
            .var_names
            .len()
            .max(vars.iter().max().map_or(0, |&v| v as usize + 1));
        let mut bind = vec![0 as TermId; nvars];
        'rows: for row in rows {
            for (&v, &t) in vars.iter().zip(&row) {
                bind[v as usize] = t;
            }
            let mut clause = Vec::new();
            for l in &rule.body {
                let lit = match l {
                    Literal::Pos(a) => g.lit_of(a, &bind),
                    Literal::Neg(a) => !g.lit_of(a, &bind),
                    Literal::Distinct(a, b) | Literal::Equal(a, b) => {
                        let (x, y) = (
                            ground_term(&mut g.e, a, &bind),
                            ground_term(&mut g.e, b, &bind),
                        );
                        let same = x == y;
                        if same == matches!(l, Literal::Equal(..)) {
                            Lit::TRUE
                        } else {
                            Lit::FALSE
                        }
                    }
                };
                if lit == Lit::FALSE {
                    continue 'rows;
                }
                if lit != Lit::TRUE {
                    clause.push(lit);
                }
            }
            let head = g.lit_of(&rule.head, &bind);
            if head.is_const() {
                // The head is in the relaxed model (the instance derived it)
                // and not game-independent, so it has a gate.
                continue;
            }
            clauses.push((head.signal() - g.gate_base, clause));
        }
    }

    let term = |g: &mut Grounder, sym: &str, args: &[TermId]| -> Lit {
        match g
            .prog
            .symbols
            .iter()
            .position(|s| s.eq_ignore_ascii_case(sym))
        {
            Some(s) => g.atom_lit(s as Sym, args),
            None => Lit::FALSE,
        }
    };
    let terminal = term(&mut g, "terminal", &[]);
    let legal: Vec<Vec<Lit>> = (0..roles.len())
        .map(|r| {
            moves[r]
                .iter()
                .map(|&m| term(&mut g, "legal", &[role_terms[r], m]))
                .collect()
        })
        .collect();
    let next: Vec<Lit> = fluents
        .iter()
        .map(|&f| term(&mut g, "next", &[f]))
        .collect();
    let mut goals: Vec<Vec<(u64, Lit)>> = vec![Vec::new(); roles.len()];
    let goal_rows: Vec<Vec<TermId>> = g.e.tuples(&prog, kw.goal).map(<[_]>::to_vec).collect();
    for t in goal_rows {
        let Some(r) = role_terms.iter().position(|&x| x == t[0]) else {
            continue;
        };
        // A goal value that is not a number is a fault of the description
        // the network cannot express (the reasoner faults when it holds).
        let number = if g.e.terms.args(t[1]).is_empty() {
            prog.nat_value[g.e.terms.sym(t[1]) as usize]
        } else {
            None
        };
        let Some(v) = number else {
            return Err(GroundError::GoalNotNumber(
                roles[r].clone(),
                g.e.terms.to_kif(t[1], &prog.symbols),
            ));
        };
        let l = term(&mut g, "goal", &t);
        goals[r].push((v, l));
    }
    for gs in &mut goals {
        gs.sort_unstable();
    }
    Ok(Instances {
        roles,
        fluents: fluent_names,
        fluent_parts,
        init,
        moves: move_names,
        atoms: g.atoms,
        clauses,
        gate_base: g.gate_base,
        terminal,
        legal,
        goals,
        next,
    })
}

/// The aggregate playout of spec 5.2.1, which the translation to Toss
/// shares with grounding: the relaxed program, evaluated. Its `reachable
/// fluent` facts over-approximate the state terms of every reachable state,
/// and each state- or move-level rule's instance relation every binding of
/// its variables in some reachable state.
pub(crate) struct Aggregate {
    pub prog: Program,
    pub engine: Engine,
    /// `reachable fluent`, unary.
    pub reach: Option<crate::reasoner::RelId>,
    /// Per rule of the description: its instance relation (`None` when it
    /// derived nothing) and the variables that are its columns; `None` for
    /// game-independent rules.
    pub instances: Vec<Option<(Option<crate::reasoner::RelId>, Vec<u32>)>>,
}

/// Evaluates the relaxed program of `desc` with at most `facts` facts per
/// relation.
pub(crate) fn aggregate(desc: &Description, facts: usize) -> Result<Aggregate, GroundError> {
    let limits = GroundLimits {
        facts,
        ..GroundLimits::default()
    };
    let orig = Program::new(desc).map_err(GroundError::Program)?;
    let is_static = |rel: Sym, arity: usize| orig.level_of(rel, arity).is_none_or(|l| l == STATIC);
    let relaxed = relax(desc, &is_static);
    let prog = Program::new(&relaxed.desc).map_err(GroundError::Program)?;
    let engine = prog
        .engine_with_limit(limits.facts)
        .map_err(|x| too_large(x, limits))?;
    let reach = prog.relation(relaxed.reach, 1);
    let instances = relaxed
        .inst
        .iter()
        .map(|i| {
            i.as_ref()
                .map(|(sym, vars)| (prog.relation(*sym, vars.len()), vars.clone()))
        })
        .collect();
    Ok(Aggregate {
        prog,
        engine,
        reach,
        instances,
    })
}
