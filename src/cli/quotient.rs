//! `nimseq quotient`: the misère quotient of an octal game (Plambeck and Siegel), heap by heap
//! until certified or `--max-heap`.

use std::ops::ControlFlow;

use clap::Args;

use nimseq::api;
use nimseq::report;
use nimseq::rules::Rule;

use super::progress::{Bar, Interrupted, Signals};
use super::{usage, BarArgs};

/// Arguments of `quotient`.
#[derive(Debug, Args)]
pub struct QuotientArgs {
    /// The game: an octal code (0.77, 0.07, 0.137) or a name (kayles).
    #[arg(value_name = "GAME")]
    game: String,
    /// Stop after heap N when the quotient is not certified by then (default 1000).
    #[arg(long, value_name = "N", value_parser = super::count_arg, allow_negative_numbers = true)]
    max_heap: Option<u64>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    bar: BarArgs,
}

/// Prints the quotient; exit 1 when it stopped on an error (after printing what it has), 130
/// on Ctrl-C after the heap under way (likewise); a second Ctrl-C exits at once.
pub fn quotient(args: QuotientArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.game).map_err(usage)?;
    let max = args.max_heap.unwrap_or(api::QUOTIENT_DEFAULT_MAX_HEAP);
    let signals = Signals::catch()?;
    // A heap can take long on a large quotient and the flag is read between heaps: a second
    // SIGINT or SIGTERM ends the process at once.
    let again = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, again.clone())?;
        signal_hook::flag::register(sig, again.clone())?;
    }
    let mut bar = Bar::new(max + 1, &args.bar);
    let (report, err) = api::quotient(&args.game, Some(max), |n, order| {
        bar.set_position(n as u64 + 1);
        bar.set_message(&format!("|Q| = {order}"));
        if signals.received().is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .map_err(super::api_error)?;
    bar.finish();
    let out = std::io::stdout().lock();
    if args.json {
        report::write_quotient_json(out, &report)?;
    } else {
        report::write_quotient_text(out, &rule, &report)?;
    }
    if let Some(e) = err {
        return Err(anyhow::anyhow!(
            "{e}; the quotient of heaps 0 .. {} is printed",
            report.report.last_heap
        ));
    }
    if let Some(signal) = signals.received() {
        return Err(Interrupted {
            signal,
            message: format!("stopped by a signal after heap {}", report.report.last_heap),
        }
        .into());
    }
    Ok(())
}
