//! `nimseq period`: compute until a period is proved (or the limit is reached) and report it.

use std::ops::ControlFlow;

use clap::Args;

use nimseq::analysis::{extend_checking, observe, theorem_t, PeriodChecker, PeriodReport};
use nimseq::engine::{AnyEngine, EngineKind, Values};
use nimseq::numbers::parse_count;
use nimseq::report;
use nimseq::rules::Rule;

use super::{checked_count_hinting, usage};

/// The default limit of `period --max`.
pub const DEFAULT_MAX: u64 = 1 << 24;

/// The default limit for codes whose moves may leave three heaps, or whose repeating tail
/// splits (a take of any size, then a split): every heap then has O(n²) options, so N values
/// cost O(N³) (2^11 values take about a second).
pub const DEFAULT_MAX_CUBIC: u64 = 1 << 11;

/// The default limit for codes with a repeating tail that does not split (takes of any size
/// leaving one heap, like Nim `0.[3]`): O(n) options a heap, O(N²) in all.
pub const DEFAULT_MAX_QUADRATIC: u64 = 1 << 16;

/// `--max` when it is not given: by the cost of the rule's moves (see the constants).
pub fn default_max(rule: &Rule) -> u64 {
    let tail_splits = rule
        .tail_digits()
        .iter()
        .any(|d| d.leaves_two() || d.leaves_three());
    if rule.is_hexadecimal() || tail_splits {
        DEFAULT_MAX_CUBIC
    } else if !rule.is_finite() {
        DEFAULT_MAX_QUADRATIC
    } else {
        DEFAULT_MAX
    }
}

/// Arguments of `period`.
#[derive(Debug, Args)]
pub struct PeriodArgs {
    /// The game: a code (0.77, 0.16, 4!.0, 0.3F) or a name (kayles).
    #[arg(value_name = "GAME")]
    game: String,
    /// Compute at most N values (heaps 0 .. N-1) [default: 2^24; 2^16 for a repeating tail,
    /// O(N^2); 2^11 for moves that may leave three heaps or a tail that splits, O(N^3)].
    #[arg(long, value_name = "N", value_parser = count_arg, allow_negative_numbers = true)]
    max: Option<u64>,
    /// Engine: exact (reference, O(N^2)) or auto (the fastest that applies).
    #[arg(long, default_value = "auto", value_name = "ENGINE")]
    engine: EngineKind,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

fn count_arg(s: &str) -> Result<u64, String> {
    parse_count(s).map_err(|e| e.to_string())
}

/// Computes until the period is proved or `--max` values are reached, then reports.
pub fn period(args: PeriodArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.game).map_err(usage)?;
    let max = checked_count_hinting(
        "--max",
        args.max.unwrap_or_else(|| default_max(&rule)),
        "; give a smaller --max",
    )?;
    let (values, report) = find_period(&rule, max, args.engine)?;
    let out = std::io::stdout().lock();
    if args.json {
        report::write_json(out, &report)?;
    } else {
        report::write_period_text(out, &rule, &report, values.len() as u64)?;
    }
    Ok(())
}

/// The values computed and the period report: proved when the theorem covers the rule and the
/// values allow it within `max`; otherwise, for a rule the theorem covers, the candidate closest
/// to a proof (with the values a proof would need), and for any other rule the pattern observed
/// in all `max` values.
pub fn find_period(
    rule: &Rule,
    max: usize,
    kind: EngineKind,
) -> anyhow::Result<(Values, PeriodReport)> {
    let mut values = Values::default();
    let mut checker = PeriodChecker::new(rule);
    let mut engine = AnyEngine::new(rule, kind);
    extend_checking(&mut engine, &mut values, max, &mut checker, &mut |_| {
        ControlFlow::Continue(())
    })?;
    let period = match checker.proved() {
        Some(p) => Some(p.clone()),
        None => checker.best_candidate(&values).or_else(|| observe(&values)),
    };
    let report = PeriodReport::new(
        &rule.code(),
        values.len() as u64,
        theorem_t(rule),
        period.as_ref(),
    );
    Ok((values, report))
}
