//! Simplifications of a game that keep its meaning (spec 5.3), for games
//! written by a program rather than a person: the GDL translation states
//! every condition of a move in its precondition, where the matcher cannot
//! use it to choose candidates.

use std::collections::BTreeSet;

use super::walk::free_vars;
use super::{Formula, Rule, RuleTuple};
use crate::structure::{BitSet, Elem, RelId, Structure};

/// At most this many tuples of left elements are tried when a part of a
/// precondition is evaluated on the stable relations.
const FOLD_TUPLES: usize = 1 << 20;

/// Moves the positive atoms of `rule`'s precondition over left elements
/// into its left side, where matching starts from them (a piece's colour,
/// the board's adjacency) instead of testing every candidate tuple against
/// the precondition. Returns how many atoms moved.
///
/// Only top-level conjuncts `R(a, b)` move, `a`, `b` left elements and `R`
/// a relation of the signature (`defined` names the defined ones, which the
/// left side treats as constraints). The rewrite stays the same: an atom
/// of a relation outside `emb` only restricts the matches, since such
/// tuples survive the rewrite; an atom of an `emb` relation moves only onto
/// its own optional tuple (`_opt_R(a)` becomes `R(a)`), which the rewrite
/// removed when present anyway, and only when the right side does not
/// list that tuple as optional (which would copy its presence).
pub fn pre_atoms_to_left_side(rule: &mut Rule, defined: &dyn Fn(&str) -> bool) -> usize {
    let conjuncts = match std::mem::replace(&mut rule.pre, Formula::True) {
        Formula::And(cs) => cs,
        f => vec![f],
    };
    let mut kept = Vec::with_capacity(conjuncts.len());
    let mut moved = 0;
    for c in conjuncts {
        if let Formula::Rel { name, args } = &c
            && to_left_side(rule, name, args, defined)
        {
            moved += 1;
            continue;
        }
        kept.push(c);
    }
    rule.pre = match kept.len() {
        0 => Formula::True,
        1 => kept.pop().expect("one conjunct"),
        _ => Formula::And(kept),
    };
    moved
}

/// Makes `name(args)` a required tuple of the left side if that keeps the
/// rewrite (see [`pre_atoms_to_left_side`]); false when it stays in `pre`.
fn to_left_side(
    rule: &mut Rule,
    name: &str,
    args: &[String],
    defined: &dyn Fn(&str) -> bool,
) -> bool {
    if args.is_empty() || defined(name) || !args.iter().all(|a| rule.lhs.elements.contains(a)) {
        return false;
    }
    let same = |t: &RuleTuple| t.relation == name && t.args == args;
    if let Some(t) = rule.lhs.tuples.iter_mut().find(|t| same(t)) {
        if t.optional && rule.rhs.tuples.iter().any(|r| r.optional && same(r)) {
            return false;
        }
        t.optional = false;
        return true;
    }
    if rule.emb.iter().any(|e| e == name) {
        return false;
    }
    rule.lhs.tuples.push(RuleTuple {
        relation: name.to_string(),
        args: args.to_vec(),
        optional: false,
    });
    true
}

/// Evaluates the parts of `rule`'s precondition that read only stable
/// relations (those no rule changes, `stable`, with their tuples in
/// `start`) and equalities of left elements, over every tuple of elements
/// the left side can match (an over-approximation: the left side's stable
/// tuples and injectivity, not its fluent ones). A part that holds on all
/// of them becomes `true`, one that holds on none `false`; a left tuple
/// that the left side requires becomes `true` inside the precondition, and
/// its negation `false`. Returns false when the precondition is then
/// `false`: the rule never matches (an outcome of a GDL move that the
/// board's geometry excludes).
pub fn fold_stable_parts(
    rule: &mut Rule,
    start: &Structure,
    stable: &dyn Fn(&str) -> bool,
) -> bool {
    let folder = Folder::new(rule, start, stable);
    let pre = folder.fold(&rule.pre, &BTreeSet::new());
    let alive = pre != Formula::False;
    rule.pre = pre;
    alive
}

/// What folding a rule's precondition needs to know of the rule.
struct Folder<'a> {
    start: &'a Structure,
    stable: &'a dyn Fn(&str) -> bool,
    elements: &'a [String],
    /// Per left element, the elements it can be matched to.
    candidates: Vec<BitSet>,
    /// The left side's required tuples.
    required: Vec<&'a RuleTuple>,
    /// `shareable[i][j]`: left elements `i` and `j` may be matched to one
    /// element (`nondistinct`); all other pairs are matched injectively.
    shareable: Vec<Vec<bool>>,
}

