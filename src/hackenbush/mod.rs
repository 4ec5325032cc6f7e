//! Hackenbush strings: exact values of single stalks and of their sums.
//!
//! A string is a path of edges from the ground, written bottom-up: `B` (blue, Left's), `R`
//! (red, Right's), `G` (green, either player's); cutting an edge removes it and everything above.
//! A Blue–Red string is a number whose sign expansion is its colour sequence (Berlekamp's rule,
//! Winning Ways ch. 2 and Conway, On Numbers and Games): the first run of one colour counts ±1
//! per edge, and each later edge adds ±1/2, ±1/4, ±1/8, … . An all-green string of `n` edges is
//! the nimber `*n`, and nimbers add by XOR. A string mixing green with blue or red is neither a
//! number nor a nimber (`BG` is `1*`, `GB` is `↑*`); [`evaluate`] refuses such strings with
//! [`HackenbushError::Mixed`], and [`analyze`] (in `forms.rs`) takes strings and trees of every
//! colour through the canonical forms of [`crate::partizan`]. For [`evaluate`] a sum of strings
//! is `x + *n`, a number plus a nimber, and its [`Outcome`] follows: Left wins if `x > 0`, Right
//! if `x < 0`, and for `x = 0` the first player wins exactly when `n ≠ 0`.

mod branches;
mod dyadic;
mod forms;
mod graph;
mod stalk;

use thiserror::Error;

pub use dyadic::{simplest_between, Dyadic, MAX_EXP};
pub use forms::{
    analyze, analyze_with_graphs, components_from_text, parse_tree, Analysis, Move, Moves, Tree,
    ValueReport, MAX_EDGES, MAX_LISTED_MOVES, MAX_PATH_MOVES_EDGES,
};
pub use graph::{
    parse_graph, Graph, MAX_BLOCK_EDGES, MAX_BLOCK_STATES, MAX_GRAPH_EDGES, MAX_GREEN_MOVE_STEPS,
    MAX_SEARCH_EDGES, MAX_SEARCH_NODES, MAX_SEARCH_POSITIONS,
};
pub use stalk::{StringForms, MAX_OPTION_ENTRIES};

/// One edge of a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Edge {
    /// Blue: only Left may cut it.
    Blue,
    /// Red: only Right may cut it.
    Red,
    /// Green: either player may cut it.
    Green,
}

