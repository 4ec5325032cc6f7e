//! The real binary on real inputs: `values`, `compute`, help, and every kind of bad input.

mod common;

use common::{assert_usage_error, nimseq, stderr, stdout};
use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn values_prints_a_bfile() {
    let o = nimseq(&["values", "kayles", "-n", "12"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let data: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    // OEIS A002186 (Kayles).
    let expected = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6];
    assert_eq!(data.len(), 12);
    for (n, line) in data.iter().enumerate() {
        assert_eq!(*line, format!("{n} {}", expected[n]));
    }
    assert!(text.starts_with("# "), "header expected: {text}");
    assert!(text.ends_with('\n'));
    let bare = stdout(&nimseq(&["values", "0.77", "-n", "3", "--no-header"]));
    assert_eq!(bare, "0 0\n1 1\n2 2\n");
}

#[test]
fn numbers_in_every_form() {
    for n in ["1000", "1_000", "1e3", "1.0e3", "10^3", "1000.0"] {
        let o = nimseq(&["values", "0.07", "-n", n, "--no-header"]);
        assert!(o.status.success(), "{n}: {}", stderr(&o));
        assert_eq!(stdout(&o).lines().count(), 1000, "{n}");
    }
    let o = nimseq(&["values", "0.07", "-n", "2^10", "--no-header"]);
    assert_eq!(stdout(&o).lines().count(), 1024);
}

#[test]
fn compute_json_has_the_documented_keys() {
    let o = nimseq(&["compute", "grundy", "-n", "200", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "exactly one JSON object: {text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in [
        "game",
        "count",
        "max_value",
        "max_value_first_at",
        "frequencies",
        "rare_mask",
        "rare_count",
        "last_rare_at",
        "period",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}: {text}");
    }
    assert_eq!(v["game"], "4!.0");
    assert_eq!(v["count"], 200);
    let freq = v["frequencies"].as_object().unwrap();
    let total: u64 = freq.values().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(total, 200);
    let mask = v["rare_mask"].as_str().unwrap();
    assert!(u32::from_str_radix(mask, 16).is_ok() && !mask.starts_with("0x"));
}

#[test]
fn compute_text_summary() {
    let o = nimseq(&["compute", "0.137", "-n", "1000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("0.137 (dawsons-chess)"), "{text}");
    assert!(text.contains("1000 values"), "{text}");
}

#[test]
fn help_explains_the_notation() {
    for args in [
        &["--help"][..],
        &["compute", "--help"],
        &["values", "--help"],
    ] {
        let o = nimseq(args);
        assert!(o.status.success());
        let text = stdout(&o);
        for needle in ["0.77", "4!.0", "0.[3]", "sub(1,2,3)", "2^20", "kayles"] {
            assert!(text.contains(needle), "{args:?} help lacks {needle}");
        }
    }
}

#[test]
fn bad_game_codes_are_one_line_usage_errors() {
    assert_usage_error(&["compute", "0.7x", "-n", "10"], "invalid character 'x'");
    assert_usage_error(&["compute", "0.[3", "-n", "10"], "unbalanced brackets");
    assert_usage_error(&["compute", "", "-n", "10"], "empty game code");
    assert_usage_error(&["compute", "kales", "-n", "10"], "did you mean 'kayles'");
    let long = format!("0.{}", "7".repeat(10_000));
    assert_usage_error(&["compute", &long, "-n", "10"], "too long");
    assert_usage_error(&["values", "1.7", "-n", "10"], "before the point");
}

#[test]
fn bad_counts_are_one_line_usage_errors() {
    assert_usage_error(&["compute", "kayles", "-n", "abc"], "not a number");
    assert_usage_error(&["compute", "kayles", "-n", "-5"], "negative");
    assert_usage_error(&["compute", "kayles", "-n", "0"], "at least 1");
    assert_usage_error(&["compute", "kayles", "-n", "2^64"], "too large");
    assert_usage_error(
        &["compute", "kayles", "-n", "18446744073709551615"],
        "memory",
    );
    assert_usage_error(&["compute", "kayles", "-n", "1e15"], "--table");
    assert_usage_error(&["compute", "kayles"], "--count");
}

#[test]
fn unknown_commands_and_flags_are_one_line_usage_errors() {
    assert_usage_error(&["frobnicate"], "frobnicate");
    assert_usage_error(&["compute", "kayles", "-n", "10", "--frob"], "--frob");
    assert_usage_error(
        &["compute", "kayles", "-n", "10", "--engine", "magic"],
        "magic",
    );
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(["values", "0.07", "-n", "20000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {err}");
    assert!(err.is_empty(), "stderr: {err}");
}
