//! The loops with AVX2: the scans, 32 pairs at a time (reversed with byte shuffles, or on the
//! byte keys), their keys tested against the key set of the targets with byte lookups
//! (`vpshufb`), and a byte scan's last two targets compared with directly, 64 pairs a step;
//! step 1 in lanes of 32 bits (on words of the values' keys and classes); small mode's scan in
//! halves of 32 pairs.

use super::{
    scan_tail, ClassedColumns, Columns, HeadColumns, LaneKeys, NearLanes, Runs, ScanKeys, Targets,
    MOST_RUNS,
};
use std::arch::x86_64::*;

/// [`super::small_scan`] over the whole chunks of 64 pairs from `a` on, as
/// `avx512::small_scan` does, in two halves of 32.
///
/// # Safety
/// The processor must have AVX2; `hi ≤ r + 1`, `r − a < vals.len()` (when `a < hi`) and
/// every target below the limit of the values ([`super::small_scan`] checks them).
#[inline]
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub(super) unsafe fn small_scan(
    vals: &[u8],
    r: usize,
    a: usize,
    hi: usize,
    targets: u64,
) -> (u64, usize) {
    // Reverses the bytes of each 128-bit half; a swap of the halves completes it.
    let reverse = _mm256_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
        12, 13, 14, 15,
    );
    let reversed = |v: __m256i| _mm256_permute4x64_epi64::<0x4e>(_mm256_shuffle_epi8(v, reverse));
    // The values of the pairs (b, r − b), b in a..a + 64, in two halves.
    let chunk = |a: usize| {
        // SAFETY: as in avx512::small_scan.
        unsafe {
            let at = |i: usize| _mm256_loadu_si256(vals.as_ptr().add(i) as *const __m256i);
            let right = r + 1 - a - 64;
            (
                _mm256_xor_si256(at(a), reversed(at(right + 32))),
                _mm256_xor_si256(at(a + 32), reversed(at(right))),
            )
        }
    };
    // With every target below 32 (most heaps of 0.167), the values below 32 in 4 byte
    // planes; else the word of all 64 (16 variable shifts, `vpsllvd`).
    let seen = |a: usize, targets: u64| {
        let (x0, x1) = chunk(a);
        if targets >> 32 == 0 {
            let mut planes = [_mm256_setzero_si256(); 4];
            mark_planes(&mut planes, x0);
            mark_planes(&mut planes, x1);
            u64::from(word_of_low_planes(planes))
        } else {
            word_of(mark_bytes(x1, mark_bytes(x0, Halves::empty())))
        }
    };
    let meets = |a: usize, one: __m256i, two: __m256i| {
        let (x0, x1) = chunk(a);
        let hits = |w: __m256i| {
            let eq = _mm256_or_si256(_mm256_cmpeq_epi8(x0, w), _mm256_cmpeq_epi8(x1, w));
            _mm256_movemask_epi8(eq) != 0
        };
        (hits(one), hits(two))
    };
    let wanted = |t: u32| _mm256_set1_epi8(t as i8);
    super::small_scan_chunks(a, hi, targets, seen, wanted, meets)
}

/// Small mode's words of values in two halves of 32 bits a lane (eight lanes): bit `v` of
/// the low half for `v` below 32, bit `v − 32` of the high one for `v` in 32..64.
#[derive(Clone, Copy)]
struct Halves(__m256i, __m256i);

impl Halves {
    /// No values.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn empty() -> Halves {
        Halves(_mm256_setzero_si256(), _mm256_setzero_si256())
    }
}

/// `marks` with the bits of the 32 bytes `x` (their values below 64; from 64 on, none).
#[inline]
#[target_feature(enable = "avx2")]
fn mark_bytes(x: __m256i, Halves(mut low, mut high): Halves) -> Halves {
    let (one, c32) = (_mm256_set1_epi32(1), _mm256_set1_epi32(32));
    for h in [_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x)] {
        for v in [
            _mm256_cvtepu8_epi32(h),
            _mm256_cvtepu8_epi32(_mm_unpackhi_epi64(h, h)),
        ] {
            // A shift by 32 or more gives 0: values from 32 on set nothing in the low half,
            // values below 32 (less 32: from 2^32 − 32 on) and from 64 on nothing in the high.
            low = _mm256_or_si256(low, shift_left_32(one, v));
            high = _mm256_or_si256(high, shift_left_32(one, _mm256_sub_epi32(v, c32)));
        }
    }
    Halves(low, high)
}

/// The 64-bit word of `marks`: the OR of its lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn word_of(Halves(low, high): Halves) -> u64 {
    let words = _mm256_or_si256(
        _mm256_unpacklo_epi32(low, high),
        _mm256_unpackhi_epi32(low, high),
    );
    let folded = _mm_or_si128(
        _mm256_castsi256_si128(words),
        _mm256_extracti128_si256::<1>(words),
    );
    (_mm_cvtsi128_si64(folded) | _mm_extract_epi64::<1>(folded)) as u64
}

