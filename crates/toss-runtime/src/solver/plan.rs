//! Normalisation and query planning.
//!
//! Negations are pushed to the leaves (negation normal form, with `all x`
//! as `not ex x not`). Each existential block collects the conjunction
//! below it (flattening nested existentials), distributes over a few
//! disjunctions that mention its variables, and splits into independent
//! components (miniscoping, as TNF in spec 3.2). Each component becomes a
//! `Search`: variables are bound one step at a time from the most selective
//! generator (an equality, a relation index with bound arguments, a unary
//! bitset, ...), and every conjunct is checked as soon as its variables are
//! bound.

use std::collections::BTreeSet;

use super::node::*;

/// Maximum number of branches produced by distributing an existential over
/// disjunctions.
const MAX_BRANCHES: usize = 32;

/// Maximum number of branches that distributing creates in one compiled
/// formula, nested existentials included. Each branch copies the rest of its
/// conjunction, nested plans too, so without a total bound nested
/// disjunctions (a walk along a line through a defined relation that is a
/// disjunction) grow exponentially with the nesting depth. Past the bound a
/// disjunction stays a filter.
pub(crate) const MAX_TOTAL_BRANCHES: usize = 512;

/// The largest arity of a [`TableJoin`] (its sets are kept on the stack).
pub(crate) const MAX_JOIN_ARITY: usize = 8;

/// The conjunct of `conj` to distribute over, if any: a disjunction (of at
/// most as many disjuncts as `branches` leaves room for) that mentions a
/// variable of `vars` that no other conjunct can generate (a relation atom
/// or an equality). A disjunction whose variables are all generated
/// elsewhere stays a filter, checked once they are bound: distributing it
/// would repeat the rest of the search per disjunct, and nested
/// disjunctions (a walk along a line, `P(y) or (Q(y) and ex z ...)`)
/// would multiply.
fn distributable(
    conj: &[Node],
    vars: &BTreeSet<Slot>,
    branches: usize,
    budget: &std::cell::Cell<usize>,
) -> Option<usize> {
    let generated: BTreeSet<Slot> = conj
        .iter()
        .filter(|c| matches!(c, Node::Atom { .. } | Node::Eq(..)))
        .flat_map(|c| node_vars(c).e)
        .filter(|x| vars.contains(x))
        .collect();
    conj.iter().position(|c| {
        matches!(c, Node::Or(xs) if branches * xs.len() <= MAX_BRANCHES && xs.len() <= budget.get())
            && node_vars(c)
                .e
                .iter()
                .any(|x| vars.contains(x) && !generated.contains(x))
    })
}

pub(crate) struct Planner<'a> {
    /// Arity of every relation reference (needed for generator costs).
    pub table_arity: &'a dyn Fn(RelRef) -> usize,
    /// Stable binary relations as translations of element ids (for
    /// set-at-a-time images), when known.
    pub shifts: super::unary::ShiftsOf<'a>,
    /// Branches distributing may still create (see [`MAX_TOTAL_BRANCHES`]).
    pub budget: std::cell::Cell<usize>,
    /// Set when a set quantifier will be decided by enumerating subsets of
    /// the universe (see [`needs_enumeration`]).
    pub enumerates: std::cell::Cell<bool>,
}

fn not(n: Node) -> Node {
    match n {
        Node::True => Node::False,
        Node::False => Node::True,
        Node::Not(x) => *x,
        n => Node::Not(Box::new(n)),
    }
}

fn and(xs: Vec<Node>) -> Node {
    let mut out = Vec::new();
    for x in xs {
        match x {
            Node::True => {}
            Node::False => return Node::False,
            Node::And(ys) => out.extend(ys),
            x => out.push(x),
        }
    }
    match out.len() {
        0 => Node::True,
        1 => out.pop().unwrap_or(Node::True),
        _ => Node::And(out),
    }
}

