//! Tests of graphs: fusion, the split at the ground, searches and winning cuts against
//! explicit searches of the game.

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

/// The value after cutting each grounded edge of an all-green graph, by a new fusion of
/// the graph without that edge (the slow way the cuts were once found).
fn cut_values_by_refusion(g: &Graph) -> Vec<(usize, u64)> {
    let adj = Adjacency::new(g.vertices, &g.ends);
    let (edges, _) = adj.grounded(|_| true);
    let mut out: Vec<(usize, u64)> = edges
        .into_iter()
        .map(|e| (e, green_nimber(&adj, &g.ends, |f| f != e)))
        .collect();
    out.sort_unstable();
    out
}

/// Checks the cuts of the fusion against [`cut_values_by_refusion`] for every target.
fn check_green_cuts(g: &Graph) -> Result<(), TestCaseError> {
    let adj = Adjacency::new(g.vertices, &g.ends);
    let fusion = Fusion::new(&adj, &g.ends, |_| true);
    let slow = cut_values_by_refusion(g);
    let (mut fast, complete) = fusion.cut_values(&g.ends);
    fast.sort_unstable();
    prop_assert!(complete);
    prop_assert_eq!(&fast, &slow);
    let top = slow.iter().map(|&(_, v)| v).max().unwrap_or(0) + 2;
    for t in 0..=top {
        let expected: Vec<usize> = slow.iter().filter(|c| c.1 == t).map(|c| c.0).collect();
        let cuts = fusion.cuts_to(&g.ends, t);
        prop_assert!(cuts.complete);
        prop_assert_eq!(cuts.edges, expected, "target {}", t);
    }
    Ok(())
}

/// A random connected-ish green graph: `n` vertices, each joined to an earlier one, plus
/// `extra` random edges (loops and parallel edges allowed).
fn green_graph(n: usize, extra: usize) -> impl Strategy<Value = Graph> {
    let tree = prop::collection::vec(any::<prop::sample::Index>(), n);
    let more = prop::collection::vec((0..=n as u32, 0..=n as u32), 0..=extra);
    (tree, more).prop_map(move |(tree, more)| {
        let name = |v: usize| {
            if v == 0 {
                "g".to_string()
            } else {
                format!("v{v}")
            }
        };
        let mut text = String::new();
        for (i, ix) in tree.iter().enumerate() {
            text.push_str(&format!("{} {} G\n", name(ix.index(i + 1)), name(i + 1)));
        }
        for (u, v) in more {
            text.push_str(&format!("{} {} G\n", name(u as usize), name(v as usize)));
        }
        parse_graph("t", &text).unwrap()
    })
}

#[test]
fn green_cuts_of_a_long_cycle_are_listed() {
    // A stalk of 3 edges carrying a circuit of 200,001 edges and, at one vertex of the
    // circuit, a twig. Each cut is checked against a new fusion for a sample of edges, and
    // the list of cuts to each value found against all cut values (found by carrying).
    let n = 200_001;
    let mut text = String::from("g s1 G\ns1 s2 G\ns2 s3 G\ns3 c1 G\n");
    for i in 1..n - 1 {
        text.push_str(&format!("c{i} c{} G\n", i + 1));
    }
    text.push_str(&format!("c{} s3 G\nc7 t G\n", n - 1));
    let g = parse_graph("cycle", &text).unwrap();
    let adj = Adjacency::new(g.vertices, &g.ends);
    let fusion = Fusion::new(&adj, &g.ends, |_| true);
    let start = std::time::Instant::now();
    let (values, complete) = fusion.cut_values(&g.ends);
    assert!(complete);
    assert_eq!(values.len(), g.edges());
    let by_edge: HashMap<usize, u64> = values.iter().copied().collect();
    for t in [0, 1, 2, 3, 1000, 131_072] {
        let cuts = fusion.cuts_to(&g.ends, t);
        let mut expected: Vec<usize> = values.iter().filter(|c| c.1 == t).map(|c| c.0).collect();
        expected.sort_unstable();
        assert!(cuts.complete);
        assert_eq!(cuts.edges, expected, "{t}");
    }
    assert!(start.elapsed().as_secs() < 20);
    for e in (0..g.edges())
        .step_by(20_011)
        .chain([0, 1, 2, 3, 4, 10, g.edges() - 1])
    {
        assert_eq!(by_edge[&e], green_nimber(&adj, &g.ends, |f| f != e), "{e}");
    }
}

