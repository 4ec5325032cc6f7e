//! `nimseq survey PATTERN --misere`: the misère quotient of every game, each in a child process
//! of this binary with a memory limit and a deadline.
//!
//! A quotient's limits (heap, order, time) are looked at between heaps, and one heap of a wild
//! game can take minutes or try to allocate more memory than the machine has (0.76 spends over
//! 30 s on heap 12; 0.6 asks for 89 GB in heap ~20). A thread cannot be stopped from outside
//! and a failed allocation ends the whole process, so each game of a survey of several runs as
//! `nimseq survey CODE --misere --json` (one game, computed in that process by
//! [`nimseq::survey::misere`]) under `RLIMIT_AS` and is killed at its deadline: twice the
//! budget plus five seconds. Its row then says so. A survey of one game computes in process.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use nimseq::report::survey as out;
use nimseq::survey::misere::{misere_row_watched, MisereOptions, MisereRow};
use nimseq::survey::pattern::Game;

use super::survey::SurveyArgs;
use super::usage;

/// How a child's heap lines begin: "nimseq: heap H: order K".
const HEAP_LINE: &str = "nimseq: heap ";

/// Address space each child may use (`RLIMIT_AS`).
const CHILD_MEMORY: libc::rlim_t = 4 << 30;

/// Runs `survey --misere` on `games` and prints the table or JSON lines.
pub fn survey_misere(args: &SurveyArgs, games: &[Game]) -> anyhow::Result<()> {
    let (max_heap, max_order, budget) = args.misere_limits();
    if !(budget > 0.0 && budget.is_finite()) {
        return Err(usage(format!(
            "--budget {budget} must be a positive number of seconds"
        )));
    }
    if max_heap > nimseq::api::QUOTIENT_MAX_HEAP {
        return Err(usage(format!(
            "--max-heap {max_heap} is above the largest a quotient computes ({})",
            nimseq::api::QUOTIENT_MAX_HEAP
        )));
    }
    let opts = MisereOptions {
        max_heap: max_heap as usize,
        max_order: usize::try_from(max_order).unwrap_or(usize::MAX),
        budget: Duration::from_secs_f64(budget),
        ..Default::default()
    };
    let quiet = args.quiet();
    let start = Instant::now();
    let rows = if let [game] = games {
        let lines = args.heap_lines();
        vec![misere_row_watched(game, &opts, &mut |h, order| {
            if lines {
                eprintln!("{HEAP_LINE}{h}: order {order}");
            }
        })]
    } else {
        supervise(games, args, budget, quiet)?
    };
    if !quiet {
        eprintln!(
            "nimseq: misère quotients of {} game{} in {:.1} s",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            start.elapsed().as_secs_f64()
        );
    }
    let stdout = std::io::stdout().lock();
    if args.json() {
        out::write_misere_json_lines(stdout, &rows)?;
    } else {
        out::write_misere_markdown(stdout, &rows)?;
    }
    Ok(())
}

/// Each game in a child process, as many at once as `--threads` (default: the cores), a bar of
/// games on stderr.
fn supervise(
    games: &[Game],
    args: &SurveyArgs,
    budget: f64,
    quiet: bool,
) -> anyhow::Result<Vec<MisereRow>> {
    let exe = std::env::current_exe().context("cannot find this program to run the games")?;
    let jobs = args
        .thread_count()
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let deadline = Duration::from_secs_f64(2.0 * budget + 5.0);
    let draw = if quiet {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(Some(games.len() as u64), draw);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} (eta {eta}) {msg}")
            .expect("valid template"),
    );
    let (max_heap, max_order, _) = args.misere_limits();
    let next = AtomicUsize::new(0);
    let mut rows: Vec<Option<MisereRow>> = vec![None; games.len()];
    let slots: Vec<std::sync::Mutex<&mut Option<MisereRow>>> =
        rows.iter_mut().map(std::sync::Mutex::new).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(games.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(game) = games.get(i) else { break };
                let row = run_child(&exe, game, max_heap, max_order, budget, deadline);
                bar.set_message(game.code.clone());
                bar.inc(1);
                **slots[i].lock().expect("no panics") = Some(row);
            });
        }
    });
    bar.finish_and_clear();
    drop(slots);
    Ok(rows
        .into_iter()
        .map(|r| r.expect("every game ran"))
        .collect())
}

/// One game in a child process: its row, or an unfinished row saying why there is none.
fn run_child(
    exe: &std::path::Path,
    game: &Game,
    max_heap: u64,
    max_order: u64,
    budget: f64,
    deadline: Duration,
) -> MisereRow {
    let mut cmd = Command::new(exe);
    cmd.args([
        "survey",
        &game.rule.code(),
        "--misere",
        "--json",
        "--quiet",
        "--heap-lines",
    ])
    .args(["--max-heap", &max_heap.to_string()])
    .args(["--max-order", &max_order.to_string()])
    .args(["--budget", &budget.to_string(), "--threads", "1"])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    // SAFETY: the closure runs in the child between fork and exec; it only calls setrlimit,
    // which is async-signal-safe, and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: CHILD_MEMORY,
                rlim_max: CHILD_MEMORY,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return MisereRow::unfinished(game, format!("cannot start: {e}")),
    };
    let (status, stdout, stderr) = match wait_until(child, deadline) {
        Ok(r) => r,
        Err(stderr) => {
            // Where it was: the last heap it finished, and the order then.
            let last = stderr
                .lines()
                .filter_map(|l| l.strip_prefix(HEAP_LINE)?.split_once(": order "))
                .next_back()
                .map_or(String::new(), |(h, k)| format!(" (order {k} at heap {h})"));
            return MisereRow::unfinished(
                game,
                format!(
                    "killed after {:.0} s: one heap ran past the budget{last}",
                    deadline.as_secs_f64()
                ),
            );
        }
    };
    match serde_json::from_str::<MisereRow>(stdout.trim()) {
        Ok(mut row) if status.success() => {
            row.code = game.code.clone();
            row
        }
        _ => {
            let why = if stderr.contains("memory allocation") {
                format!("out of memory (limit {} GiB a game)", CHILD_MEMORY >> 30)
            } else {
                let last = stderr
                    .lines()
                    .rfind(|l| !l.starts_with(HEAP_LINE))
                    .unwrap_or("no output")
                    .trim();
                format!("failed ({status}): {last}")
            };
            MisereRow::unfinished(game, why)
        }
    }
}

/// Waits for `child` until `deadline`, reading its output; kills it then (`Err` with what it
/// wrote on stderr).
fn wait_until(
    mut child: Child,
    deadline: Duration,
) -> Result<(std::process::ExitStatus, String, String), String> {
    let began = Instant::now();
    // Read both pipes on threads so that a child writing much does not block.
    let mut so = child.stdout.take().expect("piped");
    let mut se = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let o = out.join().unwrap_or_default();
                let e = err.join().unwrap_or_default();
                return Ok((status, o, e));
            }
            Ok(None) if began.elapsed() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = out.join();
                return Err(err.join().unwrap_or_default());
            }
        }
    }
}
