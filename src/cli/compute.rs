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
    extended_stats, observe, observe_slice, Period, PeriodChecker, Stats, StopAtPeriod, Summary,
};
use nimseq::engine::AnyEngine;
use nimseq::report;
use nimseq::resources::{filesystem_size, human_bytes};
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
    let summary_and_rule = match &args.table {
        Some(path) => compute_table(&args, path)?,
        None => {
            let (rule, count) = args.seq.resolve_hinting(
                "; keep the values on disk with --table PATH, or give a smaller N",
            )?;
            let exec = args.seq.executor()?;
            let mut checker = PeriodChecker::new(&rule);
            let values = compute_in_memory(
                &rule,
                count,
                args.seq.engine,
                &exec,
                args.seq.run.bar.quiet,
                &mut checker,
            )?;
            let summary = match checker.proved() {
                // The rest of the heaps follow from the proved period.
                Some(p) => Summary::from_stats(
                    &rule.code(),
                    &extended_stats(&values, p, count as u64),
                    Some(p.clone().seen_in(count as u64)),
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
    check_disk(path, count)?;
    let signals = Signals::catch().context("cannot catch signals")?;
    let mut t = Table::open(path, &rule.code()).map_err(table_error)?;
    if t.len() < count {
        t.forget_observed_period();
    }
    let mut bar = Bar::new(count, args.seq.run.bar.quiet);
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
        Err(TableError::Stopped { at }) => return Err(interrupted(&signals, path, at)),
        Err(e) => return Err(stopped_error(e, &t)),
    }
    // The period the engine stopped at; otherwise one pass of the period checker over the
    // stored values of heaps 0 .. N-1, as the in-memory run finds it: a proved period, or failing
    // that the pattern observed. A table of exactly N heaps records it (`info` shows it) and is
    // brought back to its canonical layout, so that a resumed run and one uninterrupted run
    // leave the same bytes; a larger table is left alone.
    let upto = count.min(t.len()) as usize;
    let period = match engine.proved() {
        Some(p) => Some(p.clone()),
        None => match t.values() {
            ValueSlice::W8(v) => period_of(&rule, &v[..upto]),
            ValueSlice::W16(v) => period_of(&rule, &v[..upto]),
            ValueSlice::W32(v) => period_of(&rule, &v[..upto]),
        },
    }
    .map(|p| p.seen_in(upto as u64));
    let summary = if count >= t.len() {
        t.record_period(period).map_err(|e| stopped_error(e, &t))?;
        t.summary()
    } else {
        // The table holds more heaps than asked for: summarize the prefix.
        let stats = match t.values() {
            ValueSlice::W8(v) => Stats::of_slice(&v[..upto]),
            ValueSlice::W16(v) => Stats::of_slice(&v[..upto]),
            ValueSlice::W32(v) => Stats::of_slice(&v[..upto]),
        };
        Summary::from_stats(&rule.code(), &stats, period)
    };
    Ok((summary, rule))
}

/// The proved period of `values` (the octal periodicity theorem), else the pattern observed.
fn period_of<T: nimseq::engine::Cell>(rule: &Rule, values: &[T]) -> Option<Period> {
    let mut checker = PeriodChecker::new(rule);
    checker
        .update_slice(values)
        .cloned()
        .or_else(|| observe_slice(values))
}

/// The error of a table run stopped by SIGINT or SIGTERM with `at` heaps committed.
pub(super) fn interrupted(signals: &Signals, path: &std::path::Path, at: u64) -> anyhow::Error {
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

/// A failure while writing the table, saying what the table holds and where it resumes.
pub(super) fn stopped_error(e: TableError, t: &Table) -> anyhow::Error {
    match e {
        e @ (TableError::Io { .. } | TableError::ValueTooLarge { .. }) => {
            let at = t.committed();
            let held = match at {
                0 => "holds no heap yet".to_string(),
                at => format!("holds heaps 0 .. {}", at - 1),
            };
            anyhow::anyhow!("{e}; the table {held} and resumes from heap {at}")
        }
        e => table_error(e),
    }
}

/// Refuses an N whose table cannot fit on the file system that would hold it, even empty: at
/// least one byte per heap. (A disk that is merely full fails later, cleanly, and the table
/// resumes elsewhere.)
pub(super) fn check_disk(path: &std::path::Path, count: u64) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let needed = count.saturating_add(table::VALUES_OFFSET);
    match filesystem_size(dir) {
        Some(size) if needed > size => Err(usage(format!(
            "N = {count} needs a table of at least {} (one byte per heap) but the file system \
             of {} holds {} in all; give a smaller N or a path on a larger disk",
            human_bytes(needed),
            path.display(),
            human_bytes(size)
        ))),
        _ => Ok(()),
    }
}
