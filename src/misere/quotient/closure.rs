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

use std::collections::HashSet;

use super::monoid::Monoid;
use crate::fxhash::{hash_words, FxBuild};

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
pub(super) fn gather_bits(bytes: &[u8], row: &[u32], out: &mut [u64]) {
    let mask = bytes.len() - 1;
    debug_assert!(bytes.len().is_power_of_two() && row.iter().all(|&x| (x as usize) < bytes.len()));
    let bytes = &bytes[..=mask];
    let mut tmp = [0u8; 64];
    for (chunk, o) in row.chunks(64).zip(out.iter_mut()) {
        if let Ok(chunk) = <&[u32; 64]>::try_from(chunk) {
            for (t, &x) in tmp.iter_mut().zip(chunk) {
                *t = bytes[x as usize & mask];
            }
        } else {
            tmp.fill(0);
            for (t, &x) in tmp.iter_mut().zip(chunk) {
                *t = bytes[x as usize & mask];
            }
        }
        *o = pack(&tmp);
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

/// Bytes a closure over a monoid of `order` elements holds besides its states: its copy of the
/// table and the rows `P/t`.
pub fn fixed_bytes(order: usize) -> usize {
    order * order * 4 + order * order.div_ceil(64) * 8 + order
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
    table: Vec<u32>,
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
}

impl Closure {
    /// The closure of the empty position alone for `m`, with at most `limit` states.
    pub fn new(m: &Monoid, limit: usize) -> Closure {
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
        };
        let start = vec![0u64; w + 1];
        c.insert(&start, (u32::MAX, u32::MAX));
        c
    }

    /// The number of states.
    pub fn len(&self) -> usize {
        self.states.len() / (self.w + 1)
    }

    /// Bytes held: states, parents, the open-addressing table, the copy of the monoid's table
    /// and the rows `P/t`.
    pub fn bytes(&self) -> usize {
        self.states.capacity() * 8
            + self.parents.capacity() * 8
            + self.slots.len() * 4
            + self.table.len() * 4
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
        let key = (g, opts.to_vec());
        if !self.seen_transitions.insert(key.clone()) {
            return Ok(());
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
        let t_new = self.transitions.len() - 1;
        let old = self.len();
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
        let q = self.q;
        gather_bits(
            bytes,
            &self.table[g as usize * q..(g as usize + 1) * q],
            out,
        );
    }

    fn apply(
        &mut self,
        s: usize,
        t: usize,
        gathered: &[u64],
        buf: &mut [u64],
    ) -> Result<(), ClosureError> {
        let (q, w) = (self.q, self.w);
        let head = self.states[s * (w + 1)];
        let a = (head & 0xffff_ffff) as usize;
        let moved = head >> 32 != 0;
        let (g, ref opts) = self.transitions[t];
        let a2 = self.table[a * q + g as usize] as usize;
        let moved2 = moved || !opts.is_empty();
        buf[0] = a2 as u64 | (u64::from(moved2) << 32);
        buf[1..].copy_from_slice(gathered);
        for &y in opts {
            let ay = self.table[a * q + y as usize] as usize;
            let src = &self.quot[ay * w..(ay + 1) * w];
            for (d, s) in buf[1..].iter_mut().zip(src) {
                *d |= s;
            }
        }
        if self.contains(buf) {
            return Ok(());
        }
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
}

/// The rows `P/t = { z : tz ∈ P }` of `m` for every `t`, `|Q|/64` words (rounded up) each.
pub(super) fn p_rows(m: &Monoid) -> Vec<u64> {
    let q = m.order;
    let w = q.div_ceil(64);
    let mut rows = vec![0u64; q * w];
    let mut p_bytes = vec![0u8; q.next_power_of_two()];
    for (b, &x) in p_bytes.iter_mut().zip(&m.p) {
        *b = u8::from(x);
    }
    for (row, out) in m.table.chunks_exact(q).zip(rows.chunks_exact_mut(w)) {
        gather_bits(&p_bytes, row, out);
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
            *slot = sig[m.table[g * q + z] as usize];
        }
        for &y in opts {
            let ay = m.table[a * q + y as usize] as usize;
            for (z, slot) in next.iter_mut().enumerate() {
                *slot |= m.p[m.table[ay * q + z] as usize];
            }
        }
        moved |= !opts.is_empty();
        a = m.table[a * q + g] as usize;
        sig = next;
    }
    m.p[a] == (moved && !sig[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
