//! The one traversal of formulas and real terms: [`Formula::for_each_child`]
//! and [`RealExpr::for_each_child`] list a node's immediate children with
//! the names the node binds for each, and everything that asks a question
//! of the whole tree ([`walk`], [`relations_used`], [`functions_used`],
//! [`free_vars`]) is written once on top of them. A new construct of the IR
//! is then taught to the traversal in one place.

use std::collections::BTreeSet;

use super::{Formula, RealExpr};

/// A node of a formula or of a real term.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Formula(&'a Formula),
    Real(&'a RealExpr),
}

impl Formula {
    /// Calls `f` on each immediate child (subformula or real term), in
    /// source order, with the element names this node binds in that child
    /// alone (fixed-point parameters in the body, a `let` definition's
    /// parameters in the definition); see also `bound_names`.
    pub fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(Node<'a>, &'a [String])) {
        const NONE: &[String] = &[];
        match self {
            Formula::True
            | Formula::False
            | Formula::Rel { .. }
            | Formula::Eq(..)
            | Formula::In { .. } => {}
            Formula::Cmp { lhs, rhs, .. } => {
                f(Node::Real(lhs), NONE);
                f(Node::Real(rhs), NONE);
            }
            Formula::Not(g) => f(Node::Formula(g), NONE),
            Formula::And(gs) | Formula::Or(gs) => gs.iter().for_each(|g| f(Node::Formula(g), NONE)),
            Formula::Implies(a, b) | Formula::Iff(a, b) => {
                f(Node::Formula(a), NONE);
                f(Node::Formula(b), NONE);
            }
            // Quantified variables are bound through `Var::name`; they are
            // handed over as a slice by `bound_names`.
            Formula::Exists { body, .. } | Formula::Forall { body, .. } => {
                f(Node::Formula(body), NONE)
            }
            Formula::Fixpoint { params, body, .. } => f(Node::Formula(body), params),
            Formula::Tc { body, .. } => f(Node::Formula(body), NONE),
            Formula::Let {
                params, def, body, ..
            } => {
                f(Node::Formula(def), params);
                f(Node::Formula(body), NONE);
            }
            Formula::LetReal { value, body, .. } => {
                f(Node::Real(value), NONE);
                f(Node::Formula(body), NONE);
            }
        }
    }

    /// The variable names this node binds in all its children beyond those
    /// [`Formula::for_each_child`] passes: the quantified variables (of
    /// every kind) and both sides of a closure.
    fn bound_names(&self) -> Vec<&str> {
        match self {
            Formula::Exists { vars, .. } | Formula::Forall { vars, .. } => {
                vars.iter().map(|v| v.name()).collect()
            }
            Formula::Tc { from, to, .. } => from.iter().chain(to).map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// The element names this node itself reads (not its children's):
    /// relation arguments, both sides of `=`, the element of `in`, the
    /// parameters of a fixed point and of a closure (they are free too).
    fn own_elements(&self) -> Vec<&str> {
        match self {
            Formula::Rel { args, .. } => args.iter().map(String::as_str).collect(),
            Formula::Eq(a, b) => vec![a.as_str(), b.as_str()],
            Formula::In { element, .. } => vec![element.as_str()],
            Formula::Fixpoint { params, .. } => params.iter().map(String::as_str).collect(),
            Formula::Tc { from, to, .. } => from.iter().chain(to).map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }
}

impl RealExpr {
    /// Calls `f` on each immediate child, in source order, with the element
    /// names this node binds in that child (the variables of a sum or
    /// product).
    pub fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(Node<'a>, &'a [String])) {
        const NONE: &[String] = &[];
        match self {
            RealExpr::Const(_)
            | RealExpr::Var(_)
            | RealExpr::Fun { .. }
            | RealExpr::Derivative { .. } => {}
            RealExpr::Char(g) => f(Node::Formula(g), NONE),
            RealExpr::Neg(a) | RealExpr::Root(_, a) => f(Node::Real(a), NONE),
            RealExpr::Add(a, b)
            | RealExpr::Sub(a, b)
            | RealExpr::Mul(a, b)
            | RealExpr::Div(a, b)
            | RealExpr::Pow(a, b) => {
                f(Node::Real(a), NONE);
                f(Node::Real(b), NONE);
            }
            RealExpr::Sum { vars, guard, body } | RealExpr::Product { vars, guard, body } => {
                f(Node::Formula(guard), vars);
                f(Node::Real(body), vars);
            }
            // `min :a` and `let :a` bind a real variable, which no element
            // position can name.
            RealExpr::Min { body, .. } => f(Node::Formula(body), NONE),
            RealExpr::Let { value, body, .. } => {
                f(Node::Real(value), NONE);
                f(Node::Real(body), NONE);
            }
        }
    }

    /// The element names this node itself reads: the argument of `:f(x)`.
    fn own_elements(&self) -> Vec<&str> {
        match self {
            RealExpr::Fun { element, .. } | RealExpr::Derivative { element, .. } => {
                vec![element.as_str()]
            }
            _ => Vec::new(),
        }
    }
}

impl<'a> Node<'a> {
    fn for_each_child(self, f: &mut dyn FnMut(Node<'a>, &'a [String])) {
        match self {
            Node::Formula(g) => g.for_each_child(f),
            Node::Real(t) => t.for_each_child(f),
        }
    }
}

/// Calls `visit` on `node` and on every node below it, in pre-order and
/// source order.
pub fn walk<'a>(node: Node<'a>, visit: &mut dyn FnMut(Node<'a>)) {
    visit(node);
    node.for_each_child(&mut |c, _| walk(c, visit));
}

/// The relation names a formula uses: every atom `R(...)`, of the signature
/// or defined (definitions are not followed), wherever it stands, in
/// comparisons and counting terms (`:(phi)`, the guards of `Sum` and
/// `Product`, `min`) included. A formula is stable exactly when none of these
/// (nor of [`functions_used`]) can change.
pub fn relations_used(f: &Formula) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk(Node::Formula(f), &mut |n| {
        if let Node::Formula(Formula::Rel { name, .. }) = n {
            out.insert(name.clone());
        }
    });
    out
}

