//! Hackenbush positions of every colour through canonical forms ([`crate::partizan`]).
//!
//! A component is a tree rooted on the ground, written as a string of edges from the ground up
//! (`B` blue, `R` red, `G` green) that may end in a fork of branches in parentheses, each
//! branch again such a tree: `BR` is a string of two edges, `G(B,R)` a green edge carrying a blue
//! and a red edge, `B(R,G(G,G))B` is refused (a fork ends its branch). Edges are numbered from 1
//! in the order they are written. Cutting an edge removes it and everything it carries.
//!
//! Values: a string is evaluated prefix by prefix (cutting edge `j` leaves the first `j - 1`
//! edges, so each prefix's options are the earlier prefixes), their canonical forms read off the
//! colours by `stalk.rs` with no comparison of games; a tree by ordinal sums,
//! `value(v) = Σ e:value(c)` over the edges `e` from `v` up to its children `c` (Winning Ways
//! ch. 7; for green edges this is the colon principle, `*:*a = *(a+1)` and nimbers add by XOR,
//! so all-green trees of millions of edges take linear time). A mixed tree's branches that end
//! in a leaf without forking are strings (`branches.rs`), and its branches on the ground are
//! kept apart as *parts*.
//!
//! The sum: every component is a list of parts (one game, or a tree's ground branches). The
//! sum's canonical form is built only when its estimated cost is affordable ([`MAX_SUM_COST`]);
//! otherwise [`ValueReport::not_built`] says why, and only its mean (additive) is reported. The
//! outcome and the winning moves never need it: they are decided by comparing sums of parts
//! with 0 ([`SumSearch`]), one search shared by all questions. The winning moves of each
//! player are the cuts after which the sum is `≥ 0` (Left) or `≤ 0` (Right); a cut in a string
//! leaves a prefix, a cut in a chain of a tree leaves the chain's prefix, other cuts are
//! evaluated along the path from the edge to the ground, and in a large all-green tree by a
//! descent that looks for a target nimber, visiting each vertex once.

use serde::Serialize;

use super::branches::Branches;
use super::graph::{Evaluated, Graph};
use super::{letter, shown, Edge, HackenbushError, StringForms, MAX_OPTION_ENTRIES};
use crate::partizan::{
    notation, thermograph, Arena, Dyadic, GameId, Kind, Outcome, SumSearch,
    DEFAULT_SEARCH_POSITIONS,
};

/// The largest number of edges in one component.
pub const MAX_EDGES: usize = 20_000_000;

/// Components with more edges than this are searched for winning moves only when all-green
/// (by the target descent); otherwise their moves are not listed.
pub const MAX_PATH_MOVES_EDGES: usize = 20_000;

/// At most this many winning moves are listed per player (all are counted).
pub const MAX_LISTED_MOVES: usize = 1000;

/// One component: a tree with vertex 0 on the ground; edge `i` (from 1) joins `parent[i]` to
/// vertex `i`, and parents come before children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    parent: Vec<u32>,
    colour: Vec<Edge>,
}

impl Tree {
    /// Number of edges.
    pub fn edges(&self) -> usize {
        self.colour.len()
    }

    /// Is it a string (each vertex carries at most one edge)?
    fn is_string(&self) -> bool {
        self.parent
            .iter()
            .enumerate()
            .all(|(i, &p)| p as usize == i)
    }

    /// Is it evaluated prefix by prefix? (Green strings are nimbers, faster as trees.)
    fn by_prefixes(&self) -> bool {
        self.is_string() && !self.all_green()
    }

    fn all_green(&self) -> bool {
        self.colour.iter().all(|&c| c == Edge::Green)
    }

    /// A tree from its parents (`parent[i - 1]` is the lower end of edge `i`, an earlier
    /// vertex) and colours.
    pub(super) fn from_parents(parent: Vec<u32>, colour: Vec<Edge>) -> Tree {
        Tree { parent, colour }
    }

    /// The colour of edge `i` (from 1).
    pub(super) fn colour(&self, i: usize) -> Edge {
        self.colour[i - 1]
    }

    /// The lower end of edge `i` (from 1): 0 for the ground, else the edge below it.
    pub(super) fn parent_of(&self, i: usize) -> usize {
        self.parent[i - 1] as usize
    }
}

/// The components of a file: one per line, `#` starts a comment, blank lines are skipped,
/// spaces are ignored.
pub fn components_from_text(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<String>())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Reads a component in the notation of the module text.
pub fn parse_tree(text: &str) -> Result<Tree, HackenbushError> {
    let bad = |position: usize, message: &str| HackenbushError::Syntax {
        string: shown(text),
        position,
        message: message.to_string(),
    };
    let mut tree = Tree {
        parent: Vec::new(),
        colour: Vec::new(),
    };
    // The vertex new edges grow from, and the stack of open forks (their base vertex).
    let mut at = 0u32;
    let mut forks: Vec<u32> = Vec::new();
    // After a ')' only ',' or ')' or the end may follow.
    let mut closed = false;
    for (i, c) in text.chars().enumerate() {
        let pos = i + 1;
        match c.to_ascii_uppercase() {
            'B' | 'R' | 'G' if !closed => {
                if tree.colour.len() >= MAX_EDGES {
                    return Err(HackenbushError::TooManyEdges {
                        string: shown(text),
                        max: MAX_EDGES,
                    });
                }
                let e = match c.to_ascii_uppercase() {
                    'B' => Edge::Blue,
                    'R' => Edge::Red,
                    _ => Edge::Green,
                };
                tree.parent.push(at);
                tree.colour.push(e);
                at = tree.colour.len() as u32;
            }
            '(' if !closed => forks.push(at),
            ',' => {
                let &base = forks
                    .last()
                    .ok_or_else(|| bad(pos, "',' outside parentheses"))?;
                at = base;
                closed = false;
            }
            ')' => {
                forks.pop().ok_or_else(|| bad(pos, "')' without '('"))?;
                closed = true;
            }
            'B' | 'R' | 'G' | '(' => {
                return Err(bad(
                    pos,
                    "a fork '(…)' must end its branch; write more branches inside it",
                ))
            }
            _ => {
                return Err(HackenbushError::UnknownLetter {
                    string: shown(text),
                    letter: c,
                    position: pos,
                })
            }
        }
    }
    if !forks.is_empty() {
        return Err(bad(text.chars().count(), "'(' without ')'"));
    }
    Ok(tree)
}

