//! `nimseq graph`: Grundy values (generalized on cycles) of a game given as an edge list.

use std::io::{ErrorKind, Read};
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use nimseq::graph::{self, Graph, GraphError};
use nimseq::report;

use super::usage;

/// Arguments of `graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The edge list: one move 'u v' per line, '#' comments, any tokens as vertex names; a lone
    /// token declares a vertex. '-' reads standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print the analysis as one JSON object.
    #[arg(long)]
    json: bool,
    /// Refuse a graph with a cycle (the error names a vertex on it) instead of computing
    /// generalized Sprague-Grundy values.
    #[arg(long)]
    acyclic: bool,
}

/// Reads the graph, labels every vertex and prints the labels.
pub fn graph(args: GraphArgs) -> anyhow::Result<()> {
    let shown = args.file.display().to_string();
    let bytes = if shown == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut b)
            .context("cannot read standard input")?;
        b
    } else {
        match std::fs::read(&args.file) {
            Ok(b) => b,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::NotFound | ErrorKind::PermissionDenied | ErrorKind::IsADirectory
                ) =>
            {
                return Err(usage(format!("cannot read '{shown}': {e}")));
            }
            Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot read '{shown}'"))),
        }
    };
    let g = Graph::parse_bytes(&bytes).map_err(|e| usage(format!("'{shown}': {e}")))?;
    drop(bytes);
    if args.acyclic {
        if let Some(v) = graph::find_cycle(&g) {
            let e = GraphError::Cycle {
                vertex: g.name(v).to_string(),
            };
            return Err(usage(format!(
                "'{shown}': {e} (drop --acyclic for generalized Sprague-Grundy values)"
            )));
        }
    }
    let a = graph::analyze(&g);
    let out = std::io::stdout().lock();
    if args.json {
        report::write_graph_json(out, &g, &a)?;
    } else {
        report::write_graph_text(out, &g, &a)?;
    }
    Ok(())
}
