//! A scan's pairs in interleaved runs (results/avx2-methods.md §3).
//!
//! A scan goes through the pairs `(a, r − a)` of a split until every target is met. Pairs with
//! small `a` meet some targets soon and others late; pairs elsewhere in the split meet them at
//! other times. Taking the scan's steps in turn from a few runs that start at equal distances
//! through the range (the first at its start, each going up) meets the last target sooner:
//! counted on the values after the scan's head (`sparse/head.rs`), one step of 32 pairs a run
//! in turn, Officers at 2^20 1,999 pairs a heap in one run, 1,342 in two (the second down from
//! the middle), 1,236 in four (−38 %); Grundy's game at 2^21 2,357, 1,513, 1,330 (−44 %).
//!
//! The order is not part of exactness: the scan still ends only once every target is met or
//! every pair has been looked at.

/// The most runs a scan takes its steps from.
pub(crate) const MOST_RUNS: usize = 4;

/// Steps a run has at least: a shorter range is scanned in fewer runs.
const MIN_STEPS: usize = 16;

/// The whole steps of a scan's range split into runs: run `j` is the pairs `at[j]..end[j]`
/// still to look at (a whole number of steps from where it started).
#[derive(Debug, Clone, Copy)]
pub(super) struct Runs {
    pub(super) at: [usize; MOST_RUNS],
    pub(super) end: [usize; MOST_RUNS],
    /// Runs in use (at least 1).
    pub(super) k: usize,
    /// The end of the whole steps: the pairs from here to the range's end are left to the
    /// caller, after the runs.
    pub(super) top: usize,
}

impl Runs {
    /// The whole steps of `step` pairs from `lo` before `hi` in `want` runs (1, 2 or 4: 3 is
    /// taken as 2, more as [`MOST_RUNS`]), fewer when a run would have fewer than
    /// [`MIN_STEPS`] steps: run `j` of `k` starts at step `j · steps / k`.
    #[inline(always)]
    pub(super) fn new(lo: usize, hi: usize, step: usize, want: usize) -> Runs {
        let steps = hi.saturating_sub(lo) / step;
        // 1, 2 or 4 runs (the vector loops take a batch of 4 steps from them).
        let k = match want.min(MOST_RUNS).min(steps / MIN_STEPS) {
            0 | 1 => 1,
            2 | 3 => 2,
            _ => 4,
        };
        let mut at = [lo; MOST_RUNS];
        let mut end = [lo; MOST_RUNS];
        for j in 0..k {
            at[j] = lo + step * (j * steps / k);
            end[j] = lo + step * ((j + 1) * steps / k);
        }
        Runs {
            at,
            end,
            k,
            top: lo + step * steps,
        }
    }

    /// The positions and ends of the first `K` runs, each word read alone. Where they were
    /// just stored a word at a time, the one 32-byte load that the compiler makes of four
    /// reads is not forwarded from those stores and waits for them to reach the cache
    /// (`avx2::scan_few_u8_runs`: about a tenth of its time, on its way in and out).
    #[inline(always)]
    pub(super) fn first<const K: usize>(&self) -> ([usize; K], [usize; K]) {
        // SAFETY (both): a read of a word of `self`.
        let word = |w: &usize| unsafe { std::ptr::read_volatile(w) };
        (
            std::array::from_fn(|j| word(&self.at[j])),
            std::array::from_fn(|j| word(&self.end[j])),
        )
    }

    /// Stores the positions of the first `K` runs a word at a time (as [`Runs::first`] says).
    #[inline(always)]
    pub(super) fn set_first<const K: usize>(&mut self, at: &[usize; K]) {
        for (to, &a) in self.at.iter_mut().zip(at) {
            // SAFETY: a write of a word of `self`.
            unsafe { std::ptr::write_volatile(to, a) };
        }
    }

    /// Every pair from the range's start before this has been looked at (the first run's
    /// progress): where a scan that stops may say it stopped.
    #[inline(always)]
    pub(super) fn low(&self) -> usize {
        self.at[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cover_the_whole_steps_once() {
        for (lo, hi, want) in [(1, 5000, 4), (7, 7 + 32 * 64, 4), (3, 900, 2), (1, 40, 4)] {
            let r = Runs::new(lo, hi, 32, want);
            let mut seen = Vec::new();
            for j in 0..r.k {
                assert!((r.end[j] - r.at[j]).is_multiple_of(32));
                assert!(r.end[j] - r.at[j] >= MIN_STEPS * 32 || r.k == 1);
                seen.extend(r.at[j]..r.end[j]);
            }
            let want_pairs: Vec<usize> = (lo..r.top).collect();
            assert_eq!(seen, want_pairs, "{lo}..{hi} in {want}");
            assert!(hi - r.top < 32 && r.low() == lo);
        }
        assert_eq!(Runs::new(1, 5000, 32, 4).k, 4);
        assert_eq!(Runs::new(1, 1000, 32, 4).k, 1);
    }
}
