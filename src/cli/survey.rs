//! `nimseq survey` and `nimseq survey-merge`: many games at once, in shards on clusters.
//!
//! Files in `--out DIR`: `survey.jsonl` (whole survey) or `survey-shard-I-of-K.jsonl` (one
//! shard), written atomically once complete; while a run is going, finished games are appended
//! to `<name>.partial` so that a run that is stopped (Slurm preemption, time limit) resumes with
//! the games it had finished. `survey.md` is the Markdown table of a whole survey.

use std::fs::{self, File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;

use nimseq::engine::EngineKind;
use nimseq::report::survey as out;
use nimseq::survey::group::DEFAULT_MAX_SHIFT;
use nimseq::survey::merge::{parse_shard, read_shard, MergeError};
use nimseq::survey::{self, pattern, GameRecord, Header, Shard, ShardFile, Survey, SurveyOptions};

use super::{checked_count, count_arg, usage};

/// Arguments of `survey`.
#[derive(Debug, Args)]
pub struct SurveyArgs {
    /// The games: a code with '?' for any octal digit (0.??, 0.1?, 4.???), or a file with one code per line.
    #[arg(value_name = "PATTERN")]
    pattern: String,
    /// Heaps 0 .. N-1 of every game (1000, 1e6, 2^20). Not with --misere.
    #[arg(short = 'n', long = "count", value_name = "N", value_parser = count_arg, allow_negative_numbers = true, required_unless_present = "misere", conflicts_with = "misere")]
    count: Option<u64>,
    /// Engine: exact (reference, O(N^2)) or auto (the fastest that applies).
    #[arg(long, default_value = "auto", value_name = "ENGINE")]
    engine: EngineKind,
    /// Print one JSON object per game instead of the Markdown table.
    #[arg(long)]
    json: bool,
    /// Write the survey (survey.jsonl, survey.md; with --misere misere.jsonl, misere.md) or the shard's file to DIR, each game as it finishes; a rerun resumes it.
    #[arg(short = 'o', long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run part I of K (1 <= I <= K). Default: from SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_MAX when set, else the whole survey.
    #[arg(long, value_name = "I/K")]
    shard: Option<Shard>,
    /// Largest heap shift compared when grouping equivalent games. Not with --misere.
    #[arg(long, default_value_t = DEFAULT_MAX_SHIFT, value_name = "S", allow_negative_numbers = true, conflicts_with = "misere")]
    max_shift: usize,
    /// The misère quotient of every game instead (Plambeck and Siegel; see 'nimseq quotient'):
    /// |Q|, |P|, the heap where it was certified, the period of its heaps' elements, tame.
    /// Each game stops when certified, or at --max-heap, --max-order or --budget (looked at
    /// between heaps) with its partial quotient.
    #[arg(long, conflicts_with = "engine")]
    misere: bool,
    /// With --misere: the largest heap of each game [default: 300].
    #[arg(long, value_name = "N", value_parser = count_arg, allow_negative_numbers = true)]
    max_heap: Option<u64>,
    /// With --misere: stop a game whose quotient grows past this order [default: 1000].
    #[arg(long, value_name = "K", value_parser = count_arg, allow_negative_numbers = true)]
    max_order: Option<u64>,
    /// With --misere: seconds for each game, looked at between heaps [default: 5].
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    budget: Option<f64>,
    /// With --misere and one game: a line on stderr after each heap (read by the survey that
    /// runs each game in a child process, to say where a killed game was).
    #[arg(long, hide = true)]
    heap_lines: bool,
    #[command(flatten)]
    run: super::RunArgs,
}

/// Arguments of `survey-merge`.
#[derive(Debug, Args)]
pub struct SurveyMergeArgs {
    /// Shard files (survey-shard-I-of-K.jsonl, or misere-shard-I-of-K.jsonl of survey --misere), or directories holding them.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON object per game instead of the Markdown table.
    #[arg(long)]
    json: bool,
    /// Also write the merged survey.jsonl and survey.md (misere.jsonl, misere.md) to DIR.
    #[arg(short = 'o', long, value_name = "DIR")]
    out: Option<PathBuf>,
}

fn file_name(shard: Shard) -> String {
    if shard.is_whole() {
        "survey.jsonl".to_string()
    } else {
        format!("survey-shard-{}-of-{}.jsonl", shard.index, shard.count)
    }
}

pub(super) fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Writes a checkpoint file afresh with `write` (atomically, dropping a line cut short by an
/// earlier run) and opens it to append the rows that follow, one writer at a time.
pub(super) fn checkpoint(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> anyhow::Result<Mutex<File>> {
    write_atomic(path, write)?;
    let f = OpenOptions::new()
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    Ok(Mutex::new(f))
}

/// Writes `path` atomically: a temporary file in the same directory, fsync, rename, fsync the
/// directory. Readers see the old file or the new one, never a mix.
pub(super) fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or("survey".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        write(&mut f)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The records a stopped run left in `partial`, if its header is `header`.
fn resume(partial: &Path, header: &Header) -> anyhow::Result<Vec<GameRecord>> {
    let text = match fs::read_to_string(partial) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", partial.display())),
    };
    let name = partial.display().to_string();
    let file = parse_shard(&name, &text, true)?;
    if &file.header != header {
        bail!(
            "{name} holds a stopped run of a different survey (pattern, N, shard or codes differ); \
             remove it or choose another --out"
        );
    }
    Ok(file.records)
}

impl SurveyArgs {
    /// `--max-heap`, `--max-order` and `--budget` (for `survey --misere`).
    pub fn misere_limits(&self) -> (u64, u64, f64) {
        let d = nimseq::survey::misere::MisereOptions::default();
        (
            self.max_heap.unwrap_or(d.max_heap as u64),
            self.max_order.unwrap_or(d.max_order as u64),
            self.budget.unwrap_or(d.budget.as_secs_f64()),
        )
    }

    /// `--quiet`.
    pub fn quiet(&self) -> bool {
        self.run.bar.quiet
    }

    /// `--quiet` and `--log-every`.
    pub fn bar(&self) -> &super::BarArgs {
        &self.run.bar
    }

    /// `--heap-lines` (hidden).
    pub fn heap_lines(&self) -> bool {
        self.heap_lines
    }

    /// `--json`.
    pub fn json(&self) -> bool {
        self.json
    }

    /// PATTERN as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// `--out`.
    pub fn out(&self) -> Option<&Path> {
        self.out.as_deref()
    }

    /// `--shard`, else the Slurm job array's task, else the whole survey.
    pub fn shard(&self) -> anyhow::Result<Shard> {
        Ok(match self.shard {
            Some(s) => s,
            None => Shard::from_slurm(|k| std::env::var(k).ok())
                .map_err(usage)?
                .unwrap_or(Shard::WHOLE),
        })
    }

    /// `--threads` (or the Slurm allocation).
    pub fn thread_count(&self) -> Option<usize> {
        self.run.thread_count()
    }
}

/// Runs `survey`.
pub fn survey(args: SurveyArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.out {
        super::check_out_dir(dir, "--out")?;
    }
    if args.pattern.trim().is_empty() {
        return Err(usage(
            "empty PATTERN; give a code with '?' wildcards (0.??) or a file of codes",
        ));
    }
    let games = pattern::games(&args.pattern).map_err(|e| match e {
        pattern::PatternError::Io { ref source, .. }
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            usage(format!(
                "{e} (PATTERN is a code with '?' wildcards, such as 0.?? or 4.?7, or a file \
                 with one code per line)"
            ))
        }
        e => usage(e),
    })?;
    if args.misere {
        return super::survey_misere::survey_misere(&args, &games);
    }
    // (clap's `requires` counts a flag's default `false` as present.)
    if args.max_heap.is_some() || args.max_order.is_some() || args.budget.is_some() {
        return Err(usage(
            "--max-heap, --max-order and --budget are limits of survey --misere",
        ));
    }
    let count = checked_count(args.count.expect("required without --misere"))?;
    let shard = args.shard()?;
    if !shard.is_whole() && args.out.is_none() {
        return Err(usage(format!(
            "shard {shard} needs --out DIR for its file (merge the shards with 'nimseq survey-merge')"
        )));
    }
    if let Some(t) = args.run.thread_count() {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .context("cannot start the worker threads")?;
    }
    let opts = SurveyOptions {
        count,
        engine: args.engine,
        max_shift: args.max_shift,
    };
    let header = Header::new(&args.pattern, &games, &opts, shard);
    let start = Instant::now();

    let target = args.out.as_ref().map(|d| d.join(file_name(shard)));
    if let Some(dir) = &args.out {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // A finished file from an earlier run (a requeued job): nothing to do.
    let finished = match &target {
        Some(t) if t.exists() => match read_shard(t) {
            Ok(f) if f.header == header => Some(f),
            Ok(_) => bail!(
                "{} already holds a different survey; remove it or choose another --out",
                t.display()
            ),
            Err(e) => bail!("{e}; remove it to start again"),
        },
        _ => None,
    };
    let (file, resumed) = match finished {
        Some(f) => {
            eprintln!(
                "nimseq: {} is already complete",
                target.as_ref().expect("set").display()
            );
            let all = f.records.len();
            (f, all)
        }
        None => run_shard(&games, &header, &opts, target.as_deref(), &args.run.bar)?,
    };
    let seconds = start.elapsed().as_secs_f64();
    // The time is this run's: say so when part of the games came from an earlier one.
    let timing = if resumed == 0 {
        format!("in {seconds:.1} s")
    } else {
        format!(
            "({} computed in {seconds:.1} s, {resumed} by an earlier run)",
            file.records.len() - resumed
        )
    };
    let quiet = args.run.bar.quiet;
    if !shard.is_whole() {
        if !quiet {
            eprintln!(
                "nimseq: shard {shard}: {} games to N = {count} {timing} -> {}",
                file.records.len(),
                target.as_ref().expect("checked").display()
            );
        }
        return Ok(());
    }
    if !quiet {
        eprintln!(
            "nimseq: surveyed {} game{} to N = {count} {timing}",
            file.records.len(),
            if file.records.len() == 1 { "" } else { "s" }
        );
    }
    finish(Survey::new(file), args.json, args.out.as_deref())
}

/// Computes the games of `header`'s shard, resuming from and appending to the checkpoint next to
/// `target`, and writes `target` when complete. Returns the shard and how many of its games the
/// checkpoint already held.
fn run_shard(
    games: &[pattern::Game],
    header: &Header,
    opts: &SurveyOptions,
    target: Option<&Path>,
    bar_args: &super::BarArgs,
) -> anyhow::Result<(ShardFile, usize)> {
    let partial = target.map(partial_path);
    let done = match &partial {
        Some(p) => resume(p, header)?,
        None => Vec::new(),
    };
    // Rewrite the checkpoint cleanly (dropping a line cut short), then append to it.
    let writer = match &partial {
        Some(p) => {
            let clean = ShardFile {
                header: header.clone(),
                records: done.clone(),
            };
            Some(checkpoint(p, |f| {
                out::write_shard(BufWriter::new(f), &clean)
            })?)
        }
        None => None,
    };
    let resumed = done.len();
    let todo = header.indices.len() - resumed;
    // Games, not heaps: every game runs to the same N. A bar on a terminal, lines every
    // --log-every seconds in a log, nothing with --quiet.
    let bar = super::progress::Games::new(todo as u64, bar_args);
    if !done.is_empty() {
        bar.println(&format!(
            "nimseq: resuming: {} of {} games already done",
            done.len(),
            header.indices.len()
        ));
    }
    let write_error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let records = survey::run(games, &header.indices, opts, done, &|r| {
        if let Some(w) = &writer {
            let mut f = w.lock().expect("no panics while writing");
            if let Err(e) = out::write_record(&mut *f, r) {
                write_error.lock().expect("no panics").get_or_insert(e);
            }
        }
        bar.done(&r.code);
    })?;
    bar.finish();
    if let Some(e) = write_error.into_inner().expect("no panics") {
        return Err(e).context("cannot write the checkpoint");
    }
    let file = ShardFile {
        header: header.clone(),
        records,
    };
    if let (Some(t), Some(p)) = (target, &partial) {
        write_atomic(t, |f| out::write_shard(BufWriter::new(f), &file))?;
        fs::remove_file(p).with_context(|| format!("cannot remove {}", p.display()))?;
    }
    Ok((file, resumed))
}

/// Prints a whole survey and, with `out`, writes survey.jsonl and survey.md there.
fn finish(survey: Survey, json: bool, dir: Option<&Path>) -> anyhow::Result<()> {
    if let Some(dir) = dir {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let file = ShardFile {
            header: survey.header.clone(),
            records: survey.records.clone(),
        };
        let jsonl = dir.join(file_name(Shard::WHOLE));
        if !jsonl.exists() || read_shard(&jsonl).ok().as_ref() != Some(&file) {
            write_atomic(&jsonl, |f| out::write_shard(BufWriter::new(f), &file))?;
        }
        write_atomic(&dir.join("survey.md"), |f| {
            out::write_markdown(BufWriter::new(f), &survey)
        })?;
    }
    let stdout = std::io::stdout().lock();
    if json {
        out::write_json_lines(stdout, &survey)?;
    } else {
        out::write_markdown(stdout, &survey)?;
    }
    Ok(())
}

/// The shard files named by `paths`: files as given, directories searched for shard files.
fn shard_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = fs::read_dir(p)
                .with_context(|| format!("cannot read {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        (n.starts_with("survey-shard-") || n.starts_with("misere-shard-"))
                            && n.ends_with(".jsonl")
                    })
                })
                .collect();
            if found.is_empty() {
                return Err(usage(format!(
                    "{} holds no shard files (survey-shard-I-of-K.jsonl, misere-shard-I-of-K.jsonl)",
                    p.display()
                )));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// Wrong, damaged or missing shard files are the user's input (exit code 2); a file that exists
/// but cannot be read is a failure.
pub(super) fn merge_error(e: MergeError) -> anyhow::Error {
    match e {
        MergeError::Io { ref source, .. } if source.kind() != std::io::ErrorKind::NotFound => {
            anyhow::Error::from(e)
        }
        _ => usage(e),
    }
}

/// Runs `survey-merge`.
pub fn survey_merge(args: SurveyMergeArgs) -> anyhow::Result<()> {
    let mut files = Vec::new();
    let input = merge_error;
    if let Some(dir) = &args.out {
        super::check_out_dir(dir, "--out")?;
    }
    let paths = shard_files(&args.files)?;
    // Misère surveys' files (by their first file's header) merge by their own rules.
    let misere = paths.first().is_some_and(|p| {
        fs::read_to_string(p).is_ok_and(|t| nimseq::survey::misere::file::is_misere_file(&t))
    });
    if misere {
        return super::survey_misere::merge_misere(&paths, args.json, args.out.as_deref());
    }
    for path in paths {
        let file = read_shard(&path).map_err(input)?;
        files.push((path.display().to_string(), file));
    }
    let merged = survey::merge(files).map_err(input)?;
    finish(Survey::new(merged), args.json, args.out.as_deref())
}
