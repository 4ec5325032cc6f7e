//! The verification of a candidate quotient: every *state* a position can be in, closed under
//! adding heaps, and checked against the misère rule.
//!
//! A candidate is a finite monoid `Q` with a subset `P` and an element `Φ(h)` for each heap.
//! For a position `G` (a multiset of heaps) let `T(G)` be the set of the elements of its
//! options. The candidate predicts every outcome correctly exactly when, for every position,
//!
//! > `Φ(G) ∈ P` ⇔ `G` has a move and `T(G) ∩ P = ∅`
//!
//! (by induction on `G`: the right side is the misère rule applied to the predicted outcomes of
//! the options). What matters of `T(G)` for `G` and every position containing it is its
//! *signature* `σ(G) = { z ∈ Q : tz ∈ P for some t ∈ T(G) }`: `T(G) ∩ P ≠ ∅` exactly when the
//! identity is in `σ(G)`, and adding a heap `h` with element `g` and option elements `O(h)`
//! gives `T(Gh) = T(G)·g ∪ Φ(G)·O(h)`, hence
//!
//! > `σ(Gh) = { z : gz ∈ σ(G) } ∪ ⋃_{y ∈ O(h)} P/(Φ(G)·y)`,  with `P/t = { z : tz ∈ P }`.
//!
//! So the state `(Φ(G), G has a move, σ(G))` of `Gh` is a function of the state of `G` and of
//! `(g, O(h))`. The states of all positions are the closure of the empty position's state
//! `(1, no, ∅)` under these maps, one per distinct `(g, O(h))` among the heaps: a finite set
//! (at most `|Q|·2^(|Q|+1)`), enumerated here breadth first, each state checked as it appears.
//! Every position, with any number of copies of each heap, is covered: this is a proof, not a
//! sample. Heaps with the same `(g, O(h))` add nothing, which is what makes periodicity final
//! (see [`super`]).
//!
//! # On several threads
//! With an [`Executor`] of more than one thread ([`Closure::new_on`]) the states are taken in
//! batches, in the order the serial loop takes them. The successors of a batch's states (the
//! gathers and unions, nearly all the work) are computed in parallel, each checked against
//! the states known when the batch began (read only); those not found come back in order,
//! and one thread then checks and inserts them exactly as the serial loop does (looked up
//! again, since an earlier one of the batch may have added it). A successor found among the
//! earlier states is one the serial loop would have found too, and the checks are functions
//! of the state alone; so the states, their numbers and parents, the failing position (the
//! first met in the serial order) and the state limit's verdict are the serial ones, bit for
//! bit. The serial loop stays beside it as the reference (and for one thread). A batch is
//! sized to a few hundred microseconds of work and at most [`BATCH_BYTES`] of successors; its
//! last states' work is wasted when an earlier one fails.

use std::collections::HashSet;
use std::ops::Range;

use rayon::prelude::*;

use super::monoid::{huge_pages, Id, Monoid, Row, Table};
use crate::engine::Executor;
use crate::fxhash::{hash_words, FxBuild};

mod least;

/// Why the closure stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClosureError {
    /// The candidate predicts a wrong outcome for this position (its heaps), found breadth
    /// first: one of the fewest heaps.
    Inconsistent(Vec<usize>),
    /// Too many states.
    TooMany,
    /// The caller's stop check asked to stop (checked every [`STOP_EVERY`] states).
    Stopped,
}

/// States handled between two calls of a stop check: at most some milliseconds of work on the
/// largest quotients met (a state costs a gather of `|Q|` bits per distinct heap element).
pub const STOP_EVERY: usize = 256;

/// Most bytes of successors a batch of the parallel closure holds at once (within the
/// solver's [`super::limits::SLACK`]).
pub const BATCH_BYTES: usize = 8 << 20;

/// Work a batch of the parallel closure aims at, in bytes gathered and words joined: some
/// hundreds of microseconds, long beside the cost of handing a batch to the pool.
const BATCH_WORK: usize = 1 << 20;

