//! The loops every processor runs: plain Rust over fixed-size chunks, with no instruction set
//! asked for, written so that the compiler vectorises them at the build's baseline (SSE2 on
//! x86-64, NEON on ARM) where it can, and every vector tier's loops are tested against them.
//! A scan takes a chunk of 32 pairs at a time (the right side reversed by byte swaps of 64-bit
//! words for byte cells). Once at most 16 targets are left (8 for wider cells) it compares the
//! chunks with the list of targets, with as few as are left (1, 2, 4, 8 or 16), and looks
//! only the chunk that holds one up: byte chunks by a byte compare a target and 16 bytes (the
//! baseline's `pcmpeqb` or `cmeq`, written with its intrinsics, since the compiler vectorised
//! plain loops across the targets instead; a zero-byte test of 64-bit words elsewhere), wider
//! ones cell by cell. Else it looks each value up in a map of a byte a value: a load a pair, which neither
//! SSE2 nor NEON can do as a vector (no byte shuffle in SSE2; a NEON tier would look values up
//! with `tbl`). Step 1 stores a byte a pair, eight rows at a time with a constant stride
//! (no lanes: at 128 bits, lanes of keys as the vector tiers keep them would take about as
//! many instructions a pair as the stores, by count; not tried).

use super::{Cell, Targets, FEW, LANES};

/// [`super::mark_columns`] (its checks done): the common widths get a constant row stride, so
/// that the unrolled loop adds it for free.
#[inline(always)]
pub(super) fn mark_columns<T: Cell>(
    rows: &mut [u8],
    stride: usize,
    wmask: usize,
    vals: &[T],
    cols: &[(usize, u32)],
    len: usize,
) {
    macro_rules! by_width {
        ($($w:literal),*) => {
            match wmask + 1 {
                $($w if stride == $w + 64 => {
                    for &(q, g) in cols {
                        mark_column_fixed::<T, { $w + 64 }>(rows, wmask, &vals[q..q + len], g);
                    }
                })*
                _ => {
                    for &(q, g) in cols {
                        mark_column_scalar(rows, stride, wmask, &vals[q..q + len], g);
                    }
                }
            }
        };
    }
    by_width!(64, 128, 256, 512, 1024)
}

/// [`mark_column_scalar`] with rows `STRIDE` bytes apart, eight rows at a time.
#[inline(always)]
fn mark_column_fixed<T: Cell, const STRIDE: usize>(
    rows: &mut [u8],
    wmask: usize,
    src: &[T],
    g: u32,
) {
    let mut row = rows.as_mut_ptr();
    let mut eights = src.chunks_exact(8);
    for e in &mut eights {
        // SAFETY: as in mark_column_scalar: row k of the column starts at k * STRIDE and
        // k * STRIDE + x ≤ (len − 1) * STRIDE + wmask < rows.len(), checked by the caller.
        unsafe {
            for (k, v) in e.iter().enumerate() {
                *row.add(k * STRIDE + ((v.get() ^ g) as usize & wmask)) = 1;
            }
            row = row.add(8 * STRIDE);
        }
    }
    for &v in eights.remainder() {
        // SAFETY: as above.
        unsafe {
            *row.add((v.get() ^ g) as usize & wmask) = 1;
            row = row.add(STRIDE);
        }
    }
}

/// One column of [`mark_columns`], one value at a time (the caller checks the bounds).
#[inline(always)]
fn mark_column_scalar<T: Cell>(rows: &mut [u8], stride: usize, wmask: usize, src: &[T], g: u32) {
    let mut row = rows.as_mut_ptr();
    for &v in src {
        let x = (v.get() ^ g) as usize & wmask;
        // SAFETY: row k starts at k * stride, and k * stride + x ≤ (len − 1) * stride + wmask
        // < rows.len(), checked by the caller.
        unsafe {
            *row.add(x) = 1;
            row = row.add(stride);
        }
    }
}

/// [`super::mark_pairs`] one pair at a time.
#[inline(always)]
pub(super) fn mark_pairs<T: Cell>(
    row: &mut [u8],
    left: &[T],
    right: &[T],
    rr: usize,
    lo: usize,
    hi: usize,
) {
    let wmask = row.len() - 1;
    for (l, r) in left[lo..hi]
        .iter()
        .zip(right[rr + 1 - hi..=rr - lo].iter().rev())
    {
        row[(*l ^ *r).get() as usize & wmask] = 1;
    }
}

