//! Misère canonical forms against brute force on explicit positions.
//!
//! The oracle here shares no code with `nimseq::misere`: it enumerates moves from the rule's
//! digits directly ([`Rule::digit`]) and searches the game tree of explicit positions
//! (multisets of heaps, plus nim heaps of size 1 and 2), with memoization. `g⁻` of a position is
//! 1 when it has no move and otherwise the mex of its options' `g⁻`; the position is a misère
//! P-position exactly when `g⁻ = 0`.

use std::collections::HashMap;

use nimseq::engine::{self, EngineKind};
use nimseq::misere::{MisereHeaps, Outcome};
use nimseq::rules::Rule;

/// A position: sorted heaps of the rule, and counts of nim heaps `*1` and `*2`.
type Pos = (Vec<u8>, u8, u8);

struct Oracle {
    rule: Rule,
    memo: HashMap<Pos, u32>,
}

impl Oracle {
    fn new(code: &str) -> Oracle {
        Oracle {
            rule: Rule::parse(code).unwrap(),
            memo: HashMap::new(),
        }
    }

    /// What one heap of `n` may become, straight from the digits.
    fn heap_moves(&self, n: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for k in 0..=n {
            let d = self.rule.digit(k);
            let r = n - k;
            if d.bits & 1 != 0 && r == 0 && k > 0 {
                out.push(vec![]);
            }
            if d.bits & 2 != 0 && r >= 1 && k > 0 {
                out.push(vec![r as u8]);
            }
            if d.bits & 4 != 0 {
                for a in 1..r {
                    let b = r - a;
                    if a <= b && b >= 1 && !(d.unequal && a == b) {
                        out.push(vec![a as u8, b as u8]);
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
                        if c >= b && !(d.unequal && (a == b || b == c)) {
                            out.push(vec![a as u8, b as u8, c as u8]);
                        }
                    }
                }
            }
        }
        out
    }

    fn g_minus(&mut self, pos: &Pos) -> u32 {
        if let Some(&v) = self.memo.get(pos) {
            return v;
        }
        let (heaps, ones, twos) = pos;
        let mut opts: Vec<Pos> = Vec::new();
        for (i, &h) in heaps.iter().enumerate() {
            if i > 0 && heaps[i - 1] == h {
                continue;
            }
            for leaves in self.heap_moves(h as usize) {
                let mut next: Vec<u8> = heaps.clone();
                next.remove(i);
                next.extend(leaves);
                next.sort_unstable();
                opts.push((next, *ones, *twos));
            }
        }
        if *ones > 0 {
            opts.push((heaps.clone(), ones - 1, *twos));
        }
        if *twos > 0 {
            opts.push((heaps.clone(), *ones, twos - 1));
            opts.push((heaps.clone(), ones + 1, twos - 1));
        }
        let v = if opts.is_empty() {
            1
        } else {
            let vals: Vec<u32> = opts.iter().map(|o| self.g_minus(o)).collect();
            (0..).find(|v| !vals.contains(v)).unwrap()
        };
        self.memo.insert(pos.clone(), v);
        v
    }
}

