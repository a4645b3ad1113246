//! Evaluating a compiled [`Program`]: the [`Engine`] with the facts of the
//! three levels, strata evaluated semi-naively, and the joins that run a
//! rule's body in its join order.

use crate::Sym;
use crate::terms::{IdHasher, TermId, TermStore};

use super::store::{Db, RelStore};
use super::{
    CLit, CRule, MOVE, NONE, Pat, PosKey, Program, ProgramError, RelId, STATE, STATIC,
    STATIC_FACT_LIMIT,
};

impl Program {
    /// A fresh engine with the static relations evaluated.
    pub fn engine(&self) -> Result<Engine, ProgramError> {
        self.engine_with_limit(usize::MAX)
    }

    /// [`Program::engine`] with [`Engine::set_limit`]`(facts)`, which the
    /// static relations must keep to as well.
    pub fn engine_with_limit(&self, facts: usize) -> Result<Engine, ProgramError> {
        let mut e = Engine {
            terms: self.base_terms.clone(),
            dbs: [self.empty_db(), self.empty_db(), self.empty_db()],
            done: vec![false; self.sccs.len()],
            buf: Vec::new(),
            join: JoinScratch::default(),
            limit: facts,
            overflows: 0,
            first_overflow: None,
        };
        for c in 0..self.sccs.len() {
            if self.sccs[c].level == STATIC {
                e.eval_scc(self, c);
                let total: usize = e.dbs[0].rels.iter().map(|r| r.len as usize).sum();
                if total > STATIC_FACT_LIMIT {
                    return Err(ProgramError::TooLarge(STATIC_FACT_LIMIT));
                }
                if e.overflows > 0 {
                    let name = e.first_overflow.map_or(String::new(), |r| {
                        self.symbols[self.rels[r].sym as usize].clone()
                    });
                    return Err(ProgramError::TooManyFacts(name, facts));
                }
            }
        }
        Ok(e)
    }
}

#[derive(Clone, Debug, Default)]
struct JoinScratch {
    b: Vec<u32>,
    trail: Vec<u32>,
    tmp: Vec<TermId>,
}

/// The mutable part of evaluation: interned terms and the facts of the
/// three levels. `done` marks the state-level components evaluated for the
/// current state.
#[derive(Clone, Debug)]
pub struct Engine {
    pub terms: TermStore,
    dbs: [Db; 3],
    done: Vec<bool>,
    buf: Vec<TermId>,
    join: JoinScratch,
    /// At most this many facts per relation, and this many more interned
    /// terms than there are facts (set with [`Engine::set_limit`]); an
    /// evaluation that would go beyond stops and counts an overflow, and
    /// the facts of that state are then incomplete.
    limit: usize,
    /// Evaluations stopped by the limit so far.
    overflows: u64,
    /// The relation whose evaluation the limit stopped first.
    first_overflow: Option<RelId>,
}

impl Engine {
    /// Bounds the memory of evaluation: at most `facts` facts in one
    /// relation (and one join's results), at most `4 * facts` interned
    /// terms in all. Unlimited by default.
    pub fn set_limit(&mut self, facts: usize) {
        self.limit = facts;
    }

    /// How many evaluations the limit has stopped.
    pub fn overflows(&self) -> u64 {
        self.overflows
    }

    /// The relation whose evaluation the limit stopped first, if any.
    pub fn first_overflow(&self) -> Option<RelId> {
        self.first_overflow
    }

    /// The limit set with [`Engine::set_limit`].
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The facts of a relation (of any level, as last evaluated).
    pub(crate) fn rel(&self, prog: &Program, r: RelId) -> &RelStore {
        &self.dbs[prog.rels[r].level as usize].rels[r]
    }

    /// Replaces the current state by these fluents (clears the state and
    /// move levels).
    pub fn set_state(&mut self, prog: &Program, fluents: &[TermId]) {
        for &r in &prog.state_rels {
            self.dbs[STATE as usize].rels[r].clear();
        }
        self.done.iter_mut().for_each(|d| *d = false);
        let tr = &mut self.dbs[STATE as usize].rels[prog.kw.true_];
        for &f in fluents {
            tr.insert(&[f]);
        }
    }

    /// Evaluates the state-level components in `need` not yet done.
    pub fn ensure(&mut self, prog: &Program, need: &[usize]) {
        for &c in need {
            if !self.done[c] {
                self.eval_scc(prog, c);
                self.done[c] = true;
            }
        }
    }

