//! The loops with NEON (aarch64), the counterpart at 128 bits of the AVX2 ones (`avx2.rs`):
//! - the scans, 32 pairs a step in two registers (the right side reversed with `rev64` and
//!   `ext`, or read from the byte keys), each pair's key looked up in the 256-bit set of the
//!   targets' keys with one `tbl` on a two-register table (byte `k >> 3` of the set: no blend of
//!   halves, as AVX2's `vpshufb` needs) and a shift for bit `k & 7`; the lanes that hit gathered
//!   into a word of 32 bits with weights and three pairwise additions (NEON has no
//!   `movemask`). A byte scan's last two targets are compared with directly, 64 pairs a step;
//! - step 1 and the scan's head in lanes: 8 heaps a register of 16-bit lanes, their keys in
//!   registers of 16 (a shift, an OR and a subtraction a register and column, as AVX-512 BW's
//!   `vpsllvw`), read from the words of `LaneWords` (AVX2's: a column is a load, a broadcast, an
//!   XOR and a `umin`). `ushl` shifts by the signed low byte of each lane and gives 0 past the
//!   lane either way, so a key needs no range compare ([`lane_shift`]). The rows are written
//!   with `tbl` lookups of the heaps' key sets, 16 values a step;
//! - the least open value (16 values a step, `shrn` to 4 bits a byte) and the set of the open
//!   values (64 a step), small mode's scan with one or two targets left.
//!
//! Everything else of the tier runs the portable loops.
//!
//! Its speed has not been measured on ARM hardware: `results/arm.md` gives what could be
//! measured here (instructions executed under emulation, instructions a column and group), and
//! the command to time it (`NIMSEQ_ISA=portable` against the default, `scripts/bench.sh`).

use super::{scan_tail, Columns, LaneKeys, ScanKeys, Targets};
use std::arch::aarch64::*;

/// Two registers of 16 bytes: 32 lanes, or the 256-bit set of keys (key `k`: bit `k & 7` of
/// byte `k >> 3`).
type Pair = uint8x16x2_t;

/// The weights of the lanes in [`mask32`]: lane `i` of a register is bit `i & 7` of a byte.
const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];

/// Bit `i` set where lane `i` of the 32 (lanes 0–15 in `m.0`, 16–31 in `m.1`) is 0xFF; each
/// lane 0 or 0xFF.
#[inline]
#[target_feature(enable = "neon")]
fn mask32(m: Pair) -> u32 {
    // SAFETY: 16 bytes of a 16-byte array.
    let w = unsafe { vld1q_u8(WEIGHTS.as_ptr()) };
    let (a, b) = (vandq_u8(m.0, w), vandq_u8(m.1, w));
    // Pairwise sums of neighbours, three times: each byte of the result is eight lanes' bits.
    let s = vpaddq_u8(a, b);
    let s = vpaddq_u8(s, s);
    let s = vpaddq_u8(s, s);
    vgetq_lane_u32::<0>(vreinterpretq_u32_u8(s))
}

/// Bit `i` set where key `i` of the 32 in `k` is in the 256-bit set `set`.
#[inline]
#[target_feature(enable = "neon")]
fn set_hits(k: Pair, set: Pair) -> u32 {
    let one = |k: uint8x16_t| {
        // Byte k >> 3 of the set (0..32: the two-register table holds it all), bit k & 7 of it.
        let byte = vqtbl2q_u8(set, vshrq_n_u8::<3>(k));
        let bit = vshlq_u8(
            vdupq_n_u8(1),
            vreinterpretq_s8_u8(vandq_u8(k, vdupq_n_u8(7))),
        );
        vtstq_u8(byte, bit)
    };
    mask32(uint8x16x2_t(one(k.0), one(k.1)))
}

/// The 256-bit set `set` without key `k` if `take` is 1 (unchanged if 0).
#[inline]
#[target_feature(enable = "neon")]
fn without_key(set: Pair, k: u8, take: u8) -> Pair {
    const IOTA: [u8; 32] = {
        let mut a = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            a[i] = i as u8;
            i += 1;
        }
        a
    };
    // SAFETY: 32 bytes of a 32-byte array.
    let iota = unsafe { vld1q_u8_x2(IOTA.as_ptr()) };
    let at = vdupq_n_u8(k >> 3);
    let bit = vdupq_n_u8(take << (k & 7));
    let clear = |s: uint8x16_t, i: uint8x16_t| vbicq_u8(s, vandq_u8(vceqq_u8(i, at), bit));
    uint8x16x2_t(clear(set.0, iota.0), clear(set.1, iota.1))
}

/// Reverses the 16 bytes of `v`.
#[inline]
#[target_feature(enable = "neon")]
fn reverse_bytes(v: uint8x16_t) -> uint8x16_t {
    let r = vrev64q_u8(v);
    vextq_u8::<8>(r, r)
}

/// Reverses the 8 words of `v`.
#[inline]
#[target_feature(enable = "neon")]
fn reverse_words(v: uint16x8_t) -> uint16x8_t {
    let r = vrev64q_u16(v);
    vextq_u16::<4>(r, r)
}

