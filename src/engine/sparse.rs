//! The sparse-space ("rare/common") engine, serial or parallel over the heaps of one game.
//!
//! A mask `m` splits values into *rare* (`popcount(v & m)` even) and *common* (odd). Since
//! `common ⊕ common` and `rare ⊕ rare` are rare, only a pair with exactly one rare heap can give a
//! common value. For heap `n` the engine marks, for every rare position `p`, the value
//! `G(p) ⊕ G(r − p)` of each split of `r = n − take` tokens (and every option that does not
//! split in two), takes the least unmarked common value `c`, then scans the remaining pairs until
//! every rare value below `c` is marked; if some never is, the least of them is `G(n)` and `n` is
//! a new rare position. The mask is re-chosen from the value histogram (Walsh–Hadamard) as the
//! rare list grows or larger values appear. Correctness never depends on the mask.
//!
//! **Parallel scheme.** Heaps are processed in blocks of `L`. The options of a block whose parts
//! all lie before the *previous* block (the "far" marks: most rare positions, and long move lists
//! of repeating tails) are computed for all heaps of the next block in parallel, while the
//! calling thread finishes the current block heap by heap (the "near" marks: pairs reaching into
//! the last two blocks, rare positions found since, three-heap splits, then the mex and the
//! scan). Rayon's `join` lets the finishing thread help with the far marks once it is done. The
//! marks are a pure function of the values, so the output is the same for any thread count.
//!
//! The engine keeps no copy of the values: its state (histogram, mask, rare positions) covers
//! `vals[..covered]`, and is rebuilt by scanning the prefix whenever `fill` starts elsewhere.

use super::{value_span, Cell, Executor, Fill, Overflow};
use crate::analysis::{is_rare, Histogram};
use crate::rules::{MoveSet, Rule};

/// Heaps per block when the game has many rare positions.
const MIN_BLOCK: usize = 64;
/// Heaps per block at most.
const MAX_BLOCK: usize = 2048;

/// The sparse-space engine for one rule.
#[derive(Debug, Clone)]
pub struct Sparse {
    rule: Rule,
    moves: MoveSet,
    exec: Executor,
    /// Heaps the histogram and rare list account for.
    covered: usize,
    hist: Histogram,
    mask: u32,
    /// Row length of the mark buffers: a power of two at least twice the value span.
    width: usize,
    /// Rare positions `p ≥ 1` below `covered`, ascending, with their values.
    rare_pos: Vec<usize>,
    rare_val: Vec<u32>,
    /// Values below `width` by class, ascending.
    commons: Vec<u32>,
    rares: Vec<u32>,
    /// Re-choose the mask when the rare list reaches this length …
    rechoose_at: usize,
    /// … or when the value span outgrows this.
    chosen_span: usize,
    /// Mark rows of the block being finished and of the next block.
    rows: [Vec<u8>; 2],
}

/// Statistics of the engine's internal state, for tests and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparseState {
    /// The mask in use.
    pub mask: u32,
    /// Rare positions (heap 0 not counted).
    pub rare_positions: usize,
    /// Heaps the state accounts for.
    pub covered: usize,
}

/// How finishing a block ended.
enum Finished {
    /// Every heap of the block is written.
    Done,
    /// Heaps before this one are written; the mark rows are too narrow for what follows.
    Widen(usize),
}

impl Sparse {
    /// A single-threaded engine for `rule`.
    pub fn new(rule: &Rule) -> Sparse {
        Sparse::with_executor(rule, Executor::serial())
    }

    /// An engine for `rule` whose parallel parts run on `exec`.
    pub fn with_executor(rule: &Rule, exec: Executor) -> Sparse {
        let mut s = Sparse {
            rule: rule.clone(),
            moves: rule.moves(0),
            exec,
            covered: 0,
            hist: Histogram::default(),
            mask: 1,
            width: 64,
            rare_pos: Vec::new(),
            rare_val: Vec::new(),
            commons: Vec::new(),
            rares: Vec::new(),
            rechoose_at: 64,
            chosen_span: 1,
            rows: [Vec::new(), Vec::new()],
        };
        s.classify();
        s
    }

    /// The mask, rare count and coverage of the internal state.
    pub fn state(&self) -> SparseState {
        SparseState {
            mask: self.mask,
            rare_positions: self.rare_pos.len(),
            covered: self.covered,
        }
    }

    fn span(&self) -> usize {
        value_span(self.hist.max_value())
    }