fn or(xs: Vec<Node>) -> Node {
    let mut out = Vec::new();
    for x in xs {
        match x {
            Node::False => {}
            Node::True => return Node::True,
            Node::Or(ys) => out.extend(ys),
            x => out.push(x),
        }
    }
    match out.len() {
        0 => Node::False,
        1 => out.pop().unwrap_or(Node::False),
        _ => Node::Or(out),
    }
}

/// Rough evaluation cost class of a filter, cheap first.
fn filter_cost(n: &Node) -> u32 {
    match n {
        Node::True | Node::False => 0,
        Node::Atom { .. } | Node::Eq(..) | Node::In { .. } | Node::Local { .. } => 1,
        Node::Not(x) => filter_cost(x),
        Node::Cmp { .. } => 3,
        Node::And(xs) | Node::Or(xs) => xs.iter().map(filter_cost).max().unwrap_or(0) + 1,
        Node::Search(_) | Node::LetReal { .. } | Node::Shared { .. } => 5,
        _ => 8,
    }
}

impl Planner<'_> {
    pub fn formula(&self, n: Node) -> Node {
        self.norm(n, false)
    }

    fn norm(&self, n: Node, neg: bool) -> Node {
        match n {
            Node::True | Node::False => {
                if neg {
                    not(n)
                } else {
                    n
                }
            }
            Node::Atom { .. }
            | Node::Local { .. }
            | Node::Eq(..)
            | Node::In { .. }
            | Node::Shared { .. } => {
                if neg {
                    not(n)
                } else {
                    n
                }
            }
            Node::Cmp { lhs, op, rhs } => {
                let c = Node::Cmp {
                    lhs: self.term(lhs),
                    op,
                    rhs: self.term(rhs),
                };
                if neg { not(c) } else { c }
            }
            Node::Not(x) => self.norm(*x, !neg),
            Node::And(xs) => {
                let ys = xs.into_iter().map(|x| self.norm(x, neg)).collect();
                if neg { or(ys) } else { and(ys) }
            }
            Node::Or(xs) => {
                let ys = xs.into_iter().map(|x| self.norm(x, neg)).collect();
                if neg { and(ys) } else { or(ys) }
            }
            Node::Exists { vars, body } => {
                let s = self.exists(vars, *body, false);
                if neg { not(s) } else { s }
            }
            Node::Forall { vars, body } => {
                let s = self.exists(vars, *body, true);
                if neg { s } else { not(s) }
            }
            Node::Search(_) => {
                if neg {
                    not(n)
                } else {
                    n
                }
            }
            Node::SetQ(q) => {
                let SetQ {
                    forall, vars, body, ..
                } = *q;
                let body = self.norm(body, forall);
                let sat = groundable(&body, &vars.iter().copied().collect());
                if !sat || symbolic_under_negation(&body, &vars.iter().copied().collect(), true) {
                    self.enumerates.set(true);
                }
                let q = Node::SetQ(Box::new(SetQ {
                    forall: false,
                    vars,
                    body,
                    sat,
                }));
                if forall != neg { not(q) } else { q }
            }
            Node::RealQ(q) => {
                let RealQ {
                    forall,
                    var,
                    body,
                    cands,
                } = *q;
                let body = self.norm(body, forall);
                let cands = cands
                    .into_iter()
                    .map(|c| Cand {
                        term: self.term(c.term),
                        inner: c.inner,
                    })
                    .collect();
                let q = Node::RealQ(Box::new(RealQ {
                    forall: false,
                    var,
                    body,
                    cands,
                }));
                if forall != neg { not(q) } else { q }
            }
            Node::Fix(mut f) => {
                f.unary = self.fix_set(&f);
                let body = std::mem::replace(&mut f.body, Node::True);
                let body = self.norm(body, false);
                f.search = Some(self.enumerate(f.inner.clone(), conjuncts(body.clone())));
                f.body = body;
                let n = Node::Fix(f);
                if neg { not(n) } else { n }
            }
            Node::Tc(mut t) => {
                let body = std::mem::replace(&mut t.body, Node::True);
                let body = self.norm(body, false);
                t.search = Some(self.enumerate(t.inner_to.clone(), conjuncts(body.clone())));
                t.body = body;
                let n = Node::Tc(t);
                if neg { not(n) } else { n }
            }
            Node::LetReal { slot, value, body } => Node::LetReal {
                slot,
                value: self.term(value),
                body: Box::new(self.norm(*body, neg)),
            },
        }
    }

    pub fn term(&self, t: Term) -> Term {
        match t {
            Term::Const(_) | Term::Var(_) | Term::Fun { .. } => t,
            Term::Char(n) => Term::Char(Box::new(self.formula(*n))),
            Term::Neg(x) => Term::Neg(Box::new(self.term(*x))),
            Term::Root(n, x) => Term::Root(n, Box::new(self.term(*x))),
            Term::Bin(op, a, b) => Term::Bin(op, Box::new(self.term(*a)), Box::new(self.term(*b))),
            Term::Agg(mut a) => {
                let guard = std::mem::replace(&mut a.guard, Node::True);
                let guard = self.formula(guard);
                a.search = Some(self.enumerate(a.vars.clone(), conjuncts(guard)));
                a.body = self.term(std::mem::replace(&mut a.body, Term::Const(0.0)));
                Term::Agg(a)
            }
            Term::Min(q) => {
                let RealQ {
                    var, body, cands, ..
                } = *q;
                Term::Min(Box::new(RealQ {
                    forall: false,
                    var,
                    body: self.formula(body),
                    cands: cands
                        .into_iter()
                        .map(|c| Cand {
                            term: self.term(c.term),
                            inner: c.inner,
                        })
                        .collect(),
                }))
            }
            Term::Let { slot, value, body } => Term::Let {
                slot,
                value: Box::new(self.term(*value)),
                body: Box::new(self.term(*body)),
            },
        }
    }

    /// `ex vars body` (`ex vars not body` when `negate_body`).
    fn exists(&self, mut vars: Vec<Slot>, body: Node, negate_body: bool) -> Node {
        let mut conj = Vec::new();
        self.collect(body, negate_body, &mut vars, &mut conj);
        self.plan_exists(vars, conj, &mut 1)
    }

    /// Collects the conjuncts of `n` (negated if `neg`), pulling nested
    /// existential variables up.
    fn collect(&self, n: Node, neg: bool, vars: &mut Vec<Slot>, out: &mut Vec<Node>) {
        match (n, neg) {
            (Node::And(xs), false) | (Node::Or(xs), true) => {
                for x in xs {
                    self.collect(x, neg, vars, out);
                }
            }
            (Node::Exists { vars: vs, body }, false) | (Node::Forall { vars: vs, body }, true) => {
                vars.extend(vs);
                self.collect(*body, neg, vars, out);
            }
            (Node::Not(x), _) => self.collect(*x, !neg, vars, out),
            (Node::True, false) | (Node::False, true) => {}
            (n, neg) => match self.norm(n, neg) {
                Node::And(xs) => out.extend(xs),
                Node::True => {}
                x => out.push(x),
            },
        }
    }

    fn plan_exists(&self, vars: Vec<Slot>, conj: Vec<Node>, branches: &mut usize) -> Node {
        if conj.iter().any(|c| matches!(c, Node::False)) {
            return Node::False;
        }
        let var_set: BTreeSet<Slot> = vars.iter().copied().collect();
        // Distribute over a disjunction that the variables need.
        if let Some(i) = distributable(&conj, &var_set, *branches, &self.budget) {
            let mut rest = conj;
            let Node::Or(ds) = rest.remove(i) else {
                unreachable!()
            };
            *branches *= ds.len();
            self.budget.set(self.budget.get() - ds.len());
            let alts = ds
                .into_iter()
                .map(|d| {
                    let mut c = rest.clone();
                    match d {
                        Node::And(xs) => c.extend(xs),
                        d => c.push(d),
                    }
                    self.plan_exists(vars.clone(), c, branches)
                })
                .collect();
            return or(alts);
        }
        // Split into components connected by shared variables.
        let mut outer = Vec::new();
        let mut comps: Vec<(BTreeSet<Slot>, Vec<Node>)> = Vec::new();
        for c in conj {
            let vs: BTreeSet<Slot> = node_vars(&c)
                .e
                .into_iter()
                .filter(|x| var_set.contains(x))
                .collect();
            if vs.is_empty() {
                outer.push(c);
                continue;
            }
            let mut merged = (vs, vec![c]);
            let mut k = 0;
            while k < comps.len() {
                if !comps[k].0.is_disjoint(&merged.0) {
                    let (s, cs) = comps.swap_remove(k);
                    merged.0.extend(s);
                    merged.1.extend(cs);
                } else {
                    k += 1;
                }
            }
            comps.push(merged);
        }
        for v in &vars {
            if !comps.iter().any(|(s, _)| s.contains(v)) {
                comps.push(([*v].into_iter().collect(), Vec::new()));
            }
        }
        outer.sort_by_key(filter_cost);
        let mut parts = outer;
        for (vs, cs) in comps {
            let vs: Vec<Slot> = vars.iter().copied().filter(|v| vs.contains(v)).collect();
            let join = self.table_join(&vs, &cs);
            let mut s = self.enumerate(vs, cs);
            s.join = join.map(std::sync::Arc::new);
            parts.push(Node::Search(std::sync::Arc::new(s)));
        }
        and(parts)
    }

    /// The set at a time form of `ex vars (conj)` when `conj` is one atom
    /// over all of `vars` (each once, at most [`MAX_JOIN_ARITY`] of them)
    /// and conjuncts of one variable each that are set expressions, the
    /// first argument having at least one (its members are where the scan
    /// starts).
    fn table_join(&self, vars: &[Slot], conj: &[Node]) -> Option<TableJoin> {
        if vars.len() < 2 || vars.len() > MAX_JOIN_ARITY {
            return None;
        }
        let mut atom = None;
        let mut of_var: Vec<Vec<Node>> = vec![Vec::new(); vars.len()];
        for c in conj {
            let vs: Vec<Slot> = node_vars(c)
                .e
                .into_iter()
                .filter(|x| vars.contains(x))
                .collect();
            match c {
                Node::Atom { rel, args }
                    if atom.is_none() && vs.len() == vars.len() && args.len() == vars.len() =>
                {
                    atom = Some((*rel, args));
                }
                _ if vs.len() == 1 => {
                    let i = vars.iter().position(|v| *v == vs[0])?;
                    of_var[i].push(c.clone());
                }
                _ => return None,
            }
        }
        let (rel, args) = atom?;
        let mut sets: Vec<super::unary::SetExpr> = Vec::new();
        let mut of_pos = Vec::with_capacity(args.len());
        for a in args.iter() {
            let i = vars.iter().position(|v| v == a)?;
            let e = match of_var[i].len() {
                0 => {
                    of_pos.push(None);
                    continue;
                }
                1 => self.set_expr(&of_var[i][0], *a, &[*a], None)?,
                _ => self.set_expr(&Node::And(of_var[i].clone()), *a, &[*a], None)?,
            };
            // Positions with the same condition (`Q(a) and Q(b) and ...`)
            // share one set.
            match sets.iter().position(|x| super::unary::same(x, &e)) {
                Some(k) => of_pos.push(Some(k)),
                None => {
                    sets.push(e);
                    of_pos.push(Some(sets.len() - 1));
                }
            }
        }
        of_pos[0]?;
        Some(TableJoin { rel, sets, of_pos })
    }

    /// Plans the enumeration of `vars` satisfying `node`, as a union of
    /// searches (distributing over disjunctions that mention `vars`). The
    /// searches may overlap: callers deduplicate.
    pub fn enumerate_dnf(&self, vars: Vec<Slot>, node: Node) -> Vec<Search> {
        let mut out = Vec::new();
        self.dnf(&vars, conjuncts(node), &mut 1, &mut out);
        out
    }

    fn dnf(&self, vars: &[Slot], conj: Vec<Node>, branches: &mut usize, out: &mut Vec<Search>) {
        if conj.iter().any(|c| matches!(c, Node::False)) {
            return;
        }
        let var_set: BTreeSet<Slot> = vars.iter().copied().collect();
        if let Some(i) = distributable(&conj, &var_set, *branches, &self.budget) {
            let mut rest = conj;
            let Node::Or(ds) = rest.remove(i) else {
                unreachable!()
            };
            *branches *= ds.len();
            self.budget.set(self.budget.get() - ds.len());
            for d in ds {
                let mut c = rest.clone();
                match d {
                    Node::And(xs) => c.extend(xs),
                    d => c.push(d),
                }
                self.dnf(vars, c, branches, out);
            }
            return;
        }
        out.push(self.enumerate_with(vars.to_vec(), conj, true));
    }

    /// Plans the enumeration of all assignments of `vars` satisfying the
    /// conjunction `conj` (every other variable is bound by the caller).
    pub fn enumerate(&self, vars: Vec<Slot>, conj: Vec<Node>) -> Search {
        self.enumerate_with(vars, conj, false)
    }

    /// [`Planner::enumerate`]; with `open`, a variable that no conjunct
    /// generates may instead be reached through the witnesses of an
    /// existential conjunct: the search is opened, its variables joining the
    /// enumeration (so an assignment of `vars` may be found more than once:
    /// only queries, whose callers deduplicate, ask for this). Without it
    /// `D1(x, y) = ex z (R(x, z) and C(z, y))` would be tabulated by trying
    /// every pair `x, y`, quadratic in the elements of a board, where
    /// `R(x, z)` then `C(z, y)` reach each pair once.
    fn enumerate_with(&self, vars: Vec<Slot>, conj: Vec<Node>, open: bool) -> Search {
        let mut var_set: BTreeSet<Slot> = vars.iter().copied().collect();
        // Variables of opened searches, in the order they were opened.
        let mut witnesses: Vec<Slot> = Vec::new();
        let mut bound: BTreeSet<Slot> = BTreeSet::new();
        let mut rest: Vec<(Node, BTreeSet<Slot>)> = conj
            .into_iter()
            .map(|c| {
                let vs = node_vars(&c)
                    .e
                    .into_iter()
                    .filter(|x| var_set.contains(x))
                    .collect();
                (c, vs)
            })
            .collect();
        let take_ready = |rest: &mut Vec<(Node, BTreeSet<Slot>)>, bound: &BTreeSet<Slot>| {
            let mut ready = Vec::new();
            let mut k = 0;
            while k < rest.len() {
                if rest[k].1.is_subset(bound) {
                    ready.push(rest.remove(k).0);
                } else {
                    k += 1;
                }
            }
            ready.sort_by_key(filter_cost);
            ready
        };
        let mut pre = take_ready(&mut rest, &bound);
        let mut steps: Vec<Step> = Vec::new();
        while vars.iter().any(|v| !bound.contains(v)) {
            let mut best: Option<(u32, usize)> = None;
            for (k, (c, _)) in rest.iter().enumerate() {
                if let Some(cost) = self.gen_cost(c, &var_set, &bound)
                    && best.is_none_or(|(b, _)| cost < b)
                {
                    best = Some((cost, k));
                }
            }
            if best.is_none()
                && open
                && let Some(k) = rest.iter().position(|(c, vs)| {
                    matches!(c, Node::Search(_)) && vs.iter().any(|v| !bound.contains(v))
                })
            {
                let (Node::Search(s), _) = rest.remove(k) else {
                    unreachable!("position found a search")
                };
                var_set.extend(s.vars.iter().copied());
                witnesses.extend(s.vars.iter().copied());
                for c in search_conjuncts(&s) {
                    let vs = node_vars(&c)
                        .e
                        .into_iter()
                        .filter(|x| var_set.contains(x))
                        .collect();
                    rest.push((c, vs));
                }
                // Conjuncts of the search over bound variables alone.
                let ready = take_ready(&mut rest, &bound);
                match steps.last_mut() {
                    Some(st) => st.filters.extend(ready),
                    None => pre.extend(ready),
                }
                continue;
            }
            let generator = match best {
                Some((_, k)) => {
                    let (c, _) = rest.remove(k);
                    make_gen(c, &var_set, &mut bound)
                }
                None => {
                    // No generator: the unbound variable used most often.
                    let v = vars
                        .iter()
                        .copied()
                        .filter(|v| !bound.contains(v))
                        .max_by_key(|v| {
                            (
                                rest.iter().filter(|(_, vs)| vs.contains(v)).count(),
                                std::cmp::Reverse(*v),
                            )
                        })
                        .unwrap_or(0);
                    bound.insert(v);
                    Gen::All(v)
                }
            };
            let mut filters = take_ready(&mut rest, &bound);
            let generator = self.intersect_unaries(generator, &mut filters);
            steps.push(Step { generator, filters });
        }
        if witnesses.is_empty() {
            return Search::new(vars, pre, steps);
        }
        // Witnesses not needed to reach `vars` stay existential: checked
        // once per assignment, stopping at the first witness.
        let unbound: Vec<Slot> = witnesses
            .iter()
            .copied()
            .filter(|w| !bound.contains(w))
            .collect();
        if !rest.is_empty() {
            let check = self.plan_exists(
                unbound.clone(),
                rest.into_iter().map(|(c, _)| c).collect(),
                &mut 1,
            );
            match steps.last_mut() {
                Some(st) => st.filters.push(check),
                None => pre.push(check),
            }
        }
        let mut all = vars;
        all.extend(witnesses.into_iter().filter(|w| !unbound.contains(w)));
        Search::new(all, pre, steps)
    }

    /// A unary generator joined with the unary filters (positive or
    /// negated) of the variable it binds, which leave `filters`: the
    /// members are then found by word operations.
    fn intersect_unaries(&self, generator: Gen, filters: &mut Vec<Node>) -> Gen {
        let Gen::Atom { rel, args } = &generator else {
            return generator;
        };
        let [Arg::Bind(var)] = args[..] else {
            return generator;
        };
        let unary_of = |n: &Node| match n {
            Node::Atom { rel, args } if args[..] == [var] && (self.table_arity)(*rel) == 1 => {
                Some(*rel)
            }
            _ => None,
        };
        let (mut pos, mut neg) = (vec![*rel], Vec::new());
        filters.retain(|f| {
            if let Some(r) = unary_of(f) {
                pos.push(r);
                return false;
            }
            if let Node::Not(g) = f
                && let Some(r) = unary_of(g)
            {
                neg.push(r);
                return false;
            }
            true
        });
        if pos.len() == 1 && neg.is_empty() {
            return generator;
        }
        Gen::Unaries {
            var,
            pos: pos.into(),
            neg: neg.into(),
        }
    }

    /// Cost of using `c` as a generator binding some unbound variables, if
    /// it can be one.
    fn gen_cost(&self, c: &Node, vars: &BTreeSet<Slot>, bound: &BTreeSet<Slot>) -> Option<u32> {
        let unbound = |x: &Slot| vars.contains(x) && !bound.contains(x);
        match c {
            Node::Eq(a, b) => {
                if unbound(a) != unbound(b) {
                    Some(10)
                } else {
                    None
                }
            }
            Node::Atom { rel, args } => {
                let n_unbound = args.iter().filter(|x| unbound(x)).count();
                if n_unbound == 0 {
                    return None;
                }
                let arity = (self.table_arity)(*rel);
                Some(match arity {
                    1 => 40,
                    2 if n_unbound == 1 => 20,
                    2 => 60,
                    _ if !unbound(&args[0]) => 25,
                    _ if n_unbound < arity => 50,
                    _ => 70,
                })
            }
            _ => None,
        }
    }
}

