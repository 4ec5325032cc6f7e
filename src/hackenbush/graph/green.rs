//! All-green graphs: the value by fusion and the colon principle, and the winning cuts found
//! without evaluating the graph again for each edge.
//!
//! Value (Winning Ways ch. 7): one depth-first search finds the bridges; each 2-edge-connected
//! *piece* fuses to one vertex carrying its other edges as twigs, and the colon principle gives
//! `value(P) = (edges of P mod 2) ⊕ H(P)`, where `H(P)` is the XOR over P's vertices of their
//! *attachments* `h(v) = ⊕ (value(C) + 1)` over the bridges from `v` up to child pieces `C`.
//!
//! Cuts. Cutting an edge of piece `P` changes only `P`'s value, to a *local* value `x`; the
//! ground's value then follows along the bridges below `P`, each step `x ↦ value(Q) ⊕
//! (value(P) + 1) ⊕ (x + 1)`, which is one-to-one. So for a target nimber `*t` (the only cuts
//! that win when the rest of the sum is a nimber or zero) a top-down pass gives each piece the
//! one value `req(P)` that makes the ground's value `t` (as [`super::super::forms`] does for
//! trees), and a cut wins exactly when its local value is `req(P)`: one pass in all. Local
//! values:
//! - a bridge from `P` up to `C`: `value(P) ⊕ (value(C) + 1)`;
//! - an edge `e` of a piece: the other edges `f` of `P` with `{e, f}` a 2-edge cut become
//!   bridges of `P − e`, and nothing else does. These *cut classes* are found by random labels
//!   (a non-tree edge gets 128 random bits, a tree edge the XOR of the labels of the non-tree
//!   edges over it; `e` and `f` form a cut exactly when their labels are equal, barring a
//!   collision of probability below `edges² / 2^128`). An edge alone in its class leaves `P`
//!   2-edge-connected: local value `value(P) ⊕ 1`. A class of `k` edges (tree edges on one
//!   path from the root, and at most one non-tree edge) cuts `P` into `k` segments in a ring;
//!   cutting one of them leaves the segment holding `P`'s root with two chains of segments,
//!   each a green caterpillar evaluated by the colon principle from its far end, the weight of
//!   a segment (edges mod 2, XOR of attachments) being read off XOR sums over the search tree.
//!
//! Cost: linear, plus for each class of `k` edges `k` chain evaluations that skip runs of
//! weightless segments (a run of `z` adds `z`), so a long cycle with few attachments is
//! cheap; for other targets each cut's value is carried down to the ground (its depth in the
//! tree of pieces). All of this is counted against a budget of [`MAX_GREEN_MOVE_STEPS`]; what
//! would pass it is left out, and the result says it is incomplete.

use std::cell::Cell;

use super::Adjacency;

/// The budget of steps (chain evaluations and carries to the ground) for the winning cuts of
/// one all-green graph. Measured (2-core test machine, opt-level 2): a cycle of 20,000 edges
/// each carrying a twig, the worst case of the chains, spends it in about 1 s.
pub const MAX_GREEN_MOVE_STEPS: u64 = 200_000_000;

const NONE: u32 = u32::MAX;
const NO_REQ: u64 = u64::MAX;

/// The fusion of an all-green graph.
pub(super) struct Fusion {
    /// Vertices reached, in the search's preorder (the ground first).
    order: Vec<u32>,
    /// Preorder index of each vertex, or `NONE` if not reached.
    tin: Vec<u32>,
    /// The search tree: `(parent vertex, edge)` of each vertex reached but the ground.
    parent: Vec<(u32, u32)>,
    /// Is edge `e` a bridge?
    bridge: Vec<bool>,
    /// The piece of each vertex, named by its first vertex in preorder (the ground's is 0).
    piece: Vec<u32>,
    /// The value of each piece with everything above it (indexed by the piece's name).
    value: Vec<u64>,
}

/// The cuts found, and whether the search was complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct GreenCuts {
    /// Edges (from 0) of the graph, ascending.
    pub edges: Vec<usize>,
    /// False when part of the graph was left out for the budget.
    pub complete: bool,
}