/// A game's value for people and programs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueReport {
    /// CGSuite's notation, or `None` if longer than [`notation::MAX_TEXT`] or not built.
    pub text: Option<String>,
    /// The canonical form as nested `{"value", "left", "right"}`, or `None` if too large or
    /// not built.
    pub form: Option<notation::Form>,
    /// Left's stop, Right's stop (`None` if the form was not built).
    pub stops: Option<(String, String)>,
    /// Mean value, or `None` if it could not be computed exactly (the mean is additive, so it
    /// is known for a sum whose form was not built).
    pub mean: Option<String>,
    /// Temperature, or `None` if it could not be computed exactly or the form was not built.
    pub temperature: Option<String>,
    /// Why the canonical form was not built (too costly a sum), or `None` if it was.
    pub not_built: Option<String>,
}

/// One winning move: cut edge `edge` of component `component` (both from 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Move {
    /// The component, from 1.
    pub component: usize,
    /// The edge, from 1, in the order the component is written.
    pub edge: usize,
    /// Its colour letter.
    pub colour: char,
}

/// The winning moves of one player moving first.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Moves {
    /// How many winning moves were found.
    pub count: usize,
    /// The first [`MAX_LISTED_MOVES`] of them.
    pub listed: Vec<Move>,
    /// Components whose moves were not searched (too large and not all green), from 1.
    pub not_searched: Vec<usize>,
    /// Green graphs whose moves were searched only in part, beyond the budget of
    /// [`super::MAX_GREEN_MOVE_STEPS`] steps (their moves found are counted and listed; there
    /// may be more), from 1.
    pub partly_searched: Vec<usize>,
}

/// The analysis of a sum of Hackenbush components.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// Each component as given, its number of edges and its value.
    pub components: Vec<(String, usize, ValueReport)>,
    /// The value of the sum (its form not built when too costly; see
    /// [`ValueReport::not_built`]).
    pub sum: ValueReport,
    /// Who wins.
    pub outcome: &'static str,
    /// Left's winning moves when Left moves first.
    pub left_moves: Moves,
    /// Right's winning moves when Right moves first.
    pub right_moves: Moves,
}

/// The evaluator: an arena and the values of the components.
pub(super) struct Evaluator {
    pub(super) arena: Arena,
}

fn single(arena: &mut Arena, e: Edge) -> GameId {
    match e {
        Edge::Blue => arena.integer(1),
        Edge::Red => arena.integer(-1),
        Edge::Green => arena.nimber(1),
    }
}

impl Evaluator {
    /// Ordinal sum with the shortcut `*:*a = *(a+1)`.
    pub(super) fn edge_over(&mut self, e: Edge, above: GameId) -> Result<GameId, HackenbushError> {
        let base = single(&mut self.arena, e);
        if e == Edge::Green {
            match self.arena.kind(above) {
                Kind::Nimber(a) => return Ok(self.arena.nimber(a + 1)),
                Kind::Number(x) if x == Dyadic::ZERO => return Ok(base),
                _ => {}
            }
        }
        Ok(self.arena.ordinal(base, above)?)
    }

    /// The values of every prefix of a string: `out[j]` is the first `j` edges (by the prefix
    /// indices of `stalk.rs`, with no comparison of games).
    fn prefixes(&mut self, tree: &Tree, text: &str) -> Result<Vec<GameId>, HackenbushError> {
        let forms = StringForms::compute(&tree.colour, text, MAX_OPTION_ENTRIES)?;
        forms.into_arena(&mut self.arena)
    }

    /// The values of every prefix of a string by the general canonical-form computation (each
    /// prefix's options are the earlier prefixes): the oracle of `stalk.rs`.
    #[cfg(test)]
    fn prefixes_by_search(&mut self, tree: &Tree) -> Result<Vec<GameId>, HackenbushError> {
        let n = tree.edges();
        let mut out = Vec::with_capacity(n + 1);
        out.push(Arena::ZERO);
        let (mut left, mut right): (Vec<GameId>, Vec<GameId>) = (Vec::new(), Vec::new());
        for j in 1..=n {
            let below = out[j - 1];
            let e = tree.colour(j);
            if e != Edge::Red {
                left.push(below);
                left = self.keep_largest(left, true);
            }
            if e != Edge::Blue {
                right.push(below);
                right = self.keep_largest(right, false);
            }
            let g = self.arena.game(&left, &right)?;
            out.push(g);
        }
        Ok(out)
    }

    #[cfg(test)]
    fn keep_largest(&mut self, opts: Vec<GameId>, left: bool) -> Vec<GameId> {
        let mut keep: Vec<GameId> = Vec::with_capacity(opts.len());
        for (i, &x) in opts.iter().enumerate() {
            let beaten = opts.iter().enumerate().any(|(j, &y)| {
                i != j
                    && (if left {
                        self.arena.le(x, y)
                    } else {
                        self.arena.le(y, x)
                    })
            });
            if !beaten {
                keep.push(x);
            }
        }
        keep
    }

