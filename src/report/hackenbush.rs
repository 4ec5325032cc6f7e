//! Output of `nimseq hackenbush`: canonical forms of the components and of their sum, the
//! outcome and the winning moves (and, for the older number-and-nimber summary, [`Sum`]).

use std::io::{self, Write};

use serde::Serialize;

use crate::hackenbush::{Analysis, Dyadic, Moves, Outcome, StalkValue, Sum, ValueReport};

/// A number as a mixed number for people: `2 13/32`, `-2 13/32`, `-55/64`, `3`.
pub fn mixed_number(x: Dyadic) -> String {
    let (whole, num, den) = x.mixed();
    if num == 0 {
        whole.to_string()
    } else if whole == 0 {
        let sign = if x.signum() < 0 { "-" } else { "" };
        format!("{sign}{num}/{den}")
    } else {
        format!("{whole} {num}/{den}")
    }
}

/// `x + *n` for people: `2 13/32`, `*3`, `1/2 + *3`, `0`.
pub fn game_text(x: Dyadic, nimber: u64) -> String {
    match (x.signum(), nimber) {
        (_, 0) => mixed_number(x),
        (0, n) => format!("*{n}"),
        (_, n) => format!("{} + *{n}", mixed_number(x)),
    }
}

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::Left => "L: Left (blue) wins, whoever starts",
        Outcome::Right => "R: Right (red) wins, whoever starts",
        Outcome::P => "P: the second player wins",
        Outcome::N => "N: the first player wins",
    }
}

fn parts(v: StalkValue) -> (Dyadic, u64) {
    match v {
        StalkValue::Number(x) => (x, 0),
        StalkValue::Nimber(n) => (Dyadic::ZERO, n),
    }
}

/// Writes each string's value, the sum and the outcome for people.
pub fn write_hackenbush_text<W: Write>(out: W, sum: &Sum) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let width = sum
        .strings
        .iter()
        .map(|(s, _)| s.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(7, LABEL_WIDTH);
    for (s, v) in &sum.strings {
        let (x, n) = parts(*v);
        let shown = label(s);
        let text = game_text(x, n);
        if x.exponent() > 0 && x.mixed().0 != 0 {
            writeln!(out, "{shown:<width$}  {text}  ({x})")?;
        } else {
            writeln!(out, "{shown:<width$}  {text}")?;
        }
    }
    if sum.strings.len() > 1 {
        let text = game_text(sum.number, sum.nimber);
        let label = "sum";
        if sum.number.exponent() > 0 && sum.number.mixed().0 != 0 {
            writeln!(out, "{label:<width$}  {text}  ({})", sum.number)?;
        } else {
            writeln!(out, "{label:<width$}  {text}")?;
        }
    }
    writeln!(
        out,
        "{:<width$}  {}",
        "outcome",
        outcome_text(sum.outcome())
    )?;
    out.flush()
}

#[derive(Serialize)]
struct StringJson<'a> {
    string: &'a str,
    value: String,
    nimber: u64,
}

#[derive(Serialize)]
struct SumJson<'a> {
    strings: Vec<StringJson<'a>>,
    value: String,
    nimber: u64,
    outcome: &'static str,
}

/// Writes the values as one JSON object: `value` is the number part as a reduced fraction
/// string (`77/32`, `-55/64`, `3`), `nimber` the nimber part (green strings).
pub fn write_hackenbush_json<W: Write>(out: W, sum: &Sum) -> io::Result<()> {
    let strings = sum
        .strings
        .iter()
        .map(|(s, v)| {
            let (x, n) = parts(*v);
            StringJson {
                string: s,
                value: x.to_string(),
                nimber: n,
            }
        })
        .collect();
    super::write_json(
        out,
        &SumJson {
            strings,
            value: sum.number.to_string(),
            nimber: sum.nimber,
            outcome: sum.outcome().letter(),
        },
    )
}

/// The widest label column; longer components are shortened (a width beyond 65,535 makes
/// Rust's formatting panic, which a 65,536-edge string once did).
const LABEL_WIDTH: usize = 40;

/// A component as a label: whole up to [`LABEL_WIDTH`] characters, else its first 24 and
/// its length.
fn label(text: &str) -> String {
    let count = text.chars().count();
    if count == 0 {
        "(empty)".to_string()
    } else if count <= LABEL_WIDTH {
        text.to_string()
    } else {
        let head: String = text.chars().take(24).collect();
        format!("{head}… ({count} chars)")
    }
}

