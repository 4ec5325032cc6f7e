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
mod survey_misere;
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

use nimseq::api::{self, ApiError, CandidateLimit, CountOf};
use nimseq::engine::{EngineKind, Executor};
use nimseq::numbers::parse_count;

use nimseq::resources::MemoryError;
use nimseq::rules::Rule;

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
    /// heaps done (games in a survey), the rate since the previous line, largest value, rare
    /// count (0: none).
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
        api::executor(self.thread_count()).map_err(api_error)
    }
}

impl SequenceArgs {
    /// The executor for `--threads`.
    pub fn executor(&self) -> anyhow::Result<Executor> {
        self.run.executor()
    }
}

fn threads_arg(s: &str) -> Result<usize, String> {
    let t = s
        .parse::<usize>()
        .map_err(|_| format!("'{s}' is not a thread count"))?;
    api::check_threads(Some(t)).map_err(|e| e.to_string())?;
    Ok(t)
}

pub(crate) fn count_arg(s: &str) -> Result<u64, String> {
    parse_count(s).map_err(|e| e.to_string())
}

/// A heap count that the values can be held in memory for.
pub fn checked_count(count: u64) -> anyhow::Result<usize> {
    api::checked_count(CountOf::Heaps, count).map_err(api_error)
}

/// Says on stderr (unless `--quiet`) what a run of `count` heaps of a costly rule (moves that
/// leave three heaps, tails that split) will cost, before it starts, when the library's
/// estimate ([`api::cost_warning`]) is half a minute's work or more.
pub fn warn_cost(rule: &Rule, count: u64, bar: &BarArgs) {
    if bar.quiet {
        return;
    }
    if let Some(e) = api::cost_warning(rule, count) {
        eprintln!("nimseq: {e}; progress follows");
    }
}

/// Says on stderr, above the bar (on a terminal, unless `--quiet`), that a table run resumes:
/// "resuming PATH at heap N" when the table at `path` holds some heaps of `rule`, fewer than
/// `count` (any number for `period`, `count` None) and no proved period. (Off a terminal the
/// progress lines say where the run is, and an error stays one line.)
pub fn note_resume(path: &std::path::Path, rule: &Rule, count: Option<u64>, bar: &BarArgs) {
    use std::io::IsTerminal;
    if !io::stderr().is_terminal() {
        return;
    }
    let Ok(t) = nimseq::table::TableReader::open(path) else {
        return;
    };
    let held = t.len();
    let proved = t.period().is_some_and(|p| p.proved);
    if bar.quiet || t.game() != rule.code() || held == 0 || proved {
        return;
    }
    if count.is_none_or(|n| held < n) {
        eprintln!("nimseq: resuming {} at heap {held}", path.display());
    }
}

/// What the binary calls a count in its messages.
fn count_name(of: CountOf) -> String {
    match of {
        CountOf::Heaps => "N".to_string(),
        CountOf::Max => "--max".to_string(),
        CountOf::Heap(h) => format!("heap {h} (the values of heaps 0 .. {h})"),
    }
}

/// The advice after values too large for the memory, when the command has none of its own.
fn memory_hint(of: CountOf) -> &'static str {
    match of {
        CountOf::Heaps => {
            "; give a smaller N ('nimseq compute --table PATH' and 'nimseq period --table PATH' \
             keep the values on disk)"
        }
        CountOf::Max => "; give a smaller --max, or keep the values on disk with --table PATH",
        CountOf::Heap(_) => {
            "; read them from a table with --table PATH (written by 'nimseq compute GAME -n N \
             --table PATH')"
        }
    }
}

/// A library error for the user, in the command line's words: a mistake in the input is a
/// usage error (exit code 2), a table error is worded as [`table_error`] words it.
pub fn api_error(e: ApiError) -> anyhow::Error {
    api_error_hinting(e, None)
}

/// [`api_error`], with `hint` (starting with "; ") after values too large for the memory
/// instead of the default advice.
pub fn api_error_hinting(e: ApiError, hint: Option<&str>) -> anyhow::Error {
    match e {
        ApiError::Table(e) => table_error(e),
        ApiError::QuotientHeapTooLarge { max_heap, limit } => usage(format!(
            "--max-heap {max_heap} is too large for a misère quotient (at most {limit})"
        )),
        ApiError::CandidateLimit {
            what,
            value,
            low,
            high,
        } => {
            let flag = match what {
                CandidateLimit::Size => "--candidate-size",
                CandidateLimit::Order => "--candidate-order",
                CandidateLimit::Recalibrations => "--recalibrations",
            };
            usage(format!("{flag} must be from {low} to {high}, not {value}"))
        }
        ApiError::ZeroCount(of) => usage(format!("{} must be at least 1", count_name(of))),
        ApiError::TooLarge { of, count } => match of {
            CountOf::Heap(h) => usage(format!("heap {h} is too large for this machine")),
            of => usage(format!(
                "{} {count} is too large for this machine",
                count_name(of)
            )),
        },
        ApiError::Memory { of, count, source } => {
            let what = match of {
                CountOf::Heaps => format!("N = {count}"),
                CountOf::Max => format!("--max {count}"),
                of => count_name(of),
            };
            usage(MemoryError {
                what,
                hint: hint.unwrap_or(memory_hint(of)).to_string(),
                ..source
            })
        }
        e @ ApiError::Disk { .. } => {
            usage(format!("{e}; give a smaller N or a path on a larger disk"))
        }
        ApiError::NoHeaps => usage("give at least one heap"),
        e @ ApiError::TooManyMoves { .. } => usage(format!(
            "{e}; list the first K with --max-moves K (all are counted)"
        )),
        e @ ApiError::TableTooShort { .. } => {
            let ApiError::TableTooShort {
                ref path,
                ref game,
                wanted,
                ..
            } = e
            else {
                unreachable!()
            };
            let advice = format!(
                "; extend it with 'nimseq compute {game} -n {wanted} --table {}'",
                path.display()
            );
            usage(format!("{e}{advice}"))
        }
        e if e.is_input() => usage(e),
        e => e.into(),
    }
}

/// A table error for the user: a mistake in the input ([`api::table_error_is_input`]) is a
/// usage error.
pub fn table_error(e: nimseq::table::TableError) -> anyhow::Error {
    use nimseq::table::TableError;
    match e {
        TableError::Io { ref source, .. } if source.raw_os_error() == Some(libc::EISDIR) => {
            usage(format!("{e}; give the path of a table file, not a folder"))
        }
        TableError::OtherGame { .. } => usage(format!("{e}; give another --table path")),
        e if api::table_error_is_input(&e) => usage(e),
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

/// [`api_error`] for a command that reads a table: a writer's lock gets the advice of
/// [`locked_for_reading`].
pub fn reading_error(e: ApiError) -> anyhow::Error {
    match e {
        ApiError::Table(e @ nimseq::table::TableError::Locked { .. }) => locked_for_reading(e),
        e => api_error(e),
    }
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
