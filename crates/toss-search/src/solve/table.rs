//! The transposition table: what the search has proved about each state,
//! keyed on the state's words ([`Game::state_key`](toss_core::Game::state_key)),
//! within a memory bound.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-rotate hash over words (as rustc's FxHash): state keys are
/// already well spread, SipHash's protection against chosen keys is not
/// needed, and it was a large part of a node's cost. Deterministic.
#[derive(Clone, Copy, Default)]
pub struct WordHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl WordHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(SEED);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

/// A hash map keyed on state keys.
pub type WordMap<V> = HashMap<Box<[u64]>, V, BuildHasherDefault<WordHasher>>;

/// What is known about one state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// The value (of player 0, see [`super::Value`]) lies in `lo..=hi`;
    /// `lo == hi` when it is exact.
    pub lo: f64,
    pub hi: f64,
    /// The depth (in turns) of the search that gave the interval;
    /// `u32::MAX` once it is exact, which no deeper search improves.
    pub depth: u32,
    /// The window `alpha..beta` of that search: a search as deep with a
    /// window inside this one would prove nothing more.
    pub alpha: f64,
    pub beta: f64,
    /// The index of the best move found, in the chooser's canonical order
    /// (`u32::MAX`: none).
    pub best: u32,
}

impl Entry {
    pub fn is_exact(&self) -> bool {
        self.lo == self.hi
    }
}

/// Bytes a stored entry costs besides its key words: the entry, the boxed
/// key's pointer and length, and the hash map's control byte and slack.
const ENTRY_OVERHEAD: usize = std::mem::size_of::<Entry>() + 16 + 16;

/// States to entries, within `capacity_bytes`.
pub struct Table {
    map: WordMap<Entry>,
    bytes: usize,
    capacity_bytes: usize,
}

impl Table {
    pub fn new(capacity_bytes: usize) -> Table {
        Table {
            map: WordMap::default(),
            bytes: 0,
            capacity_bytes,
        }
    }

    pub fn get(&self, key: &[u64]) -> Option<&Entry> {
        self.map.get(key)
    }

    /// Stores `entry` for `key`, intersecting the interval with the one
    /// known (both are sound). Returns false, storing nothing, when a new
    /// key would pass the memory bound.
    pub fn store(&mut self, key: &[u64], mut entry: Entry) -> bool {
        if let Some(old) = self.map.get_mut(key) {
            let lo = old.lo.max(entry.lo);
            let hi = old.hi.min(entry.hi);
            if lo <= hi {
                entry.lo = lo;
                entry.hi = hi;
            }
            if entry.lo == entry.hi {
                entry.depth = u32::MAX;
            }
            if entry.best == u32::MAX {
                entry.best = old.best;
            }
            *old = entry;
            return true;
        }
        let cost = key.len() * 8 + ENTRY_OVERHEAD;
        if self.bytes + cost > self.capacity_bytes {
            return false;
        }
        self.bytes += cost;
        if entry.lo == entry.hi {
            entry.depth = u32::MAX;
        }
        self.map.insert(key.into(), entry);
        true
    }

    /// Number of states stored.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Estimated bytes used.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}
