//! Well-typed terms and the type reconstruction algorithm (spec 2.3.2,
//! 2.3.3): RECOVARS, the renaming of Step One, BIGSACK and its most
//! general unifier (Step Two, Algorithm 2), `ρ` and the coherent typing by
//! collapsing (Step Three).
//!
//! Choices where the spec leaves room:
//! - Nodes are visited breadth first, which is the order of the spec's
//!   examples (the renamed variables and BIGSACK come out as printed).
//! - Fresh type variables are `a`, `b`, ..., `z`, `a1`, ... in order,
//!   skipping the variables of every type `vtype` gives (a superset of
//!   RECOVARS, so the renaming condition holds; the second example then
//!   renames to `c`, `d`, ... as printed although `y` is not in its term).
//! - The variables of a node are renamed in the order they first occur.
//! - A node holding a term variable with children constrains its children
//!   like a symbol's node does (coherence condition ii); its type is not
//!   renamed, its variables being in RECOVARS.
//! - "The type of the i-th child" is the child's collapsed type when the
//!   child has children, its whole type when it is a leaf (a leaf may be a
//!   function passed as an argument: coherence condition iii).
//! - A node with children must have exactly the arity of its symbol or
//!   variable; a leaf may have any type.

use std::collections::{BTreeSet, VecDeque};
use std::fmt;

use crate::term::{Head, Signature, Term, VType};
use crate::types::{Subst, Type, UnifyError, mgu2_keeping};

/// A typing: a type for each subterm, in the shape of the term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typing {
    pub ty: Type,
    pub children: Vec<Typing>,
}

/// The result of type reconstruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reconstruction {
    /// The pairs of Step Two, in order.
    pub bigsack: Vec<(Type, Type)>,
    /// `σ ∈ MGU2(BIGSACK)`.
    pub sigma: Subst,
    /// `ρ`: `σ` on RECOVARS, which reconstructs the variables' types.
    pub rho: Subst,
    /// A most general coherent typing of `(t, ρ̄ ∘ vtype)`.
    pub typing: Typing,
}

impl Reconstruction {
    /// `TermType`: the type of the whole term.
    pub fn term_type(&self) -> &Type {
        &self.typing.ty
    }

    /// `ρ̄ ∘ vtype` on the given variables.
    pub fn reconstructed(&self, vtype: &VType) -> VType {
        vtype
            .iter()
            .map(|(x, t)| (x.clone(), self.rho.apply(t)))
            .collect()
    }
}

/// Why a term cannot be typed; `path` is the position (child indices from
/// the root) of the node at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeError {
    UnknownSymbol {
        path: Vec<usize>,
        name: String,
    },
    UntypedVariable {
        path: Vec<usize>,
        name: String,
    },
    Arity {
        path: Vec<usize>,
        name: String,
        expected: usize,
        found: usize,
    },
    /// BIGSACK has no unifier.
    Unify(UnifyError),
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeError::UnknownSymbol { name, .. } => write!(f, "unknown term symbol `{name}`"),
            TypeError::UntypedVariable { name, .. } => {
                write!(f, "the term variable `{name}` has no type")
            }
            TypeError::Arity {
                name,
                expected,
                found,
                ..
            } => write!(f, "`{name}` takes {expected} arguments, given {found}"),
            TypeError::Unify(e) => write!(f, "the term cannot be typed: {e}"),
        }
    }
}

impl std::error::Error for TypeError {}

/// Fresh type variable names in order, avoiding a set.
struct Fresh {
    used: BTreeSet<String>,
    next: usize,
}

impl Fresh {
    fn name(&mut self) -> String {
        loop {
            let letter = char::from(b'a' + (self.next % 26) as u8);
            let round = self.next / 26;
            self.next += 1;
            let name = if round == 0 {
                letter.to_string()
            } else {
                format!("{letter}{round}")
            };
            if self.used.insert(name.clone()) {
                return name;
            }
        }
    }
}

fn vars_in_order(t: &Type, out: &mut Vec<String>) {
    match t {
        Type::Var(x) => {
            if !out.contains(x) {
                out.push(x.clone());
            }
        }
        Type::Sym(_, args) => args.iter().for_each(|a| vars_in_order(a, out)),
        Type::Fun(args, result) => {
            args.iter().for_each(|a| vars_in_order(a, out));
            vars_in_order(result, out);
        }
    }
}

