//! The far work of a block: for each heap, the options whose heaps all lie before the block —
//! single-heap options, rare pairs (column by column, in vector lanes where the tier has them),
//! and a first scan for the rare values below the least open common value.

use super::*;

/// Marks the options of heap `n` that leave three heaps (hexadecimal digits), every one of them:
/// O(n²) a heap. `get(q)` is G(q).
pub(super) fn mark_three_heap_options(
    row: &mut [u8],
    m: &MoveSet,
    n: usize,
    get: impl Fn(usize) -> u32,
) {
    for s in m.leave_three.iter().take_while(|s| s.take + 3 <= n) {
        let r = n - s.take;
        for a in 1..=r / 3 {
            let ga = get(a);
            for b in a..=(r - a) / 2 {
                let c = r - a - b;
                if !(s.unequal && (a == b || b == c)) {
                    row[(ga ^ get(b) ^ get(c)) as usize] = 1;
                }
            }
        }
    }
}

/// Which options a far pass marks: those with every heap below `lim` and some heap at or above
/// `from` (those with every heap below `from` were marked by an earlier pass, or `from` is 0).
#[derive(Debug, Clone, Copy)]
pub(super) struct Part {
    pub(super) from: usize,
    pub(super) lim: usize,
    /// Clear the rows first (the first pass).
    pub(super) clear: bool,
    /// Scan the pairs below `lim` afterwards (the last pass) …
    pub(super) scan: bool,
    /// … going on from where the first pass's scan stopped (see [`Sparse::far_scan`]).
    pub(super) resume: bool,
}

impl Part {
    /// The options below `lim`, rows cleared first, no scan.
    pub(super) fn first(lim: usize) -> Part {
        Part {
            from: 0,
            lim,
            clear: true,
            scan: false,
            resume: false,
        }
    }

    /// The options below `lim` not marked by [`Part::first`]`(from)` (all of them when `from` is
    /// 0), then the scan.
    pub(super) fn rest(from: usize, lim: usize) -> Part {
        Part {
            from,
            lim,
            clear: from == 0,
            scan: true,
            resume: false,
        }
    }

    /// [`Part::rest`]`(from, lim)` after the whole of `Part::rest(0, from)`: the scan goes on
    /// from where that one stopped while it can.
    pub(super) fn resume(from: usize, lim: usize) -> Part {
        Part {
            resume: true,
            ..Part::rest(from, lim)
        }
    }
}

/// The largest `a` of the pairs `(a, r − a)` of a split of `r` (`r ≥ 1`).
#[inline(always)]
pub(super) fn last_pair(r: usize, unequal: bool) -> usize {
    if unequal && r.is_multiple_of(2) {
        r / 2 - 1
    } else {
        r / 2
    }
}

/// The first `a` of the pairs `(a, r − a)` with both parts below `lim`.
#[inline(always)]
pub(super) fn far_first(r: usize, lim: usize) -> usize {
    (r + 1).saturating_sub(lim).max(1)
}

/// Rare positions found while finishing a block.
#[derive(Default)]
pub(super) struct Late {
    pub(super) pos: Vec<usize>,
    pub(super) val: Vec<u32>,
}

pub(super) fn merge_hist(into: &mut Histogram, add: &Histogram) {
    if add.counts.len() > into.counts.len() {
        into.max_first_at = into.len + add.max_first_at;
        into.counts.resize(add.counts.len(), 0);
    }
    for (total, &c) in into.counts.iter_mut().zip(&add.counts) {
        *total += c;
    }
    into.len += add.len;
}

/// Read access to the values of every heap below the one being finished.
pub(super) struct View<'a, T> {
    pub(super) before: &'a [T],
    pub(super) recent: &'a [T],
}

impl<T: Cell> View<'_, T> {
    #[inline(always)]
    pub(super) fn get(&self, q: usize) -> u32 {
        let b = self.before.len();
        if q < b {
            self.before[q].get()
        } else {
            self.recent[q - b].get()
        }
    }
}

