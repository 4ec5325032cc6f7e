//! Misère play by exhaustive search: exact, but only for positions small enough to explore.
//!
//! Under misère play the player who makes the last move loses, and a sum's outcome does not
//! follow from its heaps' Grundy values (Winning Ways, ch. 13). Until a misère genus / quotient
//! module decides the general case, this module searches the game tree of the position itself:
//! every position is a multiset of heaps, memoized after sorting, with heaps that have no move
//! dropped (they do not change the game tree). The search is iterative (no recursion) and stops
//! with [`MisereError::TooLarge`] when it would visit more than a given number of positions;
//! the answer it gives is therefore always exact.

use std::collections::HashMap;

use thiserror::Error;

use super::{for_each_option, has_option, Outcome, WinningMove};
use crate::rules::{MoveSet, Rule};

/// The default bound on the number of positions a misère search may visit.
pub const DEFAULT_LIMIT: usize = 2_000_000;

/// A position analysed under misère play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MisereAnalysis {
    /// The heaps, as given.
    pub heaps: Vec<usize>,
    /// P when the player to move loses (under misère play), N when they win.
    pub outcome: Outcome,
    /// Every winning move, by heap index then by the heaps left; each listed once.
    pub winning_moves: Vec<WinningMove>,
    /// How many distinct positions the search evaluated.
    pub positions: usize,
}

/// Why the misère outcome was not decided.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MisereError {
    /// The search would visit more positions than allowed.
    #[error(
        "misère play of this position is not decided: an exhaustive search would visit more \
         than {limit} positions, and misère theory (genus, quotients) is not implemented yet; \
         try smaller heaps"
    )]
    TooLarge {
        /// The bound that was reached.
        limit: usize,
    },
    /// A heap is too large to be a search key.
    #[error("heap {0} is too large for an exhaustive misère search")]
    HeapTooLarge(usize),
}

/// An explicit position: heap sizes in increasing order, heaps without moves left out.
type Key = Box<[u32]>;

struct Search<'a> {
    moves: &'a MoveSet,
    alive: Vec<bool>,
    /// The options of each heap size met so far (heaps without moves left out, sorted).
    options: Vec<Option<Vec<Key>>>,
    /// true: the player to move wins (misère).
    memo: HashMap<Key, bool>,
    limit: usize,
    scratch: Vec<u32>,
}

/// A position on the search stack, and the next of its children to look at: option `j` of
/// heap `i`.
struct Frame {
    pos: Key,
    i: usize,
    j: usize,
}

impl Search<'_> {
    fn key(&self, heaps: impl Iterator<Item = usize>) -> Key {
        let mut v: Vec<u32> = heaps.filter(|&h| self.alive[h]).map(|h| h as u32).collect();
        v.sort_unstable();
        v.into_boxed_slice()
    }

    fn ensure_options(&mut self, h: u32) {
        let h = h as usize;
        if self.options[h].is_none() {
            let alive = &self.alive;
            let mut list = Vec::new();
            for_each_option(self.moves, h, |to| {
                let mut v: Vec<u32> = to
                    .iter()
                    .filter(|&&x| alive[x])
                    .map(|&x| x as u32)
                    .collect();
                v.sort_unstable();
                list.push(v.into_boxed_slice());
            });
            self.options[h] = Some(list);
        }
    }

    /// Looks at the children of the top frame in turn. `Some(result)` when the frame is
    /// decided; `None` after pushing an unknown child.
    fn step(&mut self, stack: &mut Vec<Frame>) -> Option<bool> {
        let top = stack.last_mut().expect("stack is never empty here");
        loop {
            let Some(&h) = top.pos.get(top.i) else {
                // Every child is a win for the player who moves next: this is a loss. (A
                // position without heaps has no move and, under misère play, is a win.)
                return Some(top.pos.is_empty());
            };
            if top.i > 0 && top.pos[top.i - 1] == h {
                top.i += 1; // equal heaps give the same children
                continue;
            }
            self.ensure_options(h);
            let opts = self.options[h as usize].as_ref().expect("just filled");
            let Some(to) = opts.get(top.j) else {
                top.i += 1;
                top.j = 0;
                continue;
            };
            let s = &mut self.scratch;
            s.clear();
            s.extend_from_slice(&top.pos[..top.i]);
            s.extend_from_slice(&top.pos[top.i + 1..]);
            s.extend_from_slice(to);
            s.sort_unstable();
            match self.memo.get(&s[..]) {
                Some(false) => return Some(true),
                Some(true) => top.j += 1,
                None => {
                    let pos = s.clone().into_boxed_slice();
                    stack.push(Frame { pos, i: 0, j: 0 });
                    return None;
                }
            }
        }
    }

    /// Does the player to move from `root` win under misère play?
    fn wins(&mut self, root: Key) -> Result<bool, MisereError> {
        if let Some(&w) = self.memo.get(&root) {
            return Ok(w);
        }
        let mut stack = vec![Frame {
            pos: root,
            i: 0,
            j: 0,
        }];
        loop {
            if let Some(w) = self.step(&mut stack) {
                let frame = stack.pop().expect("non-empty");
                if self.memo.len() >= self.limit {
                    return Err(MisereError::TooLarge { limit: self.limit });
                }
                self.memo.insert(frame.pos, w);
                if stack.is_empty() {
                    return Ok(w);
                }
            }
        }
    }
}

