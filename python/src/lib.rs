//! `nimseq._nimseq`: the Python extension of nimseq. It only converts: Python arguments into
//! the library's types, one `nimseq::api` call per function (the one the command calls), the
//! results into NumPy arrays and dicts (through the same serializers the command line's `--json`
//! uses: docs/JSON.md), and the library's typed errors into Python exceptions worded in Python's
//! terms (`n`, `max=`, `table=PATH`). Long computations run with the GIL released, look for
//! Ctrl-C between chunks of heaps, and show a line of progress on stderr when it is a terminal.

use std::ffi::CString;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use numpy::ndarray::ArrayView1;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyKeyboardInterrupt, PyMemoryError, PyOSError,
    PyOverflowError, PyPermissionError, PyRuntimeError, PyTypeError, PyUserWarning, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyString};

use nimseq::api::{self, ApiError, CountOf};
use nimseq::engine::{EngineError, EngineKind, Executor, Values};
use nimseq::numbers::parse_count;
use nimseq::report;
use nimseq::resources::MemoryError;
use nimseq::rules::{Rule, NAMED_GAMES};
use nimseq::survey::misere::{MisereError, MisereOptions};
use nimseq::table::{TableError, TableReader, ValueSlice, CRC_CHUNK};

// ---------------------------------------------------------------------------------------------
// Errors

/// The Python exception for a table error, with `msg` (the command line's message).
fn table_exception(e: &TableError, msg: String) -> PyErr {
    match e {
        TableError::OtherGame { .. } => PyValueError::new_err(msg),
        TableError::ValueTooLarge { .. } => PyOverflowError::new_err(msg),
        TableError::Stopped { .. } => PyKeyboardInterrupt::new_err(msg),
        TableError::Io { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(msg),
            std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(msg),
            _ if source.raw_os_error() == Some(libc::EISDIR) => PyIsADirectoryError::new_err(msg),
            _ => PyOSError::new_err(msg),
        },
        // Not a table, another format version, damaged, locked by a writer, half-widened.
        _ => PyOSError::new_err(msg),
    }
}

/// How Python calls a count in messages: the keyword argument.
fn count_name(of: CountOf) -> String {
    match of {
        CountOf::Heaps => "n".to_string(),
        CountOf::Max => "max".to_string(),
        CountOf::Heap(h) => format!("heap {h} (the values of heaps 0 .. {h})"),
    }
}

/// A library error in Python's words (the keyword arguments, not the command line's flags).
fn api_message(e: &ApiError) -> String {
    match e {
        ApiError::ZeroCount(of) => format!("{} must be at least 1", count_name(*of)),
        ApiError::TooLarge {
            of: CountOf::Heap(h),
            ..
        } => format!("heap {h} is too large for this machine"),
        ApiError::TooLarge { of, count } => {
            format!(
                "{} = {count} is too large for this machine",
                count_name(*of)
            )
        }
        ApiError::Memory { of, count, source } => {
            let (what, hint) = match of {
                CountOf::Heaps => (
                    format!("n = {count}"),
                    "; give a smaller n, or keep the values on disk with \
                     nimseq.compute(game, n, table=PATH)",
                ),
                CountOf::Max => (
                    format!("max = {count}"),
                    "; give a smaller max, or keep the values on disk with table=PATH",
                ),
                of => (
                    count_name(*of),
                    "; read them from a table with table=PATH (written by \
                     nimseq.compute(game, n, table=PATH))",
                ),
            };
            MemoryError {
                what,
                hint: hint.to_string(),
                ..source.clone()
            }
            .to_string()
        }
        ApiError::Disk { .. } => format!("{e}; give a smaller n or a path on a larger disk"),
        ApiError::NoHeaps => "heaps must hold at least one heap".to_string(),
        ApiError::CandidateLimit {
            what,
            value,
            low,
            high,
        } => {
            let name = match what {
                api::CandidateLimit::Size => "candidate_size",
                api::CandidateLimit::Order => "candidate_order",
                api::CandidateLimit::Recalibrations => "recalibrations",
            };
            format!("{name} must be from {low} to {high}, not {value}")
        }
        ApiError::TooManyMoves { .. } => {
            format!("{e}; list the first k with max_moves=k (all are counted)")
        }
        ApiError::TableTooShort {
            path, game, wanted, ..
        } => format!(
            "{e}; extend it with nimseq.compute('{game}', {wanted}, table='{}')",
            path.display()
        ),
        e => e.to_string(),
    }
}

