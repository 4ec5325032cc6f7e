//! Fuzzing the command line (issue 9): random commands, flags, numbers, codes and paths run
//! through the real binary. Whatever the input: no panic, no hang, an exit code of 0, 1 or 2,
//! and every error is one line on stderr starting with "nimseq: ". Inputs are kept small (heap
//! counts below 100) so that every valid command is quick and a slow one means a hang.
//! `NIMSEQ_FUZZ_CASES` sets the number of cases (this file runs a twentieth of it; CI runs the
//! default, `scripts/fuzz.sh` many more).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("NIMSEQ_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4000)
        / 20
}

/// The commands, the help command, an unknown one and none at all.
fn commands() -> Vec<&'static str> {
    let mut all = common::COMMANDS.to_vec();
    all.extend(["help", "frobnicate", ""]);
    all
}

const FLAGS: &[&str] = &[
    "-n",
    "--count",
    "--json",
    "--table",
    "--from",
    "--to",
    "--format",
    "--engine",
    "--threads",
    "--out",
    "-o",
    "--shard",
    "--misere",
    "-q",
    "--quiet",
    "--progress",
    "--verify",
    "--no-header",
    "--checkpoint",
    "--bfile-terms",
    "--search-limit",
    "--max-moves",
    "--max-forms",
    "--max-shift",
    "--max-heap",
    "--max-order",
    "--budget",
    "--acyclic",
    "--frob",
    "-x",
    "-h",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "5",
    "8",
    "2^3",
    "1e1",
    "1_0",
    "3*3",
    "-1",
    "-0",
    "2^64",
    "18446744073709551615",
    "1e400",
    "1.5",
    "abc",
    "",
    " ",
    "2^",
    "0x10",
    "exact",
    "csv",
    "raw",
    "1/2",
    "3/2",
];

const PATHS: &[&str] = &[
    "t.nimseq",
    "missing",
    ".",
    "/dev/null",
    "-",
    "codes.txt",
    "out",
];

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(FLAGS).prop_map(str::to_string),
        3 => prop::sample::select(NUMBERS).prop_map(str::to_string),
        2 => prop::sample::select(PATHS).prop_map(str::to_string),
        2 => "[0-9a-fA-F.!?\\[\\](),subaltg-]{0,10}",
        1 => prop::sample::select(&["kayles", "grundy", "nim", "0.77", "4!.0", "0.3F", "sub(1,2)"][..])
            .prop_map(str::to_string),
        1 => "[BRGX]{0,8}",
        1 => "\\PC{0,6}",
    ]
}

/// A folder with a small valid table (Kayles, 50 heaps) and a code file.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(["compute", "kayles", "-n", "50", "-q", "--table", "t.nimseq"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success());
    std::fs::write(dir.path().join("codes.txt"), "0.77\n# a comment\n0.07\n").unwrap();
    dir
}

/// Runs the binary in `dir` with a deadline; `None` when it had to be killed.
fn run(dir: &Path, args: &[String]) -> Option<(Option<i32>, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .current_dir(dir)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            return Some((
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases().max(1)))]

    #[test]
    fn random_command_lines_fail_cleanly(
        cmd in prop::sample::select(commands()),
        tokens in prop::collection::vec(token(), 0..7),
    ) {
        let dir = workspace();
        let mut args: Vec<String> = Vec::new();
        if !cmd.is_empty() {
            args.push(cmd.to_string());
        }
        args.extend(tokens.iter().filter(|t| t.as_str() != "--").cloned());
        // Bound the slow paths: period's default --max is 2^24; exact misère play of large
        // positions is exponential (the heaps here are at most 10).
        if cmd == "period" && !args.iter().any(|a| a == "--max") {
            args.extend(["--max".to_string(), "64".to_string()]);
        }
        // A misère quotient can take minutes and gigabytes in one heap of a wild game (0.76
        // at heap 12, 0.6 near heap 20): keep its heaps few (the numbers here are at most 10
        // or refused), for `quotient` and for each game of `survey --misere`.
        let misere_survey = cmd == "survey" && args.iter().any(|a| a == "--misere");
        if (cmd == "quotient" || misere_survey) && !args.iter().any(|a| a == "--max-heap") {
            args.extend(["--max-heap".to_string(), "8".to_string()]);
        }
        if misere_survey && !args.iter().any(|a| a == "--budget") {
            args.extend(["--budget".to_string(), "0.5".to_string()]);
        }
        let Some((code, err)) = run(dir.path(), &args) else {
            return Err(TestCaseError::fail(format!("hang: nimseq {args:?}")));
        };
        prop_assert!(
            matches!(code, Some(0..=2)),
            "nimseq {:?}: exit {:?}: {}", args, code, err
        );
        prop_assert!(
            !err.contains("panicked") && !err.contains("internal error"),
            "nimseq {:?}: {}", args, err
        );
        if code != Some(0) {
            prop_assert_eq!(err.lines().count(), 1, "nimseq {:?}: {}", args, err);
            prop_assert!(err.starts_with("nimseq: "), "nimseq {:?}: {}", args, err);
        }
    }
}