impl Fusion {
    /// Fuses the edges with `present(e)` that are joined to the ground.
    pub(super) fn new(
        adj: &Adjacency,
        ends: &[(u32, u32)],
        present: impl Fn(usize) -> bool,
    ) -> Self {
        let vertices = adj.start.len() - 1;
        let edges = ends.len();
        let mut tin = vec![NONE; vertices];
        let mut low = vec![0u32; vertices];
        let mut parent = vec![(NONE, NONE); vertices];
        let mut bridge = vec![false; edges];
        let mut order = vec![0u32];
        tin[0] = 0;
        let mut timer = 1u32;
        // Depth-first search without recursion: (vertex, edge from its parent, next adjacency).
        let mut stack: Vec<(usize, u32, usize)> = vec![(0, NONE, adj.start[0])];
        while let Some(top) = stack.last_mut() {
            let v = top.0;
            if top.2 < adj.start[v + 1] {
                let (w, e) = adj.to[top.2];
                top.2 += 1;
                if e == top.1 || !present(e as usize) {
                    continue;
                }
                let w = w as usize;
                if tin[w] == NONE {
                    tin[w] = timer;
                    low[w] = timer;
                    timer += 1;
                    parent[w] = (v as u32, e);
                    order.push(w as u32);
                    stack.push((w, e, adj.start[w]));
                } else {
                    low[v] = low[v].min(tin[w]);
                }
            } else {
                let (_, pe, _) = stack.pop().expect("not empty");
                if let Some(&(p, _, _)) = stack.last() {
                    low[p] = low[p].min(low[v]);
                    if low[v] > tin[p] {
                        bridge[pe as usize] = true;
                    }
                }
            }
        }
        let mut piece = vec![0u32; vertices];
        for &w in &order[1..] {
            let (p, e) = parent[w as usize];
            piece[w as usize] = if bridge[e as usize] {
                w
            } else {
                piece[p as usize]
            };
        }
        let mut value = vec![0u64; vertices];
        for (e, &(u, _)) in ends.iter().enumerate() {
            if present(e) && !bridge[e] && tin[u as usize] != NONE {
                value[piece[u as usize] as usize] ^= 1;
            }
        }
        for &w in order[1..].iter().rev() {
            let (p, e) = parent[w as usize];
            if bridge[e as usize] {
                let up = piece[p as usize] as usize;
                value[up] ^= value[w as usize] + 1;
            }
        }
        Fusion {
            order,
            tin,
            parent,
            bridge,
            piece,
            value,
        }
    }

    /// The nim value of the graph.
    pub(super) fn nimber(&self) -> u64 {
        self.value[0]
    }

    /// The grounded edges whose cut leaves the value `*target`.
    pub(super) fn cuts_to(&self, ends: &[(u32, u32)], target: u64) -> GreenCuts {
        // req[P]: the value piece P must take for the ground's to be `target` (top-down).
        let mut req = vec![NO_REQ; self.value.len()];
        req[0] = target;
        for &w in &self.order[1..] {
            let (p, e) = self.parent[w as usize];
            if !self.bridge[e as usize] {
                continue;
            }
            let up = self.piece[p as usize] as usize;
            if req[up] == NO_REQ {
                continue;
            }
            let branch = req[up] ^ self.value[up] ^ (self.value[w as usize] + 1);
            if branch > 0 {
                req[w as usize] = branch - 1;
            }
        }
        let budget = Cell::new(MAX_GREEN_MOVE_STEPS);
        let mut edges = Vec::new();
        let complete = self.local_values(ends, &budget, |e, p, x| {
            if req[p as usize] == x {
                edges.push(e);
            }
            true
        });
        edges.sort_unstable();
        GreenCuts { edges, complete }
    }