/// The function names a formula reads (`:f(x)` and its derivatives).
pub fn functions_used(f: &Formula) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk(Node::Formula(f), &mut |n| {
        if let Node::Real(RealExpr::Fun { name, .. } | RealExpr::Derivative { name, .. }) = n {
            out.insert(name.clone());
        }
    });
    out
}

/// The element variables (and element constants) occurring free in `f`.
/// The parameters of `lfp T(x) = phi` and `tc x, y phi` count as free.
pub fn free_vars(f: &Formula) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    free_in(Node::Formula(f), &mut Vec::new(), &mut out);
    out
}

fn free_in<'a>(node: Node<'a>, bound: &mut Vec<&'a str>, out: &mut BTreeSet<String>) {
    let own = match node {
        Node::Formula(g) => g.own_elements(),
        Node::Real(t) => t.own_elements(),
    };
    for v in own {
        if !bound.contains(&v) {
            out.insert(v.to_string());
        }
    }
    let k = bound.len();
    if let Node::Formula(g) = node {
        bound.extend(g.bound_names());
    }
    node.for_each_child(&mut |child, binds| {
        let j = bound.len();
        bound.extend(binds.iter().map(String::as_str));
        free_in(child, bound, out);
        bound.truncate(j);
    });
    bound.truncate(k);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{CmpOp, Var};

    fn rel(r: &str, args: &[&str]) -> Formula {
        Formula::Rel {
            name: r.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn names(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// `Sum (y | P(y) and E(x, y) : :f(y)) > :(Q(z))`: the relations inside
    /// a comparison and inside a counting term are used; the function too.
    fn counting() -> Formula {
        Formula::Cmp {
            lhs: RealExpr::Sum {
                vars: vec!["y".into()],
                guard: Box::new(Formula::And(vec![rel("P", &["y"]), rel("E", &["x", "y"])])),
                body: Box::new(RealExpr::Fun {
                    name: "f".into(),
                    element: "y".into(),
                }),
            },
            op: CmpOp::Gt,
            rhs: RealExpr::Char(Box::new(rel("Q", &["z"]))),
        }
    }

    #[test]
    fn relations_in_comparisons_and_counting_terms_are_used() {
        let f = Formula::And(vec![rel("R", &["x"]), counting()]);
        assert_eq!(relations_used(&f), names(&["E", "P", "Q", "R"]));
        assert_eq!(functions_used(&f), names(&["f"]));
    }

    #[test]
    fn free_variables_respect_every_binder() {
        // `x` and `z` free; `y` bound by the sum.
        assert_eq!(free_vars(&counting()), names(&["x", "z"]));
        // `ex y (R(x, y))` and `lfp T(a) = (S(a, b))`: x, a and b are free.
        let ex = Formula::Exists {
            vars: vec![Var::Element("y".into())],
            body: Box::new(rel("R", &["x", "y"])),
        };
        assert_eq!(free_vars(&ex), names(&["x"]));
        let lfp = Formula::Fixpoint {
            kind: crate::ir::FixpointKind::Least,
            relation: "T".into(),
            params: vec!["a".into()],
            body: Box::new(rel("S", &["a", "b"])),
        };
        assert_eq!(free_vars(&lfp), names(&["a", "b"]));
        // `let D(u) = E(u, v) in D(w)`: u is the definition's parameter.
        let let_f = Formula::Let {
            relation: "D".into(),
            params: vec!["u".into()],
            def: Box::new(rel("E", &["u", "v"])),
            body: Box::new(rel("D", &["w"])),
        };
        assert_eq!(free_vars(&let_f), names(&["v", "w"]));
        assert_eq!(relations_used(&let_f), names(&["D", "E"]));
    }
}
