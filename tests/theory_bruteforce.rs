//! The theory modules against brute-force game-tree search on small positions.
//!
//! - `play`: outcomes and winning moves of sums of heaps, normal and misère, against a direct
//!   search over explicit positions whose moves are read off the code's digits independently of
//!   `rules::MoveSet`;
//! - `graph`: generalized Sprague–Grundy values against a retrograde win/loss/draw analysis of
//!   random graphs and of sums of random graphs (Smith's sum rule), plus the defining
//!   conditions of the function; acyclic graphs against the recursive mex definition.

use std::collections::{BTreeSet, HashMap};

use proptest::prelude::*;

use nimseq::engine::{compute, EngineKind};
use nimseq::graph::{self, Graph, Outcome as GOutcome, Value};
use nimseq::position::{self, misere, Outcome};
use nimseq::rules::Rule;

// ---------------------------------------------------------------------------------------------
// Heap games.

/// The options of a heap of `h`, read directly from the digits: `d_k` bit 1 takes a heap of
/// exactly `k`, bit 2 leaves `h - k > 0` as one heap, bit 4 splits it into two non-empty heaps,
/// bit 8 into three; `!` forbids equal parts.
fn brute_options(rule: &Rule, h: usize) -> BTreeSet<Vec<usize>> {
    let mut out = BTreeSet::new();
    for k in 0..=h {
        let d = rule.digit(k);
        let r = h - k;
        if k >= 1 && r == 0 && d.bits & 1 != 0 {
            out.insert(vec![]);
        }
        if k >= 1 && r >= 1 && d.bits & 2 != 0 {
            out.insert(vec![r]);
        }
        if d.bits & 4 != 0 {
            for a in 1..r {
                let b = r - a;
                if a <= b && !(d.unequal && a == b) {
                    out.insert(vec![a, b]);
                }
            }
        }
        if d.bits & 8 != 0 {
            for a in 1..r {
                for b in a..r {
                    if a + b >= r {
                        break;
                    }
                    let c = r - a - b;
                    if b <= c && !(d.unequal && (a == b || b == c)) {
                        out.insert(vec![a, b, c]);
                    }
                }
            }
        }
    }
    out
}

struct Brute {
    rule: Rule,
    misere: bool,
    memo: HashMap<Vec<usize>, bool>,
}

impl Brute {
    /// Replace heap `i` of `pos` by `to`, as a sorted multiset.
    fn child(pos: &[usize], i: usize, to: &[usize]) -> Vec<usize> {
        let mut c: Vec<usize> = pos[..i].iter().chain(&pos[i + 1..]).copied().collect();
        c.extend_from_slice(to);
        c.retain(|&h| h > 0);
        c.sort_unstable();
        c
    }

    /// The position as a sorted multiset of non-empty heaps.
    fn normalized(pos: &[usize]) -> Vec<usize> {
        let mut c: Vec<usize> = pos.iter().copied().filter(|&h| h > 0).collect();
        c.sort_unstable();
        c
    }

    /// Does the player to move win?
    fn wins(&mut self, pos: &[usize]) -> bool {
        if let Some(&w) = self.memo.get(pos) {
            return w;
        }
        let mut any_move = false;
        let mut w = false;
        'all: for i in 0..pos.len() {
            for to in brute_options(&self.rule, pos[i]) {
                any_move = true;
                if !self.wins(&Brute::child(pos, i, &to)) {
                    w = true;
                    break 'all;
                }
            }
        }
        if !any_move {
            w = self.misere;
        }
        self.memo.insert(pos.to_vec(), w);
        w
    }

    /// Every (heap index, heaps left) that moves to a position the opponent loses, each
    /// resulting position once: a move in a heap equal to an earlier heap leads to a position
    /// already listed, so only the first of equal heaps is moved in.
    fn winning_moves(&mut self, heaps: &[usize]) -> Vec<(usize, Vec<usize>)> {
        let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut results: Vec<Vec<usize>> = Vec::new();
        for i in 0..heaps.len() {
            for to in brute_options(&self.rule, heaps[i]) {
                let result = Brute::child(heaps, i, &to);
                if results.contains(&result) {
                    continue;
                }
                results.push(result);
                if !self.wins(&Brute::child(heaps, i, &to)) {
                    out.push((i, to));
                }
            }
        }
        out
    }
}

const CODES: &[&str] = &[
    "0.77", "0.137", "4!.0", "0.6", "0.8", "0.[3]", "0.8!", "4.[3]", "0.15", "0.3F",
];

