//! Whole computations as the commands run them, for callers other than the command line (the
//! Python package in `python/`): the values of a game with the period that completes them, the
//! summary of `compute`, a table created or extended as by `compute --table`, the search of
//! `period`, and the analysis of `play`.
//!
//! Each function checks its input the way the command does and fails with an [`ApiError`] whose
//! message is the command's one-line message; [`ApiError::is_input`] tells a mistake in the input
//! (the command's exit code 2) from a failure while running. Long computations call a progress
//! callback between chunks of heaps with a [`Step`] (enough to draw the command's bar); when it
//! breaks they stop cleanly with [`ApiError::Stopped`] (a table keeps everything committed).
//! Nothing here prints.
//!
//! The commands `compute` (in memory and `--table`), `values` and `play` (values computed) call
//! these functions too, so the binary and the Python package run the same steps; `period` still
//! runs its own search (it extends its run toward a proof and writes `--table`), and
//! `python/tests` checks that both give the same JSON.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use thiserror::Error;

use crate::analysis::{
    extend_checking, extended_stats, observe, observe_slice, theorem_t, Period, PeriodChecker,
    PeriodReport, PeriodicValues, Stats, StopAtPeriod, Summary,
};
use crate::engine::{
    AnyEngine, Cell, EngineError, EngineKind, Executor, ExecutorError, GrundyValues, Values,
};
use crate::position::{self, Analysis, PositionError};
use crate::resources::{check_memory, filesystem_size, human_bytes, MemoryError};
use crate::rules::{Rule, RuleError};
use crate::table::{self, Checkpoints, Table, TableError, TableReader, ValueSlice};

/// Why a computation was refused or did not finish.
#[derive(Debug, Error)]
pub enum ApiError {
    /// The game code does not parse.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// Another mistake in the input: a count of 0, a heap too large, a disk too small.
    #[error("{0}")]
    Input(String),
    /// The values would not fit in memory.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The thread pool could not be made.
    #[error(transparent)]
    Executor(#[from] ExecutorError),
    /// The engine failed (a value beyond 31 bits, memory).
    #[error(transparent)]
    Engine(EngineError),
    /// A table cannot be opened, read or written.
    #[error(transparent)]
    Table(TableError),
    /// Writing a table failed; what it holds is committed and a new run resumes from `at`.
    #[error("{source}; the table {} and resumes from heap {at}", held(*.at))]
    TableFailed {
        /// The failure.
        source: TableError,
        /// Heaps committed.
        at: u64,
    },
    /// The position cannot be analysed.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// The progress callback asked to stop; for a table, heaps `0 .. at` are committed.
    #[error("stopped at heap {at}")]
    Stopped {
        /// Heaps computed (or, for a table, committed).
        at: u64,
    },
}

fn held(at: u64) -> String {
    match at {
        0 => "holds no heap yet".to_string(),
        at => format!("holds heaps 0 .. {}", at - 1),
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> ApiError {
        match e {
            EngineError::Stopped { at } => ApiError::Stopped { at: at as u64 },
            e => ApiError::Engine(e),
        }
    }
}

impl From<TableError> for ApiError {
    fn from(e: TableError) -> ApiError {
        match e {
            TableError::Stopped { at } => ApiError::Stopped { at },
            e => ApiError::Table(e),
        }
    }
}

impl ApiError {
    /// Is this a mistake in the input (what the command line reports with exit code 2): a bad
    /// game code or count, a table of another game, a file that is not a table, a missing path?
    pub fn is_input(&self) -> bool {
        match self {
            ApiError::Rule(_) | ApiError::Input(_) | ApiError::Memory(_) => true,
            ApiError::Table(e) => table_error_is_input(e),
            _ => false,
        }
    }
}

/// Is this table error a mistake in the input (exit code 2 on the command line)?
pub fn table_error_is_input(e: &TableError) -> bool {
    match e {
        TableError::OtherGame { .. } | TableError::NotATable { .. } => true,
        TableError::Io { source, .. } => {
            source.kind() == std::io::ErrorKind::NotFound
                || matches!(source.raw_os_error(), Some(libc::EISDIR | libc::ENOTDIR))
        }
        _ => false,
    }
}

/// How far a computation has come, as the progress callback sees it between chunks of heaps.
#[derive(Clone, Copy)]
pub enum Step<'a> {
    /// Values computed in memory: those so far, toward `target` heaps.
    Values {
        /// The values computed so far (the driver may go back after widening them).
        values: &'a Values,
        /// Heaps asked for in this run.
        target: u64,
    },
    /// A table being written: heaps done and committed, with the histogram of the values.
    Table(&'a table::Progress<'a>),
}

impl Step<'_> {
    /// Heaps computed so far.
    pub fn done(&self) -> u64 {
        match self {
            Step::Values { values, .. } => values.len() as u64,
            Step::Table(p) => p.done,
        }
    }