/// A node in breadth-first order: its term, renamed type, children.
struct Node<'t> {
    term: &'t Term,
    ty: Type,
    children: Vec<usize>,
}

/// The type reconstruction algorithm of 2.3.3 for `(t, vtype)`.
pub fn reconstruct(sig: &Signature, t: &Term, vtype: &VType) -> Result<Reconstruction, TypeError> {
    reconstruct_expecting(sig, t, vtype, None)
}

/// Type reconstruction with, optionally, the pair {TermType, `expected`}
/// added to BIGSACK (used for the right side of a rewrite rule, whose
/// type must be the left side's).
pub fn reconstruct_expecting(
    sig: &Signature,
    t: &Term,
    vtype: &VType,
    expected: Option<&Type>,
) -> Result<Reconstruction, TypeError> {
    // RECOVARS = TypeVar(vtype(TermVar(t))).
    let mut recovars = BTreeSet::new();
    for x in t.term_vars() {
        if let Some(ty) = vtype.get(&x) {
            ty.collect_vars(&mut recovars);
        }
    }
    let mut used = BTreeSet::new();
    for ty in vtype.values() {
        ty.collect_vars(&mut used);
    }
    if let Some(e) = expected {
        e.collect_vars(&mut used);
        e.collect_vars(&mut recovars);
    }
    used.extend(recovars.iter().cloned());
    let mut fresh = Fresh { used, next: 0 };

    // The ψ-tree, breadth first, with Step One's renaming.
    let mut nodes: Vec<Node> = Vec::new();
    let mut queue = VecDeque::from([(Vec::new(), t)]);
    while let Some((path, term)) = queue.pop_front() {
        let ty = match &term.head {
            Head::Sym(f) => {
                let Some((ty, _)) = sig.get(f) else {
                    return Err(TypeError::UnknownSymbol {
                        path,
                        name: f.to_string(),
                    });
                };
                let mut vars = Vec::new();
                vars_in_order(ty, &mut vars);
                let mut renaming = Subst::new();
                for v in vars {
                    renaming.bind(v, Type::Var(fresh.name()));
                }
                renaming.apply(ty)
            }
            Head::Var(x) => match vtype.get(&**x) {
                Some(ty) => ty.clone(),
                None => {
                    return Err(TypeError::UntypedVariable {
                        path,
                        name: x.to_string(),
                    });
                }
            },
        };
        if !term.args.is_empty() && ty.tyarity() != term.args.len() {
            return Err(TypeError::Arity {
                path,
                name: term.head.name().to_string(),
                expected: ty.tyarity(),
                found: term.args.len(),
            });
        }
        let first_child = nodes.len() + queue.len() + 1;
        for (i, a) in term.args.iter().enumerate() {
            let mut p = path.clone();
            p.push(i);
            queue.push_back((p, a));
        }
        let children = (first_child..first_child + term.args.len()).collect();
        nodes.push(Node { term, ty, children });
    }

    // Step Two: BIGSACK over the nodes with children.
    let node_type = |n: &Node| -> Type {
        if n.term.args.is_empty() {
            n.ty.clone()
        } else {
            n.ty.collapse().clone()
        }
    };
    let mut bigsack = Vec::new();
    for n in &nodes {
        if let Type::Fun(alphas, _) = &n.ty
            && !n.children.is_empty()
        {
            for (alpha, &c) in alphas.iter().zip(&n.children) {
                bigsack.push((alpha.clone(), node_type(&nodes[c])));
            }
        }
    }
    if let (Some(e), Some(root)) = (expected, nodes.first()) {
        bigsack.push((node_type(root), e.clone()));
    }
    let sigma = mgu2_keeping(&bigsack, &recovars).map_err(TypeError::Unify)?;

    // Step Three.
    let rho = sigma.restrict(&recovars);
    let typed: Vec<Type> = nodes.iter().map(|n| sigma.apply(&node_type(n))).collect();
    let typing = build_typing(&nodes, &typed, 0);
    Ok(Reconstruction {
        bigsack,
        sigma,
        rho,
        typing,
    })
}