/// Why a string was refused.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum HackenbushError {
    /// A character that is not B, R or G.
    #[error("'{string}': unknown edge colour '{letter}' at position {position} (use B for blue, R for red, G for green, from the ground up)")]
    UnknownLetter {
        /// The string.
        string: String,
        /// The character.
        letter: char,
        /// 1-based position in the string.
        position: usize,
    },
    /// Green mixed with blue or red in one string.
    #[error("'{0}': a string mixing green with blue or red edges is neither a number nor a nimber; its value needs canonical forms of general games, which are not implemented (all-green strings and Blue-Red strings are)")]
    Mixed(String),
    /// Too many edges after the first run (the fraction would need more than MAX_EXP bits).
    #[error("'{string}': {edges} edges after the first run; exact values are limited to {max} such edges")]
    TooLong {
        /// The string.
        string: String,
        /// Edges after the first run.
        edges: usize,
        /// The limit.
        max: u32,
    },
    /// The sum does not fit the exact representation.
    #[error("the sum of the strings is too large to represent exactly")]
    Overflow,
    /// A tree written wrongly.
    #[error("'{string}': {message} (at position {position})")]
    Syntax {
        /// The component.
        string: String,
        /// 1-based position of the problem.
        position: usize,
        /// What is wrong.
        message: String,
    },
    /// A component with more edges than the limit.
    #[error("'{string}': more than {max} edges in one component")]
    TooManyEdges {
        /// The component.
        string: String,
        /// The limit.
        max: usize,
    },
    /// The canonical forms of a string's prefixes would hold too many options.
    #[error("'{string}': the canonical forms of its first {prefix} edges already hold more than {entries} options (a prefix has about one option per green edge below it on each side); the input is too large for canonical forms")]
    FormTooLarge {
        /// The component.
        string: String,
        /// The prefix at which the budget ran out.
        prefix: usize,
        /// The budget of option entries.
        entries: usize,
    },
    /// A fork above the ground whose branches' sum is too costly a canonical form.
    #[error("'{string}': the branches above edge {edge} fork, and the edges below need their sum's canonical form (an ordinal sum), which would cost about {cost:.1e} steps, beyond the limit of {max:.0e} (forks on the ground have no such limit)")]
    ForkTooLarge {
        /// The component.
        string: String,
        /// The edge the branches stand on, from 1.
        edge: usize,
        /// The estimated cost.
        cost: f64,
        /// The largest cost accepted.
        max: f64,
    },
    /// A graph file written wrongly (line 0: the file as a whole).
    #[error("'{name}' line {line}: {message}")]
    GraphSyntax {
        /// The graph's name (its file).
        name: String,
        /// 1-based line, or 0.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A mixed graph with a cycle too large to search.
    #[error("'{name}': a graph mixing colours with a cycle is evaluated by searching the positions of its blocks (2-connected pieces), which is limited to {max} edges a block; it has a block of {edges} edges (all-green graphs and trees of any colour have no such limit)")]
    GraphTooLarge {
        /// The graph's name.
        name: String,
        /// The edges of its largest block.
        edges: usize,
        /// The limit.
        max: usize,
    },
    /// A block of a mixed graph carrying too many positions on its vertices.
    #[error("'{name}': a block (2-connected piece) of {edges} edges carries about {states} positions of the edges hanging on its vertices, beyond the search's limit of {max}; the graph is too large for canonical forms by search")]
    GraphBlockStates {
        /// The graph's name.
        name: String,
        /// The block's edges.
        edges: usize,
        /// The estimate: the product over its vertices of (edges hanging there + 1).
        states: u64,
        /// The limit.
        max: u64,
    },
    /// The search of a mixed graph's blocks built too many games.
    #[error("'{name}': the search of this mixed graph's blocks built more than {max} new games (about 10 s of work) without finishing; the graph is too large for canonical forms by search")]
    GraphSearchNodes {
        /// The graph's name.
        name: String,
        /// The limit.
        max: usize,
    },
    /// The search of a mixed graph met too many positions.
    #[error("'{name}': the search of this mixed graph met more than {max} positions; the graph is too large for canonical forms by search")]
    GraphPositions {
        /// The graph's name.
        name: String,
        /// The limit.
        max: usize,
    },
    /// The canonical-form computation was refused.
    #[error(transparent)]
    Partizan(#[from] crate::partizan::PartizanError),
}

/// The value of one string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StalkValue {
    /// A Blue–Red string (or the empty string): a number.
    Number(Dyadic),
    /// An all-green string of `n` edges: `*n`.
    Nimber(u64),
}

/// Who wins a Hackenbush position with perfect play: the outcome of any partizan game, Left being
/// blue and Right red.
pub use crate::partizan::Outcome;

/// A sum of strings: its value `number + *nimber`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sum {
    /// Each string as given, with its value.
    pub strings: Vec<(String, StalkValue)>,
    /// The number part of the sum.
    pub number: Dyadic,
    /// The nimber part of the sum (XOR of the green strings' lengths).
    pub nimber: u64,
}

impl Sum {
    /// Who wins.
    pub fn outcome(&self) -> Outcome {
        match self.number.signum() {
            1 => Outcome::Left,
            -1 => Outcome::Right,
            _ if self.nimber == 0 => Outcome::P,
            _ => Outcome::N,
        }
    }

    /// Does any string have green edges?
    pub fn has_green(&self) -> bool {
        self.strings
            .iter()
            .any(|(_, v)| matches!(v, StalkValue::Nimber(n) if *n > 0))
    }
}

