//! The verification of a candidate quotient by *envelopes*: for each element `a` of the
//! candidate and each value of "the position has a move", the union and the intersection of
//! the signatures of all positions in that class. At most `2·|Q|` classes, each two bitsets
//! over `Q`, where the closure of [`super::closure`] keeps one state per distinct signature
//! (millions on codes whose `Φ` is not yet periodic: 0.644 has 1.8 million at heap 84 with
//! `|Q| = 108`, and each new heap passes over all of them).
//!
//! # Why the envelopes decide the same thing
//! With the notation of [`super::closure`]: adding heap `h` (element `g`, option elements
//! `O(h)`) to a position `G` with `Φ(G) = a` gives
//!
//! > `σ(Gh) = g⁻¹σ(G) ∪ C(a, O(h))`,  `g⁻¹σ = { z : gz ∈ σ }`,  `C(a, O) = ⋃_{y ∈ O} P/(ay)`.
//!
//! For fixed `a` and `h` the map `σ ↦ g⁻¹σ ∪ C` commutes with unions and with intersections
//! of sets (a preimage does, and `(A ∪ C) ∩ (B ∪ C) = (A ∩ B) ∪ C`). Let `U(a, m)` and
//! `L(a, m)` be the union and the intersection of `σ(G)` over all positions `G` with
//! `Φ(G) = a` and "has a move" `= m`. Every position is the empty one with heaps added one at
//! a time, so `U` and `L` of a class are the maps applied to `U` and `L` of the classes that
//! lead to it, joined (by `∪` for `U`, `∩` for `L`) over every class and heap that leads
//! there: a distributive data-flow problem whose solution over all paths is the fixpoint
//! reached by a worklist from the empty position's class `(1, no)` with `U = L = ∅`. Each
//! `U` only grows and each `L` only shrinks, so the worklist ends.
//!
//! The candidate predicts every outcome exactly when each position `G` satisfies the misère
//! rule `Φ(G) ∈ P ⇔ G has a move and no option in P`, i.e. (the identity `1` is in `σ(G)`
//! exactly when some option of `G` is predicted in `P`) for every class `(a, m)` reached:
//! - `m` = no: `a ∉ P` (a position without a move is an N-position);
//! - `m` = yes and `a ∈ P`: `1 ∉ U(a, yes)` (no position of the class has an option in `P`);
//! - `m` = yes and `a ∉ P`: `1 ∈ L(a, yes)` (every position of the class has one).
//!
//! This is the closure's test applied to all positions of a class at once, so the verdict is
//! the closure's (the tests check it on many codes and candidates). Since `U`, `L` and the
//! set of classes reached only move one way, a violation once seen stays: the worklist stops
//! at the first. The empty position itself (class `(1, no)`, identity never in `P` in a
//! candidate) is not checked, as in the closure.
//!
//! What the envelopes do not give is a failing *position*: the recalibration needs the least
//! one, which the closure finds (breadth first) when the envelopes fail.
//!
//! # Cost
//! Memory: `2·|Q|` classes of two bitsets plus the rows `P/t`: about `5·|Q|²/8` bytes (1 MB at
//! `|Q| = 10³`, 160 MB at 1.6·10⁴), independent of the number of positions' signatures. Work: each time a
//! class changes, every transition is applied to it (two gathers of `|Q|` bits through a row
//! of the table, and an OR of `|O(h)|` rows `P/t`); a new heap applies its transition to every
//! class reached and follows the changes.

use std::collections::{HashSet, VecDeque};

use super::closure::{gather_row, p_rows, spread, STOP_EVERY};
use super::monoid::{huge_pages, Monoid};
use crate::fxhash::FxBuild;

/// Why the envelopes stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvelopeError {
    /// Some position is predicted wrongly (which one the closure tells).
    Fails,
    /// The caller's stop check asked to stop.
    Stopped,
}