/// The Python exception for a library error. A run stopped by the progress callback raises the
/// exception the signal handlers raised (`KeyboardInterrupt` for Ctrl-C), held in `interrupted`.
fn api_exception(e: ApiError, interrupted: Option<PyErr>) -> PyErr {
    let msg = api_message(&e);
    match e {
        ApiError::Stopped { .. } => {
            interrupted.unwrap_or_else(|| PyKeyboardInterrupt::new_err(msg))
        }
        ApiError::Engine(EngineError::OutOfMemory { .. }) => PyMemoryError::new_err(msg),
        ApiError::Engine(EngineError::ValueTooLarge { .. }) => PyOverflowError::new_err(msg),
        ApiError::Engine(_) | ApiError::Executor(_) => PyRuntimeError::new_err(msg),
        ApiError::Table(t) | ApiError::TableFailed { source: t, .. } => table_exception(&t, msg),
        // Every other mistake in the input (a bad code, count, thread count, position).
        ApiError::Position(_) => PyValueError::new_err(msg),
        e if e.is_input() => PyValueError::new_err(msg),
        _ => PyRuntimeError::new_err(msg),
    }
}

/// Progress of a long run on stderr, only when it is a terminal: one line redrawn at most
/// twice a second, after the first second (a short call shows nothing), cleared at the end.
struct Line {
    shown: bool,
    started: std::time::Instant,
    last: Option<std::time::Instant>,
}

impl Line {
    fn new() -> Option<Line> {
        // SAFETY: isatty(2) only reads the descriptor's state.
        let terminal = unsafe { libc::isatty(2) } == 1;
        terminal.then(|| Line {
            shown: false,
            started: std::time::Instant::now(),
            last: None,
        })
    }

    fn show(&mut self, step: &api::Step<'_>) {
        let now = std::time::Instant::now();
        if now.duration_since(self.started).as_millis() < 1000
            || self
                .last
                .is_some_and(|t| now.duration_since(t).as_millis() < 500)
        {
            return;
        }
        self.last = Some(now);
        let (done, target) = (step.done(), step.target().max(1));
        let secs = now.duration_since(self.started).as_secs_f64();
        let rate = done as f64 / secs.max(1e-9);
        let eta = (target.saturating_sub(done)) as f64 / rate.max(1e-9);
        eprint!(
            "\r\x1b[2Knimseq: {done} / {target} heaps ({:.1} %), {:.0} heaps/s, ETA {:.0} s",
            100.0 * done as f64 / target as f64,
            rate,
            eta
        );
        self.shown = true;
    }

    fn finish(&self) {
        if self.shown {
            eprint!("\r\x1b[2K");
        }
    }
}

/// Runs `f` without the GIL, handing it a progress callback that takes the GIL back between
/// chunks to run Python's signal handlers: Ctrl-C stops the run and raises `KeyboardInterrupt`.
fn run_interruptible<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(api::Progress<'_>) -> Result<T, ApiError> + Send,
) -> PyResult<T> {
    let mut interrupted: Option<PyErr> = None;
    let mut line = Line::new();
    let result = py.detach(|| {
        let mut progress = |step: api::Step<'_>| {
            if let Some(line) = &mut line {
                line.show(&step);
            }
            match Python::attach(|py| py.check_signals()) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    interrupted = Some(e);
                    ControlFlow::Break(())
                }
            }
        };
        f(&mut progress)
    });
    if let Some(line) = &line {
        line.finish();
    }
    result.map_err(|e| api_exception(e, interrupted))
}

/// Warns (`UserWarning`) before a run that the library estimates at half a minute or more
/// ([`api::cost_warning`]: O(N³) codes), in the words the binary prints on stderr.
fn warn_cost(py: Python<'_>, rule: &Rule, count: u64) -> PyResult<()> {
    if let Some(e) = api::cost_warning(rule, count) {
        let text = CString::new(format!("nimseq: {e}")).expect("no NUL in the estimate");
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 1)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// A game given as a code, a name or a `Rule`.
fn rule_of(game: &Bound<'_, PyAny>) -> PyResult<Rule> {
    if let Ok(r) = game.cast::<PyRule>() {
        return Ok(r.get().rule.clone());
    }
    let text: String = game.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "game must be a str (a code such as '0.77', or a name such as 'kayles') or a \
             nimseq.Rule, not {}",
            type_name(game)
        ))
    })?;
    Rule::parse(&text).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn type_name(x: &Bound<'_, PyAny>) -> String {
    x.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_string())
}

/// A count given as an int (or a whole float) or as text the command line accepts ('2^20').
/// A bad one raises ValueError naming the argument, then the command line's words
/// (`max_heap: '-1' is negative`).
fn count_of(n: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    let value_error =
        |e: nimseq::numbers::NumberError| PyValueError::new_err(format!("{name}: {e}"));
    if n.is_instance_of::<PyString>() {
        return parse_count(&n.extract::<String>()?).map_err(value_error);
    }
    if n.is_instance_of::<PyFloat>() {
        let x: f64 = n.extract()?;
        if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 1.8e19 {
            return Ok(x as u64);
        }
        return parse_count(&n.str()?.to_string()).map_err(value_error);
    }
    if let Ok(x) = n.extract::<u64>() {
        return Ok(x);
    }
    if n.hasattr("__index__")? {
        // A negative or huge integer: the command line's message for its digits.
        return parse_count(&n.call_method0("__index__")?.str()?.to_string()).map_err(value_error);
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be an int or a str such as '2^20', not {}",
        type_name(n)
    )))
}

