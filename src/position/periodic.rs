//! Winning moves in heaps of any size, for a game whose values are periodic from a proved
//! period on: the work per heap depends on the preperiod and the period, not on the heap.
//!
//! A heap of `h` tokens has O(h) two-heap splits `a + (r − a)` (`r = h − k` after taking `k`).
//! With `G(x) = G(x − p)` for `x ≥ n0 + p`, the value `G(a) ⊕ G(r − a)` of a split with both
//! parts at least `n0` depends only on `a mod p` (the other part's residue is `r − a mod p`).
//! So the splits of one take fall into: those with a part below `n0` (at most `2·n0`, looked at
//! one by one), and `p` residue classes of `a`, each an arithmetic progression whose every
//! member has the value of its first. A winning class counts all its members and lists them in
//! increasing `a` as far as asked. Three-heap splits do not occur: the theorem that proves the
//! period does not cover codes that leave three heaps.

use crate::analysis::Period;
use crate::engine::GrundyValues;
use crate::rules::{MoveSet, Rule};

use super::{Analysis, Outcome, PositionError, WinningMove};

/// The splits of one take found winning: the first ones asked for, in increasing `a`, and how
/// many in all.
struct Found {
    listed: Vec<[usize; 2]>,
    count: u64,
}

/// The splits `a + (r − a)`, `1 ≤ a ≤ r/2` (`a ≠ r − a` when `unequal`), whose value is
/// `target`: all counted, the first `room` listed in increasing `a`.
fn splits(
    values: &impl GrundyValues,
    period: &Period,
    r: usize,
    unequal: bool,
    target: u32,
    room: usize,
) -> Found {
    let (n0, p) = (period.preperiod as usize, period.period as usize);
    let top = r / 2;
    let ok = |a: usize| !(unequal && 2 * a == r);
    let wins = |a: usize| ok(a) && values.get(a) ^ values.get(r - a) == target;
    let mut found = Found {
        listed: Vec::new(),
        count: 0,
    };
    let one = |a: usize, found: &mut Found| {
        if wins(a) {
            found.count += 1;
            if found.listed.len() < room {
                found.listed.push([a, r - a]);
            }
        }
    };
    // The middle, where both parts are at least n0: a in [mid_lo, mid_hi].
    let mid_lo = n0.max(1);
    let mid_hi = top.min(r.saturating_sub(n0));
    // Below it, one by one.
    for a in 1..mid_lo.min(top + 1) {
        one(a, &mut found);
    }
    if mid_lo <= mid_hi {
        // The classes a ≡ mid_lo + j (mod p) whose first member wins (ignoring the one equal
        // split, which `ok` and the count below leave out).
        let first = |j: usize| values.get(mid_lo + j) ^ values.get(r - mid_lo - j) == target;
        let classes: Vec<usize> = (0..p.min(mid_hi - mid_lo + 1))
            .filter(|&j| first(j))
            .collect();
        for &j in &classes {
            let a = mid_lo + j;
            let members = (mid_hi - a) / p + 1;
            let half_excluded = unequal
                && r.is_multiple_of(2)
                && (a..=mid_hi).contains(&(r / 2))
                && (r / 2 - a).is_multiple_of(p);
            found.count += members as u64 - u64::from(half_excluded);
        }
        // Listed round by round (a in [mid_lo + t·p, mid_lo + (t + 1)·p)), in increasing a.
        let mut t = 0usize;
        'rounds: while found.listed.len() < room && !classes.is_empty() {
            for &j in &classes {
                let a = mid_lo + t * p + j;
                if a > mid_hi {
                    break 'rounds;
                }
                if ok(a) {
                    found.listed.push([a, r - a]);
                    if found.listed.len() == room {
                        break 'rounds;
                    }
                }
            }
            t += 1;
        }
    }
    // Above it (the part r − a below n0), one by one.
    for a in mid_lo.max(mid_hi + 1)..=top {
        one(a, &mut found);
    }
    found
}

