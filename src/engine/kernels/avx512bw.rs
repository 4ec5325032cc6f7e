//! The loops with the first AVX-512 extensions (F, BW, VL, DQ, CD: Skylake-SP, Cascade Lake,
//! and every later AVX-512 processor): step 1 in lanes, 32 heaps a register of 16-bit lanes as
//! on VBMI, with the class test done by shifts instead of BITALG's `vpopcntw`, and each heap's
//! keys read into its row 64 values a step with in-lane byte shuffles (`vpshufb`) instead of
//! VBMI's two-register permutations; the scan over byte values 64 pairs a step, on AVX2's key set
//! of the targets. Also small mode's far marks (F only), the search for the least open value and
//! the targets' set (F, BW), which VBMI's tier shares.

use super::avx2::without_key;
use super::tier::TargetSet;
use super::{scan_tail, Cell, Columns, LaneKeys, ScanKeys, Targets};
use std::arch::x86_64::*;

/// [`super::lane_marks`] (its checks done) with `R` registers of 16 keys a lane (at most 16:
/// 256 keys): `used` bytes of each row, a multiple of 64, at most 512.
///
/// # Safety
/// The processor must have AVX-512 F, BW and VL; `len ≤ vals.len()`, `(len − 1) · stride + used ≤
/// rows.len()`, cells of 8 or 16 bits. A column with `q + len > vals.len()` panics.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn lane_marks<T: Cell, const R: usize, const ALL_COMMON: bool>(
    rows: &mut [u8],
    stride: usize,
    used: usize,
    vals: &[T],
    cols: &[Columns<'_>],
    len: usize,
    keys: &LaneKeys,
) {
    const { assert!(R <= 16) };
    let one = _mm512_set1_epi16(1);
    let mask = _mm512_set1_epi16(keys.mask as i16);
    let low = _mm512_set1_epi16(keys.low as i16);
    let none = _mm512_set1_epi16(-1);
    // Bit i of 0x6996: the parity of the 4-bit value i.
    let parity = _mm512_set1_epi16(0x6996);
    let nibble = _mm512_set1_epi16(15);
    // The 256-bit key set of one heap, 16 keys a word.
    let mut lanes = [[0u16; 32]; 16];
    for h0 in (0..len).step_by(32) {
        let n = (len - h0).min(32);
        let live = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let mut acc = [_mm512_setzero_si512(); R];
        for (q, g) in cols.iter().flat_map(Columns::iter) {
            assert!(q <= vals.len() - len, "a column past the values");
            // SAFETY: q + h0 + n ≤ q + len ≤ vals.len(): the lanes loaded are in bounds.
            let x = unsafe {
                let at = vals.as_ptr().add(q + h0);
                if T::BITS == 8 {
                    _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(live, at as *const i8))
                } else {
                    _mm512_maskz_loadu_epi16(live, at as *const i16)
                }
            };
            let x = _mm512_xor_si512(x, _mm512_set1_epi16(g as i16));
            // Bits below b from x, the others from x >> 1.
            let key = _mm512_ternarylogic_epi32(low, x, _mm512_srli_epi16(x, 1), 0xCA);
            let key = if ALL_COMMON {
                key
            } else {
                // Common values (popcount(x & mask) odd) keep their key, the others get one
                // that marks nothing.
                let p = _mm512_and_si512(x, mask);
                let p = _mm512_xor_si512(p, _mm512_srli_epi16(p, 8));
                let p = _mm512_xor_si512(p, _mm512_srli_epi16(p, 4));
                let odd = _mm512_srlv_epi16(parity, _mm512_and_si512(p, nibble));
                let common = _mm512_test_epi16_mask(odd, one);
                _mm512_mask_mov_epi16(none, common, key)
            };
            for (w, a) in acc.iter_mut().enumerate() {
                // 1 << (key − 16w) in register w; 0 where that is not in 0..16.
                let shift = _mm512_sub_epi16(key, _mm512_set1_epi16(16 * w as i16));
                *a = _mm512_or_si512(*a, _mm512_sllv_epi16(one, shift));
            }
        }
        for (w, a) in acc.iter().enumerate() {
            // SAFETY: 64 bytes into a [u16; 32].
            unsafe { _mm512_storeu_si512(lanes[w].as_mut_ptr() as *mut __m512i, *a) };
        }
        for k in 0..n {
            // The keys of heap h0 + k: key i is bit i & 7 of byte i >> 3.
            let mut words = [0u16; 16];
            for (w, lane) in lanes.iter().take(R).enumerate() {
                words[w] = lane[k];
            }
            // SAFETY: 32 bytes of a [u16; 16].
            let set = unsafe { _mm256_loadu_si256(words.as_ptr() as *const __m256i) };
            let below = _mm512_broadcast_i32x4(_mm256_castsi256_si128(set));
            let above = _mm512_broadcast_i32x4(_mm256_extracti128_si256::<1>(set));
            let row = rows[(h0 + k) * stride..].as_mut_ptr();
            for c in (0..used).step_by(64) {
                // SAFETY: c + 64 ≤ 512 bytes of the tables; (h0 + k) · stride + c + 64 ≤
                // (len − 1) · stride + used ≤ rows.len().
                unsafe {
                    let key = _mm512_loadu_si512(keys.key_of.as_ptr().add(c) as *const __m512i);
                    let cls = _mm512_loadu_si512(keys.common.as_ptr().add(c) as *const __m512i);
                    let at = row.add(c) as *mut __m512i;
                    let hit = _mm512_and_si512(key_hits(key, below, above), cls);
                    _mm512_storeu_si512(at, _mm512_or_si512(_mm512_loadu_si512(at), hit));
                }
            }
        }
    }
}

