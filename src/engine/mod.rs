//! Engines that compute Grundy values, and the driver that runs them over growing storage.
//!
//! An engine implements [`Fill`]: given the values of heaps `0..start` in a slice, it writes the
//! values of heaps `start..end`, in order, and reports an [`Overflow`] when a value does not fit
//! the slice's cell width. The driver ([`compute`], [`extend`]) owns the storage, widens it when
//! an engine overflows, and reports progress between chunks so that callers can show a bar or
//! stop cleanly. The exact engine ([`Exact`]) is the reference every other engine must match.

mod exact;
mod executor;
mod kernels;
mod scan_keys;
mod sparse;
mod tuning;
mod values;

use std::ops::ControlFlow;
use std::str::FromStr;

use thiserror::Error;

pub use exact::{value_span, Exact, MexSet};
pub use executor::{available_threads, Executor, ExecutorError};
pub use kernels::{Tier, TierError, TierInfo, TierKind, TIERS};
pub use sparse::{Sparse, SparseState};
pub use tuning::{LaneChoice, Tuning, TuningError};
pub use values::{Cell, GrundyValues, Overflow, Values, Width};

use crate::rules::Rule;
use crate::with_values;

/// Something that computes the values of heaps in order.
pub trait Fill {
    /// Writes the values of heaps `start..end` into `vals[start..end]`; `vals[..start]` already
    /// hold the values of the smaller heaps. On [`Overflow`] the heaps before `Overflow::at` are
    /// written and the engine is ready to continue from `at` on a wider slice.
    fn fill<T: Cell>(&mut self, vals: &mut [T], start: usize, end: usize) -> Result<(), Overflow>;
}

/// Which engine to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// The exact reference engine.
    Exact,
    /// The sparse-space (rare/common) engine, parallel over the heaps of one game.
    Sparse,
    /// Whatever is fastest for the rule: sparse where some move splits a heap, else exact.
    #[default]
    Auto,
}

impl FromStr for EngineKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "exact" => Ok(EngineKind::Exact),
            "sparse" => Ok(EngineKind::Sparse),
            "auto" => Ok(EngineKind::Auto),
            other => Err(format!(
                "unknown engine '{other}' (choose exact, sparse or auto)"
            )),
        }
    }
}

/// An engine chosen at run time.
#[derive(Debug, Clone)]
pub enum AnyEngine {
    /// The exact reference engine.
    Exact(Exact),
    /// The sparse-space engine.
    Sparse(Box<Sparse>),
}

impl AnyEngine {
    /// The single-threaded engine of `kind` for `rule`.
    pub fn new(rule: &Rule, kind: EngineKind) -> AnyEngine {
        AnyEngine::with_executor(rule, kind, Executor::serial())
    }

    /// The engine of `kind` for `rule`, running its parallel parts on `exec`.
    pub fn with_executor(rule: &Rule, kind: EngineKind, exec: Executor) -> AnyEngine {
        match kind.resolve(rule) {
            EngineKind::Sparse => AnyEngine::Sparse(Box::new(Sparse::with_executor(rule, exec))),
            _ => AnyEngine::Exact(Exact::new(rule)),
        }
    }
}

impl EngineKind {
    /// The engine `Auto` stands for with `rule`; other kinds stand for themselves.
    pub fn resolve(self, rule: &Rule) -> EngineKind {
        match self {
            EngineKind::Auto if rule.has_splits() => EngineKind::Sparse,
            EngineKind::Auto => EngineKind::Exact,
            k => k,
        }
    }
}

impl Fill for AnyEngine {
    fn fill<T: Cell>(&mut self, vals: &mut [T], start: usize, end: usize) -> Result<(), Overflow> {
        match self {
            AnyEngine::Exact(e) => e.fill(vals, start, end),
            AnyEngine::Sparse(e) => e.fill(vals, start, end),
        }
    }
}

/// Why a computation did not finish.
#[derive(Debug, Error)]
pub enum EngineError {
    /// A value needs more than 31 bits.
    #[error("value {value} at heap {at} is larger than the largest value stored (2^31 - 1)")]
    ValueTooLarge {
        /// The heap.
        at: usize,
        /// Its value.
        value: u32,
    },
    /// The values do not fit in memory.
    #[error(
        "the values need {} of memory, more than is available; keep them on disk with 'nimseq compute GAME -n N --table PATH'",
        crate::resources::human_bytes(*.bytes as u64)
    )]
    OutOfMemory {
        /// Bytes asked for.
        bytes: usize,
    },
    /// The progress callback asked to stop.
    #[error("stopped at heap {at}")]
    Stopped {
        /// Heaps computed.
        at: usize,
    },
}

