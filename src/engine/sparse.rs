//! The sparse-space ("rare/common") engine, serial or parallel over the heaps of one game.
//!
//! A mask `m` splits values into *rare* (`popcount(v & m)` even) and *common* (odd). Since
//! `common ⊕ common` and `rare ⊕ rare` are rare, only a pair with exactly one rare heap can give a
//! common value. For heap `n` the engine marks, for every rare position `p`, the value
//! `G(p) ⊕ G(r − p)` of each split of `r = n − take` tokens (and every option that does not
//! split in two), takes the least unmarked common value `c`, then scans the remaining pairs until
//! every rare value below `c` is met; if some never is, the least of them is `G(n)` and `n` is a
//! new rare position. The mask is re-chosen from the value histogram (Walsh–Hadamard) as the rare
//! list grows or larger values appear. Correctness never depends on the mask.
//!
//! **Blocks, far and near.** Heaps are processed in blocks. The *far* work of a block uses only
//! the heaps before it: the single-heap options that reach there, the rare pairs whose other heap
//! lies there (marked rare position by rare position, so that the partners of successive heaps
//! are successive values), and a first scan of the pairs that lie there, for the rare values below
//! the least common value not marked so far (`bound`). The *near* work is then done heap by heap
//! in order: the options with a heap in the block, rare positions found in it, three-heap splits,
//! the mex `c`, and the rest of the scan — continued where the far scan stopped while `c` is at
//! most its bound, started again otherwise (the near marks rarely raise `c`).
//!
//! **Parallel scheme.** One meeting of the threads a block. The far work is cut into chunks of
//! heaps that the threads take from a counter: first the chunks of the block (the rare pairs
//! that reach into the block before, the first scans), then those of the next block (the rare
//! pairs below this block). The calling thread, once the block's chunks are all taken, finishes
//! the block's heaps in order, each as soon as its chunk is done, while the others go on with
//! the next block; then it takes what is left of those ([`Sparse::block`]). The other threads
//! are a [`Crew`] for the whole of a `fill` call: they spin between blocks rather than wait for
//! a new job each block. The marks are a pure function of the values, so the output is the
//! same for any thread count.
//!
//! **Step 1 in lanes.** With AVX-512 the rare pairs of columns that cover a whole chunk are
//! marked 32 heaps at a time, one heap per 16-bit lane, as keys of common values kept in
//! registers ([`lane_marks`]): no store per pair (with AVX2, 8 heaps at a time in 32-bit
//! lanes). Common values past the registers' keys are left out: such a heap is *clipped*, and
//! marked again pair by pair in the rare case that its least open common value lies past them
//! ([`Sparse::unclip`]).
//!
//! **Instruction sets.** The far chunks, the finishing loop and small mode are compiled once a
//! tier ([`Tier`]: the build's baseline, AVX2, AVX-512 BW, AVX-512 VBMI; picked at run time,
//! or as [`Tuning`] says); the loops they run are in [`super::kernels`].
//!
//! The engine keeps no copy of the values: its state (histogram, mask, rare positions) covers
//! `vals[..covered]`, and is rebuilt by scanning the prefix whenever `fill` starts elsewhere.

use super::executor::{lock, Crew};
use super::kernels::tier::tier_code;
use super::kernels::{
    first_open, first_open_on, lane_marks, mark_columns, mark_pairs, near_small_marks, scan,
    scan_keys, small_bit, small_columns, small_scan, Columns, LaneKeys, NearLanes, Targets, Tier,
    TierKind,
};
use super::scan_keys::{ScanKeys, KEYS_CAP};
use super::tuning::{LaneChoice, Tuning};
use super::{value_span, Cell, Executor, Fill, Overflow};
use crate::classes::{is_rare, Histogram};
use crate::rules::{MoveSet, Rule};

/// Heaps per block (fewer when values are large): the threads meet once a block, so larger
/// blocks waste less of the second thread; the near work of a block grows with it (512 and 1024
/// were no faster on two threads than 256, within the noise).
const BLOCK: usize = 256;

/// Dense mode is considered from this many heaps on, and looked at again this often.
const DENSE_MIN: usize = 4096;
const DENSE_CHECK: usize = 1 << 16;

/// Threads from which on the blocks run in a pipeline (see [`Sparse::with_pipeline`]). Finishing
/// takes about a tenth of the work (Officers 9 %, Grundy's game 11 % on one thread); without a
/// pipeline it runs beside the next block's first far part only (40 % and 30 %), which covers
/// it on up to four threads; past that, the pipeline, which runs it beside 80 % of the work,
/// projects faster (`results/bench.md`). On two threads the pipeline was 7-10 % slower: the
/// next block's chunks, scans and all, end the block less evenly.
const PIPELINE_THREADS: usize = 4;

/// Bytes of mark rows one far chunk should touch (about what the first-level cache holds).
const CHUNK_BYTES: usize = 96 << 10;