/// The values `left[a + i] ^ right[rr − a − i]`, `i < 32`, of byte cells.
///
/// # Safety
/// `a + 32 ≤ left.len()`, `a + 31 ≤ rr < right.len() + a`.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn pairs_u8(left: &[u8], right: &[u8], rr: usize, a: usize) -> Pair {
    // SAFETY: the caller keeps the loads of 32 bytes in bounds.
    unsafe {
        let l = vld1q_u8_x2(left.as_ptr().add(a));
        let r = vld1q_u8_x2(right.as_ptr().add(rr - a - 31));
        uint8x16x2_t(
            veorq_u8(l.0, reverse_bytes(r.1)),
            veorq_u8(l.1, reverse_bytes(r.0)),
        )
    }
}

/// The same for 16-bit cells: pairs `a + 8j .. a + 8j + 7` in register `j`.
///
/// # Safety
/// As [`pairs_u8`].
#[inline]
#[target_feature(enable = "neon")]
unsafe fn pairs_u16(left: &[u16], right: &[u16], rr: usize, a: usize) -> [uint16x8_t; 4] {
    // SAFETY: the caller keeps the loads of 32 cells in bounds.
    unsafe {
        let l = vld1q_u16_x4(left.as_ptr().add(a));
        let r = vld1q_u16_x4(right.as_ptr().add(rr - a - 31));
        [
            veorq_u16(l.0, reverse_words(r.3)),
            veorq_u16(l.1, reverse_words(r.2)),
            veorq_u16(l.2, reverse_words(r.1)),
            veorq_u16(l.3, reverse_words(r.0)),
        ]
    }
}

/// [`super::scan_keys`] (its checks done), 32 pairs a step: the left and right keys of a
/// step are one load each (the right side is stored reversed), their XOR looked up in the
/// targets' key set; a hit's key names its rare value, which is met in the set of values.
///
/// # Safety
/// The processor must have NEON; the chunks must be within the keys
/// (`keys.chunks_end(r, lo, end, _) == end`), the targets keyed as the scan's keys are.
#[target_feature(enable = "neon")]
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
    let step = |at: usize, set: Pair, xs: &mut [u8; 32]| {
        // SAFETY: at + 32 ≤ end ≤ left.len(), at − lo + 32 ≤ right.len() (checked above);
        // the bitmap has 16 bytes past the byte of heap left.len() − 1; 32 bytes into xs.
        unsafe {
            let l = vld1q_u8_x2(left.as_ptr().add(at));
            let g = vld1q_u8_x2(right.as_ptr().add(at - lo));
            let bits = left_rare.as_ptr().add(at >> 3) as *const [u8; 8];
            let rare = (u64::from_le_bytes(bits.read_unaligned()) >> shift) as u32;
            let x = uint8x16x2_t(veorq_u8(l.0, g.0), veorq_u8(l.1, g.1));
            vst1q_u8_x2(xs.as_mut_ptr(), x);
            // A heap that is a rare position gives a common value: left out.
            set_hits(x, set) & !rare
        }
    };
    // A hit's key names its rare value, a pair's: marked whether or not it is a target
    // still, and taken out of both sets.
    let meet = |tg: &mut Targets<u16>, set: &mut Pair, k: u8, row: &mut [u8]| {
        let v = keys.rare_value(k) as usize;
        let byte = &mut tg.values[v >> 3];
        tg.need -= usize::from((*byte >> (v & 7)) & 1);
        *byte &= !(1 << (v & 7));
        *set = without_key(*set, k, 1);
        // SAFETY: rare values are below 512 ≤ row.len() (checked above).
        unsafe { *row.get_unchecked_mut(v) = 1 };
    };
    scan_steps(row, tg, lo, end, 0, step, meet)
}

/// Steps of 32 pairs between two looks at the hits of [`scan_steps`], once the first few are
/// done (AVX2's figures, not measured on ARM).
const BATCH: usize = 4;
/// Steps met one by one at the start of [`scan_steps`] (where targets are many).
const FIRST: usize = 2;

/// The loop of the NEON scans over the pairs `lo..end`, 32 a step, as AVX2's `scan_steps`:
/// `step(a, set, xs)` gives the lanes of the pairs from `a` on whose key is in `set`, with
/// their values or keys in `xs`; the hits of a batch are met afterwards, in order, by
/// `meet(tg, set, x, row)`, which takes the key of a target it meets out of `set`. `Ok(b)`
/// once every target is met, `b` the pair after the one that met the last; `Err(a)`, `a` the
/// first pair not looked at, otherwise, or as soon as at most `few` targets are left at the
/// end of a batch.
#[inline(always)]
fn scan_steps<T: Copy + Default, U>(
    row: &mut [u8],
    tg: &mut Targets<U>,
    lo: usize,
    end: usize,
    few: usize,
    mut step: impl FnMut(usize, Pair, &mut [T; 32]) -> u32,
    meet: impl Fn(&mut Targets<U>, &mut Pair, T, &mut [u8]),
) -> Result<usize, usize> {
    // The targets' keys, held in registers through the scan and stored back at its end.
    // SAFETY: the 32 bytes of the set (NEON: inlined into NEON code).
    let mut set = unsafe { vld1q_u8_x2(tg.keys.as_ptr()) };
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
    unsafe { vst1q_u8_x2(tg.keys.as_mut_ptr(), set) };
    found
}

