//! `nimseq values`: G(0) .. G(N-1) as b-file lines.

use clap::Args;

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
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Prints the values of heaps 0 .. N-1 as `n G(n)` lines.
pub fn values(args: ValuesArgs) -> anyhow::Result<()> {
    let (rule, count) = args.seq.resolve()?;
    let exec = args.seq.executor()?;
    let values =
        super::progress::compute_in_memory(&rule, count, args.seq.engine, &exec, args.quiet)?;
    let header = if args.no_header {
        Vec::new()
    } else {
        report::bfile_header(&rule, 0, count as u64)
    };
    report::write_bfile(std::io::stdout().lock(), &header, 0, values.iter())?;
    Ok(())
}