/// Marks `G(p) ⊕ G(r − p)` for the rare positions `pos` (values `val`), leaving out `p = skip`.
#[inline(always)]
pub(super) fn mark_rare_pairs(
    row: &mut [u8],
    get: impl Fn(usize) -> u32,
    pos: &[usize],
    val: &[u32],
    r: usize,
    skip: Option<usize>,
) {
    let wm = row.len() - 1;
    let mut go = |pos: &[usize], val: &[u32]| {
        for (&p, &g) in pos.iter().zip(val) {
            row[(get(r - p) ^ g) as usize & wm] = 1;
        }
    };
    match skip.and_then(|s| pos.binary_search(&s).ok()) {
        Some(i) => {
            go(&pos[..i], &val[..i]);
            go(&pos[i + 1..], &val[i + 1..]);
        }
        None => go(pos, val),
    }
}

/// [`mark_rare_pairs`] over both parts of a [`View`], without a branch per pair: positions
/// `p ≤ r − b` pair with a heap of the current block, the others with one before it.
#[inline(always)]
pub(super) fn mark_rare_pairs_view<T: Cell>(
    row: &mut [u8],
    view: &View<'_, T>,
    pos: &[usize],
    val: &[u32],
    r: usize,
    skip: Option<usize>,
) {
    let b = view.before.len();
    let split = if r >= b {
        pos.partition_point(|&p| p <= r - b)
    } else {
        0
    };
    let (recent, before) = (view.recent, view.before);
    mark_rare_pairs(
        row,
        |q| recent[q - b].get(),
        &pos[..split],
        &val[..split],
        r,
        skip,
    );
    mark_rare_pairs(
        row,
        |q| before[q].get(),
        &pos[split..],
        &val[split..],
        r,
        skip,
    );
}

impl Sparse {
    /// Heaps per chunk of far work for a block of `count` heaps: whole lane groups of 32 heaps
    /// (16 heaps fill half a lane register); on several threads four chunks per thread, so that
    /// the threads run out of work at about the same time (the scans of heaps vary from 2^9 to
    /// 2^14 pairs: Officers 2^21 on two threads 1.53-1.57 s with two chunks of 64 heaps per
    /// thread, 1.35-1.40 s with four of 32); on one thread two chunks a block (each chunk has
    /// its own columns that cover only part of it, marked one by one: four chunks 2.46-2.55 s
    /// against 2.33-2.38). At most about what the first-level cache holds of mark rows.
    pub(super) fn chunk_len(&self, count: usize) -> usize {
        let threads = self.exec.threads();
        let per_thread = if threads == 1 { 2 } else { 4 };
        (CHUNK_BYTES / self.stride())
            .min(count.div_ceil(per_thread * threads))
            .max(1)
            .next_multiple_of(32)
    }

    /// Far work of the heaps `n0..n0 + scans.len()`, on the instruction set of the engine.
    pub(super) fn far_chunk<T: Cell>(
        &self,
        rows: &mut [u8],
        scans: &mut [FarScan],
        vals: &[T],
        n0: usize,
        part: Part,
    ) {
        // SAFETY (each): the engine holds a tier, the proof that the processor has its
        // features.
        match self.tier.kind() {
            TierKind::Portable => self.far_chunk_impl(rows, scans, vals, n0, part),
            #[cfg(target_arch = "aarch64")]
            TierKind::Neon => unsafe { self.far_chunk_neon(rows, scans, vals, n0, part) },
            #[cfg(not(target_arch = "aarch64"))]
            TierKind::Neon => unreachable!("an aarch64 tier"),
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx2 => unsafe { self.far_chunk_avx2(rows, scans, vals, n0, part) },
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx512Bw => unsafe { self.far_chunk_avx512bw(rows, scans, vals, n0, part) },
            #[cfg(target_arch = "x86_64")]
            TierKind::Avx512Vbmi => unsafe {
                self.far_chunk_avx512vbmi(rows, scans, vals, n0, part)
            },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("x86-64 tiers"),
        }
    }