/// The scan over the cells from `lo` to `hi`: the steps of [`scan_steps`], a hit met by
/// its value ([`Targets::meet_any`]), the pairs past the last whole step one by one.
macro_rules! scan_cells {
    ($row:ident, $tg:ident, $left:ident, $right:ident, $rr:ident, $lo:ident, $hi:ident, $step:ident) => {{
        let meet = |tg: &mut Targets<_>, set: &mut Pair, v, row: &mut [u8]| {
            let (k, target) = tg.meet_any(v, row);
            *set = without_key(*set, k, target);
        };
        match scan_steps($row, $tg, $lo, $hi, 0, $step, meet) {
            Ok(stop) => Some(stop),
            Err(a) => scan_tail($row, $tg, $left, $right, $rr, a, $hi),
        }
    }};
}

/// Targets left once a byte scan compares with them one by one (AVX2's choice).
const FEW_U8: usize = 2;

/// The rest of a byte scan once at most [`FEW_U8`] targets are left (and one at least): 64
/// pairs a step compared with each target (no set lookup), a hit met exactly and the scan
/// going on from the pair after it. As [`scan_u8`] returns.
///
/// # Safety
/// As [`scan_u8`]; every target below 256.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn scan_few_u8(
    row: &mut [u8],
    tg: &mut Targets<u8>,
    left: &[u8],
    right: &[u8],
    rr: usize,
    mut a: usize,
    hi: usize,
) -> Option<usize> {
    // The targets left, each in every byte of a register (the last repeated to fill them).
    let wanted = |tg: &Targets<u8>| {
        let mut t = [0u32; FEW_U8];
        let k = tg.left(&mut t);
        debug_assert!(k >= 1);
        std::array::from_fn::<uint8x16_t, FEW_U8, _>(|i| vdupq_n_u8(t[i.min(k - 1)] as u8))
    };
    let mut want = wanted(tg);
    while a + 64 <= hi {
        // SAFETY: a + 64 ≤ hi ≤ left.len(); rr − a − 63 ≥ rr + 1 − hi ≥ 0; rr − a ≤ rr − lo.
        let (x0, x1) = unsafe {
            (
                pairs_u8(left, right, rr, a),
                pairs_u8(left, right, rr, a + 32),
            )
        };
        let eq = |x: uint8x16_t| {
            want.iter()
                .fold(vdupq_n_u8(0), |eq, &t| vorrq_u8(eq, vceqq_u8(x, t)))
        };
        let (e0, e1, e2, e3) = (eq(x0.0), eq(x0.1), eq(x1.0), eq(x1.1));
        // Any hit in the 64 lanes: the largest byte of their OR.
        if vmaxvq_u8(vorrq_u8(vorrq_u8(e0, e1), vorrq_u8(e2, e3))) == 0 {
            a += 64;
            continue;
        }
        let m =
            u64::from(mask32(uint8x16x2_t(e0, e1))) | u64::from(mask32(uint8x16x2_t(e2, e3))) << 32;
        let b = a + m.trailing_zeros() as usize;
        tg.meet(u32::from(left[b] ^ right[rr - b]), row);
        a = b + 1;
        if tg.need == 0 {
            return Some(a);
        }
        want = wanted(tg);
    }
    scan_tail(row, tg, left, right, rr, a, hi)
}

/// [`super::scan`] over byte values.
///
/// # Safety
/// The processor must have NEON; `hi ≤ left.len()`, `hi ≤ rr + 1`, `rr − lo < right.len()`.
#[target_feature(enable = "neon")]
pub(super) unsafe fn scan_u8(
    row: &mut [u8],
    tg: &mut Targets<u8>,
    left: &[u8],
    right: &[u8],
    rr: usize,
    lo: usize,
    hi: usize,
) -> Option<usize> {
    let step = |a: usize, set: Pair, xs: &mut [u8; 32]| {
        // SAFETY: a + 32 ≤ hi ≤ left.len(); rr − a − 31 ≥ rr + 1 − hi ≥ 0; rr − a ≤ rr − lo;
        // 32 bytes into xs.
        unsafe {
            let x = pairs_u8(left, right, rr, a);
            vst1q_u8_x2(xs.as_mut_ptr(), x);
            set_hits(x, set)
        }
    };
    if tg.low != u32::MAX {
        return scan_cells!(row, tg, left, right, rr, lo, hi, step);
    }
    // Below 256 a key is its value; once few targets are left, they are compared with.
    let meet = |tg: &mut Targets<_>, set: &mut Pair, v, row: &mut [u8]| {
        let (k, target) = tg.meet_any(v, row);
        *set = without_key(*set, k, target);
    };
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
#[target_feature(enable = "neon")]
pub(super) unsafe fn scan_u16(
    row: &mut [u8],
    tg: &mut Targets<u16>,
    left: &[u16],
    right: &[u16],
    rr: usize,
    lo: usize,
    hi: usize,
) -> Option<usize> {
    let low = vdupq_n_u16(tg.low as u16);
    // The key of each value, below 256: the bits above `low` move down by one.
    let key = |x: uint16x8_t| vbslq_u16(low, x, vshrq_n_u16::<1>(x));
    let step = |a: usize, set: Pair, xs: &mut [u16; 32]| {
        // SAFETY: as in scan_u8; 32 cells into xs.
        let k = unsafe {
            let x = pairs_u16(left, right, rr, a);
            vst1q_u16_x4(xs.as_mut_ptr(), uint16x8x4_t(x[0], x[1], x[2], x[3]));
            uint8x16x2_t(
                vmovn_high_u16(vmovn_u16(key(x[0])), key(x[1])),
                vmovn_high_u16(vmovn_u16(key(x[2])), key(x[3])),
            )
        };
        set_hits(k, set)
    };
    scan_cells!(row, tg, left, right, rr, lo, hi, step)
}

/// 8 heaps' words from `p` on (32-bit words below 2^16: `LaneWords`' and the heads'), one a
/// 16-bit lane: the low halves of 8 words, with one `ld2` (its second register, the high
/// halves, unused).
///
/// # Safety
/// 8 words from `p` on must be readable.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn words8(p: *const u32) -> uint16x8_t {
    // SAFETY: 32 bytes from p (the caller's).
    unsafe { vld2q_u16(p as *const u16).0 }
}

