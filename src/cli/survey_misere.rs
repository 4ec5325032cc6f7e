//! `nimseq survey PATTERN --misere`: the misère quotient of every game, each in a child process
//! of this binary with a memory limit and a deadline; its files, resumed runs, shards and
//! `survey-merge` of them.
//!
//! A quotient's limits (heap, order, time) are looked at between heaps, and one heap of a wild
//! game can take minutes or try to allocate more memory than the machine has (0.76 spends over
//! 30 s on heap 12; 0.6 asks for 89 GB in heap ~20). A thread cannot be stopped from outside
//! and a failed allocation ends the whole process, so each game of a survey of several runs as
//! `nimseq survey CODE --misere --json --shard 1/1` (one game, computed in that process by
//! [`nimseq::survey::misere`]) under `RLIMIT_AS` and is killed at its deadline: twice the
//! budget plus five seconds. Its row then says so. A child dies with this process (Linux's
//! parent-death signal), so a killed survey leaves no games running. A survey of one game
//! computes in process.
//!
//! Files in `--out DIR`, as the plain survey's ([`super::survey`]): `misere.jsonl` (whole
//! survey) or `misere-shard-I-of-K.jsonl`, written atomically once complete, and
//! `misere.md`; while a run is going each finished row is appended to `<name>.partial` at once.
//! A rerun with the same DIR resumes from the partial file or the complete one and computes
//! only the games that are missing or that its larger limits take further
//! ([`nimseq::survey::misere::still_to_do`]).

