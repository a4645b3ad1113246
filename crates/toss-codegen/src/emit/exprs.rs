//! The plan's expressions as Rust: set expressions, conditions and real
//! terms (one recursive emitter, [`set_expr`], [`cond_expr`] and
//! [`num_expr`] calling each other), their variants using the sets a ply
//! computes once, and the functions of the compiled conditions. What a
//! representation computes comes from its own file (`bitset`, `shift`,
//! `table`, `tuples`).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;
use toss_core::ir;

use super::lit::{bound, usize_lit};
use super::{bitset, shift, table, tuples};
use crate::plan::{
    Bound, Cond, FunRef, Num, Plan, Rel2, SetExpr, cond_occurrences, set_occurrences,
};

pub(crate) fn set_expr(plan: &Plan, e: &SetExpr) -> TokenStream {
    match e {
        SetExpr::Tuples { rel, args } => tuples::tuples_set(plan, *rel, args),
        SetExpr::Elem(b) => {
            let b = bound(*b);
            quote! { ({ let mut t = Set::EMPTY; t.insert(#b); t }) }
        }
        SetExpr::Row { table: t, of } => table::row(*t, *of),
        SetExpr::Row2 { table: t, a, b } => table::row2(*t, *a, *b),
        SetExpr::Ray { .. } => ray_expr(plan, e, true),
        SetExpr::If(c) => {
            let c = cond_expr(plan, c);
            quote! { (if #c { UNIVERSE } else { Set::EMPTY }) }
        }
        SetExpr::Empty => quote! { Set::EMPTY },
        SetExpr::Universe => quote! { UNIVERSE },
        SetExpr::Mask(i) => bitset::mask(*i),
        SetExpr::Fluent(i) => bitset::fluent(*i),
        SetExpr::FixVar(v) => {
            let v = format_ident!("fix{}", v);
            quote! { #v }
        }
        SetExpr::And(v) => {
            let parts = v.iter().map(|x| set_expr(plan, x));
            quote! { (#(#parts)&*) }
        }
        SetExpr::Or(v) => {
            let parts = v.iter().map(|x| set_expr(plan, x));
            quote! { (#(#parts)|*) }
        }
        SetExpr::Not(x) => {
            let x = set_expr(plan, x);
            quote! { (UNIVERSE & !#x) }
        }
        SetExpr::AllIf(x) => {
            let x = set_expr(plan, x);
            quote! { (if #x.is_empty() { Set::EMPTY } else { UNIVERSE }) }
        }
        SetExpr::Image { rel, of } => {
            let of = set_expr(plan, of);
            match rel {
                Rel2::Shifts(v) => shift::image(&of, v),
                Rel2::Table(t) => table::image(*t, &of),
                Rel2::Fluent { rel, forward } => tuples::image(plan, *rel, *forward, &of),
            }
        }
        SetExpr::Fix { var, body } => {
            let v = format_ident!("fix{}", var);
            let body = set_expr(plan, body);
            quote! {
                ({
                    let mut #v = Set::EMPTY;
                    loop {
                        let next = #body;
                        if next == #v {
                            break #v;
                        }
                        #v = next;
                    }
                })
            }
        }
    }
}

/// A [`SetExpr::Ray`], with or without its start (see [`table::ray`]).
pub(crate) fn ray_expr(plan: &Plan, e: &SetExpr, with_from: bool) -> TokenStream {
    let SetExpr::Ray {
        table: t,
        from,
        through,
        up,
    } = e
    else {
        return set_expr(plan, e);
    };
    table::ray(*t, *from, set_expr(plan, through), *up, with_from)
}

/// A set expression that is intersected with a set excluding the bound
/// elements `skip`: rays from them in monotone positions (under unions and
/// intersections) leave out their start, which the intersection removes
/// anyway.
pub(crate) fn set_expr_without(plan: &Plan, e: &SetExpr, skip: &[Bound]) -> TokenStream {
    match e {
        SetExpr::Ray { from, .. } if skip.contains(from) => ray_expr(plan, e, false),
        SetExpr::And(v) => {
            let parts = v.iter().map(|x| set_expr_without(plan, x, skip));
            quote! { (#(#parts)&*) }
        }
        SetExpr::Or(v) => {
            let parts = v.iter().map(|x| set_expr_without(plan, x, skip));
            quote! { (#(#parts)|*) }
        }
        _ => set_expr(plan, e),
    }
}

pub(crate) fn cond_expr(plan: &Plan, c: &Cond) -> TokenStream {
    match c {
        Cond::Const(true) => quote! { true },
        Cond::Const(false) => quote! { false },
        Cond::NonEmpty(SetExpr::And(v)) if v.iter().any(|x| matches!(x, SetExpr::Ray { .. })) => {
            // A cut ray is within its start and its full ray (a table
            // row): when those miss the other parts, the cut is not
            // computed.
            let (rays, rest): (Vec<&SetExpr>, Vec<&SetExpr>) =
                v.iter().partition(|x| matches!(x, SetExpr::Ray { .. }));
            let full = rays.iter().map(|x| match x {
                SetExpr::Ray { table: t, from, .. } => table::full_ray(*t, *from),
                _ => quote! { UNIVERSE },
            });
            let cut = rays.iter().map(|x| set_expr(plan, x));
            let rest = rest.iter().map(|x| set_expr(plan, x));
            quote! {
                ({
                    let x = UNIVERSE #(& #rest)*;
                    !(x #(& #full)*).is_empty() && !(x #(& #cut)*).is_empty()
                })
            }
        }
        Cond::NonEmpty(s) => {
            let s = set_expr(plan, s);
            quote! { !#s.is_empty() }
        }
        Cond::Not(c) => {
            let c = cond_expr(plan, c);
            quote! { !(#c) }
        }
        Cond::And(v) => {
            let parts = v.iter().map(|x| cond_expr(plan, x));
            quote! { (#(#parts)&&*) }
        }
        Cond::Or(v) => {
            let parts = v.iter().map(|x| cond_expr(plan, x));
            quote! { (#(#parts)||*) }
        }
        Cond::Pattern { pattern, sets } => {
            let p = &plan.patterns[*pattern];
            let names: Vec<Ident> = (0..sets.len()).map(|i| format_ident!("v{}", i)).collect();
            let defs = sets.iter().zip(&names).map(|(s, n)| {
                let s = set_expr(plan, s);
                quote! { let #n = #s; }
            });
            let same = sets.iter().all(|x| *x == sets[0]);
            let groups = shift::pattern_groups(p, &names, same);
            // One test on the union of the groups: no branch per group.
            quote! { ({ #(#defs)* !(#(#groups)|*).is_empty() }) }
        }
        Cond::In(b, set) => {
            let (b, set) = (bound(*b), set_expr(plan, set));
            quote! { #set.contains(#b) }
        }
        Cond::Eq(a, b) => {
            let (a, b) = (bound(*a), bound(*b));
            quote! { (#a == #b) }
        }
        Cond::Holds { rel, args } => tuples::holds(plan, *rel, args),
        Cond::Cmp(a, op, b) => {
            let (a, b) = (num_expr(plan, a, false), num_expr(plan, b, false));
            match op {
                ir::CmpOp::Lt => quote! { (#a < #b) },
                ir::CmpOp::Le => quote! { (#a <= #b) },
                ir::CmpOp::Eq => quote! { (#a == #b) },
                ir::CmpOp::Ne => quote! { (#a != #b) },
                ir::CmpOp::Ge => quote! { (#a >= #b) },
                ir::CmpOp::Gt => quote! { (#a > #b) },
            }
        }
        Cond::Exists { var, over, body } => {
            let q = bound(Bound::Loop(*var));
            let (over, body) = (set_expr(plan, over), cond_expr(plan, body));
            quote! { #over.iter().any(|#q| #body) }
        }
    }
}

/// [`set_expr`], with the sets `sh` computed beforehand (into `sh0`,
/// `sh1`, ..., see [`crate::plan::shared_sets`]) used where they occur.
pub(crate) fn set_expr_shared(plan: &Plan, e: &SetExpr, sh: &[SetExpr]) -> TokenStream {
    if let Some(i) = sh.iter().position(|x| x == e) {
        let v = format_ident!("sh{}", i);
        return quote! { #v };
    }
    if !sh.iter().any(|x| set_occurrences(e, x) > 0) {
        return set_expr(plan, e);
    }
    match e {
        SetExpr::And(v) => {
            let parts = v.iter().map(|x| set_expr_shared(plan, x, sh));
            quote! { (#(#parts)&*) }
        }
        SetExpr::Or(v) => {
            let parts = v.iter().map(|x| set_expr_shared(plan, x, sh));
            quote! { (#(#parts)|*) }
        }
        SetExpr::Not(x) => {
            let x = set_expr_shared(plan, x, sh);
            quote! { (UNIVERSE & !#x) }
        }
        SetExpr::AllIf(x) => {
            let x = set_expr_shared(plan, x, sh);
            quote! { (if #x.is_empty() { Set::EMPTY } else { UNIVERSE }) }
        }
        SetExpr::Image {
            rel: Rel2::Shifts(v),
            of,
        } => {
            let of = set_expr_shared(plan, of, sh);
            shift::image(&of, v)
        }
        _ => set_expr(plan, e),
    }
}

/// [`cond_expr`], with the sets `sh` computed beforehand used where they
/// occur (see [`set_expr_shared`]).
pub(crate) fn cond_expr_shared(plan: &Plan, c: &Cond, sh: &[SetExpr]) -> TokenStream {
    if !sh.iter().any(|x| cond_occurrences(c, x) > 0) {
        return cond_expr(plan, c);
    }
    match c {
        Cond::NonEmpty(s) => {
            let s = set_expr_shared(plan, s, sh);
            quote! { !#s.is_empty() }
        }
        Cond::In(b, s) => {
            let (b, s) = (bound(*b), set_expr_shared(plan, s, sh));
            quote! { #s.contains(#b) }
        }
        Cond::Not(x) => {
            let x = cond_expr_shared(plan, x, sh);
            quote! { !(#x) }
        }
        Cond::And(v) => {
            let parts = v.iter().map(|x| cond_expr_shared(plan, x, sh));
            quote! { (#(#parts)&&*) }
        }
        Cond::Or(v) => {
            let parts = v.iter().map(|x| cond_expr_shared(plan, x, sh));
            quote! { (#(#parts)||*) }
        }
        _ => cond_expr(plan, c),
    }
}

/// The conditions a term uses (evaluated once per payoff computation).
pub(crate) fn num_conds(n: &Num, out: &mut Vec<usize>) {
    match n {
        Num::Cond(i) => out.push(*i),
        Num::Neg(a) => num_conds(a, out),
        Num::Add(a, b) | Num::Sub(a, b) | Num::Mul(a, b) => {
            num_conds(a, out);
            num_conds(b, out);
        }
        Num::Sum { body, .. } => num_conds(body, out),
        Num::Const(_) | Num::Count(..) | Num::Fun(..) | Num::Solver(_) => {}
    }
}

/// A real term; `pre` says whether the conditions it uses were evaluated
/// beforehand (into `cv{i}`, see [`num_conds`]).
pub(crate) fn num_expr(plan: &Plan, n: &Num, pre: bool) -> TokenStream {
    match n {
        Num::Const(c) => {
            let c = Literal::f64_suffixed(*c);
            quote! { #c }
        }
        Num::Cond(i) if pre => {
            let v = format_ident!("cv{}", i);
            quote! { (if #v { 1.0 } else { 0.0 }) }
        }
        Num::Cond(i) => {
            let f = format_ident!("c{}", i);
            quote! { (if #f(s) { 1.0 } else { 0.0 }) }
        }
        Num::Fun(FunRef::Stable(f), b) => {
            let (t, b) = (format_ident!("F{}", f), bound(*b));
            quote! { #t[#b as usize] }
        }
        Num::Fun(FunRef::Fluent(f), b) => {
            let (f, b) = (usize_lit(*f), bound(*b));
            quote! { s.funs[#f][#b as usize] }
        }
        Num::Count(set, k) => {
            let set = set_expr(plan, set);
            let k = Literal::f64_suffixed(*k);
            quote! { (#set.count() as f64 * #k) }
        }
        Num::Neg(a) => {
            let a = num_expr(plan, a, pre);
            quote! { (-#a) }
        }
        Num::Add(a, b) => {
            let (a, b) = (num_expr(plan, a, pre), num_expr(plan, b, pre));
            quote! { (#a + #b) }
        }
        Num::Sub(a, b) => {
            let (a, b) = (num_expr(plan, a, pre), num_expr(plan, b, pre));
            quote! { (#a - #b) }
        }
        Num::Mul(a, b) => {
            let (a, b) = (num_expr(plan, a, pre), num_expr(plan, b, pre));
            quote! { (#a * #b) }
        }
        Num::Sum { var, over, body } => {
            let q = bound(Bound::Loop(*var));
            let (over, body) = (set_expr(plan, over), num_expr(plan, body, pre));
            quote! {
                ({
                    let mut acc = 0.0;
                    for #q in #over.iter() {
                        acc += #body;
                    }
                    acc
                })
            }
        }
        // Only in heuristics, whose function declares `view` (the state's
        // structure, built on first use).
        Num::Solver(i) => {
            let i = usize_lit(*i);
            quote! {
                heuristic_fallback().term_value(view.get_or_insert_with(|| to_structure(s)), 0, #i)
            }
        }
    }
}

/// One function per compiled condition (`c<i>`), with what it is.
pub(crate) fn cond_fns(plan: &Plan) -> Vec<TokenStream> {
    (plan.conds.iter().enumerate())
        .map(|(i, (what, c))| {
            let name = format_ident!("c{}", i);
            let doc = format!(" `{what}`, compiled: `{}`.", plan.cond_text(c));
            let body = cond_expr(plan, c);
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #name(s: &State) -> bool {
                    #body
                }
            }
        })
        .collect()
}
