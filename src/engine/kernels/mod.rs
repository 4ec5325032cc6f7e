//! The inner loops of the sparse engine: marking a column of pair values, finding the least
//! unmarked values of a class, and scanning pairs of heaps for a set of target values.
//!
//! Each function here is the one entry to a kernel: it checks what the kernel needs and picks
//! the version of its [`Tier`] (`tier.rs`: the table of tiers and every choice that depends on
//! one). The versions sit side by side, one file a tier:
//! - `portable.rs`: plain Rust over fixed-size chunks, written so that the compiler vectorises
//!   it (at 128 bits on the baseline: SSE2, NEON); every other version is tested against it;
//! - `avx2.rs`: the scans 32 pairs a step with byte shuffles, step 1 and the scan's head in
//!   32-bit lanes (the head's sorted columns on every x86-64 vector tier);
//! - `avx512bw.rs`: step 1 in 16-bit lanes, 32 heaps a register, and the scan's head 16 heaps
//!   a register, with AVX-512 F/BW only (Skylake-SP, Cascade Lake);
//! - `avx512vbmi.rs`: the scans 64 pairs a step with byte permutations and compress, small
//!   mode's near pairs and scan (Ice Lake, Zen 4);
//! - `neon.rs` (aarch64): the scans 32 pairs a step with `tbl` lookups in the set of the
//!   targets' keys, step 1 and the scan's head in 16-bit lanes (AVX2's words), the least open
//!   value, the set of open values and small mode's scan.
//!
//! A kernel is gated on the extensions it uses, not on a tier: a tier runs the best version
//! whose extensions it has (the AVX-512 tier without VBMI runs AVX2's scans). The engine's hot
//! paths are compiled once a tier (`tier_code!`) and every loop here is `#[inline(always)]`, so
//! that it takes the instruction set of its caller. `targets.rs` holds the set of targets of a
//! scan, whose form is the tier's (a scan cannot run without the set it reads). What the
//! kernels compute never depends on which tier runs them: `tests.rs` runs every tier the
//! processor has on the same inputs.

// On processors other than x86-64 the vector kernels are compiled out, and with them the only
// readers of what they share with the dispatch here (the tiers' proofs, the AVX2 keys, …).
#![cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, unused_imports, unused_macros, unused_mut, unused_variables)
)]

mod portable;
mod runs;
mod targets;
pub mod tier;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512bw;
#[cfg(target_arch = "x86_64")]
mod avx512vbmi;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(test)]
mod tests;

use runs::Runs;
pub(crate) use runs::MOST_RUNS;
pub(crate) use targets::Targets;
pub use tier::{Tier, TierError, TierInfo, TierKind, TIERS};

use super::scan_keys::{key_without, ScanKeys};
use super::Cell;
use portable::scan_tail;
pub(crate) use portable::{first_open, for_each_open};
use tier::{Lanes, TargetSet};

/// Pairs per chunk of a scan.
pub(super) const LANES: usize = 32;

/// The most targets the portable scan's list holds: it compares whole chunks with the list once
/// at most 16 (byte cells) or 8 (wider ones) remain (`portable::list_from`).
pub(super) const FEW: usize = 16;

/// For every column `(q, g)` of `cols`, marks `vals[q + k] ^ g` in row `k` of `rows` for
/// `k < len`; rows are `stride` bytes apart, values masked by `wmask`.
#[inline(always)]
pub(super) fn mark_columns<T: Cell>(
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
    portable::mark_columns(rows, stride, wmask, vals, cols, len);
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
    /// The register counts [`lane_marks`] is compiled for (1, for tests, clips at 32; 10 is
    /// AVX2's 5 registers of 32 keys, Officers' values below 320; 6 is AVX2's 3, Grundy's
    /// game's values below 192).
    pub const REGS: [usize; 7] = [1, 4, 6, 8, 10, 12, 16];

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

    /// The word of `v` (below 2^16) that AVX2's lanes read ([`LaneWords`]): its key, and at
    /// bit 15 whether it is common.
    pub(super) fn word(&self, v: u32) -> u16 {
        let common = !crate::classes::is_rare(v, u32::from(self.mask));
        (key_without(v, u32::from(self.low)) | (u32::from(common) << 15)) as u16
    }

    /// The word a column of value `g` XORs into the heaps' words ([`LaneWords`]): `g`'s word
    /// with bit 15 flipped, so that a pair value gets its key where it is common and a key
    /// past every register where it is rare.
    pub(super) fn column_word(&self, g: u32) -> u32 {
        u32::from(self.word(g)) ^ 0x8000
    }
}

/// The words of [`LaneKeys`] that AVX2's step 1 reads instead of the values: for the heaps
/// from `first` on, the key of each value and at bit 15 whether it is common
/// ([`LaneKeys::word`]); for the rare positions, their values' [`LaneKeys::column_word`]. Both
/// parts are linear in the value (the key leaves bit `b` out; the class is the parity of
/// `v & mask`), so a pair value's word is the XOR of its parts': a column costs one XOR a lane
/// before its shifts (NEON) or its shuffle (AVX2, on the words' [`LaneWords::byte_form`]), where
/// the key took four operations and the class test nine more. The
/// heaps' words are a window that moves on with the blocks (the partners of the rare
/// positions: from the last rare position and the largest take below the block on).
#[derive(Debug, Clone, Default)]
pub(super) struct LaneWords {
    /// The mask the words are for (0 before any).
    mask: u32,
    /// The first heap with a word …
    first: usize,
    /// … the words of heaps `first..` (in 32 bits: a lane's, so that a column XORs them
    /// straight from memory), then [`LaneWords::PAD`] words [`LaneWords::NONE`] (a lane group
    /// of 8 may read past the last heap; AVX2's columns may reach [`LaneWords::past`] heaps
    /// past it).
    words: Vec<u32>,
    /// AVX2's form of `words`, word by word ([`LaneWords::byte_form`]), padding included.
    bytes: Vec<u32>,
    /// The column words of the rare values, in their order …
    rare: Vec<u32>,
    /// … and AVX2's form of them ([`LaneWords::column_bytes`]).
    rare_bytes: Vec<u32>,
    /// AVX2's registers of 32 keys for these words (the keys' registers of 16, halved).
    regs32: usize,
    /// For each class of a word (bits 5..16: a common value's register of 32 keys, plus
    /// 1024), the heaps of `words` whose word has it (empty before any words).
    count: Vec<u32>,
    /// The indices of the rare values by the class of their column words (ascending within a
    /// class), …
    by_class: Vec<u32>,
    /// … each class with the end of its indices in `by_class`.
    classes: Vec<(u32, usize)>,
    /// The registers each class of `classes` reaches ([`LaneWords::regs_of`]) when `sets`
    /// were made.
    regs: Vec<u32>,
    /// The rare values that reach a register, `[p, bytes]` (position, AVX2's form of the
    /// column word), by the registers they reach (the runs of `sets`), ascending within a run …
    set_cols: Vec<[u32; 2]>,
    /// … their indices among the rare values …
    set_idx: Vec<u32>,
    /// … and the runs: the registers (bit `w`: register `w`) and the run's end.
    sets: Vec<(u32, usize)>,
    /// Whether the rare positions given ascend (as the engine's do; else each column is
    /// checked a call).
    ascending: bool,
}

/// AVX2's columns of one call of [`lane_marks`] by the registers they can reach
/// ([`LaneWords::classed`]): runs of [`LaneWords`]' columns `[p, bytes]`.
#[derive(Debug, Clone, Default)]
pub(super) struct ClassedColumns {
    /// `(off, from, to)`: the columns `from..to` of the words' `[p, word]`, each with its first
    /// heap at `off − p` among the words; checked: `off − p + len + 8 ≤` the words' length.
    pub(super) segs: Vec<(usize, usize, usize)>,
    /// Runs of `segs` that reach the same registers: the registers (bit `w`: register `w`),
    /// and the run's end.
    pub(super) sets: Vec<(u32, usize)>,
}

