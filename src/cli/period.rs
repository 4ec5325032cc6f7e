//! `nimseq period`: compute until a period is proved (or a limit is reached) and report it.
//!
//! For a game the octal periodicity theorem covers, the run first goes to
//! [`api::default_period_max`] values (2^24 for a finite code; stopping as soon as a period is
//! proved); if nothing is proved by then but a candidate period fills at least two full periods,
//! it goes on to the number of values that candidate's proof needs, and again while the best candidate keeps its period (an exception only moved its
//! preperiod), up to what the machine holds: a quarter of the available memory in bytes (values
//! take one to four bytes, and widening keeps two copies for a moment), or with `--table` half
//! the free disk space. `--max N` is an explicit cap: compute up to N values, no further.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use clap::Args;

use nimseq::analysis::{
    observe, observe_slice, theorem_t, Period, PeriodChecker, PeriodReport, StopAtPeriod,
};
use nimseq::api;
use nimseq::engine::{AnyEngine, EngineKind, Fill, Overflow, Values};
use nimseq::report;
use nimseq::resources::{available_memory, free_space};
use nimseq::rules::Rule;
use nimseq::table::{self, Checkpoints, Table, TableError, ValueSlice};

use super::compute::{interrupted, stopped_error};
use super::progress::{Bar, InMemory, Signals};
use super::{checked_count_hinting, count_arg, table_error, usage, RunArgs};

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
    #[arg(long, value_name = "N", value_parser = count_arg, allow_negative_numbers = true)]
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
    #[command(flatten)]
    run: RunArgs,
}

/// Computes until the period is proved or a limit is reached, then reports.
pub fn period(args: PeriodArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.game).map_err(usage)?;
    if args.max == Some(0) {
        return Err(usage("--max must be at least 1"));
    }
    let (count, report) = match &args.table {
        Some(path) => period_table(&args, &rule, path)?,
        None => {
            let (values, report) = period_in_memory(&args, &rule)?;
            (values.len() as u64, report)
        }
    };
    let out = std::io::stdout().lock();
    if args.json {
        report::write_json(out, &report)?;
    } else {
        report::write_period_text(out, &rule, &report, count)?;
    }
    Ok(())
}

/// Where a run goes: its first target, the most it may reach, and whether it may go past the
/// first target to prove a candidate.
struct Limits {
    first: u64,
    most: u64,
    extend: bool,
}

impl Limits {
    /// `machine`: the heaps the memory or the disk holds.
    fn new(args: &PeriodArgs, rule: &Rule, machine: u64) -> Limits {
        match args.max {
            Some(max) => Limits {
                first: max,
                most: max,
                extend: false,
            },
            None => Limits {
                first: api::default_period_max(rule).min(machine),
                most: machine,
                extend: theorem_t(rule).is_some(),
            },
        }
    }

    /// The next target after a run to `len` values proved nothing: the values the best
    /// candidate's proof needs, when that is within the limits and the candidate keeps the
    /// period of the one before (`previous`).
    fn next(&self, len: u64, best: Option<&Period>, previous: &mut Option<u64>) -> Option<u64> {
        let c = best.filter(|_| self.extend)?;
        let need = c.theorem_bound?;
        let stable = previous.is_none_or(|p| p == c.period);
        *previous = Some(c.period);
        (stable && need > len && need <= self.most).then_some(need)
    }
}

/// Heaps the memory holds: a quarter of the available bytes (2^30 when unknown).
fn memory_heaps() -> u64 {
    available_memory().map_or(1 << 30, |b| b / 4).max(1)
}

/// The values computed in memory and the report.
fn period_in_memory(args: &PeriodArgs, rule: &Rule) -> anyhow::Result<(Values, PeriodReport)> {
    let limits = Limits::new(args, rule, memory_heaps());
    let first = checked_count_hinting(
        "--max",
        limits.first,
        "; give a smaller --max, or keep the values on disk with --table PATH",
    )?;
    let mut values = Values::default();
    let mut checker = PeriodChecker::new(rule);
    let mut engine = AnyEngine::with_executor(rule, args.engine, args.run.executor()?);
    let mut run = InMemory::new(first as u64, &args.run.bar);
    let mut target = first;
    let mut previous = None;
    let result = loop {
        run.set_total(target as u64);
        if let Err(e) = run.extend(&mut engine, &mut values, target, &mut checker) {
            break Err(e);
        }
        if checker.proved().is_some() {
            break Ok(());
        }
        let best = checker.best_candidate(&values);
        match limits.next(values.len() as u64, best.as_ref(), &mut previous) {
            Some(next) => target = next as usize,
            None => break Ok(()),
        }
    };
    run.finish();
    result?;
    let period = match checker.proved() {
        Some(p) => Some(p.clone()),
        None => checker.best_candidate(&values).or_else(|| observe(&values)),
    };
    let report = PeriodReport::new(
        &rule.code(),
        values.len() as u64,
        theorem_t(rule),
        period.as_ref(),
    );
    Ok((values, report))
}