    /// Heaps asked for.
    pub fn target(&self) -> u64 {
        match self {
            Step::Values { target, .. } => *target,
            Step::Table(p) => p.target,
        }
    }
}

/// The progress callback of the functions here, called between chunks of heaps; breaking stops
/// the run with [`ApiError::Stopped`].
pub type Progress<'a> = &'a mut dyn FnMut(Step<'_>) -> ControlFlow<()>;

/// The advice after an N too large for the memory, when the values must be in memory.
pub const NO_TABLE_HINT: &str = "; give a smaller N ('nimseq compute --table PATH' and \
     'nimseq period --table PATH' keep the values on disk)";

/// A count of heaps whose values can be held in memory, checked as the command checks `N`
/// (`name` is how messages call it: `N`, `--max`); `hint` (starting with "; ") follows a count
/// too large for the memory.
pub fn checked_count(name: &str, count: u64, hint: &str) -> Result<usize, ApiError> {
    if count == 0 {
        return Err(ApiError::Input(format!("{name} must be at least 1")));
    }
    let what = if name.starts_with("--") {
        format!("{name} {count}")
    } else {
        format!("{name} = {count}")
    };
    let n = usize::try_from(count)
        .map_err(|_| ApiError::Input(format!("{what} is too large for this machine")))?;
    check_memory(&what, count, hint)?;
    Ok(n)
}

/// Heaps `0 .. count` computed in memory on `exec`, stopping once the period checker proves a
/// period; returns the values and the checker.
fn run_checking(
    rule: &Rule,
    count: usize,
    kind: EngineKind,
    exec: &Executor,
    progress: Progress<'_>,
) -> Result<(Values, PeriodChecker), ApiError> {
    let mut checker = PeriodChecker::new(rule);
    let mut values = Values::default();
    extend_checking(
        &mut AnyEngine::with_executor(rule, kind, exec.clone()),
        &mut values,
        count,
        &mut checker,
        &mut |v| {
            progress(Step::Values {
                values: v,
                target: count as u64,
            })
        },
    )?;
    Ok((values, checker))
}

/// G(0) … G(count − 1) in memory, in the narrowest width, and the period proved on the way (the
/// engine stops once the octal periodicity theorem proves one; the rest follows from it), as
/// `nimseq values` computes them.
pub fn values(
    rule: &Rule,
    count: u64,
    kind: EngineKind,
    exec: &Executor,
    progress: Progress<'_>,
) -> Result<(Values, Option<Period>), ApiError> {
    let count = checked_count("N", count, NO_TABLE_HINT)?;
    let (mut values, checker) = run_checking(rule, count, kind, exec, progress)?;
    let period = checker.proved().cloned();
    if let Some(p) = &period {
        // A proved period is ordinary (no shift): every later value is an earlier one.
        let p = p.period as usize;
        crate::with_values!(&mut values, v => {
            v.reserve(count - v.len());
            for n in v.len()..count {
                let g = v[n - p];
                v.push(g);
            }
        });
    }
    Ok((values, period))
}

/// The summary `nimseq compute GAME -n N --json` prints (values in memory): statistics of heaps
/// `0 .. count`, with the proved period or, failing that, the pattern observed.
pub fn summary(
    rule: &Rule,
    count: u64,
    kind: EngineKind,
    exec: &Executor,
    progress: Progress<'_>,
) -> Result<Summary, ApiError> {
    let count = checked_count(
        "N",
        count,
        "; keep the values on disk with --table PATH, or give a smaller N",
    )?;
    let (values, checker) = run_checking(rule, count, kind, exec, progress)?;
    Ok(match checker.proved() {
        Some(p) => Summary::from_stats(
            &rule.code(),
            &extended_stats(&values, p, count as u64),
            Some(p.clone().seen_in(count as u64)),
        ),
        None => {
            let mut s = Summary::of_values(&rule.code(), &values);
            s.period = observe(&values);
            s
        }
    })
}

/// Creates or extends the table at `path` to `count` heaps of `rule`, as
/// `nimseq compute GAME -n N --table PATH` does (committing at least every `checkpoint`;
/// resumable after any stop), and returns the summary that command prints.
pub fn compute_table(
    rule: &Rule,
    count: u64,
    path: &Path,
    kind: EngineKind,
    exec: &Executor,
    checkpoint: Duration,
    progress: Progress<'_>,
) -> Result<Summary, ApiError> {
    if count == 0 {
        return Err(ApiError::Input("N must be at least 1".to_string()));
    }
    if let Some(summary) = prefix_of_table(rule, count, path)? {
        return Ok(summary);
    }
    check_disk(path, count)?;
    let mut t = Table::open(path, &rule.code())?;
    if t.len() < count {
        t.forget_observed_period();
    }
    let mut engine = StopAtPeriod::new(AnyEngine::with_executor(rule, kind, exec.clone()), rule);
    if let Err(e) = table::extend(
        &mut t,
        &mut engine,
        count,
        &Checkpoints {
            interval: checkpoint,
        },
        &mut |p| progress(Step::Table(p)),
    ) {
        return Err(table_failed(e, &t));
    }
    if count < t.len() {
        // The table holds more heaps than asked for (read here only after a widening that a
        // stop interrupted): the summary of the prefix.
        return Ok(summary_of_prefix(rule, t.values(), count));
    }
    let period = match engine.proved() {
        Some(p) => Some(p.clone()),
        None => match t.values() {
            ValueSlice::W8(v) => period_of(rule, v),
            ValueSlice::W16(v) => period_of(rule, v),
            ValueSlice::W32(v) => period_of(rule, v),
        },
    }
    .map(|p| p.seen_in(t.len()));
    t.record_period(period).map_err(|e| table_failed(e, &t))?;
    Ok(t.summary())
}

/// The summary of heaps `0 .. count` of the table at `path` when it holds more of `rule`'s
/// values than that: read under a shared lock, the checksums of those heaps verified, nothing
/// written (opening it to write would verify every checksum of the file: minutes for a table of
/// 2^34 heaps). `None` when there is no such table (the caller computes, or reports why not).
fn prefix_of_table(rule: &Rule, count: u64, path: &Path) -> Result<Option<Summary>, ApiError> {
    let Ok(t) = TableReader::open(path) else {
        return Ok(None);
    };
    if t.game() != rule.code() || t.len() <= count || t.widening() {
        return Ok(None);
    }
    t.lock_shared()?;
    t.verify_range(0, count)?;
    Ok(Some(summary_of_prefix(rule, t.values()?, count)))
}

/// The summary of heaps `0 .. count` of `values`: statistics, and the period proved (or seen)
/// among them.
fn summary_of_prefix(rule: &Rule, values: ValueSlice<'_>, count: u64) -> Summary {
    let upto = count as usize;
    let (stats, period) = match values {
        ValueSlice::W8(v) => (Stats::of_slice(&v[..upto]), period_of(rule, &v[..upto])),
        ValueSlice::W16(v) => (Stats::of_slice(&v[..upto]), period_of(rule, &v[..upto])),
        ValueSlice::W32(v) => (Stats::of_slice(&v[..upto]), period_of(rule, &v[..upto])),
    };
    let period = period.map(|p| p.seen_in(count));
    Summary::from_stats(&rule.code(), &stats, period)
}

/// A failure while writing the table `t`: one that leaves it resumable (a write, a value too
/// large for its width) says what it holds and where it resumes.
pub fn table_failed(e: TableError, t: &Table) -> ApiError {
    match e {
        e @ (TableError::Io { .. } | TableError::ValueTooLarge { .. }) => ApiError::TableFailed {
            source: e,
            at: t.committed(),
        },
        e => e.into(),
    }
}

/// The proved period of `values` (the octal periodicity theorem), else the pattern observed.
fn period_of<T: Cell>(rule: &Rule, values: &[T]) -> Option<Period> {
    let mut checker = PeriodChecker::new(rule);
    checker
        .update_slice(values)
        .cloned()
        .or_else(|| observe_slice(values))
}

/// Refuses an N whose table cannot fit on the file system that would hold it, even at one byte
/// per heap. (A disk that is merely full fails later, cleanly, and the table resumes elsewhere.)
pub fn check_disk(path: &Path, count: u64) -> Result<(), ApiError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let needed = count.saturating_add(table::VALUES_OFFSET);
    match filesystem_size(dir) {
        Some(size) if needed > size => Err(ApiError::Input(format!(
            "N = {count} needs a table of at least {} (one byte per heap) but the file system \
             of {} holds {} in all; give a smaller N or a path on a larger disk",
            human_bytes(needed),
            path.display(),
            human_bytes(size)
        ))),
        _ => Ok(()),
    }
}

