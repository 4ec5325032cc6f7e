//! `nimseq survey` and `survey-merge` through the real binary: published equivalences, shards
//! that merge into the whole survey, resuming a stopped run, and every kind of bad input.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{assert_usage_error, nimseq, published_sequences, stderr, stdout};
use serde_json::Value;

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_nimseq"));
    c.args(args).stdin(Stdio::null());
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "SLURM_CPUS_PER_TASK",
    ] {
        c.env_remove(var);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run nimseq")
}

fn ok(args: &[&str]) -> String {
    let o = run_env(args, &[]);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// OEIS comments that the game tree contradicts (see DISPUTED in tests/exact_engine.rs: the
/// values differ from heap 27 on).
const DISPUTED: &[(&str, &str)] = &[("A125941", "4.367"), ("A125941", "4.377")];

/// Every ALIAS row of tests/data/oeis_octal.tsv (an OEIS comment "game X has values a(n−k)")
/// must land in the group of its sequence's title game, shifted by exactly k.
#[test]
fn published_aliases_group_with_their_shift() {
    let rows = published_sequences("oeis_octal.tsv");
    let mut base: HashMap<String, (String, usize)> = HashMap::new();
    for r in rows.iter().filter(|r| !r.source.contains("ALIAS")) {
        base.entry(r.id.clone())
            .or_insert((r.game.clone(), r.offset));
    }
    let mut codes: Vec<String> = Vec::new();
    let mut pairs = Vec::new();
    for r in rows.iter().filter(|r| r.source.contains("ALIAS")) {
        let Some((b, b_off)) = base.get(&r.id) else {
            continue;
        };
        for c in [b, &r.game] {
            if !codes.contains(c) {
                codes.push(c.clone());
            }
        }
        pairs.push((
            r.id.clone(),
            b.clone(),
            r.game.clone(),
            r.offset as i64 - *b_off as i64,
        ));
    }
    assert!(pairs.len() > 200, "only {} alias rows", pairs.len());
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("aliases.txt");
    std::fs::write(&list, codes.join("\n") + "\n").unwrap();
    let text = ok(&[
        "survey",
        s(&list),
        "-n",
        "1500",
        "--engine",
        "exact",
        "--json",
    ]);
    let objs: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), codes.len());
    // Each game's group base and offset from it.
    let place: BTreeMap<String, (String, u64)> = objs
        .iter()
        .map(|o| {
            let code = o["code"].as_str().unwrap().to_string();
            let at = match &o["equivalent_to"] {
                Value::Null => (code.clone(), 0),
                e => (
                    e["code"].as_str().unwrap().to_string(),
                    e["shift"].as_u64().unwrap(),
                ),
            };
            (code, at)
        })
        .collect();
    for (id, b, alias, shift) in &pairs {
        let (gb, ob) = &place[b];
        let (ga, oa) = &place[alias];
        if DISPUTED.contains(&(id.as_str(), alias.as_str())) {
            assert_ne!(gb, ga, "{id}: {alias} is no longer disputed");
            continue;
        }
        assert_eq!(gb, ga, "{id}: {alias} is not grouped with {b}");
        assert_eq!(
            *oa as i64 - *ob as i64,
            *shift,
            "{id}: {alias} should be {b} shifted by {shift}"
        );
    }
    // The two disputed games agree with each other, though.
    assert_eq!(place["4.367"], place["4.377"]);
}

#[test]
fn markdown_table_of_a_pattern() {
    let text = ok(&["survey", "0.?7", "-n", "300", "--engine", "exact"]);
    assert!(
        text.starts_with("# Survey of 0.?7 to N = 300 heaps\n"),
        "{text}"
    );
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| 0.")).collect();
    assert_eq!(rows.len(), 8);
    // Kayles (OEIS A002186): the largest value is 8, first at heap 27; it is periodic with
    // period 12 from heap 71, so nothing larger comes later.
    let kayles = rows.iter().find(|r| r.starts_with("| 0.77 |")).unwrap();
    assert!(kayles.contains("| 8 | 27 |"), "{kayles}");
}

