//! Real quantifiers (`ex :a`, `all :a`, `min :a`): where the quantified
//! variable may occur.

use crate::ast::*;
use crate::diagnostic::Diagnostic;

use super::Checker;

impl Checker<'_> {
    /// A real quantifier (`ex :a`, `all :a`, `min :a`) is decided over the
    /// values its variable is compared with, so `:a` may occur only alone
    /// on one side of a comparison whose other side does not use it, nor a
    /// real variable bound inside the quantifier (spec 1.3's quantifier
    /// elimination is not implemented in general).
    pub(super) fn real_quantifier(&mut self, var: &Ident, body: &Formula) {
        if let Err(d) = real_uses_in_formula(&var.name, body, &mut Vec::new()) {
            self.err(d.with_note(format!(
                "`:{}` is quantified here and may only occur alone on one side of a \
                 comparison, `:{} < t` or `t <= :{}`, with `t` free of it and of real \
                 variables bound inside its quantifier",
                var.name, var.name, var.name
            )));
        }
    }
}

/// Checks the uses of real variable `var` in `f` (see
/// [`Checker::real_quantifier`]); `inner` are the real variables bound
/// between its quantifier and here.
fn real_uses_in_formula(var: &str, f: &Formula, inner: &mut Vec<String>) -> Result<(), Diagnostic> {
    let is_var = |t: &Term| matches!(&t.kind, TermKind::Var(v) if v.name == var);
    match &f.kind {
        FormulaKind::Cmp { lhs, rhs, .. } => {
            let (l, r) = (term_uses(lhs, var), term_uses(rhs, var));
            let other = match (l, r) {
                (false, false) => {
                    real_uses_in_term(var, lhs, inner)?;
                    return real_uses_in_term(var, rhs, inner);
                }
                (true, false) if is_var(lhs) => rhs,
                (false, true) if is_var(rhs) => lhs,
                _ => {
                    return Err(Diagnostic::new(
                        format!("`:{var}` is not alone on one side of this comparison"),
                        f.span.clone(),
                    ));
                }
            };
            if let Some(b) = inner.iter().find(|b| term_uses(other, b)) {
                return Err(Diagnostic::new(
                    format!(
                        "`:{var}` is compared with a term using `:{b}`, a real variable bound \
                         inside its quantifier"
                    ),
                    other.span.clone(),
                ));
            }
            real_uses_in_term(var, other, inner)
        }
        FormulaKind::True
        | FormulaKind::False
        | FormulaKind::Rel { .. }
        | FormulaKind::Eq(..)
        | FormulaKind::Ne(..)
        | FormulaKind::In { .. } => Ok(()),
        FormulaKind::Not(g) => real_uses_in_formula(var, g, inner),
        FormulaKind::And(gs) | FormulaKind::Or(gs) => gs
            .iter()
            .try_for_each(|g| real_uses_in_formula(var, g, inner)),
        FormulaKind::Implies(a, b) | FormulaKind::Iff(a, b) => {
            real_uses_in_formula(var, a, inner)?;
            real_uses_in_formula(var, b, inner)
        }
        FormulaKind::Exists { vars, body } | FormulaKind::Forall { vars, body } => {
            let reals: Vec<&str> = vars
                .iter()
                .filter(|v| v.kind == VarKind::Real)
                .map(|v| v.name.name.as_str())
                .collect();
            if reals.contains(&var) {
                // Shadowed: the inner quantifier's own variable.
                return Ok(());
            }
            let mark = inner.len();
            inner.extend(reals.iter().map(|r| r.to_string()));
            let r = real_uses_in_formula(var, body, inner);
            inner.truncate(mark);
            r
        }
        FormulaKind::Fixpoint { body, .. } | FormulaKind::Tc { body, .. } => {
            real_uses_in_formula(var, body, inner)
        }
        FormulaKind::Let { def, body, .. } => {
            real_uses_in_formula(var, def, inner)?;
            real_uses_in_formula(var, body, inner)
        }
        FormulaKind::LetReal {
            var: bound,
            value,
            body,
        } => {
            if term_uses(value, var) {
                return Err(Diagnostic::new(
                    format!("`:{var}` in the value of a `let`"),
                    value.span.clone(),
                ));
            }
            if bound.name == var {
                return Ok(());
            }
            inner.push(bound.name.clone());
            let r = real_uses_in_formula(var, body, inner);
            inner.pop();
            r
        }
    }
}

