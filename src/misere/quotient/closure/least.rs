//! The least failing position of a candidate in the *heap-count order*: positions compared by
//! their copies of the largest heap first, then of the next heap down, and so on (a position
//! with a larger heap than any of another's is the larger). This is the order MisereSolver's
//! recalibration is guided by (its "lexicographically least failure"); the breadth-first
//! closure names instead one of the fewest heaps, and on some codes (0.146 at heap 22) the
//! search guided by those creeps where the search guided by these ends (see [`super::super`]).
//!
//! # The search
//! Number the distinct transitions `t_1 < … < t_T` by their least heap. A position is a
//! vector of copies `(c_T, …, c_1)`; the order compares `c_T` first. Depth first,
//! `explore(d, s)` visits the positions that add copies of `t_1 … t_d` to the one that led to
//! state `s`: first those with no more copies of `t_d` (`explore(d − 1, s)`), then one more
//! copy, and so on, so positions are visited in increasing order. A position whose state was
//! already visited is cut off with everything it leads to at this depth (more copies of
//! `t_d`, any copies below). That loses no least failure: a position `u` cut off had an earlier,
//! hence smaller, position `u₀` with the same state; a failing position `F` beyond it is
//! `u + X` with `X ≥ 0` (the cut-off positions agree with `u` above depth `d` and have at least
//! its copies of `t_d`), and `u₀ + X` has `F`'s state (a state is a function of the position's
//! heaps in any order), so it fails too and is smaller, as the order is compatible with adding
//! heaps. So the first failing position visited is the least. Each state is visited once and
//! tries each transition at most once from each depth it is visited at: the work of the
//! breadth-first closure, one gather a transition instead of one a distinct element.

use super::{Closure, ClosureError, Monoid, STOP_EVERY};

impl Closure {
    /// The least failing position (in the heap-count order above) of the candidate `m` whose
    /// heaps, in increasing order, have the elements and option elements `heaps`
    /// (`(heap, g, O(h))`, options sorted and distinct): `Some(heaps, largest first)`, or `None`
    /// when no position fails (the candidate predicts every outcome). At most `limit` states
    /// ([`ClosureError::TooMany`]); `stop` is called every [`STOP_EVERY`] states.
    pub fn least_failure(
        m: &Monoid,
        heaps: &[(usize, u32, Vec<u32>)],
        limit: usize,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Vec<usize>>, ClosureError> {
        let mut c = Closure::new(m, limit);
        for (h, g, opts) in heaps {
            debug_assert!(opts.windows(2).all(|p| p[0] < p[1]));
            c.register(*h, *g, opts);
        }
        let mut copies = vec![0u32; c.transitions.len()];
        let mut scratch = Search {
            bytes: vec![0u8; c.bytes_len()],
            gathered: vec![0u64; c.w],
            buf: vec![0u64; c.w + 1],
            stop,
        };
        // The empty position is an N-position with no move: never a failure.
        if c.explore(c.transitions.len(), 0, &mut copies, &mut scratch)? {
            let mut out = Vec::new();
            for (t, &k) in copies.iter().enumerate() {
                out.extend(std::iter::repeat_n(c.transition_heaps[t], k as usize));
            }
            out.sort_unstable_by(|a, b| b.cmp(a));
            return Ok(Some(out));
        }
        Ok(None)
    }

    /// Visits the positions adding copies of transitions `0 … d − 1` to the one (`copies`)
    /// that led to state `s`, in increasing order; true when one fails (then `copies` is it).
    fn explore(
        &mut self,
        d: usize,
        s: usize,
        copies: &mut [u32],
        scratch: &mut Search<'_>,
    ) -> Result<bool, ClosureError> {
        if d == 0 {
            return Ok(false);
        }
        let t = d - 1;
        let mut at = s;
        let mut added = 0;
        let found = loop {
            if self.explore(d - 1, at, copies, scratch)? {
                break true;
            }
            self.expand(at, &mut scratch.bytes);
            let g = self.gs[self.transition_g[t]];
            self.gather(&scratch.bytes, g, &mut scratch.gathered);
            let mut buf = std::mem::take(&mut scratch.buf);
            self.successor(at, t, &scratch.gathered, &mut buf);
            let seen = self.contains(&buf);
            let fails = !seen && self.fails(&buf);
            let next = self.len();
            if !seen && !fails {
                if next >= self.limit {
                    scratch.buf = buf;
                    copies[t] -= added;
                    return Err(ClosureError::TooMany);
                }
                self.insert(&buf, (at as u32, t as u32));
            }
            scratch.buf = buf;
            if seen {
                break false;
            }
            copies[t] += 1;
            added += 1;
            if fails {
                return Ok(true);
            }
            if next % STOP_EVERY == STOP_EVERY - 1 && (scratch.stop)() {
                return Err(ClosureError::Stopped);
            }
            at = next;
        };
        if !found {
            copies[t] -= added;
        }
        Ok(found)
    }

    /// Does the state `buf` break the misère rule (see [`Closure::admit`])?
    fn fails(&self, buf: &[u64]) -> bool {
        let a = (buf[0] & 0xffff_ffff) as usize;
        let moved = buf[0] >> 32 != 0;
        self.p[a] != (moved && buf[1] & 1 == 0)
    }
}

/// Buffers of the search, and its stop check.
struct Search<'a> {
    bytes: Vec<u8>,
    gathered: Vec<u64>,
    buf: Vec<u64>,
    stop: &'a dyn Fn() -> bool,
}