/// The union and intersection of the signatures of each class of positions, for one candidate
/// monoid, grown as heaps are added (see the module text).
#[derive(Debug)]
pub struct Envelope {
    q: usize,
    /// Words of a bitset over `Q`.
    w: usize,
    /// `P/t` for each `t`, `w` words each.
    quot: Vec<u64>,
    /// Distinct heap transitions `(g, O(h))`.
    transitions: Vec<(u32, Vec<u32>)>,
    seen_transitions: HashSet<(u32, Vec<u32>), FxBuild>,
    /// Class `2a + m` reached (`m` = 1 when its positions have a move).
    reached: Vec<bool>,
    /// `U` of each class, `w` words each.
    up: Vec<u64>,
    /// `L` of each class, `w` words each.
    low: Vec<u64>,
    /// Classes whose envelopes changed and must be followed, and which are queued.
    queue: VecDeque<usize>,
    queued: Vec<bool>,
    /// A violation was met: the candidate fails, and the envelopes are of no further use.
    failed: bool,
}

impl Envelope {
    /// The envelopes of the empty position alone for `m`.
    pub fn new(m: &Monoid) -> Envelope {
        let q = m.order;
        let w = q.div_ceil(64);
        let mut reached = vec![false; 2 * q];
        reached[0] = true;
        let (mut up, mut low) = (vec![0; 2 * q * w], vec![0; 2 * q * w]);
        huge_pages(&mut up);
        huge_pages(&mut low);
        Envelope {
            q,
            w,
            quot: p_rows(m),
            transitions: Vec::new(),
            seen_transitions: HashSet::default(),
            reached,
            up,
            low,
            queue: VecDeque::new(),
            queued: vec![false; 2 * q],
            failed: false,
        }
    }

    /// Bytes an envelope of a monoid of `order` elements holds (its transitions aside).
    pub fn bytes_for(order: usize) -> usize {
        let w = order.div_ceil(64);
        // P/t rows, U and L of 2·order classes, reached and queued flags, the queue.
        order * w * 8 + 2 * 2 * order * w * 8 + 2 * 2 * order + 2 * order * 8
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        Envelope::bytes_for(self.q)
            + self
                .transitions
                .iter()
                .map(|(_, o)| 2 * (32 + 4 * o.len()))
                .sum::<usize>()
    }

    /// Classes of positions reached: pairs (element, has a move), at most `2·|Q|`.
    pub fn len(&self) -> usize {
        self.reached.iter().filter(|&&r| r).count()
    }

    /// The element `t` whose row `P/t = { z : tz ∈ P }` is `bits` (`|Q|/64` words, rounded
    /// up), if any: at most one, as the monoid is reduced (distinct elements have distinct
    /// rows).
    pub(super) fn element_with_row(&self, bits: &[u64]) -> Option<u32> {
        self.quot
            .chunks_exact(self.w)
            .position(|row| row == bits)
            .map(|t| t as u32)
    }

    /// Never empty (the empty position's class is always there).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Adds a heap with element `g` and option elements `opts` (sorted, distinct) of the
    /// monoid `m` the envelope was made for, and follows the changes to the fixpoint.
    pub fn add_heap(&mut self, m: &Monoid, g: u32, opts: &[u32]) -> Result<(), EnvelopeError> {
        self.add_heap_until(m, g, opts, &|| false)
    }

    /// [`Envelope::add_heap`], calling `stop` every [`STOP_EVERY`] classes followed: when it
    /// returns true the envelope ends with [`EnvelopeError::Stopped`] (and is of no further
    /// use).
    pub fn add_heap_until(
        &mut self,
        m: &Monoid,
        g: u32,
        opts: &[u32],
        stop: &dyn Fn() -> bool,
    ) -> Result<(), EnvelopeError> {
        debug_assert_eq!(m.order, self.q);
        if self.failed {
            return Err(EnvelopeError::Fails);
        }
        let key = (g, opts.to_vec());
        if !self.seen_transitions.insert(key.clone()) {
            return Ok(());
        }
        self.transitions.push(key);
        let t_new = self.transitions.len() - 1;
        let mut work = Work::new(self.q, self.w);
        // Every class reached was closed under the old transitions: apply the new one to each,
        // then every transition to each class that changes.
        for s in 0..2 * self.q {
            if !self.reached[s] {
                continue;
            }
            if s % STOP_EVERY == STOP_EVERY - 1 && stop() {
                self.failed = true;
                return Err(EnvelopeError::Stopped);
            }
            work.load(self, s);
            self.apply(m, &mut work, s, t_new)?;
        }
        let mut followed = 0usize;
        while let Some(s) = self.queue.pop_front() {
            self.queued[s] = false;
            followed += 1;
            if followed.is_multiple_of(STOP_EVERY) && stop() {
                self.failed = true;
                return Err(EnvelopeError::Stopped);
            }
            work.load(self, s);
            for t in 0..self.transitions.len() {
                self.apply(m, &mut work, s, t)?;
            }
        }
        Ok(())
    }