fn build_typing(nodes: &[Node], typed: &[Type], i: usize) -> Typing {
    Typing {
        ty: typed[i].clone(),
        children: nodes[i]
            .children
            .iter()
            .map(|&c| build_typing(nodes, typed, c))
            .collect(),
    }
}

/// Whether a typing is coherent for `(t, vtype)` (2.3.2): checks each
/// condition (i)-(iv) by matching the inherent types.
pub fn is_coherent(sig: &Signature, t: &Term, vtype: &VType, typing: &Typing) -> bool {
    if t.args.len() != typing.children.len() {
        return false;
    }
    let inherent = match &t.head {
        Head::Var(x) => match vtype.get(&**x) {
            Some(ty) => ty.clone(),
            None => return false,
        },
        Head::Sym(f) => match sig.get(f) {
            Some((ty, _)) => ty.clone(),
            None => return false,
        },
    };
    // The demanded shape: the whole type for a leaf, else args -> result.
    let actual = if t.args.is_empty() {
        typing.ty.clone()
    } else {
        Type::fun(
            typing.children.iter().map(|c| c.ty.clone()).collect(),
            typing.ty.clone(),
        )
    };
    let ok = match &t.head {
        Head::Var(_) => inherent == actual,
        // Some σ with σ̄(type(h)) equal to the demanded shape.
        Head::Sym(_) => instance_of(&inherent, &actual, &mut Subst::new()),
    };
    ok && t
        .args
        .iter()
        .zip(&typing.children)
        .all(|(a, c)| is_coherent(sig, a, vtype, c))
}