/// `v` where LLVM cannot see its value: a constant that a loop then keeps in a register
/// (step 1's lanes: LLVM reloaded each splat constant from memory at each column, a
/// `vpbroadcastd` from memory a register).
#[inline]
#[target_feature(enable = "avx2")]
fn in_register(v: __m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: no instruction.
    unsafe {
        std::arch::asm!(
            "/* {v} */",
            v = inout(ymm_reg) v => out,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

super::exact_shift!(
    /// `_mm256_sllv_epi32(a, count)` as `vpsllvd` (the macro `exact_shift` says why).
    shift_left_32,
    "vpsllvd",
    __m256i,
    ymm_reg,
    "avx2"
);

/// [`super::small_columns`] for a block of 64 heaps, in two halves of 32 whose words stay in
/// eight registers across the columns as byte planes: plane `k` holds byte `k` of the 32
/// words (the values `8k..8k + 8`). A column's pair value `x` sets bit `x & 7` (a byte
/// lookup, `vpshufb`) in the plane `x >> 3` (a byte compare of `x & 0xF8` with `8k` a plane):
/// per 32 heaps one lookup and 8 × (compare, AND, OR), where words of 64 bits take a
/// variable shift (`vpsllvq`) each 4 heaps, slow on processors that split 256-bit vectors
/// (Zen 1, 4 cycles) and two ports of three on Intel. The planes are transposed into words
/// once per block.
///
/// # Safety
/// The processor must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn small_columns(
    far: &mut [u64; 64],
    vals: &[u8],
    columns: &[(usize, u32)],
    limit: u32,
) {
    // Values from the limit on mark nothing ([`super::small_bit`]): from 64 on, no plane
    // takes them; below 64, `keep` clears them.
    let keep = u64::MAX.checked_shr(64 - limit).unwrap_or(0);
    for (half, words) in far.chunks_exact_mut(32).enumerate() {
        let mut planes = [_mm256_setzero_si256(); 8];
        for &(start, g) in columns {
            // A rare value from 256 on meets no byte value below 64.
            let Ok(g) = u8::try_from(g) else { continue };
            let column = &vals[start + 32 * half..start + 32 * half + 32];
            // SAFETY: the 32 bytes of the column.
            let v = unsafe { _mm256_loadu_si256(column.as_ptr() as *const __m256i) };
            mark_planes(&mut planes, _mm256_xor_si256(v, _mm256_set1_epi8(g as i8)));
        }
        for (i, pair) in words_of_planes(planes).into_iter().enumerate() {
            // Register i holds the words of heaps 2i, 2i + 1 (low 16 bytes) and 16 + 2i,
            // 16 + 2i + 1 (high 16 bytes).
            for (at, part) in [
                (2 * i, _mm256_castsi256_si128(pair)),
                (16 + 2 * i, _mm256_extracti128_si256::<1>(pair)),
            ] {
                let two = &mut words[at..at + 2];
                // SAFETY: 2 words in and out.
                unsafe {
                    let p = two.as_mut_ptr() as *mut __m128i;
                    let new = _mm_and_si128(part, _mm_set1_epi64x(keep as i64));
                    _mm_storeu_si128(p, _mm_or_si128(_mm_loadu_si128(p), new));
                }
            }
        }
    }
}

/// Marks the 32 byte values `x` in the byte planes `planes` (plane `k`: the values `8k..8k +
/// 8`, value `8k + i` as bit `i` of its byte; values from `8P` on mark nothing): bit `x & 7`
/// by a byte lookup (`vpshufb`), in the plane whose `8k` equals `x & 0xF8` (a byte compare a
/// plane).
#[inline]
#[target_feature(enable = "avx2")]
fn mark_planes<const P: usize>(planes: &mut [__m256i; P], x: __m256i) {
    // Byte i of a 16-byte part: 1 << (i & 7). From 128 on the lookup gives 0.
    let bit_of = _mm256_setr_epi8(
        1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128,
        1, 2, 4, 8, 16, 32, 64, -128,
    );
    let bit = _mm256_shuffle_epi8(bit_of, x);
    let high = _mm256_and_si256(x, _mm256_set1_epi8(0xF8u8 as i8));
    for (k, plane) in planes.iter_mut().enumerate() {
        let here = _mm256_cmpeq_epi8(high, _mm256_set1_epi8(8 * k as i8));
        *plane = _mm256_or_si256(*plane, _mm256_and_si256(here, bit));
    }
}

/// The values below 32 marked in 4 byte planes ([`mark_planes`]) of any lanes, as a word:
/// the planes' bytes ORed lane into lane by unpacks (2 bytes, then 4 a lane).
#[inline]
#[target_feature(enable = "avx2")]
fn word_of_low_planes(p: [__m256i; 4]) -> u32 {
    let pair = |a, b| _mm256_or_si256(_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b));
    let (p01, p23) = (pair(p[0], p[1]), pair(p[2], p[3]));
    let words = _mm256_or_si256(
        _mm256_unpacklo_epi16(p01, p23),
        _mm256_unpackhi_epi16(p01, p23),
    );
    let w = _mm_or_si128(
        _mm256_castsi256_si128(words),
        _mm256_extracti128_si256::<1>(words),
    );
    let w = _mm_or_si128(w, _mm_shuffle_epi32::<0x4e>(w));
    let w = _mm_or_si128(w, _mm_shuffle_epi32::<0xb1>(w));
    _mm_cvtsi128_si32(w) as u32
}

/// The 64-bit words of 32 heaps from their 8 byte planes (plane `k`: byte `k` of each word,
/// heap by heap): register `i` of the answer holds the words of heaps `2i`, `2i + 1` in its low
/// 16 bytes and `16 + 2i`, `16 + 2i + 1` in its high 16 (the unpacks stay within 16 bytes).
#[inline]
#[target_feature(enable = "avx2")]
fn words_of_planes(p: [__m256i; 8]) -> [__m256i; 8] {
    // Four 16-bit-paired planes of eight heaps: their words, two heaps a register.
    let words = |p01, p23, p45, p67| {
        // Heaps 0..4 and 4..8 of the eight: planes 0–3 and 4–7 as 32-bit lanes.
        let (a, b) = (
            _mm256_unpacklo_epi16(p01, p23),
            _mm256_unpackhi_epi16(p01, p23),
        );
        let (c, d) = (
            _mm256_unpacklo_epi16(p45, p67),
            _mm256_unpackhi_epi16(p45, p67),
        );
        [
            _mm256_unpacklo_epi32(a, c),
            _mm256_unpackhi_epi32(a, c),
            _mm256_unpacklo_epi32(b, d),
            _mm256_unpackhi_epi32(b, d),
        ]
    };
    // Bytes 0..8 and 8..16 of each 16-byte part.
    let [w0, w1, w2, w3] = words(
        _mm256_unpacklo_epi8(p[0], p[1]),
        _mm256_unpacklo_epi8(p[2], p[3]),
        _mm256_unpacklo_epi8(p[4], p[5]),
        _mm256_unpacklo_epi8(p[6], p[7]),
    );
    let [w4, w5, w6, w7] = words(
        _mm256_unpackhi_epi8(p[0], p[1]),
        _mm256_unpackhi_epi8(p[2], p[3]),
        _mm256_unpackhi_epi8(p[4], p[5]),
        _mm256_unpackhi_epi8(p[6], p[7]),
    );
    [w0, w1, w2, w3, w4, w5, w6, w7]
}

/// [`super::near_small_marks`] on the 64 values below the heap (`window`), 32 lanes at a
/// time: a lane's value is looked up in the window's four 16-byte parts with byte shuffles
/// (`vpshufb`), the part that holds it answering, the others giving 0.
///
/// # Safety
/// The processor must have AVX2; `window` holds 64 values.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn near_marks(window: &[u8], lanes: &NearLanes, limit: u32) -> u64 {
    assert!(window.len() >= 64 && lanes.count <= 64 && limit <= 64);
    // SAFETY: 16 bytes of the window's 64 at 16k, k < 4.
    let parts: [__m256i; 4] = std::array::from_fn(|k| unsafe {
        _mm256_broadcastsi128_si256(_mm_loadu_si128(window.as_ptr().add(16 * k) as *const _))
    });
    let iota = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31,
    );
    let mut marks = Halves::empty();
    for h in 0..lanes.count.div_ceil(32) {
        // SAFETY: 32 bytes of each 64-byte table at 32h, h < 2.
        let (idx, g) = unsafe {
            (
                _mm256_loadu_si256(lanes.idx.as_ptr().add(32 * h) as *const __m256i),
                _mm256_loadu_si256(lanes.g.as_ptr().add(32 * h) as *const __m256i),
            )
        };
        let mut x = g;
        for (k, &part) in parts.iter().enumerate() {
            // Indices 16k..16k + 16 become 0x70..0x80 (the shuffle reads their low four
            // bits); the others, from 0x80 on, read 0.
            let at = _mm256_adds_epu8(
                _mm256_sub_epi8(idx, _mm256_set1_epi8(16 * k as i8)),
                _mm256_set1_epi8(0x70),
            );
            x = _mm256_xor_si256(x, _mm256_shuffle_epi8(part, at));
        }
        // Lanes past the pairs: 0xFF, which sets no bit.
        let past = _mm256_cmpgt_epi8(
            _mm256_add_epi8(iota, _mm256_set1_epi8(32 * h as i8)),
            _mm256_set1_epi8(lanes.count as i8 - 1),
        );
        marks = mark_bytes(_mm256_or_si256(x, past), marks);
    }
    // Values from the limit on mark nothing: from 64 on, none is set; below 64, cleared here.
    word_of(marks) & u64::MAX.checked_shr(64 - limit).unwrap_or(0)
}

/// Lanes of 32 keys (bytes, in pair order) whose key is in the 256-bit set `set` (key `k`
/// is bit `k & 7` of byte `k >> 3`).
#[inline]
#[target_feature(enable = "avx2")]
fn set_hits(k: __m256i, set: __m256i) -> u32 {
    let (below, above) = halves(set);
    !(_mm256_movemask_epi8(not_in(k, below, above)) as u32)
}

/// Takes key `k` out of the 256-bit set `keys` (key `k` is bit `k & 7` of byte `k >> 3`)
/// with one 32-byte load and store: a later load of the whole set that follows a one-byte
/// store into it waits for that store to reach the cache, where one that follows a store
/// of the same 32 bytes gets them forwarded.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn take_key(keys: &mut [u8; 32], k: u8) {
    let p = keys.as_mut_ptr() as *mut __m256i;
    // SAFETY: the 32 bytes of `keys`.
    unsafe { _mm256_storeu_si256(p, without_key(_mm256_loadu_si256(p), k, 1)) };
}

/// The 256-bit set `set` without key `k` if `take` is 1 (with it unchanged if 0).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn without_key(set: __m256i, k: u8, take: u8) -> __m256i {
    let byte = _mm256_cmpeq_epi8(
        _mm256_setr_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        ),
        _mm256_set1_epi8((k >> 3) as i8),
    );
    _mm256_andnot_si256(
        _mm256_and_si256(byte, _mm256_set1_epi8((take << (k & 7)) as i8)),
        set,
    )
}

/// A 256-bit set as [`not_in`] wants it: bytes 0–15 in both halves, and bytes 16–31.
#[inline]
#[target_feature(enable = "avx2")]
fn halves(set: __m256i) -> (__m256i, __m256i) {
    (
        _mm256_permute2x128_si256::<0x00>(set, set),
        _mm256_permute2x128_si256::<0x11>(set, set),
    )
}

/// 0xFF in the lanes of the 32 bytes `k` that are not in the 256-bit set whose bytes 0–15
/// are `below` and 16–31 `above` (each in both halves), 0 in the others.
#[inline]
#[target_feature(enable = "avx2")]
fn not_in(k: __m256i, below: __m256i, above: __m256i) -> __m256i {
    let bit_of = _mm256_setr_epi8(
        1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128,
        1, 2, 4, 8, 16, 32, 64, -128,
    );
    // Byte k >> 3 of the set: bit 7 of k picks the half.
    let idx = _mm256_and_si256(_mm256_srli_epi16(k, 3), _mm256_set1_epi8(15));
    let byte = _mm256_blendv_epi8(
        _mm256_shuffle_epi8(below, idx),
        _mm256_shuffle_epi8(above, idx),
        k,
    );
    let bit = _mm256_shuffle_epi8(bit_of, _mm256_and_si256(k, _mm256_set1_epi8(7)));
    _mm256_cmpeq_epi8(_mm256_and_si256(byte, bit), _mm256_setzero_si256())
}

