//! `report`: what a report folder shows — the summary, the profile of every value (first and
//! last heaps, rare heaps) and the values themselves — from values computed in memory (completed
//! from a proved period) or read from a table. Writing the files is the report module's.

use std::path::Path;

use crate::analysis::{observe_slice, periodic_value, Period, Profile, Stats, Summary};
use crate::engine::{EngineKind, Executor};
use crate::report::RARE_LISTED;
use crate::rules::Rule;

use super::run::{checked_count, with_slice, CheckedRun};
use super::summary::summary_of_run;
use super::values::{checked_table, TableValues};
use super::{ApiError, CountOf, Progress};

/// Where the values of a report come from.
enum Source {
    /// Computed in memory, with the proved period that gives the rest.
    Computed(CheckedRun, Option<Period>),
    /// Read from a table.
    Table(TableValues),
}

/// Everything a report folder shows about heaps `0 .. summary.count`.
pub struct ReportData {
    /// The summary (as `compute --json`).
    pub summary: Summary,
    /// First and last heap of every value, and the first rare heaps.
    pub profile: Profile,
    /// Heaps computed or read; the others follow from the proved period.
    pub computed: u64,
    source: Source,
}

impl ReportData {
    /// G(n), for `n < summary.count`.
    pub fn get(&self, n: u64) -> u32 {
        match &self.source {
            Source::Computed(run, Some(p)) => periodic_value(&run.values, p, n),
            Source::Computed(run, None) => run.values.get(n as usize),
            Source::Table(t) => t.get(n),
        }
    }

    fn with_profile(mut self) -> ReportData {
        let mask = u32::from_str_radix(&self.summary.rare_mask, 16).unwrap_or(0);
        self.profile = Profile::of(self.summary.count, |n| self.get(n), mask, RARE_LISTED);
        self
    }
}

/// The report of heaps `0 .. count` computed in memory (stopping at a proved period).
pub fn report(
    rule: &Rule,
    count: u64,
    kind: EngineKind,
    exec: &Executor,
    progress: Progress<'_>,
) -> Result<ReportData, ApiError> {
    let n = checked_count(CountOf::Heaps, count)?;
    let run = CheckedRun::to(rule, n, kind, exec, progress)?;
    let summary = summary_of_run(rule, &run, count);
    let period = run.proved().cloned();
    Ok(ReportData {
        summary,
        profile: Profile::default(),
        computed: run.values.len() as u64,
        source: Source::Computed(run, period),
    }
    .with_profile())
}

/// The report of heaps `0 .. count` read from the table at `path`, which must hold them (their
/// checksums are verified): the statistics come from the table's metadata when `count` is all
/// of it, the period from the table (a proved one recorded by `compute --table` or `period
/// --table`) or, failing that, from the values.
pub fn report_from_table(rule: &Rule, path: &Path, count: u64) -> Result<ReportData, ApiError> {
    let t = checked_table(rule, path, count)?;
    let held = t.table.len();
    if count > held {
        return Err(ApiError::TableTooShort {
            path: path.to_path_buf(),
            game: rule.code(),
            held,
            wanted: count,
        });
    }
    let vals = t.table.values()?;
    let n = count as usize;
    let period = match t.table.period() {
        Some(p) if p.proved => Some(p.clone()),
        _ => with_slice!(vals, v => observe_slice(&v[..n])),
    }
    .map(|p| p.seen_in(count));
    let summary = if count == held {
        let mut s = t.table.summary();
        s.period = period;
        s
    } else {
        let stats = with_slice!(vals, v => Stats::of_slice(&v[..n]));
        Summary::from_stats(&rule.code(), &stats, period)
    };
    Ok(ReportData {
        summary,
        profile: Profile::default(),
        computed: count,
        source: Source::Table(t),
    }
    .with_profile())
}
