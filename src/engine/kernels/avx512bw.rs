//! The loops with the first AVX-512 extensions (F, BW, VL, DQ, CD: Skylake-SP, Cascade Lake,
//! and every later AVX-512 processor): step 1 in lanes, 32 heaps a register of 16-bit lanes as
//! on VBMI, with the class test done by shifts instead of BITALG's `vpopcntw`, two columns'
//! marks ORed in by one `vpternlogd`, and each heap's keys spread into its row 64 values a step
//! with two `pdep` (BMI2) and a byte mask instead of VBMI's two-register permutations; the
//! scan's head on AVX2's sorted columns, 16 heaps a register of 32-bit lanes. Also small mode's
//! far marks (F only), the search for the least open value and the targets' set (F, BW), which
//! VBMI's tier shares. The scans are AVX2's, in runs (`Tier::scan_runs`): this tier's own, 64
//! pairs a step in order, were slower (results/avx2-methods.md §17).

use super::{Cell, Columns, HeadColumns, LaneKeys};
use std::arch::x86_64::*;

/// [`super::lane_marks`] (its checks done) with `R` registers of 16 keys a lane (at most 16:
/// 256 keys): `used` bytes of each row, a multiple of 64, at most 512.
///
/// # Safety
/// The processor must have AVX-512 F, BW and VL, and BMI2; `len ≤ vals.len()`, `(len − 1) ·
/// stride + used ≤ rows.len()`, cells of 8 or 16 bits. A column with `q + len > vals.len()` panics.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,bmi2")]
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
    let spread = Spread::of(keys);
    for h0 in (0..len).step_by(32) {
        let n = (len - h0).min(32);
        let live = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let mut acc = [_mm512_setzero_si512(); R];
        let key_of = |q: usize, g: u32| -> __m512i {
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
            if ALL_COMMON {
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
            }
        };
        // Two columns a step: their marks in register w (1 << (key − 16w), 0 where that is
        // not in 0..16) ORed in by one `vpternlogd`.
        let mut it = cols.iter().flat_map(Columns::iter);
        while let Some((q, g)) = it.next() {
            let k0 = key_of(q, g);
            // A missing second column's key marks nothing.
            let k1 = it.next().map_or(none, |(q, g)| key_of(q, g));
            for (w, a) in acc.iter_mut().enumerate() {
                let less = _mm512_set1_epi16(16 * w as i16);
                let s0 = _mm512_sllv_epi16(one, _mm512_sub_epi16(k0, less));
                let s1 = _mm512_sllv_epi16(one, _mm512_sub_epi16(k1, less));
                *a = _mm512_ternarylogic_epi32(*a, s0, s1, 0xFE);
            }
        }
        for (w, a) in acc.iter().enumerate() {
            // SAFETY: 64 bytes into a [u16; 32].
            unsafe { _mm512_storeu_si512(lanes[w].as_mut_ptr() as *mut __m512i, *a) };
        }
        for k in 0..n {
            // The keys of heap h0 + k: key i is bit i & 63 of word i >> 6.
            let mut set = [0u64; 4];
            for (w, lane) in lanes.iter().take(R).enumerate() {
                set[w / 4] |= u64::from(lane[k]) << (16 * (w % 4));
            }
            // SAFETY: (h0 + k) · stride + used ≤ (len − 1) · stride + used ≤ rows.len().
            unsafe { mark_row(&mut rows[(h0 + k) * stride..], &set, used, keys, &spread) };
        }
    }
}

/// How a heap's set of keys ([`LaneKeys`]) spreads over the values of its row, 64 a step.
struct Spread {
    /// The mask's lowest bit `b` (the bit a key leaves out) …
    b: usize,
    /// … the bits below it …
    low: usize,
    /// … and, for `b < 6`, the values below 64 with bit `b` set.
    odd: u64,
}

impl Spread {
    /// For the keys `keys`.
    fn of(keys: &LaneKeys) -> Spread {
        let b = keys.low.count_ones() as usize;
        Spread {
            b,
            low: usize::from(keys.low),
            odd: (0..64)
                .filter(|i| i >> b & 1 == 1)
                .fold(0, |m, i| m | 1 << i),
        }
    }
}

