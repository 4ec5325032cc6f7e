//! The minimal excludant: the least non-negative integer not among some values. Every Grundy
//! value is one (`G = mex` of the options' values), so this is the one place that computes it:
//! the exact reference engine, the graph labelling, the misère canonical forms, the genus
//! computation and the tests all use [`MexSet`] or [`mex`] here, and depend on nothing else
//! for it. (The fast engines in `src/engine/kernels` and `src/engine/sparse` do not take a
//! mex of a set: they scan for the least candidate value no option hits, a different loop.)
//!
//! [`MexSet`] is a growable bit set on the `bitvec` crate (`BitVec<u64, Lsb0>`): one bit per
//! value, so the set of a heap's option values costs `span / 8` bytes and the mex is the first
//! clear bit, found a 64-bit word at a time. A caller that marks many values per mex (the exact
//! engine marks O(n) or O(n²) a heap) calls [`MexSet::reset`] once per heap with a bound on
//! the values, then [`MexSet::mark`]; a caller with no bound uses [`MexSet::insert`], which
//! grows the set.

use bitvec::{order::Lsb0, vec::BitVec};

/// A set of small non-negative integers whose least absent member is the mex.
///
/// Its length is always a whole number of 64-bit words and more than every value marked, so
/// there is always a clear bit to find.
#[derive(Debug, Default, Clone)]
pub struct MexSet {
    bits: BitVec<u64, Lsb0>,
}

impl MexSet {
    /// An empty set.
    pub fn new() -> MexSet {
        MexSet::default()
    }

    /// Empties the set and makes room for every value up to `span` (inclusive) for
    /// [`MexSet::mark`]. Clears only the words that were or will be in use.
    #[inline]
    pub fn reset(&mut self, span: usize) {
        let len = (span / 64 + 1) * 64;
        if self.bits.len() > len {
            self.bits.truncate(len);
        }
        self.bits.fill(false);
        self.bits.resize(len, false);
    }

    /// Adds `v`, which must be at most the span given to the last [`MexSet::reset`] (it panics
    /// otherwise). The exact engine's inner loop: one word read and written.
    #[inline(always)]
    pub fn mark(&mut self, v: u32) {
        let v = v as usize;
        // The fast path: in a `BitVec<u64, Lsb0>` that starts at bit 0 (every vector made by
        // `new`/`resize` does), bit `v` is bit `v % 64` of word `v / 64`. One indexed OR, as a
        // hand-written bit set does; `BitVec::set` computes the same place more slowly.
        self.bits.as_raw_mut_slice()[v >> 6] |= 1 << (v & 63);
    }

    /// Adds `v`, growing the set if it is past the current span.
    #[inline]
    pub fn insert(&mut self, v: u32) {
        if v as usize >= self.bits.len() {
            self.bits.resize((v as usize / 64 + 1) * 64, false);
        }
        self.mark(v);
    }

    /// Is `v` in the set?
    #[inline]
    pub fn contains(&self, v: u32) -> bool {
        self.bits.get(v as usize).is_some_and(|b| *b)
    }

    /// The least value not in the set.
    #[inline]
    pub fn mex(&self) -> u32 {
        self.bits.first_zero().unwrap_or(self.bits.len()) as u32
    }
}

/// The least non-negative integer not in `values`.
///
/// The mex of `k` values is at most `k`, so larger values are skipped: the memory is one bit
/// per value given, whatever their size.
pub fn mex(values: impl IntoIterator<Item = u32>) -> u32 {
    let values: Vec<u32> = values.into_iter().collect();
    let mut set = MexSet::new();
    set.reset(values.len());
    for &v in &values {
        if (v as usize) < values.len() {
            set.mark(v);
        }
    }
    set.mex()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn mex_works() {
        assert_eq!(mex([0, 1, 3]), 2);
        assert_eq!(mex(std::iter::empty()), 0);
        assert_eq!(mex((0..200).filter(|&v| v != 150)), 150);
        assert_eq!(mex(0..200), 200);
        assert_eq!(mex([u32::MAX, 0]), 1);
    }

    #[test]
    fn set_reset_mark_grow() {
        let mut s = MexSet::new();
        assert_eq!(s.mex(), 0);
        s.reset(128);
        assert_eq!(s.mex(), 0);
        for v in 0..70 {
            s.mark(v);
        }
        assert_eq!(s.mex(), 70);
        assert!(s.contains(69) && !s.contains(70));
        s.reset(2);
        assert_eq!(s.mex(), 0);
        assert!(!s.contains(69));
        // A reset to a larger span after a smaller one leaves no stale marks.
        s.reset(200);
        assert!((0..=200).all(|v| !s.contains(v)));
        for v in 0..=200 {
            s.mark(v);
        }
        assert_eq!(s.mex(), 201);
        s.insert(1000);
        assert!(s.contains(1000));
        assert_eq!(s.mex(), 201);
        for v in 201..1000 {
            s.insert(v);
        }
        assert_eq!(s.mex(), 1001);
    }

    proptest! {
        /// Against the definition: count up from 0 until a value is missing.
        #[test]
        fn mex_is_least_missing(values in proptest::collection::vec(0u32..300, 0..400)) {
            let mut m = 0;
            while values.contains(&m) {
                m += 1;
            }
            prop_assert_eq!(mex(values.iter().copied()), m);
            let mut s = MexSet::new();
            for &v in &values {
                s.insert(v);
            }
            prop_assert_eq!(s.mex(), m);
        }
    }
}