/// `period --max` when it is not given: 2^24 values; 2^16 for a repeating tail that does not
/// split (O(N²)); 2^11 for hexadecimal codes and tails that split (O(N³)).
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

/// What `nimseq period GAME [--max N] --json` reports, and the values computed: proved when the
/// theorem covers the rule and `max` values (default [`default_period_max`]) allow it;
/// otherwise the candidate closest to a proof, or the pattern observed.
pub fn period(
    rule: &Rule,
    max: Option<u64>,
    kind: EngineKind,
    progress: Progress<'_>,
) -> Result<(Values, PeriodReport), ApiError> {
    let max = checked_count(
        "--max",
        max.unwrap_or_else(|| default_period_max(rule)),
        "; give a smaller --max",
    )?;
    let mut values = Values::default();
    let mut checker = PeriodChecker::new(rule);
    let mut engine = AnyEngine::new(rule, kind);
    extend_checking(&mut engine, &mut values, max, &mut checker, &mut |v| {
        progress(Step::Values {
            values: v,
            target: max as u64,
        })
    })?;
    let found = match checker.proved() {
        Some(p) => Some(p.clone()),
        None => checker.best_candidate(&values).or_else(|| observe(&values)),
    };
    let report = PeriodReport::new(
        &rule.code(),
        values.len() as u64,
        theorem_t(rule),
        found.as_ref(),
    );
    Ok((values, report))
}

