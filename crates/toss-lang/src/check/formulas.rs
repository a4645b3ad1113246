//! Formulas and terms: names, arities and the binding of variables in
//! scope, and the positivity of fixed-point relations. Real quantifiers
//! are checked by the `reals` module.

use toss_core::ir::derivative_name;

use crate::ast::*;
use crate::diagnostic::Diagnostic;

use super::{Checker, Ctx, Scope};

impl Checker<'_> {
    pub(super) fn rel_use(&mut self, name: &Ident, n_args: usize, sc: &Scope) {
        let arity = sc
            .local_rels
            .iter()
            .rev()
            .find(|(n, _)| *n == name.name)
            .map(|(_, a)| *a)
            .or_else(|| self.sig.defined.get(&name.name).copied())
            .or_else(|| self.sig.arity(&name.name));
        match arity {
            None => self.err(Diagnostic::new(
                format!("undefined relation `{}`", name.name),
                name.span.clone(),
            )),
            Some(a) if a != n_args => self.err(Diagnostic::new(
                format!(
                    "arity mismatch: `{}` has arity {a} but is used with {n_args} argument(s)",
                    name.name
                ),
                name.span.clone(),
            )),
            Some(_) => {}
        }
    }

    pub(super) fn elem_use(&mut self, x: &Ident, sc: &Scope) {
        if sc.elems.contains(&x.name) || sc.constants.contains(&x.name) {
            return;
        }
        let msg = match sc.ctx {
            Ctx::RelBody => format!(
                "free variable `{}` in {}: it is not a parameter",
                x.name, sc.what
            ),
            Ctx::Payoff => format!(
                "free variable `{}` in {}: a payoff must be a sentence",
                x.name, sc.what
            ),
            Ctx::Constraint | Ctx::Equation => format!(
                "free variable `{}` in {}: it is neither bound nor an element of the rule side",
                x.name, sc.what
            ),
        };
        self.err(Diagnostic::new(msg, x.span.clone()));
    }

    pub(super) fn set_use(&mut self, x: &Ident, sc: &Scope) {
        if sc.sets.contains(&x.name) {
            return;
        }
        self.err(Diagnostic::new(
            format!("free set variable `{}` in {}", x.name, sc.what),
            x.span.clone(),
        ));
    }

    pub(super) fn real_use(&mut self, x: &Ident, sc: &mut Scope) {
        if sc.reals.contains(&x.name) {
            return;
        }
        match sc.ctx {
            Ctx::Constraint | Ctx::Equation => {
                sc.free_reals
                    .entry(x.name.clone())
                    .or_insert_with(|| x.span.clone());
            }
            Ctx::Payoff | Ctx::RelBody => self.err(Diagnostic::new(
                format!("free real variable `:{}` in {}", x.name, sc.what),
                x.span.clone(),
            )),
        }
    }

    pub(super) fn bind(sc: &mut Scope, vars: &[VarDecl]) -> [usize; 3] {
        let mark = [sc.elems.len(), sc.sets.len(), sc.reals.len()];
        for v in vars {
            match v.kind {
                VarKind::Element => sc.elems.push(v.name.name.clone()),
                VarKind::Set => sc.sets.push(v.name.name.clone()),
                VarKind::Real => sc.reals.push(v.name.name.clone()),
            }
        }
        mark
    }

    pub(super) fn unbind(sc: &mut Scope, mark: [usize; 3]) {
        sc.elems.truncate(mark[0]);
        sc.sets.truncate(mark[1]);
        sc.reals.truncate(mark[2]);
    }

    pub(super) fn elem_vars(vars: &[Ident]) -> Vec<VarDecl> {
        vars.iter()
            .map(|v| VarDecl {
                kind: VarKind::Element,
                name: v.clone(),
            })
            .collect()
    }

    pub(super) fn formula(&mut self, f: &Formula, sc: &mut Scope) {
        match &f.kind {
            FormulaKind::True | FormulaKind::False => {}
            FormulaKind::Rel { name, args } => {
                self.rel_use(name, args.len(), sc);
                for a in args {
                    self.elem_use(a, sc);
                }
            }
            FormulaKind::Eq(a, b) | FormulaKind::Ne(a, b) => {
                self.elem_use(a, sc);
                self.elem_use(b, sc);
            }
            FormulaKind::In { element, set } => {
                self.elem_use(element, sc);
                self.set_use(set, sc);
            }
            FormulaKind::Cmp { lhs, rhs, .. } => {
                self.term(lhs, sc);
                self.term(rhs, sc);
            }
            FormulaKind::Not(g) => self.formula(g, sc),
            FormulaKind::And(fs) | FormulaKind::Or(fs) => {
                for g in fs {
                    self.formula(g, sc);
                }
            }
            FormulaKind::Implies(a, b) | FormulaKind::Iff(a, b) => {
                self.formula(a, sc);
                self.formula(b, sc);
            }
            FormulaKind::Exists { vars, body } | FormulaKind::Forall { vars, body } => {
                for v in vars.iter().filter(|v| v.kind == VarKind::Real) {
                    self.real_quantifier(&v.name, body);
                }
                let mark = Self::bind(sc, vars);
                self.formula(body, sc);
                Self::unbind(sc, mark);
            }
            FormulaKind::Fixpoint {
                relation,
                params,
                body,
                ..
            } => {
                sc.local_rels.push((relation.name.clone(), params.len()));
                let mark = Self::bind(sc, &Self::elem_vars(params));
                self.formula(body, sc);
                Self::unbind(sc, mark);
                sc.local_rels.pop();
                // A fixed point exists, and iteration reaches it, only when
                // the body is monotone in the relation: every occurrence
                // positive (under an even number of negations, outside
                // counting and real terms).
                let mut occ = Vec::new();
                occurrences(body, &relation.name, true, &mut occ);
                if let Some((span, _)) = occ.iter().find(|(_, positive)| !positive) {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "`{}` occurs negatively in the body of its own fixed point",
                                relation.name
                            ),
                            span.clone(),
                        )
                        .with_label(relation.span.clone(), "the fixed point's relation")
                        .with_note(
                            "an `lfp`/`gfp` body must be monotone in its relation: every \
                             occurrence under an even number of negations (`not`, the left \
                             of `->`), and none inside `<->` or a real term",
                        ),
                    );
                }
                // The fixed point holds of its parameters, which stay free.
                for p in params {
                    self.elem_use(p, sc);
                }
            }
            FormulaKind::Tc {
                steps,
                from,
                to,
                body,
            } => {
                if from.len() != to.len() || from.is_empty() {
                    self.err(Diagnostic::new(
                        format!(
                            "`tc` needs as many variables after the comma as before ({} and {})",
                            from.len(),
                            to.len()
                        ),
                        f.span.clone(),
                    ));
                }
                if let Some(s) = steps
                    && s.value == 0
                {
                    self.err(Diagnostic::new(
                        "the number of `tc` steps must be at least 1",
                        s.span.clone(),
                    ));
                }
                let mut all = from.clone();
                all.extend(to.iter().cloned());
                let mark = Self::bind(sc, &Self::elem_vars(&all));
                self.formula(body, sc);
                Self::unbind(sc, mark);
                for v in &all {
                    self.elem_use(v, sc);
                }
            }
            FormulaKind::Let {
                relation,
                params,
                def,
                body,
            } => {
                let mark = Self::bind(sc, &Self::elem_vars(params));
                self.formula(def, sc);
                Self::unbind(sc, mark);
                sc.local_rels.push((relation.name.clone(), params.len()));
                self.formula(body, sc);
                sc.local_rels.pop();
            }
            FormulaKind::LetReal { var, value, body } => {
                self.term(value, sc);
                sc.reals.push(var.name.clone());
                self.formula(body, sc);
                sc.reals.pop();
            }
        }
    }

    pub(super) fn term(&mut self, t: &Term, sc: &mut Scope) {
        match &t.kind {
            TermKind::Num(_) => {}
            TermKind::Var(v) => self.real_use(v, sc),
            TermKind::Fun {
                name,
                order,
                element,
            } => {
                if !self.sig.funs.contains(&name.name) {
                    self.err(Diagnostic::new(
                        format!("undefined function `{}`", name.name),
                        name.span.clone(),
                    ));
                } else if *order > 0 {
                    self.kept(
                        format!(
                            "the derivative `:{}({})` is not kept",
                            derivative_name(&name.name, *order),
                            element.name
                        ),
                        t.span.clone(),
                        &name.name,
                        *order,
                        Some(&element.name),
                    );
                }
                self.elem_use(element, sc);
            }
            TermKind::Char(f) => self.formula(f, sc),
            TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => {
                if let TermKind::Root(n, _) = &t.kind
                    && n.value < 2
                {
                    self.err(Diagnostic::new(
                        "the root's degree must be at least 2",
                        n.span.clone(),
                    ));
                }
                self.term(a, sc)
            }
            TermKind::Add(a, b)
            | TermKind::Sub(a, b)
            | TermKind::Mul(a, b)
            | TermKind::Div(a, b)
            | TermKind::Pow(a, b) => {
                self.term(a, sc);
                self.term(b, sc);
            }
            TermKind::Sum { vars, guard, body } | TermKind::Product { vars, guard, body } => {
                let mark = Self::bind(sc, &Self::elem_vars(vars));
                self.formula(guard, sc);
                self.term(body, sc);
                Self::unbind(sc, mark);
            }
            TermKind::Min { var, body } => {
                self.real_quantifier(var, body);
                sc.reals.push(var.name.clone());
                self.formula(body, sc);
                sc.reals.pop();
            }
            TermKind::Let { var, value, body } => {
                self.term(value, sc);
                sc.reals.push(var.name.clone());
                self.term(body, sc);
                sc.reals.pop();
            }
        }
    }
}

