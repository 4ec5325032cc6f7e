//! The `period`, `compute` and `report` commands, run as the real binary.

use std::path::Path;
use std::process::{Command, Output};

fn nimseq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(args: &[&str]) -> String {
    let out = nimseq(args);
    assert!(
        out.status.success(),
        "nimseq {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout(args)).unwrap()
}

#[test]
fn period_of_kayles_is_proved() {
    // Kayles: period 12 from heap 71 (Guy & Smith 1956; OEIS A002186).
    let v = json(&["period", "kayles", "--json"]);
    assert_eq!(v["game"], "0.77");
    assert_eq!(v["period"]["proved"], true);
    assert_eq!(v["period"]["preperiod"], 71);
    assert_eq!(v["period"]["period"], 12);
    assert_eq!(v["period"]["last_exception"], 70);
    assert!(v["count"].as_u64().unwrap() >= 2 * 71 + 2 * 12 + 2);
    let text = stdout(&["period", "0.77"]);
    assert!(text.contains("G(n + 12) = G(n) for all 71 <= n < 2*71 + 12 + 2 = 156"));
}

#[test]
fn period_json_keys_are_exactly_the_documented_ones() {
    // docs/JSON.md: game, count, theorem_t, and the period nested as in `compute --json`
    // (an object with the keys of a period, or null), nothing else.
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort_unstable();
        k
    };
    let period_keys = [
        "last_exception",
        "period",
        "periods_seen",
        "preperiod",
        "proved",
        "shift",
        "theorem_bound",
    ];
    for args in [
        &["period", "kayles", "--json"][..],
        &["period", "grundy", "--max", "300", "--json"],
        &["period", "0.3F", "--max", "100", "--json"],
    ] {
        let v = json(args);
        assert_eq!(
            keys(&v),
            ["count", "game", "period", "theorem_t"],
            "{args:?}"
        );
        if !v["period"].is_null() {
            assert_eq!(keys(&v["period"]), period_keys, "{args:?}");
        }
    }
    // The same nesting as compute --json and info --json.
    let c = json(&["compute", "kayles", "-n", "1000", "--json"]);
    assert_eq!(keys(&c["period"]), period_keys);
}

#[test]
fn period_of_0_16_is_proved_fast_and_holds_far_beyond() {
    // 0.16: period 149459 from heap 105351 (Gangolli & Plambeck 1989; OEIS A071430), proved
    // from 509,622 values. Issue 5 asks for well under a second: measured, not asserted here
    // (release build 0.15-0.4 s, see results/period.md).
    let v = json(&["period", "0.16", "--json"]);
    assert_eq!(v["period"]["proved"], true);
    assert_eq!(
        (
            v["period"]["preperiod"].as_u64(),
            v["period"]["period"].as_u64(),
            v["period"]["last_exception"].as_u64()
        ),
        (Some(105_351), Some(149_459), Some(105_350))
    );
    assert_eq!(v["period"]["theorem_bound"], 2 * 105_351 + 2 * 149_459 + 2);
    // The proof against the values themselves (tests/period_theorem.rs checks 3x the bound).
}

#[test]
fn unproved_covered_game_reports_the_candidate_closest_to_a_proof() {
    // 480,000 values of 0.16 hold 2.5 periods of the true period but not the 509,622 the proof
    // needs: the best candidate is that period, with the values a proof would need.
    let v = json(&["period", "0.16", "--max", "480000", "--json"]);
    assert_eq!(v["period"]["proved"], false);
    assert_eq!(v["count"], 480_000);
    assert_eq!(
        (
            v["period"]["preperiod"].as_u64(),
            v["period"]["period"].as_u64(),
            v["period"]["last_exception"].as_u64()
        ),
        (Some(105_351), Some(149_459), Some(105_350))
    );
    assert_eq!(v["period"]["theorem_bound"], 509_622);
    assert_eq!(v["period"]["periods_seen"], 2);
    let text = stdout(&["period", "0.16", "--max", "480000"]);
    assert!(
        text.contains("best candidate G(n + 149459) = G(n) from heap 105351")
            && text.contains("needs 509622 values (--max 509622)"),
        "{text}"
    );
}