    /// The value carried by every vertex of a tree (`out[0]` is the whole tree), bottom-up.
    pub(super) fn vertex_values(&mut self, tree: &Tree) -> Result<Vec<GameId>, HackenbushError> {
        let n = tree.edges();
        let mut value = vec![Arena::ZERO; n + 1];
        for v in (1..=n).rev() {
            let branch = self.edge_over(tree.colour(v), value[v])?;
            let p = tree.parent[v - 1] as usize;
            value[p] = self.arena.add(value[p], branch)?;
        }
        Ok(value)
    }

    fn report(&mut self, g: GameId) -> Result<ValueReport, HackenbushError> {
        let text = notation::text(&mut self.arena, g)?;
        let form = notation::form_json(&mut self.arena, g)?;
        let (ls, rs) = self.arena.stops(g);
        let (mean, temperature) = match thermograph::mean_and_temperature(&mut self.arena, g) {
            Ok((m, t)) => (Some(m.to_string()), Some(t.to_string())),
            Err(crate::partizan::PartizanError::Overflow) => (None, None),
            Err(e) => return Err(e.into()),
        };
        Ok(ValueReport {
            text,
            form,
            stops: Some((ls.to_string(), rs.to_string())),
            mean,
            temperature,
            not_built: None,
        })
    }

    /// The report of a sum of `parts` whose form was not built, for `reason`: only the mean,
    /// which is additive (Siegel, ch. II.5).
    fn report_unbuilt(&mut self, parts: &[GameId], reason: String) -> ValueReport {
        let mut mean = Some(Dyadic::ZERO);
        for &g in parts {
            mean = match (mean, thermograph::mean_and_temperature(&mut self.arena, g)) {
                (Some(m), Ok((x, _))) => m.checked_add(x),
                _ => None,
            };
        }
        ValueReport {
            text: None,
            form: None,
            stops: None,
            mean: mean.map(|m| m.to_string()),
            temperature: None,
            not_built: Some(reason),
        }
    }
}

/// Parses and analyses a sum of components (see the module text).
pub fn analyze<S: AsRef<str>>(inputs: &[S]) -> Result<Analysis, HackenbushError> {
    analyze_with_graphs(inputs, Vec::new())
}

/// Parses and analyses a sum of components and graphs ([`super::parse_graph`]); the graphs
/// come after the components, each one component of the sum named by [`Graph::name`].
pub fn analyze_with_graphs<S: AsRef<str>>(
    inputs: &[S],
    graphs: Vec<Graph>,
) -> Result<Analysis, HackenbushError> {
    let texts: Vec<String> = inputs.iter().map(|s| s.as_ref().to_string()).collect();
    let trees = texts
        .iter()
        .map(|t| parse_tree(t))
        .collect::<Result<Vec<_>, _>>()?;
    crate::partizan::with_big_stack(1024, move || {
        analyze_trees(texts, trees, graphs, Limits::default())
    })
}

/// Limits of one analysis; tests lower them to send small sums down the search.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Sums whose estimated cost ([`build_sum`]) is above this are not built.
    pub(super) max_sum_cost: f64,
    /// The budget of the [`SumSearch`] that decides outcomes and moves.
    pub(super) search_positions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_sum_cost: MAX_SUM_COST,
            search_positions: DEFAULT_SEARCH_POSITIONS,
        }
    }
}

/// How a component was evaluated, for its moves.
enum Table {
    /// A mixed string: the values of its prefixes.
    Prefixes(Vec<GameId>),
    /// An all-green tree or string (or a tree evaluated whole): the vertex values.
    Vertices(Vec<GameId>),
    /// A mixed tree: chains and ground branches (`branches.rs`).
    Branches(Branches),
}