/// The least `K` values `v` with `row[v] == 0` and `class[v] != 0`, ascending; `u32::MAX` in
/// the slots past the last one found. `row` and `class` are equally long, a multiple of 16.
#[inline(always)]
pub(crate) fn first_open<const K: usize>(row: &[u8], class: &[u8]) -> [u32; K] {
    let mut out = [u32::MAX; K];
    let mut found = 0;
    for (i, (r, c)) in row.chunks_exact(16).zip(class.chunks_exact(16)).enumerate() {
        let mut bits = open_bits(
            r.try_into().expect("16 bytes"),
            c.try_into().expect("16 bytes"),
        );
        while bits != 0 {
            out[found] = (16 * i) as u32 + bits.trailing_zeros();
            found += 1;
            if found == K {
                return out;
            }
            bits &= bits - 1;
        }
    }
    out
}

/// Calls `f(v)` for every `v < end` with `row[v] == 0` and `class[v] != 0`, ascending.
#[inline(always)]
pub(crate) fn for_each_open(row: &[u8], class: &[u8], end: usize, mut f: impl FnMut(u32)) {
    let end = end.min(row.len());
    for (i, (r, c)) in row.chunks_exact(16).zip(class.chunks_exact(16)).enumerate() {
        if 16 * i >= end {
            return;
        }
        let mut bits = open_bits(
            r.try_into().expect("16 bytes"),
            c.try_into().expect("16 bytes"),
        );
        let room = end - 16 * i;
        if room < 16 {
            bits &= (1 << room) - 1;
        }
        while bits != 0 {
            f((16 * i) as u32 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
}

/// Bit `i` set when `row[i] == 0` and `class[i] != 0`.
#[inline(always)]
fn open_bits(row: &[u8; 16], class: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of every x86-64 target; the loads read 16 bytes of 16-byte arrays.
        unsafe {
            let r = _mm_loadu_si128(row.as_ptr() as *const __m128i);
            let c = _mm_loadu_si128(class.as_ptr() as *const __m128i);
            let open = _mm_andnot_si128(
                _mm_cmpeq_epi8(c, _mm_setzero_si128()),
                _mm_cmpeq_epi8(r, _mm_setzero_si128()),
            );
            _mm_movemask_epi8(open) as u32
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::aarch64::*;
        // Bit i of each half as a byte's weight: adding a half's open bytes gives its bits.
        const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        // SAFETY: NEON is part of every aarch64 target; the loads read 16 bytes of 16-byte
        // arrays.
        unsafe {
            let r = vld1q_u8(row.as_ptr());
            let c = vld1q_u8(class.as_ptr());
            let open = vbicq_u8(vceqzq_u8(r), vceqzq_u8(c));
            let bits = vandq_u8(open, vld1q_u8(WEIGHTS.as_ptr()));
            u32::from(vaddv_u8(vget_low_u8(bits))) | u32::from(vaddv_u8(vget_high_u8(bits))) << 8
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        open_bits_words(row, class)
    }
}

/// [`open_bits`] on 64-bit words, for processors with neither SSE2 nor NEON (and tested on
/// every one): a byte is zero where it has no bit left after `(b & 0x7F) + 0x7F` (bit 7 set
/// by any lower bit) is ORed with it, exactly and without carries between bytes; the bits 7 of
/// a word's open bytes are then gathered by a multiply. Written bit by bit with `&&`, the loop
/// was compiled for aarch64 as 16 loads and 16 branches; as bytes of 0 or 1 with a multiply
/// a half, as 16 compares and selects, nothing vectorised either.
#[cfg_attr(any(target_arch = "x86_64", target_arch = "aarch64"), allow(dead_code))]
#[inline(always)]
fn open_bits_words(row: &[u8; 16], class: &[u8; 16]) -> u32 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    // Bit 8i + 7 set where byte i is zero.
    let zeros = |w: u64| !(((w & LOW7).wrapping_add(LOW7)) | w | LOW7);
    // Byte i of a word (0 or 1, at bit 8i) times bit 56 − 7i of the multiplier lands on bit
    // 56 + i; every other product of the two falls on a bit of its own below 56, so nothing
    // carries into the top byte.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let half = |k: usize| {
        let word = |s: &[u8; 16]| u64::from_le_bytes(s[8 * k..8 * k + 8].try_into().expect("8"));
        let open = zeros(word(row)) & !zeros(word(class));
        ((open >> 7).wrapping_mul(GATHER) >> 56) as u32
    };
    half(0) | half(1) << 8
}

/// `left[a + i] ^ right[rr − a − i]` for `i < LANES`.
#[inline(always)]
fn pair_chunk<T: Cell>(left: &[T], right: &[T], rr: usize, a: usize) -> [T; LANES] {
    let l: &[T; LANES] = left[a..a + LANES].try_into().expect("chunk length");
    let g: &[T; LANES] = right[rr + 1 - a - LANES..rr + 1 - a]
        .try_into()
        .expect("chunk length");
    if let (Some(l), Some(g)) = (super::cast::<T, u8>(l), super::cast::<T, u8>(g)) {
        // Bytes: the right side reversed eight at a time by a byte swap of a 64-bit word (one
        // instruction on x86-64 and ARM), where a reversal lane by lane costs SSE2 a dozen
        // shifts and ORs per 16 bytes (Grundy's game, portable: a sixth of the time).
        let word = |s: &[u8], k: usize| {
            u64::from_le_bytes(s[8 * k..8 * k + 8].try_into().expect("8 bytes"))
        };
        let mut bytes = [0u8; LANES];
        for k in 0..LANES / 8 {
            let x = word(l, k) ^ word(g, LANES / 8 - 1 - k).swap_bytes();
            bytes[8 * k..8 * k + 8].copy_from_slice(&x.to_le_bytes());
        }
        let mut x = [T::default(); LANES];
        for (x, &b) in x.iter_mut().zip(&bytes) {
            *x = T::from_u32(u32::from(b));
        }
        return x;
    }
    let mut x = [T::default(); LANES];
    for i in 0..LANES {
        x[i] = l[i] ^ g[LANES - 1 - i];
    }
    x
}

/// Whether some value of the chunk is one of `want` (compares of whole vectors: no lookup).
#[inline(always)]
fn list_hits<T: Cell, const K: usize>(x: &[T; LANES], want: &[T; K]) -> bool {
    let mut hit = [0u8; LANES];
    for &m in want {
        for i in 0..LANES {
            hit[i] |= u8::from(x[i] == m);
        }
    }
    hit.iter().fold(0, |a, &b| a | b) != 0
}

/// The pairs of a chunk of byte cells as four 64-bit words (value `i` in byte `i & 7` of word
/// `i >> 3`), the right side reversed by a byte swap of each word.
#[inline(always)]
fn pair_words(left: &[u8], right: &[u8], rr: usize, a: usize) -> [u64; 4] {
    let l: &[u8; LANES] = left[a..a + LANES].try_into().expect("chunk length");
    let g: &[u8; LANES] = right[rr + 1 - a - LANES..rr + 1 - a]
        .try_into()
        .expect("chunk length");
    let word = |s: &[u8; LANES], k: usize| {
        u64::from_le_bytes(s[8 * k..8 * k + 8].try_into().expect("8 bytes"))
    };
    std::array::from_fn(|k| word(l, k) ^ word(g, 3 - k).swap_bytes())
}

/// A target in each of 16 bytes, for [`byte_hits`].
type Spread = [u8; 16];

/// Whether some byte of the words `w` (byte `i` of the chunk in byte `i & 7` of word `i >> 3`)
/// is one of the targets of `want`: SSE2's `pcmpeqb` on x86-64 and NEON's `cmeq` on aarch64,
/// two compares and ORs a target (16 bytes each), no branch. Written as plain loops over the
/// bytes, the compiler vectorised them across the targets instead (a byte of the chunk spread
/// and compared with four targets at a time, hundreds of shuffles a chunk), whether the count
/// of targets was fixed or known at run time only; the baseline's intrinsics, as in
/// [`open_bits`], leave it no choice. Elsewhere each word is compared with a zero-byte test
/// ([`word_hits`]).
#[inline(always)]
fn byte_hits(w: &[u64; 4], want: &[Spread]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of every x86-64 target; the loads read 16-byte arrays.
        unsafe {
            let lo = _mm_set_epi64x(w[1] as i64, w[0] as i64);
            let hi = _mm_set_epi64x(w[3] as i64, w[2] as i64);
            let mut acc = _mm_setzero_si128();
            for t in want {
                let t = _mm_loadu_si128(t.as_ptr() as *const __m128i);
                let eq = _mm_or_si128(_mm_cmpeq_epi8(lo, t), _mm_cmpeq_epi8(hi, t));
                acc = _mm_or_si128(acc, eq);
            }
            _mm_movemask_epi8(acc) != 0
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::aarch64::*;
        // SAFETY: NEON is part of every aarch64 target; the loads read 16-byte arrays.
        unsafe {
            let lo = vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(w[0]), vcreate_u64(w[1])));
            let hi = vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(w[2]), vcreate_u64(w[3])));
            let mut acc = vdupq_n_u8(0);
            for t in want {
                let t = vld1q_u8(t.as_ptr());
                acc = vorrq_u8(acc, vorrq_u8(vceqq_u8(lo, t), vceqq_u8(hi, t)));
            }
            vmaxvq_u8(acc) != 0
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        word_hits(w, want)
    }
}