use std::fs;
use std::io::{BufWriter, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use nimseq::report::survey as out;
use nimseq::survey::misere::file::{self, MisereFile, MisereHeader};
use nimseq::survey::misere::{
    misere_row_watched, still_to_do, MisereError, MisereOptions, MisereRow, StoppedBy,
};
use nimseq::survey::pattern::Game;
use nimseq::survey::Shard;

use super::survey::{checkpoint, merge_error, partial_path, write_atomic, SurveyArgs};
use super::usage;

/// How a child's heap lines begin: "nimseq: heap H: order K".
const HEAP_LINE: &str = "nimseq: heap ";

/// Address space each child may use (`RLIMIT_AS`).
const CHILD_MEMORY: libc::rlim_t = 4 << 30;

fn file_name(shard: Shard) -> String {
    if shard.is_whole() {
        "misere.jsonl".to_string()
    } else {
        format!("misere-shard-{}-of-{}.jsonl", shard.index, shard.count)
    }
}

/// Runs `survey --misere` on `games`: prints the table or JSON lines of a whole survey, writes
/// the files of `--out`.
pub fn survey_misere(args: &SurveyArgs, games: &[Game]) -> anyhow::Result<()> {
    let (max_heap, max_order, budget) = args.misere_limits();
    let opts = MisereOptions::new(max_heap, max_order, budget).map_err(|e| match e {
        MisereError::Budget(_) => usage(format!("--budget {e}")),
        MisereError::MaxHeap(_) => usage(format!("--max-heap {e}")),
        e => usage(e),
    })?;
    let shard = args.shard()?;
    if !shard.is_whole() && args.out().is_none() {
        return Err(usage(format!(
            "shard {shard} needs --out DIR for its file (merge the shards with 'nimseq survey-merge')"
        )));
    }
    let header = MisereHeader::new(args.pattern(), games, &opts, shard);
    let target = args.out().map(|d| d.join(file_name(shard)));
    if let Some(dir) = args.out() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let (done, complete) = match &target {
        Some(t) => earlier_rows(t, &header)?,
        None => (Vec::new(), None),
    };
    let (kept, todo) = still_to_do(&header.indices, done, &opts);
    let quiet = args.quiet();
    let start = Instant::now();
    let resumed = kept.len();
    let file = if todo.is_empty() && complete.is_some() {
        if !quiet {
            eprintln!(
                "nimseq: {} is already complete",
                target.as_ref().expect("set").display()
            );
        }
        let file = MisereFile { header, rows: kept };
        // The same rows under this run's limits: the header says so.
        if let (Some(t), Some(old)) = (&target, &complete) {
            if old != &file {
                write_atomic(t, |f| out::write_misere_file(BufWriter::new(f), &file))?;
            }
        }
        file
    } else {
        run_games(args, games, header, &opts, kept, &todo, target.as_deref())?
    };
    let seconds = start.elapsed().as_secs_f64();
    let timing = if resumed == 0 {
        format!("in {seconds:.1} s")
    } else {
        format!(
            "({} computed in {seconds:.1} s, {resumed} by an earlier run)",
            file.rows.len() - resumed
        )
    };
    if !shard.is_whole() {
        if !quiet {
            eprintln!(
                "nimseq: shard {shard}: misère quotients of {} games {timing} -> {}",
                file.rows.len(),
                target.as_ref().expect("checked").display()
            );
        }
        return Ok(());
    }
    if !quiet {
        eprintln!(
            "nimseq: misère quotients of {} game{} {timing}",
            file.rows.len(),
            if file.rows.len() == 1 { "" } else { "s" },
        );
    }
    finish(&file, args.json(), args.out())
}

/// The rows an earlier run left for `header`'s survey and part next to `target`: those of the
/// complete file (also returned) or else of its partial file; none when there is neither.
fn earlier_rows(
    target: &Path,
    header: &MisereHeader,
) -> anyhow::Result<(Vec<MisereRow>, Option<MisereFile>)> {
    let partial = partial_path(target);
    let (path, is_partial) = if target.exists() {
        (target.to_path_buf(), false)
    } else if partial.exists() {
        (partial, true)
    } else {
        return Ok((Vec::new(), None));
    };
    let name = path.display().to_string();
    let text = fs::read_to_string(&path).with_context(|| format!("cannot read {name}"))?;
    let f = file::parse(&name, &text, is_partial)
        .map_err(|e| anyhow::anyhow!("{e}; remove it to start again"))?;
    if let Some((what, theirs, ours)) = header.differs_from(&f.header) {
        bail!(
            "{name} holds a run of a different survey ({what}: {ours} there, {theirs} now); \
             remove it or choose another --out"
        );
    }
    let rows = f.rows.clone();
    Ok((rows, (!is_partial).then_some(f)))
}

/// Computes the games `todo` and returns the whole file of `header`'s part with the `kept`
/// rows. With a `target`, every row is appended to its partial file as it finishes (after the
/// kept ones), and the target is written when all are done.
fn run_games(
    args: &SurveyArgs,
    games: &[Game],
    header: MisereHeader,
    opts: &MisereOptions,
    kept: Vec<MisereRow>,
    todo: &[usize],
    target: Option<&Path>,
) -> anyhow::Result<MisereFile> {
    let partial: Option<PathBuf> = target.map(partial_path);
    let writer = match &partial {
        Some(p) => {
            let clean = MisereFile {
                header: header.clone(),
                rows: kept.clone(),
            };
            Some(checkpoint(p, |f| {
                out::write_misere_file(BufWriter::new(f), &clean)
            })?)
        }
        None => None,
    };
    if !kept.is_empty() && !args.quiet() {
        eprintln!(
            "nimseq: resuming: {} of {} games already done, {} to compute",
            kept.len(),
            header.indices.len(),
            todo.len()
        );
    }
    let write_error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let on_row = |r: &MisereRow| {
        if let Some(w) = &writer {
            let mut f = w.lock().expect("no panics while writing");
            if let Err(e) = out::write_misere_row(&mut *f, r) {
                write_error.lock().expect("no panics").get_or_insert(e);
            }
        }
    };
    let new = match (games, todo) {
        ([game], [j]) => {
            let lines = args.heap_lines();
            let row = misere_row_watched(*j, game, opts, &mut |h, order| {
                if lines {
                    eprintln!("{HEAP_LINE}{h}: order {order}");
                }
                std::ops::ControlFlow::Continue(())
            })
            .expect("never stopped");
            on_row(&row);
            vec![row]
        }
        _ => supervise(games, todo, opts, args, &on_row)?,
    };
    if let Some(e) = write_error.into_inner().expect("no panics") {
        return Err(e).context("cannot write the partial file");
    }
    let mut rows: Vec<MisereRow> = kept.into_iter().chain(new).collect();
    rows.sort_by_key(|r| r.index);
    let file = MisereFile { header, rows };
    if let (Some(t), Some(p)) = (target, &partial) {
        write_atomic(t, |f| out::write_misere_file(BufWriter::new(f), &file))?;
        fs::remove_file(p).with_context(|| format!("cannot remove {}", p.display()))?;
    }
    Ok(file)
}

/// Prints a whole survey and, with `dir`, writes misere.md there (misere.jsonl, when it is
/// not there already).
fn finish(file: &MisereFile, json: bool, dir: Option<&Path>) -> anyhow::Result<()> {
    if let Some(dir) = dir {
        let jsonl = dir.join(file_name(Shard::WHOLE));
        let same = fs::read_to_string(&jsonl)
            .ok()
            .and_then(|t| file::parse("", &t, false).ok());
        if same.as_ref() != Some(file) {
            write_atomic(&jsonl, |f| out::write_misere_file(BufWriter::new(f), file))?;
        }
        write_atomic(&dir.join("misere.md"), |f| {
            out::write_misere_markdown(BufWriter::new(f), &file.rows)
        })?;
    }
    let stdout = std::io::stdout().lock();
    if json {
        out::write_misere_json_lines(stdout, &file.rows)?;
    } else {
        out::write_misere_markdown(stdout, &file.rows)?;
    }
    Ok(())
}

/// `survey-merge` of misère survey files.
pub fn merge_misere(paths: &[PathBuf], json: bool, dir: Option<&Path>) -> anyhow::Result<()> {
    let mut files = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        let text = fs::read_to_string(path).map_err(|source| {
            merge_error(nimseq::survey::MergeError::Io {
                path: name.clone(),
                source,
            })
        })?;
        files.push((
            name.clone(),
            file::parse(&name, &text, false).map_err(merge_error)?,
        ));
    }
    let merged = file::merge(files).map_err(merge_error)?;
    if let Some(dir) = dir {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    finish(&merged, json, dir)
}

/// Each game of `todo` in a child process, as many at once as `--threads` (default: the
/// cores), a bar of games on stderr; `on_row` sees each row as it comes. Rows by index.
fn supervise(
    games: &[Game],
    todo: &[usize],
    opts: &MisereOptions,
    args: &SurveyArgs,
    on_row: &(dyn Fn(&MisereRow) + Sync),
) -> anyhow::Result<Vec<MisereRow>> {
    let exe = std::env::current_exe().context("cannot find this program to run the games")?;
    let jobs = args
        .thread_count()
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let deadline = Duration::from_secs_f64(2.0 * opts.budget.as_secs_f64() + 5.0);
    // A bar on a terminal, lines every --log-every seconds in a log (a Slurm task's).
    let bar = super::progress::Games::new(todo.len() as u64, args.bar());
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<MisereRow>> = Mutex::new(Vec::with_capacity(todo.len()));
    std::thread::scope(|s| {
        for _ in 0..jobs.min(todo.len()) {
            s.spawn(|| {
                while let Some(&j) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let row = run_child(&exe, j, &games[j], opts, deadline);
                    on_row(&row);
                    bar.done(&games[j].code);
                    rows.lock().expect("no panics").push(row);
                }
            });
        }
    });
    bar.finish();
    let mut rows = rows.into_inner().expect("no panics");
    rows.sort_by_key(|r| r.index);
    Ok(rows)
}