    /// Heaps per block: enough far work per block to pay for the hand-over between threads.
    fn block_len(&self) -> usize {
        let per_heap = self.rare_pos.len() * self.moves.leave_two.len().max(1) + 16;
        // The two sets of mark rows stay within 2 × 32 MiB even when values grow like n.
        let by_memory = ((1usize << 25) / self.stride()).max(1);
        (1usize << 17)
            .checked_div(per_heap)
            .unwrap_or(MAX_BLOCK)
            .clamp(MIN_BLOCK, MAX_BLOCK)
            .min(by_memory)
    }

    /// Lists the values below `width` by class.
    fn classify(&mut self) {
        let (mask, width) = (self.mask, self.width as u32);
        self.commons = (0..width).filter(|&v| !is_rare(v, mask)).collect();
        self.rares = (0..width).filter(|&v| is_rare(v, mask)).collect();
    }

    /// Recollects the rare positions below `vals.len()` for the current mask.
    fn collect_rare<T: Cell>(&mut self, vals: &[T]) {
        self.rare_pos.clear();
        self.rare_val.clear();
        for (p, v) in vals.iter().enumerate().skip(1) {
            let v = v.get();
            if is_rare(v, self.mask) {
                self.rare_pos.push(p);
                self.rare_val.push(v);
            }
        }
    }

    /// Makes the state cover exactly `vals` (the heaps before `start`).
    fn sync<T: Cell>(&mut self, vals: &[T]) {
        if vals.len() == self.covered {
            return;
        }
        self.hist = Histogram::default();
        self.hist.add_slice(vals);
        self.covered = vals.len();
        self.mask = if vals.is_empty() {
            1
        } else {
            self.hist.rare_mask().0
        };
        self.collect_rare(vals);
        self.rechoose_at = 2 * self.rare_pos.len() + 64;
        self.chosen_span = self.span();
        self.width = (2 * self.span()).max(64);
        self.classify();
    }

    /// Between blocks: widens the rows and re-chooses the mask when due. True when the mark rows
    /// computed so far are no longer valid.
    fn maybe_rechoose<T: Cell>(&mut self, vals: &[T]) -> bool {
        let span = self.span();
        let mut changed = false;
        if 2 * span > self.width {
            self.width = 2 * span;
            changed = true;
        }
        if self.rare_pos.len() >= self.rechoose_at || span > self.chosen_span {
            let (mask, count) = self.hist.rare_mask();
            // Heap 0 is rare for every mask.
            let current = self.rare_pos.len() as u64 + 1;
            if mask != self.mask && count < current {
                self.mask = mask;
                self.collect_rare(vals);
                changed = true;
            }
            self.rechoose_at = 2 * self.rare_pos.len() + 64;
            self.chosen_span = span;
        }
        if changed {
            self.classify();
        }
        changed
    }
}

impl Fill for Sparse {
    fn fill<T: Cell>(&mut self, vals: &mut [T], start: usize, end: usize) -> Result<(), Overflow> {
        assert!(
            start <= end && end <= vals.len(),
            "fill range out of bounds"
        );
        if end > 0 && end - 1 > self.moves.max_heap {
            let bound = (end - 1).max(self.moves.max_heap.saturating_mul(2));
            self.moves = self.rule.moves(bound);
        }
        self.sync(&vals[..start]);
        let mut pos = start;
        // When set: rows[0] holds the far marks of heaps pos..bend, for parts below lim.
        let mut ahead: Option<(usize, usize)> = None;
        while pos < end {
            let stale = self.maybe_rechoose(&vals[..pos]);
            let block = self.block_len();
            let width = self.width;
            let (bend, lim) = match ahead.take() {
                Some(a) if !stale => a,
                _ => {
                    let bend = end.min(pos + block);
                    let mut rows = std::mem::take(&mut self.rows[0]);
                    self.far(&mut rows, &vals[..pos], pos, bend, pos);
                    self.rows[0] = rows;
                    (bend, pos)
                }
            };
            let nend = end.min(bend + block);
            let (before, rest) = vals.split_at_mut(pos);
            let current = &mut rest[..bend - pos];
            let [mut cur_rows, mut next_rows] = std::mem::take(&mut self.rows);
            let mut late = Late::default();
            let this = &*self;
            let (finished, ()) = this.exec.join(
                || {
                    let mut fin = Finisher {
                        engine: this,
                        before,
                        hist: Histogram::default(),
                        late: &mut late,
                    };
                    let outcome = fin.finish(&mut cur_rows, current, pos, lim);
                    (outcome, fin.hist)
                },
                || this.far(&mut next_rows, before, bend, nend, pos),
            );
            let (outcome, added) = finished;
            merge_hist(&mut self.hist, &added);
            self.rare_pos.extend_from_slice(&late.pos);
            self.rare_val.extend_from_slice(&late.val);
            self.rows = [next_rows, cur_rows];
            match outcome {
                Ok(Finished::Done) => {
                    debug_assert!(width == self.width);
                    if nend > bend {
                        // The next block's far marks were taken for parts below this block.
                        ahead = Some((nend, pos));
                    }
                    self.covered = bend;
                    pos = bend;
                }
                Ok(Finished::Widen(at)) => {
                    self.covered = at;
                    pos = at;
                }
                Err(o) => {
                    self.covered = o.at;
                    return Err(o);
                }
            }
        }
        Ok(())
    }
}