/// [`byte_hits`] on 64-bit words, for processors with neither SSE2 nor NEON (and tested on
/// every one): a byte of `y = w ⊕ t` is zero exactly when `(y − ONES) & !y & TOPS` has a bit
/// there or in a byte above it (a borrow runs only from a zero byte), so that the OR over the
/// targets and words is nonzero exactly when one is met.
#[cfg_attr(any(target_arch = "x86_64", target_arch = "aarch64"), allow(dead_code))]
#[inline(always)]
fn word_hits(w: &[u64; 4], want: &[Spread]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut acc = [0u64; 4];
    for t in want {
        let t = u64::from_le_bytes(t[..8].try_into().expect("8 bytes"));
        for k in 0..4 {
            let y = w[k] ^ t;
            acc[k] |= y.wrapping_sub(ONES) & !y;
        }
    }
    acc.iter().fold(0, |a, &b| a | b) & (ONES << 7) != 0
}

/// The chunks from `a` on, before `hi`, compared with the first `K` targets of the list
/// ([`byte_hits`] for byte cells, [`list_hits`] for wider ones): where the first chunk that
/// holds one starts, or where the whole chunks end.
#[inline(always)]
fn list_run<T: Cell, const K: usize>(
    left: &[T],
    right: &[T],
    rr: usize,
    mut a: usize,
    hi: usize,
    list: &[T; FEW],
) -> usize {
    let want: &[T; K] = list[..K].try_into().expect("K ≤ FEW");
    if let (Some(l), Some(r)) = (super::cast::<T, u8>(left), super::cast::<T, u8>(right)) {
        let spread: [Spread; K] = std::array::from_fn(|i| [want[i].get() as u8; 16]);
        while a + LANES <= hi {
            if byte_hits(&pair_words(l, r, rr, a), &spread) {
                return a;
            }
            a += LANES;
        }
        return a;
    }
    while a + LANES <= hi {
        if list_hits(&pair_chunk(left, right, rr, a), want) {
            return a;
        }
        a += LANES;
    }
    a
}

