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
//! mod 2) ⊕ (⊕ over child bridges (value(child) + 1))`: linear time ([`green`]). A graph that
//! is not all green is first split into the parts that meet only at the ground (the graph is
//! their sum), and each part goes the cheapest way: all green by fusion, a tree by the ordinal
//! sums of [`super::forms`], a part with a cycle by a search of its blocks ([`blocks`]): the
//! blocks hanging above a vertex are replaced by the value they sum to, so only 2-connected
//! blocks are searched, each position keyed by its edges and the canonical forms hanging on its
//! vertices. The search is refused for a block of more than [`MAX_BLOCK_EDGES`] edges, for
//! one carrying more than about [`MAX_BLOCK_STATES`] positions on its vertices, or beyond
//! [`MAX_SEARCH_POSITIONS`] positions.
//!
//! Winning moves are the cuts after which the part, plus the rest of the sum, is `≥ 0` for
//! Left or `≤ 0` for Right. For an all-green part a cut leaves a nimber, so against a nimber
//! (or number) the winning cuts are those leaving one target value, found by one top-down pass
//! over the fused graph with the 2-edge cuts found by random labels ([`green`]); against any
//! other game every cut's value is carried down to the ground; both within a budget of
//! [`MAX_GREEN_MOVE_STEPS`] steps, beyond which the list is marked incomplete. For a searched
//! part the cut values come from the search's memo; for a tree they are recomputed along the
//! path to the ground.
//!
//! Checks (the tests below): fusion against the Grundy values of an explicit search of random
//! green graphs and against Winning Ways' rule for circuits; outcomes and winning moves of
//! random mixed graphs against an explicit win/loss search; trees by search against the
//! ordinal sums of `--tree`; the split at the ground against one search of the whole graph.

use std::collections::HashMap;

mod blocks;
mod green;

use super::forms::{Evaluator, Tree};
use super::{shown, Edge, HackenbushError};
use crate::partizan::{Arena, Dyadic, GameId, Kind};
use blocks::BlockSearch;
pub use blocks::{MAX_BLOCK_EDGES, MAX_BLOCK_STATES, MAX_SEARCH_NODES};
use green::Fusion;
pub use green::MAX_GREEN_MOVE_STEPS;

/// The largest number of edges in a graph file.
pub const MAX_GRAPH_EDGES: usize = 20_000_000;

/// The largest part of a mixed graph that the direct search of edge masks takes (edges joined
/// to the ground); the tests compare the search by blocks with it. Measured on the 2-core test machine (shared, debug build at opt-level 2): random
/// one-part graphs of 18 edges 3.6 s, of 20 edges 10 s; 22 and 24 edges took over 100 s (24
/// edges exhausted the arena's budget of 3·10^7 nodes after 63 s and 880 MB).
pub const MAX_SEARCH_EDGES: usize = 20;

