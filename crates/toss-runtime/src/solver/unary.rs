//! Set-at-a-time evaluation of formulas with one free element variable.
//!
//! The general evaluator works tuple at a time: `Playable(a)` is decided
//! per candidate cell, and a unary fixed point such as hex's
//! `lfp T(x) = P(x) and (Bottom(x) or ex y (T(y) and Adj(y, x)))` is
//! recomputed element by element in every round. Many formulas of board
//! games are, however, expressions over *sets* of elements: unary relations
//! combined by `and`/`or`/`not`, and images of such sets under binary
//! relations (`ex y (C(y, x) and Occupied(y))` is the set of successors of
//! the occupied cells). This module recognises that fragment
//! ([`SetExpr`]) and evaluates it with word operations on bitsets; an image
//! under a stable binary relation whose pairs are few translations of
//! element ids (a grid step: `b = a + d` on a masked set of `a`) is a
//! handful of shifts and masks ([`Shifts`]).
//!
//! Formulas outside the fragment are simply not translated; the callers
//! keep the tuple-at-a-time path for them.

use std::sync::Arc;

use super::eval::{Env, Ev};
use super::node::*;
use super::plan::Planner;
use toss_core::structure::{BitSet, Elem, RelationData};

/// A set of elements described by a formula in one free variable.
#[derive(Clone, Debug)]
pub(crate) enum SetExpr {
    /// All live elements.
    All,
    Empty,
    /// The members of a unary relation.
    Unary(RelRef),
    /// The current iterate of the unary fixed point being computed.
    Own,
    /// `{e}` for the element bound to the slot outside the expression.
    Point(Slot),
    /// Live elements not in the set.
    Not(Box<SetExpr>),
    And(Vec<SetExpr>),
    Or(Vec<SetExpr>),
    /// With `forward`: `{x | ex y (y in arg and R(y, x))}`; otherwise
    /// `{x | ex y (y in arg and R(x, y))}`.
    Image {
        rel: RelRef,
        forward: bool,
        arg: Box<SetExpr>,
        shifts: Option<Arc<Shifts>>,
    },
    /// A formula that does not mention the free variable (nor anything the
    /// expression binds): every element or none.
    Closed(Box<Node>),
    /// `ex y phi(y)`: every element if the set of `phi` is not empty.
    NonEmpty(Box<SetExpr>),
    /// A unary fixed point (its body's [`SetExpr::Own`] is its iterate).
    Fix {
        greatest: bool,
        body: Box<SetExpr>,
    },
    /// `tc` (or `tc m`) of a one-step body `from_cond(u) and R(u, v) and
    /// to_cond(v)` (`R(v, u)` when not `forward`): the elements reached
    /// from `src` (with `reverse`: the elements from which `src` is
    /// reached).
    Closure(Box<Closure>),
    /// A subexpression that depends on the structure only (see
    /// [`memoize`]): with a memo (`Env::memo`), computed once per
    /// structure and reused by later calls.
    Memo {
        slot: u32,
        body: Box<SetExpr>,
    },
}

impl SetExpr {
    /// The same expression with `f` applied to each direct subexpression
    /// (the leaves and closed formulas unchanged).
    fn map_children(self, mut f: impl FnMut(SetExpr) -> SetExpr) -> SetExpr {
        match self {
            SetExpr::Not(a) => SetExpr::Not(Box::new(f(*a))),
            SetExpr::NonEmpty(a) => SetExpr::NonEmpty(Box::new(f(*a))),
            SetExpr::And(xs) => SetExpr::And(xs.into_iter().map(f).collect()),
            SetExpr::Or(xs) => SetExpr::Or(xs.into_iter().map(f).collect()),
            SetExpr::Image {
                rel,
                forward,
                arg,
                shifts,
            } => SetExpr::Image {
                rel,
                forward,
                arg: Box::new(f(*arg)),
                shifts,
            },
            SetExpr::Fix { greatest, body } => SetExpr::Fix {
                greatest,
                body: Box::new(f(*body)),
            },
            SetExpr::Closure(c) => {
                let c = *c;
                SetExpr::Closure(Box::new(Closure {
                    src: f(c.src),
                    from_cond: f(c.from_cond),
                    to_cond: f(c.to_cond),
                    ..c
                }))
            }
            SetExpr::Memo { slot, body } => SetExpr::Memo {
                slot,
                body: Box::new(f(*body)),
            },
            e => e,
        }
    }
}

