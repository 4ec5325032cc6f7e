//! `play`: a sum of heaps of one game in normal play — values, nim-sum, outcome and the winning
//! moves — with the values computed (completed from a proved period for heaps beyond the memory)
//! or read from a table.

use std::path::Path;

use crate::analysis::PeriodicValues;
use crate::engine::{EngineKind, Executor, GrundyValues};
use crate::position::{self, Analysis};
use crate::rules::Rule;

use super::run::{checked_count, CheckedRun};
use super::values::checked_table;
use super::{ApiError, CountOf, Progress};

/// Values computed for a proof of the period when the heaps of a position are too large to hold
/// in memory.
const PROOF_VALUES: u64 = 1 << 21;

/// Listing winning moves looks at every option of every heap; beyond this many it is refused.
pub const MAX_OPTIONS: u128 = 1_000_000_000;

/// The heaps as sizes this machine can address, and the largest; at least one heap.
fn heap_sizes(heaps: &[u64]) -> Result<(Vec<usize>, usize), ApiError> {
    let heaps: Vec<usize> = heaps
        .iter()
        .map(|&h| {
            usize::try_from(h).map_err(|_| ApiError::TooLarge {
                of: CountOf::Heap(h),
                count: h,
            })
        })
        .collect::<Result<_, _>>()?;
    let max = *heaps.iter().max().ok_or(ApiError::NoHeaps)?;
    Ok((heaps, max))
}

/// The normal-play analysis of the sum of `heaps` that `nimseq play GAME HEAP... --json` prints:
/// values (from the engine, or from a proved period for heaps beyond the memory), nim-sum,
/// outcome and the first `max_moves` winning moves (all counted).
pub fn play(
    rule: &Rule,
    heaps: &[u64],
    kind: EngineKind,
    exec: &Executor,
    max_moves: usize,
    progress: Progress<'_>,
) -> Result<Analysis, ApiError> {
    let (heaps, max) = heap_sizes(heaps)?;
    let count = max.checked_add(1).ok_or(ApiError::TooLarge {
        of: CountOf::Heap(max as u64),
        count: max as u64,
    })?;
    let mut run = CheckedRun::new(rule, kind, exec);
    let fits = checked_count(CountOf::Heap(max as u64), count as u64);
    let limit = match &fits {
        Ok(count) => *count,
        Err(_) if run.checker.theorem_applies() => PROOF_VALUES.min(count as u64) as usize,
        Err(_) => return Err(fits.unwrap_err()),
    };
    run.extend_to(limit, progress)?;
    if let Some(p) = run.proved() {
        let values = PeriodicValues::new(&run.values, p, count);
        return analyze_with_period(rule, &heaps, &values, p, max_moves);
    }
    if run.values.len() >= count {
        return analyze(rule, &heaps, &run.values, max_moves);
    }
    // Too large for the memory, and no period proved within the values computed.
    Err(fits.err().unwrap_or(ApiError::TooLarge {
        of: CountOf::Heap(max as u64),
        count: count as u64,
    }))
}

/// [`play`] with the values read from the table at `path`, which must hold `rule` and every heap
/// up to the largest one, or record a proved period that gives them; the checksums of the values
/// read are verified first.
pub fn play_from_table(
    rule: &Rule,
    heaps: &[u64],
    path: &Path,
    max_moves: usize,
) -> Result<Analysis, ApiError> {
    let (heaps, max) = heap_sizes(heaps)?;
    let values = checked_table(rule, path, max as u64 + 1)?;
    match values
        .table
        .period()
        .filter(|p| p.proved && p.shift == 0)
        .cloned()
    {
        Some(p) => analyze_with_period(rule, &heaps, &values, &p, max_moves),
        None => analyze(rule, &heaps, &values, max_moves),
    }
}

/// Winning moves listed by default at most; a position with more is refused unless the caller
/// asks for the first ones only.
pub const MAX_LISTED: u64 = 1_000_000;

/// The analysis when a proved period gives the values: moves counted and listed in time
/// independent of the heaps' sizes ([`position::analyze_periodic`]).
fn analyze_with_period(
    rule: &Rule,
    heaps: &[usize],
    values: &impl GrundyValues,
    period: &crate::analysis::Period,
    max_moves: usize,
) -> Result<Analysis, ApiError> {
    if max_moves > MAX_LISTED as usize {
        let counted = position::analyze_periodic(rule, heaps, values, period, 0)?;
        if counted.winning_move_count > MAX_LISTED {
            return Err(ApiError::TooManyMoves {
                count: counted.winning_move_count,
                limit: MAX_LISTED,
            });
        }
    }
    Ok(position::analyze_periodic(
        rule, heaps, values, period, max_moves,
    )?)
}

/// The analysis, refused when listing the winning moves would look at more than
/// [`MAX_OPTIONS`] options.
fn analyze(
    rule: &Rule,
    heaps: &[usize],
    values: &impl GrundyValues,
    max_moves: usize,
) -> Result<Analysis, ApiError> {
    let nim_sum = heaps.iter().fold(0, |s, &h| s ^ values.get(h));
    if nim_sum != 0 {
        let max = heaps.iter().copied().max().unwrap_or(0);
        let moves = rule.moves(max);
        let options: u128 = heaps
            .iter()
            .map(|&h| position::option_count_bound(&moves, h))
            .sum();
        if options > MAX_OPTIONS {
            return Err(ApiError::TooManyOptions {
                values: heaps.iter().map(|&h| values.get(h)).collect(),
                nim_sum,
                options,
                limit: MAX_OPTIONS,
            });
        }
    }
    Ok(position::analyze_listing(rule, heaps, values, max_moves)?)
}