/// A column's word (32 bits, below 2^16) in every 16-bit lane, with one `ld1r`.
#[inline]
#[target_feature(enable = "neon")]
fn column8(w: &u32) -> uint16x8_t {
    // SAFETY: the low half of a u32 (little-endian, as aarch64 Linux is).
    unsafe { vld1q_dup_u16(w as *const u32 as *const u16) }
}

/// For the XORed words `x` of 8 pairs, what [`mark_regs`] shifts: `(one, shift)`, bit `k − 16w`
/// set in register `w < R` of a pair whose key `k` is below `16 · R` and below 256, nothing
/// for the others (words of 256 or more: rare values in step 1, common ones or pairs left out
/// in the heads, keys past a byte).
///
/// `ushl` (`vshlq_u16`) shifts each lane by the *signed low byte* of its count (Arm ARM,
/// USHL: `shift = SInt(Elem[operand2, e, esize]<7:0>)`, a left shift when positive, a right
/// one when negative, the result truncated to the lane): 1 shifted by 0..16 is a bit, by
/// 16..=127 nothing (past the lane), by −128..=−1 nothing (1 shifted right). For a byte `k`,
/// `(k − 16w) mod 256` lies in 0..16 only where `16w ≤ k < 16w + 16`: so a key below 256 needs
/// no range compare, and a byte from `16 · R` to 255 marks no register below `R`. The words of
/// 256 or more are taken to 255 (one `umin` a column), which marks nothing while `R < 16`.
/// With 16 registers every byte is a key: the 1 shifted is then 0 in the lanes of 256 or
/// more (a compare and a shift a column).
#[inline]
#[target_feature(enable = "neon")]
fn lane_shift<const R: usize>(x: uint16x8_t) -> (uint16x8_t, uint16x8_t) {
    const { assert!(R <= 16) };
    if R < 16 {
        (vdupq_n_u16(1), vminq_u16(x, vdupq_n_u16(255)))
    } else {
        (vshrq_n_u16::<15>(vcltq_u16(x, vdupq_n_u16(256))), x)
    }
}

/// ORs the bits of [`lane_shift`]`(x)` into the `R` registers of 16 keys `acc`: a shift, an OR
/// and a subtraction a register.
#[inline]
#[target_feature(enable = "neon")]
fn mark_regs<const R: usize>(acc: &mut [uint16x8_t; R], x: uint16x8_t) {
    let (one, mut shift) = lane_shift::<R>(x);
    for a in acc.iter_mut() {
        *a = vorrq_u16(*a, vshlq_u16(one, vreinterpretq_s16_u16(shift)));
        shift = vsubq_u16(shift, vdupq_n_u16(16));
    }
}

/// The key sets of 8 heaps (one a 16-bit lane of `R` registers of 16 keys) as 256-bit sets, a
/// heap's key `k` at bit `k & 7` of byte `k >> 3` (the registers past `R` zero).
#[inline]
#[target_feature(enable = "neon")]
fn transpose<const R: usize>(acc: &[uint16x8_t; R]) -> [[u16; 16]; 8] {
    let mut lanes = [[0u16; 8]; R];
    for (lane, a) in lanes.iter_mut().zip(acc) {
        // SAFETY: 16 bytes into a [u16; 8].
        unsafe { vst1q_u16(lane.as_mut_ptr(), *a) };
    }
    let mut sets = [[0u16; 16]; 8];
    for (k, set) in sets.iter_mut().enumerate() {
        for (w, lane) in lanes.iter().enumerate() {
            set[w] = lane[k];
        }
    }
    sets
}

/// ORs into `row[v]`, for each `v < used` (a multiple of 16, within `row` and the tables), 1
/// where byte `idx[v]` of the 256-bit set `set` has a bit in common with `bit[v]`: with a
/// two-register `tbl` 16 values a step.
///
/// # Safety
/// `used ≤ row.len()`, `used ≤ 512`, a multiple of 16.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn set_into_row(row: *mut u8, set: Pair, idx: &[u8; 512], bit: &[u8; 512], used: usize) {
    let one = vdupq_n_u8(1);
    for c in (0..used).step_by(16) {
        // SAFETY: c + 16 ≤ used ≤ 512 and the row's length (the caller's).
        unsafe {
            let t = vqtbl2q_u8(set, vld1q_u8(idx.as_ptr().add(c)));
            let hit = vandq_u8(vtstq_u8(t, vld1q_u8(bit.as_ptr().add(c))), one);
            let at = row.add(c);
            vst1q_u8(at, vorrq_u8(vld1q_u8(at), hit));
        }
    }
}

