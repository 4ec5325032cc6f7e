//! The table commands run as a user runs them: `compute --table`, `info`, `export`, crashes
//! (SIGKILL at random moments), signals, damaged files, a full disk and a read-only location.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use nimseq::engine::{self, EngineKind};
use nimseq::rules::Rule;
use nimseq::table::{TableReader, FORMAT_VERSION, VALUES_OFFSET};

fn nimseq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .output()
        .expect("run nimseq")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(args: &[&str]) -> String {
    let o = nimseq(args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn exact(game: &str, n: usize) -> Vec<u32> {
    engine::compute(&Rule::parse(game).unwrap(), n, EngineKind::Exact)
        .unwrap()
        .to_u32s()
}

/// A small deterministic generator (xorshift), seeded from the clock and printed.
struct Rng(u64);
impl Rng {
    fn new() -> Rng {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1;
        eprintln!("seed {seed}");
        Rng(seed)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn info_and_export_agree_with_compute() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("g.nimseq");
    let json = ok(&[
        "compute",
        "grundy",
        "-n",
        "3000",
        "--table",
        p(&t),
        "--json",
    ]);
    assert_eq!(json, ok(&["compute", "grundy", "-n", "3000", "--json"]));
    assert_eq!(ok(&["info", p(&t), "--json"]), json);
    assert_eq!(ok(&["info", p(&t), "--json", "--verify"]), json);
    let verified = nimseq(&["info", p(&t), "--verify"]);
    assert!(text(&verified.stderr).contains("every checksum verified (heaps 0 .. 2999)"));
    let summary = ok(&["info", p(&t)]);
    assert!(summary.contains("1 byte(s) per value") && summary.contains("4!.0 (grundy)"));
    // The b-file equals `values`, and a range is the matching slice of it.
    assert_eq!(
        ok(&["export", p(&t)]),
        ok(&["values", "grundy", "-n", "3000"])
    );
    let part = ok(&["export", p(&t), "--from", "10", "--to", "13", "--no-header"]);
    let v = exact("grundy", 13);
    assert_eq!(part, format!("10 {}\n11 {}\n12 {}\n", v[10], v[11], v[12]));
    let csv = ok(&["export", p(&t), "--to", "2", "--format", "csv"]);
    assert_eq!(csv, "n,grundy\n0 0\n1 0\n".replace(' ', ","));
    let raw = nimseq(&["export", p(&t), "--format", "raw"]).stdout;
    assert_eq!(
        raw,
        exact("grundy", 3000)
            .iter()
            .map(|&g| g as u8)
            .collect::<Vec<_>>()
    );
    let o = nimseq(&["export", p(&t), "--to", "5000"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}

/// The summary, period included, does not depend on where the values are: `compute --json`,
/// `compute --table --json` and `info --json` print the same object, for a proved period
/// (Dawson's Kayles 0.07: period 34 from heap 53, OEIS A002187 shifted by one), an observed
/// arithmetic one (Nim) and none (Officers); also for a prefix of a table and after extending.
#[test]
fn the_period_is_recorded_and_info_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    for game in ["0.07", "0.[3]", "0.6"] {
        let t = dir.path().join(format!("{game}.nimseq"));
        for n in ["3000", "7000"] {
            let json = ok(&["compute", game, "-n", n, "--json"]);
            let table = ok(&["compute", game, "-n", n, "--json", "--table", p(&t)]);
            assert_eq!(table, json, "{game} -n {n}");
            assert_eq!(ok(&["info", p(&t), "--json"]), json, "{game} -n {n}");
        }
        let prefix = ok(&["compute", game, "-n", "500", "--json", "--table", p(&t)]);
        assert_eq!(
            prefix,
            ok(&["compute", game, "-n", "500", "--json"]),
            "{game}"
        );
    }
    let t = dir.path().join("0.07.nimseq");
    let info = ok(&["info", p(&t)]);
    assert!(
        info.contains("period 34 from heap 53 (proved"),
        "the published period of 0.07: {info}"
    );
    let p = TableReader::open(&t).unwrap().period().cloned().unwrap();
    assert_eq!((p.preperiod, p.period, p.proved), (53, 34, true));
    assert_eq!(p.periods_seen, (7000 - 53) / 34);
}

#[test]
fn smaller_and_larger_n() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    ok(&["compute", "0.6", "-n", "2000", "--table", p(&a), "-q"]);
    // A smaller N summarizes the prefix and leaves the table alone, byte for byte (it reads the
    // table and verifies the prefix only: on a table of 2^34 heaps, opening it to write took
    // minutes, a checksum pass over every value).
    let before = std::fs::read(&a).unwrap();
    let small = ok(&["compute", "0.6", "-n", "500", "--table", p(&a), "--json"]);
    assert_eq!(small, ok(&["compute", "0.6", "-n", "500", "--json"]));
    assert_eq!(std::fs::read(&a).unwrap(), before);
    // A larger N extends it, to the same bytes as one run.
    ok(&["compute", "0.6", "-n", "5000", "--table", p(&a), "-q"]);
    ok(&["compute", "0.6", "-n", "5000", "--table", p(&b), "-q"]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

/// The checked-in fixture (Kayles, heaps 0 .. 999, written by format version 1): this build
/// reads it, its values are Kayles' (checked against the exact engine and OEIS A002186), its
/// recorded period is Kayles' published one (period 12 from heap 71, OEIS A002186), and a fresh
/// run writes the same bytes, so the format cannot change unnoticed.
#[test]
fn fixture_is_read_and_reproduced() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kayles-1000.nimseq");
    let bytes = std::fs::read(&fixture).unwrap();
    assert_eq!(&bytes[..8], b"NIMSEQTB");
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        FORMAT_VERSION
    );
    let r = TableReader::open(&fixture).unwrap();
    r.verify().unwrap();
    assert_eq!(r.game(), "0.77");
    let v = r.values().unwrap();
    assert_eq!(v.range(0, v.len()).collect::<Vec<_>>(), exact("0.77", 1000));
    // OEIS A002186 (Kayles): 0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, ...
    assert_eq!(
        v.range(0, 16).collect::<Vec<_>>(),
        [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7]
    );
    // The fixture records Kayles' proved period (12 from heap 71; Guy & Smith 1956, OEIS
    // A002186), as every table of a game whose period is proved does.
    let period = r.period().expect("the period is recorded");
    assert_eq!(
        (period.preperiod, period.period, period.proved),
        (71, 12, true)
    );
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("k.nimseq");
    ok(&["compute", "kayles", "-n", "1000", "--table", p(&t)]);
    assert_eq!(std::fs::read(&t).unwrap(), bytes);
}

/// A table written before periods were recorded (the same format, version 1, with no period):
/// it still reads, and `compute` with its N records the period, leaving the bytes a fresh run
/// writes.
#[test]
fn fixture_without_a_period_is_read_and_upgraded() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let old = dir.join("kayles-1000-no-period.nimseq");
    let r = TableReader::open(&old).unwrap();
    r.verify().unwrap();
    assert_eq!(r.period(), None);
    let v = r.values().unwrap();
    assert_eq!(v.range(0, v.len()).collect::<Vec<_>>(), exact("0.77", 1000));
    let info = ok(&["info", p(&old), "--json"]);
    assert!(info.contains(r#""period":null"#), "{info}");
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("k.nimseq");
    std::fs::copy(&old, &t).unwrap();
    let json = ok(&[
        "compute",
        "kayles",
        "-n",
        "1000",
        "--table",
        p(&t),
        "--json",
    ]);
    assert_eq!(json, ok(&["compute", "kayles", "-n", "1000", "--json"]));
    assert_eq!(ok(&["info", p(&t), "--json"]), json);
    assert_eq!(
        std::fs::read(&t).unwrap(),
        std::fs::read(dir.join("kayles-1000.nimseq")).unwrap()
    );
}

/// `compute --table` stops the engine once a period is proved, fills the table from the period
/// and records the period; the values are the engine's, and a table grown in steps ends with
/// the same bytes as one run.
#[test]
fn periodic_game_table_stops_at_the_period_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    // Dawson's chess 0.137: period 34 from heap 52 (OEIS A002187). 3 million heaps: the engine
    // stops near heap 200, so this is quick.
    let summary = ok(&["compute", "0.137", "-n", "3e6", "--table", p(&a), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["count"], 3_000_000);
    assert_eq!(v["period"]["preperiod"], 52);
    assert_eq!(v["period"]["period"], 34);
    assert_eq!(v["period"]["proved"], true);
    let info: serde_json::Value = serde_json::from_str(&ok(&["info", p(&a), "--json"])).unwrap();
    assert_eq!(info, v, "info reads the recorded period");
    let r = TableReader::open(&a).unwrap();
    r.verify().unwrap();
    let vals = r.values().unwrap();
    assert_eq!(vals.len(), 3_000_000);
    let exact = exact("0.137", 2000);
    assert_eq!(vals.range(0, 2000).collect::<Vec<_>>(), exact);
    for n in (2000..3_000_000).step_by(9973) {
        assert_eq!(vals.get(n), exact[52 + (n - 52) % 34], "heap {n}");
    }
    drop(r);
    // Grown in steps (the second run starts from a table that already proves the period).
    ok(&["compute", "0.137", "-n", "1e6", "--table", p(&b), "-q"]);
    ok(&["compute", "0.137", "-n", "3e6", "--table", p(&b), "-q"]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

/// Kills `compute` with SIGKILL at random moments, checks that every killed table opens, and
/// that the finished table is byte-identical to an uninterrupted run. Nim widens 8 → 16 bits
/// at heap 256, so some kills land in a widening.
#[test]
fn sigkill_loop_resumes_to_identical_bytes() {
    let mut rng = Rng::new();
    for (game, n) in [("0.[3]", "20000"), ("0.6", "60000")] {
        let dir = tempfile::tempdir().unwrap();
        let (reference, t) = (dir.path().join("ref"), dir.path().join("t"));
        let began = Instant::now();
        ok(&["compute", game, "-n", n, "--table", p(&reference), "-q"]);
        let full = began.elapsed().as_millis() as u64 + 1;
        let mut kills = 0;
        let deadline = Instant::now() + Duration::from_secs(8);
        while Instant::now() < deadline {
            let mut child = Command::new(env!("CARGO_BIN_EXE_nimseq"))
                .args([
                    "compute",
                    game,
                    "-n",
                    n,
                    "--table",
                    p(&t),
                    "-q",
                    "--checkpoint",
                    "0.005",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            sleep(Duration::from_millis(rng.below(full / 3 + 2)));
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            if out.status.success() {
                break;
            }
            assert!(out.status.code().is_none(), "{}", text(&out.stderr));
            kills += 1;
            // Whatever moment the kill hit, the table opens (or was not created yet).
            if t.exists() {
                let o = nimseq(&["info", p(&t), "--json"]);
                assert!(
                    o.status.success(),
                    "after kill {kills}: {}",
                    text(&o.stderr)
                );
            }
        }
        ok(&["compute", game, "-n", n, "--table", p(&t), "-q"]);
        eprintln!("{game}: {kills} kills");
        assert!(kills > 0);
        assert_eq!(
            std::fs::read(&t).unwrap(),
            std::fs::read(&reference).unwrap()
        );
    }
}

#[test]
fn sigint_and_sigterm_checkpoint_and_exit() {
    let dir = tempfile::tempdir().unwrap();
    let (reference, t) = (dir.path().join("ref"), dir.path().join("t"));
    // The exact engine keeps the run long enough to be interrupted (the sparse engine would
    // finish 0.6 to this N before the signal); the resumed runs then use the default engine.
    let args = ["compute", "0.6", "-n", "60000", "-q", "--engine", "exact"];
    for (sig, code, name) in [
        (libc::SIGTERM, 143, "SIGTERM"),
        (libc::SIGINT, 130, "SIGINT"),
    ] {
        let child = Command::new(env!("CARGO_BIN_EXE_nimseq"))
            .args(args)
            .args(["--table", p(&t)])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        sleep(Duration::from_millis(250));
        // SAFETY: a plain kill(2) of our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{err}");
        assert!(err.contains(&format!("stopped by {name}")), "{err}");
        let at: u64 = err
            .split(" .. ")
            .nth(1)
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(TableReader::open(&t).unwrap().len(), at + 1);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    ok(&["compute", "0.6", "-n", "60000", "-q", "--table", p(&t)]);
    ok(&[
        "compute",
        "0.6",
        "-n",
        "60000",
        "-q",
        "--table",
        p(&reference),
    ]);
    assert_eq!(
        std::fs::read(&t).unwrap(),
        std::fs::read(&reference).unwrap()
    );
}

#[test]
fn second_writer_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let mut first = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(["compute", "0.6", "-n", "1e6", "-q", "--table", p(&t)])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let began = Instant::now();
    while TableReader::open(&t).map_or(true, |r| r.is_empty()) {
        assert!(began.elapsed() < Duration::from_secs(20));
        sleep(Duration::from_millis(20));
    }
    let o = nimseq(&["compute", "0.6", "-n", "1e6", "-q", "--table", p(&t)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("being written by another nimseq process"));
    // A reader of the committed state is fine; an export waits for the writer to finish.
    assert!(nimseq(&["info", p(&t)]).status.success());
    let o = nimseq(&["export", p(&t)]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("can be read once that run ends") && err.lines().count() == 1,
        "{err}"
    );
    first.kill().unwrap();
    first.wait().unwrap();
}

fn damaged_message(t: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut all = args.to_vec();
    all.push(p(t));
    let o = nimseq(&all);
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    (o.status.code(), err)
}

#[test]
fn damaged_tables_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    ok(&["compute", "sub(1,2,3)", "-n", "3e6", "--table", p(&t), "-q"]);
    let good = std::fs::read(&t).unwrap();

    // A flipped byte among the values: caught by every command that reads them.
    let mut b = good.clone();
    b[VALUES_OFFSET as usize + 2_500_000] ^= 1;
    std::fs::write(&t, &b).unwrap();
    assert!(
        nimseq(&["info", p(&t)]).status.success(),
        "info reads only the metadata"
    );
    for args in [&["info", "--verify"][..], &["export"][..]] {
        let (code, err) = damaged_message(&t, args);
        assert_eq!(code, Some(1));
        assert!(
            err.contains("is damaged: the values of heaps 2097152 .. 2999999 fail their checksum"),
            "{err}"
        );
    }
    let o = nimseq(&["compute", "sub(1,2,3)", "-n", "4e6", "--table", p(&t)]);
    assert!(text(&o.stderr).contains("fail their checksum"));
    // The summary of a prefix verifies the prefix: caught when it holds the byte, not otherwise.
    let o = nimseq(&["compute", "sub(1,2,3)", "-n", "2.6e6", "--table", p(&t)]);
    assert!(text(&o.stderr).contains("fail their checksum"));
    let prefix = ok(&[
        "compute",
        "sub(1,2,3)",
        "-n",
        "2e6",
        "--table",
        p(&t),
        "--json",
    ]);
    assert_eq!(
        prefix,
        ok(&["compute", "sub(1,2,3)", "-n", "2e6", "--json"])
    );

    // A flipped byte in the metadata.
    let mut b = good.clone();
    let at = b.len() - 100;
    b[at] ^= 0x10;
    std::fs::write(&t, &b).unwrap();
    let (code, err) = damaged_message(&t, &["info"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("the metadata block fails its checksum"),
        "{err}"
    );

    // A truncated file.
    std::fs::write(&t, &good[..good.len() / 2]).unwrap();
    let (code, err) = damaged_message(&t, &["info"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("truncated"), "{err}");
    std::fs::write(&t, &good[..1000]).unwrap();
    let (_, err) = damaged_message(&t, &["info"]);
    assert!(err.contains("truncated"), "{err}");

    // Wrong magic, another format version, another game.
    let mut b = good.clone();
    b[0] = b'X';
    b[2048] = b'X';
    std::fs::write(&t, &b).unwrap();
    let (code, err) = damaged_message(&t, &["info"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("is not a nimseq table"), "{err}");
    let mut b = good.clone();
    b[8] = 99;
    b[2048 + 8] = 99;
    std::fs::write(&t, &b).unwrap();
    let (code, err) = damaged_message(&t, &["info"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("format version 99; this nimseq reads version 1"),
        "{err}"
    );
    std::fs::write(&t, &good).unwrap();
    let o = nimseq(&["compute", "0.6", "-n", "10", "--table", p(&t)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("holds the values of 0.333, not 0.6"));
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

struct Mount(std::path::PathBuf);
impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn mount_tmpfs(dir: &Path, options: &str) -> Option<Mount> {
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", options, "tmpfs", p(dir)])
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Mount(dir.to_path_buf()))
}

#[test]
fn full_disk_is_a_clean_error_and_resumes_elsewhere() {
    if !is_root() {
        eprintln!("skipped: mounting a small tmpfs needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small");
    std::fs::create_dir(&small).unwrap();
    let Some(_m) = mount_tmpfs(&small, "size=8m") else {
        eprintln!("skipped: mount -t tmpfs failed (no privilege in this container?)");
        return;
    };
    let t = small.join("t");
    // An N that could never fit there is refused before anything is written.
    let o = nimseq(&["compute", "sub(1,2,3)", "-n", "1e7", "-q", "--table", p(&t)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("holds 8.0 MiB in all") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!t.exists());
    // Something else fills the disk: 6 MiB of its 8 are taken, the table needs 6 MB.
    std::fs::write(small.join("filler"), vec![1u8; 6 << 20]).unwrap();
    let o = nimseq(&["compute", "sub(1,2,3)", "-n", "6e6", "-q", "--table", p(&t)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("No space left on device") && err.contains("the table holds heaps 0 .. "),
        "{err}"
    );
    let r = TableReader::open(&t).unwrap();
    r.verify().unwrap();
    let at = r.len();
    assert!(at > 0, "the space there was is used: {err}");
    let held = format!("holds heaps 0 .. {} and resumes from heap {at}", at - 1);
    assert!(err.contains(&held), "{err}");
    // On a disk with room, the same table resumes and finishes like an uninterrupted run.
    let moved = dir.path().join("t");
    std::fs::copy(&t, &moved).unwrap();
    ok(&[
        "compute",
        "sub(1,2,3)",
        "-n",
        "6e6",
        "-q",
        "--table",
        p(&moved),
    ]);
    let reference = dir.path().join("ref");
    ok(&[
        "compute",
        "sub(1,2,3)",
        "-n",
        "6e6",
        "-q",
        "--table",
        p(&reference),
    ]);
    assert_eq!(
        std::fs::read(&moved).unwrap(),
        std::fs::read(&reference).unwrap()
    );
}

/// A finished table on a file system remounted read-only: extending it is a clean error (exit 1,
/// one line) that leaves it as it was, reading it still works, and once the file system is
/// writable again the same command extends it to the bytes of one uninterrupted run.
#[test]
fn read_only_table_is_a_clean_error_and_resumes() {
    if !is_root() {
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(_m) = mount_tmpfs(dir.path(), "size=16m") else {
        eprintln!("skipped: mount -t tmpfs failed (no privilege in this container?)");
        return;
    };
    let t = dir.path().join("t");
    ok(&["compute", "0.6", "-n", "3000", "-q", "--table", p(&t)]);
    let before = std::fs::read(&t).unwrap();
    let remount = |mode: &str| {
        let s = Command::new("mount")
            .args(["-o", &format!("remount,{mode}"), p(dir.path())])
            .status()
            .unwrap();
        assert!(s.success(), "remount {mode}");
    };
    remount("ro");
    let o = nimseq(&["compute", "0.6", "-n", "9000", "-q", "--table", p(&t)]);
    let err = text(&o.stderr);
    remount("rw");
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("Read-only file system") && err.lines().count() == 1,
        "{err}"
    );
    assert_eq!(std::fs::read(&t).unwrap(), before);
    ok(&["compute", "0.6", "-n", "9000", "-q", "--table", p(&t)]);
    let reference = tempfile::tempdir().unwrap();
    let r = reference.path().join("r");
    ok(&["compute", "0.6", "-n", "9000", "-q", "--table", p(&r)]);
    assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&r).unwrap());
}

#[test]
fn read_only_location_is_a_clean_error() {
    if !is_root() {
        eprintln!("skipped: mounting a read-only tmpfs needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(_m) = mount_tmpfs(dir.path(), "ro,size=1m") else {
        eprintln!("skipped: mount -t tmpfs failed (no privilege in this container?)");
        return;
    };
    let o = nimseq(&[
        "compute",
        "kayles",
        "-n",
        "100",
        "-q",
        "--table",
        p(&dir.path().join("t")),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("Read-only file system") && err.lines().count() == 1,
        "{err}"
    );
}

fn usage_error(args: &[&str], needle: &str) {
    let o = nimseq(args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

/// Ranges that select no heap are refused (they printed a header "n = 10 .. 9" and no value).
#[test]
fn export_refuses_empty_and_outside_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("k");
    ok(&["compute", "kayles", "-n", "100", "--table", p(&t), "-q"]);
    let t = p(&t);
    usage_error(
        &["export", t, "--from", "10", "--to", "5"],
        "selects no heap",
    );
    usage_error(
        &["export", t, "--from", "10", "--to", "10"],
        "selects no heap",
    );
    usage_error(&["export", t, "--to", "0"], "selects no heap");
    usage_error(
        &["export", t, "--from", "100"],
        "--from 100 is beyond the table",
    );
    usage_error(&["export", t, "--to", "101"], "holds heaps 0 .. 99");
    assert_eq!(
        ok(&["export", t, "--from", "99", "--no-header"]),
        format!("99 {}\n", exact("0.77", 100)[99])
    );
    let header = ok(&["export", t, "--from", "2^5", "--to", "40"]);
    assert!(header.contains("# n = 32 .. 39;"), "{header}");
    // A table that holds no heap yet (a run stopped before its first commit).
    let empty = dir.path().join("e");
    nimseq::table::Table::open(&empty, "0.77").unwrap();
    usage_error(&["export", p(&empty)], "holds no heap yet");
    let info = ok(&["info", p(&empty), "--json"]);
    assert!(info.contains(r#""count":0"#), "{info}");
}

/// The longest subtraction sets give codes of thousands of digits: a table of one stores the
/// code and must still open (its code once failed to parse back: "game code is too long"),
/// and a report's b-file name must stay a valid file name.
#[test]
fn long_codes_round_trip_through_tables_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("s");
    let json = ok(&[
        "compute",
        "sub(1,4091)",
        "-n",
        "5000",
        "--json",
        "--table",
        p(&t),
    ]);
    assert_eq!(ok(&["info", p(&t), "--json"]), json);
    assert_eq!(
        ok(&["export", p(&t), "--no-header"]),
        ok(&["values", "sub(1,4091)", "-n", "5000", "--no-header"])
    );
    let out = dir.path().join("r");
    let files = ok(&["report", "sub(1,4091)", "-n", "5000", "-o", p(&out)]);
    assert_eq!(files.lines().count(), 3, "{files}");
    for f in files.lines() {
        assert!(Path::new(f).exists(), "{f}");
    }
}

/// N near 2^64 with --table: refused up front (no disk holds the table), nothing created.
#[test]
fn an_n_no_disk_can_hold_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    for n in ["2^63", "18446744073709551615"] {
        usage_error(
            &["compute", "kayles", "-n", n, "--table", p(&t)],
            "in all; give a smaller N or a path on a larger disk",
        );
        assert!(!t.exists());
    }
}

/// `export --rare`: the rare positions of Grundy's game, those Flammenkamp lists up to heap 231
/// (tests/data/published/grundy-rare-flammenkamp.tsv, with its source) and as many in all as the
/// summary counts; raw output is refused.
#[test]
fn export_rare_lists_the_published_rare_positions() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("g");
    ok(&["compute", "grundy", "-n", "2^16", "--table", p(&t), "-q"]);
    let published: Vec<(u64, u32)> = include_str!("data/published/grundy-rare-flammenkamp.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("heap"))
        .map(|l| {
            let (a, b) = l.split_once('\t').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect();
    assert_eq!(published.len(), 48);
    let listed: Vec<(u64, u32)> = ok(&["export", p(&t), "--rare", "--to", "232", "--no-header"])
        .lines()
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect();
    assert_eq!(listed, published);
    let info: serde_json::Value = serde_json::from_str(&ok(&["info", p(&t), "--json"])).unwrap();
    let all = ok(&["export", p(&t), "--rare", "--format", "csv", "--no-header"]);
    assert_eq!(
        all.lines().count() as u64,
        info["rare_count"].as_u64().unwrap()
    );
    assert!(
        ok(&["export", p(&t), "--rare"]).contains("# only the heaps with rare values (mask 0xfe")
    );
    usage_error(
        &["export", p(&t), "--rare", "--format", "raw"],
        "--rare lists heaps",
    );
}

/// A `period --table` refused for its size creates no table (issue 29, defect 3: it used to
/// leave an empty table that `info` described as "heaps 0 .. 0").
#[test]
fn a_refused_period_table_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    usage_error(
        &["period", "0.6", "--max", "2^63", "--table", p(&t)],
        "give a smaller N or a path on a larger disk",
    );
    assert!(!t.exists());
}

/// A table whose period is proved gives the values past its end (issue 29, defect 4): Kayles,
/// period 12 from heap 71 (Guy & Smith 1956; OEIS A002186), proved within 200 heaps.
#[test]
fn values_past_a_table_with_a_proved_period_follow_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("k");
    ok(&["compute", "kayles", "-n", "200", "--table", p(&t), "-q"]);
    assert_eq!(
        ok(&["values", "kayles", "-n", "1000", "--table", p(&t)]),
        ok(&["values", "kayles", "-n", "1000", "-q"])
    );
    // Officers has no period in sight: past its end, the table is refused as before.
    let o = dir.path().join("o");
    ok(&["compute", "0.6", "-n", "200", "--table", p(&o), "-q"]);
    usage_error(
        &["values", "0.6", "-n", "1000", "--table", p(&o)],
        "holds heaps 0 .. 199, not 0 .. 999; extend it",
    );
}