/// Targets left from which a scan compares its chunks with their list ([`list_run`]) rather than
/// look their values up in the map: a compare a target and vector of 16 bytes (or 8 cells of
/// 16 bits) against a load a pair.
#[inline(always)]
fn list_from<T: Cell>() -> usize {
    if T::BITS == 8 {
        16
    } else {
        8
    }
}

/// Bit `i` set when value `i` of the chunk is a target in `map`.
#[inline(always)]
fn map_bits<T: Cell>(x: &[T; LANES], map: &[u8]) -> u32 {
    let wmask = map.len() - 1;
    let mut bits = 0u32;
    for (i, &v) in x.iter().enumerate() {
        // SAFETY: the index is masked by map.len() − 1, map.len() a power of two.
        bits |= u32::from(unsafe { *map.get_unchecked(v.get() as usize & wmask) }) << i;
    }
    bits
}

/// The pairs of [`scan`] one by one.
#[inline(always)]
pub(super) fn scan_tail<T: Cell>(
    row: &mut [u8],
    tg: &mut Targets<T>,
    left: &[T],
    right: &[T],
    rr: usize,
    mut a: usize,
    hi: usize,
) -> Option<usize> {
    while a < hi {
        let v = (left[a] ^ right[rr - a]).get();
        a += 1;
        if tg.meet(v, row) && tg.need == 0 {
            return Some(a);
        }
    }
    None
}

