//! `period`: compute until the octal periodicity theorem proves a period, or a limit is reached,
//! in memory or in a table; the one search the binary and the Python package both run.
//!
//! For a game the theorem covers, the run first goes to [`default_period_max`] values (2^24 for
//! a finite code; stopping as soon as a period is proved); if nothing is proved by then but a
//! candidate period fills at least two full periods, it goes on to the number of values that
//! candidate's proof needs, and again while the best candidate keeps its period (an exception
//! only moved its preperiod), up to what the machine holds: a quarter of the available memory in
//! bytes (values take one to four bytes, and widening keeps two copies for a moment), or in a
//! table half the free disk space. When no candidate's proof is within reach, a game the theorem
//! covers is searched on, the values doubled each time, to the same limit (or until the
//! progress callback stops it: in memory, the report can then give the best candidate so far).
//! An explicit `max` is a cap: compute up to `max` values, no further. Games the theorem does
//! not cover stop at [`default_period_max`].

use std::cell::Cell;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use crate::analysis::{theorem_t, Period, PeriodChecker, PeriodReport, StopAtPeriod};
use crate::engine::{AnyEngine, EngineKind, Executor, Fill, Overflow};
use crate::resources::{available_memory, free_space};
use crate::rules::Rule;
use crate::table::{self, Checkpoints, Table, TableError};

use super::run::{checked_count, reported_period, with_slice, CheckedRun};
use super::table_run::{check_disk, table_failed};
use super::{ApiError, CountOf, Progress, Step};

/// How a period search runs.
#[derive(Debug, Clone)]
pub struct PeriodOptions<'a> {
    /// The most values to compute (`None`: the limits of the module text).
    pub max: Option<u64>,
    /// The engine.
    pub kind: EngineKind,
    /// The threads it runs on.
    pub exec: Executor,
    /// Keep the values in this table (created or resumed) instead of memory.
    pub table: Option<&'a Path>,
    /// With a table: the longest time between two commits.
    pub checkpoint: Duration,
    /// In memory: when the progress callback stops the search, report what the values computed
    /// so far show (the best candidate) with [`PeriodReport::stopped`] set, instead of failing
    /// with [`ApiError::Stopped`]. (A table run always fails so: it resumes later.)
    pub report_when_stopped: bool,
}

impl PeriodOptions<'_> {
    /// In memory, with the auto engine on `exec`, no explicit cap.
    pub fn new(exec: Executor) -> PeriodOptions<'static> {
        PeriodOptions {
            max: None,
            kind: EngineKind::Auto,
            exec,
            table: None,
            checkpoint: Checkpoints::default().interval,
            report_when_stopped: false,
        }
    }
}

/// The first target of a search when no `max` is given: 2^24 values; 2^16 for a repeating tail
/// that does not split (O(N²)); 2^11 for hexadecimal codes and tails that split (O(N³)).
pub fn default_period_max(rule: &Rule) -> u64 {
    let tail_splits = rule
        .tail_digits()
        .iter()
        .any(|d| d.leaves_two() || d.leaves_three());
    if rule.is_hexadecimal() || tail_splits {
        1 << 11
    } else if !rule.is_finite() {
        1 << 16
    } else {
        1 << 24
    }
}

/// What `nimseq period GAME [--max N] [--table PATH] --json` reports: proved when the theorem
/// covers the rule and the limits allow it; otherwise the candidate closest to a proof, or the
/// pattern observed. With a table, a proved period is recorded in it (and read from it by a
/// later search instead of computing). The progress callback may stop the search
/// ([`ApiError::Stopped`]; a table keeps what it committed).
pub fn period(
    rule: &Rule,
    opts: &PeriodOptions<'_>,
    progress: Progress<'_>,
) -> Result<PeriodReport, ApiError> {
    if opts.max == Some(0) {
        return Err(ApiError::ZeroCount(CountOf::Max));
    }
    match opts.table {
        Some(path) => period_table(rule, opts, path, progress),
        None => period_in_memory(rule, opts, progress),
    }
}

/// Where a search goes: its first target, the most it may reach, and whether it may go past the
/// first target to prove a candidate.
struct Limits {
    first: u64,
    most: u64,
    extend: bool,
}