#[test]
fn shards_merge_into_the_whole_survey() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, parts, merged) = (
        dir.path().join("whole"),
        dir.path().join("parts"),
        dir.path().join("merged"),
    );
    let md = ok(&["survey", "0.1?", "-n", "2^11", "--out", s(&whole)]);
    assert_eq!(md, read(&whole.join("survey.md")));
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let o = ok(&[
            "survey",
            "0.1?",
            "-n",
            "2^11",
            "--out",
            s(&parts),
            "--shard",
            &shard,
        ]);
        assert_eq!(o, "", "a shard prints nothing on stdout");
    }
    // Every game in exactly one shard.
    let mut seen = Vec::new();
    for i in 1..=3 {
        let text = read(&parts.join(format!("survey-shard-{i}-of-3.jsonl")));
        seen.extend(text.lines().skip(1).map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["index"].as_u64().unwrap()
        }));
    }
    seen.sort();
    assert_eq!(seen, (0..8).collect::<Vec<u64>>());
    let md2 = ok(&["survey-merge", s(&parts), "--out", s(&merged)]);
    assert_eq!(md2, md);
    assert_eq!(
        read(&merged.join("survey.jsonl")),
        read(&whole.join("survey.jsonl"))
    );
    // Files given one by one, in any order, and JSON output.
    let files: Vec<String> = [3, 1, 2]
        .iter()
        .map(|i| s(&parts.join(format!("survey-shard-{i}-of-3.jsonl"))).to_string())
        .collect();
    let mut args = vec!["survey-merge", "--json"];
    args.extend(files.iter().map(String::as_str));
    let json = ok(&args);
    assert_eq!(json, ok(&["survey", "0.1?", "-n", "2^11", "--json"]));
}

#[test]
fn shard_from_the_slurm_environment() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    for id in 1..=4 {
        let id = id.to_string();
        let o = run_env(
            &["survey", "0.0?", "-n", "500", "--out", s(&out)],
            &[
                ("SLURM_ARRAY_TASK_ID", &id),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "4"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(out.join(format!("survey-shard-{id}-of-4.jsonl")).exists());
    }
    let merged = ok(&["survey-merge", s(&out), "--json"]);
    assert_eq!(merged, ok(&["survey", "0.0?", "-n", "500", "--json"]));
    // --shard wins over the environment.
    let o = run_env(
        &[
            "survey",
            "0.0?",
            "-n",
            "500",
            "--out",
            s(&out),
            "--shard",
            "1/1",
        ],
        &[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("survey.jsonl").exists());
    // A Slurm array that cannot be mapped to shards.
    let o = run_env(
        &["survey", "0.0?", "-n", "500", "--out", s(&out)],
        &[("SLURM_ARRAY_TASK_ID", "2")],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("SLURM_ARRAY_TASK_COUNT"),
        "{}",
        stderr(&o)
    );
}

/// A run stopped mid-way (killed while appending a line) resumes with the games it finished.
#[test]
fn a_stopped_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    let cut = dir.path().join("cut");
    ok(&[
        "survey",
        "0.1?",
        "-n",
        "1000",
        "--out",
        s(&full),
        "--shard",
        "1/2",
    ]);
    let text = read(&full.join("survey-shard-1-of-2.jsonl"));
    // Header, two finished games, and half a line.
    let lines: Vec<&str> = text.lines().collect();
    let partial = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &lines[3][..40]
    );
    std::fs::create_dir_all(&cut).unwrap();
    std::fs::write(cut.join("survey-shard-1-of-2.jsonl.partial"), partial).unwrap();
    let shard_one = [
        "survey",
        "0.1?",
        "-n",
        "1000",
        "--out",
        s(&cut),
        "--shard",
        "1/2",
    ];
    let o = run_env(&shard_one, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("resuming: 2 of 4 games already done"),
        "{}",
        stderr(&o)
    );
    // The time reported is this run's, for the games it computed.
    assert!(
        stderr(&o).contains("4 games to N = 1000 (2 computed in"),
        "{}",
        stderr(&o)
    );
    assert_eq!(read(&cut.join("survey-shard-1-of-2.jsonl")), text);
    assert!(!cut.join("survey-shard-1-of-2.jsonl.partial").exists());
    // Run again: already complete, nothing recomputed.
    let o = run_env(&shard_one, &[]);
    assert!(stderr(&o).contains("already complete"), "{}", stderr(&o));
    // A checkpoint of another survey is not silently overwritten.
    std::fs::write(
        cut.join("survey-shard-2-of-2.jsonl.partial"),
        format!("{}\n", lines[0]),
    )
    .unwrap();
    let o = run_env(
        &[
            "survey",
            "0.1?",
            "-n",
            "1000",
            "--out",
            s(&cut),
            "--shard",
            "2/2",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("different survey"), "{}", stderr(&o));
}

#[test]
fn merge_refuses_incomplete_sets_of_shards() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    for i in 1..=3 {
        let shard = format!("{i}/3");
        ok(&[
            "survey",
            "0.2?",
            "-n",
            "400",
            "--out",
            s(&a),
            "--shard",
            &shard,
        ]);
    }
    ok(&[
        "survey",
        "0.2?",
        "-n",
        "500",
        "--out",
        s(&b),
        "--shard",
        "2/3",
    ]);
    let f = |d: &Path, i: usize| s(&d.join(format!("survey-shard-{i}-of-3.jsonl"))).to_string();
    let (a1, a2, a3, b2) = (f(&a, 1), f(&a, 2), f(&a, 3), f(&b, 2));
    assert_usage_error(&["survey-merge", &a1, &a3], "missing shard 2 of 3");
    assert_usage_error(
        &["survey-merge", &a1, &a2, &a2, &a3],
        "shard 2/3 is given twice",
    );
    assert_usage_error(&["survey-merge", &a1, &b2, &a3], "N differs (500 vs 400)");
    // A shard cut short.
    let text = read(Path::new(&a3));
    let short: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(&a3, short).unwrap();
    assert_usage_error(&["survey-merge", &a1, &a2, &a3], "is incomplete");
    std::fs::write(&a3, "hello\n").unwrap();
    assert_usage_error(&["survey-merge", &a1, &a2, &a3], "not a nimseq survey file");
    assert_usage_error(&["survey-merge", s(dir.path())], "holds no shard files");
}