/// A stable formula with its relations and left elements resolved, for
/// evaluation on many tuples.
enum Stable {
    Const(bool),
    /// A relation and the positions of its arguments among the left
    /// elements.
    Atom(RelId, Vec<usize>),
    Eq(usize, usize),
    Not(Box<Stable>),
    And(Vec<Stable>),
    Or(Vec<Stable>),
    Implies(Box<Stable>, Box<Stable>),
    Iff(Box<Stable>, Box<Stable>),
}

/// The value of a part of a precondition on every tuple the left side can
/// match.
#[derive(PartialEq)]
enum Value {
    Always(bool),
    Varies,
}

impl<'a> Folder<'a> {
    fn new(rule: &'a Rule, start: &'a Structure, stable: &'a dyn Fn(&str) -> bool) -> Self {
        let required: Vec<&RuleTuple> = rule.lhs.tuples.iter().filter(|t| !t.optional).collect();
        let candidates = rule
            .lhs
            .elements
            .iter()
            .map(|e| {
                let mut set = start.live().clone();
                for t in &required {
                    if t.args.len() == 1 && t.args[0] == *e && stable(&t.relation) {
                        let r = start.relation(&t.relation);
                        let outside: Vec<Elem> = set
                            .iter()
                            .filter(|&x| r.is_none_or(|r| !start.contains(r, &[x])))
                            .collect();
                        for x in outside {
                            set.remove(x);
                        }
                    }
                }
                set
            })
            .collect();
        let elements = &rule.lhs.elements;
        let shareable = elements
            .iter()
            .map(|a| {
                elements
                    .iter()
                    .map(|b| {
                        rule.nondistinct
                            .iter()
                            .any(|(x, y)| (x == a && y == b) || (x == b && y == a))
                    })
                    .collect()
            })
            .collect();
        Folder {
            start,
            stable,
            elements,
            candidates,
            required,
            shareable,
        }
    }

    /// The position of a left element.
    fn position(&self, a: &str) -> usize {
        self.elements
            .iter()
            .position(|e| e == a)
            .expect("a left element")
    }

    /// `f` (stable, see [`Folder::is_stable`]) resolved.
    fn resolve(&self, f: &Formula) -> Stable {
        let rel = |name: &str| self.start.relation(name).expect("a stable relation");
        let pair =
            |a: &Formula, b: &Formula| (Box::new(self.resolve(a)), Box::new(self.resolve(b)));
        match f {
            Formula::True => Stable::Const(true),
            Formula::False => Stable::Const(false),
            Formula::Rel { name, args } => {
                Stable::Atom(rel(name), args.iter().map(|a| self.position(a)).collect())
            }
            Formula::Eq(a, b) => Stable::Eq(self.position(a), self.position(b)),
            Formula::Not(g) => Stable::Not(Box::new(self.resolve(g))),
            Formula::And(cs) => Stable::And(cs.iter().map(|c| self.resolve(c)).collect()),
            Formula::Or(cs) => Stable::Or(cs.iter().map(|c| self.resolve(c)).collect()),
            Formula::Implies(a, b) => {
                let (a, b) = pair(a, b);
                Stable::Implies(a, b)
            }
            Formula::Iff(a, b) => {
                let (a, b) = pair(a, b);
                Stable::Iff(a, b)
            }
            _ => unreachable!("not a stable formula"),
        }
    }

