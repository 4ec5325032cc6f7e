//! Mixed graph parts with cycles: a search of the game whose positions are reduced to blocks.
//!
//! Replacement (the colon principle for every colour): if the part of a position above a
//! vertex `v` (everything that stays joined to the ground only through `v`) is replaced by any
//! other position `H'` equal to it as a game rooted at `v`, the whole position keeps its value.
//! For green edges this is Winning Ways' colon principle (ch. 7); the same argument holds for
//! any colours: in `G[H] − G[H']` the second player answers a move in `H` or `−H'` by the
//! winning reply in `H − H' = 0`, and a move in the rest by the same move in the other copy;
//! a mirrored pair of moves that cuts `v` from the ground removes `H` and `H'` together.
//! Conway's ordinal sum `e:H` of one edge `e` also depends only on the value of `H` (Conway,
//! *On Numbers and Games*, ch. 15; Siegel, *Combinatorial Game Theory*, 2013).
//!
//! So a position, rooted at a vertex, is split into its *blocks* (2-connected pieces, found
//! by one depth-first search) and evaluated from the top down to the root: the blocks hanging
//! at a vertex sum to one game, its *attachment*; a block that is one edge `e` with attachment
//! `H` at its far end is `e:H`; a larger block is searched, its positions being the block's
//! remaining edges with the attachments of its vertices (canonical forms), memoized by that
//! key. A move cuts an edge of the block (the rest is split into blocks again) or moves in
//! one attachment to one of its canonical options. Equal attachments are thus shared, and
//! trees hanging from cycles, or cycles hanging from cycles, cost their sizes, not a product.
//! The search is refused up front for a block of more than [`MAX_BLOCK_EDGES`] edges or
//! carrying more than about [`MAX_BLOCK_STATES`] positions, and stopped beyond
//! [`super::MAX_SEARCH_POSITIONS`] positions or [`MAX_SEARCH_NODES`] new game nodes.

use std::collections::HashMap;

use super::super::forms::Evaluator;
use super::super::{shown, Edge, HackenbushError};
use super::MAX_SEARCH_POSITIONS;
use crate::partizan::{Arena, GameId};

/// The largest block (2-connected piece of a mixed graph) that is searched. Measured on the
/// 2-core test machine (opt-level 2, under load) on ladders standing on the ground, random
/// colours: 18 edges 0.2 s, 21 edges 2.4 s, 24 edges 13 s, 30 edges over 60 s.
pub const MAX_BLOCK_EDGES: usize = 24;

/// The most positions of the structures hanging on one block's vertices that a search takes,
/// estimated as the product over the vertices of (edges hanging there + 1). Measured on a
/// cycle through the ground with a pendant edge on each vertex: 12 edges (2^11) 0.5 s, 14
/// edges (2^13) 4 s, 16 edges (2^15) 25 s; 20 edges exhausted the arena after 110 s.
pub const MAX_BLOCK_STATES: u64 = 1 << 14;

/// The most game nodes and memo entries a block search may add to the arena (about 100 bytes
/// each). Measured: a chain of triangles hanging from the ground, each with a pendant edge
/// (random colours), grows the arena by about 4·10^5 a second on the 2-core test machine;
/// 20 triangles take 8 s, 40 did not finish in 120 s (850 MB), so the search stops after
/// about 10 s instead.
pub const MAX_SEARCH_NODES: usize = 4_000_000;

/// A block position: its root, its edges (ascending), and the non-zero attachments of its
/// other vertices (by vertex).
type Key = (u32, Box<[u32]>, Box<[(u32, GameId)]>);

/// The search of one part of a graph (vertex 0 is the ground).
pub(super) struct BlockSearch {
    ends: Vec<(u32, u32)>,
    colour: Vec<Edge>,
    name: String,
    memo: HashMap<Key, GameId>,
    /// The arena's size when the search began.
    start: usize,
}

/// One block of a position: the vertex it hangs from, and its edges.
struct Block {
    root: u32,
    edges: Vec<u32>,
}

impl Block {
    /// The block's vertices other than its root, ascending (`ends`: each edge's two ends).
    fn vertices(&self, ends: &[(u32, u32)]) -> Vec<u32> {
        let mut vertices: Vec<u32> = self
            .edges
            .iter()
            .flat_map(|&e| {
                let (u, v) = ends[e as usize];
                [u, v]
            })
            .filter(|&w| w != self.root)
            .collect();
        vertices.sort_unstable();
        vertices.dedup();
        vertices
    }
}