/// [`super::open_words`] 64 values a step (two of 32), the set then written in two 32-byte
/// stores: `Targets::keys_of_values` reads its first 32 bytes as one load below 256 (Grundy's
/// game), which waited for the four 64-bit stores `super::open_set_steps` makes (they are
/// not forwarded to a wider load; about 0.7 % of Grundy's game), and its 64-bit words
/// otherwise (forwarded from within a wider store).
///
/// # Safety
/// The processor must have AVX2.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn open_set(set: &mut [u8; 64], row: &[u8], class: &[u8], end: usize) -> usize {
    let open = |i: usize| {
        // SAFETY: i + 32 ≤ row.len(), class.len() (a step of 64 values from i lies within
        // both: checked by `open_words`).
        let (r, c) = unsafe {
            (
                _mm256_loadu_si256(row.as_ptr().add(i) as *const __m256i),
                _mm256_loadu_si256(class.as_ptr().add(i) as *const __m256i),
            )
        };
        let zero = _mm256_setzero_si256();
        let closed = _mm256_or_si256(
            _mm256_xor_si256(_mm256_cmpeq_epi8(r, zero), _mm256_set1_epi8(-1)),
            _mm256_cmpeq_epi8(c, zero),
        );
        u64::from(!(_mm256_movemask_epi8(closed) as u32))
    };
    let words = super::open_words(row, class, end, |i| open(i) | open(i + 32) << 32);
    let half = |h: usize| {
        let w = |k: usize| words[4 * h + k] as i64;
        _mm256_setr_epi64x(w(0), w(1), w(2), w(3))
    };
    // SAFETY: the 64 bytes of `set`, in two 32-byte stores.
    unsafe {
        _mm256_storeu_si256(set.as_mut_ptr() as *mut __m256i, half(0));
        _mm256_storeu_si256(set.as_mut_ptr().add(32) as *mut __m256i, half(1));
    }
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// [`super::first_open_on`] 32 values a step, from `from` (rounded down to 32) on.
///
/// # Safety
/// The processor must have AVX2.
#[target_feature(enable = "avx2,bmi1")]
pub(super) unsafe fn first_open(row: &[u8], class: &[u8], from: usize) -> u32 {
    let len = row.len().min(class.len());
    let mut i = from & !31;
    while i + 32 <= len {
        // SAFETY: i + 32 ≤ len ≤ row.len(), class.len().
        let (r, c) = unsafe {
            (
                _mm256_loadu_si256(row.as_ptr().add(i) as *const __m256i),
                _mm256_loadu_si256(class.as_ptr().add(i) as *const __m256i),
            )
        };
        let zero = _mm256_setzero_si256();
        let open = _mm256_andnot_si256(_mm256_cmpeq_epi8(c, zero), _mm256_cmpeq_epi8(r, zero));
        let bits = _mm256_movemask_epi8(open) as u32;
        if bits != 0 {
            return (i + bits.trailing_zeros() as usize) as u32;
        }
        i += 32;
    }
    (i..len)
        .find(|&v| row[v] == 0 && class[v] != 0)
        .map_or(u32::MAX, |v| v as u32)
}

/// [`super::scan_keys`] (its checks done), 32 pairs a step: the left and right keys of a
/// step are one load each (the right side is stored reversed), their XOR looked up in the
/// targets' key set; a hit's key names its rare value, which is met in the set of values.
///
/// # Safety
/// The processor must have AVX2; the chunks must be within the keys
/// (`keys.chunks_end(r, lo, end, _) == end`), the targets keyed as the scan's keys are.
#[target_feature(enable = "avx2,bmi1,popcnt")]
pub(super) unsafe fn scan_keys(
    row: &mut [u8],
    tg: &mut Targets<u16>,
    keys: &ScanKeys,
    r: usize,
    lo: usize,
    end: usize,
) -> Result<usize, usize> {
    let (left, left_rare, right) = keys.sides(r, lo);
    assert!(end <= left.len() && end - lo <= right.len() && row.len() >= 512);
    let shift = lo & 7;
    let step = |at: usize, set: __m256i, xs: &mut [u8; 32]| {
        // SAFETY: at + 32 ≤ end ≤ left.len(), at − lo + 32 ≤ right.len() (checked above);
        // the bitmap has 16 bytes past the byte of heap left.len() − 1; 32 bytes into xs.
        unsafe {
            let l = _mm256_loadu_si256(left.as_ptr().add(at) as *const __m256i);
            let g = _mm256_loadu_si256(right.as_ptr().add(at - lo) as *const __m256i);
            let bits = left_rare.as_ptr().add(at >> 3) as *const [u8; 8];
            let rare = (u64::from_le_bytes(bits.read_unaligned()) >> shift) as u32;
            let x = _mm256_xor_si256(l, g);
            _mm256_storeu_si256(xs.as_mut_ptr() as *mut __m256i, x);
            // A heap that is a rare position gives a common value: left out.
            set_hits(x, set) & !rare
        }
    };
    // A hit's key names its rare value, a pair's: marked whether or not it is a target
    // still, and taken out of both sets.
    let meet = |tg: &mut Targets<u16>, set: &mut __m256i, k: u8, row: &mut [u8]| {
        let v = keys.rare_value(k) as usize;
        let byte = &mut tg.values[v >> 3];
        tg.need -= usize::from((*byte >> (v & 7)) & 1);
        *byte &= !(1 << (v & 7));
        *set = without_key(*set, k, 1);
        // SAFETY: rare values are below 512 ≤ row.len() (checked above).
        unsafe { *row.get_unchecked_mut(v) = 1 };
    };
    let mut runs = Runs::new(lo, end, 32, tg.runs);
    if runs.k > 1 {
        // `end − lo` is a whole number of steps: the runs end at `end`.
        return scan_runs(row, tg, &mut runs, 0, step, meet).ok_or(runs.top);
    }
    scan_steps(row, tg, lo, end, 0, step, meet)
}

/// Steps of 32 pairs between two looks at the hits of [`scan_steps`], once the first few
/// are done (Officers at 2^21 on Zen 4, AVX2 alone, scan on keys: 4 after 2 first steps
/// 3.21 s, 8 after 4 3.30 s, 16 after 4 3.42 s, none 3.37 s; Grundy's game at 2^22, scan
/// on the cells, 2 first steps: 4 4.20 s, 8 4.46 s, 2 4.48 s).
const BATCH: usize = 4;
/// Steps met one by one at the start of [`scan_steps`] (where targets are many).
const FIRST: usize = 2;

/// The loop of the AVX2 scans over the pairs `lo..end`, 32 a step: `step(a, set, xs)` gives
/// the lanes of the pairs from `a` on whose key is in `set` (the targets' keys), with their
/// values or keys in `xs`. The hits of a batch of steps are met afterwards, in order, by
/// `meet(tg, set, x, row)`, which takes the key of a target it meets out of `set` (and
/// must take a hit met already in the batch as a pair's value like any other): one
/// branch a batch instead of a mispredicted one for each step that hits, and
/// the stop as exact as one by one. `Ok(b)` once every target is met, `b` the pair after
/// the one that met the last; `Err(a)`, `a` the first pair not looked at, otherwise, or as
/// soon as at most `few` targets are left at the end of a batch.
#[inline(always)]
fn scan_steps<T: Copy + Default, U>(
    row: &mut [u8],
    tg: &mut Targets<U>,
    lo: usize,
    end: usize,
    few: usize,
    mut step: impl FnMut(usize, __m256i, &mut [T; 32]) -> u32,
    meet: impl Fn(&mut Targets<U>, &mut __m256i, T, &mut [u8]),
) -> Result<usize, usize> {
    // The targets' keys, held in a register through the scan and stored back at its end: a
    // load of the set after a one-byte store into it would wait for that store to reach
    // the cache (about half the steps have a hit).
    // SAFETY: the 32 bytes of the set (AVX2: this function is inlined into AVX2 code).
    let mut set = unsafe { _mm256_loadu_si256(tg.keys.as_ptr() as *const __m256i) };
    let mut xs = [[T::default(); 32]; BATCH];
    let mut hits = [0u32; BATCH];
    let mut a = lo;
    let mut steps = 0;
    let found = 'scan: {
        while a + 32 <= end && tg.need > few {
            let batch = if steps < FIRST { 1 } else { BATCH }.min((end - a) / 32);
            let mut any = 0;
            for j in 0..batch {
                hits[j] = step(a + 32 * j, set, &mut xs[j]);
                any |= hits[j];
            }
            if any != 0 {
                for j in 0..batch {
                    let mut h = hits[j];
                    while h != 0 {
                        let i = h.trailing_zeros() as usize;
                        h &= h - 1;
                        meet(tg, &mut set, xs[j][i], row);
                        if tg.need == 0 {
                            break 'scan Ok(a + 32 * j + i + 1);
                        }
                    }
                }
            }
            a += 32 * batch;
            steps += batch;
        }
        Err(a)
    };
    // SAFETY: as above.
    unsafe { _mm256_storeu_si256(tg.keys.as_mut_ptr() as *mut __m256i, set) };
    found
}