/// The sparse-space engine for one rule.
#[derive(Debug, Clone)]
pub struct Sparse {
    rule: Rule,
    moves: MoveSet,
    exec: Executor,
    tier: Tier,
    /// Heaps the histogram and rare list account for.
    covered: usize,
    hist: Histogram,
    mask: u32,
    /// Every value so far is below this power of two (at least 64): the width of the marks.
    width: usize,
    /// Rare positions `p ≥ 1` below `covered`, ascending, with their values.
    rare_pos: Vec<usize>,
    rare_val: Vec<u32>,
    /// One byte per value below `width`: 0xFF where the value is common (resp. rare), else 0.
    common: Vec<u8>,
    rare: Vec<u8>,
    /// The keys of the common values for step 1 in vector lanes, when the mask allows.
    lane_keys: Option<LaneKeys>,
    /// Look at the number of lane registers again when the histogram reaches this.
    lanes_due: u64,
    /// Registers for step 1 in lanes: `None` for none (a store a pair), `Some(0)` to choose.
    lane_regs: Option<usize>,
    /// The byte keys of the values for the scan, when they apply (see [`ScanKeys`]); made
    /// anew when the mask or the width changes.
    scan_keys: Option<ScanKeys>,
    /// Heaps whose keys are kept on each side, or `None` for no keys.
    keys_cap: Option<usize>,
    /// Re-choose the mask when the rare list reaches this length …
    rechoose_at: usize,
    /// … or when the value span outgrows this.
    chosen_span: usize,
    /// Mark rows of the block being finished and of the next block, `stride` bytes a heap.
    rows: Vec<u8>,
    /// Where the far scan of each heap of those blocks stopped.
    scans: Vec<FarScan>,
    /// Dense mode: rare positions are so many that every pair of every heap is marked instead
    /// (no rare list is kept); looked at again when `covered` reaches `next_check`.
    dense: bool,
    next_check: usize,
    /// Dense mode is considered from `dense_min` heaps on, and looked at every `dense_check`.
    dense_min: usize,
    dense_check: usize,
    /// Whether small mode may run (see [`Sparse::without_small_mode`]).
    small: bool,
    /// Small mode's values: those below this (64, one mark word; less in tests).
    small_limit: u32,
    /// Small mode however many values reach `small_limit` (tests), not only while they are few.
    small_always: bool,
    /// Whether the first scans of a block run while the block before it is finished (see
    /// [`Sparse::with_pipeline`]); `None`: from [`PIPELINE_THREADS`] threads on.
    pipeline: Option<bool>,
}

/// Statistics of the engine's internal state, for tests and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparseState {
    /// The mask in use.
    pub mask: u32,
    /// Rare positions (heap 0 not counted; none are kept in dense mode).
    pub rare_positions: usize,
    /// Whether every pair of every heap is marked (rare positions too many to pay).
    pub dense: bool,
    /// Heaps the state accounts for.
    pub covered: usize,
    /// Whether the next heaps would be computed in small mode.
    pub small: bool,
    /// Heaps whose byte keys the scan has (0 when it reads the cells only).
    pub scan_keys: usize,
}

/// How far the far scan of one heap went: the rare values below `bound` met in the pairs before
/// `(split, at)` (in scan order: split by split, `a` ascending) are marked.
#[derive(Debug, Clone, Copy, Default)]
struct FarScan {
    bound: u32,
    split: usize,
    at: usize,
    /// Step 1 marked some of the heap's rare pairs in vector lanes, which leave out common
    /// values from [`Sparse::lane_limit`] on: the row is exact only below it (see
    /// [`Sparse::unclip`]).
    clipped: bool,
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

    /// An engine for `rule` whose parallel parts run on `exec`, tuned as the process says
    /// ([`Tuning::current`]: the best tier of the processor unless the program's edge
    /// installed another).
    pub fn with_executor(rule: &Rule, exec: Executor) -> Sparse {
        Sparse::with_tuning(rule, exec, &Tuning::current())
    }

    /// An engine for `rule` on `exec`, tuned by `tuning`.
    pub fn with_tuning(rule: &Rule, exec: Executor, tuning: &Tuning) -> Sparse {
        let mut engine = Sparse::with_tier(rule, exec, tuning.tier)
            .with_scan_keys(tuning.scan_keys.then_some(KEYS_CAP));
        if !tuning.small_mode {
            engine = engine.without_small_mode();
        }
        if let Some(on) = tuning.pipeline {
            engine = engine.with_pipeline(on);
        }
        match tuning.lanes {
            LaneChoice::Auto => engine,
            LaneChoice::Off => engine.with_lane_regs(None),
            LaneChoice::Regs(regs) => engine.with_lane_regs(Some(regs)),
        }
    }

    /// The same engine with step 1 in vector lanes on `regs` registers of 16 keys (one of 1, 4,
    /// 8, 12, 16: every common value below 32, 128, 256, 384, 512 is marked there, the rest of a
    /// heap's pairs again one by one when its value may lie past them), or with none (`None`:
    /// a store a pair), instead of the count chosen from the values; for tests and
    /// measurements. Lanes run on every tier but the portable one.
    pub fn with_lane_regs(mut self, regs: Option<usize>) -> Sparse {
        assert!(
            regs.is_none_or(|r| LaneKeys::REGS.contains(&r)),
            "lane registers: one of {:?}",
            LaneKeys::REGS
        );
        self.lane_regs = regs;
        self.classify();
        self
    }

    /// The same engine with the scan's byte keys (`engine::scan_keys`) kept for `cap` heaps on each
    /// side (at least 64; 2^20 unless said), or with none (`None`: the scan reads the cells),
    /// for tests and measurements. Keys run where the tier has a vector set of targets
    /// ([`Tier::scans_keys`]), with 16-bit cells.
    pub fn with_scan_keys(mut self, cap: Option<usize>) -> Sparse {
        self.keys_cap = cap;
        self.scan_keys = None;
        self
    }

