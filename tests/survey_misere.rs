//! `nimseq survey PATTERN --misere` through the real binary: its files, a run killed mid-way and
//! resumed, a rerun with larger limits, shards (by `--shard` and by a Slurm job array) merged
//! into the unsharded table, and bad input. Cheap: every game stops at a small heap limit
//! (deterministic rows, no clock decides any).

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{assert_usage_error, stderr, stdout};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_nimseq");

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
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

fn ok(args: &[&str]) -> Output {
    let o = run_env(args, &[]);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn rows(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// 64 games to heap 8: about 1.4 s on one thread, each in its own process.
const WIDE: [&str; 6] = ["survey", "0.??", "--misere", "--max-heap", "8", "-q"];

fn wide(extra: &[&str]) -> Vec<String> {
    WIDE.iter().chain(extra).map(|a| a.to_string()).collect()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// A run killed mid-way (SIGKILL, as a Slurm preemption) leaves the rows it finished in
/// misere.jsonl.partial; the rerun computes only the rest, and its table equals an
/// uninterrupted run's, one row per game.
#[test]
fn a_killed_run_resumes_with_its_finished_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (full, cut) = (dir.path().join("full"), dir.path().join("cut"));
    let whole = ok(&args(&wide(&["--json", "--out", s(&full)])));
    let expected = rows(&stdout(&whole));
    assert_eq!(expected.len(), 64);
    let file = std::fs::read_to_string(full.join("misere.jsonl")).unwrap();
    assert_eq!(
        rows(&file)[1..],
        expected[..],
        "the file holds the --json rows"
    );
    assert!(full.join("misere.md").exists());
    assert!(!full.join("misere.jsonl.partial").exists());

    let partial = cut.join("misere.jsonl.partial");
    let mut child = Command::new(BIN)
        .args(args(&wide(&["--json", "--threads", "1", "--out", s(&cut)])))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let began = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&partial).map_or(0, |t| t.lines().count());
        if lines >= 6 {
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(60), "no rows appear");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!cut.join("misere.jsonl").exists(), "killed before the end");
    let left = std::fs::read_to_string(&partial).unwrap();
    let finished = left.lines().count() - 1;
    assert!((5..64).contains(&finished), "{finished} rows left");

    let again = ok(&args(&wide(&["--json", "--out", s(&cut)])));
    let err = stderr(&run_env(&args(&wide(&["--out", s(&cut)])), &[]));
    // The second rerun finds the survey complete.
    assert!(err.is_empty() || err.contains("already complete"), "{err}");
    assert_eq!(rows(&stdout(&again)), expected);
    let file = std::fs::read_to_string(cut.join("misere.jsonl")).unwrap();
    let got = rows(&file);
    assert_eq!(got[1..], expected[..], "complete, in order, no row twice");
    assert!(!partial.exists());
}

/// The rerun says what it resumed (not quiet here).
#[test]
fn a_rerun_with_a_larger_heap_limit_redoes_only_the_rows_it_cut() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let first = ok(&[
        "survey",
        "0.0?",
        "--misere",
        "--max-heap",
        "8",
        "--json",
        "-q",
        "--out",
        s(&out),
    ]);
    let cut_short = rows(&stdout(&first))
        .iter()
        .filter(|r| r["stopped_by"] == "heap_limit")
        .count();
    assert!((1..8).contains(&cut_short), "{cut_short}");
    let o = ok(&[
        "survey",
        "0.0?",
        "--misere",
        "--max-heap",
        "12",
        "--json",
        "--out",
        s(&out),
    ]);
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "resuming: {} of 8 games already done, {cut_short} to compute",
            8 - cut_short
        )),
        "{err}"
    );
    let direct = ok(&[
        "survey",
        "0.0?",
        "--misere",
        "--max-heap",
        "12",
        "--json",
        "-q",
    ]);
    assert_eq!(rows(&stdout(&o)), rows(&stdout(&direct)));
    // The same limits again: nothing to do.
    let o = ok(&[
        "survey",
        "0.0?",
        "--misere",
        "--max-heap",
        "12",
        "--out",
        s(&out),
    ]);
    assert!(stderr(&o).contains("already complete"), "{}", stderr(&o));
    // A smaller limit keeps what was found.
    let o = ok(&[
        "survey",
        "0.0?",
        "--misere",
        "--max-heap",
        "8",
        "--json",
        "-q",
        "--out",
        s(&out),
    ]);
    assert_eq!(rows(&stdout(&o)), rows(&stdout(&direct)));
    // Another survey in the same directory is refused.
    let o = run_env(
        &[
            "survey",
            "0.1?",
            "--misere",
            "--max-heap",
            "8",
            "--out",
            s(&out),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("different survey"), "{}", stderr(&o));
}