impl BlockSearch {
    pub(super) fn new(
        ev: &Evaluator,
        ends: Vec<(u32, u32)>,
        colour: Vec<Edge>,
        name: &str,
    ) -> Self {
        BlockSearch {
            ends,
            colour,
            name: name.to_string(),
            memo: HashMap::new(),
            start: ev.arena.size(),
        }
    }

    /// Number of edges of the part.
    pub(super) fn edges(&self) -> usize {
        self.ends.len()
    }

    /// The colour of edge `e` of the part.
    pub(super) fn colour(&self, e: usize) -> Edge {
        self.colour[e]
    }

    /// Refuses a part whose search would be too large: a block of more than
    /// [`MAX_BLOCK_EDGES`] edges, or one whose vertices carry more than [`MAX_BLOCK_STATES`]
    /// positions (estimated from the edges hanging above each vertex).
    pub(super) fn check_size(&self) -> Result<(), HackenbushError> {
        let all: Vec<u32> = (0..self.ends.len() as u32).collect();
        let (blocks, loops) = self.blocks(0, &all);
        let mut above: HashMap<u32, u64> = HashMap::new();
        for e in loops {
            *above.entry(self.ends[e as usize].0).or_default() += 1;
        }
        for block in &blocks {
            let vertices = block.vertices(&self.ends);
            let hanging: Vec<u64> = vertices
                .iter()
                .map(|w| above.get(w).copied().unwrap_or(0))
                .collect();
            if block.edges.len() > 1 {
                let states = hanging.iter().fold(1u64, |p, &h| p.saturating_mul(h + 1));
                if block.edges.len() > MAX_BLOCK_EDGES {
                    return Err(HackenbushError::GraphTooLarge {
                        name: shown(&self.name),
                        edges: block.edges.len(),
                        max: MAX_BLOCK_EDGES,
                    });
                }
                if states > MAX_BLOCK_STATES {
                    return Err(HackenbushError::GraphBlockStates {
                        name: shown(&self.name),
                        edges: block.edges.len(),
                        states,
                        max: MAX_BLOCK_STATES,
                    });
                }
            }
            let total = block.edges.len() as u64 + hanging.iter().sum::<u64>();
            *above.entry(block.root).or_default() += total;
        }
        Ok(())
    }

    /// The value of the position made of `edges` (those joined to `root`) rooted at `root`,
    /// with attachments `att` at some of its vertices.
    pub(super) fn value(
        &mut self,
        ev: &mut Evaluator,
        root: u32,
        edges: &[u32],
        att: &[(u32, GameId)],
    ) -> Result<GameId, HackenbushError> {
        let (blocks, loops) = self.blocks(root, edges);
        let mut sum: HashMap<u32, GameId> = att.iter().copied().collect();
        for e in loops {
            let (v, _) = self.ends[e as usize];
            let g = ev.edge_over(self.colour[e as usize], Arena::ZERO)?;
            let here = sum.get(&v).copied().unwrap_or(Arena::ZERO);
            sum.insert(v, ev.arena.add(here, g)?);
        }
        for block in blocks {
            let g = if let [e] = block.edges[..] {
                let (u, v) = self.ends[e as usize];
                let top = if u == block.root { v } else { u };
                let above = sum.get(&top).copied().unwrap_or(Arena::ZERO);
                ev.edge_over(self.colour[e as usize], above)?
            } else {
                let vertices = block.vertices(&self.ends);
                let here: Vec<(u32, GameId)> = vertices
                    .into_iter()
                    .filter_map(|w| sum.get(&w).map(|&g| (w, g)))
                    .filter(|&(_, g)| g != Arena::ZERO)
                    .collect();
                let mut edges = block.edges;
                edges.sort_unstable();
                self.block_value(ev, (block.root, edges.into(), here.into()))?
            };
            let below = sum.get(&block.root).copied().unwrap_or(Arena::ZERO);
            sum.insert(block.root, ev.arena.add(below, g)?);
        }
        Ok(sum.get(&root).copied().unwrap_or(Arena::ZERO))
    }