/// Each byte value with its bits spread one to a byte (bit `i` into byte `i`).
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            t[b] |= ((b as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    t
};

/// Bit `z` of `out` set to `bytes[row[z]]` (each 0 or 1), for every `z` of `row`: a byte load
/// an element, 64 into a buffer, then packed to a word. `bytes` is a power of two long and
/// longer than every index of `row`: the mask keeps each index as it is and lets the compiler
/// drop the bounds checks.
pub(super) fn gather_bits<T: Id>(bytes: &[u8], row: &[T], out: &mut [u64]) {
    let mask = bytes.len() - 1;
    debug_assert!(bytes.len().is_power_of_two() && row.iter().all(|&x| x.ix() < bytes.len()));
    let bytes = &bytes[..=mask];
    let mut tmp = [0u8; 64];
    for (chunk, o) in row.chunks(64).zip(out.iter_mut()) {
        if let Ok(chunk) = <&[T; 64]>::try_from(chunk) {
            for (t, &x) in tmp.iter_mut().zip(chunk) {
                *t = bytes[x.ix() & mask];
            }
        } else {
            tmp.fill(0);
            for (t, &x) in tmp.iter_mut().zip(chunk) {
                *t = bytes[x.ix() & mask];
            }
        }
        *o = pack(&tmp);
    }
}

/// [`gather_bits`] through a row of a [`Table`], whatever its ids.
pub(super) fn gather_row(bytes: &[u8], row: Row<'_>, out: &mut [u64]) {
    match row {
        Row::Narrow(r) => gather_bits(bytes, r, out),
        Row::Wide(r) => gather_bits(bytes, r, out),
    }
}

/// 64 bytes of 0 or 1 as the bits of a word (byte `i` to bit `i`): eight bytes a multiply,
/// which moves byte `i`'s bit to bit `56 + i` without carries.
#[inline]
fn pack(bytes: &[u8; 64]) -> u64 {
    let mut out = 0u64;
    for (i, c) in bytes.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        out |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
    }
    out
}

/// Bytes a closure over a monoid of `order` elements holds besides its states: the rows `P/t`
/// (it reads the monoid's table, shared, not a copy: that is counted with the monoid).
pub fn fixed_bytes(order: usize) -> usize {
    order * order.div_ceil(64) * 8 + order
}

/// Bytes a state costs at most, growth of the vectors included: its words (twice, as a vector
/// doubles), its parent, and up to four slots of the open-addressing table while it grows.
pub fn bytes_per_state(order: usize) -> usize {
    2 * (order.div_ceil(64) + 1) * 8 + 2 * 8 + 6 * 4
}

/// The set of reachable states for one candidate monoid, grown as heaps are added.
///
/// The work is the maps `σ ↦ { z : gz ∈ σ }` (a gather of `|Q|` bits through row `g` of the
/// table, done once per state and distinct `g`, without branches) and the unions of the rows
/// `P/(Φ(G)·y)`; states are kept in one flat array and found through an open-addressing table
/// of their numbers.
#[derive(Debug)]
pub struct Closure {
    q: usize,
    /// Words of a signature.
    w: usize,
    /// `P/t` for each `t`, `w` words each.
    quot: Vec<u64>,
    p: Vec<bool>,
    /// The monoid's table (shared with it).
    table: Table,
    /// Distinct heap transitions `(g, O(h))`.
    transitions: Vec<(u32, Vec<u32>)>,
    /// The index of each transition's `g` in `gs`.
    transition_g: Vec<usize>,
    /// The distinct `g` of the transitions.
    gs: Vec<u32>,
    /// The first heap of each transition.
    transition_heaps: Vec<usize>,
    /// How each state was first reached: its parent state and the transition taken.
    parents: Vec<(u32, u32)>,
    seen_transitions: HashSet<(u32, Vec<u32>), FxBuild>,
    /// States: `[element | has-move << 32, σ…]`, `w + 1` words each.
    states: Vec<u64>,
    /// Open addressing: `state + 1` or 0 (empty), a power of two long.
    slots: Vec<u32>,
    limit: usize,
    /// The threads successors are computed on (one: the serial loop).
    executor: Executor,
}

/// What one thread of the parallel closure needs besides the closure: the expanded signature,
/// the gathers of the current state (one per distinct `g`) and a successor.
struct Scratch {
    bytes: Vec<u8>,
    cache: Vec<u64>,
    done: Vec<bool>,
    buf: Vec<u64>,
}

