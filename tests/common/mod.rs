//! Helpers shared by the integration tests: an independent brute-force oracle over explicit
//! positions, published data files, and running the real binary.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use nimseq::rules::Rule;

/// The value of a position (a multiset of heaps) by plain recursion over moves, never using the
/// Sprague–Grundy theorem: the mex of the values of the positions that moves lead to.
pub struct Oracle {
    rule: Rule,
    memo: HashMap<Vec<u16>, u32>,
}

impl Oracle {
    pub fn new(rule: &Rule) -> Oracle {
        Oracle {
            rule: rule.clone(),
            memo: HashMap::new(),
        }
    }

    /// Every position one move away from `pos` (sorted multisets, zero heaps dropped).
    pub fn moves(&self, pos: &[u16]) -> Vec<Vec<u16>> {
        let mut out = Vec::new();
        for (i, &h) in pos.iter().enumerate() {
            if i > 0 && pos[i - 1] == h {
                continue; // equal heaps give the same moves
            }
            let rest: Vec<u16> = pos
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &x)| x)
                .collect();
            let h = h as usize;
            for k in 0..=h {
                let d = self.rule.digit(k);
                let left = h - k;
                let mut results: Vec<Vec<usize>> = Vec::new();
                if d.takes_all() && k >= 1 && left == 0 {
                    results.push(vec![]);
                }
                if d.leaves_one() && k >= 1 && left >= 1 {
                    results.push(vec![left]);
                }
                if d.leaves_two() {
                    for a in 1..left {
                        let b = left - a;
                        if a <= b && !(d.unequal && a == b) {
                            results.push(vec![a, b]);
                        }
                    }
                }
                if d.leaves_three() {
                    for a in 1..left {
                        for b in a..left {
                            if a + b >= left {
                                break;
                            }
                            let c = left - a - b;
                            if b <= c && !(d.unequal && (a == b || b == c)) {
                                results.push(vec![a, b, c]);
                            }
                        }
                    }
                }
                for r in results {
                    let mut p = rest.clone();
                    p.extend(r.iter().map(|&x| x as u16));
                    p.sort_unstable();
                    out.push(p);
                }
            }
        }
        out
    }

    /// The Grundy value of the position `pos` (any order).
    pub fn value(&mut self, pos: &[u16]) -> u32 {
        let mut key: Vec<u16> = pos.iter().copied().filter(|&h| h > 0).collect();
        key.sort_unstable();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let mut seen = Vec::new();
        for next in self.moves(&key) {
            seen.push(self.value(&next));
        }
        seen.sort_unstable();
        seen.dedup();
        let mex = seen
            .iter()
            .enumerate()
            .find(|&(i, &v)| i as u32 != v)
            .map_or(seen.len(), |(i, _)| i) as u32;
        self.memo.insert(key, mex);
        mex
    }
}

/// A published sequence: A-number, game code, offset, terms, where it came from.
pub struct Published {
    pub id: String,
    pub game: String,
    pub offset: usize,
    pub terms: Vec<u32>,
    pub source: String,
}

pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads a TSV of published sequences (columns: A-number, game, offset, terms[, source]).
pub fn published_sequences(name: &str) -> Vec<Published> {
    let path = data_path(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert!(cols.len() >= 4, "{name}: bad line {l}");
            Published {
                id: cols[0].to_string(),
                game: cols[1].to_string(),
                offset: cols[2].trim().parse().unwrap(),
                terms: cols[3]
                    .split(',')
                    .map(|t| t.trim().parse().unwrap())
                    .collect(),
                source: cols
                    .get(4)
                    .map_or(format!("OEIS {}", cols[0]), |s| s.to_string()),
            }
        })
        .collect()
}

/// Runs the real binary with `args` and optional stdin.
pub fn nimseq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run nimseq")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a usage error: exit code 2, exactly one line on stderr containing `needle`, no panic.
pub fn assert_usage_error(args: &[&str], needle: &str) {
    let o = nimseq(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(err.starts_with("nimseq: "), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// Every command of the binary, in the order of `nimseq --help`.
pub const COMMANDS: &[&str] = &[
    "values",
    "compute",
    "info",
    "export",
    "period",
    "report",
    "survey",
    "survey-merge",
    "play",
    "graph",
    "hackenbush",
    "genus",
    "quotient",
];
