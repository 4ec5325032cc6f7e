//! `nimseq period`: compute until a period is proved (or a limit is reached) and report it. The
//! search and its limits are [`api::period`]'s; this file converts the arguments, draws the bar,
//! catches SIGINT/SIGTERM for a table run and prints the report.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use nimseq::api::{self, ApiError, PeriodOptions};
use nimseq::engine::EngineKind;
use nimseq::report;
use nimseq::rules::Rule;

use super::compute::{interrupted, seconds};
use super::progress::{InMemory, Interrupted, Signals};
use super::{api_error, count_arg, usage, RunArgs};

/// Arguments of `period`.
#[derive(Debug, Args)]
pub struct PeriodArgs {
    /// The game: a code (0.77, 0.16, 4!.0, 0.3F) or a name (kayles).
    #[arg(value_name = "GAME")]
    game: String,
    /// Compute at most N values (heaps 0 .. N-1). Default: for a code the octal periodicity
    /// theorem covers, 2^24 values, then on to the values a candidate period's proof needs, up to
    /// what the memory (or with --table the disk) holds; otherwise 2^24, 2^16 for a repeating
    /// tail (O(N^2)), 2^11 for moves that may leave three heaps or a tail that splits (O(N^3)).
    #[arg(long, short = 'n', visible_alias = "count", value_name = "N", value_parser = count_arg, allow_negative_numbers = true)]
    max: Option<u64>,
    /// Engine: exact (reference, O(N^2)) or auto (the fastest that applies).
    #[arg(long, default_value = "auto", value_name = "ENGINE")]
    engine: EngineKind,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
    /// Keep the values in this table file (memory-mapped) instead of memory: resumes after a
    /// kill, stops cleanly on SIGINT/SIGTERM, and records the period proved ('nimseq info').
    #[arg(long, value_name = "PATH")]
    table: Option<PathBuf>,
    /// With --table: the longest time between two checkpoints, in seconds.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds, allow_negative_numbers = true, requires = "table")]
    checkpoint: Duration,
    #[command(flatten)]
    run: RunArgs,
}

/// Computes until the period is proved or a limit is reached, then reports.
pub fn period(args: PeriodArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.game).map_err(usage)?;
    let opts = PeriodOptions {
        max: args.max,
        kind: args.engine,
        exec: args.run.executor()?,
        table: args.table.as_deref(),
        checkpoint: args.checkpoint,
        // Ctrl-C in memory: the best candidate so far, then exit code 130.
        report_when_stopped: true,
    };
    if let Some(path) = &args.table {
        super::note_resume(path, &rule, args.max, &args.run.bar);
    }
    let signals = Signals::catch().context("cannot catch signals")?;
    let mut bar = InMemory::new(0, &args.run.bar);
    let r = api::period(&rule, &opts, &mut |step| {
        bar.show(step);
        match signals.received() {
            Some(_) => ControlFlow::Break(()),
            None => ControlFlow::Continue(()),
        }
    });
    bar.finish();
    let report = match (r, &args.table) {
        (Ok(report), _) => report,
        (Err(ApiError::Stopped { at }), Some(path)) => return Err(interrupted(&signals, path, at)),
        (Err(e), _) => return Err(api_error(e)),
    };
    let out = std::io::stdout().lock();
    if args.json {
        report::write_json(out, &report)?;
    } else {
        report::write_period_text(out, &rule, &report, report.count)?;
    }
    if report.stopped {
        let signal = signals.received().unwrap_or(signal_hook::consts::SIGINT);
        return Err(Interrupted {
            signal,
            message: format!(
                "stopped by {} after {} values: the period above is the best found so far",
                if signal == signal_hook::consts::SIGTERM {
                    "SIGTERM"
                } else {
                    "SIGINT"
                },
                report.count
            ),
        }
        .into());
    }
    Ok(())
}
