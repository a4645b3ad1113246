//! Set quantifiers through SAT: a formula `ex X phi` is grounded over the
//! structure into a propositional formula over the membership atoms
//! (`e in X`), everything not mentioning the quantified sets being
//! evaluated on the spot, and handed to a `SatBackend`.
//!
//! Nested existential set quantifiers in positive positions add fresh
//! membership atoms (their witness may depend on the enclosing first-order
//! assignment, which grounding makes explicit). An existential block in a
//! negative position (that is, a universal set quantifier inside an
//! existential one, `ex X all Y`) is expanded over all subsets of the
//! universe: exponential in the number of elements, so only for small
//! structures. Set quantifiers whose variables occur inside fixed points,
//! transitive closures or real terms are decided by enumerating subsets
//! instead (see `plan::groundable`).

use std::fmt;

use super::eval::{Env, Ev};
use super::node::*;
use toss_core::structure::{BitSet, Elem};

/// A propositional formula over variables `0..num_vars`.
#[derive(Clone, Debug, PartialEq)]
pub enum Prop {
    True,
    False,
    Var(u32),
    Not(Box<Prop>),
    And(Vec<Prop>),
    Or(Vec<Prop>),
}

impl Prop {
    pub fn negate(p: Prop) -> Prop {
        match p {
            Prop::True => Prop::False,
            Prop::False => Prop::True,
            Prop::Not(x) => *x,
            p => Prop::Not(Box::new(p)),
        }
    }
    pub fn and(xs: Vec<Prop>) -> Prop {
        let mut out = Vec::new();
        for x in xs {
            match x {
                Prop::True => {}
                Prop::False => return Prop::False,
                Prop::And(ys) => out.extend(ys),
                x => out.push(x),
            }
        }
        match out.len() {
            0 => Prop::True,
            1 => out.pop().unwrap_or(Prop::True),
            _ => Prop::And(out),
        }
    }
    pub fn or(xs: Vec<Prop>) -> Prop {
        let mut out = Vec::new();
        for x in xs {
            match x {
                Prop::False => {}
                Prop::True => return Prop::True,
                Prop::Or(ys) => out.extend(ys),
                x => out.push(x),
            }
        }
        match out.len() {
            0 => Prop::False,
            1 => out.pop().unwrap_or(Prop::False),
            _ => Prop::Or(out),
        }
    }
    /// The value under an assignment of the variables.
    pub fn eval(&self, a: &[bool]) -> bool {
        match self {
            Prop::True => true,
            Prop::False => false,
            Prop::Var(v) => a[*v as usize],
            Prop::Not(x) => !x.eval(a),
            Prop::And(xs) => xs.iter().all(|x| x.eval(a)),
            Prop::Or(xs) => xs.iter().any(|x| x.eval(a)),
        }
    }
}

/// A satisfiability procedure for propositional formulas.
pub trait SatBackend: Send + Sync + fmt::Debug {
    /// A satisfying assignment of `p` over variables `0..num_vars`, if any,
    /// or why the question could not be decided (the solver then reports a
    /// fault, [`super::Solver::fault`], rather than guess an answer).
    fn solve(&self, p: &Prop, num_vars: u32) -> Result<Option<Vec<bool>>, String>;
}

/// Tries every assignment: for tests and tiny instances (refuses more than
/// [`BruteForce::MAX_VARS`] variables).
#[derive(Clone, Copy, Debug, Default)]
pub struct BruteForce;

impl BruteForce {
    /// The most variables it tries all assignments of.
    pub const MAX_VARS: u32 = 30;
}

impl SatBackend for BruteForce {
    fn solve(&self, p: &Prop, num_vars: u32) -> Result<Option<Vec<bool>>, String> {
        if num_vars > Self::MAX_VARS {
            return Err(format!(
                "brute-force SAT over {num_vars} variables (at most {})",
                Self::MAX_VARS
            ));
        }
        let mut a = vec![false; num_vars as usize];
        for mask in 0u64..(1u64 << num_vars) {
            for (i, x) in a.iter_mut().enumerate() {
                *x = mask >> i & 1 == 1;
            }
            if p.eval(&a) {
                return Ok(Some(a));
            }
        }
        Ok(None)
    }
}

