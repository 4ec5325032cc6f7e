//! Survey output: shard files (JSON lines), one JSON object per game, and the Markdown table.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::{theorem_bound, theorem_t, Period};
use crate::rules::Rule;
use crate::survey::{GameRecord, Header, ShardFile, Survey};

fn line<W: Write, S: serde::Serialize>(out: &mut W, value: &S) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// Writes the header line of a shard file.
pub fn write_header<W: Write>(mut out: W, header: &Header) -> io::Result<()> {
    line(&mut out, header)?;
    out.flush()
}

/// Writes one game's line of a shard file.
pub fn write_record<W: Write>(mut out: W, record: &GameRecord) -> io::Result<()> {
    line(&mut out, record)?;
    out.flush()
}

/// Writes a whole shard file: the header, then the records.
pub fn write_shard<W: Write>(out: W, file: &ShardFile) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    line(&mut out, &file.header)?;
    for r in &file.records {
        line(&mut out, r)?;
    }
    out.flush()
}

/// The base of a game's group, as `equivalent_to` in `survey --json`.
#[derive(Serialize)]
pub struct Equivalent<'a> {
    /// The base's canonical code.
    pub game: &'a str,
    /// The base's code as written.
    pub code: &'a str,
    /// `d` in `G_this(n + d) = G_base(n)`.
    pub shift: usize,
}

/// One game as `survey --json` prints it: the record without its fingerprints, in the record's
/// key order, plus `equivalent_to` (the group's base and the shift, or null).
#[derive(Serialize)]
pub struct GameJson<'a> {
    game: &'a str,
    code: &'a str,
    index: usize,
    count: u64,
    /// The proved period, nested as in every summary (docs/JSON.md); a survey records only
    /// proved periods.
    period: Option<Period>,
    computed: u64,
    max_value: u32,
    max_value_first_at: u64,
    rare_mask: &'a str,
    rare_count: u64,
    last_rare_at: Option<u64>,
    frequencies: &'a std::collections::BTreeMap<u32, u64>,
    equivalent_to: Option<Equivalent<'a>>,
}

/// The JSON view of game `index` of `survey`.
pub fn game_json(
    survey: &Survey,
    index: usize,
    equivalent: Option<(usize, usize)>,
) -> GameJson<'_> {
    let r = &survey.records[index];
    GameJson {
        game: &r.game,
        code: &r.code,
        index: r.index,
        count: r.count,
        period: record_period(r),
        computed: r.computed,
        max_value: r.max_value,
        max_value_first_at: r.max_value_first_at,
        rare_mask: &r.rare_mask,
        rare_count: r.rare_count,
        last_rare_at: r.last_rare_at,
        frequencies: &r.frequencies,
        equivalent_to: equivalent.map(|(base, shift)| {
            let b = &survey.records[base];
            Equivalent {
                game: &b.game,
                code: &b.code,
                shift,
            }
        }),
    }
}

/// The proved period of a record as a [`Period`] (ordinary; `periods_seen` over its count).
fn record_period(r: &GameRecord) -> Option<Period> {
    let (n0, p) = (r.preperiod?, r.period?);
    let t = Rule::parse(&r.game).ok().as_ref().and_then(theorem_t);
    r.proved.then(|| Period {
        preperiod: n0,
        period: p,
        last_exception: r.last_exception,
        shift: 0,
        proved: true,
        periods_seen: r.count.saturating_sub(n0) / p.max(1),
        theorem_bound: t.map(|t| theorem_bound(n0, p, t)),
    })
}

/// Writes one JSON object per game, in survey order.
pub fn write_json_lines<W: Write>(out: W, survey: &Survey) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    for (j, eq) in survey.equivalent_to().into_iter().enumerate() {
        line(&mut out, &game_json(survey, j, eq))?;
    }
    out.flush()
}

fn opt(v: Option<u64>) -> String {
    v.map_or("–".to_string(), |x| x.to_string())
}