/// [`scan_steps`] over the pairs of `runs` (2 or 4 runs, see `runs.rs`): each batch takes
/// [`BATCH`] `/ k` steps from each run in turn, and its hits are met as there. `Some(b)` once
/// every target is met, `b` the pair after the one that met the last when the first run met
/// it, else the first run's progress (every pair from the range's start before `b` has been
/// looked at); `None` when the runs ran out or at most `few` targets are left at the end of a
/// batch (`runs` then says where each run is).
#[inline(always)]
fn scan_runs<T: Copy + Default, U>(
    row: &mut [u8],
    tg: &mut Targets<U>,
    runs: &mut Runs,
    few: usize,
    step: impl FnMut(usize, __m256i, &mut [T; 32]) -> u32,
    meet: impl Fn(&mut Targets<U>, &mut __m256i, T, &mut [u8]),
) -> Option<usize> {
    match runs.k {
        2 => scan_runs_of::<T, U, 2>(row, tg, runs, few, step, meet),
        4 => scan_runs_of::<T, U, 4>(row, tg, runs, few, step, meet),
        k => unreachable!("{k} runs"),
    }
}

/// [`scan_runs`] for `K` runs: the batches every run still has first, with no test a step,
/// then the last steps of the longer runs.
#[inline(always)]
fn scan_runs_of<T: Copy + Default, U, const K: usize>(
    row: &mut [u8],
    tg: &mut Targets<U>,
    runs: &mut Runs,
    few: usize,
    mut step: impl FnMut(usize, __m256i, &mut [T; 32]) -> u32,
    meet: impl Fn(&mut Targets<U>, &mut __m256i, T, &mut [u8]),
) -> Option<usize> {
    const { assert!(K >= 2 && K <= BATCH && BATCH.is_multiple_of(K) && K <= MOST_RUNS) };
    let per = BATCH / K;
    // SAFETY: the 32 bytes of the set (AVX2: this function is inlined into AVX2 code).
    let mut set = unsafe { _mm256_loadu_si256(tg.keys.as_ptr() as *const __m256i) };
    let mut xs = [[T::default(); 32]; BATCH];
    let mut at: [usize; K] = std::array::from_fn(|j| runs.at[j]);
    let end: [usize; K] = std::array::from_fn(|j| runs.end[j]);
    let found = 'scan: {
        // Whole batches of every run, then one step at a time of the runs with steps left.
        for whole in [true, false] {
            loop {
                if tg.need <= few {
                    break 'scan None;
                }
                let mut from = [usize::MAX; BATCH];
                // The batch's hits as one word of its steps' lanes (step `c`'s from bit 32c),
                // met in one loop: its end is mispredicted once a batch, not once a step with
                // hits (Officers at 2^20: 4 batches with hits a scan, 11 hits). Made in
                // registers: an array of the steps' 32-bit hits read back as 64-bit words was
                // not forwarded from its stores (a wait of about 8 % of `scan_keys`' and
                // `scan_u8`'s samples on those two loads).
                const { assert!(BATCH * 32 == 128) };
                let mut h = 0u128;
                if whole {
                    if (0..K).any(|j| at[j] + 32 * per > end[j]) {
                        break;
                    }
                    for (j, a) in at.iter_mut().enumerate() {
                        for s in 0..per {
                            let c = j * per + s;
                            from[c] = *a + 32 * s;
                            h |= u128::from(step(from[c], set, &mut xs[c])) << (32 * c);
                        }
                        *a += 32 * per;
                    }
                } else {
                    let mut c = 0;
                    for j in 0..K {
                        if at[j] < end[j] {
                            from[c] = at[j];
                            h |= u128::from(step(at[j], set, &mut xs[c])) << (32 * c);
                            at[j] += 32;
                            c += 1;
                        }
                    }
                    if c == 0 {
                        break;
                    }
                }
                while h != 0 {
                    let lane = h.trailing_zeros() as usize;
                    h &= h - 1;
                    let (c, i) = (lane / 32, lane % 32);
                    meet(tg, &mut set, xs[c][i], row);
                    if tg.need == 0 {
                        // The first run's steps come first in a batch: its hits are
                        // met when the last hit is another run's.
                        let first = from[c] >= runs.at[0] && from[c] < end[0];
                        break 'scan Some(if first { from[c] + i + 1 } else { at[0] });
                    }
                }
            }
        }
        None
    };
    runs.at[..K].copy_from_slice(&at);
    // SAFETY: as above.
    unsafe { _mm256_storeu_si256(tg.keys.as_mut_ptr() as *mut __m256i, set) };
    found
}

/// [`scan_few_u8`] over what is left of the pairs of `runs`: 64 pairs (or the 32 left) of each
/// run in turn, the last pairs of a run one by one; as [`scan_runs`] returns, `None` once every
/// run is done.
///
/// # Safety
/// As [`scan_u8`], the runs within `lo..hi`; every target below 256.
#[inline]
#[target_feature(enable = "avx2,bmi1")]
unsafe fn scan_few_u8_runs(
    row: &mut [u8],
    tg: &mut Targets<u8>,
    left: &[u8],
    right: &[u8],
    rr: usize,
    runs: &mut Runs,
) -> Option<usize> {
    // SAFETY (both): as this function's.
    match runs.k {
        2 => unsafe { scan_few_u8_runs_of::<2>(row, tg, left, right, rr, runs) },
        4 => unsafe { scan_few_u8_runs_of::<4>(row, tg, left, right, rr, runs) },
        k => unreachable!("{k} runs"),
    }
}

/// What [`few_turns`] stopped at.
enum Turn {
    /// Run `j`'s pairs from `a` on have the hits `m` (bit `i`: pair `a + i`).
    Hit { j: usize, a: usize, m: u64 },
    /// Run `j` has fewer than 32 pairs left, from `a` on.
    Tail { j: usize, a: usize },
    /// Every run is done.
    Done,
}

/// Turns of 64 pairs (or the 32 left) of each run until one has a hit among them or fewer than
/// 32 pairs left; `at` moved past what was looked at. `TWO`: two targets in `want`, else one
/// (a loop each, so that no compare's result is chosen between the two).
#[inline(always)]
fn few_turns<const K: usize, const TWO: bool>(
    at: &mut [usize; K],
    end: &[usize; K],
    want: &[__m256i; FEW_U8],
    pairs: impl Fn(usize) -> __m256i,
) -> Turn {
    // Whole turns first, while every run has 64 pairs left: one test a turn, not three a run
    // (the same runs in the same order as the turns below).
    let whole = (0..K).map(|j| end[j].saturating_sub(at[j]) / 64).min();
    for _ in 0..whole.unwrap_or(0) {
        // SAFETY: AVX2, this function being inlined into AVX2 code.
        let m: [u64; K] = std::array::from_fn(|j| unsafe {
            few_hits::<TWO>(pairs(at[j]), pairs(at[j] + 32), want)
        });
        if m.iter().any(|&m| m != 0) {
            for j in 0..K {
                let a = at[j];
                at[j] = a + 64;
                if m[j] != 0 {
                    return Turn::Hit { j, a, m: m[j] };
                }
            }
        }
        for a in at.iter_mut() {
            *a += 64;
        }
    }
    loop {
        let mut busy = false;
        for j in 0..K {
            let a = at[j];
            // SAFETY (both): AVX2, this function being inlined into AVX2 code.
            let m = if a + 64 <= end[j] {
                at[j] = a + 64;
                unsafe { few_hits::<TWO>(pairs(a), pairs(a + 32), want) }
            } else if a + 32 <= end[j] {
                at[j] = a + 32;
                let x = pairs(a);
                (unsafe { few_hits::<TWO>(x, x, want) }) & 0xFFFF_FFFF
            } else if a < end[j] {
                at[j] = end[j];
                return Turn::Tail { j, a };
            } else {
                continue;
            };
            busy = true;
            if m != 0 {
                return Turn::Hit { j, a, m };
            }
        }
        if !busy {
            return Turn::Done;
        }
    }
}

