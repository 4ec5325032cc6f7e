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
    /// true: the player to move wins (misère).
    memo: HashMap<Key, bool>,
    limit: usize,
}

impl Search<'_> {
    fn key(&self, heaps: impl Iterator<Item = usize>) -> Key {
        let mut v: Vec<u32> = heaps.filter(|&h| self.alive[h]).map(|h| h as u32).collect();
        v.sort_unstable();
        v.into_boxed_slice()
    }

    /// The positions reachable in one move from `pos`.
    fn children(&self, pos: &[u32]) -> Vec<Key> {
        let mut out = Vec::new();
        for (i, &h) in pos.iter().enumerate() {
            if i > 0 && pos[i - 1] == h {
                continue; // equal heaps give the same positions
            }
            for_each_option(self.moves, h as usize, |to| {
                let rest = pos[..i].iter().chain(&pos[i + 1..]).map(|&x| x as usize);
                out.push(self.key(rest.chain(to.iter().copied())));
            });
        }
        out
    }

    /// Does the player to move from `root` win under misère play?
    fn wins(&mut self, root: Key) -> Result<bool, MisereError> {
        if let Some(&w) = self.memo.get(&root) {
            return Ok(w);
        }
        struct Frame {
            pos: Key,
            children: Vec<Key>,
            next: usize,
        }
        let children = self.children(&root);
        let mut stack = vec![Frame {
            pos: root,
            children,
            next: 0,
        }];
        loop {
            let top = stack.last_mut().expect("stack is never empty here");
            // Misère: a player with no move has won (the opponent moved last).
            let mut result = if top.children.is_empty() {
                Some(true)
            } else {
                None
            };
            while result.is_none() && top.next < top.children.len() {
                match self.memo.get(&top.children[top.next]) {
                    Some(false) => result = Some(true),
                    Some(true) => top.next += 1,
                    None => break,
                }
            }
            if result.is_none() && top.next == top.children.len() {
                result = Some(false);
            }
            match result {
                Some(w) => {
                    let frame = stack.pop().expect("non-empty");
                    if self.memo.len() >= self.limit {
                        return Err(MisereError::TooLarge { limit: self.limit });
                    }
                    self.memo.insert(frame.pos, w);
                    if stack.is_empty() {
                        return Ok(w);
                    }
                }
                None => {
                    let pos = top.children[top.next].clone();
                    let children = self.children(&pos);
                    stack.push(Frame {
                        pos,
                        children,
                        next: 0,
                    });
                }
            }
        }
    }
}

/// Decides the sum of `heaps` of `rule` under misère play by exhaustive search, visiting at
/// most `limit` distinct positions.
pub fn analyze(
    rule: &Rule,
    heaps: &[usize],
    limit: usize,
) -> Result<MisereAnalysis, MisereError> {
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
        memo: HashMap::new(),
        limit,
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
