//! The most recent earlier occurrence of the newest values of a sequence: the search under every
//! period the analysis finds, proved or observed (see the text of the `period` module for why
//! it finds every period worth reporting).
//!
//! Written `z(p)` for how far back from the newest value `at(n) = at(n − p)` holds, the search
//! asks for the smallest shift `p ≤ max_shift` with `z(p) ≥ k`. Two exact methods answer it:
//!
//! - **Compare blocks of shifts** (first): 64 shifts side by side, one bit each, compared one
//!   depth at a time against the newest values (`at(len − 1 − j − p)` against `at(len − 1 − j)`
//!   for `j = 0, 1, …`), until every bit is clear or one reaches depth `k`. Values of real games
//!   rarely repeat more than a few deep at a shift that is no period, so a block of 64 shifts
//!   usually costs 2–4 comparisons of 64 values: a small fraction of a cycle a shift.
//! - **A rolling hash** (the fallback): a polynomial hash modulo 2^64 of every window of `k`
//!   values, slid back from the newest, selects the windows worth comparing, each compared value
//!   by value (a hash never decides anything). One dependent multiply-add chain a shift, about 8
//!   cycles, whatever the values.
//!
//! Blocks cost more than the hash only on values that repeat deep at many shifts (a tail that is
//! almost periodic, a period whose multiples all reach deep): the block search then stops at a
//! budget of comparisons (one for every 8 shifts, plus the `k` a match needs) and the hash
//! searches the shifts it had not ruled out. Both return the same answer; the worst case costs
//! the hash plus a few per cent. O(len) time, O(1) memory.

use crate::engine::Cell;

/// A sequence read by index: the values themselves or their differences.
pub trait Sequence {
    /// Its length.
    fn len(&self) -> usize;
    /// Term `i`.
    fn at(&self, i: usize) -> u32;
    /// Bit `b` set when `at(lo + b) == c`, for `b < 64`; needs `lo + 64 ≤ len()`.
    fn eq_mask(&self, lo: usize, c: u32) -> u64;
}

/// The values of a slice.
#[derive(Debug, Clone, Copy)]
pub struct Plain<'a, T>(pub &'a [T]);

impl<T: Cell> Sequence for Plain<'_, T> {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn at(&self, i: usize) -> u32 {
        self.0[i].get()
    }

    #[inline]
    fn eq_mask(&self, lo: usize, c: u32) -> u64 {
        if c > T::MAX {
            return 0;
        }
        let w: &[T; 64] = self.0[lo..lo + 64].try_into().expect("64 values");
        eq_mask(w, T::from_u32(c))
    }
}

/// The differences `d(i) = G(i + 1) − G(i)` (modulo 2^32) of a slice of at least one value.
#[derive(Debug, Clone, Copy)]
pub struct Diffs<'a, T>(pub &'a [T]);

impl<T: Cell> Sequence for Diffs<'_, T> {
    fn len(&self) -> usize {
        self.0.len() - 1
    }

    #[inline]
    fn at(&self, i: usize) -> u32 {
        self.0[i + 1].get().wrapping_sub(self.0[i].get())
    }

    #[inline]
    fn eq_mask(&self, lo: usize, c: u32) -> u64 {
        let w: &[T; 65] = self.0[lo..lo + 65].try_into().expect("65 values");
        let d: [u32; 64] = std::array::from_fn(|b| w[b + 1].get().wrapping_sub(w[b].get()));
        eq_mask(&d, c)
    }
}

/// Bit `b` set when `w[b] == c`.
#[inline]
fn eq_mask<T: Cell>(w: &[T; 64], c: T) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::eq_mask(w, c)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        eq_mask_portable(w, c)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn eq_mask_portable<T: Cell>(w: &[T; 64], c: T) -> u64 {
    w.iter()
        .enumerate()
        .fold(0, |m, (b, &x)| m | u64::from(x == c) << b)
}

/// [`eq_mask`] with the SSE2 instructions every x86-64 processor has (16 lanes a compare, packed
/// to bytes, one `pmovmskb` for 16 lanes); compilers leave the portable loop two lanes a step.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    use crate::engine::Cell;

    #[inline]
    pub fn eq_mask<T: Cell>(w: &[T; 64], c: T) -> u64 {
        let p = w.as_ptr().cast::<__m128i>();
        let mut m = 0u64;
        // SAFETY: SSE2 is part of x86-64. `w` is 64 cells of `T::BITS` bits (u8, u16 or u32),
        // so the unaligned loads at p + 0 … p + 4·T::BITS/8 − 1 read inside it.
        unsafe {
            let mask16 = |x: __m128i| u64::from(_mm_movemask_epi8(x) as u16);
            match T::BITS {
                8 => {
                    let cv = _mm_set1_epi8(c.get() as i8);
                    for i in 0..4 {
                        let x = _mm_cmpeq_epi8(_mm_loadu_si128(p.add(i)), cv);
                        m |= mask16(x) << (16 * i);
                    }
                }
                16 => {
                    let cv = _mm_set1_epi16(c.get() as i16);
                    for i in 0..4 {
                        let a = _mm_cmpeq_epi16(_mm_loadu_si128(p.add(2 * i)), cv);
                        let b = _mm_cmpeq_epi16(_mm_loadu_si128(p.add(2 * i + 1)), cv);
                        m |= mask16(_mm_packs_epi16(a, b)) << (16 * i);
                    }
                }
                32 => {
                    let cv = _mm_set1_epi32(c.get() as i32);
                    for i in 0..4 {
                        let q = |r: usize| _mm_cmpeq_epi32(_mm_loadu_si128(p.add(4 * i + r)), cv);
                        let ab = _mm_packs_epi32(q(0), q(1));
                        let cd = _mm_packs_epi32(q(2), q(3));
                        m |= mask16(_mm_packs_epi16(ab, cd)) << (16 * i);
                    }
                }
                _ => unreachable!("cells are 8, 16 or 32 bits wide"),
            }
        }
        m
    }
}