/// The largest number of positions the search of a mixed graph visits.
pub const MAX_SEARCH_POSITIONS: usize = 1 << 20;

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
/// principle; see [`green`]).
#[cfg(test)]
fn green_nimber(adj: &Adjacency, ends: &[(u32, u32)], present: impl Fn(usize) -> bool) -> u64 {
    Fusion::new(adj, ends, present).nimber()
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
    /// All green: by fusion, which also finds the moves.
    Green(Fusion),
    /// A tree: `edge_of[t - 1]` is the graph edge (from 0) of tree edge `t`.
    Tree {
        tree: Tree,
        edge_of: Vec<usize>,
        values: Vec<GameId>,
    },
    /// A search of edge masks (the direct search the tests compare with); `edge_of[i]` is
    /// the graph edge of bit `i`.
    Search { search: Search, edge_of: Vec<usize> },
    /// A search by blocks; `edge_of[i]` is the graph edge of the part's edge `i`.
    Blocks {
        search: BlockSearch,
        edge_of: Vec<usize>,
    },
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
        let fusion = Fusion::new(&adj, &g.ends, |_| true);
        return Ok(Part {
            value: ev.arena.nimber(fusion.nimber()),
            grounded,
            plan: Plan::Green(fusion),
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
    // Renumber the grounded edges 0.. and their vertices.
    let mut vertex = vec![u32::MAX; g.vertices];
    for (i, &v) in reached.iter().enumerate() {
        vertex[v] = i as u32;
    }
    let ends: Vec<(u32, u32)> = edges
        .iter()
        .map(|&e| (vertex[g.ends[e].0 as usize], vertex[g.ends[e].1 as usize]))
        .collect();
    let colour: Vec<Edge> = edges.iter().map(|&e| g.colour[e]).collect();
    if !force_search {
        let mut search = BlockSearch::new(ev, ends, colour, &g.name);
        search.check_size()?;
        let all: Vec<u32> = (0..grounded as u32).collect();
        let value = search.value(ev, 0, &all, &[])?;
        return Ok(Part {
            value,
            grounded,
            plan: Plan::Blocks {
                search,
                edge_of: edges,
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
    let mut search = Search {
        adj: Adjacency::new(reached.len(), &ends),
        colour,
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

/// The winning cuts of a graph, found within budgets: edges (from 1, ascending) whose cut
/// leaves the graph `≥ need` (Left, `left`) or `≤ need` (Right).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cuts {
    /// The winning edges found, from 1, ascending.
    pub edges: Vec<usize>,
    /// False when a green part was searched only in part (see [`MAX_GREEN_MOVE_STEPS`]).
    pub complete: bool,
}

/// The winning cuts of an evaluated graph for the player who needs its value to be `≥ need`
/// (`left`) or `≤ need`; `None` when a part is too large to search (a tree part of more than
/// [`super::MAX_PATH_MOVES_EDGES`] edges that is not all green). Each part is searched for
/// `need` less the other parts.
pub(super) fn winning_cuts(
    ev: &mut Evaluator,
    done: &mut Evaluated,
    need: GameId,
    left: bool,
) -> Result<Option<Cuts>, HackenbushError> {
    let values: Vec<GameId> = done.parts.iter().map(|p| p.2.value).collect();
    let mut after = vec![Arena::ZERO; values.len() + 1];
    for k in (0..values.len()).rev() {
        after[k] = ev.arena.add(values[k], after[k + 1])?;
    }
    let mut before = Arena::ZERO;
    let mut out = Cuts {
        edges: Vec::new(),
        complete: true,
    };
    for (k, (sub, edge_of, part)) in done.parts.iter_mut().enumerate() {
        let rest = ev.arena.add(before, after[k + 1])?;
        before = ev.arena.add(before, values[k])?;
        let need = ev.arena.sub(need, rest)?;
        let Some(cuts) = part_cuts(ev, sub, part, need, left)? else {
            return Ok(None);
        };
        out.complete &= cuts.complete;
        out.edges
            .extend(cuts.edges.iter().map(|&e| edge_of[e - 1] + 1));
    }
    out.edges.sort_unstable();
    Ok(Some(out))
}

/// [`winning_cuts`] within one part, its edges numbered from 1 in the part.
fn part_cuts(
    ev: &mut Evaluator,
    g: &Graph,
    done: &mut Part,
    need: GameId,
    left: bool,
) -> Result<Option<Cuts>, HackenbushError> {
    let mine = if left { Edge::Blue } else { Edge::Red };
    let allowed = |c: Edge| c == mine || c == Edge::Green;
    let mut values = Vec::new();
    match &mut done.plan {
        Plan::Green(fusion) => {
            // A cut leaves a nimber *a: against a nimber *t it wins iff a = t; against a
            // number x ≠ 0 always or never; otherwise each value is compared.
            let target = match ev.arena.kind(need) {
                Kind::Nimber(t) => Some(t),
                Kind::Number(x) if x == Dyadic::ZERO => Some(0),
                Kind::Number(x) => {
                    // *a ≥ x for every a when x < 0 (Left); *a ≤ x when x > 0 (Right).
                    let all = x.signum() == if left { -1 } else { 1 };
                    let edges = if all {
                        let (edges, _) = Adjacency::new(g.vertices, &g.ends).grounded(|_| true);
                        let mut edges: Vec<usize> = edges.iter().map(|&e| e + 1).collect();
                        edges.sort_unstable();
                        edges
                    } else {
                        Vec::new()
                    };
                    return Ok(Some(Cuts {
                        edges,
                        complete: true,
                    }));
                }
                Kind::Other => None,
            };
            if let Some(t) = target {
                let cuts = fusion.cuts_to(&g.ends, t);
                return Ok(Some(Cuts {
                    edges: cuts.edges.iter().map(|&e| e + 1).collect(),
                    complete: cuts.complete,
                }));
            }
            let (cuts, complete) = fusion.cut_values(&g.ends);
            let mut verdict: HashMap<u64, bool> = HashMap::new();
            let mut edges = Vec::new();
            for (e, a) in cuts {
                let wins = match verdict.get(&a) {
                    Some(&w) => w,
                    None => {
                        let c = ev.arena.nimber(a);
                        let w = if left {
                            ev.arena.ge(c, need)
                        } else {
                            ev.arena.le(c, need)
                        };
                        verdict.insert(a, w);
                        w
                    }
                };
                if wins {
                    edges.push(e + 1);
                }
            }
            edges.sort_unstable();
            return Ok(Some(Cuts { edges, complete }));
        }
        Plan::Tree {
            tree,
            edge_of,
            values: table,
        } => {
            if tree.edges() > super::MAX_PATH_MOVES_EDGES {
                return Ok(None);
            }
            for t in 1..=tree.edges() {
                if allowed(tree.colour(t)) {
                    let c = super::forms::cut_value(ev, tree, table, t)?;
                    values.push((edge_of[t - 1] + 1, c));
                }
            }
        }
        Plan::Blocks { search, edge_of } => {
            if search.edges() > super::MAX_PATH_MOVES_EDGES {
                return Ok(None);
            }
            let all: Vec<u32> = (0..search.edges() as u32).collect();
            for (i, &e) in edge_of.iter().enumerate() {
                if allowed(search.colour(i)) {
                    let rest: Vec<u32> = all[..i].iter().chain(&all[i + 1..]).copied().collect();
                    let c = search.value(ev, 0, &rest, &[])?;
                    values.push((e + 1, c));
                }
            }
        }
        Plan::Search { search, edge_of } => {
            let full = (1u64 << edge_of.len()) - 1;
            for (i, &e) in edge_of.iter().enumerate() {
                if allowed(search.colour[i]) {
                    let next = search.prune(full & !(1 << i));
                    let c = search.value(ev, next, &g.name)?;
                    values.push((e + 1, c));
                }
            }
        }
    }
    let mut edges = Vec::new();
    for (e, c) in values {
        let wins = if left {
            ev.arena.ge(c, need)
        } else {
            ev.arena.le(c, need)
        };
        if wins {
            edges.push(e);
        }
    }
    edges.sort_unstable();
    Ok(Some(Cuts {
        edges,
        complete: true,
    }))
}

#[cfg(test)]
mod tests;