fn seconds_of(checkpoint: f64) -> PyResult<Duration> {
    if !(checkpoint.is_finite() && (0.0..1e9).contains(&checkpoint)) {
        return Err(PyValueError::new_err(format!(
            "checkpoint: '{checkpoint}' is not a number of seconds"
        )));
    }
    Ok(Duration::from_secs_f64(checkpoint))
}

fn engine_of(engine: &str) -> PyResult<EngineKind> {
    engine.parse().map_err(PyValueError::new_err)
}

/// `threads=`: None (every core), or an int or text the command line's `--threads` accepts,
/// checked as it checks it; a bad one raises ValueError naming `threads` in its words.
fn threads_of(threads: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    let Some(t) = threads else { return Ok(None) };
    if !(t.is_instance_of::<PyString>() || t.hasattr("__index__")?) || t.is_instance_of::<PyFloat>()
    {
        return Err(PyTypeError::new_err(format!(
            "threads must be an int or None, not {}",
            type_name(t)
        )));
    }
    let text = match t.is_instance_of::<PyString>() {
        true => t.extract::<String>()?,
        false => t.call_method0("__index__")?.str()?.to_string(),
    };
    let n = text
        .trim()
        .parse::<usize>()
        .map_err(|_| PyValueError::new_err(format!("threads: '{text}' is not a thread count")))?;
    api::check_threads(Some(n)).map_err(|e| PyValueError::new_err(format!("threads: {e}")))
}

fn executor_of(threads: Option<&Bound<'_, PyAny>>) -> PyResult<Executor> {
    api::executor(threads_of(threads)?).map_err(|e| api_exception(e, None))
}

