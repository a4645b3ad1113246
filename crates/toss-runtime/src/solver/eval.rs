//! Evaluation of planned formulas and terms on a structure.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::Solver;
use super::node::*;
use super::plan::MAX_JOIN_ARITY;
use super::unary::{Words, words_contain};
use toss_core::ir::CmpOp;
use toss_core::structure::{BitSet, Elem, RelationData, Structure};

/// A set of tuples of one arity: a bitset over `bound^arity` indices when
/// that is small, a hash set otherwise.
#[derive(Clone, Debug)]
pub(crate) enum TupleSet {
    Bits {
        bound: u64,
        bits: BitSet,
        len: usize,
    },
    Hash(HashSet<Box<[Elem]>>),
}

impl TupleSet {
    pub fn new(arity: usize, bound: usize) -> Self {
        let cells = (bound.max(1) as f64).powi(arity as i32);
        if cells <= (1u64 << 24) as f64 {
            TupleSet::Bits {
                bound: bound as u64,
                bits: BitSet::new(),
                len: 0,
            }
        } else {
            TupleSet::Hash(HashSet::new())
        }
    }
    fn index(bound: u64, t: &[Elem]) -> u32 {
        t.iter().fold(0u64, |acc, &e| acc * bound + e as u64) as u32
    }
    pub fn contains(&self, t: &[Elem]) -> bool {
        match self {
            TupleSet::Bits { bound, bits, .. } => {
                t.iter().all(|&e| (e as u64) < *bound) && bits.contains(Self::index(*bound, t))
            }
            TupleSet::Hash(h) => h.contains(t),
        }
    }
    pub fn insert(&mut self, t: &[Elem]) -> bool {
        match self {
            TupleSet::Bits { bound, bits, len } => {
                let new = bits.insert(Self::index(*bound, t));
                *len += new as usize;
                new
            }
            TupleSet::Hash(h) => h.insert(t.into()),
        }
    }
    pub fn len(&self) -> usize {
        match self {
            TupleSet::Bits { len, .. } => *len,
            TupleSet::Hash(h) => h.len(),
        }
    }
}

/// Values of the slots during one evaluation call.
pub(crate) struct Env {
    pub e: Vec<Elem>,
    pub r: Vec<f64>,
    pub s: Vec<BitSet>,
    pub locals: Vec<TupleSet>,
    pub caches: Vec<HashMap<Vec<u64>, TupleSet>>,
    /// Values of the [`SetExpr::Memo`](super::unary::SetExpr::Memo) slots
    /// on the current structure, when the caller keeps them between calls
    /// (empty otherwise: every memo is evaluated).
    pub memo: Vec<Option<super::unary::Words>>,
    /// The formula's shared nodes, and the values of the shared defined
    /// relations by definition index (0: not evaluated yet, 1: false,
    /// 2: true), on the structure of this call.
    pub shared: Arc<[Node]>,
    pub shared_values: Vec<u8>,
}

impl Env {
    pub fn new(c: &super::Compiled) -> Env {
        Env {
            e: vec![0; c.n_e as usize],
            r: vec![0.0; c.n_r as usize],
            s: vec![BitSet::new(); c.n_s as usize],
            locals: (0..c.n_local)
                .map(|_| TupleSet::Hash(HashSet::new()))
                .collect(),
            caches: (0..c.n_cache).map(|_| HashMap::new()).collect(),
            memo: Vec::new(),
            shared: c.shared.clone(),
            shared_values: if c.shared.is_empty() {
                Vec::new()
            } else {
                vec![0; c.n_defs as usize]
            },
        }
    }

    /// Makes `self` ready for an evaluation of `c`, as `Env::new(c)`
    /// would, keeping the buffers: it runs once per evaluation, and one
    /// pooled environment serves formulas of different sizes in turn, so
    /// the containers are emptied in place (empty ones untouched) and never
    /// shortened (members past `c`'s counts are not read by `c`; each is
    /// emptied here before a formula that uses it runs).
    pub fn reset(&mut self, c: &super::Compiled) {
        self.e.clear();
        self.e.resize(c.n_e as usize, 0);
        self.r.clear();
        self.r.resize(c.n_r as usize, 0.0);
        for b in at_least(&mut self.s, c.n_s as usize, BitSet::new) {
            b.clear();
        }
        let locals = at_least(&mut self.locals, c.n_local as usize, || {
            TupleSet::Hash(HashSet::new())
        });
        for l in locals {
            if l.len() > 0 {
                *l = TupleSet::Hash(HashSet::new());
            }
        }
        for m in at_least(&mut self.caches, c.n_cache as usize, HashMap::new) {
            if !m.is_empty() {
                m.clear();
            }
        }
        self.memo.clear();
        if !c.shared.is_empty() || !self.shared.is_empty() {
            self.shared = c.shared.clone();
            self.shared_values.clear();
            if !c.shared.is_empty() {
                self.shared_values.resize(c.n_defs as usize, 0);
            }
        }
    }
}

