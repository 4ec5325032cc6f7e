//! `nimseq quotient` through the real binary: text, JSON keys, limits and bad input.

mod common;

use common::{assert_usage_error, nimseq, stdout};

#[test]
fn json_has_the_documented_keys() {
    let o = nimseq(&["quotient", "0.75", "--json", "--quiet"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for key in [
        "game",
        "order",
        "p_count",
        "certified",
        "certified_at",
        "stable_from",
        "preperiod",
        "period",
        "heaps",
        "identity",
        "p",
        "table",
        "presentation",
        "changes",
        "tame",
        "tame_index",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["order"], 8);
    assert_eq!(v["p_count"], 2);
    assert_eq!(v["certified"], true);
    assert_eq!(v["identity"], 0);
    let heaps = v["heaps"].as_array().unwrap();
    assert_eq!(
        heaps.len(),
        v["certified_at"].as_u64().unwrap() as usize + 1
    );
    assert_eq!(v["table"].as_array().unwrap().len(), 8);
    // R8 is wild (Siegel 2007).
    assert_eq!(v["tame"], false);
    assert_eq!(v["tame_index"], serde_json::Value::Null);
}

/// A Woolly Mammoth (Plambeck, "Taming the wild", INTEGERS 2005) has the tame quotient T_2.
#[test]
fn tame_quotients_say_so() {
    let o = nimseq(&["quotient", "0.121", "--quiet"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("tame          yes: T_2,"), "{text}");
    let o = nimseq(&["quotient", "0.121", "--json", "--quiet"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (v["tame"].clone(), v["tame_index"].clone()),
        (true.into(), 2.into())
    );
    let o = nimseq(&["quotient", "0.75", "--quiet"]);
    assert!(stdout(&o).contains("tame          no (wild)"));
}

#[test]
fn text_names_the_presentation_and_the_period() {
    let o = nimseq(&["quotient", "kayles", "--quiet"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("certified at heap"), "{text}");
    assert!(text.contains("period        12 from heap"), "{text}");
    assert!(text.contains("presentation  ⟨a,b,"), "{text}");
}

#[test]
fn max_heap_gives_a_partial_quotient() {
    let o = nimseq(&["quotient", "0.07", "--max-heap", "12", "--json", "-q"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["certified"], false);
    assert_eq!(v["last_heap"], 12);
    assert_eq!(v["heaps"].as_array().unwrap().len(), 13);
    assert!(v["stopped"].as_str().unwrap().contains("heap limit 12"));
}

#[test]
fn bad_input_is_one_line_exit_2() {
    assert_usage_error(&["quotient", "0.9x"], "");
    assert_usage_error(&["quotient", "0.77", "--max-heap", "2^40"], "too large");
    assert_usage_error(&["quotient", "0.77", "--max-heap", "-3"], "");
    assert_usage_error(&["quotient", "0.77", "--no-table"], "--json");
}

/// The table is written row by row from the solver's flat table (streamed, no nested copy):
/// the same rows as the products of the presentation's elements; `--no-table` leaves it out
/// (`null`) and changes nothing else.
#[test]
fn the_table_is_streamed_and_no_table_leaves_it_out() {
    let o = nimseq(&["quotient", "0.77", "--json", "--quiet"]);
    assert!(o.status.success());
    let with: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let order = with["order"].as_u64().unwrap() as usize;
    assert_eq!(
        order, 40,
        "Kayles: order 40 (MisereSolver agrees, results/misere.md)"
    );
    let table = with["table"].as_array().unwrap();
    assert_eq!(table.len(), order);
    for (a, row) in table.iter().enumerate() {
        let row = row.as_array().unwrap();
        assert_eq!(row.len(), order);
        // The identity's row and column, and commutativity.
        assert_eq!(row[0].as_u64(), Some(a as u64));
        for (b, x) in row.iter().enumerate() {
            assert_eq!(x, &table[b][a], "{a}·{b}");
        }
    }
    let o = nimseq(&["quotient", "0.77", "--json", "--no-table", "--quiet"]);
    assert!(o.status.success());
    let mut without: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(without["table"], serde_json::Value::Null);
    without["table"] = with["table"].clone();
    assert_eq!(without, with, "only the table differs");
}

/// SIGINT and SIGTERM stop a heap under way within a second or two (the solver looks at the
/// signal between candidates and during each verification), print the quotient of the heaps
/// finished and exit 130 / 143. Officers (0.6) spends seconds on heap 17's candidates, so the
/// signal lands inside a heap on most machines; between heaps it is the same contract.
#[test]
fn signals_stop_a_heap_under_way_and_print_the_partial_quotient() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    for (sig, code, name) in [
        (libc::SIGINT, 130, "SIGINT"),
        (libc::SIGTERM, 143, "SIGTERM"),
    ] {
        let child = Command::new(env!("CARGO_BIN_EXE_nimseq"))
            .args(["quotient", "0.6", "--max-heap", "40", "-q"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(700));
        let sent = Instant::now();
        // SAFETY: a plain kill(2) of our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
        let out = child.wait_with_output().unwrap();
        let waited = sent.elapsed();
        let (text, err) = (stdout(&out), common::stderr(&out));
        assert_eq!(out.status.code(), Some(code), "{err}");
        assert!(
            waited < Duration::from_secs(2),
            "{name}: exit {waited:?} after it"
        );
        assert!(
            err.contains(&format!("stopped by {name}: the quotient of heaps 0 .. ")),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            text.contains("quotient      partial: heaps 0 .. "),
            "{text}"
        );
        assert!(text.contains("interrupted"), "{text}");
    }
}

/// A heap that needs more than --max-memory stops the command with exit 1, one line naming
/// the limit, and the quotient of the heaps before (0.07 needs a candidate of 712 elements at
/// heap 30, more than 70 MiB leaves once the allowance for small lists is taken off).
#[test]
fn the_memory_limit_stops_with_the_partial_quotient() {
    let o = nimseq(&[
        "quotient",
        "0.07",
        "--max-heap",
        "40",
        "--max-memory",
        "70M",
        "-q",
    ]);
    let (text, err) = (stdout(&o), common::stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("memory limit of 70 MiB"), "{err}");
    assert!(err.contains("give a larger --max-memory"), "{err}");
    let last: usize = text
        .split("partial: heaps 0 .. ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!((20..34).contains(&last), "{text}");
    // JSON says why it stopped.
    let o = nimseq(&[
        "quotient",
        "0.07",
        "--max-heap",
        "40",
        "--max-memory",
        "70M",
        "--json",
        "-q",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["last_heap"], last);
    assert!(
        v["stopped"].as_str().unwrap().contains("memory limit"),
        "{v}"
    );
    // A size that is not one is bad input.
    assert_usage_error(
        &["quotient", "0.07", "--max-memory", "lots"],
        "not a memory size",
    );
    assert_usage_error(
        &["quotient", "0.07", "--max-memory", "0"],
        "at least 1 byte",
    );
}

/// The verification on 1, 2 or 3 threads prints the same bytes: 0.07 to heap 28 recalibrates
/// at several heaps, so candidates fail at positions of several heaps on the way.
#[test]
fn any_thread_count_prints_the_same_quotient() {
    let out = |threads: &str| {
        let o = nimseq(&[
            "quotient",
            "0.07",
            "--max-heap",
            "28",
            "--json",
            "-q",
            "--threads",
            threads,
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        o.stdout
    };
    let one = out("1");
    assert_eq!(out("2"), one);
    assert_eq!(out("3"), one);
}

/// The limits of a recalibration's candidates are options: out of range is one line, exit 2;
/// `--recalibrations 0` stops 0.07 at heap 10, the first that needs a recalibration, with the
/// quotient of heaps 0 .. 9 printed (exit 1).
#[test]
fn candidate_limits_are_options() {
    assert_usage_error(
        &["quotient", "0.07", "--candidate-size", "0"],
        "--candidate-size must be from 1 to",
    );
    assert_usage_error(
        &["quotient", "0.07", "--candidate-order", "2^40"],
        "--candidate-order must be from 1 to",
    );
    assert_usage_error(
        &["quotient", "0.07", "--recalibrations", "2^30"],
        "--recalibrations must be from 0 to",
    );
    assert_usage_error(&["quotient", "0.07", "--recalibrations", "-1"], "");
    assert_usage_error(&["quotient", "0.07", "--threads", "0"], "");
    let o = nimseq(&[
        "quotient",
        "0.07",
        "--max-heap",
        "12",
        "--recalibrations",
        "0",
        "--json",
        "-q",
    ]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("within 0 recalibrations"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["last_heap"], 9);
    // Within the defaults nothing changes; a candidate order below heap 10's (12) stops there.
    let o = nimseq(&[
        "quotient",
        "0.07",
        "--max-heap",
        "12",
        "--candidate-order",
        "11",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("heap 10"));
}