/// `z(p)`: the largest `z` with `at(len − 1 − i) = at(len − 1 − i − p)` for all `i < z`. The
/// tail from `len − z(p) − p` is `p`-periodic.
pub fn match_len(s: &impl Sequence, p: usize) -> usize {
    let len = s.len();
    let mut z = 0;
    while p + z < len && s.at(len - 1 - z) == s.at(len - 1 - z - p) {
        z += 1;
    }
    z
}

/// The most recent earlier occurrence of the newest `k` terms: the smallest shift
/// `p ≤ max_shift` with `z(p) ≥ k`, and `z(p)` exactly. `None` when there is none.
pub fn first_occurrence(s: &impl Sequence, k: usize, max_shift: usize) -> Option<(usize, usize)> {
    if k == 0 || k >= s.len() {
        return None;
    }
    let max_shift = max_shift.min(s.len() - k);
    search_blocks(s, k, max_shift).unwrap_or_else(|p| rolling_hash_search(s, k, p, max_shift))
}

/// [`first_occurrence`] by blocks of 64 shifts (`1 ≤ k < len`, `max_shift ≤ len − k`), or,
/// when the budget of comparisons runs out, `Err(p)`: the shifts from `p` on are left to search.
fn search_blocks(
    s: &impl Sequence,
    k: usize,
    max_shift: usize,
) -> Result<Option<(usize, usize)>, usize> {
    let len = s.len();
    // Lanes b = 0 … 63 of a block hold the shifts p0 + 63 − b, so that heap lo + b, with
    // lo = len − 1 − j − (p0 + 63), is the one compared at depth j.
    let mut budget = max_shift / 8 + k + 64;
    let mut p0 = 1;
    while p0 + 63 <= max_shift {
        let mut alive = u64::MAX;
        let mut j = 0;
        while alive != 0 && j < k {
            if budget == 0 {
                return Err(p0);
            }
            budget -= 1;
            alive &= s.eq_mask(len - 1 - j - (p0 + 63), s.at(len - 1 - j));
            j += 1;
        }
        if alive != 0 {
            // The smallest shift is the highest lane.
            let p = p0 + 63 - (63 - alive.leading_zeros() as usize);
            return Ok(Some((p, match_len(s, p))));
        }
        p0 += 64;
    }
    // The last shifts, fewer than 64: one at a time.
    for p in p0..=max_shift {
        let mut j = 0;
        while j < k && s.at(len - 1 - j) == s.at(len - 1 - j - p) {
            if budget == 0 {
                return Err(p);
            }
            budget -= 1;
            j += 1;
        }
        if j == k {
            return Ok(Some((p, match_len(s, p))));
        }
    }
    Ok(None)
}

/// The base of the rolling hash, odd; the hash is taken modulo 2^64 (wrapping arithmetic), so
/// that the step from one window to the next is one multiplication long. Every window the hash
/// selects is compared value by value, so a collision costs a comparison, never a wrong answer.
const HASH_BASE: u64 = 0x0a3c_59e1_d2f4_b817;

