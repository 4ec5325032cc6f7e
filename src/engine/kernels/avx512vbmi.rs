//! The scan with AVX-512 (Ice Lake / Zen 4 extensions): 64 pairs at a time, each value looked up
//! in the set of targets (512 bits, in a register) with one byte permutation, the values that
//! hit packed into a buffer without a branch (`vpcompress`), and the buffer met after each chunk
//! at first (while targets are many, most chunks hold some) and after a batch of chunks later.
//! A chunk that holds a target costs no mispredicted branch; the price is that the scan may stop
//! up to a batch after the last target was met.

use super::{scan_tail, Cell, Columns, LaneKeys, NearLanes, ScanKeys, Targets};
use std::arch::x86_64::*;

/// Chunks of 64 pairs between two looks at the hits, once the first few chunks are done
/// (Officers and Grundy's game, 2^21 heaps: 2 and 8 a few per cent faster than 4 and 4; 0
/// first chunks, 16 a batch or 2 a batch slower).
pub(super) const BATCH: usize = 8;
/// Chunks met one by one at the start of a scan.
const FIRST: usize = 2;

/// Lanes of the 64 values whose bytes `idx` (value >> 3, bits 6 and 7 ignored) and `low`
/// (value & 7 in bits 0–2, other bits ignored) are given, that are in the 512-bit `set`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn set_hits(idx: __m512i, low: __m512i, set: __m512i) -> u64 {
    let byte = _mm512_permutexvar_epi8(idx, set);
    let pow2 = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
    let bit = _mm512_shuffle_epi8(pow2, _mm512_and_si512(low, _mm512_set1_epi8(7)));
    _mm512_test_epi8_mask(byte, bit)
}

/// `set` without the values `found`, which are marked in `row` and taken out of the map of
/// `tg`.
#[inline]
#[target_feature(enable = "avx512f")]
fn meet_found<T: Cell>(tg: &mut Targets<T>, set: __m512i, found: &[T], row: &mut [u8]) -> __m512i {
    // The set is for values below 512, and all there is of the targets (`Targets::bits`).
    debug_assert!(tg.vector());
    let wmask = tg.width - 1;
    assert!(wmask < 512 && row.len() > wmask);
    let mut set = set;
    for &v in found {
        let v = v.get() as usize & wmask;
        // SAFETY: v ≤ wmask < row.len() (checked above).
        unsafe { *row.get_unchecked_mut(v) = 1 };
        // Bit v of the 512: bit v & 63 of word v >> 6 (below 8).
        let bit = _mm512_maskz_set1_epi64(1 << (v >> 6), (1u64 << (v & 63)) as i64);
        set = _mm512_andnot_si512(bit, set);
    }
    set
}

/// Writes the set back to `tg` and counts the targets left.
#[inline]
#[target_feature(enable = "avx512f")]
fn store_set<T>(tg: &mut Targets<T>, set: __m512i) {
    // SAFETY: writes the 64 bytes of the set.
    unsafe { _mm512_storeu_si512(tg.values.as_mut_ptr() as *mut __m512i, set) };
    tg.need = tg
        .values
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")).count_ones() as usize)
        .sum();
}

/// The scan loop: `$chunk(a, set, found)` looks at the 64 pairs from `a` on, writes the
/// values that hit to `found` and returns how many.
macro_rules! scan_loop {
    ($row:ident, $tg:ident, $left:ident, $right:ident, $rr:ident, $lo:ident, $hi:ident, $found:ident, $chunk:ident) => {{
        // SAFETY: reads the 64 bytes of the set.
        let mut set = unsafe { _mm512_loadu_si512($tg.values.as_ptr() as *const __m512i) };
        let mut a = $lo;
        let mut chunks = 0;
        while a + 64 <= $hi {
            let batch = if chunks < FIRST { 1 } else { BATCH };
            let mut len = 0;
            for _ in 0..batch {
                if a + 64 > $hi {
                    break;
                }
                len += $chunk(a, set, &mut $found[len..]);
                a += 64;
                chunks += 1;
            }
            if len > 0 {
                set = meet_found($tg, set, &$found[..len], $row);
                if _mm512_test_epi64_mask(set, set) == 0 {
                    store_set($tg, set);
                    $tg.found = $found;
                    return Some(a);
                }
            }
        }
        store_set($tg, set);
        $tg.found = $found;
        scan_tail($row, $tg, $left, $right, $rr, a, $hi)
    }};
}