fn analyze_trees(
    texts: Vec<String>,
    trees: Vec<Tree>,
    graphs: Vec<Graph>,
    limits: Limits,
) -> Result<Analysis, HackenbushError> {
    let mut ev = Evaluator {
        arena: Arena::new(),
    };
    // Each component's parts (games whose sum is its value), and how it was evaluated.
    let mut parts: Vec<Vec<GameId>> = Vec::with_capacity(trees.len() + graphs.len());
    let mut tables = Vec::with_capacity(trees.len());
    for (tree, text) in trees.iter().zip(&texts) {
        let table = if tree.by_prefixes() {
            Table::Prefixes(ev.prefixes(tree, text)?)
        } else if tree.all_green() {
            Table::Vertices(ev.vertex_values(tree)?)
        } else {
            Table::Branches(Branches::compute(&mut ev, tree, text)?)
        };
        parts.push(match &table {
            Table::Prefixes(p) => vec![p[tree.edges()]],
            Table::Vertices(v) => vec![v[0]],
            Table::Branches(b) => b.parts(),
        });
        tables.push(table);
    }
    let mut evaluated = Vec::with_capacity(graphs.len());
    for g in &graphs {
        let done = super::graph::evaluate(&mut ev, g)?;
        parts.push(vec![done.value]);
        evaluated.push(done);
    }
    let all: Vec<GameId> = parts.iter().flatten().copied().collect();
    // The sum's canonical form when affordable; otherwise why not (and each component's).
    let owner: Vec<usize> = (0..parts.len())
        .flat_map(|k| std::iter::repeat_n(k, parts[k].len()))
        .collect();
    // The sum's canonical form when affordable; otherwise why not (and each component's).
    let total = build_sum(&mut ev.arena, &all, limits.max_sum_cost)?.map_err(|(i, j, cost)| {
        let (a, b) = (owner[i] + 1, owner[j] + 1);
        let which = if a == b {
            format!("two branches on the ground of component {a}")
        } else {
            format!("components {} and {}", a.min(b), a.max(b))
        };
        format!(
            "adding {which} (after the smaller parts) would cost about {cost:.1e} steps, beyond the limit of {:.0e}",
            limits.max_sum_cost
        )
    });
    let mut values: Vec<Result<GameId, String>> = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        values.push(if total.is_ok() || p.len() == 1 {
            Ok(ev.arena.add_all(p)?)
        } else {
            build_sum(&mut ev.arena, p, limits.max_sum_cost)?.map_err(|(.., cost)| {
                format!(
                    "component {}: its branches on the ground would cost about {cost:.1e} steps to sum, beyond the limit of {:.0e}",
                    k + 1,
                    limits.max_sum_cost
                )
            })
        });
    }
    let mut search = SumSearch::with_limit(limits.search_positions);
    let outcome = match total {
        Ok(t) => ev.arena.outcome(t),
        Err(_) => search.outcome(&mut ev.arena, &all)?,
    };
    let mut left_moves = Moves::default();
    let mut right_moves = Moves::default();
    let built = total.is_ok();
    for (left, moves) in [(true, &mut left_moves), (false, &mut right_moves)] {
        let wins_first = if left {
            matches!(outcome, Outcome::Left | Outcome::N)
        } else {
            matches!(outcome, Outcome::Right | Outcome::N)
        };
        if wins_first {
            let mut ctx = MoveContext {
                ev: &mut ev,
                search: &mut search,
                built,
                left,
            };
            *moves = ctx.winning_moves(&trees, &tables, (&graphs, &mut evaluated), &parts)?;
        }
    }
    let mut components = Vec::with_capacity(parts.len());
    let names = texts
        .into_iter()
        .zip(trees.iter().map(|t| t.edges()))
        .chain(
            graphs
                .iter()
                .zip(&evaluated)
                .map(|(g, done)| (g.name().to_string(), done.grounded)),
        );
    for ((name, edges), (value, p)) in names.zip(values.into_iter().zip(&parts)) {
        let report = match value {
            Ok(g) => ev.report(g)?,
            Err(reason) => ev.report_unbuilt(p, reason),
        };
        components.push((name, edges, report));
    }
    let sum = match total {
        Ok(t) => ev.report(t)?,
        Err(reason) => ev.report_unbuilt(&all, reason),
    };
    Ok(Analysis {
        components,
        sum,
        outcome: outcome.letter(),
        left_moves,
        right_moves,
    })
}

/// The largest estimated cost of a sum's canonical form (see [`build_sum`]). Measured on
/// random mixed strings (CPU time; estimate): two of 100 edges 4 s; two of 150 edges 16 s
/// (1.5·10^8); 1000 edges plus a blue edge 7 s (1.1·10^8); two of 200 edges exhaust the
/// arena's budget after 22 s. The 10^8 limit keeps sums to about ten seconds; above it the sum
/// is not built, and its outcome and winning moves come from [`SumSearch`].
pub const MAX_SUM_COST: f64 = 1e8;

/// The distinct subgames of `g` that are neither numbers nor nimbers, and their options in all,
/// counting at most `cap` subgames. Numbers count as one subgame with one option, `*n` as one
/// with `n`.
fn form_size(arena: &mut Arena, g: GameId, cap: usize) -> (f64, f64) {
    match arena.kind(g) {
        Kind::Number(_) => return (1.0, 1.0),
        Kind::Nimber(n) => return (1.0, n as f64),
        Kind::Other => {}
    }
    let mut seen = std::collections::HashSet::new();
    let mut entries = 0usize;
    let mut stack = vec![g];
    while let Some(h) = stack.pop() {
        if arena.kind(h) != Kind::Other || !seen.insert(h) {
            continue;
        }
        let (l, r) = (arena.left(h), arena.right(h));
        entries += l.len() + r.len();
        if seen.len() >= cap {
            break;
        }
        stack.extend(l.iter().chain(r.iter()));
    }
    (seen.len() as f64, entries as f64)
}

/// The canonical form of the sum of `values` if affordable: the parts are added from the
/// smallest (fewest subgames) up, and before each addition its cost is estimated from the
/// forms' real sizes ([`sum_cost`]); the costs add up to at most `max`. Otherwise the two
/// parts (indices in `values`: the largest part in the sum so far, the part to add) and the
/// cost at which it stopped.
fn build_sum(
    arena: &mut Arena,
    values: &[GameId],
    max: f64,
) -> Result<Result<GameId, (usize, usize, f64)>, HackenbushError> {
    let mut order: Vec<(f64, usize)> = values
        .iter()
        .enumerate()
        .map(|(k, &g)| (form_size(arena, g, 1 << 22).0, k))
        .collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut acc = Arena::ZERO;
    let mut spent = 0.0;
    let mut largest: Option<usize> = None;
    for (_, k) in order {
        if let Some(l) = largest {
            let (cost, ..) = sum_cost(arena, &[acc, values[k]]).expect("two games");
            spent += cost;
            if spent > max {
                return Ok(Err((l, k, spent)));
            }
        }
        acc = arena.add(acc, values[k])?;
        largest = Some(k);
    }
    Ok(Ok(acc))
}

/// Sizes of a game: subgames, options per subgame, index in the list.
type Size = (f64, f64, usize);

/// The estimated cost of building the canonical form of the sum of `values`, and the sizes of
/// the two largest, or `None` for fewer than two. The sum of `G` and `H` is built from up to
/// `|G|·|H|` sums of subgames, each canonicalised by comparing its options pairwise, so the
/// estimate is `|G|·|H|·(g + h)²` for the two with most subgames (`|G|` subgames with `g`
/// options each on average).
pub(super) fn sum_cost(arena: &mut Arena, values: &[GameId]) -> Option<(f64, Size, Size)> {
    if values.len() < 2 {
        return None;
    }
    let mut sizes: Vec<Size> = values
        .iter()
        .enumerate()
        .map(|(k, &g)| {
            let (nodes, entries) = form_size(arena, g, 1 << 22);
            (nodes, entries / nodes, k)
        })
        .collect();
    sizes.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)));
    let (a, b) = (sizes[0], sizes[1]);
    Some((a.0 * b.0 * (a.1 + b.1) * (a.1 + b.1), a, b))
}