    /// An engine for `rule` on `exec` whose hot paths run on `tier`, every switch at its
    /// default.
    pub fn with_tier(rule: &Rule, exec: Executor, tier: Tier) -> Sparse {
        let mut s = Sparse {
            rule: rule.clone(),
            moves: rule.moves(0),
            exec,
            tier,
            covered: 0,
            hist: Histogram::default(),
            mask: 1,
            width: 64,
            rare_pos: Vec::new(),
            rare_val: Vec::new(),
            common: Vec::new(),
            rare: Vec::new(),
            lane_keys: None,
            lanes_due: 0,
            lane_regs: Some(0),
            scan_keys: None,
            keys_cap: Some(KEYS_CAP),
            rechoose_at: 64,
            chosen_span: 1,
            rows: Vec::new(),
            scans: Vec::new(),
            dense: false,
            next_check: 0,
            dense_min: DENSE_MIN,
            dense_check: DENSE_CHECK,
            small: true,
            small_limit: 64,
            small_always: false,
            pipeline: None,
        };
        s.classify();
        s
    }

    /// The same engine, considering dense mode from `min` heaps on and looking again every
    /// `check` heaps (defaults 4,096 and 65,536), for tests and experiments.
    pub fn with_dense_limits(mut self, min: usize, check: usize) -> Sparse {
        self.dense_min = min;
        self.dense_check = check.max(1);
        self
    }

    /// The same engine without small mode (every heap in blocks), for tests and comparisons.
    pub fn without_small_mode(mut self) -> Sparse {
        self.small = false;
        self
    }

    /// The same engine with small mode for values below `limit` (at most 64) while values from
    /// `limit` on are few, or, with `always`, whatever the values (a heap whose value may not be
    /// below `limit` is left to the blocks): for tests of small mode among larger values, which
    /// real games reach only far out (0.167's first 64 is heap 332,129,728).
    pub fn with_small_limit(mut self, limit: u32, always: bool) -> Sparse {
        assert!(
            (1..=64).contains(&limit),
            "small mode's values fit one 64-bit word"
        );
        self.small_limit = limit;
        self.small_always = always;
        self
    }

    /// The same engine with its blocks in a pipeline (`true`) or not, instead of a pipeline
    /// from four threads on. In a pipeline the first scans of a block (over its
    /// pairs below the block before it) run while the block before it is finished, beside the
    /// finisher; what that block adds is marked, and the scans go on, once it is finished.
    /// Otherwise those scans wait for it, and run once over the pairs below the block (on one
    /// thread that saves going back over the scans that the marks of the block before made
    /// too short).
    pub fn with_pipeline(mut self, on: bool) -> Sparse {
        self.pipeline = Some(on);
        self
    }

    /// Whether the blocks run in a pipeline (see [`Sparse::with_pipeline`]).
    fn pipeline(&self) -> bool {
        self.pipeline
            .unwrap_or(self.exec.threads() >= PIPELINE_THREADS)
    }

    /// The mask, rare count, mode and coverage of the internal state.
    pub fn state(&self) -> SparseState {
        SparseState {
            mask: self.mask,
            rare_positions: self.rare_pos.len(),
            dense: self.dense,
            covered: self.covered,
            small: self.small_mode(),
            scan_keys: self.scan_keys.as_ref().map_or(0, ScanKeys::covered),
        }
    }

    fn span(&self) -> usize {
        value_span(self.hist.max_value())
    }

    /// Bytes per heap in the mark rows: the marks, then a cache line so that rows of successive
    /// heaps do not fall into the same cache sets.
    fn stride(&self) -> usize {
        self.width + 64
    }

    /// Heaps per block: the near work (pairs within the block) grows with it, the cost of
    /// handing the far work to the threads shrinks; the rows stay within 32 MiB.
    fn block_len(&self) -> usize {
        BLOCK.min(((1usize << 25) / self.stride()).max(16))
    }

    /// The class tables for the values below `width`.
    fn classify(&mut self) {
        let (mask, width) = (self.mask, self.width as u32);
        let byte = |b: bool| if b { 0xFF } else { 0 };
        self.common = (0..width).map(|v| byte(!is_rare(v, mask))).collect();
        self.rare = (0..width).map(|v| byte(is_rare(v, mask))).collect();
        self.lane_keys = self.choose_lane_keys();
        self.scan_keys = None;
    }

    /// Brings the scan's byte keys to the heaps of `vals` (those before the next block): made
    /// when they apply and are missing, `None` where they do not apply.
    fn refresh_keys<T: Cell>(&mut self, vals: &[T]) {
        let usable = self.tier.scans_keys() && T::BITS == 16 && !self.dense;
        let bit = ScanKeys::key_bit(self.mask, self.width).filter(|_| usable);
        let (Some(bit), Some(cap)) = (bit, self.keys_cap) else {
            self.scan_keys = None;
            return;
        };
        if self
            .scan_keys
            .as_ref()
            .is_none_or(|k| k.covered() > vals.len() || k.mask() != self.mask)
        {
            self.scan_keys = Some(ScanKeys::new(self.mask, bit, cap));
        }
        if let Some(keys) = &mut self.scan_keys {
            keys.extend(vals);
        }
    }

