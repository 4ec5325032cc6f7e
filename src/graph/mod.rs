//! Finite impartial games given as directed graphs: one vertex per position, one edge per move.
//!
//! [`Graph::parse`] reads an edge list (one move `u v` per line, `#` comments, any tokens as
//! vertex names, a lone token declaring a vertex) into compressed adjacency arrays with both
//! followers and predecessors. [`analyze`] labels every vertex: for a graph without cycles the
//! ordinary Grundy value, computed in linear time in reverse topological order; on a graph with
//! cycles the generalized Sprague–Grundy function of Smith (1966) and Fraenkel & Yesha (1986),
//! whose values are finite numbers or `∞(K)`, `K` the finite values among the followers. The
//! outcome of every vertex (P, N or D for a draw) follows from its value.

mod parse;
mod sg;

pub use parse::GraphError;
pub use sg::{analyze, find_cycle, Analysis, Outcome, Value};

/// A finite directed graph with named vertices, in compressed sparse row form.
///
/// Vertices are numbered in order of first appearance in the input. Repeated edges are kept
/// once; self-loops are kept (a move that passes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    names: Vec<Box<str>>,
    out_start: Vec<usize>,
    out: Vec<u32>,
    in_start: Vec<usize>,
    inc: Vec<u32>,
    duplicates: usize,
}

impl Graph {
    /// A graph on `n` vertices named `0 .. n-1` with these edges (duplicates are dropped).
    ///
    /// # Panics
    /// If an edge names a vertex `>= n`, or `n` does not fit in `u32`.
    pub fn from_edges(n: usize, edges: &[(u32, u32)]) -> Graph {
        let names = (0..n).map(|i| i.to_string().into_boxed_str()).collect();
        Graph::build(names, edges.to_vec())
    }

    fn build(names: Vec<Box<str>>, mut edges: Vec<(u32, u32)>) -> Graph {
        let n = names.len();
        assert!(u32::try_from(n).is_ok(), "too many vertices");
        let before = edges.len();
        edges.sort_unstable();
        edges.dedup();
        let duplicates = before - edges.len();
        let (out_start, out) = csr(n, edges.iter().map(|&(u, v)| (u, v)), edges.len());
        let (in_start, inc) = csr(n, edges.iter().map(|&(u, v)| (v, u)), edges.len());
        Graph {
            names,
            out_start,
            out,
            in_start,
            inc,
            duplicates,
        }
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.names.len()
    }

    /// Number of distinct edges (moves).
    pub fn edge_count(&self) -> usize {
        self.out.len()
    }

    /// How many repeated edges the input had (they were dropped).
    pub fn duplicate_edges(&self) -> usize {
        self.duplicates
    }

    /// The name of vertex `v`.
    pub fn name(&self, v: u32) -> &str {
        &self.names[v as usize]
    }

    /// The followers of `v` (the positions one move away), in increasing order.
    pub fn followers(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.out[self.out_start[v]..self.out_start[v + 1]]
    }

    /// The predecessors of `v` (the positions with a move to `v`), in increasing order.
    pub fn predecessors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.inc[self.in_start[v]..self.in_start[v + 1]]
    }
}

/// Counting sort of `(from, to)` pairs into start offsets and targets.
fn csr(
    n: usize,
    pairs: impl Iterator<Item = (u32, u32)> + Clone,
    m: usize,
) -> (Vec<usize>, Vec<u32>) {
    let mut start = vec![0usize; n + 1];
    for (u, _) in pairs.clone() {
        start[u as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut targets = vec![0u32; m];
    for (u, v) in pairs {
        targets[fill[u as usize]] = v;
        fill[u as usize] += 1;
    }
    (start, targets)
}
