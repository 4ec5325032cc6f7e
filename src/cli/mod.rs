//! The commands of the binary: each turns parsed arguments into library calls and hands the
//! results to the report module. Argument checking happens here, in two stages: clap checks the
//! shape, then each command resolves texts into rules and counts, turning any mistake into a
//! [`UsageError`] (exit code 2).

mod compute;
mod export;
mod genus;
mod graph;
mod hackenbush;
mod info;
mod period;
mod play;
mod progress;
mod quotient;
mod report;
mod survey;
mod values;

use std::io;
use std::process::ExitCode;

use clap::Args;

pub use compute::{compute, ComputeArgs};
pub use export::{export, ExportArgs};
pub use genus::{genus, GenusArgs};
pub use graph::{graph, GraphArgs};
pub use hackenbush::{hackenbush, HackenbushArgs};
pub use info::{info, InfoArgs};
pub use period::{period, PeriodArgs};
pub use play::{play, PlayArgs};
pub use progress::Interrupted;
pub use quotient::{quotient, QuotientArgs};
pub use report::{report, ReportArgs};
pub use survey::{survey, survey_merge, SurveyArgs, SurveyMergeArgs};
pub use values::{values, ValuesArgs};

use nimseq::api::{self, ApiError};
use nimseq::engine::{EngineKind, Executor};
use nimseq::numbers::parse_count;
use nimseq::rules::Rule;
use nimseq::table::TableReader;

/// A mistake in what the user typed: exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Wraps any error as a usage error.
pub fn usage(e: impl std::fmt::Display) -> anyhow::Error {
    UsageError(e.to_string()).into()
}

/// The game and how many heaps: shared by every command that computes a sequence.
#[derive(Debug, Args)]
pub struct SequenceArgs {
    /// The game: a code (0.77, 4!.0, 0.[3], 0.3F), a subtraction set (sub(1,2,3)) or a name (kayles).
    #[arg(value_name = "GAME")]
    pub game: String,
    /// How many values: heaps 0 .. N-1 (1000, 1e6, 2^20).
    #[arg(short = 'n', long = "count", value_name = "N", value_parser = count_arg, allow_negative_numbers = true)]
    pub count: u64,
    /// Engine: exact (reference, O(N^2)), sparse (rare/common values) or auto (sparse where
    /// some move splits a heap, else exact).
    #[arg(long, default_value = "auto", value_name = "ENGINE")]
    pub engine: EngineKind,
    #[command(flatten)]
    pub run: RunArgs,
}

/// The options of every command that may compute for a long time, defined once and flattened
/// into each: worker threads and the progress bar. The bar (heaps done, rate, ETA) is drawn on
/// stderr only when it is a terminal; `--quiet` hides it there too.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Worker threads (default: SLURM_CPUS_PER_TASK when set, else every core); the values do
    /// not depend on it.
    #[arg(long, value_name = "T", value_parser = threads_arg, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub bar: BarArgs,
}

/// The progress bar's options, part of [`RunArgs`] and alone in commands that run on one thread
/// (`genus`).
#[derive(Debug, Args)]
pub struct BarArgs {
    /// No progress bar (one is drawn on stderr only when stderr is a terminal) and no progress
    /// lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// When stderr is not a terminal (a batch job's log), a line of progress every SECS seconds:
    /// heaps done, the rate since the previous line, largest value, rare count (0: none).
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub log_every: u64,
}

impl RunArgs {
    /// `--threads`, else `SLURM_CPUS_PER_TASK` (the cores a cluster job was given), else
    /// `None`: every core.
    pub fn thread_count(&self) -> Option<usize> {
        self.threads.or_else(|| {
            std::env::var("SLURM_CPUS_PER_TASK")
                .ok()
                .and_then(|t| t.parse().ok())
                .filter(|&t| t > 0)
        })
    }

    /// The executor for `--threads`.
    pub fn executor(&self) -> anyhow::Result<Executor> {
        Ok(Executor::new(self.thread_count().unwrap_or(0))?)
    }
}

impl SequenceArgs {
    /// The rule and the count, checked (the values must fit in memory).
    pub fn resolve(&self) -> anyhow::Result<(Rule, usize)> {
        self.resolve_hinting(api::NO_TABLE_HINT)
    }

    /// [`SequenceArgs::resolve`], with `hint` (starting with "; ") after a count too large
    /// for the memory.
    pub fn resolve_hinting(&self, hint: &str) -> anyhow::Result<(Rule, usize)> {
        let rule = Rule::parse(&self.game).map_err(usage)?;
        let count = checked_count_hinting("N", self.count, hint)?;
        Ok((rule, count))
    }

    /// The executor for `--threads`.
    pub fn executor(&self) -> anyhow::Result<Executor> {
        self.run.executor()
    }
}

fn threads_arg(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("the thread count must be at least 1".to_string()),
        Ok(t) if t > 1024 => Err(format!("{t} threads is more than 1024")),
        Ok(t) => Ok(t),
        Err(_) => Err(format!("'{s}' is not a thread count")),
    }
}

