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

#[test]
fn no_command_is_one_line() {
    assert_usage_error(&[], "no command given; give one of values, compute,");
}

/// An unknown flag before the game used to be taken as the game ("unexpected argument
/// 'kayles'"); the message must name the flag.
#[test]
fn an_unknown_flag_before_the_game_is_named() {
    for args in [
        &["values", "--frob", "kayles", "-n", "5"][..],
        &["compute", "--frob", "kayles", "-n", "5"],
        &["period", "--frob", "kayles"],
        &["genus", "--frob", "kayles", "-n", "5"],
        &["report", "--frob", "kayles", "-n", "5", "-o", "x"],
        &["play", "--frob", "kayles", "3"],
        &["survey", "--frob", "0.?", "-n", "5"],
        &["info", "--frob", "t"],
    ] {
        assert_usage_error(args, "unexpected argument '--frob'");
    }
}

/// Negative numbers reach the option's own check, which names the problem (clap alone says
/// "unexpected argument '-1'").
#[test]
fn negative_numbers_are_named() {
    assert_usage_error(&["values", "kayles", "-n", "-3"], "'-3' is negative");
    assert_usage_error(&["genus", "kayles", "-n", "-3"], "'-3' is negative");
    assert_usage_error(&["survey", "0.?", "-n", "-3"], "'-3' is negative");
    assert_usage_error(&["period", "kayles", "--max", "-3"], "'-3' is negative");
    assert_usage_error(
        &["values", "kayles", "-n", "5", "--threads", "-1"],
        "'-1' is not a thread count",
    );
    assert_usage_error(
        &["compute", "kayles", "-n", "5", "--checkpoint", "-1"],
        "'-1' is not a number of seconds",
    );
    assert_usage_error(&["play", "kayles", "3", "-1"], "'-1' is negative");
    assert_usage_error(&["export", "t", "--from", "-1"], "'-1' is negative");
}