/// Whether `e` depends on the structure only: no element given from outside
/// the expression, no iterate of an enclosing fixed point (`own_ok`: the
/// iterate is that of a fixed point inside `e`), and no closed formula
/// (which may read constants and parameters).
fn state_only(e: &SetExpr, own_ok: bool) -> bool {
    match e {
        SetExpr::All | SetExpr::Empty | SetExpr::Unary(_) | SetExpr::Memo { .. } => true,
        SetExpr::Own => own_ok,
        SetExpr::Point(_) | SetExpr::Closed(_) => false,
        SetExpr::Not(a) | SetExpr::NonEmpty(a) => state_only(a, own_ok),
        SetExpr::And(xs) | SetExpr::Or(xs) => xs.iter().all(|x| state_only(x, own_ok)),
        SetExpr::Image { arg, .. } => state_only(arg, own_ok),
        SetExpr::Fix { body, .. } => state_only(body, true),
        SetExpr::Closure(c) => {
            state_only(&c.src, own_ok)
                && state_only(&c.from_cond, own_ok)
                && state_only(&c.to_cond, own_ok)
        }
    }
}

/// Wraps the largest subexpressions of `e` that depend on the structure
/// only, and cost more than a look-up, in [`SetExpr::Memo`] with slots
/// numbered from `*next`. Sets evaluated once per candidate (the squares
/// an amazon reaches, per amazon and per destination) share, within one
/// state, parts like the set of empty squares.
pub(crate) fn memoize(e: SetExpr, next: &mut u32) -> SetExpr {
    let trivial = matches!(
        e,
        SetExpr::All | SetExpr::Empty | SetExpr::Unary(_) | SetExpr::Memo { .. }
    );
    if !trivial && state_only(&e, false) {
        let slot = *next;
        *next += 1;
        return SetExpr::Memo {
            slot,
            body: Box::new(e),
        };
    }
    if matches!(e, SetExpr::Memo { .. }) {
        return e;
    }
    e.map_children(|x| memoize(x, next))
}

#[derive(Clone, Debug)]
pub(crate) struct Closure {
    pub src: SetExpr,
    /// The relations stepped along: the set is the union of the closures
    /// along each one alone (one, or several merged from an `or` of
    /// closures that differ only there, see [`merge_closures`], so that
    /// the source and the conditions are evaluated once).
    pub along: Vec<Along>,
    pub from_cond: SetExpr,
    pub to_cond: SetExpr,
    pub steps: Option<u32>,
    pub reverse: bool,
}

/// A relation a closure steps along, in direction `dir` (as `forward` of
/// [`Ev::image`], already turned round for a reversed closure).
#[derive(Clone, Debug)]
pub(crate) struct Along {
    pub rel: RelRef,
    pub dir: bool,
    pub shifts: Option<Arc<Shifts>>,
}

