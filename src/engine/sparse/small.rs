//! Small mode: while (almost) every value is below 64 and no move leaves three heaps, one 64-bit
//! mark word a heap, heaps finished one by one in order.

use super::*;

/// Rare pairs of a heap (rare positions times splits) up to which small mode is used on several
/// threads too: beyond, the blocks' parallel far work pays more than small mode saves.
pub(super) const SMALL_MAX_PAIRS: usize = 1024;

/// Heaps whose far rare pairs small mode marks together.
pub(super) const SMALL_BLOCK: usize = 64;

/// Small mode runs among values that do not fit its mark word (64 and more) while at most one
/// heap in this many has one: each of them is left to a block of the other mode.
pub(super) const SMALL_RARE_LARGE: u64 = 4096;

impl Sparse {
    /// Small mode: (almost) every value so far is below 64 and no move leaves three heaps. A
    /// heap's marks are then one 64-bit word, and each heap is finished on its own, in order:
    /// its options that leave one heap, its rare pairs (those whose partner lies before a block
    /// of 64 heaps marked for the whole block at once) and the mex of the common values, then
    /// the scan of its pairs for the rare values below it, 64 pairs at a time into a second word
    /// ([`small_scan`]). No mark rows, no meeting of threads: for games like 0.167 (60 rare
    /// positions, values below 64) the bookkeeping of the blocks cost more than the pairs.
    /// Serial; used on several threads only while the rare pairs of a heap are few. Values of
    /// 64 and more may occur, if few (at most one heap in [`SMALL_RARE_LARGE`]: 0.167 has ten
    /// among its first 2·10^9): they mark nothing in the word (an option of value 64 or more
    /// does not change a mex below 64), and a heap whose value may be one is left to the blocks.
    pub(super) fn small_mode(&self) -> bool {
        let limit = self.small_limit as usize;
        let few_large = || {
            let large: u64 = self.hist.counts.iter().skip(limit).sum();
            large * SMALL_RARE_LARGE <= self.hist.len
        };
        self.small
            && !self.dense
            && (self.width <= limit || self.small_always || few_large())
            && self.moves.leave_three.is_empty()
            && (self.exec.threads() == 1
                || self.rare_pos.len() * self.moves.leave_two.len() <= SMALL_MAX_PAIRS)
    }