/// A string as messages show it: whole up to 40 letters, else its first 30 and its length.
fn shown(text: &str) -> String {
    let count = text.chars().count();
    if count <= 40 {
        return text.to_string();
    }
    let head: String = text.chars().take(30).collect();
    format!("{head}… ({count} letters)")
}

/// Reads a string of `B`, `R`, `G` (either case), ground first.
pub fn parse(text: &str) -> Result<Vec<Edge>, HackenbushError> {
    text.chars()
        .enumerate()
        .map(|(i, c)| match c.to_ascii_uppercase() {
            'B' => Ok(Edge::Blue),
            'R' => Ok(Edge::Red),
            'G' => Ok(Edge::Green),
            _ => Err(HackenbushError::UnknownLetter {
                string: shown(text),
                letter: c,
                position: i + 1,
            }),
        })
        .collect()
}

/// The value of a string of edges, ground first.
pub fn value(edges: &[Edge]) -> Result<StalkValue, HackenbushError> {
    let name = || shown(&edges.iter().map(|e| letter(*e)).collect::<String>());
    if edges.contains(&Edge::Green) {
        if edges.iter().all(|&e| e == Edge::Green) {
            return Ok(StalkValue::Nimber(edges.len() as u64));
        }
        return Err(HackenbushError::Mixed(name()));
    }
    let Some(&first) = edges.first() else {
        return Ok(StalkValue::Number(Dyadic::ZERO));
    };
    let run = edges.iter().take_while(|&&e| e == first).count();
    let tail = &edges[run..];
    if tail.len() > MAX_EXP as usize {
        return Err(HackenbushError::TooLong {
            string: name(),
            edges: tail.len(),
            max: MAX_EXP,
        });
    }
    // Scale by 2^tail.len(): the whole run is run * 2^t, edge j of the tail is 2^(t - j).
    let t = tail.len() as u32;
    let sign = |e: Edge| if e == Edge::Blue { 1i128 } else { -1 };
    let overflow = || HackenbushError::TooLong {
        string: name(),
        edges: tail.len(),
        max: MAX_EXP,
    };
    let mut num = (run as i128).checked_mul(1i128 << t).ok_or_else(overflow)? * sign(first);
    for (j, &e) in tail.iter().enumerate() {
        num += sign(e) * (1i128 << (t - 1 - j as u32));
    }
    Dyadic::new(num, t)
        .map(StalkValue::Number)
        .ok_or_else(overflow)
}

/// The letter of an edge.
pub fn letter(e: Edge) -> char {
    match e {
        Edge::Blue => 'B',
        Edge::Red => 'R',
        Edge::Green => 'G',
    }
}

