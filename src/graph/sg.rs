//! Grundy values of a game graph, and generalized Sprague–Grundy values when it has cycles.
//!
//! First every vertex from which no cycle can be reached gets its ordinary Grundy value, in
//! reverse topological order (a vertex is ready when all its followers are): linear time, no
//! recursion. If vertices remain, the graph has cycles and they get the generalized
//! Sprague–Grundy function γ (C. A. B. Smith, "Graphs and composite games", JCT 1966; A. S.
//! Fraenkel and Y. Yesha, "The generalized Sprague–Grundy function and its invariance under
//! certain mappings", JCT A 1986), built in stages `m = 0, 1, 2, …`:
//! 1. an unlabelled vertex `u` with no follower labelled `m`, each of whose unlabelled or
//!    `∞` followers has a follower labelled `m`, is labelled `m`; repeat while possible;
//! 2. an unlabelled vertex with no follower labelled `m` is labelled `∞`.
//!
//! (Unlabelled vertices at stage `m` have followers of every value below `m`.) Each stage is
//! linear in the size of the part not yet finitely labelled, using per-vertex counters. A
//! vertex labelled `∞` gets `∞(K)`, `K` the set of finite values of its followers. Outcomes:
//! value 0 is P; a finite value above 0, or `∞(K)` with 0 in K, is N; any other `∞(K)` is a
//! draw D (neither player can force a win). Sums add as in Smith's theory: `a ⊕ b` for finite
//! values, `∞(K ⊕ a)` for `∞(K)` plus `a`, and `∞(∅)` for two infinite values.

use std::collections::VecDeque;
use std::fmt;

use super::Graph;
use crate::mex::MexSet;

/// The value of a vertex.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// A finite (generalized) Sprague–Grundy value.
    Finite(u32),
    /// `∞(K)`: the finite values `K` among the followers, in increasing order.
    Infinite(Vec<u32>),
}

/// Who wins from a vertex with perfect play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player to move loses.
    P,
    /// The player to move wins.
    N,
    /// Neither player can force a win: play goes on forever.
    D,
}

impl Outcome {
    /// `"P"`, `"N"` or `"D"`.
    pub fn letter(self) -> &'static str {
        match self {
            Outcome::P => "P",
            Outcome::N => "N",
            Outcome::D => "D",
        }
    }
}

