//! Table runs: a table created or extended on disk as `compute --table` does, resumable after any
//! stop, with the summary of what it holds.

use std::path::Path;
use std::time::Duration;

use crate::analysis::{StopAtPeriod, Summary};
use crate::engine::{AnyEngine, EngineKind, Executor};
use crate::resources::filesystem_size;
use crate::rules::Rule;
use crate::table::{self, Checkpoints, Table, TableError, TableReader};

use super::run::period_of_slice;
use super::summary::summary_of_prefix;
use super::{ApiError, CountOf, Progress, Step};

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
        return Err(ApiError::ZeroCount(CountOf::Heaps));
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
        None => period_of_slice(rule, t.values()),
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

/// Refuses an N whose table cannot fit on the file system that would hold it, even at one byte
/// per heap. (A disk that is merely full fails later, cleanly, and the table resumes elsewhere.)
/// Nothing is created.
pub fn check_disk(path: &Path, count: u64) -> Result<(), ApiError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let needed = count.saturating_add(table::VALUES_OFFSET);
    match filesystem_size(dir) {
        Some(size) if needed > size => Err(ApiError::Disk {
            count,
            path: path.to_path_buf(),
            needed,
            size,
        }),
        _ => Ok(()),
    }
}