/// Parses and evaluates every string and their sum.
pub fn evaluate<S: AsRef<str>>(strings: &[S]) -> Result<Sum, HackenbushError> {
    let mut sum = Sum {
        strings: Vec::new(),
        number: Dyadic::ZERO,
        nimber: 0,
    };
    for s in strings {
        let s = s.as_ref();
        let v = value(&parse(s)?)?;
        match v {
            StalkValue::Number(x) => {
                sum.number = sum.number.checked_add(x).ok_or(HackenbushError::Overflow)?
            }
            StalkValue::Nimber(n) => sum.nimber ^= n,
        }
        sum.strings.push((s.to_string(), v));
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn num(s: &str) -> Dyadic {
        match value(&parse(s).unwrap()).unwrap() {
            StalkValue::Number(x) => x,
            v => panic!("{s}: {v:?}"),
        }
    }

    #[test]
    fn seed_examples() {
        // Winning Ways / ALGORITHMS.md §7: BBBRRBBR = 2 13/32; RBRRBRR = -55/64.
        assert_eq!(num("BBBRRBBR").to_string(), "77/32");
        assert_eq!(num("RBRRBRR").to_string(), "-55/64");
        assert_eq!(num("BR").to_string(), "1/2");
        assert_eq!(num("bbb").to_string(), "3");
        assert_eq!(num("").to_string(), "0");
        let s = evaluate(&["BBBRRBBR", "RBRRBRR"]).unwrap();
        assert_eq!(s.number.to_string(), "99/64");
        assert_eq!(s.outcome(), Outcome::Left);
    }

    #[test]
    fn green_and_errors() {
        let s = evaluate(&["GGG", "G", "BR", "R"]).unwrap();
        assert_eq!(s.nimber, 2);
        assert_eq!(s.number.to_string(), "-1/2");
        assert_eq!(s.outcome(), Outcome::Right);
        assert_eq!(evaluate(&["GG", "GG"]).unwrap().outcome(), Outcome::P);
        assert_eq!(evaluate(&["GG", "BR", "RB"]).unwrap().outcome(), Outcome::N);
        assert!(matches!(
            evaluate(&["BXR"]),
            Err(HackenbushError::UnknownLetter {
                letter: 'X',
                position: 2,
                ..
            })
        ));
        assert!(matches!(evaluate(&["BG"]), Err(HackenbushError::Mixed(_))));
        let long = format!("B{}", "R".repeat(MAX_EXP as usize + 1));
        assert!(matches!(
            evaluate(&[long]),
            Err(HackenbushError::TooLong { .. })
        ));
        let longest = format!("B{}", "R".repeat(MAX_EXP as usize));
        assert_eq!(num(&longest).exponent(), MAX_EXP);
    }

    /// The value of a Blue–Red string from its game tree: Left may cut any blue edge, Right any
    /// red one, leaving the edges below; the value is the simplest number between the best
    /// options (Conway's simplicity rule). Checks that Left's options stay below Right's.
    fn game_value(s: &[Edge], memo: &mut HashMap<Vec<Edge>, Dyadic>) -> Dyadic {
        if let Some(&v) = memo.get(s) {
            return v;
        }
        let (mut lo, mut hi): (Option<Dyadic>, Option<Dyadic>) = (None, None);
        for i in 0..s.len() {
            let v = game_value(&s[..i], memo);
            if s[i] == Edge::Blue {
                lo = Some(lo.map_or(v, |l| l.max(v)));
            } else {
                hi = Some(hi.map_or(v, |h| h.min(v)));
            }
        }
        let v = simplest_between(lo, hi).expect("a Blue-Red string is a number");
        memo.insert(s.to_vec(), v);
        v
    }

    fn all_strings(max_len: usize) -> Vec<Vec<Edge>> {
        let mut out = vec![Vec::new()];
        for len in 1..=max_len {
            for bits in 0..1u32 << len {
                out.push(
                    (0..len)
                        .map(|i| {
                            if bits >> i & 1 == 1 {
                                Edge::Red
                            } else {
                                Edge::Blue
                            }
                        })
                        .collect(),
                );
            }
        }
        out
    }

    #[test]
    fn long_strings_are_shortened_in_messages() {
        let long = "BR".repeat(500);
        let err = value(&parse(&long).unwrap()).unwrap_err().to_string();
        assert!(
            err.starts_with("'BRBRBRBRBRBRBRBRBRBRBRBRBRBRBR… (1000 letters)': 999 edges"),
            "{err}"
        );
        let bad = format!("{}X", "B".repeat(100));
        let err = parse(&bad).unwrap_err().to_string();
        assert!(
            err.contains("(101 letters)': unknown edge colour 'X' at position 101"),
            "{err}"
        );
        assert!(err.len() < 200, "{err}");
        let short = parse("BXR").unwrap_err().to_string();
        assert!(
            short.starts_with("'BXR': unknown edge colour 'X' at position 2"),
            "{short}"
        );
    }

    #[test]
    fn sign_expansion_matches_game_tree() {
        let mut memo = HashMap::new();
        for s in all_strings(11) {
            let expected = game_value(&s, &mut memo);
            assert_eq!(value(&s).unwrap(), StalkValue::Number(expected), "{s:?}");
        }
    }

    /// The value of a sum of two strings from the sum's own game tree (a move is made in either
    /// string), against the sum of the two values.
    #[test]
    fn sums_of_two_match_game_tree() {
        fn pair_value(
            a: &[Edge],
            b: &[Edge],
            memo: &mut HashMap<(Vec<Edge>, Vec<Edge>), Dyadic>,
        ) -> Dyadic {
            if let Some(&v) = memo.get(&(a.to_vec(), b.to_vec())) {
                return v;
            }
            let (mut lo, mut hi): (Option<Dyadic>, Option<Dyadic>) = (None, None);
            let mut note = |edge: Edge, v: Dyadic| {
                if edge == Edge::Blue {
                    lo = Some(lo.map_or(v, |l: Dyadic| l.max(v)));
                } else {
                    hi = Some(hi.map_or(v, |h: Dyadic| h.min(v)));
                }
            };
            for i in 0..a.len() {
                note(a[i], pair_value(&a[..i], b, memo));
            }
            for i in 0..b.len() {
                note(b[i], pair_value(a, &b[..i], memo));
            }
            let v = simplest_between(lo, hi).expect("a number");
            memo.insert((a.to_vec(), b.to_vec()), v);
            v
        }
        let strings = all_strings(5);
        let mut memo = HashMap::new();
        for a in &strings {
            for b in &strings {
                let (StalkValue::Number(x), StalkValue::Number(y)) =
                    (value(a).unwrap(), value(b).unwrap())
                else {
                    unreachable!()
                };
                assert_eq!(
                    pair_value(a, b, &mut memo),
                    x.checked_add(y).unwrap(),
                    "{a:?} + {b:?}"
                );
            }
        }
    }

    /// Outcomes of sums with green strings from the game tree: does the player to move win,
    /// with Left or Right moving first?
    #[test]
    fn outcomes_with_green_match_game_tree() {
        type Pos = Vec<Vec<Edge>>;
        fn wins(pos: &Pos, left_moves: bool, memo: &mut HashMap<(Pos, bool), bool>) -> bool {
            if let Some(&w) = memo.get(&(pos.clone(), left_moves)) {
                return w;
            }
            let mine = if left_moves { Edge::Blue } else { Edge::Red };
            let mut w = false;
            'search: for (k, s) in pos.iter().enumerate() {
                for (i, &e) in s.iter().enumerate() {
                    if e == mine || e == Edge::Green {
                        let mut next = pos.clone();
                        next[k].truncate(i);
                        if !wins(&next, !left_moves, memo) {
                            w = true;
                            break 'search;
                        }
                    }
                }
            }
            memo.insert((pos.clone(), left_moves), w);
            w
        }
        let br = all_strings(4);
        let mut memo = HashMap::new();
        for a in &br {
            for b in &br {
                for g in 0..4 {
                    for h in 0..3 {
                        let pos = vec![
                            a.clone(),
                            b.clone(),
                            vec![Edge::Green; g],
                            vec![Edge::Green; h],
                        ];
                        let texts: Vec<String> = pos
                            .iter()
                            .map(|s| s.iter().map(|&e| letter(e)).collect())
                            .collect();
                        let outcome = evaluate(&texts).unwrap().outcome();
                        let left_first = wins(&pos, true, &mut memo);
                        let right_first = wins(&pos, false, &mut memo);
                        let expected = match (left_first, right_first) {
                            (true, false) => Outcome::Left,
                            (false, true) => Outcome::Right,
                            (false, false) => Outcome::P,
                            (true, true) => Outcome::N,
                        };
                        assert_eq!(outcome, expected, "{texts:?}");
                    }
                }
            }
        }
    }
}