/// Values computed for a proof of the period when the heaps of a position are too large to hold
/// in memory.
const PROOF_VALUES: u64 = 1 << 21;

/// Listing winning moves looks at every option of every heap; beyond this many it is refused.
const MAX_OPTIONS: u128 = 1_000_000_000;

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
    let heaps: Vec<usize> = heaps
        .iter()
        .map(|&h| usize::try_from(h).map_err(|_| ApiError::Input(format!("heap {h} is too large"))))
        .collect::<Result<_, _>>()?;
    if heaps.is_empty() {
        return Err(ApiError::Input("give at least one heap".to_string()));
    }
    let max = heaps.iter().copied().max().unwrap_or(0);
    let count = max
        .checked_add(1)
        .ok_or_else(|| ApiError::Input(format!("heap {max} is too large for this machine")))?;
    let mut checker = PeriodChecker::new(rule);
    let fits = checked_count(
        &format!("heap {max} (the values of heaps 0 .. {max})"),
        count as u64,
        "; read them from a table with --table PATH \
         (written by 'nimseq compute GAME -n N --table PATH')",
    );
    let limit = match &fits {
        Ok(count) => *count,
        Err(_) if checker.theorem_applies() => PROOF_VALUES.min(count as u64) as usize,
        Err(_) => return Err(fits.unwrap_err()),
    };
    let mut values = Values::default();
    extend_checking(
        &mut AnyEngine::with_executor(rule, kind, exec.clone()),
        &mut values,
        limit,
        &mut checker,
        &mut |v| {
            progress(Step::Values {
                values: v,
                target: limit as u64,
            })
        },
    )?;
    let periodic = checker
        .proved()
        .map(|p| PeriodicValues::new(&values, p, count));
    if periodic.is_none() && values.len() < count {
        return Err(fits.err().unwrap_or_else(|| {
            ApiError::Input(format!("the values of heaps up to {max} were not computed"))
        }));
    }
    let value = |h: usize| match &periodic {
        Some(p) => p.get(h),
        None => values.get(h),
    };
    let nim_sum = heaps.iter().fold(0, |s, &h| s ^ value(h));
    if nim_sum != 0 {
        let moves = rule.moves(max);
        let options: u128 = heaps
            .iter()
            .map(|&h| position::option_count_bound(&moves, h))
            .sum();
        if options > MAX_OPTIONS {
            return Err(ApiError::Input(format!(
                "the heaps have values {} (nim-sum {nim_sum}: N, the player to move wins), but \
                 listing the winning moves means looking at about {options:.2e} options, more \
                 than {MAX_OPTIONS:.0e}; give smaller heaps",
                heaps
                    .iter()
                    .map(|&h| value(h).to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                options = options as f64,
                MAX_OPTIONS = MAX_OPTIONS as f64,
            )));
        }
    }
    Ok(match &periodic {
        Some(p) => position::analyze_listing(rule, &heaps, p, max_moves)?,
        None => position::analyze_listing(rule, &heaps, &values, max_moves)?,
    })
}

