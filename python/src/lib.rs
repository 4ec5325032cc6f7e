//! `nimseq._nimseq`: the Python extension of nimseq. It only converts: Python arguments into
//! the library's types, the library's results into NumPy arrays and dicts (through the same
//! serializers the command line's `--json` uses), and its errors into Python exceptions with the
//! command line's one-line messages. Long computations run with the GIL released and look for
//! Ctrl-C between chunks of heaps.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use numpy::ndarray::ArrayView1;
use numpy::PyArray1;
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyKeyboardInterrupt, PyMemoryError, PyOSError,
    PyOverflowError, PyPermissionError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyString};

use nimseq::api::{self, ApiError};
use nimseq::engine::{EngineError, EngineKind, Executor, Values};
use nimseq::numbers::parse_count;
use nimseq::report;
use nimseq::rules::{Rule, NAMED_GAMES};
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

/// The Python exception for a library error. A run stopped by the progress callback raises the
/// exception the signal handlers raised (`KeyboardInterrupt` for Ctrl-C), held in `interrupted`.
fn api_exception(e: ApiError, interrupted: Option<PyErr>) -> PyErr {
    let msg = e.to_string();
    match e {
        ApiError::Stopped { .. } => {
            interrupted.unwrap_or_else(|| PyKeyboardInterrupt::new_err(msg))
        }
        ApiError::Rule(_) | ApiError::Input(_) | ApiError::Memory(_) | ApiError::Position(_) => {
            PyValueError::new_err(msg)
        }
        ApiError::Engine(EngineError::OutOfMemory { .. }) => PyMemoryError::new_err(msg),
        ApiError::Engine(EngineError::ValueTooLarge { .. }) => PyOverflowError::new_err(msg),
        ApiError::Engine(_) | ApiError::Executor(_) => PyRuntimeError::new_err(msg),
        ApiError::Table(t) | ApiError::TableFailed { source: t, .. } => table_exception(&t, msg),
    }
}

/// Runs `f` without the GIL, handing it a progress callback that takes the GIL back between
/// chunks to run Python's signal handlers: Ctrl-C stops the run and raises `KeyboardInterrupt`.
fn run_interruptible<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(api::Progress<'_>) -> Result<T, ApiError> + Send,
) -> PyResult<T> {
    let mut interrupted: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut progress = |_: api::Step<'_>| match Python::attach(|py| py.check_signals()) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                interrupted = Some(e);
                ControlFlow::Break(())
            }
        };
        f(&mut progress)
    });
    result.map_err(|e| api_exception(e, interrupted))
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
fn count_of(n: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    let value_error = |e: nimseq::numbers::NumberError| PyValueError::new_err(e.to_string());
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

fn engine_of(engine: &str) -> PyResult<EngineKind> {
    engine.parse().map_err(PyValueError::new_err)
}

fn executor_of(threads: Option<usize>) -> PyResult<Executor> {
    match threads {
        Some(0) => Err(PyValueError::new_err("the thread count must be at least 1")),
        Some(t) if t > 1024 => Err(PyValueError::new_err(format!(
            "{t} threads is more than 1024"
        ))),
        t => Executor::new(t.unwrap_or(0)).map_err(|e| PyRuntimeError::new_err(e.to_string())),
    }
}

/// A serializable result as the Python object `json.loads` makes of the command's `--json`
/// output: the same keys, in the same order, with the same values.
fn json_object<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
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
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let count = count_of(n, "n")?;
    let kind = engine_of(engine)?;
    let exec = executor_of(threads)?;
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
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let count = count_of(n, "n")?;
    let kind = engine_of(engine)?;
    let exec = executor_of(threads)?;
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
    threads: Option<usize>,
    checkpoint: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let count = count_of(n, "n")?;
    let kind = engine_of(engine)?;
    let exec = executor_of(threads)?;
    if !(checkpoint.is_finite() && (0.0..1e9).contains(&checkpoint)) {
        return Err(PyValueError::new_err(format!(
            "'{checkpoint}' is not a number of seconds"
        )));
    }
    let interval = Duration::from_secs_f64(checkpoint);
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

/// Computes until the octal periodicity theorem proves a period, or `max` values are computed
/// (default: 2^24; 2^16 for a repeating tail; 2^11 for moves that may leave three heaps or a
/// tail that splits), and returns the dict of `nimseq period GAME --json`: game, proved,
/// preperiod, period, last_exception, count, shift, periods_seen, theorem_t, theorem_bound.
#[pyfunction]
#[pyo3(signature = (game, max = None, *, engine = "auto"))]
fn period<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    max: Option<&Bound<'py, PyAny>>,
    engine: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let max = max.map(|m| count_of(m, "max")).transpose()?;
    let kind = engine_of(engine)?;
    let (_, r) = run_interruptible(py, |progress| api::period(&rule, max, kind, progress))?;
    json_object(py, &r)
}