/// Checks a term that is not compared with `var` directly: `var` may occur
/// in it only inside formulas (characteristic functions, guards).
fn real_uses_in_term(var: &str, t: &Term, inner: &mut Vec<String>) -> Result<(), Diagnostic> {
    match &t.kind {
        TermKind::Var(v) if v.name == var => Err(Diagnostic::new(
            format!("`:{var}` inside a term, not alone on one side of a comparison"),
            t.span.clone(),
        )),
        TermKind::Num(_) | TermKind::Var(_) | TermKind::Fun { .. } => Ok(()),
        TermKind::Char(f) => real_uses_in_formula(var, f, inner),
        TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => {
            real_uses_in_term(var, a, inner)
        }
        TermKind::Add(a, b)
        | TermKind::Sub(a, b)
        | TermKind::Mul(a, b)
        | TermKind::Div(a, b)
        | TermKind::Pow(a, b) => {
            real_uses_in_term(var, a, inner)?;
            real_uses_in_term(var, b, inner)
        }
        TermKind::Sum { guard, body, .. } | TermKind::Product { guard, body, .. } => {
            real_uses_in_formula(var, guard, inner)?;
            real_uses_in_term(var, body, inner)
        }
        TermKind::Min { var: bound, body } => {
            if bound.name == var {
                return Ok(());
            }
            inner.push(bound.name.clone());
            let r = real_uses_in_formula(var, body, inner);
            inner.pop();
            r
        }
        TermKind::Let {
            var: bound,
            value,
            body,
        } => {
            real_uses_in_term(var, value, inner)?;
            if bound.name == var {
                return Ok(());
            }
            inner.push(bound.name.clone());
            let r = real_uses_in_term(var, body, inner);
            inner.pop();
            r
        }
    }
}

/// Whether real variable `var` occurs free in `t`.
fn term_uses(t: &Term, var: &str) -> bool {
    match &t.kind {
        TermKind::Var(v) => v.name == var,
        TermKind::Num(_) | TermKind::Fun { .. } => false,
        TermKind::Char(f) => formula_uses(f, var),
        TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => term_uses(a, var),
        TermKind::Add(a, b)
        | TermKind::Sub(a, b)
        | TermKind::Mul(a, b)
        | TermKind::Div(a, b)
        | TermKind::Pow(a, b) => term_uses(a, var) || term_uses(b, var),
        TermKind::Sum { guard, body, .. } | TermKind::Product { guard, body, .. } => {
            formula_uses(guard, var) || term_uses(body, var)
        }
        TermKind::Min { var: bound, body } => bound.name != var && formula_uses(body, var),
        TermKind::Let {
            var: bound,
            value,
            body,
        } => term_uses(value, var) || (bound.name != var && term_uses(body, var)),
    }
}

/// Whether real variable `var` occurs free in `f`.
fn formula_uses(f: &Formula, var: &str) -> bool {
    match &f.kind {
        FormulaKind::Cmp { lhs, rhs, .. } => term_uses(lhs, var) || term_uses(rhs, var),
        FormulaKind::True
        | FormulaKind::False
        | FormulaKind::Rel { .. }
        | FormulaKind::Eq(..)
        | FormulaKind::Ne(..)
        | FormulaKind::In { .. } => false,
        FormulaKind::Not(g) => formula_uses(g, var),
        FormulaKind::And(gs) | FormulaKind::Or(gs) => gs.iter().any(|g| formula_uses(g, var)),
        FormulaKind::Implies(a, b) | FormulaKind::Iff(a, b) => {
            formula_uses(a, var) || formula_uses(b, var)
        }
        FormulaKind::Exists { vars, body } | FormulaKind::Forall { vars, body } => {
            !vars
                .iter()
                .any(|v| v.kind == VarKind::Real && v.name.name == var)
                && formula_uses(body, var)
        }
        FormulaKind::Fixpoint { body, .. } | FormulaKind::Tc { body, .. } => {
            formula_uses(body, var)
        }
        FormulaKind::Let { def, body, .. } => formula_uses(def, var) || formula_uses(body, var),
        FormulaKind::LetReal {
            var: bound,
            value,
            body,
        } => term_uses(value, var) || (bound.name != var && formula_uses(body, var)),
    }
}
