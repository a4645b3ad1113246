//! Fixed-size bitsets over the elements of a game, for generated code.
//!
//! `Bits<W>` holds `64 * W` bits in `W` words; bit `i` is element id `i`.
//! Generated code sizes `W` to the game (a 3x3 board takes one word, a 15x15
//! board four) and keeps every fluent unary relation as one `Bits<W>`, so
//! that set algebra is a few word operations and copies are plain memory
//! copies. Shifts move every bit by the same amount across word borders;
//! bits shifted past the end are dropped, so callers mask the results with
//! the sets they mean (generated code always does).

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// A set of element ids below `64 * W`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bits<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> Bits<W> {
    /// The empty set.
    pub const EMPTY: Self = Bits([0; W]);

    /// The set `{i}`.
    #[inline]
    pub const fn single(i: u32) -> Self {
        let mut w = [0; W];
        if W == 2 {
            // Both words are written (one bit or zero) rather than one
            // by index, so that a set built in registers stays there (a
            // store by index and a load of the whole set stall).
            let mut j = 0;
            while j < W {
                w[j] = if j == (i / 64) as usize {
                    1 << (i % 64)
                } else {
                    0
                };
                j += 1;
            }
        } else {
            w[(i / 64) as usize] = 1 << (i % 64);
        }
        Bits(w)
    }

    /// The set of ids below `i` (every id when `i >= 64 * W`).
    #[inline]
    pub fn below(i: u32) -> Self {
        let mut w = [0; W];
        for (j, x) in w.iter_mut().enumerate() {
            let lo = j as u32 * 64;
            *x = if i >= lo + 64 {
                !0
            } else if i > lo {
                (1 << (i - lo)) - 1
            } else {
                0
            };
        }
        Bits(w)
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        // Without early exit: one test of the words' union.
        self.0.iter().fold(0, |a, &w| a | w) == 0
    }

    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    #[inline]
    pub fn insert(&mut self, i: u32) {
        if W == 2 {
            // Word by word, so that a set in registers stays there.
            *self |= Self::single(i);
        } else {
            self.0[(i / 64) as usize] |= 1 << (i % 64);
        }
    }

    #[inline]
    pub fn remove(&mut self, i: u32) {
        if W == 2 {
            *self = self.and_not(Self::single(i));
        } else {
            self.0[(i / 64) as usize] &= !(1 << (i % 64));
        }
    }

    /// The number of members.
    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether every member of `other` is a member of `self`.
    #[inline]
    pub fn contains_all(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| b & !a == 0)
    }

    /// `self` without the members of `other`.
    #[inline]
    pub fn and_not(self, other: Self) -> Self {
        let mut w = self.0;
        for (a, b) in w.iter_mut().zip(other.0) {
            *a &= !b;
        }
        Bits(w)
    }

    /// `{i + n | i in self}` (members past the last word are dropped).
    #[inline]
    pub fn shift_up(self, n: u32) -> Self {
        let (ws, bs) = ((n / 64) as usize, n % 64);
        let mut out = [0u64; W];
        for i in (ws..W).rev() {
            let lo = self.0[i - ws];
            let mut v = lo << bs;
            if bs != 0 && i > ws {
                v |= self.0[i - ws - 1] >> (64 - bs);
            }
            out[i] = v;
        }
        Bits(out)
    }

    /// `{i - n | i in self, i >= n}`.
    #[inline]
    pub fn shift_down(self, n: u32) -> Self {
        let (ws, bs) = ((n / 64) as usize, n % 64);
        let mut out = [0u64; W];
        for (i, o) in out.iter_mut().enumerate().take(W.saturating_sub(ws)) {
            let mut v = self.0[i + ws] >> bs;
            if bs != 0 && i + ws + 1 < W {
                v |= self.0[i + ws + 1] << (64 - bs);
            }
            *o = v;
        }
        Bits(out)
    }

    /// `{i + d | i in self}` for a signed offset.
    #[inline]
    pub fn shift(self, d: i32) -> Self {
        if d >= 0 {
            self.shift_up(d as u32)
        } else {
            self.shift_down(d.unsigned_abs())
        }
    }

    /// The member of rank `k` (0 is the least); `k < self.count()`.
    #[inline]
    pub fn nth(&self, mut k: u32) -> u32 {
        for (i, &w) in self.0.iter().enumerate() {
            let c = w.count_ones();
            if k < c {
                return i as u32 * 64 + select_in_word(w, k);
            }
            k -= c;
        }
        u32::MAX
    }

    /// The least member (`u32::MAX` if empty).
    #[inline]
    pub fn first(&self) -> u32 {
        for (i, &w) in self.0.iter().enumerate() {
            if w != 0 {
                return i as u32 * 64 + w.trailing_zeros();
            }
        }
        u32::MAX
    }

    /// The greatest member (`u32::MAX` if empty).
    #[inline]
    pub fn last(&self) -> u32 {
        for (i, &w) in self.0.iter().enumerate().rev() {
            if w != 0 {
                return i as u32 * 64 + 63 - w.leading_zeros();
            }
        }
        u32::MAX
    }

    /// The members in increasing order.
    #[inline]
    pub fn iter(self) -> BitsIter<W> {
        BitsIter {
            bits: self,
            word: 0,
        }
    }
}