impl Limits {
    /// `machine`: the heaps the memory or the disk holds.
    fn new(max: Option<u64>, rule: &Rule, machine: u64) -> Limits {
        match max {
            Some(max) => Limits {
                first: max,
                most: max,
                extend: false,
            },
            None => Limits {
                first: default_period_max(rule).min(machine),
                most: machine,
                extend: theorem_t(rule).is_some(),
            },
        }
    }

    /// The next target after a run to `len` values proved nothing: the values the best
    /// candidate's proof needs, when that is within the limits and the candidate keeps the
    /// period of the one before (`previous`); otherwise twice the values, up to the most the
    /// machine holds (a game the theorem covers is searched until a proof, a stop, or the
    /// machine's limit).
    fn next(&self, len: u64, best: Option<&Period>, previous: &mut Option<u64>) -> Option<u64> {
        if !self.extend || len >= self.most {
            return None;
        }
        if let Some(c) = best {
            let stable = previous.is_none_or(|p| p == c.period);
            *previous = Some(c.period);
            match c.theorem_bound {
                Some(need) if stable && need > len && need <= self.most => return Some(need),
                _ => {}
            }
        }
        Some(len.saturating_mul(2).min(self.most))
    }
}

/// Heaps the memory holds: a quarter of the available bytes (2^30 when unknown).
fn memory_heaps() -> u64 {
    available_memory().map_or(1 << 30, |b| b / 4).max(1)
}

/// The search in memory.
fn period_in_memory(
    rule: &Rule,
    opts: &PeriodOptions<'_>,
    progress: Progress<'_>,
) -> Result<PeriodReport, ApiError> {
    let limits = Limits::new(opts.max, rule, memory_heaps());
    let mut target = checked_count(CountOf::Max, limits.first)?;
    let mut run = CheckedRun::new(rule, opts.kind, &opts.exec);
    let mut previous = None;
    let mut stopped = None;
    loop {
        match run.extend_to(target, progress) {
            Ok(()) => {}
            Err(ApiError::Stopped { at }) if opts.report_when_stopped => {
                stopped = Some(at);
                break;
            }
            Err(e) => return Err(e),
        }
        if run.proved().is_some() {
            break;
        }
        let best = run.checker.best_candidate(&run.values);
        match limits.next(run.values.len() as u64, best.as_ref(), &mut previous) {
            Some(next) => target = next as usize,
            None => break,
        }
    }
    let found = crate::with_values!(&run.values, v => reported_period(&run.checker, v));
    let mut report = PeriodReport::new(
        &rule.code(),
        run.values.len() as u64,
        theorem_t(rule),
        found,
    );
    report.stopped = stopped.is_some();
    Ok(report)
}

/// An engine that raises `proved` once the period checker of [`StopAtPeriod`] has proved a
/// period, so that the table run stops after that chunk.
struct Watch<'a, E> {
    inner: StopAtPeriod<E>,
    proved: &'a Cell<bool>,
}

impl<E: Fill> Fill for Watch<'_, E> {
    fn fill<T: crate::engine::Cell>(
        &mut self,
        vals: &mut [T],
        start: usize,
        end: usize,
    ) -> Result<(), Overflow> {
        let r = self.inner.fill(vals, start, end);
        if self.inner.proved().is_some() {
            self.proved.set(true);
        }
        r
    }
}

