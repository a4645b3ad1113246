//! What the builders, the passes and the emitters ask of an expression of
//! the plan: whether it uses a fixed-point variable, its depth of nested
//! loops, its loop variables numbered canonically, whether it reads only
//! the fluent unary relations, whether two candidate sets are disjoint,
//! and the shifts that test a line of a pattern by doubling.

use std::collections::BTreeMap;

use super::{Bound, Cond, FunRef, Num, Rel2, SetExpr};

/// Whether a set expression uses the fixed-point variable `var`.
pub(crate) fn mentions_fix(s: &SetExpr, var: usize) -> bool {
    match s {
        SetExpr::FixVar(v) => *v == var,
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().any(|x| mentions_fix(x, var)),
        SetExpr::Not(x) | SetExpr::AllIf(x) => mentions_fix(x, var),
        SetExpr::Image { of, .. } => mentions_fix(of, var),
        SetExpr::Fix { body, .. } => mentions_fix(body, var),
        SetExpr::Ray { through, .. } => mentions_fix(through, var),
        // Conditions inside `If` cannot use a set variable of this plan.
        SetExpr::If(_)
        | SetExpr::Empty
        | SetExpr::Universe
        | SetExpr::Mask(_)
        | SetExpr::Fluent(_)
        | SetExpr::Elem(_)
        | SetExpr::Row { .. }
        | SetExpr::Row2 { .. }
        | SetExpr::Tuples { .. } => false,
    }
}

/// The depth of nested loops (`ex q in S (...)`) of a condition: a test
/// with loops in loops (Reversi's lines walked disc by disc) costs more
/// than the same set in offset form.
pub(crate) fn loop_depth(c: &Cond) -> usize {
    match c {
        Cond::Exists { over, body, .. } => 1 + loop_depth(body).max(set_loop_depth(over)),
        Cond::Not(x) => loop_depth(x),
        Cond::And(v) | Cond::Or(v) => v.iter().map(loop_depth).max().unwrap_or(0),
        Cond::NonEmpty(s) | Cond::In(_, s) => set_loop_depth(s),
        Cond::Pattern { sets, .. } => sets.iter().map(set_loop_depth).max().unwrap_or(0),
        Cond::Const(_) | Cond::Eq(..) | Cond::Cmp(..) | Cond::Holds { .. } => 0,
    }
}

pub(crate) fn set_loop_depth(s: &SetExpr) -> usize {
    match s {
        SetExpr::If(c) => loop_depth(c),
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().map(set_loop_depth).max().unwrap_or(0),
        SetExpr::Not(x) | SetExpr::AllIf(x) => set_loop_depth(x),
        SetExpr::Image { of, .. } => set_loop_depth(of),
        SetExpr::Fix { body, .. } => set_loop_depth(body),
        SetExpr::Ray { through, .. } => set_loop_depth(through),
        _ => 0,
    }
}

/// `c` with its loop variables numbered in order of appearance, so that
/// two conditions differing only in that numbering compare equal.
pub(crate) fn canonical_cond(c: &Cond) -> Cond {
    let mut c = c.clone();
    renumber_cond(&mut c, &mut BTreeMap::new());
    c
}

pub(crate) fn renumber_bound(b: &mut Bound, map: &mut BTreeMap<usize, usize>) {
    if let Bound::Loop(v) = b {
        let next = map.len();
        *v = *map.entry(*v).or_insert(next);
    }
}

pub(crate) fn renumber_set(s: &mut SetExpr, map: &mut BTreeMap<usize, usize>) {
    match s {
        SetExpr::And(v) | SetExpr::Or(v) => v.iter_mut().for_each(|x| renumber_set(x, map)),
        SetExpr::Not(x) | SetExpr::AllIf(x) => renumber_set(x, map),
        SetExpr::Image { of, .. } => renumber_set(of, map),
        SetExpr::Fix { body, .. } => renumber_set(body, map),
        SetExpr::Elem(b) | SetExpr::Row { of: b, .. } => renumber_bound(b, map),
        SetExpr::Row2 { a, b, .. } => {
            renumber_bound(a, map);
            renumber_bound(b, map);
        }
        SetExpr::If(c) => renumber_cond(c, map),
        SetExpr::Ray { from, through, .. } => {
            renumber_bound(from, map);
            renumber_set(through, map);
        }
        SetExpr::Tuples { args, .. } => args
            .iter_mut()
            .flatten()
            .for_each(|b| renumber_bound(b, map)),
        SetExpr::Empty
        | SetExpr::Universe
        | SetExpr::Mask(_)
        | SetExpr::Fluent(_)
        | SetExpr::FixVar(_) => {}
    }
}

pub(crate) fn renumber_num(n: &mut Num, map: &mut BTreeMap<usize, usize>) {
    match n {
        Num::Count(s, _) => renumber_set(s, map),
        Num::Neg(a) => renumber_num(a, map),
        Num::Add(a, b) | Num::Sub(a, b) | Num::Mul(a, b) => {
            renumber_num(a, map);
            renumber_num(b, map);
        }
        Num::Fun(_, b) => renumber_bound(b, map),
        Num::Sum { var, over, body } => {
            let next = map.len();
            *var = *map.entry(*var).or_insert(next);
            renumber_set(over, map);
            renumber_num(body, map);
        }
        Num::Const(_) | Num::Cond(_) | Num::Solver(_) => {}
    }
}

