//! `nimseq compute`: compute a sequence and print its summary, in memory or in a table file.
//!
//! For a game the octal periodicity theorem covers, computing stops as soon as a period is
//! proved: the statistics of the remaining heaps follow from the period, and the summary's
//! `period` is filled. Otherwise the summary reports the pattern observed, if any.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use nimseq::analysis::Summary;
use nimseq::api::{self, ApiError};
use nimseq::report;
use nimseq::rules::Rule;

use super::progress::{InMemory, Interrupted, Signals};
use super::{api_error, api_error_hinting, usage, SequenceArgs};

/// Arguments of `compute`.
#[derive(Debug, Args)]
pub struct ComputeArgs {
    #[command(flatten)]
    seq: SequenceArgs,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
    /// Keep the values in this table file (memory-mapped) instead of memory: N may exceed the
    /// memory; running again resumes an interrupted run or extends the table to a larger N.
    #[arg(long, value_name = "PATH")]
    table: Option<PathBuf>,
    /// With --table: the longest time between two checkpoints, in seconds.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds, allow_negative_numbers = true)]
    checkpoint: Duration,
}

pub(super) fn seconds(s: &str) -> Result<Duration, String> {
    s.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("'{s}' is not a number of seconds"))
}

/// Computes heaps 0 .. N-1 and prints the summary.
pub fn compute(args: ComputeArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.seq.game).map_err(usage)?;
    super::warn_cost(&rule, args.seq.count, &args.seq.run.bar);
    let summary = match &args.table {
        Some(path) => compute_table(&args, &rule, path)?,
        None => {
            let exec = args.seq.executor()?;
            let mut run = InMemory::new(args.seq.count, &args.seq.run.bar);
            let r = api::summary(&rule, args.seq.count, args.seq.engine, &exec, &mut |step| {
                run.show(step);
                ControlFlow::Continue(())
            });
            run.finish();
            r.map_err(|e| {
                api_error_hinting(
                    e,
                    Some("; keep the values on disk with --table PATH, or give a smaller N"),
                )
            })?
        }
    };
    let out = std::io::stdout().lock();
    if args.json {
        report::write_json(out, &summary)?;
    } else {
        report::write_summary_text(out, &rule, &summary)?;
    }
    Ok(())
}

/// `compute --table PATH` ([`api::compute_table`]), stopped cleanly by SIGINT or SIGTERM.
fn compute_table(args: &ComputeArgs, rule: &Rule, path: &Path) -> anyhow::Result<Summary> {
    let count = args.seq.count;
    super::note_resume(path, rule, Some(count), &args.seq.run.bar);
    let signals = Signals::catch().context("cannot catch signals")?;
    let exec = args.seq.executor()?;
    let mut run = InMemory::new(count, &args.seq.run.bar);
    let r = api::compute_table(
        rule,
        count,
        path,
        args.seq.engine,
        &exec,
        args.checkpoint,
        &mut |step| {
            run.show(step);
            match signals.received() {
                Some(_) => ControlFlow::Break(()),
                None => ControlFlow::Continue(()),
            }
        },
    );
    run.finish();
    match r {
        Ok(summary) => Ok(summary),
        Err(ApiError::Stopped { at }) => Err(interrupted(&signals, path, at)),
        Err(e) => Err(api_error(e)),
    }
}

/// The error of a table run stopped by SIGINT or SIGTERM with `at` heaps committed.
pub(super) fn interrupted(signals: &Signals, path: &Path, at: u64) -> anyhow::Error {
    let signal = signals.received().unwrap_or(signal_hook::consts::SIGINT);
    let name = if signal == signal_hook::consts::SIGTERM {
        "SIGTERM"
    } else {
        "SIGINT"
    };
    let held = match at {
        0 => "holds no heap yet".to_string(),
        at => format!("holds heaps 0 .. {}", at - 1),
    };
    Interrupted {
        signal,
        message: format!(
            "stopped by {name}: {} {held}; run the same command to continue",
            path.display()
        ),
    }
    .into()
}