/// 0xFF in the lanes of the 64 bytes `k` that are in the 256-bit set whose bytes 0–15 are
/// `below` and 16–31 `above` (each in all four 128-bit lanes), 0 in the others.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn key_hits(k: __m512i, below: __m512i, above: __m512i) -> __m512i {
    let bit_of = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
    // Byte k >> 3 of the set: bit 7 of k picks the half.
    let idx = _mm512_and_si512(_mm512_srli_epi16(k, 3), _mm512_set1_epi8(15));
    let byte = _mm512_mask_blend_epi8(
        _mm512_movepi8_mask(k),
        _mm512_shuffle_epi8(below, idx),
        _mm512_shuffle_epi8(above, idx),
    );
    let bit = _mm512_shuffle_epi8(bit_of, _mm512_and_si512(k, _mm512_set1_epi8(7)));
    _mm512_movm_epi8(_mm512_test_epi8_mask(byte, bit))
}

/// [`super::small_columns`] for a block of 64 heaps, the block's 64 words in eight registers.
///
/// # Safety
/// The processor must have AVX-512 F.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn small_columns(
    far: &mut [u64; 64],
    vals: &[u8],
    columns: &[(usize, u32)],
    limit: u32,
) {
    let one = _mm512_set1_epi64(1);
    let mut acc = [_mm512_setzero_si512(); 8];
    for &(start, g) in columns {
        let column = &vals[start..start + 64];
        let g = _mm512_set1_epi64(i64::from(g));
        for (k, acc) in acc.iter_mut().enumerate() {
            // SAFETY: bytes 8k..8k + 8 of the 64 of the column.
            let v = unsafe {
                _mm512_cvtepu8_epi64(_mm_loadl_epi64(column.as_ptr().add(8 * k) as *const _))
            };
            // Values of 64 and more shift the bit out.
            *acc = _mm512_or_si512(*acc, _mm512_sllv_epi64(one, _mm512_xor_si512(v, g)));
        }
    }
    // Values from the limit on mark nothing ([`small_bit`]).
    let keep = _mm512_set1_epi64(u64::MAX.checked_shr(64 - limit).unwrap_or(0) as i64);
    for (words, acc) in far.chunks_exact_mut(8).zip(acc) {
        // SAFETY: 8 words in and out.
        unsafe {
            let old = _mm512_loadu_si512(words.as_ptr() as *const __m512i);
            let new = _mm512_or_si512(old, _mm512_and_si512(acc, keep));
            _mm512_storeu_si512(words.as_mut_ptr() as *mut __m512i, new);
        }
    }
}

/// [`super::first_open_on`].
///
/// # Safety
/// The processor must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn first_open(row: &[u8], class: &[u8], from: usize) -> u32 {
    let len = row.len().min(class.len());
    let mut i = from & !63;
    while i + 64 <= len {
        // SAFETY: i + 64 ≤ len ≤ row.len(), class.len().
        let (r, c) = unsafe {
            (
                _mm512_loadu_si512(row.as_ptr().add(i) as *const __m512i),
                _mm512_loadu_si512(class.as_ptr().add(i) as *const __m512i),
            )
        };
        let open = _mm512_testn_epi8_mask(r, r) & _mm512_test_epi8_mask(c, c);
        if open != 0 {
            return (i + open.trailing_zeros() as usize) as u32;
        }
        i += 64;
    }
    (i..len)
        .find(|&v| row[v] == 0 && class[v] != 0)
        .map_or(u32::MAX, |v| v as u32)
}

