//! Substitution of free element variables in formulas and real terms,
//! without capture: what inlining a defined relation `R(x, y) = phi` at
//! `R(a, b)` needs, and what the code generator and the heuristic
//! derivation both do.
//!
//! Element variables are bound by `ex`/`all` and by `Sum`/`Product`; a bound
//! name shadows the substitution inside its scope. `tc x, y phi` and
//! `lfp T(x) = phi` do not bind: their variables are free both in the
//! construct and in `phi`, so the substitution applies to them and to the
//! body alike. Set and real variables are never substituted.

use std::collections::BTreeMap;

use super::{Formula, RealExpr, Var};

/// What happens to the element variables a formula binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundNames {
    /// Every bound element variable gets a fresh name, so that no two
    /// quantifiers of the result share a name (the code generator flattens
    /// quantifier blocks and relies on it).
    Fresh,
    /// A bound element variable keeps its name unless it is one of the names
    /// substituted in, which it would capture; the result stays readable
    /// (derived heuristics are printed).
    KeepUnlessCaptured,
}

/// Substitutes free element variables by `map`, with bound variables
/// treated as `bound` says and fresh names from `fresh` (called with the
/// variable's old name).
pub struct Substitution<'a> {
    pub bound: BoundNames,
    pub fresh: &'a mut dyn FnMut(&str) -> String,
}

