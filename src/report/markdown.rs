//! The Markdown summary of a report folder: the game, its periodicity, its values.

use std::io::{self, Write};

use crate::analysis::{is_rare, Profile, Summary};
use crate::rules::Rule;

use super::plot::thousands;
use super::{game_title, not_covered_reason, theorem_inequality, PROGRAM};

/// The other files of the folder, as the summary names them.
pub struct FolderFiles<'a> {
    /// The b-file's name.
    pub bfile: &'a str,
    /// Its first heap (the OEIS offset).
    pub bfile_first: u64,
    /// Its last heap.
    pub bfile_last: u64,
    /// The OEIS A-number, when the sequence has one.
    pub a_number: Option<&'a str>,
    /// The plot's file name.
    pub plot: &'a str,
}

/// How many rare heaps the summary lists.
pub const RARE_LISTED: usize = 500;
/// How many first values the summary shows.
pub const FIRST_VALUES: usize = 200;

/// Writes the summary. `computed` values were computed; the rest (up to `summary.count`)
/// follow from a proved period. `t` is the theorem's `t` when it covers the game.
#[allow(clippy::too_many_arguments)]
pub fn write_markdown<W: Write>(
    out: W,
    rule: &Rule,
    summary: &Summary,
    profile: &Profile,
    first_values: &[u32],
    files: &FolderFiles,
    computed: u64,
    t: Option<u64>,
) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let s = summary;
    writeln!(out, "# Sprague–Grundy values of {}\n", game_title(rule))?;
    writeln!(out, "| | |\n|---|---|")?;
    writeln!(out, "| game | `{}` |", rule.code())?;
    writeln!(out, "| moves | {} |", rule.describe())?;
    writeln!(
        out,
        "| heaps | 0 – {} ({} values) |",
        thousands(s.count.saturating_sub(1)),
        thousands(s.count)
    )?;
    if computed < s.count {
        writeln!(
            out,
            "| computed | heaps 0 – {}; the others follow from the proved period |",
            thousands(computed - 1)
        )?;
    }
    writeln!(
        out,
        "| largest value | {} (first at heap {}) |",
        s.max_value,
        thousands(s.max_value_first_at)
    )?;
    writeln!(out, "| produced by | {PROGRAM} |")?;
    if let Some(a) = files.a_number {
        writeln!(
            out,
            "| OEIS | [{a}](https://oeis.org/{a}) (offset {}) |",
            files.bfile_first
        )?;
    }
    writeln!(out)?;
    writeln!(out, "![G(n) against n]({})\n", files.plot)?;

    writeln!(out, "## Periodicity\n")?;
    match &s.period {
        Some(p) if p.proved => {
            let t = t.unwrap_or(0);
            writeln!(
                out,
                "**Proved**: G(n + {p}) = G(n) for every n ≥ {n0}. Smallest period **{p}**, preperiod **{n0}** (the smallest heap from which the period holds), last exception {le}.\n",
                p = thousands(p.period),
                n0 = thousands(p.preperiod),
                le = p.last_exception.map_or("none".to_string(), |e| format!("at heap {}", thousands(e)))
            )?;
            writeln!(
                out,
                "Proof: the octal periodicity theorem (Guy & Smith 1956; Winning Ways ch. 4) for a finite octal code whose last non-zero digit is d{t}: the condition `{}` holds in the computed values (heaps 0 – {}), so the period holds for all larger heaps.\n",
                theorem_inequality(p.preperiod, p.period, t),
                thousands(p.theorem_bound.unwrap_or(computed).saturating_sub(1))
            )?;
        }
        Some(p) => {
            let pattern = if p.shift > 0 {
                format!(
                    "G(n + {}) = G(n) + {} (arithmetic periodicity)",
                    p.period, p.shift
                )
            } else {
                format!("G(n + {}) = G(n)", p.period)
            };
            writeln!(
                out,
                "**Observed, not proved**: {pattern} for {} ≤ n < {} — {} full periods seen; last exception {}.\n",
                thousands(p.preperiod),
                thousands(s.count.saturating_sub(p.period)),
                thousands(p.periods_seen),
                p.last_exception.map_or("none".to_string(), |e| format!("at heap {}", thousands(e)))
            )?;
            observed_caveat(&mut out, rule)?;
        }
        None => {
            writeln!(
                out,
                "No period: no pattern G(n + p) = G(n) or G(n + p) = G(n) + s repeats three times at the end of the values computed.\n"
            )?;
            observed_caveat(&mut out, rule)?;
        }
    }

    writeln!(out, "## Largest values\n")?;
    writeln!(
        out,
        "| value | heaps | first at heap | last at heap |\n|---:|---:|---:|---:|"
    )?;
    for v in profile.values_descending().take(10) {
        let i = v as usize;
        writeln!(
            out,
            "| {v} | {} | {} | {} |",
            thousands(profile.occurrences[i]),
            thousands(profile.first[i].unwrap_or(0)),
            thousands(profile.last[i].unwrap_or(0))
        )?;
    }
    writeln!(out)?;

    writeln!(out, "## Value frequencies\n")?;
    writeln!(
        out,
        "| value | heaps | share | rare (mask 0x{}) |\n|---:|---:|---:|:---:|",
        s.rare_mask
    )?;
    let mask = u32::from_str_radix(&s.rare_mask, 16).unwrap_or(0);
    for (v, c) in &s.frequencies {
        writeln!(
            out,
            "| {v} | {} | {:.4}% | {} |",
            thousands(*c),
            100.0 * *c as f64 / s.count.max(1) as f64,
            if is_rare(*v, mask) { "rare" } else { "" }
        )?;
    }
    writeln!(out)?;

    writeln!(out, "## Rare values\n")?;
    let rare_values: Vec<String> = s
        .frequencies
        .keys()
        .filter(|&&v| is_rare(v, mask))
        .map(|v| v.to_string())
        .collect();
    writeln!(
        out,
        "Rare mask **0x{}**: a value v is rare when v AND 0x{} has an even number of 1 bits (the mask with the fewest rare heaps). Rare values that occur: {}.\n",
        s.rare_mask,
        s.rare_mask,
        rare_values.join(", ")
    )?;
    let last = s.last_rare_at.map_or("none".to_string(), thousands);
    writeln!(
        out,
        "{} rare heaps; the last at heap {last}.\n",
        thousands(s.rare_count)
    )?;
    let shown = &profile.rare_positions;
    if !shown.is_empty() {
        let more = if profile.rare_total > shown.len() as u64 {
            format!(
                " (the first {} of {})",
                shown.len(),
                thousands(profile.rare_total)
            )
        } else {
            String::new()
        };
        writeln!(out, "Rare heaps{more}, as `heap:value`:\n\n```")?;
        let items: Vec<String> = shown.iter().map(|&(n, v)| format!("{n}:{v}")).collect();
        for line in items.chunks(10) {
            writeln!(out, "{}", line.join(" "))?;
        }
        writeln!(out, "```\n")?;
    }

    writeln!(out, "## First values\n")?;
    writeln!(
        out,
        "G(n) for n = 0 – {}, 20 per row:\n\n```",
        first_values.len().saturating_sub(1)
    )?;
    for (row, chunk) in first_values.chunks(20).enumerate() {
        let vals: Vec<String> = chunk.iter().map(|v| format!("{v:>2}")).collect();
        writeln!(out, "{:>5}: {}", row * 20, vals.join(" "))?;
    }
    writeln!(out, "```\n")?;

    writeln!(out, "## Files\n")?;
    writeln!(
        out,
        "- `{}`: b-file, one line `n a(n)` per heap for n = {} – {}, where a(n) = G(n); offset {}{}.",
        files.bfile,
        files.bfile_first,
        files.bfile_last,
        files.bfile_first,
        if files.bfile_first > 0 {
            " as in the OEIS entry (heap 0, with G(0) = 0, is not listed)"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "- `{}`: G(n) against n; {}{}.",
        files.plot,
        if s.rare_count.saturating_mul(5) <= s.count {
            "every rare heap is marked in red"
        } else {
            "rare heaps are not marked (more than a fifth of the heaps are rare: no sparse structure)"
        },
        if s.period.is_some() {
            ", and one period is shaded from the preperiod on"
        } else {
            ""
        }
    )?;
    writeln!(out, "- `summary.md`: this page.")?;
    out.flush()
}

fn observed_caveat<W: Write>(out: &mut W, rule: &Rule) -> io::Result<()> {
    match not_covered_reason(rule) {
        Some(why) => writeln!(
            out,
            "The octal periodicity theorem does not apply, so no pattern is proved: {why}.\n"
        ),
        None => writeln!(
            out,
            "The octal periodicity theorem applies, but the values computed do not yet prove a period; compute more heaps.\n"
        ),
    }
}