    /// The value of a 2-connected block with its attachments, by its options.
    fn block_value(&mut self, ev: &mut Evaluator, key: Key) -> Result<GameId, HackenbushError> {
        if let Some(&g) = self.memo.get(&key) {
            return Ok(g);
        }
        let grown = ev.arena.size().saturating_sub(self.start);
        if grown > MAX_SEARCH_NODES {
            return Err(HackenbushError::GraphSearchNodes {
                name: shown(&self.name),
                max: MAX_SEARCH_NODES,
            });
        }
        if self.memo.len() >= MAX_SEARCH_POSITIONS {
            return Err(HackenbushError::GraphPositions {
                name: shown(&self.name),
                max: MAX_SEARCH_POSITIONS,
            });
        }
        let (root, edges, att) = &key;
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for (i, &e) in edges.iter().enumerate() {
            let rest: Vec<u32> = edges[..i].iter().chain(&edges[i + 1..]).copied().collect();
            let g = self.value(ev, *root, &rest, att)?;
            if self.colour[e as usize] != Edge::Red {
                left.push(g);
            }
            if self.colour[e as usize] != Edge::Blue {
                right.push(g);
            }
        }
        for (j, &(w, a)) in att.iter().enumerate() {
            for (side, to) in [(true, &mut left), (false, &mut right)] {
                let options = if side {
                    ev.arena.left(a)
                } else {
                    ev.arena.right(a)
                };
                for &o in options.iter() {
                    let mut moved: Vec<(u32, GameId)> = att.to_vec();
                    if o == Arena::ZERO {
                        moved.remove(j);
                    } else {
                        moved[j] = (w, o);
                    }
                    let g = self.block_value(ev, (*root, edges.clone(), moved.into()))?;
                    to.push(g);
                }
            }
        }
        for opts in [&mut left, &mut right] {
            opts.sort_unstable();
            opts.dedup();
        }
        let g = ev.arena.game(&left, &right)?;
        self.memo.insert(key, g);
        Ok(g)
    }

    /// The blocks of the edges joined to `root`, each after the blocks hanging above it, and
    /// the loops (each a block of its own).
    fn blocks(&self, root: u32, edges: &[u32]) -> (Vec<Block>, Vec<u32>) {
        // Local numbering of the vertices, the root first.
        let mut local: HashMap<u32, u32> = HashMap::new();
        let mut names = vec![root];
        local.insert(root, 0);
        let mut ends = Vec::with_capacity(edges.len());
        for &e in edges {
            let (u, v) = self.ends[e as usize];
            let mut id = |w: u32| {
                *local.entry(w).or_insert_with(|| {
                    names.push(w);
                    names.len() as u32 - 1
                })
            };
            ends.push((id(u), id(v)));
        }
        let n = names.len();
        let mut start = vec![0usize; n + 1];
        for &(u, v) in &ends {
            start[u as usize + 1] += 1;
            start[v as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut to = vec![(0u32, 0u32); 2 * ends.len()];
        for (i, &(u, v)) in ends.iter().enumerate() {
            to[fill[u as usize]] = (v, i as u32);
            fill[u as usize] += 1;
            to[fill[v as usize]] = (u, i as u32);
            fill[v as usize] += 1;
        }
        const NONE: u32 = u32::MAX;
        let mut tin = vec![NONE; n];
        let mut low = vec![0u32; n];
        tin[0] = 0;
        let mut timer = 1;
        let (mut blocks, mut loops) = (Vec::new(), Vec::new());
        let mut edge_stack: Vec<u32> = Vec::new();
        // (vertex, edge from its parent, next adjacency)
        let mut stack: Vec<(usize, u32, usize)> = vec![(0, NONE, start[0])];
        while let Some(top) = stack.last_mut() {
            let v = top.0;
            if top.2 < start[v + 1] {
                let (w, i) = to[top.2];
                top.2 += 1;
                let w = w as usize;
                if i == top.1 {
                    continue;
                }
                if w == v {
                    // A loop is seen twice; keep it once.
                    if to[top.2 - 1..start[v + 1]]
                        .iter()
                        .skip(1)
                        .any(|&(_, j)| j == i)
                    {
                        loops.push(edges[i as usize]);
                    }
                    continue;
                }
                if tin[w] == NONE {
                    tin[w] = timer;
                    low[w] = timer;
                    timer += 1;
                    edge_stack.push(i);
                    stack.push((w, i, start[w]));
                } else if tin[w] < tin[v] {
                    edge_stack.push(i);
                    low[v] = low[v].min(tin[w]);
                }
            } else {
                let (_, pe, _) = stack.pop().expect("not empty");
                if let Some(&(p, _, _)) = stack.last() {
                    low[p] = low[p].min(low[v]);
                    if low[v] >= tin[p] {
                        let mut block = Vec::new();
                        while let Some(i) = edge_stack.pop() {
                            block.push(edges[i as usize]);
                            if i == pe {
                                break;
                            }
                        }
                        blocks.push(Block {
                            root: names[p],
                            edges: block,
                        });
                    }
                }
            }
        }
        (blocks, loops)
    }
}
