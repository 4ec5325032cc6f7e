//! Byte keys of 16-bit values for the verification scan (Grossman's byte-wide values).
//!
//! When every value is below 512 and the class mask has a bit `k` from 6 to 8, a value without
//! bit `k` fits a byte: its *key*. Leaving a bit out is linear, so the key of `G(a) ⊕ G(r − a)`
//! is the XOR of the keys, and among rare values (`popcount(v & mask)` even) the key tells the
//! value (bit `k` is the parity of the others). A pair whose heaps are both common, or both rare,
//! has a rare value, which the scan may thus look up by key; a pair with one rare heap has a
//! common value whose key may equal a rare target's, and is left out (its value was marked by
//! step 1 anyway). The scan then reads half the bytes of 16-bit cells and needs no permutes to
//! pack them: on Officers it is most of the engine's scan.
//!
//! [`ScanKeys`] keeps the keys of the smallest heaps (the scan's left side, with a bitmap of
//! their rare positions) and, reversed, those of the latest heaps (the right side: the partners
//! `r − a` of ascending `a` are then ascending bytes). Both are bounded (`cap` heaps each): pairs
//! they do not cover, or whose right heap may be a rare position, are scanned on the cells.

// On processors other than x86-64 only the portable scan runs, which reads none of the keys.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::Cell;
use crate::classes::is_rare;

/// The key of `v` without the bit above `low` (a mask `2^b − 1`): the bits of `low` stay in
/// place, those above bit `b` move down by one. Linear in `v`; the same map serves the scan's
/// keys, the AVX2 targets' keys (`b` the mask's highest bit) and the lanes' keys (its lowest).
#[inline(always)]
pub(super) fn key_without(v: u32, low: u32) -> u32 {
    (v & low) | ((v >> 1) & !low)
}

/// Heaps whose keys are kept on each side (1 MiB of keys each, 2 MiB of buffer on the right).
pub(super) const KEYS_CAP: usize = 1 << 20;

/// The keys of the first and the latest heaps of a table, for one mask.
#[derive(Debug, Clone)]
pub(super) struct ScanKeys {
    mask: u32,
    /// The mask bit a key leaves out (6, 7 or 8).
    bit: u32,
    /// Heaps kept on each side.
    cap: usize,
    /// Keys of heaps `0..left.len()` (at most `cap`).
    left: Vec<u8>,
    /// Bit `h & 7` of byte `h >> 3`: heap `h ≥ 1` of `left` is a rare position; 16 bytes past
    /// the last, so that 64 bits from any heap of `left` can be read.
    left_rare: Vec<u8>,
    /// `right[top − h]`: the key of heap `h`, for heaps `right_lo..covered` (`2 · cap` bytes).
    right: Vec<u8>,
    top: usize,
    right_lo: usize,
    /// Heaps whose keys are here: `0..covered`, of which the first `left.len()` on the left.
    covered: usize,
}

impl ScanKeys {
    /// The bit that keys leave out for values below `width` and class mask `mask`: the mask's
    /// highest, when the values need 9 bits and it is one of bits 6 to 8 (else no keys).
    pub(super) fn key_bit(mask: u32, width: usize) -> Option<u32> {
        let bit = 31 - mask.max(1).leading_zeros();
        (width == 512 && (6..=8).contains(&bit) && mask < 512).then_some(bit)
    }

    /// No heaps yet, for `mask` (whose [`ScanKeys::key_bit`] must be `bit`), keeping `cap`
    /// heaps on each side (at least 64).
    pub(super) fn new(mask: u32, bit: u32, cap: usize) -> ScanKeys {
        let cap = cap.max(64);
        ScanKeys {
            mask,
            bit,
            cap,
            left: Vec::new(),
            left_rare: vec![0; 16],
            right: vec![0; 2 * cap],
            top: 2 * cap - 1,
            right_lo: 0,
            covered: 0,
        }
    }

