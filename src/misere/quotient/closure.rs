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

/// Why the closure stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClosureError {
    /// The candidate predicts a wrong outcome for this position (its heaps), found breadth
    /// first: one of the fewest heaps.
    Inconsistent(Vec<usize>),
    /// Too many states.
    TooMany,
}

/// The set of reachable states for one candidate monoid, grown as heaps are added.
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
    /// The first heap of each transition.
    transition_heaps: Vec<usize>,
    /// How each state was first reached: its parent state and the transition taken.
    parents: Vec<(u32, u32)>,
    seen_transitions: HashSet<(u32, Vec<u32>)>,
    /// States: `[element | has-move << 32, σ…]`, `w + 1` words each.
    states: Vec<u64>,
    index: HashSet<Box<[u64]>>,
    limit: usize,
}

impl Closure {
    /// The closure of the empty position alone for `m`, with at most `limit` states.
    pub fn new(m: &Monoid, limit: usize) -> Closure {
        let q = m.order;
        let w = q.div_ceil(64);
        let mut quot = vec![0u64; q * w];
        for t in 0..q {
            for z in 0..q {
                if m.p[m.table[t * q + z] as usize] {
                    quot[t * w + z / 64] |= 1 << (z % 64);
                }
            }
        }
        let mut c = Closure {
            q,
            w,
            quot,
            p: m.p.clone(),
            table: m.table.clone(),
            transitions: Vec::new(),
            transition_heaps: Vec::new(),
            parents: vec![(u32::MAX, u32::MAX)],
            seen_transitions: HashSet::new(),
            states: Vec::new(),
            index: HashSet::new(),
            limit: limit.max(1),
        };
        let start = vec![0u64; w + 1].into_boxed_slice();
        c.states.extend_from_slice(&start);
        c.index.insert(start);
        c
    }

    /// The number of states.
    pub fn len(&self) -> usize {
        self.states.len() / (self.w + 1)
    }

    /// Never empty (the empty position's state is always there).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Adds a heap with element `g` and option elements `opts` (sorted, distinct), then closes
    /// the set of states and checks each new one.
    pub fn add_heap(&mut self, heap: usize, g: u32, opts: &[u32]) -> Result<(), ClosureError> {
        let key = (g, opts.to_vec());
        if !self.seen_transitions.insert(key.clone()) {
            return Ok(());
        }
        self.transitions.push(key);
        self.transition_heaps.push(heap);
        let t_new = self.transitions.len() - 1;
        let old = self.len();
        // The old states were closed under the old transitions: apply the new one to them,
        // then every transition to each state that appears.
        let mut buf = vec![0u64; self.w + 1];
        for s in 0..old {
            self.apply(s, t_new, &mut buf)?;
        }
        let mut next = old;
        while next < self.len() {
            for t in 0..self.transitions.len() {
                self.apply(next, t, &mut buf)?;
            }
            next += 1;
        }
        Ok(())
    }

    fn apply(&mut self, s: usize, t: usize, buf: &mut [u64]) -> Result<(), ClosureError> {
        let (q, w) = (self.q, self.w);
        let state = &self.states[s * (w + 1)..(s + 1) * (w + 1)];
        let a = (state[0] & 0xffff_ffff) as usize;
        let moved = state[0] >> 32 != 0;
        let (g, ref opts) = self.transitions[t];
        let g = g as usize;
        let a2 = self.table[a * q + g] as usize;
        let moved2 = moved || !opts.is_empty();
        buf.fill(0);
        buf[0] = a2 as u64 | (u64::from(moved2) << 32);
        let sig = &state[1..];
        let row = &self.table[g * q..(g + 1) * q];
        for (z, &gz) in row.iter().enumerate() {
            let gz = gz as usize;
            if sig[gz / 64] >> (gz % 64) & 1 != 0 {
                buf[1 + z / 64] |= 1 << (z % 64);
            }
        }
        for &y in opts {
            let ay = self.table[a * q + y as usize] as usize;
            let src = &self.quot[ay * w..(ay + 1) * w];
            for (d, s) in buf[1..].iter_mut().zip(src) {
                *d |= s;
            }
        }
        if self.index.contains(&buf[..]) {
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
        self.parents.push((s as u32, t as u32));
        self.states.extend_from_slice(buf);
        self.index.insert(buf.to_vec().into_boxed_slice());
        Ok(())
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