    /// `f` folded; `bound` are the variables bound around it (a bound
    /// variable named like a left element shadows it).
    fn fold(&self, f: &Formula, bound: &BTreeSet<String>) -> Formula {
        match f {
            Formula::Rel { name, args } => {
                let free = args.iter().all(|a| !bound.contains(a));
                if free
                    && self
                        .required
                        .iter()
                        .any(|t| t.relation == *name && t.args == *args)
                {
                    return Formula::True;
                }
                self.fold_group(vec![f.clone()], true, bound)
            }
            Formula::Eq(..) => self.fold_group(vec![f.clone()], true, bound),
            Formula::Not(g) => match self.fold(g, bound) {
                Formula::True => Formula::False,
                Formula::False => Formula::True,
                g => Formula::Not(Box::new(g)),
            },
            Formula::And(cs) | Formula::Or(cs) => {
                let conj = matches!(f, Formula::And(_));
                let mut parts = Vec::new();
                for c in cs {
                    match self.fold(c, bound) {
                        Formula::True if conj => {}
                        Formula::False if !conj => {}
                        Formula::False => return Formula::False,
                        Formula::True => return Formula::True,
                        Formula::And(inner) if conj => parts.extend(inner),
                        Formula::Or(inner) if !conj => parts.extend(inner),
                        g => parts.push(g),
                    }
                }
                // The stable parts together: `distinct(a, b) and
                // distinct(a, a)` is false though neither part alone is.
                let (stable, rest): (Vec<_>, Vec<_>) =
                    parts.into_iter().partition(|g| self.is_stable(g, bound));
                let mut kept = Vec::new();
                match self.fold_group(stable, conj, bound) {
                    Formula::True if conj => {}
                    Formula::False if !conj => {}
                    Formula::False => return Formula::False,
                    Formula::True => return Formula::True,
                    Formula::And(inner) if conj => kept = inner,
                    Formula::Or(inner) if !conj => kept = inner,
                    g => kept.push(g),
                }
                kept.extend(rest);
                let mut rest = kept;
                match rest.len() {
                    0 => {
                        if conj {
                            Formula::True
                        } else {
                            Formula::False
                        }
                    }
                    1 => rest.pop().expect("one part"),
                    _ if conj => Formula::And(rest),
                    _ => Formula::Or(rest),
                }
            }
            Formula::Exists { vars, body } | Formula::Forall { vars, body } => {
                let mut inner = bound.clone();
                inner.extend(vars.iter().map(|v| v.name().to_string()));
                let body = Box::new(self.fold(body, &inner));
                match f {
                    Formula::Exists { .. } => Formula::Exists {
                        vars: vars.clone(),
                        body,
                    },
                    _ => Formula::Forall {
                        vars: vars.clone(),
                        body,
                    },
                }
            }
            _ => f.clone(),
        }
    }

    /// `parts` joined by `and` (`conj`) or `or`, folded to a constant when
    /// they are stable and their value is the same on every matchable
    /// tuple; otherwise as they are.
    fn fold_group(&self, parts: Vec<Formula>, conj: bool, bound: &BTreeSet<String>) -> Formula {
        let joined = match parts.len() {
            0 => return if conj { Formula::True } else { Formula::False },
            1 => parts.into_iter().next().expect("one part"),
            _ if conj => Formula::And(parts),
            _ => Formula::Or(parts),
        };
        if !self.is_stable(&joined, bound) {
            return joined;
        }
        match self.value(&joined) {
            Value::Always(v) => {
                if v {
                    Formula::True
                } else {
                    Formula::False
                }
            }
            Value::Varies => joined,
        }
    }

    /// `f` reads only stable relations and equalities of left elements,
    /// with no quantifier.
    fn is_stable(&self, f: &Formula, bound: &BTreeSet<String>) -> bool {
        let left = |a: &String| !bound.contains(a) && self.elements.contains(a);
        match f {
            Formula::True | Formula::False => true,
            Formula::Rel { name, args } => {
                !args.is_empty()
                    && (self.stable)(name)
                    && self.start.relation(name).is_some()
                    && args.iter().all(left)
            }
            Formula::Eq(a, b) => left(a) && left(b),
            Formula::Not(g) => self.is_stable(g, bound),
            Formula::And(cs) | Formula::Or(cs) => cs.iter().all(|c| self.is_stable(c, bound)),
            Formula::Implies(a, b) | Formula::Iff(a, b) => {
                self.is_stable(a, bound) && self.is_stable(b, bound)
            }
            _ => false,
        }
    }