/// A serializable result as the Python object `json.loads` makes of the command's `--json`
/// output: the same keys, in the same order, with the same values.
fn json_object<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// A misère survey's error in Python's words: the keyword argument at fault.
fn misere_exception(e: MisereError) -> PyErr {
    use nimseq::survey::PatternError;
    match e {
        MisereError::Budget(_) => PyValueError::new_err(format!("budget {e}")),
        MisereError::MaxHeap(_) => PyValueError::new_err(format!("max_heap {e}")),
        MisereError::Pattern(PatternError::Io { ref source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            PyFileNotFoundError::new_err(format!(
                "{e} (pattern is a code with '?' wildcards, such as '0.??', or a file with \
                 one code per line)"
            ))
        }
        MisereError::Pattern(PatternError::Io { .. }) => PyOSError::new_err(e.to_string()),
        MisereError::Pattern(_) => PyValueError::new_err(e.to_string()),
        MisereError::Threads { .. } => PyRuntimeError::new_err(e.to_string()),
        MisereError::Stopped => PyKeyboardInterrupt::new_err(e.to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Functions

/// G(0) … G(n-1) of the game as a NumPy array of the narrowest unsigned type that holds them
/// (uint8, uint16 or uint32), computed by the Rust engine as `nimseq values` computes them.
///
/// game: a code ('0.77', '4!.0', '0.[3]', 'sub(1,2,3)'), a name ('kayles') or a Rule.
/// n: how many values, an int or text such as '2^20' or '1e6'.
/// engine: 'auto' (sparse where a move splits a heap, else exact), 'sparse' or 'exact'.
/// threads: worker threads (default: all cores); the values do not depend on it.
///
/// The GIL is released while the engine runs; Ctrl-C stops it (KeyboardInterrupt).
/// Raises ValueError for a bad game code, count or engine.
#[pyfunction]
#[pyo3(signature = (game, n, *, engine = "auto", threads = None))]
fn values<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
    engine: &str,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let count = count_of(n, "n")?;
    let kind = engine_of(engine)?;
    let exec = executor_of(threads)?;
    warn_cost(py, &rule, count)?;
    let (values, _) = run_interruptible(py, |progress| {
        api::values(&rule, count, kind, &exec, progress)
    })?;
    // The vector becomes the array's memory: no copy.
    Ok(match values {
        Values::W8(v) => PyArray1::from_vec(py, v).into_any(),
        Values::W16(v) => PyArray1::from_vec(py, v).into_any(),
        Values::W32(v) => PyArray1::from_vec(py, v).into_any(),
    })
}

/// The summary of heaps 0 … n-1 as a dict with exactly the keys and values of
/// `nimseq compute GAME -n N --json`: game, count, max_value, max_value_first_at, frequencies
/// (str value -> count), rare_mask, rare_count, last_rare_at, period (a dict or None).
/// The values are computed in memory; see compute() for a table on disk.
#[pyfunction]
#[pyo3(signature = (game, n, *, engine = "auto", threads = None))]
fn summary<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
    engine: &str,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let count = count_of(n, "n")?;
    let kind = engine_of(engine)?;
    let exec = executor_of(threads)?;
    warn_cost(py, &rule, count)?;
    let s = run_interruptible(py, |progress| {
        api::summary(&rule, count, kind, &exec, progress)
    })?;
    json_object(py, &s)
}

/// Creates the table file `table` or extends it to heaps 0 … n-1, as
/// `nimseq compute GAME -n N --table PATH` does, and returns that command's JSON summary as a
/// dict. The run commits at least every `checkpoint` seconds; after Ctrl-C (KeyboardInterrupt)
/// or a crash the same call resumes from the last commit. Open the result with Table(table).
///
/// Raises ValueError for a bad game code or count or a table of another game, OSError for a
/// table that cannot be opened or written (damaged, not a table, being written elsewhere).
#[pyfunction]
#[pyo3(signature = (game, n, *, table, engine = "auto", threads = None, checkpoint = 5.0))]
#[allow(clippy::too_many_arguments)]
fn compute<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
    table: PathBuf,
    engine: &str,
    threads: Option<&Bound<'py, PyAny>>,
    checkpoint: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let count = count_of(n, "n")?;
    let kind = engine_of(engine)?;
    let exec = executor_of(threads)?;
    let interval = seconds_of(checkpoint)?;
    warn_cost(py, &rule, count)?;
    let s = run_interruptible(py, |progress| {
        api::compute_table(&rule, count, &table, kind, &exec, interval, progress)
    })
    .map_err(|e| {
        if e.is_instance_of::<PyOSError>(py) && e.to_string().contains("being written by another") {
            // A Table of this process whose values were read holds a shared lock too.
            PyOSError::new_err(format!(
                "{}; or a nimseq.Table whose values were read holds it: delete that Table and \
                 its arrays first",
                e.value(py)
            ))
        } else {
            e
        }
    })?;
    json_object(py, &s)
}

/// Computes until the octal periodicity theorem proves a period, or a limit is reached, exactly
/// as `nimseq period GAME [--max N] [--table PATH] --json` does (the same search, on every core,
/// going on past 2^24 values to what a candidate period's proof needs), and returns its dict:
/// game, count, theorem_t, period (a dict as in summary(), or None).
///
/// max: compute at most this many values (default: the command's limits).
/// table: keep the values in this table file (created or resumed; a proved period is recorded
/// in it and read back by a later call); checkpoint: seconds between commits.
#[pyfunction]
#[pyo3(signature = (game, max = None, *, engine = "auto", threads = None, table = None, checkpoint = 5.0))]
#[allow(clippy::too_many_arguments)]
fn period<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    max: Option<&Bound<'py, PyAny>>,
    engine: &str,
    threads: Option<&Bound<'py, PyAny>>,
    table: Option<PathBuf>,
    checkpoint: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let max = max.map(|m| count_of(m, "max")).transpose()?;
    let opts = api::PeriodOptions {
        max,
        kind: engine_of(engine)?,
        exec: executor_of(threads)?,
        table: table.as_deref(),
        checkpoint: seconds_of(checkpoint)?,
        // Ctrl-C raises KeyboardInterrupt, as every other long call does.
        report_when_stopped: false,
    };
    let r = run_interruptible(py, |progress| api::period(&rule, &opts, progress))?;
    json_object(py, &r)
}

/// The sum of heaps of one game in normal play, as the dict of `nimseq play GAME HEAP... --json`:
/// game, play, heaps, values, nim_sum, outcome ('P': the player to move loses, 'N': wins),
/// winning_move_count and winning_moves (dicts heap_index, from, to; at most `max_moves`
/// listed, all counted). table: read the values from this table file instead of computing them
/// (it must hold every heap up to the largest, or record a proved period that gives them).
#[pyfunction]
#[pyo3(signature = (game, heaps, *, engine = "auto", threads = None, max_moves = None, table = None))]
#[allow(clippy::too_many_arguments)]
fn play<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    heaps: &Bound<'py, PyAny>,
    engine: &str,
    threads: Option<&Bound<'py, PyAny>>,
    max_moves: Option<&Bound<'py, PyAny>>,
    table: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let mut list = Vec::new();
    for (i, h) in heaps
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "heaps must be a list of heap sizes, not {}",
                type_name(heaps)
            ))
        })?
        .enumerate()
    {
        list.push(count_of(&h?, &format!("heaps[{i}]"))?);
    }
    let kind = engine_of(engine)?;
    let exec = executor_of(threads)?;
    let max_moves = max_moves
        .map(|k| count_of(k, "max_moves"))
        .transpose()?
        .map_or(usize::MAX, |k| usize::try_from(k).unwrap_or(usize::MAX));
    let a = match &table {
        Some(path) => py
            .detach(|| api::play_from_table(&rule, &list, path, max_moves))
            .map_err(|e| api_exception(e, None))?,
        None => {
            let top = list.iter().copied().max().unwrap_or(0);
            warn_cost(py, &rule, top.saturating_add(1))?;
            run_interruptible(py, |progress| {
                api::play(&rule, &list, kind, &exec, max_moves, progress)
            })?
        }
    };
    let json = json_object(py, &report::play_json(&rule, &a));
    json
}

