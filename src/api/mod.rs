//! The only layer that computes whole results: what the binary's commands and the Python
//! package both call, so that they give the same answers. One file per operation:
//! [`values`](values()) (completed from a proved period, or read from a table), the
//! [`summary`](summary()) of `compute`, table runs ([`compute_table`]), the [`period`](period())
//! search (in memory or in a table, going on toward a candidate's proof), the data of a
//! [`report`](report()) folder, [`play`](play()), and misère [`quotient`](quotient())s; `run.rs` holds what they share (one run of
//! the engine with a period checker, the choice of the period to report, the checks of counts
//! and thread counts).
//!
//! Each function checks its input and fails with a typed [`ApiError`] that names what was
//! wrong without the command line's words (`--max`) or Python's (`max=`): each face adds its
//! own. [`ApiError::is_input`] tells a mistake in the input (the command's exit code 2) from a
//! failure while running. Long computations call a progress callback between chunks of heaps
//! with a [`Step`] (enough to draw a progress bar); when it breaks they stop cleanly with
//! [`ApiError::Stopped`] (a table keeps everything committed). Nothing here prints. The JSON
//! shape of every result is documented in `docs/JSON.md`.

mod cost;
mod error;
mod period;
mod play;
mod quotient;
mod report;
mod run;
mod summary;
mod table_run;
mod values;

use std::ops::ControlFlow;

use crate::engine::Values;
use crate::table;

pub use cost::{cost_warning, CostEstimate, OPTIONS_PER_SECOND, WARN_SECONDS};
pub use error::{held, table_error_is_input, ApiError, CandidateLimit, CountOf, ThreadsError};
pub use period::{default_period_max, period, PeriodOptions};
pub use play::{play, play_from_table, MAX_LISTED, MAX_OPTIONS};
pub use quotient::{
    default_quotient_memory, quotient, quotient_until, QuotientOptions, QUOTIENT_DEFAULT_MAX_HEAP,
    QUOTIENT_MAX_CANDIDATE, QUOTIENT_MAX_HEAP, QUOTIENT_MAX_RECALIBRATIONS, QUOTIENT_STATE_LIMIT,
};
pub use report::{report, report_from_table, ReportData};
pub use run::{
    check_threads, checked_count, estimated_options, executor, is_costly, reported_period,
    summary_period, CheckedRun, MAX_THREADS, STEP_OPTIONS,
};
pub use summary::{summary, summary_of_prefix, summary_of_run};
pub use table_run::{check_disk, compute_table, table_failed};
pub use values::{checked_table, table_of, values, TableValues};

/// How far a computation has come, as the progress callback sees it between chunks of heaps.
#[derive(Clone, Copy)]
pub enum Step<'a> {
    /// Values computed in memory: those so far, toward `target` heaps.
    Values {
        /// The values computed so far (the driver may go back after widening them).
        values: &'a Values,
        /// Heaps asked for in this run.
        target: u64,
    },
    /// A table being written: heaps done and committed, with the histogram of the values.
    Table(&'a table::Progress<'a>),
}

impl Step<'_> {
    /// Heaps computed so far.
    pub fn done(&self) -> u64 {
        match self {
            Step::Values { values, .. } => values.len() as u64,
            Step::Table(p) => p.done,
        }
    }

    /// Heaps asked for.
    pub fn target(&self) -> u64 {
        match self {
            Step::Values { target, .. } => *target,
            Step::Table(p) => p.target,
        }
    }
}

