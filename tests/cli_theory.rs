//! The real binary: `play`, `graph` and `hackenbush`, their output and their errors.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn nimseq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .output()
        .expect("run nimseq")
}

fn ok(args: &[&str]) -> String {
    let out = nimseq(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).unwrap()
}

/// Exit code and the single stderr line.
fn fails(args: &[&str]) -> (i32, String) {
    let out = nimseq(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(out.stdout.is_empty());
    (out.status.code().unwrap(), err)
}

// ---------------------------------------------------------------------------------------------
// play

#[test]
fn play_kayles() {
    // Kayles values (OEIS A002186): G(3) = 3, G(5) = 4, G(7) = 2; nim-sum 5. A winning move
    // replaces the 5 by heaps of value 5 ^ 4 = 1. The options of 5 are 4 (value 1), 1+3 (2),
    // 2+2 (0), 3 (3) and 1+2 (3); from 3 and 7 none has value 3 ^ 5 = 6 or 2 ^ 5 = 7.
    let v = json(&["play", "kayles", "3", "5", "7", "--json"]);
    assert_eq!(v["values"], serde_json::json!([3, 4, 2]));
    assert_eq!(v["nim_sum"], 5);
    assert_eq!(v["outcome"], "N");
    assert_eq!(
        v["winning_moves"],
        serde_json::json!([{"heap_index": 1, "from": 5, "to": [4]}])
    );
    let text = ok(&["play", "kayles", "3", "5", "7"]);
    assert!(text.contains("nim-sum       5"), "{text}");
    assert!(text.contains("#1: 5 -> 4"), "{text}");
}

#[test]
fn play_p_position_and_take_all() {
    let v = json(&["play", "nim", "1", "2", "3", "--json"]);
    assert_eq!(v["outcome"], "P");
    assert_eq!(v["winning_moves"], serde_json::json!([]));
    // Nim 0 and 5: the winning move takes the whole heap of 5.
    let v = json(&["play", "nim", "0", "5", "--json"]);
    assert_eq!(
        v["winning_moves"],
        serde_json::json!([{"heap_index": 1, "from": 5, "to": []}])
    );
}

#[test]
fn play_lists_each_resulting_position_once() {
    // Nim 3 3 1 (nim-sum 1): 3 -> 2 in either 3 leaves the same position {2, 3, 1}; it is
    // listed once, for the first heap.
    let v = json(&["play", "nim", "3", "3", "1", "--json"]);
    assert_eq!(
        v["winning_moves"],
        serde_json::json!([
            {"heap_index": 0, "from": 3, "to": [2]},
            {"heap_index": 2, "from": 1, "to": []}
        ])
    );
}

#[test]
fn play_huge_heaps_of_a_periodic_game() {
    // Kayles: period 12 from heap 71 (OEIS A002186), proved after 168 values; heaps far beyond
    // memory take their values from the period.
    let exact = nimseq::engine::compute(
        &nimseq::rules::Rule::parse("kayles").unwrap(),
        30_000,
        nimseq::engine::EngineKind::Exact,
    )
    .unwrap();
    let g = |n: u64| exact.get((if n < 71 { n } else { 71 + (n - 71) % 12 }) as usize);
    let v = json(&["play", "kayles", "1e12", "1e12", "--json"]);
    assert_eq!(
        v["values"],
        serde_json::json!([g(1e12 as u64), g(1e12 as u64)])
    );
    assert_eq!(v["outcome"], "P");
    // A heap of 10^8: its values from the period, its 5·10^7 options looked at.
    let v = json(&["play", "kayles", "1e8", "5", "--json"]);
    assert_eq!(v["values"], serde_json::json!([g(100_000_000), 4]));
    let nim_sum = g(100_000_000) ^ 4;
    assert_eq!(v["nim_sum"], nim_sum);
    for m in v["winning_moves"].as_array().unwrap() {
        let rest = if m["heap_index"] == 0 {
            4
        } else {
            g(100_000_000)
        };
        let left = m["to"].as_array().unwrap().iter();
        assert_eq!(left.fold(rest, |s, h| s ^ g(h.as_u64().unwrap())), 0, "{m}");
    }
    // Below the period's reach of memory the same moves as with the exact engine's values.
    let with_period = json(&["play", "kayles", "29999", "7", "--json"]);
    let rule = nimseq::rules::Rule::parse("kayles").unwrap();
    let a = nimseq::position::analyze(&rule, &[29_999, 7], &exact).unwrap();
    let expected: Vec<serde_json::Value> = a
        .winning_moves
        .iter()
        .map(|m| serde_json::json!({"heap_index": m.heap_index, "from": m.from, "to": m.to}))
        .collect();
    assert_eq!(
        with_period["winning_moves"],
        serde_json::Value::Array(expected)
    );
    // Heaps of 10^12: the winning moves come from the period too (issue 29, defect 4; they
    // used to be refused as 10^12 options to look at), each a winning move.
    for h in ["1000000000000", "1000000000001", "1000000000007"] {
        let v = json(&["play", "kayles", h, "5", "--max-moves", "50", "--json"]);
        let big: u64 = h.parse().unwrap();
        assert_eq!(v["values"], serde_json::json!([g(big), 4]));
        for m in v["winning_moves"].as_array().unwrap() {
            let rest = if m["heap_index"] == 0 { 4 } else { g(big) };
            let left = m["to"].as_array().unwrap().iter();
            assert_eq!(left.fold(rest, |s, h| s ^ g(h.as_u64().unwrap())), 0, "{m}");
        }
    }
    // All of them are too many to list unasked: one line naming --max-moves.
    let (code, err) = fails(&["play", "kayles", "2^62"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("winning moves") && err.contains("--max-moves"),
        "{err}"
    );
}

#[test]
fn play_large_heap_lists_each_result_once() {
    // Grundy's game, one heap of 2000: every winning split, none repeated.
    let v = json(&["play", "grundy", "2000", "--json"]);
    let moves = v["winning_moves"].as_array().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for m in moves {
        assert_eq!(m["from"], 2000);
        let to: Vec<u64> = m["to"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(to.len(), 2);
        assert!(to[0] < to[1] && to[0] + to[1] == 2000);
        assert!(seen.insert(to));
    }
    let expect_n = v["nim_sum"] != 0;
    assert_eq!(v["outcome"] == "N", expect_n);
    assert_eq!(moves.is_empty(), !expect_n);
}

/// `--max-moves K` lists the first K winning moves of the full list and counts them all, in
/// normal and misère play, from values computed or read from a table.
#[test]
fn play_lists_at_most_max_moves() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("officers.nimseq");
    let table = table.to_str().unwrap();
    ok(&["compute", "officers", "-n", "3000", "--table", table, "-q"]);
    let heaps = ["2999", "1234", "17", "2500", "5"];
    let misere_heaps = ["15", "9", "4"];
    let cases: [(Vec<&str>, &[&str]); 3] = [
        (vec!["play", "officers"], &heaps),
        (vec!["play", "officers", "--table", table], &heaps),
        (vec!["play", "kayles", "--misere"], &misere_heaps),
    ];
    for (command, heaps) in cases {
        let mut all = command.clone();
        all.extend(heaps);
        all.push("--json");
        let full = json(&all);
        let listed = full["winning_moves"].as_array().unwrap().clone();
        assert!(listed.len() >= 3, "{all:?}: {full}");
        assert_eq!(full["winning_move_count"], listed.len(), "{all:?}");
        for k in [0, 2, listed.len(), listed.len() + 5] {
            let k_text = k.to_string();
            let mut some = all.clone();
            some.extend(["--max-moves", &k_text]);
            let v = json(&some);
            assert_eq!(v["winning_move_count"], listed.len(), "{some:?}");
            let n = k.min(listed.len());
            assert_eq!(
                v["winning_moves"].as_array().unwrap()[..],
                listed[..n],
                "{some:?}"
            );
            some.retain(|a| *a != "--json");
            let text = ok(&some);
            let more = format!("... and {} more (--max-moves {k})", listed.len() - n);
            assert_eq!(text.contains(&more), n < listed.len(), "{some:?}: {text}");
            assert!(
                text.contains(&format!("winning moves {} (", listed.len())),
                "{some:?}: {text}"
            );
        }
    }
    let (code, err) = fails(&["play", "kayles", "5", "--max-moves", "-1"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn play_misere() {
    // Misère Nim (Bouton): 1 1 1 is lost for the player to move; 1 1 wins; 2 2 loses.
    assert_eq!(
        json(&["play", "nim", "1", "1", "1", "--misere", "--json"])["outcome"],
        "P"
    );
    let v = json(&["play", "nim", "1", "1", "--misere", "--json"]);
    assert_eq!(v["outcome"], "N");
    assert_eq!(v["play"], "misere");
    // Taking either 1 leaves the same position: listed once, for the first heap.
    assert_eq!(
        v["winning_moves"],
        serde_json::json!([{"heap_index": 0, "from": 1, "to": []}])
    );
    // Misère Nim 2 2 3: a heap above 1 remains after each of these moves, so they are the
    // normal-play winning moves (nim-sum 0 left): 2 -> 1 (either 2: one resulting position,
    // listed once) and 3 -> nothing.
    let v = json(&["play", "nim", "2", "2", "3", "--misere", "--json"]);
    assert_eq!(
        v["winning_moves"],
        serde_json::json!([
            {"heap_index": 0, "from": 2, "to": [1]},
            {"heap_index": 2, "from": 3, "to": []}
        ])
    );
    // Kayles has a certified misère quotient: decided at once, whatever the search limit.
    let v = json(&[
        "play",
        "kayles",
        "30",
        "30",
        "--misere",
        "--search-limit",
        "1000",
        "--json",
    ]);
    assert_eq!(v["method"], "misère quotient");
    // Officers' quotient outgrows what play computes: the budget of the search applies.
    let (code, err) = fails(&[
        "play",
        "0.6",
        "30",
        "30",
        "--misere",
        "--search-limit",
        "1000",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("not decided"), "{err}");
}

/// A single huge heap of 0.8 has about 8 * 10^10 three-heap options: the misère search must
/// refuse it from its budget instead of filling memory with option lists.
#[test]
fn play_misere_refuses_huge_heap() {
    let (code, err) = fails(&["play", "0.8", "1000000", "--misere"]);
    assert_eq!(code, 1);
    assert!(err.contains("budget"), "{err}");
}

/// Nim heaps of any size: Bouton's theorem. Nim-sum of 10^9, 123456789 and 5 is non-zero with
/// big heaps, so the winning move makes it 0: 10^9 -> 123456789 ^ 5 = 123456784.
#[test]
fn play_misere_nim_by_bouton() {
    let v = json(&[
        "play",
        "nim",
        "1000000000",
        "123456789",
        "5",
        "--misere",
        "--json",
    ]);
    assert_eq!(v["method"], "Bouton's misère Nim theorem");
    assert_eq!(
        v["winning_moves"],
        serde_json::json!([{"heap_index": 0, "from": 1000000000u64, "to": [123456784]}])
    );
}

#[test]
fn play_errors() {
    let (code, err) = fails(&["play", "0.9x", "3"]);
    assert_eq!(code, 2, "{err}");
    let (code, err) = fails(&["play", "kayles", "three"]);
    assert_eq!(code, 2, "{err}");
    let (code, _) = fails(&["play", "kayles"]);
    assert_eq!(code, 2);
}

#[test]
fn play_from_a_table() {
    // The same analysis from a table as from values computed on the spot, for a game whose
    // values pass 255 (Grundy's game has heaps of value 2-byte wide only far out, so use a
    // game the table stores at 8 bits and one Officers position with splits).
    let dir = tempfile::tempdir().unwrap();
    for (game, heaps) in [
        ("kayles", vec!["100", "3999", "7"]),
        ("officers", vec!["2500", "1234", "17", "5"]),
        ("4!.0", vec!["3000", "21"]),
    ] {
        let path = dir.path().join(format!("{game}.nimseq"));
        let path = path.to_str().unwrap();
        ok(&["compute", game, "-n", "4000", "--table", path, "-q"]);
        let mut direct = vec!["play", game, "--json"];
        direct.extend(heaps.iter().copied());
        let mut tabled = direct.clone();
        tabled.extend(["--table", path]);
        let (a, b) = (json(&direct), json(&tabled));
        assert_eq!(a, b, "{game} {heaps:?}");
        assert!(
            a["winning_moves"].as_array().is_some_and(|m| !m.is_empty()) || a["outcome"] == "P"
        );
    }
    let kayles = dir.path().join("kayles.nimseq");
    let kayles = kayles.to_str().unwrap();
    // Past the end of a table whose period is proved (Kayles: 12 from heap 71), the values
    // follow from it: the same answer as computed on the spot (issue 29, defect 4).
    for far in [
        &["play", "kayles", "5000", "4321", "7", "--json"][..],
        &["play", "kayles", "1e12", "1000000000012", "--json"],
    ] {
        let mut tabled = far.to_vec();
        tabled.extend(["--table", kayles]);
        assert_eq!(json(far), json(&tabled));
    }
    // Beyond a table without a proved period, another game's table, a missing file, with
    // --misere: one line, exit 2.
    let officers = dir.path().join("officers.nimseq");
    let (code, err) = fails(&["play", "0.6", "4000", "--table", officers.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("holds heaps 0 .. 3999") && err.contains("-n 4001"),
        "{err}"
    );
    let (code, err) = fails(&["play", "0.6", "3", "--table", kayles]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not 0.6"), "{err}");
    let missing = dir.path().join("missing.nimseq");
    let (code, err) = fails(&["play", "kayles", "3", "--table", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let (code, _) = fails(&["play", "kayles", "3", "--table", kayles, "--misere"]);
    assert_eq!(code, 2);
    // A damaged value is refused, not read: flip G(3000) (values start at byte 4096, one byte
    // each for Kayles; docs/FORMAT.md).
    let mut bytes = std::fs::read(kayles).unwrap();
    bytes[4096 + 3000] ^= 0x40;
    std::fs::write(kayles, &bytes).unwrap();
    let (code, err) = fails(&["play", "kayles", "3999", "--table", kayles]);
    assert_eq!(code, 1, "{err}");
}

// ---------------------------------------------------------------------------------------------
// graph

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn graph_values_and_draws() {
    let dir = tempfile::tempdir().unwrap();
    // A Nim heap of 3 as a graph, plus a loop: 'loop' may pass forever or move to h0.
    let f = write(
        dir.path(),
        "g.txt",
        "# nim heap of 3\nh3 h2\nh3 h1\nh3 h0\nh2 h1\nh2 h0\nh1 h0\nloop loop\nloop h0\nstuck\n",
    );
    let v = json(&["graph", &f, "--json"]);
    assert_eq!(v["values"]["h3"], 3);
    assert_eq!(v["values"]["h0"], 0);
    assert_eq!(v["values"]["stuck"], 0);
    assert_eq!(v["values"]["loop"], "∞(0)");
    assert_eq!(v["outcomes"]["loop"], "N");
    assert_eq!(v["cyclic"], true);
    let text = ok(&["graph", &f]);
    assert!(text.lines().any(|l| l == "h2 2 N"), "{text}");
    assert!(text.lines().any(|l| l == "loop ∞(0) N"), "{text}");
    // --acyclic refuses it and names the vertex on the cycle.
    let (code, err) = fails(&["graph", &f, "--acyclic"]);
    assert_eq!(code, 2);
    assert!(err.contains("cycle through vertex 'loop'"), "{err}");
}

#[test]
fn graph_errors() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.txt", "# nothing here\n\n");
    let (code, err) = fails(&["graph", &empty]);
    assert_eq!(code, 2);
    assert!(err.contains("empty"), "{err}");
    let bad = write(dir.path(), "bad.txt", "a b\nb c\nc d e\n");
    let (code, err) = fails(&["graph", &bad]);
    assert_eq!(code, 2);
    assert!(err.contains("line 3"), "{err}");
    let missing = dir.path().join("missing.txt");
    let (code, err) = fails(&["graph", missing.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.txt"), "{err}");
}

/// A million moves: the subtraction game {1, 2, 3} on heaps up to 333,335, written as a graph
/// (values n mod 4), and a cycle of 10^6 vertices (all draws).
#[test]
fn graph_with_a_million_edges() {
    let dir = tempfile::tempdir().unwrap();
    let n = 333_335u32;
    let mut text = String::with_capacity(16 << 20);
    for h in 1..=n {
        for k in 1..=3u32.min(h) {
            writeln!(text, "n{h} n{}", h - k).unwrap();
        }
    }
    let f = write(dir.path(), "sub.txt", &text);
    let v = json(&["graph", &f, "--json"]);
    assert!(v["moves"].as_u64().unwrap() >= 1_000_000);
    let values = v["values"].as_object().unwrap();
    assert_eq!(values.len(), n as usize + 1);
    for (name, value) in values {
        let h: u64 = name[1..].parse().unwrap();
        assert_eq!(value.as_u64().unwrap(), h % 4, "{name}");
    }

    let mut ring = String::with_capacity(16 << 20);
    let m = 1_000_000u32;
    for i in 0..m {
        writeln!(ring, "{i} {}", (i + 1) % m).unwrap();
    }
    let f = write(dir.path(), "ring.txt", &ring);
    let v = json(&["graph", &f, "--json"]);
    assert_eq!(v["counts"]["D"], m);
}

// ---------------------------------------------------------------------------------------------
// hackenbush

#[test]
fn hackenbush_seed_examples() {
    let v = json(&["hackenbush", "BBBRRBBR", "RBRRBRR", "--json"]);
    assert_eq!(v["components"][0]["value"], "77/32");
    assert_eq!(v["components"][1]["value"], "-55/64");
    assert_eq!(v["value"], "99/64");
    assert_eq!(v["outcome"], "L");
    let text = ok(&["hackenbush", "BBBRRBBR", "RBRRBRR"]);
    assert!(text.contains("77/32  (2 13/32)"), "{text}");
    assert!(text.contains("-55/64"), "{text}");
    assert_eq!(json(&["hackenbush", "BBB", "--json"])["value"], "3");
}

#[test]
fn hackenbush_green() {
    let v = json(&["hackenbush", "GGG", "GG", "BR", "RB", "--json"]);
    assert_eq!(v["value"], "*");
    assert_eq!(v["outcome"], "N");
    assert_eq!(json(&["hackenbush", "GG", "gg", "--json"])["outcome"], "P");
}

/// CGSuite's documentation: blue-red-blue-red-red is 9/16 and seven green edges are *7;
/// McKay, Milley and Nowakowski (arXiv 1202.5654): green then blue is *:1 = ^*.
#[test]
fn hackenbush_mixed_colours() {
    let v = json(&["hackenbush", "BRBRR", "GGGGGGG", "GB", "--json"]);
    assert_eq!(v["components"][0]["value"], "9/16");
    assert_eq!(v["components"][1]["value"], "*7");
    assert_eq!(v["components"][2]["value"], "^*");
    assert_eq!(v["components"][2]["form"]["left"][1]["value"], "*");
    assert_eq!(v["components"][2]["form"]["right"][0]["value"], "0");
    // 9/16 + *7 + ^* = 9/16^*6: Left wins.
    assert_eq!(v["value"], "9/16^*6");
    assert_eq!(v["outcome"], "L");
    assert!(v["winning_moves"]["left"]["count"].as_u64().unwrap() >= 1);
    assert_eq!(v["winning_moves"]["right"]["count"], 0);
    // GB alone is ^* = {0,*|0}, a first-player win: Left's only winning move cuts the green
    // edge (to 0); cutting the blue one leaves *, a win for Right.
    let v = json(&["hackenbush", "GB", "--json"]);
    assert_eq!(v["outcome"], "N");
    let left = &v["winning_moves"]["left"]["listed"];
    assert_eq!(left.as_array().unwrap().len(), 1);
    assert_eq!(left[0]["edge"], 1);
    let text = ok(&["hackenbush", "GBB", "G(B,R)"]);
    // {0,^*|0}, which CGSuite writes ^[2]*.
    assert!(text.contains("^[2]*"), "{text}");
    assert!(text.contains("outcome"), "{text}");
}

#[test]
fn hackenbush_errors() {
    let (code, err) = fails(&["hackenbush", "BBX"]);
    assert_eq!(code, 2);
    assert!(err.contains("'X'") && err.contains("position 3"), "{err}");
    let (code, err) = fails(&["hackenbush", "B(R"]);
    assert_eq!(code, 2);
    assert!(err.contains("'(' without ')'"), "{err}");
    let (code, err) = fails(&["hackenbush", "B(R)G"]);
    assert_eq!(code, 2);
    assert!(err.contains("must end its branch"), "{err}");
    // A Blue-Red string whose value needs denominators beyond 2^120.
    let long = format!("B{}", "R".repeat(200));
    let (code, err) = fails(&["hackenbush", &long]);
    assert_eq!(code, 2);
    assert!(err.contains("does not fit"), "{err}");
}

/// A random mixed string of `n` edges after `ground` (xorshift from `seed`).
fn mixed_string(ground: char, n: usize, seed: u64) -> String {
    let mut x = seed;
    let body: String = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ['B', 'R', 'G'][(x >> 20) as usize % 3]
        })
        .collect();
    format!("{ground}{body}")
}

/// Sums of long mixed strings (issue 31: their canonical forms would take minutes or exhaust
/// memory, and were refused). Now decided without building the sum's form, from first
/// principles: two strings on blue ground edges are each positive, so their sum is, and every
/// cut of a blue or green edge leaves a positive sum (a prefix with a blue ground edge, or
/// nothing, beside a positive string). `S + (−S)` (colours swapped) is 0 by Tweedledum's
/// mirror strategy; beside a green edge the first player wins by cutting it.
#[test]
fn hackenbush_sums_of_long_mixed_strings() {
    let (s, t) = (mixed_string('B', 299, 7), mixed_string('B', 299, 11));
    let v = json(&["hackenbush", &s, &t, "--json"]);
    assert_eq!(v["outcome"], "L");
    assert!(v["value"].is_null() && v["form"].is_null(), "{v}");
    let why = v["not_built"].as_str().unwrap();
    assert!(why.contains("components 1 and 2"), "{why}");
    let cuts = format!("{s}{t}").chars().filter(|&c| c != 'R').count();
    assert_eq!(v["winning_moves"]["left"]["count"], cuts);
    let text = ok(&["hackenbush", &s, &t]);
    assert!(text.contains("canonical form not built"), "{text}");
    assert!(text.contains(&format!("({cuts} moves)")), "{text}");
    let minus: String = s
        .chars()
        .map(|c| match c {
            'B' => 'R',
            'R' => 'B',
            c => c,
        })
        .collect();
    let v = json(&["hackenbush", &s, &minus, "--json"]);
    assert_eq!(v["outcome"], "P");
    let v = json(&["hackenbush", &s, &minus, "G", "--json"]);
    assert_eq!(v["outcome"], "N");
    for side in ["left", "right"] {
        let listed = v["winning_moves"][side]["listed"].as_array().unwrap();
        assert!(
            listed.iter().any(|m| m["component"] == 3 && m["edge"] == 1),
            "{side}: {listed:?}"
        );
    }
}

/// Trees with long mixed branches on the ground (issue 31: two 300-edge branches did not finish
/// in 120 s): a tree forking on the ground is the sum of its branches, so it answers as the
/// two strings do, edges numbered through the tree. A fork above a blue edge is refused (exit 2)
/// naming the edge.
#[test]
fn hackenbush_trees_with_long_branches() {
    let (s, t) = (mixed_string('B', 299, 7), mixed_string('B', 299, 11));
    let tree = format!("({s},{t})");
    let v = json(&["hackenbush", &tree, "--json"]);
    let w = json(&["hackenbush", &s, &t, "--json"]);
    assert_eq!(v["outcome"], "L");
    assert!(v["components"][0]["not_built"].is_string(), "{v}");
    assert_eq!(
        v["winning_moves"]["left"]["count"],
        w["winning_moves"]["left"]["count"]
    );
    let (code, err) = fails(&["hackenbush", &format!("B{tree}")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the branches above edge 1 fork"), "{err}");
}

/// A 65,536-edge string once made the report panic ("Formatting argument out of range").
#[test]
fn hackenbush_long_strings() {
    let long = "BR".repeat(32_768);
    let (code, err) = fails(&["hackenbush", &long]);
    assert_eq!(code, 2, "{err}");
    let long = "B".repeat(65_536);
    let text = ok(&["hackenbush", &long, "R"]);
    assert!(
        text.contains("(65536 chars)") && text.contains("65535"),
        "{text}"
    );
}

/// Long mixed strings (issue 31: 1000 edges took 126 s before their forms were read off the
/// colours). From first principles: a string whose ground edge is blue is won by Left whoever
/// starts (cutting that edge wins), so it is positive, every shorter prefix is positive too, and
/// every blue or green cut wins for Left; red ground edge: the mirror image; green: the first
/// player wins by cutting it, and only that cut wins (any other leaves a prefix with a green
/// ground edge, a first-player win for the opponent).
#[test]
fn hackenbush_long_mixed_strings() {
    let dir = tempfile::tempdir().unwrap();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let body: String = (0..5000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ['B', 'R', 'G'][(x >> 20) as usize % 3]
        })
        .collect();
    for (ground, outcome) in [('B', "L"), ('R', "R"), ('G', "N")] {
        let string = format!("{ground}{body}");
        let f = write(dir.path(), "s.txt", &format!("{string}\n"));
        let v = json(&["hackenbush", "--file", &f, "--json"]);
        assert_eq!(v["outcome"], outcome, "{ground}");
        let count = |c: char| string.chars().filter(|&e| e == c || e == 'G').count();
        match ground {
            'B' => assert_eq!(v["winning_moves"]["left"]["count"], count('B')),
            'R' => assert_eq!(v["winning_moves"]["right"]["count"], count('R')),
            _ => {
                for side in ["left", "right"] {
                    assert_eq!(v["winning_moves"][side]["count"], 1, "{side}");
                    assert_eq!(v["winning_moves"][side]["listed"][0]["edge"], 1, "{side}");
                }
            }
        }
    }
}

/// A green tree of about 10^6 edges read from a file, by the colon principle: a handle of
/// 1000 green edges carrying 200,000 branches `G(G,G)` (each *:(*+*) = *, an even number of
/// them: 0) is a green string of 1000 edges, *1000; the winning moves leave *3 beside *3.
#[test]
fn hackenbush_large_green_tree_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let tree = format!(
        "{}({})",
        "G".repeat(1000),
        vec!["G(G,G)"; 200_000].join(",")
    );
    let f = write(dir.path(), "tree.txt", &format!("# a broom\n{tree}\nGGG\n"));
    let v = json(&["hackenbush", "--file", &f, "--json"]);
    assert_eq!(v["components"][0]["edges"], 601_000);
    assert_eq!(v["components"][0]["value"], "*1000");
    assert_eq!(v["value"], "*1003");
    assert_eq!(v["outcome"], "N");
    // A winning move makes the broom *3 (the handle over anything is at least *1000, and
    // GGG cannot become *1000): cutting handle edge 4 is the only one.
    let left = &v["winning_moves"]["left"];
    assert_eq!(left["count"], 1, "{left}");
    assert_eq!(left["listed"][0]["edge"], 4);
    let (code, err) = fails(&["hackenbush", "--file", "/nonexistent/x"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// hackenbush --graph

/// Green graphs by the fusion principle (Winning Ways ch. 7: a circuit of odd length is worth
/// a single edge): a triangle on the ground is *, and the only winning move cuts the edge
/// opposite the ground, leaving two ground edges (* + * = 0).
#[test]
fn hackenbush_graph_green_triangle() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "tri.txt",
        "# a triangle standing on the ground\ng a G\na b green\nb 0 g\n",
    );
    let v = json(&["hackenbush", "--graph", &f, "--json"]);
    assert_eq!(v["components"][0]["component"], f.as_str());
    assert_eq!(v["components"][0]["value"], "*");
    assert_eq!(v["outcome"], "N");
    assert_eq!(
        v["winning_moves"]["left"]["listed"],
        serde_json::json!([{"component": 1, "edge": 2, "colour": "G"}])
    );
    // Beside a green edge the sum is 0; the graph comes after the other components.
    let v = json(&["hackenbush", "G", "--graph", &f, "--json"]);
    assert_eq!(v["outcome"], "P");
    assert_eq!(v["components"][1]["value"], "*");
    let text = ok(&["hackenbush", "--graph", &f]);
    assert!(
        text.lines()
            .any(|l| l.starts_with("Left wins") && l.ends_with(" 1:2 (G)")),
        "{text}"
    );
}

/// Mixed graphs: a tree written as a graph has the value of the same tree in `--tree`
/// notation; a blue and a red edge closing a cycle through the ground are {-1 | 1} = 0.
#[test]
fn hackenbush_graph_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let tree = write(dir.path(), "tree.txt", "g a B\na b R\na c G\nc d B\n");
    let v = json(&["hackenbush", "--graph", &tree, "--json"]);
    let w = json(&["hackenbush", "B(R,GB)", "--json"]);
    assert_eq!(v["value"], w["value"]);
    assert_eq!(v["form"], w["form"]);
    let cycle = write(dir.path(), "cycle.txt", "g a blue\na g red\n");
    let v = json(&["hackenbush", "--graph", &cycle, "--json"]);
    assert_eq!(v["value"], "0");
    assert_eq!(v["outcome"], "P");
}

/// A green graph of a million edges: a stalk of 1000 edges carrying a circuit of 999,001
/// edges (odd: fused, one twig), *1001, in seconds, with its winning moves: only cutting the
/// ground edge leaves 0 (cutting stalk edge j leaves *(j - 1); cutting the circuit leaves two
/// strings on the stalk, *(1000 + a ⊕ b) with a + b = 999,000).
#[test]
fn hackenbush_graph_large_green() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("g s1 G\n");
    for i in 1..1000 {
        writeln!(text, "s{i} s{} G", i + 1).unwrap();
    }
    let n = 999_001;
    writeln!(text, "s1000 c1 G").unwrap();
    for i in 1..n - 1 {
        writeln!(text, "c{i} c{} G", i + 1).unwrap();
    }
    writeln!(text, "c{} s1000 G", n - 1).unwrap();
    let f = write(dir.path(), "big.txt", &text);
    let v = json(&["hackenbush", "--graph", &f, "--json"]);
    assert_eq!(v["components"][0]["edges"], 1_000_001);
    assert_eq!(v["value"], "*1001");
    for side in ["left", "right"] {
        let m = &v["winning_moves"][side];
        assert_eq!(m["count"], 1, "{m}");
        assert_eq!(m["listed"][0]["edge"], 1, "{m}");
        assert_eq!(m["not_searched"], serde_json::json!([]));
        assert_eq!(m["partly_searched"], serde_json::json!([]));
    }
}

#[test]
fn hackenbush_graph_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "bad.txt", "g a B\n\na b purple\n");
    let (code, err) = fails(&["hackenbush", "--graph", &f]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 3: unknown colour 'purple'"), "{err}");
    let f = write(dir.path(), "short.txt", "g a\n");
    let (code, err) = fails(&["hackenbush", "--graph", &f]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 1: expected 'u v COLOUR'"), "{err}");
    // A mixed graph with a block beyond the search's limit: a path of 59 blue and red edges
    // standing on the ground at both ends, one cycle of 61 edges.
    let mut big = String::from("g v0 G\ng v59 G\n");
    for i in 0..59 {
        writeln!(
            big,
            "v{i} v{} {}",
            i + 1,
            if i % 2 == 0 { "B" } else { "R" }
        )
        .unwrap();
    }
    let f = write(dir.path(), "big.txt", &big);
    let (code, err) = fails(&["hackenbush", "--graph", &f]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("edges a block; it has a block of 61 edges"),
        "{err}"
    );
    let (code, err) = fails(&["hackenbush", "--graph", "/nonexistent/x"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    // Standard input read once only: a second '-' would see nothing.
    for args in [
        &["hackenbush", "--file", "-", "--graph", "-"][..],
        &["hackenbush", "--graph", "-", "--graph", "-"][..],
    ] {
        let (code, err) = fails(args);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("standard input ('-') can be given once"),
            "{err}"
        );
    }
}
