//! Finishing a block: for each heap in order, the options with a heap in the block, the mex of
//! the common values, the rest of the scan, and the bookkeeping of new rare positions.

use super::*;

/// The finishing side of a block: near marks, mex, the rest of the scan, bookkeeping.
pub(super) struct Finisher<'a, 'l, T> {
    pub(super) engine: &'a Sparse,
    pub(super) before: &'a [T],
    /// Values of the heaps finished in this block.
    pub(super) hist: Histogram,
    pub(super) late: &'l mut Late,
    pub(super) targets: Targets<T>,
    /// `upto[d]`: how many rare positions are at most `d`, for `d` below the block length.
    pub(super) upto: Vec<u32>,
    /// The chunk being finished starts at this heap of the block: the near rare pairs whose
    /// other heap lies before it are marked for the whole chunk at once ([`Finisher::columns`]).
    pub(super) chunk_from: usize,
    /// Where the witness lists start for the block's heaps (small parts from the block's
    /// length on: their large parts lie before the block), when the engine searches.
    pub(super) cursor: Option<Cursor>,
}

impl<T: Cell> Finisher<'_, '_, T> {
    /// Finishes the heaps `b + j0 ..` of the block `block` (heaps `b..`, `b` = `before.len()`),
    /// one for each of `scans`, whose rows are `rows`; the heaps of the block before `b + j0`
    /// are finished. On the instruction set of the engine.
    pub(super) fn finish(
        &mut self,
        rows: &mut [u8],
        scans: &[FarScan],
        block: &mut [T],
        b: usize,
        j0: usize,
    ) -> Result<Finished, Overflow> {
        // SAFETY (each): the engine holds a tier, the proof that the processor has its
        // features.
        match self.engine.tier.kind() {
            TierKind::Portable => self.finish_impl(rows, scans, block, b, j0),
            #[cfg(target_arch = "aarch64")]
            TierKind::Neon => unsafe { self.finish_neon(rows, scans, block, b, j0) },
            #[cfg(not(target_arch = "aarch64"))]
            TierKind::Neon => unreachable!("an aarch64 tier"),
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx2 => unsafe { self.finish_avx2(rows, scans, block, b, j0) },
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx512Bw => unsafe { self.finish_avx512bw(rows, scans, block, b, j0) },
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx512Vbmi => unsafe { self.finish_avx512vbmi(rows, scans, block, b, j0) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("x86-64 tiers"),
        }
    }

    tier_code!(
        Neon,
        unsafe fn finish_neon(
            &mut self,
            rows: &mut [u8],
            scans: &[FarScan],
            block: &mut [T],
            b: usize,
            j0: usize,
        ) -> Result<Finished, Overflow> {
            self.finish_impl(rows, scans, block, b, j0)
        }
    );

    tier_code!(
        Avx2,
        unsafe fn finish_avx2(
            &mut self,
            rows: &mut [u8],
            scans: &[FarScan],
            block: &mut [T],
            b: usize,
            j0: usize,
        ) -> Result<Finished, Overflow> {
            self.finish_impl(rows, scans, block, b, j0)
        }
    );

    tier_code!(
        Avx512Bw,
        unsafe fn finish_avx512bw(
            &mut self,
            rows: &mut [u8],
            scans: &[FarScan],
            block: &mut [T],
            b: usize,
            j0: usize,
        ) -> Result<Finished, Overflow> {
            self.finish_impl(rows, scans, block, b, j0)
        }
    );

    tier_code!(
        Avx512Vbmi,
        unsafe fn finish_avx512vbmi(
            &mut self,
            rows: &mut [u8],
            scans: &[FarScan],
            block: &mut [T],
            b: usize,
            j0: usize,
        ) -> Result<Finished, Overflow> {
            self.finish_impl(rows, scans, block, b, j0)
        }
    );

    #[inline(always)]
    pub(super) fn finish_impl(
        &mut self,
        rows: &mut [u8],
        scans: &[FarScan],
        block: &mut [T],
        b: usize,
        j0: usize,
    ) -> Result<Finished, Overflow> {
        let e = self.engine;
        let (width, stride) = (e.width, e.stride());
        if self.upto.len() != block.len() {
            self.upto.clear();
            let mut count = 0;
            for d in 0..block.len() {
                while count < e.rare_pos.len() && e.rare_pos[count] <= d {
                    count += 1;
                }
                self.upto.push(count as u32);
            }
        }
        self.chunk_from = j0;
        self.columns(rows, scans.len(), block);
        for (i, &far) in scans.iter().enumerate() {
            let j = j0 + i;
            let n = b + j;
            let row = &mut rows[i * stride..i * stride + width];
            let view = View {
                before: self.before,
                recent: &block[..j],
            };
            let g = self.value(row, far, &view, n);
            if g > T::MAX {
                return Err(Overflow { at: n, value: g });
            }
            block[j] = T::from_u32(g);
            self.hist.add(g);
            if n >= 1 && is_rare(g, e.mask) {
                self.late.pos.push(n);
                self.late.val.push(g);
            }
            if g as usize >= width && j + 1 < block.len() {
                return Ok(Finished::Widen(n + 1));
            }
        }
        Ok(Finished::Done)
    }

    /// Marks the near rare pairs of the chunk's `len` heaps, block heaps `j0 ..` (`j0` =
    /// `chunk_from`, rows `rows`), whose other heap lies in the block before the chunk, column
    /// by column ([`mark_columns`]): those heaps are finished. For a rare position `p` and a
    /// split taking `t`, block heap `j` pairs `p` with block heap `j − t − p`, which lies in
    /// `0..j0` for `j` in `t + p .. j0 + t + p`. Done before each heap's own marks are read, so
    /// that these stores are no longer in flight then, and without a search per heap.
    pub(super) fn columns(&self, rows: &mut [u8], len: usize, block: &[T]) {
        let e = self.engine;
        let j0 = self.chunk_from;
        if j0 == 0 || len == 0 {
            return;
        }
        let (stride, wmask) = (e.stride(), e.width - 1);
        let done = &block[..j0];
        for s in &e.moves.leave_two {
            let t = s.take;
            let Some(top) = (j0 + len - 1).checked_sub(t) else {
                break;
            };
            let count = self.upto[top] as usize;
            for (&p, &g) in e.rare_pos[..count].iter().zip(&e.rare_val[..count]) {
                // Heaps ja..jb; p < b ≤ its other heap, so no pair has equal parts.
                let ja = j0.max(t + p);
                let jb = (j0 + len).min(j0 + t + p);
                if ja < jb {
                    mark_columns(
                        &mut rows[(ja - j0) * stride..],
                        stride,
                        wmask,
                        done,
                        &[(ja - t - p, g)],
                        jb - ja,
                    );
                }
            }
        }
    }

    /// G(n), given the far marks in `row` and how far its far scan went: the options with a
    /// heap in the block (at or above `lim`) are marked here.
    #[inline(always)]
    pub(super) fn value(
        &mut self,
        row: &mut [u8],
        far: FarScan,
        view: &View<'_, T>,
        n: usize,
    ) -> u32 {
        let e = self.engine;
        let lim = view.before.len();
        let m = &e.moves;
        let width = e.width as u32;
        let get = |q: usize| view.get(q);
        if m.take_all.binary_search(&n).is_ok() {
            row[0] = 1;
        }
        // Near single-heap options: n − k ≥ lim.
        for &k in &m.leave_one {
            if k >= n || k + lim > n {
                break;
            }
            row[get(n - k) as usize] = 1;
        }
        let rp = &e.rare_pos;
        for s in &m.leave_two {
            if s.take + 2 > n {
                break;
            }
            let r = n - s.take;
            let skip = (s.unequal && r.is_multiple_of(2)).then_some(r / 2);
            // Rare p (all below lim) with q = r − p at or past the chunk's first heap, lim + j0
            // (those before it are marked by `columns`): p ≤ r − lim − j0 (< block length).
            let a = if r >= lim + self.chunk_from {
                self.upto[r - lim - self.chunk_from] as usize
            } else {
                0
            };
            let recent = view.recent;
            mark_rare_pairs(
                row,
                |q| recent[q - lim].get(),
                &rp[..a],
                &e.rare_val[..a],
                r,
                skip,
            );
            let l = self.late.pos.partition_point(|&p| p < r);
            mark_rare_pairs_view(row, view, &self.late.pos[..l], &self.late.val[..l], r, skip);
        }
        mark_three_heap_options(row, m, n, get);
        // The least unmarked common value; past the row, the least common value from `width`
        // on (no option reaches there, and `width` itself, rare, is missing then).
        // Every common value below the far scan's bound is marked already (by the far work).
        let (c, _) = e.least_open(row, view.before, n, lim, far.clipped, far.bound);
        let c = if c == u32::MAX {
            width + first_open::<1>(&vec![0; e.width], &e.common)[0]
        } else {
            c
        };
        let answer = c.min(width);
        // The far scan met every rare value below its bound unless its pairs ran out: with the
        // least open common value still at the bound, no rare value below it is open.
        if c == far.bound && far.split < m.leave_two.len() {
            return answer;
        }
        let tg = &mut self.targets;
        tg.set_open(row, &e.rare, answer as usize);
        if tg.need() == 0 {
            return answer;
        }
        // The far scan met every rare value below its bound in the pairs before where it
        // stopped: go on from there while c is within the bound, else scan those pairs again.
        let from = if c <= far.bound {
            (far.split, far.at)
        } else {
            (0, 0)
        };
        if e.scan_far(row, tg, view.before, n, lim, from, self.cursor.as_mut())
            .0
            < m.leave_two.len()
        {
            return answer;
        }
        // The pairs with a part at or above lim.
        for s in &m.leave_two {
            if s.take + 2 > n {
                break;
            }
            let r = n - s.take;
            let hi = far_first(r, lim).min(last_pair(r, s.unequal) + 1);
            for a in 1..hi {
                if tg.meet(get(a) ^ get(r - a), row) && tg.need() == 0 {
                    return answer;
                }
            }
        }
        tg.least_left().expect("a missing rare value")
    }
}