/// The library's estimate of computing heaps 0 … n-1 of `game` when it is worth a warning (a
/// hexadecimal code or a tail that splits costs O(N³); estimated at 30 seconds or more on one
/// core): a dict game, count, options, seconds. None for a shorter or linear run. values(),
/// summary(), compute() and play() warn with it (UserWarning) before such a run, in the words
/// the command line prints on stderr; warnings.simplefilter('error') turns that into a refusal.
#[pyfunction]
fn cost_estimate<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let rule = rule_of(game)?;
    let count = count_of(n, "n")?;
    api::cost_warning(&rule, count)
        .map(|e| json_object(py, &e))
        .transpose()
}

/// The dict of `nimseq hackenbush COMPONENT... [--graph FILE] --json`: each component's
/// canonical form (in CGSuite's notation and nested), the sum's, its outcome and the winning
/// moves.
///
/// components: a component ('BRBRR', 'G(B,RR)') or a list of them. graph: the text of a graph
/// file ('g a G\na b R\nb g B', one edge 'u v COLOUR' a line, the vertex g or 0 the ground),
/// added to the sum after the components and named 'graph'. Raises ValueError with the command
/// line's message for a bad component or graph, or one too large for canonical forms.
#[pyfunction]
#[pyo3(signature = (components = None, graph = None))]
fn hackenbush<'py>(
    py: Python<'py>,
    components: Option<&Bound<'py, PyAny>>,
    graph: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let list: Vec<String> = match components {
        None => Vec::new(),
        Some(c) => component_list(c)?,
    };
    if list.is_empty() && graph.is_none() {
        return Err(PyValueError::new_err(
            "give components (a string or a list of strings) or graph (an edge list)",
        ));
    }
    let graphs = graph
        .map(|text| nimseq::hackenbush::parse_graph("graph", &text))
        .transpose()
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .into_iter()
        .collect();
    let a = py
        .detach(|| nimseq::hackenbush::analyze_with_graphs(&list, graphs))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_object(py, &report::analysis_json(&a))
}

/// The components of `hackenbush`: a string or a list of strings.
fn component_list(components: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    Ok(if let Ok(s) = components.cast::<PyString>() {
        vec![s.to_string()]
    } else {
        let mut list = Vec::new();
        for c in components.try_iter().map_err(|_| {
            PyTypeError::new_err(format!(
                "components must be a string or a list of strings, not {}",
                type_name(components)
            ))
        })? {
            let c = c?;
            list.push(c.extract::<String>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a component must be a string, not {}",
                    type_name(&c)
                ))
            })?);
        }
        list
    })
}

/// The misère quotient of an octal game, heap by heap until certified or heap `max_heap`
/// (default 1000), as the dict of `nimseq quotient GAME --json`: game, order, p_count,
/// certified, certified_at, stable_from, preperiod, period, heaps, identity, p, table,
/// presentation, changes, … `stopped` (why it ended uncertified, else None), `tame` (is it
/// isomorphic to a quotient T_n of misère Nim) and `tame_index` (that n, else None).
/// `table` is a NumPy array of order × order uint32 (`table[a, b]` the id of a·b; the JSON's
/// rows are `table.tolist()`).
/// max_memory: bytes the computation may hold (default half the memory available); a heap that
/// needs more ends it, and `stopped` says so. Ctrl-C is seen within a heap too.
/// table: False leaves the order × order `table` out (None), as `--json --no-table` does.
/// threads: threads of the verifications (default: all cores); the result does not depend on
/// it. candidate_size, candidate_order, recalibrations: the limits of a heap's recalibrations,
/// as `--candidate-size`, `--candidate-order` and `--recalibrations` (defaults 2^18, 2^14, 64).
#[pyfunction]
#[pyo3(signature = (game, max_heap = None, max_memory = None, *, table = true, threads = None,
                    candidate_size = None, candidate_order = None, recalibrations = None))]
