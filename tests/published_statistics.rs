//! The statistics of `compute --json` (largest value and its first heap, rare mask, rare count,
//! last rare heap) against published figures: tests/data/statistics_published.tsv, whose header
//! names the source. Among them Grundy's game to 2^20 and Officers (0.6) to 2^21, whose largest
//! value 319 first appears at heap 1,274,955.

mod common;

use common::{nimseq, stderr, stdout};

#[test]
fn statistics_match_the_published_tables() {
    let rows: Vec<Vec<&str>> = include_str!("data/statistics_published.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    assert!(rows.len() >= 13, "the data file lost rows");
    // Each row is a process of its own: run them side by side (Officers to 2^21 is most of it).
    let outputs: Vec<_> = std::thread::scope(|s| {
        let jobs: Vec<_> = rows
            .iter()
            .map(|f| s.spawn(|| nimseq(&["compute", f[0], "-n", f[1], "--json"])))
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap()).collect()
    });
    for (f, o) in rows.iter().zip(outputs) {
        let (game, n, source) = (f[0], f[1], f[7]);
        assert!(o.status.success(), "{game}: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let keys = [
            ("max_value", f[2]),
            ("max_value_first_at", f[3]),
            ("rare_mask", f[4]),
            ("rare_count", f[5]),
            ("last_rare_at", f[6]),
        ];
        for (key, published) in keys {
            if published == "-" {
                continue;
            }
            let ours = match &json[key] {
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            assert_eq!(ours, published, "{game} to {n}: {key} ({source})");
        }
    }
}
