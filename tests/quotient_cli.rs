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
}
