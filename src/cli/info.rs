//! `nimseq info`: the summary of a table, read from its metadata (nothing is recomputed).

use std::path::PathBuf;

use clap::Args;

use nimseq::report;
use nimseq::rules::Rule;
use nimseq::table::TableReader;

use super::table_error;

/// Arguments of `info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The table file.
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// Print the summary as one JSON object (the same as `compute --json`).
    #[arg(long)]
    json: bool,
    /// Also read every value and check the checksums (reads the whole file; a line on stderr
    /// says so, a damaged chunk is an error naming its heaps).
    #[arg(long)]
    verify: bool,
}

/// Prints the summary of a table.
pub fn info(args: InfoArgs) -> anyhow::Result<()> {
    let t = TableReader::open(&args.path).map_err(table_error)?;
    if args.verify {
        t.verify()?;
        eprintln!(
            "nimseq: {}: every checksum verified (heaps 0 .. {})",
            args.path.display(),
            t.len().saturating_sub(1)
        );
    }
    let rule = Rule::parse(t.game())
        .map_err(|e| anyhow::anyhow!("{}: unknown game code in table: {e}", args.path.display()))?;
    let summary = t.summary();
    let mut out = std::io::stdout().lock();
    if args.json {
        report::write_json(out, &summary)?;
    } else {
        report::write_table_text(
            &mut out,
            &args.path.display().to_string(),
            t.file_len(),
            t.width().bytes(),
            t.widening(),
        )?;
        report::write_summary_text(out, &rule, &summary)?;
    }
    Ok(())
}