    /// The value after each grounded cut, as `(edge from 0, nimber)` in no particular order,
    /// and whether all were found within the budget.
    pub(super) fn cut_values(&self, ends: &[(u32, u32)]) -> (Vec<(usize, u64)>, bool) {
        // Depth of each piece in the tree of pieces, for the cost of carrying a value down.
        let mut depth = vec![0u64; self.value.len()];
        for &w in &self.order[1..] {
            let (p, e) = self.parent[w as usize];
            if self.bridge[e as usize] {
                depth[w as usize] = depth[self.piece[p as usize] as usize] + 1;
            }
        }
        let budget = Cell::new(MAX_GREEN_MOVE_STEPS);
        let mut out = Vec::new();
        let complete = self.local_values(ends, &budget, |e, p, x| {
            let cost = depth[p as usize] + 1;
            if cost > budget.get() {
                return false;
            }
            budget.set(budget.get() - cost);
            out.push((e, self.carry_down(p, x)));
            true
        });
        (out, complete)
    }

    /// The ground's value when piece `p` takes the value `x`.
    fn carry_down(&self, mut p: u32, mut x: u64) -> u64 {
        while p != 0 {
            let (below, _) = self.parent[p as usize];
            let q = self.piece[below as usize];
            x = self.value[q as usize] ^ (self.value[p as usize] + 1) ^ (x + 1);
            p = q;
        }
        x
    }

    /// Calls `found(edge, piece, local value)` for every grounded edge (see the module text),
    /// cheap edges first; `found` returns false when it skipped the edge for the budget.
    /// Returns whether every edge was given and accepted.
    fn local_values(
        &self,
        ends: &[(u32, u32)],
        budget: &Cell<u64>,
        mut found: impl FnMut(usize, u32, u64) -> bool,
    ) -> bool {
        let vertices = self.tin.len();
        let mut complete = true;
        // Attachments, weights (attachments and edges mod 2, each non-bridge edge counted at its
        // deeper end) and labels of each vertex.
        let mut weight = vec![0u64; vertices];
        let mut label = vec![0u128; vertices];
        let mut labelled: Vec<(u128, u32)> = Vec::new();
        for &w in &self.order[1..] {
            let (p, e) = self.parent[w as usize];
            if self.bridge[e as usize] {
                let up = self.piece[p as usize];
                let local = self.value[up as usize] ^ (self.value[w as usize] + 1);
                complete &= found(e as usize, up, local);
                weight[p as usize] ^= self.value[w as usize] + 1;
            } else {
                weight[w as usize] ^= 1;
            }
        }
        for (e, &(u, v)) in ends.iter().enumerate() {
            let (u, v) = (u as usize, v as usize);
            if self.tin[u] == NONE || self.bridge[e] {
                continue;
            }
            let deeper = if self.tin[u] >= self.tin[v] { u } else { v };
            if u != v && self.parent[deeper].1 == e as u32 {
                continue; // a tree edge
            }
            let l = random_label(e as u64);
            weight[deeper] ^= 1;
            label[u] ^= l;
            label[v] ^= l;
            labelled.push((l, e as u32));
        }
        // Sums over the search tree within each piece, children before parents.
        let mut sum = weight;
        for &w in self.order[1..].iter().rev() {
            let (p, e) = self.parent[w as usize];
            if !self.bridge[e as usize] {
                sum[p as usize] ^= sum[w as usize];
                label[p as usize] ^= label[w as usize];
                labelled.push((label[w as usize], e));
            }
        }
        labelled.sort_unstable();
        let mut classes: Vec<&[(u128, u32)]> = labelled
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|class| {
                if class.len() == 1 {
                    let e = class[0].1 as usize;
                    let p = self.piece[ends[e].0 as usize];
                    complete &= found(e, p, self.value[p as usize] ^ 1);
                    false
                } else {
                    true
                }
            })
            .collect();
        classes.sort_by_key(|c| c.len());
        for class in classes {
            complete &= self.class_values(ends, class, &sum, budget, &mut found);
        }
        complete
    }

    /// The local values of the edges of one cut class of two or more edges.
    fn class_values(
        &self,
        ends: &[(u32, u32)],
        class: &[(u128, u32)],
        sum: &[u64],
        budget: &Cell<u64>,
        found: &mut impl FnMut(usize, u32, u64) -> bool,
    ) -> bool {
        // Tree edges by their lower vertex, deepest first; at most one non-tree edge.
        let mut lower: Vec<(u32, u32)> = Vec::new();
        let mut other = Vec::new();
        for &(_, e) in class {
            let (u, v) = ends[e as usize];
            let (u, v) = (u as usize, v as usize);
            let deeper = if self.tin[u] >= self.tin[v] { u } else { v };
            if u != v && self.parent[deeper].1 == e {
                lower.push((self.tin[deeper], deeper as u32));
            } else {
                other.push(e);
            }
        }
        // Only a collision of labels breaks this; the class is then left out, as incomplete.
        debug_assert!(
            other.len() <= 1 && !lower.is_empty(),
            "a cut class with {} non-tree edges",
            other.len()
        );
        if other.len() > 1 || lower.is_empty() {
            return false;
        }
        lower.sort_unstable_by(|a, b| b.cmp(a));
        let v: Vec<usize> = lower.iter().map(|&(_, w)| w as usize).collect();
        let q = v.len();
        let top = self.piece[v[0]] as usize;
        // Segment weights: D above the deepest edge, A_i between edges i and i + 1, T below the
        // highest (holding the piece's root).
        let d = sum[v[0]] ^ 1 ^ other.len() as u64;
        let t = sum[top] ^ sum[v[q - 1]];
        // The ring from the root's segment: A_{q-1}, …, A_1 (and D), with the edges between.
        let mut ring: Vec<u64> = (1..q)
            .rev()
            .map(|i| sum[v[i]] ^ sum[v[i - 1]] ^ 1)
            .collect();
        let mut cut: Vec<usize> = v.iter().rev().map(|&w| self.parent[w].1 as usize).collect();
        let root = if let Some(&b) = other.first() {
            ring.push(d);
            cut.push(b as usize);
            t
        } else {
            t ^ d
        };
        let k = cut.len();
        debug_assert_eq!(ring.len() + 1, k);
        // Each prefix of each direction folds its non-zero segments and one run of zeros.
        let nonzero = ring.iter().filter(|&&w| w != 0).count() as u64;
        let cost = 2 * ring.len() as u64 + nonzero * (ring.len() as u64 + 1);
        if cost > budget.get() {
            return false;
        }
        budget.set(budget.get() - cost);
        let near = chain_branches(&ring);
        ring.reverse();
        let far = chain_branches(&ring);
        let mut complete = true;
        for (m, &e) in cut.iter().enumerate() {
            // Cutting edge m + 1 of the ring leaves chains of m and k - 1 - m segments.
            let local = root ^ near[m] ^ far[k - 1 - m];
            complete &= found(e, top as u32, local);
        }
        complete
    }
}

