//! The committed survey of every code 0.d1d2d3 to 2^20 heaps (results/survey-0.ddd-2^20) against
//! the published state of those games (tests/data/octal3_published.tsv, whose header names the
//! source): a period is proved exactly for the games published as solved (but for the two whose
//! proofs need more than 2^20 heaps), and games published as equivalent fall in one group.

use std::collections::HashMap;
use std::path::Path;

use nimseq::survey::{merge, Survey};

const SURVEY: &str = "results/survey-0.ddd-2^20/survey.jsonl";

/// Rows of the data file: (code, equivalent game as published or None, status).
fn published() -> Vec<(String, Option<String>, String)> {
    include_str!("data/octal3_published.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let equivalent = (f[1] != "-").then(|| f[1].to_string());
            (f[0].to_string(), equivalent, f[2].to_string())
        })
        .collect()
}

/// `.4` → `0.400`, `.17` → `0.170`: the 0.d1d2d3 code of a published name, if it has one.
fn three_digit_code(name: &str) -> Option<String> {
    let digits = name.strip_prefix('.')?;
    (digits.len() <= 3).then(|| format!("0.{digits:0<3}"))
}

fn survey() -> Survey {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SURVEY);
    let file = merge::read_shard(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        file.header.count,
        1 << 20,
        "{SURVEY}: not the survey to 2^20"
    );
    Survey::new(file)
}

#[test]
fn proved_periods_are_the_published_solved_games() {
    let survey = survey();
    let rows = published();
    assert_eq!(rows.len(), 512);
    assert_eq!(survey.records.len(), 512);
    let status: HashMap<&str, &str> = rows
        .iter()
        .map(|(c, _, s)| (c.as_str(), s.as_str()))
        .collect();
    let mut proved = 0;
    for r in &survey.records {
        let published = status[r.code.as_str()];
        assert_eq!(
            r.proved,
            published == "solved",
            "{}: published as {published}, {} here",
            r.code,
            if r.proved { "proved" } else { "unsolved" }
        );
        proved += usize::from(r.proved);
    }
    assert_eq!(proved, 317);
}

#[test]
fn published_equivalences_are_groups_of_the_survey() {
    let survey = survey();
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    for (g, members) in survey.groups.iter().enumerate() {
        for m in members {
            group_of.insert(survey.records[m.index].code.as_str(), g);
        }
    }
    let mut checked = 0;
    for (code, equivalent, _) in published() {
        let Some(other) = equivalent.as_deref().and_then(three_digit_code) else {
            continue;
        };
        let (a, b) = (group_of.get(code.as_str()), group_of.get(other.as_str()));
        assert!(
            a.is_some() && a == b,
            "{code} is published as equivalent to {other}; here they are in groups {a:?} and {b:?}"
        );
        checked += 1;
    }
    assert!(checked > 300, "only {checked} equivalences checked");
}