    /// The keys for step 1 in vector lanes: the fewest registers (4 to 16) whose keys cover all
    /// but 1 % of the values so far (a clipped heap whose least open common value lies past them
    /// is marked again one pair at a time: Officers, 6 % of its values from 256 on, runs faster
    /// on 12 registers than on 8 or 16; Grundy's game, values below 192, on 8), unless
    /// [`Sparse::with_lane_regs`] said otherwise. On AVX2, whose lanes pay more a register, at
    /// most 8 (Officers at 2^21, one thread, on Zen 4: 2.94 s on 8, 3.40 s on 12, 3.33 s on 16,
    /// 3.06 s without lanes; Grundy's game at 2^22: 4.34 s on 8, 4.80 s on 4, 4.72 s without).
    fn choose_lane_keys(&self) -> Option<LaneKeys> {
        match self.lane_regs? {
            0 => {}
            regs => return LaneKeys::new(self.mask, regs),
        }
        let most = self.tier.most_lane_regs();
        let from = |limit: u32| -> u64 { self.hist.counts.iter().skip(limit as usize).sum() };
        let keys = LaneKeys::REGS[1..]
            .iter()
            .filter(|&&regs| regs <= most)
            .map(|&regs| LaneKeys::new(self.mask, regs));
        let mut last = None;
        for k in keys {
            match k {
                Some(k) if 100 * from(k.limit()) <= self.hist.len => return Some(k),
                k => last = k,
            }
        }
        last
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
        self.width = self.span().max(64);
        self.dense = false;
        self.lanes_due = 0;
        self.classify();
    }

    /// Before a block: turns dense mode on when a quarter of the heaps are rare positions (then
    /// step 1 marks about as many pairs as there are), and off again when a mask makes fewer than
    /// an eighth of them rare (looked at every `dense_check` heaps). True when it changed.
    fn choose_mode<T: Cell>(&mut self, vals: &[T]) -> bool {
        let n = vals.len();
        if !self.dense {
            if n >= self.dense_min && 4 * self.rare_pos.len() > n {
                self.dense = true;
                self.rare_pos = Vec::new();
                self.rare_val = Vec::new();
                self.next_check = n + self.dense_check;
                return true;
            }
        } else if n >= self.next_check {
            self.next_check = n + self.dense_check;
            let (mask, count) = self.hist.rare_mask();
            if 8 * count < n as u64 {
                self.dense = false;
                self.mask = mask;
                self.collect_rare(vals);
                self.rechoose_at = 2 * self.rare_pos.len() + 64;
                self.chosen_span = self.span();
                self.width = self.width.max(self.span());
                self.classify();
                return true;
            }
        }
        false
    }

