//! `nimseq hackenbush`: canonical forms of Hackenbush positions of every colour, their sum,
//! its outcome and the winning moves.

use clap::Args;

use nimseq::hackenbush;
use nimseq::report;

use super::usage;

/// Arguments of `hackenbush`.
#[derive(Debug, Args)]
pub struct HackenbushArgs {
    /// Components, each a tree on the ground: edges from the ground up, B (blue, Left),
    /// R (red, Right), G (green, either), e.g. BRBRR; a fork of branches in parentheses may end
    /// a component or a branch, e.g. G(B,RR) or B(R,G(G,G)).
    #[arg(value_name = "COMPONENT", required = true, num_args = 1..)]
    components: Vec<String>,
    /// Print the result as one JSON object (values in CGSuite's notation, canonical forms as
    /// nested {"value","left","right"}).
    #[arg(long)]
    json: bool,
}

/// Analyses the position and prints it.
pub fn hackenbush(args: HackenbushArgs) -> anyhow::Result<()> {
    let analysis = hackenbush::analyze(&args.components).map_err(usage)?;
    let out = std::io::stdout().lock();
    if args.json {
        report::write_analysis_json(out, &analysis)?;
    } else {
        report::write_analysis_text(out, &analysis)?;
    }
    Ok(())
}