/// The occurrences of relation `rel` in `f` with their polarity (`true`:
/// under an even number of negations). Occurrences inside `<->` and inside
/// real terms count as negative (they are not monotone in general); an
/// inner `lfp`/`gfp`/`let` binding the same name hides it; an occurrence in
/// the definition of a `let` relation takes the polarity of that relation's
/// uses in the `let` body.
fn occurrences(f: &Formula, rel: &str, positive: bool, out: &mut Vec<(Span, bool)>) {
    match &f.kind {
        FormulaKind::True
        | FormulaKind::False
        | FormulaKind::Eq(..)
        | FormulaKind::Ne(..)
        | FormulaKind::In { .. } => {}
        FormulaKind::Rel { name, .. } => {
            if name.name == rel {
                out.push((name.span.clone(), positive));
            }
        }
        FormulaKind::Cmp { lhs, rhs, .. } => {
            term_occurrences(lhs, rel, out);
            term_occurrences(rhs, rel, out);
        }
        FormulaKind::Not(g) => occurrences(g, rel, !positive, out),
        FormulaKind::And(fs) | FormulaKind::Or(fs) => {
            for g in fs {
                occurrences(g, rel, positive, out);
            }
        }
        FormulaKind::Implies(a, b) => {
            occurrences(a, rel, !positive, out);
            occurrences(b, rel, positive, out);
        }
        FormulaKind::Iff(a, b) => {
            occurrences(a, rel, false, out);
            occurrences(b, rel, false, out);
        }
        FormulaKind::Exists { body, .. }
        | FormulaKind::Forall { body, .. }
        | FormulaKind::Tc { body, .. } => occurrences(body, rel, positive, out),
        FormulaKind::Fixpoint { relation, body, .. } => {
            if relation.name != rel {
                occurrences(body, rel, positive, out);
            }
        }
        FormulaKind::Let {
            relation,
            def,
            body,
            ..
        } => {
            let mut in_def = Vec::new();
            occurrences(def, rel, true, &mut in_def);
            if !in_def.is_empty() {
                let mut uses = Vec::new();
                occurrences(body, &relation.name, positive, &mut uses);
                for (span, p) in &in_def {
                    for (_, q) in &uses {
                        out.push((span.clone(), p == q));
                    }
                }
            }
            if relation.name != rel {
                occurrences(body, rel, positive, out);
            }
        }
        FormulaKind::LetReal { value, body, .. } => {
            term_occurrences(value, rel, out);
            occurrences(body, rel, positive, out);
        }
    }
}