/// The first `n` members of `v`, filled up with `f` to at least `n`.
#[inline]
fn at_least<T>(v: &mut Vec<T>, n: usize, mut f: impl FnMut() -> T) -> &mut [T] {
    while v.len() < n {
        v.push(f());
    }
    &mut v[..n]
}

/// Comparison of reals; `eps` is the hook for the epsilon semantics of
/// spec 1.3 (`0` compares exactly). With `eps > 0`: `a < b` holds when
/// `a + eps < b - eps`, `a = b` when `|a - b| <= 2 eps`, and `<=`, `>=`,
/// `!=` are the complements of `>`, `<`, `=`.
pub(crate) fn compare(op: CmpOp, a: f64, b: f64, eps: f64) -> bool {
    if eps == 0.0 {
        return match op {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Ge => a >= b,
            CmpOp::Gt => a > b,
        };
    }
    let lt = a + eps < b - eps;
    let gt = a - eps > b + eps;
    let eq = (a - b).abs() <= 2.0 * eps;
    match op {
        CmpOp::Lt => lt,
        CmpOp::Le => !gt,
        CmpOp::Eq => eq,
        CmpOp::Ne => !eq,
        CmpOp::Ge => !lt,
        CmpOp::Gt => gt,
    }
}

pub(crate) type Callback<'c> = dyn FnMut(&Ev<'_>, &mut Env) -> bool + 'c;

pub(crate) struct Ev<'a> {
    pub sv: &'a Solver,
    pub st: &'a Structure,
}

#[inline]
fn tuple_of<R>(env: &Env, args: &[Slot], f: impl FnOnce(&[Elem]) -> R) -> R {
    if args.len() <= 8 {
        let mut buf = [0 as Elem; 8];
        for (b, &a) in buf.iter_mut().zip(args) {
            *b = env.e[a as usize];
        }
        f(&buf[..args.len()])
    } else {
        let v: Vec<Elem> = args.iter().map(|&a| env.e[a as usize]).collect();
        f(&v)
    }
}

pub(crate) fn data_contains(d: &RelationData, t: &[Elem]) -> bool {
    match d {
        RelationData::Nullary(b) => *b,
        RelationData::Unary(s) => s.contains(t[0]),
        RelationData::Binary { fwd, .. } => fwd
            .get(t[0] as usize)
            .is_some_and(|v| v.binary_search(&t[1]).is_ok()),
        RelationData::General(s) => s.contains(t),
    }
}

