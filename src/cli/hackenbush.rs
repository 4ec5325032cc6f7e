//! `nimseq hackenbush`: canonical forms of Hackenbush positions of every colour, their sum,
//! its outcome and the winning moves.

use std::io::{ErrorKind, Read};
use std::path::PathBuf;

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
    #[arg(value_name = "COMPONENT", required_unless_present = "file", num_args = 1..)]
    components: Vec<String>,
    /// Also read components from FILE, one per line ('#' comments; '-' for standard input):
    /// for components longer than the command line allows (about 128 KB per argument).
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Print the result as one JSON object (values in CGSuite's notation, canonical forms as
    /// nested {"value","left","right"}).
    #[arg(long)]
    json: bool,
}

/// Analyses the position and prints it.
pub fn hackenbush(args: HackenbushArgs) -> anyhow::Result<()> {
    let mut components = args.components;
    if let Some(path) = &args.file {
        let shown = path.display().to_string();
        let mut text = String::new();
        let read = if shown == "-" {
            std::io::stdin()
                .lock()
                .read_to_string(&mut text)
                .map(|_| ())
        } else {
            std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text).map(|_| ()))
        };
        match read {
            Ok(()) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::NotFound
                        | ErrorKind::PermissionDenied
                        | ErrorKind::IsADirectory
                        | ErrorKind::InvalidData
                ) =>
            {
                return Err(usage(format!("cannot read '{shown}': {e}")));
            }
            Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot read '{shown}'"))),
        }
        components.extend(hackenbush::components_from_text(&text));
        if components.is_empty() {
            return Err(usage(format!("'{shown}': no component in the file")));
        }
    }
    let analysis = super::progress::elapsed_notes("computing canonical forms", || {
        hackenbush::analyze(&components)
    })
    .map_err(usage)?;
    let out = std::io::stdout().lock();
    if args.json {
        report::write_analysis_json(out, &analysis)?;
    } else {
        report::write_analysis_text(out, &analysis)?;
    }
    Ok(())
}