/// [`super::scan_keys`] (its checks done).
///
/// # Safety
/// The processor must have the extensions of [`super::TierKind::Avx512Vbmi`]; the chunks must be
/// within the keys (`keys.chunks_end(r, lo, end, _) == end`), the row at least 512 long.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
pub(super) unsafe fn scan_keys(
    row: &mut [u8],
    tg: &mut Targets<u16>,
    keys: &ScanKeys,
    r: usize,
    lo: usize,
    end: usize,
) -> Result<usize, usize> {
    debug_assert!(tg.vector() && row.len() >= 512);
    let (left, left_rare, right) = keys.sides(r, lo);
    // The words of the value set (values 64w..64w + 63) and of the key set (keys
    // 64j..64j + 63, j < 4, repeated in words 4 to 7 as the lookup wants): value word w
    // has key word w without bit d, where the key leaves out bit 6 + d of a value.
    let d = keys.bit() - 6;
    let below = (1i64 << d) - 1;
    let insert = |j: i64, one: i64| (((j & 3) >> d) << (d + 1)) | (j & below) | (one << d);
    let remove = |w: i64| ((w >> (d + 1)) << d) | (w & below);
    let word =
        |f: &dyn Fn(i64) -> i64| _mm512_set_epi64(f(7), f(6), f(5), f(4), f(3), f(2), f(1), f(0));
    let (zero_at, one_at) = (word(&|j| insert(j, 0)), word(&|j| insert(j, 1)));
    // SAFETY: reads the 64 bytes of the set.
    let values = unsafe { _mm512_loadu_si512(tg.values.as_ptr() as *const __m512i) };
    let mut set = _mm512_or_si512(
        _mm512_permutexvar_epi64(zero_at, values),
        _mm512_permutexvar_epi64(one_at, values),
    );
    // Found keys of one batch, at most 64 a chunk.
    let mut found = [0u8; (BATCH + 1) * 64];
    let shift = lo & 7;
    let chunk = |a: usize, set: __m512i, out: &mut [u8]| -> usize {
        assert!(out.len() >= 64 && a + 64 <= left.len() && a - lo + 64 <= right.len());
        // SAFETY: both 64-byte loads are in bounds (checked above); the bitmap has 16
        // bytes past the byte of heap left.len() − 1.
        let (x, rare) = unsafe {
            let l = _mm512_loadu_si512(left.as_ptr().add(a) as *const __m512i);
            let g = _mm512_loadu_si512(right.as_ptr().add(a - lo) as *const __m512i);
            let bits = left_rare.as_ptr().add(a >> 3) as *const [u8; 16];
            let rare = (u128::from_le_bytes(bits.read_unaligned()) >> shift) as u64;
            (_mm512_xor_si512(l, g), rare)
        };
        let hits = set_hits(_mm512_srli_epi16(x, 3), x, set) & !rare;
        // SAFETY: out holds 64 bytes (checked above).
        unsafe {
            _mm512_storeu_si512(
                out.as_mut_ptr() as *mut __m512i,
                _mm512_maskz_compress_epi8(hits, x),
            );
        }
        hits.count_ones() as usize
    };
    let mut a = lo;
    let mut chunks = 0;
    let mut done = false;
    while a < end && !done {
        let batch = if chunks < FIRST { 1 } else { BATCH };
        let mut len = 0;
        for _ in 0..batch {
            if a >= end {
                break;
            }
            len += chunk(a, set, &mut found[len..]);
            a += 64;
            chunks += 1;
        }
        for &k in &found[..len] {
            // Key k: bit k & 63 of word k >> 6, and of its copy four words on.
            let words = (1u8 << (k >> 6)) | (1u8 << ((k >> 6) + 4));
            let bit = _mm512_maskz_set1_epi64(words, (1u64 << (k & 63)) as i64);
            set = _mm512_andnot_si512(bit, set);
        }
        done = len > 0 && _mm512_test_epi64_mask(set, set) == 0;
    }
    // Back to values: each key left is the one target value of its word pair that was
    // in the set; the values no longer there are met, and marked.
    let left_values = _mm512_and_si512(_mm512_permutexvar_epi64(word(&remove), set), values);
    let met = _mm512_andnot_si512(left_values, values);
    let mut words = [0u64; 8];
    // SAFETY: 64 bytes into [u64; 8].
    unsafe { _mm512_storeu_si512(words.as_mut_ptr() as *mut __m512i, met) };
    for (w, &bits) in words.iter().enumerate() {
        // SAFETY: 64 (w + 1) ≤ 512 ≤ row.len().
        unsafe {
            _mm512_mask_storeu_epi8(
                row.as_mut_ptr().add(64 * w) as *mut i8,
                bits,
                _mm512_set1_epi8(1),
            )
        };
    }
    store_set(tg, left_values);
    if done {
        Ok(a)
    } else {
        Err(a)
    }
}