/// CNF by the Tseitin encoding: DIMACS clauses over variables
/// `1..=num_vars` (the formula's own) and auxiliary ones above.
pub fn tseitin(p: &Prop, num_vars: u32) -> Vec<Vec<i32>> {
    struct Enc {
        next: i32,
        clauses: Vec<Vec<i32>>,
    }
    impl Enc {
        fn lit(&mut self, p: &Prop) -> i32 {
            match p {
                Prop::Var(v) => *v as i32 + 1,
                Prop::Not(x) => -self.lit(x),
                Prop::True | Prop::False => {
                    let t = self.fresh();
                    self.clauses
                        .push(vec![if *p == Prop::True { t } else { -t }]);
                    t
                }
                Prop::And(xs) | Prop::Or(xs) => {
                    let lits: Vec<i32> = xs.iter().map(|x| self.lit(x)).collect();
                    let g = self.fresh();
                    let is_and = matches!(p, Prop::And(_));
                    // and: g -> l_i, (all l_i) -> g; or: dual.
                    let s = if is_and { 1 } else { -1 };
                    let mut big = vec![s * g];
                    for &l in &lits {
                        self.clauses.push(vec![-s * g, s * l]);
                        big.push(-s * l);
                    }
                    self.clauses.push(big);
                    g
                }
            }
        }
        fn fresh(&mut self) -> i32 {
            self.next += 1;
            self.next
        }
    }
    let mut enc = Enc {
        next: num_vars as i32,
        clauses: Vec::new(),
    };
    let root = enc.lit(p);
    enc.clauses.push(vec![root]);
    enc.clauses
}

/// The splr CDCL solver, a fresh instance per query.
#[derive(Clone, Copy, Debug, Default)]
pub struct Splr;

impl SatBackend for Splr {
    fn solve(&self, p: &Prop, num_vars: u32) -> Result<Option<Vec<bool>>, String> {
        match p {
            Prop::True => return Ok(Some(vec![false; num_vars as usize])),
            Prop::False => return Ok(None),
            _ => {}
        }
        let clauses = tseitin(p, num_vars);
        let config = splr::Config {
            quiet_mode: true,
            ..Default::default()
        };
        let result = match splr::Solver::try_from((config, clauses.as_slice())) {
            Ok(mut s) => splr::SolveIF::solve(&mut s),
            Err(r) => r,
        };
        match result {
            Ok(splr::Certificate::SAT(model)) => {
                let mut a = vec![false; num_vars as usize];
                for l in model {
                    let v = l.unsigned_abs() as usize;
                    if (1..=a.len()).contains(&v) {
                        a[v - 1] = l > 0;
                    }
                }
                Ok(Some(a))
            }
            Ok(splr::Certificate::UNSAT) => Ok(None),
            Err(splr::SolverError::EmptyClause)
            | Err(splr::SolverError::Inconsistent)
            | Err(splr::SolverError::RootLevelConflict(_)) => Ok(None),
            Err(e) => {
                // Not expected on well-formed input (a time-out or an
                // internal error of splr): small questions are decided by
                // enumeration instead, larger ones are a fault.
                if num_vars <= 20 {
                    BruteForce.solve(p, num_vars)
                } else {
                    Err(format!("the SAT solver splr failed: {e}"))
                }
            }
        }
    }
}

/// State of one grounding: which set slots are symbolic, and the position
/// of each live element.
struct Ground {
    sym: Vec<Option<u32>>,
    pos: Vec<u32>,
    elems: Vec<Elem>,
    next: u32,
}

impl Ground {
    fn alloc(&mut self, s: SSlot) {
        self.sym[s as usize] = Some(self.next);
        self.next += self.elems.len() as u32;
    }
    fn mentions(&self, n: &Node) -> bool {
        node_vars(n)
            .s
            .iter()
            .any(|&s| self.sym[s as usize].is_some())
    }
}

