//! Positions of a heap game: finite sums of heaps of one game, under normal and misère play.
//!
//! In normal play a position's value is the nim-sum (XOR) of its heaps' Grundy values
//! (Sprague–Grundy); the player to move loses exactly when it is 0. [`analyze`] takes the heap
//! values from an engine and lists every winning move: the moves on one heap that leave a
//! position of nim-sum 0, found by enumerating the heap's options with [`for_each_option`],
//! each resulting position once (moves in equal heaps are listed for the first of them).
//! Misère play (the last player to move loses) is not decided by the Grundy values; [`misere`]
//! decides it by an exhaustive, exact search over explicit positions, within a size limit.

pub mod misere;
mod periodic;

pub use periodic::analyze_periodic;

use thiserror::Error;

use crate::engine::GrundyValues;
use crate::rules::{MoveSet, Rule};

/// Who wins with perfect play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player to move loses (a previous-player win).
    P,
    /// The player to move wins (a next-player win).
    N,
}

impl Outcome {
    /// `"P"` or `"N"`.
    pub fn letter(self) -> &'static str {
        match self {
            Outcome::P => "P",
            Outcome::N => "N",
        }
    }
}

/// A move that wins: on heap `heap_index` (its position in the given list), from a heap of
/// `from` tokens, leaving the heaps `to` (non-empty heaps, in increasing order; empty when the
/// heap is taken away).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WinningMove {
    /// Index of the heap in the position as given.
    pub heap_index: usize,
    /// Size of that heap.
    pub from: usize,
    /// The heaps the move leaves in its place, smallest first.
    pub to: Vec<usize>,
}

/// A position analysed under normal play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The heaps, as given.
    pub heaps: Vec<usize>,
    /// The Grundy value of each heap.
    pub values: Vec<u32>,
    /// XOR of the values: the Grundy value of the position.
    pub nim_sum: u32,
    /// P when the nim-sum is 0, otherwise N.
    pub outcome: Outcome,
    /// The winning moves, by heap index then by the heaps left; each resulting position listed
    /// once (a move in a heap equal to an earlier one is listed for the earlier one only). All
    /// of them, or the first ones when the analysis was asked to list fewer.
    pub winning_moves: Vec<WinningMove>,
    /// How many winning moves there are, listed or not.
    pub winning_move_count: u64,
}

/// Why a position cannot be analysed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PositionError {
    /// The values given do not reach a heap of the position.
    #[error("heap {heap} needs the value of heap {heap}, but only heaps below {known} are known")]
    ValuesTooShort {
        /// The heap.
        heap: usize,
        /// How many values were given.
        known: usize,
    },
}

pub use crate::rules::for_each_option;

/// How many options [`for_each_option`] produces for a heap of `h` tokens, at most (an exact
/// count except for `!` splits, which are counted as if equal parts were allowed).
pub fn option_count_bound(moves: &MoveSet, h: usize) -> u128 {
    if h == 0 {
        return 0;
    }
    let h = h as u128;
    let mut n = moves.take_all.len() as u128 + moves.leave_one.len() as u128;
    for s in &moves.leave_two {
        n += h.saturating_sub(s.take as u128) / 2;
    }
    for s in &moves.leave_three {
        let r = h.saturating_sub(s.take as u128);
        n += r * r / 12 + r;
    }
    n
}

/// Does a heap of `h` tokens have any move?
pub fn has_option(moves: &MoveSet, h: usize) -> bool {
    if h == 0 {
        return false;
    }
    moves.take_all.binary_search(&h).is_ok()
        || moves.leave_one.first().is_some_and(|&k| k < h)
        || moves
            .leave_two
            .iter()
            .any(|s| s.take + 2 <= h && !(s.unequal && h - s.take == 2))
        || moves.leave_three.iter().any(|s| {
            s.take + 3 <= h && !(s.unequal && h - s.take < 6) // 1+2+3 is the least unequal split
        })
}

/// Analyses the sum of `heaps` of `rule` under normal play, with `values` holding the Grundy
/// values of every heap up to the largest one (in memory or in a table).
pub fn analyze(
    rule: &Rule,
    heaps: &[usize],
    values: &impl GrundyValues,
) -> Result<Analysis, PositionError> {
    analyze_listing(rule, heaps, values, usize::MAX)
}

