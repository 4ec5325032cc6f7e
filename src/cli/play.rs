//! `nimseq play`: a sum of heaps of one game: values, nim-sum, outcome, winning moves.

use std::path::{Path, PathBuf};

use clap::Args;

use nimseq::engine::{self, EngineKind};
use nimseq::position::{self, misere, Analysis};
use nimseq::report;
use nimseq::resources::check_memory;
use nimseq::rules::Rule;
use nimseq::table::TableReader;

use super::{count_arg, table_error, usage};

/// Arguments of `play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game: a code (0.77, 4!.0, 0.[3]), a subtraction set or a name (kayles).
    #[arg(value_name = "GAME")]
    game: String,
    /// The heaps of the position (1000, 1e6 and 2^20 are accepted).
    #[arg(value_name = "HEAP", required = true, num_args = 1.., value_parser = count_arg, allow_negative_numbers = true)]
    heaps: Vec<u64>,
    /// Print the analysis as one JSON object.
    #[arg(long)]
    json: bool,
    /// Misère play (the last player to move loses), decided by an exact exhaustive search;
    /// refused, with a message, when the position is too large for it.
    #[arg(long)]
    misere: bool,
    /// The most positions the misère search may visit.
    #[arg(long, value_name = "POSITIONS", default_value = "2e6", value_parser = count_arg, allow_negative_numbers = true)]
    search_limit: u64,
    /// Engine for the heap values: exact (reference, O(N^2)) or auto.
    #[arg(long, default_value = "auto", value_name = "ENGINE")]
    engine: EngineKind,
    /// Read the heap values from a table written by 'nimseq compute GAME -n N --table PATH'
    /// instead of computing them: for heaps too large to compute on the spot.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["misere", "engine"])]
    table: Option<PathBuf>,
}

/// Analyses the position and prints it.
pub fn play(args: PlayArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.game).map_err(usage)?;
    let max = args.heaps.iter().copied().max().unwrap_or(0);
    let heaps: Vec<usize> = args
        .heaps
        .iter()
        .map(|&h| usize::try_from(h).map_err(|_| usage(format!("heap {h} is too large"))))
        .collect::<anyhow::Result<_>>()?;
    let out = std::io::stdout().lock();
    if args.misere {
        let limit = usize::try_from(args.search_limit).unwrap_or(usize::MAX);
        let a = misere::analyze(&rule, &heaps, limit)?;
        if args.json {
            report::write_misere_json(out, &rule, &a)?;
        } else {
            report::write_misere_text(out, &rule, &a)?;
        }
        return Ok(());
    }
    let a = match &args.table {
        Some(path) => analyze_from_table(&rule, &heaps, path)?,
        None => {
            // The values of heaps 0 .. max must fit in memory.
            check_memory(
                &format!("heap {max} (the values of heaps 0 .. {max})"),
                max.saturating_add(1),
                "; read them from a table with --table PATH \
                 (written by 'nimseq compute GAME -n N --table PATH')",
            )
            .map_err(usage)?;
            let count = usize::try_from(max.saturating_add(1))
                .map_err(|_| usage(format!("heap {max} is too large for this machine")))?;
            let values = engine::compute(&rule, count, args.engine)?;
            position::analyze(&rule, &heaps, &values)?
        }
    };
    if args.json {
        report::write_play_json(out, &rule, &a)?;
    } else {
        report::write_play_text(out, &rule, &a)?;
    }
    Ok(())
}

/// The analysis with the values of a table: it must hold `rule` and every heap up to the largest
/// one, and the checksums of the values read must hold.
fn analyze_from_table(rule: &Rule, heaps: &[usize], path: &Path) -> anyhow::Result<Analysis> {
    let t = TableReader::open(path).map_err(table_error)?;
    t.lock_shared().map_err(super::locked_for_reading)?;
    if t.game() != rule.code() {
        return Err(usage(format!(
            "{} holds the values of {}, not {}",
            path.display(),
            t.game(),
            rule.code()
        )));
    }
    let max = heaps.iter().copied().max().unwrap_or(0) as u64;
    if max >= t.len() {
        return Err(usage(format!(
            "heap {max} is beyond {}, which holds heaps 0 .. {}; extend it with \
             'nimseq compute {} -n {} --table {}'",
            path.display(),
            t.len().saturating_sub(1),
            rule.code(),
            max + 1,
            path.display()
        )));
    }
    // The winning moves read the values of every heap below the largest one.
    t.verify_range(0, max + 1)?;
    Ok(position::analyze(rule, heaps, &t.values()?)?)
}