#[allow(clippy::too_many_arguments)]
fn quotient<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    max_heap: Option<&Bound<'py, PyAny>>,
    max_memory: Option<&Bound<'py, PyAny>>,
    table: bool,
    threads: Option<&Bound<'py, PyAny>>,
    candidate_size: Option<&Bound<'py, PyAny>>,
    candidate_order: Option<&Bound<'py, PyAny>>,
    recalibrations: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let code = rule_of(game)?.code();
    let max = max_heap.map(|m| count_of(m, "max_heap")).transpose()?;
    let memory = max_memory.map(|m| count_of(m, "max_memory")).transpose()?;
    if memory == Some(0) {
        return Err(PyValueError::new_err(
            "max_memory must be at least 1 byte, not 0",
        ));
    }
    let opts = api::QuotientOptions {
        max_heap: max,
        max_memory: memory,
        table,
        threads: threads_of(threads)?,
        candidate_size: candidate_size
            .map(|m| count_of(m, "candidate_size"))
            .transpose()?,
        candidate_order: candidate_order
            .map(|m| count_of(m, "candidate_order"))
            .transpose()?,
        recalibrations: recalibrations
            .map(|m| count_of(m, "recalibrations"))
            .transpose()?,
    };
    let interrupted: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);
    let stop = || -> bool {
        let mut slot = interrupted.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return true;
        }
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                *slot = Some(e);
                true
            }
        }
    };
    let result = py.detach(|| {
        api::quotient_until(
            &code,
            &opts,
            |_, _| {
                if stop() {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            &stop,
        )
    });
    if let Some(e) = interrupted.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let (mut r, _) = result.map_err(|e| api_exception(e, None))?;
    // The table as a NumPy array (order² ids: a list of lists would take 30 times the
    // memory at order 10^4), put in the dict at the JSON's place for it. Its dtype is uint32:
    // up to order 2^16 the report's u16 ids are widened here, after the computation, so for
    // a moment this holds 6 bytes an id (the command line's report holds the 2 it computed).
    let order = r.report.order;
    let ids = std::mem::replace(
        &mut r.report.table,
        nimseq::misere::quotient::ProductTable::left_out(order),
    )
    .into_ids();
    let dict = json_object(py, &r)?;
    if let Some(ids) = ids {
        let array = PyArray1::from_vec(py, ids).reshape([order, order])?;
        dict.set_item("table", array)?;
    }
    Ok(dict)
}

// ---------------------------------------------------------------------------------------------
// Rule

/// A game: a code ('0.77', '.07', '4!.0', '0.[3]', '0.3F'), a subtraction set ('sub(1,2,3)',
/// 'allbut(2)') or a name ('kayles', 'grundy'). Raises ValueError with the command line's
/// message when the text is not a game.
///
/// code: the canonical code; rules: the moves in words (as `nimseq compute` prints them);
/// name: the common name, if the game has one.
#[pyclass(module = "nimseq", name = "Rule", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
struct PyRule {
    rule: Rule,
}

#[pymethods]
impl PyRule {
    #[new]
    fn new(game: &Bound<'_, PyAny>) -> PyResult<PyRule> {
        Ok(PyRule {
            rule: rule_of(game)?,
        })
    }

    /// The canonical code, e.g. '0.77'.
    #[getter]
    fn code(&self) -> String {
        self.rule.code()
    }

    /// The moves in words, as `nimseq compute` prints them.
    #[getter]
    fn rules(&self) -> String {
        self.rule.describe()
    }

    /// The common name ('kayles'), or None.
    #[getter]
    fn name(&self) -> Option<&'static str> {
        let code = self.rule.code();
        NAMED_GAMES
            .iter()
            .find(|(_, c, _)| *c == code)
            .map(|(name, _, _)| *name)
    }

    fn __repr__(&self) -> String {
        format!("Rule('{}')", self.rule.code())
    }

    /// The code with its name, e.g. '0.77 (kayles)'.
    fn __str__(&self) -> String {
        report::game_title(&self.rule)
    }
}

// ---------------------------------------------------------------------------------------------
// Table

/// A table written by `nimseq compute GAME -n N --table PATH` (or compute(..., table=PATH)),
/// opened read-only. Opening reads only the header: a table of any size opens in milliseconds.
///
/// game: the canonical code; len(t): heaps held; values: a read-only NumPy array mapped from
/// the file (no copy), its checksums verified on first access as every command verifies what it
/// reads; read(start, stop): a range, only its checksums verified; verify(): the checksums;
/// summary(): the dict of `nimseq info PATH --json`; period: the recorded period (dict or None).
/// The checking policy (open, read, on request) is written down in docs/FORMAT.md.
///
/// Raises OSError (FileNotFoundError, ...) for a missing file, a file that is not a table, or a
/// damaged table, with the command line's message.
#[pyclass(module = "nimseq", name = "Table", frozen)]
struct PyTable {
    reader: TableReader,
    path: PathBuf,
    /// Set once the shared lock is held (reading values while no writer works).
    locked: OnceLock<()>,
    /// Set once every checksum was verified (by `values` or `verify()`).
    verified: OnceLock<()>,
}

impl PyTable {
    fn err(&self, e: TableError) -> PyErr {
        let msg = e.to_string();
        table_exception(&e, msg)
    }