impl<'a> Ev<'a> {
    #[inline]
    pub fn data(&self, r: RelRef) -> &'a RelationData {
        match r {
            RelRef::Struct(r) => self.st.relation_data(r),
            RelRef::Table(t) => &self.sv.tables[t as usize].data,
        }
    }

    /// The flat rows of a tabulated relation of arity 3 or more.
    #[inline]
    fn rows(&self, r: RelRef) -> Option<&'a super::Rows> {
        match r {
            RelRef::Struct(_) => None,
            RelRef::Table(t) => self.sv.tables[t as usize].rows.as_ref(),
        }
    }

    /// Whether `n` holds. Atoms and equalities, most of the nodes visited,
    /// are decided inline at the call site; the rest in
    /// [`Ev::holds_node`], whose frame is larger.
    #[inline]
    pub fn holds(&self, n: &Node, env: &mut Env) -> bool {
        match n {
            Node::Atom { rel, args } => self.atom(*rel, args, env),
            Node::Eq(a, b) => env.e[*a as usize] == env.e[*b as usize],
            _ => self.holds_node(n, env),
        }
    }

    #[inline]
    fn atom(&self, rel: RelRef, args: &[Slot], env: &Env) -> bool {
        match *args {
            [a] => match self.data(rel) {
                RelationData::Unary(s) => s.contains(env.e[a as usize]),
                d => data_contains(d, &[env.e[a as usize]]),
            },
            [a, b] => match self.data(rel) {
                RelationData::Binary { fwd, .. } => fwd
                    .get(env.e[a as usize] as usize)
                    .is_some_and(|v| v.binary_search(&env.e[b as usize]).is_ok()),
                d => data_contains(d, &[env.e[a as usize], env.e[b as usize]]),
            },
            _ => self.atom_tuple(rel, args, env),
        }
    }

    #[inline(never)]
    fn atom_tuple(&self, rel: RelRef, args: &[Slot], env: &Env) -> bool {
        if let Some(rows) = self.rows(rel) {
            return tuple_of(env, args, |t| rows.contains(t));
        }
        let d = self.data(rel);
        tuple_of(env, args, |t| data_contains(d, t))
    }

    /// Whether a compiled formula's body holds (for a query: has a
    /// satisfying tuple; for a set: is not empty).
    #[inline]
    pub(crate) fn holds_body(&self, body: &super::Body, env: &mut Env) -> bool {
        match body {
            super::Body::Formula(n) => self.holds(n, env),
            super::Body::Query(qs) => qs.iter().any(|q| self.run(q, env, &mut |_, _| true)),
            super::Body::Real(_) => panic!("holds() called on a real term"),
            super::Body::Set(e) => self.set_words(e, env, &[]).iter().any(|&w| w != 0),
        }
    }

    #[inline(never)]
    fn holds_node(&self, n: &Node, env: &mut Env) -> bool {
        match n {
            Node::True => true,
            Node::False => false,
            Node::Atom { rel, args } => self.atom(*rel, args, env),
            Node::Shared { def, local } => match env.shared_values[*def as usize] {
                0 => {
                    let shared = env.shared.clone();
                    let v = self.holds(&shared[*local as usize], env);
                    env.shared_values[*def as usize] = 1 + v as u8;
                    v
                }
                v => v == 2,
            },
            Node::Local { idx, args } => {
                let l = &env.locals[*idx as usize];
                tuple_of(env, args, |t| l.contains(t))
            }
            Node::Eq(a, b) => env.e[*a as usize] == env.e[*b as usize],
            Node::In { elem, set } => env.s[*set as usize].contains(env.e[*elem as usize]),
            Node::Cmp { lhs, op, rhs } => {
                let a = self.value(lhs, env);
                let b = self.value(rhs, env);
                compare(*op, a, b, self.sv.epsilon)
            }
            Node::Not(x) => !self.holds(x, env),
            Node::And(xs) => xs.iter().all(|x| self.holds(x, env)),
            Node::Or(xs) => xs.iter().any(|x| self.holds(x, env)),
            Node::Search(s) => match &s.join {
                Some(j) => self.table_join(s, j, env),
                None => self.run(s, env, &mut |_, _| true),
            },
            Node::Exists { vars, body } => self.naive_quant(vars, body, env, false),
            Node::Forall { vars, body } => self.naive_quant(vars, body, env, true),
            Node::SetQ(q) => self.set_quantifier(q, env),
            Node::RealQ(q) => {
                let found = self.real_points(q, env, |ev, env| ev.holds(&q.body, env));
                found.is_some() != q.forall
            }
            Node::Fix(f) => self.fixpoint(f, env),
            Node::Tc(t) => self.closure(t, env),
            Node::LetReal { slot, value, body } => {
                let v = self.value(value, env);
                env.r[*slot as usize] = v;
                self.holds(body, env)
            }
        }
    }

    /// Whether a tuple of the join's relation has each element in the set
    /// of its position (see [`TableJoin`]).
    fn table_join(&self, s: &Search, j: &TableJoin, env: &mut Env) -> bool {
        let mut sets: [Option<Words>; MAX_JOIN_ARITY] = Default::default();
        for (w, e) in sets.iter_mut().zip(&j.sets) {
            let v = self.set_words(e, env, &[]);
            if v.iter().all(|&x| x == 0) {
                return false;
            }
            *w = Some(v);
        }
        let arity = j.of_pos.len();
        let rest_in = |t: &[Elem]| {
            (1..arity).all(|i| {
                j.of_pos[i]
                    .is_none_or(|k| sets[k].as_deref().is_some_and(|w| words_contain(w, t[i])))
            })
        };
        let Some(first) = j.of_pos[0].and_then(|k| sets[k].as_deref()) else {
            return self.run(s, env, &mut |_, _| true);
        };
        let rows = self.rows(j.rel);
        let data = self.data(j.rel);
        for (wi, &word) in first.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let e = wi as Elem * 64 + w.trailing_zeros();
                w &= w - 1;
                let found = match (rows, data) {
                    (Some(rows), _) => {
                        let mut rest = rows.starting_with(e);
                        let mut hit = false;
                        while rest.len() >= arity {
                            let (t, r) = rest.split_at(arity);
                            if rest_in(t) {
                                hit = true;
                                break;
                            }
                            rest = r;
                        }
                        hit
                    }
                    (None, RelationData::Binary { fwd, .. }) => fwd
                        .get(e as usize)
                        .is_some_and(|ys| ys.iter().any(|&y| rest_in(&[e, y]))),
                    (None, RelationData::General(set)) => set.with_at(0, e).any(rest_in),
                    (None, _) => false,
                };
                if found {
                    return true;
                }
            }
        }
        false
    }

    /// Unplanned quantifiers (not produced by the planner; kept for
    /// completeness).
    fn naive_quant(&self, vars: &[Slot], body: &Node, env: &mut Env, forall: bool) -> bool {
        let Some((&v, rest)) = vars.split_first() else {
            return self.holds(body, env);
        };
        for e in self.st.elements() {
            env.e[v as usize] = e;
            if self.naive_quant(rest, body, env, forall) != forall {
                return !forall;
            }
        }
        forall
    }

    #[inline]
    fn filters(&self, fs: &[Node], env: &mut Env) -> bool {
        fs.iter().all(|f| self.holds(f, env))
    }

    /// Runs a search, calling `cb` on every solution until it returns true;
    /// returns whether it did.
    pub fn run(&self, s: &Search, env: &mut Env, cb: &mut Callback<'_>) -> bool {
        self.filters(&s.pre, env) && self.step(s, 0, env, cb)
    }

    fn step(&self, s: &Search, i: usize, env: &mut Env, cb: &mut Callback<'_>) -> bool {
        let Some(st) = s.steps.get(i) else {
            return cb(self, env);
        };
        let mut next =
            |env: &mut Env| self.filters(&st.filters, env) && self.step(s, i + 1, env, cb);
        match &st.generator {
            Gen::All(v) => {
                for e in self.st.elements() {
                    env.e[*v as usize] = e;
                    if next(env) {
                        return true;
                    }
                }
                false
            }
            Gen::Eq { var, from } => {
                env.e[*var as usize] = env.e[*from as usize];
                next(env)
            }
            Gen::Unaries { var, pos, neg } => {
                let words = |r: RelRef| match self.data(r) {
                    RelationData::Unary(b) => b.words(),
                    _ => &[],
                };
                let Some((&first, pos)) = pos.split_first() else {
                    return false;
                };
                for (i, &w0) in words(first).iter().enumerate() {
                    let mut w = w0;
                    for &r in pos {
                        w &= words(r).get(i).copied().unwrap_or(0);
                    }
                    for &r in neg.iter() {
                        w &= !words(r).get(i).copied().unwrap_or(0);
                    }
                    while w != 0 {
                        env.e[*var as usize] = (i * 64) as Elem + w.trailing_zeros();
                        w &= w - 1;
                        if next(env) {
                            return true;
                        }
                    }
                }
                false
            }
            Gen::Atom { rel, args } if self.rows(*rel).is_some() => {
                let Some(rows) = self.rows(*rel) else {
                    return false;
                };
                let tuples = match (args[0], args[1]) {
                    (Arg::Bound(a), Arg::Bound(b)) => {
                        rows.starting_with_two(env.e[a as usize], env.e[b as usize])
                    }
                    (Arg::Bound(a), _) => rows.starting_with(env.e[a as usize]),
                    _ => &rows.flat[..],
                };
                // Stepping by the arity, as in `Rows::contains`.
                let mut rest = tuples;
                'rows: while rest.len() >= rows.arity {
                    let (t, r) = rest.split_at(rows.arity);
                    rest = r;
                    for (j, a) in args.iter().enumerate() {
                        match *a {
                            Arg::Bound(x) | Arg::Check(x) => {
                                if t[j] != env.e[x as usize] {
                                    continue 'rows;
                                }
                            }
                            Arg::Bind(x) => env.e[x as usize] = t[j],
                        }
                    }
                    if next(env) {
                        return true;
                    }
                }
                false
            }
            Gen::Atom { rel, args } => match self.data(*rel) {
                RelationData::Nullary(b) => *b && next(env),
                RelationData::Unary(bits) => {
                    let Arg::Bind(v) = args[0] else {
                        return false;
                    };
                    for e in bits.iter() {
                        env.e[v as usize] = e;
                        if next(env) {
                            return true;
                        }
                    }
                    false
                }
                RelationData::Binary { fwd, bwd, .. } => match (args[0], args[1]) {
                    (Arg::Bound(a), Arg::Bind(b)) => {
                        let x = env.e[a as usize] as usize;
                        for &y in fwd.get(x).map_or(&[][..], |v| v) {
                            env.e[b as usize] = y;
                            if next(env) {
                                return true;
                            }
                        }
                        false
                    }
                    (Arg::Bind(a), Arg::Bound(b)) => {
                        let y = env.e[b as usize] as usize;
                        for &x in bwd.get(y).map_or(&[][..], |v| v) {
                            env.e[a as usize] = x;
                            if next(env) {
                                return true;
                            }
                        }
                        false
                    }
                    (Arg::Bind(a), second) => {
                        for (x, ys) in fwd.iter().enumerate() {
                            for &y in ys {
                                if matches!(second, Arg::Check(_)) && y != x as Elem {
                                    continue;
                                }
                                env.e[a as usize] = x as Elem;
                                if let Arg::Bind(b) = second {
                                    env.e[b as usize] = y;
                                }
                                if next(env) {
                                    return true;
                                }
                            }
                        }
                        false
                    }
                    _ => false,
                },
                RelationData::General(set) => {
                    // Scan the tuples through the bound position that has
                    // the fewest of them (all tuples when none is bound).
                    let bound = args
                        .iter()
                        .enumerate()
                        .filter_map(|(j, a)| match *a {
                            Arg::Bound(x) => {
                                let e = env.e[x as usize];
                                Some((set.count_at(j, e), j, e))
                            }
                            _ => None,
                        })
                        .min();
                    let iter = match bound {
                        Some((_, j, e)) => set.with_at(j, e),
                        None => Box::new(set.iter()),
                    };
                    'tuples: for t in iter {
                        for (j, a) in args.iter().enumerate() {
                            match *a {
                                Arg::Bound(x) | Arg::Check(x) => {
                                    if t[j] != env.e[x as usize] {
                                        continue 'tuples;
                                    }
                                }
                                Arg::Bind(x) => env.e[x as usize] = t[j],
                            }
                        }
                        if next(env) {
                            return true;
                        }
                    }
                    false
                }
            },
        }
    }

    pub fn value(&self, t: &Term, env: &mut Env) -> f64 {
        match t {
            Term::Const(c) => *c,
            Term::Var(r) => env.r[*r as usize],
            Term::Fun { fun, elem } => self.st.fun_value(*fun, env.e[*elem as usize]),
            Term::Char(n) => {
                if self.holds(n, env) {
                    1.0
                } else {
                    0.0
                }
            }
            Term::Neg(x) => -self.value(x, env),
            Term::Bin(op, a, b) => {
                let a = self.value(a, env);
                let b = self.value(b, env);
                match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    BinOp::Pow => a.powf(b),
                }
            }
            Term::Root(n, x) => {
                let v = self.value(x, env);
                if *n == 1 {
                    v
                } else if *n == 2 {
                    v.sqrt()
                } else if v < 0.0 && n % 2 == 1 {
                    -(-v).powf(1.0 / *n as f64)
                } else {
                    v.powf(1.0 / *n as f64)
                }
            }
            Term::Agg(a) => {
                let Some(search) = &a.search else {
                    return f64::NAN;
                };
                let mut acc = if a.product { 1.0 } else { 0.0 };
                let product = a.product;
                let body = &a.body;
                self.run(search, env, &mut |ev, env| {
                    let v = ev.value(body, env);
                    if product {
                        acc *= v;
                    } else {
                        acc += v;
                    }
                    false
                });
                acc
            }
            Term::Min(q) => self.minimum(q, env),
            Term::Let { slot, value, body } => {
                let v = self.value(value, env);
                env.r[*slot as usize] = v;
                self.value(body, env)
            }
        }
    }

    /// The sorted distinct candidate values of a real quantifier.
    fn candidate_values(&self, q: &RealQ, env: &mut Env) -> Vec<f64> {
        let mut vals = Vec::new();
        for c in &q.cands {
            self.each_assignment(&c.inner, env, &mut |ev, env| {
                let v = ev.value(&c.term, env);
                if !v.is_nan() {
                    vals.push(v);
                }
            });
        }
        vals.sort_by(f64::total_cmp);
        vals.dedup();
        vals
    }

    fn each_assignment(&self, slots: &[Slot], env: &mut Env, f: &mut dyn FnMut(&Self, &mut Env)) {
        match slots.split_first() {
            None => f(self, env),
            Some((&v, rest)) => {
                for e in self.st.elements() {
                    env.e[v as usize] = e;
                    self.each_assignment(rest, env, f);
                }
            }
        }
    }

    /// Tries the test points of a real quantifier in increasing order
    /// (below all candidates, each candidate, between consecutive ones,
    /// above all) and returns the first `(point, infimum)` where `test`
    /// holds. The truth of the body is constant on each open interval
    /// between candidates, so these points decide it.
    fn real_points(
        &self,
        q: &RealQ,
        env: &mut Env,
        test: impl Fn(&Self, &mut Env) -> bool,
    ) -> Option<f64> {
        let vals = self.candidate_values(q, env);
        let slot = q.var as usize;
        let try_at = |x: f64, env: &mut Env| {
            env.r[slot] = x;
            test(self, env)
        };
        let finite: Vec<f64> = vals.iter().copied().filter(|v| v.is_finite()).collect();
        if finite.is_empty() {
            if try_at(0.0, env) {
                return Some(f64::NEG_INFINITY);
            }
            for &v in &vals {
                if try_at(v, env) {
                    return Some(v);
                }
            }
            return None;
        }
        let lo = finite[0];
        if try_at(lo - 1.0 - lo.abs(), env) {
            return Some(f64::NEG_INFINITY);
        }
        for (i, &v) in finite.iter().enumerate() {
            if try_at(v, env) {
                return Some(v);
            }
            let above = match finite.get(i + 1) {
                Some(&w) => v + (w - v) / 2.0,
                None => v + 1.0 + v.abs(),
            };
            if try_at(above, env) {
                return Some(v);
            }
        }
        None
    }

    fn minimum(&self, q: &RealQ, env: &mut Env) -> f64 {
        self.real_points(q, env, |ev, env| ev.holds(&q.body, env))
            .unwrap_or(f64::INFINITY)
    }

    fn cache_key(&self, c: &CacheInfo, extra: &[Slot], env: &Env) -> Vec<u64> {
        extra
            .iter()
            .chain(&c.deps_e)
            .map(|&s| env.e[s as usize] as u64)
            .chain(c.deps_r.iter().map(|&r| env.r[r as usize].to_bits()))
            .collect()
    }

    fn all_tuples(&self, arity: usize) -> TupleSet {
        let mut out = TupleSet::new(arity, self.st.id_bound());
        let elems: Vec<Elem> = self.st.elements().collect();
        let mut t = vec![0; arity];
        fn rec(i: usize, t: &mut Vec<Elem>, elems: &[Elem], out: &mut TupleSet) {
            if i == t.len() {
                out.insert(t);
                return;
            }
            for &e in elems {
                t[i] = e;
                rec(i + 1, t, elems, out);
            }
        }
        rec(0, &mut t, &elems, &mut out);
        out
    }

    fn fixpoint(&self, f: &Fix, env: &mut Env) -> bool {
        let key = f.cache.enabled.then(|| self.cache_key(&f.cache, &[], env));
        if let Some(set) = key
            .as_ref()
            .and_then(|k| env.caches[f.cache.idx as usize].get(k))
        {
            return tuple_of(env, &f.outer, |t| set.contains(t));
        }
        if let Some(body) = &f.unary {
            let words = self.fix_words(body, f.greatest, env);
            let res = tuple_of(env, &f.outer, |t| super::unary::words_contain(&words, t[0]));
            if let Some(k) = key {
                let bits = super::unary::to_bitset(words);
                let len = bits.len();
                let set = TupleSet::Bits {
                    bound: self.st.id_bound() as u64,
                    bits,
                    len,
                };
                env.caches[f.cache.idx as usize].insert(k, set);
            }
            return res;
        }
        let Some(search) = &f.search else {
            return false;
        };
        let arity = f.inner.len();
        let bound = self.st.id_bound();
        let mut cur = if f.greatest {
            self.all_tuples(arity)
        } else {
            TupleSet::new(arity, bound)
        };
        // Each round recomputes the body on the previous iterate; the body
        // is monotone in the relation, so the size decides convergence.
        let max_rounds = (self.st.num_elements() as f64).powi(arity as i32) as usize + 2;
        for _ in 0..max_rounds {
            env.locals[f.local as usize] = cur;
            let mut next = TupleSet::new(arity, bound);
            let inner = &f.inner;
            self.run(search, env, &mut |_, env| {
                tuple_of(env, inner, |t| next.insert(t));
                false
            });
            cur = std::mem::replace(&mut env.locals[f.local as usize], TupleSet::new(0, 0));
            let done = next.len() == cur.len();
            cur = next;
            if done {
                break;
            }
        }
        let res = tuple_of(env, &f.outer, |t| cur.contains(t));
        if let Some(k) = key {
            env.caches[f.cache.idx as usize].insert(k, cur);
        }
        res
    }

    /// Successors of the tuple `from` under the closure body.
    fn successors(&self, t: &Tc, search: &Search, from: &[Elem], env: &mut Env) -> Vec<Vec<Elem>> {
        for (&s, &e) in t.inner_from.iter().zip(from) {
            env.e[s as usize] = e;
        }
        let mut out = Vec::new();
        let to = &t.inner_to;
        self.run(search, env, &mut |_, env| {
            out.push(to.iter().map(|&s| env.e[s as usize]).collect());
            false
        });
        out
    }

    fn closure(&self, t: &Tc, env: &mut Env) -> bool {
        let src: Vec<Elem> = t.outer_from.iter().map(|&s| env.e[s as usize]).collect();
        let dst: Vec<Elem> = t.outer_to.iter().map(|&s| env.e[s as usize]).collect();
        if t.steps.is_none() && src == dst {
            return true;
        }
        let key = t
            .cache
            .enabled
            .then(|| self.cache_key(&t.cache, &t.outer_from, env));
        if let Some(set) = key
            .as_ref()
            .and_then(|k| env.caches[t.cache.idx as usize].get(k))
        {
            return set.contains(&dst);
        }
        let Some(search) = &t.search else {
            return false;
        };
        let arity = src.len();
        let bound = self.st.id_bound();
        let mut reach = TupleSet::new(arity, bound);
        match t.steps {
            None => {
                reach.insert(&src);
                let mut stack = vec![src];
                while let Some(u) = stack.pop() {
                    for v in self.successors(t, search, &u, env) {
                        if reach.insert(&v) {
                            stack.push(v);
                        }
                    }
                }
            }
            Some(m) => {
                let mut layer = vec![src];
                for _ in 0..m {
                    let mut seen = TupleSet::new(arity, bound);
                    let mut next = Vec::new();
                    for u in &layer {
                        for v in self.successors(t, search, u, env) {
                            if seen.insert(&v) {
                                next.push(v);
                            }
                        }
                    }
                    layer = next;
                    if layer.is_empty() {
                        break;
                    }
                }
                for u in &layer {
                    reach.insert(u);
                }
            }
        }
        let res = reach.contains(&dst);
        if let Some(k) = key {
            env.caches[t.cache.idx as usize].insert(k, reach);
        }
        res
    }

    fn set_quantifier(&self, q: &SetQ, env: &mut Env) -> bool {
        if q.sat {
            return super::sat::decide(self, q, env);
        }
        let elems: Vec<Elem> = self.st.elements().collect();
        self.brute_sets(&q.vars, &q.body, &elems, env)
    }

    /// `ex vars body` by enumerating all subsets of the universe.
    pub fn brute_sets(&self, vars: &[SSlot], body: &Node, elems: &[Elem], env: &mut Env) -> bool {
        let Some((&v, rest)) = vars.split_first() else {
            return self.holds(body, env);
        };
        let n = elems.len();
        if n > super::SET_ENUMERATION_LIMIT {
            self.sv.report_fault(super::enumeration_fault(n));
            return false;
        }
        for mask in 0..(1u64 << n) {
            let mut s = BitSet::with_capacity(self.st.id_bound());
            for (i, &e) in elems.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    s.insert(e);
                }
            }
            env.s[v as usize] = s;
            if self.brute_sets(rest, body, elems, env) {
                return true;
            }
        }
        false
    }
}
