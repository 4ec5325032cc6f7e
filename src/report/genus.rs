//! Misère genera as text tables and JSON.

use std::io::{self, Write};

use serde::Serialize;

use super::game_title;
use crate::misere::HeapGenus;
use crate::rules::Rule;

/// The genus in Winning Ways' notation: `0^120`, `4^146`, and `8^(8,10)` when an entry of the
/// superscript has two or more digits.
pub fn genus_notation(g_plus: u32, lambdas: &[u32]) -> String {
    if lambdas.iter().all(|&l| l < 10) {
        let sup: String = lambdas.iter().map(|l| l.to_string()).collect();
        format!("{g_plus}^{sup}")
    } else {
        let sup: Vec<String> = lambdas.iter().map(|l| l.to_string()).collect();
        format!("{g_plus}^({})", sup.join(","))
    }
}

#[derive(Serialize)]
struct GenusRow<'a> {
    heap: usize,
    g_plus: u32,
    lambdas: &'a [u32],
    class: Option<&'static str>,
    notation: String,
}

#[derive(Serialize)]
struct GenusReport<'a> {
    game: String,
    count: usize,
    genus: Vec<GenusRow<'a>>,
}

/// Writes the genera as one JSON object:
/// `{"game", "count", "genus": [{heap, g_plus, lambdas, class, notation}]}` (`class` is
/// `null` when it was not computed).
pub fn write_genus_json<W: Write>(out: W, rule: &Rule, rows: &[HeapGenus]) -> io::Result<()> {
    let report = GenusReport {
        game: rule.code(),
        count: rows.len(),
        genus: rows
            .iter()
            .map(|r| GenusRow {
                heap: r.heap,
                g_plus: r.g_plus,
                lambdas: &r.lambdas,
                class: r.class.map(|c| c.name()),
                notation: genus_notation(r.g_plus, &r.lambdas),
            })
            .collect(),
    };
    super::write_json(out, &report)
}

/// Writes the genera as a table: heap, genus, misère value `g⁻`, class.
pub fn write_genus_text<W: Write>(out: W, rule: &Rule, rows: &[HeapGenus]) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let last = rows.last().map_or(0, |r| r.heap);
    writeln!(
        out,
        "# misère genus of {}, heaps 0 .. {last}",
        game_title(rule)
    )?;
    writeln!(
        out,
        "# genus g+^(λ0 λ1 …): λk = g−(heap + k heaps of *2), written until the last two alternate"
    )?;
    let notes: Vec<String> = rows
        .iter()
        .map(|r| genus_notation(r.g_plus, &r.lambdas))
        .collect();
    let hw = last.to_string().len().max(4);
    let gw = notes.iter().map(|n| n.len()).max().unwrap_or(5).max(5);
    writeln!(out, "{:>hw$}  {:<gw$}  {:>3}  class", "heap", "genus", "g-")?;
    for (r, note) in rows.iter().zip(&notes) {
        writeln!(
            out,
            "{:>hw$}  {:<gw$}  {:>3}  {}",
            r.heap,
            note,
            r.lambdas[0],
            r.class.map_or("-", |c| c.name())
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::misere::Class;

    #[test]
    fn notation() {
        assert_eq!(genus_notation(0, &[1, 2, 0]), "0^120");
        assert_eq!(genus_notation(4, &[1, 4, 6]), "4^146");
        assert_eq!(genus_notation(8, &[8, 10]), "8^(8,10)");
        assert_eq!(genus_notation(12, &[12, 14]), "12^(12,14)");
    }

    #[test]
    fn text_and_json() {
        let rule = Rule::parse("kayles").unwrap();
        let rows = vec![HeapGenus {
            heap: 0,
            g_plus: 0,
            lambdas: vec![1, 2, 0],
            class: Some(Class::Tame),
        }];
        let mut t = Vec::new();
        write_genus_text(&mut t, &rule, &rows).unwrap();
        let t = String::from_utf8(t).unwrap();
        assert!(t.contains("0.77 (kayles)"));
        assert!(t.lines().last().unwrap().contains("0^120"));
        let mut j = Vec::new();
        write_genus_json(&mut j, &rule, &rows).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&j).unwrap();
        assert_eq!(v["genus"][0]["lambdas"], serde_json::json!([1, 2, 0]));
        assert_eq!(v["genus"][0]["class"], "tame");
    }
}