/// [`super::open_set_steps`] 64 values a step.
///
/// # Safety
/// The processor must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub(super) unsafe fn open_set(set: &mut [u8; 64], row: &[u8], class: &[u8], end: usize) -> usize {
    super::open_set_steps::<8>(set, row, class, end, |i| {
        // SAFETY: i + 64 ≤ row.len(), class.len() (checked by the driver).
        let (r, c) = unsafe {
            (
                _mm512_loadu_si512(row.as_ptr().add(i) as *const __m512i),
                _mm512_loadu_si512(class.as_ptr().add(i) as *const __m512i),
            )
        };
        _mm512_testn_epi8_mask(r, r) & _mm512_test_epi8_mask(c, c)
    })
}

/// Steps of 64 pairs between two looks at the hits of [`scan_u8`], once the first few are done
/// (as AVX2's scan, whose steps are half as long).
const BATCH: usize = 2;
/// Steps met one by one at the start of [`scan_u8`] (where targets are many).
const FIRST: usize = 2;

/// The 256-bit `set` as [`key_hits`] wants it: bytes 0–15, and bytes 16–31, in all four lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn quarters(set: __m256i) -> (__m512i, __m512i) {
    (
        _mm512_broadcast_i32x4(_mm256_castsi256_si128(set)),
        _mm512_broadcast_i32x4(_mm256_extracti128_si256::<1>(set)),
    )
}

/// The values `left[a + i] ^ right[rr − a − i]`, `i < 64`, of byte cells: the right side
/// reversed with an in-lane byte shuffle and a swap of the lanes (no VBMI).
///
/// # Safety
/// `a + 64 ≤ left.len()`, `a + 63 ≤ rr < right.len() + a`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn pairs_u8(left: &[u8], right: &[u8], rr: usize, a: usize) -> __m512i {
    let rev = _mm512_set4_epi32(0x0001_0203, 0x0405_0607, 0x0809_0a0b, 0x0c0d_0e0f);
    // SAFETY: the caller keeps both 64-byte loads in bounds.
    unsafe {
        let l = _mm512_loadu_si512(left.as_ptr().add(a) as *const __m512i);
        let r = _mm512_loadu_si512(right.as_ptr().add(rr - a - 63) as *const __m512i);
        let r = _mm512_shuffle_epi8(r, rev);
        _mm512_xor_si512(l, _mm512_shuffle_i64x2::<0x1B>(r, r))
    }
}

/// [`super::scan`] over byte values with the targets' key set of AVX2 (below 256 a key is its
/// value), 64 pairs a step: each value looked up in the set with in-lane byte shuffles
/// ([`key_hits`]), the hits of a batch of steps met afterwards in order, as AVX2's
/// `scan_steps` does 32 at a time; the stop is the pair after the one that met the last target,
/// exactly as the portable scan's.
///
/// # Safety
/// The processor must have AVX-512 F, BW, VL and AVX2; `hi ≤ left.len()`, `hi ≤ rr + 1`,
/// `rr − lo < right.len()`; the targets keep AVX2's key set.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,bmi1,popcnt")]
pub(super) unsafe fn scan_u8(
    row: &mut [u8],
    tg: &mut Targets<u8>,
    left: &[u8],
    right: &[u8],
    rr: usize,
    lo: usize,
    hi: usize,
) -> Option<usize> {
    debug_assert!(tg.set == TargetSet::Avx2Keys && tg.width <= 256);
    // SAFETY: the 32 bytes of the key set.
    let mut set = unsafe { _mm256_loadu_si256(tg.keys.as_ptr() as *const __m256i) };
    let (mut below, mut above) = quarters(set);
    let mut xs = [[0u8; 64]; BATCH];
    let mut hits = [0u64; BATCH];
    let mut a = lo;
    let mut steps = 0;
    let found = 'scan: {
        while a + 64 <= hi {
            let batch = if steps < FIRST { 1 } else { BATCH }.min((hi - a) / 64);
            let mut any = 0;
            for j in 0..batch {
                // SAFETY: a + 64 (j + 1) ≤ hi ≤ left.len(); rr − a − 64j − 63 ≥ rr + 1 − hi;
                // 64 bytes into xs[j].
                let x = unsafe { pairs_u8(left, right, rr, a + 64 * j) };
                unsafe { _mm512_storeu_si512(xs[j].as_mut_ptr() as *mut __m512i, x) };
                hits[j] = _mm512_movepi8_mask(key_hits(x, below, above));
                any |= hits[j];
            }
            if any != 0 {
                for j in 0..batch {
                    let mut h = hits[j];
                    while h != 0 {
                        let i = h.trailing_zeros() as usize;
                        h &= h - 1;
                        // A value met twice in the batch is a target only the first time.
                        let (k, target) = tg.meet_any(xs[j][i], row);
                        set = without_key(set, k, target);
                        if tg.need == 0 {
                            break 'scan Some(a + 64 * j + i + 1);
                        }
                    }
                }
                (below, above) = quarters(set);
            }
            a += 64 * batch;
            steps += batch;
        }
        None
    };
    // SAFETY: as above.
    unsafe { _mm256_storeu_si256(tg.keys.as_mut_ptr() as *mut __m256i, set) };
    found.or_else(|| scan_tail(row, tg, left, right, rr, a, hi))
}