impl Substitution<'_> {
    /// `f` with its free element variables renamed by `map`.
    pub fn formula(&mut self, f: &Formula, map: &BTreeMap<String, String>) -> Formula {
        let r = |v: &String| map.get(v).cloned().unwrap_or_else(|| v.clone());
        match f {
            Formula::True => Formula::True,
            Formula::False => Formula::False,
            Formula::Rel { name, args } => Formula::Rel {
                name: name.clone(),
                args: args.iter().map(r).collect(),
            },
            Formula::Eq(a, b) => Formula::Eq(r(a), r(b)),
            Formula::In { element, set } => Formula::In {
                element: r(element),
                set: set.clone(),
            },
            Formula::Cmp { lhs, op, rhs } => Formula::Cmp {
                lhs: self.real(lhs, map),
                op: *op,
                rhs: self.real(rhs, map),
            },
            Formula::Not(g) => Formula::Not(Box::new(self.formula(g, map))),
            Formula::And(gs) => Formula::And(gs.iter().map(|g| self.formula(g, map)).collect()),
            Formula::Or(gs) => Formula::Or(gs.iter().map(|g| self.formula(g, map)).collect()),
            Formula::Implies(a, b) => Formula::Implies(
                Box::new(self.formula(a, map)),
                Box::new(self.formula(b, map)),
            ),
            Formula::Iff(a, b) => Formula::Iff(
                Box::new(self.formula(a, map)),
                Box::new(self.formula(b, map)),
            ),
            Formula::Exists { vars, body } | Formula::Forall { vars, body } => {
                let mut inner = map.clone();
                let vars: Vec<Var> = vars
                    .iter()
                    .map(|v| match v {
                        Var::Element(n) => Var::Element(self.bind(n, map, &mut inner)),
                        other => other.clone(),
                    })
                    .collect();
                let body = Box::new(self.formula(body, &inner));
                if matches!(f, Formula::Exists { .. }) {
                    Formula::Exists { vars, body }
                } else {
                    Formula::Forall { vars, body }
                }
            }
            Formula::Fixpoint {
                kind,
                relation,
                params,
                body,
            } => Formula::Fixpoint {
                kind: *kind,
                relation: relation.clone(),
                params: params.iter().map(r).collect(),
                body: Box::new(self.formula(body, map)),
            },
            Formula::Tc {
                steps,
                from,
                to,
                body,
            } => Formula::Tc {
                steps: *steps,
                from: from.iter().map(r).collect(),
                to: to.iter().map(r).collect(),
                body: Box::new(self.formula(body, map)),
            },
            Formula::Let {
                relation,
                params,
                def,
                body,
            } => {
                // The parameters of a local definition are its own.
                let mut inner = map.clone();
                for p in params {
                    inner.remove(p);
                }
                Formula::Let {
                    relation: relation.clone(),
                    params: params.clone(),
                    def: Box::new(self.formula(def, &inner)),
                    body: Box::new(self.formula(body, map)),
                }
            }
            Formula::LetReal { var, value, body } => Formula::LetReal {
                var: var.clone(),
                value: self.real(value, map),
                body: Box::new(self.formula(body, map)),
            },
        }
    }

    /// `t` with its free element variables renamed by `map`.
    pub fn real(&mut self, t: &RealExpr, map: &BTreeMap<String, String>) -> RealExpr {
        let r = |v: &String| map.get(v).cloned().unwrap_or_else(|| v.clone());
        let bx = |s: &mut Self, a: &RealExpr| Box::new(s.real(a, map));
        match t {
            RealExpr::Const(_) | RealExpr::Var(_) => t.clone(),
            RealExpr::Fun { name, element } => RealExpr::Fun {
                name: name.clone(),
                element: r(element),
            },
            RealExpr::Derivative {
                name,
                order,
                element,
            } => RealExpr::Derivative {
                name: name.clone(),
                order: *order,
                element: r(element),
            },
            RealExpr::Char(f) => RealExpr::Char(Box::new(self.formula(f, map))),
            RealExpr::Neg(a) => RealExpr::Neg(bx(self, a)),
            RealExpr::Root(k, a) => RealExpr::Root(*k, bx(self, a)),
            RealExpr::Add(a, b) => RealExpr::Add(bx(self, a), bx(self, b)),
            RealExpr::Sub(a, b) => RealExpr::Sub(bx(self, a), bx(self, b)),
            RealExpr::Mul(a, b) => RealExpr::Mul(bx(self, a), bx(self, b)),
            RealExpr::Div(a, b) => RealExpr::Div(bx(self, a), bx(self, b)),
            RealExpr::Pow(a, b) => RealExpr::Pow(bx(self, a), bx(self, b)),
            RealExpr::Min { var, body } => RealExpr::Min {
                var: var.clone(),
                body: Box::new(self.formula(body, map)),
            },
            RealExpr::Let { var, value, body } => RealExpr::Let {
                var: var.clone(),
                value: bx(self, value),
                body: bx(self, body),
            },
            RealExpr::Sum { vars, guard, body } | RealExpr::Product { vars, guard, body } => {
                let mut inner = map.clone();
                let vars: Vec<String> =
                    vars.iter().map(|v| self.bind(v, map, &mut inner)).collect();
                let guard = Box::new(self.formula(guard, &inner));
                let body = Box::new(self.real(body, &inner));
                if matches!(t, RealExpr::Sum { .. }) {
                    RealExpr::Sum { vars, guard, body }
                } else {
                    RealExpr::Product { vars, guard, body }
                }
            }
        }
    }

    /// The name of a variable `v` bound in the scope of `map`, recorded in
    /// `inner` (the substitution inside the scope).
    fn bind(
        &mut self,
        v: &str,
        map: &BTreeMap<String, String>,
        inner: &mut BTreeMap<String, String>,
    ) -> String {
        let rename = match self.bound {
            BoundNames::Fresh => true,
            BoundNames::KeepUnlessCaptured => map.values().any(|m| m == v),
        };
        if rename {
            let m = (self.fresh)(v);
            inner.insert(v.to_string(), m.clone());
            m
        } else {
            inner.remove(v);
            v.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(name: &str, args: &[&str]) -> Formula {
        Formula::Rel {
            name: name.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn run(f: &Formula, pairs: &[(&str, &str)], bound: BoundNames) -> Formula {
        let map = pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let mut n = 0;
        let mut fresh = |v: &str| {
            n += 1;
            format!("{v}_{n}")
        };
        Substitution {
            bound,
            fresh: &mut fresh,
        }
        .formula(f, &map)
    }

    /// `ex y (E(x, y) and :v(x) > :v(y))` at x := y: the bound y would
    /// capture the substituted y, so it is renamed; the real comparison is
    /// substituted too.
    #[test]
    fn no_capture_and_real_terms_substituted() {
        let fun = |e: &str| RealExpr::Fun {
            name: "v".into(),
            element: e.into(),
        };
        let body = |x: &str, y: &str| {
            Formula::And(vec![
                rel("E", &[x, y]),
                Formula::Cmp {
                    lhs: fun(x),
                    op: super::super::CmpOp::Gt,
                    rhs: fun(y),
                },
            ])
        };
        let f = Formula::Exists {
            vars: vec![Var::Element("y".into())],
            body: Box::new(body("x", "y")),
        };
        let want = Formula::Exists {
            vars: vec![Var::Element("y_1".into())],
            body: Box::new(body("y", "y_1")),
        };
        assert_eq!(run(&f, &[("x", "y")], BoundNames::KeepUnlessCaptured), want);
        assert_eq!(run(&f, &[("x", "y")], BoundNames::Fresh), want);
        // Nothing to capture: the bound name stays, unless every bound
        // variable is to be fresh.
        let kept = Formula::Exists {
            vars: vec![Var::Element("y".into())],
            body: Box::new(body("a", "y")),
        };
        assert_eq!(run(&f, &[("x", "a")], BoundNames::KeepUnlessCaptured), kept);
        let fresh = Formula::Exists {
            vars: vec![Var::Element("y_1".into())],
            body: Box::new(body("a", "y_1")),
        };
        assert_eq!(run(&f, &[("x", "a")], BoundNames::Fresh), fresh);
    }

    /// A bound variable shadows the substitution in its scope, also in a
    /// sum; a local definition's parameters are its own.
    #[test]
    fn bound_names_shadow() {
        let sum = RealExpr::Sum {
            vars: vec!["x".into()],
            guard: Box::new(rel("P", &["x"])),
            body: Box::new(RealExpr::Fun {
                name: "v".into(),
                element: "z".into(),
            }),
        };
        let f = Formula::And(vec![
            rel("Q", &["x"]),
            Formula::Cmp {
                lhs: sum,
                op: super::super::CmpOp::Gt,
                rhs: RealExpr::Const(0.0),
            },
            Formula::Let {
                relation: "L".into(),
                params: vec!["x".into()],
                def: Box::new(rel("P", &["x"])),
                body: Box::new(rel("L", &["x"])),
            },
        ]);
        let want = Formula::And(vec![
            rel("Q", &["a"]),
            Formula::Cmp {
                lhs: RealExpr::Sum {
                    vars: vec!["x".into()],
                    guard: Box::new(rel("P", &["x"])),
                    body: Box::new(RealExpr::Fun {
                        name: "v".into(),
                        element: "b".into(),
                    }),
                },
                op: super::super::CmpOp::Gt,
                rhs: RealExpr::Const(0.0),
            },
            Formula::Let {
                relation: "L".into(),
                params: vec!["x".into()],
                def: Box::new(rel("P", &["x"])),
                body: Box::new(rel("L", &["a"])),
            },
        ]);
        assert_eq!(
            run(
                &f,
                &[("x", "a"), ("z", "b")],
                BoundNames::KeepUnlessCaptured
            ),
            want
        );
    }
}
