//! The structures learning works on (spec 4.1): relational structures over
//! one common signature, with dense element numbers and the tuple indexes
//! the type computations need. Functions of a structure are not part of
//! what is learnt and are dropped.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use toss_core::structure::Structure;

/// A multiplicative hash of the words written (the keys here are short
/// vectors of small integers, which SipHash spent most of the time on).
#[derive(Default, Clone, Copy)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Hash maps keyed by tuples of element or type numbers.
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;
pub type FastSet<K> = HashSet<K, BuildHasherDefault<WordHasher>>;

/// A relation symbol of the common signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub arity: usize,
}

/// The relations of all examples, sorted by name: an example that lacks a
/// relation has it empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    pub symbols: Vec<Symbol>,
}

/// Why examples cannot share a signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureError {
    pub relation: String,
    pub arities: (usize, usize),
}

impl std::fmt::Display for SignatureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "relation `{}` has arity {} in one example and {} in another",
            self.relation, self.arities.0, self.arities.1
        )
    }
}

impl Signature {
    /// The union of the examples' relations.
    pub fn of(structures: &[&Structure]) -> Result<Signature, SignatureError> {
        let mut arities: BTreeMap<String, usize> = BTreeMap::new();
        for s in structures {
            for r in 0..s.num_relations() {
                let (name, arity) = (s.relation_name(r), s.arity(r));
                match arities.get(name) {
                    Some(&a) if a != arity => {
                        return Err(SignatureError {
                            relation: name.to_string(),
                            arities: (a, arity),
                        });
                    }
                    Some(_) => {}
                    None => {
                        arities.insert(name.to_string(), arity);
                    }
                }
            }
        }
        Ok(Signature {
            symbols: arities
                .into_iter()
                .map(|(name, arity)| Symbol { name, arity })
                .collect(),
        })
    }
}

/// One example structure: elements `0..len`, each relation a set of tuples
/// with, per position and element, the tuples that have it there.
#[derive(Clone, Debug)]
pub struct Scene {
    pub names: Vec<String>,
    relations: Vec<SceneRelation>,
}

#[derive(Clone, Debug, Default)]
struct SceneRelation {
    arity: usize,
    tuples: Vec<Vec<u32>>,
    /// Unary relations: membership per element.
    members: Vec<bool>,
    /// Binary relations: `a << 32 | b`.
    pairs: FastSet<u64>,
    /// Larger relations.
    set: FastSet<Vec<u32>>,
    /// `at[position][element]`: indices into `tuples`.
    at: Vec<Vec<Vec<u32>>>,
}

impl Scene {
    /// The live elements of `s`, in id order, and its relations placed at
    /// their index in `sig`.
    pub fn new(s: &Structure, sig: &Signature) -> Scene {
        let elems: Vec<_> = s.elements().collect();
        let dense: HashMap<u32, u32> = elems
            .iter()
            .enumerate()
            .map(|(i, &e)| (e, i as u32))
            .collect();
        let len = elems.len();
        let relations = sig
            .symbols
            .iter()
            .map(|sym| {
                let mut rel = SceneRelation {
                    arity: sym.arity,
                    at: vec![vec![Vec::new(); len]; sym.arity],
                    ..Default::default()
                };
                if let Some(r) = s.relation(&sym.name) {
                    for t in s.tuples(r) {
                        let t: Option<Vec<u32>> = t.iter().map(|e| dense.get(e).copied()).collect();
                        if let Some(t) = t {
                            rel.insert(t);
                        }
                    }
                }
                rel
            })
            .collect();
        Scene {
            names: elems
                .iter()
                .map(|&e| s.element_name(e).to_string())
                .collect(),
            relations,
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn holds(&self, rel: usize, t: &[u32]) -> bool {
        let r = &self.relations[rel];
        match t {
            [a] => r.members.get(*a as usize).copied().unwrap_or(false),
            [a, b] => r.pairs.contains(&((*a as u64) << 32 | *b as u64)),
            _ => r.set.contains(t),
        }
    }

    pub fn tuples(&self, rel: usize) -> &[Vec<u32>] {
        &self.relations[rel].tuples
    }

    /// The tuples of `rel` with `e` at `position`.
    pub fn tuples_at(&self, rel: usize, position: usize, e: u32) -> impl Iterator<Item = &[u32]> {
        let r = &self.relations[rel];
        r.at[position][e as usize]
            .iter()
            .map(move |&i| r.tuples[i as usize].as_slice())
    }

    /// A new scene of the same elements with one more unary relation (at
    /// signature index `rel`, which the caller appends to the signature)
    /// holding of `members`: the marks of spec 4.5.
    pub fn with_unary(&self, members: &[u32]) -> Scene {
        let mut s = self.clone();
        let mut rel = SceneRelation {
            arity: 1,
            at: vec![vec![Vec::new(); self.len()]],
            ..Default::default()
        };
        for &m in members {
            rel.insert(vec![m]);
        }
        s.relations.push(rel);
        s
    }

    /// The same structure as a [`Structure`] whose relations are declared in
    /// signature order, so that one solver evaluates all examples.
    pub fn to_structure(&self, sig: &Signature) -> Structure {
        let mut s = Structure::new();
        let elems: Vec<_> = self.names.iter().map(|n| s.add_element(n)).collect();
        for (i, sym) in sig.symbols.iter().enumerate() {
            let r = s
                .declare_relation(&sym.name, sym.arity)
                .expect("the signature has each name once");
            for t in &self.relations[i].tuples {
                let t: Vec<_> = t.iter().map(|&e| elems[e as usize]).collect();
                s.add_tuple(r, &t);
            }
        }
        s
    }
}

impl SceneRelation {
    fn insert(&mut self, t: Vec<u32>) {
        debug_assert_eq!(t.len(), self.arity);
        let new = match t[..] {
            [a] => {
                let a = a as usize;
                if self.members.len() <= a {
                    self.members.resize(a + 1, false);
                }
                !std::mem::replace(&mut self.members[a], true)
            }
            [a, b] => self.pairs.insert((a as u64) << 32 | b as u64),
            _ => self.set.insert(t.clone()),
        };
        if new {
            let i = self.tuples.len() as u32;
            for (p, &e) in t.iter().enumerate() {
                self.at[p][e as usize].push(i);
            }
            self.tuples.push(t);
        }
    }
}