/// A value for people: CGSuite's notation, with a mixed number after a fraction above 1.
fn value_line(v: &ValueReport) -> String {
    if let Some(reason) = &v.not_built {
        return format!("canonical form not built ({reason})");
    }
    let Some(text) = &v.text else {
        return format!(
            "(canonical form longer than {} characters; not printed)",
            crate::partizan::notation::MAX_TEXT
        );
    };
    let mixed = text
        .split_once('/')
        .and_then(|(n, d)| Some((n.parse::<i128>().ok()?, d.parse::<u128>().ok()?)))
        .filter(|&(n, d)| n.unsigned_abs() > d);
    match mixed {
        Some((n, d)) => {
            let e = d.trailing_zeros();
            match Dyadic::new(n, e) {
                Some(x) => format!("{text}  ({})", mixed_number(x)),
                None => text.clone(),
            }
        }
        None => text.clone(),
    }
}

fn outcome_letter_text(o: &str) -> &'static str {
    match o {
        "L" => outcome_text(Outcome::Left),
        "R" => outcome_text(Outcome::Right),
        "P" => outcome_text(Outcome::P),
        _ => outcome_text(Outcome::N),
    }
}

fn moves_line(m: &Moves) -> String {
    let mut s = m
        .listed
        .iter()
        .map(|m| format!("{}:{} ({})", m.component, m.edge, m.colour))
        .collect::<Vec<_>>()
        .join(", ");
    if m.count > m.listed.len() {
        s.push_str(&format!(", … ({} in all)", m.count));
    } else if m.count > 1 {
        s.push_str(&format!(" ({} moves)", m.count));
    }
    if !m.not_searched.is_empty() {
        let list: Vec<String> = m.not_searched.iter().map(|k| k.to_string()).collect();
        s.push_str(&format!(
            "; components {} not searched (over {} edges and not all green)",
            list.join(", "),
            crate::hackenbush::MAX_PATH_MOVES_EDGES,
        ));
    }
    if !m.partly_searched.is_empty() {
        let list: Vec<String> = m.partly_searched.iter().map(|k| k.to_string()).collect();
        s.push_str(&format!(
            "; the list is cut: components {} were searched only in part (beyond {:.0e} steps), so there may be more than {}",
            list.join(", "),
            crate::hackenbush::MAX_GREEN_MOVE_STEPS as f64,
            m.count
        ));
    }
    s
}

/// Writes the analysis for people: each component's canonical form, the sum's, its mean and
/// temperature, the outcome, and every winning move (`component:edge (colour)`, edges numbered
/// from 1 in the order written) for the player moving first.
pub fn write_analysis_text<W: Write>(out: W, a: &Analysis) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let labels: Vec<String> = a.components.iter().map(|(s, _, _)| label(s)).collect();
    let width = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(11, LABEL_WIDTH + 16);
    for (l, (_, _, v)) in labels.iter().zip(&a.components) {
        writeln!(out, "{l:<width$}  {}", value_line(v))?;
    }
    let v = &a.sum;
    if let Some(reason) = &v.not_built {
        writeln!(
            out,
            "{:<width$}  canonical form not built ({reason}); outcome and winning moves decided without it",
            "sum"
        )?;
    } else if a.components.len() > 1 {
        writeln!(out, "{:<width$}  {}", "sum", value_line(v))?;
    }
    if let Some((l, r)) = v.stops.as_ref().filter(|(l, r)| l != r) {
        writeln!(out, "{:<width$}  Left {l}, Right {r}", "stops")?;
    }
    match (&v.mean, &v.temperature) {
        (Some(m), Some(t)) => writeln!(out, "{:<width$}  {m}, temperature {t}", "mean")?,
        (Some(m), None) => writeln!(out, "{:<width$}  {m}", "mean")?,
        _ => {}
    }
    writeln!(
        out,
        "{:<width$}  {}",
        "outcome",
        outcome_letter_text(a.outcome)
    )?;
    if matches!(a.outcome, "L" | "N") {
        writeln!(
            out,
            "{:<width$}  {}",
            "Left wins",
            moves_line(&a.left_moves)
        )?;
    }
    if matches!(a.outcome, "R" | "N") {
        writeln!(
            out,
            "{:<width$}  {}",
            "Right wins",
            moves_line(&a.right_moves)
        )?;
    }
    out.flush()
}