/// The values `left[a + i] ^ right[rr − a − i]`, `i < 64`, of byte cells.
///
/// # Safety
/// `a + 64 ≤ left.len()`, `a + 63 ≤ rr < right.len() + a`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn pairs_u8(left: &[u8], right: &[u8], rr: usize, a: usize) -> __m512i {
    let rev = _mm512_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
        48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
    );
    // SAFETY: the caller keeps both 64-byte loads in bounds.
    unsafe {
        let l = _mm512_loadu_si512(left.as_ptr().add(a) as *const __m512i);
        let r = _mm512_loadu_si512(right.as_ptr().add(rr - a - 63) as *const __m512i);
        _mm512_xor_si512(l, _mm512_permutexvar_epi8(rev, r))
    }
}

/// The values of pairs `a .. a + 31` and `a + 32 .. a + 63` of 16-bit cells.
///
/// # Safety
/// As [`pairs_u8`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn pairs_u16(left: &[u16], right: &[u16], rr: usize, a: usize) -> (__m512i, __m512i) {
    let rev = _mm512_set_epi16(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31,
    );
    // SAFETY: the caller keeps the four 64-byte loads in bounds.
    unsafe {
        let l0 = _mm512_loadu_si512(left.as_ptr().add(a) as *const __m512i);
        let l1 = _mm512_loadu_si512(left.as_ptr().add(a + 32) as *const __m512i);
        let r0 = _mm512_loadu_si512(right.as_ptr().add(rr - a - 31) as *const __m512i);
        let r1 = _mm512_loadu_si512(right.as_ptr().add(rr - a - 63) as *const __m512i);
        (
            _mm512_xor_si512(l0, _mm512_permutexvar_epi16(rev, r0)),
            _mm512_xor_si512(l1, _mm512_permutexvar_epi16(rev, r1)),
        )
    }
}

/// [`super::near_small_marks`] on the 64 values below `r` (`window`).
///
/// # Safety
/// The processor must have AVX-512 F, BW and VBMI; `window` holds 64 values.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn near_marks(window: &[u8], lanes: &NearLanes, limit: u32) -> u64 {
    assert!(window.len() >= 64 && lanes.count <= 64 && limit <= 64);
    // SAFETY: 64 bytes of the window and of each 64-byte table.
    let x = unsafe {
        let w = _mm512_loadu_si512(window.as_ptr() as *const __m512i);
        let idx = _mm512_loadu_si512(lanes.idx.as_ptr() as *const __m512i);
        let g = _mm512_loadu_si512(lanes.g.as_ptr() as *const __m512i);
        _mm512_xor_si512(_mm512_permutexvar_epi8(idx, w), g)
    };
    // Lanes past the pairs: 0xFF, which sets no bit.
    let live = u64::MAX.checked_shr(64 - lanes.count as u32).unwrap_or(0);
    let x = _mm512_mask_mov_epi8(_mm512_set1_epi8(-1), live, x);
    // Values from the limit on mark nothing: from 64 on, none is set; below 64, cleared here.
    word_of(x, lanes.count.div_ceil(8)) & u64::MAX.checked_shr(64 - limit).unwrap_or(0)
}

