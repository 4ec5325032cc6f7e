//! Misère quotients ([`crate::misere::quotient`]) of a game, heap by heap until certified or
//! a heap limit, for the `quotient` command and Python's `quotient()`.

use std::ops::ControlFlow;

use super::ApiError;
use crate::misere::quotient::{Limits, QuotientError};
use crate::misere::tame::Classified;
use crate::rules::Rule;

/// The largest heap limit accepted by [`quotient`] (the quotient module's, shared by every
/// face).
pub use crate::misere::quotient::limits::MAX_HEAP as QUOTIENT_MAX_HEAP;

/// The default heap limit of [`quotient`].
pub use crate::misere::quotient::limits::DEFAULT_MAX_HEAP as QUOTIENT_DEFAULT_MAX_HEAP;

/// States the verification of one quotient may hold (each a bitset over the quotient).
pub use crate::misere::quotient::limits::DEFAULT_STATES as QUOTIENT_STATE_LIMIT;

/// The misère quotient of `game`, heap by heap until it is certified or heap `max_heap`
/// (default [`QUOTIENT_DEFAULT_MAX_HEAP`]) is done. `progress` is called after each heap with
/// the heap and the order of the quotient; breaking stops the computation (the report says
/// so). The result says whether the quotient is tame ([`crate::misere::tame`]). A computation that cannot go on (a refinement it does not compute, too many states)
/// returns the quotient of the heaps before, with the error.
pub fn quotient(
    game: &str,
    max_heap: Option<u64>,
    progress: impl FnMut(usize, usize) -> ControlFlow<()>,
) -> Result<(Classified, Option<QuotientError>), ApiError> {
    quotient_until(game, max_heap, None, true, progress, &|| false)
}

/// The memory a quotient may hold when no limit is given: half the memory available
/// (`MemAvailable`), or 4 GiB where that cannot be read.
pub fn default_quotient_memory() -> u64 {
    crate::resources::available_memory().map_or(4 << 30, |a| a / 2)
}

/// [`quotient`] holding at most `max_memory` bytes (default [`default_quotient_memory`]):
/// a heap that needs more ends the computation with [`QuotientError::Memory`] and the quotient
/// of the heaps before. `stop` is looked at during each heap (between candidates, and every
/// few hundred states of a verification): when it returns true the computation ends within
/// milliseconds with the heaps done before, and the report says it was interrupted (no error).
/// With `table` false the report leaves the multiplication table out (`"table": null`); it is
/// computed all the same (the tame test reads it), and then dropped instead of moved into the
/// report.
pub fn quotient_until(
    game: &str,
    max_heap: Option<u64>,
    max_memory: Option<u64>,
    table: bool,
    mut progress: impl FnMut(usize, usize) -> ControlFlow<()>,
    stop: &dyn Fn() -> bool,
) -> Result<(Classified, Option<QuotientError>), ApiError> {
    let rule = Rule::parse(game)?;
    let max = max_heap.unwrap_or(QUOTIENT_DEFAULT_MAX_HEAP);
    if max > QUOTIENT_MAX_HEAP {
        return Err(ApiError::QuotientHeapTooLarge {
            max_heap: max,
            limit: QUOTIENT_MAX_HEAP,
        });
    }
    let mut broke = false;
    let memory = max_memory.unwrap_or_else(default_quotient_memory);
    let limits = Limits {
        states: QUOTIENT_STATE_LIMIT,
        memory: usize::try_from(memory).unwrap_or(usize::MAX),
    };
    let (solver, mut err) =
        crate::misere::quotient::compute_until(&rule, max as usize, limits, stop, |n, s| {
            let flow = progress(n, s.monoid().order);
            broke = flow.is_break();
            flow
        });
    // The solver's table moves into the report: no copy of its |Q|² ids.
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
    if !table {
        classified.report.table =
            crate::misere::quotient::ProductTable::left_out(classified.report.order);
    }
    Ok((classified, err))
}
