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

/// Incremental hash of a sequence of ids (the same value as [`hash_ids`]),
/// for keys hashed without being collected first.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(FxHasher);

impl IdHasher {
    #[inline]
    pub fn push(&mut self, id: u32) {
        self.0.add(id as u64);
    }

    #[inline]
    pub fn finish(self) -> u64 {
        // Final mixing so that the low bits (used by the tables) are spread.
        let x = self.0.hash;
        x ^ (x >> 29)
    }
}

/// Hash of a sequence of ids.
#[inline]
pub fn hash_ids(ids: impl IntoIterator<Item = u32>) -> u64 {
    let mut h = IdHasher::default();
    for i in ids {
        h.push(i);
    }
    h.finish()
}

/// Hash of the key `[sym, args...]` of a term.
#[inline]
fn hash_term(sym: Sym, args: &[TermId]) -> u32 {
    let mut h = IdHasher::default();
    h.push(sym);
    for &a in args {
        h.push(a);
    }
    h.finish() as u32
}

const EMPTY: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    sym: Sym,
    start: u32,
    len: u32,
    hash: u32,
}

/// The interned ground terms of one game. Append-only.
///
/// The table is open-addressed (linear probing, at most half full) over the
/// term ids, with each term's hash kept in its node: a lookup hashes the key
/// once and compares the stored terms in place, without building a key.
#[derive(Clone, Debug, Default)]
pub struct TermStore {
    nodes: Vec<Node>,
    args: Vec<TermId>,
    /// Slot -> term id, or `EMPTY`; the length is a power of two (or 0).
    table: Vec<u32>,
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

    /// The top symbol and the arguments of a term.
    #[inline]
    pub fn node(&self, t: TermId) -> (Sym, &[TermId]) {
        let n = self.nodes[t as usize];
        (
            n.sym,
            &self.args[n.start as usize..(n.start + n.len) as usize],
        )
    }

    /// The id of the term with this hash and key, or the free slot where it
    /// would go.
    #[inline]
    fn probe(&self, h: u32, sym: Sym, args: &[TermId]) -> Result<TermId, usize> {
        let mask = self.table.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let t = self.table[i];
            if t == EMPTY {
                return Err(i);
            }
            let n = self.nodes[t as usize];
            if n.hash == h
                && n.sym == sym
                && self.args[n.start as usize..(n.start + n.len) as usize] == *args
            {
                return Ok(t);
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `sym(args...)` if it is interned.
    #[inline]
    pub fn lookup(&self, sym: Sym, args: &[TermId]) -> Option<TermId> {
        if self.table.is_empty() {
            return None;
        }
        self.probe(hash_term(sym, args), sym, args).ok()
    }

    /// Interns `sym(args...)` (a constant when `args` is empty).
    pub fn intern(&mut self, sym: Sym, args: &[TermId]) -> TermId {
        if 2 * (self.nodes.len() + 1) > self.table.len() {
            self.grow();
        }
        let h = hash_term(sym, args);
        let slot = match self.probe(h, sym, args) {
            Ok(t) => return t,
            Err(slot) => slot,
        };
        let id = self.nodes.len() as TermId;
        self.nodes.push(Node {
            sym,
            start: self.args.len() as u32,
            len: args.len() as u32,
            hash: h,
        });
        self.args.extend_from_slice(args);
        self.table[slot] = id;
        id
    }

    /// Doubles the table (at least 64 slots) and re-inserts every term.
    fn grow(&mut self) {
        let cap = (self.table.len() * 2).max(64);
        self.table.clear();
        self.table.resize(cap, EMPTY);
        let mask = cap - 1;
        for (id, n) in self.nodes.iter().enumerate() {
            let mut i = n.hash as usize & mask;
            while self.table[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.table[i] = id as u32;
        }
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