/// Decides `ex vars body` (already checked groundable) with the solver's
/// SAT backend.
pub(crate) fn decide(ev: &Ev<'_>, q: &SetQ, env: &mut Env) -> bool {
    let elems: Vec<Elem> = ev.st.elements().collect();
    let mut pos = vec![u32::MAX; ev.st.id_bound()];
    for (i, &e) in elems.iter().enumerate() {
        pos[e as usize] = i as u32;
    }
    let mut g = Ground {
        sym: vec![None; env.s.len()],
        pos,
        elems,
        next: 0,
    };
    for &v in &q.vars {
        g.alloc(v);
    }
    let p = ground(ev, &q.body, env, &mut g, true);
    match ev.sv.backend.solve(&p, g.next) {
        Ok(model) => model.is_some(),
        Err(why) => {
            ev.sv
                .report_fault(format!("a set quantifier could not be decided: {why}"));
            false
        }
    }
}

fn ground(ev: &Ev<'_>, n: &Node, env: &mut Env, g: &mut Ground, positive: bool) -> Prop {
    if !g.mentions(n) {
        return if ev.holds(n, env) {
            Prop::True
        } else {
            Prop::False
        };
    }
    match n {
        Node::In { elem, set } => {
            let base = g.sym[*set as usize].unwrap_or(0);
            let e = env.e[*elem as usize];
            match g.pos.get(e as usize) {
                Some(&p) if p != u32::MAX => Prop::Var(base + p),
                _ => Prop::False,
            }
        }
        Node::Not(x) => Prop::negate(ground(ev, x, env, g, !positive)),
        Node::And(xs) => {
            let mut out = Vec::new();
            for x in xs {
                let p = ground(ev, x, env, g, positive);
                if p == Prop::False {
                    return Prop::False;
                }
                out.push(p);
            }
            Prop::and(out)
        }
        Node::Or(xs) => {
            let mut out = Vec::new();
            for x in xs {
                let p = ground(ev, x, env, g, positive);
                if p == Prop::True {
                    return Prop::True;
                }
                out.push(p);
            }
            Prop::or(out)
        }
        Node::Search(s) => {
            let mut disj = Vec::new();
            let mut lits = Vec::new();
            if ground_filters(ev, &s.pre, env, g, positive, &mut lits) {
                ground_step(ev, s, 0, env, g, positive, &mut lits, &mut disj);
            }
            Prop::or(disj)
        }
        Node::SetQ(q) => {
            if positive {
                let saved: Vec<Option<u32>> = q.vars.iter().map(|&v| g.sym[v as usize]).collect();
                for &v in &q.vars {
                    g.alloc(v);
                }
                let p = ground(ev, &q.body, env, g, positive);
                for (&v, s) in q.vars.iter().zip(saved) {
                    g.sym[v as usize] = s;
                }
                p
            } else {
                // Expand over every assignment of the (universally meant)
                // set variables.
                let elems = g.elems.clone();
                let mut disj = Vec::new();
                expand(ev, &q.vars, &q.body, &elems, env, g, positive, &mut disj);
                Prop::or(disj)
            }
        }
        // Not groundable (excluded by `plan::groundable`).
        _ => Prop::False,
    }
}

#[allow(clippy::too_many_arguments)]
fn expand(
    ev: &Ev<'_>,
    vars: &[SSlot],
    body: &Node,
    elems: &[Elem],
    env: &mut Env,
    g: &mut Ground,
    positive: bool,
    out: &mut Vec<Prop>,
) {
    let Some((&v, rest)) = vars.split_first() else {
        out.push(ground(ev, body, env, g, positive));
        return;
    };
    let n = elems.len();
    if n > super::SET_ENUMERATION_LIMIT {
        ev.sv.report_fault(super::enumeration_fault(n));
        out.push(Prop::False);
        return;
    }
    let saved = g.sym[v as usize].take();
    for mask in 0..(1u64 << n) {
        let mut s = BitSet::with_capacity(ev.st.id_bound());
        for (i, &e) in elems.iter().enumerate() {
            if mask >> i & 1 == 1 {
                s.insert(e);
            }
        }
        env.s[v as usize] = s;
        expand(ev, rest, body, elems, env, g, positive, out);
        if out.last() == Some(&Prop::True) {
            break;
        }
    }
    g.sym[v as usize] = saved;
}