/// The conjuncts a planned search checks, its generators as atoms again.
fn search_conjuncts(s: &Search) -> Vec<Node> {
    let mut out = s.pre.clone();
    for st in &s.steps {
        match &st.generator {
            Gen::All(_) => {}
            Gen::Eq { var, from } => out.push(Node::Eq(*var, *from)),
            Gen::Atom { rel, args } => out.push(Node::Atom {
                rel: *rel,
                args: args
                    .iter()
                    .map(|a| match a {
                        Arg::Bound(x) | Arg::Bind(x) | Arg::Check(x) => *x,
                    })
                    .collect(),
            }),
            Gen::Unaries { var, pos, neg } => {
                let atom = |rel: &RelRef| Node::Atom {
                    rel: *rel,
                    args: Box::new([*var]),
                };
                out.extend(pos.iter().map(atom));
                out.extend(neg.iter().map(|r| Node::Not(Box::new(atom(r)))));
            }
        }
        out.extend(st.filters.iter().cloned());
    }
    out
}

fn make_gen(c: Node, vars: &BTreeSet<Slot>, bound: &mut BTreeSet<Slot>) -> Gen {
    match c {
        Node::Eq(a, b) => {
            let (var, from) = if vars.contains(&a) && !bound.contains(&a) {
                (a, b)
            } else {
                (b, a)
            };
            bound.insert(var);
            Gen::Eq { var, from }
        }
        Node::Atom { rel, args } => {
            let mut out = Vec::with_capacity(args.len());
            let mut newly: Vec<Slot> = Vec::new();
            for &x in args.iter() {
                if vars.contains(&x) && !bound.contains(&x) {
                    if newly.contains(&x) {
                        out.push(Arg::Check(x));
                    } else {
                        newly.push(x);
                        out.push(Arg::Bind(x));
                    }
                } else {
                    out.push(Arg::Bound(x));
                }
            }
            bound.extend(newly);
            Gen::Atom {
                rel,
                args: out.into(),
            }
        }
        _ => unreachable!("only equalities and atoms are generators"),
    }
}

