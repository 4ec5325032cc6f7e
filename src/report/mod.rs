//! Everything users read: b-files, text and JSON summaries.
//!
//! Functions here write to any `io::Write` that the command hands them (stdout, a file); they
//! never decide where output goes and never compute values. Output is buffered in large blocks;
//! a broken pipe surfaces as an `io::Error` of kind `BrokenPipe`, which the binary treats as a
//! normal end.

mod genus;
pub mod survey;

pub use genus::{genus_notation, write_genus_json, write_genus_text};
mod graph;
mod hackenbush;
mod markdown;
mod oeis;
mod period;
mod play;
mod plot;
mod quotient;
mod table;

use std::io::{self, Write};

pub use graph::{graph_method, write_graph_json, write_graph_text};
pub use hackenbush::{
    analysis_json, game_text, mixed_number, write_analysis_json, write_analysis_text,
    write_hackenbush_json, write_hackenbush_text, AnalysisJson,
};
pub use play::{play_json, write_misere_json, write_misere_text, write_play_json, write_play_text};

use crate::analysis::{Period, Summary};
use crate::rules::{Rule, NAMED_GAMES};

pub use markdown::{write_markdown, FolderFiles, FIRST_VALUES, RARE_LISTED};
pub use oeis::{bfile_name, oeis_entry, OeisEntry};
pub use period::{not_covered_reason, theorem_inequality, write_period_text};
pub use plot::{thousands, write_svg, PlotInput, LINEAR_MAX};
pub use quotient::{write_quotient_json, write_quotient_text};
pub use table::{write_csv, write_table_text};

/// The program and version, for headers.
pub const PROGRAM: &str = concat!("nimseq ", env!("CARGO_PKG_VERSION"));

/// The game's canonical code with its common name, e.g. `0.77 (kayles)`.
pub fn game_title(rule: &Rule) -> String {
    let code = rule.code();
    match NAMED_GAMES.iter().find(|(_, c, _)| *c == code) {
        Some((name, _, _)) => format!("{code} ({name})"),
        None => code,
    }
}

/// The `#` header lines of a b-file for heaps `first..first + count` of `rule`.
pub fn bfile_header(rule: &Rule, first: u64, count: u64) -> Vec<String> {
    let last = (first + count).saturating_sub(1);
    vec![
        format!(
            "# Sprague-Grundy values G(n) of the heap game {}",
            game_title(rule)
        ),
        format!("# n = {first} .. {last}; one line 'n G(n)' per heap"),
        format!("# computed by {PROGRAM}"),
    ]
}

