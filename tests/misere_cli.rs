//! The `genus` command, run as the real binary.

use std::process::Command;

fn nimseq(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .output()
        .expect("run nimseq");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn genus_json_has_the_documented_keys() {
    let (code, out, err) = nimseq(&["genus", "kayles", "-n", "12", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["game"], "0.77");
    let rows = v["genus"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    // Kayles heap 5 is 4^146 (CGSuite; Winning Ways ch. 13).
    assert_eq!(rows[5]["heap"], 5);
    assert_eq!(rows[5]["g_plus"], 4);
    assert_eq!(rows[5]["lambdas"], serde_json::json!([1, 4, 6]));
    assert_eq!(rows[5]["notation"], "4^146");
    assert_eq!(rows[0]["class"], "tame");
    assert_eq!(rows[5]["class"], "restless");
}

#[test]
fn genus_text_table() {
    let (code, out, _) = nimseq(&["genus", "grundy", "-n", "14"]);
    assert_eq!(code, 0);
    let last = out.lines().last().unwrap();
    let cols: Vec<&str> = last.split_whitespace().collect();
    // Grundy's game heap 13: 3^1431 (CGSuite), g- = 1.
    assert_eq!(cols, ["13", "3^1431", "1", "restless"]);
    assert!(out.starts_with("# misère genus of 4!.0 (grundy)"));
}

#[test]
fn no_class_leaves_the_class_out() {
    let (code, out, _) = nimseq(&["genus", "0.07", "-n", "5", "--json", "--no-class"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["genus"][4]["class"].is_null());
}

#[test]
fn bad_input_is_one_line_exit_2() {
    for args in [
        &["genus", "0.9x", "-n", "5"][..],
        &["genus", "kayles", "-n", "0"],
        &["genus", "kayles", "-n", "1e9"],
        &["genus", "kayles"],
        &["genus", "kayles", "-n", "5", "--max-forms", "0"],
    ] {
        let (code, out, err) = nimseq(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty());
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("nimseq: "), "{err}");
    }
}

#[test]
fn too_many_forms_is_a_runtime_error_after_the_heaps_finished() {
    let (code, out, err) = nimseq(&["genus", "kayles", "-n", "30", "--max-forms", "100"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("too large"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1);
    // The heaps finished before the limit are printed, as a full run prints them.
    let printed: usize = err
        .split("heaps 0 .. ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("the message names the heaps printed");
    let (full_code, full, _) = nimseq(&["genus", "kayles", "-n", "30"]);
    assert_eq!(full_code, 0);
    let rows = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("heap"))
            .map(String::from)
            .collect()
    };
    let partial = rows(&out);
    assert_eq!(partial.len(), printed + 1, "{out}");
    assert!(printed > 3 && printed < 29, "{err}");
    // Column widths may differ; compare the fields.
    let fields = |l: &String| l.split_whitespace().map(String::from).collect::<Vec<_>>();
    let full_rows = rows(&full);
    for (a, b) in partial.iter().zip(&full_rows) {
        assert_eq!(fields(a), fields(b));
    }
}