    /// Applies transition `t` to class `s` (loaded in `work`): updates the class it leads to,
    /// queues it when it changed, and checks it.
    fn apply(
        &mut self,
        m: &Monoid,
        work: &mut Work,
        s: usize,
        t: usize,
    ) -> Result<(), EnvelopeError> {
        let (q, w) = (self.q, self.w);
        let a = s / 2;
        let moved = s % 2 == 1;
        let (g, ref opts) = self.transitions[t];
        let row = m.table.row(g as usize, q);
        gather_row(&work.up_bytes, row, &mut work.up_next);
        gather_row(&work.low_bytes, row, &mut work.low_next);
        for &y in opts {
            let ay = m.table.get(a * q + y as usize) as usize;
            let rows = &self.quot[ay * w..(ay + 1) * w];
            for ((u, l), r) in work
                .up_next
                .iter_mut()
                .zip(work.low_next.iter_mut())
                .zip(rows)
            {
                *u |= r;
                *l |= r;
            }
        }
        let a2 = m.table.get(a * q + g as usize) as usize;
        let moved2 = moved || !opts.is_empty();
        let s2 = 2 * a2 + usize::from(moved2);
        let (up, low) = (
            &mut self.up[s2 * w..(s2 + 1) * w],
            &mut self.low[s2 * w..(s2 + 1) * w],
        );
        let changed = if self.reached[s2] {
            let mut changed = false;
            for (d, &x) in up.iter_mut().zip(&work.up_next) {
                changed |= x & !*d != 0;
                *d |= x;
            }
            for (d, &x) in low.iter_mut().zip(&work.low_next) {
                changed |= *d & !x != 0;
                *d &= x;
            }
            changed
        } else {
            self.reached[s2] = true;
            up.copy_from_slice(&work.up_next);
            low.copy_from_slice(&work.low_next);
            true
        };
        if !changed {
            return Ok(());
        }
        let wrong = if !moved2 {
            m.p[a2]
        } else if m.p[a2] {
            up[0] & 1 != 0
        } else {
            low[0] & 1 == 0
        };
        if wrong {
            self.failed = true;
            return Err(EnvelopeError::Fails);
        }
        if !self.queued[s2] {
            self.queued[s2] = true;
            self.queue.push_back(s2);
        }
        Ok(())
    }
}

/// Buffers for following one class: its `U` and `L` one byte a bit (for the gathers), and the
/// envelopes of the class a transition leads to.
struct Work {
    up_bytes: Vec<u8>,
    low_bytes: Vec<u8>,
    up_next: Vec<u64>,
    low_next: Vec<u64>,
}

impl Work {
    fn new(q: usize, w: usize) -> Work {
        // A power of two, at least one byte a bit of a bitset (see `gather_bits`).
        let len = (w * 64).next_power_of_two().max(q.next_power_of_two());
        Work {
            up_bytes: vec![0; len],
            low_bytes: vec![0; len],
            up_next: vec![0; w],
            low_next: vec![0; w],
        }
    }

    fn load(&mut self, e: &Envelope, s: usize) {
        let w = e.w;
        spread(&e.up[s * w..(s + 1) * w], &mut self.up_bytes);
        spread(&e.low[s * w..(s + 1) * w], &mut self.low_bytes);
    }
}