#[test]
fn green_cuts_beyond_the_budget_are_partial() {
    // A circuit of 30,001 edges standing on one ground edge, a twig at every vertex: the
    // circuit's edges form one cut class whose chains cost more than the budget, so only
    // the bridges and twigs are searched, and the result says it is incomplete.
    let n = 30_001;
    let mut text = String::from("g c0 G\n");
    for i in 0..n {
        text.push_str(&format!("c{i} c{} G\nc{i} t{i} G\n", (i + 1) % n));
    }
    let g = parse_graph("ring", &text).unwrap();
    let adj = Adjacency::new(g.vertices, &g.ends);
    let fusion = Fusion::new(&adj, &g.ends, |_| true);
    let cuts = fusion.cuts_to(&g.ends, 0);
    assert!(!cuts.complete);
    // Cutting the ground edge wins, and it is found.
    assert!(
        cuts.edges.contains(&0),
        "{:?}",
        &cuts.edges[..cuts.edges.len().min(5)]
    );
    let a = super::super::analyze_with_graphs::<&str>(&[], vec![g]).unwrap();
    assert_eq!(a.left_moves.partly_searched, vec![1]);
    assert!(a.left_moves.count >= 1);
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
fn mixed_block_too_large_is_refused() {
    // A cycle of blue and red edges through the ground, one edge over the limit: one block.
    let n = MAX_BLOCK_EDGES + 1;
    let name = |i: usize| {
        if i.is_multiple_of(n) {
            "g".to_string()
        } else {
            format!("v{i}")
        }
    };
    let text: String = (0..n)
        .map(|i| {
            format!(
                "{} {} {}\n",
                name(i),
                name(i + 1),
                if i % 2 == 0 { "B" } else { "R" }
            )
        })
        .collect();
    let g = parse_graph("big", &text).unwrap();
    let e = evaluate(&mut evaluator(), &g).err().unwrap();
    assert!(
        matches!(e, HackenbushError::GraphTooLarge { edges, .. } if edges == n),
        "{e}"
    );
    // A cycle of 16 edges through the ground with a pendant edge on each other vertex: a
    // small block, but 2^15 positions of its pendants.
    let mut text = String::new();
    for i in 0..16 {
        let c = if i % 2 == 0 { "B" } else { "R" };
        let here = if i == 0 {
            "g".to_string()
        } else {
            format!("v{i}")
        };
        let next = if i == 15 {
            "g".to_string()
        } else {
            format!("v{}", i + 1)
        };
        text.push_str(&format!("{here} {next} {c}\n"));
        if i > 0 {
            text.push_str(&format!("v{i} p{i} {c}\n"));
        }
    }
    let g = parse_graph("pendants", &text).unwrap();
    let e = evaluate(&mut evaluator(), &g).err().unwrap();
    assert!(
        matches!(e, HackenbushError::GraphBlockStates { edges: 16, states, .. } if states == 1 << 15),
        "{e}"
    );
    // A path of blue and red edges standing on the ground at every fourth vertex: one part
    // of 21 edges (the edge-mask search's limit was 20), but blocks of 6 edges.
    let mut text = String::new();
    for i in 0..16 {
        let c = if i % 2 == 0 { "B" } else { "R" };
        text.push_str(&format!("v{i} v{} {c}\n", i + 1));
    }
    for i in (0..=16).step_by(4) {
        text.push_str(&format!("g v{i} G\n"));
    }
    let g = parse_graph("path", &text).unwrap();
    assert_eq!(evaluate(&mut evaluator(), &g).unwrap().grounded, 21);
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

    /// The winning cuts of all-green graphs against a new fusion per cut, for every target
    /// and as values, on small graphs with many cycles.
    #[test]
    fn green_cuts_match_refusion_small(g in green_graph(6, 10)) {
        check_green_cuts(&g)?;
    }

    /// The same on larger graphs: long cut classes, pieces in chains.
    #[test]
    fn green_cuts_match_refusion_large(g in green_graph(60, 40)) {
        check_green_cuts(&g)?;
    }

    /// A green graph beside mixed strings, so that the rest of the sum is not a nimber:
    /// the moves listed in the graph are the cuts whose new fusion plus the strings is
    /// `≥ 0` (Left) or `≤ 0` (Right).
    #[test]
    fn green_cuts_beside_mixed_strings(
        g in green_graph(7, 6),
        s in prop::sample::select(vec!["GB", "BG", "GR", "B", "RB", "GBB", "BR", "GGR"]),
    ) {
        let a = super::super::analyze_with_graphs(&[s], vec![g.clone()]).unwrap();
        let mut ev = evaluator();
        let string = ev.vertex_values(&super::super::parse_tree(s).unwrap()).unwrap()[0];
        for (left, moves) in [(true, &a.left_moves), (false, &a.right_moves)] {
            if moves.count == 0 {
                continue;
            }
            let mut expected = Vec::new();
            for (e, v) in cut_values_by_refusion(&g) {
                let nim = ev.arena.nimber(v);
                let sum = ev.arena.add(nim, string).unwrap();
                let wins = if left {
                    ev.arena.ge(sum, Arena::ZERO)
                } else {
                    ev.arena.le(sum, Arena::ZERO)
                };
                if wins {
                    expected.push(e + 1);
                }
            }
            let listed: Vec<usize> =
                moves.listed.iter().filter(|m| m.component == 2).map(|m| m.edge).collect();
            prop_assert_eq!(listed, expected, "{} left {}", s, left);
            prop_assert!(moves.partly_searched.is_empty());
        }
    }

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Denser mixed graphs (several cycles, trees on cycles, loops, parallel edges): the
    /// search by blocks gives the same interned form as the search of edge masks.
    #[test]
    fn blocks_match_mask_search(text in graph_text(7, 14, vec!['B', 'R', 'G'])) {
        let g = parse_graph("t", &text).unwrap();
        let mut ev = evaluator();
        let by_blocks = evaluate(&mut ev, &g).unwrap().value;
        let by_masks = evaluate_part(&mut ev, &g, true).unwrap().value;
        prop_assert_eq!(by_blocks, by_masks, "{}", text);
    }
}
