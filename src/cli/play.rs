//! `nimseq play`: a sum of heaps of one game: values, nim-sum, outcome, winning moves.

use std::ops::ControlFlow;
use std::path::PathBuf;

use clap::Args;

use nimseq::api;
use nimseq::engine::EngineKind;
use nimseq::position::{misere, Analysis};
use nimseq::report;
use nimseq::rules::Rule;

use super::progress::{InMemory, Spinner};
use super::{api_error, count_arg, reading_error, usage, RunArgs};

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
    /// Misère play (the last player to move loses), decided exactly: Bouton's theorem for Nim
    /// heaps, genus theory when every heap is tame, misère canonical forms, or an exhaustive
    /// search; refused, with a message, when the position is too large for all of them.
    #[arg(long)]
    misere: bool,
    /// The budget of --misere: the most canonical forms (each with 8 units of work), then the
    /// most positions the exhaustive search may visit. The default takes up to about 11 s of one
    /// core when both are exhausted; the time grows faster than the budget.
    #[arg(long, value_name = "POSITIONS", default_value = "2e6", value_parser = count_arg, allow_negative_numbers = true)]
    search_limit: u64,
    /// Engine for the heap values: exact (reference, O(N^2)) or auto.
    #[arg(long, default_value = "auto", value_name = "ENGINE")]
    engine: EngineKind,
    /// Read the heap values from a table written by 'nimseq compute GAME -n N --table PATH'
    /// instead of computing them: for heaps too large to compute on the spot (beyond its end,
    /// from the proved period it records).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["misere", "engine", "threads"])]
    table: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
    /// List at most this many winning moves (all are still counted): a sum of thousands of large
    /// heaps can have millions. [default: all]
    #[arg(long, value_name = "K", value_parser = count_arg, allow_negative_numbers = true)]
    max_moves: Option<u64>,
}

/// Analyses the position and prints it.
pub fn play(args: PlayArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.game).map_err(usage)?;
    let heaps: Vec<usize> = args
        .heaps
        .iter()
        .map(|&h| usize::try_from(h).map_err(|_| usage(format!("heap {h} is too large"))))
        .collect::<anyhow::Result<_>>()?;
    let max_moves = args
        .max_moves
        .map_or(usize::MAX, |k| usize::try_from(k).unwrap_or(usize::MAX));
    let out = std::io::stdout().lock();
    if args.misere {
        let limit = usize::try_from(args.search_limit).unwrap_or(usize::MAX);
        let spinner = Spinner::new(&args.run.bar);
        let r = misere::analyze_reporting(&rule, &heaps, limit, |stage| {
            spinner.set_message(match stage {
                misere::Stage::Quick => "misère play: small budget",
                misere::Stage::Quotient => "misère play: the game's misère quotient",
                misere::Stage::Forms => "misère play: canonical forms (--search-limit)",
                misere::Stage::Search => "misère play: exhaustive search (--search-limit)",
            })
        });
        spinner.finish();
        let mut a = r?;
        a.list_at_most(max_moves);
        if args.json {
            report::write_misere_json(out, &rule, &a)?;
        } else {
            report::write_misere_text(out, &rule, &a)?;
        }
        return Ok(());
    }
    let a = match &args.table {
        Some(path) => {
            api::play_from_table(&rule, &args.heaps, path, max_moves).map_err(reading_error)?
        }
        None => analyze_computed(&rule, &args.heaps, args.engine, &args.run, max_moves)?,
    };
    if args.json {
        report::write_play_json(out, &rule, &a)?;
    } else {
        report::write_play_text(out, &rule, &a)?;
    }
    Ok(())
}

/// The analysis with values from the engine ([`api::play`]), computed (on all cores) until the
/// octal periodicity theorem proves a period, which then gives the values of larger heaps: heaps
/// far beyond the memory work for games whose period is proved.
fn analyze_computed(
    rule: &Rule,
    heaps: &[u64],
    kind: EngineKind,
    run: &RunArgs,
    max_moves: usize,
) -> anyhow::Result<Analysis> {
    let exec = run.executor()?;
    let top = heaps.iter().copied().max().unwrap_or(0);
    super::warn_cost(rule, top.saturating_add(1), &run.bar);
    // The bar's end is the target of the first step (the heaps computed).
    let mut shown = InMemory::new(0, &run.bar);
    let r = api::play(rule, heaps, kind, &exec, max_moves, &mut |step| {
        shown.show(step);
        ControlFlow::Continue(())
    });
    shown.finish();
    r.map_err(api_error)
}
