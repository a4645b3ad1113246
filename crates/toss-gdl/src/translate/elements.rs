//! The elements of the Toss structure (spec 5.2.1): frame clauses, fluent
//! paths, elements as classes of state terms, coordinate paths, and the
//! relations that never change (root and coordinate predicates).
//!
//! A *root* is a function symbol with its arity, the outermost symbol of
//! state terms. Every root gets at most one fluent path; a root that no
//! non-frame `next` clause produces gets none, and then each of its state
//! terms is an element of its own whose presence is a fluent predicate (the
//! spec leaves such terms unrepresented, which loses their removal).

use std::collections::{BTreeMap, HashMap};

use crate::{Description, Literal, Sym, Term};

use super::Refusal;
use super::names::Namer;

/// A path in a term (spec 5.1.1): pairs of a function symbol and an
/// argument position (0-based here, 1-based when printed).
pub(super) type Path = Vec<(Sym, u32)>;

/// The subterm of `t` at `p`, if `t` has the path.
pub(super) fn at<'t>(t: &'t Term, p: &[(Sym, u32)]) -> Option<&'t Term> {
    let mut t = t;
    for &(f, i) in p {
        match t {
            Term::Fn(g, a) if *g == f && (i as usize) < a.len() => t = &a[i as usize],
            _ => return None,
        }
    }
    Some(t)
}

/// The paths to the leaves (constants and variables) of `t`, left to right.
pub(super) fn leaf_paths(t: &Term) -> Vec<Path> {
    fn go(t: &Term, prefix: &mut Path, out: &mut Vec<Path>) {
        match t {
            Term::Fn(f, a) => {
                for (i, x) in a.iter().enumerate() {
                    prefix.push((*f, i as u32));
                    go(x, prefix, out);
                    prefix.pop();
                }
            }
            _ => out.push(prefix.clone()),
        }
    }
    let mut out = Vec::new();
    go(t, &mut Vec::new(), &mut out);
    out
}

/// `t` with the subterm at `p` replaced by `with`.
pub(super) fn place(t: &Term, p: &[(Sym, u32)], with: &Term) -> Term {
    match (t, p.split_first()) {
        (_, None) => with.clone(),
        (Term::Fn(f, a), Some((&(_, i), rest))) => Term::Fn(
            *f,
            a.iter()
                .enumerate()
                .map(|(k, x)| {
                    if k == i as usize {
                        place(x, rest, with)
                    } else {
                        x.clone()
                    }
                })
                .collect(),
        ),
        (t, _) => t.clone(),
    }
}

/// The outermost symbol and arity of a term.
pub(super) fn root(t: &Term) -> Option<(Sym, usize)> {
    match t {
        Term::Var(_) => None,
        Term::Const(c) => Some((*c, 0)),
        Term::Fn(f, a) => Some((*f, a.len())),
    }
}

/// The symbol that stands for the masked fluent path in an element's key;
/// no description has this many symbols.
pub(super) const HOLE: Sym = Sym::MAX;

/// How the state terms of one root are represented.
#[derive(Clone, Debug)]
pub(super) struct RootInfo {
    pub sym: Sym,
    pub arity: usize,
    /// The fluent path, or `None` when each term is its own element and
    /// its presence is the fluent.
    pub fluent: Option<Path>,
    /// Its root predicate (`Root_m` of the spec).
    pub root_pred: String,
    /// With no fluent path: the presence predicate.
    pub presence: Option<String>,
    /// The values at the fluent path, with their fluent predicates.
    pub values: BTreeMap<TermKey, (Term, String)>,
}

/// A term as an ordered map key (its printed form is not unique across
/// symbol tables, the structure is).
pub(super) type TermKey = Term;

/// One element: a class of state terms (spec Definition 16).
#[derive(Clone, Debug)]
pub(super) struct Element {
    pub name: String,
    pub root: usize,
    /// A state term of the class with `HOLE` at the fluent path.
    pub key: Term,
    /// The coordinate paths of the element and the subterms there.
    pub coords: Vec<(Path, Term)>,
}

/// The elements and the unchanging predicates of the structure.
pub(super) struct Elements {
    pub roots: Vec<RootInfo>,
    pub root_of: HashMap<(Sym, usize), usize>,
    pub elements: Vec<Element>,
    pub element_of: HashMap<Term, usize>,
    /// Coordinate predicates: (path, value) -> name; the elements having
    /// the value at the path.
    pub coord: BTreeMap<(Path, Term), (String, Vec<usize>)>,
    /// The `next` clauses found to be frame clauses (indexes into rules).
    pub frame: Vec<usize>,
}