/// [`super::small_scan`] from pair `a` on, 64 pairs at a time folded into a word of the values
/// seen (the compiler vectorises the fold).
#[inline(always)]
pub(super) fn small_scan<T: Cell, const WIDE: bool>(
    vals: &[T],
    r: usize,
    mut a: usize,
    hi: usize,
    mut targets: u64,
    limit: u32,
) -> u64 {
    let bit = |v: u32| super::small_bit::<WIDE>(v, limit);
    while targets != 0 && a < hi {
        let stop = hi.min(a + 64);
        // Pairs (b, r − b) for b in a..stop: the left parts ascending, the right ones descending.
        let seen = vals[a..stop]
            .iter()
            .zip(vals[r + 1 - stop..r + 1 - a].iter().rev())
            .fold(0u64, |acc, (&l, &rt)| acc | bit((l ^ rt).get()));
        targets &= !seen;
        a = stop;
    }
    targets
}

/// [`super::small_columns`] a column at a time.
#[inline(always)]
pub(super) fn small_columns<T: Cell, const WIDE: bool>(
    far: &mut [u64],
    vals: &[T],
    columns: &[(usize, u32)],
    limit: u32,
) {
    let len = far.len();
    for &(start, g) in columns {
        for (m, &v) in far.iter_mut().zip(&vals[start..start + len]) {
            *m |= super::small_bit::<WIDE>(g ^ v.get(), limit);
        }
    }
}

/// [`super::scan`] a chunk of [`LANES`] pairs at a time: the chunk's values looked up in the map
/// of targets, or, once few targets are left, compared with their list first.
#[inline(always)]
pub(super) fn scan<T: Cell>(
    row: &mut [u8],
    tg: &mut Targets<T>,
    left: &[T],
    right: &[T],
    rr: usize,
    lo: usize,
    hi: usize,
) -> Option<usize> {
    let mut a = lo;
    while a + LANES <= hi {
        if tg.use_list(list_from::<T>()) {
            // The chunks with no target compared with as few targets as are left; the chunk
            // with one is looked up as below.
            a = match tg.need {
                1 => list_run::<T, 1>(left, right, rr, a, hi, &tg.list),
                2 => list_run::<T, 2>(left, right, rr, a, hi, &tg.list),
                3..=4 => list_run::<T, 4>(left, right, rr, a, hi, &tg.list),
                5..=8 => list_run::<T, 8>(left, right, rr, a, hi, &tg.list),
                _ => list_run::<T, FEW>(left, right, rr, a, hi, &tg.list),
            };
            if a + LANES > hi {
                break;
            }
        }
        let x = pair_chunk(left, right, rr, a);
        let mut bits = map_bits(&x, &tg.map);
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            // A value met twice in the chunk is a target only the first time.
            if tg.meet(x[i].get(), row) && tg.need == 0 {
                return Some(a + i + 1);
            }
        }
        a += LANES;
    }
    scan_tail(row, tg, left, right, rr, a, hi)
}

/// [`super::head_lanes`] one pair at a time.
#[inline(always)]
pub(super) fn head_lanes(
    left: &[u32],
    right: &[u32],
    count: usize,
    regs: usize,
    out: &mut [[u32; 8]],
) {
    let keys = 32 * regs as u32;
    for (i, set) in out.iter_mut().enumerate().take(count) {
        *set = [0; 8];
        for (&l, &q) in left[i..].iter().zip(right) {
            let k = l ^ q;
            if k < keys {
                set[(k >> 5) as usize] |= 1 << (k & 31);
            }
        }
    }
}