/// The word of the values of the first `8 · groups` bytes of `x` (bit `v` for a value `v`;
/// from 64 on, none), 8 bytes a group: each taken to the low byte of a 64-bit lane by one
/// byte permutation with the other bytes zeroed, and `1` shifted by it.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn word_of(x: __m512i, groups: usize) -> u64 {
    let (one, lane) = (
        _mm512_set1_epi64(1),
        _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
    );
    let mut seen = _mm512_setzero_si512();
    for k in 0..groups.min(8) {
        let idx = _mm512_add_epi64(lane, _mm512_set1_epi64(8 * k as i64));
        let v = _mm512_maskz_permutexvar_epi8(0x0101_0101_0101_0101, idx, x);
        seen = _mm512_or_si512(seen, shift_left_64(one, v));
    }
    _mm512_reduce_or_epi64(seen) as u64
}

super::exact_shift!(
    /// `_mm512_sllv_epi64(a, count)` as `vpsllvq` (the macro `exact_shift` says why).
    shift_left_64,
    "vpsllvq",
    __m512i,
    zmm_reg,
    "avx512f"
);

/// [`super::small_scan`] over the whole chunks of 64 pairs from `a` on
/// ([`super::small_scan_chunks`]), each chunk one 64-byte load a side and one byte
/// permutation to reverse the right side.
///
/// # Safety
/// The processor must have AVX-512 F, BW and VBMI; `hi ≤ r + 1`, `r − a < vals.len()` (when
/// `a < hi`) and every target below the limit of the values ([`super::small_scan`] checks
/// them).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,bmi1,popcnt")]
pub(super) unsafe fn small_scan(
    vals: &[u8],
    r: usize,
    a: usize,
    hi: usize,
    targets: u64,
) -> (u64, usize) {
    let reverse = _mm512_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
        48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
    );
    // The values of the pairs (b, r − b), b in a..a + 64.
    let chunk = |a: usize| {
        // SAFETY: a + 64 ≤ hi ≤ r + 1 ≤ vals.len() for the left parts; the right ones run
        // from r + 1 − a − 64 ≥ 0 to r − a < vals.len().
        unsafe {
            let left = _mm512_loadu_si512(vals.as_ptr().add(a) as *const __m512i);
            let right = _mm512_loadu_si512(vals.as_ptr().add(r + 1 - a - 64) as *const __m512i);
            _mm512_xor_si512(left, _mm512_permutexvar_epi8(reverse, right))
        }
    };
    let seen = |a: usize, _| word_of(chunk(a), 8);
    let meets = |a: usize, one: __m512i, two: __m512i| {
        let x = chunk(a);
        (
            _mm512_cmpeq_epi8_mask(x, one) != 0,
            _mm512_cmpeq_epi8_mask(x, two) != 0,
        )
    };
    let wanted = |t: u32| _mm512_set1_epi8(t as i8);
    super::small_scan_chunks(a, hi, targets, seen, wanted, meets)
}