pub(crate) fn renumber_cond(c: &mut Cond, map: &mut BTreeMap<usize, usize>) {
    match c {
        Cond::Const(_) => {}
        Cond::NonEmpty(s) => renumber_set(s, map),
        Cond::Pattern { sets, .. } => sets.iter_mut().for_each(|s| renumber_set(s, map)),
        Cond::Not(x) => renumber_cond(x, map),
        Cond::And(v) | Cond::Or(v) => v.iter_mut().for_each(|x| renumber_cond(x, map)),
        Cond::In(b, s) => {
            renumber_bound(b, map);
            renumber_set(s, map);
        }
        Cond::Eq(a, b) => {
            renumber_bound(a, map);
            renumber_bound(b, map);
        }
        Cond::Holds { args, .. } => args.iter_mut().for_each(|b| renumber_bound(b, map)),
        Cond::Cmp(a, _, b) => {
            renumber_num(a, map);
            renumber_num(b, map);
        }
        Cond::Exists { var, over, body } => {
            let next = map.len();
            *var = *map.entry(*var).or_insert(next);
            renumber_set(over, map);
            renumber_cond(body, map);
        }
    }
}

/// Whether a condition reads nothing of the state but its fluent unary
/// relations (no fluent function or relation of another arity, no
/// compiled sentence by reference, no solver): a postcondition of that
/// kind is evaluated on the effect applied to a copy of the bitsets alone.
pub(crate) fn reads_only_relations(c: &Cond) -> bool {
    match c {
        Cond::Const(_) | Cond::Eq(..) => true,
        Cond::Holds { .. } => false,
        Cond::NonEmpty(s) | Cond::In(_, s) => set_reads_only_relations(s),
        Cond::Pattern { sets, .. } => sets.iter().all(set_reads_only_relations),
        Cond::Not(x) => reads_only_relations(x),
        Cond::And(v) | Cond::Or(v) => v.iter().all(reads_only_relations),
        Cond::Cmp(a, _, b) => num_reads_only_relations(a) && num_reads_only_relations(b),
        Cond::Exists { over, body, .. } => {
            set_reads_only_relations(over) && reads_only_relations(body)
        }
    }
}

pub(crate) fn set_reads_only_relations(s: &SetExpr) -> bool {
    match s {
        SetExpr::And(v) | SetExpr::Or(v) => v.iter().all(set_reads_only_relations),
        SetExpr::Not(x) | SetExpr::AllIf(x) => set_reads_only_relations(x),
        SetExpr::Image {
            rel: Rel2::Fluent { .. },
            ..
        }
        | SetExpr::Tuples { .. } => false,
        SetExpr::Image { of, .. } => set_reads_only_relations(of),
        SetExpr::Fix { body, .. } => set_reads_only_relations(body),
        SetExpr::Ray { through, .. } => set_reads_only_relations(through),
        SetExpr::If(c) => reads_only_relations(c),
        SetExpr::Empty
        | SetExpr::Universe
        | SetExpr::Mask(_)
        | SetExpr::Fluent(_)
        | SetExpr::FixVar(_)
        | SetExpr::Elem(_)
        | SetExpr::Row { .. }
        | SetExpr::Row2 { .. } => true,
    }
}

pub(crate) fn num_reads_only_relations(n: &Num) -> bool {
    match n {
        Num::Const(_) | Num::Fun(FunRef::Stable(_), _) => true,
        Num::Fun(FunRef::Fluent(_), _) | Num::Cond(_) | Num::Solver(_) => false,
        Num::Count(s, _) => set_reads_only_relations(s),
        Num::Neg(a) => num_reads_only_relations(a),
        Num::Add(a, b) | Num::Sub(a, b) | Num::Mul(a, b) => {
            num_reads_only_relations(a) && num_reads_only_relations(b)
        }
        Num::Sum { over, body, .. } => {
            set_reads_only_relations(over) && num_reads_only_relations(body)
        }
    }
}

/// Whether two candidate sets are syntactically disjoint: one requires a
/// fluent the other excludes.
pub(crate) fn disjoint(a: &SetExpr, b: &SetExpr) -> bool {
    let lits = |s: &SetExpr| -> Vec<SetExpr> {
        match s {
            SetExpr::And(v) => v.clone(),
            s => vec![s.clone()],
        }
    };
    let (la, lb) = (lits(a), lits(b));
    la.iter().any(|x| {
        lb.iter().any(|y| match (x, y) {
            (SetExpr::Fluent(f), SetExpr::Not(g)) | (SetExpr::Not(g), SetExpr::Fluent(f)) => {
                **g == SetExpr::Fluent(*f)
            }
            _ => false,
        })
    })
}

/// For a pattern group whose offsets are `0, d, 2d, .., (k - 1) d` (a
/// line of `k` cells, `k >= 4`), the offsets by which a set `t` of starts
/// is intersected with itself shifted back, starting from `t = v`, so that
/// `t` ends as the starts `x` with `v` at `x + i d` for every `i < k`:
/// each step doubles the length covered (up to `k`), so a line of four
/// takes two shifts instead of three, of five three instead of four (as a
/// bitboard engine tests Connect Four lines). `None` for other offsets or
/// shorter lines, whose terms stay one shift each.
pub fn line_doubling(offs: &[i32]) -> Option<Vec<i32>> {
    let k = offs.len();
    let d = *offs.get(1)?;
    if k < 4 || d == 0 || offs.iter().enumerate().any(|(i, &o)| o != i as i32 * d) {
        return None;
    }
    let (mut covered, mut steps) = (1, Vec::new());
    while covered < k {
        let s = covered.min(k - covered);
        steps.push(s as i32 * d);
        covered += s;
    }
    Some(steps)
}