/// The progress callback of the functions here, called between chunks of heaps; breaking stops
/// the run with [`ApiError::Stopped`].
pub type Progress<'a> = &'a mut dyn FnMut(Step<'_>) -> ControlFlow<()>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineKind, Executor};
    use crate::rules::Rule;

    fn go(_: Step<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// The layers: `api` is called by the faces (the binary's `cli`, the Python package) and
    /// calls the library; no library module reaches up into it (the misère survey took its
    /// heap limit from here; the quotient's limits now live in `misere::quotient::limits`).
    #[test]
    fn no_library_module_reaches_up_into_api() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        assert!(files.len() > 20, "found the sources in {}", src.display());
        for f in files {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel.starts_with("api/") || rel.starts_with("cli/") || rel == "main.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(
                !text.contains("crate::api"),
                "src/{rel} uses crate::api: the library must not depend on the layer above it"
            );
        }
        // One heap limit for every face.
        assert_eq!(
            crate::survey::misere::MAX_HEAP_LIMIT,
            crate::misere::quotient::limits::MAX_HEAP
        );
        assert_eq!(QUOTIENT_MAX_HEAP, crate::misere::quotient::limits::MAX_HEAP);
    }

    #[test]
    fn values_are_completed_from_a_proved_period() {
        let rule = Rule::parse("0.07").unwrap();
        let (v, p) = values(&rule, 5000, EngineKind::Auto, &Executor::serial(), &mut go).unwrap();
        assert!(p.is_some_and(|p| p.proved));
        let exact = crate::engine::compute(&rule, 5000, EngineKind::Exact).unwrap();
        assert_eq!(v, exact);
    }

    #[test]
    fn counts_and_stops() {
        let rule = Rule::parse("0.6").unwrap();
        let e = values(&rule, 0, EngineKind::Auto, &Executor::serial(), &mut go).unwrap_err();
        assert!(matches!(e, ApiError::ZeroCount(CountOf::Heaps)) && e.is_input());
        // The library's words name the count, not a flag.
        assert_eq!(e.to_string(), "the count of heaps must be at least 1");
        let e = summary(
            &rule,
            1 << 20,
            EngineKind::Auto,
            &Executor::serial(),
            &mut |_| ControlFlow::Break(()),
        )
        .unwrap_err();
        assert!(matches!(e, ApiError::Stopped { .. }) && !e.is_input());
    }

    #[test]
    fn costly_runs_report_progress_every_step() {
        // 0.3F leaves three heaps: O(n^2) options a heap. Its run must call the progress
        // callback long before the first chunk of 65,536 heaps (issue 29, defect 5), and the
        // estimate must grow as N^3.
        let rule = Rule::parse("0.3F").unwrap();
        assert!(is_costly(&rule) && !is_costly(&Rule::parse("0.6").unwrap()));
        let small = estimated_options(&rule, 1000);
        let big = estimated_options(&rule, 2000);
        assert!((7.0..9.0).contains(&(big / small)), "{small} {big}");
        // A heap of n tokens has about n^2/12 three-heap splits: N^3/36 in all.
        assert!(
            (0.8..1.2).contains(&(big / (2000f64.powi(3) / 36.0))),
            "{big}"
        );
        let mut calls = 0;
        let mut run = CheckedRun::new(&rule, EngineKind::Exact, &Executor::serial());
        run.extend_to(3000, &mut |_| {
            calls += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert!(calls > 3, "{calls}");
        let exact = crate::engine::compute(&rule, 3000, EngineKind::Exact).unwrap();
        assert_eq!(run.values, exact);
        // A stop between steps is a stop.
        let mut run = CheckedRun::new(&rule, EngineKind::Exact, &Executor::serial());
        let e = run
            .extend_to(3000, &mut |_| ControlFlow::Break(()))
            .unwrap_err();
        assert!(matches!(e, ApiError::Stopped { at } if at < 3000));
    }

    #[test]
    fn thread_counts() {
        assert_eq!(check_threads(None), Ok(None));
        assert_eq!(check_threads(Some(3)), Ok(Some(3)));
        assert_eq!(check_threads(Some(0)), Err(ThreadsError::Zero));
        assert_eq!(
            check_threads(Some(MAX_THREADS + 1)),
            Err(ThreadsError::TooMany(MAX_THREADS + 1))
        );
        assert!(executor(Some(0)).unwrap_err().is_input());
    }

    #[test]
    fn period_zero_max_is_refused_and_kayles_is_proved() {
        let rule = Rule::parse("kayles").unwrap();
        let mut opts = PeriodOptions::new(Executor::serial());
        opts.max = Some(0);
        let e = period(&rule, &opts, &mut go).unwrap_err();
        assert!(matches!(e, ApiError::ZeroCount(CountOf::Max)));
        opts.max = None;
        let r = period(&rule, &opts, &mut go).unwrap();
        // Kayles: period 12 from heap 71 (Guy & Smith 1956; Winning Ways ch. 4).
        let p = r.period.unwrap();
        assert!(p.proved);
        assert_eq!((p.preperiod, p.period), (71, 12));
        assert_eq!(p.periods_seen, (r.count - 71) / 12);
    }
}