/// `out[L]` is the value of the branch made of the first `L` segments of a chain (a bridge up
/// to segment 0, then to segment 1, …), each segment a vertex of weight `w[i]`: `br(empty) = 0`,
/// `br(i..) = 1 + (w[i] ⊕ br(i + 1..))`, folded from the far end with runs of weight 0 added
/// at once.
fn chain_branches(w: &[u64]) -> Vec<u64> {
    let nonzero: Vec<usize> = (0..w.len()).filter(|&i| w[i] != 0).collect();
    let mut out = vec![0u64; w.len() + 1];
    for (len, slot) in out.iter_mut().enumerate().skip(1) {
        let (mut y, mut top) = (0u64, len);
        let count = nonzero.partition_point(|&i| i < len);
        for &i in nonzero[..count].iter().rev() {
            y += (top - 1 - i) as u64;
            y = 1 + (w[i] ^ y);
            top = i;
        }
        *slot = y + top as u64;
    }
    out
}

/// 128 pseudo-random bits for edge `e` (SplitMix64 twice; fixed, so results repeat).
fn random_label(e: u64) -> u128 {
    fn mix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let a = mix(e.wrapping_mul(2));
    let b = mix(e.wrapping_mul(2) + 1);
    (a as u128) << 64 | b as u128
}