/// Whether two expressions (in the same scope) surely denote the same set;
/// `false` when unsure.
pub(crate) fn same(a: &SetExpr, b: &SetExpr) -> bool {
    match (a, b) {
        (SetExpr::All, SetExpr::All)
        | (SetExpr::Empty, SetExpr::Empty)
        | (SetExpr::Own, SetExpr::Own) => true,
        (SetExpr::Unary(r), SetExpr::Unary(q)) => r == q,
        (SetExpr::Point(x), SetExpr::Point(y)) => x == y,
        (SetExpr::Not(x), SetExpr::Not(y)) | (SetExpr::NonEmpty(x), SetExpr::NonEmpty(y)) => {
            same(x, y)
        }
        (SetExpr::And(xs), SetExpr::And(ys)) | (SetExpr::Or(xs), SetExpr::Or(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        (
            SetExpr::Image {
                rel: r,
                forward: f,
                arg: x,
                ..
            },
            SetExpr::Image {
                rel: q,
                forward: g,
                arg: y,
                ..
            },
        ) => r == q && f == g && same(x, y),
        _ => false,
    }
}

/// Merges the members of each `or` that are closures from the same source
/// under the same conditions (`Ray(x, y)`: eight queen directions from one
/// square over empty squares) into one [`Closure`] with several relations.
pub(crate) fn merge_closures(e: SetExpr) -> SetExpr {
    let m = merge_closures;
    match e {
        SetExpr::Or(xs) => {
            let mut out: Vec<SetExpr> = Vec::with_capacity(xs.len());
            for x in xs.into_iter().map(m) {
                if let SetExpr::Closure(c) = &x
                    && let Some(SetExpr::Closure(d)) = out.iter_mut().find(|y| {
                        matches!(y, SetExpr::Closure(d) if d.steps == c.steps
                            && d.reverse == c.reverse
                            && same(&d.src, &c.src)
                            && same(&d.from_cond, &c.from_cond)
                            && same(&d.to_cond, &c.to_cond))
                    })
                {
                    d.along.extend(c.along.iter().cloned());
                    continue;
                }
                out.push(x);
            }
            or_set(out)
        }
        e => e.map_children(m),
    }
}

/// A binary relation as translations of element ids: the pairs `(a, a + d)`
/// for each `(d, sources)` and `a` in `sources`.
#[derive(Clone, Debug)]
pub(crate) struct Shifts(pub Vec<(i64, Vec<u64>)>);

/// Most translations a relation may need to be stored as [`Shifts`] (a grid
/// step needs one, hex's adjacency six).
const MAX_SHIFTS: usize = 16;

impl Shifts {
    /// The forward (`(a, b)` as `b = a + d`) and backward (`a = b + d`)
    /// translations of a binary relation, if it needs few of them.
    pub fn of(data: &RelationData, bound: usize) -> Option<(Arc<Shifts>, Arc<Shifts>)> {
        let RelationData::Binary { fwd, .. } = data else {
            return None;
        };
        let nw = bound.div_ceil(64).max(1);
        let mut f: Vec<(i64, Vec<u64>)> = Vec::new();
        let mut b: Vec<(i64, Vec<u64>)> = Vec::new();
        for (a, succ) in fwd.iter().enumerate() {
            for &c in succ {
                let add = |list: &mut Vec<(i64, Vec<u64>)>, d: i64, src: usize| -> bool {
                    let i = match list.iter().position(|(e, _)| *e == d) {
                        Some(i) => i,
                        None => {
                            if list.len() == MAX_SHIFTS {
                                return false;
                            }
                            list.push((d, vec![0; nw]));
                            list.len() - 1
                        }
                    };
                    list[i].1[src / 64] |= 1 << (src % 64);
                    true
                };
                let d = c as i64 - a as i64;
                if !add(&mut f, d, a) || !add(&mut b, -d, c as usize) {
                    return None;
                }
            }
        }
        f.sort_by_key(|x| x.0);
        b.sort_by_key(|x| x.0);
        Some((Arc::new(Shifts(f)), Arc::new(Shifts(b))))
    }
}

/// `and` of sets, without the trivial members.
fn and_set(xs: Vec<SetExpr>) -> SetExpr {
    let mut out = Vec::with_capacity(xs.len());
    for x in xs {
        match x {
            SetExpr::All => {}
            SetExpr::Empty => return SetExpr::Empty,
            SetExpr::And(ys) => out.extend(ys),
            x => out.push(x),
        }
    }
    match out.len() {
        0 => SetExpr::All,
        1 => out.pop().unwrap_or(SetExpr::All),
        _ => SetExpr::And(out),
    }
}

/// `or` of sets, without the trivial members.
fn or_set(xs: Vec<SetExpr>) -> SetExpr {
    let mut out = Vec::with_capacity(xs.len());
    for x in xs {
        match x {
            SetExpr::Empty => {}
            SetExpr::All => return SetExpr::All,
            SetExpr::Or(ys) => out.extend(ys),
            x => out.push(x),
        }
    }
    match out.len() {
        0 => SetExpr::Empty,
        1 => out.pop().unwrap_or(SetExpr::Empty),
        _ => SetExpr::Or(out),
    }
}

/// `R(from, to)` as `(R, true)` and `R(to, from)` as `(R, false)`: the
/// binary atom linking two variables, by the direction it steps in.
fn link_atom(n: &Node, from: Slot, to: Slot) -> Option<(RelRef, bool)> {
    let Node::Atom { rel, args } = n else {
        return None;
    };
    match args[..] {
        [a, b] if a == from && b == to => Some((*rel, true)),
        [a, b] if a == to && b == from => Some((*rel, false)),
        _ => None,
    }
}

/// Where translation finds the [`Shifts`] of stable binary relations.
pub(crate) type ShiftsOf<'a> = &'a dyn Fn(RelRef, bool) -> Option<Arc<Shifts>>;

/// The conjuncts of `n` (of `not n` when `neg`), with negations pushed
/// through `and`, `or` and double negation.
fn conjuncts_of(n: &Node, neg: bool, out: &mut Vec<Node>) {
    match (n, neg) {
        (Node::And(xs), false) | (Node::Or(xs), true) => {
            xs.iter().for_each(|x| conjuncts_of(x, neg, out))
        }
        (Node::Not(x), _) => conjuncts_of(x, !neg, out),
        (Node::True, false) | (Node::False, true) => {}
        (n, false) => out.push(n.clone()),
        (n, true) => out.push(Node::Not(Box::new(n.clone()))),
    }
}

impl Planner<'_> {
    /// The set of `x` satisfying the unplanned node `n`, if `n` is in the
    /// fragment. `scope`: the variables bound by the expression being built
    /// (`x` and the variables of enclosing images); `own`: the local
    /// relation of the fixed point being translated, if any.
    pub(crate) fn set_expr(
        &self,
        n: &Node,
        x: Slot,
        scope: &[Slot],
        own: Option<u32>,
    ) -> Option<SetExpr> {
        let v = node_vars(n);
        // Closed: evaluated once by the tuple-at-a-time evaluator, which
        // knows no iterate of a fixed point computed here (so no locals).
        if v.e.iter().all(|e| !scope.contains(e)) && v.locals.is_empty() {
            return Some(match self.formula(n.clone()) {
                Node::True => SetExpr::All,
                Node::False => SetExpr::Empty,
                n => SetExpr::Closed(Box::new(n)),
            });
        }
        match n {
            Node::Atom { rel, args } if args.len() == 1 && args[0] == x => {
                Some(SetExpr::Unary(*rel))
            }
            // `R(c, x)` / `R(x, c)` with `c` bound outside: an image of `{c}`.
            Node::Atom { rel, args } if args.len() == 2 && (args[0] == x) != (args[1] == x) => {
                let (other, forward) = if args[1] == x {
                    (args[0], true)
                } else {
                    (args[1], false)
                };
                if scope.contains(&other) {
                    return None;
                }
                Some(SetExpr::Image {
                    rel: *rel,
                    forward,
                    arg: Box::new(SetExpr::Point(other)),
                    shifts: (self.shifts)(*rel, forward),
                })
            }
            Node::Tc(t) => self.closure_set(t, x, scope, own),
            Node::Local { idx, args } if Some(*idx) == own && args.len() == 1 && args[0] == x => {
                Some(SetExpr::Own)
            }
            Node::Eq(a, b) => {
                let other = if *a == x { *b } else { *a };
                if *a == x && *b == x {
                    Some(SetExpr::All)
                } else if (*a == x || *b == x) && !scope.contains(&other) {
                    Some(SetExpr::Point(other))
                } else {
                    None
                }
            }
            Node::Not(a) => Some(SetExpr::Not(Box::new(self.set_expr(a, x, scope, own)?))),
            Node::And(xs) => Some(and_set(
                xs.iter()
                    .map(|a| self.set_expr(a, x, scope, own))
                    .collect::<Option<_>>()?,
            )),
            Node::Or(xs) => Some(or_set(
                xs.iter()
                    .map(|a| self.set_expr(a, x, scope, own))
                    .collect::<Option<_>>()?,
            )),
            Node::Exists { vars, body } => self.exists_set(vars, body, false, x, scope, own),
            Node::Forall { vars, body } => {
                let e = self.exists_set(vars, body, true, x, scope, own)?;
                Some(SetExpr::Not(Box::new(e)))
            }
            Node::Fix(f) if f.outer.len() == 1 && f.outer[0] == x => {
                let body = self.fix_set(f)?;
                Some(SetExpr::Fix {
                    greatest: f.greatest,
                    body: Box::new(body),
                })
            }
            _ => None,
        }
    }

    /// `ex vars body` (`ex vars not body` when `neg`).
    fn exists_set(
        &self,
        vars: &[Slot],
        body: &Node,
        neg: bool,
        x: Slot,
        scope: &[Slot],
        own: Option<u32>,
    ) -> Option<SetExpr> {
        let [y] = vars else {
            return None;
        };
        let y = *y;
        let mut inner_scope = scope.to_vec();
        inner_scope.push(y);
        let mentions = |n: &Node, s: Slot| node_vars(n).e.contains(&s);
        let mut cs = Vec::new();
        conjuncts_of(body, neg, &mut cs);
        if !cs.iter().any(|c| mentions(c, x)) {
            let e = self.set_expr(&Node::And(cs), y, &inner_scope, own)?;
            return Some(SetExpr::NonEmpty(Box::new(e)));
        }
        let mut out = Vec::new();
        let mut of_y = Vec::new();
        let mut link = None;
        for c in &cs {
            match (mentions(c, x), mentions(c, y)) {
                (true, true) => {
                    if link.is_some() {
                        return None;
                    }
                    link = Some(link_atom(c, y, x)?);
                }
                (false, true) => of_y.push(c.clone()),
                _ => out.push(self.set_expr(c, x, scope, own)?),
            }
        }
        let (rel, forward) = link?;
        let arg = match of_y.len() {
            0 => SetExpr::All,
            1 => self.set_expr(&of_y[0], y, &inner_scope, own)?,
            _ => self.set_expr(&Node::And(of_y), y, &inner_scope, own)?,
        };
        out.push(SetExpr::Image {
            rel,
            forward,
            arg: Box::new(arg),
            shifts: (self.shifts)(rel, forward),
        });
        Some(and_set(out))
    }

    fn closure_set(&self, t: &Tc, x: Slot, scope: &[Slot], own: Option<u32>) -> Option<SetExpr> {
        let ([from], [to], [u], [v]) = (
            &t.outer_from[..],
            &t.outer_to[..],
            &t.inner_from[..],
            &t.inner_to[..],
        ) else {
            return None;
        };
        let (src, reverse) = if *to == x && *from != x && !scope.contains(from) {
            (*from, false)
        } else if *from == x && *to != x && !scope.contains(to) {
            (*to, true)
        } else {
            return None;
        };
        let mut cs = Vec::new();
        conjuncts_of(&t.body, false, &mut cs);
        let mentions = |n: &Node, s: Slot| node_vars(n).e.contains(&s);
        let mut link = None;
        let (mut of_u, mut of_v) = (Vec::new(), Vec::new());
        for c in cs {
            if mentions(&c, x) {
                return None;
            }
            match (mentions(&c, *u), mentions(&c, *v)) {
                (true, true) => {
                    if link.replace(link_atom(&c, *u, *v)?).is_some() {
                        return None;
                    }
                }
                (true, false) => of_u.push(c),
                _ => of_v.push(c),
            }
        }
        let (rel, forward) = link?;
        let mut su = scope.to_vec();
        su.push(*u);
        let mut sv = scope.to_vec();
        sv.push(*v);
        let from_cond = self.set_expr(&Node::And(of_u), *u, &su, own)?;
        let to_cond = self.set_expr(&Node::And(of_v), *v, &sv, own)?;
        // Stepping backwards follows the relation the other way.
        let dir = forward != reverse;
        Some(SetExpr::Closure(Box::new(Closure {
            src: SetExpr::Point(src),
            along: vec![Along {
                rel,
                dir,
                shifts: (self.shifts)(rel, dir),
            }],
            from_cond,
            to_cond,
            steps: t.steps,
            reverse,
        })))
    }

    /// The set-at-a-time form of a unary fixed point's body (before
    /// planning), if it is in the fragment.
    pub(crate) fn fix_set(&self, f: &Fix) -> Option<SetExpr> {
        let [x] = f.inner[..] else {
            return None;
        };
        self.set_expr(&f.body, x, &[x], Some(f.local))
    }
}

/// Words of a set over element ids below `nw * 64`, inline for boards of
/// up to 256 elements: evaluation creates one per node, and allocating
/// them dominated the cost of small sets.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Words {
    Inline([u64; INLINE_WORDS], usize),
    Heap(Vec<u64>),
}

