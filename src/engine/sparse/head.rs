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

use super::*;
use crate::engine::kernels::{head_lanes, HeadKeys};

/// The heads of a chunk's heaps: the key set of heap `n0 + i` and where its scan goes on
/// (`at0 + i`, in the first split).
pub(super) struct Heads {
    pub(super) sets: Vec<[u32; 8]>,
    pub(super) at0: usize,
}

impl Heads {
    /// Heap `i`'s set of keys and the first pair after its head.
    pub(super) fn of(&self, i: usize) -> (&[u32; 8], usize) {
        (&self.sets[i], self.at0 + i)
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
        if self.head_pairs == 0 {
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

    /// The heads of the chunk of heaps `n0..n0 + count` for a far pass `part` that scans, when
    /// the engine has them and they apply: cells of at most 16 bits and values below 512, a
    /// fresh scan (not resumed), and every heap's head within its first split's pairs.
    pub(super) fn heads<T: Cell>(
        &self,
        vals: &[T],
        n0: usize,
        count: usize,
        part: Part,
    ) -> Option<Heads> {
        let keys = self.head_keys.as_ref()?;
        let x = self.head_pairs;
        let s = self.moves.leave_two.first()?;
        let lim = part.lim;
        if x == 0 || count == 0 || T::BITS > 16 || self.width > 512 || part.resume || lim <= x {
            return None;
        }
        // Heap n0 + i scans from a0 = max(1, base + i), base = n0 + 1 − t − lim; its head is
        // the pairs a = base + i + c, c < x, those with a ≥ 1.
        let base = (n0 + 1).checked_sub(s.take)? as isize - lim as isize;
        if base + (x as isize) < 1 {
            return None;
        }
        for i in 0..count {
            let r = (n0 + i).checked_sub(s.take)?;
            if base + (i + x) as isize > (last_pair(r, s.unequal) + 1) as isize {
                return None;
            }
        }
        let left: Vec<u32> = (0..count.next_multiple_of(8) + x)
            .map(|k| {
                let a = base + k as isize;
                match usize::try_from(a) {
                    Ok(a) if a >= 1 && a < lim => keys.word(vals[a].get()),
                    _ => HeadKeys::NONE,
                }
            })
            .collect();
        let right: Vec<u32> = (0..x).map(|c| keys.word(vals[lim - 1 - c].get())).collect();
        let mut sets = vec![[0u32; 8]; count];
        head_lanes(self.tier, &left, &right, count, keys, &mut sets);
        Some(Heads {
            sets,
            at0: (base + x as isize) as usize,
        })
    }
}