    /// Sets the joint move (`does` facts: role term, action term) and
    /// evaluates what `next` needs; the state level must be current.
    pub fn eval_move(&mut self, prog: &Program, does: &[(TermId, TermId)]) {
        self.eval_move_for(prog, does, &prog.need_next_state, &prog.need_next_move);
    }

    /// [`Engine::eval_move`] deriving `sees` (GDL-II percepts) too.
    pub fn eval_move_and_percepts(&mut self, prog: &Program, does: &[(TermId, TermId)]) {
        self.eval_move_for(
            prog,
            does,
            &prog.need_percepts_state,
            &prog.need_percepts_move,
        );
    }

    fn eval_move_for(
        &mut self,
        prog: &Program,
        does: &[(TermId, TermId)],
        need_state: &[usize],
        need_move: &[usize],
    ) {
        self.ensure(prog, need_state);
        for &r in &prog.move_rels {
            self.dbs[MOVE as usize].rels[r].clear();
        }
        let d = &mut self.dbs[MOVE as usize].rels[prog.kw.does];
        for &(r, a) in does {
            d.insert(&[r, a]);
        }
        for &c in need_move {
            self.eval_scc(prog, c);
        }
    }

    /// The tuples of a relation, flattened (`arity` ids per tuple).
    pub fn tuples(&self, prog: &Program, r: RelId) -> impl Iterator<Item = &[TermId]> {
        let s = self.rel(prog, r);
        (0..s.len()).map(move |t| s.tuple(t))
    }

    /// Whether a ground tuple holds (as last evaluated).
    pub fn holds(&self, prog: &Program, r: RelId, tuple: &[TermId]) -> bool {
        self.rel(prog, r).contains(tuple)
    }

    fn eval_scc(&mut self, prog: &Program, c: usize) {
        let scc = &prog.sccs[c];
        let level = scc.level as usize;
        let mut out = std::mem::take(&mut self.buf);
        if !scc.recursive {
            for &ri in &scc.rules {
                let rule = &prog.rules[ri];
                out.clear();
                self.run(prog, rule, &rule.plain, (0, 0), &mut out);
                self.insert_all(rule.head_rel, level, &out);
            }
            self.buf = out;
            return;
        }
        let nrel = scc.rels.len();
        let overflows = self.overflows;
        let mut lo: Vec<u32> = scc
            .rels
            .iter()
            .map(|&r| self.dbs[level].rels[r].len)
            .collect();
        for &ri in &scc.rules {
            let rule = &prog.rules[ri];
            out.clear();
            self.run(prog, rule, &rule.plain, (0, 0), &mut out);
            self.insert_all(rule.head_rel, level, &out);
        }
        loop {
            let hi: Vec<u32> = scc
                .rels
                .iter()
                .map(|&r| self.dbs[level].rels[r].len)
                .collect();
            if (0..nrel).all(|i| lo[i] == hi[i]) || self.overflows != overflows {
                break;
            }
            for &ri in &scc.rules {
                let rule = &prog.rules[ri];
                for (drel, order) in &rule.variants {
                    let k = scc.rels.iter().position(|r| r == drel).unwrap_or(0);
                    if lo[k] == hi[k] {
                        continue;
                    }
                    out.clear();
                    self.run(prog, rule, order, (lo[k], hi[k]), &mut out);
                    self.insert_all(rule.head_rel, level, &out);
                }
            }
            lo = hi;
        }
        self.buf = out;
    }

    fn insert_all(&mut self, rel: RelId, level: usize, out: &[TermId]) {
        let store = &mut self.dbs[level].rels[rel];
        let a = store.arity;
        if a == 0 {
            if !out.is_empty() {
                store.insert(&[]);
            }
        } else {
            for t in out.chunks_exact(a) {
                if store.len as usize >= self.limit {
                    self.overflows += 1;
                    self.first_overflow.get_or_insert(rel);
                    return;
                }
                store.insert(t);
            }
        }
    }

