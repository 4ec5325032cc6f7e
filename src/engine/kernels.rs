//! The inner loops of the sparse engine: marking a column of pair values, finding the least
//! unmarked values of a class, and scanning pairs of heaps for a set of target values.
//!
//! Most are plain generic Rust over fixed-size chunks, written so that the compiler turns them
//! into vector code. The engine compiles its hot paths three times — for the build's baseline
//! and, when the processor has them, for AVX2 and AVX-512 (see [`Isa`]) — and every loop here is
//! `#[inline(always)]` so that it takes the instruction set of its caller. A few are written
//! with intrinsics for one instruction set (`mod avx2`, `mod avx512`: the scans, step 1 in
//! lanes, small mode's near pairs, far marks and scan, the targets' set), each tested against
//! the portable loop or the definition. What they compute never depends on which instruction
//! set runs them.

use super::scan_keys::{key_without, ScanKeys};
use super::Cell;

/// The instruction set the engine's hot paths run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// What the build targets (SSE2 on x86-64).
    Portable,
    /// x86-64 with AVX2, BMI1, BMI2, POPCNT and LZCNT, detected at run time.
    Avx2,
    /// x86-64 with AVX2 and the AVX-512 extensions of Ice Lake and Zen 4 (F, BW, VL, VBMI,
    /// VBMI2, BITALG), detected at run time. Processors with only the first AVX-512 extensions
    /// (Skylake-X, Cascade Lake) run [`Isa::Avx2`].
    Avx512,
}

impl Isa {
    /// The best instruction set of this processor, unless the environment variable
    /// `NIMSEQ_ISA` asks for a lesser one (`portable` or `avx2`, for comparisons and debugging).
    pub fn detect() -> Isa {
        let best = Isa::best();
        match std::env::var_os("NIMSEQ_ISA") {
            Some(v) if v == "portable" => Isa::Portable,
            Some(v) if v == "avx2" && best != Isa::Portable => Isa::Avx2,
            _ => best,
        }
    }

    /// The best instruction set of this processor.
    fn best() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            use std::is_x86_feature_detected as has;
            // Every feature the AVX2 loops are compiled with (`lzcnt` run where the processor
            // lacks it would be `bsr`: wrong, not a fault).
            if has!("avx2") && has!("bmi1") && has!("bmi2") && has!("popcnt") && has!("lzcnt") {
                if has!("avx512f")
                    && has!("avx512bw")
                    && has!("avx512vl")
                    && has!("avx512vbmi")
                    && has!("avx512vbmi2")
                    && has!("avx512bitalg")
                {
                    return Isa::Avx512;
                }
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }

    /// Every instruction set this processor can run, the portable one first (for tests).
    pub fn available() -> Vec<Isa> {
        match Isa::best() {
            Isa::Portable => vec![Isa::Portable],
            Isa::Avx2 => vec![Isa::Portable, Isa::Avx2],
            Isa::Avx512 => vec![Isa::Portable, Isa::Avx2, Isa::Avx512],
        }
    }

    /// Whether the AVX2 loops may run (every set but the portable one includes AVX2).
    pub(super) fn has_avx2(self) -> bool {
        self != Isa::Portable
    }
}

/// Pairs per chunk of a scan.
pub(super) const LANES: usize = 32;

/// A scan compares whole chunks with the list of targets once at most this many remain.
pub(super) const FEW: usize = 8;

/// For every column `(q, g)` of `cols`, marks `vals[q + k] ^ g` in row `k` of `rows` for
/// `k < len`; rows are `stride` bytes apart, values masked by `wmask`.
#[inline(always)]
pub(super) fn mark_columns<T: Cell>(
    isa: Isa,
    rows: &mut [u8],
    stride: usize,
    wmask: usize,
    vals: &[T],
    cols: &[(usize, u32)],
    len: usize,
) {
    if len == 0 || cols.is_empty() {
        return;
    }
    assert!(wmask < stride && (len - 1) * stride + wmask < rows.len());
    assert!(cols.iter().all(|&(q, _)| q + len <= vals.len()));
    let _ = isa;
    // The common widths get a constant row stride, so that the unrolled loop adds it for free.
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

/// How [`lane_marks`] numbers the common values of a mask: a common value without the mask's
/// lowest bit `b` (which follows from the others: `popcount(v & mask)` is odd), so that the
/// common values below `2^k` get the keys below `2^(k−1)`. A lane holds `16 · regs` keys; the
/// common values with a larger key are left out: a heap marked in lanes is *clipped* (exact
/// only below [`LaneKeys::limit`]) until its row is marked in full.
#[derive(Debug, Clone)]
pub(super) struct LaneKeys {
    mask: u16,
    /// The bits below `b`.
    low: u16,
    /// Registers of 16 keys a lane: one of [`LaneKeys::REGS`].
    regs: usize,
    /// Every common value below this has a key below `16 · regs`.
    limit: u32,
    /// For each value below 512: its key (any value, common or not, without bit `b`) …
    key_of: [u8; 512],
    /// … and 1 where it is common and its key below `16 · regs`, else 0.
    common: [u8; 512],
}

impl LaneKeys {
    /// The register counts [`lane_marks`] is compiled for (1, for tests, clips at 32).
    pub const REGS: [usize; 5] = [1, 4, 8, 12, 16];

    /// The keys of the mask's common values in `regs` registers (one of [`LaneKeys::REGS`]),
    /// when the mask's lowest bit is below bit 8 and it fits 16 bits (else `None`).
    pub(super) fn new(mask: u32, regs: usize) -> Option<LaneKeys> {
        let b = mask.trailing_zeros();
        if mask == 0 || b >= 8 || mask > 0xFFFF || !Self::REGS.contains(&regs) {
            return None;
        }
        let low = (1u32 << b) - 1;
        let key = |v: u32| key_without(v, low);
        let keys = 16 * regs as u32;
        let limit = (0..1 << 16).find(|&v| key(v) >= keys).unwrap_or(1 << 16);
        let mut lk = LaneKeys {
            mask: mask as u16,
            low: low as u16,
            regs,
            limit,
            key_of: [0; 512],
            common: [0; 512],
        };
        for v in 0..512u32 {
            lk.key_of[v as usize] = key(v) as u8;
            let common = !crate::classes::is_rare(v, mask);
            lk.common[v as usize] = u8::from(common && key(v) < keys);
        }
        Some(lk)
    }

    /// Every common value below this is marked by [`lane_marks`].
    pub(super) fn limit(&self) -> u32 {
        self.limit
    }

    /// Registers of 16 keys a lane.
    pub(super) fn regs(&self) -> usize {
        self.regs
    }
}

/// Columns of pair values for [`lane_marks`]: for each rare position `p` of `pos` (value `g`
/// in `val`), the column `(base − p, g)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Columns<'a> {
    pub(super) base: usize,
    pub(super) pos: &'a [usize],
    pub(super) val: &'a [u32],
}

impl Columns<'_> {
    /// The columns `(q, g)`.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        // A position past the base gives a column past any values, which their users reject.
        self.pos
            .iter()
            .zip(self.val)
            .map(|(&p, &g)| (self.base.wrapping_sub(p), g))
    }
}