#[test]
fn bad_survey_input() {
    assert_usage_error(&["survey", "0.?x", "-n", "10"], "pattern '0.?x'");
    assert_usage_error(&["survey", "0.????????", "-n", "10"], "wildcards");
    assert_usage_error(
        &["survey", "no/such/file", "-n", "10"],
        "cannot read code file",
    );
    assert_usage_error(
        &["survey", "0.1?", "-n", "10", "--shard", "3/2"],
        "invalid shard",
    );
    assert_usage_error(
        &["survey", "0.1?", "-n", "10", "--shard", "1/2"],
        "needs --out",
    );
    assert_usage_error(&["survey", "0.1?", "-n", "0"], "N must be at least 1");
    let o = nimseq(&["survey", "--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("SLURM_ARRAY_TASK_ID"));
}

/// Four-digit codes to 12 heaps: thousands of games fall into a few classes of identical
/// values (the grouping must stay linear in the games; it once took minutes and gigabytes for
/// the five-digit codes). Checked against values computed here: every game is listed once;
/// each group is connected by direct relations that agree with the offsets listed; and any two
/// games with identical compared prefixes share a group, at the same offset.
#[test]
fn groups_of_thousands_of_identical_games() {
    use nimseq::engine::{self, EngineKind};
    use nimseq::rules::Rule;
    let (n, shift) = (12usize, 6usize); // S = min(8, N/2); relations compare L = N - S values
    let len = n - shift;
    let text = ok(&["survey", "0.????", "-n", "12"]);
    let values = |code: &str| -> Vec<u32> {
        let v = engine::compute(&Rule::parse(code).unwrap(), n, EngineKind::Exact).unwrap();
        (0..n).map(|i| v.get(i)).collect()
    };
    // game -> (group, offset)
    let mut placed: HashMap<String, (usize, usize)> = HashMap::new();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("- 0.")).collect();
    assert!(lines.len() > 10, "{text}");
    for (g, line) in lines.iter().enumerate() {
        let members: Vec<(String, usize, Vec<u32>)> = line[2..]
            .split(", ")
            .map(|item| {
                let (code, offset) = match item.split_once(" (+") {
                    Some((c, d)) => (c, d.trim_end_matches(')').parse::<usize>().unwrap()),
                    None => (item, 0),
                };
                (code.to_string(), offset, values(code))
            })
            .collect();
        assert_eq!(members[0].1, 0, "{line}");
        for (code, offset, _) in &members {
            assert!(
                placed.insert(code.clone(), (g, *offset)).is_none(),
                "{code} twice"
            );
        }
        // Connected by direct relations consistent with the offsets: y's values from heap
        // off(y) − off(x) on equal x's from heap 0.
        let related = |x: &(String, usize, Vec<u32>), y: &(String, usize, Vec<u32>)| {
            y.1 >= x.1 && y.1 - x.1 <= shift && y.2[y.1 - x.1..][..len] == x.2[..len]
        };
        let mut reached = vec![false; members.len()];
        let mut stack = vec![0];
        reached[0] = true;
        while let Some(i) = stack.pop() {
            for j in 0..members.len() {
                if !reached[j]
                    && (related(&members[i], &members[j]) || related(&members[j], &members[i]))
                {
                    reached[j] = true;
                    stack.push(j);
                }
            }
        }
        let lost: Vec<&String> = (0..members.len())
            .filter(|&j| !reached[j])
            .map(|j| &members[j].0)
            .collect();
        assert!(
            lost.is_empty(),
            "not related to the group at their offsets: {lost:?}"
        );
    }
    // Identical compared prefixes: the same group and the same offset.
    let mut by_prefix: HashMap<Vec<u32>, Vec<String>> = HashMap::new();
    for code in text.lines().filter_map(|l| l.strip_prefix("| ")) {
        let code = code.split(' ').next().unwrap();
        if code.starts_with("0.") {
            by_prefix
                .entry(values(code)[..len].to_vec())
                .or_default()
                .push(code.to_string());
        }
    }
    assert_eq!(by_prefix.values().map(Vec::len).sum::<usize>(), 4096);
    let biggest = by_prefix.values().map(Vec::len).max().unwrap();
    assert!(
        biggest > 500,
        "a class of {biggest}: the test is meant to stress large classes"
    );
    for codes in by_prefix.values().filter(|c| c.len() > 1) {
        let first = placed[&codes[0]];
        assert!(codes.iter().all(|c| placed[c] == first), "{codes:?}");
    }
}

/// `survey --misere`: one row per code with |Q|, |P|, certified at and tame, each game in its
/// own process; a game past its budget gets a row that says so, with the heaps it finished. Published: 0.75 is R8 (order
/// 8, |P| 2, wild; Siegel 2007). Rows equal the figures of `quotient --json`.
#[test]
fn misere_survey_of_a_pattern() {
    let text = ok(&["survey", "0.7?", "--misere", "--budget", "2", "-q"]);
    assert!(
        text.starts_with("| code | \\|Q\\| | \\|P\\| | certified at |"),
        "{text}"
    );
    assert!(
        text.contains("| 0.75 | 8 | 2 | 21 | 2 (8) | no |  |"),
        "{text}"
    );
    // 0.76 reaches heap 11 (order 34) in 0.4 s, then would spend over 30 s on heap 12: the
    // budget stops it within that heap, and its row keeps the quotient of heaps 0 .. 11.
    assert!(
        text.contains(
            "| 0.76 | 34 | 9 | — |  | no | partial: heaps 0 .. 11, stopped at time budget 2 s |"
        ),
        "{text}"
    );
    // A file of codes that certify within a second, in JSON.
    let dir = tempfile::tempdir().unwrap();
    let codes = dir.path().join("codes.txt");
    std::fs::write(&codes, "0.1\n0.11\n0.15\n0.121\n").unwrap();
    let json = ok(&["survey", s(&codes), "--misere", "--json", "-q"]);
    let rows: Vec<Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        let code = r["code"].as_str().unwrap();
        assert_eq!(r["certified"], true, "{code}");
        let q: Value = serde_json::from_str(&ok(&[
            "quotient",
            code,
            "--json",
            "-q",
            "--max-heap",
            "300",
        ]))
        .unwrap();
        for key in ["order", "p_count", "certified", "certified_at", "tame"] {
            assert_eq!(r[key], q[key], "{code} {key}");
        }
    }
    assert_usage_error(&["survey", "0.7?", "--misere", "-n", "10"], "");
    assert_usage_error(&["survey", "0.7?", "--misere", "--budget", "-1"], "");
    assert_usage_error(&["survey", "0.7?", "--max-heap", "10", "-n", "5"], "");
}