/// Evaluates the filters not mentioning symbolic sets (false if one fails)
/// and grounds the others into `lits`.
fn ground_filters(
    ev: &Ev<'_>,
    fs: &[Node],
    env: &mut Env,
    g: &mut Ground,
    positive: bool,
    lits: &mut Vec<Prop>,
) -> bool {
    for f in fs {
        let p = ground(ev, f, env, g, positive);
        match p {
            Prop::True => {}
            Prop::False => return false,
            p => lits.push(p),
        }
    }
    true
}

#[allow(clippy::too_many_arguments)]
fn ground_step(
    ev: &Ev<'_>,
    s: &Search,
    i: usize,
    env: &mut Env,
    g: &mut Ground,
    positive: bool,
    lits: &mut Vec<Prop>,
    disj: &mut Vec<Prop>,
) {
    let Some(st) = s.steps.get(i) else {
        disj.push(Prop::and(lits.clone()));
        return;
    };
    // Generators never mention sets: enumerate the step's candidates with a
    // one-step search and ground the filters for each.
    let one = Search::new(
        Vec::new(),
        Vec::new(),
        vec![Step {
            generator: st.generator.clone(),
            filters: Vec::new(),
        }],
    );
    let mut bindings: Vec<Vec<Elem>> = Vec::new();
    ev.run(&one, env, &mut |_, env| {
        bindings.push(env.e.clone());
        false
    });
    for b in bindings {
        env.e.copy_from_slice(&b);
        let mark = lits.len();
        if ground_filters(ev, &st.filters, env, g, positive, lits) {
            ground_step(ev, s, i + 1, env, g, positive, lits, disj);
        }
        lits.truncate(mark);
        if disj.last() == Some(&Prop::True) {
            return;
        }
    }
}

/// Whether `search` has a filter that is a set quantifier decided by SAT:
/// [`Solver::satisfying`](super::Solver::satisfying) then lists its tuples
/// by [`enumerate`] instead of one SAT query per candidate tuple.
pub(crate) fn has_sat_filter(search: &Search) -> bool {
    let sat = |n: &Node| matches!(n, Node::SetQ(q) if q.sat);
    search.pre.iter().any(sat) || search.steps.iter().any(|st| st.filters.iter().any(sat))
}

/// The tuples of the slots `free` for which `search` holds, by model
/// enumeration: the search is grounded once, every candidate tuple `t`
/// (from the generators) getting a selector variable `sel_t` and its
/// filters a propositional formula `phi_t` (the set quantifiers among them
/// over membership atoms of their own, as each tuple has its own witness
/// sets); then `(OR_t sel_t) and AND_t (sel_t -> phi_t)` is solved
/// repeatedly: every tuple a model selects is a solution (its filters hold
/// with that model's sets), and a blocking clause `not sel_t` per found
/// tuple forces the next model to select another one, until none is left.
/// So there are at most as many calls as solutions, plus the refuting one,
/// instead of one per candidate tuple. Each call of the backend is a fresh
/// solver (splr keeps no state between queries).
pub(crate) fn enumerate(
    ev: &Ev<'_>,
    search: &Search,
    free: &[u32],
    env: &mut Env,
) -> Vec<Vec<Elem>> {
    let elems: Vec<Elem> = ev.st.elements().collect();
    let mut pos = vec![u32::MAX; ev.st.id_bound()];
    for (i, &e) in elems.iter().enumerate() {
        pos[e as usize] = i as u32;
    }
    let mut g = Ground {
        sym: vec![None; env.s.len()],
        pos,
        elems,
        next: 0,
    };
    let mut leaves: Vec<(Vec<Elem>, Prop)> = Vec::new();
    let mut lits = Vec::new();
    if ground_filters_forced(ev, &search.pre, env, &mut g, &mut lits) {
        leaves_of(ev, search, 0, free, env, &mut g, &mut lits, &mut leaves);
    }
    // Tuples whose filters hold whatever the sets: solutions outright.
    let mut out: Vec<Vec<Elem>> = Vec::new();
    let mut open: Vec<(Vec<Elem>, Prop)> = Vec::new();
    for (t, p) in leaves {
        match p {
            Prop::True => out.push(t),
            Prop::False => {}
            p => open.push((t, p)),
        }
    }
    out.sort_unstable();
    out.dedup();
    open.retain(|(t, _)| out.binary_search(t).is_err());
    if open.is_empty() {
        return out;
    }
    let first_sel = g.next;
    let sel = |i: usize| Prop::Var(first_sel + i as u32);
    let num_vars = first_sel + open.len() as u32;
    let mut base: Vec<Prop> = vec![Prop::or((0..open.len()).map(sel).collect())];
    for (i, (_, p)) in open.iter().enumerate() {
        base.push(Prop::or(vec![Prop::negate(sel(i)), p.clone()]));
    }
    let mut found = vec![false; open.len()];
    loop {
        let mut clauses = base.clone();
        clauses.extend(
            (0..open.len())
                .filter(|&i| found[i])
                .map(|i| Prop::negate(sel(i))),
        );
        let model = match ev.sv.backend.solve(&Prop::and(clauses), num_vars) {
            Ok(Some(model)) => model,
            Ok(None) => break,
            Err(why) => {
                ev.sv
                    .report_fault(format!("a set quantifier could not be decided: {why}"));
                break;
            }
        };
        let mut new = false;
        for (i, f) in found.iter_mut().enumerate() {
            if !*f && model[(first_sel as usize) + i] {
                *f = true;
                new = true;
            }
        }
        if !new {
            // Cannot happen (the clause `OR sel` with the found ones
            // blocked needs a new selector); guards against a faulty
            // backend looping for ever.
            break;
        }
    }
    out.extend(
        open.into_iter()
            .zip(found)
            .filter(|(_, f)| *f)
            .map(|((t, _), _)| t),
    );
    out.sort_unstable();
    out.dedup();
    out
}