/// [`super::lane_marks`] (its checks done) with `R` registers of keys: `used` bytes of
/// each row, a multiple of 64, at most 512.
///
/// # Safety
/// The processor must have the extensions of [`super::TierKind::Avx512Vbmi`]; `len ≤ vals.len()`,
/// `(len − 1) · stride + used ≤ rows.len()`, cells of 8 or 16 bits. A column with `q + len >
/// vals.len()` panics.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512bitalg")]
pub(super) unsafe fn lane_marks<T: Cell, const R: usize, const ALL_COMMON: bool>(
    rows: &mut [u8],
    stride: usize,
    used: usize,
    vals: &[T],
    cols: &[Columns<'_>],
    len: usize,
    keys: &LaneKeys,
) {
    let one = _mm512_set1_epi16(1);
    let mask = _mm512_set1_epi16(keys.mask as i16);
    let low = _mm512_set1_epi16(keys.low as i16);
    let none = _mm512_set1_epi16(-1);
    let mut lanes = [[0u16; 32]; 16];
    for h0 in (0..len).step_by(32) {
        let n = (len - h0).min(32);
        let live = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let mut acc = [_mm512_setzero_si512(); R];
        let mut held: Option<__m512i> = None;
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
                // Common values get their key, the others one that marks nothing.
                let common =
                    _mm512_test_epi16_mask(_mm512_popcnt_epi16(_mm512_and_si512(x, mask)), one);
                _mm512_mask_mov_epi16(none, common, key)
            };
            // Two columns a step: their marks in register w (1 << (key − 16w), 0 where that
            // is not in 0..16) ORed in by one `vpternlogd` (as AVX-512 BW's lanes).
            let Some(k0) = held.take() else {
                held = Some(key);
                continue;
            };
            for (w, a) in acc.iter_mut().enumerate() {
                let less = _mm512_set1_epi16(16 * w as i16);
                let s0 = _mm512_sllv_epi16(one, _mm512_sub_epi16(k0, less));
                let s1 = _mm512_sllv_epi16(one, _mm512_sub_epi16(key, less));
                *a = _mm512_ternarylogic_epi32(*a, s0, s1, 0xFE);
            }
        }
        if let Some(k0) = held {
            for (w, a) in acc.iter_mut().enumerate() {
                let shift = _mm512_sub_epi16(k0, _mm512_set1_epi16(16 * w as i16));
                *a = _mm512_or_si512(*a, _mm512_sllv_epi16(one, shift));
            }
        }
        for (w, a) in acc.iter().enumerate() {
            // SAFETY: 64 bytes into a [u16; 32].
            unsafe { _mm512_storeu_si512(lanes[w].as_mut_ptr() as *mut __m512i, *a) };
        }
        for k in 0..n {
            // Keys 64i .. 64i + 63 of heap h0 + k, a byte each (0xFF where marked).
            let quarter = |i: usize| {
                let word = |w: usize| u64::from(lanes[w][k]) << (16 * (w % 4));
                _mm512_movm_epi8((4 * i..4 * i + 4).fold(0, |m, w| m | word(w)))
            };
            let (k0, k1) = (quarter(0), quarter(1));
            let (k2, k3) = if R > 8 {
                (quarter(2), quarter(3))
            } else {
                (_mm512_setzero_si512(), _mm512_setzero_si512())
            };
            let row = rows[(h0 + k) * stride..].as_mut_ptr();
            for c in (0..used).step_by(64) {
                // SAFETY: c + 64 ≤ 512 bytes of the tables; (h0 + k) · stride + c + 64 ≤
                // (len − 1) · stride + used ≤ rows.len().
                unsafe {
                    let idx = _mm512_loadu_si512(keys.key_of.as_ptr().add(c) as *const __m512i);
                    let cls = _mm512_loadu_si512(keys.common.as_ptr().add(c) as *const __m512i);
                    let mut hit = _mm512_permutex2var_epi8(k0, idx, k1);
                    if R > 8 {
                        // Keys from 128 on: bit 7 of the index.
                        let upper = _mm512_movepi8_mask(idx);
                        let high = _mm512_permutex2var_epi8(k2, idx, k3);
                        hit = _mm512_mask_mov_epi8(hit, upper, high);
                    }
                    let hit = _mm512_and_si512(hit, cls);
                    let at = row.add(c) as *mut __m512i;
                    _mm512_storeu_si512(at, _mm512_or_si512(_mm512_loadu_si512(at), hit));
                }
            }
        }
    }
}