impl Elements {
    /// The element and fluent predicate of a ground state term.
    pub fn locate(&self, t: &Term) -> Option<(usize, &str)> {
        let (sym, arity) = root(t)?;
        let r = *self.root_of.get(&(sym, arity))?;
        let info = &self.roots[r];
        match &info.fluent {
            None => Some((*self.element_of.get(t)?, info.presence.as_deref()?)),
            Some(p) => {
                let v = at(t, p)?;
                let (_, pred) = info.values.get(v)?;
                let key = place(t, p, &Term::Const(HOLE));
                Some((*self.element_of.get(&key)?, pred))
            }
        }
    }

    /// The state term an element stands for when it has the fluent `pred`.
    pub fn term_of(&self, e: usize, pred: &str) -> Option<Term> {
        let el = &self.elements[e];
        let info = &self.roots[el.root];
        match &info.fluent {
            None => (info.presence.as_deref() == Some(pred)).then(|| el.key.clone()),
            Some(p) => info
                .values
                .values()
                .find(|(_, n)| n == pred)
                .map(|(v, _)| place(&el.key, p, v)),
        }
    }
}

/// Finds frame clauses, fluent paths and elements. `states` is the
/// aggregate playout's set of state terms (spec's S), in canonical order;
/// `next` and `true_` the keyword symbols.
/// More values than this make a one-argument root without frame clauses a
/// counter (see [`build`]).
const COUNTER_VALUES: usize = 4;