/// [`first_occurrence`] among the shifts `p_lo ..= max_shift` (`1 ≤ p_lo`,
/// `max_shift ≤ len − k`), by a rolling hash of the windows of `k` terms slid back from shift
/// `p_lo`: `h(x) = Σ_{i<k} (at(x + i) + 1)·B^i` for the window starting at term `x`.
pub fn rolling_hash_search(
    s: &impl Sequence,
    k: usize,
    p_lo: usize,
    max_shift: usize,
) -> Option<(usize, usize)> {
    let len = s.len();
    let val = |i: usize| u64::from(s.at(i)) + 1;
    let window = |x: usize| {
        (0..k).rev().fold(0u64, |h, i| {
            h.wrapping_mul(HASH_BASE).wrapping_add(val(x + i))
        })
    };
    let top = (1..k).fold(1u64, |t, _| t.wrapping_mul(HASH_BASE)); // B^(k−1)
    let target = window(len - k);
    let mut p = p_lo;
    let mut h = window(len - k - p);
    loop {
        let x = len - k - p;
        if h == target && (0..k).all(|i| s.at(x + i) == s.at(len - k + i)) {
            return Some((p, match_len(s, p)));
        }
        if p >= max_shift {
            return None;
        }
        // Drop term x + k − 1 (the window's last), shift, add term x − 1.
        p += 1;
        h = h
            .wrapping_sub(val(x + k - 1).wrapping_mul(top))
            .wrapping_mul(HASH_BASE)
            .wrapping_add(val(x - 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, by brute force.
    fn by_definition(v: &[u32], k: usize, max_shift: usize) -> Option<(usize, usize)> {
        let len = v.len();
        let z = |p: usize| {
            (0..len - p)
                .take_while(|&i| v[len - 1 - i] == v[len - 1 - i - p])
                .count()
        };
        (k > 0 && k < len)
            .then(|| {
                (1..=max_shift.min(len - k))
                    .find(|&p| z(p) >= k)
                    .map(|p| (p, z(p)))
            })
            .flatten()
    }

    /// A sequence of `len` values: a random prefix, then `unit` repeated, with `noise` values
    /// changed at random places (so that shifts match deep without matching everywhere).
    fn sequence(prefix: &[u8], unit: &[u8], len: usize, noise: &[(usize, u8)]) -> Vec<u8> {
        let mut v: Vec<u8> = prefix.iter().copied().take(len).collect();
        while v.len() < len {
            v.push(unit[(v.len() - prefix.len()) % unit.len()]);
        }
        for &(at, x) in noise {
            if len > 0 {
                v[at % len] = x;
            }
        }
        v
    }

    proptest! {
        /// Both methods, on values and on differences, against the definition: long enough
        /// sequences that blocks of 64 shifts are used, patterns that make shifts match deep
        /// (so that the budget runs out and the hash takes over mid-way), and every `k`.
        #[test]
        fn blocks_and_hash_match_the_definition(
            prefix in prop::collection::vec(0u8..4, 0..300),
            unit in prop::collection::vec(0u8..4, 1..40),
            len in 1usize..700,
            noise in prop::collection::vec((0usize..700, 0u8..6), 0..4),
            k_frac in 0.0f64..1.0,
            shift_frac in 0.0f64..1.2,
        ) {
            let v = sequence(&prefix, &unit, len, &noise);
            let k = (k_frac * len as f64) as usize;
            let max_shift = (shift_frac * len as f64) as usize;
            let wide: Vec<u32> = v.iter().map(|&x| u32::from(x)).collect();
            let expected = by_definition(&wide, k, max_shift);
            prop_assert_eq!(first_occurrence(&Plain(&v[..]), k, max_shift), expected);
            prop_assert_eq!(first_occurrence(&Plain(&wide[..]), k, max_shift), expected);
            if k > 0 && k < len {
                let all = max_shift.min(len - k);
                let hashed = (all >= 1)
                    .then(|| rolling_hash_search(&Plain(&v[..]), k, 1, all))
                    .flatten();
                prop_assert_eq!(hashed, expected);
            }
            let diffs: Vec<u32> = wide.windows(2).map(|w| w[1].wrapping_sub(w[0])).collect();
            prop_assert_eq!(
                first_occurrence(&Diffs(&v[..]), k, max_shift),
                by_definition(&diffs, k, max_shift)
            );
        }
    }

    /// The values of real games (0.167 in bytes, Grundy's game in 16-bit cells), searched as the
    /// period checker searches them: the blocks decide every search within their budget (a long
    /// table run of 0.167 spent half its time in the rolling hash alone before them).
    #[test]
    fn blocks_decide_on_real_games() {
        use crate::engine::{compute, EngineKind};
        use crate::rules::Rule;
        for (code, n) in [("0.167", 1 << 18), ("4!.0", 1 << 16)] {
            let v = compute(&Rule::parse(code).unwrap(), n, EngineKind::Sparse).unwrap();
            crate::with_values!(&v, v => {
                for len in [n / 3, n / 2, n] {
                    let s = Plain(&v[..len]);
                    for (k, max_shift) in [(3 * len / 8, 3 * len / 8), (len / 2, len / 2)] {
                        let decided = search_blocks(&s, k, max_shift).is_ok();
                        assert!(decided, "{code} at {len}, k = {k}");
                    }
                    assert!(search_blocks(&Diffs(&v[..len]), len / 12, len - len / 12).is_ok());
                }
            });
        }
    }

    /// A value above the width of the cells matches nothing, and a deep periodic tail with a
    /// small period spends the budget and still finds the first occurrence past it.
    #[test]
    fn edge_cases() {
        let v: Vec<u8> = (0..5000u32).map(|i| (i % 7 == 0) as u8).collect();
        assert_eq!(Plain(&v[..]).eq_mask(0, 300), 0);
        // Values periodic with period 7 except one change 600 from the end: shifts 7, 14, …
        // match 599 deep, and the first that reaches 700 deep is 602 or beyond.
        let mut w = v.clone();
        w[5000 - 600] = 2;
        let wide: Vec<u32> = w.iter().map(|&x| u32::from(x)).collect();
        assert!(
            search_blocks(&Plain(&w[..]), 700, 4000).is_err(),
            "the budget runs out"
        );
        assert_eq!(
            first_occurrence(&Plain(&w[..]), 700, 4000),
            by_definition(&wide, 700, 4000)
        );
    }
}
