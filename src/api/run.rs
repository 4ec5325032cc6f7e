//! What every computation in memory shares: the checks of a count and of a thread count, and
//! one run of the engine with a period checker beside it (values grown chunk by chunk, stopping
//! once the octal periodicity theorem proves a period), with the choice of the period to report.

use crate::analysis::{extend_checking, observe_slice, Period, PeriodChecker};
use crate::engine::{AnyEngine, Cell, EngineKind, Executor, Values};
use crate::resources::{check_memory, MemoryError};
use crate::rules::Rule;
use crate::table::ValueSlice;

use super::{ApiError, CountOf, Progress, Step, ThreadsError};

/// The most worker threads a computation accepts.
pub const MAX_THREADS: usize = 1024;

/// A thread count as given (`None`: every core), checked.
pub fn check_threads(threads: Option<usize>) -> Result<Option<usize>, ThreadsError> {
    match threads {
        Some(0) => Err(ThreadsError::Zero),
        Some(t) if t > MAX_THREADS => Err(ThreadsError::TooMany(t)),
        t => Ok(t),
    }
}

/// The executor for a thread count (`None`: every core), checked by [`check_threads`].
pub fn executor(threads: Option<usize>) -> Result<Executor, ApiError> {
    let t = check_threads(threads)?;
    Ok(Executor::new(t.unwrap_or(0))?)
}

/// A count of heaps whose values can be held in memory (one byte each at least).
pub fn checked_count(of: CountOf, count: u64) -> Result<usize, ApiError> {
    if count == 0 {
        return Err(ApiError::ZeroCount(of));
    }
    let n = usize::try_from(count).map_err(|_| ApiError::TooLarge { of, count })?;
    check_memory(&format!("{count} values"), count, "")
        .map_err(|source: MemoryError| ApiError::Memory { of, count, source })?;
    Ok(n)
}

/// Values computed in memory by one engine, with the period checker that watches them: every
/// in-memory computation (values, summary, report, period, play) is one of these.
pub struct CheckedRun {
    engine: AnyEngine,
    /// The values so far.
    pub values: Values,
    /// The checker, which has seen every value.
    pub checker: PeriodChecker,
}

impl CheckedRun {
    /// A run of `rule` on `exec`, with no value yet.
    pub fn new(rule: &Rule, kind: EngineKind, exec: &Executor) -> CheckedRun {
        CheckedRun {
            engine: AnyEngine::with_executor(rule, kind, exec.clone()),
            values: Values::default(),
            checker: PeriodChecker::new(rule),
        }
    }

    /// Grows the values to `target` heaps, stopping early once a period is proved; the
    /// progress callback sees every chunk and may stop the run ([`ApiError::Stopped`]).
    pub fn extend_to(&mut self, target: usize, progress: Progress<'_>) -> Result<(), ApiError> {
        extend_checking(
            &mut self.engine,
            &mut self.values,
            target,
            &mut self.checker,
            &mut |v| {
                progress(Step::Values {
                    values: v,
                    target: target as u64,
                })
            },
        )?;
        Ok(())
    }

    /// Heaps `0 .. count` computed in a new run.
    pub fn to(
        rule: &Rule,
        count: usize,
        kind: EngineKind,
        exec: &Executor,
        progress: Progress<'_>,
    ) -> Result<CheckedRun, ApiError> {
        let mut run = CheckedRun::new(rule, kind, exec);
        run.extend_to(count, progress)?;
        Ok(run)
    }

    /// The period proved, if any.
    pub fn proved(&self) -> Option<&Period> {
        self.checker.proved()
    }
}

/// The period a summary reports for values `v` watched by `checker`: the proved period, else
/// the pattern observed (at least three full periods covering a quarter of the values).
pub fn summary_period<T: Cell>(checker: &PeriodChecker, v: &[T]) -> Option<Period> {
    checker.proved().cloned().or_else(|| observe_slice(v))
}

/// The period `period` reports for values `v` watched by `checker`: the proved period, else the
/// candidate closest to a proof (a game the theorem covers), else the pattern observed.
pub fn reported_period<T: Cell>(checker: &PeriodChecker, v: &[T]) -> Option<Period> {
    checker
        .proved()
        .cloned()
        .or_else(|| checker.best_candidate_slice(v))
        .or_else(|| observe_slice(v))
}

/// `f` applied to the slice inside a [`ValueSlice`], whatever its width.
macro_rules! with_slice {
    ($values:expr, $v:ident => $body:expr) => {
        match $values {
            $crate::table::ValueSlice::W8($v) => $body,
            $crate::table::ValueSlice::W16($v) => $body,
            $crate::table::ValueSlice::W32($v) => $body,
        }
    };
}
pub(crate) use with_slice;

/// The period of a checked prefix of values in any storage: a fresh checker's verdict on `v`
/// (settled at its length), then the pattern observed.
pub fn period_of_slice(rule: &Rule, v: ValueSlice<'_>) -> Option<Period> {
    let mut checker = PeriodChecker::new(rule);
    with_slice!(v, v => {
        checker.settle_slice(v);
        summary_period(&checker, v)
    })
}