/// [`scan_few_u8_runs`] for `K` runs, where they are held in registers, not read from `runs`
/// each turn.
///
/// # Safety
/// As [`scan_few_u8_runs`].
#[inline(always)]
unsafe fn scan_few_u8_runs_of<const K: usize>(
    row: &mut [u8],
    tg: &mut Targets<u8>,
    left: &[u8],
    right: &[u8],
    rr: usize,
    runs: &mut Runs,
) -> Option<usize> {
    const { assert!(K >= 2 && K <= MOST_RUNS) };
    let (mut at, end) = runs.first::<K>();
    // SAFETY: a step's 32 pairs lie within a run (the turns' tests), so within lo..hi.
    let pairs = |a: usize| unsafe { pairs_u8(left, right, rr, a) };
    let mut few = Few::of(tg);
    let mut want = few.want();
    let found = loop {
        let turn = if few.k >= 2 {
            few_turns::<K, true>(&mut at, &end, &want, pairs)
        } else {
            few_turns::<K, false>(&mut at, &end, &want, pairs)
        };
        match turn {
            Turn::Done => break None,
            Turn::Tail { j, a } => {
                if let Some(b) = scan_tail(row, tg, left, right, rr, a, end[j]) {
                    break Some(if j == 0 { b } else { at[0] });
                }
                // Targets met there are not in `few`.
                few = Few::of(tg);
            }
            Turn::Hit { j, a, m } => {
                let b = a + m.trailing_zeros() as usize;
                let v = u32::from(left[b] ^ right[rr - b]);
                tg.meet(v, row);
                few.met(v);
                at[j] = b + 1;
                if few.k == 0 {
                    break Some(at[0]);
                }
            }
        }
        want = few.want();
    };
    runs.set_first(&at);
    found
}

/// [`super::lane_marks`] with AVX2: 8 heaps at a time, one per 32-bit lane, their marks kept
/// in `R` registers of 32 keys a lane (`1 << key` made by a byte shuffle and a compare a
/// register, [`PairMarks`]); then, heap by heap, the values of the row looked up in the heap's
/// keys with byte shuffles (32 values a step). The lanes read AVX2's form of the heaps' words
/// `words` (of heaps `first..`, see [`super::LaneWords::byte_form`]) and of each column's word
/// (`rare`, the forms of the rare values, a column's from its `first` on), not the values;
/// every column into every register (where the classes would leave none out:
/// [`super::LaneWords::all_registers`]; else [`lane_marks_classed`]). With `clear: Some(width)`
/// the marks are stored, not ORed, and the rest of each row's first `width` bytes cleared.
///
/// # Safety
/// The processor must have AVX2; `used` a multiple of 32, at most 512 and at most
/// `stride`; `(len − 1) · stride + used ≤ rows.len()` (and `width` in place of `used` with
/// `clear`, a multiple of 32); `words` ends with 8 words past the last heap's (more, each
/// [`super::LaneWords`]' `NONE`, which marks nothing, where a column reaches past the last
/// heap). A column whose heaps `q..q + len` are not all in `first..` the end of `words` less
/// 8, or with fewer words than positions, panics.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn lane_marks<const R: usize>(
    rows: &mut [u8],
    stride: usize,
    used: usize,
    words: &[u32],
    rare: &[u32],
    first: usize,
    cols: &[Columns<'_>],
    len: usize,
    keys: &LaneKeys,
    clear: Option<usize>,
) {
    // SAFETY: as this function's (h0 < len).
    let block = |h0| unsafe { lane_block::<R>(words, rare, first, cols, len, h0) };
    // SAFETY: as this function's.
    unsafe { mark_rows::<R>(rows, stride, used, len, keys, clear, block) }
}

/// [`lane_marks`] with each column only into the registers it can reach
/// ([`ClassedColumns`]).
///
/// # Safety
/// As [`lane_marks`], but `cols` made by [`super::LaneWords::classed`] for these words,
/// their columns `set_cols` and `len`, with registers below `R`.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn lane_marks_classed<const R: usize>(
    rows: &mut [u8],
    stride: usize,
    used: usize,
    words: &[u32],
    set_cols: &[[u32; 2]],
    cols: &ClassedColumns,
    len: usize,
    keys: &LaneKeys,
    clear: Option<usize>,
) {
    let block = |h0| {
        let mut acc = [_mm256_setzero_si256(); 8];
        let mut start = 0;
        for &(regs, end) in &cols.sets {
            // SAFETY: as this function's (each column checked when made), h0 < len.
            let segs = &cols.segs[start..end];
            unsafe { lane_set::<R>(regs, words, set_cols, segs, h0, &mut acc) };
            start = end;
        }
        acc
    };
    // SAFETY: as this function's.
    unsafe { mark_rows::<R>(rows, stride, used, len, keys, clear, block) }
}

/// The rows of [`lane_marks`]: for each group of 8 heaps from `h0`, its `R` registers of
/// 32 keys from `block(h0)`, then heap by heap the row's values looked up in them; with
/// `clear`, stored over what the rows held.
///
/// # Safety
/// As [`lane_marks`] for the rows.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn mark_rows<const R: usize>(
    rows: &mut [u8],
    stride: usize,
    used: usize,
    len: usize,
    keys: &LaneKeys,
    clear: Option<usize>,
    block: impl FnMut(usize) -> [__m256i; 8],
) {
    // SAFETY (each): as this function's.
    match clear {
        Some(width) => unsafe {
            mark_rows_as::<R, true>(rows, stride, used, width, len, keys, block)
        },
        None => unsafe { mark_rows_as::<R, false>(rows, stride, used, used, len, keys, block) },
    }
}

/// [`mark_rows`], the marks ORed into the rows or (`CLEAR`) stored, the rest of each row's
/// first `width` bytes then cleared.
///
/// # Safety
/// As [`lane_marks`] for the rows, `width` a multiple of 32 with `(len − 1) · stride + width ≤
/// rows.len()` and at least `used`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn mark_rows_as<const R: usize, const CLEAR: bool>(
    rows: &mut [u8],
    stride: usize,
    used: usize,
    width: usize,
    len: usize,
    keys: &LaneKeys,
    mut block: impl FnMut(usize) -> [__m256i; 8],
) {
    debug_assert!(width >= used && width.is_multiple_of(32));
    // The lanes mark the common values below the keys' limit only.
    let used = used.min(keys.limit().next_multiple_of(32) as usize);
    let mut lanes = [[0u32; 8]; R];
    for h0 in (0..len).step_by(8) {
        let acc = block(h0);
        for (w, a) in acc.iter().take(R).enumerate() {
            // SAFETY: 32 bytes into a [u32; 8].
            unsafe { _mm256_storeu_si256(lanes[w].as_mut_ptr() as *mut __m256i, *a) };
        }
        for k in 0..(len - h0).min(8) {
            // The keys of heap h0 + k: key i is bit i & 7 of byte i >> 3.
            let mut words = [0u32; 8];
            for (w, lane) in lanes.iter().enumerate() {
                words[w] = lane[k];
            }
            // SAFETY: 32 bytes of a [u32; 8].
            let (below, above) =
                halves(unsafe { _mm256_loadu_si256(words.as_ptr() as *const __m256i) });
            let row = rows[(h0 + k) * stride..].as_mut_ptr();
            for c in (0..used).step_by(32) {
                // SAFETY: c + 32 ≤ 512 bytes of the tables; (h0 + k) · stride + c + 32 ≤
                // (len − 1) · stride + used ≤ rows.len().
                unsafe {
                    let key = _mm256_loadu_si256(keys.key_of.as_ptr().add(c) as *const __m256i);
                    let cls = _mm256_loadu_si256(keys.common.as_ptr().add(c) as *const __m256i);
                    let at = row.add(c) as *mut __m256i;
                    let hit = _mm256_andnot_si256(not_in(key, below, above), cls);
                    let hit = if CLEAR {
                        hit
                    } else {
                        _mm256_or_si256(_mm256_loadu_si256(at), hit)
                    };
                    _mm256_storeu_si256(at, hit);
                }
            }
            if CLEAR {
                for c in (used..width).step_by(32) {
                    // SAFETY: (h0 + k) · stride + c + 32 ≤ (len − 1) · stride + width ≤
                    // rows.len().
                    unsafe {
                        _mm256_storeu_si256(row.add(c) as *mut __m256i, _mm256_setzero_si256())
                    };
                }
            }
        }
    }
}

