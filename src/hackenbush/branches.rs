//! Mixed trees with long branches: each branch that ends in a leaf without forking is a string,
//! evaluated by its prefixes (`stalk.rs`), and the branches on the ground are kept apart.
//!
//! A tree's value is `Σ e:value(c)` over the edges `e` from the ground (Winning Ways ch. 7), and
//! so is each vertex's. Call a vertex *bare* if everything above it is a path (at most one edge
//! leaves each vertex, up to a leaf). The edge into a bare vertex from a vertex that is not bare
//! (or from the ground) starts a *chain*, a string up to its leaf: its value `e:value(c)` is
//! that string's, and cutting its `i`-th edge leaves the chain's prefix of `i − 1` edges, both
//! read off the colours with no comparison of games. Only the vertices that are not bare are
//! summed (`Arena::add`) and carried by ordinal sums, as in the general tree code. The
//! branches on the ground are not summed at all: they are the tree's *parts*, and the sum of
//! all components' parts is decided by [`crate::partizan::SumSearch`]; the tree's own canonical
//! form is built only when affordable. So a tree of two 300-edge mixed strings forking from the
//! ground costs about what the two strings cost. A fork above a long trunk still needs the sum
//! of what it carries as a canonical form (the ordinal sum depends on it), and is refused when
//! that form is too costly to build.

use super::forms::{sum_cost, Evaluator, Tree, MAX_SUM_COST};
use super::{shown, Edge, HackenbushError, StringForms, MAX_OPTION_ENTRIES};
use crate::partizan::{Arena, GameId};

/// A chain: its first (lowest) edge and the values of its prefixes (`prefixes[i]`: the first
/// `i` edges).
#[derive(Debug)]
struct Chain {
    prefixes: Vec<GameId>,
}

/// The values of a mixed tree by chains and ground branches (see the module text).
#[derive(Debug)]
pub(super) struct Branches {
    /// For each edge `v` (from 1; index 0 unused) in a chain: (chain, position from 1).
    chain_at: Vec<Option<(u32, u32)>>,
    chains: Vec<Chain>,
    /// What each vertex that is not bare carries (`value[0]` unused: the ground's parts).
    value: Vec<GameId>,
    /// The value of edge `v` with all it carries, for chain starts and non-bare vertices.
    branch: Vec<GameId>,
    /// The edges from the ground, in order.
    ground: Vec<usize>,
    /// Edges that are in no chain.
    inner: usize,
}

impl Branches {
    /// Evaluates `tree` (named `text` in messages).
    pub(super) fn compute(
        ev: &mut Evaluator,
        tree: &Tree,
        text: &str,
    ) -> Result<Branches, HackenbushError> {
        let n = tree.edges();
        let mut children = vec![0u32; n + 1];
        let mut only_child = vec![0u32; n + 1];
        for v in 1..=n {
            let p = tree.parent_of(v);
            children[p] += 1;
            only_child[p] = v as u32;
        }
        // bare[v]: everything above v is a path (children are later than their parents).
        let mut bare = vec![false; n + 1];
        for v in (1..=n).rev() {
            bare[v] = children[v] == 0 || (children[v] == 1 && bare[only_child[v] as usize]);
        }
        let mut out = Branches {
            chain_at: vec![None; n + 1],
            chains: Vec::new(),
            value: vec![Arena::ZERO; n + 1],
            branch: vec![Arena::ZERO; n + 1],
            ground: (1..=n).filter(|&v| tree.parent_of(v) == 0).collect(),
            inner: 0,
        };
        for v in (1..=n).rev() {
            let p = tree.parent_of(v);
            if bare[v] && (p == 0 || !bare[p]) {
                // A chain starts here: its edges up to the leaf.
                let mut edges = Vec::new();
                let mut u = v;
                loop {
                    out.chain_at[u] = Some((out.chains.len() as u32, edges.len() as u32 + 1));
                    edges.push(tree.colour(u));
                    if children[u] == 0 {
                        break;
                    }
                    u = only_child[u] as usize;
                }
                let prefixes = if edges.iter().all(|&e| e == Edge::Green) {
                    (0..=edges.len() as u64)
                        .map(|j| ev.arena.nimber(j))
                        .collect()
                } else {
                    StringForms::compute(&edges, text, MAX_OPTION_ENTRIES)?
                        .into_arena(&mut ev.arena)?
                };
                out.branch[v] = *prefixes.last().expect("a chain has an edge");
                out.chains.push(Chain { prefixes });
            } else if !bare[v] {
                out.inner += 1;
                out.branch[v] = ev.edge_over(tree.colour(v), out.value[v])?;
            } else {
                continue;
            }
            if p != 0 {
                let pair = [out.value[p], out.branch[v]];
                if let Some((cost, ..)) = sum_cost(&mut ev.arena, &pair) {
                    if cost > MAX_SUM_COST {
                        return Err(HackenbushError::ForkTooLarge {
                            string: shown(text),
                            edge: p,
                            cost,
                            max: MAX_SUM_COST,
                        });
                    }
                }
                out.value[p] = ev.arena.add(pair[0], pair[1])?;
            }
        }
        Ok(out)
    }

    /// The branches on the ground, whose sum is the tree's value.
    pub(super) fn parts(&self) -> Vec<GameId> {
        self.ground.iter().map(|&v| self.branch[v]).collect()
    }

    /// Edges in no chain (cuts there rebuild sums along the path to the ground).
    pub(super) fn inner_edges(&self) -> usize {
        self.inner
    }

    /// The tree's parts after cutting edge `j`: the cut edge's chain prefix, or nothing, is the
    /// new branch at its lower end, and each vertex below it is re-summed down to the ground.
    pub(super) fn cut(
        &self,
        ev: &mut Evaluator,
        tree: &Tree,
        j: usize,
    ) -> Result<Vec<GameId>, HackenbushError> {
        // The edge whose branch changes (a chain's start or an inner edge) and its new branch.
        let (mut v, mut new_branch) = match self.chain_at[j] {
            Some((c, i)) => {
                let mut start = j;
                for _ in 1..i {
                    start = tree.parent_of(start);
                }
                (start, self.chains[c as usize].prefixes[i as usize - 1])
            }
            None => (j, Arena::ZERO),
        };
        loop {
            let p = tree.parent_of(v);
            if p == 0 {
                return Ok(self
                    .ground
                    .iter()
                    .map(|&u| if u == v { new_branch } else { self.branch[u] })
                    .collect());
            }
            let without = ev.arena.sub(self.value[p], self.branch[v])?;
            let new_p = ev.arena.add(without, new_branch)?;
            new_branch = ev.edge_over(tree.colour(p), new_p)?;
            v = p;
        }
    }
}