    /// The value of a stable `f` on the tuples of left elements the left
    /// side can match (a tuple of no element when `f` has no variable).
    fn value(&self, f: &Formula) -> Value {
        let vars: Vec<usize> = free_vars(f)
            .iter()
            .filter_map(|v| self.elements.iter().position(|e| e == v))
            .collect();
        let size: usize = vars
            .iter()
            .map(|&i| self.candidates[i].len().max(1))
            .try_fold(1usize, |acc, n| acc.checked_mul(n))
            .unwrap_or(usize::MAX);
        if size > FOLD_TUPLES {
            return Value::Varies;
        }
        // The left side's stable tuples over these variables prune the
        // tuples tried (a relation the start lacks holds nowhere).
        let filters: Vec<(Option<RelId>, Vec<usize>)> = self
            .required
            .iter()
            .filter(|t| {
                (self.stable)(&t.relation)
                    && t.args
                        .iter()
                        .all(|a| vars.iter().any(|&i| self.elements[i] == *a))
            })
            .map(|t| {
                let args = t.args.iter().map(|a| self.position(a)).collect();
                (self.start.relation(&t.relation), args)
            })
            .collect();
        let f = self.resolve(f);
        let mut env: Vec<Option<Elem>> = vec![None; self.elements.len()];
        let mut seen = [false; 2];
        let lists: Vec<Vec<Elem>> = vars
            .iter()
            .map(|&i| self.candidates[i].iter().collect())
            .collect();
        self.enumerate(&f, &vars, &lists, &filters, 0, &mut env, &mut seen);
        match seen {
            [true, true] => Value::Varies,
            [false, true] => Value::Always(true),
            // No matchable tuple at all: the rule never matches.
            _ => Value::Always(false),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn enumerate(
        &self,
        f: &Stable,
        vars: &[usize],
        lists: &[Vec<Elem>],
        filters: &[(Option<RelId>, Vec<usize>)],
        depth: usize,
        env: &mut Vec<Option<Elem>>,
        seen: &mut [bool; 2],
    ) {
        if seen[0] && seen[1] {
            return;
        }
        if depth == vars.len() {
            seen[usize::from(self.eval(f, env))] = true;
            return;
        }
        let i = vars[depth];
        let mut tuple = Vec::new();
        for &x in &lists[depth] {
            let clash =
                (0..self.elements.len()).any(|j| env[j] == Some(x) && !self.shareable[i][j]);
            if clash {
                continue;
            }
            env[i] = Some(x);
            let fails = filters.iter().any(|(r, args)| {
                tuple.clear();
                for &a in args {
                    match env[a] {
                        Some(e) => tuple.push(e),
                        // Not all bound yet: checked deeper.
                        None => return false,
                    }
                }
                r.is_none_or(|r| !self.start.contains(r, &tuple))
            });
            if !fails {
                self.enumerate(f, vars, lists, filters, depth + 1, env, seen);
            }
            env[i] = None;
        }
    }

    /// `f` with its left elements as `env` gives them (all of them
    /// assigned).
    fn eval(&self, f: &Stable, env: &[Option<Elem>]) -> bool {
        let elem = |i: usize| env[i].expect("an assigned element");
        match f {
            Stable::Const(v) => *v,
            Stable::Atom(r, args) => {
                let t: smallvec::SmallVec<[Elem; 4]> = args.iter().map(|&a| elem(a)).collect();
                self.start.contains(*r, &t)
            }
            Stable::Eq(a, b) => elem(*a) == elem(*b),
            Stable::Not(g) => !self.eval(g, env),
            Stable::And(cs) => cs.iter().all(|c| self.eval(c, env)),
            Stable::Or(cs) => cs.iter().any(|c| self.eval(c, env)),
            Stable::Implies(a, b) => !self.eval(a, env) || self.eval(b, env),
            Stable::Iff(a, b) => self.eval(a, env) == self.eval(b, env),
        }
    }
}

/// Joins the stable binary tuples of a rule's left side over the same two
/// elements into one relation (spec 5.3, "joining co-occurring
/// relations"): `succ_y(a, b); Eq_x(a, b)` (one row up, same column)
/// becomes one tuple of a relation holding exactly the pairs in both, so
/// the matcher draws `b` from `a`'s single successor instead of from the
/// eight cells of the next row, each then tested. The joined relations are
/// added to `start` (stable, so to every state), named by their parts;
/// rules with the same parts share one. Returns how many were made.
pub fn join_stable_pairs(
    rules: &mut [Rule],
    start: &mut Structure,
    stable: &dyn Fn(&str) -> bool,
) -> usize {
    let mut made: BTreeSet<String> = BTreeSet::new();
    for rule in rules {
        loop {
            // The first pair of elements with two or more stable tuples.
            let binary: Vec<usize> = (0..rule.lhs.tuples.len())
                .filter(|&i| {
                    let t = &rule.lhs.tuples[i];
                    !t.optional
                        && t.args.len() == 2
                        && t.args[0] != t.args[1]
                        && stable(&t.relation)
                        && start.relation(&t.relation).is_some()
                })
                .collect();
            let pair_of = |i: usize| {
                let a = &rule.lhs.tuples[i].args;
                if a[0] < a[1] {
                    (a[0].clone(), a[1].clone())
                } else {
                    (a[1].clone(), a[0].clone())
                }
            };
            let Some(pair) = binary
                .iter()
                .map(|&i| pair_of(i))
                .find(|p| binary.iter().filter(|&&j| pair_of(j) == *p).count() > 1)
            else {
                break;
            };
            let group: Vec<usize> = binary.into_iter().filter(|&i| pair_of(i) == pair).collect();
            // Each part as read from `(x, y)`, the pair in name order.
            let mut parts: Vec<(String, bool)> = group
                .iter()
                .map(|&i| {
                    let t = &rule.lhs.tuples[i];
                    (t.relation.clone(), t.args[0] != pair.0)
                })
                .collect();
            parts.sort();
            parts.dedup();
            let mut name = parts
                .iter()
                .map(|(r, flipped)| {
                    if *flipped {
                        format!("{r}_rev")
                    } else {
                        r.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join("_and_");
            while start.relation(&name).is_some() && !made.contains(&name) {
                name.push('_');
            }
            if !made.contains(&name) {
                let ids: Vec<_> = parts
                    .iter()
                    .map(|(r, flipped)| (start.relation(r).expect("a stable relation"), *flipped))
                    .collect();
                let (first, first_flipped) = ids[0];
                let pairs: Vec<(Elem, Elem)> = start
                    .tuples(first)
                    .into_iter()
                    .map(|t| {
                        if first_flipped {
                            (t[1], t[0])
                        } else {
                            (t[0], t[1])
                        }
                    })
                    .filter(|&(x, y)| {
                        ids[1..].iter().all(|&(r, flipped)| {
                            let t = if flipped { [y, x] } else { [x, y] };
                            start.contains(r, &t)
                        })
                    })
                    .collect();
                let r = start
                    .declare_relation(&name, 2)
                    .expect("a name no relation of another arity has");
                for (x, y) in pairs {
                    start.add_tuple(r, &[x, y]);
                }
                made.insert(name.clone());
            }
            let mut k = 0;
            rule.lhs.tuples.retain(|_| {
                k += 1;
                !group.contains(&(k - 1))
            });
            rule.lhs.tuples.push(RuleTuple {
                relation: name,
                args: vec![pair.0, pair.1],
                optional: false,
            });
        }
    }
    made.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::RuleSide;

    fn atom(r: &str, args: &[&str]) -> Formula {
        Formula::Rel {
            name: r.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn tuple(r: &str, args: &[&str], optional: bool) -> RuleTuple {
        RuleTuple {
            relation: r.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            optional,
        }
    }

    fn rule(lhs: Vec<RuleTuple>, rhs: Vec<RuleTuple>, pre: Formula) -> Rule {
        let side = |tuples| RuleSide {
            elements: vec!["a".into(), "b".into()],
            tuples,
            functions: Vec::new(),
        };
        Rule {
            name: "r".into(),
            lhs: side(lhs),
            rhs: side(rhs),
            emb: vec!["W".into(), "B".into()],
            map: Vec::new(),
            nondistinct: Vec::new(),
            pre,
            inv: Formula::True,
            post: Formula::True,
            update: Vec::new(),
            dynamics: Vec::new(),
        }
    }

    #[test]
    fn atoms_move_where_the_rewrite_stays_the_same() {
        let pre = Formula::And(vec![
            atom("W", &["a"]),                         // onto _opt_W(a)
            atom("B", &["b"]),                         // emb, not on the left: stays
            atom("C", &["a", "b"]),                    // static: added
            atom("Empty", &["b"]),                     // defined: stays
            atom("C", &["a", "x"]),                    // x is no left element: stays
            Formula::Not(Box::new(atom("W", &["b"]))), // negated: stays
            atom("W", &["b"]),                         // its optional tuple is copied: stays
        ]);
        let mut r = rule(
            vec![tuple("W", &["a"], true), tuple("W", &["b"], true)],
            vec![tuple("W", &["b"], true)],
            pre,
        );
        let moved = pre_atoms_to_left_side(&mut r, &|n| n == "Empty");
        assert_eq!(moved, 2);
        assert_eq!(
            r.lhs.tuples,
            vec![
                tuple("W", &["a"], false),
                tuple("W", &["b"], true),
                tuple("C", &["a", "b"], false)
            ]
        );
        assert_eq!(
            r.pre,
            Formula::And(vec![
                atom("B", &["b"]),
                atom("Empty", &["b"]),
                atom("C", &["a", "x"]),
                Formula::Not(Box::new(atom("W", &["b"]))),
                atom("W", &["b"]),
            ])
        );
    }

    #[test]
    fn a_precondition_of_one_atom_becomes_true() {
        let mut r = rule(Vec::new(), Vec::new(), atom("C", &["b", "a"]));
        assert_eq!(pre_atoms_to_left_side(&mut r, &|_| false), 1);
        assert_eq!(r.pre, Formula::True);
        assert_eq!(r.lhs.tuples, vec![tuple("C", &["b", "a"], false)]);
    }

    /// Four cells in a row, `Next` from each to the one right of it, `Far`
    /// between cells two apart either way, and `W` (fluent) on the first.
    fn row() -> Structure {
        let mut s = Structure::new();
        let c: Vec<Elem> = (1..=4).map(|i| s.add_element(&format!("c{i}"))).collect();
        let next = s.declare_relation("Next", 2).expect("fresh");
        let far = s.declare_relation("Far", 2).expect("fresh");
        let w = s.declare_relation("W", 1).expect("fresh");
        for i in 0..3 {
            s.add_tuple(next, &[c[i], c[i + 1]]);
        }
        for i in 0..2 {
            s.add_tuple(far, &[c[i], c[i + 2]]);
            s.add_tuple(far, &[c[i + 2], c[i]]);
        }
        s.add_tuple(w, &[c[0]]);
        s
    }

    fn stable(n: &str) -> bool {
        n == "Next" || n == "Far"
    }

    #[test]
    fn stable_parts_fold_over_the_matchable_pairs() {
        // Where Next(a, b) holds, Next(b, a) never does and a, b differ,
        // so `not (Next(b, a) and B(b))` is true and `a = b or W(b)` is W(b).
        let pre = Formula::And(vec![
            atom("W", &["a"]),
            Formula::Not(Box::new(Formula::And(vec![
                atom("Next", &["b", "a"]),
                atom("B", &["b"]),
            ]))),
            Formula::Or(vec![Formula::Eq("a".into(), "b".into()), atom("W", &["b"])]),
            // Varies with c, which the left side leaves free: stays.
            Formula::Not(Box::new(atom("Far", &["a", "c"]))),
        ]);
        let mut r = rule(
            vec![tuple("W", &["a"], false), tuple("Next", &["a", "b"], false)],
            Vec::new(),
            pre,
        );
        r.lhs.elements.push("c".into());
        assert!(fold_stable_parts(&mut r, &row(), &stable));
        assert_eq!(
            r.pre,
            Formula::And(vec![
                Formula::Not(Box::new(atom("Far", &["a", "c"]))),
                atom("W", &["b"]),
            ])
        );
        // The required W(a) decides `not W(a)` too: the rule never matches.
        r.pre = Formula::Or(vec![
            Formula::Not(Box::new(atom("W", &["a"]))),
            atom("Next", &["b", "a"]),
        ]);
        assert!(!fold_stable_parts(&mut r, &row(), &stable));
        assert_eq!(r.pre, Formula::False);
    }

    #[test]
    fn a_bound_variable_is_not_the_left_element_of_its_name() {
        let body = Formula::And(vec![atom("Next", &["b", "a"]), atom("W", &["a"])]);
        let pre = Formula::Exists {
            vars: vec![crate::ir::Var::Element("b".into())],
            body: Box::new(body.clone()),
        };
        let mut r = rule(
            vec![tuple("W", &["a"], false), tuple("Next", &["a", "b"], false)],
            Vec::new(),
            pre.clone(),
        );
        assert!(fold_stable_parts(&mut r, &row(), &stable));
        // W(a) is the left element's (true); Next(b, a) reads the bound b.
        assert_eq!(
            r.pre,
            Formula::Exists {
                vars: vec![crate::ir::Var::Element("b".into())],
                body: Box::new(atom("Next", &["b", "a"])),
            }
        );
    }

    #[test]
    fn stable_pairs_join_into_one_relation() {
        let mut s = row();
        let mut rules = vec![
            rule(
                vec![
                    tuple("Next", &["b", "a"], false),
                    tuple("Far", &["a", "b"], false),
                ],
                Vec::new(),
                Formula::True,
            ),
            rule(
                vec![tuple("Next", &["a", "b"], false), tuple("W", &["a"], false)],
                Vec::new(),
                Formula::True,
            ),
        ];
        assert_eq!(join_stable_pairs(&mut rules, &mut s, &stable), 1);
        // Read from (a, b): Far(a, b) and Next(b, a), i.e. b is left of a
        // and two apart: none.
        assert_eq!(
            rules[0].lhs.tuples,
            vec![tuple("Far_and_Next_rev", &["a", "b"], false)]
        );
        let r = s.relation("Far_and_Next_rev").expect("made");
        assert_eq!(s.relation_len(r), 0);
        // One pair, nothing to join.
        assert_eq!(rules[1].lhs.tuples.len(), 2);

        let mut rules = vec![rule(
            vec![
                tuple("Next", &["a", "b"], false),
                tuple("Far", &["b", "a"], true),
            ],
            Vec::new(),
            Formula::True,
        )];
        // An optional tuple is no condition: nothing joins.
        assert_eq!(join_stable_pairs(&mut rules, &mut s, &stable), 0);
    }
}

/// Spec 5.3, equal elements: in `ex v (... R1(u, v) and ... and Rk(u, v)
/// ...)`, where the stable relations `R1` .. `Rk` (in `start`) hold
/// together only of pairs of equal elements, `v` is `u`: the quantifier
/// goes and `v` becomes `u` (the atoms stay, as `Ri(u, u)`). A translated
/// GDL game says "the same cell" as equal coordinates at every coordinate
/// path (`Eq_cell1_cell1(u, v) and Eq_cell2_cell2(u, v)`); the solver then
/// searches `v` instead of reading it. Returns the formula and how many
/// variables went.
pub fn merge_equal_elements(
    f: &Formula,
    start: &Structure,
    stable: &dyn Fn(&str) -> bool,
) -> (Formula, usize) {
    let mut merged = 0;
    let mut memo = std::collections::HashMap::new();
    let out = merge_in(f, start, stable, &mut memo, &mut merged);
    (out, merged)
}

/// Whether the stable relations of `group` (each oriented `(u, v)` when its
/// flag is false, `(v, u)` when true) hold together only of equal elements
/// and of some pair.
fn only_equal(
    group: &[(String, bool)],
    start: &Structure,
    memo: &mut std::collections::HashMap<Vec<(String, bool)>, bool>,
) -> bool {
    let mut key = group.to_vec();
    key.sort();
    key.dedup();
    if let Some(&b) = memo.get(&key) {
        return b;
    }
    let ids: Option<Vec<(RelId, bool)>> = key
        .iter()
        .map(|(n, flip)| start.relation(n).map(|r| (r, *flip)))
        .collect();
    let b = ids.is_some_and(|ids| {
        let (first, flip) = ids[0];
        let mut some = false;
        for t in start.tuples(first) {
            let (u, v) = if flip { (t[1], t[0]) } else { (t[0], t[1]) };
            let all = ids[1..].iter().all(|&(r, fl)| {
                let t = if fl { [v, u] } else { [u, v] };
                start.contains(r, &t)
            });
            if all {
                if u != v {
                    return false;
                }
                some = true;
            }
        }
        some
    });
    memo.insert(key, b);
    b
}

/// Whether every member of the unary relation `unary` is in the diagonal
/// of every relation of `group` (in `start`).
fn in_diagonals(unary: &str, group: &[(String, bool)], start: &Structure) -> bool {
    let Some(u) = start.relation(unary) else {
        return false;
    };
    let Some(ids) = group
        .iter()
        .map(|(n, _)| start.relation(n))
        .collect::<Option<Vec<RelId>>>()
    else {
        return false;
    };
    start
        .tuples(u)
        .iter()
        .all(|t| ids.iter().all(|&r| start.contains(r, &[t[0], t[0]])))
}

fn merge_in(
    f: &Formula,
    start: &Structure,
    stable: &dyn Fn(&str) -> bool,
    memo: &mut std::collections::HashMap<Vec<(String, bool)>, bool>,
    merged: &mut usize,
) -> Formula {
    let mut go = |g: &Formula| merge_in(g, start, stable, memo, merged);
    match f {
        Formula::Not(g) => Formula::Not(Box::new(go(g))),
        Formula::And(v) => Formula::And(v.iter().map(&mut go).collect()),
        Formula::Or(v) => Formula::Or(v.iter().map(&mut go).collect()),
        Formula::Implies(a, b) => Formula::Implies(Box::new(go(a)), Box::new(go(b))),
        Formula::Iff(a, b) => Formula::Iff(Box::new(go(a)), Box::new(go(b))),
        Formula::Forall { vars, body } => Formula::Forall {
            vars: vars.clone(),
            body: Box::new(go(body)),
        },
        Formula::Fixpoint {
            kind,
            relation,
            params,
            body,
        } => Formula::Fixpoint {
            kind: *kind,
            relation: relation.clone(),
            params: params.clone(),
            body: Box::new(go(body)),
        },
        Formula::Exists { vars, body } => {
            let mut body = go(body);
            let mut vars = vars.clone();
            'again: loop {
                let conjuncts: &[Formula] = match &body {
                    Formula::And(v) => v,
                    g => std::slice::from_ref(g),
                };
                for var in &vars {
                    let super::Var::Element(v) = var else {
                        continue;
                    };
                    // The stable binary atoms between `v` and each other
                    // variable, oriented from the other variable.
                    let mut groups: Vec<(String, Vec<(String, bool)>)> = Vec::new();
                    for c in conjuncts {
                        let Formula::Rel { name, args } = c else {
                            continue;
                        };
                        if args.len() != 2 || !stable(name) || args[0] == args[1] {
                            continue;
                        }
                        let (u, flip) = if &args[1] == v {
                            (&args[0], false)
                        } else if &args[0] == v {
                            (&args[1], true)
                        } else {
                            continue;
                        };
                        match groups.iter_mut().find(|(x, _)| x == u) {
                            Some((_, g)) => g.push((name.clone(), flip)),
                            None => groups.push((u.clone(), vec![(name.clone(), flip)])),
                        }
                    }
                    for (u, group) in groups {
                        if !only_equal(&group, start, memo) {
                            continue;
                        }
                        // `Ri(u, u)` says `u` is in the diagonal of every
                        // `Ri`; when a stable unary atom on `v` implies
                        // it, the atoms go instead (and `u` stays free for
                        // the set-at-a-time evaluation, which reads no
                        // diagonals).
                        let implied = conjuncts.iter().any(|c| match c {
                            Formula::Rel { name, args }
                                if args.len() == 1 && &args[0] == v && stable(name) =>
                            {
                                in_diagonals(name, &group, start)
                            }
                            _ => false,
                        });
                        if implied {
                            let kept: Vec<Formula> = conjuncts
                                .iter()
                                .filter(|c| {
                                    !matches!(c, Formula::Rel { name, args }
                                        if args.len() == 2
                                            && ((&args[1] == v && args[0] == u)
                                                || (&args[0] == v && args[1] == u))
                                            && group.iter().any(|(g, _)| g == name))
                                })
                                .cloned()
                                .collect();
                            body = match kept.len() {
                                0 => Formula::True,
                                1 => kept.into_iter().next().expect("one"),
                                _ => Formula::And(kept),
                            };
                        }
                        let map = std::collections::BTreeMap::from([(v.clone(), u.clone())]);
                        let mut fresh = |n: &str| format!("{n}_");
                        let mut s = super::subst::Substitution {
                            bound: super::subst::BoundNames::KeepUnlessCaptured,
                            fresh: &mut fresh,
                        };
                        let gone = var.clone();
                        body = s.formula(&body, &map);
                        vars.retain(|x| *x != gone);
                        *merged += 1;
                        continue 'again;
                    }
                }
                break;
            }
            if vars.is_empty() {
                body
            } else {
                Formula::Exists {
                    vars,
                    body: Box::new(body),
                }
            }
        }
        g => g.clone(),
    }
}

#[cfg(test)]
mod equal_elements_tests {
    use super::*;

    /// Two cells with two coordinates each: equal coordinates at both paths
    /// means the same cell, at one path alone it does not.
    #[test]
    fn equal_at_every_coordinate_is_the_same_element() {
        let mut s = Structure::new();
        let cells: Vec<Elem> = ["c11", "c12", "c21", "c22"]
            .iter()
            .map(|n| s.add_element(n))
            .collect();
        let x = s.declare_relation("EqX", 2).expect("fresh");
        let y = s.declare_relation("EqY", 2).expect("fresh");
        for (i, a) in cells.iter().enumerate() {
            for (j, b) in cells.iter().enumerate() {
                if i / 2 == j / 2 {
                    s.add_tuple(x, &[*a, *b]);
                }
                if i % 2 == j % 2 {
                    s.add_tuple(y, &[*a, *b]);
                }
            }
        }
        let rel = |n: &str, a: &str, b: &str| Formula::Rel {
            name: n.into(),
            args: vec![a.into(), b.into()],
        };
        let both = Formula::Exists {
            vars: vec![super::super::Var::Element("v".into())],
            body: Box::new(Formula::And(vec![
                rel("EqX", "u", "v"),
                rel("EqY", "v", "u"),
                rel("P", "v", "w"),
            ])),
        };
        let stable = |n: &str| n != "P";
        let (out, n) = merge_equal_elements(&both, &s, &stable);
        assert_eq!(n, 1);
        assert_eq!(
            out,
            Formula::And(vec![
                rel("EqX", "u", "u"),
                rel("EqY", "u", "u"),
                rel("P", "u", "w"),
            ])
        );
        // With `Cell(v)`, whose members are in both diagonals, the atoms go.
        let r = s.declare_relation("Cell", 1).expect("fresh");
        for c in &cells {
            s.add_tuple(r, &[*c]);
        }
        let unary = |n: &str, a: &str| Formula::Rel {
            name: n.into(),
            args: vec![a.into()],
        };
        let with_root = Formula::Exists {
            vars: vec![super::super::Var::Element("v".into())],
            body: Box::new(Formula::And(vec![
                unary("Cell", "v"),
                rel("EqX", "u", "v"),
                rel("EqY", "v", "u"),
                rel("P", "v", "w"),
            ])),
        };
        let (out, n) = merge_equal_elements(&with_root, &s, &stable);
        assert_eq!(n, 1);
        assert_eq!(
            out,
            Formula::And(vec![unary("Cell", "u"), rel("P", "u", "w")])
        );
        let one = Formula::Exists {
            vars: vec![super::super::Var::Element("v".into())],
            body: Box::new(Formula::And(vec![rel("EqX", "u", "v"), rel("P", "v", "w")])),
        };
        let (out, n) = merge_equal_elements(&one, &s, &stable);
        assert_eq!(n, 0);
        assert_eq!(out, one);
    }
}
