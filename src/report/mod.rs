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
pub use hackenbush::{game_text, mixed_number, write_hackenbush_json, write_hackenbush_text};
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
    writeln!(out, "frequencies   value: heaps")?;
    for (v, c) in &s.frequencies {
        writeln!(out, "  {v:>10}: {c}")?;
    }
    out.flush()
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
    fn titles() {
        assert_eq!(game_title(&Rule::parse("0.77").unwrap()), "0.77 (kayles)");
        assert_eq!(game_title(&Rule::parse("0.71").unwrap()), "0.71");
    }
}