/// The sum of heaps of one game in normal play, as the dict of `nimseq play GAME HEAP... --json`:
/// game, play, heaps, values, nim_sum, outcome ('P': the player to move loses, 'N': wins),
/// winning_move_count and winning_moves (dicts heap_index, from, to; at most `max_moves`
/// listed, all counted).
#[pyfunction]
#[pyo3(signature = (game, heaps, *, engine = "auto", threads = None, max_moves = None))]
fn play<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    heaps: &Bound<'py, PyAny>,
    engine: &str,
    threads: Option<usize>,
    max_moves: Option<u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let rule = rule_of(game)?;
    let mut list = Vec::new();
    for h in heaps.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "heaps must be a list of heap sizes, not {}",
            type_name(heaps)
        ))
    })? {
        list.push(count_of(&h?, "a heap")?);
    }
    let kind = engine_of(engine)?;
    let exec = executor_of(threads)?;
    let max_moves = max_moves.map_or(usize::MAX, |k| usize::try_from(k).unwrap_or(usize::MAX));
    let a = run_interruptible(py, |progress| {
        api::play(&rule, &list, kind, &exec, max_moves, progress)
    })?;
    let json = json_object(py, &report::play_json(&rule, &a));
    json
}

/// The misère quotient of an octal game, heap by heap until certified or heap `max_heap`
/// (default 1000), as the dict of `nimseq quotient GAME --json`: game, order, p_count,
/// certified, certified_at, stable_from, preperiod, period, heaps, identity, p, table,
/// presentation, changes, … and `stopped` (why it ended uncertified, else None).
#[pyfunction]
#[pyo3(signature = (game, max_heap = None))]
fn quotient<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    max_heap: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let code = rule_of(game)?.code();
    let max = max_heap.map(|m| count_of(m, "max_heap")).transpose()?;
    let mut interrupted: Option<PyErr> = None;
    let result = py.detach(|| {
        api::quotient(&code, max, |_, _| {
            match Python::attach(|py| py.check_signals()) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    interrupted = Some(e);
                    ControlFlow::Break(())
                }
            }
        })
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    let (r, _) = result.map_err(|e| api_exception(e, None))?;
    json_object(py, &r)
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
/// the file (no copy; pages are read as they are touched); verify(): checks the checksums;
/// summary(): the dict of `nimseq info PATH --json`; period: the recorded period (dict or None).
///
/// Raises OSError (FileNotFoundError, ...) for a missing file, a file that is not a table, or a
/// damaged table, with the command line's message.
#[pyclass(module = "nimseq", name = "Table", frozen)]
struct PyTable {
    reader: TableReader,
    path: PathBuf,
    /// Set once the shared lock is held (reading values while no writer works).
    locked: OnceLock<()>,
}

impl PyTable {
    fn err(&self, e: TableError) -> PyErr {
        let msg = e.to_string();
        table_exception(&e, msg)
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
    /// the file, not copied: its base is this Table, which keeps the mapping alive. The first
    /// access takes a shared lock on the file (OSError while `nimseq compute` writes it); the
    /// checksums are checked only by verify().
    #[getter]
    fn values<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
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

/// The compiled part of the nimseq package.
#[pymodule]
fn _nimseq(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyRule>()?;
    m.add_class::<PyTable>()?;
    m.add_function(wrap_pyfunction!(values, m)?)?;
    m.add_function(wrap_pyfunction!(summary, m)?)?;
    m.add_function(wrap_pyfunction!(compute, m)?)?;
    m.add_function(wrap_pyfunction!(period, m)?)?;
    m.add_function(wrap_pyfunction!(play, m)?)?;
    m.add_function(wrap_pyfunction!(quotient, m)?)?;
    Ok(())
}