    tier_code!(
        Neon,
        unsafe fn far_chunk_neon<T: Cell>(
            &self,
            rows: &mut [u8],
            scans: &mut [FarScan],
            vals: &[T],
            n0: usize,
            part: Part,
        ) {
            self.far_chunk_impl(rows, scans, vals, n0, part)
        }
    );

    tier_code!(
        Avx2,
        unsafe fn far_chunk_avx2<T: Cell>(
            &self,
            rows: &mut [u8],
            scans: &mut [FarScan],
            vals: &[T],
            n0: usize,
            part: Part,
        ) {
            self.far_chunk_impl(rows, scans, vals, n0, part)
        }
    );

    tier_code!(
        Avx512Bw,
        unsafe fn far_chunk_avx512bw<T: Cell>(
            &self,
            rows: &mut [u8],
            scans: &mut [FarScan],
            vals: &[T],
            n0: usize,
            part: Part,
        ) {
            self.far_chunk_impl(rows, scans, vals, n0, part)
        }
    );

    tier_code!(
        Avx512Vbmi,
        unsafe fn far_chunk_avx512vbmi<T: Cell>(
            &self,
            rows: &mut [u8],
            scans: &mut [FarScan],
            vals: &[T],
            n0: usize,
            part: Part,
        ) {
            self.far_chunk_impl(rows, scans, vals, n0, part)
        }
    );

    #[inline(always)]
    pub(super) fn far_chunk_impl<T: Cell>(
        &self,
        rows: &mut [u8],
        scans: &mut [FarScan],
        vals: &[T],
        n0: usize,
        part: Part,
    ) {
        let stride = self.stride();
        let width = self.width;
        if part.clear {
            scans.iter_mut().for_each(|fs| fs.clipped = false);
        }
        // The rare pairs first: with `part.clear` they clear the rows (in the lanes' stores).
        self.far_rare_pairs(rows, scans, vals, n0, part);
        for (i, row) in rows.chunks_mut(stride).enumerate().take(scans.len()) {
            self.far_singles(&mut row[..width], vals, n0 + i, part);
        }
        if part.scan {
            let mut targets = Targets::new(width, self.mask, self.tier).with_runs(self.scan_runs);
            // Small parts from here on pair with large ones below the limit for every heap.
            let from = (n0 + scans.len()).saturating_sub(part.lim);
            let mut cursor = self.witnesses.as_ref().map(|_| Cursor::new(from, width));
            // Each heap's least open common value first: the heads hold the rare values below.
            let open: Vec<(u32, bool)> = rows
                .chunks_mut(stride)
                .zip(scans.iter())
                .enumerate()
                .map(|(i, (row, fs))| {
                    self.least_open(&mut row[..width], vals, n0 + i, part.lim, fs.clipped, 0)
                })
                .collect();
            let bounds: Vec<u32> = open.iter().map(|&(c, _)| c.min(width as u32)).collect();
            let heads = self
                .heads(vals, n0, scans.len(), part, &bounds)
                .or_else(|| self.stored_heads(rows, vals, n0, scans.len(), part));
            for (i, (row, fs)) in rows.chunks_mut(stride).zip(scans.iter_mut()).enumerate() {
                let (n, c) = (n0 + i, cursor.as_mut());
                let head = heads.as_ref().map(|h| h.of(i));
                let row = &mut row[..width];
                *fs = self.far_scan(row, &mut targets, vals, n, part, *fs, open[i], c, head);
            }
        }
    }

