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
//! a new job each block. On one thread there is nothing to run beside the finishing: a block's
//! far work is then all done in one part, before it is finished. The marks are a pure
//! function of the values, so the output is the same for any thread count.
//!
//! **Step 1 in lanes.** With AVX-512 the rare pairs of columns that cover a whole chunk are
//! marked 32 heaps at a time, one heap per 16-bit lane, as keys of common values kept in
//! registers ([`lane_marks`]): no store per pair (with AVX2, 8 heaps at a time in 32-bit
//! lanes, reading words of key and class that a pair gets by one XOR, [`LaneWords`], kept in
//! a window of the heaps the columns reach; its words past the last heap mark nothing, so
//! AVX2 also takes the columns that reach the block for a chunk's last heaps, and clears the
//! rows with its stores). Common values past the registers' keys are
//! left out: such a heap is *clipped*, and
//! marked again pair by pair in the rare case that its least open common value lies past them
//! ([`Sparse::unclip`]).
//!
//! **The scan's head in lanes.** The first pairs of each far scan (1024 on the vector tiers)
//! are marked for 8 heaps a register (32 with AVX-512) into keys of rare values (`head.rs`),
//! so that the targets they meet, most of a scan's, are not met one by one on the scan's
//! per-hit path; the scan starts after them with the targets left.
//!
//! **Instruction sets.** The far chunks, the finishing loop and small mode are compiled once a
//! tier ([`Tier`]: the build's baseline, AVX2, AVX-512 BW, AVX-512 VBMI; picked at run time,
//! or as [`Tuning`] says); the loops they run are in [`super::kernels`].
//!
//! The engine keeps no copy of the values: its state (histogram, mask, rare positions) covers
//! `vals[..covered]`, and is rebuilt by scanning the prefix whenever `fill` starts elsewhere.
//!
//! **Files.** This one: the engine's state (mask, rare positions, classes, keys), its
//! constructors and the choice of mode. `blocks.rs`: the block scheme and the threads; `far.rs`:
//! a block's far work; `finish.rs`: finishing a block heap by heap; `small.rs`: small mode;
//! `dense.rs`: dense mode; `witness.rs`: the witness search of a scan's last targets; `head.rs`:
//! the scan's head in lanes.

mod blocks;
mod dense;
mod far;
mod finish;
mod head;
mod small;
mod witness;

use super::executor::{lock, Crew};
use super::kernels::tier::tier_code;
use super::kernels::{
    first_open, first_open_on, head_marks, lane_marks, mark_columns, mark_pairs, near_small_marks,
    scan, scan_keys, small_bit, small_columns, small_scan, Columns, HeadColumns, HeadKeys,
    LaneKeys, LaneWords, NearLanes, Targets, Tier, TierKind, MOST_RUNS,
};
use super::scan_keys::{ScanKeys, KEYS_CAP};
use super::tuning::{LaneChoice, Tuning};
use super::{value_span, Cell, Executor, Fill, Overflow};
use crate::classes::{is_rare, Histogram};
use crate::rules::{MoveSet, Rule};
use far::*;
use finish::*;
use witness::{Cursor, Witnesses, FEW_LEFT};

/// Heaps per block (fewer when values are large): the threads meet once a block, so larger
/// blocks waste less of the second thread; the near work of a block grows with it (512 and 1024
/// were no faster on two threads than 256, within the noise).
const BLOCK: usize = 256;

