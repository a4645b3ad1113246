//! The continuous part (spec 1.2): `DATA epsilon`, ODE orders, arithmetic
//! right-hand sides, kept derivatives and parameter intervals.

use std::collections::{HashMap, HashSet};

use toss_core::ir::derivative_name;

use crate::ast::*;
use crate::diagnostic::Diagnostic;

use super::Checker;

impl Checker<'_> {
    /// `DATA epsilon: e` must be a non-negative number (the epsilon of the
    /// comparisons in continuous games, spec 1.3).
    pub(super) fn data(&mut self, file: &File) {
        for item in &file.items {
            if let Item::Data { entries, .. } = item {
                for (k, v) in entries {
                    if k.name == "epsilon"
                        && !v
                            .name
                            .parse::<f64>()
                            .is_ok_and(|e| e.is_finite() && e >= 0.0)
                    {
                        let mut d = Diagnostic::new(
                            format!("`DATA epsilon: {}` is not a non-negative number", v.name),
                            v.span.clone(),
                        );
                        d.expected = vec!["a non-negative number like `1e-9`".into()];
                        self.err(d);
                    }
                }
            }
        }
    }

    /// Records the order of each function's ODEs, reporting equations of
    /// another order than the function's first; then checks that structures
    /// give values only to kept derivatives.
    pub(super) fn odes(&mut self, file: &File) {
        for item in &file.items {
            let Item::Rule(r) = item else { continue };
            for eq in &r.dynamics {
                if eq.order == 0 {
                    continue; // reported with the rule
                }
                let f = &eq.function.name;
                match self.odes.get(f) {
                    None => {
                        self.odes.insert(f.clone(), (eq.order, eq.target.clone()));
                    }
                    Some((k, _)) if *k == eq.order => {}
                    Some((k, first)) => {
                        let (k, first) = (*k, first.clone());
                        let mut d = Diagnostic::new(
                            format!(
                                "ODEs of different orders for `:{f}`: {} here, {k} in the first one",
                                eq.order
                            ),
                            eq.target.clone(),
                        )
                        .with_label(first, format!("the first ODE for `:{f}`, of order {k}"))
                        .with_note(
                            "all equations for one function must have the same order (spec 1.2)",
                        );
                        d.expected = vec![format!(
                            "an equation for `:{}({})`",
                            derivative_name(f, k),
                            eq.element.name
                        )];
                        self.err(d);
                    }
                }
            }
        }
        for item in &file.items {
            let structures: Vec<&StructLit> = match item {
                Item::Start(s) | Item::Model(s) => vec![s],
                Item::Rule(r) => vec![&r.lhs, &r.rhs],
                _ => continue,
            };
            for s in structures {
                for f in s.functions.iter().filter(|f| f.order > 0) {
                    self.kept(
                        format!(
                            "`{}` gives values of a derivative that is not kept",
                            derivative_name(&f.name.name, f.order)
                        ),
                        f.name.span.start..f.name.span.end + f.order as usize,
                        &f.name.name,
                        f.order,
                        None,
                    );
                }
            }
        }
    }

    /// Reports (with `message` at `span`) the derivative of order `order`
    /// of `f` unless the structure keeps it: the derivatives below the order
    /// of `f`'s ODEs are kept. `element` is the element it is read on, for
    /// the spelling of what is expected (`:f'(b)`; else `f'`).
    pub(super) fn kept(
        &mut self,
        message: String,
        span: Span,
        f: &str,
        order: u32,
        element: Option<&str>,
    ) {
        let kept = self.odes.get(f).map(|(k, _)| *k);
        if kept.is_some_and(|k| order < k) {
            return;
        }
        let spell = |k: u32| match element {
            Some(e) => format!("`:{}({e})`", derivative_name(f, k)),
            None => format!("`{}`", derivative_name(f, k)),
        };
        let mut d = Diagnostic::new(message, span);
        d.expected = (0..kept.unwrap_or(1)).map(spell).collect();
        let d = match kept {
            Some(k) => {
                let first = self.odes[f].1.clone();
                d.with_label(first, format!("the ODEs for `:{f}` are of order {k}"))
                    .with_note(format!(
                        "an ODE of order {k} keeps the derivatives of `:{f}` of orders below {k}"
                    ))
            }
            None => d.with_note(format!(
                "no `dynamics` equation defines a derivative of `:{f}`; an ODE of order k keeps \
                 the derivatives of orders 1 to k-1 (`dynamics :{f}''(e) = ...` keeps `:{f}'`)"
            )),
        };
        self.err(d);
    }

    /// An ODE's right-hand side must be arithmetic (spec 1.2): numbers,
    /// function values and kept derivatives, rule parameters, `+ - * /`,
    /// `^` and roots. Reports each outermost term that is not.
    pub(super) fn arithmetic(&mut self, t: &Term) {
        let what = match &t.kind {
            TermKind::Num(_) | TermKind::Var(_) | TermKind::Fun { .. } => return,
            TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => {
                return self.arithmetic(a);
            }
            TermKind::Add(a, b)
            | TermKind::Sub(a, b)
            | TermKind::Mul(a, b)
            | TermKind::Div(a, b)
            | TermKind::Pow(a, b) => {
                self.arithmetic(a);
                return self.arithmetic(b);
            }
            TermKind::Char(_) => "a characteristic function `:(...)`",
            TermKind::Sum { .. } => "a sum `Sum (...)`",
            TermKind::Product { .. } => "a product `Product (...)`",
            TermKind::Min { .. } => "a minimum `min :a (...)`",
            TermKind::Let { .. } => "a `let` term",
        };
        let mut d = Diagnostic::new(
            format!("{what} in an ODE's right-hand side"),
            t.span.clone(),
        )
        .with_note("the right-hand side of an ODE is arithmetic (spec 1.2)");
        d.expected = vec![
            "a number, a function value `:f(l)` or kept derivative `:f'(l)` of a left element, \
             a rule parameter `:p`, `+ - * /`, `^` or a root"
                .into(),
        ];
        self.err(d);
    }

    /// Every rule parameter gets its interval from a label (spec 1.2: the
    /// parameters are chosen with the move).
    pub(super) fn parameter_intervals(&mut self, file: &File) {
        let mut given: HashMap<&str, HashSet<&str>> = HashMap::new();
        for item in &file.items {
            if let Item::Loc(l) = item {
                for pb in &l.players {
                    for label in &pb.moves {
                        given
                            .entry(label.rule.name.as_str())
                            .or_default()
                            .extend(label.intervals.iter().map(|(n, _, _)| n.name.as_str()));
                    }
                }
            }
        }
        for item in &file.items {
            let Item::Rule(r) = item else { continue };
            let Some(params) = self.param_uses.get(&r.name.name) else {
                continue;
            };
            let mut missing = Vec::new();
            for (p, sp) in params {
                if !given
                    .get(r.name.name.as_str())
                    .is_some_and(|g| g.contains(p.as_str()))
                {
                    missing.push((p.clone(), sp.clone()));
                }
            }
            for (p, sp) in missing {
                let mut d = Diagnostic::new(
                    format!(
                        "the parameter `:{p}` of rule `{}` gets no interval: no label gives one",
                        r.name.name
                    ),
                    sp,
                )
                .with_note(format!(
                    "a free real variable of a rule is a parameter, chosen with the move in the \
                     interval its label gives, like `[{}, {p}: 0 -- 1 -> 0]`",
                    r.name.name
                ));
                d.expected = vec!["a rule parameter with an interval, or a bound variable".into()];
                self.err(d);
            }
        }
    }
}