    /// The class mask the keys are for.
    pub(super) fn mask(&self) -> u32 {
        self.mask
    }

    /// The mask bit a key leaves out.
    pub(super) fn bit(&self) -> u32 {
        self.bit
    }

    /// Heaps whose keys are here: `0..covered()`.
    pub(super) fn covered(&self) -> usize {
        self.covered
    }

    /// The key of a value below 512.
    #[inline(always)]
    pub(super) fn key(&self, v: u32) -> u8 {
        key_without(v, (1u32 << self.bit) - 1) as u8
    }

    /// The rare value (`popcount(v & mask)` even) whose key is `k`: the key's bits from the
    /// left-out bit on move up by one, and that bit is the parity of the others.
    #[inline(always)]
    pub(super) fn rare_value(&self, k: u8) -> u32 {
        let (k, low) = (u32::from(k), (1u32 << self.bit) - 1);
        let v = (k & low) | ((k & !low) << 1);
        v | ((v & self.mask).count_ones() & 1) << self.bit
    }

    /// Adds the keys of heaps `covered()..vals.len()` (values below 512).
    pub(super) fn extend<T: Cell>(&mut self, vals: &[T]) {
        let start = self.covered;
        if vals.len() <= start {
            return;
        }
        // The right side: where the buffer has no room left below the newest heap, the latest
        // `cap` heaps move to its far end.
        let end = vals.len();
        if end - 1 > self.top {
            let keep = (start - self.right_lo).min(self.cap);
            let top = start - keep + 2 * self.cap - 1;
            let from = self.top + 1 - start;
            self.right
                .copy_within(from..from + keep, 2 * self.cap - keep);
            self.top = top;
            self.right_lo = start - keep;
        }
        // Heaps past what the buffer holds (only when more than `cap` come at once) are left
        // out of the right side.
        let first = start.max(end.saturating_sub(self.cap));
        if first > start {
            self.right_lo = first;
            self.top = first + 2 * self.cap - 1;
        }
        for (h, v) in vals.iter().enumerate().take(end).skip(first) {
            let i = self.top - h;
            self.right[i] = self.key(v.get());
        }
        self.left_rare.resize(end.min(self.cap) / 8 + 17, 0);
        for (h, v) in vals.iter().enumerate().take(end.min(self.cap)).skip(start) {
            let v = v.get();
            self.left.push(self.key(v));
            if h >= 1 && is_rare(v, self.mask) {
                self.left_rare[h >> 3] |= 1 << (h & 7);
            }
        }
        self.covered = end;
    }

    /// The end of the whole chunks of 64 pairs `(a, r − a)` from `lo` on, before `hi`, that the
    /// keys cover with no rare position among the heaps `r − a` (rare positions are all at most
    /// `last_rare`): `lo + 64 k`, `lo` itself if none.
    pub(super) fn chunks_end(&self, r: usize, lo: usize, hi: usize, last_rare: usize) -> usize {
        // a + 64 ≤ left.len(), a + 64 ≤ hi; r − a − 63 ≥ right_lo, r − a − 63 > last_rare;
        // r − lo < covered.
        if lo == 0 || r >= self.covered + lo {
            return lo;
        }
        let floor = self.right_lo.max(last_rare + 1);
        let Some(right_end) = (r + 1).checked_sub(floor) else {
            return lo;
        };
        let end = self.left.len().min(hi).min(right_end);
        if end < lo + 64 {
            return lo;
        }
        lo + (end - lo) / 64 * 64
    }

