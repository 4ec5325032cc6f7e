//! The errors of the computations in [`crate::api`], typed so that each face (the binary, the
//! Python package) words them in its own terms: the library names what was wrong ("the count of
//! heaps", "the limit on values", "the thread count"), never a flag or a keyword argument.
//! [`ApiError::is_input`] is the one place that decides which errors are mistakes in the input.

use std::path::PathBuf;

use thiserror::Error;

use crate::engine::{EngineError, ExecutorError};
use crate::position::PositionError;
use crate::resources::{human_bytes, MemoryError};
use crate::rules::RuleError;
use crate::table::TableError;

/// Which count of the input an error is about; each face names it its way (the binary `N`,
/// `--max`; Python `n`, `max`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountOf {
    /// The heaps asked for (heaps `0 .. N`).
    Heaps,
    /// The most values a period search may compute.
    Max,
    /// The values of heaps `0 ..= heap`, needed for a position whose largest heap is `heap`.
    Heap(u64),
}

impl std::fmt::Display for CountOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CountOf::Heaps => f.write_str("the count of heaps"),
            CountOf::Max => f.write_str("the limit on values"),
            CountOf::Heap(h) => write!(f, "heap {h} (the values of heaps 0 .. {h})"),
        }
    }
}

/// Which limit on a quotient's candidates ([`crate::misere::quotient::CandidateLimits`]) an
/// error is about; each face names it its way (`--candidate-size`, `candidate_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CandidateLimit {
    /// Elements of a candidate before reduction.
    Size,
    /// Elements of a candidate after reduction.
    Order,
    /// Candidates verified after a heap's first failed one.
    Recalibrations,
}

impl std::fmt::Display for CandidateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CandidateLimit::Size => "the candidates' size before reduction",
            CandidateLimit::Order => "the candidates' order after reduction",
            CandidateLimit::Recalibrations => "the recalibrations a heap",
        })
    }
}

/// A thread count that cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ThreadsError {
    /// Zero threads.
    #[error("the thread count must be at least 1")]
    Zero,
    /// More than [`super::MAX_THREADS`].
    #[error("{0} threads is more than {max}", max = super::MAX_THREADS)]
    TooMany(usize),
}

/// Why a computation was refused or did not finish.
#[derive(Debug, Error)]
pub enum ApiError {
    /// The game code does not parse.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// A count of 0.
    #[error("{0} must be at least 1")]
    ZeroCount(CountOf),
    /// A count beyond what this machine can address.
    #[error("{of} = {count} is too large for this machine")]
    TooLarge {
        /// The count.
        of: CountOf,
        /// Its value.
        count: u64,
    },
    /// The values would not fit in memory (the face may add how to keep them on disk).
    #[error("{source}")]
    Memory {
        /// The count.
        of: CountOf,
        /// Its value.
        count: u64,
        /// Memory needed and available.
        source: MemoryError,
    },
    /// A table of `count` heaps cannot fit on the file system that would hold it.
    #[error(
        "{count} heaps need a table of at least {} (one byte per heap) but the file system of {} \
         holds {} in all",
        human_bytes(*.needed), path.display(), human_bytes(*.size)
    )]
    Disk {
        /// Heaps asked for.
        count: u64,
        /// The table.
        path: PathBuf,
        /// Bytes needed.
        needed: u64,
        /// Bytes the file system holds.
        size: u64,
    },
    /// A thread count that cannot be used.
    #[error(transparent)]
    Threads(#[from] ThreadsError),
    /// A position without heaps.
    #[error("the position has no heap")]
    NoHeaps,
    /// A table that holds fewer heaps than asked for (and no proved period to go on from).
    #[error("{} holds heaps 0 .. {}, not 0 .. {}", path.display(), held.saturating_sub(1), wanted - 1)]
    TableTooShort {
        /// The table.
        path: PathBuf,
        /// The game's canonical code.
        game: String,
        /// Heaps it holds.
        held: u64,
        /// Heaps needed.
        wanted: u64,
    },
    /// Listing the winning moves would look at too many options.
    #[error(
        "the heaps have values {} (nim-sum {nim_sum}: N, the player to move wins), but listing \
         the winning moves means looking at about {:.2e} options, more than {:.0e}; give smaller \
         heaps",
        values.iter().map(u32::to_string).collect::<Vec<_>>().join(" "),
        *options as f64, *limit as f64
    )]
    TooManyOptions {
        /// The heaps' values.
        values: Vec<u32>,
        /// Their nim-sum.
        nim_sum: u32,
        /// Options a listing would look at.
        options: u128,
        /// The most looked at.
        limit: u128,
    },
    /// More winning moves than are listed at once (the caller may ask for the first ones).
    #[error("the position has {count} winning moves, more than the {limit} listed at once")]
    TooManyMoves {
        /// Winning moves in all.
        count: u64,
        /// The most listed when all are asked for.
        limit: u64,
    },
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
    /// A misère quotient asked for past the largest heap limit.
    #[error(
        "a misère quotient to heap {max_heap} is beyond what is computed (heap {limit} at most)"
    )]
    QuotientHeapTooLarge {
        /// The heap limit asked for.
        max_heap: u64,
        /// The largest accepted.
        limit: u64,
    },
    /// A limit on the candidates of a misère quotient's recalibrations out of its range.
    #[error("{what} must be from {low} to {high}, not {value}")]
    CandidateLimit {
        /// Which limit.
        what: CandidateLimit,
        /// The value given.
        value: u64,
        /// The least accepted.
        low: u64,
        /// The largest accepted.
        high: u64,
    },
    /// The progress callback asked to stop; for a table, heaps `0 .. at` are committed.
    #[error("stopped at heap {at}")]
    Stopped {
        /// Heaps computed (or, for a table, committed).
        at: u64,
    },
}

/// What a table holds, for messages: "holds no heap yet", "holds heaps 0 .. 99".
pub fn held(at: u64) -> String {
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
    /// game code, count or thread count, a table of another game, a file that is not a table, a
    /// missing path?
    pub fn is_input(&self) -> bool {
        match self {
            ApiError::Rule(_)
            | ApiError::ZeroCount(_)
            | ApiError::TooLarge { .. }
            | ApiError::Memory { .. }
            | ApiError::Disk { .. }
            | ApiError::Threads(_)
            | ApiError::NoHeaps
            | ApiError::TableTooShort { .. }
            | ApiError::TooManyOptions { .. }
            | ApiError::TooManyMoves { .. }
            | ApiError::QuotientHeapTooLarge { .. }
            | ApiError::CandidateLimit { .. } => true,
            ApiError::Table(e) => table_error_is_input(e),
            _ => false,
        }
    }
}

/// Is this table error a mistake in the input (exit code 2 on the command line): a table of
/// another game, a file that is not a table, a path that names no file or names a folder?
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