/// Too large for memory: the advice names an option the command has.
#[test]
fn counts_beyond_memory_give_advice_that_applies() {
    let o = nimseq(&["compute", "kayles", "-n", "2^50"]);
    assert!(stderr(&o).contains("keep the values on disk with --table PATH"));
    for args in [
        &["values", "kayles", "-n", "2^50"][..],
        &["report", "kayles", "-n", "2^50", "-o", "x"],
        &["survey", "0.?", "-n", "2^50"],
    ] {
        assert_usage_error(args, "memory");
        assert!(!stderr(&nimseq(args)).contains("keep the values on disk with --table"));
    }
    assert_usage_error(
        &["period", "kayles", "--max", "2^62"],
        "--max 4611686018427387904",
    );
    assert_usage_error(
        &["period", "kayles", "--max", "0"],
        "--max must be at least 1",
    );
    // Kayles' period gives the value and the winning moves of any heap, but they are too many
    // to list them all (issue 29: they used to be refused as too many options to look at).
    assert_usage_error(
        &["play", "kayles", "2^62"],
        "list the first K with --max-moves K",
    );
    let o = nimseq(&["play", "kayles", "2^62", "--max-moves", "3", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["winning_moves"].as_array().unwrap().len(), 3, "{v}");
    assert!(v["winning_move_count"].as_u64().unwrap() > 1_000_000, "{v}");
    // Officers has no period in sight: its values must be computed or read from a table.
    assert_usage_error(&["play", "0.6", "2^62"], "heap 4611686018427387904");
    assert_usage_error(&["play", "0.6", "2^62"], "--table PATH");
    assert_usage_error(&["play", "kayles", "18446744073709551615"], "too large");
}

/// An N whose values fit in memory at one byte each but not once they widen to two: the run
/// stops with one clean line when the values widen (Nim's do at heap 256), rather than being
/// killed by the system later.
#[test]
fn widening_beyond_memory_is_a_clean_failure() {
    let info = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let Some(kib) = info
        .lines()
        .find(|l| l.starts_with("MemAvailable:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse::<u64>().ok())
    else {
        return; // no /proc/meminfo: nothing to check against
    };
    let n = (kib * 1024 / 4 * 3).to_string();
    let o = nimseq(&["compute", "nim", "-n", &n, "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("more than is available") && err.contains("--table"),
        "{err}"
    );
}

/// Odd but valid inputs work; odd invalid ones are one-line usage errors.
#[test]
fn edge_inputs() {
    // One heap; a game without moves (every value 0); `!` on a digit without splits is moot.
    assert_eq!(
        stdout(&nimseq(&["values", "kayles", "-n", "1", "--no-header"])),
        "0 0\n"
    );
    assert_eq!(
        stdout(&nimseq(&["values", "0.000", "-n", "4", "--no-header"])),
        "0 0\n1 0\n2 0\n3 0\n"
    );
    let o = nimseq(&["compute", "4!.0!", "-n", "100", "--json"]);
    assert_eq!(
        stdout(&o),
        stdout(&nimseq(&["compute", "grundy", "-n", "100", "--json"]))
    );
    assert_usage_error(&["values", "0.[]", "-n", "5"], "empty repeating tail");
    assert_usage_error(&["values", "4!!.0", "-n", "5"], "does not follow a digit");
    assert_usage_error(&["values", "0.7", "-n", "2^64"], "too large");
    assert_usage_error(&["values", "0.7", "-n", "1e6.5"], "not a number");
    // Long hexadecimal codes are fine up to the limit, refused beyond it.
    let hex = format!("0.{}", "F".repeat(4000));
    let o = nimseq(&["values", &hex, "-n", "5", "--no-header"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_usage_error(
        &["values", &format!("0.{}", "F".repeat(5000)), "-n", "5"],
        "too long",
    );
    // A subtraction set whose code would be too long to read back is refused up front.
    assert_usage_error(&["values", "sub(5000)", "-n", "5"], "larger than 4091");
}

#[test]
fn wrong_paths_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert_usage_error(&["info", d], "not a folder");
    assert_usage_error(&["export", d], "not a folder");
    assert_usage_error(
        &["compute", "kayles", "-n", "5", "--table", d],
        "not a folder",
    );
    let missing = dir.path().join("none.jsonl");
    assert_usage_error(&["survey-merge", missing.to_str().unwrap()], "No such file");
    assert_usage_error(&["survey", "", "-n", "5"], "empty PATTERN");
    assert_usage_error(&["survey", "kayles", "-n", "5"], "'?' wildcards");
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let f = file.to_str().unwrap();
    assert_usage_error(&["report", "kayles", "-n", "5", "-o", f], "is a file");
    assert_usage_error(&["survey", "0.?", "-n", "5", "--out", f], "is a file");
    assert_usage_error(&["survey-merge", d, "--out", f], "is a file");
    assert_usage_error(
        &["compute", "kayles", "-n", "5", "--table", &format!("{f}/t")],
        "Not a directory",
    );
    let out = dir.path().join("r");
    assert_usage_error(
        &[
            "report",
            "kayles",
            "-n",
            "5",
            "-o",
            out.to_str().unwrap(),
            "--bfile-terms",
            "0",
        ],
        "at least 1",
    );
}

/// Every command's help shows examples of its use.
#[test]
fn every_command_has_examples_in_its_help() {
    for &cmd in common::COMMANDS {
        let o = nimseq(&[cmd, "--help"]);
        assert!(o.status.success());
        let text = stdout(&o);
        assert!(text.contains("EXAMPLES"), "{cmd} --help has no examples");
        assert!(
            text.contains(&format!("nimseq {cmd} ")),
            "{cmd} --help shows no example of {cmd}"
        );
    }
}

/// The summary's statistics recomputed by plain counting from the printed values, by the
/// definitions in the README: the rare mask is the non-zero mask with the fewest heaps whose
/// value v has popcount(v & m) even (heap 0 included; ties: the smallest m), found here by
/// trying every mask.
#[test]
fn summary_statistics_match_counting() {
    for game in ["kayles", "0.6", "grundy", "0.3F", "nim", "0.07", "0.0"] {
        let o = nimseq(&["values", game, "-n", "3000", "--no-header"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let values: Vec<u32> = stdout(&o)
            .lines()
            .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
            .collect();
        let json: serde_json::Value =
            serde_json::from_str(&stdout(&nimseq(&["compute", game, "-n", "3000", "--json"])))
                .unwrap();
        let max = *values.iter().max().unwrap();
        assert_eq!(json["max_value"], max, "{game}");
        let first = values.iter().position(|&v| v == max).unwrap();
        assert_eq!(json["max_value_first_at"], first, "{game}");
        for (v, c) in json["frequencies"].as_object().unwrap() {
            let v: u32 = v.parse().unwrap();
            let counted = values.iter().filter(|&&x| x == v).count();
            assert_eq!(c.as_u64().unwrap() as usize, counted, "{game} value {v}");
        }
        let bits = 32 - max.leading_zeros();
        let rare = |m: u32| {
            values
                .iter()
                .filter(|&&v| (v & m).count_ones().is_multiple_of(2))
                .count()
        };
        let best = (1..(1u32 << bits.max(1)))
            .min_by_key(|&m| (rare(m), m))
            .unwrap();
        assert_eq!(json["rare_mask"], format!("{best:x}"), "{game}");
        assert_eq!(json["rare_count"], rare(best), "{game}");
        let last = values
            .iter()
            .rposition(|&v| (v & best).count_ones() % 2 == 0);
        assert_eq!(json["last_rare_at"], serde_json::json!(last), "{game}");
    }
}

#[test]
fn argument_errors_point_to_the_help_of_their_command() {
    assert_usage_error(
        &["compute", "kayles", "-n", "5", "--engine"],
        "(see 'nimseq compute --help')",
    );
    assert_usage_error(
        &["export", "t", "--format", "xml"],
        "(see 'nimseq export --help')",
    );
    assert_usage_error(&["frobnicate"], "(see 'nimseq --help')");
}
