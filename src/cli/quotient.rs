//! `nimseq quotient`: the misère quotient of an octal game (Plambeck and Siegel), heap by heap
//! until certified or `--max-heap`.

use std::ops::ControlFlow;

use clap::Args;

use nimseq::api;
use nimseq::misere::quotient::QuotientError;
use nimseq::report;
use nimseq::rules::Rule;

use super::progress::{Bar, Interrupted, Signals};
use super::{usage, RunArgs};

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
    /// With --json: leave out the order × order multiplication table ("table": null), which
    /// is order² numbers (hundreds of MB at order 10^4).
    #[arg(long, requires = "json")]
    no_table: bool,
    /// Hold at most this much memory: 8G, 512M, 2^30 (bytes; K, M, G, T are powers of 1024).
    /// Tables and verification states are sized before they are allocated; a heap that needs
    /// more stops the command (exit 1) with the quotient of the heaps before. Default: half
    /// the memory available when the command starts.
    #[arg(long, value_name = "SIZE", value_parser = memory_arg)]
    max_memory: Option<u64>,
    /// A recalibration skips candidates of more than N elements before reduction (default
    /// 2^18); each is order·radix entries of tables, so memory grows with it.
    #[arg(long, value_name = "N", value_parser = super::count_arg, allow_negative_numbers = true)]
    candidate_size: Option<u64>,
    /// A recalibration skips candidates of more than N elements after reduction (default
    /// 2^14: a table of 512 MiB; N² · 2 bytes up to 2^16 elements, 4 beyond).
    #[arg(long, value_name = "N", value_parser = super::count_arg, allow_negative_numbers = true)]
    candidate_order: Option<u64>,
    /// A heap gives up after N candidates past its first failed one (default 64; 0: no
    /// recalibration).
    #[arg(long, value_name = "N", value_parser = super::count_arg, allow_negative_numbers = true)]
    recalibrations: Option<u64>,
    #[command(flatten)]
    run: RunArgs,
}

/// Prints the quotient; exit 1 when it stopped on an error such as the memory limit (after
/// printing what it has), 130 on Ctrl-C and 143 on SIGTERM (likewise, with the heaps finished:
/// the heap under way is abandoned within milliseconds); a second Ctrl-C exits at once.
pub fn quotient(args: QuotientArgs) -> anyhow::Result<()> {
    let rule = Rule::parse(&args.game).map_err(usage)?;
    let max = args.max_heap.unwrap_or(api::QUOTIENT_DEFAULT_MAX_HEAP);
    let signals = Signals::catch()?;
    // The flag is read between heaps and during each (between candidates, and every few
    // hundred verification states); a second SIGINT or SIGTERM ends the process at once.
    let again = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, again.clone())?;
        signal_hook::flag::register(sig, again.clone())?;
    }
    let opts = api::QuotientOptions {
        max_heap: Some(max),
        max_memory: args.max_memory,
        table: !args.no_table,
        threads: args.run.thread_count(),
        candidate_size: args.candidate_size,
        candidate_order: args.candidate_order,
        recalibrations: args.recalibrations,
    };
    // Checked before the bar is drawn: a bad limit is a one-line message (exit 2).
    opts.candidate_limits().map_err(super::api_error)?;
    let mut bar = Bar::new(max + 1, &args.run.bar);
    let stop = || signals.received().is_some();
    let (report, err) = api::quotient_until(
        &args.game,
        &opts,
        |n, order| {
            bar.set_position(n as u64 + 1);
            bar.set_message(&format!("|Q| = {order}"));
            if stop() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
        &stop,
    )
    .map_err(super::api_error)?;
    bar.finish();
    // Buffered: the JSON table is written row by row (order² numbers).
    let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if args.json {
        report::write_quotient_json(out, &report)?;
    } else {
        report::write_quotient_text(out, &rule, &report)?;
    }
    if let Some(e) = err {
        let hint = match e {
            QuotientError::Memory { .. } => "; give a larger --max-memory to go further",
            _ => "",
        };
        // The refinement error says already which heaps are kept.
        if let QuotientError::Refinement { .. } = e {
            return Err(anyhow::anyhow!("{e}; it is printed"));
        }
        return Err(anyhow::anyhow!(
            "{e}; the quotient of heaps 0 .. {} is printed{hint}",
            report.report.last_heap
        ));
    }
    if let Some(signal) = signals.received() {
        return Err(Interrupted {
            signal,
            message: format!(
                "stopped by {}: the quotient of heaps 0 .. {} is printed",
                if signal == signal_hook::consts::SIGTERM {
                    "SIGTERM"
                } else {
                    "SIGINT"
                },
                report.report.last_heap
            ),
        }
        .into());
    }
    Ok(())
}

/// A memory size: a count (`2^30`, `4e9`) or a number with a binary suffix (`512M`, `8G`,
/// `8GiB`).
fn memory_arg(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let stripped = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (num, shift) = match stripped.chars().last() {
        Some('k') => (&stripped[..stripped.len() - 1], 10),
        Some('m') => (&stripped[..stripped.len() - 1], 20),
        Some('g') => (&stripped[..stripped.len() - 1], 30),
        Some('t') => (&stripped[..stripped.len() - 1], 40),
        _ => (stripped, 0),
    };
    let bad = || format!("'{s}' is not a memory size (8G, 512M, 2^30)");
    let n = super::count_arg(num).map_err(|_| bad())?;
    let bytes = n.checked_mul(1 << shift).ok_or_else(bad)?;
    if bytes == 0 {
        return Err(format!("--max-memory must be at least 1 byte, not '{s}'"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::memory_arg;

    #[test]
    fn memory_sizes() {
        assert_eq!(memory_arg("8G"), Ok(8 << 30));
        assert_eq!(memory_arg("8GiB"), Ok(8 << 30));
        assert_eq!(memory_arg("512m"), Ok(512 << 20));
        assert_eq!(memory_arg("2^30"), Ok(1 << 30));
        assert_eq!(memory_arg("4e9"), Ok(4_000_000_000));
        assert_eq!(memory_arg("1K"), Ok(1024));
        assert!(memory_arg("0").is_err());
        assert!(memory_arg("lots").is_err());
        assert!(memory_arg("-1G").is_err());
        assert!(memory_arg("99999999999T").is_err());
    }
}
