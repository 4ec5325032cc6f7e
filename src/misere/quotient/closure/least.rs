//! The least failing position of a candidate in the *heap-count order*: positions compared by
//! their copies of the largest heap first, then of the next heap down, and so on (a position
//! with a larger heap than any of another's is the larger). This is the order MisereSolver's
//! recalibration is guided by (its "lexicographically least failure"); the breadth-first
//! closure names instead one of the fewest heaps, and on some codes (0.146 at heap 22) the
//! search guided by those creeps where the search guided by these ends (see [`super::super`]).
//!
//! # The search
//! Number the distinct transitions `t_1 < … < t_T` by their least heap (heaps with one
//! transition are interchangeable, and the least of them gives the least position). A position
//! is a vector of copies `(c_T, …, c_1)`; the order compares `c_T` first, and is compatible
//! with adding heaps (`u < v` ⇒ `u + X < v + X`). Depth first, `explore(d, s)` visits the
//! positions that add copies of `t_1 … t_d` to the one that led to state `s`: first those with
//! no more copies of `t_d` (`explore(d − 1, s)`), then one more copy, and so on, so positions
//! are visited in increasing order. A position whose state was already visited is cut off
//! with everything it leads to at this depth (more copies of `t_d`, any copies below). That
//! loses no least failure: a position `u` cut off had an earlier, hence smaller, position `u₀`
//! with the same state; a failing position `F` beyond it is `u + X` with `X ≥ 0` (the
//! cut-off positions agree with `u` above depth `d` and have at least its copies of `t_d`),
//! and `u₀ + X` has `F`'s state (a state is a function of the position's heaps in any order),
//! so it fails too and is smaller. So the first failing position visited is the least.
//!
//! A failing position already known (the breadth-first closure's) bounds the search: once a
//! position past it is visited, none before it failed, so it (with each heap replaced by the
//! least of its transition) is the least.
//!
//! Each state is visited once; its signature is spread to bytes once and gathered once per
//! distinct element of the transitions tried from it (a stack of frames, one per state on the
//! path of the search): the work of the breadth-first closure.

use std::collections::HashMap;

use super::{Closure, ClosureError, Monoid, STOP_EVERY};