impl Value {
    /// The outcome a vertex of this value has.
    pub fn outcome(&self) -> Outcome {
        match self {
            Value::Finite(0) => Outcome::P,
            Value::Finite(_) => Outcome::N,
            Value::Infinite(k) if k.first() == Some(&0) => Outcome::N,
            Value::Infinite(_) => Outcome::D,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Finite(v) => write!(f, "{v}"),
            Value::Infinite(k) => {
                f.write_str("∞(")?;
                for (i, v) in k.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// The values of every vertex of a graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The value of each vertex, by vertex number.
    pub values: Vec<Value>,
    /// Does the graph have a cycle (a vertex from which play can go on forever)?
    pub cyclic: bool,
    /// How many vertices lie on or lead to a cycle (those the generalized function labelled).
    pub loopy_vertices: usize,
}

const UNLABELLED: u32 = u32::MAX;
const INFINITE: u32 = u32::MAX - 1;

/// Reverse-topological labelling of every vertex that cannot reach a cycle. Returns the labels
/// (`UNLABELLED` for the rest) and the remaining out-degree counters.
fn peel(g: &Graph) -> (Vec<u32>, Vec<u32>) {
    let n = g.vertex_count();
    let mut label = vec![UNLABELLED; n];
    let mut remaining: Vec<u32> = (0..n as u32).map(|v| g.followers(v).len() as u32).collect();
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&v| remaining[v as usize] == 0)
        .collect();
    // The followers' values; a value past the out-degree cannot be the mex, so is not marked.
    let mut seen = MexSet::new();
    while let Some(v) = ready.pop() {
        let fs = g.followers(v);
        seen.reset(fs.len());
        for &w in fs {
            let x = label[w as usize];
            if (x as usize) < fs.len() {
                seen.mark(x);
            }
        }
        label[v as usize] = seen.mex();
        for &p in g.predecessors(v) {
            let r = &mut remaining[p as usize];
            *r -= 1;
            if *r == 0 {
                ready.push(p);
            }
        }
    }
    (label, remaining)
}

/// A vertex on a cycle, if the graph has one.
pub fn find_cycle(g: &Graph) -> Option<u32> {
    let (label, _) = peel(g);
    let start = label.iter().position(|&l| l == UNLABELLED)? as u32;
    // Every unlabelled vertex has an unlabelled follower: walk until a vertex repeats.
    let mut visited = vec![false; g.vertex_count()];
    let mut v = start;
    while !visited[v as usize] {
        visited[v as usize] = true;
        v = *g
            .followers(v)
            .iter()
            .find(|&&w| label[w as usize] == UNLABELLED)
            .expect("an unlabelled vertex has an unlabelled follower");
    }
    Some(v)
}

/// Labels every vertex of `g` with its (generalized) Sprague–Grundy value.
pub fn analyze(g: &Graph) -> Analysis {
    let (mut label, _) = peel(g);
    let mut open: Vec<u32> = (0..g.vertex_count() as u32)
        .filter(|&v| label[v as usize] == UNLABELLED)
        .collect();
    let loopy_vertices = open.len();
    let cyclic = !open.is_empty();
    if cyclic {
        generalized(g, &mut label, &mut open);
    }
    let values = (0..g.vertex_count() as u32)
        .map(|v| match label[v as usize] {
            INFINITE => {
                let mut k: Vec<u32> = g
                    .followers(v)
                    .iter()
                    .map(|&w| label[w as usize])
                    .filter(|&x| x < INFINITE)
                    .collect();
                k.sort_unstable();
                k.dedup();
                Value::Infinite(k)
            }
            x => Value::Finite(x),
        })
        .collect();
    Analysis {
        values,
        cyclic,
        loopy_vertices,
    }
}

/// The stages of the generalized Sprague–Grundy labelling over the `open` (unlabelled)
/// vertices; every other vertex already has a finite label.
fn generalized(g: &Graph, label: &mut [u32], open: &mut Vec<u32>) {
    let n = g.vertex_count();
    let mut infinite: Vec<u32> = Vec::new();
    // has_m[v] == tag: v has a follower labelled m (the current stage).
    let mut has_m = vec![0u32; n];
    // For an open vertex: its open-or-infinite followers without a follower labelled m.
    let mut blockers = vec![0u32; n];
    let mut queue: VecDeque<u32> = VecDeque::new();
    let not_finite = |x: u32| x == UNLABELLED || x == INFINITE;
    let mut m: u32 = 0;
    while !open.is_empty() {
        let tag = m + 1;
        for &v in open.iter().chain(infinite.iter()) {
            if g.followers(v).iter().any(|&w| label[w as usize] == m) {
                has_m[v as usize] = tag;
            }
        }
        for &u in open.iter() {
            let count = g
                .followers(u)
                .iter()
                .filter(|&&v| not_finite(label[v as usize]) && has_m[v as usize] != tag)
                .count() as u32;
            blockers[u as usize] = count;
            if count == 0 && has_m[u as usize] != tag {
                queue.push_back(u);
            }
        }
        while let Some(u) = queue.pop_front() {
            if label[u as usize] != UNLABELLED || has_m[u as usize] == tag {
                continue;
            }
            label[u as usize] = m;
            for &p in g.predecessors(u) {
                if has_m[p as usize] == tag {
                    continue;
                }
                has_m[p as usize] = tag;
                if !not_finite(label[p as usize]) {
                    continue;
                }
                for &q in g.predecessors(p) {
                    if label[q as usize] == UNLABELLED {
                        let b = &mut blockers[q as usize];
                        *b -= 1;
                        if *b == 0 && has_m[q as usize] != tag {
                            queue.push_back(q);
                        }
                    }
                }
            }
        }
        open.retain(|&u| {
            if label[u as usize] != UNLABELLED {
                return false;
            }
            if has_m[u as usize] != tag {
                label[u as usize] = INFINITE;
                infinite.push(u);
                return false;
            }
            true
        });
        m = m
            .checked_add(1)
            .filter(|&m| m < INFINITE - 1)
            .expect("fewer stages than vertices");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, edges: &[(u32, u32)]) -> Vec<String> {
        analyze(&Graph::from_edges(n, edges))
            .values
            .iter()
            .map(|v| v.to_string())
            .collect()
    }

    #[test]
    fn acyclic_is_ordinary_grundy() {
        // 0 -> 1 -> 2, 0 -> 2: values 2, 1, 0.
        assert_eq!(values(3, &[(0, 1), (1, 2), (0, 2)]), ["2", "1", "0"]);
    }

    #[test]
    fn loops() {
        // A vertex whose only move passes: a draw, ∞(∅).
        assert_eq!(values(1, &[(0, 0)]), ["∞()"]);
        // Two vertices moving to each other, one also to a terminal: 0 -> 1 -> 0, 1 -> 2.
        // Vertex 1 can move to the terminal vertex 2 (value 0): value 1; vertex 0 can only
        // move to 1: value 0; vertex 2: 0.
        assert_eq!(values(3, &[(0, 1), (1, 0), (1, 2)]), ["0", "1", "0"]);
        // A 2-cycle with an exit from both: 0 <-> 1, both -> 2 (terminal). Neither can be
        // finite (they would need different values, and an ∞ follower for the other): both
        // ∞(0), N (move to 2).
        let a = analyze(&Graph::from_edges(3, &[(0, 1), (1, 0), (0, 2), (1, 2)]));
        assert_eq!(a.values[0], Value::Infinite(vec![0]));
        assert_eq!(a.values[1], Value::Infinite(vec![0]));
        assert_eq!(a.values[0].outcome(), Outcome::N);
        assert!(a.cyclic);
        assert_eq!(a.loopy_vertices, 2);
    }

    #[test]
    fn infinite_with_exit_to_zero() {
        // 0 -> 0 (a pass), 0 -> 1 (terminal): a vertex with a pass is never finite (it would
        // be its own follower of equal value): ∞(0), N.
        assert_eq!(values(2, &[(0, 0), (0, 1)]), ["∞(0)", "0"]);
        // 0 <-> 1, 1 -> 2 -> 3 (terminal): γ(3) = 0, γ(2) = 1; from 1, moving to 2 loses, so
        // both players stay on the cycle: 1 is ∞(1), 0 is ∞(), both draws.
        let a = analyze(&Graph::from_edges(4, &[(0, 1), (1, 0), (1, 2), (2, 3)]));
        assert_eq!(a.values[3], Value::Finite(0));
        assert_eq!(a.values[2], Value::Finite(1));
        assert_eq!(a.values[1], Value::Infinite(vec![1]));
        assert_eq!(a.values[0], Value::Infinite(vec![]));
        assert_eq!(a.values[0].outcome(), Outcome::D);
        assert_eq!(a.values[1].outcome(), Outcome::D);
    }

    #[test]
    fn finds_a_vertex_on_a_cycle() {
        // 0 -> 1 -> 2 -> 3 -> 1: vertex 0 leads to the cycle but is not on it.
        let g = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3), (3, 1)]);
        let v = find_cycle(&g).unwrap();
        assert!([1, 2, 3].contains(&v));
        assert_eq!(find_cycle(&Graph::from_edges(2, &[(0, 1)])), None);
    }
}
