//! The scan's head in lanes: the first pairs of each heap's far scan marked for 8 heaps at a
//! time ([`head_lanes`]), as step 1 marks its columns, instead of one heap at a time.
//!
//! The far scan of heap `n` (split `r = n − t`, block from `lim` on) goes through the pairs
//! `(a, r − a)` from `a0 = r + 1 − lim` up (the smaller parts before: their other part lies in
//! the block). Its first pairs meet most of its targets, each on the scan's costly per-hit
//! path. For the heaps `n0 + i` of a chunk, the pairs `(a0_i + c, lim − 1 − c)`, `c < X`, have
//! first parts consecutive in `i` and the same second part for every heap: one column a `c`,
//! whose rare values are marked in lanes into a set of keys a heap ([`HeadKeys`]). A heap whose
//! rare values below its bound all have keys there then marks the rare values its head met in
//! its row and starts its scan at `a0 + X` with the targets left; another heap scans from the
//! start (the marks are options of the heap either way: exactness does not depend on them).
//! The heaps' bounds (least open common values) are found before the heads, so that each lane
//! group takes only the registers that hold the rare values below its largest bound
//! (`HeadKeys::regs_for`; counted on the values, a heap's value standing for its bound: about
//! 3.9 registers of 32 keys a group of 8 on Officers instead of 5, 2.2 on Grundy's game
//! instead of 3). The heads' first parts are the first heaps, whose values are small (below
//! 64 for the first 1,800 heaps of Officers and Grundy's game), so a column's pairs fall in
//! the one register its second part's high key bits say: the columns are sorted by register
//! once a block (`HeadColumns`), and each register reads only its own (eighth session: 3
//! vector operations a column and group of 8 on AVX2 instead of 3 a register; AVX-512 BW's
//! 16-bit lanes read every register of every column: sorted, they were no faster).
//!
//! The portable loops store their head in the rows instead ([`Sparse::stored_heads`]): the
//! same columns marked a byte a pair by step 1's kernel, every value, no key sets. Their lane
//! head took a compare and a branch a pair and gained nothing; stored, 2048 pairs a heap cut
//! Officers and Grundy's game by about a third (the hits of those pairs no longer go through
//! the scan's per-hit path, and a stored pair costs less than a looked-up one). With the
//! witness search off, 1536 pairs do a little better (`Tier::head_pairs`).

use super::*;
use crate::engine::kernels::{head_lanes, HeadColumns, HeadKeys};

/// Heaps before heap 1 in the words of the first heaps (their words leave the pairs out): the
/// heads of the first heaps of a block start there for splits that take up to this many.
const HEAD_PAD: usize = 64;

/// The heads of a chunk's heaps: the key set of heap `n0 + i` and where its scan goes on
/// (`at0 + i`, in the first split).
pub(super) struct Heads {
    pub(super) sets: Vec<[u32; 8]>,
    pub(super) at0: usize,
}

impl Heads {
    /// Heap `i`'s set of keys (none when the head is stored in the rows: see
    /// [`Sparse::stored_heads`]) and the first pair after its head.
    pub(super) fn of(&self, i: usize) -> (Option<&[u32; 8]>, usize) {
        (self.sets.get(i), self.at0 + i)
    }
}

impl Sparse {
    /// The same engine with the scan's head in lanes over the first `pairs` pairs of each far
    /// scan (0: none) and, with `Some(regs)`, that many registers of 32 keys (one of
    /// [`HeadKeys::REGS`]) instead of as many as the values ask for; for tests and
    /// measurements.
    pub fn with_head(mut self, pairs: usize, regs: Option<usize>) -> Sparse {
        assert!(
            regs.is_none_or(|r| HeadKeys::REGS.contains(&r)),
            "head registers: one of {:?}",
            HeadKeys::REGS
        );
        self.head_pairs = pairs;
        self.head_regs = regs;
        self.head_keys = self.choose_head_keys();
        self
    }

    /// The keys of the heads: the fewest registers whose keys cover the rare values below all
    /// but 1 % of the values so far (a heap's least open common value, which bounds its
    /// targets, is its value for most heaps), unless [`Sparse::with_head`] said otherwise.
    pub(super) fn choose_head_keys(&self) -> Option<HeadKeys> {
        if self.head_pairs == 0 || self.tier.stores_head() {
            return None;
        }
        if let Some(regs) = self.head_regs {
            return HeadKeys::new(self.mask, regs);
        }
        let from = |limit: u32| -> u64 { self.hist.counts.iter().skip(limit as usize).sum() };
        let mut last = None;
        for &regs in &HeadKeys::REGS[1..] {
            match HeadKeys::new(self.mask, regs) {
                Some(k) if 100 * from(k.limit()) <= self.hist.len => return Some(k),
                k => last = k,
            }
        }
        last
    }

    /// Brings the words the heads read to the heaps of `vals` (those before the next block):
    /// the first heaps' (the heads' first parts, made again when the mask changes) and the
    /// latest `X` heaps' (their second parts, the same for every chunk of the block and of the
    /// next one), when the heads apply: cells of at most 16 bits, values below 512.
    pub(super) fn refresh_head<T: Cell>(&mut self, vals: &[T]) {
        let x = self.head_pairs;
        let keys = match &self.head_keys {
            Some(k) if x > 0 && T::BITS <= 16 && self.width <= 512 && vals.len() > x => k,
            _ => {
                self.head_lim = 0;
                return;
            }
        };
        // Heads start at a = j + 1 − t (j a heap of the block or the next, t the first split's
        // take) and go on x pairs: the words of heaps up to two blocks, x pairs and the last
        // lanes past them, after PAD heaps left out.
        let want = (2 * self.block_len() + x + 64).min(vals.len());
        if self.head_mask != self.mask || self.head_left.len() < HEAD_PAD + want {
            self.head_left.clear();
            self.head_left
                .resize(HEAD_PAD + 1, u32::from(HeadKeys::NONE));
            let words = vals[1..want].iter().map(|v| u32::from(keys.word(v.get())));
            self.head_left.extend(words);
            self.head_mask = self.mask;
        }
        let lim = vals.len();
        let right: Vec<u32> = (0..x)
            .map(|c| u32::from(keys.word(vals[lim - 1 - c].get())))
            .collect();
        self.head_cols = HeadColumns::new(self.tier, &self.head_left, &right, keys.regs());
        self.head_lim = lim;
    }

