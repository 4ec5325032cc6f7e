//! Misère quotients ([`crate::misere::quotient`]) of a game, heap by heap until certified or
//! a heap limit, for the `quotient` command and Python's `quotient()`.

use std::ops::ControlFlow;

use super::{ApiError, CandidateLimit};
use crate::misere::quotient::{CandidateLimits, QuotientError, QuotientSolver};
use crate::misere::tame::Classified;
use crate::rules::Rule;

/// The largest heap limit accepted by [`quotient`] (the quotient module's, shared by every
/// face).
pub use crate::misere::quotient::limits::MAX_HEAP as QUOTIENT_MAX_HEAP;

/// The default heap limit of [`quotient`].
pub use crate::misere::quotient::limits::DEFAULT_MAX_HEAP as QUOTIENT_DEFAULT_MAX_HEAP;

/// States the verification of one quotient may hold (each a bitset over the quotient).
pub use crate::misere::quotient::limits::DEFAULT_STATES as QUOTIENT_STATE_LIMIT;

/// How a quotient is computed: the heap limit, memory, threads and candidate limits, each
/// `None` for the default of the `quotient` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotientOptions {
    /// Stop after this heap when the quotient is not certified by then (default
    /// [`QUOTIENT_DEFAULT_MAX_HEAP`], at most [`QUOTIENT_MAX_HEAP`]).
    pub max_heap: Option<u64>,
    /// Bytes held at once (default [`default_quotient_memory`]): a heap that needs more ends
    /// the computation with [`QuotientError::Memory`] and the quotient of the heaps before.
    pub max_memory: Option<u64>,
    /// Keep the multiplication table in the report (false: `"table": null`; it is computed
    /// all the same, as the tame test reads it, and then dropped instead of moved into the
    /// report).
    pub table: bool,
    /// Threads the verifications run on (`None`: every core); the result does not depend on
    /// it.
    pub threads: Option<usize>,
    /// Most elements of a recalibration's candidate before reduction (default
    /// [`CandidateLimits::default`]'s, at most [`QUOTIENT_MAX_CANDIDATE`]).
    pub candidate_size: Option<u64>,
    /// Most elements of a recalibration's candidate after reduction (likewise).
    pub candidate_order: Option<u64>,
    /// Candidates verified after a heap's first failed one before it gives up (likewise; 0:
    /// no recalibration).
    pub recalibrations: Option<u64>,
}

impl Default for QuotientOptions {
    fn default() -> QuotientOptions {
        QuotientOptions {
            max_heap: None,
            max_memory: None,
            table: true,
            threads: None,
            candidate_size: None,
            candidate_order: None,
            recalibrations: None,
        }
    }
}

/// The largest candidate size or order accepted (elements are numbered by 32-bit ids; the
/// memory limit binds long before).
pub const QUOTIENT_MAX_CANDIDATE: u64 = 1 << 31;

/// The most recalibrations accepted at one heap.
pub const QUOTIENT_MAX_RECALIBRATIONS: u64 = 1 << 20;

impl QuotientOptions {
    /// The candidate limits asked for, checked: sizes and orders from 1 to
    /// [`QUOTIENT_MAX_CANDIDATE`], recalibrations up to [`QUOTIENT_MAX_RECALIBRATIONS`].
    pub fn candidate_limits(&self) -> Result<CandidateLimits, ApiError> {
        let d = CandidateLimits::default();
        let check =
            |v: Option<u64>, low: u64, high: u64, what: CandidateLimit, default: usize| match v {
                None => Ok(default),
                Some(v) if (low..=high).contains(&v) => Ok(v as usize),
                Some(value) => Err(ApiError::CandidateLimit {
                    what,
                    value,
                    low,
                    high,
                }),
            };
        Ok(CandidateLimits {
            size: check(
                self.candidate_size,
                1,
                QUOTIENT_MAX_CANDIDATE,
                CandidateLimit::Size,
                d.size,
            )?,
            order: check(
                self.candidate_order,
                1,
                QUOTIENT_MAX_CANDIDATE,
                CandidateLimit::Order,
                d.order,
            )?,
            recalibrations: check(
                self.recalibrations,
                0,
                QUOTIENT_MAX_RECALIBRATIONS,
                CandidateLimit::Recalibrations,
                d.recalibrations,
            )?,
        })
    }
}

