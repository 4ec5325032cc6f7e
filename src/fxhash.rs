//! A fast hasher for the hash tables whose keys this program makes itself, not an adversary:
//! the misère quotient's (short runs of machine words: signatures, class vectors, states), and
//! the ids of canonical forms (misère forms, partizan games, their memos). A multiply–rotate
//! mix per word (the scheme of Firefox's and rustc's "FxHash"), several times cheaper than the
//! standard library's SipHash here.

use std::hash::{BuildHasherDefault, Hasher};

/// The multiplier: 2^64 / φ, odd.
const K: u64 = 0x9e37_79b9_7f4a_7c15;

/// A word-at-a-time multiply–rotate hasher.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
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

/// `HashMap`/`HashSet` builder with [`FxHasher`].
pub type FxBuild = BuildHasherDefault<FxHasher>;

/// The hash of a run of words.
#[inline]
pub fn hash_words(words: &[u64]) -> u64 {
    let mut h = FxHasher::default();
    for &w in words {
        h.add(w);
    }
    // A final mix so that the low bits (the table's index) depend on every word.
    h.hash ^ (h.hash >> 29)
}
