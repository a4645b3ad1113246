//! Emitting the specialized `Game` impl from a [`Plan`].
//!
//! The generated module holds the constant masks and neighbour tables, the
//! state (one `Bits<W>` per fluent unary relation and the location), the
//! move (label, rule and matched elements), one function per compiled
//! condition, one matcher per rule, and the move generator, rule effects
//! and payoffs per location. Everything is emitted in plan order, so the
//! output is deterministic.
//!
//! The playout loop counts the moves of every label without listing them:
//! a rule with a set of matches by a popcount; the labels of a mover's
//! shared-prefix tree ([`crate::plan::PrefixNode`]) in one enumeration of
//! the tree, keeping the candidate sets of last steps counted by a
//! popcount (`sets`) to select the drawn match from; the others by listing
//! their matches (`found`; sorted into canonical order for a matcher in
//! another join order than the declaration). A postcondition that reads only fluent
//! relations is tested on the effect applied to a copy of the bitsets
//! (`Rels`), and a test that a cut ray meets a set first tests the ray's
//! start and full ray (a table row).

use std::path::Path;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;
use toss_core::ir;

use crate::plan::{
    AllEffect, Bound, Cond, FunRef, Num, Plan, PrefixNode, Rel2, Repr, RulePlan, SetExpr, Step,
    cond_occurrences, set_occurrences,
};

/// `TicTacToe` -> `__toss_tic_tac_toe`.
fn module_name(ident: &Ident) -> Ident {
    let mut out = String::from("__toss");
    let mut prev_lower = false;
    for c in ident.to_string().chars() {
        if c.is_uppercase() {
            if prev_lower || out.ends_with("__toss") {
                out.push('_');
            }
            out.extend(c.to_lowercase());
            prev_lower = false;
        } else {
            if out.ends_with("__toss") {
                out.push('_');
            }
            out.push(c);
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
        }
    }
    format_ident!("{}", out)
}