/// The successors of a run of states not among the states known when their batch began: the
/// state and transition of each, and its words (`w + 1` each), by state then transition.
#[derive(Default)]
struct Fresh {
    from: Vec<(u32, u32)>,
    words: Vec<u64>,
}

/// Runs of states a batch is cut into a thread (each run one task, one scratch and one list
/// of successors: few allocations, and threads that finish at about the same time).
const RUNS_PER_THREAD: usize = 4;

impl Closure {
    /// The closure of the empty position alone for `m`, with at most `limit` states.
    pub fn new(m: &Monoid, limit: usize) -> Closure {
        Closure::new_on(m, limit, Executor::serial())
    }

    /// [`Closure::new`], computing successors on the threads of `executor` (see the module
    /// text: the states and the verdict do not depend on it).
    pub fn new_on(m: &Monoid, limit: usize, executor: Executor) -> Closure {
        let q = m.order;
        let w = q.div_ceil(64);
        let quot = p_rows(m);
        let mut c = Closure {
            q,
            w,
            quot,
            p: m.p.clone(),
            table: m.table.clone(),
            transitions: Vec::new(),
            transition_g: Vec::new(),
            gs: Vec::new(),
            transition_heaps: Vec::new(),
            parents: Vec::new(),
            seen_transitions: HashSet::default(),
            states: Vec::new(),
            slots: vec![0; 1024],
            limit: limit.max(1),
            executor,
        };
        let start = vec![0u64; w + 1];
        c.insert(&start, (u32::MAX, u32::MAX));
        c
    }

    /// The number of states.
    pub fn len(&self) -> usize {
        self.states.len() / (self.w + 1)
    }

    /// Bytes held: states, parents, the open-addressing table and the rows `P/t` (the
    /// monoid's table is shared, and counted with the monoid).
    pub fn bytes(&self) -> usize {
        self.states.capacity() * 8
            + self.parents.capacity() * 8
            + self.slots.len() * 4
            + self.quot.len() * 8
            + self.p.len()
    }

    /// Never empty (the empty position's state is always there).
    pub fn is_empty(&self) -> bool {
        false
    }

    fn state(&self, s: usize) -> &[u64] {
        &self.states[s * (self.w + 1)..(s + 1) * (self.w + 1)]
    }