/// Every ordered list of up to three heaps of size at most `max`.
fn positions(max: usize) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for a in 0..=max {
        out.push(vec![a]);
        for b in 0..=max {
            out.push(vec![a, b]);
            for c in 0..=max {
                out.push(vec![a, b, c]);
            }
        }
    }
    out
}

#[test]
fn normal_play_matches_game_tree() {
    for code in CODES {
        let rule = Rule::parse(code).unwrap();
        let max = 9;
        let values = compute(&rule, max + 1, EngineKind::Exact).unwrap();
        let mut brute = Brute {
            rule: rule.clone(),
            misere: false,
            memo: HashMap::new(),
        };
        for heaps in positions(max) {
            let a = position::analyze(&rule, &heaps, &values).unwrap();
            let sorted = Brute::normalized(&heaps);
            let expected = if brute.wins(&sorted) {
                Outcome::N
            } else {
                Outcome::P
            };
            assert_eq!(a.outcome, expected, "{code} {heaps:?}");
            let got: Vec<(usize, Vec<usize>)> = a
                .winning_moves
                .iter()
                .map(|m| {
                    assert_eq!(m.from, heaps[m.heap_index]);
                    (m.heap_index, m.to.clone())
                })
                .collect();
            assert_eq!(got, brute.winning_moves(&heaps), "{code} {heaps:?}");
        }
    }
}

#[test]
fn misere_play_matches_game_tree() {
    for code in CODES {
        let rule = Rule::parse(code).unwrap();
        let mut brute = Brute {
            rule: rule.clone(),
            misere: true,
            memo: HashMap::new(),
        };
        for heaps in positions(7) {
            // Every exact method: whatever `analyze` picks, canonical forms, and the search.
            let picked = misere::analyze(&rule, &heaps, misere::DEFAULT_LIMIT).unwrap();
            let forms = misere::analyze_by_forms(&rule, &heaps, misere::DEFAULT_LIMIT)
                .expect("small positions fit the form budget");
            let search = misere::analyze_by_search(&rule, &heaps, misere::DEFAULT_LIMIT).unwrap();
            for a in [&picked, &forms, &search] {
                check_misere(&mut brute, code, &heaps, a);
            }
        }
    }
}

