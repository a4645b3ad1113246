//! Interned ground terms: each distinct ground term gets a dense `u32` id,
//! so equality of terms is equality of ids.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::Sym;

/// The id of an interned ground term.
pub type TermId = u32;

/// A fast non-cryptographic hasher for small integer keys (the "Fx" hash).
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(b as u64);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuild>;

/// Hash of a sequence of ids.
#[inline]
pub fn hash_ids(ids: impl IntoIterator<Item = u32>) -> u64 {
    let mut h = FxHasher::default();
    for i in ids {
        h.add(i as u64);
    }
    // Final mixing so that the low bits (used by the table) are spread.
    let x = h.hash;
    x ^ (x >> 29)
}

#[derive(Clone, Copy, Debug)]
struct Node {
    sym: Sym,
    start: u32,
    len: u32,
}

/// The interned ground terms of one game. Append-only.
#[derive(Clone, Debug, Default)]
pub struct TermStore {
    nodes: Vec<Node>,
    args: Vec<TermId>,
    /// Key: `[sym, args...]`.
    map: FxHashMap<Box<[u32]>, TermId>,
    key: Vec<u32>,
}

impl TermStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of interned terms.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The top symbol of a term.
    #[inline]
    pub fn sym(&self, t: TermId) -> Sym {
        self.nodes[t as usize].sym
    }

    /// The arguments of a term (empty for a constant).
    #[inline]
    pub fn args(&self, t: TermId) -> &[TermId] {
        let n = self.nodes[t as usize];
        &self.args[n.start as usize..(n.start + n.len) as usize]
    }

    /// The id of `sym(args...)` if it is interned.
    #[inline]
    pub fn lookup(&self, sym: Sym, args: &[TermId]) -> Option<TermId> {
        let mut key = [0u32; 8];
        if args.len() < 8 {
            key[0] = sym;
            key[1..=args.len()].copy_from_slice(args);
            self.map.get(&key[..=args.len()]).copied()
        } else {
            let mut v = Vec::with_capacity(args.len() + 1);
            v.push(sym);
            v.extend_from_slice(args);
            self.map.get(&v[..]).copied()
        }
    }

    /// Interns `sym(args...)` (a constant when `args` is empty).
    pub fn intern(&mut self, sym: Sym, args: &[TermId]) -> TermId {
        if let Some(t) = self.lookup(sym, args) {
            return t;
        }
        let id = self.nodes.len() as TermId;
        self.nodes.push(Node {
            sym,
            start: self.args.len() as u32,
            len: args.len() as u32,
        });
        self.args.extend_from_slice(args);
        self.key.clear();
        self.key.push(sym);
        self.key.extend_from_slice(args);
        self.map.insert(self.key.clone().into_boxed_slice(), id);
        id
    }

    /// A term in KIF syntax, with the given symbol names.
    pub fn to_kif(&self, t: TermId, symbols: &[String]) -> String {
        let mut s = String::new();
        self.write_kif(t, symbols, &mut s);
        s
    }

    fn write_kif(&self, t: TermId, symbols: &[String], out: &mut String) {
        let name = symbols
            .get(self.sym(t) as usize)
            .map_or("?", |s| s.as_str());
        let args = self.args(t);
        if args.is_empty() {
            out.push_str(name);
        } else {
            out.push('(');
            out.push_str(name);
            for &a in args {
                out.push(' ');
                self.write_kif(a, symbols, out);
            }
            out.push(')');
        }
    }
}
