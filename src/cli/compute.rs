//! `nimseq compute`: compute a sequence and print its summary.

use clap::Args;

use nimseq::analysis::Summary;
use nimseq::engine;
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
    let exec = args.seq.executor()?;
    let values = engine::compute_on(&rule, count, args.seq.engine, &exec)?;
    let summary = Summary::of_values(&rule.code(), &values);
    let out = std::io::stdout().lock();
    if args.json {
        report::write_json(out, &summary)?;
    } else {
        report::write_summary_text(out, &rule, &summary)?;
    }
    Ok(())
}