impl LaneWords {
    const PAD: usize = 8 + Self::PAST;

    /// Heaps past the last one whose words mark nothing in AVX2's lanes.
    const PAST: usize = 1024;

    /// The word of a heap past the last one: XORed with any column's word (below 2^16), past
    /// every register of AVX2's 32-bit lanes (NEON reads the low 16 bits: 0, as before).
    const NONE: u32 = 1 << 16;

    /// Classes of a word (bits 5..16).
    const CLASSES: usize = 2048;

    /// What AVX2's form of a column word adds ([`LaneWords::column_bytes`]): byte `j` of a
    /// pair's form has bit 3 flipped where `j` is odd and bit 7 where `j ≥ 2`.
    pub(super) const BYTE_SELECT: u32 = 0x8880_0800;

    /// The bits of AVX2's form that hold the word's bits 5–16 ([`LaneWords::byte_form`]).
    pub(super) const REGISTER_BITS: u32 = 0x7070_7070;

    /// AVX2's form of a word `w` below 2^17 (a heap's, the padding's or a column's), for its
    /// lanes to make `1 << key` with a byte shuffle and a compare instead of a variable shift
    /// (`vpsllvd` costs about 4 cycles on Zen 1, 3 µops on Haswell). Each of its four bytes
    /// holds the key's bits 0–3 at bits 0–3 and its bit 4 at bit 7; bits 4–6 of byte `j` hold
    /// the word's bits `5 + 3j .. 8 + 3j` (the key's register of 32 keys, then bit 15, whether
    /// the value is common, and bit 16, the padding's). The form only moves bits, so a pair's
    /// form is the XOR of its heap's and its column's ([`LaneWords::column_bytes`], which adds
    /// [`LaneWords::BYTE_SELECT`]): byte `j` then has bits 3 and 7 clear exactly where the
    /// key's bits 3–4 are `j`, and a shuffle of the bytes `1 << i` (`i < 8`; 0 for 8–15) by it
    /// makes `1 << (key & 31)` in each 32-bit lane; its [`LaneWords::REGISTER_BITS`] equal
    /// `byte_form(32 · r)` exactly where the pair value is common with its key in register `r`
    /// (bit 15 of a pair's word is set where it is rare, bit 16 where it pairs with the
    /// padding).
    pub(super) const fn byte_form(w: u32) -> u32 {
        debug_assert!(w < 1 << 17);
        let low = (w & 15) | (w & 16) << 3;
        let high = w >> 5;
        let spread =
            (high & 7) << 4 | (high >> 3 & 7) << 12 | (high >> 6 & 7) << 20 | (high >> 9 & 7) << 28;
        (low * 0x0101_0101) | spread
    }

    /// AVX2's form of a column word: [`LaneWords::byte_form`] with
    /// [`LaneWords::BYTE_SELECT`].
    fn column_bytes(w: u32) -> u32 {
        Self::byte_form(w) ^ Self::BYTE_SELECT
    }

    /// The class of a word: its bits from 5 on (a common value's key's register of 32, plus
    /// 1024; a rare value's below 1024).
    fn class(w: u32) -> usize {
        (w >> 5) as usize & (Self::CLASSES - 1)
    }

    /// Counts the words of the heaps `heaps` (of `words`, from `first` on) into the classes
    /// (`add`) or out of them.
    fn count_words(&mut self, heaps: std::ops::Range<usize>, add: bool) {
        let words = &self.words[heaps.start - self.first..heaps.end - self.first];
        for &w in words {
            let c = &mut self.count[Self::class(w)];
            *c = if add { *c + 1 } else { *c - 1 };
        }
    }

    /// AVX2's forms of the words past those it has.
    fn extend_bytes(&mut self) {
        let have = self.bytes.len();
        (self.bytes).extend(self.words[have..].iter().map(|&w| Self::byte_form(w)));
    }

    /// The words of every heap of `vals` and of the values `rare`.
    #[cfg(test)]
    pub(super) fn of<T: Cell>(
        keys: &LaneKeys,
        vals: &[T],
        pos: &[usize],
        rare: &[u32],
    ) -> LaneWords {
        let mut w = LaneWords::default();
        w.refresh(keys, vals, 0, pos, rare);
        w
    }

    /// Brings the words to the heaps `from..vals.len()` (those before `from` are dropped once
    /// they are as many as the others) and to the values `rare` at the positions `pos` (of
    /// which those the words have already must not have changed, unless the mask did).
    pub(super) fn refresh<T: Cell>(
        &mut self,
        keys: &LaneKeys,
        vals: &[T],
        from: usize,
        pos: &[usize],
        rare: &[u32],
    ) {
        assert_eq!(pos.len(), rare.len(), "a position a rare value");
        assert!(T::BITS <= 16, "lane words of values below 2^16");
        let word = |v: &T| u32::from(keys.word(v.get()));
        let mask = u32::from(keys.mask);
        let regs32 = keys.regs.div_ceil(2);
        let end = self.first + self.words.len().saturating_sub(Self::PAD);
        let old = self.mask != mask || self.regs32 != regs32;
        if old || from < self.first || vals.len() < end || self.words.is_empty() {
            self.first = from.min(vals.len());
            self.words.clear();
            self.words.extend(vals[self.first..].iter().map(word));
            self.bytes.clear();
            self.regs32 = regs32;
            self.count.clear();
            self.count.resize(Self::CLASSES, 0);
            self.count_words(self.first..vals.len(), true);
        } else {
            self.words.truncate(end - self.first);
            self.bytes.truncate(end - self.first);
            self.words.extend(vals[end..].iter().map(word));
            self.extend_bytes();
            self.count_words(end..vals.len(), true);
            let gone = from - self.first;
            if gone > 0 && 2 * gone >= self.words.len() {
                self.count_words(self.first..from, false);
                self.words.drain(..gone);
                self.bytes.drain(..gone);
                self.first = from;
            }
        }
        self.words.extend([Self::NONE; Self::PAD]);
        self.extend_bytes();
        let same = |w: &LaneWords| {
            w.mask == mask
                && w.rare.len() <= rare.len()
                && w.rare
                    .last()
                    .is_none_or(|&c| c == keys.column_word(rare[w.rare.len() - 1]))
        };
        if !same(self) {
            self.rare.clear();
            self.rare_bytes.clear();
        }
        let have = self.rare.len();
        self.rare
            .extend(rare[have..].iter().map(|&g| keys.column_word(g)));
        self.rare_bytes
            .extend(self.rare[have..].iter().map(|&w| Self::column_bytes(w)));
        self.mask = mask;
        let changed = have != self.rare.len() || self.by_class.len() != self.rare.len();
        if changed {
            self.sort_rare();
        }
        let regs: Vec<u32> = (self.classes.iter())
            .map(|&(k, _)| self.regs_of(k as usize))
            .collect();
        if changed || regs != self.regs {
            self.regs = regs;
            self.make_sets(pos);
        }
    }

    /// The registers of 32 keys that a column of class `k` reaches: `r` where some heap's word
    /// has class `k ^ r`.
    fn regs_of(&self, k: usize) -> u32 {
        let present = |h: usize| self.count[h] > 0;
        (0..self.regs32)
            .filter(|&r| present(k ^ r))
            .fold(0, |m, r| m | 1 << r)
    }