/// [`super::scan`] over byte values.
///
/// # Safety
/// The processor must have the extensions of [`super::TierKind::Avx512Vbmi`]; `hi ≤ left.len()`,
/// `hi ≤ rr + 1`, `rr − lo < right.len()`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
pub(super) unsafe fn scan_u8(
    row: &mut [u8],
    tg: &mut Targets<u8>,
    left: &[u8],
    right: &[u8],
    rr: usize,
    lo: usize,
    hi: usize,
) -> Option<usize> {
    let chunk = |a: usize, set: __m512i, out: &mut [u8]| {
        assert!(out.len() >= 64);
        // SAFETY: a + 64 ≤ hi ≤ left.len(); rr − a − 63 ≥ rr + 1 − hi ≥ 0.
        let x = unsafe { pairs_u8(left, right, rr, a) };
        // Values below 256: the set's low half, in both halves, so that the bits the 16-bit
        // shift brings into bit 5 of the index do not matter.
        let set = _mm512_broadcast_i64x4(_mm512_castsi512_si256(set));
        let hits = set_hits(_mm512_srli_epi16(x, 3), x, set);
        // SAFETY: out holds 64 bytes (checked above).
        unsafe {
            _mm512_storeu_si512(
                out.as_mut_ptr() as *mut __m512i,
                _mm512_maskz_compress_epi8(hits, x),
            );
        }
        hits.count_ones() as usize
    };
    let mut found = std::mem::take(&mut tg.found);
    found.resize((BATCH + 1) * 64, 0);
    scan_loop!(row, tg, left, right, rr, lo, hi, found, chunk)
}

/// [`super::scan`] over 16-bit values below 512.
///
/// # Safety
/// As [`scan_u8`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt")]
pub(super) unsafe fn scan_u16(
    row: &mut [u8],
    tg: &mut Targets<u16>,
    left: &[u16],
    right: &[u16],
    rr: usize,
    lo: usize,
    hi: usize,
) -> Option<usize> {
    // The low bytes of the 64 words of two registers.
    let evens = _mm512_set_epi8(
        126, 124, 122, 120, 118, 116, 114, 112, 110, 108, 106, 104, 102, 100, 98, 96, 94, 92, 90,
        88, 86, 84, 82, 80, 78, 76, 74, 72, 70, 68, 66, 64, 62, 60, 58, 56, 54, 52, 50, 48, 46, 44,
        42, 40, 38, 36, 34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0,
    );
    let chunk = |a: usize, set: __m512i, out: &mut [u16]| {
        assert!(out.len() >= 64);
        // SAFETY: as in scan_u8.
        let (x0, x1) = unsafe { pairs_u16(left, right, rr, a) };
        // Values below 512: value >> 3 is below 64, a byte index into the set.
        let idx =
            _mm512_permutex2var_epi8(_mm512_srli_epi16(x0, 3), evens, _mm512_srli_epi16(x1, 3));
        let hits = set_hits(idx, _mm512_permutex2var_epi8(x0, evens, x1), set);
        let (h0, h1) = (hits as u32, (hits >> 32) as u32);
        let n0 = h0.count_ones() as usize;
        // SAFETY: out holds 64 values (checked above), n0 ≤ 32.
        unsafe {
            let p = out.as_mut_ptr();
            _mm512_storeu_si512(p as *mut __m512i, _mm512_maskz_compress_epi16(h0, x0));
            _mm512_storeu_si512(
                p.add(n0) as *mut __m512i,
                _mm512_maskz_compress_epi16(h1, x1),
            );
        }
        n0 + h1.count_ones() as usize
    };
    let mut found = std::mem::take(&mut tg.found);
    found.resize((BATCH + 1) * 64, 0);
    scan_loop!(row, tg, left, right, rr, lo, hi, found, chunk)
}
