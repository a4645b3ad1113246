//! The positions of a play, for `REPETITION` ([`crate::ir::Repetition`]):
//! a fingerprint per position, kept in a list shared between the states of
//! one play, so that counting how often the current position occurred
//! before needs neither a copy of each board nor a copy of the list.
//!
//! Both engines keep a [`History`] in their states. Each fingerprints a
//! position its own way (the interpreter from the structure's words, the
//! generated code from its bitsets), so only the counts are compared
//! between them, never the fingerprints.

use std::sync::Arc;

/// A position's fingerprint: 128 bits, so that two different positions of
/// one play get the same one with a probability of about 2^-128 per pair.
pub type Fingerprint = u128;

/// Mixes words into a [`Fingerprint`]: two 64-bit lanes with different
/// multipliers, each finished by the SplitMix64 finalizer. It is also a
/// `Hasher`, so derived `Hash` implementations can write into it.
#[derive(Clone, Debug)]
pub struct PositionHasher {
    a: u64,
    b: u64,
    n: u64,
}

impl Default for PositionHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl PositionHasher {
    pub fn new() -> Self {
        PositionHasher {
            a: 0x243f_6a88_85a3_08d3,
            b: 0x1319_8a2e_0370_7344,
            n: 0,
        }
    }

    pub fn word(&mut self, w: u64) {
        self.a = (self.a ^ w)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
        self.b = (self.b ^ w.rotate_left(17))
            .wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
            .rotate_left(31);
        self.n += 1;
    }

    pub fn words(&mut self, ws: &[u64]) {
        for &w in ws {
            self.word(w);
        }
    }

    pub fn finish128(&self) -> Fingerprint {
        fn fin(mut z: u64) -> u64 {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        let a = fin(self.a ^ self.n);
        let b = fin(self.b ^ self.n.rotate_left(32));
        ((a as u128) << 64) | b as u128
    }
}

impl std::hash::Hasher for PositionHasher {
    fn finish(&self) -> u64 {
        self.finish128() as u64
    }
    fn write(&mut self, bytes: &[u8]) {
        // The length first, so that consecutive byte strings cannot run
        // together.
        self.word(bytes.len() as u64);
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.word(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.word(i as u64);
    }
}

/// The fingerprints of the positions of a play so far, the newest first:
/// a persistent list, so cloning a state clones one reference.
#[derive(Clone, Default)]
pub struct History(Option<Arc<Node>>);

struct Node {
    fingerprint: Fingerprint,
    len: usize,
    before: History,
}

impl History {
    /// No position yet.
    pub const EMPTY: History = History(None);

    /// The number of positions recorded.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |n| n.len)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The fingerprints, the newest first.
    pub fn iter(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        let mut at = self.0.as_deref();
        std::iter::from_fn(move || {
            let n = at?;
            at = n.before.0.as_deref();
            Some(n.fingerprint)
        })
    }

    /// How often `fp` was recorded.
    pub fn count(&self, fp: Fingerprint) -> usize {
        self.iter().filter(|&f| f == fp).count()
    }

    /// Records the current position: returns how often it occurred before,
    /// and adds it.
    pub fn record(&mut self, fp: Fingerprint) -> usize {
        let before = self.count(fp);
        let len = self.len() + 1;
        let prev = std::mem::take(self);
        *self = History(Some(Arc::new(Node {
            fingerprint: fp,
            len,
            before: prev,
        })));
        before
    }
}

impl PartialEq for History {
    fn eq(&self, other: &History) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) if Arc::ptr_eq(a, b) => true,
            _ => self.len() == other.len() && self.iter().eq(other.iter()),
        }
    }
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "History({} positions)", self.len())
    }
}

impl Drop for History {
    /// Iteratively: a play of a million plies must not drop its list by a
    /// million nested calls.
    fn drop(&mut self) {
        let mut next = self.0.take();
        while let Some(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut n) => next = n.before.0.take(),
                Err(_) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_earlier_occurrences_and_shares_the_list() {
        let mut h = History::EMPTY;
        assert_eq!(h.record(7), 0);
        assert_eq!(h.record(8), 0);
        let fork = h.clone();
        assert_eq!(h.record(7), 1);
        assert_eq!(h.record(7), 2);
        assert_eq!(h.len(), 4);
        assert_eq!(h.iter().collect::<Vec<_>>(), [7, 7, 8, 7]);
        // The clone taken before is unchanged.
        assert_eq!(fork.len(), 2);
        assert_eq!(fork.count(7), 1);
        assert_ne!(h, fork);
        let mut again = fork.clone();
        again.record(7);
        again.record(7);
        assert_eq!(again, h, "equal lists, not shared");
    }

    #[test]
    fn a_long_history_drops_without_deep_recursion() {
        let mut h = History::EMPTY;
        for i in 0..1_000_000u128 {
            let n = h.len();
            let prev = std::mem::take(&mut h);
            h = History(Some(Arc::new(Node {
                fingerprint: i,
                len: n + 1,
                before: prev,
            })));
        }
        assert_eq!(h.len(), 1_000_000);
        drop(h);
    }

    #[test]
    fn fingerprints_separate_words_and_order() {
        let fp = |ws: &[u64]| {
            let mut h = PositionHasher::new();
            h.words(ws);
            h.finish128()
        };
        assert_ne!(fp(&[1, 2]), fp(&[2, 1]));
        assert_ne!(fp(&[0]), fp(&[0, 0]));
        assert_eq!(fp(&[3, 4, 5]), fp(&[3, 4, 5]));
    }
}