    /// The rare values by the registers they reach (`set_cols`, `set_idx`, `sets`), from
    /// `regs` and their positions `pos`.
    fn make_sets(&mut self, pos: &[usize]) {
        self.ascending = pos.windows(2).all(|p| p[0] < p[1]);
        assert!(
            pos.iter().all(|&p| p < 1 << 31),
            "rare positions below 2^31"
        );
        self.set_cols.clear();
        self.set_idx.clear();
        self.sets.clear();
        let mut sets: Vec<u32> = self.regs.iter().copied().filter(|&m| m != 0).collect();
        sets.sort_unstable();
        sets.dedup();
        for m in sets {
            let mut idx: Vec<u32> = Vec::new();
            let mut start = 0;
            for (&(_, end), &r) in self.classes.iter().zip(&self.regs) {
                if r == m {
                    idx.extend(&self.by_class[start..end]);
                }
                start = end;
            }
            idx.sort_unstable();
            self.set_cols.extend(
                idx.iter()
                    .map(|&i| [pos[i as usize] as u32, self.rare_bytes[i as usize]]),
            );
            self.set_idx.extend(idx);
            self.sets.push((m, self.set_idx.len()));
        }
    }

    /// The rare values' indices by the class of their column words (counting sort).
    fn sort_rare(&mut self) {
        let mut first = vec![0usize; Self::CLASSES + 1];
        for &w in &self.rare {
            first[Self::class(w) + 1] += 1;
        }
        for k in 0..Self::CLASSES {
            first[k + 1] += first[k];
        }
        self.classes.clear();
        self.classes.extend(
            (0..Self::CLASSES)
                .filter(|&k| first[k + 1] > first[k])
                .map(|k| (k as u32, first[k + 1])),
        );
        self.by_class.clear();
        self.by_class.resize(self.rare.len(), 0);
        for (i, &w) in self.rare.iter().enumerate() {
            let at = &mut first[Self::class(w)];
            self.by_class[*at] = i as u32;
            *at += 1;
        }
    }

    /// The heaps with a word: `first..end`.
    pub(super) fn heaps(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.words.len().saturating_sub(Self::PAD)
    }

    /// How many heaps past the last one ([`LaneWords::heaps`]) AVX2's lanes may read, each of
    /// whose pairs marks nothing ([`LaneWords::NONE`]): a column whose partners run past the
    /// last known heap for a chunk's last heaps is marked in lanes with the others.
    pub(super) fn past(&self) -> usize {
        Self::PAST
    }