/// [`ground_filters`] where a filter that is a SAT set quantifier is
/// grounded over fresh membership atoms (instead of being decided on the
/// spot, as `ground` does for a node without symbolic sets).
fn ground_filters_forced(
    ev: &Ev<'_>,
    fs: &[Node],
    env: &mut Env,
    g: &mut Ground,
    lits: &mut Vec<Prop>,
) -> bool {
    for f in fs {
        let p = match f {
            Node::SetQ(q) if q.sat => {
                let saved: Vec<Option<u32>> = q.vars.iter().map(|&v| g.sym[v as usize]).collect();
                for &v in &q.vars {
                    g.alloc(v);
                }
                let p = ground(ev, &q.body, env, g, true);
                for (&v, s) in q.vars.iter().zip(saved) {
                    g.sym[v as usize] = s;
                }
                p
            }
            f => ground(ev, f, env, g, true),
        };
        match p {
            Prop::True => {}
            Prop::False => return false,
            p => lits.push(p),
        }
    }
    true
}

/// Every binding of the search's generators from step `i` on, with the
/// tuple of `free` and the conjunction of its grounded filters.
#[allow(clippy::too_many_arguments)]
fn leaves_of(
    ev: &Ev<'_>,
    s: &Search,
    i: usize,
    free: &[u32],
    env: &mut Env,
    g: &mut Ground,
    lits: &mut Vec<Prop>,
    out: &mut Vec<(Vec<Elem>, Prop)>,
) {
    let Some(st) = s.steps.get(i) else {
        let t = free.iter().map(|&v| env.e[v as usize]).collect();
        out.push((t, Prop::and(lits.clone())));
        return;
    };
    let one = Search::new(
        Vec::new(),
        Vec::new(),
        vec![Step {
            generator: st.generator.clone(),
            filters: Vec::new(),
        }],
    );
    let mut bindings: Vec<Vec<Elem>> = Vec::new();
    ev.run(&one, env, &mut |_, env| {
        bindings.push(env.e.clone());
        false
    });
    for b in bindings {
        env.e.copy_from_slice(&b);
        let mark = lits.len();
        if ground_filters_forced(ev, &st.filters, env, g, lits) {
            leaves_of(ev, s, i + 1, free, env, g, lits, out);
        }
        lits.truncate(mark);
    }
}