/// Step 1 in vector lanes: for every column `(q, g)` of `cols`, marks `vals[q + k] ^ g` in row
/// `k` of `rows` for `k < len` (rows `stride` bytes apart, `width` bytes used), like
/// [`mark_columns`], but only the common values with a key ([`LaneKeys`]). 32 heaps at a time,
/// one per 16-bit lane, their marks kept in registers of 16 keys a lane (a subtraction, a shift
/// and an OR a register per 32 pairs, no store per pair), then ORed into the rows. About three
/// times faster than a store per pair with 8 registers (Officers' columns, AVX-512 on Zen 4:
/// 0.13 against 0.43 ns a pair). With AVX2, 8 heaps at a time in 32-bit lanes
/// (`avx2::lane_marks`). With `all_common` the caller knows that every value of the columns is
/// common (no other heap of a pair is a rare position: the rare positions all lie below half
/// the heaps) and the class test per pair is left out. Returns false, having done
/// nothing, where it cannot run (the portable build, or values wider than 16 bits); the caller
/// marks with [`mark_columns`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn lane_marks<T: Cell>(
    isa: Isa,
    rows: &mut [u8],
    stride: usize,
    width: usize,
    vals: &[T],
    cols: &[Columns<'_>],
    len: usize,
    keys: &LaneKeys,
    all_common: bool,
) -> bool {
    if isa == Isa::Portable || T::BITS > 16 {
        return false;
    }
    if len == 0 || cols.is_empty() {
        return true;
    }
    let used = width.min(512);
    assert!(used.is_multiple_of(64) && used <= stride && (len - 1) * stride + used <= rows.len());
    assert!(len <= vals.len());
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: Isa::Avx512 is only chosen when the processor has it; the rows are checked
        // above, each column where it is used (a check of every column here, once a call, took
        // a quarter of the far chunks' own time with four chunks a thread: it grows with the
        // rare positions).
        unsafe {
            // Registers of 16 keys a lane on AVX-512, of 32 on AVX2 (half as many, at least 1).
            macro_rules! regs {
                ($set:ident, $all:literal, $($r:literal / $r2:literal),*) => {
                    match keys.regs {
                        $($r => $set::lane_marks::<T, $r2, $all>(
                            rows, stride, used, vals, cols, len, keys,
                        ),)*
                        _ => unreachable!("LaneKeys::REGS"),
                    }
                };
            }
            match (isa == Isa::Avx512, all_common) {
                (true, true) => regs!(avx512, true, 1 / 1, 4 / 4, 8 / 8, 12 / 12, 16 / 16),
                (true, false) => regs!(avx512, false, 1 / 1, 4 / 4, 8 / 8, 12 / 12, 16 / 16),
                (false, true) => regs!(avx2, true, 1 / 1, 4 / 2, 8 / 4, 12 / 6, 16 / 8),
                (false, false) => regs!(avx2, false, 1 / 1, 4 / 2, 8 / 4, 12 / 6, 16 / 8),
            }
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (rows, stride, vals, keys);
        false
    }
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

/// Small mode's scan: `targets` (bit `v` for value `v < limit ≤ 64`) without the values of the
/// pairs `vals[a] ^ vals[r − a]`, `a` in `lo..hi`, folded 64 pairs at a time into a word of
/// values seen (the compiler vectorises the fold) until no target is left; with `WIDE`, pairs
/// of value `limit` or more mark nothing ([`small_bit`]). Needs `hi ≤ r + 1` and
/// `r − lo < vals.len()`. With AVX2 or AVX-512 and byte values, whole chunks go to
/// `avx2::small_scan` or `avx512::small_scan`, which compare the chunks left with one or two
/// targets with each.
#[inline(always)]
pub(super) fn small_scan<T: Cell, const WIDE: bool>(
    isa: Isa,
    vals: &[T],
    r: usize,
    lo: usize,
    hi: usize,
    targets: u64,
    limit: u32,
) -> u64 {
    assert!(lo >= hi || (hi <= r + 1 && r - lo < vals.len()));
    let (mut a, mut targets) = (lo, targets);
    #[cfg(target_arch = "x86_64")]
    if limit <= 64 {
        if let Some(bytes) = cast::<T, u8>(vals) {
            // The kernels compare pair values with the targets as bytes: every target is below
            // the limit, so no value from the limit on meets one.
            assert!(targets.checked_shr(limit).unwrap_or(0) == 0);
            // SAFETY (both): the instruction set is only chosen when the processor has it;
            // bounds asserted above.
            match isa {
                Isa::Avx512 => {
                    (targets, a) = unsafe { avx512::small_scan(bytes, r, a, hi, targets) }
                }
                Isa::Avx2 => (targets, a) = unsafe { avx2::small_scan(bytes, r, a, hi, targets) },
                Isa::Portable => {}
            }
        }
    }
    let _ = isa;
    let bit = |v: u32| small_bit::<WIDE>(v, limit);
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

/// The chunks of 64 pairs from `a` on that lie below `hi`, for the kernels of small mode's scan
/// (`avx2::small_scan`, `avx512::small_scan`): the targets left and where it stopped. While more
/// than two targets are left, `seen(a)` (the word of the values of the chunk at `a`) clears
/// them; then `meets(a, one, two)` tells whether the chunk holds the targets `one` and `two`,
/// as made by `wanted`: the one or two left, the same one twice when one is, made once per
/// target met so that nothing but `a` carries from chunk to chunk. (0.167, 2^22 heaps: half its
/// chunks are left with one target, a sixth with two; a compare each is a few instructions,
/// the word a few dozen. Comparing with three or four targets was slower.) A value from the
/// limit on sets no target's bit in `seen` (from 64 on, none; below 64, one above every
/// target), nor is it equal to one.
#[inline(always)]
fn small_scan_chunks<W: Copy>(
    mut a: usize,
    hi: usize,
    mut targets: u64,
    seen: impl Fn(usize) -> u64,
    wanted: impl Fn(u32) -> W,
    meets: impl Fn(usize, W, W) -> (bool, bool),
) -> (u64, usize) {
    while targets.count_ones() > 2 && a + 64 <= hi {
        targets &= !seen(a);
        a += 64;
    }
    while targets != 0 && a + 64 <= hi {
        let (first, second) = (targets.trailing_zeros(), 63 - targets.leading_zeros());
        let (one, two) = (wanted(first), wanted(second));
        while a + 64 <= hi {
            let (hit_one, hit_two) = meets(a, one, two);
            a += 64;
            if hit_one || hit_two {
                if hit_one {
                    targets &= !(1u64 << first);
                }
                if hit_two {
                    targets &= !(1u64 << second);
                }
                break;
            }
        }
    }
    (targets, a)
}

/// Bit `v` of a small mode mark word: `1 << v`, or 0 when `WIDE` and `v ≥ limit` (a value the
/// word does not hold; without `WIDE` every value is below `limit` = 64).
#[inline(always)]
pub(super) fn small_bit<const WIDE: bool>(v: u32, limit: u32) -> u64 {
    if WIDE {
        (1u64 << (v & 63)) & u64::from(v < limit).wrapping_neg()
    } else {
        1u64 << (v & 63)
    }
}

/// Small mode's far marks of a block of heaps: `far[j] |=` [`small_bit`]`(g ⊕ vals[start + j])`
/// for each column `(start, g)`. On [`Isa::Avx512`] with byte cells and a block of 64, the 64
/// words stay in registers across the columns (the portable loop reads and writes them once a
/// column).
#[inline(always)]
pub(super) fn small_columns<T: Cell, const WIDE: bool>(
    isa: Isa,
    far: &mut [u64],
    vals: &[T],
    columns: &[(usize, u32)],
    limit: u32,
) {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx512 && limit <= 64 {
        if let (Ok(block), Some(bytes)) =
            (<&mut [u64; 64]>::try_from(&mut *far), cast::<T, u8>(vals))
        {
            // SAFETY: Isa::Avx512 is only chosen when the processor has it.
            return unsafe { avx512::small_columns(block, bytes, columns, limit) };
        }
    }
    let _ = isa;
    let len = far.len();
    for &(start, g) in columns {
        for (m, &v) in far.iter_mut().zip(&vals[start..start + len]) {
            *m |= small_bit::<WIDE>(g ^ v.get(), limit);
        }
    }
}

/// Small mode's pairs of a heap `n` with rare positions near 0, as lanes: pair `i` takes the
/// value `d` below the heap (`d` = take + rare position, at most 64) and its rare value `g`;
/// `idx[i]` = 64 − d and `g[i]` = g for the first `count` lanes (for [`near_small_marks`]).
#[derive(Debug, Clone)]
pub(super) struct NearLanes {
    idx: [u8; 64],
    g: [u8; 64],
    count: usize,
}

impl NearLanes {
    /// The lanes of the pairs `(d, g)`, if there are at most 64, with each `d` in 1..=64 and
    /// each `g` below 256.
    pub(super) fn new(pairs: &[(usize, u32)]) -> Option<NearLanes> {
        if pairs.len() > 64
            || pairs
                .iter()
                .any(|&(d, g)| !(1..=64).contains(&d) || g > 255)
        {
            return None;
        }
        let mut lanes = NearLanes {
            idx: [0; 64],
            g: [0; 64],
            count: pairs.len(),
        };
        for (i, &(d, g)) in pairs.iter().enumerate() {
            lanes.idx[i] = (64 - d) as u8;
            lanes.g[i] = g as u8;
        }
        Some(lanes)
    }
}

/// The mark word of the pairs of `lanes` for heap `n` ([`small_bit`] of `g ⊕ G(n − d)`, 0 for
/// values from `limit` on), all 64 at once on [`Isa::Avx512`] with byte cells: the other heaps
/// are bytes of the 64 values below `n`, picked with one byte permutation. `None` where it
/// cannot run (another instruction set or cell width, or `n < 64`); the caller marks them one
/// by one.
#[inline(always)]
pub(super) fn near_small_marks<T: Cell>(
    isa: Isa,
    vals: &[T],
    n: usize,
    lanes: &NearLanes,
    limit: u32,
) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx512 && n >= 64 && limit <= 64 {
        let window = &cast::<T, u8>(vals)?[n - 64..n];
        // SAFETY: Isa::Avx512 is only chosen when the processor has it; the window holds 64.
        return Some(unsafe { avx512::near_marks(window, lanes, limit) });
    }
    let _ = (isa, vals, n, lanes, limit);
    None
}

/// Marks `left[a] ^ right[rr − a]` in `row` (values masked by `row.len() − 1`, a power of two)
/// for every `a` in `lo..hi`. Needs `hi ≤ left.len()`, `hi ≤ rr + 1` and `rr − lo < right.len()`.
#[inline(always)]
pub(super) fn mark_pairs<T: Cell>(
    isa: Isa,
    row: &mut [u8],
    left: &[T],
    right: &[T],
    rr: usize,
    lo: usize,
    hi: usize,
) {
    if lo >= hi {
        return;
    }
    assert!(
        row.len().is_power_of_two() && hi <= left.len() && hi <= rr + 1 && rr - lo < right.len()
    );
    #[cfg(target_arch = "x86_64")]
    if isa.has_avx2() {
        if let (Some(l), Some(r)) = (cast::<T, u8>(left), cast::<T, u8>(right)) {
            // SAFETY: AVX2 is there (Isa::Avx2); bounds checked above.
            return unsafe { avx2::mark_pairs_u8(row, l, r, rr, lo, hi) };
        }
        if let (Some(l), Some(r)) = (cast::<T, u16>(left), cast::<T, u16>(right)) {
            // SAFETY: as above.
            return unsafe { avx2::mark_pairs_u16(row, l, r, rr, lo, hi) };
        }
    }
    let _ = isa;
    mark_pairs_scalar(row, left, right, rr, lo, hi);
}

/// [`mark_pairs`] one pair at a time.
#[inline(always)]
fn mark_pairs_scalar<T: Cell>(
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
pub(super) fn first_open<const K: usize>(row: &[u8], class: &[u8]) -> [u32; K] {
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

/// The least `v` with `row[v] == 0` and `class[v] != 0` ([`first_open`] for one value), 64 bytes
/// at a time on [`Isa::Avx512`].
#[inline(always)]
pub(super) fn first_open_on(isa: Isa, row: &[u8], class: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx512 {
        // SAFETY: Isa::Avx512 is only chosen when the processor has it.
        return unsafe { avx512::first_open(row, class) };
    }
    let _ = isa;
    first_open::<1>(row, class)[0]
}

/// Calls `f(v)` for every `v < end` with `row[v] == 0` and `class[v] != 0`, ascending.
#[inline(always)]
pub(super) fn for_each_open(row: &[u8], class: &[u8], end: usize, mut f: impl FnMut(u32)) {
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
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut bits = 0;
        for i in 0..16 {
            bits |= u32::from(row[i] == 0 && class[i] != 0) << i;
        }
        bits
    }
}

/// The values a scan looks for; the scan ends when every target has been met. On the portable
/// loops (and for values of 512 or more) a map with one byte per value says which are still
/// targets. With AVX2 or AVX-512 (values below 512 in cells of 8 or 16 bits) the 512-bit set of
/// the targets is all there is (`bits`: no map, no list), made from a row with a few vector
/// compares. AVX2 adds a 256-bit set of the targets' *keys*, with which a chunk of 32 pairs is
/// tested by a few byte shuffles: the key is the value itself below 256, and for values below
/// 512 the value with its highest mask bit taken out, which tells rare values apart (that bit
/// is the parity of the others); a common value may share a key with a target, so a hit is
/// confirmed in the set of values.
#[derive(Debug, Clone)]
pub(super) struct Targets<T> {
    /// Values are below this power of two.
    width: usize,
    /// The set `values` is the targets, and `map` and `all` are not kept.
    bits: bool,
    /// `map[v] == 1` while `v` is a target (empty with `bits`).
    map: Vec<u8>,
    /// The targets as set (some may have been met since; empty with `bits`).
    all: Vec<T>,
    /// Targets not yet met.
    need: usize,
    /// While `listed`: every target not yet met, padded by repeating one of them.
    list: [T; FEW],
    listed: bool,
    /// The bits of a value kept in place by its key (the rest move down by one).
    low: u32,
    /// With `bits`, the set of the targets: value `v` is bit `v & 7` of byte `v >> 3`.
    values: [u8; 64],
    /// With `bits` on [`Isa::Avx2`], the set of their keys: key `k` is bit `k & 7` of byte
    /// `k >> 3`.
    keys: [u8; 32],
    /// How chunks of pairs are tested.
    isa: Isa,
    /// Room for the values an AVX-512 scan finds between two looks at them (kept here so
    /// that a scan does not clear a buffer every time).
    found: Vec<T>,
}

impl<T: Cell> Targets<T> {
    /// No targets, for values below `width` (a power of two) and the class mask `mask`; scans
    /// run on `isa`.
    pub(super) fn new(width: usize, mask: u32, isa: Isa) -> Targets<T> {
        debug_assert!(width.is_power_of_two() && (mask as usize) < width.max(2));
        let low = if width <= 256 {
            u32::MAX
        } else {
            (1u32 << (31 - mask.max(1).leading_zeros())) - 1
        };
        let bits = isa != Isa::Portable && width <= 512 && T::BITS <= 16;
        Targets {
            width,
            bits,
            map: if bits { Vec::new() } else { vec![0; width] },
            all: Vec::new(),
            need: 0,
            list: [T::default(); FEW],
            listed: false,
            low,
            values: [0; 64],
            keys: [0; 32],
            isa,
            found: Vec::new(),
        }
    }

    /// The key of `v` (below 512).
    #[inline(always)]
    fn key(&self, v: u32) -> u32 {
        key_without(v, self.low)
    }

    /// Replaces the targets: the values `v < end` with `row[v] == 0` and `class[v] != 0`. The
    /// class must be the rare class of the mask.
    #[inline(always)]
    pub(super) fn set_open(&mut self, row: &[u8], class: &[u8], end: usize) {
        #[cfg(target_arch = "x86_64")]
        if self.bits {
            let end = end.min(self.width);
            // SAFETY: `bits` is only set on a vector instruction set, which the processor
            // has. The sets are written whole: nothing else is kept.
            self.need = unsafe {
                if self.isa == Isa::Avx512 {
                    avx512::open_set(&mut self.values, row, class, end)
                } else {
                    avx2::open_set(&mut self.values, row, class, end)
                }
            };
            if self.isa == Isa::Avx2 {
                self.keys_of_values();
            }
            return;
        }
        self.clear();
        let (map, all) = (&mut self.map, &mut self.all);
        for_each_open(row, class, end, |v| {
            map[v as usize] = 1;
            all.push(T::from_u32(v));
        });
        self.need = self.all.len();
    }

    /// The key set of the set of values (rare values: no two share a key).
    #[inline(always)]
    fn keys_of_values(&mut self) {
        let word = |w: usize| {
            u64::from_le_bytes(self.values[8 * w..8 * w + 8].try_into().expect("8 bytes"))
        };
        let mut keys = [0u64; 4];
        let b = (self.low.wrapping_add(1)).trailing_zeros();
        if self.low == u32::MAX {
            // Below 256 the key is the value.
            keys = [word(0), word(1), word(2), word(3)];
        } else if b >= 6 {
            // Key word kw joins the two value words that differ in bit b − 6 only.
            let half = 1 << (b - 6);
            for (kw, key) in keys.iter_mut().enumerate() {
                let w = (kw & (half - 1)) | ((kw & !(half - 1)) << 1);
                *key = word(w) | word(w + half);
            }
        } else {
            for w in 0..8 {
                let mut bits = word(w);
                while bits != 0 {
                    let k = self.key(64 * w as u32 + bits.trailing_zeros());
                    bits &= bits - 1;
                    keys[(k >> 6) as usize] |= 1 << (k & 63);
                }
            }
        }
        for (kw, key) in keys.iter().enumerate() {
            self.keys[8 * kw..8 * kw + 8].copy_from_slice(&key.to_le_bytes());
        }
    }

    /// Forgets the targets of the map and the list (the sets of `bits` are written whole
    /// instead).
    fn clear(&mut self) {
        debug_assert!(!self.bits);
        for v in self.all.drain(..) {
            self.map[v.get() as usize] = 0;
        }
        self.need = 0;
        self.listed = false;
    }

    /// Targets not yet met.
    #[inline(always)]
    pub(super) fn need(&self) -> usize {
        self.need
    }

    /// The least target not yet met.
    pub(super) fn least_left(&self) -> Option<u32> {
        if self.bits {
            let byte = self.values.iter().position(|&b| b != 0)?;
            return Some(8 * byte as u32 + self.values[byte].trailing_zeros());
        }
        self.all
            .iter()
            .map(|v| v.get())
            .filter(|&v| self.map[v as usize] != 0)
            .min()
    }

    /// If `v` is a target: marks it in `row`, removes it and returns true.
    #[inline(always)]
    pub(super) fn meet(&mut self, v: u32, row: &mut [u8]) -> bool {
        let i = v as usize & (self.width - 1);
        if self.bits {
            let (byte, bit) = (i >> 3, 1 << (i & 7));
            if self.values[byte] & bit == 0 {
                return false;
            }
            self.values[byte] &= !bit;
            row[i] = 1;
            self.need -= 1;
            #[cfg(target_arch = "x86_64")]
            if self.isa == Isa::Avx2 {
                let k = self.key(i as u32) as u8;
                // SAFETY: targets are only made for an instruction set the processor has.
                unsafe { avx2::take_key(&mut self.keys, k) };
            }
            return true;
        }
        if self.map[i] == 0 {
            return false;
        }
        self.map[i] = 0;
        row[i] = 1;
        self.need -= 1;
        if self.listed && self.need > 0 {
            let gone = T::from_u32(v);
            let keep = *self
                .list
                .iter()
                .find(|&&m| m != gone)
                .expect("a target left");
            for m in &mut self.list {
                if *m == gone {
                    *m = keep;
                }
            }
        }
        true
    }

    /// [`Targets::meet`] without a branch on whether `v` is a target: marks `v` in `row` if it
    /// is, and removes it. Returns its key and 1 if it was a target, else 0: the AVX2 scans,
    /// which see pair values whose key is a target's, take the key out of the key set they
    /// hold only then (a common value may share it).
    #[inline(always)]
    fn meet_any(&mut self, v: T, row: &mut [u8]) -> (u8, u8) {
        debug_assert!(self.bits && self.isa == Isa::Avx2);
        let i = v.get() as usize & (self.width - 1);
        let target = (self.values[i >> 3] >> (i & 7)) & 1;
        self.values[i >> 3] &= !(1 << (i & 7));
        row[i] |= target;
        self.need -= usize::from(target);
        (self.key(i as u32) as u8, target)
    }

    /// Fills the list once few targets are left.
    #[inline(always)]
    fn use_list(&mut self) -> bool {
        if !self.listed && self.need <= FEW && self.need > 0 {
            let map = &self.map;
            let mut k = 0;
            for &v in &self.all {
                if map[v.get() as usize] != 0 {
                    self.list[k] = v;
                    k += 1;
                }
            }
            for i in k..FEW {
                self.list[i] = self.list[0];
            }
            self.listed = true;
        }
        self.listed
    }
}

/// `left[a + i] ^ right[rr − a − i]` for `i < LANES`.
#[inline(always)]
fn pair_chunk<T: Cell>(left: &[T], right: &[T], rr: usize, a: usize) -> [T; LANES] {
    let l: &[T; LANES] = left[a..a + LANES].try_into().expect("chunk length");
    let g: &[T; LANES] = right[rr + 1 - a - LANES..rr + 1 - a]
        .try_into()
        .expect("chunk length");
    let mut x = [T::default(); LANES];
    for i in 0..LANES {
        x[i] = l[i] ^ g[LANES - 1 - i];
    }
    x
}

/// Whether some value of the chunk is in the (padded) list.
#[inline(always)]
fn list_hits<T: Cell>(x: &[T; LANES], list: &[T; FEW]) -> bool {
    let mut hit = [0u8; LANES];
    for &m in list {
        for i in 0..LANES {
            hit[i] |= u8::from(x[i] == m);
        }
    }
    hit.iter().fold(0, |a, &b| a | b) != 0
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

/// Scans the pairs `left[a] ^ right[rr − a]` for `a` in `lo..hi`; every target met is marked in
/// `row` and removed. Returns `Some(b)` once every target is met: every pair before `b` (≤ `hi`)
/// has been looked at, and `b` is at most a few chunks past the pair that met the last target
/// (exactly that pair's successor on the portable and AVX2 loops). `None` when the range ends
/// first. Needs `hi ≤ left.len()`, `hi ≤ rr + 1` and
/// `rr − lo < right.len()`.
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
    debug_assert!(tg.need > 0);
    assert!(hi <= left.len() && hi <= rr + 1 && (lo >= hi || rr - lo < right.len()));
    // The vector loops of `$set` for byte and 16-bit cells.
    #[cfg(target_arch = "x86_64")]
    macro_rules! on_cells {
        ($set:ident) => {{
            if let (Some(l), Some(r), Some(t)) = (
                cast::<T, u8>(left),
                cast::<T, u8>(right),
                cast_mut::<T, u8>(tg),
            ) {
                // SAFETY: an instruction set is only chosen when the processor has it; bounds
                // checked above.
                return unsafe { $set::scan_u8(row, t, l, r, rr, lo, hi) };
            }
            if let (Some(l), Some(r), Some(t)) = (
                cast::<T, u16>(left),
                cast::<T, u16>(right),
                cast_mut::<T, u16>(tg),
            ) {
                // SAFETY: as above.
                return unsafe { $set::scan_u16(row, t, l, r, rr, lo, hi) };
            }
        }};
    }
    #[cfg(target_arch = "x86_64")]
    if tg.bits {
        match tg.isa {
            Isa::Avx512 => on_cells!(avx512),
            Isa::Avx2 => on_cells!(avx2),
            Isa::Portable => {}
        }
    }
    let mut a = lo;
    while a + LANES <= hi {
        let x = pair_chunk(left, right, rr, a);
        // Lanes that hold a target: in list mode only looked up when the list compare hits.
        let mut bits = if !tg.use_list() || list_hits(&x, &tg.list) {
            map_bits(&x, &tg.map)
        } else {
            0
        };
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

/// The pairs of [`scan`] one by one.
#[inline(always)]
fn scan_tail<T: Cell>(
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

/// [`scan`] over the whole chunks of 64 pairs `(a, r − a)`, `a` in `lo..end`, on the byte keys
/// of the values ([`ScanKeys`]; `end` from [`ScanKeys::chunks_end`], so that no heap `r − a` is
/// a rare position): a heap `a` that is a rare position is left out (its pair's value is
/// common), every other pair's key is looked up among the keys of the targets. `Ok(b)` once
/// every target is met, as [`scan`] returns it; `Err(end)` when the chunks ran out first.
/// Only on [`Isa::Avx512`] (with the targets' 512-bit set) and [`Isa::Avx2`] (with the set of
/// their keys, 32 pairs a step), for 16-bit cells and values below 512: elsewhere it does
/// nothing and returns `Err(lo)`.
#[inline(always)]
pub(super) fn scan_keys<T: Cell>(
    row: &mut [u8],
    tg: &mut Targets<T>,
    keys: &ScanKeys,
    r: usize,
    lo: usize,
    end: usize,
) -> Result<usize, usize> {
    debug_assert!(tg.need > 0);
    #[cfg(target_arch = "x86_64")]
    if end > lo && tg.width == 512 && tg.isa != Isa::Portable {
        if let Some(t) = cast_mut::<T, u16>(tg) {
            assert!(
                (end - lo).is_multiple_of(64)
                    && lo >= 1
                    && keys.chunks_end(r, lo, end, 0) == end
                    && row.len() >= 512
            );
            // SAFETY (both): the instruction set is only chosen when the processor has it;
            // the chunks lie within the keys (checked above: the right side's rare positions
            // are the caller's matter, not a bound).
            if t.isa == Isa::Avx512 {
                return unsafe { avx512::scan_keys(row, t, keys, r, lo, end) };
            }
            // The targets' keys leave out the bit the scan's keys do.
            assert_eq!(t.low, (1 << keys.bit()) - 1, "keys of another mask");
            return unsafe { avx2::scan_keys(row, t, keys, r, lo, end) };
        }
    }
    Err(lo)
}

/// The loop of the kernels' `open_set`: writes into `set` the set (value `v`: bit `v & 7` of
/// byte `v >> 3`) of the values `v < end` with `row[v] == 0` and `class[v] != 0`, for rows of at
/// most 512 values, a multiple of a step of `8 · BYTES` values; `open(i)` gives those bits for
/// the step from `i` on, which lies within `row` and `class` (checked here). Returns how many
/// there are. The set is written and counted a word at a time: read back whole right after
/// eight narrower stores, it would wait for them to reach the cache (Officers' finisher spent
/// 180 cycles a heap here).
#[inline(always)]
fn open_set_steps<const BYTES: usize>(
    set: &mut [u8; 64],
    row: &[u8],
    class: &[u8],
    end: usize,
    mut open: impl FnMut(usize) -> u64,
) -> usize {
    let step = 8 * BYTES;
    let len = row.len().min(512);
    assert!(BYTES <= 8 && len.is_multiple_of(step) && class.len() >= len);
    let mut count = 0;
    for (w, word) in set.chunks_exact_mut(BYTES).enumerate() {
        let i = step * w;
        let mut bits = 0u64;
        if i < len && i < end {
            bits = open(i);
            if end < i + step {
                bits &= (1u64 << (end - i)) - 1;
            }
        }
        count += bits.count_ones() as usize;
        word.copy_from_slice(&bits.to_le_bytes()[..BYTES]);
    }
    count
}

/// `s` as a slice of `U` when `T` is `U`.
#[inline(always)]
fn cast<T: Cell, U: Cell>(s: &[T]) -> Option<&[U]> {
    (std::any::TypeId::of::<T>() == std::any::TypeId::of::<U>()).then(|| {
        // SAFETY: T and U are the same type.
        unsafe { std::slice::from_raw_parts(s.as_ptr() as *const U, s.len()) }
    })
}

/// `t` as targets of `U` values when `T` is `U`.
#[inline(always)]
fn cast_mut<T: Cell, U: Cell>(t: &mut Targets<T>) -> Option<&mut Targets<U>> {
    (std::any::TypeId::of::<T>() == std::any::TypeId::of::<U>()).then(|| {
        // SAFETY: T and U are the same type, so Targets<T> and Targets<U> are too.
        unsafe { &mut *(t as *mut Targets<T> as *mut Targets<U>) }
    })
}

/// The loops with AVX2: the scans, 32 pairs at a time (reversed with byte shuffles, or on the
/// byte keys), their keys tested against the key set of the targets with byte lookups
/// (`vpshufb`); step 1 in lanes of 32 bits; small mode's scan in halves of 32 pairs.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{scan_tail, Cell, Columns, LaneKeys, ScanKeys, Targets};
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
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
            11, 12, 13, 14, 15,
        );
        let reversed =
            |v: __m256i| _mm256_permute4x64_epi64::<0x4e>(_mm256_shuffle_epi8(v, reverse));
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
        let one = _mm256_set1_epi64x(1);
        let seen = |a: usize| {
            let (x0, x1) = chunk(a);
            let mut bytes = [0u8; 64];
            // SAFETY: 64 bytes into a [u8; 64].
            unsafe {
                _mm256_storeu_si256(bytes.as_mut_ptr() as *mut __m256i, x0);
                _mm256_storeu_si256(bytes.as_mut_ptr().add(32) as *mut __m256i, x1);
            }
            let mut seen = _mm256_setzero_si256();
            for four in bytes.chunks_exact(4) {
                let v = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(i32::from_le_bytes(
                    four.try_into().expect("4 bytes"),
                )));
                seen = _mm256_or_si256(seen, _mm256_sllv_epi64(one, v));
            }
            let folded = _mm_or_si128(
                _mm256_castsi256_si128(seen),
                _mm256_extracti128_si256::<1>(seen),
            );
            (_mm_cvtsi128_si64(folded) | _mm_extract_epi64::<1>(folded)) as u64
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
    fn without_key(set: __m256i, k: u8, take: u8) -> __m256i {
        let byte = _mm256_cmpeq_epi8(
            _mm256_setr_epi8(
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                23, 24, 25, 26, 27, 28, 29, 30, 31,
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
            1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64,
            -128, 1, 2, 4, 8, 16, 32, 64, -128,
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

    /// [`super::open_set_steps`] 32 values a step.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn open_set(
        set: &mut [u8; 64],
        row: &[u8],
        class: &[u8],
        end: usize,
    ) -> usize {
        super::open_set_steps::<4>(set, row, class, end, |i| {
            // SAFETY: i + 32 ≤ row.len(), class.len() (checked by the driver).
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
        })
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
        scan_steps(row, tg, lo, end, step, meet)
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
    /// the one that met the last; `Err(a)`, `a` the first pair not looked at, otherwise.
    #[inline(always)]
    fn scan_steps<T: Copy + Default, U>(
        row: &mut [u8],
        tg: &mut Targets<U>,
        lo: usize,
        end: usize,
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
            while a + 32 <= end {
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

    /// [`super::lane_marks`] with AVX2: 8 heaps at a time, one per 32-bit lane (AVX2 shifts
    /// 32-bit lanes by a variable count, not 16-bit ones), their marks kept in `R` registers of
    /// 32 keys a lane; then, heap by heap, the values of the row looked up in the heap's keys
    /// with byte shuffles (32 values a step).
    ///
    /// # Safety
    /// The processor must have AVX2; `used` a multiple of 32, at most 512 and at most
    /// `stride`; `(len − 1) · stride + used ≤ rows.len()` and `len ≤ vals.len()`. A column
    /// past the values panics.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn lane_marks<T: Cell, const R: usize, const ALL_COMMON: bool>(
        rows: &mut [u8],
        stride: usize,
        used: usize,
        vals: &[T],
        cols: &[Columns<'_>],
        len: usize,
        keys: &LaneKeys,
    ) {
        let one = _mm256_set1_epi32(1);
        let low = _mm256_set1_epi32(i32::from(keys.low));
        let mask = _mm256_set1_epi32(i32::from(keys.mask));
        // Bit i of 0x6996: the parity of the 4-bit value i.
        let parity = _mm256_set1_epi32(0x6996);
        let nibble = _mm256_set1_epi32(15);
        // Values `at..at + 8` as 32-bit lanes.
        let load = |at: *const T| {
            // SAFETY: the callers below give 8 values from `at` on.
            unsafe {
                if T::BITS == 8 {
                    _mm256_cvtepu8_epi32(_mm_loadl_epi64(at as *const __m128i))
                } else {
                    _mm256_cvtepu16_epi32(_mm_loadu_si128(at as *const __m128i))
                }
            }
        };
        let mut lanes = [[0u32; 8]; R];
        for h0 in (0..len).step_by(8) {
            let n = (len - h0).min(8);
            let mut acc = [_mm256_setzero_si256(); R];
            for (q, g) in cols.iter().flat_map(Columns::iter) {
                assert!(q <= vals.len() - len, "a column past the values");
                let at = q + h0;
                let x = if n == 8 {
                    // at + 8 ≤ q + len ≤ vals.len() (checked above).
                    load(vals[at..].as_ptr())
                } else {
                    let mut tail = [T::default(); 8];
                    tail[..n].copy_from_slice(&vals[at..at + n]);
                    load(tail.as_ptr())
                };
                let x = _mm256_xor_si256(x, _mm256_set1_epi32(g as i32));
                // Bits below b from x, the others from x >> 1.
                let key = _mm256_or_si256(
                    _mm256_and_si256(x, low),
                    _mm256_andnot_si256(low, _mm256_srli_epi32(x, 1)),
                );
                let key = if ALL_COMMON {
                    key
                } else {
                    // Common values (popcount(x & mask) odd) keep their key, the others get one
                    // past every register.
                    let p = _mm256_and_si256(x, mask);
                    let p = _mm256_xor_si256(p, _mm256_srli_epi32(p, 8));
                    let p = _mm256_xor_si256(p, _mm256_srli_epi32(p, 4));
                    let odd = _mm256_and_si256(
                        _mm256_srlv_epi32(parity, _mm256_and_si256(p, nibble)),
                        one,
                    );
                    _mm256_or_si256(key, _mm256_slli_epi32(_mm256_xor_si256(odd, one), 16))
                };
                for (w, a) in acc.iter_mut().enumerate() {
                    // 1 << (key − 32w) in register w; 0 where that is not in 0..32.
                    let shift = _mm256_sub_epi32(key, _mm256_set1_epi32(32 * w as i32));
                    *a = _mm256_or_si256(*a, _mm256_sllv_epi32(one, shift));
                }
            }
            for (w, a) in acc.iter().enumerate() {
                // SAFETY: 32 bytes into a [u32; 8].
                unsafe { _mm256_storeu_si256(lanes[w].as_mut_ptr() as *mut __m256i, *a) };
            }
            for k in 0..n {
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
                        _mm256_storeu_si256(at, _mm256_or_si256(_mm256_loadu_si256(at), hit));
                    }
                }
            }
        }
    }

    /// Reverses the 32 bytes of `v`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn reverse_bytes(v: __m256i) -> __m256i {
        let rev = _mm256_setr_epi8(
            15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7,
            6, 5, 4, 3, 2, 1, 0,
        );
        _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, rev), 0x4E)
    }

    /// Reverses the 16 words of `v`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn reverse_words(v: __m256i) -> __m256i {
        let rev = _mm256_setr_epi8(
            14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8, 9, 6,
            7, 4, 5, 2, 3, 0, 1,
        );
        _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, rev), 0x4E)
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
            let r = _mm256_loadu_si256(right.as_ptr().add(rr - a - 31) as *const __m256i);
            _mm256_xor_si256(l, reverse_bytes(r))
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
            let r0 = _mm256_loadu_si256(right.as_ptr().add(rr - a - 15) as *const __m256i);
            let r1 = _mm256_loadu_si256(right.as_ptr().add(rr - a - 31) as *const __m256i);
            (
                _mm256_xor_si256(l0, reverse_words(r0)),
                _mm256_xor_si256(l1, reverse_words(r1)),
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
        super::mark_pairs_scalar(row, left, right, rr, a, hi);
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
        super::mark_pairs_scalar(row, left, right, rr, a, hi);
    }

    /// The scan over the cells from `lo` to `hi`: the steps of [`scan_steps`], a hit met by
    /// its value ([`Targets::meet_any`]), the pairs past the last whole step one by one.
    macro_rules! scan_cells {
        ($row:ident, $tg:ident, $left:ident, $right:ident, $rr:ident, $lo:ident, $hi:ident, $step:ident) => {{
            let meet = |tg: &mut Targets<_>, set: &mut __m256i, v, row: &mut [u8]| {
                let (k, target) = tg.meet_any(v, row);
                *set = without_key(*set, k, target);
            };
            match scan_steps($row, $tg, $lo, $hi, $step, meet) {
                Ok(stop) => Some(stop),
                Err(a) => scan_tail($row, $tg, $left, $right, $rr, a, $hi),
            }
        }};
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
        scan_cells!(row, tg, left, right, rr, lo, hi, step)
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
}

/// The scan with AVX-512 (Ice Lake / Zen 4 extensions): 64 pairs at a time, each value looked up
/// in the set of targets (512 bits, in a register) with one byte permutation, the values that
/// hit packed into a buffer without a branch (`vpcompress`), and the buffer met after each chunk
/// at first (while targets are many, most chunks hold some) and after a batch of chunks later.
/// A chunk that holds a target costs no mispredicted branch; the price is that the scan may stop
/// up to a batch after the last target was met.
#[cfg(target_arch = "x86_64")]
mod avx512 {
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
    fn meet_found<T: Cell>(
        tg: &mut Targets<T>,
        set: __m512i,
        found: &[T],
        row: &mut [u8],
    ) -> __m512i {
        // The set is for values below 512, and all there is of the targets (`Targets::bits`).
        debug_assert!(tg.bits);
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
    /// The processor must have the extensions of [`super::Isa::Avx512`]; the chunks must be
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
        debug_assert!(tg.bits && row.len() >= 512);
        let (left, left_rare, right) = keys.sides(r, lo);
        // The words of the value set (values 64w..64w + 63) and of the key set (keys
        // 64j..64j + 63, j < 4, repeated in words 4 to 7 as the lookup wants): value word w
        // has key word w without bit d, where the key leaves out bit 6 + d of a value.
        let d = keys.bit() - 6;
        let below = (1i64 << d) - 1;
        let insert = |j: i64, one: i64| (((j & 3) >> d) << (d + 1)) | (j & below) | (one << d);
        let remove = |w: i64| ((w >> (d + 1)) << d) | (w & below);
        let word = |f: &dyn Fn(i64) -> i64| {
            _mm512_set_epi64(f(7), f(6), f(5), f(4), f(3), f(2), f(1), f(0))
        };
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
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,
            46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
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
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
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

    /// [`super::open_set_steps`] 64 values a step.
    ///
    /// # Safety
    /// The processor must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub(super) unsafe fn open_set(
        set: &mut [u8; 64],
        row: &[u8],
        class: &[u8],
        end: usize,
    ) -> usize {
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
        // Lanes past the pairs, and values from the limit on, shift a bit out of the word.
        let live = if lanes.count == 64 {
            u64::MAX
        } else {
            (1u64 << lanes.count) - 1
        };
        let keep = live & _mm512_cmplt_epu8_mask(x, _mm512_set1_epi8(limit as i8));
        let x = _mm512_mask_mov_epi8(_mm512_set1_epi8(-1), keep, x);
        let mut bytes = [0u8; 64];
        // SAFETY: 64 bytes into a [u8; 64].
        unsafe { _mm512_storeu_si512(bytes.as_mut_ptr() as *mut __m512i, x) };
        let one = _mm512_set1_epi64(1);
        let mut acc = _mm512_setzero_si512();
        for eight in bytes.chunks_exact(8).take(lanes.count.div_ceil(8)) {
            let v = _mm512_cvtepu8_epi64(_mm_set1_epi64x(i64::from_le_bytes(
                eight.try_into().expect("8 bytes"),
            )));
            acc = _mm512_or_si512(acc, _mm512_sllv_epi64(one, v));
        }
        _mm512_reduce_or_epi64(acc) as u64
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
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,
            46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
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
        let one = _mm512_set1_epi64(1);
        let seen = |a: usize| {
            let mut bytes = [0u8; 64];
            // SAFETY: 64 bytes into a [u8; 64].
            unsafe { _mm512_storeu_si512(bytes.as_mut_ptr() as *mut __m512i, chunk(a)) };
            let mut seen = _mm512_setzero_si512();
            for eight in bytes.chunks_exact(8) {
                let v = _mm512_cvtepu8_epi64(_mm_set1_epi64x(i64::from_le_bytes(
                    eight.try_into().expect("8 bytes"),
                )));
                seen = _mm512_or_si512(seen, _mm512_sllv_epi64(one, v));
            }
            _mm512_reduce_or_epi64(seen) as u64
        };
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

    /// [`super::first_open_on`].
    ///
    /// # Safety
    /// The processor must have AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn first_open(row: &[u8], class: &[u8]) -> u32 {
        let len = row.len().min(class.len());
        let mut i = 0;
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

    /// [`super::lane_marks`] (its checks done) with `R` registers of keys: `used` bytes of
    /// each row, a multiple of 64, at most 512.
    ///
    /// # Safety
    /// The processor must have the extensions of [`super::Isa::Avx512`]; `len ≤ vals.len()`,
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
    /// The processor must have the extensions of [`super::Isa::Avx512`]; `hi ≤ left.len()`,
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
            126, 124, 122, 120, 118, 116, 114, 112, 110, 108, 106, 104, 102, 100, 98, 96, 94, 92,
            90, 88, 86, 84, 82, 80, 78, 76, 74, 72, 70, 68, 66, 64, 62, 60, 58, 56, 54, 52, 50, 48,
            46, 44, 42, 40, 38, 36, 34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2,
            0,
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classes::is_rare;
    use crate::engine::scan_keys::ScanKeys;

    #[test]
    fn first_open_and_for_each_open() {
        let mut row = vec![0u8; 64];
        let class: Vec<u8> = (0..64).map(|v| if v % 3 == 0 { 0xFF } else { 0 }).collect();
        row[0] = 1;
        row[6] = 1;
        assert_eq!(first_open::<3>(&row, &class), [3, 9, 12]);
        for isa in Isa::available() {
            assert_eq!(first_open_on(isa, &row, &class), 3);
        }
        let mut seen = Vec::new();
        for_each_open(&row, &class, 20, |v| seen.push(v));
        assert_eq!(seen, [3, 9, 12, 15, 18]);
        let full = vec![1u8; 64];
        assert_eq!(first_open::<2>(&full, &class), [u32::MAX; 2]);
        // Rows of 64 to 512 values, mostly marked, the first open value anywhere or nowhere.
        let mut next = rng(5);
        for round in 0..400 {
            let width = 64 << (round % 4);
            let row: Vec<u8> = (0..width)
                .map(|_| u8::from(!next().is_multiple_of(40)))
                .collect();
            let class: Vec<u8> = (0..width)
                .map(|_| [0, 0xFF][(next() % 2) as usize])
                .collect();
            let want = first_open::<1>(&row, &class)[0];
            for isa in Isa::available() {
                assert_eq!(
                    first_open_on(isa, &row, &class),
                    want,
                    "{isa:?}, width {width}"
                );
            }
        }
    }

    /// A small xorshift generator, so that the tests need no seed files.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed.max(1);
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn columns_marked_as_the_definition_says() {
        let mut next = rng(7);
        for width in [64usize, 128, 512, 2048] {
            for stride in [width + 64, width + 16] {
                let len = 37;
                let vals: Vec<u16> = (0..200).map(|_| (next() % width as u64) as u16).collect();
                let cols: Vec<(usize, u32)> = (0..5)
                    .map(|_| ((next() % 150) as usize, (next() % width as u64) as u32))
                    .collect();
                let mut rows = vec![0u8; len * stride];
                mark_columns(
                    Isa::Portable,
                    &mut rows,
                    stride,
                    width - 1,
                    &vals,
                    &cols,
                    len,
                );
                let mut want = vec![0u8; len * stride];
                for &(q, g) in &cols {
                    for k in 0..len {
                        want[k * stride + (vals[q + k] as u32 ^ g) as usize] = 1;
                    }
                }
                assert_eq!(rows, want, "width {width}, stride {stride}");
            }
        }
    }

    /// Step 1 in lanes marks exactly the common values with a key that the columns reach, on
    /// top of what the rows held, for byte and 16-bit cells, every register count, chunk
    /// lengths off the 32 lanes, masks whose lowest bit is 0, 1 or 3.
    #[test]
    fn lane_marks_mark_the_common_values_below_their_limit() {
        fn run<T: Cell>(
            isa: Isa,
            next: &mut impl FnMut() -> u64,
            width: usize,
            mask: u32,
            regs: usize,
            all_common: bool,
        ) {
            let keys = LaneKeys::new(mask, regs).expect("a mask lanes take");
            let key = |v: u32| {
                let low = (1u32 << mask.trailing_zeros()) - 1;
                ((v >> 1) & !low) | (v & low)
            };
            let top = width.min(1 << T::BITS) as u64;
            for len in [1usize, 31, 32, 33, 70, 96] {
                let stride = width + 64;
                // With `all_common`, rare values XOR common ones: every pair value is common.
                let pick = |next: &mut dyn FnMut() -> u64, rare: bool| loop {
                    let v = (next() % top) as u32;
                    if !all_common || is_rare(v, mask) == rare {
                        break v;
                    }
                };
                let vals: Vec<T> = (0..300).map(|_| T::from_u32(pick(next, true))).collect();
                // Up to 4 runs of up to 4 columns (base − p, g), p ascending.
                let (mut pos, mut val) = (Vec::new(), Vec::new());
                let mut bounds = Vec::new();
                for _ in 0..next() % 5 {
                    let base = 60 + (next() % 140) as usize;
                    let k = 1 + (next() % 4) as usize;
                    let mut ps: Vec<usize> = (0..k).map(|_| (next() % 60) as usize).collect();
                    ps.sort_unstable();
                    bounds.push((base, pos.len(), pos.len() + k));
                    pos.extend(ps);
                    val.extend((0..k).map(|_| pick(next, false)));
                }
                let runs: Vec<Columns<'_>> = bounds
                    .iter()
                    .map(|&(base, i, j)| Columns {
                        base,
                        pos: &pos[i..j],
                        val: &val[i..j],
                    })
                    .collect();
                let cols: Vec<(usize, u32)> = runs.iter().flat_map(Columns::iter).collect();
                let start: Vec<u8> = (0..len * stride)
                    .map(|_| u8::from(next().is_multiple_of(5)))
                    .collect();
                let mut rows = start.clone();
                assert!(lane_marks(
                    isa, &mut rows, stride, width, &vals, &runs, len, &keys, all_common
                ));
                let mut want = start;
                for &(q, g) in &cols {
                    for k in 0..len {
                        let v = vals[q + k].get() ^ g;
                        if !is_rare(v, mask) && key(v) < 16 * regs as u32 {
                            want[k * stride + v as usize] = 1;
                        }
                    }
                }
                assert_eq!(
                    rows, want,
                    "{isa:?} width {width} mask {mask:#x} regs {regs} len {len}"
                );
                assert!((0..keys.limit()).all(|v| is_rare(v, mask) || key(v) < 16 * regs as u32));
            }
        }
        let mut next = rng(11);
        for isa in Isa::available() {
            if isa == Isa::Portable {
                continue;
            }
            for regs in LaneKeys::REGS {
                for mask in [1u32, 0x1ee, 0xfe, 0x1f8, 0x7] {
                    for all_common in [false, true] {
                        run::<u8>(isa, &mut next, 256, mask & 0xff, regs, all_common);
                        for width in [64, 256, 512] {
                            run::<u16>(isa, &mut next, width, mask, regs, all_common);
                        }
                    }
                }
            }
        }
    }

    /// Step 1 in lanes rejects a column that would read past the values, or a position past
    /// its base, by a panic (it reads the values unchecked).
    #[test]
    fn lane_marks_reject_columns_past_the_values() {
        let keys = LaneKeys::new(0x1ee, 8).expect("a mask lanes take");
        let vals = vec![3u16; 100];
        let sets = Isa::available()
            .into_iter()
            .filter(|&isa| isa != Isa::Portable);
        for (isa, (base, p, len)) in sets
            .flat_map(|isa| [(100, 1, 2), (60, 0, 41), (5, 6, 1), (70, 10, 40)].map(|c| (isa, c)))
        {
            let (pos, val) = ([p], [0]);
            let cols = [Columns {
                base,
                pos: &pos,
                val: &val,
            }];
            let mut rows = vec![0u8; len * 576];
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                lane_marks(isa, &mut rows, 576, 512, &vals, &cols, len, &keys, false)
            }));
            // The last is the largest column that fits: q + len = 100.
            assert_eq!(
                run.is_err(),
                base != 70,
                "{isa:?} base {base}, p {p}, len {len}"
            );
        }
    }

    /// Small mode's scan (every instruction set, byte values with and without `WIDE`) leaves
    /// the targets that no pair of its range has as value: values mostly below 8 so that some
    /// targets stay for many chunks (the kernels' compare phase), limits below 64.
    #[test]
    fn small_scan_as_definition() {
        let mut next = rng(11);
        for round in 0..2000 {
            // Values mostly below 8 and a few up to 80, so that some targets stay long.
            let wide = round % 2 == 0;
            let limit = if wide {
                [64u32, 16, 40][round / 2 % 3]
            } else {
                64
            };
            let top = if wide { 80 } else { 64 };
            let vals: Vec<u8> = (0..700)
                .map(|_| {
                    (if next().is_multiple_of(16) {
                        next() % top
                    } else {
                        next() % 8
                    }) as u8
                })
                .collect();
            let r = 1 + (next() % 699) as usize;
            let lo = 1 + (next() % 4) as usize;
            let hi = (lo + (next() % (r / 2 + 1) as u64) as usize).min(r / 2 + 1);
            let targets =
                (0..1 + next() % 6).fold(0u64, |t, _| t | 1 << (next() % u64::from(limit)));
            let bit = |v: u8| small_bit::<true>(u32::from(v), limit);
            let seen = (lo..hi).fold(0, |m, b| m | bit(vals[b] ^ vals[r - b]));
            for isa in Isa::available() {
                let got = if wide {
                    small_scan::<u8, true>(isa, &vals, r, lo, hi, targets, limit)
                } else {
                    small_scan::<u8, false>(isa, &vals, r, lo, hi, targets, limit)
                };
                assert_eq!(
                    got,
                    targets & !seen,
                    "{isa:?}, limit {limit}, r {r}, {lo}..{hi}"
                );
            }
        }
    }

    /// Small mode's far marks of a block (every instruction set) are the columns' words one by
    /// one, ORed into what the block held: blocks of 64 and shorter, values past the limit and
    /// rare values past 255.
    #[test]
    fn small_columns_as_definition() {
        let mut next = rng(5);
        for round in 0..300 {
            let limit = [64u32, 16, 40][round % 3];
            let vals: Vec<u8> = (0..300).map(|_| (next() % 80) as u8).collect();
            let len = if round % 4 == 0 {
                1 + (next() % 64) as usize
            } else {
                64
            };
            let columns: Vec<(usize, u32)> = (0..next() % 100)
                .map(|_| ((next() % (300 - 64)) as usize, (next() % 300) as u32))
                .collect();
            let before: Vec<u64> = (0..len).map(|_| next() & next()).collect();
            let want: Vec<u64> = (0..len)
                .map(|j| {
                    columns.iter().fold(before[j], |m, &(start, g)| {
                        m | small_bit::<true>(g ^ u32::from(vals[start + j]), limit)
                    })
                })
                .collect();
            for isa in Isa::available() {
                let mut far = before.clone();
                small_columns::<u8, true>(isa, &mut far, &vals, &columns, limit);
                assert_eq!(far, want, "{isa:?}, limit {limit}, round {round}");
            }
        }
    }

    /// Small mode's near pairs in lanes give the word of the pairs one by one, for limits
    /// below 64 (values past them mark nothing) and up to 64 pairs at distances 1 to 64 below
    /// the heap, repeats included.
    #[test]
    fn near_small_marks_as_one_by_one() {
        let mut next = rng(3);
        for round in 0..300 {
            let limit = [64u32, 16, 40][round % 3];
            let vals: Vec<u8> = (0..300).map(|_| (next() % 80) as u8).collect();
            // Distances below the heap, repeats allowed (two splits may reach one heap).
            let pairs: Vec<(usize, u32)> = (0..next() % 65)
                .map(|_| (1 + (next() % 64) as usize, (next() % 70) as u32))
                .collect();
            let lanes = NearLanes::new(&pairs).expect("distances up to 64");
            let n = 64 + (next() % 236) as usize;
            let want = pairs
                .iter()
                .map(|&(d, g)| small_bit::<true>(g ^ u32::from(vals[n - d]), limit))
                .fold(0, |m, b| m | b);
            for isa in Isa::available() {
                if let Some(got) = near_small_marks(isa, &vals, n, &lanes, limit) {
                    assert_eq!(got, want, "{isa:?}, limit {limit}, n {n}, {pairs:?}");
                }
            }
        }
        assert!(NearLanes::new(&[(65, 1)]).is_none());
        assert!(NearLanes::new(&[(0, 1)]).is_none());
        assert!(NearLanes::new(&[(3, 256)]).is_none());
        assert!(NearLanes::new(&[(1, 0); 65]).is_none());
    }

    /// What a scan did: where it stopped (`None` when there was nothing to look for), the row
    /// and the targets left.
    type Scanned = (Option<Option<usize>>, Vec<u8>, usize);

    /// `got` (a scan on some instruction set) agrees with `want` (the portable scan): the same
    /// marks and targets left, and a stop no earlier than the portable one, within `hi` and
    /// within a few chunks of it on AVX-512, which meets its hits in batches (exactly there
    /// on the others).
    fn agrees(isa: Isa, got: &Scanned, want: &Scanned, hi: usize) -> bool {
        #[cfg(target_arch = "x86_64")]
        let late = if isa == Isa::Avx512 {
            (avx512::BATCH + 1) * 64
        } else {
            0
        };
        #[cfg(not(target_arch = "x86_64"))]
        let late = {
            let _ = isa;
            0
        };
        let stops = match (got.0, want.0) {
            (Some(Some(g)), Some(Some(w))) => g >= w && g <= hi && g - w <= late,
            (g, w) => g == w,
        };
        stops && got.1 == want.1 && got.2 == want.2
    }

    /// The vector scans (AVX2: keys of values below 256, and of values below 512 with a mask
    /// bit taken out; AVX-512: the values below 512 themselves) meet the same targets as the
    /// portable one and stop where it does (AVX-512: a little later).
    #[test]
    fn scans_agree_on_every_instruction_set() {
        let mut next = rng(11);
        for round in 0..600 {
            let width = [64usize, 256, 512][round % 3];
            let mask = 1 + (next() % (width as u64 - 1)) as u32;
            let n = 300 + (next() % [700, 4000][round % 2]) as usize;
            // Every other round, values mostly from a few: some targets then take long to meet.
            let skew = round % 4 >= 2;
            let vals: Vec<u16> = (0..n)
                .map(|_| {
                    let v = next() % width as u64;
                    (if skew && !next().is_multiple_of(64) {
                        v % 16
                    } else {
                        v
                    }) as u16
                })
                .collect();
            let bytes: Vec<u8> = vals.iter().map(|&v| (v & 255) as u8).collect();
            let rr = n - 1 - (next() % 50) as usize;
            let lo = 1 + (next() % 40) as usize;
            let hi = lo + (next() % (rr / 2 - lo) as u64) as usize;
            let mut row = vec![0u8; width];
            for _ in 0..(next() % (width as u64 / 2)) {
                row[(next() % width as u64) as usize] = 1;
            }
            let rare: Vec<u8> = (0..width as u32)
                .map(|v| {
                    if (v & mask).count_ones().is_multiple_of(2) {
                        0xFF
                    } else {
                        0
                    }
                })
                .collect();
            let end = (next() % width as u64) as usize;
            let run = |isa: Isa| -> Scanned {
                let mut r = row.clone();
                let mut tg = Targets::<u16>::new(width, mask, isa);
                tg.set_open(&r, &rare, end);
                let stop = (tg.need() > 0).then(|| scan(&mut r, &mut tg, &vals, &vals, rr, lo, hi));
                (stop, r, tg.need())
            };
            let want = run(Isa::Portable);
            for isa in Isa::available() {
                let got = run(isa);
                assert!(
                    agrees(isa, &got, &want, hi),
                    "u16, {isa:?}, width {width}, mask {mask:x}: {:?} against {:?}",
                    got.0,
                    want.0
                );
            }
            if width <= 256 {
                let run8 = |isa: Isa| -> Scanned {
                    let mut r = row.clone();
                    let mut tg = Targets::<u8>::new(width, mask, isa);
                    tg.set_open(&r, &rare, end);
                    let stop =
                        (tg.need() > 0).then(|| scan(&mut r, &mut tg, &bytes, &bytes, rr, lo, hi));
                    (stop, r, tg.need())
                };
                for isa in Isa::available() {
                    let got = run8(isa);
                    assert!(agrees(isa, &got, &want, hi), "u8, {isa:?}, width {width}");
                }
            }
        }
    }

    /// The scan on byte keys, then on the cells where the keys end, meets the same targets as
    /// the portable scan of the cells and stops where it does (a little later): values below
    /// 512 with the key bit 6, 7 or 8, rare positions (left out on the keys) among the first
    /// heaps only, keys kept for few heaps so that both sides end inside the range.
    #[test]
    fn scan_on_keys_agrees_with_the_cells() {
        let mut next = rng(23);
        let mut on_keys = 0;
        for round in 0..400 {
            let mask = [0x1ee, 0x1c3, 0xb6, 0x96, 0x5e, 0x40][round % 6];
            let Some(bit) = ScanKeys::key_bit(mask, 512) else {
                panic!("mask {mask:x} has a key bit");
            };
            let n = 2000 + (next() % 6000) as usize;
            // Rare positions below `last`, then common values only; every other round values
            // mostly from a few, so that some targets take long to meet.
            let last = (next() % 1500) as usize;
            let skew = round % 4 >= 2;
            let vals: Vec<u16> = (0..n)
                .map(|h| loop {
                    let v = (next() % 512) as u32;
                    let v = if skew && !next().is_multiple_of(64) {
                        v % 24
                    } else {
                        v
                    };
                    if h <= last || !is_rare(v, mask) {
                        break v as u16;
                    }
                })
                .collect();
            let last_rare = (1..n)
                .rev()
                .find(|&h| is_rare(u32::from(vals[h]), mask))
                .unwrap_or(0);
            let cap = [64, 700, 3000, 1 << 20][round % 4];
            let mut keys = ScanKeys::new(mask, bit, cap);
            keys.extend(&vals);
            let rr = n - 1 - (next() % 50) as usize;
            let lo = 1 + (next() % 300) as usize;
            let hi = lo + (next() % (rr / 2 - lo) as u64) as usize;
            let mut row = vec![0u8; 512];
            for _ in 0..(next() % 200) {
                row[(next() % 512) as usize] = 1;
            }
            let rare: Vec<u8> = (0..512)
                .map(|v| 0xFF * u8::from(is_rare(v, mask)))
                .collect();
            let end = (next() % 512) as usize;
            let run = |isa: Isa, keyed: bool| -> Scanned {
                let mut r = row.clone();
                let mut tg = Targets::<u16>::new(512, mask, isa);
                tg.set_open(&r, &rare, end);
                if tg.need() == 0 {
                    return (None, r, 0);
                }
                let mut from = lo;
                if keyed {
                    let stop = keys.chunks_end(rr, lo, hi, last_rare);
                    match scan_keys(&mut r, &mut tg, &keys, rr, lo, stop) {
                        Ok(at) => return (Some(Some(at)), r, tg.need()),
                        Err(reached) => from = reached,
                    }
                }
                let stop = scan(&mut r, &mut tg, &vals, &vals, rr, from, hi);
                (Some(stop), r, tg.need())
            };
            let want = run(Isa::Portable, false);
            for isa in Isa::available() {
                let got = run(isa, true);
                assert!(
                    agrees(isa, &got, &want, hi),
                    "{isa:?}, mask {mask:x}, keys for {cap}: {:?} against {:?}",
                    got.0,
                    want.0
                );
            }
            on_keys += usize::from(keys.chunks_end(rr, lo, hi, last_rare) > lo);
        }
        assert!(on_keys > 200, "only {on_keys} rounds had chunks on keys");
    }

    /// The AVX2 key set made from a set of rare values (whole words for key bits 6 to 8, value
    /// by value below) holds the key of each value and nothing else.
    #[test]
    fn key_set_of_the_values_as_value_by_value() {
        let mut next = rng(5);
        for round in 0..3000 {
            let width = [256usize, 512][round % 2];
            let mask = 1 + (next() % (width as u64 - 1)) as u32;
            let mut tg = Targets::<u16>::new(width, mask, Isa::Avx2);
            let mut want = [0u8; 32];
            for v in 0..width as u32 {
                if is_rare(v, mask) && next().is_multiple_of(3) {
                    tg.values[(v >> 3) as usize] |= 1 << (v & 7);
                    let k = tg.key(v);
                    want[(k >> 3) as usize] |= 1 << (k & 7);
                }
            }
            tg.keys_of_values();
            assert_eq!(tg.keys, want, "width {width}, mask {mask:#x}");
        }
    }

    #[test]
    fn scan_meets_every_target_in_order() {
        // Pairs (a, 99 − a) of a sequence; targets are the values of a few chosen pairs.
        let vals: Vec<u16> = (0..100u32).map(|i| ((i * 37 + 11) % 64) as u16).collect();
        let pair = |a: usize| (vals[a] ^ vals[99 - a]) as u32;
        for lo in [1, 5, 17] {
            let mut row = vec![0u8; 64];
            let mut class = vec![0u8; 64];
            let want: Vec<u32> = (lo..50).map(pair).collect();
            for &v in &want {
                class[v as usize] = 0xFF;
            }
            let mut tg = Targets::<u16>::new(64, 1, Isa::Portable);
            tg.set_open(&row, &class, 64);
            let last = (lo..50)
                .rev()
                .find(|&a| (lo..a).all(|b| pair(b) != pair(a)))
                .unwrap();
            let stop = scan(&mut row, &mut tg, &vals, &vals, 99, lo, 50);
            assert_eq!(stop, Some(last + 1));
            assert!(want.iter().all(|&v| row[v as usize] == 1));
            assert_eq!(tg.need(), 0);
        }
    }
}