/// Game `index` in a child process: its row, or an unfinished row saying why there is none.
fn run_child(
    exe: &Path,
    index: usize,
    game: &Game,
    opts: &MisereOptions,
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
        "--shard",
        "1/1",
    ])
    .args(["--max-heap", &opts.max_heap.to_string()])
    .args(["--max-order", &opts.max_order.to_string()])
    .args(["--budget", &opts.budget.as_secs_f64().to_string()])
    .args(["--threads", "1"])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    // SAFETY: the closure runs in the child between fork and exec; it only calls setrlimit and
    // prctl, which are async-signal-safe, and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: CHILD_MEMORY,
                rlim_max: CHILD_MEMORY,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Killed with this process (with the thread that started it, which outlives it).
            #[cfg(target_os = "linux")]
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let unfinished = |by: StoppedBy, why: String| MisereRow::unfinished(index, game, by, why, opts);
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return unfinished(StoppedBy::Failed, format!("cannot start: {e}")),
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
            return unfinished(
                StoppedBy::Deadline,
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
            row.index = index;
            row
        }
        _ if stderr.contains("memory allocation") => unfinished(
            StoppedBy::Memory,
            format!("out of memory (limit {} GiB a game)", CHILD_MEMORY >> 30),
        ),
        _ => {
            let last = stderr
                .lines()
                .rfind(|l| !l.starts_with(HEAP_LINE))
                .unwrap_or("no output")
                .trim();
            unfinished(StoppedBy::Failed, format!("failed ({status}): {last}"))
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