    /// Between blocks: widens the rows and re-chooses the mask when due. True when the mark rows
    /// computed so far are no longer valid.
    fn maybe_rechoose<T: Cell>(&mut self, vals: &[T]) -> bool {
        let span = self.span();
        let mut changed = false;
        if span > self.width {
            self.width = span;
            changed = true;
        }
        // Rows marked in lanes are exact below the limit of the keys they were marked with.
        if self.hist.len >= self.lanes_due {
            self.lanes_due = 2 * self.hist.len.max(1 << 12);
            let regs = |k: Option<&LaneKeys>| k.map(LaneKeys::regs);
            changed |= regs(self.choose_lane_keys().as_ref()) != regs(self.lane_keys.as_ref());
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
        // Small mode is serial: it runs on this thread rather than on one of the pool's, handed
        // over at every call (0.167 2^24 on two threads: 1.51/1.55 s in the pool, 1.35/1.48 s
        // here, 1.41/1.49 s on one thread, min/median of 6 on AMD EPYC Zen 4). The blocks run
        // with the pool's other threads as a crew, kept at hand from block to block.
        let exec = self.exec.clone();
        let mut pos = start;
        while pos < end {
            let pool = exec.threads() > 1;
            let mut reached = pos;
            if !pool || self.small_mode() {
                reached = self.fill_blocks(&Crew::alone(), vals, pos, end, pool)?;
            }
            if reached == pos {
                reached = exec.crew(|crew| self.fill_blocks(crew, vals, pos, end, false))?;
            }
            pos = reached;
        }
        Ok(())
    }
}

impl Sparse {
    /// Fills heaps `start..end` block by block: the far work of a block on this thread and the
    /// `crew`, then its near work on this one; small mode where it applies. Returns where it
    /// stopped: `end`, or earlier for the caller to go on with another crew: with
    /// `crew_wanted` (the crew is this thread alone, the executor has more) before a block,
    /// and with helpers, where small mode applies again after a block (it runs on the
    /// caller's thread).
    fn fill_blocks<T: Cell>(
        &mut self,
        crew: &Crew<'_>,
        vals: &mut [T],
        start: usize,
        end: usize,
        crew_wanted: bool,
    ) -> Result<usize, Overflow> {
        let mut pos = start;
        // When set: the rows of heaps pos..bend hold their options with every heap below `lim`,
        // and (if `scanned`) the first scans of those pairs.
        let mut ahead: Option<Ahead> = None;
        let pipeline = self.pipeline();
        let mut next_rows = Vec::new();
        let mut next_scans = Vec::new();
        while pos < end {
            if self.choose_mode(&vals[..pos]) {
                ahead = None;
            }
            if self.dense {
                let stop = end.min(self.next_check.max(pos + 1));
                let reached = self.fill_dense(vals, pos, stop);
                self.covered = *reached.as_ref().unwrap_or_else(|o| &o.at);
                pos = reached?;
                continue;
            }
            let stale = self.maybe_rechoose(&vals[..pos]);
            if self.small_mode() {
                if !crew.is_alone() && pos > start {
                    return Ok(pos);
                }
                ahead = None;
                let reached = self.fill_small(vals, pos, end);
                self.covered = reached;
                if reached > pos {
                    pos = reached;
                    continue;
                }
                // The value of heap `pos` may not be below 64: the blocks find it.
            }
            if crew_wanted {
                return Ok(pos);
            }
            let (bend, this) = match ahead.take() {
                Some(a) if !stale && a.scanned => (a.end, Part::resume(a.lim, pos)),
                Some(a) if !stale => (a.end, Part::rest(a.lim, pos)),
                _ => (end.min(pos + self.block_len()), Part::rest(0, pos)),
            };
            // The far work of the next block done while this one is finished: with the first
            // scans in a pipeline, so that they run beside the finisher.
            let next = if pipeline {
                Part::rest(0, pos)
            } else {
                Part::first(pos)
            };
            self.refresh_keys(&vals[..pos]);
            let (before, rest) = vals.split_at_mut(pos);
            let mut rows = std::mem::take(&mut self.rows);
            let mut scans = std::mem::take(&mut self.scans);
            let nend = end.min(bend + self.block_len());
            let mut late = Late::default();
            let (outcome, added) = self.block(
                crew,
                (&mut rows, &mut scans, &mut next_rows, &mut next_scans),
                before,
                &mut rest[..bend - pos],
                (this, next, nend),
                &mut late,
            );
            merge_hist(&mut self.hist, &added);
            self.rare_pos.extend_from_slice(&late.pos);
            self.rare_val.extend_from_slice(&late.val);
            self.rows = std::mem::replace(&mut next_rows, rows);
            self.scans = std::mem::replace(&mut next_scans, scans);
            match outcome {
                Ok(Finished::Done) => {
                    if nend > bend {
                        ahead = Some(Ahead {
                            end: nend,
                            lim: pos,
                            scanned: next.scan,
                        });
                    }
                    pos = bend;
                }
                Ok(Finished::Widen(at)) => pos = at,
                Err(o) => {
                    self.covered = o.at;
                    return Err(o);
                }
            }
            self.covered = pos;
        }
        Ok(pos)
    }
}

/// Far work done ahead for the heaps `pos..end` after a block (`pos` where filling goes on).
#[derive(Clone, Copy)]
struct Ahead {
    end: usize,
    /// Their rows hold the options with every heap below this …
    lim: usize,
    /// … and their first scans over those pairs are done.
    scanned: bool,
}

/// The mark rows and far scans of a chunk of heaps.
type Chunk<'r> = (&'r mut [u8], &'r mut [FarScan]);

/// Work of one block handed out to the threads: chunks, each taken by one thread (a chunk is
/// whole even if a thread panicked holding it, so [`lock`] hands it on).
type ChunkWork<'r> = Vec<std::sync::Mutex<Chunk<'r>>>;

impl Sparse {
    /// One block, heaps `b..b + block.len()` (`b` = `before.len()`), on every thread at once:
    /// the far work of the block left (`this`, such as [`Part::rest`]`(from, b)`: the rare
    /// pairs with a heap in `from..b`, then the first scans) in chunks, the block finished heap
    /// by heap as soon as the chunk of each heap is done, and the first far part of the next
    /// block (`next_part`, heaps `b + block.len() .. nend`, rows `next_rows`: options below
    /// `b`) in chunks. Each thread takes chunks of the block first, then the calling one
    /// finishes it while the others go on to the next block's chunks (it takes one of those
    /// too whenever the chunk it must finish next is still being marked, unless they scan),
    /// and it joins them when done: no thread waits for another but at the end of the block
    /// (one meeting a block, where there were two). Returns how finishing ended and the
    /// histogram of the values found.
    fn block<T: Cell>(
        &self,
        crew: &Crew<'_>,
        (rows, scans, next_rows, next_scans): (
            &mut Vec<u8>,
            &mut Vec<FarScan>,
            &mut Vec<u8>,
            &mut Vec<FarScan>,
        ),
        before: &[T],
        block: &mut [T],
        (this, next_part, nend): (Part, Part, usize),
        late: &mut Late,
    ) -> (Result<Finished, Overflow>, Histogram) {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use std::sync::Mutex;
        let b = before.len();
        let bend = b + block.len();
        let (per, this_work) = self.chunks(rows, scans, block.len());
        let (next_per, next_work) = self.chunks(next_rows, next_scans, nend - bend);
        let this_work: ChunkWork<'_> = this_work.into_iter().map(Mutex::new).collect();
        let next_work: ChunkWork<'_> = next_work.into_iter().map(Mutex::new).collect();
        let done: Vec<AtomicBool> = this_work.iter().map(|_| AtomicBool::new(false)).collect();
        let (taken, next_taken) = (AtomicUsize::new(0), AtomicUsize::new(0));
        // Set if a thread panicked in a chunk of the block, so that the finisher does not wait
        // for it forever (the panic itself reaches the caller when the threads are joined).
        let failed = AtomicBool::new(false);
        struct OnPanic<'f>(&'f AtomicBool);
        impl Drop for OnPanic<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.store(true, Ordering::Release);
                }
            }
        }
        // One chunk of the block, or (`next`) of the next block, if any is left: whether one was.
        let take_one = |next: bool| {
            let (work, taken, n0, per, part) = if next {
                (&next_work, &next_taken, bend, next_per, next_part)
            } else {
                (&this_work, &taken, b, per, this)
            };
            let i = taken.fetch_add(1, Ordering::Relaxed);
            let Some(w) = work.get(i) else {
                return false;
            };
            let (rows, scans) = &mut *lock(w);
            let _failing = OnPanic(&failed);
            self.far_chunk(rows, scans, before, n0 + i * per, part);
            if !next {
                done[i].store(true, Ordering::Release);
            }
            true
        };
        let take = |next: bool| while take_one(next) {};
        let helper = || {
            take(false);
            take(true);
        };
        let finish = || {
            take(false);
            let mut fin = Finisher {
                engine: self,
                before,
                hist: Histogram::default(),
                late,
                targets: Targets::new(self.width, self.mask, self.tier),
                upto: Vec::new(),
                chunk_from: 0,
            };
            let mut outcome = Ok(Finished::Done);
            for (i, w) in this_work.iter().enumerate() {
                // The chunk is being done by another thread: take a chunk of the next block
                // meanwhile if those are the shorter (no scans in them), or else wait,
                // yielding the core now and then (the other thread may need it).
                let mut spins = 0u32;
                while !done[i].load(Ordering::Acquire) {
                    assert!(!failed.load(Ordering::Acquire), "a far chunk failed");
                    if !next_part.scan && take_one(true) {
                        continue;
                    }
                    spins += 1;
                    if spins.is_multiple_of(1024) {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
                let (rows, scans) = &mut *lock(w);
                outcome = fin.finish(rows, scans, block, b, i * per);
                if !matches!(outcome, Ok(Finished::Done)) {
                    break;
                }
            }
            take(true);
            (outcome, fin.hist)
        };
        crew.round(finish, &helper)
    }

    /// `rows` and `scans` for `count` heaps (grown as needed), cut into chunks of heaps for the
    /// threads: the heaps per chunk, and the chunks.
    fn chunks<'r>(
        &self,
        rows: &'r mut Vec<u8>,
        scans: &'r mut Vec<FarScan>,
        count: usize,
    ) -> (usize, Vec<Chunk<'r>>) {
        let stride = self.stride();
        if rows.len() < count * stride {
            rows.resize(count * stride, 0);
        }
        scans.resize(count, FarScan::default());
        let per_chunk = self.chunk_len(count);
        let work = rows[..count * stride]
            .chunks_mut(per_chunk * stride)
            .zip(scans.chunks_mut(per_chunk))
            .collect();
        (per_chunk, work)
    }
}