    /// Marks the options of heap `n` of `part` that leave one heap (after the rare pairs, which
    /// clear the row in the first part).
    #[inline(always)]
    pub(super) fn far_singles<T: Cell>(&self, row: &mut [u8], vals: &[T], n: usize, part: Part) {
        let m = &self.moves;
        // One heap n − k in from..lim: n − lim < k ≤ n − from.
        let first = m.leave_one.partition_point(|&k| k + part.lim <= n);
        for &k in &m.leave_one[first..] {
            if k >= n || k + part.from > n {
                break;
            }
            row[vals[n - k].get() as usize] = 1;
        }
    }

    /// Step 1 for the consecutive heaps `n0..` of `rows` and `scans`: marks `G(p) ⊕ G(r − p)`
    /// for every rare position `p < r` whose pair is in `part`. Rare position by rare position,
    /// so that the partners `r − p` of successive heaps are successive values; the columns that
    /// cover every heap in vector lanes where the processor allows ([`lane_marks`]: the heaps
    /// are then clipped). With `part.clear` the rows are cleared first.
    #[inline(always)]
    pub(super) fn far_rare_pairs<T: Cell>(
        &self,
        rows: &mut [u8],
        scans: &mut [FarScan],
        vals: &[T],
        n0: usize,
        part: Part,
    ) {
        let count = scans.len();
        let stride = self.stride();
        let wmask = self.width - 1;
        debug_assert!(self.rare_pos.last().is_none_or(|&p| p < part.lim));
        // Rare positions below `from` pair with heaps from `from` on (the others are marked);
        // later ones with every heap.
        let early = self.rare_pos.partition_point(|&p| p < part.from);
        // Runs of columns that cover every heap of the chunk, marked together; the others one
        // by one here (they lie at the ends of the runs: found by binary search, so that the
        // cost of a chunk does not grow with the rare positions outside them). Where the lanes
        // read words that end at `lim` and mark nothing past it (AVX2's), the runs also take
        // the columns whose partners reach `lim` within the chunk, and those whose partners
        // lie below `from` for its first heaps (pairs an earlier part marked: marked again).
        let past = self.tier.lanes_past_words()
            && T::BITS <= 16
            && count <= vals.len()
            && self.lane_keys.is_some()
            && (self.lane_words.as_ref())
                .is_some_and(|w| w.heaps().end == part.lim && count + 8 <= w.past());
        let mut full = Vec::new();
        // Each run's split and lowest partner (`past`: marked one by one if the lanes cannot).
        let mut runs = Vec::new();
        // The columns marked one by one (after the lanes, which may clear the rows).
        let mut one_by_one = Vec::new();
        for s in &self.moves.leave_two {
            let t = s.take;
            for (range, qlo) in [
                (0..early, part.from.max(1)),
                (early..self.rare_pos.len(), 1),
            ] {
                // Heap n0 + j leaves r = n0 + j − t; its partner q = r − p must be in qlo..lim:
                // j0 ≤ j < j1 with j0 = qlo + t + p − n0, j1 = lim + t + p − n0 (within the chunk).
                let start = range.start;
                let pos = &self.rare_pos[range];
                let at = |below: &dyn Fn(usize) -> bool| start + pos.partition_point(|&p| below(p));
                // Columns with a heap of the chunk: j1 > 0 and j0 < count.
                let first = at(&|p| p + t + part.lim <= n0);
                let end = at(&|p| p + t + qlo < n0 + count);
                // Whole columns: j1 ≥ count and j0 ≤ 0; with `past`, every column with a heap
                // of the chunk whose partners are heaps (q ≥ 1) for every heap of it.
                let whole = if past {
                    first..at(&|p| p + t < n0).min(end)
                } else {
                    at(&|p| p + t + part.lim < n0 + count)..at(&|p| p + t + qlo <= n0)
                };
                // With unequal parts, heap 2p + t has no pair (p, p): those columns one by one.
                let skip = if s.unequal && !whole.is_empty() {
                    let lo = at(&|p| 2 * p + t < n0).clamp(whole.start, whole.end);
                    lo..at(&|p| 2 * p + t < n0 + count).clamp(lo, whole.end)
                } else {
                    whole.end..whole.end
                };
                let ones = if whole.is_empty() {
                    [first..end, end..end, end..end]
                } else {
                    for run in [whole.start..skip.start, skip.end..whole.end] {
                        if !run.is_empty() {
                            let words = self.lane_words.as_ref();
                            full.push(Columns {
                                base: n0 - t,
                                pos: &self.rare_pos[run.clone()],
                                val: &self.rare_val[run.clone()],
                                word: words.and_then(|w| w.rare(run.clone())).unwrap_or(&[]),
                                first: run.start,
                            });
                            runs.push((s, qlo, run.clone()));
                        }
                    }
                    [first..whole.start, skip, whole.end..end]
                };
                one_by_one.extend(ones.into_iter().map(|run| (s, qlo, run)));
            }
        }
        // No other heap of these pairs is a rare position when they all lie above the last.
        let last = self.rare_pos.last().copied().unwrap_or(0);
        let all_common = full
            .iter()
            .all(|c| c.pos.last().is_none_or(|&p| c.base - p > last));
        // AVX2's lanes read the heaps' words, which must cover every column's heaps (they
        // do: `refresh_lanes`; else the columns are marked one pair at a time).
        let words = self.lane_words.as_ref().filter(|w| {
            let heaps = w.heaps();
            let end = heaps.end + if past { w.past() } else { 0 };
            full.iter().all(|c| match (c.pos.first(), c.pos.last()) {
                (Some(&lo), Some(&hi)) => {
                    c.base.checked_sub(hi).is_some_and(|q| q >= heaps.start)
                        && c.base - lo + count <= end
                }
                _ => true,
            })
        });
        debug_assert!(
            self.lane_words.is_none() || words.is_some(),
            "lane words for every column"
        );
        let lanes = self.lane_keys.as_ref().is_some_and(|keys| {
            let (width, tier) = (self.width, self.tier);
            lane_marks(
                tier, rows, stride, width, vals, &full, count, keys, all_common, words, part.clear,
            )
        });
        if part.clear && !lanes {
            rows.chunks_mut(stride)
                .take(count)
                .for_each(|row| row[..self.width].fill(0));
        }
        if lanes && !full.is_empty() {
            scans.iter_mut().for_each(|fs| fs.clipped = true);
        } else if past {
            for (s, qlo, run) in runs {
                for i in run {
                    self.mark_column(rows, vals, n0, count, part.lim, s, qlo, i);
                }
            }
        } else {
            let cols: Vec<(usize, u32)> = full.iter().flat_map(Columns::iter).collect();
            mark_columns(rows, stride, wmask, vals, &cols, count);
        }
        for (s, qlo, run) in one_by_one {
            for i in run {
                self.mark_column(rows, vals, n0, count, part.lim, s, qlo, i);
            }
        }
    }