#[derive(Serialize)]
struct ComponentJson<'a> {
    component: &'a str,
    edges: usize,
    #[serde(flatten)]
    value: ValueJson<'a>,
}

#[derive(Serialize)]
struct ValueJson<'a> {
    value: Option<&'a str>,
    form: Option<&'a crate::partizan::notation::Form>,
    left_stop: Option<&'a str>,
    right_stop: Option<&'a str>,
    mean: Option<&'a str>,
    temperature: Option<&'a str>,
    not_built: Option<&'a str>,
}

fn value_json(v: &ValueReport) -> ValueJson<'_> {
    ValueJson {
        value: v.text.as_deref(),
        form: v.form.as_ref(),
        left_stop: v.stops.as_ref().map(|s| s.0.as_str()),
        right_stop: v.stops.as_ref().map(|s| s.1.as_str()),
        mean: v.mean.as_deref(),
        temperature: v.temperature.as_deref(),
        not_built: v.not_built.as_deref(),
    }
}

#[derive(Serialize)]
struct WinningJson<'a> {
    left: &'a Moves,
    right: &'a Moves,
}

/// `nimseq hackenbush --json` (and `nimseq.hackenbush` in Python).
#[derive(Serialize)]
pub struct AnalysisJson<'a> {
    components: Vec<ComponentJson<'a>>,
    #[serde(flatten)]
    sum: ValueJson<'a>,
    outcome: &'static str,
    winning_moves: WinningJson<'a>,
}

/// The JSON object of an analysis: `components` (each with `component`, `edges`, `value` in
/// CGSuite's notation or null when too long, `form` nested `{"value","left","right"}` or null
/// when too large, stops, `mean`, `temperature`, and `not_built`: null, or why the form was
/// too costly to build, when all but `mean` are null), the same keys for the sum, `outcome`
/// (`L`, `R`, `P`, `N`) and `winning_moves` for `left` and `right` (`count`, `listed` moves
/// `{component, edge, colour}`, `not_searched` components, `partly_searched` components whose
/// moves were searched only in part, so that `count` is a lower bound).
pub fn analysis_json(a: &Analysis) -> AnalysisJson<'_> {
    AnalysisJson {
        components: a
            .components
            .iter()
            .map(|(s, n, v)| ComponentJson {
                component: s,
                edges: *n,
                value: value_json(v),
            })
            .collect(),
        sum: value_json(&a.sum),
        outcome: a.outcome,
        winning_moves: WinningJson {
            left: &a.left_moves,
            right: &a.right_moves,
        },
    }
}

/// Writes [`analysis_json`].
pub fn write_analysis_json<W: Write>(out: W, a: &Analysis) -> io::Result<()> {
    super::write_json(out, &analysis_json(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_numbers() {
        let d = |n, e| Dyadic::new(n, e).unwrap();
        assert_eq!(mixed_number(d(77, 5)), "2 13/32");
        assert_eq!(mixed_number(d(-77, 5)), "-2 13/32");
        assert_eq!(mixed_number(d(-55, 6)), "-55/64");
        assert_eq!(mixed_number(d(3, 0)), "3");
        assert_eq!(game_text(d(1, 1), 3), "1/2 + *3");
        assert_eq!(game_text(Dyadic::ZERO, 3), "*3");
        assert_eq!(game_text(Dyadic::ZERO, 0), "0");
    }

    /// A 65,536-edge string once panicked here ("Formatting argument out of range").
    #[test]
    fn very_long_labels_are_shortened() {
        let long = "B".repeat(65_536);
        let sum = crate::hackenbush::evaluate(&[long.as_str(), "R"]).unwrap();
        let mut out = Vec::new();
        write_hackenbush_text(&mut out, &sum).unwrap();
        let text = String::from_utf8(out).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with("BBBBBBBBBBBBBBBBBBBBBBBB… (65536 chars) "),
            "{text}"
        );
        assert!(first.ends_with(" 65536"), "{text}");
        let a = crate::hackenbush::analyze(&[long.as_str(), "R"]).unwrap();
        let mut out = Vec::new();
        write_analysis_text(&mut out, &a).unwrap();
        let text = String::from_utf8(out).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.contains("… (65536 chars) ") && first.ends_with(" 65536"),
            "{text}"
        );
        assert!(text.contains("sum") && text.contains("65535"), "{text}");
    }
}