impl Sparse {
    /// Dense mode for heaps `start..end`: every option of every heap marked in one row. Returns
    /// where it got to (`end`), or the overflow.
    fn fill_dense<T: Cell>(
        &mut self,
        vals: &mut [T],
        start: usize,
        end: usize,
    ) -> Result<usize, Overflow> {
        // The last sparse block may have ended with a value at the width (the rows widen before
        // the next sparse block, which dense mode does not run).
        self.width = self.width.max(self.span());
        let mut row = vec![0u8; self.width];
        for n in start..end {
            let g = self.dense_value(&vals[..n], n, &mut row);
            if g > T::MAX {
                return Err(Overflow { at: n, value: g });
            }
            vals[n] = T::from_u32(g);
            self.hist.add(g);
            if g as usize >= self.width {
                self.width = value_span(g);
                row = vec![0u8; self.width];
            }
        }
        Ok(end)
    }

    /// G(n) from every option, the values of the smaller heaps in `vals`, marks in `row`.
    #[inline(always)]
    fn dense_value<T: Cell>(&self, vals: &[T], n: usize, row: &mut [u8]) -> u32 {
        row.fill(0);
        let m = &self.moves;
        if m.take_all.binary_search(&n).is_ok() {
            row[0] = 1;
        }
        for &k in m.leave_one.iter().take_while(|&&k| k < n) {
            row[vals[n - k].get() as usize] = 1;
        }
        for s in m.leave_two.iter().take_while(|s| s.take + 2 <= n) {
            let r = n - s.take;
            mark_pairs(
                self.tier,
                row,
                vals,
                vals,
                r,
                1,
                last_pair(r, s.unequal) + 1,
            );
        }
        mark_three_heap_options(row, m, n, |q| vals[q].get());
        row.iter().position(|&x| x == 0).unwrap_or(row.len()) as u32
    }
}

/// Rare pairs of a heap (rare positions times splits) up to which small mode is used on several
/// threads too: beyond, the blocks' parallel far work pays more than small mode saves.
const SMALL_MAX_PAIRS: usize = 1024;

/// Heaps whose far rare pairs small mode marks together.
const SMALL_BLOCK: usize = 64;

