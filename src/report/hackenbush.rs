//! Output of `nimseq hackenbush`: exact values of strings and of their sum.

use std::io::{self, Write};

use serde::Serialize;

use crate::hackenbush::{Dyadic, Outcome, StalkValue, Sum};

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
        .max(7);
    for (s, v) in &sum.strings {
        let (x, n) = parts(*v);
        let shown = if s.is_empty() { "(empty)" } else { s };
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
}