const INLINE_WORDS: usize = 4;

impl Words {
    fn zeros(nw: usize) -> Words {
        if nw <= INLINE_WORDS {
            Words::Inline([0; INLINE_WORDS], nw)
        } else {
            Words::Heap(vec![0; nw])
        }
    }

    fn from_slice(w: &[u64]) -> Words {
        let mut out = Words::zeros(w.len());
        out.copy_from_slice(w);
        out
    }

    fn into_vec(self) -> Vec<u64> {
        match self {
            Words::Inline(a, n) => a[..n].to_vec(),
            Words::Heap(v) => v,
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        match self {
            Words::Inline(a, n) => &a[..*n],
            Words::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Words {
    fn deref_mut(&mut self) -> &mut [u64] {
        match self {
            Words::Inline(a, n) => &mut a[..*n],
            Words::Heap(v) => v,
        }
    }
}

fn shift_into(out: &mut [u64], src: &[u64], d: i64) {
    let nw = out.len() as i64;
    let (ws, bs) = (d.div_euclid(64), d.rem_euclid(64) as u32);
    for i in 0..nw {
        // Bit j of the result comes from bit j - d of the source.
        let lo = i - ws;
        let get = |k: i64| -> u64 { if k >= 0 && k < nw { src[k as usize] } else { 0 } };
        let w = if bs == 0 {
            get(lo)
        } else {
            (get(lo) << bs) | (get(lo - 1) >> (64 - bs))
        };
        out[i as usize] |= w;
    }
}

impl Ev<'_> {
    /// `{x | ex y (y in a and R(y, x))}` (`R(x, y)` when not `forward`).
    fn image(&self, rel: RelRef, forward: bool, shifts: Option<&Shifts>, a: &[u64]) -> Words {
        let nw = a.len();
        let mut w = Words::zeros(nw);
        if let Some(sh) = shifts {
            let mut tmp = Words::zeros(nw);
            for (d, mask) in &sh.0 {
                for ((t, x), m) in tmp.iter_mut().zip(a).zip(mask) {
                    *t = x & m;
                }
                shift_into(&mut w, &tmp, *d);
            }
            return w;
        }
        let RelationData::Binary { fwd, bwd, .. } = self.data(rel) else {
            return w;
        };
        let adj = if forward { fwd } else { bwd };
        for (wi, &word) in a.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let y = wi * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                for &z in adj.get(y).map_or(&[][..], |v| v) {
                    let z = z as usize;
                    if z / 64 < nw {
                        w[z / 64] |= 1 << (z % 64);
                    }
                }
            }
        }
        w
    }

    /// One step of a closure along `a`: the images of the frontier's
    /// elements in `pre` (all when `None`), within `post`.
    fn closure_step(
        &self,
        a: &Along,
        pre: Option<&[u64]>,
        post: &[u64],
        frontier: &Words,
    ) -> Words {
        let mut w = match pre {
            None => self.image(a.rel, a.dir, a.shifts.as_deref(), frontier),
            Some(pre) => {
                let mut f = frontier.clone();
                f.iter_mut().zip(pre).for_each(|(x, y)| *x &= y);
                self.image(a.rel, a.dir, a.shifts.as_deref(), &f)
            }
        };
        w.iter_mut().zip(post).for_each(|(x, y)| *x &= y);
        w
    }

    /// The closure along `a`, from the elements `reach` already reached
    /// and its newest layer `frontier`, set at a time.
    fn closure_sets(
        &self,
        a: &Along,
        pre: Option<&[u64]>,
        post: &[u64],
        mut reach: Words,
        mut frontier: Words,
    ) -> Words {
        loop {
            let mut next = self.closure_step(a, pre, post, &frontier);
            next.iter_mut()
                .zip(reach.iter())
                .for_each(|(x, r)| *x &= !r);
            if next.iter().all(|&x| x == 0) {
                return reach;
            }
            reach.iter_mut().zip(next.iter()).for_each(|(r, x)| *r |= x);
            frontier = next;
        }
    }

    /// The closure along `a` from the element `e`, followed element by
    /// element while each step leads to at most one new element (a ray):
    /// `Ok(reached)`; when a step leads to several, `Err((reached,
    /// frontier))` to go on set at a time ([`Ev::closure_sets`]).
    fn walk(
        &self,
        a: &Along,
        pre: Option<&[u64]>,
        post: &[u64],
        mut e: Elem,
        nw: usize,
    ) -> Result<Words, (Words, Words)> {
        let mut reach = Words::zeros(nw);
        set_bit(&mut reach, e);
        loop {
            if pre.is_some_and(|p| !words_contain(p, e)) {
                return Ok(reach);
            }
            let mut next = None;
            let mut more = Words::zeros(0);
            self.for_each_successor(a, e, |z| {
                if !words_contain(post, z) || words_contain(&reach, z) {
                    return;
                }
                match next {
                    None => next = Some(z),
                    Some(y) if y == z => {}
                    Some(y) => {
                        if more.is_empty() {
                            more = Words::zeros(nw);
                            set_bit(&mut more, y);
                        }
                        set_bit(&mut more, z);
                    }
                }
            });
            if !more.is_empty() {
                reach.iter_mut().zip(more.iter()).for_each(|(r, x)| *r |= x);
                return Err((reach, more));
            }
            match next {
                None => return Ok(reach),
                Some(z) => {
                    set_bit(&mut reach, z);
                    e = z;
                }
            }
        }
    }

    /// Calls `f` on each element one step along `a` leads to from `e` (as
    /// [`Ev::image`] steps).
    fn for_each_successor(&self, a: &Along, e: Elem, mut f: impl FnMut(Elem)) {
        if let Some(sh) = a.shifts.as_deref() {
            for (d, mask) in &sh.0 {
                if words_contain(mask, e) {
                    f((e as i64 + d) as Elem);
                }
            }
            return;
        }
        let RelationData::Binary { fwd, bwd, .. } = self.data(a.rel) else {
            return;
        };
        let adj = if a.dir { fwd } else { bwd };
        for &z in adj.get(e as usize).map_or(&[][..], |v| v) {
            f(z);
        }
    }

    fn words_of(&self, b: &BitSet, nw: usize) -> Words {
        let mut w = Words::zeros(nw);
        for (o, i) in w.iter_mut().zip(b.words()) {
            *o = *i;
        }
        w
    }

    /// The set of `e` (words over element ids) on the current structure.
    /// `own`: the current iterate, for [`SetExpr::Own`].
    pub(crate) fn set_words(&self, e: &SetExpr, env: &mut Env, own: &[u64]) -> Words {
        let nw = self.st.id_bound().div_ceil(64).max(1);
        match e {
            SetExpr::All => self.words_of(self.st.live(), nw),
            SetExpr::Empty => Words::zeros(nw),
            SetExpr::Unary(r) => match self.data(*r) {
                RelationData::Unary(b) => self.words_of(b, nw),
                _ => Words::zeros(nw),
            },
            SetExpr::Own => Words::from_slice(own),
            SetExpr::Point(s) => {
                let mut w = Words::zeros(nw);
                let i = env.e[*s as usize] as usize;
                if i / 64 < nw {
                    w[i / 64] |= 1 << (i % 64);
                }
                w
            }
            SetExpr::Not(a) => {
                let mut w = self.set_words(a, env, own);
                let live = self.st.live().words();
                for (i, x) in w.iter_mut().enumerate() {
                    *x = !*x & live.get(i).copied().unwrap_or(0);
                }
                w
            }
            SetExpr::And(xs) => {
                let mut it = xs.iter();
                let Some(first) = it.next() else {
                    return self.words_of(self.st.live(), nw);
                };
                let mut w = self.set_words(first, env, own);
                for a in it {
                    if w.iter().all(|&x| x == 0) {
                        break;
                    }
                    let v = self.set_words(a, env, own);
                    w.iter_mut().zip(v.iter()).for_each(|(x, y)| *x &= y);
                }
                w
            }
            SetExpr::Or(xs) => {
                let mut w = Words::zeros(nw);
                for a in xs {
                    let v = self.set_words(a, env, own);
                    w.iter_mut().zip(v.iter()).for_each(|(x, y)| *x |= y);
                }
                w
            }
            SetExpr::Image {
                rel,
                forward,
                arg,
                shifts,
            } => {
                let a = self.set_words(arg, env, own);
                self.image(*rel, *forward, shifts.as_deref(), &a)
            }
            SetExpr::Closure(c) => {
                // One step: from the frontier's elements satisfying the
                // source condition to their images satisfying the target
                // condition (the other way round when reversed).
                let (pre, post) = if c.reverse {
                    (&c.to_cond, &c.from_cond)
                } else {
                    (&c.from_cond, &c.to_cond)
                };
                let src = self.set_words(&c.src, env, own);
                let pre = self.set_words(pre, env, own);
                let post = self.set_words(post, env, own);
                let pre = (pre[..] != *self.st.live().words()).then_some(pre);
                let pre = pre.as_deref();
                // From one element (a ray from a bound square), the walk
                // goes element by element while no step branches.
                let single = match c.steps {
                    None => single_member(&src),
                    Some(_) => None,
                };
                let one = |a: &Along| -> Words {
                    match (c.steps, single) {
                        (None, Some(e)) => match self.walk(a, pre, &post, e, nw) {
                            Ok(reach) => reach,
                            Err((reach, frontier)) => {
                                self.closure_sets(a, pre, &post, reach, frontier)
                            }
                        },
                        (None, None) => self.closure_sets(a, pre, &post, src.clone(), src.clone()),
                        (Some(m), _) => {
                            let mut layer = src.clone();
                            for _ in 0..m {
                                layer = self.closure_step(a, pre, &post, &layer);
                                if layer.iter().all(|&x| x == 0) {
                                    break;
                                }
                            }
                            layer
                        }
                    }
                };
                let mut along = c.along.iter();
                let mut w = along.next().map_or_else(|| Words::zeros(nw), one);
                for a in along {
                    let v = one(a);
                    w.iter_mut().zip(v.iter()).for_each(|(x, y)| *x |= y);
                }
                w
            }
            SetExpr::Closed(n) => {
                if self.holds(n, env) {
                    self.words_of(self.st.live(), nw)
                } else {
                    Words::zeros(nw)
                }
            }
            SetExpr::Fix { greatest, body } => self.fix_words(body, *greatest, env),
            SetExpr::Memo { slot, body } => {
                if let Some(Some(w)) = env.memo.get(*slot as usize) {
                    return w.clone();
                }
                let w = self.set_words(body, env, own);
                if let Some(m) = env.memo.get_mut(*slot as usize) {
                    *m = Some(w.clone());
                }
                w
            }
            SetExpr::NonEmpty(a) => {
                if self.set_words(a, env, own).iter().any(|&x| x != 0) {
                    self.words_of(self.st.live(), nw)
                } else {
                    Words::zeros(nw)
                }
            }
        }
    }

    /// The least (greatest) fixed point of a unary body, by iteration from
    /// the empty (full) set; the body is monotone in the iterate, so the
    /// iterates grow (shrink) until they repeat.
    pub(crate) fn fix_words(&self, body: &SetExpr, greatest: bool, env: &mut Env) -> Words {
        let nw = self.st.id_bound().div_ceil(64).max(1);
        let mut cur = if greatest {
            self.words_of(self.st.live(), nw)
        } else {
            Words::zeros(nw)
        };
        // A monotone body converges within one round per element; the bound
        // only guards against a body that is not monotone.
        for _ in 0..self.st.num_elements() + 2 {
            let next = self.set_words(body, env, &cur);
            if next == cur {
                break;
            }
            cur = next;
        }
        cur
    }
}

/// A set of words as a bitset.
pub(crate) fn to_bitset(w: Words) -> BitSet {
    let mut b = BitSet::new();
    *b.words_mut() = w.into_vec();
    b
}

/// The only member of a set, if it has exactly one.
fn single_member(w: &[u64]) -> Option<Elem> {
    let mut found = None;
    for (i, &x) in w.iter().enumerate() {
        if x != 0 {
            if found.is_some() || x & (x - 1) != 0 {
                return None;
            }
            found = Some(i as Elem * 64 + x.trailing_zeros());
        }
    }
    found
}

fn set_bit(w: &mut [u64], e: Elem) {
    let i = e as usize;
    if i / 64 < w.len() {
        w[i / 64] |= 1 << (i % 64);
    }
}

/// Whether element `e` is in the words.
#[inline]
pub(crate) fn words_contain(w: &[u64], e: Elem) -> bool {
    let i = e as usize;
    i / 64 < w.len() && w[i / 64] >> (i % 64) & 1 == 1
}