    /// Marks the pairs of rare position `i` (of `self.rare_pos`) in split `s` for the heaps
    /// `n0..n0 + count` of `rows` whose partner lies in `qlo..lim`, one by one.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn mark_column<T: Cell>(
        &self,
        rows: &mut [u8],
        vals: &[T],
        n0: usize,
        count: usize,
        lim: usize,
        s: &crate::rules::Split,
        qlo: usize,
        i: usize,
    ) {
        let (stride, wmask, t) = (self.stride(), self.width - 1, s.take);
        let (p, g) = (self.rare_pos[i], self.rare_val[i]);
        let j0 = (qlo + t + p).saturating_sub(n0);
        let j1 = (lim + t + p).saturating_sub(n0).min(count);
        // With unequal parts, leave out r = 2p.
        let js = (2 * p + t)
            .checked_sub(n0)
            .filter(|&js| s.unequal && js >= j0 && js < j1);
        let mut go = |ja: usize, jb: usize| {
            if ja < jb {
                let col = [(n0 + ja - t - p, g)];
                mark_columns(&mut rows[ja * stride..], stride, wmask, vals, &col, jb - ja);
            }
        };
        match js {
            Some(js) => {
                go(j0, js);
                go(js + 1, j1);
            }
            None => go(j0, j1),
        }
    }

    /// Below this every common value of a clipped row is marked as in an exact one.
    pub(super) fn lane_limit(&self) -> u32 {
        self.lane_keys.as_ref().map_or(u32::MAX, LaneKeys::limit)
    }

    /// The least unmarked common value of heap `n`'s row (`u32::MAX` if none), and whether the
    /// row is still clipped: a clipped row whose least open value lies at or past the lane
    /// limit is first made exact ([`Sparse::unclip`], other heaps below `lim`). The caller
    /// knows that every common value below `from` is marked (the least open value of the row
    /// with fewer marks: marks only close values).
    pub(super) fn least_open<T: Cell>(
        &self,
        row: &mut [u8],
        vals: &[T],
        n: usize,
        lim: usize,
        clipped: bool,
        from: u32,
    ) -> (u32, bool) {
        let from = from as usize;
        let c = first_open_on(self.tier, row, &self.common, from);
        if clipped && c >= self.lane_limit() {
            self.unclip(row, vals, n, lim);
            (first_open_on(self.tier, row, &self.common, from), false)
        } else {
            (c, clipped)
        }
    }

    /// Marks every rare pair of heap `n` whose other heap lies below `lim` (all that the far
    /// passes mark, at any value), so that a clipped row is exact again.
    pub(super) fn unclip<T: Cell>(&self, row: &mut [u8], vals: &[T], n: usize, lim: usize) {
        let wm = row.len() - 1;
        for s in &self.moves.leave_two {
            if s.take + 2 > n {
                break;
            }
            let r = n - s.take;
            // The other heap r − p in 1..lim.
            let lo = self.rare_pos.partition_point(|&p| p + lim <= r);
            let hi = self.rare_pos.partition_point(|&p| p < r);
            for (&p, &g) in self.rare_pos[lo..hi].iter().zip(&self.rare_val[lo..hi]) {
                if !(s.unequal && 2 * p == r) {
                    row[(vals[r - p].get() ^ g) as usize & wm] = 1;
                }
            }
        }
    }

    /// The first scan of heap `n` over the pairs with both parts below `part.lim`: looks for the
    /// rare values below the least unmarked common value. With `part.resume`, `marked` tells
    /// how far the scan of the pairs below `part.from` went. If the least unmarked common value
    /// has not passed its bound (the pairs marked since left it open), every rare value below
    /// it in those pairs before where it stopped is marked. In each split the pairs with a heap
    /// in `from..lim` come first (`a` ascending, `r − a` descending), so they are scanned in
    /// the splits up to that one, and the scan goes on from there. With a `head` (the key set
    /// of the heap's first pairs and the pair after them, see `head.rs`) that holds every rare
    /// value below the bound, those pairs' rare values are marked and the scan starts after them.
    /// `open` is what [`Sparse::least_open`] gave for the row (with `marked.clipped`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn far_scan<T: Cell>(
        &self,
        row: &mut [u8],
        targets: &mut Targets<T>,
        vals: &[T],
        n: usize,
        part: Part,
        marked: FarScan,
        open: (u32, bool),
        cursor: Option<&mut Cursor>,
        head: Option<(Option<&[u32; 8]>, usize)>,
    ) -> FarScan {
        let lim = part.lim;
        let (c, clipped) = open;
        let bound = c.min(self.width as u32);
        let mut fs = FarScan {
            bound,
            split: 0,
            at: 0,
            clipped,
        };
        match (head, self.head_keys.as_ref()) {
            (Some((Some(set), at)), Some(keys)) if bound <= keys.limit() => {
                head_marks(self.tier, row, set, keys, bound as usize);
                fs.at = at;
            }
            // Stored in the row: every value of the head's pairs is marked.
            (Some((None, at)), _) => fs.at = at,
            _ => {}
        }
        targets.set_open(row, &self.rare, bound as usize);
        if part.resume && bound <= marked.bound {
            (fs.split, fs.at) = (marked.split, marked.at);
            for s in self.moves.leave_two.iter().take(marked.split + 1) {
                if s.take + 2 > n || targets.need() == 0 {
                    break;
                }
                let r = n - s.take;
                let lo = far_first(r, lim);
                let hi = far_first(r, part.from).min(last_pair(r, s.unequal) + 1);
                if lo < hi {
                    scan(row, targets, vals, vals, r, lo, hi);
                }
            }
        }
        if targets.need() > 0 {
            let at = (fs.split, fs.at);
            (fs.split, fs.at) = self.scan_far(row, targets, vals, n, lim, at, cursor);
        }
        fs
    }

    /// Scans the pairs of heap `n` with both parts below `lim` from `(split, at)` on, until every
    /// target that must be met is; returns where it stopped (`split` past the last split when the
    /// pairs ran out first). With a `cursor` (small parts from its `from` on), once few targets
    /// are left the [`Witnesses`] search looks for them by value: the scan in order goes on in
    /// stretches of growing length, and the search runs once, at the first end of a stretch
    /// with at most [`FEW_LEFT`] targets left.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn scan_far<T: Cell>(
        &self,
        row: &mut [u8],
        targets: &mut Targets<T>,
        vals: &[T],
        n: usize,
        lim: usize,
        from: (usize, usize),
        mut cursor: Option<&mut Cursor>,
    ) -> (usize, usize) {
        let splits = &self.moves.leave_two;
        let witnesses = self
            .witnesses
            .as_ref()
            .filter(|w| cursor.is_some() && w.ready(self.width));
        let mut stretch = witnesses.map_or(usize::MAX, |w| w.first_stretch);
        for (i, s) in splits.iter().enumerate().skip(from.0) {
            if s.take + 2 > n {
                break;
            }
            let r = n - s.take;
            let a0 = far_first(r, lim);
            let mut lo = if i == from.0 { a0.max(from.1) } else { a0 };
            let hi = last_pair(r, s.unequal) + 1;
            while lo < hi {
                let end = match cursor {
                    Some(_) => hi.min(lo.saturating_add(stretch)),
                    None => hi,
                };
                if let Some(at) = self.scan_pairs(row, targets, vals, r, lo, end) {
                    return (i, at);
                }
                lo = end;
                stretch = stretch.saturating_mul(2);
                if let (Some(w), Some(c)) = (witnesses, cursor.as_deref_mut()) {
                    if targets.need() <= FEW_LEFT {
                        w.search(c, row, targets, vals, n, splits);
                        cursor = None;
                        if targets.need() == 0 {
                            return (i, lo);
                        }
                    }
                }
            }
        }
        (splits.len(), 0)
    }

    /// The scan of the pairs `(a, r − a)`, `a` in `lo..hi` (both parts below the scan's limit):
    /// the chunks the byte keys cover first, then the rest on the cells. `Some(b)` once every
    /// target is met (see [`scan`]).
    #[inline(always)]
    fn scan_pairs<T: Cell>(
        &self,
        row: &mut [u8],
        targets: &mut Targets<T>,
        vals: &[T],
        r: usize,
        mut lo: usize,
        hi: usize,
    ) -> Option<usize> {
        if let Some(keys) = self
            .scan_keys
            .as_ref()
            .filter(|k| k.covered() == vals.len())
        {
            let last_rare = self.rare_pos.last().copied().unwrap_or(0);
            let end = keys.chunks_end(r, lo, hi, last_rare);
            if end > lo {
                match scan_keys(row, targets, keys, r, lo, end) {
                    Ok(at) => return Some(at),
                    Err(reached) => lo = reached,
                }
            }
        }
        if lo < hi {
            return scan(row, targets, vals, vals, r, lo, hi);
        }
        None
    }
}