impl Closure {
    /// The least failing position (in the heap-count order above) of the candidate `m` whose
    /// heaps `1, 2, …` have the elements and option elements `heaps` (`(g, O(h))` of heap
    /// `i + 1` at `i`, options sorted and distinct), given that the position `bound` (heaps)
    /// fails: `Some(heaps, largest first)`, or `None` when no position fails (the candidate
    /// predicts every outcome; never when `bound` is given). At most `limit` states
    /// ([`ClosureError::TooMany`]); `stop` is called every [`STOP_EVERY`] states.
    pub fn least_failure(
        m: &Monoid,
        heaps: &[(u32, Vec<u32>)],
        bound: Option<&[usize]>,
        limit: usize,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Vec<usize>>, ClosureError> {
        let mut c = Closure::new(m, limit);
        let mut number: HashMap<&(u32, Vec<u32>), usize> = HashMap::new();
        for (i, key) in heaps.iter().enumerate() {
            debug_assert!(key.1.windows(2).all(|p| p[0] < p[1]));
            if let Some(t) = c.register(i + 1, key.0, &key.1) {
                number.insert(key, t);
            }
        }
        let nt = c.transitions.len();
        let bound = bound.map(|b| {
            let mut copies = vec![0u32; nt];
            for &h in b {
                copies[number[&heaps[h - 1]]] += 1;
            }
            copies
        });
        let mut copies = vec![0u32; nt];
        let mut search = Search {
            frames: Vec::new(),
            depth: 0,
            buf: vec![0u64; c.w + 1],
            bound,
            stop,
        };
        c.push_frame(&mut search, 0);
        // The empty position is an N-position with no move: never a failure.
        let found = match c.explore(nt, 0, &mut copies, &mut search)? {
            Found::No => return Ok(None),
            Found::Failure => copies,
            Found::Bound => search.bound.take().expect("a bound"),
        };
        let mut out = Vec::new();
        for (t, &k) in found.iter().enumerate() {
            out.extend(std::iter::repeat_n(c.transition_heaps[t], k as usize));
        }
        out.sort_unstable_by(|a, b| b.cmp(a));
        Ok(Some(out))
    }

    /// Makes state `s` the top frame of the search's stack (its signature spread to bytes, no
    /// gathers yet).
    fn push_frame(&self, search: &mut Search<'_>, s: usize) {
        if search.depth == search.frames.len() {
            search.frames.push(Frame {
                bytes: vec![0u8; self.bytes_len()],
                gathers: vec![0u64; self.gs.len() * self.w],
                done: vec![false; self.gs.len()],
            });
        }
        let f = &mut search.frames[search.depth];
        self.expand(s, &mut f.bytes);
        f.done.fill(false);
        search.depth += 1;
    }

    /// Visits the positions adding copies of transitions `0 … d − 1` to the one (`copies`)
    /// that led to state `s` (the top frame), in increasing order, until one fails (then
    /// `copies` is it) or passes the bound.
    fn explore(
        &mut self,
        d: usize,
        s: usize,
        copies: &mut [u32],
        search: &mut Search<'_>,
    ) -> Result<Found, ClosureError> {
        if d == 0 {
            return Ok(Found::No);
        }
        let t = d - 1;
        let (w, gi) = (self.w, self.transition_g[t]);
        let mut at = s;
        let mut added = 0;
        loop {
            match self.explore(d - 1, at, copies, search)? {
                Found::No => {}
                found => return Ok(found),
            }
            // The successor of `at` (the top frame) by transition `t`.
            let f = &mut search.frames[search.depth - 1];
            let gathered = &mut f.gathers[gi * w..(gi + 1) * w];
            if !f.done[gi] {
                f.done[gi] = true;
                self.gather(&f.bytes, self.gs[gi], gathered);
            }
            self.successor(at, t, gathered, &mut search.buf);
            copies[t] += 1;
            added += 1;
            if search.past_bound(copies) {
                return Ok(Found::Bound);
            }
            if self.contains(&search.buf) {
                break;
            }
            if self.fails(&search.buf) {
                return Ok(Found::Failure);
            }
            let next = self.len();
            if next >= self.limit {
                return Err(ClosureError::TooMany);
            }
            if next % STOP_EVERY == STOP_EVERY - 1 && (search.stop)() {
                return Err(ClosureError::Stopped);
            }
            let buf = std::mem::take(&mut search.buf);
            self.insert(&buf, (at as u32, t as u32));
            search.buf = buf;
            if at != s {
                search.depth -= 1;
            }
            self.push_frame(search, next);
            at = next;
        }
        if at != s {
            search.depth -= 1;
        }
        copies[t] -= added;
        Ok(Found::No)
    }

    /// Does the state `buf` break the misère rule (see [`Closure::admit`])?
    fn fails(&self, buf: &[u64]) -> bool {
        let a = (buf[0] & 0xffff_ffff) as usize;
        let moved = buf[0] >> 32 != 0;
        self.p[a] != (moved && buf[1] & 1 == 0)
    }
}

/// How a depth of the search ended.
enum Found {
    /// Every position of it visited (or cut off): none failed.
    No,
    /// A failing position (in the copies of the search).
    Failure,
    /// A position past the bound: the bound is the least failing position.
    Bound,
}

/// A state on the search's path: its signature one byte a bit, and its gathers by each
/// distinct element (`done`), made when first needed.
struct Frame {
    bytes: Vec<u8>,
    gathers: Vec<u64>,
    done: Vec<bool>,
}

/// The search's stack of frames (`depth` of them in use), a successor, the bound and the
/// stop check.
struct Search<'a> {
    frames: Vec<Frame>,
    depth: usize,
    buf: Vec<u64>,
    bound: Option<Vec<u32>>,
    stop: &'a dyn Fn() -> bool,
}

impl Search<'_> {
    /// Is the position `copies` past the bound (compared from the largest heap down)?
    fn past_bound(&self, copies: &[u32]) -> bool {
        self.bound
            .as_ref()
            .is_some_and(|b| copies.iter().rev().cmp(b.iter().rev()).is_gt())
    }
}