/// Writes the survey as Markdown: a title, the table of games (as in published surveys), and
/// the groups of equivalent games.
pub fn write_markdown<W: Write>(out: W, survey: &Survey) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let h = &survey.header;
    let records = &survey.records;
    let proved = records.iter().filter(|r| r.proved).count();
    writeln!(out, "# Survey of {} to N = {} heaps", h.pattern, h.count)?;
    writeln!(out)?;
    writeln!(
        out,
        "{} games: {} with a proved period, {} unsolved (computed to heap {}). \
         Games with identical values, or identical after a shift of heap sizes, are listed \
         as equivalent.",
        records.len(),
        proved,
        records.len() - proved,
        h.count.saturating_sub(1)
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| game | preperiod | period | largest value | first at | rare mask | rare count | last rare | equivalent to |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---|")?;
    let eq = survey.equivalent_to();
    for (r, e) in records.iter().zip(&eq) {
        let (pre, per) = if r.proved {
            (opt(r.preperiod), opt(r.period))
        } else {
            ("–".to_string(), "unsolved".to_string())
        };
        let equivalent = match e {
            Some((base, 0)) => format!("= {}", records[*base].code),
            Some((base, d)) => format!("{} shifted by {d}", records[*base].code),
            None => String::new(),
        };
        writeln!(
            out,
            "| {} | {pre} | {per} | {} | {} | 0x{} | {} | {} | {equivalent} |",
            r.code,
            r.max_value,
            r.max_value_first_at,
            r.rare_mask,
            r.rare_count,
            opt(r.last_rare_at),
        )?;
    }
    if !survey.groups.is_empty() {
        writeln!(out)?;
        writeln!(out, "## Equivalent games")?;
        writeln!(out)?;
        writeln!(
            out,
            "{} group{}. `+d` after a game: its heap of n + d plays like the first game's heap \
             of n. Two games are related when the values of one from heap e on equal those of \
             the other from heap 0, for every n < N − S (e ≤ S = {}); a group is a chain of \
             such relations, and its offsets add up along the chain (over a range shortened by \
             the shifts on the way).",
            survey.groups.len(),
            if survey.groups.len() == 1 { "" } else { "s" },
            h.max_shift.min(h.count as usize / 2)
        )?;
        writeln!(out)?;
        for g in &survey.groups {
            let names: Vec<String> = g
                .iter()
                .map(|m| {
                    let code = &records[m.index].code;
                    if m.offset == 0 {
                        code.clone()
                    } else {
                        format!("{code} (+{})", m.offset)
                    }
                })
                .collect();
            writeln!(out, "- {}", names.join(", "))?;
        }
    }
    out.flush()
}

/// Writes the header line of a misère survey file.
pub fn write_misere_header<W: Write>(
    mut out: W,
    header: &crate::survey::misere::file::MisereHeader,
) -> io::Result<()> {
    line(&mut out, header)?;
    out.flush()
}

/// Writes one row of a misère survey file (a line of `survey --misere --json`) in one write,
/// and flushes it: a process killed meanwhile leaves the line whole or cut at most once, at
/// the end of the file.
pub fn write_misere_row<W: Write>(
    mut out: W,
    row: &crate::survey::misere::MisereRow,
) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(row)?;
    bytes.push(b'\n');
    out.write_all(&bytes)?;
    out.flush()
}

/// Writes a whole misère survey file: the header, then the rows.
pub fn write_misere_file<W: Write>(
    out: W,
    file: &crate::survey::misere::file::MisereFile,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    line(&mut out, &file.header)?;
    for r in &file.rows {
        line(&mut out, r)?;
    }
    out.flush()
}

/// Writes the rows of `survey --misere --json`: one JSON object per game.
pub fn write_misere_json_lines<W: Write>(
    mut out: W,
    rows: &[crate::survey::misere::MisereRow],
) -> io::Result<()> {
    for r in rows {
        line(&mut out, r)?;
    }
    out.flush()
}