/// [`super::scan_keys`] (its checks done) with AVX2's key set of the targets, 64 pairs a step:
/// the left and right keys of a step are one load each (the right side is stored reversed),
/// their XOR looked up in the key set with in-lane byte shuffles ([`key_hits`]); a heap that is
/// a rare position is left out (its pair's value is common); a hit's key names its rare value,
/// which is met in the set of values. The hits of a batch of steps are met afterwards, in order,
/// so the stop is the pair after the one that met the last target, as AVX2's.
///
/// # Safety
/// The processor must have AVX-512 F, BW, VL and AVX2; the chunks must be within the keys
/// (`keys.chunks_end(r, lo, end, _) == end`), the targets keyed as the scan's keys are.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,bmi1,popcnt")]
pub(super) unsafe fn scan_keys(
    row: &mut [u8],
    tg: &mut Targets<u16>,
    keys: &ScanKeys,
    r: usize,
    lo: usize,
    end: usize,
) -> Result<usize, usize> {
    debug_assert!(tg.set == TargetSet::Avx2Keys);
    let (left, left_rare, right) = keys.sides(r, lo);
    assert!(end <= left.len() && end - lo <= right.len() && row.len() >= 512);
    let shift = lo & 7;
    // SAFETY: the 32 bytes of the key set.
    let mut set = unsafe { _mm256_loadu_si256(tg.keys.as_ptr() as *const __m256i) };
    let (mut below, mut above) = quarters(set);
    let mut xs = [[0u8; 64]; BATCH];
    let mut hits = [0u64; BATCH];
    let mut a = lo;
    let mut steps = 0;
    let found = 'scan: {
        while a + 64 <= end {
            let batch = if steps < FIRST { 1 } else { BATCH }.min((end - a) / 64);
            let mut any = 0;
            for j in 0..batch {
                let at = a + 64 * j;
                // SAFETY: at + 64 ≤ end ≤ left.len(), at − lo + 64 ≤ right.len() (checked
                // above); the bitmap has 16 bytes past the byte of heap left.len() − 1; 64 bytes
                // into xs[j].
                let (x, rare) = unsafe {
                    let l = _mm512_loadu_si512(left.as_ptr().add(at) as *const __m512i);
                    let g = _mm512_loadu_si512(right.as_ptr().add(at - lo) as *const __m512i);
                    let bits = left_rare.as_ptr().add(at >> 3) as *const [u8; 16];
                    let rare = (u128::from_le_bytes(bits.read_unaligned()) >> shift) as u64;
                    let x = _mm512_xor_si512(l, g);
                    _mm512_storeu_si512(xs[j].as_mut_ptr() as *mut __m512i, x);
                    (x, rare)
                };
                hits[j] = _mm512_movepi8_mask(key_hits(x, below, above)) & !rare;
                any |= hits[j];
            }
            if any != 0 {
                for j in 0..batch {
                    let mut h = hits[j];
                    while h != 0 {
                        let i = h.trailing_zeros() as usize;
                        h &= h - 1;
                        // A hit's key names its rare value, a pair's: marked whether or not it
                        // is a target still, and taken out of both sets.
                        let k = xs[j][i];
                        let v = keys.rare_value(k) as usize;
                        let byte = &mut tg.values[v >> 3];
                        tg.need -= usize::from((*byte >> (v & 7)) & 1);
                        *byte &= !(1 << (v & 7));
                        set = without_key(set, k, 1);
                        // SAFETY: rare values are below 512 ≤ row.len() (checked above).
                        unsafe { *row.get_unchecked_mut(v) = 1 };
                        if tg.need == 0 {
                            break 'scan Ok(a + 64 * j + i + 1);
                        }
                    }
                }
                (below, above) = quarters(set);
            }
            a += 64 * batch;
            steps += batch;
        }
        Err(a)
    };
    // SAFETY: as above.
    unsafe { _mm256_storeu_si256(tg.keys.as_mut_ptr() as *mut __m256i, set) };
    found
}
