//! The progress bar (issue 4): drawn on stderr when stderr is a terminal — heaps done, heaps/s,
//! ETA, largest value, rare count — and silent when stderr is not a terminal or with --quiet,
//! but for a line of progress every `--log-every` seconds (60 by default) in a log.
//! The terminal is a pseudo-terminal opened here.

use std::fs::File;
use std::io::Read;
use std::os::fd::FromRawFd;
use std::process::{Command, Stdio};

/// A pseudo-terminal: the master side (to read what the child drew) and the path of the slave.
fn open_pty() -> (File, File) {
    // SAFETY: plain libc calls on descriptors we own; the name buffer is large enough and
    // NUL-terminated by ptsname_r.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(master >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
        let slave = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
        assert!(slave >= 0, "open the slave");
        let size = libc::winsize {
            ws_row: 40,
            ws_col: 200,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        libc::ioctl(slave, libc::TIOCSWINSZ, &size);
        (File::from_raw_fd(master), File::from_raw_fd(slave))
    }
}

/// Runs nimseq with stderr on a pseudo-terminal; returns (exit code, what it drew there).
fn on_terminal(args: &[&str]) -> (Option<i32>, String) {
    let (mut master, slave) = open_pty();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .env("TERM", "xterm")
        .stdout(Stdio::null())
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    // Our copy of the slave went to the child's stderr; once the child exits, reading the
    // master ends (EIO).
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match master.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
        }
        String::from_utf8_lossy(&all).into_owned()
    });
    let status = child.wait().unwrap();
    (status.code(), reader.join().unwrap())
}

/// Long enough for a few redraws: the exact engine on Officers.
const RUN: [&str; 6] = ["compute", "0.6", "-n", "40000", "--engine", "exact"];

#[test]
fn the_bar_shows_heaps_rate_eta_largest_value_and_rare_count() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let mut with_table = RUN.to_vec();
    with_table.extend(["--table", t.to_str().unwrap()]);
    // The same bar in every command that computes for long: compute, period, report.
    let mut period = vec!["period", "0.6", "--max", "40000", "--engine", "exact"];
    let out = dir.path().join("r");
    let report = [&["report"], &RUN[1..], &["-o", out.to_str().unwrap()]].concat();
    for args in [&RUN[..], &with_table, &period, &report] {
        let (code, drawn) = on_terminal(args);
        assert_eq!(code, Some(0), "{drawn}");
        for needle in ["heaps/s", "ETA", "largest ", "rare ", "/40,000 heaps"] {
            assert!(
                drawn.contains(needle),
                "{args:?}: no '{needle}' in {drawn:?}"
            );
        }
    }
    let t2 = dir.path().join("t2");
    period.extend(["--table", t2.to_str().unwrap()]);
    let (code, drawn) = on_terminal(&period);
    assert_eq!(code, Some(0), "{drawn}");
    assert!(
        drawn.contains("heaps/s") && drawn.contains("ETA"),
        "{drawn:?}"
    );
    period.push("--quiet");
    assert!(on_terminal(&period).1.is_empty());
}

#[test]
fn the_bar_is_silent_with_quiet_or_without_a_terminal() {
    let mut quiet = RUN.to_vec();
    quiet.push("--quiet");
    let (code, drawn) = on_terminal(&quiet);
    assert_eq!(code, Some(0));
    assert!(drawn.is_empty(), "{drawn:?}");
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let mut with_table = RUN.to_vec();
    with_table.extend(["--table", t.to_str().unwrap()]);
    for args in [&RUN[..], &with_table, &["values", "0.6", "-n", "40000"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_nimseq"))
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success());
        assert!(o.stderr.is_empty(), "{args:?}: {:?}", o.stderr);
    }
}

/// Without a terminal (a batch job's log), `--log-every SECS` writes a line every SECS seconds:
/// time, heaps done of the total, the rate since the previous line, largest value, rare count;
/// none with `--quiet`.
#[test]
fn a_log_gets_a_line_of_progress_every_log_every_seconds() {
    let args = [
        "compute",
        "0.6",
        "-n",
        "2^20",
        "--threads",
        "1",
        "--log-every",
        "1",
    ];
    let start = std::time::Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .output()
        .unwrap();
    let took = start.elapsed().as_secs();
    assert!(o.status.success());
    let log = String::from_utf8_lossy(&o.stderr);
    for line in log.lines() {
        assert!(
            line.starts_with("nimseq: 0:0")
                && line.contains(" of 1048576 (")
                && line.contains("/s, largest ")
                && line.contains(", rare "),
            "{line}"
        );
    }
    // The first line comes a second after the first chunk, then one a second at most.
    assert!(log.lines().count() as u64 <= took, "{took} s: {log}");
    if took >= 3 {
        assert!(log.lines().count() >= 1, "{took} s and no line");
    }
    let quiet = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(args)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(quiet.stderr.is_empty());
}

/// A resumed table run says where it resumes, on a terminal (issue 29); a finished one does not.
#[test]
fn a_resumed_table_run_says_where_it_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    let t = t.to_str().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_nimseq"))
        .args(["compute", "0.6", "-n", "3000", "-q", "--table", t])
        .output()
        .unwrap();
    assert!(o.status.success());
    let (code, drawn) = on_terminal(&["compute", "0.6", "-n", "5000", "--table", t]);
    assert_eq!(code, Some(0), "{drawn}");
    assert!(
        drawn.contains(&format!("resuming {t} at heap 3000")),
        "{drawn:?}"
    );
    let (_, drawn) = on_terminal(&["compute", "0.6", "-n", "5000", "--table", t]);
    assert!(!drawn.contains("resuming"), "{drawn:?}");
}
