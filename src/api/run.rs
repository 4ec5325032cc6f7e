//! What every computation in memory shares: the checks of a count and of a thread count, and
//! one run of the engine with a period checker beside it (values grown chunk by chunk, stopping
//! once the octal periodicity theorem proves a period), with the choice of the period to report.

use crate::analysis::{extend_checking, observe_slice, Period, PeriodChecker};
use crate::engine::{AnyEngine, Cell, EngineKind, Executor, Values, CHUNK};
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
    /// The rule, when its heaps cost more than linearly many options each.
    costly: Option<Rule>,
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
            costly: is_costly(rule).then(|| rule.clone()),
            values: Values::default(),
            checker: PeriodChecker::new(rule),
        }
    }

    /// Grows the values to `target` heaps, stopping early once a period is proved; the
    /// progress callback sees every chunk and may stop the run ([`ApiError::Stopped`]). A
    /// rule whose heaps cost more than a linear number of options each (moves that leave three
    /// heaps, tails that split) is grown in steps of about [`STEP_OPTIONS`] options, so that
    /// the callback is called every second or so however slow the heaps are.
    pub fn extend_to(&mut self, target: usize, progress: Progress<'_>) -> Result<(), ApiError> {
        let mut stopped = false;
        loop {
            let len = self.values.len();
            let step = match &self.costly {
                Some(rule) if len < target => {
                    // The most heaps (halving from a chunk) whose last heap's options, times
                    // their number, stay within a step's budget.
                    let moves = rule.moves(target);
                    let mut heaps = CHUNK;
                    while heaps > 16 {
                        let last = crate::position::option_count_bound(&moves, len + heaps);
                        if last.saturating_mul(heaps as u128) <= STEP_OPTIONS {
                            break;
                        }
                        heaps /= 2;
                    }
                    target.min(len + heaps)
                }
                _ => target,
            };
            extend_checking(
                &mut self.engine,
                &mut self.values,
                step,
                &mut self.checker,
                &mut |v| {
                    let flow = progress(Step::Values {
                        values: v,
                        target: target as u64,
                    });
                    stopped |= flow.is_break();
                    flow
                },
            )?;
            let len = self.values.len();
            if len >= target || self.proved().is_some() {
                return Ok(());
            }
            if stopped {
                return Err(ApiError::Stopped { at: len as u64 });
            }
        }
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

/// Options a step of a costly run looks at at most, under a second's work.
pub const STEP_OPTIONS: u128 = 200_000_000;

/// Does a heap of `rule` cost more than linearly many options (moves that leave three heaps:
/// O(n²) a heap, O(N³) in all)? A tail that splits (`0.[7]`) also costs O(n) splits for each of
/// O(n) takes.
pub fn is_costly(rule: &Rule) -> bool {
    let tail_splits = rule
        .tail_digits()
        .iter()
        .any(|d| d.leaves_two() || d.leaves_three());
    rule.is_hexadecimal() || tail_splits
}

/// The options the exact engine looks at to compute heaps `0 .. count` of `rule` (the sparse
/// engine looks at fewer where it can): an estimate of the work before starting, from a sample
/// of heap sizes.
pub fn estimated_options(rule: &Rule, count: u64) -> f64 {
    if count == 0 {
        return 0.0;
    }
    let top = usize::try_from(count - 1).unwrap_or(usize::MAX);
    let moves = rule.moves(top.clamp(1, 1 << 20));
    // The count grows as a polynomial in the heap: 256 samples integrate it closely.
    let samples = 256u64.min(count);
    let step = count as f64 / samples as f64;
    (0..samples)
        .map(|i| {
            let h = ((i as f64 + 0.5) * step) as usize;
            crate::position::option_count_bound(&moves, h) as f64 * step
        })
        .sum()
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
