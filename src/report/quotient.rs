//! Misère quotients as text and JSON.

use std::io::{self, Write};

use super::game_title;
use crate::misere::tame::Classified;
use crate::rules::Rule;

/// Writes the report as one JSON object (the fields of
/// [`crate::misere::quotient::QuotientReport`], then `tame` and `tame_index`).
pub fn write_quotient_json<W: Write>(out: W, report: &Classified) -> io::Result<()> {
    super::write_json(out, report)
}

/// Writes the quotient as text: status, order, `|P|`, the presentation, `P`, the element of
/// each heap in its periodic form, the heaps where the quotient changed, and whether it is
/// tame.
pub fn write_quotient_text<W: Write>(mut out: W, rule: &Rule, c: &Classified) -> io::Result<()> {
    let r = &c.report;
    writeln!(out, "game          {}", game_title(rule))?;
    let status = if r.certified {
        format!(
            "certified at heap {} (the quotient of every heap size)",
            r.certified_at.unwrap_or(r.last_heap)
        )
    } else {
        format!(
            "partial: heaps 0 .. {}, not certified ({})",
            r.last_heap,
            r.stopped.as_deref().unwrap_or("stopped")
        )
    };
    writeln!(out, "quotient      {status}")?;
    writeln!(out, "order         |Q| = {}, |P| = {}", r.order, r.p_count)?;
    writeln!(out, "stable from   heap {}", r.stable_from)?;
    let tame = match c.tame_index {
        Some(n) => format!(
            "yes: T_{n}, the quotient of misère Nim with heaps below {}",
            1u64 << n
        ),
        None => "no (wild)".to_string(),
    };
    writeln!(out, "tame          {tame}")?;
    writeln!(out, "presentation  {}", r.presentation)?;
    let p: Vec<&str> =
        r.p.iter()
            .map(|&e| r.elements[e as usize].as_str())
            .collect();
    writeln!(out, "P             {{{}}}", p.join(", "))?;
    let gens: Vec<String> = r
        .generators
        .iter()
        .map(|g| format!("{} = heap {}", g.name, g.heap))
        .collect();
    writeln!(out, "generators    {}", gens.join(", "))?;
    match (r.preperiod, r.period) {
        (Some(n0), Some(p)) => {
            let word = |h: usize| r.elements[r.heaps[h] as usize].as_str();
            let pre: Vec<&str> = (0..n0 as usize).map(word).collect();
            let per: Vec<&str> = (n0 as usize..(n0 + p) as usize).map(word).collect();
            let kind = if r.certified { "" } else { " (observed)" };
            writeln!(out, "period        {p} from heap {n0}{kind}")?;
            writeln!(out, "heaps 0 ..    {}", pre.join(" "))?;
            writeln!(out, "then repeat   [{}]", per.join(" "))?;
        }
        _ => {
            let all: Vec<&str> = r
                .heaps
                .iter()
                .map(|&e| r.elements[e as usize].as_str())
                .collect();
            writeln!(out, "heaps 0 ..    {}", all.join(" "))?;
        }
    }
    let changes: Vec<String> = r.changes.iter().map(|(h, o)| format!("{h}:{o}")).collect();
    writeln!(out, "changes       {} (heap:order)", changes.join(" "))?;
    writeln!(
        out,
        "verified      {} classes of positions (element, has a move)",
        r.states
    )?;
    out.flush()
}
