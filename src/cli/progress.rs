//! The progress bar on stderr, and the signals that stop a long run cleanly.
//!
//! The bar is drawn only when stderr is a terminal and `--quiet` is not given; when stderr is a
//! file (a batch job's log), a line of progress is written every `--log-every` seconds instead
//! (heaps done, the rate since the previous line). The bar is updated
//! between engine chunks (at most 20 times a second by indicatif), and the rare count, which
//! needs a Walsh–Hadamard transform of the histogram, is refreshed at most once a second, so
//! the engine does not notice it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use nimseq::analysis::Histogram;
use nimseq::api::Step;
use nimseq::engine::Values;

use super::BarArgs;

/// A progress bar for `total` heaps on a terminal, lines of progress in a log, or nothing.
pub struct Bar {
    bar: Option<ProgressBar>,
    log: Option<Log>,
    rare_at: Option<Instant>,
    rare: u64,
}

/// Progress written as lines, for a stderr that is a file (a batch job's log).
struct Log {
    /// After the count: "" for heaps, " games" in a survey.
    unit: &'static str,
    every: Duration,
    started: Instant,
    total: u64,
    /// The time and the heaps done at the previous line (or at the first update).
    last: Option<(Instant, u64)>,
}

impl Bar {
    /// A bar when stderr is a terminal, lines every `--log-every` seconds when it is not;
    /// nothing with `--quiet`.
    pub fn new(total: u64, args: &BarArgs) -> Bar {
        let terminal = std::io::stderr().is_terminal();
        let log = (!args.quiet && !terminal && args.log_every > 0).then(|| Log {
            unit: "",
            every: Duration::from_secs(args.log_every),
            started: Instant::now(),
            total,
            last: None,
        });
        let bar = (!args.quiet && terminal).then(|| {
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} heaps, {rate}, ETA {eta}, {msg}",
            )
            .expect("valid template")
            .with_key("rate", |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{} heaps/s", indicatif::HumanCount(s.per_sec() as u64));
            })
            .progress_chars("=> ");
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(style);
            bar
        });
        Bar {
            bar,
            log,
            rare_at: None,
            rare: 0,
        }
    }

    /// Is progress shown at all (a bar or lines)?
    pub fn is_shown(&self) -> bool {
        self.bar.is_some() || self.log.is_some()
    }

    /// Shows `done` heaps with this histogram.
    pub fn update(&mut self, done: u64, histogram: &Histogram) {
        if let Some(log) = &mut self.log {
            log.update(done, || {
                format!(
                    ", largest {}, rare {}",
                    histogram.max_value(),
                    histogram.rare_mask().1
                )
            });
        }
        let Some(bar) = &self.bar else { return };
        if self
            .rare_at
            .is_none_or(|t| t.elapsed() >= Duration::from_secs(1))
        {
            self.rare = histogram.rare_mask().1;
            self.rare_at = Some(Instant::now());
            bar.set_message(format!(
                "largest {}, rare {}",
                histogram.max_value(),
                self.rare
            ));
        }
        bar.set_position(done);
    }

    /// Shows `done` steps (a bar without a histogram: `genus`).
    pub fn set_position(&mut self, done: u64) {
        if let Some(log) = &mut self.log {
            log.update(done, String::new);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// Prints a line on stderr above the bar (or alone, without one).
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// Sets the text after the counts.
    pub fn set_message(&self, text: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(text.to_string());
        }
    }

    /// Moves the end of the bar.
    pub fn set_total(&mut self, total: u64) {
        if let Some(log) = &mut self.log {
            log.total = total;
        }
        if let Some(bar) = &self.bar {
            bar.set_length(total);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Log {
    /// Writes a line when `every` has passed since the previous one, ending with `extra()`.
    fn update(&mut self, done: u64, extra: impl FnOnce() -> String) {
        let now = Instant::now();
        let Some((at, was)) = self.last else {
            self.last = Some((now, done));
            return;
        };
        let since = now.duration_since(at);
        if since < self.every {
            return;
        }
        self.last = Some((now, done));
        let rate = done.saturating_sub(was) as f64 / since.as_secs_f64();
        let rate = if rate >= 1e5 {
            format!("{:.3} M/s", rate / 1e6)
        } else {
            format!("{rate:.1}/s")
        };
        eprintln!(
            "nimseq: {} {done} of {}{} ({:.1} %), {rate}{}",
            clock(now.duration_since(self.started)),
            self.total,
            self.unit,
            100.0 * done as f64 / self.total.max(1) as f64,
            extra()
        );
    }
}

/// The progress of a survey, in games: a bar on a terminal, or a line every `--log-every`
/// seconds in a log (games done, the rate, the last game), or nothing with `--quiet`. Shared by
/// the threads that run the games.
pub struct Games {
    bar: ProgressBar,
    log: Option<std::sync::Mutex<(Log, u64)>>,
}

impl Games {
    /// Progress of `total` games.
    pub fn new(total: u64, args: &BarArgs) -> Games {
        let draw = if args.quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(total), draw);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} (eta {eta}) {msg}")
                .expect("valid template"),
        );
        let terminal = std::io::stderr().is_terminal();
        let log = (!args.quiet && !terminal && args.log_every > 0).then(|| {
            let now = Instant::now();
            let log = Log {
                unit: " games",
                every: Duration::from_secs(args.log_every),
                started: now,
                total,
                // The first line comes `every` after the start.
                last: Some((now, 0)),
            };
            std::sync::Mutex::new((log, 0))
        });
        Games { bar, log }
    }

    /// One more game done: `code`.
    pub fn done(&self, code: &str) {
        self.bar.set_message(code.to_string());
        self.bar.inc(1);
        if let Some(log) = &self.log {
            let mut guard = log.lock().unwrap_or_else(|e| e.into_inner());
            let (log, done) = &mut *guard;
            *done += 1;
            log.update(*done, || format!(", last {code}"));
        }
    }

    /// Prints a line on stderr above the bar.
    pub fn println(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// `h:mm:ss`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The bar of a library computation ([`nimseq::api`]), drawn from its steps toward a target
/// that may move (`period` extends its run while a candidate's proof is within reach), in
/// memory or in a table.
pub struct InMemory {
    bar: Bar,
    histogram: Histogram,
    total: u64,
}

impl InMemory {
    /// A run toward `total` heaps.
    pub fn new(total: u64, bar: &BarArgs) -> InMemory {
        InMemory {
            bar: Bar::new(total, bar),
            histogram: Histogram::default(),
            total,
        }
    }

    /// Draws a step of a library computation ([`nimseq::api`]), moving the end of the bar to
    /// its target.
    pub fn show(&mut self, step: Step<'_>) {
        if !self.bar.is_shown() {
            return;
        }
        if step.target() != self.total {
            self.total = step.target();
            self.bar.set_total(self.total);
        }
        match step {
            Step::Values { values, .. } => self.values_seen(values),
            Step::Table(p) => self.bar.update(p.done, p.histogram),
        }
    }

    /// Draws the values computed so far.
    fn values_seen(&mut self, v: &Values) {
        if self.bar.is_shown() {
            let histogram = &mut self.histogram;
            if (histogram.len as usize) > v.len() {
                // The driver went back after widening: count afresh.
                *histogram = Histogram::default();
            }
            for n in histogram.len as usize..v.len() {
                histogram.add(v.get(n));
            }
            self.bar.update(v.len() as u64, histogram);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish();
    }
}

/// A spinner with the elapsed time and what is under way, for a computation with no count to
/// show (`play --misere`). Drawn only when stderr is a terminal and `--quiet` is not given; it
/// ticks on its own thread, so it appears within a tenth of a second and moves while the
/// library works.
pub struct Spinner(Option<ProgressBar>);

impl Spinner {
    /// A spinner on a terminal, else nothing.
    pub fn new(args: &BarArgs) -> Spinner {
        let shown = !args.quiet && std::io::stderr().is_terminal();
        Spinner(shown.then(|| {
            let s = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            s.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                    .expect("valid template"),
            );
            s.enable_steady_tick(Duration::from_millis(100));
            s
        }))
    }

    /// Sets the text after the time.
    pub fn set_message(&self, text: &str) {
        if let Some(s) = &self.0 {
            s.set_message(text.to_string());
        }
    }

    /// Removes the spinner.
    pub fn finish(&self) {
        if let Some(s) = &self.0 {
            s.finish_and_clear();
        }
    }
}

/// The signal that asked the process to stop, if any (SIGINT or SIGTERM).
#[derive(Clone)]
pub struct Signals(Arc<AtomicUsize>);

impl Signals {
    /// Catches SIGINT and SIGTERM from now on: they only set a flag.
    pub fn catch() -> anyhow::Result<Signals> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let flag = Arc::new(AtomicUsize::new(0));
        for sig in [SIGINT, SIGTERM] {
            signal_hook::flag::register_usize(sig, Arc::clone(&flag), sig as usize)?;
        }
        Ok(Signals(flag))
    }

    /// The signal received, if any.
    pub fn received(&self) -> Option<i32> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s as i32),
        }
    }
}

/// A run stopped by a signal: exit code 128 + the signal's number.
#[derive(Debug)]
pub struct Interrupted {
    /// The signal.
    pub signal: i32,
    /// What to tell the user.
    pub message: String,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Interrupted {}

impl Interrupted {
    /// The exit code.
    pub fn code(&self) -> u8 {
        (128 + self.signal) as u8
    }
}

/// Runs `f` while a watcher writes `nimseq: <what>… N s` to stderr once `f` has taken a
/// second, then every 5 seconds (for computations with no measure of progress, so that a long
/// one is never silent). Nothing is written if `f` is quick.
pub fn elapsed_notes<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let what = what.to_string();
    let watcher = std::thread::spawn(move || {
        let started = Instant::now();
        let mut pause = Duration::from_secs(1);
        while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(pause) {
            eprintln!("nimseq: {what}… {} s", started.elapsed().as_secs());
            pause = Duration::from_secs(5);
        }
    });
    let out = f();
    drop(done);
    let _ = watcher.join();
    out
}