/// What the search for one player's winning moves shares.
struct MoveContext<'a> {
    ev: &'a mut Evaluator,
    search: &'a mut SumSearch,
    /// Was the sum's canonical form affordable (then the rest of the sum is built to find the
    /// target of a large green tree)?
    built: bool,
    /// Left's moves (else Right's).
    left: bool,
}

impl MoveContext<'_> {
    /// Does the move to a component of parts `c` win, beside `rest`? For Left:
    /// `Σ c + rest ≥ 0`.
    fn wins(&mut self, c: &[GameId], rest: &mut Vec<GameId>) -> Result<bool, HackenbushError> {
        let n = rest.len();
        rest.extend_from_slice(c);
        let w = if self.left {
            self.search.ge_zero(&mut self.ev.arena, rest)
        } else {
            self.search.le_zero(&mut self.ev.arena, rest)
        };
        rest.truncate(n);
        Ok(w?)
    }

    /// The nimber `*t` a green component must move to, if the rest of the sum is a nimber
    /// `*t` (then a cut to `*u` wins exactly when `u = t`).
    fn green_target(&mut self, rest: &[GameId]) -> Result<Option<u64>, HackenbushError> {
        let mut t = 0;
        let mut all_nim = true;
        for &g in rest {
            match self.ev.arena.kind(g) {
                Kind::Nimber(n) => t ^= n,
                Kind::Number(x) if x == Dyadic::ZERO => {}
                _ => all_nim = false,
            }
        }
        if all_nim {
            return Ok(Some(t));
        }
        if !self.built {
            return Ok(None);
        }
        let r = self.ev.arena.add_all(rest)?;
        Ok(match self.ev.arena.kind(r) {
            Kind::Nimber(n) => Some(n),
            Kind::Number(x) if x == Dyadic::ZERO => Some(0),
            _ => None,
        })
    }

    /// The negative of the rest of the sum as one game, when the sum's form was affordable or
    /// the rest is a nimber; `None` otherwise.
    fn rest_negated(&mut self, rest: &[GameId]) -> Result<Option<GameId>, HackenbushError> {
        if let Some(t) = self.green_target(rest)? {
            return Ok(Some(self.ev.arena.nimber(t)));
        }
        if !self.built {
            return Ok(None);
        }
        let r = self.ev.arena.add_all(rest)?;
        Ok(Some(self.ev.arena.neg(r)?))
    }

    fn winning_moves(
        &mut self,
        trees: &[Tree],
        tables: &[Table],
        graphs: (&[Graph], &mut [Evaluated]),
        parts: &[Vec<GameId>],
    ) -> Result<Moves, HackenbushError> {
        let mut moves = Moves::default();
        let mine = if self.left { Edge::Blue } else { Edge::Red };
        let (graphs, evaluated) = graphs;
        for k in 0..parts.len() {
            let mut rest: Vec<GameId> = parts[..k]
                .iter()
                .chain(&parts[k + 1..])
                .flatten()
                .copied()
                .collect();
            let mut found: Vec<(usize, char)> = Vec::new();
            if k >= trees.len() {
                let i = k - trees.len();
                // A graph's winning cuts are found against the rest of the sum as one game
                // (`graph::winning_cuts`): built when the sum was, or when it is a nimber.
                let Some(need) = self.rest_negated(&rest)? else {
                    moves.not_searched.push(k + 1);
                    continue;
                };
                let Some(cuts) =
                    super::graph::winning_cuts(self.ev, &mut evaluated[i], need, self.left)?
                else {
                    moves.not_searched.push(k + 1);
                    continue;
                };
                if !cuts.complete {
                    moves.partly_searched.push(k + 1);
                }
                for j in cuts.edges {
                    found.push((j, letter(graphs[i].colour(j))));
                }
            } else {
                let tree = &trees[k];
                let mut cuts = Vec::new();
                let candidates = (1..=tree.edges()).filter(|&j| {
                    let e = tree.colour(j);
                    e == mine || e == Edge::Green
                });
                match &tables[k] {
                    Table::Prefixes(prefixes) => {
                        for j in candidates {
                            if self.wins(&[prefixes[j - 1]], &mut rest)? {
                                cuts.push(j);
                            }
                        }
                    }
                    Table::Vertices(_) if tree.is_string() => {
                        // A green string: cutting edge j leaves *(j - 1).
                        for j in candidates {
                            let below = self.ev.arena.nimber(j as u64 - 1);
                            if self.wins(&[below], &mut rest)? {
                                cuts.push(j);
                            }
                        }
                    }
                    Table::Vertices(values) => {
                        if let Some(t) = self.green_target(&rest)? {
                            cuts = green_cuts_to(tree, values, &self.ev.arena, t);
                        } else if tree.edges() > MAX_PATH_MOVES_EDGES {
                            moves.not_searched.push(k + 1);
                            continue;
                        } else {
                            for j in candidates {
                                let c = cut_value(self.ev, tree, values, j)?;
                                if self.wins(&[c], &mut rest)? {
                                    cuts.push(j);
                                }
                            }
                        }
                    }
                    Table::Branches(b) => {
                        if b.inner_edges() > MAX_PATH_MOVES_EDGES {
                            moves.not_searched.push(k + 1);
                            continue;
                        }
                        for j in candidates {
                            let after = b.cut(self.ev, tree, j)?;
                            if self.wins(&after, &mut rest)? {
                                cuts.push(j);
                            }
                        }
                    }
                }
                found.extend(cuts.into_iter().map(|j| (j, letter(tree.colour(j)))));
            }
            moves.count += found.len();
            for (j, colour) in found {
                if moves.listed.len() < MAX_LISTED_MOVES {
                    moves.listed.push(Move {
                        component: k + 1,
                        edge: j,
                        colour,
                    });
                }
            }
        }
        Ok(moves)
    }
}