/// Heaps computed between two progress reports.
pub const CHUNK: usize = 1 << 16;

/// Computes G(0) … G(count − 1) with the engine `kind`, on the calling thread.
pub fn compute(rule: &Rule, count: usize, kind: EngineKind) -> Result<Values, EngineError> {
    compute_on(rule, count, kind, &Executor::serial())
}

/// Computes G(0) … G(count − 1) with the engine `kind`, its parallel parts on `exec`. The
/// values do not depend on the number of threads.
pub fn compute_on(
    rule: &Rule,
    count: usize,
    kind: EngineKind,
    exec: &Executor,
) -> Result<Values, EngineError> {
    let mut values = Values::default();
    extend(
        &mut AnyEngine::with_executor(rule, kind, exec.clone()),
        &mut values,
        count,
        &mut |_| ControlFlow::Continue(()),
    )?;
    Ok(values)
}

/// Extends `values` to `count` heaps with `engine`, calling `progress` after every chunk.
///
/// When `progress` breaks, returns [`EngineError::Stopped`]; `values` then holds the heaps
/// computed so far, all of them correct.
pub fn extend<E: Fill>(
    engine: &mut E,
    values: &mut Values,
    count: usize,
    progress: &mut dyn FnMut(&Values) -> ControlFlow<()>,
) -> Result<(), EngineError> {
    let mut start = values.len();
    while start < count {
        let end = count.min(start + CHUNK);
        let result = with_values!(values, v => fill_vec(engine, v, start, end)?);
        match result {
            Ok(()) => start = end,
            Err(Overflow { at, value }) => {
                if value > (u32::MAX >> 1) {
                    return Err(EngineError::ValueTooLarge { at, value });
                }
                values.truncate(at);
                let width = Width::for_value(value);
                // The wider copy of every heap up to `count`, beside the narrow one while it is
                // made: refuse cleanly rather than be killed by the system later.
                let bytes = (count as u64)
                    .saturating_mul(width.bytes() as u64)
                    .saturating_add((at * values.width().bytes()) as u64);
                if crate::resources::check_memory("", bytes, "").is_err() {
                    return Err(EngineError::OutOfMemory {
                        bytes: bytes as usize,
                    });
                }
                values.widen(width);
                start = at;
            }
        }
        if progress(values).is_break() && start < count {
            return Err(EngineError::Stopped { at: start });
        }
    }
    Ok(())
}

fn fill_vec<E: Fill, T: Cell>(
    engine: &mut E,
    v: &mut Vec<T>,
    start: usize,
    end: usize,
) -> Result<Result<(), Overflow>, EngineError> {
    let extra = end - v.len();
    v.try_reserve(extra).map_err(|_| EngineError::OutOfMemory {
        bytes: end * std::mem::size_of::<T>(),
    })?;
    v.resize(end, T::default());
    let r = engine.fill(v, start, end);
    if let Err(o) = r {
        v.truncate(o.at);
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widens_to_16_bits() {
        let rule = Rule::parse("nim").unwrap();
        let v = compute(&rule, 300, EngineKind::Exact).unwrap();
        assert_eq!(v.width(), Width::W16);
        assert!(v.iter().enumerate().all(|(n, g)| g as usize == n));
    }

    /// G(n) = 3n: overflows every width on the way.
    struct Triple;
    impl Fill for Triple {
        #[allow(clippy::needless_range_loop)]
        fn fill<T: Cell>(
            &mut self,
            vals: &mut [T],
            start: usize,
            end: usize,
        ) -> Result<(), Overflow> {
            for (n, cell) in vals.iter_mut().enumerate().take(end).skip(start) {
                let g = 3 * n as u32;
                if g > T::MAX {
                    return Err(Overflow { at: n, value: g });
                }
                *cell = T::from_u32(g);
            }
            Ok(())
        }
    }

    #[test]
    fn widens_to_32_bits() {
        let mut values = Values::default();
        extend(&mut Triple, &mut values, 30_000, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(values.width(), Width::W32);
        assert!(values.iter().enumerate().all(|(n, g)| g as usize == 3 * n));
    }

    #[test]
    fn stops_when_asked() {
        let rule = Rule::parse("0.77").unwrap();
        let mut values = Values::default();
        let mut calls = 0;
        let r = extend(&mut Exact::new(&rule), &mut values, 3 * CHUNK, &mut |_| {
            calls += 1;
            ControlFlow::Break(())
        });
        assert!(matches!(r, Err(EngineError::Stopped { at }) if at == CHUNK));
        assert_eq!(values.len(), CHUNK);
        assert_eq!(calls, 1);
    }
}