    /// Is `buf` a state already?
    fn contains(&self, buf: &[u64]) -> bool {
        let mask = self.slots.len() - 1;
        let mut i = hash_words(buf) as usize & mask;
        loop {
            match self.slots[i] {
                0 => return false,
                id => {
                    if self.state(id as usize - 1) == buf {
                        return true;
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds a state known to be new.
    fn insert(&mut self, buf: &[u64], parent: (u32, u32)) {
        if 2 * (self.len() + 1) > self.slots.len() {
            let n = self.len();
            self.slots = vec![0; self.slots.len() * 2];
            for s in 0..n {
                let slot = self.free_slot(self.state(s));
                self.slots[slot] = s as u32 + 1;
            }
        }
        let slot = self.free_slot(buf);
        self.slots[slot] = self.len() as u32 + 1;
        self.states.extend_from_slice(buf);
        self.parents.push(parent);
    }

    fn free_slot(&self, buf: &[u64]) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = hash_words(buf) as usize & mask;
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        i
    }

    /// Records the transition of a heap with element `g` and option elements `opts`: its
    /// number when it is new, `None` when an earlier heap has it.
    fn register(&mut self, heap: usize, g: u32, opts: &[u32]) -> Option<usize> {
        let key = (g, opts.to_vec());
        if !self.seen_transitions.insert(key.clone()) {
            return None;
        }
        let gi = match self.gs.iter().position(|&x| x == g) {
            Some(i) => i,
            None => {
                self.gs.push(g);
                self.gs.len() - 1
            }
        };
        self.transitions.push(key);
        self.transition_g.push(gi);
        self.transition_heaps.push(heap);
        Some(self.transitions.len() - 1)
    }

    /// Adds a heap with element `g` and option elements `opts` (sorted, distinct), then closes
    /// the set of states and checks each new one.
    pub fn add_heap(&mut self, heap: usize, g: u32, opts: &[u32]) -> Result<(), ClosureError> {
        self.add_heap_until(heap, g, opts, &|| false)
    }

    /// [`Closure::add_heap`], calling `stop` every [`STOP_EVERY`] states: when it returns true
    /// the closure ends with [`ClosureError::Stopped`] (and is of no further use).
    pub fn add_heap_until(
        &mut self,
        heap: usize,
        g: u32,
        opts: &[u32],
        stop: &dyn Fn() -> bool,
    ) -> Result<(), ClosureError> {
        let Some(t_new) = self.register(heap, g, opts) else {
            return Ok(());
        };
        let gi = self.transition_g[t_new];
        let old = self.len();
        if self.executor.threads() > 1 {
            return self.close_in_batches(old, t_new, stop);
        }
        let w = self.w;
        // The old states were closed under the old transitions: apply the new one to them,
        // then every transition to each state that appears.
        let mut buf = vec![0u64; w + 1];
        let mut gathered = vec![0u64; w];
        let mut bytes = vec![0u8; self.bytes_len()];
        for s in 0..old {
            if s % STOP_EVERY == STOP_EVERY - 1 && stop() {
                return Err(ClosureError::Stopped);
            }
            self.expand(s, &mut bytes);
            self.gather(&bytes, self.gs[gi], &mut gathered);
            self.apply(s, t_new, &gathered, &mut buf)?;
        }
        // Gathers of the current state, one per distinct g, made when first needed.
        let mut cache = vec![0u64; self.gs.len() * w];
        let mut done = vec![false; self.gs.len()];
        let mut next = old;
        while next < self.len() {
            if next % STOP_EVERY == STOP_EVERY - 1 && stop() {
                return Err(ClosureError::Stopped);
            }
            done.fill(false);
            self.expand(next, &mut bytes);
            for t in 0..self.transitions.len() {
                let gi = self.transition_g[t];
                let slot = &mut cache[gi * w..(gi + 1) * w];
                if !done[gi] {
                    done[gi] = true;
                    self.gather(&bytes, self.gs[gi], slot);
                }
                // `apply` needs `&mut self`; the cache is a local, so pass a copy of its words.
                gathered.copy_from_slice(slot);
                self.apply(next, t, &gathered, &mut buf)?;
            }
            next += 1;
        }
        Ok(())
    }

    /// Bytes of the expanded signature: a power of two, at least one a bit of a signature.
    fn bytes_len(&self) -> usize {
        (self.w * 64).next_power_of_two()
    }

    /// σ(s) one byte a bit (0 or 1) into `bytes`.
    fn expand(&self, s: usize, bytes: &mut [u8]) {
        spread(&self.state(s)[1..], bytes);
    }

    /// `{ z : gz ∈ σ }` into `out`, from σ expanded by [`Closure::expand`] into `bytes`.
    fn gather(&self, bytes: &[u8], g: u32, out: &mut [u64]) {
        gather_row(bytes, self.table.row(g as usize, self.q), out);
    }

    fn apply(
        &mut self,
        s: usize,
        t: usize,
        gathered: &[u64],
        buf: &mut [u64],
    ) -> Result<(), ClosureError> {
        self.successor(s, t, gathered, buf);
        if self.contains(buf) {
            return Ok(());
        }
        self.admit(s, t, buf)
    }

    /// The state reached from state `s` by transition `t` into `buf`, from `gathered`, the
    /// gather of σ(s) through `t`'s `g`.
    fn successor(&self, s: usize, t: usize, gathered: &[u64], buf: &mut [u64]) {
        let (q, w) = (self.q, self.w);
        let head = self.states[s * (w + 1)];
        let a = (head & 0xffff_ffff) as usize;
        let moved = head >> 32 != 0;
        let (g, ref opts) = self.transitions[t];
        let a2 = self.table.get(a * q + g as usize) as usize;
        let moved2 = moved || !opts.is_empty();
        buf[0] = a2 as u64 | (u64::from(moved2) << 32);
        buf[1..].copy_from_slice(gathered);
        for &y in opts {
            let ay = self.table.get(a * q + y as usize) as usize;
            let src = &self.quot[ay * w..(ay + 1) * w];
            for (d, s) in buf[1..].iter_mut().zip(src) {
                *d |= s;
            }
        }
    }

    /// Checks the new state `buf`, reached from state `s` by transition `t`, and inserts it:
    /// its failing position when the candidate predicts it wrongly, or the state limit.
    fn admit(&mut self, s: usize, t: usize, buf: &[u64]) -> Result<(), ClosureError> {
        let head = buf[0];
        let a2 = (head & 0xffff_ffff) as usize;
        let moved2 = head >> 32 != 0;
        let some_option_in_p = buf[1] & 1 != 0;
        if self.p[a2] != (moved2 && !some_option_in_p) {
            let mut heaps = vec![self.transition_heaps[t]];
            let mut at = s;
            while at != 0 {
                let (parent, tr) = self.parents[at];
                heaps.push(self.transition_heaps[tr as usize]);
                at = parent as usize;
            }
            heaps.sort_unstable_by(|a, b| b.cmp(a));
            return Err(ClosureError::Inconsistent(heaps));
        }
        if self.len() >= self.limit {
            return Err(ClosureError::TooMany);
        }
        self.insert(buf, (s as u32, t as u32));
        Ok(())
    }

    /// The parallel closure (see the module text): the old states `0 … old − 1` under the new
    /// transition `t_new`, then every state from `old` on under every transition, in batches.
    fn close_in_batches(
        &mut self,
        old: usize,
        t_new: usize,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), ClosureError> {
        let only_new = [t_new];
        let all: Vec<usize> = (0..self.transitions.len()).collect();
        // States since the stop check was last called (it may be costly: Python's takes
        // the interpreter's lock).
        let mut unchecked = 0;
        let mut next = 0;
        while next < self.len() {
            let ts: &[usize] = if next < old { &only_new } else { &all };
            let end = if next < old { old } else { self.len() };
            let end = end.min(next + self.batch_len(ts));
            if unchecked >= STOP_EVERY {
                unchecked = 0;
                if stop() {
                    return Err(ClosureError::Stopped);
                }
            }
            unchecked += end - next;
            self.close_batch(next..end, ts)?;
            next = end;
        }
        Ok(())
    }

    /// States in a batch taking transitions `ts`: about [`BATCH_WORK`] of work, successors
    /// within [`BATCH_BYTES`], at least a few a thread.
    fn batch_len(&self, ts: &[usize]) -> usize {
        let mut gs: Vec<usize> = ts.iter().map(|&t| self.transition_g[t]).collect();
        gs.sort_unstable();
        gs.dedup();
        let join: usize = ts.iter().map(|&t| self.transitions[t].1.len() + 1).sum();
        let work = gs.len() * self.q + join * (self.w + 1) * 8;
        let bytes = ts.len() * (self.w + 1) * 8;
        let n = (BATCH_WORK / work.max(1))
            .min(BATCH_BYTES / bytes.max(1))
            .max(4 * self.executor.threads());
        #[cfg(test)]
        let n = n.min(tests::BATCH_CAP.with(|c| c.get())).max(1);
        n
    }

    /// One batch of the parallel closure: the successors of `states` by `ts` computed on the
    /// executor's threads, then checked and inserted in order on this one.
    fn close_batch(&mut self, states: Range<usize>, ts: &[usize]) -> Result<(), ClosureError> {
        if states.is_empty() {
            return Ok(());
        }
        let this = &*self;
        let runs = (RUNS_PER_THREAD * this.executor.threads()).min(states.len());
        let per_run = states.len().div_ceil(runs);
        let fresh: Vec<Fresh> = this.executor.install(|| {
            (0..runs)
                .into_par_iter()
                .map(|r| {
                    let start = states.start + r * per_run;
                    let end = (start + per_run).min(states.end);
                    let mut scratch = this.scratch();
                    let mut out = Fresh::default();
                    for s in start..end {
                        this.fresh_successors(s, ts, &mut scratch, &mut out);
                    }
                    out
                })
                .collect()
        });
        let n = self.w + 1;
        for f in fresh {
            for (&(s, t), buf) in f.from.iter().zip(f.words.chunks_exact(n)) {
                if !self.contains(buf) {
                    self.admit(s as usize, t as usize, buf)?;
                }
            }
        }
        Ok(())
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            bytes: vec![0u8; self.bytes_len()],
            cache: vec![0u64; self.gs.len() * self.w],
            done: vec![false; self.gs.len()],
            buf: vec![0u64; self.w + 1],
        }
    }

    /// The successors of state `s` by the transitions `ts` that are not states yet, onto `out`.
    fn fresh_successors(&self, s: usize, ts: &[usize], scratch: &mut Scratch, out: &mut Fresh) {
        let w = self.w;
        let Scratch {
            bytes,
            cache,
            done,
            buf,
        } = scratch;
        done.fill(false);
        self.expand(s, bytes);
        for &t in ts {
            let gi = self.transition_g[t];
            let slot = &mut cache[gi * w..(gi + 1) * w];
            if !done[gi] {
                done[gi] = true;
                self.gather(bytes, self.gs[gi], slot);
            }
            self.successor(s, t, slot, buf);
            if !self.contains(buf) {
                out.from.push((s as u32, t as u32));
                out.words.extend_from_slice(buf);
            }
        }
    }
}

/// The rows `P/t = { z : tz ∈ P }` of `m` for every `t`, `|Q|/64` words (rounded up) each.
pub(super) fn p_rows(m: &Monoid) -> Vec<u64> {
    let q = m.order;
    let w = q.div_ceil(64);
    let mut rows = vec![0u64; q * w];
    huge_pages(&mut rows);
    let mut p_bytes = vec![0u8; q.next_power_of_two()];
    for (b, &x) in p_bytes.iter_mut().zip(&m.p) {
        *b = u8::from(x);
    }
    for (t, out) in rows.chunks_exact_mut(w).enumerate() {
        gather_row(&p_bytes, m.table.row(t, q), out);
    }
    rows
}

/// The bits of `words` one a byte (0 or 1) into `bytes` (64 bytes a word), for
/// [`gather_bits`].
pub(super) fn spread(words: &[u64], bytes: &mut [u8]) {
    for (word, out) in words.iter().zip(bytes.chunks_exact_mut(64)) {
        for (b, out) in word.to_le_bytes().iter().zip(out.chunks_exact_mut(8)) {
            out.copy_from_slice(&SPREAD[*b as usize].to_le_bytes());
        }
    }
}

/// Is the prediction of `m` right at the position reached by adding heaps with these
/// transitions `(g, O(h))` one by one, assuming it is right at the position's options? (The
/// local test of one state; [`Closure`] applies it to every state.)
pub fn consistent_at(m: &Monoid, path: &[(u32, Vec<u32>)]) -> bool {
    let q = m.order;
    let mut a = 0usize;
    let mut moved = false;
    let mut sig = vec![false; q];
    for (g, opts) in path {
        let g = *g as usize;
        let mut next = vec![false; q];
        for (z, slot) in next.iter_mut().enumerate() {
            *slot = sig[m.mul(g as u32, z as u32) as usize];
        }
        for &y in opts {
            let ay = m.mul(a as u32, y);
            for (z, slot) in next.iter_mut().enumerate() {
                *slot |= m.p[m.mul(ay, z as u32) as usize];
            }
        }
        moved |= !opts.is_empty();
        a = m.mul(a as u32, g as u32) as usize;
        sig = next;
    }
    m.p[a] == (moved && !sig[0])
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use proptest::prelude::*;

    thread_local! {
        /// The most states a batch of the parallel closure takes, for the tests of batch
        /// boundaries (set on the thread that runs the closure).
        pub(in crate::misere::quotient) static BATCH_CAP: std::cell::Cell<usize> =
            const { std::cell::Cell::new(usize::MAX) };
    }

    /// Runs `f` with batches of at most `cap` states on this thread.
    pub(in crate::misere::quotient) fn with_batch_cap<R>(cap: usize, f: impl FnOnce() -> R) -> R {
        let before = BATCH_CAP.with(|c| c.replace(cap));
        let r = f();
        BATCH_CAP.with(|c| c.set(before));
        r
    }

    /// A random code `0.d1…dk` (k ≤ 3, last digit non-zero).
    fn code() -> impl Strategy<Value = String> {
        prop::collection::vec(0u8..8, 1..=3)
            .prop_filter("last digit non-zero", |d| *d.last().unwrap() != 0)
            .prop_map(|d| format!("0.{}", d.iter().map(|x| x.to_string()).collect::<String>()))
    }

    /// Everything a closure is: its verdict, states (in order), parents and count.
    type Whole = (Result<(), ClosureError>, Vec<u64>, Vec<(u32, u32)>);

    /// The closure of `m` over heaps `order` (with `phi`), on `executor`.
    fn close(
        moves: &crate::rules::MoveSet,
        m: &Monoid,
        phi: &[u32],
        order: &[usize],
        limit: usize,
        executor: Executor,
    ) -> Whole {
        let mut c = Closure::new_on(m, limit, executor);
        let mut r = Ok(());
        for &h in order {
            let o = super::super::heap_options(moves, m, phi, h);
            r = c.add_heap(h, phi[h], &o);
            if r.is_err() {
                break;
            }
        }
        (r, c.states, c.parents)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 48,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0036),
            ..ProptestConfig::default()
        })]

