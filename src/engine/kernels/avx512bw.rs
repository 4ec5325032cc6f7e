//! The loops with the first AVX-512 extensions (F, BW, VL, DQ, CD: Skylake-SP, Cascade Lake,
//! and every later AVX-512 processor): step 1 in lanes, 32 heaps a register of 16-bit lanes as
//! on VBMI, with the class test done by shifts instead of BITALG's `vpopcntw`, two columns'
//! marks ORed in by one `vpternlogd`, and each heap's keys read into its row 64 values a step
//! with in-lane byte shuffles (`vpshufb`) instead of VBMI's two-register permutations; the
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
            key
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
    assert!(
        count <= 16 && regs <= 8 && out.len() >= count && left.len() >= cols.right().len() + 15
    );
    let mut lanes = [[0u32; 16]; 8];
    for (w, lane) in lanes.iter_mut().enumerate().take(regs) {
        // SAFETY: every column c of `cols` is below `right().len()`: c + 16 ≤ left.len().
        let acc = unsafe { head_register(left, cols.of(w)) };
        // SAFETY: 64 bytes into a [u32; 16].
        unsafe { _mm512_storeu_si512(lane.as_mut_ptr() as *mut __m512i, acc) };
    }
    for (k, set) in out[..count].iter_mut().enumerate() {
        *set = std::array::from_fn(|w| lanes[w][k]);
    }
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