/// [`lane_block_set`] for the registers `regs` (a set below `R`), compiled for each set of five
/// registers or fewer; a larger one takes all `R`.
///
/// # Safety
/// As [`lane_block_set`].
#[inline(always)]
unsafe fn lane_set<const R: usize>(
    regs: u32,
    words: &[u32],
    cols: &[[u32; 2]],
    segs: &[(usize, usize, usize)],
    h0: usize,
    acc: &mut [__m256i; 8],
) {
    debug_assert!(regs < 1 << R);
    macro_rules! sets {
        ($($m:literal)*) => {
            match regs {
                // SAFETY: as this function's.
                $($m => unsafe { lane_block_set::<$m>(words, cols, segs, h0, acc) },)*
                _ => match R {
                    6 => unsafe { lane_block_set::<63>(words, cols, segs, h0, acc) },
                    _ => unsafe { lane_block_set::<255>(words, cols, segs, h0, acc) },
                },
            }
        };
    }
    sets!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
}

/// Step 1's constants for AVX2's form of the words ([`super::LaneWords::byte_form`]), in
/// registers: the bytes `1 << i` (`i < 8`, then 0) that a pair's form shuffles into
/// `1 << (key & 31)`, the bits of the form that name the pair's register, and their value for
/// each register `w` of the set `regs` (bit `w`).
struct PairMarks {
    regs: u32,
    table: __m256i,
    bits: __m256i,
    of_reg: [__m256i; 8],
}

impl PairMarks {
    /// The constants for the registers `regs` (a constant where this is inlined).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(regs: u32) -> PairMarks {
        let table = _mm256_setr_epi8(
            1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128, 0,
            0, 0, 0, 0, 0, 0, 0,
        );
        let bits = super::LaneWords::REGISTER_BITS as i32;
        PairMarks {
            regs,
            table: in_register(table),
            bits: in_register(_mm256_set1_epi32(bits)),
            of_reg: std::array::from_fn(|w| {
                if regs & (1 << w) != 0 {
                    let form = super::LaneWords::byte_form(32 * w as u32) as i32;
                    in_register(_mm256_set1_epi32(form))
                } else {
                    _mm256_setzero_si256()
                }
            }),
        }
    }

    /// ORs into `acc` the marks of 8 pairs whose forms are `s`: `1 << (key − 32w)` in register
    /// `w` where the pair value is common with its key in register `w` (of `regs`). A shuffle
    /// and an AND a column, a compare, an AND and an OR a register: no variable shift (Zen 1:
    /// ~3.8 cycles a `vpsllvd` against ~0.5 for a compare or a logic op).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn or_into(&self, s: __m256i, acc: &mut [__m256i; 8]) {
        let marks = _mm256_shuffle_epi8(self.table, s);
        let reg = _mm256_and_si256(s, self.bits);
        for (w, a) in acc.iter_mut().enumerate() {
            if self.regs & (1 << w) != 0 {
                let hit = _mm256_cmpeq_epi32(reg, self.of_reg[w]);
                *a = _mm256_or_si256(*a, _mm256_and_si256(hit, marks));
            }
        }
    }
}

/// The marks of [`lane_marks`] for the heaps `h0 .. h0 + 8` (one a 32-bit lane; those from
/// `len` on are not used) over every column, in `R` registers of 32 keys (the others zero). A
/// pair's form is the XOR of its heap's and its column's ([`super::LaneWords::byte_form`]).
/// A function of its own, so that its registers are allocated for this loop alone: inlined,
/// LLVM kept marks of five registers or more in memory, a store a register and column
/// (Officers at 2^21: step 1 took 45 % of the time on 5 registers, against 27 % on 4).
///
/// # Safety
/// As [`lane_marks`], and `h0 < len`.
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn lane_block<const R: usize>(
    words: &[u32],
    rare: &[u32],
    first: usize,
    cols: &[Columns<'_>],
    len: usize,
    h0: usize,
) -> [__m256i; 8] {
    let consts = PairMarks::new((1 << R) - 1);
    // A column's heaps q..q + len lie in the words: q − first ≤ last.
    let last = (words.len().checked_sub(8 + len)).expect("words for a column's heaps");
    let mut acc = [_mm256_setzero_si256(); 8];
    for c in cols {
        let base = c.base.wrapping_sub(first);
        let forms = &rare[c.first..c.first + c.pos.len()];
        for (&p, &w) in c.pos.iter().zip(forms) {
            let at = base.wrapping_sub(p);
            assert!(at <= last, "a column past the words");
            // SAFETY: at + h0 + 8 ≤ last + len + 7 < words.len() (h0 < len).
            let x = unsafe { _mm256_loadu_si256(words.as_ptr().add(at + h0) as *const __m256i) };
            consts.or_into(_mm256_xor_si256(x, _mm256_set1_epi32(w as i32)), &mut acc);
        }
    }
    acc
}

/// The marks of [`lane_marks_classed`] for the heaps `h0 .. h0 + 8` (one a 32-bit lane; those from
/// `len` on are not used) over the columns of `segs` (`(off, from, to)`: the columns
/// `cols[from..to]`, `[p, form]`, each with its first heap at `off − p`), ORed
/// into `acc`'s registers of 32 keys of the set `M` (bit `w`: register `w`; the others are
/// left as they are). A function of its own, as [`lane_block`].
///
/// # Safety
/// The processor must have AVX2; `off − p + h0 + 8 ≤ words.len()` for every column.
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn lane_block_set<const M: u32>(
    words: &[u32],
    cols: &[[u32; 2]],
    segs: &[(usize, usize, usize)],
    h0: usize,
    acc: &mut [__m256i; 8],
) {
    let consts = PairMarks::new(M);
    let mut marks = *acc;
    for &(off, from, to) in segs {
        let at0 = off + h0;
        for col in &cols[from..to] {
            let at = at0.wrapping_sub(col[0] as usize);
            // SAFETY: at + 8 ≤ words.len() (this function's contract). The column's form is
            // broadcast straight from memory (a load, no shuffle).
            let s = unsafe {
                let x = _mm256_loadu_si256(words.as_ptr().add(at) as *const __m256i);
                let q = _mm256_castps_si256(_mm256_broadcast_ss(
                    &*(&col[1] as *const u32 as *const f32),
                ));
                _mm256_xor_si256(x, q)
            };
            consts.or_into(s, &mut marks);
        }
    }
    *acc = marks;
}

/// The 32 bytes from `p` in reverse order: the two 16-byte halves loaded into each other's
/// place (a load and `vinserti128`), each then reversed within itself (`vpshufb`). Reversing
/// a whole register takes a lane-crossing `vpermq` after the shuffle, which Zen 1 runs as
/// 3 uops (one every 2 cycles) and Skylake on port 5, the port of the scans' shuffles.
///
/// # Safety
/// The processor must have AVX2; `p .. p + 32` readable.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_reversed_bytes(p: *const u8) -> __m256i {
    let rev = _mm256_setr_epi8(
        15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
        5, 4, 3, 2, 1, 0,
    );
    // SAFETY: the caller's.
    _mm256_shuffle_epi8(unsafe { load_swapped_halves(p) }, rev)
}

/// The 16 words from `p` in reverse order, as [`load_reversed_bytes`].
///
/// # Safety
/// The processor must have AVX2; `p .. p + 16` readable.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_reversed_words(p: *const u16) -> __m256i {
    let rev = _mm256_setr_epi8(
        14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7,
        4, 5, 2, 3, 0, 1,
    );
    // SAFETY: the caller's.
    _mm256_shuffle_epi8(unsafe { load_swapped_halves(p as *const u8) }, rev)
}

/// The 32 bytes from `p` with their 16-byte halves swapped.
///
/// # Safety
/// The processor must have AVX2; `p .. p + 32` readable.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_swapped_halves(p: *const u8) -> __m256i {
    // SAFETY: the caller's.
    unsafe { _mm256_loadu2_m128i(p as *const __m128i, p.add(16) as *const __m128i) }
}

/// The values `left[a + i] ^ right[rr − a − i]`, `i < 32`, of byte cells, in one register.
///
/// # Safety
/// `a + 32 ≤ left.len()`, `a + 31 ≤ rr < right.len() + a`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pairs_u8(left: &[u8], right: &[u8], rr: usize, a: usize) -> __m256i {
    // SAFETY: the caller keeps both 32-byte loads in bounds.
    unsafe {
        let l = _mm256_loadu_si256(left.as_ptr().add(a) as *const __m256i);
        _mm256_xor_si256(l, load_reversed_bytes(right.as_ptr().add(rr - a - 31)))
    }
}