/// Decides the sum of `heaps` of `rule` under misère play by exhaustive search, visiting at
/// most `limit` distinct positions.
pub fn analyze(rule: &Rule, heaps: &[usize], limit: usize) -> Result<MisereAnalysis, MisereError> {
    let max = heaps.iter().copied().max().unwrap_or(0);
    if max > u32::MAX as usize {
        return Err(MisereError::HeapTooLarge(max));
    }
    // Bound the work before allocating anything proportional to the heaps.
    if max > limit {
        return Err(MisereError::TooLarge { limit });
    }
    let moves = rule.moves(max);
    let alive = (0..=max).map(|h| has_option(&moves, h)).collect();
    let mut search = Search {
        moves: &moves,
        alive,
        options: vec![None; max + 1],
        memo: HashMap::new(),
        limit,
        scratch: Vec::new(),
    };
    let root = search.key(heaps.iter().copied());
    let outcome = if search.wins(root)? {
        Outcome::N
    } else {
        Outcome::P
    };
    let mut winning_moves = Vec::new();
    if outcome == Outcome::N {
        for (i, &h) in heaps.iter().enumerate() {
            let mut options = Vec::new();
            for_each_option(&moves, h, |to| options.push(to.to_vec()));
            for to in options {
                let rest = heaps[..i].iter().chain(&heaps[i + 1..]).copied();
                let key = search.key(rest.chain(to.iter().copied()));
                if !search.wins(key)? {
                    winning_moves.push(WinningMove {
                        heap_index: i,
                        from: h,
                        to,
                    });
                }
            }
        }
        winning_moves.sort_unstable();
        winning_moves.dedup();
    }
    Ok(MisereAnalysis {
        heaps: heaps.to_vec(),
        outcome,
        winning_moves,
        positions: search.memo.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(code: &str, heaps: &[usize]) -> Outcome {
        analyze(&Rule::parse(code).unwrap(), heaps, DEFAULT_LIMIT)
            .unwrap()
            .outcome
    }

    /// Misère Nim (Bouton 1902): when every heap is 0 or 1, the player to move wins iff the
    /// number of 1s is even; otherwise iff the nim-sum is non-zero.
    #[test]
    fn misere_nim_rule() {
        let mut heaps = vec![0usize; 4];
        for code in 0..6usize.pow(4) {
            let mut c = code;
            for h in heaps.iter_mut() {
                *h = c % 6;
                c /= 6;
            }
            let nim_sum = heaps.iter().fold(0, |s, &h| s ^ h);
            let big = heaps.iter().any(|&h| h > 1);
            let ones = heaps.iter().filter(|&&h| h == 1).count();
            let wins = if big { nim_sum != 0 } else { ones % 2 == 0 };
            let expected = if wins { Outcome::N } else { Outcome::P };
            assert_eq!(outcome("nim", &heaps), expected, "{heaps:?}");
        }
    }

    #[test]
    fn limit_is_reported() {
        let e = analyze(&Rule::parse("0.77").unwrap(), &[30, 30, 30], 1000).unwrap_err();
        assert_eq!(e, MisereError::TooLarge { limit: 1000 });
    }
}