    /// Takes the shared lock once (a writer at work: OSError with advice).
    fn lock(this: &PyTable) -> PyResult<()> {
        if this.locked.get().is_none() {
            this.reader.lock_shared().map_err(|e| {
                let msg = match e {
                    TableError::Locked { .. } => format!(
                        "{e}; its values can be read once that run ends (Table.summary() shows \
                         the part committed so far)"
                    ),
                    ref e => e.to_string(),
                };
                table_exception(&e, msg)
            })?;
            let _ = this.locked.set(());
        }
        Ok(())
    }

    /// Every value as a read-only array mapped from the file (the caller verified what it
    /// reads).
    fn mapped<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
        let values = this.reader.values().map_err(|e| this.err(e))?;
        let base = slf.clone().into_any();
        // SAFETY: the slices point into the read-only mapping owned by `this.reader`. The array
        // holds `base` (this Table) as its base object, so the mapping outlives the array; the
        // Table is frozen, so the reader is never replaced. The mapping is not writable, and the
        // array is made read-only below (NumPy refuses to make it writable again, since its base
        // exposes no writable buffer). The shared lock keeps nimseq's writers, which alone could
        // rewrite committed values (a widening), off the file while it is held.
        let array = unsafe {
            match values {
                ValueSlice::W8(v) => {
                    PyArray1::borrow_from_array(&ArrayView1::from(v), base).into_any()
                }
                ValueSlice::W16(v) => {
                    PyArray1::borrow_from_array(&ArrayView1::from(v), base).into_any()
                }
                ValueSlice::W32(v) => {
                    PyArray1::borrow_from_array(&ArrayView1::from(v), base).into_any()
                }
            }
        };
        let flags = PyDict::new(py);
        flags.set_item("write", false)?;
        array.call_method("setflags", (), Some(&flags))?;
        Ok(array)
    }
}

#[pymethods]
impl PyTable {
    #[new]
    fn new(path: PathBuf) -> PyResult<PyTable> {
        let reader = TableReader::open(&path).map_err(|e| {
            let msg = e.to_string();
            table_exception(&e, msg)
        })?;
        Ok(PyTable {
            reader,
            path,
            locked: OnceLock::new(),
            verified: OnceLock::new(),
        })
    }

    /// The file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The canonical code of the game.
    #[getter]
    fn game(&self) -> String {
        self.reader.game().to_string()
    }

    /// Heaps held (committed): heaps 0 … len(t) - 1.
    fn __len__(&self) -> usize {
        self.reader.len() as usize
    }

    /// Bytes per value in the file (1, 2 or 4): the item size of `values`.
    #[getter]
    fn width(&self) -> usize {
        self.reader.width().bytes()
    }

    /// The size of the file in bytes.
    #[getter]
    fn file_size(&self) -> u64 {
        self.reader.file_len()
    }

    /// G(0) … G(len(t) - 1) as a read-only NumPy array (uint8, uint16 or uint32) mapped from
    /// the file, not copied: its base is this Table, which keeps the mapping alive. As every
    /// command does with the heaps it reads, the first access verifies the checksums of every
    /// heap (reading the file once, with the GIL released; OSError naming the first damaged
    /// chunk): use read(start, stop) to verify and read only part of a large table. The first
    /// access also takes a shared lock on the file (OSError while `nimseq compute` writes it).
    #[getter]
    fn values<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let this = slf.get();
        if this.verified.get().is_none() {
            Self::lock(this)?;
            this.verify(slf.py(), 0, None)?;
        }
        Self::mapped(slf)
    }

    /// G(start) … G(stop - 1) (default: to the end) as a read-only NumPy array mapped from the
    /// file, the checksums of those heaps verified first (the chunks of 2^20 heaps holding them).
    #[pyo3(signature = (start = 0, stop = None))]
    fn read<'py>(
        slf: &Bound<'py, Self>,
        start: u64,
        stop: Option<u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let this = slf.get();
        let stop = stop.unwrap_or(this.reader.len()).min(this.reader.len());
        let start = start.min(stop);
        Self::lock(this)?;
        if this.verified.get().is_none() {
            this.verify(slf.py(), start, Some(stop))?;
        }
        Self::mapped(slf)?.get_item(pyo3::types::PySlice::new(
            slf.py(),
            start as isize,
            stop as isize,
            1,
        ))
    }

    /// Checks the checksums of the values of heaps start … stop-1 (whole chunks of 2^20 heaps;
    /// default: every heap), reading them from the disk with the GIL released; Ctrl-C stops it
    /// between steps of 2^26 heaps. Raises OSError naming the first damaged chunk.
    #[pyo3(signature = (start = 0, stop = None))]
    fn verify(&self, py: Python<'_>, start: u64, stop: Option<u64>) -> PyResult<()> {
        let stop = stop.unwrap_or(self.reader.len()).min(self.reader.len());
        // Steps of whole checksum chunks, so that no chunk is read twice.
        let step = 64 * CRC_CHUNK;
        let mut a = start / CRC_CHUNK * CRC_CHUNK;
        while a < stop {
            let b = (a + step).min(stop);
            py.detach(|| self.reader.verify_range(a, b))
                .map_err(|e| self.err(e))?;
            py.check_signals()?;
            a = b;
        }
        if start == 0 && stop == self.reader.len() {
            let _ = self.verified.set(());
        }
        Ok(())
    }

    /// The summary as the dict of `nimseq info PATH --json` (the same keys and values as
    /// `compute --json`), from the table's metadata: no value is read.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_object(py, &self.reader.summary())
    }

    /// The period recorded in the table (proved or observed) as a dict, or None.
    #[getter]
    fn period<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_object(py, &self.reader.period())
    }

    fn __repr__(&self) -> String {
        format!(
            "Table('{}', game='{}', heaps={}, width={})",
            self.path.display(),
            self.reader.game(),
            self.reader.len(),
            self.reader.width().bytes()
        )
    }
}