/// Every multiset of heaps (each ≥ 1) with total at most `total`.
fn positions(total: usize) -> Vec<Vec<u8>> {
    fn rec(left: usize, max: usize, cur: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        out.push(cur.clone());
        for h in (1..=max.min(left)).rev() {
            cur.push(h as u8);
            rec(left - h, h, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    rec(total, total, &mut Vec::new(), &mut out);
    for p in &mut out {
        p.sort_unstable();
    }
    out
}

const CODES: &[&str] = &[
    "0.77", "0.07", "0.137", "0.6", "4!.0", "0.8", "0.15", "0.3F",
];

#[test]
fn outcomes_of_positions_match_brute_force() {
    for code in CODES {
        let mut oracle = Oracle::new(code);
        let mut heaps = MisereHeaps::new(&Rule::parse(code).unwrap());
        let all = positions(12);
        assert!(all.len() > 250);
        for p in all {
            let sizes: Vec<usize> = p.iter().map(|&h| h as usize).collect();
            let brute = oracle.g_minus(&(p.clone(), 0, 0));
            let predicted = heaps.g_minus(&sizes).unwrap();
            assert_eq!(predicted, brute, "{code}: g- of {sizes:?}");
            let outcome = heaps.outcome(&sizes).unwrap();
            assert_eq!(
                outcome == Outcome::P,
                brute == 0,
                "{code}: outcome of {sizes:?}"
            );
        }
    }
}

/// Genus theory for tame heaps (ONAG ch. 12: tame games add like misère Nim), which
/// `play --misere` uses when every heap is tame, against explicit positions; and it must
/// apply to a good share of them.
#[test]
fn tame_heaps_add_like_misere_nim() {
    for code in CODES.iter().chain(&["0.333", "0.31", "0.15", "0.7"]) {
        let mut oracle = Oracle::new(code);
        let mut heaps = MisereHeaps::new(&Rule::parse(code).unwrap());
        let mut decided = 0;
        for p in positions(12) {
            let sizes: Vec<usize> = p.iter().map(|&h| h as usize).collect();
            if let Some(outcome) = heaps.tame_outcome(&sizes).unwrap() {
                decided += 1;
                let brute = oracle.g_minus(&(p.clone(), 0, 0));
                assert_eq!(outcome == Outcome::P, brute == 0, "{code}: {sizes:?}");
            }
        }
        assert!(
            decided >= 20,
            "{code}: only {decided} positions of tame heaps"
        );
    }
}

#[test]
fn genus_sequences_match_brute_force() {
    // λk = g⁻(G + k·*2), with the nim heaps played explicitly.
    for code in CODES {
        let mut oracle = Oracle::new(code);
        let mut heaps = MisereHeaps::new(&Rule::parse(code).unwrap());
        for n in 0..=11u8 {
            let genus = heaps.heap_genus(n as usize, true).unwrap().genus();
            for k in 0..=5u8 {
                let pos = (if n == 0 { vec![] } else { vec![n] }, 0, k);
                assert_eq!(
                    genus.lambda(k as usize),
                    oracle.g_minus(&pos),
                    "{code}: heap {n}, λ{k}"
                );
            }
        }
        // And for two-heap positions, through the canonical sum.
        for a in 1..=6usize {
            for b in a..=6usize {
                let g = heaps.position_form(&[a, b]).unwrap();
                let written = heaps.forms().lambdas(g).to_vec();
                for k in 0..=4u8 {
                    let pos = (vec![a as u8, b as u8], 0, k);
                    assert_eq!(
                        nimseq::misere::genus::lambda_at(&written, k as usize),
                        oracle.g_minus(&pos),
                        "{code}: {a}+{b}, λ{k}"
                    );
                }
            }
        }
    }
}

#[test]
fn normal_value_of_canonical_form_is_the_grundy_value() {
    // g⁺ is read off the misère canonical form; it must equal the exact engine's value.
    for code in CODES {
        let rule = Rule::parse(code).unwrap();
        let values = engine::compute(&rule, 25, EngineKind::Exact).unwrap();
        let mut heaps = MisereHeaps::new(&rule);
        for (n, v) in values.iter().enumerate() {
            assert_eq!(
                heaps.heap_genus(n, false).unwrap().g_plus,
                v,
                "{code} heap {n}"
            );
        }
    }
}

#[test]
fn winning_moves_lead_to_p_positions() {
    for code in ["0.77", "4!.0", "0.137"] {
        let mut oracle = Oracle::new(code);
        let mut heaps = MisereHeaps::new(&Rule::parse(code).unwrap());
        for p in positions(9) {
            let sizes: Vec<usize> = p.iter().map(|&h| h as usize).collect();
            let moves = heaps.winning_moves(&sizes).unwrap();
            let brute = oracle.g_minus(&(p.clone(), 0, 0));
            let terminal = p.iter().all(|&h| oracle.heap_moves(h as usize).is_empty());
            if terminal {
                // No move at all: the player to move has already won.
                assert!(moves.is_empty() && brute == 1);
                continue;
            }
            // Otherwise a position is N exactly when it has a winning move.
            assert_eq!(moves.is_empty(), brute == 0, "{code}: {sizes:?}");
            for m in moves {
                let mut next = p.clone();
                next.remove(m.index);
                next.extend(m.leaves.iter().map(|&h| h as u8));
                next.sort_unstable();
                assert_eq!(
                    oracle.g_minus(&(next, 0, 0)),
                    0,
                    "{code}: {sizes:?} -> {m:?}"
                );
            }
        }
    }
}