/// Pairs a far scan goes through before it first looks at whether few enough targets are left
/// for the witness search (then twice as many before each next look).
const FIRST_STRETCH: usize = 512;

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
    /// The words AVX2's step 1 in lanes reads (`None` on other tiers, or without lanes).
    lane_words: Option<LaneWords>,
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
    /// The first heaps of each value for the witness search of the scans' last targets
    /// (`witness.rs`), or `None` for none.
    witnesses: Option<Witnesses>,
    /// The scan's head in lanes (`head.rs`): pairs a head (0: none), registers of its keys
    /// (`None`: chosen from the values) and its keys.
    head_pairs: usize,
    head_regs: Option<usize>,
    head_keys: Option<HeadKeys>,
    /// The words the heads read ([`HeadKeys::word`]): of the first heaps (after `HEAD_PAD`
    /// words left out), for the mask `head_mask`, and of the heaps `head_lim − 1` down to
    /// `head_lim − head_pairs` (none when `head_lim` is 0).
    head_left: Vec<u32>,
    head_mask: u32,
    /// The heads' columns: the words of the heaps `head_lim − 1` down to `head_lim −
    /// head_pairs`, by register.
    head_cols: HeadColumns,
    head_lim: usize,
    /// Runs each scan takes its steps from in turn (`kernels/runs.rs`; 1: in order).
    scan_runs: usize,
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
            .with_scan_keys(tuning.scan_keys.then_some(KEYS_CAP))
            .with_witnesses(
                tuning
                    .witnesses
                    .unwrap_or(tuning.tier.searches_witnesses())
                    .then_some(FIRST_STRETCH),
            );
        if !tuning.small_mode {
            engine = engine.without_small_mode();
        }
        if let Some(on) = tuning.pipeline {
            engine = engine.with_pipeline(on);
        }
        if let Some(pairs) = tuning.head {
            engine = engine.with_head(pairs, None);
        }
        if let Some(runs) = tuning.streams {
            engine = engine.with_scan_runs(runs);
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
            lane_words: None,
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
            witnesses: tier
                .searches_witnesses()
                .then(|| Witnesses::new(FIRST_STRETCH)),
            head_pairs: tier.head_pairs(),
            head_regs: None,
            head_keys: None,
            head_left: Vec::new(),
            head_mask: 0,
            head_cols: HeadColumns::default(),
            head_lim: 0,
            scan_runs: tier.scan_runs(),
        };
        s.classify();
        s
    }

    /// The same engine with its scans' steps taken in turn from `runs` runs through each
    /// split's pairs (1: in order, 2 or 4; 3 is taken as 2, more as 4; only the AVX2 loops take
    /// runs), instead of the tier's default; for tests and measurements.
    pub fn with_scan_runs(mut self, runs: usize) -> Sparse {
        self.scan_runs = runs.clamp(1, MOST_RUNS);
        self
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
        self.head_keys = self.choose_head_keys();
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

    /// Brings the words of AVX2's step 1 in lanes to the heaps of `vals` (those before the
    /// next block) and to the rare values: the partners of every rare position for the heaps
    /// from `vals.len()` on (heaps from the last rare position and the largest take below).
    fn refresh_lanes<T: Cell>(&mut self, vals: &[T]) {
        let keys = match &self.lane_keys {
            Some(k) if self.tier.lane_words() && T::BITS <= 16 && !self.dense => k,
            _ => {
                self.lane_words = None;
                return;
            }
        };
        let take = self.moves.leave_two.iter().map(|s| s.take).max();
        let last = self.rare_pos.last().copied().unwrap_or(0);
        let from = vals.len().saturating_sub(last + take.unwrap_or(0) + 1);
        let words = self.lane_words.get_or_insert_default();
        words.refresh(keys, vals, from, &self.rare_pos, &self.rare_val);
    }

    /// Brings the witness lists to the heaps of `vals` (those before the next block).
    fn refresh_witnesses<T: Cell>(&mut self, vals: &[T]) {
        if let Some(w) = &mut self.witnesses {
            w.extend(vals, self.width, &self.hist);
        }
    }

    /// The same engine with the witness search of the scans' last targets, first looked at
    /// after `Some(stretch)` pairs (512 unless said), or without (`None`), instead of as its
    /// tier says ([`Tier::searches_witnesses`]); for tests (a short stretch lets small heaps
    /// search) and measurements.
    pub fn with_witnesses(mut self, stretch: Option<usize>) -> Sparse {
        self.witnesses = stretch.map(Witnesses::new);
        self
    }

    /// The keys for step 1 in vector lanes: the fewest registers (4 to 16) whose keys cover all
    /// but 1 % of the values so far (a clipped heap whose least open common value lies past them
    /// is marked again one pair at a time: Officers, 6 % of its values from 256 on, runs faster
    /// on 10 registers (values below 320) than on 8, 12 or 16: at 2^21 on Zen 4, 1.69 against
    /// 1.78 s on 12 with AVX-512 VBMI, 2.07 against 2.19 s with AVX-512 BW; Grundy's game,
    /// values below 192, on 8), unless
    /// [`Sparse::with_lane_regs`] said otherwise. On AVX2, whose lanes pay more a register, at
    /// most 12 ([`Tier::most_lane_regs`]; Officers at 2^21 runs fastest on 10, its values below
    /// 320, and Grundy's game on 8: 4.34 s at 2^22 against 4.80 s on 4 and 4.72 s without).
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
            // The heads' marks are exact whatever their keys: nothing to redo.
            self.head_keys = self.choose_head_keys();
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
