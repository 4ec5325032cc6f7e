//! The summary of `compute`: statistics of heaps `0 .. N` and their period, from values computed
//! in memory (extended from a proved period) or read from a table.

use crate::analysis::{extended_stats, Stats, Summary};
use crate::engine::{EngineKind, Executor};
use crate::rules::Rule;
use crate::table::ValueSlice;

use super::run::{checked_count, period_of_slice, summary_period, with_slice, CheckedRun};
use super::{ApiError, CountOf, Progress};

/// The summary `nimseq compute GAME -n N --json` prints (values in memory): statistics of heaps
/// `0 .. count`, with the proved period or, failing that, the pattern observed.
pub fn summary(
    rule: &Rule,
    count: u64,
    kind: EngineKind,
    exec: &Executor,
    progress: Progress<'_>,
) -> Result<Summary, ApiError> {
    let n = checked_count(CountOf::Heaps, count)?;
    let run = CheckedRun::to(rule, n, kind, exec, progress)?;
    Ok(summary_of_run(rule, &run, count))
}

/// The summary of heaps `0 .. count` of a run that computed them, or fewer when it proved a
/// period (the statistics of the rest follow from it).
pub fn summary_of_run(rule: &Rule, run: &CheckedRun, count: u64) -> Summary {
    match run.proved() {
        Some(p) => Summary::from_stats(
            &rule.code(),
            &extended_stats(&run.values, p, count),
            Some(p.clone().seen_in(count)),
        ),
        None => {
            let mut s = Summary::of_values(&rule.code(), &run.values);
            s.period = crate::with_values!(&run.values, v => summary_period(&run.checker, v))
                .map(|p| p.seen_in(count));
            s
        }
    }
}

/// The summary of heaps `0 .. count` of `values` (a table's): statistics, and the period proved
/// (or seen) among them.
pub fn summary_of_prefix(rule: &Rule, values: ValueSlice<'_>, count: u64) -> Summary {
    let upto = count as usize;
    let prefix = match values {
        ValueSlice::W8(v) => ValueSlice::W8(&v[..upto]),
        ValueSlice::W16(v) => ValueSlice::W16(&v[..upto]),
        ValueSlice::W32(v) => ValueSlice::W32(&v[..upto]),
    };
    let stats = with_slice!(prefix, v => Stats::of_slice(v));
    let period = period_of_slice(rule, prefix).map(|p| p.seen_in(count));
    Summary::from_stats(&rule.code(), &stats, period)
}