/// The misère quotient of `game`, heap by heap until it is certified or heap `max_heap`
/// (default [`QUOTIENT_DEFAULT_MAX_HEAP`]) is done. `progress` is called after each heap with
/// the heap and the order of the quotient; breaking stops the computation (the report says
/// so). The result says whether the quotient is tame ([`crate::misere::tame`]). A computation
/// that cannot go on (a refinement it does not compute, too many states) returns the quotient
/// of the heaps before, with the error. Verifications run on every core.
pub fn quotient(
    game: &str,
    max_heap: Option<u64>,
    progress: impl FnMut(usize, usize) -> ControlFlow<()>,
) -> Result<(Classified, Option<QuotientError>), ApiError> {
    let opts = QuotientOptions {
        max_heap,
        ..QuotientOptions::default()
    };
    quotient_until(game, &opts, progress, &|| false)
}

/// The memory a quotient may hold when no limit is given: half the memory available
/// (`MemAvailable`), or 4 GiB where that cannot be read.
pub fn default_quotient_memory() -> u64 {
    crate::resources::available_memory().map_or(4 << 30, |a| a / 2)
}

/// [`quotient`] as `opts` says ([`QuotientOptions`]). `stop` is looked at during each heap
/// (between candidates, and every few hundred states of a verification): when it returns true
/// the computation ends within milliseconds with the heaps done before, and the report says it
/// was interrupted (no error).
pub fn quotient_until(
    game: &str,
    opts: &QuotientOptions,
    mut progress: impl FnMut(usize, usize) -> ControlFlow<()>,
    stop: &dyn Fn() -> bool,
) -> Result<(Classified, Option<QuotientError>), ApiError> {
    let rule = Rule::parse(game)?;
    let max = opts.max_heap.unwrap_or(QUOTIENT_DEFAULT_MAX_HEAP);
    if max > QUOTIENT_MAX_HEAP {
        return Err(ApiError::QuotientHeapTooLarge {
            max_heap: max,
            limit: QUOTIENT_MAX_HEAP,
        });
    }
    let candidates = opts.candidate_limits()?;
    let executor = super::executor(opts.threads)?;
    let mut broke = false;
    let memory = opts.max_memory.unwrap_or_else(default_quotient_memory);
    let solver = QuotientSolver::new(&rule, QUOTIENT_STATE_LIMIT)
        .with_memory_limit(usize::try_from(memory).unwrap_or(usize::MAX))
        .with_candidate_limits(candidates)
        .with_executor(executor);
    let (solver, mut err) =
        crate::misere::quotient::compute_from(solver, max as usize, stop, |n, s| {
            let flow = progress(n, s.monoid().order);
            broke = flow.is_break();
            flow
        });
    // The solver's table moves into the report as it is (u16 ids up to order 2^16): no copy,
    // no widening, so the peak is what `--max-memory` counted. The tame test below reads it,
    // so it is kept even with `--no-table` until then.
    let mut report = solver.into_report();
    if let Some(QuotientError::Stopped { heap }) = err {
        // Not a failure: the caller asked to stop.
        err = None;
        report.stopped = Some(format!("interrupted during heap {heap}"));
    }
    if !report.certified && report.stopped.is_none() {
        report.stopped = Some(match &err {
            Some(e) => e.to_string(),
            None if broke => format!("interrupted after heap {}", report.last_heap),
            None => format!("heap limit {max} reached"),
        });
    }
    let mut classified = Classified::new(report);
    if !opts.table {
        classified.report.table =
            crate::misere::quotient::ProductTable::left_out(classified.report.order);
    }
    Ok((classified, err))
}