/// Writes the rows of `survey --misere` as a Markdown table: code, |Q|, |P|, certified at (or
/// the last heap reached and why it stopped), the period of Φ, tame.
pub fn write_misere_markdown<W: Write>(
    mut out: W,
    rows: &[crate::survey::misere::MisereRow],
) -> io::Result<()> {
    writeln!(
        out,
        "| code | \\|Q\\| | \\|P\\| | certified at | period of Φ (from heap) | tame | note |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|")?;
    for r in rows {
        let code = if r.code == r.game {
            r.code.clone()
        } else {
            format!("{} ({})", r.code, r.game)
        };
        let at = r.certified_at.map_or("—".to_string(), |h| h.to_string());
        let period = match (r.period, r.preperiod) {
            (Some(p), Some(n0)) if r.certified => format!("{p} ({n0})"),
            _ => String::new(),
        };
        let tame = if r.tame { "yes" } else { "no" };
        let note = match &r.stopped {
            None => String::new(),
            Some(why) => format!("partial: heaps 0 .. {}, stopped at {why}", r.last_heap),
        };
        if r.order == 0 {
            // No quotient: the game was stopped from outside or failed.
            let why = r.stopped.as_deref().unwrap_or("");
            writeln!(out, "| {code} | | | | | | {why} |")?;
            continue;
        }
        writeln!(
            out,
            "| {code} | {} | {} | {at} | {period} | {tame} | {note} |",
            r.order, r.p_count
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineKind;
    use crate::survey::{self, merge, pattern, Shard, SurveyOptions};
    use serde_json::Value;

    fn survey_of(list: &str, count: usize) -> (ShardFile, Vec<pattern::Game>, SurveyOptions) {
        let games = pattern::parse_list("t", list).unwrap();
        let opts = SurveyOptions {
            count,
            engine: EngineKind::Exact,
            max_shift: 8,
        };
        let all: Vec<usize> = (0..games.len()).collect();
        let records = survey::run(&games, &all, &opts, Vec::new(), &|_| {}).unwrap();
        let file = ShardFile {
            header: Header::new("t", &games, &opts, Shard::WHOLE),
            records,
        };
        (file, games, opts)
    }

    #[test]
    fn shard_files_round_trip() {
        let (file, _, _) = survey_of("0.77\n0.137\n0.07\n", 100);
        let mut text = Vec::new();
        write_shard(&mut text, &file).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(text.lines().count(), 4);
        assert_eq!(merge::parse_shard("f", &text, false).unwrap(), file);
        // A cut-short file is incomplete, or acceptable as a checkpoint.
        let cut = &text[..text.len() - 10];
        let e = merge::parse_shard("f", cut, false).unwrap_err().to_string();
        assert!(e.starts_with("f, line 4: bad game record"), "{e}");
        let partial = merge::parse_shard("f", cut, true).unwrap();
        assert_eq!(partial.records.len(), 2);
        let two_lines: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
        let e = merge::parse_shard("f", &two_lines, false)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "f: shard 1/1 is incomplete: 1 of 3 games (was the job stopped before it finished?)"
        );
    }

    #[test]
    fn markdown_table() {
        let (file, _, _) = survey_of("0.137\n0.07\n0.77\n", 300);
        let s = Survey::new(file);
        let mut out = Vec::new();
        write_markdown(&mut out, &s).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("# Survey of t to N = 300 heaps\n"),
            "{text}"
        );
        // Dawson's Kayles: preperiod 53, period 34 (A002187, shifted by one heap).
        assert!(text.contains("| 0.07 | 53 | 34 |"), "{text}");
        assert!(text.contains("0.137 shifted by 1 |"), "{text}");
        assert!(text.contains("- 0.137, 0.07 (+1)\n"), "{text}");
        let rows = text.lines().filter(|l| l.starts_with("| 0.")).count();
        assert_eq!(rows, 3);
    }

    #[test]
    fn json_lines_have_period_keys_and_no_fingerprints() {
        let (file, _, _) = survey_of("0.137\n0.07\n", 400);
        let s = Survey::new(file);
        let mut out = Vec::new();
        write_json_lines(&mut out, &s).unwrap();
        let text = String::from_utf8(out).unwrap();
        let objs: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(objs.len(), 2);
        // Dawson's chess 0.137: period 34 from heap 52 (OEIS A002187).
        assert_eq!(objs[0]["period"]["period"], 34);
        assert_eq!(objs[0]["period"]["preperiod"], 52);
        assert_eq!(objs[0]["period"]["proved"], true);
        for key in ["game", "period", "count", "max_value", "rare_mask"] {
            assert!(objs[0].get(key).is_some(), "{key}");
        }
        assert!(objs[0].get("windows").is_none());
        assert!(text.starts_with("{\"game\":\"0.137\",\"code\":"), "{text}");
        assert_eq!(objs[0]["equivalent_to"], Value::Null);
        assert_eq!(objs[1]["equivalent_to"]["game"], "0.137");
        assert_eq!(objs[1]["equivalent_to"]["shift"], 1);
    }
}