    /// Runs one join order, pushing the head tuples (flattened) to `out`;
    /// for arity 0 a dummy id per derivation.
    fn run(
        &mut self,
        prog: &Program,
        rule: &CRule,
        body: &[CLit],
        delta: (u32, u32),
        out: &mut Vec<TermId>,
    ) {
        // A positive literal over an empty relation leaves nothing to join
        // (relations of lower strata are complete; one of this component
        // is read as it is now, which is what this round joins with).
        for lit in body {
            if let CLit::Pos {
                rel,
                index,
                delta: false,
                ..
            } = lit
            {
                let store = &mut self.dbs[prog.rels[*rel].level as usize].rels[*rel];
                if store.len == 0 {
                    return;
                }
                if *index != NONE && *index != 0 {
                    store.sync(*index as usize, &self.terms);
                }
            }
        }
        let s = &mut self.join;
        s.b.clear();
        s.b.resize(rule.nvars, NONE);
        s.trail.clear();
        let limit = self.limit;
        let mut j = Join {
            prog,
            dbs: &self.dbs,
            terms: &mut self.terms,
            s,
            delta,
            head: &rule.head,
            out,
            stop_on_first: rule.head.is_empty(),
            max_out: limit.saturating_mul(rule.head.len().max(1)),
            max_terms: limit.saturating_mul(4),
            overflow: false,
        };
        j.go(body);
        if j.overflow {
            self.overflows += 1;
            self.first_overflow.get_or_insert(rule.head_rel);
        }
    }
}

struct Join<'a> {
    prog: &'a Program,
    dbs: &'a [Db; 3],
    terms: &'a mut TermStore,
    s: &'a mut JoinScratch,
    delta: (u32, u32),
    head: &'a [Pat],
    out: &'a mut Vec<TermId>,
    /// A proposition needs one derivation only.
    stop_on_first: bool,
    /// The bounds of [`Engine::set_limit`], and whether they stopped the join.
    max_out: usize,
    max_terms: usize,
    overflow: bool,
}

impl Join<'_> {
    /// Returns false to stop the whole join.
    fn go(&mut self, body: &[CLit]) -> bool {
        let Some((lit, rest)) = body.split_first() else {
            if self.out.len() >= self.max_out || self.terms.len() >= self.max_terms {
                self.overflow = true;
                return false;
            }
            if self.head.is_empty() {
                self.out.push(0);
                return !self.stop_on_first;
            }
            for p in self.head {
                let t = instantiate(p, &self.s.b, self.terms);
                self.out.push(t);
            }
            return true;
        };
        match lit {
            CLit::Distinct(a, b) | CLit::Equal(a, b) => {
                // Both sides are ground here (the join order places the
                // test after its variables are bound): compare the ids.
                let x = instantiate(a, &self.s.b, self.terms);
                let y = instantiate(b, &self.s.b, self.terms);
                if (x == y) == matches!(lit, CLit::Equal(..)) {
                    return self.go(rest);
                }
                true
            }
            CLit::Neg { rel, args } => {
                let store = &self.dbs[self.prog.rels[*rel].level as usize].rels[*rel];
                let mut tuple = std::mem::take(&mut self.s.tmp);
                tuple.clear();
                let mut present = true;
                for p in args.iter() {
                    match ground(p, &self.s.b, self.terms) {
                        Some(t) => tuple.push(t),
                        None => {
                            present = false;
                            break;
                        }
                    }
                }
                if present {
                    present = store.contains(&tuple);
                }
                self.s.tmp = tuple;
                if !present {
                    return self.go(rest);
                }
                true
            }
            CLit::Pos {
                rel,
                args,
                index,
                delta,
            } => {
                let dbs = self.dbs;
                let store = &dbs[self.prog.rels[*rel].level as usize].rels[*rel];
                if *delta || *index == NONE {
                    let (from, to) = if *delta { self.delta } else { (0, store.len) };
                    for t in from..to {
                        if !self.try_tuple(store, t, args, rest) {
                            return false;
                        }
                    }
                    return true;
                }
                if *index == 0 && args.len() <= 8 {
                    // Every position is bound: a membership test, which
                    // binds nothing.
                    let mut tuple = [0u32; 8];
                    let mut h = IdHasher::default();
                    for (x, p) in tuple.iter_mut().zip(args.iter()) {
                        match ground(p, &self.s.b, self.terms) {
                            Some(t) => {
                                *x = t;
                                h.push(t);
                            }
                            None => return true,
                        }
                    }
                    if store.find(&tuple[..args.len()], h.finish() as u32) {
                        return self.go(rest);
                    }
                    return true;
                }
                let ix = &store.idx[*index as usize];
                // The hash of the key of the bound positions.
                let mut h = IdHasher::default();
                for (k, p) in ix.spec.0.iter().zip(args.iter()) {
                    match k {
                        PosKey::None => {}
                        PosKey::Full => match ground(p, &self.s.b, self.terms) {
                            Some(t) => h.push(t),
                            None => return true,
                        },
                        PosKey::Functor(m) => {
                            let Pat::Fn(f, sub) = p else {
                                return true;
                            };
                            h.push(*f);
                            let mut m = *m;
                            while m != 0 {
                                let j = m.trailing_zeros() as usize;
                                m &= m - 1;
                                match ground(&sub[j], &self.s.b, self.terms) {
                                    Some(t) => h.push(t),
                                    None => return true,
                                }
                            }
                        }
                    }
                }
                let h = h.finish() as u32;
                let mut t = ix.first(h);
                while t != NONE {
                    if ix.hash[t as usize] == h && !self.try_tuple(store, t, args, rest) {
                        return false;
                    }
                    t = ix.next[t as usize];
                }
                true
            }
        }
    }

    #[inline]
    fn try_tuple(&mut self, store: &RelStore, t: u32, args: &[Pat], rest: &[CLit]) -> bool {
        let mark = self.s.trail.len();
        let tuple = store.tuple(t);
        let mut ok = true;
        for (p, &v) in args.iter().zip(tuple) {
            if !unify(p, v, &mut self.s.b, &mut self.s.trail, self.terms) {
                ok = false;
                break;
            }
        }
        let cont = if ok { self.go(rest) } else { true };
        while self.s.trail.len() > mark {
            if let Some(v) = self.s.trail.pop() {
                self.s.b[v as usize] = NONE;
            }
        }
        cont
    }
}