/// Largest `--max-heap` accepted by [`quotient`].
pub const QUOTIENT_MAX_HEAP: u64 = 1_000_000;

/// The default heap limit of [`quotient`].
pub const QUOTIENT_DEFAULT_MAX_HEAP: u64 = 1000;

/// States the verification of one quotient may hold (each a bitset over the quotient).
pub const QUOTIENT_STATE_LIMIT: usize = 20_000_000;

/// The misère quotient of `game` ([`crate::misere::quotient`]), heap by heap until it is
/// certified or heap `max_heap` (default [`QUOTIENT_DEFAULT_MAX_HEAP`]) is done. `progress` is
/// called after each heap with the heap and the order of the quotient; breaking stops the
/// computation (the report says so). A computation that cannot go on (a refinement it does
/// not compute, too many states) returns the quotient of the heaps before, with the error.
pub fn quotient(
    game: &str,
    max_heap: Option<u64>,
    mut progress: impl FnMut(usize, usize) -> ControlFlow<()>,
) -> Result<
    (
        crate::misere::quotient::QuotientReport,
        Option<crate::misere::quotient::QuotientError>,
    ),
    ApiError,
> {
    let rule = Rule::parse(game)?;
    let max = max_heap.unwrap_or(QUOTIENT_DEFAULT_MAX_HEAP);
    if max > QUOTIENT_MAX_HEAP {
        return Err(ApiError::Input(format!(
            "--max-heap {max} is too large for a misère quotient (at most {QUOTIENT_MAX_HEAP})"
        )));
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
    Ok((report, err))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(_: Step<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    #[test]
    fn values_are_completed_from_a_proved_period() {
        let rule = Rule::parse("0.07").unwrap();
        let (v, p) = values(&rule, 5000, EngineKind::Auto, &Executor::serial(), &mut go).unwrap();
        assert!(p.is_some_and(|p| p.proved));
        let exact = crate::engine::compute(&rule, 5000, EngineKind::Exact).unwrap();
        assert_eq!(v, exact);
    }

    #[test]
    fn counts_and_stops() {
        let rule = Rule::parse("0.6").unwrap();
        let e = values(&rule, 0, EngineKind::Auto, &Executor::serial(), &mut go).unwrap_err();
        assert_eq!(e.to_string(), "N must be at least 1");
        assert!(e.is_input());
        let e = summary(
            &rule,
            1 << 20,
            EngineKind::Auto,
            &Executor::serial(),
            &mut |_| ControlFlow::Break(()),
        )
        .unwrap_err();
        assert!(matches!(e, ApiError::Stopped { .. }) && !e.is_input());
    }
}