/// Small mode runs among values that do not fit its mark word (64 and more) while at most one
/// heap in this many has one: each of them is left to a block of the other mode.
const SMALL_RARE_LARGE: u64 = 4096;

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
    fn small_mode(&self) -> bool {
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
    fn fill_small<T: Cell>(&mut self, vals: &mut [T], start: usize, end: usize) -> usize {
        // SAFETY (each): the engine holds a tier, the proof that the processor has its
        // features.
        match self.tier.kind() {
            TierKind::Portable => self.fill_small_impl(vals, start, end),
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
    fn fill_small_impl<T: Cell>(&mut self, vals: &mut [T], start: usize, end: usize) -> usize {
        if self.width <= 64 && self.small_limit == 64 {
            self.fill_small_words::<T, false>(vals, start, end)
        } else {
            self.fill_small_words::<T, true>(vals, start, end)
        }
    }

    /// [`Sparse::fill_small`], with `WIDE` when values may reach the small limit.
    #[inline(always)]
    fn fill_small_words<T: Cell, const WIDE: bool>(
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
    fn near_lanes(&self, near: &[(usize, usize, usize)]) -> Option<Vec<NearLanes>> {
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
    fn small_far<T: Cell, const WIDE: bool>(
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
    fn small_value<T: Cell, const WIDE: bool>(
        &self,
        vals: &[T],
        (n, common, far): (usize, u64, u64),
        near: &[(usize, usize, usize)],
        lanes: Option<&[NearLanes]>,
    ) -> Option<u32> {
        let m = &self.moves;
        let limit = self.small_limit;
        let bit = |v: u32| small_bit::<WIDE>(v, limit);
        let mut marks = far | u64::from(m.take_all.binary_search(&n).is_ok());
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

/// Marks the options of heap `n` that leave three heaps (hexadecimal digits), every one of them:
/// O(n²) a heap. `get(q)` is G(q).
fn mark_three_heap_options(row: &mut [u8], m: &MoveSet, n: usize, get: impl Fn(usize) -> u32) {
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
struct Part {
    from: usize,
    lim: usize,
    /// Clear the rows first (the first pass).
    clear: bool,
    /// Scan the pairs below `lim` afterwards (the last pass) …
    scan: bool,
    /// … going on from where the first pass's scan stopped (see [`Sparse::far_scan`]).
    resume: bool,
}

impl Part {
    /// The options below `lim`, rows cleared first, no scan.
    fn first(lim: usize) -> Part {
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
    fn rest(from: usize, lim: usize) -> Part {
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
    fn resume(from: usize, lim: usize) -> Part {
        Part {
            resume: true,
            ..Part::rest(from, lim)
        }
    }
}

/// The largest `a` of the pairs `(a, r − a)` of a split of `r`.
#[inline(always)]
fn last_pair(r: usize, unequal: bool) -> usize {
    if unequal && r.is_multiple_of(2) {
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
fn mark_rare_pairs(
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
fn mark_rare_pairs_view<T: Cell>(
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
    fn chunk_len(&self, count: usize) -> usize {
        let threads = self.exec.threads();
        let per_thread = if threads == 1 { 2 } else { 4 };
        (CHUNK_BYTES / self.stride())
            .min(count.div_ceil(per_thread * threads))
            .max(1)
            .next_multiple_of(32)
    }

    /// Far work of the heaps `n0..n0 + scans.len()`, on the instruction set of the engine.
    fn far_chunk<T: Cell>(
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
    fn far_chunk_impl<T: Cell>(
        &self,
        rows: &mut [u8],
        scans: &mut [FarScan],
        vals: &[T],
        n0: usize,
        part: Part,
    ) {
        let stride = self.stride();
        let width = self.width;
        for (i, row) in rows.chunks_mut(stride).enumerate().take(scans.len()) {
            self.far_singles(&mut row[..width], vals, n0 + i, part);
        }
        if part.clear {
            scans.iter_mut().for_each(|fs| fs.clipped = false);
        }
        self.far_rare_pairs(rows, scans, vals, n0, part);
        if part.scan {
            let mut targets = Targets::new(width, self.mask, self.tier);
            for (i, (row, fs)) in rows.chunks_mut(stride).zip(scans.iter_mut()).enumerate() {
                *fs = self.far_scan(&mut row[..width], &mut targets, vals, n0 + i, part, *fs);
            }
        }
    }

    /// Marks the options of heap `n` of `part` that leave one heap (clearing the row first in
    /// the first part).
    #[inline(always)]
    fn far_singles<T: Cell>(&self, row: &mut [u8], vals: &[T], n: usize, part: Part) {
        if part.clear {
            row.fill(0);
        }
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
    /// are then clipped).
    #[inline(always)]
    fn far_rare_pairs<T: Cell>(
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
        // cost of a chunk does not grow with the rare positions outside them).
        let mut full = Vec::new();
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
                // Whole columns: j1 ≥ count and j0 ≤ 0.
                let whole = at(&|p| p + t + part.lim < n0 + count)..at(&|p| p + t + qlo <= n0);
                // With unequal parts, heap 2p + t has no pair (p, p): those columns one by one.
                let skip = if s.unequal && !whole.is_empty() {
                    let lo = at(&|p| 2 * p + t < n0).clamp(whole.start, whole.end);
                    lo..at(&|p| 2 * p + t < n0 + count).clamp(lo, whole.end)
                } else {
                    whole.end..whole.end
                };
                let one_by_one = if whole.is_empty() {
                    [first..end, end..end, end..end]
                } else {
                    for run in [whole.start..skip.start, skip.end..whole.end] {
                        if !run.is_empty() {
                            full.push(Columns {
                                base: n0 - t,
                                pos: &self.rare_pos[run.clone()],
                                val: &self.rare_val[run],
                            });
                        }
                    }
                    [first..whole.start, skip, whole.end..end]
                };
                for i in one_by_one.into_iter().flatten() {
                    let (p, g) = (self.rare_pos[i], self.rare_val[i]);
                    let j0 = (qlo + t + p).saturating_sub(n0);
                    let j1 = (part.lim + t + p).saturating_sub(n0).min(count);
                    // With unequal parts, leave out r = 2p.
                    let js = (2 * p + t)
                        .checked_sub(n0)
                        .filter(|&js| s.unequal && js >= j0 && js < j1);
                    let mut go = |ja: usize, jb: usize| {
                        if ja < jb {
                            let col = [(n0 + ja - t - p, g)];
                            mark_columns(
                                &mut rows[ja * stride..],
                                stride,
                                wmask,
                                vals,
                                &col,
                                jb - ja,
                            );
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
            }
        }
        // No other heap of these pairs is a rare position when they all lie above the last.
        let last = self.rare_pos.last().copied().unwrap_or(0);
        let all_common = full
            .iter()
            .all(|c| c.pos.last().is_none_or(|&p| c.base - p > last));
        let lanes = self.lane_keys.as_ref().is_some_and(|keys| {
            let (width, tier) = (self.width, self.tier);
            lane_marks(
                tier, rows, stride, width, vals, &full, count, keys, all_common,
            )
        });
        if lanes && !full.is_empty() {
            scans.iter_mut().for_each(|fs| fs.clipped = true);
        } else {
            let cols: Vec<(usize, u32)> = full.iter().flat_map(Columns::iter).collect();
            mark_columns(rows, stride, wmask, vals, &cols, count);
        }
    }

    /// Below this every common value of a clipped row is marked as in an exact one.
    fn lane_limit(&self) -> u32 {
        self.lane_keys.as_ref().map_or(u32::MAX, LaneKeys::limit)
    }

    /// The least unmarked common value of heap `n`'s row (`u32::MAX` if none), and whether the
    /// row is still clipped: a clipped row whose least open value lies at or past the lane
    /// limit is first made exact ([`Sparse::unclip`], other heaps below `lim`).
    fn least_open<T: Cell>(
        &self,
        row: &mut [u8],
        vals: &[T],
        n: usize,
        lim: usize,
        clipped: bool,
    ) -> (u32, bool) {
        let c = first_open_on(self.tier, row, &self.common);
        if clipped && c >= self.lane_limit() {
            self.unclip(row, vals, n, lim);
            (first_open_on(self.tier, row, &self.common), false)
        } else {
            (c, clipped)
        }
    }

    /// Marks every rare pair of heap `n` whose other heap lies below `lim` (all that the far
    /// passes mark, at any value), so that a clipped row is exact again.
    fn unclip<T: Cell>(&self, row: &mut [u8], vals: &[T], n: usize, lim: usize) {
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
    /// the splits up to that one, and the scan goes on from there.
    #[inline(always)]
    fn far_scan<T: Cell>(
        &self,
        row: &mut [u8],
        targets: &mut Targets<T>,
        vals: &[T],
        n: usize,
        part: Part,
        marked: FarScan,
    ) -> FarScan {
        let lim = part.lim;
        let (c, clipped) = self.least_open(row, vals, n, lim, marked.clipped);
        let bound = c.min(self.width as u32);
        let mut fs = FarScan {
            bound,
            split: 0,
            at: 0,
            clipped,
        };
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
            (fs.split, fs.at) = self.scan_far(row, targets, vals, n, lim, (fs.split, fs.at));
        }
        fs
    }

    /// Scans the pairs of heap `n` with both parts below `lim` from `(split, at)` on, until every
    /// target that must be met is; returns where it stopped (`split` past the last split when the
    /// pairs ran out first).
    #[inline(always)]
    fn scan_far<T: Cell>(
        &self,
        row: &mut [u8],
        targets: &mut Targets<T>,
        vals: &[T],
        n: usize,
        lim: usize,
        from: (usize, usize),
    ) -> (usize, usize) {
        let splits = &self.moves.leave_two;
        for (i, s) in splits.iter().enumerate().skip(from.0) {
            if s.take + 2 > n {
                break;
            }
            let r = n - s.take;
            let a0 = far_first(r, lim);
            let mut lo = if i == from.0 { a0.max(from.1) } else { a0 };
            let hi = last_pair(r, s.unequal) + 1;
            // The chunks the byte keys cover first, then the rest on the cells.
            if let Some(keys) = self
                .scan_keys
                .as_ref()
                .filter(|k| k.covered() == vals.len())
            {
                let last_rare = self.rare_pos.last().copied().unwrap_or(0);
                let end = keys.chunks_end(r, lo, hi, last_rare);
                if end > lo {
                    match scan_keys(row, targets, keys, r, lo, end) {
                        Ok(at) => return (i, at),
                        Err(reached) => lo = reached,
                    }
                }
            }
            if lo < hi {
                if let Some(at) = scan(row, targets, vals, vals, r, lo, hi) {
                    return (i, at);
                }
            }
        }
        (splits.len(), 0)
    }
}

/// The finishing side of a block: near marks, mex, the rest of the scan, bookkeeping.
struct Finisher<'a, 'l, T> {
    engine: &'a Sparse,
    before: &'a [T],
    /// Values of the heaps finished in this block.
    hist: Histogram,
    late: &'l mut Late,
    targets: Targets<T>,
    /// `upto[d]`: how many rare positions are at most `d`, for `d` below the block length.
    upto: Vec<u32>,
    /// The chunk being finished starts at this heap of the block: the near rare pairs whose
    /// other heap lies before it are marked for the whole chunk at once ([`Finisher::columns`]).
    chunk_from: usize,
}

impl<T: Cell> Finisher<'_, '_, T> {
    /// Finishes the heaps `b + j0 ..` of the block `block` (heaps `b..`, `b` = `before.len()`),
    /// one for each of `scans`, whose rows are `rows`; the heaps of the block before `b + j0`
    /// are finished. On the instruction set of the engine.
    fn finish(
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
    fn finish_impl(
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
    fn columns(&self, rows: &mut [u8], len: usize, block: &[T]) {
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
    fn value(&mut self, row: &mut [u8], far: FarScan, view: &View<'_, T>, n: usize) -> u32 {
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
        let (c, _) = e.least_open(row, view.before, n, lim, far.clipped);
        let c = if c == u32::MAX {
            width + first_open::<1>(&vec![0; e.width], &e.common)[0]
        } else {
            c
        };
        let answer = c.min(width);
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
        if e.scan_far(row, tg, view.before, n, lim, from).0 < m.leave_two.len() {
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