    /// Small mode for heaps `start..end`: returns where it stopped, `end` or earlier: before a
    /// heap whose common values below 64 are all options (its value may not be below 64), or
    /// after a heap that makes the rare list due for a new mask. On the engine's instruction
    /// tier (the compiler vectorises the scan).
    pub(super) fn fill_small<T: Cell>(
        &mut self,
        vals: &mut [T],
        start: usize,
        end: usize,
    ) -> usize {
        // SAFETY (each): the engine holds a tier, the proof that the processor has its
        // features.
        match self.tier.kind() {
            TierKind::Portable => self.fill_small_impl(vals, start, end),
            #[cfg(target_arch = "aarch64")]
            TierKind::Neon => unsafe { self.fill_small_neon(vals, start, end) },
            #[cfg(not(target_arch = "aarch64"))]
            TierKind::Neon => unreachable!("an aarch64 tier"),
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx2 => unsafe { self.fill_small_avx2(vals, start, end) },
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx512Bw => unsafe { self.fill_small_avx512bw(vals, start, end) },
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx512Vbmi => unsafe { self.fill_small_avx512vbmi(vals, start, end) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("x86-64 tiers"),
        }
    }

    tier_code!(
        Neon,
        unsafe fn fill_small_neon<T: Cell>(
            &mut self,
            vals: &mut [T],
            start: usize,
            end: usize,
        ) -> usize {
            self.fill_small_impl(vals, start, end)
        }
    );

    tier_code!(
        Avx2,
        unsafe fn fill_small_avx2<T: Cell>(
            &mut self,
            vals: &mut [T],
            start: usize,
            end: usize,
        ) -> usize {
            self.fill_small_impl(vals, start, end)
        }
    );

    tier_code!(
        Avx512Bw,
        unsafe fn fill_small_avx512bw<T: Cell>(
            &mut self,
            vals: &mut [T],
            start: usize,
            end: usize,
        ) -> usize {
            self.fill_small_impl(vals, start, end)
        }
    );

    tier_code!(
        Avx512Vbmi,
        unsafe fn fill_small_avx512vbmi<T: Cell>(
            &mut self,
            vals: &mut [T],
            start: usize,
            end: usize,
        ) -> usize {
            self.fill_small_impl(vals, start, end)
        }
    );

    #[inline(always)]
    pub(super) fn fill_small_impl<T: Cell>(
        &mut self,
        vals: &mut [T],
        start: usize,
        end: usize,
    ) -> usize {
        if self.width <= 64 && self.small_limit == 64 {
            self.fill_small_words::<T, false>(vals, start, end)
        } else {
            self.fill_small_words::<T, true>(vals, start, end)
        }
    }

    /// [`Sparse::fill_small`], with `WIDE` when values may reach the small limit.
    #[inline(always)]
    pub(super) fn fill_small_words<T: Cell, const WIDE: bool>(
        &mut self,
        vals: &mut [T],
        start: usize,
        end: usize,
    ) -> usize {
        let mask = self.mask;
        let common = (0..self.small_limit)
            .filter(|&v| !is_rare(v, mask))
            .fold(0u64, |m, v| m | 1 << v);
        let splits = self.moves.leave_two.len();
        let mut far = [0u64; SMALL_BLOCK];
        // For each split (lo, hi, q): the rare positions whose pairs a heap marks itself are
        // those with index below `lo` and from `hi` on, of the first `q` (those below what the
        // split leaves of the heap).
        let mut near = vec![(0usize, 0usize, 0usize); splits];
        // The pairs of the first `lo` rare positions of every split, as vector lanes, and the
        // `lo` of each split they were made for.
        let mut lanes = None;
        let mut columns = Vec::new();
        let mut lanes_of = vec![usize::MAX; splits];
        let mut b = start;
        while b < end {
            let len = SMALL_BLOCK.min(end - b);
            self.small_far::<T, WIDE>(&mut far[..len], vals, b, &mut near, &mut columns);
            if near
                .iter()
                .map(|&(lo, _, _)| lo)
                .ne(lanes_of.iter().copied())
            {
                lanes_of = near.iter().map(|&(lo, _, _)| lo).collect();
                lanes = self.near_lanes(&near);
            }
            for (j, &far_marks) in far[..len].iter().enumerate() {
                let n = b + j;
                for ((_, _, q), s) in near.iter_mut().zip(&self.moves.leave_two) {
                    let r = n.saturating_sub(s.take);
                    while *q < self.rare_pos.len() && self.rare_pos[*q] < r {
                        *q += 1;
                    }
                }
                let heap = (n, common, far_marks);
                let lanes = lanes.as_deref();
                let Some(g) = self.small_value::<T, WIDE>(&vals[..n], heap, &near, lanes) else {
                    return n;
                };
                vals[n] = T::from_u32(g);
                self.hist.add(g);
                if n >= 1 && is_rare(g, mask) {
                    self.rare_pos.push(n);
                    self.rare_val.push(g);
                    if self.rare_pos.len() >= self.rechoose_at {
                        return n + 1;
                    }
                }
            }
            b += len;
        }
        end
    }

    /// The pairs of the first `lo` rare positions of each split (`near`, from
    /// [`Sparse::small_far`]) as vector lanes, 64 to a group, or `None` when one does not fit
    /// (a value above 255).
    pub(super) fn near_lanes(&self, near: &[(usize, usize, usize)]) -> Option<Vec<NearLanes>> {
        let pairs: Vec<(usize, u32)> = (self.moves.leave_two.iter().zip(near))
            .flat_map(|(s, &(lo, _, _))| {
                let firsts = self.rare_pos[..lo].iter().zip(&self.rare_val[..lo]);
                firsts.map(move |(&p, &g)| (s.take + p, g))
            })
            .collect();
        pairs.chunks(64).map(NearLanes::new).collect()
    }

    /// The rare pairs of the heaps `b..b + far.len()` in small mode whose other heap lies before
    /// `b` for all of them, marked rare position by rare position (so that the other heaps of
    /// successive heaps are successive values: [`small_columns`], `columns` its scratch list);
    /// `near` gets, for each split, the range of rare positions `lo..hi` this marked (the heaps
    /// mark the others themselves; its third member, how many rare positions lie below what the
    /// split leaves, the heaps keep).
    #[inline(always)]
    pub(super) fn small_far<T: Cell, const WIDE: bool>(
        &self,
        far: &mut [u64],
        vals: &[T],
        b: usize,
        near: &mut [(usize, usize, usize)],
        columns: &mut Vec<(usize, u32)>,
    ) {
        far.fill(0);
        columns.clear();
        for (s, (lo, hi, _)) in self.moves.leave_two.iter().zip(near.iter_mut()) {
            // Heap b + j leaves r = b + j − t; the partner r − p of p lies before b for every j
            // when p ≥ len − t, and is a heap (at least 1) for every j when p < b − t.
            let t = s.take;
            *lo = self.rare_pos.partition_point(|&p| p + t < far.len());
            *hi = self.rare_pos.partition_point(|&p| p + t < b).max(*lo);
            // With unequal parts, the heap b + j with r = 2p has no pair (p, p): such p stay
            // near.
            if s.unequal {
                let first = self.rare_pos[*lo..*hi]
                    .iter()
                    .position(|&p| 2 * p + t >= b)
                    .map_or(*hi, |i| *lo + i);
                *hi = first;
            }
            let pairs = self.rare_pos[*lo..*hi].iter().zip(&self.rare_val[*lo..*hi]);
            columns.extend(pairs.map(|(&p, &g)| (b - t - p, g)));
        }
        small_columns::<T, WIDE>(self.tier, far, vals, columns, self.small_limit);
    }

    /// G(n) in small mode (`common`: bit v set when v is common; `far`: the marks of the rare
    /// pairs the block marked; `near[i]`: for split `i`, the rare positions `..lo` and `hi..q`
    /// left to the heap, `q` counting those below `n − take`; `lanes`: the pairs of the first
    /// `lo` of every split, [`Sparse::near_lanes`]), or `None` when every common value below
    /// 64 is an option.
    #[inline(always)]
    pub(super) fn small_value<T: Cell, const WIDE: bool>(
        &self,
        vals: &[T],
        (n, common, far): (usize, u64, u64),
        near: &[(usize, usize, usize)],
        lanes: Option<&[NearLanes]>,
    ) -> Option<u32> {
        let m = &self.moves;
        let limit = self.small_limit;
        let bit = |v: u32| small_bit::<WIDE>(v, limit);
        // Heaps past the largest that a move takes whole skip the search.
        let whole =
            m.take_all.last().is_some_and(|&t| n <= t) && m.take_all.binary_search(&n).is_ok();
        let mut marks = far | u64::from(whole);
        for &k in m.leave_one.iter().take_while(|&&k| k < n) {
            marks |= bit(vals[n - k].get());
        }
        // The first lo of every split at once, once every split leaves r ≥ 128: then they all
        // lie below r (p + take < 64), and with unequal parts none is r / 2.
        let in_lanes = lanes
            .filter(|_| n >= 128 + m.leave_two.last().map_or(0, |s| s.take))
            .and_then(|groups| {
                groups.iter().try_fold(0, |marks, l| {
                    near_small_marks(self.tier, vals, n, l, limit).map(|x| marks | x)
                })
            });
        marks |= in_lanes.unwrap_or(0);
        let splits = || {
            m.leave_two
                .iter()
                .zip(near)
                .take_while(|(s, _)| s.take + 2 <= n)
        };
        for (s, &(lo, hi, q)) in splits() {
            let r = n - s.take;
            let first = if in_lanes.is_some() {
                0..0
            } else {
                0..lo.min(q)
            };
            // The far ones all lie below r (q ≥ hi), unless there are none (lo = hi).
            for range in [first, hi.min(q)..q] {
                let pairs = self.rare_pos[range.clone()]
                    .iter()
                    .zip(&self.rare_val[range]);
                for (&p, &g) in pairs {
                    debug_assert!(p >= 1 && p < r);
                    // SAFETY: rare positions are at least 1 and these are below r ≤ n, so
                    // r − p < n = vals.len().
                    let x = bit(g ^ unsafe { vals.get_unchecked(r - p) }.get());
                    // With unequal parts, (p, p) is no option.
                    marks |= if s.unequal && 2 * p == r { 0 } else { x };
                }
            }
        }
        let open = !marks & common;
        if open == 0 {
            return None;
        }
        let c = open.trailing_zeros();
        let mut targets = !marks & !common & ((1u64 << c) - 1);
        for (s, _) in splits() {
            if targets == 0 {
                break;
            }
            let r = n - s.take;
            targets = small_scan::<T, WIDE>(
                self.tier,
                vals,
                r,
                1,
                last_pair(r, s.unequal) + 1,
                targets,
                limit,
            );
        }
        Some(if targets == 0 {
            c
        } else {
            targets.trailing_zeros()
        })
    }
}
