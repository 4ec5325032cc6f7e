//! `nimseq compute`: compute a sequence and print its summary.
//!
//! For a game the octal periodicity theorem covers, computing stops as soon as a period is
//! proved: the statistics of the remaining heaps follow from the period, and the summary's
//! `period` is filled. Otherwise the summary reports the pattern observed, if any.

use std::ops::ControlFlow;

use clap::Args;

use nimseq::analysis::{extend_checking, extended_stats, observe, PeriodChecker, Summary};
use nimseq::engine::{AnyEngine, Values};
use nimseq::report;

use super::SequenceArgs;

/// Arguments of `compute`.
#[derive(Debug, Args)]
pub struct ComputeArgs {
    #[command(flatten)]
    seq: SequenceArgs,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Computes heaps 0 .. N-1 and prints the summary.
pub fn compute(args: ComputeArgs) -> anyhow::Result<()> {
    let (rule, count) = args.seq.resolve()?;
    let mut values = Values::default();
    let mut checker = PeriodChecker::new(&rule);
    extend_checking(
        &mut AnyEngine::new(&rule, args.seq.engine),
        &mut values,
        count,
        &mut checker,
        &mut |_| ControlFlow::Continue(()),
    )?;
    let summary = match checker.proved() {
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
    let out = std::io::stdout().lock();
    if args.json {
        report::write_json(out, &summary)?;
    } else {
        report::write_summary_text(out, &rule, &summary)?;
    }
    Ok(())
}