fn check_misere(brute: &mut Brute, code: &str, heaps: &[usize], a: &misere::MisereAnalysis) {
    {
        {
            let sorted = Brute::normalized(heaps);
            let expected = if brute.wins(&sorted) {
                Outcome::N
            } else {
                Outcome::P
            };
            assert_eq!(a.outcome, expected, "{code} {heaps:?} ({:?})", a.method);
            let got: Vec<(usize, Vec<usize>)> = a
                .winning_moves
                .iter()
                .map(|m| (m.heap_index, m.to.clone()))
                .collect();
            assert_eq!(
                got,
                brute.winning_moves(heaps),
                "{code} {heaps:?} ({:?})",
                a.method
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Game graphs.

/// Retrograde analysis: a vertex without moves is lost for the player to move; a vertex with a
/// move to a lost vertex is won; a vertex all of whose moves go to won vertices is lost; the
/// rest are draws.
fn retrograde(n: usize, edges: &[(u32, u32)]) -> Vec<GOutcome> {
    let mut succ = vec![BTreeSet::new(); n];
    for &(u, v) in edges {
        succ[u as usize].insert(v as usize);
    }
    let mut out: Vec<Option<GOutcome>> = vec![None; n];
    loop {
        let mut changed = false;
        for u in 0..n {
            if out[u].is_some() {
                continue;
            }
            if succ[u].iter().any(|&v| out[v] == Some(GOutcome::P)) {
                out[u] = Some(GOutcome::N);
                changed = true;
            } else if succ[u].iter().all(|&v| out[v] == Some(GOutcome::N)) {
                out[u] = Some(GOutcome::P);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    out.into_iter().map(|o| o.unwrap_or(GOutcome::D)).collect()
}

/// Smith's sum of two generalized values.
fn gsum(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Finite(x), Value::Finite(y)) => Value::Finite(x ^ y),
        (Value::Finite(x), Value::Infinite(k)) | (Value::Infinite(k), Value::Finite(x)) => {
            let mut k: Vec<u32> = k.iter().map(|v| v ^ x).collect();
            k.sort_unstable();
            Value::Infinite(k)
        }
        _ => Value::Infinite(vec![]),
    }
}

/// The sum G + H: vertex (a, b) is a * |H| + b; a move is made in one component.
fn sum_graph(n: usize, e: &[(u32, u32)], m: usize, f: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for a in 0..n as u32 {
        for &(b, b2) in f {
            out.push((a * m as u32 + b, a * m as u32 + b2));
        }
    }
    for &(a, a2) in e {
        for b in 0..m as u32 {
            out.push((a * m as u32 + b, a2 * m as u32 + b));
        }
    }
    out
}

fn finite(v: &Value) -> Option<u32> {
    match v {
        Value::Finite(x) => Some(*x),
        Value::Infinite(_) => None,
    }
}

/// The defining conditions (Smith; Fraenkel & Yesha), those that need no counter function:
/// a finite value is the mex of the followers' finite values and no follower shares it; every
/// follower of larger or infinite value has a follower with the value; an infinite vertex has
/// an infinite follower with no follower of value mex(finite follower values); K lists the
/// finite follower values.
fn check_conditions(g: &Graph, values: &[Value]) {
    for u in 0..g.vertex_count() as u32 {
        let fol: Vec<&Value> = g
            .followers(u)
            .iter()
            .map(|&w| &values[w as usize])
            .collect();
        let fin: BTreeSet<u32> = fol.iter().filter_map(|v| finite(v)).collect();
        let mex = (0..).find(|x| !fin.contains(x)).unwrap();
        match &values[u as usize] {
            Value::Finite(m) => {
                assert_eq!(*m, mex, "vertex {u}: value is not the mex");
                for &w in g.followers(u) {
                    let big = finite(&values[w as usize]).is_none_or(|x| x > *m);
                    if big {
                        assert!(
                            g.followers(w)
                                .iter()
                                .any(|&z| values[z as usize] == Value::Finite(*m)),
                            "vertex {u} (value {m}): follower {w} cannot be answered"
                        );
                    }
                }
            }
            Value::Infinite(k) => {
                assert_eq!(k, &fin.iter().copied().collect::<Vec<_>>(), "vertex {u}: K");
                assert!(
                    g.followers(u).iter().any(|&w| {
                        finite(&values[w as usize]).is_none()
                            && !g
                                .followers(w)
                                .iter()
                                .any(|&z| values[z as usize] == Value::Finite(mex))
                    }),
                    "vertex {u}: infinite without a reason"
                );
            }
        }
    }
}

fn small_graph(max_n: usize, max_e: usize) -> impl Strategy<Value = (usize, Vec<(u32, u32)>)> {
    (1..=max_n).prop_flat_map(move |n| {
        let e = proptest::collection::vec((0..n as u32, 0..n as u32), 0..=max_e);
        (Just(n), e)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn graph_outcomes_match_retrograde((n, edges) in small_graph(9, 20)) {
        let g = Graph::from_edges(n, &edges);
        let a = graph::analyze(&g);
        let expected = retrograde(n, &edges);
        let got: Vec<GOutcome> = a.values.iter().map(|v| v.outcome()).collect();
        prop_assert_eq!(got, expected);
        check_conditions(&g, &a.values);
        prop_assert_eq!(a.cyclic, graph::find_cycle(&g).is_some());
    }

    /// Smith's theorem: the value of a sum is the generalized nim-sum of the values.
    #[test]
    fn graph_sums_follow_smith((n, e) in small_graph(5, 9), (m, f) in small_graph(5, 9)) {
        let ga = graph::analyze(&Graph::from_edges(n, &e));
        let gb = graph::analyze(&Graph::from_edges(m, &f));
        let edges = sum_graph(n, &e, m, &f);
        let sum = graph::analyze(&Graph::from_edges(n * m, &edges));
        let outcomes = retrograde(n * m, &edges);
        for a in 0..n {
            for b in 0..m {
                let predicted = gsum(&ga.values[a], &gb.values[b]);
                prop_assert_eq!(predicted.outcome(), outcomes[a * m + b]);
                prop_assert_eq!(&sum.values[a * m + b], &predicted, "({}, {})", a, b);
            }
        }
    }

    /// Without cycles: the ordinary recursive mex.
    #[test]
    fn acyclic_graphs_are_ordinary((n, edges) in small_graph(12, 30)) {
        let edges: Vec<(u32, u32)> = edges
            .into_iter()
            .filter(|&(u, v)| u > v)
            .collect();
        let a = graph::analyze(&Graph::from_edges(n, &edges));
        prop_assert!(!a.cyclic);
        let mut g = vec![0u32; n];
        for u in 0..n {
            let fol: BTreeSet<u32> = edges
                .iter()
                .filter(|&&(x, _)| x as usize == u)
                .map(|&(_, v)| g[v as usize])
                .collect();
            g[u] = (0..).find(|x| !fol.contains(x)).unwrap();
            prop_assert_eq!(&a.values[u], &Value::Finite(g[u]));
        }
    }
}
