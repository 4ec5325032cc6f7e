//! The instruction-set tiers through the real binary: `--version` names the tier and the
//! processor's tiers, `NIMSEQ_ISA` forces each of them with the same values, and a name the
//! processor lacks (or a bad value of another switch) is refused with exit code 2.

mod common;

use std::process::{Command, Output, Stdio};

use common::stdout;
use nimseq::engine::{Tier, TIERS};

/// Runs the binary with the environment variables `vars` set.
fn nimseq_with(vars: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nimseq"));
    for var in [
        "NIMSEQ_ISA",
        "NIMSEQ_LANES",
        "NIMSEQ_KEYS",
        "NIMSEQ_SMALL",
        "NIMSEQ_PIPELINE",
        "NIMSEQ_WITNESS",
        "NIMSEQ_HEAD",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(vars.iter().copied())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run nimseq")
}

fn assert_refused(vars: &[(&str, &str)], needle: &str) {
    let o = nimseq_with(vars, &["compute", "kayles", "-n", "10"]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{vars:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{vars:?}: not one line: {err}");
    assert!(
        err.starts_with("nimseq: ") && err.contains(needle),
        "{vars:?}: {err}"
    );
}

#[test]
fn version_names_the_tier_and_its_features() {
    let o = nimseq_with(&[], &["--version"]);
    assert!(o.status.success());
    let out = stdout(&o);
    let best = Tier::best();
    assert!(
        out.contains(&format!("engine tier {best} (the best")),
        "{out}"
    );
    for t in Tier::available() {
        assert!(out.contains(t.name()), "{out} lacks {t}");
    }
    // Where portable is the best tier (ARM, x86-64 without AVX2), asking for it changes nothing.
    let o = nimseq_with(&[("NIMSEQ_ISA", "portable")], &["--version"]);
    let why = if best == Tier::PORTABLE {
        "the best"
    } else {
        "asked for"
    };
    assert!(
        stdout(&o).contains(&format!("engine tier portable ({why}")),
        "{}",
        stdout(&o)
    );
}

#[test]
fn unknown_or_unavailable_tiers_are_refused() {
    assert_refused(
        &[("NIMSEQ_ISA", "bogus")],
        "unknown instruction-set tier 'bogus'",
    );
    assert_refused(&[("NIMSEQ_ISA", "bogus")], "portable");
    for info in TIERS {
        if !Tier::available().iter().any(|t| t.kind() == info.kind) {
            // A tier of another architecture is refused as such (x86 tiers on aarch64).
            let why = match info.arch {
                Some(arch) if arch != std::env::consts::ARCH => "tier; this processor has: ",
                _ => "this processor lacks",
            };
            assert_refused(&[("NIMSEQ_ISA", info.name)], why);
        }
    }
    assert_refused(&[("NIMSEQ_LANES", "7")], "NIMSEQ_LANES=7");
    assert_refused(&[("NIMSEQ_KEYS", "maybe")], "NIMSEQ_KEYS=maybe");
    assert_refused(&[("NIMSEQ_WITNESS", "1")], "NIMSEQ_WITNESS=1");
    assert_refused(&[("NIMSEQ_HEAD", "0")], "NIMSEQ_HEAD=0");
    assert_refused(&[("NIMSEQ_HEAD", "on")], "NIMSEQ_HEAD=on");
}

/// Every tier the processor has gives the same values as the exact engine, for games that run
/// the scans on bytes (Grundy's game), on 16-bit keys and lanes (Officers past 256 values
/// need 2^14 heaps and more; here its first heaps), and small mode (0.167); with the witness
/// search as the tier does it and the other way round, and the scan's head in lanes off and
/// over 64 pairs (so that these heaps have one).
#[test]
fn every_tier_gives_the_same_values() {
    for (game, n) in [
        ("grundy", "30000"),
        ("officers", "20000"),
        ("0.167", "50000"),
    ] {
        let exact = nimseq_with(&[], &["values", game, "-n", n, "--engine", "exact"]);
        assert!(exact.status.success());
        for t in Tier::available() {
            // The witness search as the tier does it, and then the other way round.
            let flipped = if t == Tier::PORTABLE { "off" } else { "on" };
            for (lanes, witness, head) in [
                ("auto", "auto", "auto"),
                ("off", flipped, "off"),
                ("auto", "auto", "64"),
            ] {
                let o = nimseq_with(
                    &[
                        ("NIMSEQ_ISA", t.name()),
                        ("NIMSEQ_LANES", lanes),
                        ("NIMSEQ_WITNESS", witness),
                        ("NIMSEQ_HEAD", head),
                    ],
                    &[
                        "values",
                        game,
                        "-n",
                        n,
                        "--engine",
                        "sparse",
                        "--threads",
                        "2",
                    ],
                );
                assert!(
                    o.status.success(),
                    "{t}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                assert!(
                    o.stdout == exact.stdout,
                    "{game} on {t}, lanes {lanes}, witness search {witness}, head {head}"
                );
            }
        }
    }
}