        /// The parallel closure is the serial one, bit for bit (verdict and failing position,
        /// states in order, parents), on 2 and 3 threads, with batches of 1, 2, 5 states or
        /// as many as it likes, and with state limits that stop it midway: on candidates of
        /// random codes (freed heaps at random) and the codes' own quotients, heaps in the
        /// solver's order with some first.
        #[test]
        fn the_parallel_closure_is_the_serial_one(
            code in code(),
            max in 6usize..14,
            picks in prop::collection::vec((0usize..64, 1usize..4, 1usize..3), 0..3),
            first in prop::collection::vec(0usize..64, 0..4),
            limit in prop::sample::select(vec![3usize, 40, 300, 1 << 16]),
        ) {
            let rule = crate::rules::Rule::parse(&code).expect("a valid code");
            let mut s = super::super::QuotientSolver::new(&rule, 1 << 16);
            while s.count() <= max && s.monoid().order <= 48 && s.step().is_ok() {}
            let last = s.phi.len() - 1;
            prop_assume!(last >= 2);
            let mut free: Vec<(usize, usize, usize)> = Vec::new();
            for &(h, m, p) in &picks {
                let h = 1 + h % last;
                if free.iter().all(|f| f.0 != h) {
                    free.push((h, m, p));
                }
            }
            let first: Vec<usize> = first.iter().map(|&h| 1 + h % last).collect();
            let order = super::super::heap_order(last, &first);
            let mut cases = vec![(s.m.clone(), s.phi.clone())];
            if !free.is_empty() {
                cases.extend(super::super::build_candidate(&s.moves, &s.m, &s.phi, &free));
            }
            for (m, phi) in &cases {
                let serial = close(&s.moves, m, phi, &order, limit, Executor::serial());
                for threads in [2, 3] {
                    for cap in [1, 2, 5, usize::MAX] {
                        let ex = Executor::new(threads).expect("a pool");
                        let par = with_batch_cap(cap, || {
                            close(&s.moves, m, phi, &order, limit, ex)
                        });
                        prop_assert_eq!(&serial, &par, "{} free {:?} threads {} cap {}",
                            code, free, threads, cap);
                    }
                }
            }
        }
    }

    /// What a computation of `code`'s quotient to heap `max` gives on `threads` threads with
    /// batches of at most `cap` states: the report as JSON, the error, and every candidate
    /// verified in its recalibrations (their times left out). Stops once the order passes
    /// `max_order`, and recalibrates within small limits, so that it stays cheap.
    fn computed(
        code: &str,
        max: usize,
        max_order: usize,
        threads: usize,
        cap: usize,
    ) -> (
        String,
        Option<super::super::QuotientError>,
        Vec<super::super::Attempt>,
    ) {
        let rule = crate::rules::Rule::parse(code).expect("a valid code");
        let (tx, rx) = std::sync::mpsc::channel();
        let limits = super::super::CandidateLimits {
            size: 1 << 14,
            order: 1 << 11,
            ..Default::default()
        };
        let s = super::super::QuotientSolver::new(&rule, 1 << 20)
            .with_candidate_limits(limits)
            .with_executor(Executor::new(threads).expect("a pool"))
            .with_trace(tx);
        let (s, e) = with_batch_cap(cap, || {
            super::super::compute_from(s, max, &|| false, |_, s| {
                if s.monoid().order > max_order {
                    std::ops::ControlFlow::Break(())
                } else {
                    std::ops::ControlFlow::Continue(())
                }
            })
        });
        let json = serde_json::to_string(&s.report()).expect("a report");
        drop(s);
        let attempts = rx
            .iter()
            .map(|a| super::super::Attempt {
                build_ms: 0,
                verify_ms: 0,
                ..a
            })
            .collect();
        (json, e, attempts)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 24,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0037),
            ..ProptestConfig::default()
        })]

        /// A whole computation verified on 2 or 3 threads, in batches of any size, is the
        /// serial one: the same report (order, |P|, Φ, table, presentation, changes, states;
        /// compared as JSON), the same error, the same candidates with the same failing
        /// positions.
        #[test]
        fn a_parallel_computation_is_the_serial_one(
            code in code(),
            max in 8usize..20,
            threads in 2usize..=3,
            cap in prop::sample::select(vec![1usize, 4, usize::MAX]),
        ) {
            let serial = computed(&code, max, 64, 1, usize::MAX);
            let par = computed(&code, max, 64, threads, cap);
            prop_assert_eq!(serial, par, "{} threads {} cap {}", code, threads, cap);
        }
    }

    /// Dawson's Kayles to heap 28 (several recalibrations, candidates failing at positions of
    /// several heaps): the same reports and candidates on 1, 2 and 3 threads, in batches of 3
    /// states or of the size the closure picks.
    #[test]
    fn dawsons_kayles_is_the_same_on_any_number_of_threads() {
        let serial = computed("0.07", 28, usize::MAX, 1, usize::MAX);
        assert!(serial.1.is_none());
        assert!(serial.2.iter().filter(|a| a.failure.is_some()).count() >= 4);
        for threads in 1..=3 {
            for cap in [3, usize::MAX] {
                let par = computed("0.07", 28, usize::MAX, threads, cap);
                assert!(par == serial, "threads {threads} cap {cap}");
            }
        }
    }

    proptest! {
        /// The gather by bytes equals the plain definition, bit by bit, on rows of any length
        /// (whole words of 64 and a part word) and any bytes.
        #[test]
        fn gather_bits_is_the_plain_gather(
            bits in prop::collection::vec(any::<bool>(), 1..300),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 0..300),
        ) {
            let mut bytes = vec![0u8; bits.len().next_power_of_two()];
            for (b, &x) in bytes.iter_mut().zip(&bits) {
                *b = u8::from(x);
            }
            let row: Vec<u32> = picks.iter().map(|i| i.index(bits.len()) as u32).collect();
            let mut out = vec![u64::MAX; row.len().div_ceil(64)];
            gather_bits(&bytes, &row, &mut out);
            let mut plain = vec![0u64; row.len().div_ceil(64)];
            for (z, &x) in row.iter().enumerate() {
                if bits[x as usize] {
                    plain[z / 64] |= 1 << (z % 64);
                }
            }
            prop_assert_eq!(out, plain);
        }

        /// The expansion of a signature to bytes and the packing of bytes to words are inverse.
        #[test]
        fn spread_and_pack_are_inverse(words in prop::collection::vec(any::<u64>(), 1..4)) {
            for &w in &words {
                let mut bytes = [0u8; 64];
                for (b, out) in w.to_le_bytes().iter().zip(bytes.chunks_exact_mut(8)) {
                    out.copy_from_slice(&SPREAD[*b as usize].to_le_bytes());
                }
                prop_assert!(bytes.iter().enumerate().all(|(i, &b)| u64::from(b) == (w >> i) & 1));
                prop_assert_eq!(pack(&bytes), w);
            }
        }
    }
}
