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
    #[arg(value_name = "COMPONENT", required_unless_present_any = ["file", "graph"], num_args = 1..)]
    components: Vec<String>,
    /// Also read components from FILE, one per line ('#' comments; '-' for standard input):
    /// for components longer than the command line allows (about 128 KB per argument).
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Add a graph rooted on the ground, read from FILE ('-' for standard input; may be
    /// repeated): one edge a line 'u v COLOUR', u and v vertex names, COLOUR B, R, G or blue,
    /// red, green; the vertex g (or 0) is the ground; loops and cycles allowed; '#' comments.
    /// Edges are numbered from 1 as listed. All-green graphs reduce by the fusion principle (any
    /// size, winning moves included); trees of any colour by ordinal sums; other mixed graphs
    /// are split where they meet the ground and each part with a cycle is searched block by
    /// block (2-connected pieces, up to 24 edges a block).
    #[arg(long, value_name = "FILE")]
    graph: Vec<PathBuf>,
    /// Print the result as one JSON object (values in CGSuite's notation, canonical forms as
    /// nested {"value","left","right"}). A sum whose canonical form is too costly to build has
    /// "value": null and the reason in "not_built"; its outcome and winning moves are still
    /// given, decided without the form.
    #[arg(long)]
    json: bool,
}

/// Analyses the position and prints it.
pub fn hackenbush(args: HackenbushArgs) -> anyhow::Result<()> {
    // Standard input can be read once: a second '-' would see nothing.
    let stdin_uses = args.file.iter().chain(&args.graph);
    if stdin_uses.filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(usage(
            "standard input ('-') can be given once among --file and --graph".to_string(),
        ));
    }
    let mut components = args.components;
    if let Some(path) = &args.file {
        let shown = path.display().to_string();
        let text = read_text(path)?;
        components.extend(hackenbush::components_from_text(&text));
        if components.is_empty() {
            return Err(usage(format!("'{shown}': no component in the file")));
        }
    }
    let mut graphs = Vec::new();
    for path in &args.graph {
        let text = read_text(path)?;
        graphs.push(hackenbush::parse_graph(&path.display().to_string(), &text).map_err(usage)?);
    }
    let analysis = super::progress::elapsed_notes("computing canonical forms", || {
        hackenbush::analyze_with_graphs(&components, graphs)
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

/// Reads a file, or standard input for '-'; a missing or unreadable file is a usage error.
fn read_text(path: &PathBuf) -> anyhow::Result<String> {
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
        Ok(()) => Ok(text),
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::NotFound
                    | ErrorKind::PermissionDenied
                    | ErrorKind::IsADirectory
                    | ErrorKind::InvalidData
            ) =>
        {
            Err(usage(format!("cannot read '{shown}': {e}")))
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("cannot read '{shown}'"))),
    }
}
