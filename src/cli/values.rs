//! `nimseq values`: G(0) .. G(N-1) as b-file lines.
//!
//! For a game the octal periodicity theorem covers, computing stops once a period is proved and
//! the remaining values are printed from the period.

use std::ops::ControlFlow;
use std::path::PathBuf;

use clap::Args;

use nimseq::api;
use nimseq::report;
use nimseq::rules::Rule;

use super::progress::InMemory;
use super::SequenceArgs;

/// Arguments of `values`.
#[derive(Debug, Args)]
pub struct ValuesArgs {
    #[command(flatten)]
    seq: SequenceArgs,
    /// Leave out the '#' header lines.
    #[arg(long)]
    no_header: bool,
    /// Read the values from a table written by 'nimseq compute GAME -n N --table PATH' instead of
    /// computing them (the table must hold heaps 0 .. N-1, or a proved period that gives them;
    /// its checksums are checked).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["engine", "threads"])]
    table: Option<PathBuf>,
}

/// Prints the values of heaps 0 .. N-1 as `n G(n)` lines.
pub fn values(args: ValuesArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.seq.game).map_err(super::usage)?;
    let count = args.seq.count;
    let header = if args.no_header {
        Vec::new()
    } else {
        report::bfile_header(&rule, 0, count)
    };
    let out = std::io::stdout().lock();
    if let Some(path) = &args.table {
        let t = api::checked_table(&rule, path, count).map_err(super::reading_error)?;
        report::write_bfile(out, &header, (0..count).map(|n| (n, t.get(n))))?;
        return Ok(());
    }
    let exec = args.seq.executor()?;
    super::warn_cost(&rule, count, &args.seq.run.bar);
    let mut run = InMemory::new(count, &args.seq.run.bar);
    let r = api::values(&rule, count, args.seq.engine, &exec, &mut |step| {
        run.show(step);
        ControlFlow::Continue(())
    });
    run.finish();
    let (values, _) = r.map_err(super::api_error)?;
    report::write_bfile(out, &header, (0..).zip(values.iter()))?;
    Ok(())
}