/// The misère quotient of every game of a survey, as the rows of `nimseq survey PATTERN
/// --misere --json` (a list of dicts, in the order of the games): code, order |Q|, p_count
/// |P|, certified, certified_at, tame, and why a row stopped uncertified (docs/JSON.md).
///
/// pattern: a code with '?' for any octal digit ('0.??', '0.1?') or a file of codes.
/// max_heap, max_order, budget: each game stops when certified, after heap max_heap (default
/// 300), when its order passes max_order (default 1000), or after budget seconds (default 5),
/// the last two looked at between heaps.
/// threads: games computed at once, one a thread (default: all cores).
///
/// Unlike the binary, which runs each game in a child process that it kills at its deadline,
/// every game runs in this process: one heap of a wild game can take minutes past the budget
/// and its memory is not limited. Rows that neither clock decided are the binary's rows. The
/// GIL is released; Ctrl-C raises KeyboardInterrupt at once, and the games still running stop
/// in the background after their heap under way.
#[pyfunction]
#[pyo3(signature = (pattern, *, max_heap = None, max_order = None, budget = None, threads = None))]
fn survey_misere<'py>(
    py: Python<'py>,
    pattern: &str,
    max_heap: Option<&Bound<'py, PyAny>>,
    max_order: Option<&Bound<'py, PyAny>>,
    budget: Option<f64>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = MisereOptions::default();
    let max_heap = max_heap.map(|m| count_of(m, "max_heap")).transpose()?;
    let max_order = max_order.map(|m| count_of(m, "max_order")).transpose()?;
    let opts = MisereOptions::new(
        max_heap.unwrap_or(d.max_heap as u64),
        max_order.unwrap_or(d.max_order as u64),
        budget.unwrap_or(d.budget.as_secs_f64()),
    )
    .map_err(misere_exception)?;
    let threads = threads_of(threads)?;
    // The survey runs on a thread of its own, and this (the main) thread runs Python's signal
    // handlers between waits. Games stop at the end of their heap under way, which can take
    // minutes: after Ctrl-C the call returns at once, and the survey's thread finishes its
    // heaps and ends in the background.
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let pattern = pattern.to_string();
    let flag = stop.clone();
    std::thread::Builder::new()
        .name("nimseq-survey".into())
        .spawn(move || {
            let _ = tx.send(nimseq::survey::misere::survey(
                &pattern, &opts, threads, &flag,
            ));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the survey's thread: {e}")))?;
    let rows = py.detach(move || loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(result) => return Ok(result),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Ok(Err(MisereError::Stopped))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
    })?;
    let rows = rows.map_err(misere_exception)?;
    json_object(py, &rows)
}

/// The compiled part of the nimseq package.
#[pymodule]
fn _nimseq(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The engine's tuning, read once at import (NIMSEQ_ISA and the other switches, as the
    // binary reads them): a tier this processor lacks is refused here.
    let tuning = nimseq::engine::Tuning::from_env()
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    tuning.install();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("engine_tier", nimseq::engine::Tuning::current().tier.name())?;
    m.add_class::<PyRule>()?;
    m.add_class::<PyTable>()?;
    m.add_function(wrap_pyfunction!(values, m)?)?;
    m.add_function(wrap_pyfunction!(summary, m)?)?;
    m.add_function(wrap_pyfunction!(compute, m)?)?;
    m.add_function(wrap_pyfunction!(period, m)?)?;
    m.add_function(wrap_pyfunction!(play, m)?)?;
    m.add_function(wrap_pyfunction!(hackenbush, m)?)?;
    m.add_function(wrap_pyfunction!(quotient, m)?)?;
    m.add_function(wrap_pyfunction!(survey_misere, m)?)?;
    m.add_function(wrap_pyfunction!(cost_estimate, m)?)?;
    Ok(())
}