/// Occurrences of `rel` inside a real term, all counted as negative.
fn term_occurrences(t: &Term, rel: &str, out: &mut Vec<(Span, bool)>) {
    let mut inner = Vec::new();
    match &t.kind {
        TermKind::Num(_) | TermKind::Var(_) | TermKind::Fun { .. } => {}
        TermKind::Char(f) => occurrences(f, rel, true, &mut inner),
        TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => {
            term_occurrences(a, rel, &mut inner)
        }
        TermKind::Add(a, b)
        | TermKind::Sub(a, b)
        | TermKind::Mul(a, b)
        | TermKind::Div(a, b)
        | TermKind::Pow(a, b) => {
            term_occurrences(a, rel, &mut inner);
            term_occurrences(b, rel, &mut inner);
        }
        TermKind::Sum { guard, body, .. } | TermKind::Product { guard, body, .. } => {
            occurrences(guard, rel, true, &mut inner);
            term_occurrences(body, rel, &mut inner);
        }
        TermKind::Min { body, .. } => occurrences(body, rel, true, &mut inner),
        TermKind::Let { value, body, .. } => {
            term_occurrences(value, rel, &mut inner);
            term_occurrences(body, rel, &mut inner);
        }
    }
    out.extend(inner.into_iter().map(|(s, _)| (s, false)));
}

/// The first occurrence of relation `rel` in `f` that refers to it (not to
/// an inner binding of the same name).
pub(super) fn first_occurrence(f: &Formula, rel: &str) -> Option<Span> {
    let mut out = Vec::new();
    occurrences(f, rel, true, &mut out);
    out.into_iter().next().map(|(s, _)| s)
}
