//! Hackenbush graphs: positions whose edges may close cycles, read from an edge list.
//!
//! Notation (`nimseq hackenbush --graph FILE`): one edge a line, `u v COLOUR`, where `u` and `v`
//! are vertex names (any words without spaces or `#`) and `COLOUR` is `B`, `R`, `G` or `blue`,
//! `red`, `green` (either case). The vertex `g` (either case) or `0` is the ground; every other
//! name is an ordinary vertex, and `u u COLOUR` is a loop. `#` starts a comment; blank lines are
//! skipped. Edges are numbered from 1 in the order they are listed. Cutting an edge removes it and
//! every edge no longer joined to the ground; edges not joined to the ground in the file are
//! dropped at once (they are not part of the game).
//!
//! Values: an all-green graph reduces by the *fusion principle* (Winning Ways ch. 7): the
//! vertices of any cycle may be fused into one vertex, the cycle's edges becoming loops, and a
//! loop is worth a single edge (a twig). So each 2-edge-connected piece of the graph (found by
//! the bridges of one depth-first search) becomes one vertex carrying its non-bridge edges as
//! twigs, the bridges form a tree, and the colon principle gives the nimber, `value(v) = (twigs
//! mod 2) ⊕ (⊕ over child bridges (value(child) + 1))`: linear time. A mixed graph without
//! cycles is a tree and goes through the ordinal sums of [`super::forms`]; a mixed graph with a
//! cycle is evaluated by a search of its game: positions are the sets of edges still joined to
//! the ground (a bit mask), memoized, each position's canonical form built from its options by
//! [`crate::partizan`]. Before any of this a graph that is not all green is split into the
//! parts that meet only at the ground (the graph is their sum), and each part goes the cheapest
//! way; the search is refused for a part beyond [`MAX_SEARCH_EDGES`] edges or
//! [`MAX_SEARCH_POSITIONS`] positions. Winning moves are the cuts whose value, plus the rest of
//! the sum, is `≥ 0` for Left or `≤ 0` for Right: for a searched part the cut values are in the
//! search's memo, for a tree they are recomputed along the path to the ground, for an
//! all-green graph by a new reduction per cut (up to [`MAX_GREEN_MOVES_EDGES`] edges).
//!
//! Checks (the tests below): fusion against the Grundy values of an explicit search of random
//! green graphs and against Winning Ways' rule for circuits; outcomes and winning moves of
//! random mixed graphs against an explicit win/loss search; trees by search against the
//! ordinal sums of `--tree`; the split at the ground against one search of the whole graph.

use std::collections::HashMap;

use super::forms::{Evaluator, Tree};
use super::{shown, Edge, HackenbushError};
use crate::partizan::{Arena, GameId};

/// The largest number of edges in a graph file.
pub const MAX_GRAPH_EDGES: usize = 20_000_000;

/// The largest part of a mixed graph with a cycle that is searched (edges joined to the
/// ground). Measured on the 2-core test machine (shared, debug build at opt-level 2): random
/// one-part graphs of 18 edges 3.6 s, of 20 edges 10 s; 22 and 24 edges took over 100 s (24
/// edges exhausted the arena's budget of 3·10^7 nodes after 63 s and 880 MB).
pub const MAX_SEARCH_EDGES: usize = 20;

/// The largest number of positions the search of a mixed graph visits.
pub const MAX_SEARCH_POSITIONS: usize = 1 << 20;

/// All-green graphs with cycles and more edges than this get their value but no list of
/// winning moves (each move is evaluated by a new reduction of the graph).
pub const MAX_GREEN_MOVES_EDGES: usize = 5000;

/// A Hackenbush graph: vertex 0 is the ground; edge `i` (from 0) joins `ends[i]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    name: String,
    vertices: usize,
    ends: Vec<(u32, u32)>,
    colour: Vec<Edge>,
}

impl Graph {
    /// The name given when it was read (a file name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of edges in the file.
    pub fn edges(&self) -> usize {
        self.colour.len()
    }