/// [`super::head_marks`] value by value, below `used`.
#[inline(always)]
pub(super) fn head_marks(
    row: &mut [u8],
    set: &[u32; 8],
    key_of: &[u8; 512],
    rare: &[u8; 512],
    used: usize,
) {
    for (v, m) in row.iter_mut().enumerate().take(used) {
        let k = key_of[v];
        *m |= rare[v] & (set[usize::from(k >> 5)] >> (k & 31)) as u8 & 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `byte_hits` (SSE2 on x86-64, NEON on aarch64) and `word_hits` (other processors) against
    /// the definition (some byte of the words is one of the targets), on words with bytes from
    /// a few values, so that hits, misses and bytes next to a hit (where the borrow runs) all
    /// occur, for 1 to 16 targets.
    #[test]
    fn byte_hits_is_the_definition() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        fn run<const K: usize>(next: &mut impl FnMut() -> u64) {
            let pick = |b: u64| [0u8, 1, 2, 0x80, 0x81, 0xFF, 0x7F, 0xFE][(b % 8) as usize];
            let mut bytes = [0u8; 32];
            for b in &mut bytes {
                *b = pick(next());
            }
            let want: [u8; K] = std::array::from_fn(|_| pick(next()));
            let words: [u64; 4] = std::array::from_fn(|k| {
                u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().expect("8"))
            });
            let spread = want.map(|t| [t; 16]);
            let hit = bytes.iter().any(|b| want.contains(b));
            assert_eq!(byte_hits(&words, &spread), hit, "{bytes:?} {want:?}");
            assert_eq!(word_hits(&words, &spread), hit, "{bytes:?} {want:?}");
        }
        for _ in 0..4096 {
            run::<1>(&mut next);
            run::<2>(&mut next);
            run::<4>(&mut next);
            run::<8>(&mut next);
            run::<FEW>(&mut next);
        }
    }

    /// The scan in chunks (the list compares with as few targets as are left, the map) against
    /// the pairs one by one: the same marks, targets left and stop, for byte and 16-bit cells,
    /// with values from a few mostly, so that the last targets take long to meet.
    #[test]
    fn scan_is_the_pairs_one_by_one() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        fn run<T: Cell>(vals: &[T], width: usize, class: &[u8], rr: usize, lo: usize, hi: usize) {
            let go = |whole: bool| {
                let mut row = vec![0u8; width];
                let mut tg = Targets::<T>::new(width, 1, crate::engine::Tier::PORTABLE);
                tg.set_open(&row, class, width);
                let stop = if whole {
                    scan(&mut row, &mut tg, vals, vals, rr, lo, hi)
                } else {
                    scan_tail(&mut row, &mut tg, vals, vals, rr, lo, hi)
                };
                (stop, row, tg.need())
            };
            assert_eq!(go(true), go(false), "{} bits, {lo}..{hi}", T::BITS);
        }
        for round in 0..400 {
            let width = [64usize, 256, 512][round % 3];
            let n = 200 + (next() % 3000) as usize;
            let vals: Vec<u16> = (0..n)
                .map(|_| {
                    let v = next() % width as u64;
                    (if next() % 64 != 0 { v % 24 } else { v }) as u16
                })
                .collect();
            // Every other round, targets among the frequent values only: few from the start.
            let class: Vec<u8> = (0..width)
                .map(|v| {
                    let pick = next() % 3 == 0 && (round % 2 == 0 || v < 24);
                    if pick {
                        0xFF
                    } else {
                        0
                    }
                })
                .collect();
            let rr = n - 1 - (next() % 50) as usize;
            let lo = 1 + (next() % 40) as usize;
            let hi = lo + (next() % (rr / 2 - lo) as u64) as usize;
            run(&vals, width, &class, rr, lo, hi);
            if width <= 256 {
                let bytes: Vec<u8> = vals.iter().map(|&v| v as u8).collect();
                run(&bytes, width, &class, rr, lo, hi);
            }
        }
    }

    /// `open_bits` (SSE2 on x86-64, NEON on aarch64) and its form on words (other processors)
    /// against the definition, value by value, on rows and classes of every mix of zero and
    /// other bytes.
    #[test]
    fn open_bits_is_the_definition() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..4096 {
            let (mut row, mut class) = ([0u8; 16], [0u8; 16]);
            for i in 0..16 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly 0 and 1, also bytes with the top bit set (255, 128).
                let pick = |b: u64| [0, 1, 255, 128, 0, 7][(b % 6) as usize];
                row[i] = pick(x);
                class[i] = pick(x >> 8);
            }
            if round == 0 {
                (row, class) = ([0; 16], [255; 16]);
            }
            let want: u32 = (0..16)
                .map(|i| u32::from(row[i] == 0 && class[i] != 0) << i)
                .sum();
            assert_eq!(open_bits_words(&row, &class), want, "{row:?} {class:?}");
            assert_eq!(open_bits(&row, &class), want, "{row:?} {class:?}");
        }
    }
}
