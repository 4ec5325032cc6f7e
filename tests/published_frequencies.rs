//! Value frequencies against those Rogalski published for 0.167, 0.161 and 0.034 at every power
//! of two (github.com/rogalski-wmii-uni-lodz-pl/octal, `results/<game>/<N>`, read at commit
//! e329ba9d; copied with their source into tests/data/published/rogalski-*.tsv). His files count
//! heaps 1 … N (heap 0, whose value is 0, is not counted). Here every power of two up to 2^20;
//! scripts/check-frequencies.py checks a table against the same files to its end.

use nimseq::engine::{compute, EngineKind};
use nimseq::rules::Rule;
use std::collections::BTreeMap;

/// The published counts: N → (value → heaps among 1 … N).
fn published(tsv: &str) -> BTreeMap<u64, BTreeMap<u32, u64>> {
    let mut rows: BTreeMap<u64, BTreeMap<u32, u64>> = BTreeMap::new();
    for line in tsv.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 4 || f[0] == "n_heaps_upto" {
            continue;
        }
        let (n, value, count) = (f[0].parse().unwrap(), f[2].parse().unwrap(), f[3].parse());
        rows.entry(n).or_default().insert(value, count.unwrap());
    }
    rows
}

fn check(code: &str, tsv: &str, upto: u64) {
    let rows = published(tsv);
    assert!(rows.len() >= 30, "{code}: the data file lost rows");
    let values = compute(
        &Rule::parse(code).unwrap(),
        upto as usize + 1,
        EngineKind::Sparse,
    )
    .unwrap()
    .to_u32s();
    assert_eq!(values[0], 0);
    let mut checked = 0;
    for (&n, counts) in rows.range(..=upto) {
        let mut ours: BTreeMap<u32, u64> = BTreeMap::new();
        for &v in &values[1..=n as usize] {
            *ours.entry(v).or_default() += 1;
        }
        // The published files list every value up to the largest, with zero counts too.
        let theirs: BTreeMap<u32, u64> = counts
            .iter()
            .filter(|(_, &c)| c > 0)
            .map(|(&v, &c)| (v, c))
            .collect();
        assert_eq!(
            ours, theirs,
            "{code}: frequencies of heaps 1..{n} (Rogalski)"
        );
        assert_eq!(
            counts.values().sum::<u64>(),
            n,
            "{code}: published counts sum to N"
        );
        checked += 1;
    }
    assert_eq!(checked, 20, "{code}: every power of two 2^1 … 2^20");
}

#[test]
fn frequencies_of_0_167_match_rogalski() {
    check(
        "0.167",
        include_str!("data/published/rogalski-0.167-frequencies.tsv"),
        1 << 20,
    );
}

#[test]
fn frequencies_of_0_161_match_rogalski() {
    check(
        "0.161",
        include_str!("data/published/rogalski-0.161-frequencies.tsv"),
        1 << 20,
    );
}

#[test]
fn frequencies_of_0_034_match_rogalski() {
    check(
        "0.034",
        include_str!("data/published/rogalski-0.034-frequencies.tsv"),
        1 << 20,
    );
}