    /// The colour of edge `i` (from 1).
    pub fn colour(&self, i: usize) -> Edge {
        self.colour[i - 1]
    }

    fn all_green(&self) -> bool {
        self.colour.iter().all(|&c| c == Edge::Green)
    }
}

/// Reads a graph in the notation of the module text; `name` labels it in messages and reports.
pub fn parse_graph<'a>(name: &str, text: &'a str) -> Result<Graph, HackenbushError> {
    let mut ids: HashMap<&'a str, u32> = HashMap::new();
    let mut g = Graph {
        name: name.to_string(),
        vertices: 1,
        ends: Vec::new(),
        colour: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let words: Vec<&str> = raw
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if words.is_empty() {
            continue;
        }
        let bad = |message: String| HackenbushError::GraphSyntax {
            name: shown(name),
            line,
            message,
        };
        if words.len() != 3 {
            return Err(bad(format!(
                "expected 'u v COLOUR' (two vertices and B, R or G), found {} word{}",
                words.len(),
                if words.len() == 1 { "" } else { "s" }
            )));
        }
        let colour = match words[2].to_ascii_lowercase().as_str() {
            "b" | "blue" => Edge::Blue,
            "r" | "red" => Edge::Red,
            "g" | "green" => Edge::Green,
            _ => {
                return Err(bad(format!(
                    "unknown colour '{}' (use B, R, G or blue, red, green)",
                    shown(words[2])
                )))
            }
        };
        if g.colour.len() >= MAX_GRAPH_EDGES {
            return Err(HackenbushError::TooManyEdges {
                string: shown(name),
                max: MAX_GRAPH_EDGES,
            });
        }
        let mut id = |w: &'a str| -> u32 {
            if w == "0" || w.eq_ignore_ascii_case("g") {
                0
            } else {
                let next = ids.len() as u32 + 1;
                *ids.entry(w).or_insert(next)
            }
        };
        let (u, v) = (id(words[0]), id(words[1]));
        g.ends.push((u, v));
        g.colour.push(colour);
    }
    if g.colour.is_empty() {
        return Err(HackenbushError::GraphSyntax {
            name: shown(name),
            line: 0,
            message: "no edge in the graph".to_string(),
        });
    }
    g.vertices = ids.len() + 1;
    Ok(g)
}

/// Adjacency lists of a graph in one array: `to[start[v]..start[v + 1]]` are the
/// `(neighbour, edge)` pairs of vertex `v` (a loop appears twice).
struct Adjacency {
    start: Vec<usize>,
    to: Vec<(u32, u32)>,
}