#[inline(always)]
fn unify(p: &Pat, t: TermId, b: &mut [u32], trail: &mut Vec<u32>, terms: &TermStore) -> bool {
    match p {
        Pat::Ground(g) => *g == t,
        Pat::Var(v) => {
            let cur = b[*v as usize];
            if cur == NONE {
                b[*v as usize] = t;
                trail.push(*v);
                true
            } else {
                cur == t
            }
        }
        Pat::Fn(f, sub) => unify_fn(*f, sub, t, b, trail, terms),
    }
}

fn unify_fn(
    f: Sym,
    sub: &[Pat],
    t: TermId,
    b: &mut [u32],
    trail: &mut Vec<u32>,
    terms: &TermStore,
) -> bool {
    let (sym, args) = terms.node(t);
    if sym != f || args.len() != sub.len() {
        return false;
    }
    for (q, &a) in sub.iter().zip(args) {
        if !unify(q, a, b, trail, terms) {
            return false;
        }
    }
    true
}

/// The id of a bound pattern if that term is interned.
#[inline(always)]
fn ground(p: &Pat, b: &[u32], terms: &TermStore) -> Option<TermId> {
    match p {
        Pat::Ground(g) => Some(*g),
        Pat::Var(v) => {
            let t = b[*v as usize];
            (t != NONE).then_some(t)
        }
        Pat::Fn(f, sub) => ground_fn(*f, sub, b, terms),
    }
}

fn ground_fn(f: Sym, sub: &[Pat], b: &[u32], terms: &TermStore) -> Option<TermId> {
    let mut buf = [0u32; 12];
    if sub.len() <= 12 {
        for (i, q) in sub.iter().enumerate() {
            buf[i] = ground(q, b, terms)?;
        }
        terms.lookup(f, &buf[..sub.len()])
    } else {
        let v: Option<Vec<TermId>> = sub.iter().map(|q| ground(q, b, terms)).collect();
        terms.lookup(f, &v?)
    }
}

/// Interns a bound pattern.
fn instantiate(p: &Pat, b: &[u32], terms: &mut TermStore) -> TermId {
    match p {
        Pat::Ground(g) => *g,
        Pat::Var(v) => b[*v as usize],
        Pat::Fn(f, sub) => {
            let mut buf = [0u32; 12];
            if sub.len() <= 12 {
                for (i, q) in sub.iter().enumerate() {
                    buf[i] = instantiate(q, b, terms);
                }
                terms.intern(*f, &buf[..sub.len()])
            } else {
                let v: Vec<TermId> = sub.iter().map(|q| instantiate(q, b, terms)).collect();
                terms.intern(*f, &v)
            }
        }
    }
}