/// The position of the set bit of rank `k` (0 is the least) of `w`;
/// `k < w.count_ones()`.
///
/// Broadword, without branches (Vigna, "Broadword implementation of
/// rank/select queries", 2008): the byte holding the bit is found from the
/// running popcounts of the bytes, the bit inside it from a table. A loop
/// clearing the `k` lowest bits costs a mispredicted exit per call when
/// `k` is random, which is what a random playout asks for in every ply.
#[inline]
pub fn select_in_word(w: u64, k: u32) -> u32 {
    const L8: u64 = 0x0101_0101_0101_0101;
    const H8: u64 = 0x8080_8080_8080_8080;
    let mut s = w - ((w >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // Byte i: the number of set bits in bytes 0..=i (at most 64).
    let byte_sums = s.wrapping_mul(L8);
    // High bit of byte i set when the running count up to byte i is at
    // most k, i.e. the bit of rank k lies above byte i.
    let below = (((k as u64 * L8) | H8) - byte_sums) & H8;
    let place = (below.count_ones() * 8) as u64;
    let before = (byte_sums << 8) >> place & 0xff;
    let byte = (w >> place) & 0xff;
    let rank = k as u64 - before;
    place as u32 + SELECT_IN_BYTE[(rank << 8 | byte) as usize & 0x7ff] as u32
}

/// `SELECT_IN_BYTE[r << 8 | b]`: the position of the set bit of rank `r`
/// in the byte `b` (8 when there is none).
static SELECT_IN_BYTE: [u8; 2048] = {
    let mut t = [8u8; 2048];
    let mut b = 0;
    while b < 256 {
        let mut rank = 0;
        let mut bit = 0;
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[rank << 8 | b] = bit as u8;
                rank += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

impl<const W: usize> std::fmt::Debug for Bits<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Iterator over the members of a [`Bits`], in increasing order.
pub struct BitsIter<const W: usize> {
    bits: Bits<W>,
    word: usize,
}

impl<const W: usize> Iterator for BitsIter<W> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if W == 2 {
            // The words in order, at constant indices (no word counter
            // kept in memory).
            for (i, w) in self.bits.0.iter_mut().enumerate() {
                if *w != 0 {
                    let b = w.trailing_zeros();
                    *w &= *w - 1;
                    return Some(i as u32 * 64 + b);
                }
            }
            return None;
        }
        while self.word < W {
            let w = &mut self.bits.0[self.word];
            if *w != 0 {
                let b = w.trailing_zeros();
                *w &= *w - 1;
                return Some(self.word as u32 * 64 + b);
            }
            self.word += 1;
        }
        None
    }
}

impl<const W: usize> BitAnd for Bits<W> {
    type Output = Self;
    #[inline]
    fn bitand(mut self, rhs: Self) -> Self {
        self &= rhs;
        self
    }
}

impl<const W: usize> BitOr for Bits<W> {
    type Output = Self;
    #[inline]
    fn bitor(mut self, rhs: Self) -> Self {
        self |= rhs;
        self
    }
}

impl<const W: usize> BitAndAssign for Bits<W> {
    #[inline]
    fn bitand_assign(&mut self, rhs: Self) {
        for (a, b) in self.0.iter_mut().zip(rhs.0) {
            *a &= b;
        }
    }
}

impl<const W: usize> BitOrAssign for Bits<W> {
    #[inline]
    fn bitor_assign(&mut self, rhs: Self) {
        for (a, b) in self.0.iter_mut().zip(rhs.0) {
            *a |= b;
        }
    }
}

impl<const W: usize> Not for Bits<W> {
    type Output = Self;
    /// The complement within all `64 * W` bits: mask it with the universe.
    #[inline]
    fn not(mut self) -> Self {
        for a in self.0.iter_mut() {
            *a = !*a;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_cross_word_borders() {
        let mut b = Bits::<3>::EMPTY;
        for i in [0, 5, 63, 64, 100, 150] {
            b.insert(i);
        }
        let up: Vec<u32> = b.shift_up(70).iter().collect();
        assert_eq!(up, [70, 75, 133, 134, 170]);
        let down: Vec<u32> = b.shift_down(64).iter().collect();
        assert_eq!(down, [0, 36, 86]);
        assert_eq!(b.shift(1).shift(-1), b.and_not(Bits::single(191)));
        assert_eq!(b.shift_up(0), b);
        assert_eq!(b.count(), 6);
        assert!(b.contains_all(&Bits::single(63)));
        let all: Vec<u32> = (0..6).map(|k| b.nth(k)).collect();
        assert_eq!(all, [0, 5, 63, 64, 100, 150]);
    }

    /// The broadword select against clearing the lowest bits one by one,
    /// on every rank of words of every density.
    #[test]
    fn select_in_word_agrees_with_clearing_bits() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut words = vec![1, 1 << 63, !0, 0x8000_0000_0000_0001, 0xff00];
        for i in 0..2000 {
            // xorshift, then thinned to vary the density
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut w = x;
            for _ in 0..i % 4 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                w &= x;
            }
            words.push(w);
        }
        for w in words {
            let mut rest = w;
            for k in 0..w.count_ones() {
                assert_eq!(
                    select_in_word(w, k),
                    rest.trailing_zeros(),
                    "{w:#x} rank {k}"
                );
                rest &= rest - 1;
            }
        }
    }

    #[test]
    fn two_word_sets() {
        assert_eq!(Bits::<2>::below(0), Bits::EMPTY);
        assert_eq!(Bits::<2>::below(70), Bits([!0, 0x3f]));
        assert_eq!(Bits::<2>::below(64), Bits([!0, 0]));
        assert_eq!(Bits::<2>::below(5), Bits([0x1f, 0]));
        assert_eq!(Bits::<2>::below(200), Bits([!0, !0]));
        let mut s = Bits::<2>::EMPTY;
        s.insert(3);
        s.insert(70);
        s.insert(127);
        assert_eq!(s.iter().collect::<Vec<_>>(), [3, 70, 127]);
        s.remove(70);
        assert_eq!(s, Bits::single(3) | Bits::single(127));
    }
}