pub(super) fn build(
    desc: &Description,
    states: &[Term],
    next: Sym,
    true_: Sym,
    namer: &mut Namer,
) -> Result<Elements, Refusal> {
    let sym_name = |s: Sym| desc.symbols[s as usize].as_str();
    // Frame clauses: `(next s)` whose body has `(true s)`.
    let mut frame = Vec::new();
    let mut fluent_paths: BTreeMap<(Sym, usize), Vec<Path>> = BTreeMap::new();
    for (i, r) in desc.rules.iter().enumerate() {
        if r.head.rel != next || r.head.args.len() != 1 {
            continue;
        }
        let s = &r.head.args[0];
        let is_frame = r.body.iter().any(|l| {
            matches!(l, Literal::Pos(a) if a.rel == true_ && a.args.len() == 1 && &a.args[0] == s)
        });
        if is_frame {
            frame.push(i);
            continue;
        }
        let Some(rk) = root(s) else {
            return Err(Refusal::VariableStateTerm);
        };
        if rk.1 == 0 {
            continue;
        }
        // The leaf path with the fewest values in S; ties to one where the
        // clause has no variable, then to the first.
        let mut best: Option<(usize, bool, Path)> = None;
        for p in leaf_paths(s) {
            let mut values: Vec<&Term> = states.iter().filter_map(|t| at(t, &p)).collect();
            values.sort();
            values.dedup();
            if values.is_empty() {
                continue;
            }
            let var = matches!(at(s, &p), Some(Term::Var(_)));
            let better = match &best {
                None => true,
                Some((n, v, _)) => values.len() < *n || (values.len() == *n && *v && !var),
            };
            if better {
                best = Some((values.len(), var, p));
            }
        }
        if let Some((_, _, p)) = best {
            let e = fluent_paths.entry(rk).or_default();
            if !e.contains(&p) {
                e.push(p);
            }
        }
    }
    // A counter, `(step ?n)` that no frame clause copies and whose next
    // value the clauses compute from the current one: with a fluent path,
    // each of its many values would be an outcome of every move. Each
    // value is an element of its own instead (as a root without a fluent
    // path), so a move picks the new value's element by the state.
    let framed: Vec<(Sym, usize)> = frame
        .iter()
        .filter_map(|&i| root(&desc.rules[i].head.args[0]))
        .collect();
    fluent_paths.retain(|rk, paths| {
        let counter = rk.1 == 1
            && !framed.contains(rk)
            && paths.iter().all(|p| {
                let mut values: Vec<&Term> = states
                    .iter()
                    .filter(|t| root(t) == Some(*rk))
                    .filter_map(|t| at(t, p))
                    .collect();
                values.sort();
                values.dedup();
                values.len() > COUNTER_VALUES
            });
        !counter
    });
    let mut roots: Vec<RootInfo> = Vec::new();
    let mut root_of: HashMap<(Sym, usize), usize> = HashMap::new();
    let mut elements: Vec<Element> = Vec::new();
    let mut element_of: HashMap<Term, usize> = HashMap::new();
    let mut coord: BTreeMap<(Path, Term), (String, Vec<usize>)> = BTreeMap::new();
    for t in states {
        let Some(rk) = root(t) else { continue };
        let r = match root_of.get(&rk) {
            Some(&r) => r,
            None => {
                let paths = fluent_paths.get(&rk).cloned().unwrap_or_default();
                if paths.len() > 1 {
                    return Err(Refusal::SeveralFluentPaths {
                        root: sym_name(rk.0).to_string(),
                    });
                }
                let fluent = paths.into_iter().next();
                let rname = sym_name(rk.0);
                let info = RootInfo {
                    sym: rk.0,
                    arity: rk.1,
                    root_pred: namer
                        .name(&format!("root {rname}/{}", rk.1), &format!("Root_{rname}")),
                    presence: fluent
                        .is_none()
                        .then(|| namer.name(&format!("has {rname}/{}", rk.1), rname)),
                    fluent,
                    values: BTreeMap::new(),
                };
                roots.push(info);
                root_of.insert(rk, roots.len() - 1);
                roots.len() - 1
            }
        };
        let key = match roots[r].fluent.clone() {
            None => t.clone(),
            Some(p) => {
                let Some(v) = at(t, &p) else {
                    return Err(Refusal::TermWithoutFluentPath {
                        term: desc.term_to_string(t, &[]),
                    });
                };
                if !roots[r].values.contains_key(v) {
                    let rname = sym_name(rk.0);
                    let pname = path_name(desc, &p);
                    let vname = desc.term_to_string(v, &[]);
                    let pred = namer.name(
                        &format!("fluent {rname}/{} {pname} {vname}", rk.1),
                        &format!("{rname}{}_{vname}", path_digits(&p)),
                    );
                    roots[r].values.insert(v.clone(), (v.clone(), pred));
                }
                place(t, &p, &Term::Const(HOLE))
            }
        };
        if element_of.contains_key(&key) {
            continue;
        }
        let mut coords = Vec::new();
        let mut parts = vec![sym_name(rk.0).to_string()];
        for p in leaf_paths(&key) {
            let v = at(&key, &p).expect("a leaf path of the key").clone();
            // A constant state term has no coordinates (its one leaf path
            // is the empty one).
            if v == Term::Const(HOLE) || p.is_empty() {
                continue;
            }
            parts.push(desc.term_to_string(&v, &[]));
            coords.push((p, v));
        }
        let e = elements.len();
        let name = namer.name(
            &format!("element {}", key_string(desc, &key)),
            &parts.join("_"),
        );
        for (p, v) in &coords {
            let entry = coord.entry((p.clone(), v.clone())).or_insert_with(|| {
                let pname = path_name(desc, p);
                let vname = desc.term_to_string(v, &[]);
                let rname = sym_name(p[0].0);
                (
                    namer.name(
                        &format!("coordinate {pname} {vname}"),
                        &format!("{rname}{}_{vname}", path_digits(p)),
                    ),
                    Vec::new(),
                )
            });
            entry.1.push(e);
        }
        elements.push(Element {
            name,
            root: r,
            key: key.clone(),
            coords,
        });
        element_of.insert(key, e);
    }
    Ok(Elements {
        roots,
        root_of,
        elements,
        element_of,
        coord,
        frame,
    })
}

/// A path as the spec prints it: `(cell,3)`, `(at,1)(pos,2)`.
pub(super) fn path_name(desc: &Description, p: &[(Sym, u32)]) -> String {
    p.iter()
        .map(|&(f, i)| format!("({},{})", desc.symbols[f as usize], i + 1))
        .collect()
}

/// The positions of a path as digits for names: `(cell,3)` is `3`,
/// `(at,1)(pos,2)` is `1_2`.
fn path_digits(p: &[(Sym, u32)]) -> String {
    p.iter()
        .map(|&(_, i)| (i + 1).to_string())
        .collect::<Vec<_>>()
        .join("_")
}

fn key_string(desc: &Description, t: &Term) -> String {
    match t {
        Term::Const(HOLE) => "_".to_string(),
        Term::Const(c) => desc.symbols[*c as usize].clone(),
        Term::Var(v) => format!("?{v}"),
        Term::Fn(f, a) => {
            let mut s = format!("({}", desc.symbols[*f as usize]);
            for x in a {
                s.push(' ');
                s.push_str(&key_string(desc, x));
            }
            s.push(')');
            s
        }
    }
}