/// The same for 16-bit cells, pairs `a .. a + 15` and `a + 16 .. a + 31`.
///
/// # Safety
/// As [`pairs_u8`].
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pairs_u16(left: &[u16], right: &[u16], rr: usize, a: usize) -> (__m256i, __m256i) {
    // SAFETY: the caller keeps the four 32-byte loads in bounds.
    unsafe {
        let l0 = _mm256_loadu_si256(left.as_ptr().add(a) as *const __m256i);
        let l1 = _mm256_loadu_si256(left.as_ptr().add(a + 16) as *const __m256i);
        (
            _mm256_xor_si256(l0, load_reversed_words(right.as_ptr().add(rr - a - 15))),
            _mm256_xor_si256(l1, load_reversed_words(right.as_ptr().add(rr - a - 31))),
        )
    }
}

/// Writes the 32 byte lanes of `x` to `xs` as 16-bit values.
#[inline]
#[target_feature(enable = "avx2")]
fn widen_u8(x: __m256i, xs: &mut [u16; 32]) {
    store_u16(
        xs,
        _mm256_cvtepu8_epi16(_mm256_castsi256_si128(x)),
        _mm256_cvtepu8_epi16(_mm256_extracti128_si256(x, 1)),
    );
}

/// Writes two registers of 16 lanes to `xs`.
#[inline]
#[target_feature(enable = "avx2")]
fn store_u16(xs: &mut [u16; 32], x0: __m256i, x1: __m256i) {
    // SAFETY: xs holds 64 bytes.
    unsafe {
        let p = xs.as_mut_ptr() as *mut __m256i;
        _mm256_storeu_si256(p, x0);
        _mm256_storeu_si256(p.add(1), x1);
    }
}

/// Marks 32 values (lanes of `xs`) in `row`, masked by `row.len() − 1`.
#[inline]
#[target_feature(enable = "avx2")]
fn mark32(row: &mut [u8], xs: &[u16; 32]) {
    let wmask = row.len() - 1;
    for i in 0..32 {
        // SAFETY: the index is masked by row.len() − 1 (a power of two). The volatile read
        // keeps the compiler from extracting the lanes one by one from the vector register.
        let x = unsafe { std::ptr::read_volatile(xs.as_ptr().add(i)) } as usize & wmask;
        // SAFETY: x < row.len().
        unsafe { *row.get_unchecked_mut(x) = 1 };
    }
}

/// [`super::mark_pairs`] over byte values.
///
/// # Safety
/// The processor must have AVX2; `hi ≤ left.len()`, `hi ≤ rr + 1`, `rr − lo < right.len()`;
/// `row.len()` a power of two.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn mark_pairs_u8(
    row: &mut [u8],
    left: &[u8],
    right: &[u8],
    rr: usize,
    lo: usize,
    hi: usize,
) {
    let mut xs = [0u16; 32];
    let mut a = lo;
    while a + 32 <= hi {
        // SAFETY: a + 32 ≤ hi ≤ left.len(); rr − a − 31 ≥ rr + 1 − hi ≥ 0; rr − a ≤ rr − lo.
        widen_u8(unsafe { pairs_u8(left, right, rr, a) }, &mut xs);
        mark32(row, &xs);
        a += 32;
    }
    super::portable::mark_pairs(row, left, right, rr, a, hi);
}

/// [`super::mark_pairs`] over 16-bit values.
///
/// # Safety
/// As [`mark_pairs_u8`].
#[target_feature(enable = "avx2")]
pub(super) unsafe fn mark_pairs_u16(
    row: &mut [u8],
    left: &[u16],
    right: &[u16],
    rr: usize,
    lo: usize,
    hi: usize,
) {
    let mut xs = [0u16; 32];
    let mut a = lo;
    while a + 32 <= hi {
        // SAFETY: as in mark_pairs_u8.
        let (x0, x1) = unsafe { pairs_u16(left, right, rr, a) };
        store_u16(&mut xs, x0, x1);
        mark32(row, &xs);
        a += 32;
    }
    super::portable::mark_pairs(row, left, right, rr, a, hi);
}

/// The scan over the cells from `lo` to `hi`: the steps of [`scan_steps`], a hit met by
/// its value ([`Targets::meet_any`]), the pairs past the last whole step one by one.
macro_rules! scan_cells {
    ($row:ident, $tg:ident, $left:ident, $right:ident, $rr:ident, $lo:ident, $hi:ident, $step:ident) => {{
        let meet = |tg: &mut Targets<_>, set: &mut __m256i, v, row: &mut [u8]| {
            let (k, target) = tg.meet_any(v, row);
            *set = without_key(*set, k, target);
        };
        let mut runs = Runs::new($lo, $hi, 32, $tg.runs);
        if runs.k > 1 {
            match scan_runs($row, $tg, &mut runs, 0, $step, meet) {
                Some(stop) => Some(stop),
                None => scan_tail($row, $tg, $left, $right, $rr, runs.top, $hi),
            }
        } else {
            match scan_steps($row, $tg, $lo, $hi, 0, $step, meet) {
                Ok(stop) => Some(stop),
                Err(a) => scan_tail($row, $tg, $left, $right, $rr, a, $hi),
            }
        }
    }};
}

/// Targets left once a byte scan compares with them one by one (Grundy's game at 2^20: half
/// its pairs are scanned with at most two left).
const FEW_U8: usize = 2;

/// The targets a byte scan's last loop compares with (the first `k`, 1 or 2, of `t`), kept
/// as it meets them (not read back from the set of values after each hit).
#[derive(Debug, Clone, Copy)]
struct Few {
    t: [u32; FEW_U8],
    k: usize,
}

impl Few {
    /// The targets left in `tg` (1 or 2), read from its key set: a byte scan's keys are its
    /// values (below 256), and the key set was last written whole (a 32-byte store), where the
    /// set of values was written a byte at a time by the hits: a word read of that one waits
    /// for those stores to reach the cache (`Targets::left` took 1 % of Grundy's game).
    #[inline(always)]
    fn of(tg: &Targets<u8>) -> Few {
        debug_assert!(tg.low == u32::MAX);
        let mut t = [0u32; FEW_U8];
        let mut k = 0;
        for (w, word) in tg.keys.chunks_exact(8).enumerate() {
            let mut bits = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            while bits != 0 && k < FEW_U8 {
                t[k] = 64 * w as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                k += 1;
            }
        }
        debug_assert!(k >= 1 && k == tg.need);
        debug_assert!({
            let mut v = [0u32; FEW_U8];
            tg.left(&mut v) == k && v == t
        });
        Few { t, k }
    }

    /// Each target in every byte of a register (the last repeated to fill them).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn want(&self) -> [__m256i; FEW_U8] {
        std::array::from_fn(|i| _mm256_set1_epi8(self.t[i.min(self.k - 1)] as i8))
    }

    /// Target `v` (one of them) met.
    #[inline(always)]
    fn met(&mut self, v: u32) {
        debug_assert!(self.t[..self.k].contains(&v));
        if self.t[0] == v {
            self.t[0] = self.t[1];
        }
        self.k -= 1;
    }
}

/// The lanes of the 64 byte values `x0`, `x1` (bits 0–31, 32–63) equal to the first target of
/// `want`, or (`TWO`) to one of its two: with one target left (most of the steps of a scan's
/// end) one compare a register, not two.
#[inline]
#[target_feature(enable = "avx2")]
fn few_hits<const TWO: bool>(x0: __m256i, x1: __m256i, want: &[__m256i; FEW_U8]) -> u64 {
    const { assert!(FEW_U8 == 2) };
    let eq = |x: __m256i| {
        let eq = _mm256_cmpeq_epi8(x, want[0]);
        if TWO {
            _mm256_or_si256(eq, _mm256_cmpeq_epi8(x, want[1]))
        } else {
            eq
        }
    };
    u64::from(_mm256_movemask_epi8(eq(x0)) as u32)
        | u64::from(_mm256_movemask_epi8(eq(x1)) as u32) << 32
}

/// Steps of 64 pairs from `a` before `hi` until one has a hit: `(a, hits)` of that step, or
/// `(a, 0)` with fewer than 64 pairs left from `a`.
#[inline(always)]
fn few_steps<const TWO: bool>(
    mut a: usize,
    hi: usize,
    want: &[__m256i; FEW_U8],
    pairs: impl Fn(usize) -> __m256i,
) -> (usize, u64) {
    while a + 64 <= hi {
        // SAFETY: AVX2, this function being inlined into AVX2 code.
        let m = unsafe { few_hits::<TWO>(pairs(a), pairs(a + 32), want) };
        if m != 0 {
            return (a, m);
        }
        a += 64;
    }
    (a, 0)
}