/// The value of a tree after cutting edge `j`, recomputed along the path to the ground.
pub(super) fn cut_value(
    ev: &mut Evaluator,
    tree: &Tree,
    value: &[GameId],
    j: usize,
) -> Result<GameId, HackenbushError> {
    // The vertex below edge j loses the branch e_j:value(j).
    let mut v = j;
    let mut new_branch = Arena::ZERO;
    loop {
        let p = tree.parent[v - 1] as usize;
        let old_branch = ev.edge_over(tree.colour(v), value[v])?;
        let without = ev.arena.sub(value[p], old_branch)?;
        let new_p = ev.arena.add(without, new_branch)?;
        if p == 0 {
            return Ok(new_p);
        }
        new_branch = ev.edge_over(tree.colour(p), new_p)?;
        v = p;
    }
}

/// The green edges whose cut leaves an all-green tree of value `*target`.
fn green_cuts_to(tree: &Tree, value: &[GameId], arena: &Arena, target: u64) -> Vec<usize> {
    let nim = |g: GameId| match arena.kind(g) {
        Kind::Nimber(n) => n,
        _ => 0,
    };
    let n = tree.edges();
    // Children lists in CSR form.
    let mut start = vec![0usize; n + 2];
    for &p in &tree.parent {
        start[p as usize + 1] += 1;
    }
    for i in 0..=n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut children = vec![0u32; n];
    for (i, &p) in tree.parent.iter().enumerate() {
        children[fill[p as usize]] = i as u32 + 1;
        fill[p as usize] += 1;
    }
    let mut found = Vec::new();
    // (vertex, the value its subtree must take)
    let mut stack = vec![(0usize, target)];
    while let Some((v, t)) = stack.pop() {
        let here = nim(value[v]);
        for &c in &children[start[v]..start[v + 1]] {
            let c = c as usize;
            let others = here ^ (nim(value[c]) + 1);
            let branch = t ^ others;
            if branch == 0 {
                found.push(c);
            } else {
                stack.push((c, branch - 1));
            }
        }
    }
    found.sort_unstable();
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hackenbush::{parse, value, StalkValue};
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn value_text(s: &str) -> String {
        analyze(&[s]).unwrap().components[0].2.text.clone().unwrap()
    }

    #[test]
    fn published_values() {
        // CGSuite's documentation (Hackenbush strings): blue-red-blue-red-red is 9/16 and a
        // green string of 7 edges is *7.
        assert_eq!(value_text("BRBRR"), "9/16");
        assert_eq!(value_text("GGGGGGG"), "*7");
        // McKay, Milley and Nowakowski (arXiv 1202.5654): a green edge under a string x is
        // the ordinal sum *:x; green then blue is ↑* = {0,*|0}, blue then green is 1*.
        assert_eq!(value_text("GB"), "^*");
        assert_eq!(value_text("GR"), "v*");
        assert_eq!(value_text("BG"), "1*");
        // *:2 = {0, *:1 | 0} = {0,↑*|0} (the issue's example of a general game), which
        // CGSuite writes ^[2]* (its EvalTest "PowTo*").
        assert_eq!(value_text("GBB"), "^[2]*");
        // Trees: a green edge carrying two green edges is *:(*+*) = *; two blue edges on one
        // blue edge are 3.
        assert_eq!(value_text("G(G,G)"), "*");
        assert_eq!(value_text("B(B,B)"), "3");
        assert_eq!(value_text("(B,R)"), "0");
    }

    #[test]
    fn tree_syntax_errors() {
        assert!(matches!(
            parse_tree("B(R"),
            Err(HackenbushError::Syntax { .. })
        ));
        assert!(matches!(
            parse_tree("B)R"),
            Err(HackenbushError::Syntax { .. })
        ));
        assert!(matches!(
            parse_tree("B(R)G"),
            Err(HackenbushError::Syntax { position: 5, .. })
        ));
        assert!(matches!(
            parse_tree("B,R"),
            Err(HackenbushError::Syntax { .. })
        ));
        assert!(matches!(
            parse_tree("BXR"),
            Err(HackenbushError::UnknownLetter { position: 2, .. })
        ));
        let t = parse_tree("B(R,G(B,R))").unwrap();
        assert_eq!(t.parent, vec![0, 1, 1, 3, 3]);
        assert!(parse_tree("").unwrap().edges() == 0);
    }

    /// Blue–Red strings through canonical forms agree with the sign expansion, every string up
    /// to 16 edges (the prefixes of a string are shared along a depth-first walk).
    #[test]
    fn blue_red_strings_match_sign_expansion() {
        let mut ev = Evaluator {
            arena: Arena::new(),
        };
        for len in 0..=16u32 {
            for bits in 0..1u32 << len {
                let s: String = (0..len)
                    .map(|i| if bits >> i & 1 == 1 { 'R' } else { 'B' })
                    .collect();
                let tree = parse_tree(&s).unwrap();
                let g = ev.prefixes(&tree, &s).unwrap()[tree.edges()];
                let StalkValue::Number(x) = value(&parse(&s).unwrap()).unwrap() else {
                    unreachable!()
                };
                assert_eq!(ev.arena.as_number(g), Some(x), "{s}");
            }
        }
    }

    /// A string's value three ways: its prefixes' forms by indices (`stalk.rs`), the general
    /// canonical-form computation over the prefixes, and a tree of ordinal sums. Three
    /// constructions of the same game meet in one interned id, every string up to 8 edges.
    #[test]
    fn prefixes_and_ordinal_sums_agree() {
        let mut ev = Evaluator {
            arena: Arena::new(),
        };
        let mut strings = vec![String::new()];
        for _ in 0..8 {
            let mut next = Vec::new();
            for s in &strings {
                for c in ['B', 'R', 'G'] {
                    next.push(format!("{s}{c}"));
                }
            }
            for s in &next {
                let tree = parse_tree(s).unwrap();
                let a = ev.prefixes(&tree, s).unwrap()[tree.edges()];
                let b = ev.vertex_values(&tree).unwrap()[0];
                let c = ev.prefixes_by_search(&tree).unwrap()[tree.edges()];
                assert_eq!(a, b, "{s}");
                assert_eq!(a, c, "{s}");
            }
            strings = next;
        }
    }

    /// Explicit search: does the player to move win? Position: per component, a bit mask of
    /// the edges still there.
    fn wins(
        trees: &[Tree],
        pos: &[u64],
        left: bool,
        memo: &mut HashMap<(Vec<u64>, bool), bool>,
    ) -> bool {
        if let Some(&w) = memo.get(&(pos.to_vec(), left)) {
            return w;
        }
        let mine = if left { Edge::Blue } else { Edge::Red };
        let mut w = false;
        'all: for (k, t) in trees.iter().enumerate() {
            for j in 1..=t.edges() {
                let e = t.colour(j);
                if pos[k] >> j & 1 == 1 && (e == mine || e == Edge::Green) {
                    let mut next = pos.to_vec();
                    next[k] = cut(t, pos[k], j);
                    if !wins(trees, &next, !left, memo) {
                        w = true;
                        break 'all;
                    }
                }
            }
        }
        memo.insert((pos.to_vec(), left), w);
        w
    }

    /// Removes edge `j` and every edge above it.
    fn cut(t: &Tree, mask: u64, j: usize) -> u64 {
        let mut m = mask & !(1 << j);
        for i in j + 1..=t.edges() {
            let p = t.parent[i - 1] as usize;
            if p != 0 && m >> p & 1 == 0 {
                m &= !(1 << i);
            }
        }
        m
    }

    fn tree_text() -> impl Strategy<Value = String> {
        let edge = prop::sample::select(vec!['B', 'R', 'G']);
        let stalk =
            prop::collection::vec(edge, 0..4).prop_map(|v| v.into_iter().collect::<String>());
        stalk.prop_recursive(2, 8, 3, |inner| {
            (
                prop::collection::vec(prop::sample::select(vec!['B', 'R', 'G']), 1..3),
                prop::collection::vec(inner, 1..3),
            )
                .prop_map(|(s, kids)| {
                    format!("{}({})", s.into_iter().collect::<String>(), kids.join(","))
                })
        })
    }

    fn string_text(max: usize) -> impl Strategy<Value = String> {
        // Green edges rarer than blue and red, as in long mixed strings of interest; weights
        // vary so that some strings are mostly green.
        (0u32..4, prop::collection::vec(0u32..12, 0..max)).prop_map(|(g, v)| {
            v.into_iter()
                .map(|x| match x {
                    x if x <= g => 'G',
                    x if x % 2 == 0 => 'B',
                    _ => 'R',
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every prefix of a random string: the forms by indices equal the general computation
        /// (identical interned ids), and the comparisons the indices assume (`P_a < P_b` if
        /// edge a+1 is blue, `>` if red, confused if green) hold in the arena.
        #[test]
        fn string_forms_match_general_computation(s in string_text(48)) {
            let mut ev = Evaluator { arena: Arena::new() };
            let tree = parse_tree(&s).unwrap();
            let by_index = ev.prefixes(&tree, &s).unwrap();
            let by_search = ev.prefixes_by_search(&tree).unwrap();
            prop_assert_eq!(&by_index, &by_search);
            for a in 0..tree.edges() {
                for b in a + 1..=tree.edges() {
                    let (pa, pb) = (by_index[a], by_index[b]);
                    let (le, ge) = (ev.arena.le(pa, pb), ev.arena.ge(pa, pb));
                    let expected = match tree.colour(a + 1) {
                        Edge::Blue => (true, false),
                        Edge::Red => (false, true),
                        Edge::Green => (false, false),
                    };
                    prop_assert_eq!((le, ge), expected, "{} P{} P{}", s, a, b);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        /// The outcome and the winning moves read from canonical forms equal those of an
        /// explicit search over the position.
        #[test]
        fn outcome_and_moves_match_search(texts in prop::collection::vec(tree_text(), 1..4)) {
            let trees: Vec<Tree> = texts.iter().map(|t| parse_tree(t).unwrap()).collect();
            prop_assume!(trees.iter().map(|t| t.edges()).sum::<usize>() <= 14);
            let a = analyze(&texts).unwrap();
            // The same sum with its form left unbuilt: outcome and moves from the sum search.
            let unbuilt = Limits { max_sum_cost: 0.0, ..Limits::default() };
            let b = analyze_trees(texts.clone(), trees.clone(), Vec::new(), unbuilt).unwrap();
            prop_assert_eq!(b.outcome, a.outcome);
            prop_assert_eq!(&b.left_moves, &a.left_moves);
            prop_assert_eq!(&b.right_moves, &a.right_moves);
            prop_assert_eq!(b.sum.not_built.is_some(), texts.len() > 1);
            prop_assert_eq!(&b.sum.mean, &a.sum.mean);
            let full: Vec<u64> = trees.iter().map(|t| (1u64 << (t.edges() + 1)) - 2).collect();
            let mut memo = HashMap::new();
            let lw = wins(&trees, &full, true, &mut memo);
            let rw = wins(&trees, &full, false, &mut memo);
            let expected = match (lw, rw) {
                (true, true) => "N",
                (true, false) => "L",
                (false, true) => "R",
                (false, false) => "P",
            };
            prop_assert_eq!(a.outcome, expected);
            for (left, moves) in [(true, &a.left_moves), (false, &a.right_moves)] {
                let wins_first = if left { lw } else { rw };
                let mut searched = Vec::new();
                if wins_first {
                    let mine = if left { Edge::Blue } else { Edge::Red };
                    for (k, t) in trees.iter().enumerate() {
                        for j in 1..=t.edges() {
                            let e = t.colour(j);
                            if e == mine || e == Edge::Green {
                                let mut next = full.clone();
                                next[k] = cut(t, full[k], j);
                                if !wins(&trees, &next, !left, &mut memo) {
                                    searched.push((k + 1, j));
                                }
                            }
                        }
                    }
                }
                let listed: Vec<(usize, usize)> =
                    moves.listed.iter().map(|m| (m.component, m.edge)).collect();
                prop_assert_eq!(listed, searched);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Sums of longer random strings and trees, too long for the explicit search: the sum
        /// search gives the outcome and the winning moves that the built canonical form gives.
        #[test]
        fn unbuilt_sums_match_built_ones(
            strings in prop::collection::vec(string_text(24), 2..4),
            tree in tree_text(),
        ) {
            let mut texts = strings;
            texts.push(tree);
            let trees: Vec<Tree> = texts.iter().map(|t| parse_tree(t).unwrap()).collect();
            let built = Limits { max_sum_cost: f64::INFINITY, ..Limits::default() };
            let a = analyze_trees(texts.clone(), trees.clone(), Vec::new(), built).unwrap();
            prop_assert!(a.sum.not_built.is_none());
            let unbuilt = Limits { max_sum_cost: 0.0, ..Limits::default() };
            let b = analyze_trees(texts.clone(), trees, Vec::new(), unbuilt).unwrap();
            prop_assert!(b.sum.not_built.is_some());
            prop_assert_eq!(b.outcome, a.outcome, "{:?}", texts);
            prop_assert_eq!(&b.left_moves, &a.left_moves);
            prop_assert_eq!(&b.right_moves, &a.right_moves);
            prop_assert_eq!(&b.sum.mean, &a.sum.mean);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        /// A mixed tree by chains and ground branches (`branches.rs`) has the value of the
        /// ordinal-sum computation over every vertex, and each cut leaves the value that the
        /// recomputation along the path to the ground finds.
        #[test]
        fn branches_match_vertex_values(text in tree_text()) {
            let tree = parse_tree(&text).unwrap();
            prop_assume!(!tree.all_green() && tree.edges() > 0);
            let mut ev = Evaluator { arena: Arena::new() };
            let values = ev.vertex_values(&tree).unwrap();
            let b = Branches::compute(&mut ev, &tree, &text).unwrap();
            let parts = b.parts();
            prop_assert_eq!(ev.arena.add_all(&parts).unwrap(), values[0], "{}", text);
            for j in 1..=tree.edges() {
                let after = b.cut(&mut ev, &tree, j).unwrap();
                let by_path = cut_value(&mut ev, &tree, &values, j).unwrap();
                prop_assert_eq!(ev.arena.add_all(&after).unwrap(), by_path, "{} cut {}", text, j);
            }
        }
    }

    /// A fork above the ground whose branches are two long mixed strings needs their sum's
    /// canonical form; it is refused with the edge named, while the same branches on the
    /// ground are decided.
    #[test]
    fn forks_above_long_branches_are_refused() {
        let s: String = "BGRRGB".repeat(50);
        let t: String = "RGBBGR".repeat(50);
        let err = analyze(&[format!("B({s},{t}G)")]).unwrap_err();
        assert!(
            matches!(err, HackenbushError::ForkTooLarge { edge: 1, .. }),
            "{err}"
        );
        let a = analyze(&[format!("({s},{t}G)")]).unwrap();
        assert!(a.components[0].2.not_built.is_some());
        assert!(a.sum.not_built.is_some());
    }

    #[test]
    fn large_green_trees_use_the_colon_principle() {
        // A broom: a green handle of 1000 edges carrying 999 green bristles of one edge. The
        // bristles are 999 copies of * = *, and each handle edge adds one (colon principle):
        // *1001, so beside a green string of 1001 edges the sum is 0.
        let broom = format!("{}({})", "G".repeat(1000), vec!["G"; 999].join(","));
        let string = "G".repeat(1001);
        let a = analyze(&[broom.as_str(), string.as_str()]).unwrap();
        assert_eq!(a.components[0].2.text.as_deref(), Some("*1001"));
        assert_eq!(a.outcome, "P");
        // The target descent finds the same cuts as the recomputation along the path.
        let small = format!("{}({})", "G".repeat(5), ["G"; 4].join(","));
        let mut ev = Evaluator {
            arena: Arena::new(),
        };
        let t = parse_tree(&small).unwrap();
        let values = ev.vertex_values(&t).unwrap();
        for target in 0..8 {
            let mut by_path = Vec::new();
            for j in 1..=t.edges() {
                let c = cut_value(&mut ev, &t, &values, j).unwrap();
                if ev.arena.kind(c) == Kind::Nimber(target) || (target == 0 && c == Arena::ZERO) {
                    by_path.push(j);
                }
            }
            assert_eq!(
                green_cuts_to(&t, &values, &ev.arena, target),
                by_path,
                "{target}"
            );
        }
    }
}
