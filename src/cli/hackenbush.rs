//! `nimseq hackenbush`: exact values of Hackenbush strings and of their sum.

use clap::Args;

use nimseq::hackenbush;
use nimseq::report;

use super::usage;

/// Arguments of `hackenbush`.
#[derive(Debug, Args)]
pub struct HackenbushArgs {
    /// Strings of edges from the ground up: B (blue, Left), R (red, Right), G (green); e.g.
    /// BBBRRBBR. Green edges only in all-green strings.
    #[arg(value_name = "STRING", required = true, num_args = 1..)]
    strings: Vec<String>,
    /// Print the values as one JSON object (values as reduced fractions, e.g. "77/32").
    #[arg(long)]
    json: bool,
}

/// Evaluates the strings and prints their values.
pub fn hackenbush(args: HackenbushArgs) -> anyhow::Result<()> {
    let sum = hackenbush::evaluate(&args.strings).map_err(usage)?;
    let out = std::io::stdout().lock();
    if args.json {
        report::write_hackenbush_json(out, &sum)?;
    } else {
        report::write_hackenbush_text(out, &sum)?;
    }
    Ok(())
}