/// The largest `a` of the pairs `(a, r − a)` of a split of `r`.
#[inline(always)]
fn last_pair(r: usize, unequal: bool) -> usize {
    if unequal && r % 2 == 0 {
        r / 2 - 1
    } else {
        r / 2
    }
}

/// The first `a` of the pairs `(a, r − a)` with both parts below `lim`.
#[inline(always)]
fn far_first(r: usize, lim: usize) -> usize {
    (r + 1).saturating_sub(lim).max(1)
}

/// Marks every pair `(a, r − a)`, `a` from `lo` on (below `hi`), counting down `missing` for
/// each first mark of a value below `below`, until none is missing. Returns where it stopped.
#[inline]
fn scan_marking<T: Cell>(
    marks: &mut [u8],
    vals: &[T],
    r: usize,
    lo: usize,
    hi: usize,
    below: u32,
    missing: &mut usize,
) -> usize {
    const STEP: usize = 16;
    let wm = marks.len() - 1;
    let mut a = lo;
    while a < hi {
        let stop = (a + STEP).min(hi);
        for x in a..stop {
            let v = vals[x].get() ^ vals[r - x].get();
            let slot = &mut marks[v as usize & wm];
            *missing -= usize::from((*slot == 0) & (v < below));
            *slot = 1;
        }
        a = stop;
        if *missing == 0 {
            break;
        }
    }
    a
}

/// Scans the pairs `(a, r − a)`, `a` in `lo..hi`, with both parts in `vals`, until `missing`
/// values are marked; `row` is 1 for every value not looked for. True when none is missing.
#[inline]
fn scan_fast<T: Cell>(
    row: &mut [u8],
    vals: &[T],
    r: usize,
    lo: usize,
    hi: usize,
    missing: &mut usize,
) -> bool {
    const STEP: usize = 16;
    let wm = row.len() - 1;
    let mut a = lo;
    while a < hi {
        let stop = (a + STEP).min(hi);
        let mut all = 1u8;
        for x in a..stop {
            all &= row[(vals[x].get() ^ vals[r - x].get()) as usize & wm];
        }
        if all == 0 {
            for x in a..stop {
                let v = (vals[x].get() ^ vals[r - x].get()) as usize & wm;
                if row[v] == 0 {
                    row[v] = 1;
                    *missing -= 1;
                    if *missing == 0 {
                        return true;
                    }
                }
            }
        }
        a = stop;
    }
    false
}

/// Rare positions found while finishing a block.
#[derive(Default)]
struct Late {
    pos: Vec<usize>,
    val: Vec<u32>,
}

fn merge_hist(into: &mut Histogram, add: &Histogram) {
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
struct View<'a, T> {
    before: &'a [T],
    recent: &'a [T],
}

