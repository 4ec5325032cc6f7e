//! The text of `nimseq period`: the result, and the inequality of the theorem that proves it.

use std::io::{self, Write};

use crate::analysis::PeriodReport;
use crate::rules::Rule;

use super::game_title;

/// Why the octal periodicity theorem does not cover `rule` (`None` when it does).
pub fn not_covered_reason(rule: &Rule) -> Option<&'static str> {
    if !rule.is_finite() {
        Some("the code has a repeating tail (infinitely many non-zero digits)")
    } else if rule.is_hexadecimal() {
        Some("the code has a hexadecimal digit (splits into three heaps)")
    } else if rule.has_unequal() {
        Some("the code has a '!' digit (heaps left must be unequal)")
    } else {
        None
    }
}

/// The theorem's condition for a proved period, e.g.
/// `G(n + 12) = G(n) for all 71 <= n < 2*71 + 12 + 2 = 156`.
pub fn theorem_inequality(n0: u64, p: u64, t: u64) -> String {
    let m = n0.max(1);
    let end = 2 * m + p + t;
    let from0 = if n0 == 0 {
        format!(" (and G({p}) = G(0): heap 0 is checked directly)")
    } else {
        String::new()
    };
    format!("G(n + {p}) = G(n) for all {m} <= n < 2*{m} + {p} + {t} = {end}{from0}")
}

/// Writes the human-readable result of `period`; `count` values were computed.
pub fn write_period_text<W: Write>(
    mut out: W,
    rule: &Rule,
    r: &PeriodReport,
    count: u64,
) -> io::Result<()> {
    writeln!(out, "game          {}", game_title(rule))?;
    writeln!(out, "rules         {}", rule.describe())?;
    writeln!(
        out,
        "values        {count} computed (heaps 0 .. {})",
        count.saturating_sub(1)
    )?;
    let exception = |e: Option<u64>| match e {
        Some(e) => format!("last exception at heap {e}"),
        None => "no exceptions".to_string(),
    };
    let found = r.period.as_ref();
    let last_exception = found.and_then(|p| p.last_exception);
    let theorem_bound = found.and_then(|p| p.theorem_bound);
    match found.map(|p| (p.proved, p.period, p.preperiod)) {
        Some((true, p, n0)) => {
            let t = r.theorem_t.unwrap_or(0);
            writeln!(
                out,
                "period        {p} from heap {n0}, proved ({})",
                exception(last_exception)
            )?;
            writeln!(
                out,
                "theorem       octal periodicity theorem (Guy & Smith 1956), last non-zero digit t = {t}:"
            )?;
            writeln!(out, "              {}", theorem_inequality(n0, p, t))?;
            writeln!(
                out,
                "              was checked on the values of heaps 0 .. {}; so G(n + {p}) = G(n) for every n >= {n0}",
                theorem_bound.unwrap_or(count).saturating_sub(1)
            )?;
            writeln!(
                out,
                "              (smallest period, and the smallest preperiod for it)"
            )?;
        }
        Some((false, p, n0)) => {
            let kind = match found.map_or(0, |f| f.shift) {
                s if s > 0 => format!("G(n + {p}) = G(n) + {s} (arithmetic periodicity)"),
                _ => format!("G(n + {p}) = G(n)"),
            };
            // For a game the theorem covers this is the candidate closest to a proof; for the
            // others, the pattern the values show.
            let what = if r.theorem_t.is_some() {
                "best candidate"
            } else {
                "observed"
            };
            writeln!(
                out,
                "period        not proved; {what} {kind} from heap {n0} ({}, {} periods seen)",
                exception(last_exception),
                found.map_or(0, |f| f.periods_seen)
            )?;
        }
        None => writeln!(
            out,
            "period        none: no pattern repeats at least 3 times in the values computed"
        )?,
    }
    if !r.proved() {
        match not_covered_reason(rule) {
            Some(why) => writeln!(
                out,
                "theorem       the octal periodicity theorem does not apply: {why}"
            )?,
            None => match (theorem_bound, found) {
                (Some(need), Some(f)) if need > count => writeln!(
                    out,
                    "theorem       no period proved within {count} values; proving period {} from \
                     heap {} needs {need} values (--max {need}), if the pattern holds that far",
                    f.period, f.preperiod
                )?,
                _ => writeln!(
                    out,
                    "theorem       no period proved within {count} values; try a larger --max"
                )?,
            },
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inequality() {
        assert_eq!(
            theorem_inequality(71, 12, 2),
            "G(n + 12) = G(n) for all 71 <= n < 2*71 + 12 + 2 = 156"
        );
        assert!(theorem_inequality(0, 2, 1)
            .starts_with("G(n + 2) = G(n) for all 1 <= n < 2*1 + 2 + 1 = 5"));
    }

    #[test]
    fn reasons() {
        assert!(not_covered_reason(&Rule::parse("0.77").unwrap()).is_none());
        assert!(not_covered_reason(&Rule::parse("4!.0").unwrap()).is_some());
        assert!(not_covered_reason(&Rule::parse("0.[3]").unwrap()).is_some());
        assert!(not_covered_reason(&Rule::parse("0.3F").unwrap()).is_some());
    }
}
