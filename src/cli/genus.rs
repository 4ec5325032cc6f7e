//! `nimseq genus`: the misère genus and class of heaps 0 .. N-1, from exact canonical forms.

use std::time::{Duration, Instant};

use clap::Args;

use nimseq::misere::{MisereError, MisereHeaps};
use nimseq::report;
use nimseq::rules::Rule;

use super::progress::Bar;
use super::{usage, BarArgs};

/// Arguments of `genus`.
#[derive(Debug, Args)]
pub struct GenusArgs {
    /// The game: a code (0.77, 4!.0, 0.137, 0.3F) or a name (kayles, grundy).
    #[arg(value_name = "GAME")]
    game: String,
    /// How many heaps: 0 .. N-1 (exact misère analysis is expensive: tens, not millions).
    #[arg(short = 'n', long = "count", value_name = "N", value_parser = super::count_arg, allow_negative_numbers = true)]
    count: u64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Stop with an error beyond this many distinct canonical forms (default: what fits in
    /// half the available memory).
    #[arg(long, value_name = "FORMS", value_parser = super::count_arg, allow_negative_numbers = true)]
    max_forms: Option<u64>,
    /// Leave out the class (its half-tame test adds G + G, which dominates the cost of large
    /// heaps): reach further.
    #[arg(long)]
    no_class: bool,
    /// Print progress lines (heap, forms, time) to stderr, for logs; on a terminal the progress
    /// bar is drawn anyway (unless --quiet).
    #[arg(long)]
    progress: bool,
    #[command(flatten)]
    bar: BarArgs,
}

/// Largest N accepted: canonical forms of larger heaps could never be computed anyway.
const MAX_HEAPS: u64 = 100_000;

/// Bytes a canonical form costs, roughly (options, values, genus, index, memoized sums).
const BYTES_PER_FORM: u64 = 160;

/// Prints the genus table of heaps 0 .. N-1.
pub fn genus(args: GenusArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.game).map_err(usage)?;
    if args.count == 0 {
        return Err(usage("N must be at least 1"));
    }
    if args.count > MAX_HEAPS {
        return Err(usage(format!(
            "N = {} is too many heaps for an exact misère analysis (at most {MAX_HEAPS})",
            args.count
        )));
    }
    let count = args.count as usize;
    let limit = match args.max_forms {
        Some(0) => return Err(usage("--max-forms must be at least 1")),
        Some(m) => usize::try_from(m).unwrap_or(usize::MAX),
        None => default_limit(),
    };
    let mut heaps = MisereHeaps::with_limit(&rule, limit);
    let start = Instant::now();
    let mut last = Instant::now();
    let show = args.progress;
    let mut bar = Bar::new(count as u64, &args.bar);
    bar.set_message("canonical forms");
    let result = heaps.extend_with_progress(count, |n| {
        bar.set_position(n as u64 + 1);
        if show && (last.elapsed() > Duration::from_millis(500) || n + 1 == count) {
            last = Instant::now();
            bar.println(&format!(
                "nimseq: heap {n} done, {:.1} s",
                start.elapsed().as_secs_f64()
            ));
        }
    });
    // Past the limit, the heaps finished are still printed, then the error (exit 1).
    let mut failure = result.err().map(|e| too_large(e, heaps.count()));
    let reached = heaps.count();
    let mut rows = Vec::with_capacity(reached);
    if !args.no_class {
        bar.set_message("classes");
    }
    for n in 0..reached {
        if !args.no_class {
            bar.set_position(n as u64);
        }
        match heaps.heap_genus(n, !args.no_class) {
            Ok(row) => rows.push(row),
            Err(e) => {
                failure = Some(too_large(e, n));
                break;
            }
        }
        // The class of a large heap (its half-tame test simplifies G + G) takes far longer
        // than its form: report it too.
        if show && !args.no_class && (last.elapsed() > Duration::from_millis(500) || n + 1 == count)
        {
            last = Instant::now();
            bar.println(&format!(
                "nimseq: class of heap {n} done, {:.1} s",
                start.elapsed().as_secs_f64()
            ));
        }
    }
    bar.finish();
    if show {
        eprintln!(
            "nimseq: {} canonical forms, {} sums memoized, about {} MiB, {:.1} s",
            heaps.forms().len(),
            heaps.forms().sums_memoized(),
            heaps.forms().bytes() >> 20,
            start.elapsed().as_secs_f64()
        );
    }
    if !rows.is_empty() {
        let out = std::io::stdout().lock();
        if args.json {
            report::write_genus_json(out, &rule, &rows)?;
        } else {
            report::write_genus_text(out, &rule, &rows)?;
        }
    }
    failure.map_or(Ok(()), Err)
}

fn too_large(e: MisereError, done: usize) -> anyhow::Error {
    match e {
        MisereError::TooLarge { .. } if done > 0 => anyhow::anyhow!(
            "{e}; heaps 0 .. {} printed; give a larger --max-forms to go further",
            done - 1
        ),
        MisereError::TooLarge { .. } => {
            anyhow::anyhow!("{e}; give a larger --max-forms")
        }
        other => other.into(),
    }
}

fn default_limit() -> usize {
    let avail = nimseq::resources::available_memory().unwrap_or(4 << 30);
    usize::try_from(avail / 2 / BYTES_PER_FORM).unwrap_or(usize::MAX)
}