impl<T: Cell> View<'_, T> {
    #[inline(always)]
    fn get(&self, q: usize) -> u32 {
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
fn mark_pairs(
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

/// [`mark_pairs`] over both parts of a [`View`], without a branch per pair: positions
/// `p ≤ r − b` pair with a heap of the current block, the others with one before it.
#[inline]
fn mark_pairs_view<T: Cell>(
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
    mark_pairs(
        row,
        |q| recent[q - b].get(),
        &pos[..split],
        &val[..split],
        r,
        skip,
    );
    mark_pairs(
        row,
        |q| before[q].get(),
        &pos[split..],
        &val[split..],
        r,
        skip,
    );
}

impl Sparse {
    /// Far marks of heaps `lo..hi` into `rows` (one row of `width` per heap): every option whose
    /// heaps all lie below `lim`, for splits in two only when one heap is a rare position
    /// (`self.rare_pos`, all below `lim`).
    fn far<T: Cell>(&self, rows: &mut Vec<u8>, vals: &[T], lo: usize, hi: usize, lim: usize) {
        let width = self.stride();
        let len = (hi - lo) * width;
        if rows.len() < len {
            rows.resize(len, 0);
        }
        let heaps_per_chunk = ((hi - lo) / (4 * self.exec.threads())).max(8);
        self.exec
            .for_each_chunk(&mut rows[..len], heaps_per_chunk * width, |ci, chunk| {
                for (i, row) in chunk.chunks_mut(width).enumerate() {
                    self.far_row(row, vals, lo + ci * heaps_per_chunk + i, lim);
                }
            });
    }

    #[inline]
    fn far_row<T: Cell>(&self, row: &mut [u8], vals: &[T], n: usize, lim: usize) {
        let (row, stops) = row.split_at_mut(self.width);
        row.fill(0);
        let m = &self.moves;
        // One heap n − k < lim left: k > n − lim.
        let from = m.leave_one.partition_point(|&k| k + lim <= n);
        for &k in &m.leave_one[from..] {
            if k >= n {
                break;
            }
            row[vals[n - k].get() as usize] = 1;
        }
        for s in &m.leave_two {
            if s.take + 2 > n {
                break;
            }
            let r = n - s.take;
            // p ≤ r − 1 and q = r − p < lim.
            let lo_p = (r + 1).saturating_sub(lim).max(1);
            let i0 = self.rare_pos.partition_point(|&p| p < lo_p);
            let i1 = self.rare_pos.partition_point(|&p| p < r);
            if i0 < i1 {
                let skip = (s.unequal && r % 2 == 0).then_some(r / 2);
                mark_pairs(
                    row,
                    |q| vals[q].get(),
                    &self.rare_pos[i0..i1],
                    &self.rare_val[i0..i1],
                    r,
                    skip,
                );
            }
        }
        // Scan pairs with both parts below lim until every rare value below the least common
        // value not yet marked is marked: the finishing thread then rarely has to scan.
        let c = first_unmarked(row, &self.commons);
        let mut missing = count_unmarked(row, &self.rares, c);
        for (i, s) in m.leave_two.iter().enumerate() {
            let mut stop = 0;
            if s.take + 2 <= n {
                let r = n - s.take;
                let a0 = far_first(r, lim);
                let hi = (last_pair(r, s.unequal) + 1).min(lim);
                stop = a0;
                if missing > 0 && a0 < hi {
                    stop = scan_marking(row, vals, r, a0, hi, c, &mut missing);
                }
            }
            stops[8 * i..8 * i + 8].copy_from_slice(&(stop as u64).to_le_bytes());
        }
    }

    /// Bytes per heap in the mark rows: the marks, then where each split's far scan stopped.
    fn stride(&self) -> usize {
        self.width + 8 * self.moves.leave_two.len()
    }
}

/// The least value of `class` (ascending) not marked.
#[inline]
fn first_unmarked(marks: &[u8], class: &[u32]) -> u32 {
    *class
        .iter()
        .find(|&&v| marks[v as usize] == 0)
        .expect("a value of the class above every option")
}

/// How many values of `class` (ascending) below `c` are not marked.
#[inline]
fn count_unmarked(marks: &[u8], class: &[u32], c: u32) -> usize {
    class
        .iter()
        .take_while(|&&v| v < c)
        .filter(|&&v| marks[v as usize] == 0)
        .count()
}

/// The finishing side of a block: near marks, mex, scan, bookkeeping.
struct Finisher<'a, 'l, T> {
    engine: &'a Sparse,
    before: &'a [T],
    /// Values of the heaps finished in this block.
    hist: Histogram,
    late: &'l mut Late,
}

impl<T: Cell> Finisher<'_, '_, T> {
    fn finish(
        &mut self,
        rows: &mut [u8],
        block: &mut [T],
        b: usize,
        lim: usize,
    ) -> Result<Finished, Overflow> {
        let e = self.engine;
        let width = e.width;
        let stride = e.stride();
        for j in 0..block.len() {
            let n = b + j;
            let row = &mut rows[j * stride..(j + 1) * stride];
            let view = View {
                before: self.before,
                recent: &block[..j],
            };
            let g = self.value(row, &view, n, lim);
            if g > T::MAX {
                return Err(Overflow { at: n, value: g });
            }
            block[j] = T::from_u32(g);
            self.hist.add(g);
            if n >= 1 && is_rare(g, e.mask) {
                self.late.pos.push(n);
                self.late.val.push(g);
            }
            if 2 * value_span(g) > width && j + 1 < block.len() {
                return Ok(Finished::Widen(n + 1));
            }
        }
        Ok(Finished::Done)
    }

    /// G(n), given the far marks in `row`.
    #[inline]
    fn value(&mut self, row: &mut [u8], view: &View<'_, T>, n: usize, lim: usize) -> u32 {
        let e = self.engine;
        let (row, stops) = row.split_at_mut(e.width);
        let m = &e.moves;
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
            let skip = (s.unequal && r % 2 == 0).then_some(r / 2);
            // Rare p < lim with q = r − p ≥ lim: p ≤ r − lim (and p ≤ r − 1).
            let a = if r >= lim {
                rp.partition_point(|&p| p <= (r - lim).min(r - 1))
            } else {
                0
            };
            // Rare p ≥ lim, p ≤ r − 1 (not covered by the far marks).
            let c0 = rp.partition_point(|&p| p < lim).max(a);
            let d = rp.partition_point(|&p| p < r);
            mark_pairs_view(row, view, &rp[..a], &e.rare_val[..a], r, skip);
            if c0 < d {
                mark_pairs_view(row, view, &rp[c0..d], &e.rare_val[c0..d], r, skip);
            }
            let l = self.late.pos.partition_point(|&p| p < r);
            mark_pairs_view(row, view, &self.late.pos[..l], &self.late.val[..l], r, skip);
        }
        for s in &m.leave_three {
            if s.take + 3 > n {
                break;
            }
            let r = n - s.take;
            for a in 1..=r / 3 {
                let ga = get(a);
                for bb in a..=(r - a) / 2 {
                    let c = r - a - bb;
                    if s.unequal && (a == bb || bb == c) {
                        continue;
                    }
                    row[(ga ^ get(bb) ^ get(c)) as usize] = 1;
                }
            }
        }
        // The least unmarked common value: the answer unless a rare value below it is missing.
        let c = *e
            .commons
            .iter()
            .find(|&&v| row[v as usize] == 0)
            .expect("a common value above every option");
        let mut missing = e
            .rares
            .iter()
            .take_while(|&&v| v < c)
            .filter(|&&v| row[v as usize] == 0)
            .count();
        if missing == 0 {
            return c;
        }
        // From here on only the missing values matter: hide everything from c up.
        row[c as usize..].fill(1);
        let b = view.before.len();
        'scan: for (i, s) in m.leave_two.iter().enumerate() {
            if s.take + 2 > n {
                break;
            }
            let r = n - s.take;
            let last = last_pair(r, s.unequal);
            let (a0, a1) = (far_first(r, lim), stop_of(stops, i));
            // Pairs with both parts before the block: a in fast_lo..fast_hi.
            let fast_lo = (r + 1).saturating_sub(b).max(1);
            let fast_hi = (last + 1).min(b).max(fast_lo);
            for (lo, hi) in [(1, a0.min(last + 1)), (a1.max(a0), last + 1)] {
                if lo >= hi {
                    continue;
                }
                let (flo, fhi) = (lo.max(fast_lo).min(hi), hi.min(fast_hi).max(lo));
                let (flo, fhi) = if flo < fhi { (flo, fhi) } else { (hi, hi) };
                for a in (lo..flo).chain(fhi..hi) {
                    let v = (get(a) ^ get(r - a)) as usize;
                    if row[v] == 0 {
                        row[v] = 1;
                        missing -= 1;
                        if missing == 0 {
                            break 'scan;
                        }
                    }
                }
                if flo < fhi && scan_fast(row, view.before, r, flo, fhi, &mut missing) {
                    break 'scan;
                }
            }
        }
        if missing == 0 {
            c
        } else {
            *e.rares
                .iter()
                .find(|&&v| row[v as usize] == 0)
                .expect("a missing rare value")
        }
    }
}

/// Where the far scan of split `i` stopped (see [`Sparse::stride`]).
#[inline]
fn stop_of(stops: &[u8], i: usize) -> usize {
    let mut b = [0u8; 8];
    b.copy_from_slice(&stops[8 * i..8 * i + 8]);
    u64::from_le_bytes(b) as usize
}