pub(crate) fn count_arg(s: &str) -> Result<u64, String> {
    parse_count(s).map_err(|e| e.to_string())
}

/// A heap count that the values can be held in memory for.
pub fn checked_count(count: u64) -> anyhow::Result<usize> {
    checked_count_hinting("N", count, api::NO_TABLE_HINT)
}

/// [`api::checked_count`] as a command's error: [`checked_count`] for the option called `name`
/// in messages (`N`, `--max`), with `hint` (starting with "; ") after a count too large for the
/// memory.
pub fn checked_count_hinting(name: &str, count: u64, hint: &str) -> anyhow::Result<usize> {
    api::checked_count(name, count, hint).map_err(api_error)
}

/// A library error for the user: a mistake in the input is a usage error (exit code 2), a
/// table error is worded as [`table_error`] words it.
pub fn api_error(e: ApiError) -> anyhow::Error {
    match e {
        ApiError::Table(e) => table_error(e),
        e if e.is_input() => usage(e),
        e => e.into(),
    }
}

/// A table error for the user: a file that is not a table of the right game is a usage error.
pub fn table_error(e: nimseq::table::TableError) -> anyhow::Error {
    use nimseq::table::TableError;
    match e {
        TableError::OtherGame { .. } | TableError::NotATable { .. } => usage(e),
        // A path that names no file (or a folder that does not exist) is a mistyped argument.
        TableError::Io { ref source, .. } if source.kind() == io::ErrorKind::NotFound => usage(e),
        TableError::Io { ref source, .. } if source.raw_os_error() == Some(libc::EISDIR) => {
            usage(format!("{e}; give the path of a table file, not a folder"))
        }
        TableError::Io { ref source, .. } if source.raw_os_error() == Some(libc::ENOTDIR) => {
            usage(e)
        }
        e => e.into(),
    }
}

/// Refuses an output folder that is an existing file (it is created when missing).
pub fn check_out_dir(dir: &std::path::Path, flag: &str) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(usage(format!(
            "{flag} {} is a file; give a folder (it is created if missing)",
            dir.display()
        )));
    }
    Ok(())
}

/// A reader refused by a writer's lock: say what can be done meanwhile.
pub fn locked_for_reading(e: nimseq::table::TableError) -> anyhow::Error {
    match e {
        nimseq::table::TableError::Locked { .. } => anyhow::anyhow!(
            "{e}; its values can be read once that run ends ('nimseq info' shows the part \
             committed so far)"
        ),
        e => e.into(),
    }
}

/// The table at `path`, open for reading every value it holds (no writer at work), which must
/// hold the values of `rule`.
pub fn table_of(rule: &Rule, path: &std::path::Path) -> anyhow::Result<TableReader> {
    let t = TableReader::open(path).map_err(table_error)?;
    t.lock_shared().map_err(locked_for_reading)?;
    if t.game() != rule.code() {
        return Err(usage(format!(
            "{} holds the values of {}, not {}",
            path.display(),
            t.game(),
            rule.code()
        )));
    }
    Ok(t)
}

/// The table at `path`, of `rule`, opened as [`table_of`] does, with heaps `0 .. count` in it
/// and their checksums verified (else a usage error that says how to extend it).
pub fn table_holding(
    rule: &Rule,
    path: &std::path::Path,
    count: u64,
) -> anyhow::Result<TableReader> {
    let t = table_of(rule, path)?;
    if count > t.len() {
        return Err(usage(format!(
            "{} holds heaps 0 .. {}, not 0 .. {}; extend it with 'nimseq compute {} -n {} --table {}'",
            path.display(),
            t.len().saturating_sub(1),
            count - 1,
            rule.code(),
            count,
            path.display()
        )));
    }
    t.verify_range(0, count)?;
    Ok(t)
}

/// Is the root cause a closed stdout?
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes on one line.
pub fn one_line(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string().replace('\n', " ");
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
}

/// Prints a clap error (or help) and returns its exit code: help and version exit 0; every
/// mistake is one line on stderr with exit code 2, pointing to the help of `command` (the
/// command given, if any).
pub fn clap_exit(e: clap::Error, command: Option<&str>) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            let text = e.render().to_string();
            // The message and the indented lines that complete it, up to the usage block.
            let mut lines = text.lines().take_while(|l| !l.starts_with("Usage:"));
            let mut first = lines
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ")
                .trim_end_matches(':')
                .to_string();
            let more: Vec<&str> = lines
                .filter(|l| l.starts_with("  ") && !l.trim().starts_with("tip:"))
                .map(str::trim)
                .collect();
            if !more.is_empty() {
                first = format!("{first}: {}", more.join(", "));
            }
            let tip = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("tip: "))
                .map(|t| format!(" ({t})"))
                .unwrap_or_default();
            // Point to the help of the command the mistake was made in.
            let command = command.map(|c| format!("{c} ")).unwrap_or_default();
            eprintln!("nimseq: {first}{tip} (see 'nimseq {command}--help')");
            ExitCode::from(2)
        }
    }
}