impl Adjacency {
    fn new(vertices: usize, ends: &[(u32, u32)]) -> Adjacency {
        let mut start = vec![0usize; vertices + 1];
        for &(u, v) in ends {
            start[u as usize + 1] += 1;
            start[v as usize + 1] += 1;
        }
        for i in 0..vertices {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut to = vec![(0u32, 0u32); 2 * ends.len()];
        for (e, &(u, v)) in ends.iter().enumerate() {
            to[fill[u as usize]] = (v, e as u32);
            fill[u as usize] += 1;
            to[fill[v as usize]] = (u, e as u32);
            fill[v as usize] += 1;
        }
        Adjacency { start, to }
    }

    fn of(&self, v: usize) -> &[(u32, u32)] {
        &self.to[self.start[v]..self.start[v + 1]]
    }

    /// The edges among those with `present(e)` that are joined to the ground, in
    /// breadth-first order, and the vertices reached (ground first).
    fn grounded(&self, present: impl Fn(usize) -> bool) -> (Vec<usize>, Vec<usize>) {
        let vertices = self.start.len() - 1;
        let mut seen = vec![false; vertices];
        let mut taken = vec![false; self.to.len() / 2];
        let (mut edges, mut order) = (Vec::new(), vec![0usize]);
        seen[0] = true;
        let mut head = 0;
        while head < order.len() {
            let v = order[head];
            head += 1;
            for &(w, e) in self.of(v) {
                let (w, e) = (w as usize, e as usize);
                if !present(e) || taken[e] {
                    continue;
                }
                taken[e] = true;
                edges.push(e);
                if !seen[w] {
                    seen[w] = true;
                    order.push(w);
                }
            }
        }
        (edges, order)
    }
}

/// The nim value of the all-green graph of the edges with `present(e)` (fusion, then colon
/// principle; see the module text).
fn green_nimber(adj: &Adjacency, ends: &[(u32, u32)], present: impl Fn(usize) -> bool) -> u64 {
    let vertices = adj.start.len() - 1;
    let edges = ends.len();
    const NONE: u32 = u32::MAX;
    let mut tin = vec![NONE; vertices];
    let mut low = vec![0u32; vertices];
    let mut parent = vec![(NONE, NONE); vertices];
    let mut bridge = vec![false; edges];
    let mut order = vec![0usize];
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
                order.push(w);
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
    // Each 2-edge-connected piece is named by its first vertex in the search; its edges other
    // than bridges become twigs at that vertex.
    let mut piece = vec![0u32; vertices];
    for &w in &order[1..] {
        let (p, e) = parent[w];
        piece[w] = if bridge[e as usize] {
            w as u32
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
        let (p, e) = parent[w];
        if bridge[e as usize] {
            let up = piece[p as usize] as usize;
            value[up] ^= value[w] + 1;
        }
    }
    value[0]
}

/// The search of a mixed graph's positions: bit `i` of a position is grounded edge `i`.
struct Search {
    adj: Adjacency,
    colour: Vec<Edge>,
    memo: HashMap<u64, GameId>,
}

impl Search {
    /// The edges of `mask` still joined to the ground.
    fn prune(&self, mask: u64) -> u64 {
        let (edges, _) = self.adj.grounded(|e| mask >> e & 1 == 1);
        edges.iter().fold(0, |m, &e| m | 1 << e)
    }

    fn value(
        &mut self,
        ev: &mut Evaluator,
        mask: u64,
        name: &str,
    ) -> Result<GameId, HackenbushError> {
        if mask == 0 {
            return Ok(Arena::ZERO);
        }
        if let Some(&g) = self.memo.get(&mask) {
            return Ok(g);
        }
        if self.memo.len() >= MAX_SEARCH_POSITIONS {
            return Err(HackenbushError::GraphPositions {
                name: shown(name),
                max: MAX_SEARCH_POSITIONS,
            });
        }
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for e in 0..self.colour.len() {
            if mask >> e & 1 == 0 {
                continue;
            }
            let next = self.prune(mask & !(1 << e));
            let v = self.value(ev, next, name)?;
            if self.colour[e] != Edge::Red {
                left.push(v);
            }
            if self.colour[e] != Edge::Blue {
                right.push(v);
            }
        }
        for opts in [&mut left, &mut right] {
            opts.sort_unstable();
            opts.dedup();
        }
        let g = ev.arena.game(&left, &right)?;
        self.memo.insert(mask, g);
        Ok(g)
    }
}

/// How a graph was evaluated, kept for its winning moves.
enum Plan {
    /// All green: by fusion; moves by a new reduction per cut.
    Green(Adjacency),
    /// A tree: `edge_of[t - 1]` is the graph edge (from 0) of tree edge `t`.
    Tree {
        tree: Tree,
        edge_of: Vec<usize>,
        values: Vec<GameId>,
    },
    /// A search; `edge_of[i]` is the graph edge of bit `i`.
    Search { search: Search, edge_of: Vec<usize> },
}

/// A part of a graph evaluated one way, and what finds its winning moves.
struct Part {
    value: GameId,
    grounded: usize,
    plan: Plan,
}

/// A graph's value, and what finds its winning moves.
pub(super) struct Evaluated {
    /// The canonical form of the whole graph.
    pub value: GameId,
    /// Edges joined to the ground.
    pub grounded: usize,
    /// The parts that meet only at the ground, each as a graph of its own with the graph's
    /// edge (from 0) of each of its edges.
    parts: Vec<(Graph, Vec<usize>, Part)>,
}

/// Evaluates a graph (see the module text). A graph that is not all green is first split into
/// the parts that meet only at the ground: their sum is the graph, and each part goes the
/// cheapest way (green, tree or search), so the search's limit applies to each part.
pub(super) fn evaluate(ev: &mut Evaluator, g: &Graph) -> Result<Evaluated, HackenbushError> {
    let mut parts = Vec::new();
    if g.all_green() {
        let part = evaluate_part(ev, g, false)?;
        parts.push((g.clone(), (0..g.edges()).collect(), part));
    } else {
        for (sub, edge_of) in split_at_ground(g) {
            let part = evaluate_part(ev, &sub, false)?;
            parts.push((sub, edge_of, part));
        }
    }
    let values: Vec<GameId> = parts.iter().map(|p| p.2.value).collect();
    Ok(Evaluated {
        value: ev.arena.add_all(&values)?,
        grounded: parts.iter().map(|p| p.2.grounded).sum(),
        parts,
    })
}

/// The parts of a graph's grounded edges that meet only at the ground, each as a graph with
/// the graph's edge (from 0) of each of its edges. A loop at the ground is a part by itself.
fn split_at_ground(g: &Graph) -> Vec<(Graph, Vec<usize>)> {
    let adj = Adjacency::new(g.vertices, &g.ends);
    let (edges, _) = adj.grounded(|_| true);
    // Union-find over the vertices other than the ground.
    let mut up: Vec<u32> = (0..g.vertices as u32).collect();
    fn root(up: &mut [u32], mut v: u32) -> u32 {
        while up[v as usize] != v {
            up[v as usize] = up[up[v as usize] as usize];
            v = up[v as usize];
        }
        v
    }
    for &e in &edges {
        let (u, v) = g.ends[e];
        if u != 0 && v != 0 {
            let (a, b) = (root(&mut up, u), root(&mut up, v));
            up[a as usize] = b;
        }
    }
    let mut part_of: HashMap<u32, usize> = HashMap::new();
    let mut parts: Vec<(Graph, Vec<usize>, HashMap<u32, u32>)> = Vec::new();
    for &e in &edges {
        let (u, v) = g.ends[e];
        let k = if u == 0 && v == 0 {
            parts.len()
        } else {
            let r = root(&mut up, u.max(v));
            *part_of.entry(r).or_insert(parts.len())
        };
        if k == parts.len() {
            let graph = Graph {
                name: g.name.clone(),
                vertices: 1,
                ends: Vec::new(),
                colour: Vec::new(),
            };
            parts.push((graph, Vec::new(), HashMap::new()));
        }
        let (graph, edge_of, names) = &mut parts[k];
        let mut id = |w: u32| -> u32 {
            if w == 0 {
                return 0;
            }
            let next = names.len() as u32 + 1;
            *names.entry(w).or_insert(next)
        };
        let ends = (id(u), id(v));
        graph.ends.push(ends);
        graph.colour.push(g.colour[e]);
        graph.vertices = names.len() + 1;
        edge_of.push(e);
    }
    parts.into_iter().map(|(g, e, _)| (g, e)).collect()
}

fn evaluate_part(
    ev: &mut Evaluator,
    g: &Graph,
    force_search: bool,
) -> Result<Part, HackenbushError> {
    let adj = Adjacency::new(g.vertices, &g.ends);
    let (edges, reached) = adj.grounded(|_| true);
    let grounded = edges.len();
    if g.all_green() && !force_search {
        let n = green_nimber(&adj, &g.ends, |_| true);
        return Ok(Part {
            value: ev.arena.nimber(n),
            grounded,
            plan: Plan::Green(adj),
        });
    }
    if grounded + 1 == reached.len() && !force_search {
        // A tree: breadth-first order puts parents before children.
        let mut index = vec![u32::MAX; g.vertices];
        index[0] = 0;
        let (mut parent, mut colour, mut edge_of) = (Vec::new(), Vec::new(), Vec::new());
        for &e in &edges {
            let (u, v) = g.ends[e];
            let (below, above) = if index[u as usize] != u32::MAX && index[v as usize] == u32::MAX {
                (u, v)
            } else {
                (v, u)
            };
            parent.push(index[below as usize]);
            colour.push(g.colour[e]);
            edge_of.push(e);
            index[above as usize] = parent.len() as u32;
        }
        let tree = Tree::from_parents(parent, colour);
        let values = ev.vertex_values(&tree)?;
        return Ok(Part {
            value: values[0],
            grounded,
            plan: Plan::Tree {
                tree,
                edge_of,
                values,
            },
        });
    }
    if grounded > MAX_SEARCH_EDGES {
        return Err(HackenbushError::GraphTooLarge {
            name: shown(&g.name),
            edges: grounded,
            max: MAX_SEARCH_EDGES,
        });
    }
    // Renumber the grounded edges 0.. and their vertices.
    let mut vertex = vec![u32::MAX; g.vertices];
    for (i, &v) in reached.iter().enumerate() {
        vertex[v] = i as u32;
    }
    let ends: Vec<(u32, u32)> = edges
        .iter()
        .map(|&e| (vertex[g.ends[e].0 as usize], vertex[g.ends[e].1 as usize]))
        .collect();
    let mut search = Search {
        adj: Adjacency::new(reached.len(), &ends),
        colour: edges.iter().map(|&e| g.colour[e]).collect(),
        memo: HashMap::new(),
    };
    let full = (1u64 << grounded) - 1;
    let value = search.value(ev, full, &g.name)?;
    Ok(Part {
        value,
        grounded,
        plan: Plan::Search {
            search,
            edge_of: edges,
        },
    })
}

/// The value after each cut that `mine` (or anyone, for green) may make, as (edge from 1,
/// value), or `None` when the graph is too large to list its moves.
pub(super) fn cut_values(
    ev: &mut Evaluator,
    done: &mut Evaluated,
    mine: Edge,
) -> Result<Option<Vec<(usize, GameId)>>, HackenbushError> {
    let values: Vec<GameId> = done.parts.iter().map(|p| p.2.value).collect();
    let mut after = vec![Arena::ZERO; values.len() + 1];
    for k in (0..values.len()).rev() {
        after[k] = ev.arena.add(values[k], after[k + 1])?;
    }
    let mut before = Arena::ZERO;
    let mut out = Vec::new();
    for (k, (sub, edge_of, part)) in done.parts.iter_mut().enumerate() {
        let rest = ev.arena.add(before, after[k + 1])?;
        before = ev.arena.add(before, values[k])?;
        let Some(cuts) = part_cuts(ev, sub, part, mine)? else {
            return Ok(None);
        };
        for (e, c) in cuts {
            out.push((edge_of[e - 1] + 1, ev.arena.add(c, rest)?));
        }
    }
    out.sort_unstable_by_key(|&(e, _)| e);
    Ok(Some(out))
}

/// [`cut_values`] within one part, its edges numbered from 1 in the part.
fn part_cuts(
    ev: &mut Evaluator,
    g: &Graph,
    done: &mut Part,
    mine: Edge,
) -> Result<Option<Vec<(usize, GameId)>>, HackenbushError> {
    let allowed = |c: Edge| c == mine || c == Edge::Green;
    let mut out = Vec::new();
    match &mut done.plan {
        Plan::Green(adj) => {
            if done.grounded > MAX_GREEN_MOVES_EDGES {
                return Ok(None);
            }
            let (edges, _) = adj.grounded(|_| true);
            for e in edges {
                let n = green_nimber(adj, &g.ends, |f| f != e);
                out.push((e + 1, ev.arena.nimber(n)));
            }
        }
        Plan::Tree {
            tree,
            edge_of,
            values,
        } => {
            if tree.edges() > super::MAX_PATH_MOVES_EDGES {
                return Ok(None);
            }
            for t in 1..=tree.edges() {
                if allowed(tree.colour(t)) {
                    let c = super::forms::cut_value(ev, tree, values, t, &mut HashMap::new())?;
                    out.push((edge_of[t - 1] + 1, c));
                }
            }
        }
        Plan::Search { search, edge_of } => {
            let full = (1u64 << edge_of.len()) - 1;
            for (i, &e) in edge_of.iter().enumerate() {
                if allowed(search.colour[i]) {
                    let next = search.prune(full & !(1 << i));
                    let c = search.value(ev, next, &g.name)?;
                    out.push((e + 1, c));
                }
            }
        }
    }
    out.sort_unstable_by_key(|&(e, _)| e);
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partizan::Outcome;
    use proptest::prelude::*;

    fn evaluator() -> Evaluator {
        Evaluator {
            arena: Arena::new(),
        }
    }

    /// The edges of `mask` joined to the ground, found by growing the set of reached vertices
    /// until it no longer changes (independent of the breadth-first search above).
    fn reach(g: &Graph, mask: u64) -> u64 {
        let mut reached = vec![false; g.vertices];
        reached[0] = true;
        loop {
            let mut changed = false;
            for (e, &(u, v)) in g.ends.iter().enumerate() {
                let (u, v) = (u as usize, v as usize);
                if mask >> e & 1 == 1 && reached[u] != reached[v] {
                    reached[u] = true;
                    reached[v] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        (0..g.edges())
            .filter(|&e| mask >> e & 1 == 1 && reached[g.ends[e].0 as usize])
            .fold(0, |m, e| m | 1 << e)
    }

    /// Grundy value of an all-green graph by the mex over its moves.
    fn grundy(g: &Graph, mask: u64, memo: &mut HashMap<u64, u64>) -> u64 {
        if let Some(&v) = memo.get(&mask) {
            return v;
        }
        let mut seen = Vec::new();
        for e in 0..g.edges() {
            if mask >> e & 1 == 1 {
                seen.push(grundy(g, reach(g, mask & !(1 << e)), memo));
            }
        }
        let v = (0..).find(|x| !seen.contains(x)).expect("a mex");
        memo.insert(mask, v);
        v
    }

    /// Does the player to move win (explicit search)?
    fn wins(g: &Graph, mask: u64, left: bool, memo: &mut HashMap<(u64, bool), bool>) -> bool {
        if let Some(&w) = memo.get(&(mask, left)) {
            return w;
        }
        let mine = if left { Edge::Blue } else { Edge::Red };
        let w = (0..g.edges()).any(|e| {
            mask >> e & 1 == 1
                && (g.colour[e] == mine || g.colour[e] == Edge::Green)
                && !wins(g, reach(g, mask & !(1 << e)), !left, memo)
        });
        memo.insert((mask, left), w);
        w
    }

    fn full(g: &Graph) -> u64 {
        reach(g, (1u64 << g.edges()) - 1)
    }

    /// A random graph file: up to `n` vertices besides the ground, `colours` to choose from.
    fn graph_text(n: u32, max_edges: usize, colours: Vec<char>) -> impl Strategy<Value = String> {
        let edge = (0..=n, 0..=n, prop::sample::select(colours));
        prop::collection::vec(edge, 1..=max_edges).prop_map(|edges| {
            let name = |v: u32| {
                if v == 0 {
                    "g".to_string()
                } else {
                    format!("v{v}")
                }
            };
            edges
                .into_iter()
                .map(|(u, v, c)| format!("{} {} {c}\n", name(u), name(v)))
                .collect()
        })
    }

    #[test]
    fn published_fusion_examples() {
        // Winning Ways (Berlekamp, Conway and Guy), vol. 1 ch. 7, the fusion principle: a
        // circuit of odd length is equivalent to a single edge, one of even length to none.
        let mut ev = evaluator();
        for n in 1..=9usize {
            let mut text = String::from("x1 g G\n");
            for i in 1..=n {
                let next = if i == n {
                    "x1".to_string()
                } else {
                    format!("c{i}")
                };
                let here = if i == 1 {
                    "x1".to_string()
                } else {
                    format!("c{}", i - 1)
                };
                text.push_str(&format!("{here} {next} green\n"));
            }
            // A stalk of one edge carrying a circuit of n edges: *:(n mod 2) = *(1 + n mod 2).
            let g = parse_graph("c", &text).unwrap();
            let v = evaluate(&mut ev, &g).unwrap().value;
            assert_eq!(v, ev.arena.nimber(1 + (n as u64 % 2)), "{n}");
            assert_eq!(
                grundy(&g, full(&g), &mut HashMap::new()),
                1 + (n as u64 % 2),
                "{n}"
            );
        }
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let e = parse_graph("f", "# c\ng a G\n\na b\n").unwrap_err();
        assert!(
            matches!(e, HackenbushError::GraphSyntax { line: 4, .. }),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "'f' line 4: expected 'u v COLOUR' (two vertices and B, R or G), found 2 words"
        );
        let e = parse_graph("f", "g a Y\n").unwrap_err().to_string();
        assert!(e.starts_with("'f' line 1: unknown colour 'Y'"), "{e}");
        let e = parse_graph("f", "# nothing\n").unwrap_err().to_string();
        assert_eq!(e, "'f' line 0: no edge in the graph");
        let g = parse_graph("f", "G 0 blue # ground to ground\nA a r\na A GREEN\n").unwrap();
        assert_eq!(g.ends, vec![(0, 0), (1, 2), (2, 1)]);
        assert_eq!(g.colour, vec![Edge::Blue, Edge::Red, Edge::Green]);
    }

    #[test]
    fn mixed_cycle_too_large_is_refused() {
        // A path of blue and red edges standing on the ground at every fourth vertex: one part.
        let mut text = String::new();
        for i in 0..MAX_SEARCH_EDGES - 4 {
            let c = if i % 2 == 0 { "B" } else { "R" };
            text.push_str(&format!("v{i} v{} {c}\n", i + 1));
        }
        for i in (0..MAX_SEARCH_EDGES).step_by(4) {
            text.push_str(&format!("g v{i} G\n"));
        }
        let g = parse_graph("big", &text).unwrap();
        assert_eq!(g.edges(), MAX_SEARCH_EDGES + 1);
        let e = evaluate(&mut evaluator(), &g).err().unwrap();
        assert!(matches!(e, HackenbushError::GraphTooLarge { .. }), "{e}");
        // Parts meeting at the ground are searched one by one: many small cycles pass.
        let many: String = (0..20)
            .map(|i| format!("g a{i} B\na{i} b{i} G\nb{i} g R\n"))
            .collect();
        let g = parse_graph("many", &many).unwrap();
        assert_eq!(evaluate(&mut evaluator(), &g).unwrap().grounded, 60);
        // Floating edges do not count: the same ground edges minus one, plus a floating cycle.
        let small = parse_graph("f", "g a B\na b G\nb g R\nx y R\ny x B\n").unwrap();
        assert_eq!(evaluate(&mut evaluator(), &small).unwrap().grounded, 3);
    }

    #[test]
    fn large_green_graphs_are_linear() {
        // A ladder of 200,000 rungs standing on the ground by its two rails: every edge lies
        // on a cycle through the ground, so all fuse into the ground as twigs, and the value
        // is the parity of the 600,000 edges.
        let n = 200_000;
        let mut text = String::from("g a0 G\ng b0 G\n");
        for i in 0..n {
            text.push_str(&format!("a{i} b{i} G\n"));
            if i + 1 < n {
                text.push_str(&format!("a{i} a{} G\nb{i} b{} G\n", i + 1, i + 1));
            }
        }
        let g = parse_graph("ladder", &text).unwrap();
        let edges = g.edges() as u64;
        let mut ev = evaluator();
        let start = std::time::Instant::now();
        let done = evaluate(&mut ev, &g).unwrap();
        assert_eq!(done.value, ev.arena.nimber(edges % 2));
        assert!(start.elapsed().as_secs() < 10);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// All-green graphs: fusion and colon principle against the Grundy value of the game
        /// searched position by position, and against the canonical form built by search.
        #[test]
        fn green_fusion_matches_search(text in graph_text(5, 10, vec!['G'])) {
            let g = parse_graph("t", &text).unwrap();
            let mut ev = evaluator();
            let fused = evaluate(&mut ev, &g).unwrap().value;
            let searched = grundy(&g, full(&g), &mut HashMap::new());
            prop_assert_eq!(fused, ev.arena.nimber(searched), "{}", text);
            let by_forms = evaluate_part(&mut ev, &g, true).unwrap().value;
            prop_assert_eq!(fused, by_forms);
        }

        /// Mixed graphs: the outcome read from the canonical form, and each listed winning
        /// move, agree with an explicit search of the game.
        #[test]
        fn mixed_outcome_and_moves_match_search(
            text in graph_text(4, 9, vec!['B', 'R', 'G'])
        ) {
            let g = parse_graph("t", &text).unwrap();
            let a = super::super::analyze_with_graphs::<&str>(&[], vec![g.clone()]).unwrap();
            // Split at the ground and evaluated by parts, the value is the search's.
            let mut ev = evaluator();
            let by_parts = evaluate(&mut ev, &g).unwrap().value;
            prop_assert_eq!(by_parts, evaluate_part(&mut ev, &g, true).unwrap().value);
            let mut memo = HashMap::new();
            let all = full(&g);
            let (lw, rw) = (wins(&g, all, true, &mut memo), wins(&g, all, false, &mut memo));
            let expected = match (lw, rw) {
                (true, true) => Outcome::N,
                (true, false) => Outcome::Left,
                (false, true) => Outcome::Right,
                (false, false) => Outcome::P,
            };
            prop_assert_eq!(a.outcome, expected.letter(), "{}", text);
            for (left, moves) in [(true, &a.left_moves), (false, &a.right_moves)] {
                let mine = if left { Edge::Blue } else { Edge::Red };
                let mut searched = Vec::new();
                if (left && lw) || (!left && rw) {
                    for e in 0..g.edges() {
                        if all >> e & 1 == 1
                            && (g.colour[e] == mine || g.colour[e] == Edge::Green)
                            && !wins(&g, reach(&g, all & !(1 << e)), !left, &mut memo)
                        {
                            searched.push(e + 1);
                        }
                    }
                }
                let listed: Vec<usize> = moves.listed.iter().map(|m| m.edge).collect();
                prop_assert_eq!(listed, searched, "{}", text);
            }
        }

        /// A graph that is a tree gets the same interned form by search as by the ordinal sums
        /// of `--tree`.
        #[test]
        fn trees_by_search_match_ordinal_sums(
            parents in prop::collection::vec(0usize..8, 1..9),
            colours in prop::collection::vec(prop::sample::select(vec!['B', 'R', 'G']), 8),
        ) {
            // Vertex i + 1 hangs from an earlier vertex (0 is the ground), as in `Tree`.
            let parent: Vec<u32> =
                parents.iter().enumerate().map(|(i, &p)| (p % (i + 1)) as u32).collect();
            let colour: Vec<Edge> = (0..parent.len())
                .map(|i| match colours[i] {
                    'B' => Edge::Blue,
                    'R' => Edge::Red,
                    _ => Edge::Green,
                })
                .collect();
            let text: String = parent
                .iter()
                .enumerate()
                .map(|(i, &p)| {
                    let below = if p == 0 { "g".to_string() } else { format!("v{p}") };
                    format!("{below} v{} {}\n", i + 1, colours[i])
                })
                .collect();
            let g = parse_graph("t", &text).unwrap();
            let mut ev = evaluator();
            let by_tree = ev.vertex_values(&Tree::from_parents(parent, colour)).unwrap()[0];
            let by_graph = evaluate(&mut ev, &g).unwrap().value;
            let by_search = evaluate_part(&mut ev, &g, true).unwrap().value;
            prop_assert_eq!(by_graph, by_tree, "{}", text);
            prop_assert_eq!(by_search, by_tree, "{}", text);
        }
    }
}