/// Writes `header` lines, then `n G(n)` for each `(n, G(n))` of `heaps`, one per line.
pub fn write_bfile<W: Write>(
    out: W,
    header: &[String],
    heaps: impl Iterator<Item = (u64, u32)>,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    for line in header {
        writeln!(out, "{line}")?;
    }
    let mut a = itoa::Buffer::new();
    let mut b = itoa::Buffer::new();
    for (n, g) in heaps {
        out.write_all(a.format(n).as_bytes())?;
        out.write_all(b" ")?;
        out.write_all(b.format(g).as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Writes a value as one line of JSON.
pub fn write_json<W: Write, S: serde::Serialize>(mut out: W, value: &S) -> io::Result<()> {
    serde_json::to_writer(&mut out, value)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Describes a period in one line.
pub fn period_line(p: &Period) -> String {
    let kind = match (p.proved, p.theorem_bound) {
        (true, Some(b)) => format!(
            "proved by the octal periodicity theorem from heaps 0 .. {}",
            b.saturating_sub(1)
        ),
        (true, None) => "proved".to_string(),
        (false, _) => "observed".to_string(),
    };
    let shift = if p.shift == 0 {
        String::new()
    } else {
        format!(" (arithmetic: G(n+{}) = G(n) + {})", p.period, p.shift)
    };
    let exception = match p.last_exception {
        Some(e) => format!("last exception at heap {e}"),
        None => "no exceptions".to_string(),
    };
    format!(
        "period {} from heap {} ({kind}; {exception}){shift}",
        p.period, p.preperiod
    )
}

/// Writes the human-readable summary of a computation.
pub fn write_summary_text<W: Write>(mut out: W, rule: &Rule, s: &Summary) -> io::Result<()> {
    writeln!(out, "game          {}", game_title(rule))?;
    writeln!(out, "rules         {}", rule.describe())?;
    writeln!(
        out,
        "heaps         0 .. {} ({} values)",
        s.count.saturating_sub(1),
        s.count
    )?;
    writeln!(
        out,
        "largest       {} (first at heap {})",
        s.max_value, s.max_value_first_at
    )?;
    let last = s.last_rare_at.map_or("none".to_string(), |n| n.to_string());
    writeln!(
        out,
        "rare values   mask 0x{}: {} rare heaps, the last at heap {}",
        s.rare_mask, s.rare_count, last
    )?;
    match &s.period {
        Some(p) => writeln!(out, "periodicity   {}", period_line(p))?,
        None => writeln!(out, "periodicity   not determined")?,
    }
    write_frequencies(&mut out, &s.frequencies)?;
    out.flush()
}

/// Values listed one by one in the text summary; the rest are folded into ranges.
pub const FREQUENCIES_LISTED: usize = 32;

/// The frequencies in a few lines (a summary fits on a screen): four `value: heaps` pairs a
/// line for the first [`FREQUENCIES_LISTED`] values, then the others folded into ranges
/// `2^k .. 2^(k+1) − 1`. `--json` always has every value.
fn write_frequencies<W: Write>(
    out: &mut W,
    frequencies: &std::collections::BTreeMap<u32, u64>,
) -> io::Result<()> {
    let folded = frequencies.len() > FREQUENCIES_LISTED;
    writeln!(
        out,
        "frequencies   value: heaps{}",
        if folded {
            " (the first values; ranges after them; --json lists every value)"
        } else {
            ""
        }
    )?;
    let listed: Vec<(&u32, &u64)> = frequencies.iter().take(FREQUENCIES_LISTED).collect();
    for row in listed.chunks(4) {
        let cells: Vec<String> = row
            .iter()
            .map(|(v, c)| format!("{:>6}: {:<14}", v, thousands(**c)))
            .collect();
        writeln!(out, "  {}", cells.join("").trim_end())?;
    }
    let rest: Vec<(u32, u64)> = frequencies
        .iter()
        .skip(FREQUENCIES_LISTED)
        .map(|(&v, &c)| (v, c))
        .collect();
    let mut i = 0;
    while i < rest.len() {
        // The range 2^k .. 2^(k+1) - 1 holding this value (from the first value not listed).
        let lo = rest[i].0;
        let hi = match lo.checked_next_power_of_two() {
            Some(p) if p > lo => p - 1,
            Some(p) => p.saturating_mul(2).saturating_sub(1),
            None => u32::MAX,
        };
        let (mut values, mut heaps) = (0u64, 0u64);
        while i < rest.len() && rest[i].0 <= hi {
            values += 1;
            heaps += rest[i].1;
            i += 1;
        }
        writeln!(
            out,
            "  {:>6} .. {:<6} {} heaps in all ({values} values)",
            lo,
            format!("{hi}:"),
            thousands(heaps)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfile_lines() {
        let mut out = Vec::new();
        write_bfile(&mut out, &["# x".to_string()], (0..).zip([0u32, 1, 2])).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "# x\n0 0\n1 1\n2 2\n");
    }

    #[test]
    fn frequencies_fit_on_a_screen() {
        // 200 distinct values (as Grundy's game has to 2^20): 8 lines of four, then ranges.
        let f: std::collections::BTreeMap<u32, u64> =
            (0..200).map(|v| (v, 1000 + v as u64)).collect();
        let mut out = Vec::new();
        write_frequencies(&mut out, &f).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().count() <= 14, "{text}");
        assert!(text.contains("     0: 1,000"), "{text}");
        // 32 .. 63, 64 .. 127, 128 .. 255 (only 128 .. 199 occur): every heap counted once.
        assert!(text.contains("32 .. 63:"), "{text}");
        let in_ranges: u64 = (32..64).map(|v| 1000 + v).sum();
        assert!(text.contains(&format!(
            "{} heaps in all (32 values)",
            thousands(in_ranges)
        )));
        assert!(
            text.contains("128 .. 255:") && text.contains("(72 values)"),
            "{text}"
        );
        // Few values: every one listed, nothing folded.
        let few: std::collections::BTreeMap<u32, u64> = [(0, 5), (1, 7)].into_iter().collect();
        let mut out = Vec::new();
        write_frequencies(&mut out, &few).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "frequencies   value: heaps\n       0: 5                  1: 7\n"
        );
    }

    #[test]
    fn titles() {
        assert_eq!(game_title(&Rule::parse("0.77").unwrap()), "0.77 (kayles)");
        assert_eq!(game_title(&Rule::parse("0.71").unwrap()), "0.71");
    }
}
