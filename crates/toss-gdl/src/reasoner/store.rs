//! The fact storage of the reasoner: the tuples of a relation with the
//! hash indexes that join orders read, and a database of one level.

use crate::terms::{IdHasher, TermId, TermStore, hash_ids};

use super::{IndexSpec, NONE, PosKey, Program};

/// A hash index of a relation on some argument positions: the tuples are
/// chained per bucket (`hash & mask`), and the key hash of each tuple is
/// kept, so a lookup follows one chain and skips other keys by their hash
/// (a tuple that passes is then unified in full, so a collision of hashes
/// costs time, never a wrong answer). Index 0 (all positions) is kept up to
/// date on insertion, as it detects duplicates; the others are brought up
/// to date when a join order is about to read them ([`RelStore::sync`]), so
/// an index no rule reads in a state is never built in it.
#[derive(Clone, Debug)]
pub(super) struct Index {
    pub(super) spec: IndexSpec,
    /// Bucket -> most recent tuple in it, or `NONE`; a power of two long.
    heads: Vec<u32>,
    /// Tuple -> previous tuple in the same bucket.
    pub(super) next: Vec<u32>,
    /// Tuple -> its key hash.
    pub(super) hash: Vec<u32>,
}

impl Index {
    fn new(spec: IndexSpec) -> Index {
        Index {
            spec,
            heads: vec![NONE; 8],
            next: Vec::new(),
            hash: Vec::new(),
        }
    }

    /// Number of tuples indexed.
    #[inline]
    fn built(&self) -> u32 {
        self.next.len() as u32
    }

    /// The most recent tuple in the bucket of `h`.
    #[inline]
    pub(super) fn first(&self, h: u32) -> u32 {
        self.heads[h as usize & (self.heads.len() - 1)]
    }

    /// Adds the next tuple, with key hash `h`.
    #[inline]
    fn push(&mut self, h: u32) {
        let t = self.next.len() as u32;
        if 2 * (t as usize + 1) > self.heads.len() {
            self.grow();
        }
        let b = h as usize & (self.heads.len() - 1);
        self.next.push(self.heads[b]);
        self.hash.push(h);
        self.heads[b] = t;
    }

    /// Doubles the buckets and rechains the tuples in order, so each chain
    /// still lists its tuples from the most recent.
    fn grow(&mut self) {
        let cap = self.heads.len() * 2;
        self.heads.clear();
        self.heads.resize(cap, NONE);
        let mask = cap - 1;
        for (t, &h) in self.hash.iter().enumerate() {
            let b = h as usize & mask;
            self.next[t] = self.heads[b];
            self.heads[b] = t as u32;
        }
    }

    fn clear(&mut self) {
        if self.next.is_empty() {
            return;
        }
        self.heads.fill(NONE);
        self.next.clear();
        self.hash.clear();
    }
}

#[derive(Clone, Debug)]
pub(crate) struct RelStore {
    pub(super) arity: usize,
    pub(super) data: Vec<TermId>,
    pub(super) len: u32,
    pub(super) idx: Vec<Index>,
}

/// The key hash of a tuple under an index specification.
fn key_hash(spec: &IndexSpec, tuple: &[TermId], terms: &TermStore) -> u32 {
    let mut h = IdHasher::default();
    for (k, &t) in spec.0.iter().zip(tuple) {
        match k {
            PosKey::None => {}
            PosKey::Full => h.push(t),
            PosKey::Functor(m) => {
                h.push(terms.sym(t));
                let args = terms.args(t);
                let mut m = *m;
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    h.push(args.get(j).copied().unwrap_or(NONE));
                }
            }
        }
    }
    h.finish() as u32
}

/// The hash of a whole tuple (the key of index 0).
#[inline]
fn tuple_hash(tuple: &[TermId]) -> u32 {
    hash_ids(tuple.iter().copied()) as u32
}

impl RelStore {
    #[inline]
    pub(crate) fn tuple(&self, t: u32) -> &[TermId] {
        let a = self.arity;
        &self.data[t as usize * a..(t as usize + 1) * a]
    }

    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    pub(super) fn clear(&mut self) {
        self.data.clear();
        self.len = 0;
        for ix in &mut self.idx {
            ix.clear();
        }
    }

    /// The tuple equal to `tuple` with whole-tuple hash `h`, if present.
    #[inline]
    pub(super) fn find(&self, tuple: &[TermId], h: u32) -> bool {
        let ix = &self.idx[0];
        let mut t = ix.first(h);
        while t != NONE {
            if ix.hash[t as usize] == h && self.tuple(t) == tuple {
                return true;
            }
            t = ix.next[t as usize];
        }
        false
    }

    /// Whether the ground tuple is present.
    pub(super) fn contains(&self, tuple: &[TermId]) -> bool {
        self.find(tuple, tuple_hash(tuple))
    }

    /// Adds a ground tuple; returns whether it was new.
    pub(super) fn insert(&mut self, tuple: &[TermId]) -> bool {
        let h = tuple_hash(tuple);
        if self.find(tuple, h) {
            return false;
        }
        self.data.extend_from_slice(tuple);
        self.len += 1;
        self.idx[0].push(h);
        true
    }

    /// Brings index `i` up to date with the tuples.
    #[inline]
    pub(super) fn sync(&mut self, i: usize, terms: &TermStore) {
        let ix = &mut self.idx[i];
        let a = self.arity;
        while ix.built() < self.len {
            let t = ix.built() as usize;
            let h = key_hash(&ix.spec, &self.data[t * a..(t + 1) * a], terms);
            ix.push(h);
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Db {
    pub(super) rels: Vec<RelStore>,
}

impl Program {
    pub(super) fn empty_db(&self) -> Db {
        Db {
            rels: self
                .rels
                .iter()
                .map(|r| RelStore {
                    arity: r.arity,
                    data: Vec::new(),
                    len: 0,
                    idx: r.indexes.iter().cloned().map(Index::new).collect(),
                })
                .collect(),
        }
    }
}