    /// Where the heads of heaps `n0..n0 + count` start in a far pass up to `lim`: heap `n0 + i`
    /// scans from a0 = max(1, base + i), base = n0 + 1 − t − lim (t the first split's take),
    /// and its head is the pairs a = base + i + c, c < the head's pairs, those with a ≥ 1.
    /// `base`, when some head has such a pair and every heap's head lies within its first
    /// split's pairs; shared by the heads in lanes ([`Sparse::heads`]) and stored in the rows
    /// ([`Sparse::stored_heads`]).
    fn head_base(&self, n0: usize, count: usize, lim: usize) -> Option<isize> {
        let x = self.head_pairs;
        let s = self.moves.leave_two.first()?;
        let base = (n0 + 1).checked_sub(s.take)? as isize - lim as isize;
        if base + (x as isize) < 1 {
            return None;
        }
        for i in 0..count {
            let r = (n0 + i).checked_sub(s.take)?;
            // A split of nothing has no pairs (and `last_pair` wants r ≥ 1).
            if r == 0 || base + (i + x) as isize > (last_pair(r, s.unequal) + 1) as isize {
                return None;
            }
        }
        Some(base)
    }

    /// The heads of the chunk of heaps `n0..n0 + count` for a far pass `part` that scans, when
    /// the engine has them and they apply: words for the heaps below `part.lim` (see
    /// [`Sparse::refresh_head`]), a fresh scan (not resumed), and every heap's head within its
    /// first split's pairs. `bounds[i]` is heap `n0 + i`'s least open common value: its head
    /// holds the rare values below it when that is at most the keys' limit (and is not looked
    /// at otherwise).
    pub(super) fn heads<T: Cell>(
        &self,
        vals: &[T],
        n0: usize,
        count: usize,
        part: Part,
        bounds: &[u32],
    ) -> Option<Heads> {
        let keys = self.head_keys.as_ref()?;
        let x = self.head_pairs;
        let lim = part.lim;
        if x == 0 || count == 0 || part.resume || lim != self.head_lim || vals.len() < lim {
            return None;
        }
        // The words before heap 1 are NONE.
        let base = self.head_base(n0, count, lim)?;
        if base + (HEAD_PAD as isize) < 0 {
            return None;
        }
        let from = (base + HEAD_PAD as isize) as usize;
        let left = self
            .head_left
            .get(from..from + count.next_multiple_of(32) + x)?;
        let wanted: Vec<u32> = bounds[..count]
            .iter()
            .map(|&b| if b <= keys.limit() { b } else { 0 })
            .collect();
        let mut sets = vec![[0u32; 8]; count];
        head_lanes(
            self.tier,
            left,
            &self.head_cols,
            count,
            keys,
            &wanted,
            &mut sets,
        );
        Some(Heads {
            sets,
            at0: (base + x as isize) as usize,
        })
    }

    /// The heads of the chunk of heaps `n0..n0 + count` (rows `stride` bytes apart) stored in
    /// their rows, where the tier does so ([`Tier::stores_head`]): each heap's first `X` pairs
    /// of its first split (`X` = the engine's head pairs) marked a byte a pair, every value
    /// (they are options of the heap: exactness does not depend on them), as step 1 marks its
    /// columns ([`mark_columns`]): pair `c` of heap `n0 + i` is `(base + i + c, lim − 1 − c)`,
    /// the same second part for every heap. No branch a pair and no key sets, where the lane
    /// head of the portable loops took a compare and a branch a pair; the heaps' hits in
    /// these pairs no longer go through the scan's per-hit path. The same conditions as
    /// [`Sparse::heads`]: a fresh scan and every head within its heap's first split.
    pub(super) fn stored_heads<T: Cell>(
        &self,
        rows: &mut [u8],
        vals: &[T],
        n0: usize,
        count: usize,
        part: Part,
    ) -> Option<Heads> {
        let x = self.head_pairs;
        let lim = part.lim;
        if !self.tier.stores_head() || x == 0 || count == 0 || part.resume || vals.len() < lim {
            return None;
        }
        let base = self.head_base(n0, count, lim)?;
        let (stride, wmask) = (self.stride(), self.width - 1);
        // Column c: first parts base + c + i, second part lim − 1 − c; the heaps whose first
        // part would be below 1 have no such pair (their scans start at 1).
        let mut whole = Vec::with_capacity(x);
        for c in 0..x {
            let g = vals[lim - 1 - c].get();
            match usize::try_from(base + c as isize) {
                Ok(q) if q >= 1 => whole.push((q, g)),
                _ => {
                    let j0 = (1 - base - c as isize) as usize;
                    if j0 < count {
                        let col = [(1, g)];
                        mark_columns(
                            &mut rows[j0 * stride..],
                            stride,
                            wmask,
                            vals,
                            &col,
                            count - j0,
                        );
                    }
                }
            }
        }
        mark_columns(rows, stride, wmask, vals, &whole, count);
        Some(Heads {
            sets: Vec::new(),
            at0: (base + x as isize) as usize,
        })
    }
}