/// The search in a table, resumed from what it holds; a proved period is recorded in it.
fn period_table(
    rule: &Rule,
    opts: &PeriodOptions<'_>,
    path: &Path,
    progress: Progress<'_>,
) -> Result<PeriodReport, ApiError> {
    let t_index = theorem_t(rule);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let disk = free_space(dir).map_or(1 << 34, |b| b / 2);
    // Refused before the table is created, so that a refusal leaves no empty table behind.
    check_disk(path, Limits::new(opts.max, rule, disk.max(1)).first)?;
    let mut t = Table::open(path, &rule.code())?;
    if let Some(p) = t.period().filter(|p| p.proved).cloned() {
        // Proved by an earlier run: nothing to compute.
        return Ok(PeriodReport::new(&rule.code(), t.len(), t_index, Some(p)));
    }
    let limits = Limits::new(opts.max, rule, t.len().saturating_add(disk).max(1));
    let proved = Cell::new(false);
    let mut engine = Watch {
        inner: StopAtPeriod::new(
            AnyEngine::with_executor(rule, opts.kind, opts.exec.clone()),
            rule,
        ),
        proved: &proved,
    };
    let mut target = limits.first;
    let mut previous = None;
    let mut checker = PeriodChecker::new(rule);
    let mut found: Option<Period> = None;
    loop {
        if t.len() < target {
            t.forget_observed_period();
        }
        let r = table::extend(
            &mut t,
            &mut engine,
            target,
            &Checkpoints {
                interval: opts.checkpoint,
            },
            &mut |p| {
                if proved.get() {
                    ControlFlow::Break(())
                } else {
                    progress(Step::Table(p))
                }
            },
        );
        match r {
            Ok(()) => {}
            Err(TableError::Stopped { .. }) if proved.get() => {}
            Err(e) => return Err(table_failed(e, &t)),
        }
        if let Some(p) = engine.inner.proved() {
            found = Some(p.clone());
            break;
        }
        // Nothing proved on the way (or the table already held the values): the verdict on
        // everything the table holds, then perhaps a further target.
        checker = PeriodChecker::new(rule);
        if let Some(p) = with_slice!(t.values(), v => checker.settle_slice(v).cloned()) {
            found = Some(p);
            break;
        }
        let best = with_slice!(t.values(), v => checker.best_candidate_slice(v));
        match limits.next(t.len(), best.as_ref(), &mut previous) {
            Some(next) => target = next,
            None => break,
        }
    }
    let count = t.len();
    let period = match found {
        Some(p) => {
            let p = p.seen_in(count);
            t.record_period(Some(p.clone()))
                .map_err(|e| table_failed(e, &t))?;
            Some(p)
        }
        None => with_slice!(t.values(), v => reported_period(&checker, v)),
    };
    // A run stopped at its proof is committed but not in the canonical layout yet.
    t.finish().map_err(|e| table_failed(e, &t))?;
    Ok(PeriodReport::new(&rule.code(), count, t_index, period))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(n0: u64, p: u64, need: u64) -> Period {
        Period {
            preperiod: n0,
            period: p,
            last_exception: n0.checked_sub(1),
            shift: 0,
            proved: false,
            periods_seen: 2,
            theorem_bound: Some(need),
        }
    }

    #[test]
    fn with_no_max_a_covered_game_is_searched_on_to_the_machines_limit() {
        let officers = Rule::parse("0.6").unwrap();
        let l = Limits::new(None, &officers, 1 << 30);
        assert_eq!(l.first, 1 << 24);
        let mut previous = None;
        // No candidate at 2^24 (issue 29, defect 2: the search used to stop there): twice.
        assert_eq!(l.next(1 << 24, None, &mut previous), Some(1 << 25));
        // A candidate whose proof is within reach: exactly the values it needs.
        let c = candidate(10_000_000, 1180, 20_126_195);
        assert_eq!(l.next(1 << 24, Some(&c), &mut previous), Some(20_126_195));
        // A candidate that changed its period: twice again.
        let d = candidate(30_000_000, 7, 60_000_017);
        assert_eq!(
            l.next(20_126_195, Some(&d), &mut previous),
            Some(40_252_390)
        );
        // Never past the machine's limit, and not on from it.
        assert_eq!(l.next(1 << 29 | 1, None, &mut previous), Some(1 << 30));
        assert_eq!(l.next(1 << 30, None, &mut previous), None);
        // An explicit max is a cap; games the theorem does not cover stop at their first target.
        assert_eq!(
            Limits::new(Some(1000), &officers, 1 << 30).next(1000, None, &mut None),
            None
        );
        let grundy = Rule::parse("4!.0").unwrap();
        let g = Limits::new(None, &grundy, 1 << 30);
        assert_eq!(g.next(g.first, None, &mut None), None);
    }
}