/// The rest of a byte scan once at most [`FEW_U8`] targets are left (and one at least): 64
/// pairs a step compared with each target (two compares, no set lookup), a hit met exactly
/// and the scan going on from the pair after it. As [`scan_u8`] returns.
///
/// # Safety
/// As [`scan_u8`]; every target below 256.
#[inline]
#[target_feature(enable = "avx2,bmi1")]
unsafe fn scan_few_u8(
    row: &mut [u8],
    tg: &mut Targets<u8>,
    left: &[u8],
    right: &[u8],
    rr: usize,
    mut a: usize,
    hi: usize,
) -> Option<usize> {
    // SAFETY: a step's 32 pairs lie within a..hi (the steps' tests), so within lo..hi.
    let pairs = |a: usize| unsafe { pairs_u8(left, right, rr, a) };
    let mut few = Few::of(tg);
    loop {
        let want = few.want();
        let (at, m) = if few.k >= 2 {
            few_steps::<true>(a, hi, &want, pairs)
        } else {
            few_steps::<false>(a, hi, &want, pairs)
        };
        if m == 0 {
            return scan_tail(row, tg, left, right, rr, at, hi);
        }
        let b = at + m.trailing_zeros() as usize;
        let v = u32::from(left[b] ^ right[rr - b]);
        tg.meet(v, row);
        few.met(v);
        a = b + 1;
        if few.k == 0 {
            return Some(a);
        }
    }
}

/// [`super::scan`] over byte values.
///
/// # Safety
/// The processor must have AVX2; `hi ≤ left.len()`, `hi ≤ rr + 1`, `rr − lo < right.len()`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn scan_u8(
    row: &mut [u8],
    tg: &mut Targets<u8>,
    left: &[u8],
    right: &[u8],
    rr: usize,
    lo: usize,
    hi: usize,
) -> Option<usize> {
    let step = |a: usize, set: __m256i, xs: &mut [u8; 32]| {
        // SAFETY: as in mark_pairs_u8; 32 bytes into xs.
        unsafe {
            let x = pairs_u8(left, right, rr, a);
            _mm256_storeu_si256(xs.as_mut_ptr() as *mut __m256i, x);
            set_hits(x, set)
        }
    };
    if tg.low != u32::MAX {
        return scan_cells!(row, tg, left, right, rr, lo, hi, step);
    }
    // Below 256 a key is its value; once few targets are left, they are compared with.
    let meet = |tg: &mut Targets<_>, set: &mut __m256i, v, row: &mut [u8]| {
        let (k, target) = tg.meet_any(v, row);
        *set = without_key(*set, k, target);
    };
    let mut runs = Runs::new(lo, hi, 32, tg.runs);
    if runs.k > 1 {
        if let Some(stop) = scan_runs(row, tg, &mut runs, FEW_U8, step, meet) {
            return Some(stop);
        }
        if (1..=FEW_U8).contains(&tg.need) {
            // SAFETY: as this function's; the targets are bytes, the runs within lo..hi.
            if let Some(stop) = unsafe { scan_few_u8_runs(row, tg, left, right, rr, &mut runs) } {
                return Some(stop);
            }
        } else if tg.need > 0 {
            // More than a few left, so the runs are done.
            debug_assert!((0..runs.k).all(|j| runs.at[j] >= runs.end[j]));
        }
        if tg.need == 0 {
            return Some(runs.low());
        }
        return scan_tail(row, tg, left, right, rr, runs.top, hi);
    }
    match scan_steps(row, tg, lo, hi, FEW_U8, step, meet) {
        Ok(stop) => Some(stop),
        // SAFETY: as this function's; the targets are bytes.
        Err(a) if (1..=FEW_U8).contains(&tg.need) => unsafe {
            scan_few_u8(row, tg, left, right, rr, a, hi)
        },
        Err(a) => scan_tail(row, tg, left, right, rr, a, hi),
    }
}

/// [`super::scan`] over 16-bit values below 512.
///
/// # Safety
/// As [`scan_u8`].
#[target_feature(enable = "avx2")]
pub(super) unsafe fn scan_u16(
    row: &mut [u8],
    tg: &mut Targets<u16>,
    left: &[u16],
    right: &[u16],
    rr: usize,
    lo: usize,
    hi: usize,
) -> Option<usize> {
    let low = _mm256_set1_epi16(tg.low as u16 as i16);
    let key = |x: __m256i| {
        _mm256_or_si256(
            _mm256_and_si256(x, low),
            _mm256_andnot_si256(low, _mm256_srli_epi16(x, 1)),
        )
    };
    let step = |a: usize, set: __m256i, xs: &mut [u16; 32]| {
        // SAFETY: as in mark_pairs_u8.
        let (x0, x1) = unsafe { pairs_u16(left, right, rr, a) };
        store_u16(xs, x0, x1);
        // Packing interleaves the 128-bit halves; the permutation puts the keys in order.
        let k = _mm256_permute4x64_epi64(_mm256_packus_epi16(key(x0), key(x1)), 0xD8);
        set_hits(k, set)
    };
    scan_cells!(row, tg, left, right, rr, lo, hi, step)
}

/// [`super::head_lanes`] with AVX2 for the 8 heaps whose words start `left` (one a 32-bit
/// lane; those from `count` on are not written), their keys in `regs` registers of 32 a lane
/// (the others zero), each register over its own columns ([`HeadColumns`]); then written out
/// heap by heap.
///
/// # Safety
/// The processor must have AVX2; `left.len() ≥ cols.right().len() + 7`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn head_lanes(
    left: &[u32],
    cols: &HeadColumns,
    count: usize,
    regs: usize,
    out: &mut [[u32; 8]],
) {
    assert!(left.len() >= cols.right().len() + 7);
    super::head_sets::<8>(regs, count, out, |w| {
        // SAFETY: every column c of `cols` is below `right().len()`: c + 8 ≤ left.len().
        let acc = unsafe { head_register(left, cols.of(w)) };
        let mut lane = [0u32; 8];
        // SAFETY: 32 bytes into a [u32; 8].
        unsafe { _mm256_storeu_si256(lane.as_mut_ptr() as *mut __m256i, acc) };
        lane
    });
}

/// One register of [`head_lanes`] for the 8 heaps whose words start `left`: bit `key − 32w` of
/// each column `[c, q]` (`q` the column's word XORed with `32w`), where `left[c + i] ^ q` is
/// below 32. A function of its own, so that its registers are allocated for this loop alone.
///
/// # Safety
/// The processor must have AVX2; `c + 8 ≤ left.len()` for every column.
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn head_register(left: &[u32], cols: &[[u32; 2]]) -> __m256i {
    let one = _mm256_set1_epi32(1);
    let mark = |acc: __m256i, col: &[u32; 2]| {
        // SAFETY: c + 8 ≤ left.len() (this function's contract). The word is broadcast
        // straight from memory (a load, no shuffle: read as one 64-bit load with the column,
        // it took two shuffles on port 5).
        unsafe {
            let at = left.as_ptr().add(col[0] as usize);
            let q =
                _mm256_castps_si256(_mm256_broadcast_ss(&*(&col[1] as *const u32 as *const f32)));
            let l = _mm256_loadu_si256(at as *const __m256i);
            // 0 where the pair's key is not in this register (or it is common, or left out).
            _mm256_or_si256(acc, _mm256_sllv_epi32(one, _mm256_xor_si256(l, q)))
        }
    };
    let (mut a, mut b) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    let mut pairs = cols.chunks_exact(2);
    for two in &mut pairs {
        a = mark(a, &two[0]);
        b = mark(b, &two[1]);
    }
    if let [col] = pairs.remainder() {
        a = mark(a, col);
    }
    _mm256_or_si256(a, b)
}

/// [`super::head_marks`] with AVX2: the keys of 32 values a step looked up in the set with
/// byte shuffles (as [`lane_marks`] does for its rows).
///
/// # Safety
/// The processor must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn head_marks(
    row: &mut [u8],
    set: &[u32; 8],
    key_of: &[u8; 512],
    rare: &[u8; 512],
    used: usize,
) {
    assert!(used.is_multiple_of(32) && used <= 512 && used <= row.len());
    // SAFETY: 32 bytes of a [u32; 8].
    let (below, above) = halves(unsafe { _mm256_loadu_si256(set.as_ptr() as *const __m256i) });
    for c in (0..used).step_by(32) {
        // SAFETY: c + 32 ≤ used ≤ 512, row.len() (checked above).
        unsafe {
            let key = _mm256_loadu_si256(key_of.as_ptr().add(c) as *const __m256i);
            let cls = _mm256_loadu_si256(rare.as_ptr().add(c) as *const __m256i);
            let at = row.as_mut_ptr().add(c) as *mut __m256i;
            let hit = _mm256_andnot_si256(not_in(key, below, above), cls);
            _mm256_storeu_si256(at, _mm256_or_si256(_mm256_loadu_si256(at), hit));
        }
    }
}