/// Whether `target` is `σ̄(pattern)` for some `σ` (extending `sigma`).
fn instance_of(pattern: &Type, target: &Type, sigma: &mut Subst) -> bool {
    match (pattern, target) {
        (Type::Var(x), _) => match sigma.get(x) {
            Some(bound) => bound == target,
            None => {
                sigma.bind(x.clone(), target.clone());
                true
            }
        },
        (Type::Sym(f, ps), Type::Sym(g, ts)) => {
            f == g
                && ps.len() == ts.len()
                && ps.iter().zip(ts).all(|(p, t)| instance_of(p, t, sigma))
        }
        (Type::Fun(ps, pr), Type::Fun(ts, tr)) => {
            ps.len() == ts.len()
                && ps.iter().zip(ts).all(|(p, t)| instance_of(p, t, sigma))
                && instance_of(pr, tr, sigma)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::SymKind;

    fn v(x: &str) -> Type {
        Type::var(x)
    }
    fn list(t: Type) -> Type {
        Type::sym("list", vec![t])
    }
    fn int() -> Type {
        Type::sym("int", vec![])
    }
    fn bool_() -> Type {
        Type::sym("bool", vec![])
    }

    /// The symbols of the examples of 2.3.3.
    fn sig() -> Signature {
        let mut s = Signature::new();
        s.add("7", int(), SymKind::Constructor);
        s.add("True", bool_(), SymKind::Constructor);
        s.add(
            "Pair",
            Type::fun(
                vec![v("a"), v("b")],
                Type::sym("pair", vec![v("a"), v("b")]),
            ),
            SymKind::Constructor,
        );
        s.add(
            "Cons",
            Type::fun(vec![v("a"), list(v("a"))], list(v("a"))),
            SymKind::Constructor,
        );
        s.add("Nil", list(v("a")), SymKind::Constructor);
        s
    }

    fn vtype() -> VType {
        [("x".to_string(), v("a")), ("y".to_string(), v("b"))].into()
    }

    fn c(h: &str, args: Vec<Term>) -> Term {
        Term::sym(h, args)
    }
    fn x(n: &str) -> Term {
        Term::var(n, vec![])
    }

    #[test]
    fn first_example_of_2_3_3() {
        // Pair(Cons(x, Nil), Cons(y, Nil))
        let t = c(
            "Pair",
            vec![
                c("Cons", vec![x("x"), c("Nil", vec![])]),
                c("Cons", vec![x("y"), c("Nil", vec![])]),
            ],
        );
        let r = reconstruct(&sig(), &t, &vtype()).expect("typed");
        let sack: Vec<String> = r
            .bigsack
            .iter()
            .map(|(a, b)| format!("{{{a}, {b}}}"))
            .collect();
        assert_eq!(
            sack.join(", "),
            "{c, list(e)}, {d, list(f)}, {e, a}, {list(e), list(g)}, {f, b}, {list(f), list(h)}"
        );
        assert_eq!(
            r.sigma.to_string(),
            "{c <- list(a), d <- list(b), e <- a, f <- b, g <- a, h <- b}"
        );
        // ρ is the identity on RECOVARS = {a, b}.
        assert!(r.rho.domain().is_empty(), "{}", r.rho);
        assert_eq!(
            r.term_type(),
            &Type::sym("pair", vec![list(v("a")), list(v("b"))])
        );
        // The collapsed typing: children and leaves.
        assert_eq!(r.typing.children[0].ty, list(v("a")));
        assert_eq!(r.typing.children[1].children[1].ty, list(v("b")));
        assert!(is_coherent(
            &sig(),
            &t,
            &r.reconstructed(&vtype()),
            &r.typing
        ));
    }

    #[test]
    fn second_example_of_2_3_3_fails_on_int_against_bool() {
        // Pair(Cons(x, Cons(7, Nil)), Cons(x, Cons(True, Nil)))
        let t = c(
            "Pair",
            vec![
                c(
                    "Cons",
                    vec![x("x"), c("Cons", vec![c("7", vec![]), c("Nil", vec![])])],
                ),
                c(
                    "Cons",
                    vec![x("x"), c("Cons", vec![c("True", vec![]), c("Nil", vec![])])],
                ),
            ],
        );
        let e = reconstruct(&sig(), &t, &vtype()).expect_err("int against bool");
        match e {
            TypeError::Unify(UnifyError::Clash { left, right }) => {
                let mut pair = [left, right];
                pair.sort();
                assert_eq!(pair, [bool_(), int()]);
            }
            other => panic!("expected a clash, got {other}"),
        }
    }

    #[test]
    fn reconstruction_instantiates_variables() {
        // Cons(x, Cons(7, Nil)): x must be an int.
        let t = c(
            "Cons",
            vec![x("x"), c("Cons", vec![c("7", vec![]), c("Nil", vec![])])],
        );
        let r = reconstruct(&sig(), &t, &vtype()).expect("typed");
        assert_eq!(r.rho.get("a"), Some(&int()));
        assert_eq!(r.term_type(), &list(int()));
        assert!(is_coherent(
            &sig(),
            &t,
            &r.reconstructed(&vtype()),
            &r.typing
        ));
        // A variable applied to children: f: a -> b applied to 7.
        let vt: VType = [("f".to_string(), Type::fun(vec![v("a")], v("b")))].into();
        let t = Term::var("f", vec![c("7", vec![])]);
        let r = reconstruct(&sig(), &t, &vt).expect("typed");
        assert_eq!(r.rho.get("a"), Some(&int()));
        assert_eq!(r.term_type(), &v("b"));
    }

    #[test]
    fn malformed_terms_are_located() {
        let t = c("Cons", vec![x("x"), c("Nope", vec![])]);
        assert_eq!(
            reconstruct(&sig(), &t, &vtype()),
            Err(TypeError::UnknownSymbol {
                path: vec![1],
                name: "Nope".into()
            })
        );
        let t = c("Cons", vec![x("x")]);
        assert!(matches!(
            reconstruct(&sig(), &t, &vtype()),
            Err(TypeError::Arity {
                expected: 2,
                found: 1,
                ..
            })
        ));
        let t = c("Cons", vec![x("z"), c("Nil", vec![])]);
        assert!(matches!(
            reconstruct(&sig(), &t, &vtype()),
            Err(TypeError::UntypedVariable { .. })
        ));
        // Occurs check: Cons(x, x) with x: a.
        let t = c("Cons", vec![x("x"), x("x")]);
        assert!(matches!(
            reconstruct(&sig(), &t, &vtype()),
            Err(TypeError::Unify(UnifyError::Occurs { .. }))
        ));
    }
}