/// The tables of [`set_into_row`] for the values below `used` (a multiple of 16, at most
/// 512): byte `key_of[v] >> 3` of the set, and bit `key_of[v] & 7` of it where `class[v]` is 1
/// (0 where it is 0).
#[inline]
#[target_feature(enable = "neon")]
fn row_tables(key_of: &[u8; 512], class: &[u8; 512], used: usize) -> ([u8; 512], [u8; 512]) {
    let (mut idx, mut bit) = ([0u8; 512], [0u8; 512]);
    for c in (0..used.min(512)).step_by(16) {
        // SAFETY: c + 16 ≤ 512 bytes of each table.
        unsafe {
            let k = vld1q_u8(key_of.as_ptr().add(c));
            let cls = vld1q_u8(class.as_ptr().add(c));
            vst1q_u8(idx.as_mut_ptr().add(c), vshrq_n_u8::<3>(k));
            let shift = vreinterpretq_s8_u8(vandq_u8(k, vdupq_n_u8(7)));
            vst1q_u8(bit.as_mut_ptr().add(c), vshlq_u8(cls, shift));
        }
    }
    (idx, bit)
}

/// [`super::lane_marks`] with NEON: 8 heaps at a time, one per 16-bit lane, their marks kept in
/// `R` registers of 16 keys a lane (`ushl` shifts 16-bit lanes by a variable count, as
/// AVX-512 BW's `vpsllvw`; AVX2 has only 32-bit lanes); then, heap by heap, the values of the
/// row looked up in the heap's keys with `tbl`, 16 values a step. As AVX2's lanes, they read
/// the heaps' words `words` (of heaps `first..`, see [`super::LaneWords`]) and each column's
/// word, not the values: a column costs a load of 8 words (`ld2`), a broadcast of its word, an
/// XOR and a `umin` ([`lane_shift`]), then a shift, an OR and a subtraction a register.
///
/// # Safety
/// `used` a multiple of 32, at most 512 and at most `stride`; `(len − 1) · stride + used ≤
/// rows.len()`; `words` ends with 8 words past the last heap's. A column whose heaps
/// `q..q + len` are not all in `first..` the last heap, or with fewer words than positions,
/// panics.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "neon")]
pub(super) unsafe fn lane_marks<const R: usize>(
    rows: &mut [u8],
    stride: usize,
    used: usize,
    words: &[u32],
    first: usize,
    cols: &[Columns<'_>],
    len: usize,
    keys: &LaneKeys,
) {
    // The lanes mark the common values below the keys' limit only.
    let used = used
        .min(keys.limit().next_multiple_of(32) as usize)
        .min(512);
    let (idx, bit) = row_tables(&keys.key_of, &keys.common, used);
    // The rows of the 8 heaps from h0 on (those below len) from their lanes.
    let rows_of = |rows: &mut [u8], h0: usize, acc: &[uint16x8_t; R]| {
        for (k, set) in transpose::<R>(acc).iter().take(len - h0).enumerate() {
            // SAFETY: 32 bytes of a [u16; 16]; (h0 + k) · stride + used ≤ (len − 1) · stride
            // + used ≤ rows.len().
            unsafe {
                let set = vld1q_u8_x2(set.as_ptr() as *const u8);
                let row = rows[(h0 + k) * stride..].as_mut_ptr();
                set_into_row(row, set, &idx, &bit, used);
            }
        }
    };
    if R <= PAIRED {
        for h0 in (0..len).step_by(16) {
            // SAFETY: as this function's.
            let [first8, second8] = unsafe { lane_block::<R, 2>(words, first, cols, len, h0) };
            rows_of(rows, h0, &first8);
            if h0 + 8 < len {
                rows_of(rows, h0 + 8, &second8);
            }
        }
    } else {
        for h0 in (0..len).step_by(8) {
            // SAFETY: as this function's.
            let [acc] = unsafe { lane_block::<R, 1>(words, first, cols, len, h0) };
            rows_of(rows, h0, &acc);
        }
    }
}

/// The most registers of 16 keys with which [`lane_marks`] takes 16 heaps a column
/// ([`lane_block`] with two halves: twice the registers, and the column's scalar work, about
/// 8 instructions, shared by both halves); with more, 8 (one half: 16 registers of marks and 8
/// of constants fill NEON's 32 registers).
const PAIRED: usize = 8;

/// The marks of [`lane_marks`] for `H` (1 or 2) halves of 8 heaps from `h0` on (one heap a
/// 16-bit lane; the second half holds the heaps from `h0 + 8`, or those from `h0` again where
/// the block has no heap there, and is then not used; heaps from `len` on are not used) over
/// every column, in `R` registers of 16 keys a half. A pair's word is the XOR of its heap's
/// and its column's: its key where it is common, 2^15 or more where it is rare. A function of
/// its own, so that its registers are allocated for this loop alone (as AVX2's).
///
/// # Safety
/// As [`lane_marks`], and `h0 < len`.
#[inline(never)]
#[target_feature(enable = "neon")]
unsafe fn lane_block<const R: usize, const H: usize>(
    words: &[u32],
    first: usize,
    cols: &[Columns<'_>],
    len: usize,
    h0: usize,
) -> [[uint16x8_t; R]; H] {
    const { assert!(H == 1 || H == 2) };
    // A column's heaps q..q + len lie in the words: q − first ≤ last.
    let last = (words.len().checked_sub(8 + len)).expect("words for a column's heaps");
    let h1 = if H == 2 && h0 + 8 < len { h0 + 8 } else { h0 };
    let mut acc = [[vdupq_n_u16(0); R]; H];
    for c in cols {
        assert_eq!(c.word.len(), c.pos.len(), "a word a column");
        let base = c.base.wrapping_sub(first);
        for (&p, w) in c.pos.iter().zip(c.word) {
            let at = base.wrapping_sub(p);
            assert!(at <= last, "a column past the words");
            let w = column8(w);
            // SAFETY: at + h + 8 ≤ last + len + 7 < words.len() for h = h0, h1 < len.
            let x = |h: usize| unsafe { words8(words.as_ptr().add(at + h)) };
            // The halves written out: as a loop over them, the marks went to memory.
            mark_regs(&mut acc[0], veorq_u16(x(h0), w));
            if H == 2 {
                mark_regs(&mut acc[H - 1], veorq_u16(x(h1), w));
            }
        }
    }
    acc
}

/// [`super::head_lanes`] with NEON: 8 heaps at a time, one per 16-bit lane, their keys in `R`
/// registers of 16 keys a lane (twice the tier's registers of 32), as [`lane_marks`]; then
/// written out heap by heap.
///
/// # Safety
/// `out.len() ≥ count`, `left.len() ≥` `count` rounded up to 8 plus `right.len()`.
#[target_feature(enable = "neon")]
pub(super) unsafe fn head_lanes<const R: usize>(
    left: &[u32],
    right: &[u32],
    count: usize,
    out: &mut [[u32; 8]],
) {
    assert!(out.len() >= count && left.len() >= count.next_multiple_of(8) + right.len());
    for h0 in (0..count).step_by(8) {
        // SAFETY: as this function's.
        let acc = unsafe { head_block::<R>(&left[h0..], right) };
        let sets = transpose::<R>(&acc);
        for (set, keys) in out[h0..count].iter_mut().zip(&sets) {
            *set =
                std::array::from_fn(|w| u32::from(keys[2 * w]) | u32::from(keys[2 * w + 1]) << 16);
        }
    }
}

/// The keys of [`head_lanes`] for the 8 heaps whose words start `left` (one a 16-bit lane)
/// over every column of `right`, in `R` registers of 16 keys, in a function of its own (as
/// [`lane_block`]). A common pair (bit 8 of the XOR) or a pair left out (bit 9) gives no key.
///
/// # Safety
/// `left.len() ≥ right.len() + 7`; every word below 2^16.
#[inline(never)]
#[target_feature(enable = "neon")]
unsafe fn head_block<const R: usize>(left: &[u32], right: &[u32]) -> [uint16x8_t; R] {
    assert!(left.len() >= right.len() + 7);
    let mut acc = [vdupq_n_u16(0); R];
    for (c, q) in right.iter().enumerate() {
        // SAFETY: c + 8 ≤ right.len() + 7 ≤ left.len() (checked above).
        let l = unsafe { words8(left.as_ptr().add(c)) };
        mark_regs(&mut acc, veorq_u16(l, column8(q)));
    }
    acc
}

/// [`super::head_marks`] with NEON: the keys of 16 values a step looked up in the set with
/// `tbl` (the rare ones only).
///
/// # Safety
/// None beyond NEON (checked: `used` a multiple of 32, at most 512 and the row's length).
#[target_feature(enable = "neon")]
pub(super) unsafe fn head_marks(
    row: &mut [u8],
    set: &[u32; 8],
    key_of: &[u8; 512],
    rare: &[u8; 512],
    used: usize,
) {
    assert!(used.is_multiple_of(32) && used <= 512 && used <= row.len());
    let one = vdupq_n_u8(1);
    // SAFETY: 32 bytes of a [u32; 8].
    let set = unsafe { vld1q_u8_x2(set.as_ptr() as *const u8) };
    for c in (0..used).step_by(16) {
        // SAFETY: c + 16 ≤ used ≤ 512, row.len() (checked above).
        unsafe {
            let k = vld1q_u8(key_of.as_ptr().add(c));
            let cls = vld1q_u8(rare.as_ptr().add(c));
            let t = vqtbl2q_u8(set, vshrq_n_u8::<3>(k));
            let bit = vshlq_u8(one, vreinterpretq_s8_u8(vandq_u8(k, vdupq_n_u8(7))));
            let at = row.as_mut_ptr().add(c);
            let hit = vandq_u8(vtstq_u8(t, bit), cls);
            vst1q_u8(at, vorrq_u8(vld1q_u8(at), hit));
        }
    }
}

/// The open lanes of 16 values: 0xFF where `row` is 0 and `class` is not.
#[inline]
#[target_feature(enable = "neon")]
fn open16(row: uint8x16_t, class: uint8x16_t) -> uint8x16_t {
    vbicq_u8(vceqzq_u8(row), vceqzq_u8(class))
}

/// [`super::first_open_on`] 16 values a step, from `from` (rounded down to 16) on: the open
/// lanes narrowed to 4 bits a byte (`shrn`: NEON has no `movemask`), the first found by the
/// trailing zeros of that word.
///
/// # Safety
/// None beyond NEON.
#[target_feature(enable = "neon")]
pub(super) unsafe fn first_open(row: &[u8], class: &[u8], from: usize) -> u32 {
    let len = row.len().min(class.len());
    let mut i = from & !15;
    while i + 16 <= len {
        // SAFETY: i + 16 ≤ len ≤ row.len(), class.len().
        let open = unsafe {
            open16(
                vld1q_u8(row.as_ptr().add(i)),
                vld1q_u8(class.as_ptr().add(i)),
            )
        };
        let nibbles = vshrn_n_u16::<4>(vreinterpretq_u16_u8(open));
        let bits = vget_lane_u64::<0>(vreinterpret_u64_u8(nibbles));
        if bits != 0 {
            return (i + (bits.trailing_zeros() / 4) as usize) as u32;
        }
        i += 16;
    }
    (i..len)
        .find(|&v| row[v] == 0 && class[v] != 0)
        .map_or(u32::MAX, |v| v as u32)
}

/// Bit `i` set where lane `i` of the 64 (16 a register, in order) is 0xFF; each lane 0 or
/// 0xFF: weights and four pairwise additions, as [`mask32`].
#[inline]
#[target_feature(enable = "neon")]
fn mask64(m: uint8x16x4_t) -> u64 {
    // SAFETY: 16 bytes of a 16-byte array.
    let w = unsafe { vld1q_u8(WEIGHTS.as_ptr()) };
    let ab = vpaddq_u8(vandq_u8(m.0, w), vandq_u8(m.1, w));
    let cd = vpaddq_u8(vandq_u8(m.2, w), vandq_u8(m.3, w));
    let s = vpaddq_u8(ab, cd);
    let s = vpaddq_u8(s, s);
    vgetq_lane_u64::<0>(vreinterpretq_u64_u8(s))
}

/// [`super::open_set_steps`] 64 values a step (the set of the targets' values, from which
/// their keys are made).
///
/// # Safety
/// None beyond NEON (the driver checks the steps' bounds).
#[target_feature(enable = "neon")]
pub(super) unsafe fn open_set(set: &mut [u8; 64], row: &[u8], class: &[u8], end: usize) -> usize {
    super::open_set_steps(set, row, class, end, |i| {
        // SAFETY: i + 64 ≤ row.len(), class.len() (checked by the driver).
        let (r, c) = unsafe {
            (
                vld1q_u8_x4(row.as_ptr().add(i)),
                vld1q_u8_x4(class.as_ptr().add(i)),
            )
        };
        mask64(uint8x16x4_t(
            open16(r.0, c.0),
            open16(r.1, c.1),
            open16(r.2, c.2),
            open16(r.3, c.3),
        ))
    })
}

/// [`super::small_scan`] over the whole chunks of 64 pairs from `a` on, as AVX2's: 64 pairs
/// a chunk in four registers (the right side reversed with `rev64` and `ext`); while more
/// than two targets are left, the word of the values a chunk holds (its bytes folded as the
/// portable loop folds them, which LLVM makes `ushl` of 64-bit lanes); then each chunk
/// compared with the one or two targets left (`cmeq`, `orr` and one `umaxv` a target), where
/// the portable loop folds every chunk.
///
/// # Safety
/// `hi ≤ r + 1`, `r − a < vals.len()` (when `a < hi`) and every target below the limit of the
/// values ([`super::small_scan`] checks them).
#[target_feature(enable = "neon")]
pub(super) unsafe fn small_scan(
    vals: &[u8],
    r: usize,
    a: usize,
    hi: usize,
    targets: u64,
) -> (u64, usize) {
    // The values of the pairs (b, r − b), b in a..a + 64.
    let chunk = |a: usize| {
        // SAFETY: a + 64 ≤ hi ≤ r + 1 (the chunks are whole), so r + 1 − a − 64 ≥ 0, and
        // r − a < vals.len() (the caller's): both loads lie within the values.
        unsafe {
            let l = vld1q_u8_x4(vals.as_ptr().add(a));
            let g = vld1q_u8_x4(vals.as_ptr().add(r + 1 - a - 64));
            uint8x16x4_t(
                veorq_u8(l.0, reverse_bytes(g.3)),
                veorq_u8(l.1, reverse_bytes(g.2)),
                veorq_u8(l.2, reverse_bytes(g.1)),
                veorq_u8(l.3, reverse_bytes(g.0)),
            )
        }
    };
    let seen = |a: usize, _| {
        let mut bytes = [0u8; 64];
        // SAFETY: 64 bytes into a [u8; 64].
        unsafe { vst1q_u8_x4(bytes.as_mut_ptr(), chunk(a)) };
        // A value from 64 on sets nothing.
        bytes.iter().fold(0u64, |s, &v| {
            s | (1u64 << (v & 63)) & u64::from(v < 64).wrapping_neg()
        })
    };
    let meets = |a: usize, one: uint8x16_t, two: uint8x16_t| {
        let x = chunk(a);
        let any = |t: uint8x16_t| {
            let eq = vorrq_u8(
                vorrq_u8(vceqq_u8(x.0, t), vceqq_u8(x.1, t)),
                vorrq_u8(vceqq_u8(x.2, t), vceqq_u8(x.3, t)),
            );
            vmaxvq_u8(eq) != 0
        };
        (any(one), any(two))
    };
    let wanted = |t: u32| vdupq_n_u8(t as u8);
    super::small_scan_chunks(a, hi, targets, seen, wanted, meets)
}

/// The NEON pieces against their definitions on random inputs (the scans themselves are run
/// against the portable scan in `tests.rs`, which runs every tier the processor has).
#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed.max(1);
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    fn pair(b: &[u8; 32]) -> Pair {
        // SAFETY: 32 bytes.
        unsafe { vld1q_u8_x2(b.as_ptr()) }
    }

    fn bytes(p: Pair) -> [u8; 32] {
        let mut b = [0u8; 32];
        // SAFETY: 32 bytes.
        unsafe { vst1q_u8_x2(b.as_mut_ptr(), p) };
        b
    }

    #[test]
    fn set_lookups_and_masks_are_the_definition() {
        let mut next = rng(17);
        for _ in 0..2000 {
            let set: [u8; 32] = std::array::from_fn(|_| (next() & next()) as u8);
            let k: [u8; 32] = std::array::from_fn(|_| next() as u8);
            let lanes: [u8; 32] = std::array::from_fn(|_| 0xFF * (next() % 2) as u8);
            let in_set = |k: u8| (set[k as usize >> 3] >> (k & 7)) & 1 == 1;
            let want = (0..32).fold(0u32, |m, i| m | u32::from(in_set(k[i])) << i);
            let want_mask = (0..32).fold(0u32, |m, i| m | u32::from(lanes[i] != 0) << i);
            // SAFETY (each): NEON is part of every aarch64 processor.
            unsafe {
                assert_eq!(set_hits(pair(&k), pair(&set)), want);
                assert_eq!(mask32(pair(&lanes)), want_mask);
                let (key, take) = (next() as u8, (next() % 2) as u8);
                let mut less = set;
                less[key as usize >> 3] &= !(take << (key & 7));
                assert_eq!(bytes(without_key(pair(&set), key, take)), less);
            }
        }
    }

    /// `ushl`'s signed-byte counts as [`lane_shift`] relies on them: every 16-bit word marks
    /// bit `x − 16w` of register `w` when `x < 16 · R`, and nothing else, for every register
    /// count the lanes and heads take.
    #[test]
    fn shifts_mark_a_key_in_its_register_only() {
        fn check<const R: usize>() {
            for x0 in (0..1u32 << 16).step_by(8) {
                let xs: [u16; 8] = std::array::from_fn(|i| (x0 as usize + i) as u16);
                let mut acc = [unsafe { vdupq_n_u16(0) }; R];
                // SAFETY (each): NEON is part of every aarch64 processor; 16 bytes.
                unsafe { mark_regs(&mut acc, vld1q_u16(xs.as_ptr())) };
                for (w, a) in acc.iter().enumerate() {
                    let mut got = [0u16; 8];
                    unsafe { vst1q_u16(got.as_mut_ptr(), *a) };
                    for (i, &x) in xs.iter().enumerate() {
                        let x = u32::from(x);
                        let want = if x < 16 * R as u32 && x / 16 == w as u32 {
                            1u16 << (x % 16)
                        } else {
                            0
                        };
                        assert_eq!(got[i], want, "R {R}, register {w}, word {x:#x}");
                    }
                }
            }
        }
        check::<1>();
        check::<2>();
        check::<4>();
        check::<6>();
        check::<8>();
        check::<10>();
        check::<12>();
        check::<15>();
        check::<16>();
    }

    /// The set of open values and the least open value from a start, against the definition.
    #[test]
    fn open_values_are_the_definition() {
        let mut next = rng(29);
        for round in 0..2000 {
            let width = 64 << (round % 4);
            let sparse = 1 + next() % 40;
            let row: Vec<u8> = (0..width)
                .map(|_| u8::from(!next().is_multiple_of(sparse)))
                .collect();
            let class: Vec<u8> = (0..width).map(|_| (next() % 3) as u8).collect();
            let open = |v: usize| row[v] == 0 && class[v] != 0;
            let end = (next() % (width as u64 + 1)) as usize;
            let mut set = [0xAAu8; 64];
            // SAFETY (each): NEON.
            let count = unsafe { open_set(&mut set, &row, &class, end) };
            let mut want = [0u8; 64];
            for v in (0..end.min(512)).filter(|&v| open(v)) {
                want[v >> 3] |= 1 << (v & 7);
            }
            assert_eq!(set, want, "width {width}, end {end}");
            assert_eq!(
                count,
                want.iter().map(|b| b.count_ones() as usize).sum::<usize>()
            );
            let from = (next() % (width as u64 + 1)) as usize;
            let first = (from & !15..width).find(|&v| open(v));
            let got = unsafe { first_open(&row, &class, from) };
            assert_eq!(got, first.map_or(u32::MAX, |v| v as u32), "from {from}");
        }
    }

    #[test]
    fn pairs_are_the_cells_one_by_one() {
        let mut next = rng(23);
        let left: Vec<u8> = (0..200).map(|_| next() as u8).collect();
        let right: Vec<u8> = (0..200).map(|_| next() as u8).collect();
        let left16: Vec<u16> = (0..200).map(|_| next() as u16).collect();
        let right16: Vec<u16> = (0..200).map(|_| next() as u16).collect();
        for _ in 0..500 {
            let a = (next() % 100) as usize;
            let rr = a + 31 + (next() % 60) as usize;
            // SAFETY (each): NEON; a + 32 ≤ 200, a + 31 ≤ rr < 200 + a.
            let got = bytes(unsafe { pairs_u8(&left, &right, rr, a) });
            let want: [u8; 32] = std::array::from_fn(|i| left[a + i] ^ right[rr - a - i]);
            assert_eq!(got, want, "a {a}, rr {rr}");
            let x = unsafe { pairs_u16(&left16, &right16, rr, a) };
            let mut got = [0u16; 32];
            unsafe { vst1q_u16_x4(got.as_mut_ptr(), uint16x8x4_t(x[0], x[1], x[2], x[3])) };
            let want: [u16; 32] = std::array::from_fn(|i| left16[a + i] ^ right16[rr - a - i]);
            assert_eq!(got, want, "a {a}, rr {rr}");
        }
    }
}
