//! Misère quotients ([`crate::misere::quotient`]) of a game, heap by heap until certified or
//! a heap limit, for the `quotient` command and Python's `quotient()`.

use std::ops::ControlFlow;

use super::ApiError;
use crate::misere::quotient::QuotientError;
use crate::misere::tame::Classified;
use crate::rules::Rule;

/// The largest heap limit accepted by [`quotient`].
pub const QUOTIENT_MAX_HEAP: u64 = 1_000_000;

/// The default heap limit of [`quotient`].
pub const QUOTIENT_DEFAULT_MAX_HEAP: u64 = 1000;

/// States the verification of one quotient may hold (each a bitset over the quotient).
pub const QUOTIENT_STATE_LIMIT: usize = 20_000_000;

/// The misère quotient of `game`, heap by heap until it is certified or heap `max_heap`
/// (default [`QUOTIENT_DEFAULT_MAX_HEAP`]) is done. `progress` is called after each heap with
/// the heap and the order of the quotient; breaking stops the computation (the report says
/// so). The result says whether the quotient is tame ([`crate::misere::tame`]). A computation that cannot go on (a refinement it does not compute, too many states)
/// returns the quotient of the heaps before, with the error.
pub fn quotient(
    game: &str,
    max_heap: Option<u64>,
    mut progress: impl FnMut(usize, usize) -> ControlFlow<()>,
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
    let (solver, err) =
        crate::misere::quotient::compute(&rule, max as usize, QUOTIENT_STATE_LIMIT, |n, s| {
            let flow = progress(n, s.monoid().order);
            broke = flow.is_break();
            flow
        });
    let mut report = solver.report();
    if !report.certified {
        report.stopped = Some(match &err {
            Some(e) => e.to_string(),
            None if broke => format!("interrupted after heap {}", report.last_heap),
            None => format!("heap limit {max} reached"),
        });
    }
    Ok((Classified::new(report), err))
}
