//! `nimseq values`: G(0) .. G(N-1) as b-file lines.
//!
//! For a game the octal periodicity theorem covers, computing stops once a period is proved and
//! the remaining values are printed from the period.

use clap::Args;

use nimseq::analysis::{periodic_value, PeriodChecker};
use nimseq::report;

use super::SequenceArgs;

/// Arguments of `values`.
#[derive(Debug, Args)]
pub struct ValuesArgs {
    #[command(flatten)]
    seq: SequenceArgs,
    /// Leave out the '#' header lines.
    #[arg(long)]
    no_header: bool,
}

/// Prints the values of heaps 0 .. N-1 as `n G(n)` lines.
pub fn values(args: ValuesArgs) -> anyhow::Result<()> {
    let (rule, count) = args.seq.resolve()?;
    let exec = args.seq.executor()?;
    let mut checker = PeriodChecker::new(&rule);
    let values = super::progress::compute_in_memory(
        &rule,
        count,
        args.seq.engine,
        &exec,
        args.seq.run.quiet,
        &mut checker,
    )?;
    let header = if args.no_header {
        Vec::new()
    } else {
        report::bfile_header(&rule, 0, count as u64)
    };
    let out = std::io::stdout().lock();
    match checker.proved() {
        Some(p) => report::write_bfile(
            out,
            &header,
            0,
            (0..count as u64).map(|n| periodic_value(&values, p, n)),
        )?,
        None => report::write_bfile(out, &header, 0, values.iter())?,
    }
    Ok(())
}