/// [`analyze`], keeping only the first `max_moves` winning moves (all are counted): a sum of
/// thousands of large heaps can have millions.
pub fn analyze_listing(
    rule: &Rule,
    heaps: &[usize],
    values: &impl GrundyValues,
    max_moves: usize,
) -> Result<Analysis, PositionError> {
    let max = heaps.iter().copied().max().unwrap_or(0);
    if max >= values.len() {
        return Err(PositionError::ValuesTooShort {
            heap: max,
            known: values.len(),
        });
    }
    let heap_values: Vec<u32> = heaps.iter().map(|&h| values.get(h)).collect();
    let nim_sum = heap_values.iter().fold(0, |s, &v| s ^ v);
    let outcome = if nim_sum == 0 { Outcome::P } else { Outcome::N };
    let mut winning_moves = Vec::new();
    let mut winning_move_count = 0u64;
    if outcome == Outcome::N {
        let moves = rule.moves(max);
        let mut sizes_seen = std::collections::HashSet::new();
        for (i, (&h, &g)) in heaps.iter().zip(&heap_values).enumerate() {
            if !sizes_seen.insert(h) {
                continue; // the same resulting positions as from the earlier equal heap
            }
            let target = nim_sum ^ g;
            let mut mine = Vec::new();
            for_each_option(&moves, h, |to| {
                let v = to.iter().fold(0, |s, &x| s ^ values.get(x));
                if v == target {
                    mine.push(WinningMove {
                        heap_index: i,
                        from: h,
                        to: to.to_vec(),
                    });
                }
            });
            // Each option is produced once already; sorting and deduplicating keeps that promise
            // independent of the enumeration.
            mine.sort_unstable();
            mine.dedup();
            winning_move_count += mine.len() as u64;
            let room = max_moves.saturating_sub(winning_moves.len());
            winning_moves.extend(mine.into_iter().take(room));
        }
    }
    Ok(Analysis {
        heaps: heaps.to_vec(),
        values: heap_values,
        nim_sum,
        outcome,
        winning_moves,
        winning_move_count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{compute, EngineKind};

    fn options(code: &str, h: usize) -> Vec<Vec<usize>> {
        let rule = Rule::parse(code).unwrap();
        let mut out = Vec::new();
        for_each_option(&rule.moves(h), h, |o| out.push(o.to_vec()));
        out
    }

    #[test]
    fn options_by_hand() {
        // Kayles: take 1 or 2 pins, from the end or the middle.
        let mut k = options("0.77", 4);
        k.sort();
        assert_eq!(
            k,
            vec![vec![1, 1], vec![1, 2], vec![2], vec![3]],
            "Kayles heap of 4"
        );
        assert_eq!(options("0.77", 2), vec![vec![], vec![1]]);
        // Grundy's game: unequal splits only.
        assert_eq!(options("4!.0", 6), vec![vec![1, 5], vec![2, 4]]);
        assert!(options("4!.0", 2).is_empty());
        // Hexadecimal 0.8: take one token, leave three heaps.
        assert_eq!(options("0.8", 5), vec![vec![1, 1, 2]]);
        assert_eq!(options("0.8!", 7), vec![vec![1, 2, 3]]);
    }

    /// The options enumerated here give, by the mex rule, the values of the exact engine.
    #[test]
    fn options_give_engine_values() {
        for code in [
            "0.77", "0.137", "4!.0", "0.6", "0.8", "0.[3]", "0.8!", "4.[3]",
        ] {
            let rule = Rule::parse(code).unwrap();
            let n = 40;
            let values = compute(&rule, n, EngineKind::Exact).unwrap();
            let moves = rule.moves(n - 1);
            for h in 0..n {
                let mut seen = crate::mex::MexSet::new();
                let mut any = false;
                for_each_option(&moves, h, |o| {
                    any = true;
                    seen.insert(o.iter().fold(0, |s, &x| s ^ values.get(x)));
                });
                assert_eq!(seen.mex(), values.get(h), "{code} heap {h}");
                assert_eq!(any, has_option(&moves, h), "{code} heap {h}");
            }
        }
    }

    #[test]
    fn nim_position() {
        let rule = Rule::parse("nim").unwrap();
        let values = compute(&rule, 8, EngineKind::Exact).unwrap();
        let a = analyze(&rule, &[3, 4, 5], &values).unwrap();
        assert_eq!(a.nim_sum, 2);
        assert_eq!(a.outcome, Outcome::N);
        // Only the 3 can be reduced: to 1.
        assert_eq!(
            a.winning_moves,
            vec![WinningMove {
                heap_index: 0,
                from: 3,
                to: vec![1]
            }]
        );
        assert_eq!(a.winning_move_count, 1);
        let p = analyze(&rule, &[1, 2, 3], &values).unwrap();
        assert_eq!(p.outcome, Outcome::P);
        assert!(p.winning_moves.is_empty());
        assert!(analyze(&rule, &[8], &values).is_err());
    }

    /// Listing fewer moves keeps the first ones of the full list and still counts them all.
    #[test]
    fn listing_fewer_moves() {
        let rule = Rule::parse("kayles").unwrap();
        let values = compute(&rule, 60, EngineKind::Exact).unwrap();
        let heaps = [40, 13, 40, 59, 7];
        let all = analyze(&rule, &heaps, &values).unwrap();
        assert!(all.winning_moves.len() > 3, "{:?}", all.winning_moves);
        assert_eq!(all.winning_move_count, all.winning_moves.len() as u64);
        for max in [0, 1, 3, all.winning_moves.len(), usize::MAX] {
            let some = analyze_listing(&rule, &heaps, &values, max).unwrap();
            let n = max.min(all.winning_moves.len());
            assert_eq!(some.winning_moves, all.winning_moves[..n], "{max}");
            assert_eq!(some.winning_move_count, all.winning_move_count, "{max}");
        }
    }
}
