//! The scans with NEON (aarch64), the counterpart at 128 bits of the AVX2 scans (`avx2.rs`):
//! 32 pairs a step in two registers (the right side reversed with `rev64` and `ext`, or read
//! from the byte keys), each pair's key looked up in the 256-bit set of the targets' keys with
//! one `tbl` on a two-register table (byte `k >> 3` of the set: no blend of halves, as AVX2's
//! `vpshufb` needs) and a shift for bit `k & 7`; the lanes that hit gathered into a word of 32
//! bits with weights and three pairwise additions (NEON has no `movemask`). A byte scan's last
//! two targets are compared with directly, 64 pairs a step. Everything else of the tier runs
//! the portable loops (step 1 has no NEON lanes: not worth guessing at without hardware).
//!
//! Its speed has not been measured on ARM hardware: `results/arm.md` gives what could be
//! measured here (instructions executed under emulation, a static throughput model), and the
//! command to time it (`NIMSEQ_ISA=portable` against the default, `scripts/bench.sh`).

use super::{scan_tail, ScanKeys, Targets};
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