    /// What NEON's lanes take for the columns `cols`: the first heap with a word and the words
    /// from it on (padding included), or `None` where a column lacks its words (the columns are
    /// then marked another way). AVX2's: [`LaneWords::bytes_for_columns`].
    #[cfg(target_arch = "aarch64")]
    pub(super) fn for_columns(&self, cols: &[Columns<'_>]) -> Option<(usize, &[u32])> {
        cols.iter()
            .all(|c| c.word.len() == c.pos.len())
            .then_some((self.first, &self.words[..]))
    }

    /// Whether each column's words are those of [`LaneWords::rare`] from its `first` (AVX2's
    /// lanes read their forms there).
    fn columns_of_rare(&self, cols: &[Columns<'_>]) -> bool {
        cols.iter().all(|c| {
            c.word.len() == c.pos.len()
                && (self.rare.get(c.first..c.first + c.word.len()))
                    .is_some_and(|w| std::ptr::eq(w, c.word))
        })
    }

    /// What AVX2's lanes take for the columns `cols`: the first heap with a word, the heaps'
    /// forms from it on (padding included) and the rare values' ([`LaneWords::byte_form`]), or
    /// `None` where a column's words are not those of [`LaneWords::rare`] from its `first`.
    pub(super) fn bytes_for_columns(
        &self,
        cols: &[Columns<'_>],
    ) -> Option<(usize, &[u32], &[u32])> {
        self.columns_of_rare(cols)
            .then_some((self.first, &self.bytes[..], &self.rare_bytes[..]))
    }

    /// The columns `cols` (each run's words those of [`LaneWords::rare`] from its `first`) as
    /// AVX2's lanes read them: each column's first heap among the words and its word, sorted by
    /// the registers of 32 keys it can reach. A pair's register is the class of the XOR of its
    /// words ([`LaneWords::class`]), so a column of class `k` reaches register `r` only where
    /// some heap of the words has class `k ^ r` (Officers: 4.4 of 5 registers a column). `None`
    /// where a column lacks its words. Panics where a column's heaps `q..q + len` are not all
    /// among the words.
    pub(super) fn classed(&self, cols: &[Columns<'_>], len: usize) -> Option<ClassedColumns> {
        if !self.columns_of_rare(cols) {
            return None;
        }
        // A column's heaps lie in the words and their padding: at ≤ last.
        let last = (self.words.len().checked_sub(8 + len)).expect("words for a column's heaps");
        let mut out = ClassedColumns {
            segs: Vec::with_capacity(self.sets.len() * cols.len()),
            sets: Vec::with_capacity(self.sets.len()),
        };
        let mut start = 0;
        for &(m, end) in &self.sets {
            let idx = &self.set_idx[start..end];
            for c in cols {
                let off = c.base.wrapping_sub(self.first);
                let lo = idx.partition_point(|&i| (i as usize) < c.first);
                let hi = idx.partition_point(|&i| (i as usize) < c.first + c.pos.len());
                if lo == hi {
                    continue;
                }
                let (from, to) = (start + lo, start + hi);
                let ok = |&[p, _]: &[u32; 2]| off.wrapping_sub(p as usize) <= last;
                let sets = &self.set_cols[from..to];
                // The positions ascend: the first column's heaps lie last, the last's first.
                let fits = if self.ascending {
                    ok(&sets[0]) && ok(&sets[sets.len() - 1])
                } else {
                    sets.iter().all(ok)
                };
                assert!(fits, "a column past the words");
                assert!(
                    [from, to - 1].iter().all(|&j| {
                        c.pos[self.set_idx[j] as usize - c.first] == self.set_cols[j][0] as usize
                    }),
                    "the columns' positions those of the words"
                );
                out.segs.push((off, from, to));
            }
            out.sets.push((m, out.segs.len()));
            start = end;
        }
        Some(out)
    }

    /// Whether every column reaches every register of 32 keys (or none): then the classes
    /// would only cost their runs (Grundy's game: its few heaps of values 192 or more in
    /// every window, class 6 or 7, let every column reach its 3 registers), and the lanes
    /// take the columns as they come.
    pub(super) fn all_registers(&self) -> bool {
        let all = (1u32 << self.regs32) - 1;
        self.sets.iter().all(|&(m, _)| m == all)
    }

    /// The columns `[p, word]` of [`LaneWords::classed`]'s runs.
    pub(super) fn set_cols(&self) -> &[[u32; 2]] {
        &self.set_cols
    }

    /// The column words of the rare values `range` (of those given to [`LaneWords::refresh`]).
    pub(super) fn rare(&self, range: std::ops::Range<usize>) -> Option<&[u32]> {
        self.rare.get(range)
    }
}

/// Columns of pair values for [`lane_marks`]: for each rare position `p` of `pos` (value `g`
/// in `val`), the column `(base − p, g)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Columns<'a> {
    pub(super) base: usize,
    pub(super) pos: &'a [usize],
    pub(super) val: &'a [u32],
    /// The values' [`LaneKeys::column_word`], which AVX2's lanes read (empty: the columns
    /// are not for them) …
    pub(super) word: &'a [u32],
    /// … those of [`LaneWords::rare`] from this index on.
    pub(super) first: usize,
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
/// one per 16-bit lane, their marks kept in registers of 16 keys a lane (a subtraction and a
/// shift a register per 32 pairs, two columns' marks ORed in by one `vpternlogd`, no store per
/// pair), then ORed into the rows. About three
/// times faster than a store per pair with 8 registers (Officers' columns, AVX-512 on Zen 4:
/// 0.13 against 0.43 ns a pair). With AVX2, 8 heaps at a time in 32-bit lanes
/// (`avx2::lane_marks`), and with NEON 8 at a time in 16-bit lanes (`neon::lane_marks`), which
/// read `words` (heaps covering every column's, and each column's word) instead of the values. With `all_common` the caller knows that every value of the
/// columns is common (no other heap of a pair is a rare position: the rare positions all lie
/// below half the heaps) and the class test per pair is left out (AVX2's words have it at no
/// cost). With `clear` the rows' first `width` bytes are cleared first (AVX2's lanes store their
/// marks where they would OR them: no separate clear). Returns false, having done nothing,
/// where it cannot run (the portable build, values wider than 16 bits, AVX2 or NEON without
/// words); the caller marks with [`mark_columns`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn lane_marks<T: Cell>(
    tier: Tier,
    rows: &mut [u8],
    stride: usize,
    width: usize,
    vals: &[T],
    cols: &[Columns<'_>],
    len: usize,
    keys: &LaneKeys,
    all_common: bool,
    words: Option<&LaneWords>,
    clear: bool,
) -> bool {
    if tier.lanes() == Lanes::None || T::BITS > 16 {
        return false;
    }
    let clear_rows = |rows: &mut [u8]| {
        if clear {
            rows.chunks_mut(stride)
                .take(len)
                .for_each(|row| row[..width].fill(0));
        }
    };
    if len == 0 || cols.is_empty() {
        clear_rows(rows);
        return true;
    }
    // (`used` then also a multiple of 64, within `stride` and within the rows.)
    assert!(
        width.is_multiple_of(64) && width <= stride && (len - 1) * stride + width <= rows.len()
    );
    let used = width.min(512);
    assert!(len <= vals.len());
    // Registers of 16 keys a lane on AVX-512, of 32 on AVX2 (half as many, at least 1).
    macro_rules! regs {
        ($set:ident, $($r:literal / $r2:literal),*) => {
            match (keys.regs, all_common) {
                $(
                    ($r, true) => $set::lane_marks::<T, $r2, true>(
                        rows, stride, used, vals, cols, len, keys,
                    ),
                    ($r, false) => $set::lane_marks::<T, $r2, false>(
                        rows, stride, used, vals, cols, len, keys,
                    ),
                )*
                _ => unreachable!("LaneKeys::REGS"),
            }
        };
    }
    // SAFETY (each): the tier's proof says the processor has what the kernel uses; the rows
    // are checked above, each column where it is used (a check of every column here, once a
    // call, took a quarter of the far chunks' own time with four chunks a thread: it grows
    // with the rare positions).
    #[cfg(target_arch = "x86_64")]
    match tier.lanes() {
        Lanes::None | Lanes::Neon => return false,
        Lanes::Avx2 => {
            let _proof = tier.avx2().expect("AVX2 lanes on an AVX2 tier");
            let Some(words) = words else {
                return false;
            };
            if words.all_registers() {
                let Some((first, heaps, rare)) = words.bytes_for_columns(cols) else {
                    return false;
                };
                macro_rules! words {
                    ($($r:literal / $r2:literal),*) => {
                        match keys.regs {
                            $($r => avx2::lane_marks::<$r2>(
                                rows, stride, used, heaps, rare, first, cols, len, keys,
                                clear.then_some(width),
                            ),)*
                            _ => unreachable!("LaneKeys::REGS"),
                        }
                    };
                }
                unsafe { words!(1 / 1, 4 / 2, 6 / 3, 8 / 4, 10 / 5, 12 / 6, 16 / 8) }
            } else {
                let Some(classed) = words.classed(cols, len) else {
                    return false;
                };
                let (heaps, set_cols) = (&words.bytes[..], words.set_cols());
                macro_rules! classed {
                    ($($r:literal / $r2:literal),*) => {
                        match keys.regs {
                            $($r => avx2::lane_marks_classed::<$r2>(
                                rows, stride, used, heaps, set_cols, &classed, len, keys,
                                clear.then_some(width),
                            ),)*
                            _ => unreachable!("LaneKeys::REGS"),
                        }
                    };
                }
                unsafe { classed!(1 / 1, 4 / 2, 6 / 3, 8 / 4, 10 / 5, 12 / 6, 16 / 8) }
            }
        }
        Lanes::Avx512Bw => {
            let _proof = tier
                .avx512bw()
                .expect("AVX-512 BW lanes on an AVX-512 tier");
            clear_rows(rows);
            unsafe {
                regs!(
                    avx512bw,
                    1 / 1,
                    4 / 4,
                    6 / 6,
                    8 / 8,
                    10 / 10,
                    12 / 12,
                    16 / 16
                )
            }
        }
        Lanes::Vbmi => {
            let _proof = tier.avx512vbmi().expect("VBMI lanes on the VBMI tier");
            clear_rows(rows);
            unsafe {
                regs!(
                    avx512vbmi,
                    1 / 1,
                    4 / 4,
                    6 / 6,
                    8 / 8,
                    10 / 10,
                    12 / 12,
                    16 / 16
                )
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    match tier.lanes() {
        Lanes::None | Lanes::Avx2 | Lanes::Avx512Bw | Lanes::Vbmi => return false,
        Lanes::Neon => {
            let _proof = tier.neon().expect("NEON lanes on the NEON tier");
            let Some((first, heaps)) = words.and_then(|w| w.for_columns(cols)) else {
                return false;
            };
            // NEON reads the words' low 16 bits, where the padding past the heaps is no
            // different from a value: its columns stay among the heaps (8 words past them).
            let heaps = &heaps[..heaps.len() - LaneWords::PAST];
            clear_rows(rows);
            macro_rules! words {
                ($($r:literal),*) => {
                    match keys.regs {
                        $($r => neon::lane_marks::<$r>(
                            rows, stride, used, heaps, first, cols, len, keys,
                        ),)*
                        _ => unreachable!("LaneKeys::REGS"),
                    }
                };
            }
            // 16-bit lanes: registers of 16 keys, as many as the keys say.
            unsafe { words!(1, 4, 6, 8, 10, 12, 16) }
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (rows, stride, vals, keys, clear_rows);
        return false;
    }
    #[allow(unreachable_code)]
    true
}

/// How the scan's head in lanes ([`head_lanes`]) numbers the rare values of a mask: a value
/// without the mask's lowest bit `b` (the same map as [`LaneKeys`], here for the rare values,
/// which it tells apart too: bit `b` is the parity of the others), so that the rare values below
/// `2^k` get the keys below `2^(k−1)`. A heap's head is a set of `32 · regs` keys; the rare
/// values with a larger key are not marked by it, so a head is of use to a heap only when every
/// rare value it looks for lies below [`HeadKeys::limit`].
#[derive(Debug, Clone)]
pub(super) struct HeadKeys {
    mask: u32,
    /// The bits below `b`.
    low: u32,
    /// Registers of 32 keys: one of [`HeadKeys::REGS`].
    regs: usize,
    /// Every rare value below this has a key below `32 · regs`.
    limit: u32,
    /// For each value below 512: its key (rare or not) …
    key_of: [u8; 512],
    /// … and 1 where it is rare and its key below `32 · regs`, else 0.
    rare: [u8; 512],
    /// The limit of each register count of [`HeadKeys::REGS`] up to `regs` (0 past it).
    limits: [u32; 6],
}

impl HeadKeys {
    /// The register counts [`head_lanes`] is compiled for (1, for tests, stops at rare values
    /// near 64).
    pub const REGS: [usize; 6] = [1, 2, 3, 4, 5, 8];

    /// A word of [`HeadKeys::word`] that never gives a key: the pairs a head leaves out.
    pub(super) const NONE: u16 = 1 << 9;

    /// The keys of the mask's rare values in `regs` registers of 32 (one of
    /// [`HeadKeys::REGS`]), when the mask's lowest bit is below bit 8 and it fits 16 bits
    /// (else `None`).
    pub(super) fn new(mask: u32, regs: usize) -> Option<HeadKeys> {
        let b = mask.trailing_zeros();
        if mask == 0 || b >= 8 || mask > 0xFFFF || !Self::REGS.contains(&regs) {
            return None;
        }
        let low = (1u32 << b) - 1;
        let keys = 32 * regs as u32;
        let rare = |v: u32| crate::classes::is_rare(v, mask);
        let limit = (0..1 << 16)
            .find(|&v| rare(v) && key_without(v, low) >= keys)
            .unwrap_or(1 << 16);
        let limit_of = |regs: usize| {
            let keys = 32 * regs as u32;
            (0..1 << 16)
                .find(|&v| rare(v) && key_without(v, low) >= keys)
                .unwrap_or(1 << 16)
        };
        let limits = Self::REGS.map(|r| if r <= regs { limit_of(r) } else { 0 });
        let mut hk = HeadKeys {
            mask,
            low,
            regs,
            limit,
            key_of: [0; 512],
            rare: [0; 512],
            limits,
        };
        for v in 0..512u32 {
            let k = key_without(v, low);
            hk.key_of[v as usize] = k as u8;
            hk.rare[v as usize] = u8::from(rare(v) && k < keys);
        }
        Some(hk)
    }

    /// What [`head_lanes`] reads of a heap of value `v` (below 512): its key (below 256), and
    /// bit 8 set where `v` is rare. The XOR of two words is the key of the pair's value, with
    /// bit 8 set where the value is common (one heap rare, the other not): no key then (every
    /// key of the registers is below 256).
    #[inline(always)]
    pub(super) fn word(&self, v: u32) -> u16 {
        debug_assert!(v < 512);
        (key_without(v, self.low) & 0xFF) as u16
            | u16::from(crate::classes::is_rare(v, self.mask)) << 8
    }

    /// Every rare value below this is marked by a head that meets it.
    pub(super) fn limit(&self) -> u32 {
        self.limit
    }

    /// Registers of 32 keys.
    pub(super) fn regs(&self) -> usize {
        self.regs
    }

    /// The fewest registers of [`HeadKeys::REGS`], at most the keys', whose keys hold every rare
    /// value below `bound` (at most [`HeadKeys::limit`]); 0 for a bound of 0 (no head wanted).
    pub(super) fn regs_for(&self, bound: u32) -> usize {
        debug_assert!(bound <= self.limit);
        if bound == 0 {
            return 0;
        }
        let i = self.limits.iter().position(|&l| l >= bound).unwrap_or(0);
        Self::REGS[i].min(self.regs)
    }
}

/// The scan's head in lanes: for each heap `i < count`, `out[i]` is the set of the keys below
/// `32 · regs` of `left[i + c] ^ right[c]` for every `c < right.len()`, `right` =
/// `cols.right()` (key `k` is bit `k & 31` of word `k >> 5`; the other words 0), the words
/// of [`HeadKeys::word`]: the rare values of
/// the pairs `(a_i + c, q_c)` of consecutive heaps whose first parts `a_i + c` are consecutive
/// (in `left`) and whose second parts `q_c` are the same for every heap (in `right`).
/// With AVX2, 8 heaps at a time, one per 32-bit lane, as step 1's lanes ([`lane_marks`]): an
/// XOR, a shift and an OR a register a column, no per-pair branch or store, and only the
/// columns that can reach the register ([`HeadColumns`]: `cols` when they fit these heaps'
/// words, else made here); with AVX-512 F, the same 16 heaps at a time, two columns a
/// `vpternlogd`; with NEON, 8 in 16-bit lanes. Each lane group (8 heaps on AVX2 and NEON, 16
/// on AVX-512) takes the fewest
/// registers whose keys hold the rare values below the largest of its heaps' `bounds` (a
/// heap's least open common value, at most [`HeadKeys::limit`]; 0 for a heap that wants no
/// head): the keys past them are not looked for (Officers at 2^20: 3.9 registers a group of 8
/// on average instead of 5). A group whose bounds are all 0 gets empty sets on the vector
/// tiers; the portable loop (off by default) marks every register for every heap (more marks
/// of real pairs, right either way). Needs
/// `out.len() ≥ count`, `bounds.len() ≥ count` and `left.len() ≥` `count` rounded up to 32,
/// plus `cols.right().len()`; every word below 2^16 (in 32 bits: AVX2 XORs the heaps' words straight
/// from memory and broadcasts a column's with one load).
#[inline(always)]
pub(super) fn head_lanes(
    tier: Tier,
    left: &[u32],
    cols: &HeadColumns,
    count: usize,
    keys: &HeadKeys,
    bounds: &[u32],
    out: &mut [[u32; 8]],
) {
    let right = cols.right();
    assert!(out.len() >= count && left.len() >= count.next_multiple_of(32) + right.len());
    assert!(bounds.len() >= count && bounds[..count].iter().all(|&b| b <= keys.limit));
    debug_assert!(left.iter().all(|&l| l < 1 << 16));
    // The lanes of a group: its first heap, its heap count, its registers, the sets from its
    // first heap on.
    type Group<'a> = dyn FnMut(usize, usize, usize, &mut [[u32; 8]]) + 'a;
    // The groups of `group` heaps, each with its registers.
    let groups = |group: usize, out: &mut [[u32; 8]], lanes: &mut Group<'_>| {
        for h0 in (0..count).step_by(group) {
            let n = group.min(count - h0);
            let most = bounds[h0..h0 + n].iter().copied().max().unwrap_or(0);
            match keys.regs_for(most) {
                0 => out[h0..h0 + n].fill([0; 8]),
                regs => lanes(h0, n, regs, &mut out[h0..]),
            }
        }
    };
    // The columns by register, for the registers of the keys and these heaps' words (made
    // again if those given are not).
    let mut made: Option<HeadColumns> = None;
    #[cfg(target_arch = "x86_64")]
    if let Some(_proof) = tier.avx512bw() {
        let cols = cols.fit(&mut made, left, keys.regs, 5);
        return groups(16, out, &mut |h0, n, regs, out| {
            // SAFETY: the tier's proof says the processor has AVX-512 F; `left[h0..]` holds
            // `right.len()` + 15 words and more (checked above, h0 a multiple of 16).
            unsafe { avx512bw::head_lanes(&left[h0..], cols, n, regs, out) }
        });
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(_proof) = tier.avx2() {
        let cols = cols.fit(&mut made, left, keys.regs, 5);
        return groups(8, out, &mut |h0, n, regs, out| {
            // SAFETY: the tier's proof says the processor has AVX2; `left[h0..]` holds
            // `right.len()` + 7 words and more (checked above, h0 a multiple of 8).
            unsafe { avx2::head_lanes(&left[h0..], cols, n, regs, out) }
        });
    }
    #[cfg(target_arch = "aarch64")]
    if let Some(_proof) = tier.neon() {
        macro_rules! regs {
            ($h0:ident, $n:ident, $regs:ident, $out:ident, $($r:literal / $r2:literal),*) => {
                match $regs {
                    // SAFETY: the tier's proof says the processor has NEON; bounds checked
                    // above ($h0 a multiple of 8).
                    $( $r => unsafe { neon::head_lanes::<$r2>(&left[$h0..], right, $n, $out) }, )*
                    _ => unreachable!("HeadKeys::REGS"),
                }
            };
        }
        // 16-bit lanes: twice as many registers of 16 keys.
        return groups(8, out, &mut |h0, n, regs, out| {
            regs!(h0, n, regs, out, 1 / 2, 2 / 4, 3 / 6, 4 / 8, 5 / 10, 8 / 16)
        });
    }
    let _ = (tier, groups);
    portable::head_lanes(left, right, count, keys.regs, out);
}

/// A lane group's head ([`head_lanes`]) written out heap by heap: register `w < regs` is
/// `register(w)`, `L` lanes of 32 keys (one a heap), the others zero; heap `k < count` gets word
/// `w` from lane `k` of register `w`. Shared by the x86-64 tiers' `head_lanes`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn head_sets<const L: usize>(
    regs: usize,
    count: usize,
    out: &mut [[u32; 8]],
    mut register: impl FnMut(usize) -> [u32; L],
) {
    assert!(count <= L && regs <= 8 && out.len() >= count);
    let mut lanes = [[0u32; L]; 8];
    for (w, lane) in lanes.iter_mut().enumerate().take(regs) {
        *lane = register(w);
    }
    for (k, set) in out[..count].iter_mut().enumerate() {
        *set = std::array::from_fn(|w| lanes[w][k]);
    }
}

/// The columns of [`head_lanes`] (the words `right`), and by the register each can reach: a
/// pair's register of 32 keys is bits 5..7 of the XOR of its words (of 16 keys, bits 4..7), so
/// a column whose word has those bits `k` reaches register `w` only where some heap's word has
/// them `k ^ w`. The heads' heaps are the first ones, of small values (Officers and Grundy's
/// game: every word of the first 1,800 heaps below 32), so there a column reaches one register
/// of 32 keys, where every register of every column was marked: on AVX2, 3 vector
/// operations a column and group of 8 heaps instead of 3 a register (about 3.9 registers a
/// group on Officers). Each column of register `w` keeps its word XORed with the register's
/// first key, so that the pair's key lies in `0..32` (`0..16`) exactly where it is in that
/// register. Made once a block: the columns are the same for every chunk. The AVX-512 tiers
/// run AVX2's head on these too: their own, 32 heaps in 16-bit lanes over every register of
/// every column, was slower on Officers (tenth session, `results/avx2-methods.md` §16).
#[derive(Debug, Clone, Default)]
pub(super) struct HeadColumns {
    right: Vec<u32>,
    /// Keys a register: `1 << bits` (5 or 4).
    bits: u32,
    /// Registers the columns are sorted for.
    regs: usize,
    /// Bits `bits..8` of every heap's word that the columns may meet are a subset of these.
    high: u32,
    /// Register `w`'s columns are `cols[start[w]..start[w + 1]]`: `[c, right[c] ^ w << bits]`.
    cols: Vec<[u32; 2]>,
    start: [usize; 17],
}

impl HeadColumns {
    /// The columns `right` (words below 2^16) by register, for `regs` registers of 32 keys (at
    /// most 8), to meet heaps whose words are among `left` (any that [`head_lanes`] is then
    /// given), in the form `tier` reads.
    pub(super) fn new(tier: Tier, left: &[u32], right: &[u32], regs: usize) -> HeadColumns {
        if tier.sorts_head_columns() {
            return Self::of_width(left, right, regs, 5);
        }
        // NEON's and the portable loop read `right` only.
        HeadColumns {
            right: right.to_vec(),
            ..HeadColumns::default()
        }
    }

    /// [`HeadColumns::new`] for `regs` registers of `1 << bits` keys.
    fn of_width(left: &[u32], right: &[u32], regs: usize, bits: u32) -> HeadColumns {
        assert!((bits == 5 && regs <= 8 || bits == 4 && regs <= 16) && right.len() < 1 << 31);
        // (An OR of them all, which the compiler vectorizes: a test a word was 15 % of this.)
        assert!(right.iter().fold(0, |a, &q| a | q) < 1 << 16);
        let high = Self::high_of(left, bits);
        let classes = 256 >> bits;
        // The columns in order of class (bits `bits..8`), by counting, in `WAYS` interleaved
        // parts of the columns with counters each: one part's counters are a chain through
        // memory when consecutive columns share a class (a store, then its load), about 5
        // cycles a column, so the parts run side by side (this was 2 % of Grundy's game).
        const WAYS: usize = 4;
        // (Below 16 for the compiler too.)
        let class = |q: u32| (q >> bits) as usize & (classes - 1) & 15;
        let part = right.len().div_ceil(WAYS);
        // Column i of each part, with its part.
        let ways = |i: usize| {
            (0..WAYS)
                .map(move |j| (j, j * part + i))
                .filter(|&(_, c)| c < right.len())
        };
        let mut count = [[0u32; 16]; WAYS];
        for i in 0..part {
            for (j, c) in ways(i) {
                count[j][class(right[c])] += 1;
            }
        }
        // Class k's columns start at first[k], part j's of them at at[j][k] (the parts' in
        // order, so that the columns stay in order within a class).
        let mut first = [0usize; 17];
        let mut at = [[0u32; 16]; WAYS];
        let mut next = 0u32;
        for k in 0..classes {
            first[k] = next as usize;
            for j in 0..WAYS {
                at[j][k] = next;
                next += count[j][k];
            }
        }
        first[classes] = next as usize;
        let mut sorted = vec![[0u32; 2]; right.len()];
        for i in 0..part {
            for (j, c) in ways(i) {
                let q = right[c];
                let to = &mut at[j][class(q)];
                sorted[*to as usize] = [c as u32, q];
                *to += 1;
            }
        }
        let mut hc = HeadColumns {
            right: right.to_vec(),
            bits,
            regs,
            high,
            cols: Vec::with_capacity(right.len() * (high.count_ones() as usize + 1)),
            start: [0; 17],
        };
        for w in 0..regs {
            hc.start[w] = hc.cols.len();
            let xw = (w as u32) << bits;
            // Heaps' words with class `p` (a subset of `high`) meet columns of class p ^ w.
            for p in (0..classes).filter(|&p| p & !high as usize == 0) {
                let k = p ^ w;
                let cols = sorted[first[k]..first[k + 1]].iter();
                hc.cols.extend(cols.map(|&[c, q]| [c, q ^ xw]));
            }
        }
        let end = hc.cols.len();
        hc.start[regs..].fill(end);
        hc
    }

    /// Bits `bits..8` of any of the words, shifted down.
    fn high_of(words: &[u32], bits: u32) -> u32 {
        (words.iter().fold(0, |a, &l| a | l) & 0xFF) >> bits
    }

    /// The columns' words.
    pub(super) fn right(&self) -> &[u32] {
        &self.right
    }

    /// The columns of register `w`: `[c, right[c] ^ w << bits]`, every `c` below
    /// `right().len()`.
    pub(super) fn of(&self, w: usize) -> &[[u32; 2]] {
        &self.cols[self.start[w]..self.start[w + 1]]
    }

    /// These columns if they fit `left`, `regs` and `bits` ([`HeadColumns::fits`]), else
    /// those made for them in `made`.
    fn fit<'a>(
        &'a self,
        made: &'a mut Option<HeadColumns>,
        left: &[u32],
        regs: usize,
        bits: u32,
    ) -> &'a HeadColumns {
        if self.fits(left, regs, bits) {
            self
        } else {
            made.insert(Self::of_width(left, &self.right, regs, bits))
        }
    }

    /// Whether the columns are for `regs` registers of `1 << bits` keys and every heap word
    /// of `left`.
    fn fits(&self, left: &[u32], regs: usize, bits: u32) -> bool {
        self.bits == bits && self.regs >= regs && Self::high_of(left, bits) & !self.high == 0
    }
}

/// Marks in `row` the rare values below `end` (rounded up to 32, at most 512 and the row's
/// length) whose key is in `set` (as [`head_lanes`] gives it): the pairs of a heap's head, so
/// that they are no longer targets of its scan.
#[inline(always)]
pub(super) fn head_marks(tier: Tier, row: &mut [u8], set: &[u32; 8], keys: &HeadKeys, end: usize) {
    let used = end.next_multiple_of(32).min(512).min(row.len() / 32 * 32);
    #[cfg(target_arch = "x86_64")]
    if let Some(_proof) = tier.avx2() {
        // SAFETY: the tier's proof says the processor has AVX2; `used` is checked by the kernel.
        return unsafe { avx2::head_marks(row, set, &keys.key_of, &keys.rare, used) };
    }
    #[cfg(target_arch = "aarch64")]
    if let Some(_proof) = tier.neon() {
        // SAFETY: the tier's proof says the processor has NEON; `used` is checked by the kernel.
        return unsafe { neon::head_marks(row, set, &keys.key_of, &keys.rare, used) };
    }
    let _ = tier;
    portable::head_marks(row, set, &keys.key_of, &keys.rare, used);
}

/// Small mode's scan: `targets` (bit `v` for value `v < limit ≤ 64`) without the values of the
/// pairs `vals[a] ^ vals[r − a]`, `a` in `lo..hi`, folded 64 pairs at a time into a word of
/// values seen (the compiler vectorises the fold) until no target is left; with `WIDE`, pairs
/// of value `limit` or more mark nothing ([`small_bit`]). Needs `hi ≤ r + 1` and
/// `r − lo < vals.len()`. With AVX2, AVX-512 or NEON and byte values, whole chunks go to
/// `avx2::small_scan`, `avx512::small_scan` or `neon::small_scan`, which compare the chunks
/// left with one or two targets with each.
#[inline(always)]
pub(super) fn small_scan<T: Cell, const WIDE: bool>(
    tier: Tier,
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
            // SAFETY (both): the tier's proof says the processor has what the kernel uses;
            // bounds asserted above.
            if let Some(_proof) = tier.avx512vbmi() {
                (targets, a) = unsafe { avx512vbmi::small_scan(bytes, r, a, hi, targets) };
            } else if let Some(_proof) = tier.avx2() {
                (targets, a) = unsafe { avx2::small_scan(bytes, r, a, hi, targets) };
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    if let (Some(_proof), Some(bytes), true) = (tier.neon(), cast::<T, u8>(vals), limit <= 64) {
        // As the x86 kernels: every target below the limit.
        assert!(targets.checked_shr(limit).unwrap_or(0) == 0);
        // SAFETY: the tier's proof says the processor has NEON; bounds asserted above.
        (targets, a) = unsafe { neon::small_scan(bytes, r, a, hi, targets) };
    }
    let _ = tier;
    portable::small_scan::<T, WIDE>(vals, r, a, hi, targets, limit)
}

/// The chunks of 64 pairs from `a` on that lie below `hi`, for the kernels of small mode's scan
/// (`avx2::small_scan`, `avx512::small_scan`): the targets left and where it stopped. While more
/// than two targets are left, `seen(a, targets)` (the word of the values of the chunk at `a`,
/// or at least of those of `targets`) clears them; then `meets(a, one, two)` tells whether the chunk holds the targets `one` and `two`,
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
    seen: impl Fn(usize, u64) -> u64,
    wanted: impl Fn(u32) -> W,
    meets: impl Fn(usize, W, W) -> (bool, bool),
) -> (u64, usize) {
    while targets.count_ones() > 2 && a + 64 <= hi {
        targets &= !seen(a, targets);
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

/// A shift left by lanes as its one instruction (`vpsllvd`, `vpsllvq`: 0 in the lanes whose
/// count is the lane's width or more), on vectors `$vector` in registers `$register` with
/// `$features`. Rust's intrinsics (`_mm256_sllv_epi32/64`, `_mm512_sllv_epi64`) are written as
/// a generic shift with a select for the counts out of range, and LLVM keeps the select: with
/// counts widened from bytes it became a compare, a sign extension and a mask besides each
/// shift on AVX2 (Rust 1.95), which tripled small mode's fold of 64 values, and a compare
/// into a mask register each 8 values on AVX-512.
#[cfg(target_arch = "x86_64")]
macro_rules! exact_shift {
    (
        $(#[$doc:meta])* $name:ident, $instruction:literal, $vector:ty, $register:ident,
        $features:literal
    ) => {
        $(#[$doc])*
        #[inline]
        #[target_feature(enable = $features)]
        fn $name(a: $vector, count: $vector) -> $vector {
            let shifted: $vector;
            // SAFETY: one instruction of the features enabled, on registers: no memory,
            // stack or flags.
            unsafe {
                std::arch::asm!(
                    concat!($instruction, " {shifted}, {a}, {count}"),
                    shifted = lateout($register) shifted,
                    a = in($register) a,
                    count = in($register) count,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            shifted
        }
    };
}
#[cfg(target_arch = "x86_64")]
use exact_shift;

/// Small mode's far marks of a block of heaps: `far[j] |=` [`small_bit`]`(g ⊕ vals[start + j])`
/// for each column `(start, g)`. With AVX-512 (F), byte cells and a block of 64, the 64
/// words stay in registers across the columns (with AVX2, 32 of them at a time; the portable
/// loop reads and writes them once a column).
#[inline(always)]
pub(super) fn small_columns<T: Cell, const WIDE: bool>(
    tier: Tier,
    far: &mut [u64],
    vals: &[T],
    columns: &[(usize, u32)],
    limit: u32,
) {
    #[cfg(target_arch = "x86_64")]
    if let (Some(_proof), true) = (tier.avx512bw(), limit <= 64) {
        if let (Ok(block), Some(bytes)) =
            (<&mut [u64; 64]>::try_from(&mut *far), cast::<T, u8>(vals))
        {
            // SAFETY: the tier's proof says the processor has AVX-512 F.
            return unsafe { avx512bw::small_columns(block, bytes, columns, limit) };
        }
    }
    #[cfg(target_arch = "x86_64")]
    if let (Some(_proof), true) = (tier.avx2(), limit <= 64) {
        if let (Ok(block), Some(bytes)) =
            (<&mut [u64; 64]>::try_from(&mut *far), cast::<T, u8>(vals))
        {
            // SAFETY: the tier's proof says the processor has AVX2.
            return unsafe { avx2::small_columns(block, bytes, columns, limit) };
        }
    }
    let _ = tier;
    portable::small_columns::<T, WIDE>(far, vals, columns, limit);
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
/// values from `limit` on), all 64 at once with VBMI and byte cells: the other heaps
/// are bytes of the 64 values below `n`, picked with one byte permutation (with AVX2, 32 at
/// a time, with four 16-byte shuffles). `None` where it cannot run (another instruction set
/// or cell width, or `n < 64`); the caller marks them one by one.
#[inline(always)]
pub(super) fn near_small_marks<T: Cell>(
    tier: Tier,
    vals: &[T],
    n: usize,
    lanes: &NearLanes,
    limit: u32,
) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    if let (Some(_proof), true) = (tier.avx512vbmi(), n >= 64 && limit <= 64) {
        let window = &cast::<T, u8>(vals)?[n - 64..n];
        // SAFETY: the tier's proof says the processor has VBMI; the window holds 64.
        return Some(unsafe { avx512vbmi::near_marks(window, lanes, limit) });
    }
    #[cfg(target_arch = "x86_64")]
    if let (Some(_proof), true) = (tier.avx2(), n >= 64 && limit <= 64) {
        let window = &cast::<T, u8>(vals)?[n - 64..n];
        // SAFETY: the tier's proof says the processor has AVX2; the window holds 64.
        return Some(unsafe { avx2::near_marks(window, lanes, limit) });
    }
    let _ = (tier, vals, n, lanes, limit);
    None
}

/// Marks `left[a] ^ right[rr − a]` in `row` (values masked by `row.len() − 1`, a power of two)
/// for every `a` in `lo..hi`. Needs `hi ≤ left.len()`, `hi ≤ rr + 1` and `rr − lo < right.len()`.
#[inline(always)]
pub(super) fn mark_pairs<T: Cell>(
    tier: Tier,
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
    if let Some(_proof) = tier.avx2() {
        if let (Some(l), Some(r)) = (cast::<T, u8>(left), cast::<T, u8>(right)) {
            // SAFETY: the tier's proof says the processor has AVX2; bounds checked above.
            return unsafe { avx2::mark_pairs_u8(row, l, r, rr, lo, hi) };
        }
        if let (Some(l), Some(r)) = (cast::<T, u16>(left), cast::<T, u16>(right)) {
            // SAFETY: as above.
            return unsafe { avx2::mark_pairs_u16(row, l, r, rr, lo, hi) };
        }
    }
    let _ = tier;
    portable::mark_pairs(row, left, right, rr, lo, hi);
}

/// The least `v` with `row[v] == 0` and `class[v] != 0` ([`first_open`] for one value), 64 bytes
/// at a time with AVX-512, 32 with AVX2, 16 with NEON; the caller knows that there is none below `from`
/// (the search starts there, rounded down).
#[inline(always)]
pub(super) fn first_open_on(tier: Tier, row: &[u8], class: &[u8], from: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(_proof) = tier.avx512bw() {
        // SAFETY: the tier's proof says the processor has AVX-512 F and BW.
        return unsafe { avx512bw::first_open(row, class, from) };
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(_proof) = tier.avx2() {
        // SAFETY: the tier's proof says the processor has AVX2.
        return unsafe { avx2::first_open(row, class, from) };
    }
    #[cfg(target_arch = "aarch64")]
    if let Some(_proof) = tier.neon() {
        // SAFETY: the tier's proof says the processor has NEON.
        return unsafe { neon::first_open(row, class, from) };
    }
    let _ = tier;
    // Whole steps of 16 from `from` down to a multiple of 64 (rows are a multiple of 16).
    let from = (from & !63).min(row.len() & !63);
    match first_open::<1>(&row[from..], &class[from..])[0] {
        u32::MAX => u32::MAX,
        v => v + from as u32,
    }
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
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    macro_rules! on_cells {
        ($set:ident) => {{
            if let (Some(l), Some(r), Some(t)) = (
                cast::<T, u8>(left),
                cast::<T, u8>(right),
                cast_mut::<T, u8>(tg),
            ) {
                // SAFETY: the tier's proof says the processor has what the kernel
                // uses; bounds checked above.
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
    // The scan that reads the set the targets keep.
    match tg.set {
        TargetSet::Map => {}
        #[cfg(target_arch = "aarch64")]
        TargetSet::NeonKeys => {
            let _proof = tg.tier.neon().expect("NEON keys on the NEON tier");
            on_cells!(neon);
        }
        #[cfg(not(target_arch = "aarch64"))]
        TargetSet::NeonKeys => unreachable!("an aarch64 tier"),
        #[cfg(target_arch = "x86_64")]
        TargetSet::Avx2Keys => {
            let _proof = tg.tier.avx2().expect("AVX2 keys on an AVX2 tier");
            on_cells!(avx2);
        }
        #[cfg(target_arch = "x86_64")]
        TargetSet::Vbmi => {
            let _proof = tg.tier.avx512vbmi().expect("a VBMI set on the VBMI tier");
            on_cells!(avx512vbmi);
        }
        #[cfg(not(target_arch = "x86_64"))]
        TargetSet::Avx2Keys | TargetSet::Vbmi => unreachable!("x86-64 tiers"),
    }
    portable::scan(row, tg, left, right, rr, lo, hi)
}

/// [`scan`] over the whole chunks of 64 pairs `(a, r − a)`, `a` in `lo..end`, on the byte keys
/// of the values ([`ScanKeys`]; `end` from [`ScanKeys::chunks_end`], so that no heap `r − a` is
/// a rare position): a heap `a` that is a rare position is left out (its pair's value is
/// common), every other pair's key is looked up among the keys of the targets. `Ok(b)` once
/// every target is met, as [`scan`] returns it; `Err(end)` when the chunks ran out first.
/// Only with a vector set of targets ([`Tier::scans_keys`]: VBMI's 512-bit set of the values, or
/// AVX2's or NEON's set of their keys, 32 pairs a step), for 16-bit cells and values below 512: elsewhere
/// it does nothing and returns `Err(lo)`.
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
    if end <= lo || tg.width != 512 {
        return Err(lo);
    }
    let Some(t) = cast_mut::<T, u16>(tg) else {
        return Err(lo);
    };
    let check = || {
        assert!(
            (end - lo).is_multiple_of(64)
                && lo >= 1
                && keys.chunks_end(r, lo, end, 0) == end
                && row.len() >= 512
        )
    };
    // SAFETY (each): the tier's proof says the processor has what the kernel uses; the chunks
    // lie within the keys (checked: the right side's rare positions are the caller's matter,
    // not a bound).
    match t.set {
        TargetSet::Map => Err(lo),
        #[cfg(target_arch = "aarch64")]
        TargetSet::NeonKeys => {
            let _proof = t.tier.neon().expect("NEON keys on the NEON tier");
            check();
            // The targets' keys leave out the bit the scan's keys do.
            assert_eq!(t.low, (1 << keys.bit()) - 1, "keys of another mask");
            unsafe { neon::scan_keys(row, t, keys, r, lo, end) }
        }
        #[cfg(not(target_arch = "aarch64"))]
        TargetSet::NeonKeys => unreachable!("an aarch64 tier"),
        #[cfg(target_arch = "x86_64")]
        TargetSet::Avx2Keys => {
            check();
            // The targets' keys leave out the bit the scan's keys do.
            assert_eq!(t.low, (1 << keys.bit()) - 1, "keys of another mask");
            let _proof = t.tier.avx2().expect("AVX2 keys on an AVX2 tier");
            unsafe { avx2::scan_keys(row, t, keys, r, lo, end) }
        }
        #[cfg(target_arch = "x86_64")]
        TargetSet::Vbmi => {
            let _proof = t.tier.avx512vbmi().expect("a VBMI set on the VBMI tier");
            check();
            unsafe { avx512vbmi::scan_keys(row, t, keys, r, lo, end) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        TargetSet::Avx2Keys | TargetSet::Vbmi => unreachable!("x86-64 tiers"),
    }
}

/// The loop of the kernels' `open_set`: the set (value `v`: bit `v & 63` of word `v >> 6`) of
/// the values `v < end` with `row[v] == 0` and `class[v] != 0`, for rows of at most 512 values,
/// a multiple of 64; `open(i)` gives those bits for the 64 values from `i` on, which lie within
/// `row` and `class` (checked here).
#[inline(always)]
fn open_words(
    row: &[u8],
    class: &[u8],
    end: usize,
    mut open: impl FnMut(usize) -> u64,
) -> [u64; 8] {
    let len = row.len().min(512);
    assert!(len.is_multiple_of(64) && class.len() >= len);
    std::array::from_fn(|w| {
        let i = 64 * w;
        if i >= len || i >= end {
            return 0;
        }
        let bits = open(i);
        if end < i + 64 {
            bits & ((1u64 << (end - i)) - 1)
        } else {
            bits
        }
    })
}

/// [`open_words`] written into `set` (value `v`: bit `v & 7` of byte `v >> 3`) a 64-bit word at
/// a time; returns how many values it holds. Read back whole right after eight narrower
/// stores, the set would wait for them to reach the cache (Officers' finisher spent 180 cycles
/// a heap here).
#[inline(always)]
fn open_set_steps(
    set: &mut [u8; 64],
    row: &[u8],
    class: &[u8],
    end: usize,
    open: impl FnMut(usize) -> u64,
) -> usize {
    let words = open_words(row, class, end, open);
    for (word, bits) in set.chunks_exact_mut(8).zip(words) {
        word.copy_from_slice(&bits.to_le_bytes());
    }
    words.iter().map(|w| w.count_ones() as usize).sum()
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