    /// The left keys, the bitmap of their rare positions, and the right keys from pair
    /// `(lo, r − lo)` on: the right key of pair `(a, r − a)` is `right[a − lo]`. The heap
    /// `r − lo` must be on the right side (`right_lo ≤ r − lo < covered`), as it is for the
    /// chunks of [`ScanKeys::chunks_end`].
    pub(super) fn sides(&self, r: usize, lo: usize) -> (&[u8], &[u8], &[u8]) {
        assert!(lo <= r && self.right_lo <= r - lo && r - lo < self.covered);
        // top − (r − lo) ≥ 0: the heaps right_lo..covered are at top − h ≥ 0.
        let from = self.top - (r - lo);
        (&self.left, &self.left_rare, &self.right[from..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_values_as_they_come() {
        let vals: Vec<u16> = (0..5000u32).map(|h| ((h * 7919) % 509) as u16).collect();
        let mask = 0x1ee;
        let bit = ScanKeys::key_bit(mask, 512).expect("bit 8");
        assert_eq!(bit, 8);
        let mut keys = ScanKeys::new(mask, bit, 300);
        // Uneven steps, one longer than the buffer.
        let mut at = 0;
        for step in [1, 63, 700, 5, 900, 64, 1, 2000, 1266] {
            at += step;
            keys.extend(&vals[..at]);
            assert_eq!(keys.covered(), at);
            let (left, rare) = (&keys.left, &keys.left_rare);
            let right = &keys.right;
            for (h, &k) in left.iter().enumerate() {
                assert_eq!(k, keys.key(u32::from(vals[h])));
                let is = h >= 1 && is_rare(u32::from(vals[h]), mask);
                assert_eq!(rare[h >> 3] >> (h & 7) & 1 == 1, is, "rare bit of heap {h}");
            }
            for h in keys.right_lo..at {
                assert_eq!(
                    right[keys.top - h],
                    keys.key(u32::from(vals[h])),
                    "heap {h}"
                );
            }
            assert!(
                at - keys.right_lo >= at.min(300),
                "the latest heaps are kept"
            );
            // Through sides(): every pair (a, r − a) whose right heap is kept, for r up to
            // twice the heaps covered (past the buffer's top).
            for r in [at - 1, at + keys.right_lo, 2 * at - 2] {
                let Some(lo) = r.checked_sub(at - 1) else {
                    continue;
                };
                let (_, _, right) = keys.sides(r, lo);
                for a in lo..=r - keys.right_lo {
                    let h = r - a;
                    assert_eq!(right[a - lo], keys.key(u32::from(vals[h])), "r {r} a {a}");
                }
            }
        }
        // Keys are linear, and tell rare values apart.
        for a in 0..512u32 {
            for b in [0, 1, 77, 256, 511] {
                assert_eq!(keys.key(a ^ b), keys.key(a) ^ keys.key(b));
            }
        }
        let rare: Vec<u32> = (0..512).filter(|&v| is_rare(v, mask)).collect();
        let mut seen = [false; 256];
        for v in rare {
            assert!(!std::mem::replace(&mut seen[keys.key(v) as usize], true));
            assert_eq!(keys.rare_value(keys.key(v)), v);
        }
        assert!(seen.iter().all(|&s| s), "every key is a rare value's");
    }

    #[test]
    fn chunks_stay_inside_the_keys() {
        let vals: Vec<u16> = (0..4000u32).map(|h| (h % 300) as u16).collect();
        let mut keys = ScanKeys::new(0x1ee, 8, 1024);
        keys.extend(&vals);
        let (left_len, right_lo) = (keys.left.len(), keys.right_lo);
        for (r, lo, hi, last_rare) in [
            (3999, 1, 2000, 0),
            (3999, 5, 1990, 100),
            (3000, 1, 1500, 2900),
            (2500, 1, 1250, 0),
            (100, 1, 50, 0),
        ] {
            let end = keys.chunks_end(r, lo, hi, last_rare);
            assert!((end - lo).is_multiple_of(64));
            if end > lo {
                assert!(end <= left_len && end <= hi);
                assert!(r + 1 - end >= right_lo && r + 1 - end > last_rare);
            }
        }
        assert_eq!(
            keys.chunks_end(4001, 1, 2000, 0),
            1,
            "heap 4000 is not covered"
        );
    }
}