fn set_lit(plan: &Plan, members: impl IntoIterator<Item = u32>) -> TokenStream {
    let mut words = vec![0u64; plan.words];
    for e in members {
        words[(e / 64) as usize] |= 1 << (e % 64);
    }
    let words = words.iter().map(|w| {
        let s = format!("{w:#018x}");
        let lit: TokenStream = s.parse().unwrap_or_default();
        quote! { #lit }
    });
    quote! { Bits([#(#words),*]) }
}

fn usize_lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

fn u32_lit(n: u32) -> Literal {
    Literal::u32_unsuffixed(n)
}

/// `s` shifted by `d` (`x + d` for each member `x`).
fn shift(s: TokenStream, d: i32) -> TokenStream {
    if d >= 0 {
        let d = u32_lit(d as u32);
        quote! { #s.shift_up(#d) }
    } else {
        let d = u32_lit(d.unsigned_abs());
        quote! { #s.shift_down(#d) }
    }
}

/// The variable holding a bound element.
fn bound(b: Bound) -> Ident {
    match b {
        Bound::Left(i) => format_ident!("e{}", i),
        Bound::Loop(i) => format_ident!("q{}", i),
    }
}

/// The field of the state holding fluent relation `rel` of arity other
/// than 1 (a `Pairs` when dense, a sorted `Vec` of tuples when sparse).
fn tuples_field(rel: usize) -> Ident {
    format_ident!("tuples{}", rel)
}

/// `{x | rel(args)}` (see [`SetExpr::Tuples`]).
fn tuples_set(plan: &Plan, rel: usize, args: &[Option<Bound>]) -> TokenStream {
    let f = tuples_field(rel);
    match (plan.fluent_rels[rel].repr, args) {
        (Repr::Dense, [Some(a), None]) => {
            let a = bound(*a);
            quote! { s.#f.succ[#a as usize] }
        }
        (Repr::Dense, [None, Some(b)]) => {
            let b = bound(*b);
            quote! { s.#f.pred[#b as usize] }
        }
        (Repr::Dense, _) => quote! { s.#f.loops },
        (Repr::Sparse, _) => {
            let var = args.iter().position(Option::is_none).unwrap_or(0);
            let v = usize_lit(var);
            let tests = args.iter().enumerate().map(|(i, a)| {
                let i = usize_lit(i);
                match a {
                    Some(b) => {
                        let b = bound(*b);
                        quote! { t[#i] == #b }
                    }
                    None => quote! { t[#i] == t[#v] },
                }
            });
            quote! {
                ({
                    let mut r = Set::EMPTY;
                    for t in s.#f.iter() {
                        if #(#tests)&&* {
                            r.insert(t[#v]);
                        }
                    }
                    r
                })
            }
        }
    }
}

fn set_expr(plan: &Plan, e: &SetExpr) -> TokenStream {
    match e {
        SetExpr::Tuples { rel, args } => tuples_set(plan, *rel, args),
        SetExpr::Elem(b) => {
            let b = bound(*b);
            quote! { ({ let mut t = Set::EMPTY; t.insert(#b); t }) }
        }
        SetExpr::Row { table, of } => {
            let t = format_ident!("T{}", table);
            let of = bound(*of);
            quote! { #t[#of as usize] }
        }
        SetExpr::Row2 { table, a, b } => {
            let t = format_ident!("T{}", table);
            let (a, b) = (bound(*a), bound(*b));
            quote! { #t[#a as usize * ELEMENTS.len() + #b as usize] }
        }
        SetExpr::Ray { .. } => ray_expr(plan, e, true),
        SetExpr::If(c) => {
            let c = cond_expr(plan, c);
            quote! { (if #c { UNIVERSE } else { Set::EMPTY }) }
        }
        SetExpr::Empty => quote! { Set::EMPTY },
        SetExpr::Universe => quote! { UNIVERSE },
        SetExpr::Mask(i) => {
            let m = format_ident!("M{}", i);
            quote! { #m }
        }
        SetExpr::Fluent(i) => {
            let i = usize_lit(*i);
            quote! { s.rels[#i] }
        }
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
                Rel2::Shifts(v) => {
                    let parts = v.iter().map(|(d, m)| {
                        let m = format_ident!("M{}", m);
                        shift(quote! { (o & #m) }, *d)
                    });
                    quote! { ({ let o = #of; #(#parts)|* }) }
                }
                Rel2::Table(t) => {
                    let t = format_ident!("T{}", t);
                    quote! {
                        ({
                            let mut r = Set::EMPTY;
                            for y in #of.iter() {
                                r |= #t[y as usize];
                            }
                            r
                        })
                    }
                }
                Rel2::Fluent { rel, forward } => {
                    let f = tuples_field(*rel);
                    match plan.fluent_rels[*rel].repr {
                        Repr::Dense => {
                            let dir = if *forward {
                                format_ident!("succ")
                            } else {
                                format_ident!("pred")
                            };
                            quote! {
                                ({
                                    let o = #of;
                                    let mut r = Set::EMPTY;
                                    for y in o.iter() {
                                        r |= s.#f.#dir[y as usize];
                                    }
                                    r
                                })
                            }
                        }
                        Repr::Sparse => {
                            let (from, to) = if *forward { (0, 1) } else { (1, 0) };
                            let (from, to) = (usize_lit(from), usize_lit(to));
                            quote! {
                                ({
                                    let o = #of;
                                    let mut r = Set::EMPTY;
                                    for t in s.#f.iter() {
                                        if o.contains(t[#from]) {
                                            r.insert(t[#to]);
                                        }
                                    }
                                    r
                                })
                            }
                        }
                    }
                }
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

/// A [`SetExpr::Ray`], with or without its start. The cells of a ray
/// table's row follow its direction in increasing ids (`up`) or decreasing
/// ones, so the cells before the first blocker are those below (above) it:
/// one mask of the ids below an id, no second table look-up.
fn ray_expr(plan: &Plan, e: &SetExpr, with_from: bool) -> TokenStream {
    let SetExpr::Ray {
        table,
        from,
        through,
        up,
    } = e
    else {
        return set_expr(plan, e);
    };
    let t = format_ident!("T{}", table);
    let from = bound(*from);
    let through = set_expr(plan, through);
    // Without a blocker, `first` and `last` are `u32::MAX`: every id is
    // below the one, none above the other (no test for a blocker).
    let cut = if *up {
        quote! { r & Set::below(b.first()) }
    } else {
        quote! { r.and_not(Set::below(b.last().wrapping_add(1))) }
    };
    let start = with_from.then(|| quote! { out.insert(#from); });
    quote! {
        ({
            let r = #t[#from as usize];
            let b = r & !#through;
            #[allow(unused_mut)]
            let mut out = #cut;
            #start
            out
        })
    }
}

/// A set expression that is intersected with a set excluding the bound
/// elements `skip`: rays from them in monotone positions (under unions and
/// intersections) leave out their start, which the intersection removes
/// anyway.
fn set_expr_without(plan: &Plan, e: &SetExpr, skip: &[Bound]) -> TokenStream {
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

fn cond_expr(plan: &Plan, c: &Cond) -> TokenStream {
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
                SetExpr::Ray { table, from, .. } => {
                    let t = format_ident!("T{}", table);
                    let from = bound(*from);
                    quote! { (#t[#from as usize] | Set::single(#from)) }
                }
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
            let groups = p.groups.iter().map(|(offs, m)| {
                let m = format_ident!("M{}", m);
                if same && let Some(steps) = crate::plan::line_doubling(offs) {
                    return line_by_doubling(&names[0], &m, &steps);
                }
                let terms = offs.iter().zip(&names).map(|(&o, n)| {
                    if o == 0 {
                        quote! { #n }
                    } else {
                        shift(quote! { #n }, -o)
                    }
                });
                quote! { (#m #(& #terms)*) }
            });
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
        Cond::Holds { rel, args } => {
            let f = tuples_field(*rel);
            match (plan.fluent_rels[*rel].repr, args.as_slice()) {
                (Repr::Dense, [a, b]) => {
                    let (a, b) = (bound(*a), bound(*b));
                    quote! { s.#f.succ[#a as usize].contains(#b) }
                }
                _ => {
                    let args = args.iter().map(|b| bound(*b));
                    quote! { s.#f.binary_search(&[#(#args),*]).is_ok() }
                }
            }
        }
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
fn set_expr_shared(plan: &Plan, e: &SetExpr, sh: &[SetExpr]) -> TokenStream {
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
            let parts = v.iter().map(|(d, m)| {
                let m = format_ident!("M{}", m);
                shift(quote! { (o & #m) }, *d)
            });
            quote! { ({ let o = #of; #(#parts)|* }) }
        }
        _ => set_expr(plan, e),
    }
}

/// [`cond_expr`], with the sets `sh` computed beforehand used where they
/// occur (see [`set_expr_shared`]).
fn cond_expr_shared(plan: &Plan, c: &Cond, sh: &[SetExpr]) -> TokenStream {
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

/// A group of a pattern whose sets are all `v` at offsets `0, d, .., (k -
/// 1) d` from the start: the starts in `m` with `v` at each of them, as
/// `t = v`, then `t &= t` shifted back by each of `steps` (see
/// [`crate::plan::line_doubling`]).
fn line_by_doubling(v: &Ident, m: &Ident, steps: &[i32]) -> TokenStream {
    let ands = steps.iter().map(|&o| {
        let sh = shift(quote! { t }, -o);
        quote! { let t = t & #sh; }
    });
    quote! { (#m & { let t = #v; #(#ands)* t }) }
}

/// The conditions a term uses (evaluated once per payoff computation).
fn num_conds(n: &Num, out: &mut Vec<usize>) {
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
fn num_expr(plan: &Plan, n: &Num, pre: bool) -> TokenStream {
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

/// The compiled heuristic: `heuristic(s, out)` and, when some part falls
/// back to the solver, `heuristic_fallback()`; empty without a heuristic.
fn heuristic_fns(plan: &Plan, ident: &Ident, file_name: &str) -> TokenStream {
    let Some(h) = &plan.heuristic else {
        return quote! {};
    };
    let arms = h.per_location.iter().enumerate().map(|(li, l)| {
        let lit = usize_lit(li);
        let vals = l.iter().enumerate().map(|(p, n)| {
            let p = usize_lit(p);
            let v = num_expr(plan, n, false);
            quote! { out[#p] = #v; }
        });
        quote! { #lit => { #(#vals)* } }
    });
    let mut doc = String::from(
        " The derived heuristic (spec 3.3, existential, default configuration) \
         of every player in `s`, into `out`. Compiled per location:",
    );
    for (li, l) in h.per_location.iter().enumerate() {
        for (p, n) in l.iter().enumerate() {
            doc.push_str(&format!(
                "\n - location {li}, {}: `{}`",
                plan.players[p],
                plan.num_text(n)
            ));
        }
    }
    if h.fallback.is_empty() {
        doc.push_str("\n\n Every part is compiled; nothing runs on the solver.");
    } else {
        doc.push_str("\n\n Parts `[hI by the solver]` are evaluated by the runtime solver on the state's structure:");
        for (i, (t, why)) in h.fallback.iter().enumerate() {
            doc.push_str(&format!(
                "\n - `h{i}` = `{}`: {why}",
                toss_lang::print::print_real(t)
            ));
        }
    }
    let view = (!h.fallback.is_empty()).then(|| {
        quote! { let mut view: ::core::option::Option<::toss::Structure> = None; }
    });
    let fallback = (!h.fallback.is_empty()).then(|| {
        let terms = h
            .fallback
            .iter()
            .map(|(t, _)| toss_lang::print::print_real(t));
        quote! {
            /// The runtime solver on the heuristic's parts outside the
            /// fragment (`h0`, `h1`, ... of the plan, embedded as text),
            /// built on first use.
            pub fn heuristic_fallback() -> &'static ::toss::__private::HeuristicEval {
                static FALLBACK: ::toss::__private::OnceLock<::toss::__private::HeuristicEval> =
                    ::toss::__private::OnceLock::new();
                FALLBACK.get_or_init(|| {
                    ::toss::__private::heuristic_fallback(
                        super::#ident::SOURCE,
                        #file_name,
                        super::#ident::interpreter(),
                        &[#(#terms),*],
                    )
                })
            }
        }
    });
    quote! {
        #fallback

        #[doc = #doc]
        pub fn heuristic(s: &State, out: &mut [f64]) {
            #view
            match s.location {
                #(#arms)*
                _ => {}
            }
        }
    }
}

/// The effect of rule `r` on the fluent bitsets `target` (an array of
/// sets), the images of the left elements given by `elems`: the removals
/// of each fluent as one and-not with the set of the removed elements,
/// then the additions.
fn rels_effect(r: &RulePlan, target: &TokenStream, elems: &[TokenStream]) -> TokenStream {
    // Fluents in order of first removal, each with its removed elements.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for &(f, e) in &r.removes {
        match groups.iter_mut().find(|(g, _)| *g == f) {
            Some((_, v)) => v.push(e),
            None => groups.push((f, vec![e])),
        }
    }
    // One mask per distinct list of removed elements.
    // One mask per distinct list of several removed elements (a single
    // element is removed by one bit operation, cheaper than building a
    // set of several words).
    let mut masks: Vec<Vec<usize>> = Vec::new();
    for (_, v) in &groups {
        if v.len() > 1 && !masks.contains(v) {
            masks.push(v.clone());
        }
    }
    let mask_defs = masks.iter().enumerate().map(|(i, v)| {
        let m = format_ident!("rm{}", i);
        let singles = v.iter().map(|&e| {
            let x = &elems[e];
            quote! { Set::single(#x) }
        });
        quote! { let #m = #(#singles)|*; }
    });
    let rems = groups.iter().map(|(f, v)| {
        let f = usize_lit(*f);
        if let [e] = v.as_slice() {
            let x = &elems[*e];
            return quote! { #target[#f].remove(#x); };
        }
        let m = format_ident!("rm{}", masks.iter().position(|x| x == v).unwrap_or(0));
        quote! { #target[#f] = #target[#f].and_not(#m); }
    });
    let adds = r.adds.iter().map(|&(f, e)| {
        let (f, x) = (usize_lit(f), &elems[e]);
        quote! { #target[#f].insert(#x); }
    });
    quote! { #(#mask_defs)* #(#rems)* #(#adds)* }
}

/// The effect of rule `r` on the fluent relations of other arities in the
/// state `s`, the images of the left elements given by `elems`: the
/// tuples over the matched elements removed (`emb`), then the right
/// side's tuples added.
fn tuples_effect(plan: &Plan, r: &RulePlan, elems: &[TokenStream]) -> TokenStream {
    let mut out = Vec::new();
    if !r.tuple_removes.is_empty() {
        out.push(quote! { let matched = Set::EMPTY #(| Set::single(#elems))*; });
    }
    for &t in &r.tuple_removes {
        let f = tuples_field(t);
        out.push(match plan.fluent_rels[t].repr {
            // A tuple over the matched elements is in the row of its first
            // element and in the column of its second.
            Repr::Dense => {
                let rows = elems.iter().map(|x| {
                    quote! {
                        s.#f.succ[#x as usize] = s.#f.succ[#x as usize].and_not(matched);
                        s.#f.pred[#x as usize] = s.#f.pred[#x as usize].and_not(matched);
                    }
                });
                quote! {
                    #(#rows)*
                    s.#f.loops = s.#f.loops.and_not(matched);
                }
            }
            Repr::Sparse => quote! {
                s.#f.retain(|t| !t.iter().all(|&x| matched.contains(x)));
            },
        });
    }
    for (t, args) in &r.tuple_adds {
        let f = tuples_field(*t);
        let xs: Vec<&TokenStream> = args.iter().map(|&a| &elems[a]).collect();
        out.push(match (plan.fluent_rels[*t].repr, xs.as_slice()) {
            // Left elements are distinct: a loop is a tuple of one element.
            (Repr::Dense, [a, _]) if args[0] == args[1] => quote! {
                s.#f.succ[#a as usize].insert(#a);
                s.#f.pred[#a as usize].insert(#a);
                s.#f.loops.insert(#a);
            },
            (Repr::Dense, [a, b]) => quote! {
                s.#f.succ[#a as usize].insert(#b);
                s.#f.pred[#b as usize].insert(#a);
            },
            _ => quote! {
                {
                    let t = [#(#xs),*];
                    if let ::core::result::Result::Err(p) = s.#f.binary_search(&t) {
                        s.#f.insert(p, t);
                    }
                }
            },
        });
    }
    quote! { #(#out)* }
}

/// `*s` for a state that is `Copy` (no sparse relation), else `s.clone()`.
fn copy_of_state(plan: &Plan) -> TokenStream {
    if plan.fluent_rels.iter().any(|r| r.repr == Repr::Sparse) {
        quote! { s.clone() }
    } else {
        quote! { *s }
    }
}

/// Whether the postcondition of rule `ri` holds for the match `elems` (the
/// bound variables `e0`, `e1`, ...): a boolean expression. A postcondition
/// that reads only fluent relations is evaluated on the effect applied to
/// a copy of the bitsets (`Rels`); any other on a copy of the whole state.
fn post_holds(plan: &Plan, ri: usize, elems: &[Ident]) -> Option<TokenStream> {
    let r = &plan.rules[ri];
    let c = r.post.as_ref()?;
    let body = cond_expr(plan, c);
    if crate::plan::reads_only_relations(c) {
        let es: Vec<TokenStream> = elems.iter().map(|e| quote! { #e }).collect();
        let fx = rels_effect(r, &quote! { rels }, &es);
        Some(quote! {
            ({
                let mut rels = s.rels;
                #fx
                let s = &Rels { rels };
                #body
            })
        })
    } else {
        let k = plan.max_lhs();
        let pad = (r.lhs.len()..k).map(|_| quote! { 0 });
        let rl = Literal::u16_unsuffixed(ri as u16);
        let copy = copy_of_state(plan);
        Some(quote! {
            ({
                let after = {
                    let mut t = #copy;
                    apply_rule(&mut t, #rl, &[#(#elems),* #(, #pad)*]);
                    t
                };
                let s = &after;
                #body
            })
        })
    }
}

/// The candidates of a step once the earlier elements are bound, into `n`
/// (its state-only part is `c<elem>`, computed beforehand).
fn step_set(plan: &Plan, st: &Step, cand: &Ident) -> TokenStream {
    let links = st.links.iter().map(|l| {
        let t = format_ident!("T{}", l.table);
        let from = format_ident!("e{}", l.from);
        quote! { n &= #t[#from as usize]; }
    });
    let distinct = st.distinct_from.iter().map(|&j| {
        let o = format_ident!("e{}", j);
        quote! { n.remove(#o); }
    });
    // Earlier elements that a link's table leaves out of the candidates
    // (no row of the table holds its own element).
    let skip: Vec<Bound> = st
        .links
        .iter()
        .filter(|l| {
            plan.tables[l.table]
                .rows
                .iter()
                .enumerate()
                .all(|(y, row)| !row.contains(&(y as u32)))
        })
        .map(|l| Bound::Left(l.from))
        .collect();
    let sets = st.inner.iter().map(|x| {
        let x = set_expr_without(plan, x, &skip);
        quote! { n &= #x; }
    });
    quote! {
        let mut n = #cand;
        #(#links)*
        #(#distinct)*
        #(#sets)*
    }
}

/// The per-candidate checks of a step (`continue` when one fails).
fn step_checks(plan: &Plan, st: &Step) -> TokenStream {
    let checks = st.checks.iter().map(|x| {
        let x = cond_expr(plan, x);
        quote! {
            if !#x {
                continue;
            }
        }
    });
    quote! { #(#checks)* }
}

/// `inner` in the loops over the candidates of `steps`, outermost first:
/// each binds its left element (`elems[step.elem]`) to the candidates that
/// pass the step's checks.
fn nest_steps(plan: &Plan, steps: &[Step], elems: &[Ident], mut inner: TokenStream) -> TokenStream {
    for st in steps.iter().rev() {
        let c = format_ident!("c{}", st.elem);
        let e = &elems[st.elem];
        let set = step_set(plan, st, &c);
        let checks = step_checks(plan, st);
        inner = quote! {
            #set
            for #e in n.iter() {
                #checks
                #inner
            }
        };
    }
    inner
}

/// The function enumerating the matches of rule `ri` in any order (where
/// the order does not matter, or the matches are sorted after): `scan_i`,
/// in join order, for a matcher that is not in declaration order, else
/// `match_i`.
fn scan_fn(plan: &Plan, ri: usize) -> Ident {
    if plan.rules[ri].reordered() {
        format_ident!("scan_{}", ri)
    } else {
        format_ident!("match_{}", ri)
    }
}

/// The matcher of rule `ri`: calls `f` on every match in canonical order
/// until it returns false; returns whether it ran to the end. A matcher
/// in another join order than the declaration is `scan_i`, and `match_i`
/// sorts its matches.
fn matcher(plan: &Plan, ident: &Ident, ri: usize) -> TokenStream {
    let r = &plan.rules[ri];
    let k = plan.max_lhs();
    let name = scan_fn(plan, ri);
    let order = if r.reordered() {
        "in join order"
    } else {
        "in canonical order (lexicographic in the left elements)"
    };
    let mut doc = format!(
        " Matches of rule `{}` ({}), {order}, calling `f` on each until it \
         returns false; returns whether it ran to the end. Join order and \
         candidates:",
        r.name,
        r.lhs.join(", ")
    );
    for line in plan.matcher_text(r) {
        doc.push_str(&format!("\n - {line}"));
    }
    if r.interpreted.is_some() {
        let ident = ident.clone();
        let rl = usize_lit(ri);
        let k = usize_lit(k);
        return quote! {
            #[doc = #doc]
            pub fn #name(s: &State, f: &mut impl FnMut([u32; #k]) -> bool) -> bool {
                let view = to_structure(s);
                let mut ms = ::std::vec::Vec::new();
                super::#ident::interpreter().rule_matches(#rl, &view, &mut ms);
                for m in &ms {
                    let mut e = [0u32; #k];
                    e[..m.elems.len()].copy_from_slice(&m.elems);
                    if !f(e) {
                        return false;
                    }
                }
                true
            }
        };
    }
    let cands = r.steps.iter().map(|st| {
        let c = format_ident!("c{}", st.elem);
        let e = set_expr(plan, &st.cand);
        quote! { let #c = #e; }
    });
    let body = if let Some((d, m)) = r.shift {
        let m = format_ident!("M{}", m);
        let pairs = shift(quote! { (c0 & #m) }, d);
        let back = if d >= 0 {
            let d = u32_lit(d as u32);
            quote! { e1 - #d }
        } else {
            let d = u32_lit(d.unsigned_abs());
            quote! { e1 + #d }
        };
        let pad = (2..k).map(|_| quote! { 0 });
        quote! {
            for e1 in (#pairs & c1).iter() {
                let e0 = #back;
                if !f([e0, e1 #(, #pad)*]) {
                    return false;
                }
            }
            true
        }
    } else {
        let elems: Vec<Ident> = (0..r.lhs.len()).map(|i| format_ident!("e{}", i)).collect();
        // The images, then 0 for the positions of longer rules (a rule
        // without left elements matches once, with no images).
        let items = elems
            .iter()
            .map(|e| quote! { #e })
            .chain((r.lhs.len()..k).map(|_| quote! { 0 }));
        let arr = quote! { [#(#items),*] };
        let post = post_holds(plan, ri, &elems).map(|holds| {
            quote! {
                if !#holds {
                    break 'm;
                }
            }
        });
        let check = r.check_fallback.as_ref().map(|_| {
            let rl = usize_lit(ri);
            quote! {
                let v = view.get_or_insert_with(|| to_structure(s));
                if !super::#ident::interpreter().rule_match_passes(#rl, v, &[#(#elems),*]) {
                    break 'm;
                }
            }
        });
        let inner = if post.is_none() && check.is_none() {
            quote! {
                if !f(#arr) {
                    return false;
                }
            }
        } else {
            quote! {
                'm: {
                    #post
                    #check
                    if !f(#arr) {
                        return false;
                    }
                }
            }
        };
        let inner = nest_steps(plan, &r.steps, &elems, inner);
        let view = r.check_fallback.as_ref().map(|_| {
            quote! { let mut view: ::core::option::Option<::toss::Structure> = None; }
        });
        quote! {
            #view
            #inner
            true
        }
    };
    let k = usize_lit(k);
    let scan = quote! {
        #[doc = #doc]
        #[inline]
        pub fn #name(s: &State, f: &mut impl FnMut([u32; #k]) -> bool) -> bool {
            #(#cands)*
            #body
        }
    };
    if !r.reordered() {
        return scan;
    }
    let m = format_ident!("match_{}", ri);
    let doc = format!(
        " Matches of rule `{}` in canonical order: those of `{name}` (in join \
         order), sorted.",
        r.name
    );
    quote! {
        #scan

        #[doc = #doc]
        pub fn #m(s: &State, f: &mut impl FnMut([u32; #k]) -> bool) -> bool {
            let mut ms = ::std::vec::Vec::new();
            #name(s, &mut |e| {
                ms.push(e);
                true
            });
            ms.sort_unstable();
            ms.into_iter().all(f)
        }
    }
}

/// Per rule: `count_i` (the number of matches) and `nth_i` (the match of
/// rank `k` in canonical order). Rules with one left element, or two linked
/// by a grid step, have a set of matches (`set_i`): counting is a popcount
/// and selection a bit select.
fn counters(plan: &Plan, ri: usize) -> TokenStream {
    let r = &plan.rules[ri];
    let k = usize_lit(plan.max_lhs());
    let pad: Vec<TokenStream> = (r.lhs.len().max(1)..plan.max_lhs())
        .map(|_| quote! { 0 })
        .collect();
    let set_name = format_ident!("set_{}", ri);
    let count = format_ident!("count_{}", ri);
    let nth = format_ident!("nth_{}", ri);
    let m = format_ident!("match_{}", ri);
    let scan = scan_fn(plan, ri);
    let cands = r.steps.iter().map(|st| {
        let c = format_ident!("c{}", st.elem);
        let e = set_expr(plan, &st.cand);
        quote! { let #c = #e; }
    });
    let simple = if !r.plain() {
        None
    } else if r.lhs.len() == 1 {
        Some((quote! { c0 }, quote! { [e #(, #pad)*] }))
    } else if let Some((d, mask)) = r.shift {
        let mask = format_ident!("M{}", mask);
        let pairs = shift(quote! { (c0 & #mask) }, d);
        let back = if d >= 0 {
            let d = u32_lit(d as u32);
            quote! { e - #d }
        } else {
            let d = u32_lit(d.unsigned_abs());
            quote! { e + #d }
        };
        Some((quote! { (#pairs & c1) }, quote! { [#back, e #(, #pad)*] }))
    } else {
        None
    };
    match simple {
        Some((set, elems)) => {
            let doc = format!(
                " The matches of rule `{}` as a set of elements (of its last left \
                 element).",
                r.name
            );
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #set_name(s: &State) -> Set {
                    #(#cands)*
                    #set
                }
                /// The match of rank `k` in the set of matches `set`.
                #[inline]
                pub fn #nth(set: &Set, k: u32) -> [u32; #k] {
                    let e = set.nth(k);
                    #elems
                }
            }
        }
        None => {
            let doc = format!(" The number of matches of rule `{}`.", r.name);
            let nth_fn = if r.last_step_counted() {
                // Whole candidate sets of the last step are skipped.
                let last = &r.steps[r.steps.len() - 1];
                let elems: Vec<Ident> = (0..r.lhs.len()).map(|i| format_ident!("e{}", i)).collect();
                let pad = (r.lhs.len()..plan.max_lhs()).map(|_| quote! { 0 });
                let le = &elems[last.elem];
                let set = step_set(plan, last, &format_ident!("c{}", last.elem));
                let inner = quote! {
                    #set
                    let c = n.count();
                    if k < c {
                        let #le = n.nth(k);
                        return [#(#elems),* #(, #pad)*];
                    }
                    k -= c;
                };
                let inner = nest_steps(plan, &r.steps[..r.steps.len() - 1], &elems, inner);
                let cands = r.steps.iter().map(|st| {
                    let c = format_ident!("c{}", st.elem);
                    let e = set_expr(plan, &st.cand);
                    quote! { let #c = #e; }
                });
                quote! {
                    /// The match of rank `k` in canonical order: the
                    /// candidates of the last left element are counted per
                    /// binding of the earlier ones, and skipped as a whole.
                    #[inline]
                    pub fn #nth(s: &State, mut k: u32) -> [u32; #k] {
                        #(#cands)*
                        #inner
                        [0; #k]
                    }
                }
            } else {
                quote! {
                    /// The match of rank `k` in canonical order.
                    #[inline]
                    pub fn #nth(s: &State, mut k: u32) -> [u32; #k] {
                        let mut out = [0; #k];
                        #m(s, &mut |e| {
                            if k == 0 {
                                out = e;
                                false
                            } else {
                                k -= 1;
                                true
                            }
                        });
                        out
                    }
                }
            };
            quote! {
                #[doc = #doc]
                #[inline]
                pub fn #count(s: &State) -> u32 {
                    let mut n = 0;
                    #scan(s, &mut |_| {
                        n += 1;
                        true
                    });
                    n
                }
                #nth_fn
            }
        }
    }
}

/// The set of matches of rule `ri` (with a set of matches, see
/// [`counters`]) computed in place with the sets `sh` computed beforehand
/// (see [`set_expr_shared`]); `None` when its candidates use none of them
/// (the playout calls `set_<ri>`).
fn set_of_matches_shared(plan: &Plan, ri: usize, sh: &[SetExpr]) -> Option<TokenStream> {
    let r = &plan.rules[ri];
    if !r
        .steps
        .iter()
        .any(|st| sh.iter().any(|x| set_occurrences(&st.cand, x) > 0))
    {
        return None;
    }
    let cands = r.steps.iter().map(|st| {
        let c = format_ident!("c{}", st.elem);
        let e = set_expr_shared(plan, &st.cand, sh);
        quote! { let #c = #e; }
    });
    let set = match r.shift {
        Some((d, mask)) if r.lhs.len() != 1 => {
            let mask = format_ident!("M{}", mask);
            let pairs = shift(quote! { (c0 & #mask) }, d);
            quote! { (#pairs & c1) }
        }
        _ => quote! { c0 },
    };
    Some(quote! { ({ #(#cands)* #set }) })
}

/// Whether rule `ri` has a set of matches (see [`counters`]).
fn has_set(plan: &Plan, ri: usize) -> bool {
    plan.rules[ri].has_set()
}

/// Whether some mover's label in location `li` has no set of matches (its
/// matches are listed in the playout loop).
fn uses_found(plan: &Plan, li: usize) -> bool {
    let loc = &plan.locations[li];
    loc.movers
        .iter()
        .flat_map(|&p| &loc.players[p].labels)
        .any(|l| !l.all && !has_set(plan, l.rule) && !plan.rules[l.rule].in_prefix_tree())
}

/// Whether some mover's label in location `li` keeps the candidate sets of
/// its last step (in `sets`) while it is counted.
fn uses_sets(plan: &Plan, li: usize) -> bool {
    let loc = &plan.locations[li];
    loc.movers
        .iter()
        .flat_map(|&p| &loc.players[p].labels)
        .any(|l| !l.all && plan.rules[l.rule].last_step_counted())
}

/// The counting code of a shared-prefix forest of mover `mi` (player
/// `pl`): each node binds its left element once for every label through
/// it; a label ending at a node adds the popcount of the node's candidates
/// (no per-candidate checks or postcondition) or one per candidate that
/// passes them, into `n<mi>_<label>`. The state-only parts of the
/// candidate sets go into `hoisted`, computed once before the loops.
fn prefix_code(
    plan: &Plan,
    pl: &crate::plan::PlayerPlan,
    mi: usize,
    tags: usize,
    nodes: &[PrefixNode],
    hoisted: &mut Vec<TokenStream>,
) -> TokenStream {
    let mut out = Vec::new();
    for node in nodes {
        let r = &plan.rules[node.rule];
        let st = &r.steps[node.depth];
        let c = format_ident!("p{}", hoisted.len());
        let cand = set_expr(plan, &st.cand);
        hoisted.push(quote! { let #c = #cand; });
        let set = step_set(plan, st, &c);
        // `body` (with `#n` the label's count) when the label's sentence
        // holds.
        let guard = |lb: usize, body: &dyn Fn(&Ident) -> TokenStream| {
            let n = format_ident!("n{}_{}", mi, lb);
            let body = body(&n);
            match plan.rules[pl.labels[lb].rule].sentence {
                Some(cd) => {
                    let ok = format_ident!("ok{}", cd);
                    quote! {
                        if #ok {
                            #body
                        }
                    }
                }
                None => body,
            }
        };
        let mut counted = Vec::new();
        let mut per_match = Vec::new();
        for &lb in &node.ends {
            let ri = pl.labels[lb].rule;
            if plan.rules[ri].last_step_counted() {
                // The candidate set is kept (tagged with the label) for
                // selecting the drawn match without enumerating again.
                let tag = Literal::u16_unsuffixed((tags + lb) as u16);
                let pre = (0..plan.max_lhs()).map(|i| {
                    if i < node.depth {
                        let e = format_ident!("e{}", i);
                        quote! { #e }
                    } else {
                        quote! { 0 }
                    }
                });
                let pre: Vec<TokenStream> = pre.collect();
                let add = guard(lb, &|n| {
                    quote! {
                        sets.push((#tag, [#(#pre),*], n));
                        #n += c;
                    }
                });
                counted.push(quote! {
                    let c = n.count();
                    if c > 0 {
                        #add
                    }
                });
            } else {
                let elems: Vec<Ident> = (0..plan.rules[ri].lhs.len())
                    .map(|i| format_ident!("e{}", i))
                    .collect();
                let add = guard(lb, &|n| quote! { #n += 1; });
                per_match.push(match post_holds(plan, ri, &elems) {
                    Some(holds) => quote! {
                        if #holds {
                            #add
                        }
                    },
                    None => add,
                });
            }
        }
        let children = prefix_code(plan, pl, mi, tags, &node.children, hoisted);
        let each = if per_match.is_empty() && node.children.is_empty() {
            quote! {}
        } else {
            let e = format_ident!("e{}", st.elem);
            let checks = step_checks(plan, st);
            quote! {
                for #e in n.iter() {
                    #checks
                    #(#per_match)*
                    #children
                }
            }
        };
        out.push(quote! {
            {
                #set
                #(#counted)*
                #each
            }
        });
    }
    quote! { #(#out)* }
}

/// One location's part of the playout loop: count every mover's moves
/// (terminal if one has none), then draw one move per mover in order.
fn playout_arm(plan: &Plan, li: usize) -> TokenStream {
    let loc = &plan.locations[li];
    let lit = usize_lit(li);
    let k = usize_lit(plan.max_lhs());
    if loc.movers.is_empty() {
        return quote! { #lit => break 'play, };
    }
    let mut conds: Vec<usize> = loc
        .movers
        .iter()
        .flat_map(|&p| &loc.players[p].labels)
        .filter_map(|l| plan.rules[l.rule].sentence)
        .collect();
    conds.sort_unstable();
    conds.dedup();
    // Sets used more than once per ply, computed once.
    let sh = &loc.shared;
    let shared = sh.iter().enumerate().map(|(i, e)| {
        let v = format_ident!("sh{}", i);
        let e = set_expr_shared(plan, e, &sh[..i]);
        quote! { let #v = #e; }
    });
    let pre = conds.iter().map(|&c| {
        let v = format_ident!("ok{}", c);
        if sh.iter().any(|x| cond_occurrences(&plan.conds[c].1, x) > 0) {
            let e = cond_expr_shared(plan, &plan.conds[c].1, sh);
            return quote! { let #v = #e; };
        }
        let f = format_ident!("c{}", c);
        quote! { let #v = #f(s); }
    });
    let mut counts = Vec::new();
    let mut draws = Vec::new();
    // Labels of multiplicity inf applied in place: (label, effect).
    let mut direct: Vec<(Literal, TokenStream)> = Vec::new();
    // Tags of the candidate sets kept in `sets`: the labels of the
    // location's movers, numbered in order.
    let mut tags = 0;
    for (mi, &p) in loc.movers.iter().enumerate() {
        let labels = &loc.players[p].labels;
        let mut totals = Vec::new();
        let mut picks = Vec::new();
        for (lb, l) in labels.iter().enumerate() {
            let n = format_ident!("n{}_{}", mi, lb);
            let set = format_ident!("s{}_{}", mi, lb);
            let ok = plan.rules[l.rule]
                .sentence
                .map(|c| format_ident!("ok{}", c));
            let nth = format_ident!("nth_{}", l.rule);
            let (lbl, rl) = (
                Literal::u16_unsuffixed(lb as u16),
                Literal::u16_unsuffixed(l.rule as u16),
            );
            let r = &plan.rules[l.rule];
            if l.all
                && loc.movers.len() == 1
                && l.targets.len() == 1
                && r.all == Some(AllEffect::Sets)
            {
                // One move with every match, when there is one: the
                // images per left element are collected while counting,
                // and the drawn move is applied from them here (the same
                // as `apply_all`, without finding the matches again).
                let m = scan_fn(plan, l.rule);
                let images = format_ident!("a{}_{}", mi, lb);
                let nl = usize_lit(r.lhs.len());
                let ins = (0..r.lhs.len()).map(|i| {
                    let i = usize_lit(i);
                    quote! { #images[#i].insert(e[#i]); }
                });
                let list = quote! {
                    #m(s, &mut |e| {
                        #n = 1;
                        #(#ins)*
                        true
                    });
                };
                let list = match &ok {
                    Some(ok) => quote! { if #ok { #list } },
                    None => list,
                };
                counts.push(quote! {
                    let mut #n: u32 = 0;
                    let mut #images = [Set::EMPTY; #nl];
                    #list
                });
                picks.push(quote! {
                    if k < #n {
                        break 'pick Move { label: #lbl, rule: #rl, elems: [0; #k] };
                    }
                    k -= #n;
                });
                let rem = r.removes.iter().map(|&(f, e)| {
                    let (f, e) = (usize_lit(f), usize_lit(e));
                    quote! { s.rels[#f] &= !#images[#e]; }
                });
                let add = r.adds.iter().map(|&(f, e)| {
                    let (f, e) = (usize_lit(f), usize_lit(e));
                    quote! { s.rels[#f] |= #images[#e]; }
                });
                let target = usize_lit(l.targets[0].0);
                direct.push((
                    lbl.clone(),
                    quote! {
                        #(#rem)*
                        #(#add)*
                        s.location = #target;
                    },
                ));
            } else if l.all {
                // One move with every match, when there is one.
                let m = scan_fn(plan, l.rule);
                let any = quote! { !#m(s, &mut |_| false) };
                let any = match &ok {
                    Some(ok) => quote! { (#ok && #any) },
                    None => any,
                };
                counts.push(quote! {
                    let #n: u32 = if #any { 1 } else { 0 };
                });
                picks.push(quote! {
                    if k < #n {
                        break 'pick Move { label: #lbl, rule: #rl, elems: [0; #k] };
                    }
                    k -= #n;
                });
            } else if plan.rules[l.rule].last_step_counted() {
                // Counted in the shared-prefix tree below, which keeps the
                // candidate sets of the last step: the drawn match is
                // selected by skipping whole sets of the label.
                let tag = Literal::u16_unsuffixed((tags + lb) as u16);
                let last = usize_lit(plan.rules[l.rule].steps.len() - 1);
                counts.push(quote! { let mut #n: u32 = 0; });
                picks.push(quote! {
                    if k < #n {
                        for &(t, pre, set) in sets.iter() {
                            if t == #tag {
                                let c = set.count();
                                if k < c {
                                    let mut elems = pre;
                                    elems[#last] = set.nth(k);
                                    break 'pick Move { label: #lbl, rule: #rl, elems };
                                }
                                k -= c;
                            }
                        }
                        ::core::unreachable!("a kept set holds the match of the drawn rank");
                    }
                    k -= #n;
                });
            } else if plan.rules[l.rule].in_prefix_tree() {
                // Counted in the shared-prefix tree below; the drawn
                // match is selected in the rule's own matcher.
                counts.push(quote! { let mut #n: u32 = 0; });
                picks.push(quote! {
                    if k < #n {
                        break 'pick Move { label: #lbl, rule: #rl, elems: #nth(s, k) };
                    }
                    k -= #n;
                });
            } else if has_set(plan, l.rule) {
                let f = format_ident!("set_{}", l.rule);
                let f = set_of_matches_shared(plan, l.rule, sh).unwrap_or(quote! { #f(s) });
                let get = match &ok {
                    Some(ok) => quote! { if #ok { #f } else { Set::EMPTY } },
                    None => quote! { #f },
                };
                counts.push(quote! {
                    let #set = #get;
                    let #n = #set.count();
                });
                picks.push(quote! {
                    if k < #n {
                        break 'pick Move { label: #lbl, rule: #rl, elems: #nth(&#set, k) };
                    }
                    k -= #n;
                });
            } else {
                // The matches are listed once (into `found`, shared by the
                // labels of the location), then the drawn one is taken; a
                // matcher in another order than the declaration's lists
                // them in join order, then sorts them.
                let m = scan_fn(plan, l.rule);
                let start = format_ident!("b{}_{}", mi, lb);
                let sort = plan.rules[l.rule]
                    .reordered()
                    .then(|| quote! { found[#start..].sort_unstable(); });
                let list = quote! {
                    #m(s, &mut |e| {
                        found.push(e);
                        true
                    });
                    #sort
                };
                let list = match &ok {
                    Some(ok) => quote! { if #ok { #list } },
                    None => list,
                };
                counts.push(quote! {
                    let #start = found.len();
                    #list
                    let #n = (found.len() - #start) as u32;
                });
                picks.push(quote! {
                    if k < #n {
                        break 'pick Move { label: #lbl, rule: #rl, elems: found[#start + k as usize] };
                    }
                    k -= #n;
                });
            }
            totals.push(n);
        }
        let pl = &loc.players[p];
        if !pl.prefixes.is_empty() {
            let mut hoisted = Vec::new();
            let tree = prefix_code(plan, pl, mi, tags, &pl.prefixes, &mut hoisted);
            counts.push(quote! {
                {
                    #(#hoisted)*
                    #tree
                }
            });
        }
        tags += labels.len();
        let total = format_ident!("t{}", mi);
        counts.push(quote! {
            let #total: u32 = #(#totals)+*;
            if #total == 0 {
                break 'play;
            }
        });
        let mi_lit = usize_lit(mi);
        draws.push(quote! {
            joint[#mi_lit] = 'pick: {
                let mut k = ::toss::__private::index_below(rng, #total as usize) as u32;
                #(#picks)*
                let _ = k;
                ::core::unreachable!("a move of rank below the count")
            };
        });
    }
    let nm = usize_lit(loc.movers.len());
    // The number of moves left for `apply`: none when the drawn move was
    // applied in place.
    let mut applied = quote! { #nm };
    for (lbl, effect) in direct.into_iter().rev() {
        applied = quote! {
            if joint[0].label == #lbl {
                #effect
                0
            } else {
                #applied
            }
        };
    }
    let clear = uses_found(plan, li).then(|| quote! { found.clear(); });
    let clear_sets = uses_sets(plan, li).then(|| quote! { sets.clear(); });
    quote! {
        #lit => {
            #clear
            #clear_sets
            #(#shared)*
            #(#pre)*
            #(#counts)*
            #(#draws)*
            #applied
        }
    }
}

/// What runs on the interpreter, for the impl's doc comment (empty when
/// nothing does).
fn fallback_summary(plan: &Plan) -> String {
    let mut parts = Vec::new();
    for r in &plan.rules {
        if let Some(why) = &r.interpreted {
            parts.push(format!("the matches of rule `{}` ({why})", r.name));
        }
        if let Some(why) = &r.check_fallback {
            parts.push(format!(
                "the check of each match of rule `{}` ({why})",
                r.name
            ));
        }
        if let Some(why) = &r.effect_fallback {
            parts.push(format!("the effect of rule `{}` ({why})", r.name));
        }
    }
    for (li, l) in plan.locations.iter().enumerate() {
        for (p, pl) in l.players.iter().enumerate() {
            if let Err(why) = &pl.payoff {
                parts.push(format!(
                    "the payoff of {} in location {li} ({why})",
                    plan.players[p]
                ));
            }
        }
    }
    if let Some(h) = &plan.heuristic {
        for (i, (_, why)) in h.fallback.iter().enumerate() {
            parts.push(format!("heuristic part h{i} on the solver ({why})"));
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(
            " On the interpreter, over the state's structure: {}.",
            parts.join("; ")
        )
    }
}

/// The specialized impl.
pub fn specialized_impl(ident: &Ident, path: &Path, plan: &Plan) -> TokenStream {
    let path_lit = path.to_string_lossy().into_owned();
    let file_name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let module = module_name(ident);
    let n = plan.elements.len();
    let w = usize_lit(plan.words);
    let nf = usize_lit(plan.fluents.len());
    let k = usize_lit(plan.max_lhs());
    let universe = set_lit(plan, 0..n as u32);
    // Whether a ply can continue a turn (`Game::continues_turn`): a label of
    // a location's single mover leads where that player is again the only
    // mover (the runtime's `analysis::has_compound_turns`, on the plan).
    let payoff_bounds = match plan.payoff_bounds {
        Some((lo, hi)) => {
            let (lo, hi) = (crate::ode::float(lo), crate::ode::float(hi));
            quote! { ::core::option::Option::Some((#lo, #hi)) }
        }
        None => quote! { ::core::option::Option::None },
    };
    let compound_turns = plan.players.len() > 1
        && plan.locations.iter().any(|loc| {
            loc.movers.len() == 1
                && loc.players[loc.movers[0]].labels.iter().any(|l| {
                    (l.targets.iter()).any(|&(t, _)| {
                        plan.locations
                            .get(t)
                            .is_some_and(|to| to.movers == loc.movers)
                    })
                })
        });

    let masks = plan.masks.iter().enumerate().map(|(i, m)| {
        let id = format_ident!("M{}", i);
        let names: Vec<&str> = m
            .members
            .iter()
            .map(|&e| plan.elements[e as usize].as_str())
            .collect();
        let doc = format!(" `m{i}`: {}.\n\n {{{}}}", m.what, names.join(", "));
        let lit = set_lit(plan, m.members.iter().copied());
        quote! {
            #[doc = #doc]
            pub const #id: Set = #lit;
        }
    });
    let tables = plan.tables.iter().enumerate().map(|(i, t)| {
        let id = format_ident!("T{}", i);
        let doc = format!(
            " `t{i}`: per element, its neighbours in {} (a stable relation).",
            t.what
        );
        let rows = t.rows.iter().map(|r| set_lit(plan, r.iter().copied()));
        let len = usize_lit(t.rows.len());
        quote! {
            #[doc = #doc]
            pub static #id: [Set; #len] = [#(#rows),*];
        }
    });
    let elements = &plan.elements;
    let rule_names = plan.rules.iter().map(|r| &r.name);
    let rule_lhs = plan.rules.iter().map(|r| {
        let l = &r.lhs;
        quote! { &[#(#l),*] }
    });
    let nrules = usize_lit(plan.rules.len());
    let players = &plan.players;
    let nplayers = usize_lit(players.len());
    let fluent_names = plan.fluents.iter().map(|f| &f.name);
    let initial_rels = plan
        .fluents
        .iter()
        .map(|f| set_lit(plan, f.initial.iter().copied()));
    let initial_location = usize_lit(plan.initial_location);

    let conds = plan.conds.iter().enumerate().map(|(i, (what, c))| {
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
    });
    let matchers = (0..plan.rules.len()).map(|ri| matcher(plan, ident, ri));
    let heuristic = heuristic_fns(plan, ident, &file_name);
    let heuristic_method = plan.heuristic.as_ref().map(|_| {
        quote! {
            fn heuristic_values(
                &self,
                s: &Self::State,
                kind: ::toss::__private::HeuristicKind,
                out: &mut [f64],
            ) -> bool {
                match kind {
                    ::toss::__private::HeuristicKind::Existential => {
                        #module::heuristic(s, out);
                        true
                    }
                    ::toss::__private::HeuristicKind::RuleCondition => false,
                }
            }
        }
    });
    let counters = (0..plan.rules.len()).map(|ri| counters(plan, ri));
    let playout_arms: Vec<TokenStream> = (0..plan.locations.len())
        .map(|li| playout_arm(plan, li))
        .collect();
    // Every ply is a turn, unless some ply can continue one: then a ply by
    // the previous ply's single mover does not count.
    let playout_loop = if compound_turns {
        quote! {
            let mut before: &'static [usize] = &[];
            'play: loop {
                let movers = label_players(s.location);
                let continued = movers.len() == 1 && before == movers;
                if !continued && turns >= max_turns {
                    break 'play;
                }
                let nm: usize = match s.location {
                    #(#playout_arms)*
                    _ => break 'play,
                };
                apply(s, &joint[..nm], rng);
                if !continued {
                    turns += 1;
                }
                before = movers;
            }
        }
    } else {
        quote! {
            'play: while turns < max_turns {
                let nm: usize = match s.location {
                    #(#playout_arms)*
                    _ => break 'play,
                };
                apply(s, &joint[..nm], rng);
                turns += 1;
            }
        }
    };

    let found_decl = (0..plan.locations.len())
        .any(|li| uses_found(plan, li))
        .then(|| {
            quote! {
                // Matches of rules without a set of matches, listed per ply.
                let mut found: ::std::vec::Vec<[u32; #k]> = ::std::vec::Vec::new();
            }
        });
    let sets_decl = (0..plan.locations.len())
        .any(|li| uses_sets(plan, li))
        .then(|| {
            quote! {
                // Per ply, the candidate sets of the last step of labels
                // counted by popcounts, with the label's tag and the
                // earlier elements.
                let mut sets: ::std::vec::Vec<(u16, [u32; #k], Set)> = ::std::vec::Vec::new();
            }
        });
    let max_movers = usize_lit(
        plan.locations
            .iter()
            .map(|l| l.movers.len())
            .max()
            .unwrap_or(0)
            .max(1),
    );

    // Effects of rules. With fluent functions, a ply that applies several
    // matches (a label of multiplicity `inf`, or several movers) computes
    // every update value on the state before it, as the interpreter does.
    let multi_match = plan.rules.iter().any(|r| r.all.is_some())
        || plan.locations.iter().any(|l| l.movers.len() > 1);
    let from_src = !plan.funs.is_empty() && multi_match;
    let effect_arms = plan.rules.iter().enumerate().map(|(ri, r)| {
        let rl = usize_lit(ri);
        if r.effect_fallback.is_some() {
            let len = usize_lit(r.lhs.len());
            return quote! {
                #rl => {
                    let mut v = to_structure(s);
                    super::#ident::interpreter().apply_rule_match(#rl, &mut v, &e[..#len]);
                    let location = s.location;
                    *s = from_structure(&v);
                    s.location = location;
                }
            };
        }
        let ri = rl;
        let names: Vec<Ident> = (0..r.lhs.len()).map(|i| format_ident!("e{}", i)).collect();
        let idx = (0..r.lhs.len()).map(usize_lit);
        let binds = if r.updates.is_empty() {
            quote! {}
        } else {
            quote! { #(let #names = e[#idx];)* }
        };
        let vals: Vec<Ident> = (0..r.updates.len())
            .map(|i| format_ident!("u{}", i))
            .collect();
        // Update values read the state before the joint move (`src`,
        // spec 1.2) when a ply applies several matches; else `s` itself,
        // which no effect has changed yet.
        let src_of = (from_src && !r.updates.is_empty()).then(|| {
            quote! { let src: &State = match src { Some(x) => x, None => &*s }; }
        });
        let computes = r.updates.iter().zip(&vals).map(|((_, _, v), u)| {
            let v = num_expr(plan, v, false);
            if from_src {
                quote! { let #u = { let s: &State = src; #v }; }
            } else {
                quote! { let #u = #v; }
            }
        });
        let sets = r.updates.iter().zip(&vals).map(|((f, el, _), u)| {
            let (f, el) = (usize_lit(*f), usize_lit(*el));
            quote! { s.funs[#f][e[#el] as usize] = #u; }
        });
        let es: Vec<TokenStream> = (0..r.lhs.len())
            .map(|i| {
                let i = usize_lit(i);
                quote! { e[#i] }
            })
            .collect();
        let fx = rels_effect(r, &quote! { s.rels }, &es);
        let tx = tuples_effect(plan, r, &es);
        quote! { #ri => { #binds #src_of #(#computes)* #fx #tx #(#sets)* } }
    });

    // Labels with multiplicity inf: one move with every match, found in
    // the state before the joint move.
    let mut all_label_arms = Vec::new();
    for (li, loc) in plan.locations.iter().enumerate() {
        for (p, pl) in loc.players.iter().enumerate() {
            for (lb, l) in pl.labels.iter().enumerate() {
                if l.all {
                    let (li, p, lb) = (
                        usize_lit(li),
                        usize_lit(p),
                        Literal::u16_unsuffixed(lb as u16),
                    );
                    all_label_arms.push(quote! { (#li, #p, #lb) => true, });
                }
            }
        }
    }
    let any_all = !all_label_arms.is_empty();
    let all_rules: Vec<usize> = (0..plan.rules.len())
        .filter(|&ri| plan.rules[ri].all.is_some())
        .collect();
    let all_effect_arms = all_rules.iter().map(|&ri| {
        let r = &plan.rules[ri];
        let m = format_ident!("match_{}", ri);
        let rl = usize_lit(ri);
        match &r.all {
            Some(AllEffect::Sets) => {
                // Sets of images: the order of the matches does not matter.
                let m = scan_fn(plan, ri);
                let nl = usize_lit(r.lhs.len());
                let ins = (0..r.lhs.len()).map(|i| {
                    let i = usize_lit(i);
                    quote! { r[#i].insert(e[#i]); }
                });
                let rem = r.removes.iter().map(|&(f, e)| {
                    let (f, e) = (usize_lit(f), usize_lit(e));
                    quote! { s.rels[#f] &= !r[#e]; }
                });
                let add = r.adds.iter().map(|&(f, e)| {
                    let (f, e) = (usize_lit(f), usize_lit(e));
                    quote! { s.rels[#f] |= r[#e]; }
                });
                quote! {
                    #rl => {
                        let mut r = [Set::EMPTY; #nl];
                        #m(before, &mut |e| {
                            #(#ins)*
                            true
                        });
                        #(#rem)*
                        #(#add)*
                    }
                }
            }
            _ => {
                let rl16 = Literal::u16_unsuffixed(ri as u16);
                let apply_one = if from_src {
                    quote! { apply_rule_from(s, Some(before), #rl16, e); }
                } else {
                    quote! { apply_rule(s, #rl16, e); }
                };
                quote! {
                    #rl => {
                        let mut ms = ::std::vec::Vec::new();
                        #m(before, &mut |e| {
                            ms.push(e);
                            true
                        });
                        for e in &ms {
                            #apply_one
                        }
                    }
                }
            }
        }
    });
    let all_list_arms = all_rules.iter().map(|&ri| {
        let m = format_ident!("match_{}", ri);
        let rl = usize_lit(ri);
        quote! {
            #rl => {
                #m(s, &mut |e| {
                    out.push(e);
                    true
                });
            }
        }
    });
    let all_fns = any_all.then(|| {
        quote! {
            /// Whether `player`'s label `label` in `location` has
            /// multiplicity `inf` (one move with every match).
            pub fn label_all(location: usize, player: usize, label: u16) -> bool {
                match (location, player, label) {
                    #(#all_label_arms)*
                    _ => false,
                }
            }

            /// Applies rule `rule` to all its matches in `before` (the
            /// state before the joint move), as the interpreter does: one
            /// after the other in canonical order, or as sets when that is
            /// the same (see the plan).
            pub fn apply_all(s: &mut State, before: &State, rule: u16) {
                match rule as usize {
                    #(#all_effect_arms)*
                    _ => {}
                }
            }

            /// The matches of rule `rule` in canonical order (the rules
            /// some label applies to all matches at once).
            pub fn all_matches(s: &State, rule: u16, out: &mut ::std::vec::Vec<[u32; #k]>) {
                out.clear();
                match rule as usize {
                    #(#all_list_arms)*
                    _ => {}
                }
            }
        }
    });
    let apply_rule_fns = if from_src {
        quote! {
            /// Applies the effect of a rule on a match.
            #[inline]
            pub fn apply_rule(s: &mut State, rule: u16, e: &[u32; #k]) {
                apply_rule_from(s, None, rule, e)
            }

            /// Applies the effect of a rule on a match, its update values
            /// computed on `src` (the state before the ply) when given.
            #[inline]
            pub fn apply_rule_from(s: &mut State, src: Option<&State>, rule: u16, e: &[u32; #k]) {
                match rule as usize {
                    #(#effect_arms)*
                    _ => {}
                }
            }
        }
    } else {
        quote! {
            /// Applies the effect of a rule on a match.
            #[inline]
            pub fn apply_rule(s: &mut State, rule: u16, e: &[u32; #k]) {
                match rule as usize {
                    #(#effect_arms)*
                    _ => {}
                }
            }
        }
    };
    let copy = copy_of_state(plan);
    let apply_one = if from_src {
        quote! { apply_rule_from(s, Some(&before), m.rule, &m.elems); }
    } else {
        quote! { apply_rule(s, m.rule, &m.elems); }
    };
    let apply_moves = if any_all {
        quote! {
            let before = #copy;
            for (m, &p) in joint.iter().zip(label_players(before.location)) {
                if label_all(before.location, p, m.label) {
                    apply_all(s, &before, m.rule);
                } else {
                    #apply_one
                }
            }
        }
    } else if from_src {
        quote! {
            let before = #copy;
            for m in joint {
                #apply_one
            }
        }
    } else {
        quote! {
            for m in joint {
                apply_rule(s, m.rule, &m.elems);
            }
        }
    };
    let move_string = if any_all {
        quote! {
            if #module::label_all(s.location, player, m.label) {
                let mut ms = ::std::vec::Vec::new();
                #module::all_matches(s, m.rule, &mut ms);
                let mut out = #module::RULES[m.rule as usize].to_string();
                for e in &ms {
                    out.push_str(&::toss::__private::match_to_string(
                        "",
                        #module::RULE_LHS[m.rule as usize],
                        e,
                        &#module::ELEMENTS,
                    ));
                }
                return out;
            }
        }
    } else {
        quote! {}
    };
    let (s_arg, player_arg) = if any_all {
        (format_ident!("s"), format_ident!("player"))
    } else {
        (format_ident!("_s"), format_ident!("_player"))
    };

    // Move generation, per location and player.
    let mut legal_arms = Vec::new();
    let mut has_arms = Vec::new();
    let mut movers_arms = Vec::new();
    let mut target_arms = Vec::new();
    let mut payoff_arms = Vec::new();
    for (li, loc) in plan.locations.iter().enumerate() {
        let lit = usize_lit(li);
        for (p, pl) in loc.players.iter().enumerate() {
            if pl.labels.is_empty() {
                continue;
            }
            let plit = usize_lit(p);
            let mut used: Vec<usize> = pl
                .labels
                .iter()
                .filter_map(|l| plan.rules[l.rule].sentence)
                .collect();
            used.sort_unstable();
            used.dedup();
            let pre = used.iter().map(|&c| {
                let v = format_ident!("ok{}", c);
                let f = format_ident!("c{}", c);
                quote! { let #v = #f(s); }
            });
            let gens = pl.labels.iter().enumerate().map(|(lb, l)| {
                let m = scan_fn(plan, l.rule);
                let (lb, ri) = (
                    Literal::u16_unsuffixed(lb as u16),
                    Literal::u16_unsuffixed(l.rule as u16),
                );
                let call = if l.all {
                    // One move, with every match (listed by
                    // `move_to_string`, found again by `apply`).
                    quote! {
                        if !#m(s, &mut |_| false) {
                            out.push(Move { label: #lb, rule: #ri, elems: [0; #k] });
                        }
                    }
                } else if plan.rules[l.rule].reordered() {
                    // Listed in join order, then sorted into canonical
                    // order (the moves of one rule differ in their images).
                    quote! {
                        let start = out.len();
                        #m(s, &mut |elems| {
                            out.push(Move { label: #lb, rule: #ri, elems });
                            true
                        });
                        out[start..].sort_unstable_by_key(|m| m.elems);
                    }
                } else {
                    quote! {
                        #m(s, &mut |elems| {
                            out.push(Move { label: #lb, rule: #ri, elems });
                            true
                        });
                    }
                };
                match plan.rules[l.rule].sentence {
                    Some(c) => {
                        let v = format_ident!("ok{}", c);
                        quote! { if #v { #call } }
                    }
                    None => call,
                }
            });
            legal_arms.push(quote! {
                (#lit, #plit) => {
                    #(#pre)*
                    #(#gens)*
                }
            });
            let anys = pl.labels.iter().map(|l| {
                let m = scan_fn(plan, l.rule);
                let call = quote! { !#m(s, &mut |_| false) };
                match plan.rules[l.rule].sentence {
                    Some(c) => {
                        let f = format_ident!("c{}", c);
                        quote! { (#f(s) && #call) }
                    }
                    None => call,
                }
            });
            has_arms.push(quote! { (#lit, #plit) => #(#anys)||*, });
        }
        let movers = loc.movers.iter().map(|&p| usize_lit(p));
        movers_arms.push(quote! { #lit => &[#(#movers),*], });
        if let Some(&first) = loc.movers.first() {
            let labels = loc.players[first].labels.iter().enumerate().map(|(lb, l)| {
                let lb = Literal::u16_unsuffixed(lb as u16);
                if l.targets.len() == 1 {
                    let t = usize_lit(l.targets[0].0);
                    quote! { #lb => #t, }
                } else {
                    let steps = l.targets.iter().map(|&(t, p)| {
                        let t = usize_lit(t);
                        let p = Literal::f64_suffixed(p);
                        quote! {
                            acc += #p;
                            if u < acc {
                                break 'pick #t;
                            }
                        }
                    });
                    let last = usize_lit(l.targets.last().map_or(0, |t| t.0));
                    quote! {
                        #lb => 'pick: {
                            let u = ::toss::__private::uniform01(rng);
                            let mut acc = 0.0;
                            #(#steps)*
                            #last
                        },
                    }
                }
            });
            target_arms.push(quote! {
                #lit => match joint[0].label {
                    #(#labels)*
                    _ => ::core::unreachable!("no such label"),
                },
            });
        }
        let mut used = Vec::new();
        for pl in &loc.players {
            if let Ok(n) = &pl.payoff {
                num_conds(n, &mut used);
            }
        }
        used.sort_unstable();
        used.dedup();
        let evals = used.iter().map(|&c| {
            let (v, f) = (format_ident!("cv{}", c), format_ident!("c{}", c));
            quote! { let #v = #f(s); }
        });
        let pays = loc.players.iter().enumerate().map(|(p, pl)| {
            let p = usize_lit(p);
            match &pl.payoff {
                Ok(n) => {
                    let v = num_expr(plan, n, true);
                    quote! { out[#p] = #v; }
                }
                Err(_) => quote! {
                    out[#p] = super::#ident::interpreter().payoff_value(#lit, #p, &to_structure(s));
                },
            }
        });
        payoff_arms.push(quote! { #lit => { #(#evals)* #(#pays)* } });
    }

    let n_lit = usize_lit(n);
    let nfun = usize_lit(plan.funs.len());
    // Fluent relations of other arities: a field each.
    let sparse = plan.fluent_rels.iter().any(|r| r.repr == Repr::Sparse);
    let tuple_fields: Vec<Ident> = (0..plan.fluent_rels.len()).map(tuples_field).collect();
    let tuple_types = plan.fluent_rels.iter().map(|r| match r.repr {
        Repr::Dense => quote! { Pairs },
        Repr::Sparse => {
            let k = usize_lit(r.arity);
            quote! { ::std::vec::Vec<[u32; #k]> }
        }
    });
    let tuple_docs = plan.fluent_rels.iter().map(|r| match r.repr {
        Repr::Dense => format!(" The fluent relation `{}`, dense.", r.name),
        Repr::Sparse => format!(" The fluent relation `{}`: its tuples, sorted.", r.name),
    });
    let tuple_decls = quote! { #(#[doc = #tuple_docs] pub #tuple_fields: #tuple_types,)* };
    let copy = (!sparse).then(|| quote! { Copy, });
    let pairs_def = plan
        .fluent_rels
        .iter()
        .any(|r| r.repr == Repr::Dense)
        .then(|| {
            quote! {
                /// A fluent binary relation over few elements: per element
                /// the set of its successors and the set of its
                /// predecessors (both kept, so a step from a bound element
                /// either way is one look-up), and the elements related to
                /// themselves (exact matching tests them on every left
                /// element).
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                pub struct Pairs {
                    pub succ: [Set; #n_lit],
                    pub pred: [Set; #n_lit],
                    pub loops: Set,
                }
            }
        });
    let state_def = if plan.funs.is_empty() && plan.fluent_rels.is_empty() {
        quote! {
            /// A state: every fluent unary relation as a bitset, and the
            /// location.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub struct State {
                pub rels: [Set; #nf],
                pub location: usize,
            }
        }
    } else if plan.funs.is_empty() {
        quote! {
            /// A state: every fluent unary relation as a bitset, the other
            /// fluent relations, and the location.
            #[derive(Clone, #copy Debug, PartialEq, Eq, Hash)]
            pub struct State {
                pub rels: [Set; #nf],
                #tuple_decls
                pub location: usize,
            }
        }
    } else if plan.fluent_rels.is_empty() {
        quote! {
            /// A state: every fluent unary relation as a bitset, the
            /// values of every fluent function per element, and the
            /// location.
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct State {
                pub rels: [Set; #nf],
                pub funs: [[f64; #n_lit]; #nfun],
                pub location: usize,
            }
        }
    } else {
        quote! {
            /// A state: every fluent unary relation as a bitset, the other
            /// fluent relations, the values of every fluent function per
            /// element, and the location.
            #[derive(Clone, #copy Debug, PartialEq)]
            pub struct State {
                pub rels: [Set; #nf],
                #tuple_decls
                pub funs: [[f64; #n_lit]; #nfun],
                pub location: usize,
            }
        }
    };
    // Initial tuples: dense ones in the constant, sparse ones (a vector)
    // added by `initial()`.
    let initial_tuples = plan
        .fluent_rels
        .iter()
        .zip(&tuple_fields)
        .map(|(r, f)| match r.repr {
            Repr::Dense => {
                let (mut succ, mut pred) = (vec![Vec::new(); n], vec![Vec::new(); n]);
                let mut loops = Vec::new();
                for t in &r.initial {
                    succ[t[0] as usize].push(t[1]);
                    pred[t[1] as usize].push(t[0]);
                    if t[0] == t[1] {
                        loops.push(t[0]);
                    }
                }
                let succ = succ.into_iter().map(|v| set_lit(plan, v));
                let pred = pred.into_iter().map(|v| set_lit(plan, v));
                let loops = set_lit(plan, loops);
                quote! { #f: Pairs { succ: [#(#succ),*], pred: [#(#pred),*], loops: #loops }, }
            }
            Repr::Sparse => quote! { #f: ::std::vec::Vec::new(), },
        });
    let initial_fn = sparse.then(|| {
        let fills = plan
            .fluent_rels
            .iter()
            .zip(&tuple_fields)
            .filter(|(r, _)| r.repr == Repr::Sparse)
            .map(|(r, f)| {
                let tuples = r.initial.iter().map(|t| {
                    let t = t.iter().map(|&e| u32_lit(e));
                    quote! { [#(#t),*] }
                });
                quote! { s.#f = ::std::vec![#(#tuples),*]; }
            });
        quote! {
            /// The starting state: `INITIAL` with the tuples of the sparse
            /// relations.
            pub fn initial() -> State {
                let mut s = INITIAL;
                #(#fills)*
                s
            }
        }
    });
    let initial_expr = if sparse {
        quote! { #module::initial() }
    } else {
        quote! { #module::INITIAL }
    };
    let initial_funs = if plan.funs.is_empty() {
        quote! {}
    } else {
        let rows = plan.funs.iter().map(|f| {
            let v = f.values.iter().map(|&x| Literal::f64_suffixed(x));
            quote! { [#(#v),*] }
        });
        quote! { funs: [#(#rows),*], }
    };
    let stable_fun_tables = plan
        .stable_funs
        .iter()
        .enumerate()
        .filter(|(_, f)| f.used)
        .map(|(i, f)| {
            let id = format_ident!("F{}", i);
            let doc = format!(" The function `{}` (stable), per element.", f.name);
            let v = f.values.iter().map(|&x| Literal::f64_suffixed(x));
            quote! {
                #[doc = #doc]
                pub static #id: [f64; #n_lit] = [#(#v),*];
            }
        });
    let fun_names = plan.funs.iter().map(|f| &f.name);
    let with_funs = if plan.funs.is_empty() {
        quote! {}
    } else {
        quote! { let st = ::toss::__private::with_functions(st, &FUNS, &s.funs); }
    };
    let read_funs = plan.funs.iter().enumerate().map(|(i, f)| {
        let (i, name) = (usize_lit(i), &f.name);
        quote! { s.funs[#i] = ::toss::__private::fun_values(st, #name); }
    });
    let read_rels = plan.fluents.iter().enumerate().map(|(i, f)| {
        let (i, name) = (usize_lit(i), &f.name);
        quote! { s.rels[#i] = ::toss::__private::unary_bits(st, #name); }
    });
    let write_tuples = plan.fluent_rels.iter().zip(&tuple_fields).map(|(r, f)| {
        let name = &r.name;
        let add = match r.repr {
            Repr::Dense => quote! {
                for (a, row) in s.#f.succ.iter().enumerate() {
                    for b in row.iter() {
                        st.add_tuple(r, &[a as u32, b]);
                    }
                }
            },
            Repr::Sparse => quote! {
                for t in s.#f.iter() {
                    st.add_tuple(r, t);
                }
            },
        };
        quote! {
            if let ::core::option::Option::Some(r) = st.relation(#name) {
                for t in st.tuples(r) {
                    st.remove_tuple(r, &t);
                }
                #add
            }
        }
    });
    let read_tuples = plan.fluent_rels.iter().zip(&tuple_fields).map(|(r, f)| {
        let name = &r.name;
        let (clear, add, sort) = match r.repr {
            Repr::Dense => (
                quote! {
                    s.#f = Pairs {
                        succ: [Set::EMPTY; #n_lit],
                        pred: [Set::EMPTY; #n_lit],
                        loops: Set::EMPTY,
                    };
                },
                quote! {
                    s.#f.succ[t[0] as usize].insert(t[1]);
                    s.#f.pred[t[1] as usize].insert(t[0]);
                    if t[0] == t[1] {
                        s.#f.loops.insert(t[0]);
                    }
                },
                quote! {},
            ),
            Repr::Sparse => (
                quote! { s.#f.clear(); },
                quote! { s.#f.push(::core::array::from_fn(|i| t[i])); },
                quote! { s.#f.sort_unstable(); },
            ),
        };
        quote! {
            #clear
            if let ::core::option::Option::Some(r) = st.relation(#name) {
                for t in st.tuples(r) {
                    #add
                }
            }
            #sort
        }
    });
    let rebind = (!plan.fluent_rels.is_empty()).then(|| quote! { let mut st = st; });
    let plain_structure =
        plan.funs.is_empty() && !plan.has_fallback() && plan.fluent_rels.is_empty();
    let conversions = if plain_structure {
        quote! {}
    } else {
        quote! {
            /// Fluent functions, in the order of `State::funs`.
            pub const FUNS: [&str; #nfun] = [#(#fun_names),*];

            /// The structure of a state: the interpreter's starting
            /// structure with the fluent relations and functions of `s`
            /// (what the parts that fall back to the interpreter run on).
            pub fn to_structure(s: &State) -> ::toss::Structure {
                let base = ::toss::Game::initial_state(super::#ident::interpreter()).structure;
                let st = ::toss::__private::with_unary_sets(base, &FLUENTS, &s.rels);
                #with_funs
                #rebind
                #(#write_tuples)*
                st
            }

            /// The state of a structure with the elements of the starting
            /// structure (the location is left as in `INITIAL`).
            pub fn from_structure(st: &::toss::Structure) -> State {
                let mut s = INITIAL;
                #(#read_rels)*
                #(#read_tuples)*
                #(#read_funs)*
                s
            }
        }
    };
    let to_structure_body = if plain_structure {
        quote! {
            let base = ::toss::Game::initial_state(Self::interpreter());
            ::toss::__private::with_unary_sets(base.structure, &#module::FLUENTS, &s.rels)
        }
    } else {
        quote! { #module::to_structure(s) }
    };
    let fluent_count = plan.fluents.len();
    // Only when there are some, so the summaries of other games stay as
    // they were.
    let rels_text: String = plan
        .fluent_rels
        .iter()
        .map(|r| {
            let how = match r.repr {
                Repr::Dense => "sets of successors and predecessors",
                Repr::Sparse => "a sorted list of tuples",
            };
            format!(
                ", the fluent relation {} of arity {} as {how}",
                r.name, r.arity
            )
        })
        .collect();
    let summary = format!(
        " The game `{file_name}`, specialized at build time: {} elements in \
         {} bitset word(s); {} fluent unary relation(s) as bitsets{}; stable: {}; \
         {} rule matcher(s), {} compiled condition(s), {} constant mask(s), \
         {} neighbour table(s). Moves, effects, terminal tests and payoffs run \
         as set algebra on bitsets and table look-ups; `to_structure` rebuilds \
         the structure on the interpreter's starting structure.{}{}",
        n,
        plan.words,
        fluent_count,
        rels_text,
        if plan.stable.is_empty() {
            "none".to_string()
        } else {
            plan.stable.join(", ")
        },
        plan.rules.len(),
        plan.conds.len(),
        plan.masks.len(),
        plan.tables.len(),
        match &plan.heuristic {
            Some(_) => {
                " The derived heuristic (existential) is compiled too: \
                 `heuristic_values` evaluates it without building structures."
            }
            None => "",
        },
        fallback_summary(plan)
    );
    let module_doc = format!(
        " Specialized code of `{file_name}`. The plan:\n\n ```text\n{}```",
        plan.dump()
            .lines()
            .map(|l| format!(" {l}\n"))
            .collect::<String>()
    );

    let source = crate::emit::source_and_interpreter(
        ident,
        &path_lit,
        &file_name,
        &[
            " The interpreter of this game, built on first use (the",
            " specialized impl uses it only to rebuild structures).",
        ],
    );
    quote! {
        #source

        #[doc = #module_doc]
        #[doc(hidden)]
        #[allow(clippy::all, non_snake_case, unused_parens, unused_braces, unused_mut, dead_code)]
        pub mod #module {
            use ::toss::__private::Bits;

            /// A set of elements.
            pub type Set = Bits<#w>;
            /// Every element.
            pub const UNIVERSE: Set = #universe;
            /// Element names by id.
            pub const ELEMENTS: [&str; #n_lit] = [#(#elements),*];
            /// Rule names.
            pub const RULES: [&str; #nrules] = [#(#rule_names),*];
            /// Left element names per rule.
            pub const RULE_LHS: [&[&str]; #nrules] = [#(#rule_lhs),*];
            /// Fluent unary relations, in the order of `State::rels`.
            pub const FLUENTS: [&str; #nf] = [#(#fluent_names),*];
            /// Player names.
            pub const PLAYERS: [&str; #nplayers] = [#(#players),*];

            #(#masks)*
            #(#tables)*

            #pairs_def
            #state_def

            /// The fluent unary relations of a state alone: a
            /// postcondition that reads nothing else is evaluated on the
            /// effect applied to a copy of these bitsets, not of the whole
            /// state.
            #[derive(Clone, Copy, Debug)]
            pub struct Rels {
                pub rels: [Set; #nf],
            }

            /// A move: the label among the player's labels in the
            /// location, its rule, and the images of the rule's left
            /// elements (unused positions are 0).
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub struct Move {
                pub label: u16,
                pub rule: u16,
                pub elems: [u32; #k],
            }

            /// The starting state.
            pub const INITIAL: State = State {
                rels: [#(#initial_rels),*],
                #(#initial_tuples)*
                #initial_funs
                location: #initial_location,
            };

            #initial_fn
            #(#stable_fun_tables)*
            #conversions

            #(#conds)*
            #(#matchers)*
            #(#counters)*
            #heuristic

            /// A random playout from `s`, drawing exactly as the default
            /// `Game::random_playout_from` does (one number per mover, the
            /// move of rank `index_below(number of legal moves)`), without
            /// listing the moves: they are counted per label and the chosen
            /// one is selected. On an x86-64 processor with the bit
            /// instructions (`popcnt`, `bmi1`, `bmi2`, `lzcnt`) it runs a
            /// copy compiled for them; both copies compute the same.
            pub fn random_playout(
                s: &mut State,
                rng: &mut ::toss::Rng,
                max_turns: usize,
            ) -> (usize, ::toss::Payoffs) {
                #[cfg(target_arch = "x86_64")]
                {
                    #[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
                    fn with_bit_instructions(
                        s: &mut State,
                        rng: &mut ::toss::Rng,
                        max_turns: usize,
                    ) -> (usize, ::toss::Payoffs) {
                        random_playout_body(s, rng, max_turns)
                    }
                    if ::toss::__private::has_bit_instructions() {
                        // SAFETY: the processor has the features the copy is
                        // compiled for (checked just above).
                        return unsafe { with_bit_instructions(s, rng, max_turns) };
                    }
                }
                random_playout_body(s, rng, max_turns)
            }

            /// The body of [`random_playout`], inlined into each copy.
            #[inline(always)]
            fn random_playout_body(
                s: &mut State,
                rng: &mut ::toss::Rng,
                max_turns: usize,
            ) -> (usize, ::toss::Payoffs) {
                let mut turns = 0;
                let mut joint = [Move { label: 0, rule: 0, elems: [0; #k] }; #max_movers];
                #found_decl
                #sets_decl
                #playout_loop
                let mut pay = ::toss::Payoffs::from_elem(0.0, PLAYERS.len());
                payoffs(s, &mut pay);
                (turns, pay)
            }

            /// The legal moves of `player`, in canonical order.
            pub fn legal_moves(s: &State, player: usize, out: &mut ::std::vec::Vec<Move>) {
                out.clear();
                match (s.location, player) {
                    #(#legal_arms)*
                    _ => {}
                }
            }

            /// Whether `player` has a legal move.
            pub fn has_move(s: &State, player: usize) -> bool {
                match (s.location, player) {
                    #(#has_arms)*
                    _ => false,
                }
            }

            /// The players with labels in a location.
            pub fn label_players(location: usize) -> &'static [usize] {
                match location {
                    #(#movers_arms)*
                    _ => &[],
                }
            }

            #apply_rule_fns

            #all_fns

            /// Applies a joint move: the first mover's label picks the
            /// next location (drawn with `rng` when it has several edges),
            /// then the moves are applied in mover order.
            #[inline]
            pub fn apply(s: &mut State, joint: &[Move], rng: &mut ::toss::Rng) {
                if joint.is_empty() {
                    return;
                }
                let next = match s.location {
                    #(#target_arms)*
                    _ => s.location,
                };
                let _ = rng;
                #apply_moves
                s.location = next;
            }

            /// The payoffs of the current location.
            pub fn payoffs(s: &State, out: &mut [f64]) {
                match s.location {
                    #(#payoff_arms)*
                    _ => {}
                }
            }
        }

        #[doc = #summary]
        #[automatically_derived]
        impl ::toss::Game for #ident {
            type State = #module::State;
            type Move = #module::Move;

            fn player_names(&self) -> &[::std::string::String] {
                static NAMES: ::toss::__private::OnceLock<::std::vec::Vec<::std::string::String>> =
                    ::toss::__private::OnceLock::new();
                NAMES.get_or_init(|| #module::PLAYERS.iter().map(|p| p.to_string()).collect())
            }
            fn initial_state(&self) -> Self::State {
                #initial_expr
            }
            fn movers(&self, s: &Self::State, out: &mut ::std::vec::Vec<usize>) {
                out.clear();
                for &p in #module::label_players(s.location) {
                    if !#module::has_move(s, p) {
                        out.clear();
                        return;
                    }
                    out.push(p);
                }
            }
            fn legal_moves(&self, s: &Self::State, player: usize, out: &mut ::std::vec::Vec<Self::Move>) {
                #module::legal_moves(s, player, out)
            }
            fn apply(&self, s: &mut Self::State, joint: &[Self::Move], rng: &mut ::toss::Rng) {
                #module::apply(s, joint, rng)
            }
            fn payoffs(&self, s: &Self::State, out: &mut [f64]) {
                #module::payoffs(s, out)
            }
            fn to_structure(&self, s: &Self::State) -> ::toss::Structure {
                #to_structure_body
            }
            fn location(&self, s: &Self::State) -> usize {
                s.location
            }
            fn has_compound_turns(&self) -> bool {
                #compound_turns
            }
            fn payoff_bounds(&self) -> ::core::option::Option<(f64, f64)> {
                #payoff_bounds
            }
            fn fault(&self) -> ::core::option::Option<::std::string::String> {
                Self::interpreter_fault()
            }
            #heuristic_method
            fn random_playout_from(
                &self,
                s: &mut Self::State,
                rng: &mut ::toss::Rng,
                max_plies: usize,
            ) -> (usize, ::toss::Payoffs) {
                #module::random_playout(s, rng, max_plies)
            }
            fn move_to_string(&self, #s_arg: &Self::State, #player_arg: usize, m: &Self::Move) -> ::std::string::String {
                #move_string
                ::toss::__private::match_to_string(
                    #module::RULES[m.rule as usize],
                    #module::RULE_LHS[m.rule as usize],
                    &m.elems,
                    &#module::ELEMENTS,
                )
            }
        }
    }
}