/// The analysis of [`super::analyze_listing`] for heaps of any size, with `values` the values of
/// every heap (periodic from `period`, a proved ordinary period, on): the same values, nim-sum,
/// outcome, winning-move count and first `max_moves` moves, in time independent of the heaps'
/// sizes (about `n0 + p + max_moves` per heap and kind of move).
pub fn analyze_periodic(
    rule: &Rule,
    heaps: &[usize],
    values: &impl GrundyValues,
    period: &Period,
    max_moves: usize,
) -> Result<Analysis, PositionError> {
    assert!(
        period.proved && period.shift == 0,
        "a proved ordinary period"
    );
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
        // The move lists of a finite code do not depend on the heap beyond its last digit.
        let moves: MoveSet = rule.moves(max.min(rule.last_nonzero().unwrap_or(0) + 2));
        let mut sizes_seen = std::collections::HashSet::new();
        for (i, (&h, &g)) in heaps.iter().zip(&heap_values).enumerate() {
            if !sizes_seen.insert(h) {
                continue;
            }
            let target = nim_sum ^ g;
            let room = max_moves.saturating_sub(winning_moves.len());
            let mut mine: Vec<Vec<usize>> = Vec::new();
            let mut count = 0u64;
            if h > 0 {
                if moves.take_all.binary_search(&h).is_ok() && target == 0 {
                    count += 1;
                    mine.push(Vec::new());
                }
                for &k in &moves.leave_one {
                    if k >= h {
                        break;
                    }
                    if values.get(h - k) == target {
                        count += 1;
                        mine.push(vec![h - k]);
                    }
                }
                for s in &moves.leave_two {
                    if s.take + 2 > h {
                        break;
                    }
                    let f = splits(values, period, h - s.take, s.unequal, target, room);
                    count += f.count;
                    mine.extend(f.listed.into_iter().map(|x| x.to_vec()));
                }
            }
            mine.sort_unstable();
            mine.dedup();
            winning_move_count += count;
            winning_moves.extend(mine.into_iter().take(room).map(|to| WinningMove {
                heap_index: i,
                from: h,
                to,
            }));
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
    use crate::analysis::{PeriodChecker, PeriodicValues};
    use crate::engine::{compute, EngineKind};

    /// Against the listing of every option, on heaps well past the preperiod: Kayles (period 12
    /// from 71), Dawson's chess 0.137 (34 from 52), Dawson's Kayles 0.07, 0.3 and 0.51 (short
    /// periods from heap 0 or 1); Officers has no period within 3000 heaps and is skipped.
    #[test]
    fn same_as_every_option() {
        for code in ["0.77", "0.137", "0.07", "0.3", "0.51", "0.6"] {
            let rule = Rule::parse(code).unwrap();
            let full = compute(&rule, 3000, EngineKind::Exact).unwrap();
            let mut checker = PeriodChecker::new(&rule);
            let Some(period) = checker.settle(&full).cloned() else {
                continue; // no period within 3000 heaps (Officers): nothing to compare
            };
            // Only the values the proof needed; the rest from the period.
            let n = (period.theorem_bound.unwrap() as usize).min(3000);
            let prefix = compute(&rule, n, EngineKind::Exact).unwrap();
            let periodic = PeriodicValues::new(&prefix, &period, 3000);
            let mut seed = 0x9e37_79b9_u64;
            for _ in 0..30 {
                let mut heaps = Vec::new();
                for _ in 0..3 {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    heaps.push((seed >> 33) as usize % 3000);
                }
                for max_moves in [usize::MAX, 3] {
                    let want =
                        super::super::analyze_listing(&rule, &heaps, &full, max_moves).unwrap();
                    let got =
                        analyze_periodic(&rule, &heaps, &periodic, &period, max_moves).unwrap();
                    assert_eq!(got, want, "{code} {heaps:?} {max_moves}");
                }
            }
        }
    }

    #[test]
    fn heaps_of_a_trillion_take_no_time() {
        // Kayles: period 12 from heap 71 (Guy & Smith 1956; OEIS A002186).
        let rule = Rule::parse("kayles").unwrap();
        let full = compute(&rule, 400, EngineKind::Exact).unwrap();
        let period = PeriodChecker::new(&rule).settle(&full).cloned().unwrap();
        let values = PeriodicValues::new(&full, &period, 1 << 62);
        let mut most = 0;
        for h in 1_000_000_000_000usize..1_000_000_000_012 {
            // One heap: its winning moves leave two heaps of equal value.
            let a = analyze_periodic(&rule, &[h], &values, &period, 4).unwrap();
            assert_eq!(a.nim_sum, values.get(h));
            assert_eq!(a.winning_moves.len() as u64, a.winning_move_count.min(4));
            for m in &a.winning_moves {
                // Every move listed wins: the heaps left have the value the nim-sum asks for.
                let left = m.to.iter().fold(0, |x, &t| x ^ values.get(t));
                assert_eq!(left, a.nim_sum ^ values.get(m.from), "{m:?}");
            }
            most = most.max(a.winning_move_count);
        }
        // Splits into two heaps of equal value: a fixed share of the 10^12 / 2 splits.
        assert!(most > 10_000_000_000, "{most}");
    }
}