/// Marks in `row` the common values below `used` (a multiple of 64, at most 512) whose key is
/// in `set` (key `i` is bit `i & 63` of word `i >> 6`): the 64 values of a step have 64 keys in
/// a row (the mask's lowest bit `b` ≥ 6) or 32, each twice (`b` < 6: the values with bit `b`
/// clear, and with it set), so a step's marks are a word of the set, or its 32 bits spread
/// with two `pdep`, then a mask over the row's bytes: no lookup a value (it had three byte
/// shuffles a step: a seventh of step 1's time on Officers).
///
/// # Safety
/// The processor must have AVX-512 F and BW and BMI2; `used ≤ row.len()`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
unsafe fn mark_row(row: &mut [u8], set: &[u64; 4], used: usize, keys: &LaneKeys, spread: &Spread) {
    debug_assert!(used.is_multiple_of(64) && used <= 512 && used <= row.len());
    let Spread { b, low, odd } = *spread;
    for c in (0..used).step_by(64) {
        // The values c .. c + 64 whose key is in the set.
        let marked = if b >= 6 {
            // Their keys are 64 in a row from a multiple of 64.
            set[(c >> (b + 1) << b | (c & low)) >> 6]
        } else {
            // Their keys are the 32 from c / 2 (a multiple of 32), each twice: for the values
            // with bit b clear and with it set.
            let x = set[c >> 7] >> ((c >> 1) & 63);
            _pdep_u64(x, !odd) | _pdep_u64(x, odd)
        };
        // SAFETY: c + 64 ≤ 512 bytes of the table, and ≤ used ≤ row.len().
        unsafe {
            let cls = _mm512_loadu_si512(keys.common.as_ptr().add(c) as *const __m512i);
            let at = row.as_mut_ptr().add(c) as *mut __m512i;
            let hit = _mm512_maskz_mov_epi8(marked, cls);
            _mm512_storeu_si512(at, _mm512_or_si512(_mm512_loadu_si512(at), hit));
        }
    }
}

/// [`super::head_lanes`] with AVX-512 F for the 16 heaps whose words start `left` (one a
/// 32-bit lane; those from `count` on are not written), their keys in `regs` registers of 32
/// a lane (the others zero), each register over its own columns ([`HeadColumns`]); then
/// written out heap by heap.
///
/// # Safety
/// The processor must have AVX-512 F; `left.len() ≥ cols.right().len() + 15`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn head_lanes(
    left: &[u32],
    cols: &HeadColumns,
    count: usize,
    regs: usize,
    out: &mut [[u32; 8]],
) {
    assert!(left.len() >= cols.right().len() + 15);
    super::head_sets::<16>(regs, count, out, |w| {
        // SAFETY: every column c of `cols` is below `right().len()`: c + 16 ≤ left.len().
        let acc = unsafe { head_register(left, cols.of(w)) };
        let mut lane = [0u32; 16];
        // SAFETY: 64 bytes into a [u32; 16].
        unsafe { _mm512_storeu_si512(lane.as_mut_ptr() as *mut __m512i, acc) };
        lane
    });
}

/// One register of [`head_lanes`] for the 16 heaps whose words start `left`: bit `key − 32w`
/// of each column `[c, q]` (`q` the column's word XORed with `32w`), where `left[c + i] ^ q`
/// is below 32; two columns a step, their marks ORed in by one `vpternlogd`. A function of
/// its own, so that its registers are allocated for this loop alone.
///
/// # Safety
/// The processor must have AVX-512 F; `c + 16 ≤ left.len()` for every column.
#[inline(never)]
#[target_feature(enable = "avx512f")]
unsafe fn head_register(left: &[u32], cols: &[[u32; 2]]) -> __m512i {
    let one = _mm512_set1_epi32(1);
    let bit = |col: &[u32; 2]| {
        // SAFETY: c + 16 ≤ left.len() (this function's contract).
        unsafe {
            let l = _mm512_loadu_si512(left.as_ptr().add(col[0] as usize) as *const __m512i);
            // 0 where the pair's key is not in this register (or it is common, or left out).
            _mm512_sllv_epi32(one, _mm512_xor_si512(l, _mm512_set1_epi32(col[1] as i32)))
        }
    };
    let mut a = _mm512_setzero_si512();
    let mut pairs = cols.chunks_exact(2);
    for two in &mut pairs {
        a = _mm512_ternarylogic_epi32(a, bit(&two[0]), bit(&two[1]), 0xFE);
    }
    if let [col] = pairs.remainder() {
        a = _mm512_or_si512(a, bit(col));
    }
    a
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
    super::open_set_steps(set, row, class, end, |i| {
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