/// The conjuncts of a normalised formula.
pub(crate) fn conjuncts(n: Node) -> Vec<Node> {
    match n {
        Node::And(xs) => xs,
        Node::True => Vec::new(),
        n => vec![n],
    }
}

/// Whether grounding `n` for the symbolic set variables `sets` meets a set
/// quantifier that mentions them in a negative position (`ex X all Y`):
/// grounding expands those over all subsets of the universe
/// (`sat::ground`, which this follows).
pub(crate) fn symbolic_under_negation(n: &Node, sets: &BTreeSet<SSlot>, positive: bool) -> bool {
    if node_vars(n).s.is_disjoint(sets) {
        return false;
    }
    match n {
        Node::Not(x) => symbolic_under_negation(x, sets, !positive),
        Node::And(xs) | Node::Or(xs) => xs
            .iter()
            .any(|x| symbolic_under_negation(x, sets, positive)),
        Node::Search(s) => s
            .pre
            .iter()
            .chain(s.steps.iter().flat_map(|st| st.filters.iter()))
            .any(|x| symbolic_under_negation(x, sets, positive)),
        Node::SetQ(q) => {
            if !positive {
                return true;
            }
            let mut all = sets.clone();
            all.extend(q.vars.iter().copied());
            symbolic_under_negation(&q.body, &all, positive)
        }
        _ => false,
    }
}

/// Whether every part of `n` mentioning the set variables `sets` can be
/// grounded into propositional logic over membership atoms.
pub(crate) fn groundable(n: &Node, sets: &BTreeSet<SSlot>) -> bool {
    if node_vars(n).s.is_disjoint(sets) {
        return true;
    }
    match n {
        Node::In { .. } => true,
        Node::Not(x) => groundable(x, sets),
        Node::And(xs) | Node::Or(xs) => xs.iter().all(|x| groundable(x, sets)),
        Node::Search(s) => {
            s.pre.iter().all(|x| groundable(x, sets))
                && s.steps
                    .iter()
                    .all(|st| st.filters.iter().all(|x| groundable(x, sets)))
        }
        Node::SetQ(q) => {
            let mut all = sets.clone();
            all.extend(q.vars.iter().copied());
            groundable(&q.body, &all)
        }
        _ => false,
    }
}