/// An engine that raises `proved` once the period checker of [`StopAtPeriod`] has proved a
/// period, so that the table run stops after that chunk.
struct Watch<'a, E> {
    inner: StopAtPeriod<E>,
    proved: &'a Cell<bool>,
}

impl<E: Fill> Fill for Watch<'_, E> {
    fn fill<T: nimseq::engine::Cell>(
        &mut self,
        vals: &mut [T],
        start: usize,
        end: usize,
    ) -> Result<(), Overflow> {
        let r = self.inner.fill(vals, start, end);
        if self.inner.proved().is_some() {
            self.proved.set(true);
        }
        r
    }
}

/// The checker's verdict on every value of a table, with a search at its length.
fn settle(checker: &mut PeriodChecker, values: &ValueSlice<'_>) -> Option<Period> {
    match values {
        ValueSlice::W8(v) => checker.settle_slice(v).cloned(),
        ValueSlice::W16(v) => checker.settle_slice(v).cloned(),
        ValueSlice::W32(v) => checker.settle_slice(v).cloned(),
    }
}

fn best_candidate(checker: &PeriodChecker, values: &ValueSlice<'_>) -> Option<Period> {
    match values {
        ValueSlice::W8(v) => checker.best_candidate_slice(v),
        ValueSlice::W16(v) => checker.best_candidate_slice(v),
        ValueSlice::W32(v) => checker.best_candidate_slice(v),
    }
}

/// `period --table PATH`: the values in a table, resumed from what it holds; a proved period
/// is recorded in it. Returns the heaps the table holds and the report.
fn period_table(
    args: &PeriodArgs,
    rule: &Rule,
    path: &Path,
) -> anyhow::Result<(u64, PeriodReport)> {
    let signals = Signals::catch().map_err(|e| anyhow::anyhow!("cannot catch signals: {e}"))?;
    let mut t = Table::open(path, &rule.code()).map_err(table_error)?;
    let t_index = theorem_t(rule);
    if let Some(p) = t.period().filter(|p| p.proved).cloned() {
        // Proved by an earlier run: nothing to compute.
        let count = t.len();
        let report = PeriodReport::new(&rule.code(), count, t_index, Some(&p.seen_in(count)));
        return Ok((count, report));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let disk = free_space(dir).map_or(1 << 34, |b| b / 2);
    let limits = Limits::new(args, rule, t.len().saturating_add(disk).max(1));
    super::compute::check_disk(path, limits.first)?;
    let proved = Cell::new(false);
    let mut engine = Watch {
        inner: StopAtPeriod::new(
            AnyEngine::with_executor(rule, args.engine, args.run.executor()?),
            rule,
        ),
        proved: &proved,
    };
    let mut bar = Bar::new(limits.first, &args.run.bar);
    let mut target = limits.first;
    let mut previous = None;
    let mut checker = PeriodChecker::new(rule);
    let mut found: Option<Period> = None;
    loop {
        if t.len() < target {
            t.forget_observed_period();
        }
        bar.set_total(target);
        let r = table::extend(
            &mut t,
            &mut engine,
            target,
            &Checkpoints::default(),
            &mut |p| {
                bar.update(p.done, p.histogram);
                if signals.received().is_some() || proved.get() {
                    std::ops::ControlFlow::Break(())
                } else {
                    std::ops::ControlFlow::Continue(())
                }
            },
        );
        match r {
            Ok(()) => {}
            Err(TableError::Stopped { .. }) if signals.received().is_none() => {}
            Err(TableError::Stopped { at }) => {
                bar.finish();
                return Err(interrupted(&signals, path, at));
            }
            Err(e) => {
                bar.finish();
                return Err(stopped_error(e, &t));
            }
        }
        if let Some(p) = engine.inner.proved() {
            found = Some(p.clone());
            break;
        }
        // Nothing proved on the way (or the table already held the values): the verdict on
        // everything the table holds, then perhaps a further target.
        checker = PeriodChecker::new(rule);
        if let Some(p) = settle(&mut checker, &t.values()) {
            found = Some(p);
            break;
        }
        let best = best_candidate(&checker, &t.values());
        match limits.next(t.len(), best.as_ref(), &mut previous) {
            Some(next) => target = next,
            None => break,
        }
    }
    bar.finish();
    let count = t.len();
    let period = match found {
        Some(p) => {
            let p = p.seen_in(count);
            t.record_period(Some(p.clone()))
                .map_err(|e| stopped_error(e, &t))?;
            Some(p)
        }
        None => {
            let values = t.values();
            best_candidate(&checker, &values).or_else(|| match values {
                ValueSlice::W8(v) => observe_slice(v),
                ValueSlice::W16(v) => observe_slice(v),
                ValueSlice::W32(v) => observe_slice(v),
            })
        }
    };
    // A run stopped at its proof is committed but not in the canonical layout yet.
    t.finish().map_err(|e| stopped_error(e, &t))?;
    let report = PeriodReport::new(&rule.code(), count, t_index, period.as_ref());
    Ok((count, report))
}
