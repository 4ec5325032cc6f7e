//! The table driver: runs an engine over a table's mapped values, in chunks, committing on a
//! timer, widening the file when a value overflows, and reporting progress between chunks.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use super::{cast_mut, Table, TableError, VALUES_OFFSET};
use crate::analysis::Histogram;
use crate::engine::{Cell, Fill, Overflow, Width};

/// When the driver commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoints {
    /// The longest time between two commits.
    pub interval: Duration,
}

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints {
            interval: Duration::from_secs(5),
        }
    }
}

/// What the progress callback sees between chunks.
#[derive(Debug)]
pub struct Progress<'a> {
    /// Heaps computed.
    pub done: u64,
    /// Heaps asked for.
    pub target: u64,
    /// Heaps committed.
    pub committed: u64,
    /// Histogram of the heaps computed.
    pub histogram: &'a Histogram,
}

/// Bounds of the adaptive chunk: each call to the engine should take about `CHUNK_TIME`.
const MIN_CHUNK: u64 = 256;
const MAX_CHUNK: u64 = 1 << 22;
const CHUNK_TIME: Duration = Duration::from_millis(50);

/// Extends `table` to `target` heaps with `engine`, committing at least every
/// `checkpoints.interval` and at the end, and calling `progress` between chunks. The table is
/// left in its canonical layout ([`Table::finish`]).
///
/// When `progress` breaks, commits and returns [`TableError::Stopped`]. On any other error the
/// table stays valid up to [`Table::committed`].
pub fn extend<E: Fill>(
    table: &mut Table,
    engine: &mut E,
    target: u64,
    checkpoints: &Checkpoints,
    progress: &mut dyn FnMut(&Progress<'_>) -> ControlFlow<()>,
) -> Result<(), TableError> {
    let mut chunk = MIN_CHUNK;
    let mut last_commit = Instant::now();
    while table.len() < target {
        let start = table.len();
        let end = target.min(start + chunk);
        table.reserve(end, target)?;
        let began = Instant::now();
        let result = fill_table(table, engine, start, end);
        let took = began.elapsed();
        if took < CHUNK_TIME / 2 {
            chunk = (chunk * 2).min(MAX_CHUNK);
        } else if took > CHUNK_TIME * 2 {
            chunk = (chunk / 2).max(MIN_CHUNK);
        }
        match result {
            Ok(()) => table.absorb(start, end),
            Err(Overflow { at, value }) => {
                let at = at as u64;
                table.absorb(start, at);
                if value > (u32::MAX >> 1) {
                    table.commit()?;
                    return Err(TableError::ValueTooLarge { at, value });
                }
                table.widen(Width::for_value(value))?;
                last_commit = Instant::now();
            }
        }
        if last_commit.elapsed() >= checkpoints.interval {
            table.commit()?;
            last_commit = Instant::now();
        }
        let p = Progress {
            done: table.len(),
            target,
            committed: table.committed(),
            histogram: table.histogram(),
        };
        if progress(&p).is_break() && table.len() < target {
            table.commit()?;
            return Err(TableError::Stopped {
                at: table.committed(),
            });
        }
    }
    table.finish()
}

/// Runs the engine on heaps `start..end` of the mapped values.
fn fill_table<E: Fill>(
    table: &mut Table,
    engine: &mut E,
    start: u64,
    end: u64,
) -> Result<(), Overflow> {
    let w = u64::from(table.sb.width);
    let region = &mut table.map[VALUES_OFFSET as usize..(VALUES_OFFSET + end * w) as usize];
    let (s, e) = (start as usize, end as usize);
    match w {
        1 => fill_as::<E, u8>(engine, region, s, e),
        2 => fill_as::<E, u16>(engine, region, s, e),
        _ => fill_as::<E, u32>(engine, region, s, e),
    }
}

fn fill_as<E: Fill, T: Cell>(
    engine: &mut E,
    region: &mut [u8],
    start: usize,
    end: usize,
) -> Result<(), Overflow> {
    engine.fill(cast_mut::<T>(region), start, end)
}