#[test]
fn costly_codes_have_a_smaller_default_limit() {
    // Three-heap moves cost O(n^2) per heap: the default --max is 2^11 for them, not 2^24.
    let v = json(&["period", "0.3F", "--json"]);
    assert_eq!(v["count"], 2048);
    assert_eq!(json(&["period", "0.8", "--json"])["count"], 2048);
    // So do repeating tails that split (takes of any size, then two heaps): 2^11.
    let v = json(&["period", "0.[37]", "--json"]);
    assert_eq!(v["count"], 2048);
    // A tail that does not split costs O(n) a heap: 2^16. Nim: G(n) = n, seen as the
    // arithmetic periodicity G(n + 1) = G(n) + 1 over every value.
    let v = json(&["period", "nim", "--json"]);
    assert_eq!(v["count"], 65536);
    assert_eq!(
        (
            v["period"]["period"].as_u64(),
            v["period"]["shift"].as_u64()
        ),
        (Some(1), Some(1)),
        "{v}"
    );
    assert_eq!(v["period"]["proved"], false);
}

#[test]
fn period_of_dawsons_games() {
    // Dawson's chess 0.137: period 34, last exception 51 (OEIS A002187); 0.07 one heap later.
    let v = json(&["period", "dawsons-chess", "--json"]);
    assert_eq!(
        (
            v["period"]["preperiod"].as_u64(),
            v["period"]["period"].as_u64()
        ),
        (Some(52), Some(34))
    );
    let v = json(&["period", "0.07", "--json"]);
    assert_eq!(
        (
            v["period"]["preperiod"].as_u64(),
            v["period"]["period"].as_u64()
        ),
        (Some(53), Some(34))
    );
}

#[test]
fn period_from_heap_zero_has_no_last_exception() {
    // 0.3: G = 0, 1, 0, 1, ...
    let v = json(&["period", "0.3", "--json"]);
    assert_eq!(v["period"]["preperiod"], 0);
    assert_eq!(v["period"]["period"], 2);
    assert!(v["period"]["last_exception"].is_null());
}

#[test]
fn uncovered_games_are_never_proved() {
    let v = json(&["period", "0.3F", "--max", "600", "--json"]);
    assert_eq!(v["period"]["proved"], false);
    assert_eq!(v["count"], 600);
    // Arithmetic periodicity G(n + 6) = G(n) + 3 (ALGORITHMS §5; Howse & Nowakowski 2004).
    assert_eq!(
        (
            v["period"]["period"].as_u64(),
            v["period"]["shift"].as_u64()
        ),
        (Some(6), Some(3))
    );
    let v = json(&["period", "grundy", "--max", "300", "--json"]);
    assert!(v["period"].is_null());
    let text = stdout(&["period", "grundy", "--max", "300"]);
    assert!(text.contains("does not apply"), "{text}");
}

#[test]
fn unproved_octal_game_reports_limit() {
    // Officers is not known to be periodic.
    let v = json(&["period", "officers", "--max", "2000", "--json"]);
    assert_ne!(v["period"]["proved"], true, "{v}");
    assert_eq!(v["count"], 2000);
}

