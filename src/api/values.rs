//! The values of a game: computed in memory (completed from a proved period), or read from a
//! table, which must hold them unless its proved period gives the rest.

use std::path::Path;

use crate::analysis::Period;
use crate::engine::{EngineKind, Executor, GrundyValues, Values};
use crate::rules::Rule;
use crate::table::{TableError, TableReader};

use super::run::{checked_count, CheckedRun};
use super::{ApiError, CountOf, Progress};

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
    let count = checked_count(CountOf::Heaps, count)?;
    let run = CheckedRun::to(rule, count, kind, exec, progress)?;
    let period = run.proved().cloned();
    let mut values = run.values;
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

/// The table at `path`, open for reading every value it holds (a shared lock keeps writers
/// off), which must hold the values of `rule`. Only the header is read: see [`checked_table`].
pub fn table_of(rule: &Rule, path: &Path) -> Result<TableReader, ApiError> {
    let t = TableReader::open(path)?;
    t.lock_shared()?;
    if t.game() != rule.code() {
        return Err(TableError::OtherGame {
            path: path.to_path_buf(),
            found: t.game().to_string(),
            wanted: rule.code(),
        }
        .into());
    }
    Ok(t)
}

/// Heaps `0 .. count` of `rule` from a table: every heap it holds with its checksums verified,
/// and beyond its end, when the table records a proved period, the values that period gives.
pub struct TableValues {
    /// The table.
    pub table: TableReader,
    /// The proved period recorded in it, when heaps past its end are asked for.
    pub period: Option<Period>,
    /// Heaps asked for.
    pub count: u64,
}

impl TableValues {
    /// G(n), for `n < count`.
    pub fn get(&self, n: u64) -> u32 {
        let v = self.table.values().expect("checked on open");
        let len = self.table.len();
        match &self.period {
            // The table holds a full period from the preperiod on.
            Some(p) if n >= len => v.get((p.preperiod + (n - p.preperiod) % p.period) as usize),
            _ => v.get(n as usize),
        }
    }
}

impl GrundyValues for TableValues {
    fn len(&self) -> usize {
        self.count as usize
    }
    fn get(&self, n: usize) -> u32 {
        TableValues::get(self, n as u64)
    }
}

/// Heaps `0 .. count` of `rule` from the table at `path` ([`table_of`]), the checksums of the
/// heaps read verified; heaps past the table's end only when it records a proved period (they
/// follow from it), else [`ApiError::TableTooShort`].
pub fn checked_table(rule: &Rule, path: &Path, count: u64) -> Result<TableValues, ApiError> {
    if count == 0 {
        return Err(ApiError::ZeroCount(CountOf::Heaps));
    }
    let table = table_of(rule, path)?;
    let held = table.len();
    let period = table.period().filter(|p| p.proved && p.shift == 0).cloned();
    let period = match period {
        Some(p) if count > held && held >= p.preperiod + p.period => Some(p),
        _ if count > held => {
            return Err(ApiError::TableTooShort {
                path: path.to_path_buf(),
                game: rule.code(),
                held,
                wanted: count,
            })
        }
        _ => None,
    };
    table.verify_range(0, count.min(held))?;
    Ok(TableValues {
        table,
        period,
        count,
    })
}
