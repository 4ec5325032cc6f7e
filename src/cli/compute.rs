//! `nimseq compute`: compute a sequence and print its summary, in memory or in a table file.
//!
//! For a game the octal periodicity theorem covers, computing stops as soon as a period is
//! proved: the statistics of the remaining heaps follow from the period, and the summary's
//! `period` is filled. Otherwise the summary reports the pattern observed, if any.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use nimseq::analysis::{
    extended_stats, observe, observe_slice, PeriodChecker, Stats, StopAtPeriod, Summary,
};
use nimseq::engine::AnyEngine;
use nimseq::report;
use nimseq::rules::Rule;
use nimseq::table::{self, Checkpoints, Table, TableError, ValueSlice};

use super::progress::{compute_in_memory, Bar, Interrupted, Signals};
use super::{table_error, usage, SequenceArgs};

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
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds)]
    checkpoint: Duration,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

fn seconds(s: &str) -> Result<Duration, String> {
    s.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("'{s}' is not a number of seconds"))
}

/// Computes heaps 0 .. N-1 and prints the summary.
pub fn compute(args: ComputeArgs) -> anyhow::Result<()> {
    let summary_and_rule = match &args.table {
        Some(path) => compute_table(&args, path)?,
        None => {
            let (rule, count) = args.seq.resolve()?;
            let exec = args.seq.executor()?;
            let mut checker = PeriodChecker::new(&rule);
            let values = compute_in_memory(
                &rule,
                count,
                args.seq.engine,
                &exec,
                args.quiet,
                &mut checker,
            )?;
            let summary = match checker.proved() {
                // The rest of the heaps follow from the proved period.
                Some(p) => Summary::from_stats(
                    &rule.code(),
                    &extended_stats(&values, p, count as u64),
                    Some(p.clone()),
                ),
                None => {
                    let mut s = Summary::of_values(&rule.code(), &values);
                    s.period = observe(&values);
                    s
                }
            };
            (summary, rule)
        }
    };
    let (summary, rule) = summary_and_rule;
    let out = std::io::stdout().lock();
    if args.json {
        report::write_json(out, &summary)?;
    } else {
        report::write_summary_text(out, &rule, &summary)?;
    }
    Ok(())
}

fn compute_table(args: &ComputeArgs, path: &std::path::Path) -> anyhow::Result<(Summary, Rule)> {
    let rule = Rule::parse(&args.seq.game).map_err(usage)?;
    let count = args.seq.count;
    if count == 0 {
        return Err(usage("N must be at least 1"));
    }
    let signals = Signals::catch().context("cannot catch signals")?;
    let mut t = Table::open(path, &rule.code()).map_err(table_error)?;
    let mut bar = Bar::new(count, args.quiet);
    // Once a period is proved the engine stops and the table is completed from the period.
    let mut engine = StopAtPeriod::new(
        AnyEngine::with_executor(&rule, args.seq.engine, args.seq.executor()?),
        &rule,
    );
    let r = table::extend(
        &mut t,
        &mut engine,
        count,
        &Checkpoints {
            interval: args.checkpoint,
        },
        &mut |p| {
            bar.update(p.done, p.histogram);
            match signals.received() {
                Some(_) => ControlFlow::Break(()),
                None => ControlFlow::Continue(()),
            }
        },
    );
    bar.finish();
    match r {
        Ok(()) => {}
        Err(TableError::Stopped { at }) => {
            let signal = signals.received().unwrap_or(signal_hook::consts::SIGINT);
            let name = if signal == signal_hook::consts::SIGTERM {
                "SIGTERM"
            } else {
                "SIGINT"
            };
            return Err(Interrupted {
                signal,
                message: match at {
                    0 => format!(
                        "stopped by {name}: {} holds no heap yet; run the same command to continue",
                        path.display()
                    ),
                    at => format!(
                        "stopped by {name}: {} holds heaps 0 .. {}; run the same command to continue",
                        path.display(),
                        at - 1
                    ),
                },
            }
            .into());
        }
        Err(e @ (TableError::Io { .. } | TableError::ValueTooLarge { .. })) => {
            let at = t.committed();
            let held = match at {
                0 => "holds no heap yet".to_string(),
                at => format!("holds heaps 0 .. {}", at - 1),
            };
            return Err(anyhow::anyhow!(
                "{e}; the table {held} and resumes from heap {at}"
            ));
        }
        Err(e) => return Err(table_error(e)),
    }
    // The period the engine stopped at; otherwise (nothing proved, or the table already held the
    // heaps) one pass of the period checker over the stored values: a proved period, or failing
    // that the pattern observed.
    let period = match engine.proved() {
        Some(p) => Some(p.clone()),
        None => {
            let mut checker = PeriodChecker::new(&rule);
            let proved = match t.values() {
                ValueSlice::W8(v) => checker.update_slice(v).cloned(),
                ValueSlice::W16(v) => checker.update_slice(v).cloned(),
                ValueSlice::W32(v) => checker.update_slice(v).cloned(),
            };
            proved.or_else(|| match t.values() {
                ValueSlice::W8(v) => observe_slice(v),
                ValueSlice::W16(v) => observe_slice(v),
                ValueSlice::W32(v) => observe_slice(v),
            })
        }
    };
    let summary = if count >= t.len() {
        // Recorded in the table (so `info` shows it), then the canonical layout again: a run
        // resumed after a crash and one uninterrupted run still leave the same bytes.
        if t.set_period(period).map_err(table_error)? {
            t.finish().map_err(table_error)?;
        }
        t.summary()
    } else {
        // The table holds more heaps than asked for: summarize the prefix.
        let stats = match t.values() {
            ValueSlice::W8(v) => Stats::of_slice(&v[..count as usize]),
            ValueSlice::W16(v) => Stats::of_slice(&v[..count as usize]),
            ValueSlice::W32(v) => Stats::of_slice(&v[..count as usize]),
        };
        Summary::from_stats(&rule.code(), &stats, period)
    };
    Ok((summary, rule))
}