#[test]
fn period_rejects_bad_input() {
    let out = nimseq(&["period", "0.9x"]);
    assert_eq!(out.status.code(), Some(2));
    let out = nimseq(&["period", "0.77", "--max", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn compute_stops_at_the_period_and_extends_the_statistics() {
    let fast = json(&["compute", "kayles", "-n", "1e6", "--json"]);
    assert_eq!(fast["count"], 1_000_000);
    assert_eq!(fast["period"]["period"], 12);
    assert_eq!(fast["period"]["proved"], true);
    // Statistics extended from the period agree with counting every value (a count that is not
    // a multiple of 12, so the partial last period matters).
    let v = json(&["compute", "kayles", "-n", "5003", "--json"]);
    let direct: Vec<u32> = stdout(&["values", "kayles", "-n", "5003", "--no-header"])
        .lines()
        .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
        .collect();
    for (value, count) in v["frequencies"].as_object().unwrap() {
        let value: u32 = value.parse().unwrap();
        let n = direct.iter().filter(|&&g| g == value).count() as u64;
        assert_eq!(count.as_u64(), Some(n), "value {value}");
    }
}

#[test]
fn report_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kayles");
    let printed = stdout(&[
        "report",
        "kayles",
        "-n",
        "20000",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(printed.lines().count(), 3);
    let bfile = std::fs::read_to_string(out.join("bA002186.txt")).unwrap();
    check_bfile(&bfile, 0, 9999);
    // OEIS A002186 starts 0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6.
    let first: Vec<&str> = bfile
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(12)
        .collect();
    assert_eq!(first[11], "11 6");
    let svg = std::fs::read_to_string(out.join("plot.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("logarithmic") && svg.contains("period 12"));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for needle in [
        "# Sprague–Grundy values of 0.77 (kayles)",
        "**Proved**",
        "preperiod **71**",
        "## Value frequencies",
        "## Rare values",
        "## First values",
        "A002186",
    ] {
        assert!(md.contains(needle), "summary lacks {needle:?}");
    }
}

#[test]
fn report_for_a_sequence_with_offset_one_and_without_a_number() {
    let dir = tempfile::tempdir().unwrap();
    // 0.16 is A071430, offset 1 in the OEIS: the b-file starts at heap 1.
    stdout(&[
        "report",
        "0.16",
        "-n",
        "300",
        "-o",
        dir.path().to_str().unwrap(),
        "--bfile-terms",
        "all",
    ]);
    let bfile = std::fs::read_to_string(dir.path().join("bA071430.txt")).unwrap();
    check_bfile(&bfile, 1, 299);
    // A071430 starts 1, 0, 0, 1, 2, 2, 1, 4 at heap 1.
    assert!(bfile.contains("\n1 1\n2 0\n3 0\n4 1\n5 2\n"));
    stdout(&[
        "report",
        "0.3F",
        "-n",
        "200",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    let bfile = std::fs::read_to_string(dir.path().join("b_0.3F.txt")).unwrap();
    check_bfile(&bfile, 0, 199);
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains("Observed, not proved") && md.contains("arithmetic"));
    assert!(!Path::new(&dir.path().join(".summary.md.tmp")).exists());
}

#[test]
fn report_from_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // Officers (no period known): the folder from the table equals the one computed in memory
    // (with two threads: the values never depend on the thread count).
    stdout(&[
        "compute",
        "0.6",
        "-n",
        "30000",
        "--table",
        &d("o.nimseq"),
        "-q",
    ]);
    stdout(&[
        "report",
        "0.6",
        "-n",
        "30000",
        "--table",
        &d("o.nimseq"),
        "-o",
        &d("t"),
    ]);
    stdout(&[
        "report",
        "0.6",
        "-n",
        "30000",
        "--threads",
        "2",
        "-o",
        &d("m"),
    ]);
    for f in ["bA046695.txt", "plot.svg", "summary.md"] {
        let a = std::fs::read(dir.path().join("t").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("m").join(f)).unwrap();
        assert!(a == b, "{f} differs between table and memory");
    }
    // A prefix of a table: Kayles, with the period the table records.
    stdout(&[
        "compute",
        "kayles",
        "-n",
        "50000",
        "--table",
        &d("k.nimseq"),
        "-q",
    ]);
    stdout(&[
        "report",
        "kayles",
        "-n",
        "20000",
        "--table",
        &d("k.nimseq"),
        "-o",
        &d("k"),
    ]);
    let bfile = std::fs::read_to_string(dir.path().join("k/bA002186.txt")).unwrap();
    check_bfile(&bfile, 0, 9999);
    let md = std::fs::read_to_string(dir.path().join("k/summary.md")).unwrap();
    assert!(
        md.contains("preperiod **71**") && md.contains("20,000 values"),
        "{md}"
    );
    // Heaps beyond the table, another game's table, --engine with --table: usage errors.
    for args in [
        vec![
            "report",
            "kayles",
            "-n",
            "60000",
            "--table",
            &d("k.nimseq"),
            "-o",
            &d("x"),
        ],
        vec![
            "report",
            "0.6",
            "-n",
            "100",
            "--table",
            &d("k.nimseq"),
            "-o",
            &d("x"),
        ],
        vec![
            "report",
            "kayles",
            "-n",
            "100",
            "--table",
            &d("k.nimseq"),
            "--engine",
            "exact",
            "-o",
            &d("x"),
        ],
    ] {
        let out = nimseq(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// An OEIS b-file: `#` lines first, then `n a(n)` for consecutive n, LF, final newline.
fn check_bfile(text: &str, first: u64, last: u64) {
    assert!(text.ends_with('\n') && !text.contains('\r'));
    let lines: Vec<&str> = text.lines().skip_while(|l| l.starts_with('#')).collect();
    assert!(lines.iter().all(|l| !l.starts_with('#')));
    assert_eq!(lines.len() as u64, last - first + 1);
    for (n, line) in (first..).zip(&lines) {
        let (a, b) = line.split_once(' ').unwrap();
        assert_eq!(a.parse::<u64>().unwrap(), n);
        b.parse::<u32>().unwrap();
    }
}

#[test]
fn values_from_the_period_equal_exact_values() {
    // `values` stops computing at the proved period (heap ~175) and prints the rest from it;
    // the library's exact engine computes all 3000.
    let printed = stdout(&["values", "0.137", "-n", "3000", "--no-header"]);
    let exact = nimseq::engine::compute(
        &nimseq::rules::Rule::parse("0.137").unwrap(),
        3000,
        nimseq::engine::EngineKind::Exact,
    )
    .unwrap();
    let expected: String = exact
        .iter()
        .enumerate()
        .map(|(n, g)| format!("{n} {g}\n"))
        .collect();
    assert_eq!(printed, expected);
}

#[test]
fn period_of_0_354_is_proved_with_no_options() {
    // 0.354: period 1180, last exception at heap 10,061,915 (Flammenkamp's tables of octal
    // games; OEIS A071496; tczajka/octal-games SolvedGames.md). The first 2^24 values hold the
    // candidate but not the 20,126,195 its proof needs: the run goes on by itself, to exactly
    // the values the theorem needs.
    let v = json(&["period", "0.354", "--json", "--quiet"]);
    assert_eq!(v["period"]["proved"], true, "{v}");
    assert_eq!(
        (
            v["period"]["preperiod"].as_u64(),
            v["period"]["period"].as_u64()
        ),
        (Some(10_061_916), Some(1180))
    );
    assert_eq!(v["period"]["theorem_bound"], 20_126_195);
    assert_eq!(v["count"], 20_126_195);
}

/// Runs the binary with `args` for `ms` milliseconds, then sends `sig`; its exit code and stderr.
fn interrupted(args: &[&str], ms: u64, sig: i32) -> (Option<i32>, String) {
    use std::process::Stdio;
    let child = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(ms));
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn period_in_a_table_resumes_after_a_kill_and_records_the_proof() {
    // 0.16: period 149459 from heap 105351 (Gangolli & Plambeck 1989; OEIS A071430).
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.nimseq");
    let t = t.to_str().unwrap();
    let args = ["period", "0.16", "--table", t, "--quiet", "--json"];
    // Killed part-way (or not even started): the next run resumes from what was committed.
    let _ = interrupted(&args, 150, libc::SIGKILL);
    let v = json(&args);
    assert_eq!(v["period"]["proved"], true, "{v}");
    assert_eq!(
        (
            v["period"]["preperiod"].as_u64(),
            v["period"]["period"].as_u64()
        ),
        (Some(105_351), Some(149_459))
    );
    let count = v["count"].as_u64().unwrap();
    assert!(count >= 509_622, "{v}");
    // The proof is recorded: 'info' shows it, and a new run reads it without computing.
    let info = json(&["info", t, "--json"]);
    assert_eq!(info["count"], count);
    assert_eq!(info["period"]["proved"], true);
    assert_eq!(info["period"]["period"], 149_459);
    assert_eq!(info["period"]["theorem_bound"], 509_622);
    let text = stdout(&["info", t, "--verify"]);
    assert!(
        text.contains("period 149459 from heap 105351 (proved by the octal periodicity theorem from heaps 0 .. 509621"),
        "{text}"
    );
    assert_eq!(json(&args), v);
    // The values stored are the ones computed in memory.
    let n = count.to_string();
    assert_eq!(
        stdout(&["values", "0.16", "-n", &n, "--table", t]),
        stdout(&["values", "0.16", "-n", &n, "-q"])
    );
}

#[test]
fn period_in_a_table_stops_cleanly_on_sigint_and_sigterm() {
    // Officers (no period known) with the exact engine, O(N^2): long enough to be interrupted;
    // the resumed run then uses the default engine.
    let dir = tempfile::tempdir().unwrap();
    for (sig, code, name) in [
        (libc::SIGTERM, 143, "SIGTERM"),
        (libc::SIGINT, 130, "SIGINT"),
    ] {
        let t = dir.path().join(format!("{name}.nimseq"));
        let t = t.to_str().unwrap();
        let (got, err) = interrupted(
            &[
                "period", "0.6", "--max", "200000", "--engine", "exact", "--table", t, "-q",
            ],
            300,
            sig,
        );
        assert_eq!(got, Some(code), "{err}");
        assert!(
            err.contains(&format!("stopped by {name}")) && err.contains("run the same command"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        let v = json(&[
            "period", "0.6", "--max", "200000", "--table", t, "-q", "--json",
        ]);
        assert_ne!(v["period"]["proved"], true, "{v}");
        assert_eq!(v["count"], 200_000);
        assert_eq!(json(&["info", t, "--json"])["count"], 200_000);
    }
}

#[test]
fn every_long_command_takes_the_same_run_options() {
    // --threads and --quiet (one definition) wherever values are computed; --quiet alone for
    // genus, which computes on one thread; --table wherever values are read.
    for cmd in ["values", "compute", "report", "period", "play", "survey"] {
        let help = stdout(&[cmd, "--help"]);
        for flag in ["--threads <T>", "--quiet"] {
            assert!(help.contains(flag), "{cmd} --help lacks {flag}");
        }
    }
    let help = stdout(&["genus", "--help"]);
    assert!(help.contains("--quiet") && help.contains("--progress"));
    for cmd in ["values", "compute", "report", "period", "play"] {
        assert!(stdout(&[cmd, "--help"]).contains("--table <PATH>"), "{cmd}");
    }
    // The options work: the same output with them as without.
    assert_eq!(
        stdout(&["period", "kayles", "--threads", "2", "-q", "--json"]),
        stdout(&["period", "kayles", "--json"])
    );
    assert_eq!(
        stdout(&["genus", "kayles", "-n", "12", "--quiet"]),
        stdout(&["genus", "kayles", "-n", "12"])
    );
    let out = nimseq(&["period", "kayles", "--threads", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ctrl_c_reports_the_best_candidate_so_far() {
    // Officers (no period known) with no --max searches on (issue 29, defect 2); Ctrl-C prints
    // what the values so far show and exits 130.
    use std::process::Stdio;
    let child = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(["period", "0.6", "--json", "-q", "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: a plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("stopped by SIGINT after") && err.lines().count() == 1,
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["count"].as_u64().unwrap() > 0, "{v}");
    assert_ne!(v["period"]["proved"], true, "{v}");
}