/// Shards by `--shard I/K` and by a Slurm job array merge into the unsharded table; a missing
/// shard, shards of other limits and a shard without --out are refused with exit code 2.
#[test]
fn shards_merge_into_the_unsharded_table() {
    let dir = tempfile::tempdir().unwrap();
    let parts = dir.path().join("parts");
    let whole = stdout(&ok(&args(&wide(&["--json"]))));
    let table = stdout(&ok(&args(&wide(&[]))));
    ok(&args(&wide(&["--shard", "1/3", "--out", s(&parts)])));
    // Shard 2 from a Slurm array numbered from 0.
    let o = run_env(
        &args(&wide(&["--out", s(&parts)])),
        &[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "2"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "a shard prints no table");
    let shard3 = parts.join("misere-shard-3-of-3.jsonl");
    let missing = run_env(&["survey-merge", s(&parts)], &[]);
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(
        stderr(&missing).contains("missing shard 3 of 3"),
        "{}",
        stderr(&missing)
    );
    ok(&args(&wide(&["--shard", "3/3", "--out", s(&parts)])));
    let sizes: Vec<usize> = (1..=3)
        .map(|i| {
            let f = parts.join(format!("misere-shard-{i}-of-3.jsonl"));
            std::fs::read_to_string(f).unwrap().lines().count() - 1
        })
        .collect();
    assert_eq!(sizes, [22, 21, 21]);
    let merged_dir = dir.path().join("merged");
    let merged = ok(&["survey-merge", s(&parts), "--json", "--out", s(&merged_dir)]);
    assert_eq!(rows(&stdout(&merged)), rows(&whole));
    assert_eq!(stdout(&ok(&["survey-merge", s(&parts)])), table);
    assert_eq!(
        std::fs::read_to_string(merged_dir.join("misere.md")).unwrap(),
        table
    );
    // A shard of other limits does not merge.
    let other = dir.path().join("other");
    ok(&[
        "survey",
        "0.??",
        "--misere",
        "--max-heap",
        "9",
        "-q",
        "--shard",
        "3/3",
        "--out",
        s(&other),
    ]);
    let mixed = run_env(
        &[
            "survey-merge",
            s(&parts.join("misere-shard-1-of-3.jsonl")),
            s(&parts.join("misere-shard-2-of-3.jsonl")),
            s(&other.join("misere-shard-3-of-3.jsonl")),
        ],
        &[],
    );
    assert_eq!(mixed.status.code(), Some(2), "{}", stderr(&mixed));
    assert!(
        stderr(&mixed).contains("heap limit differs (9 vs 8)"),
        "{}",
        stderr(&mixed)
    );
    assert!(shard3.exists());
}

#[test]
fn bad_input_exits_2() {
    for (extra, needle) in [
        (
            &["--budget", "0"][..],
            "--budget 0 is not a positive number",
        ),
        (&["--budget", "nan"][..], "--budget"),
        (
            &["--max-heap", "2000000"][..],
            "--max-heap 2000000 is above",
        ),
        (&["--shard", "2/3"][..], "needs --out DIR"),
        (&["--shard", "0/3", "--out", "x"][..], "0/3"),
        (&["--engine", "exact"][..], "--engine"),
        (&["-n", "10"][..], ""),
        // Options of the plain survey are refused, not ignored (--max-shift was ignored).
        (&["--max-shift", "3"][..], "'--max-shift <S>'"),
        // Negative limits get the count's message, not clap's "unexpected argument".
        (
            &["--max-order", "-3"][..],
            "'--max-order <K>': '-3' is negative",
        ),
        (
            &["--max-heap", "-1"][..],
            "'--max-heap <N>': '-1' is negative",
        ),
    ] {
        let mut a = vec!["survey", "0.0?", "--misere"];
        a.extend(extra);
        assert_usage_error(&a, needle);
    }
    assert_usage_error(&["survey", "0.x?", "--misere"], "");
    assert_usage_error(
        &["survey", "0.0?", "--misere", "--max-shift", "3"],
        "'--misere'",
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("misere-shard-1-of-2.jsonl");
    std::fs::write(
        &bad,
        "{\"format\":\"nimseq-misere-survey\",\"version\":1}\n",
    )
    .unwrap();
    assert_usage_error(&["survey-merge", s(&bad)], "bad header");
}

/// `--log-every` is not ignored: in a log (stderr not a terminal) the survey writes a line of
/// its games every SECS seconds, as the plain survey and the long commands do.
#[test]
fn in_a_log_a_line_of_progress_every_log_every_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let codes = dir.path().join("codes.txt");
    // Two wild games, each stopped by its budget of 1.1 s: one line at least after the first.
    std::fs::write(&codes, "0.07\n0.76\n").unwrap();
    let args = [
        "survey",
        s(&codes),
        "--misere",
        "--budget",
        "1.1",
        "--threads",
        "1",
        "--log-every",
        "1",
    ];
    let o = ok(&args);
    let err = stderr(&o);
    assert!(
        err.lines().any(|l| l.starts_with("nimseq: ")
            && l.contains(" of 2 games (")
            && l.contains(", last 0.07")),
        "no progress line: {err}"
    );
    let quiet = ok(&[&args[..], &["-q"]].concat());
    assert_eq!(stderr(&quiet), "", "--quiet writes nothing");
}

/// The pids of the processes whose parent is `parent`, with their command lines (Linux /proc).
fn children(parent: u32) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": the fields after the last ')'.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let mut f = rest.split(' ');
        let state = f.next().unwrap();
        let ppid: u32 = f.next().unwrap().parse().unwrap();
        if ppid == parent && state != "Z" {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            out.push((pid, String::from_utf8_lossy(&cmd).replace('\0', " ")));
        }
    }
    out
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let rest = &s[s.rfind(')').unwrap() + 2..];
        !rest.starts_with('Z')
    })
}

/// A survey killed outright (SIGKILL: no handler runs) takes its games' processes with it:
/// 0.76 spends over 30 s in heap 12, and its process must not outlive the survey.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_survey_leaves_no_game_running() {
    let dir = tempfile::tempdir().unwrap();
    let mut survey = Command::new(BIN)
        .args([
            "survey", "0.7?", "--misere", "--budget", "30", "-q", "--out",
        ])
        .arg(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let began = Instant::now();
    let game = loop {
        if let Some((pid, _)) = children(survey.id())
            .into_iter()
            .find(|(_, cmd)| cmd.contains(" 0.76 "))
        {
            break pid;
        }
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "0.76 never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    std::thread::sleep(Duration::from_millis(200));
    assert!(alive(game));
    survey.kill().unwrap();
    survey.wait().unwrap();
    let killed = Instant::now();
    while alive(game) {
        if killed.elapsed() > Duration::from_secs(10) {
            // SAFETY: a plain kill(2) of the orphan this test made.
            unsafe { libc::kill(game as i32, libc::SIGKILL) };
            panic!("game process {game} outlived the survey");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
