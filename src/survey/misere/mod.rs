//! `survey PATTERN --misere`: the misère quotient of every game of a survey, as a table like the
//! published ones (code, |Q|, |P|, certified at, tame), with files that resume and shards that
//! merge like the plain survey's ([`file`]).
//!
//! Each game gets its quotient ([`crate::misere::quotient::compute_until`]) heap by heap until
//! it is certified, or until one of its limits: a largest heap, a largest order, a time budget.
//! The heap and order limits are looked at between heaps, the budget also within a heap (the
//! solver's stop check), so a wild game stops at its budget with the partial quotient of the
//! heaps before; its row says why, in words (`stopped`) and as
//! a [`StoppedBy`] that a later run reads. The order limit also bounds the work of the next
//! heap, whose candidate monoid is the old quotient times a few powers of the new heap.
//!
//! A rerun with larger limits redoes exactly the rows those limits would take further
//! ([`MisereRow::redo_under`]) and keeps the rest: a certified row is final, a row cut by the
//! heap limit is redone with a larger heap limit, one cut by the budget with a larger budget.
//! Nothing a run found is thrown away by a rerun with smaller limits.
//!
//! In process ([`misere_survey`], Python's `survey_misere`) games run in parallel on the rayon
//! pool, one game a thread (their costs are not known beforehand); the binary runs each game of
//! a survey of several in a child process instead, with a memory limit and a kill as a backstop
//! (`cli::survey_misere`). Both compute every row with
//! [`misere_row_watched`], so a row that no kill or clock decided is the same either way.

pub mod file;

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{Game, PatternError};
use crate::misere::quotient::{compute_until, Limits, QuotientError};
use crate::misere::tame::tame_index;

/// The largest heap limit accepted: the quotient module's, as for the `quotient` command.
pub const MAX_HEAP_LIMIT: u64 = crate::misere::quotient::limits::MAX_HEAP;

/// The limits of each game's quotient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MisereOptions {
    /// The largest heap computed.
    pub max_heap: usize,
    /// A quotient that grows past this order stops (after the heap that made it so).
    pub max_order: usize,
    /// Time for one game, looked at between heaps.
    pub budget: Duration,
    /// States the verification of one quotient may hold.
    pub state_limit: usize,
}

impl Default for MisereOptions {
    /// Heap 300, order 1000, 5 s a game, 2·10^6 states.
    fn default() -> MisereOptions {
        MisereOptions {
            max_heap: 300,
            max_order: 1000,
            budget: Duration::from_secs(5),
            state_limit: 2_000_000,
        }
    }
}

/// Why the limits or the games of a misère survey are not acceptable, or why it stopped. The
/// messages name the value, not the option: each face puts its own name in front (`--budget`,
/// `budget=`).
#[derive(Debug, Error)]
pub enum MisereError {
    /// The budget is not a positive, finite number of seconds.
    #[error("{0} is not a positive number of seconds")]
    Budget(f64),
    /// The heap limit is above [`MAX_HEAP_LIMIT`].
    #[error("{0} is above the largest heap a quotient computes ({MAX_HEAP_LIMIT})")]
    MaxHeap(u64),
    /// The pattern or file of codes.
    #[error(transparent)]
    Pattern(#[from] PatternError),
    /// The worker threads cannot be started.
    #[error("cannot start {threads} worker threads: {reason}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// What the system said.
        reason: String,
    },
    /// The stop flag was raised (Ctrl-C in Python).
    #[error("stopped")]
    Stopped,
}

impl MisereOptions {
    /// The options of a survey with these limits (the state limit is the default's).
    pub fn new(max_heap: u64, max_order: u64, budget: f64) -> Result<MisereOptions, MisereError> {
        if !(budget > 0.0 && budget.is_finite() && budget < 1e9) {
            return Err(MisereError::Budget(budget));
        }
        if max_heap > MAX_HEAP_LIMIT {
            return Err(MisereError::MaxHeap(max_heap));
        }
        Ok(MisereOptions {
            max_heap: max_heap as usize,
            max_order: usize::try_from(max_order).unwrap_or(usize::MAX),
            budget: Duration::from_secs_f64(budget),
            ..MisereOptions::default()
        })
    }
}

/// Why a row's quotient stopped before it was certified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoppedBy {
    /// The largest heap was reached.
    HeapLimit,
    /// The order grew past the largest order.
    OrderLimit,
    /// The time budget ran out (looked at within each heap).
    Budget,
    /// One heap ran past the deadline and the game's process was killed (no quotient).
    Deadline,
    /// The game's process ran out of its memory (no quotient).
    Memory,
    /// The computation could not go on (too many states, a candidate too large): the same at
    /// any limits.
    Error,
    /// The game's process failed otherwise or could not start (no quotient).
    Failed,
}

/// One game's row: its quotient, certified or partial. The keys of `survey --misere --json` and
/// of the survey's files (`docs/JSON.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MisereRow {
    /// The canonical code.
    pub game: String,
    /// The code as the pattern wrote it.
    pub code: String,
    /// The game's position in the survey's list (0-based).
    pub index: usize,
    /// `|Q|` of the heaps computed.
    pub order: usize,
    /// `|P|`.
    pub p_count: usize,
    /// Is it the quotient of every heap size?
    pub certified: bool,
    /// The last heap computed when certified.
    pub certified_at: Option<usize>,
    /// The last heap computed.
    pub last_heap: usize,
    /// The period of `Φ` (certified, or the best candidate), and where it starts.
    pub period: Option<u64>,
    /// The preperiod of `Φ`.
    pub preperiod: Option<u64>,
    /// Is the quotient isomorphic to a `T_n` of misère Nim ([`crate::misere::tame`])?
    pub tame: bool,
    /// Why it stopped uncertified, in words (`None` when certified).
    pub stopped: Option<String>,
    /// Why it stopped uncertified, for a rerun to read (`None` when certified).
    pub stopped_by: Option<StoppedBy>,
    /// The time budget of the run that computed this row, in seconds.
    pub budget: f64,
}

impl MisereRow {
    /// The row of game `index`, whose computation gave no quotient (it was killed, or failed):
    /// order 0, and why.
    pub fn unfinished(
        index: usize,
        game: &Game,
        by: StoppedBy,
        why: String,
        opts: &MisereOptions,
    ) -> MisereRow {
        MisereRow {
            game: game.rule.code(),
            code: game.code.clone(),
            index,
            order: 0,
            p_count: 0,
            certified: false,
            certified_at: None,
            last_heap: 0,
            period: None,
            preperiod: None,
            tame: false,
            stopped: Some(why),
            stopped_by: Some(by),
            budget: opts.budget.as_secs_f64(),
        }
    }

    /// Would a run with `opts` take this row further? Only a row cut short by a limit that
    /// `opts` raises, with room left under the others: a larger heap limit for a row cut at
    /// its heap limit, a larger order limit for one cut at its order, a larger budget for one
    /// cut by time or killed; and any row whose process failed. A certified row, one that met
    /// an error of the computation, or one that ran out of memory is final.
    pub fn redo_under(&self, opts: &MisereOptions) -> bool {
        let room = opts.max_heap > self.last_heap && opts.max_order >= self.order;
        match self.stopped_by {
            None => false,
            Some(StoppedBy::HeapLimit | StoppedBy::OrderLimit) => room,
            Some(StoppedBy::Budget | StoppedBy::Deadline) => {
                room && opts.budget.as_secs_f64() > self.budget
            }
            Some(StoppedBy::Memory | StoppedBy::Error) => false,
            Some(StoppedBy::Failed) => true,
        }
    }
}

/// Why a game stopped.
enum Stop {
    Order,
    Time,
    Flag,
}

/// The row of game `index` within `opts`.
pub fn misere_row(index: usize, game: &Game, opts: &MisereOptions) -> MisereRow {
    misere_row_watched(index, game, opts, &mut |_, _| ControlFlow::Continue(()))
        .expect("never stopped")
}

/// [`misere_row`], calling `on_heap(heap, order)` after each heap; `None` when it breaks.
pub fn misere_row_watched(
    index: usize,
    game: &Game,
    opts: &MisereOptions,
    on_heap: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
) -> Option<MisereRow> {
    let began = Instant::now();
    let mut stop = None;
    // The budget is looked at within a heap too (the solver's stop check), so that both faces
    // stop a wild game at its budget with the quotient of the heaps before.
    let out_of_time = || began.elapsed() > opts.budget;
    let limits = Limits {
        states: opts.state_limit,
        memory: usize::MAX,
    };
    // One thread a game (`compute_until` verifies serially): the games are the survey's
    // parallel work, as many at once as its threads, so a parallel verification in each would
    // only oversubscribe the cores.
    let (solver, err) = compute_until(&game.rule, opts.max_heap, limits, &out_of_time, |h, s| {
        if on_heap(h, s.monoid().order).is_break() {
            stop = Some(Stop::Flag);
        } else if s.monoid().order > opts.max_order {
            stop = Some(Stop::Order);
        } else if began.elapsed() > opts.budget {
            stop = Some(Stop::Time);
        }
        if stop.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let r = solver.into_report();
    let stopped_by = if r.certified {
        None
    } else {
        Some(match (&err, &stop) {
            (Some(QuotientError::Stopped { .. }), _) => StoppedBy::Budget,
            (Some(_), _) => StoppedBy::Error,
            (None, Some(Stop::Flag)) => return None,
            (None, Some(Stop::Order)) => StoppedBy::OrderLimit,
            (None, Some(Stop::Time)) => StoppedBy::Budget,
            (None, None) => StoppedBy::HeapLimit,
        })
    };
    let stopped = stopped_by.map(|by| match (by, &err) {
        (StoppedBy::Budget, _) => format!("time budget {} s", opts.budget.as_secs_f64()),
        (_, Some(e)) => e.to_string(),
        (StoppedBy::OrderLimit, _) => format!("order above {}", opts.max_order),
        _ => format!("heap limit {}", opts.max_heap),
    });
    Some(MisereRow {
        game: r.game.clone(),
        code: game.code.clone(),
        index,
        order: r.order,
        p_count: r.p_count,
        certified: r.certified,
        certified_at: r.certified_at,
        last_heap: r.last_heap,
        period: r.period,
        preperiod: r.preperiod,
        tame: tame_index(&r).is_some(),
        stopped,
        stopped_by,
        budget: opts.budget.as_secs_f64(),
    })
}

/// Splits the games `indices` of a survey into the rows of `done` that stay (those `opts`
/// would not take further, [`MisereRow::redo_under`]) and the indices still to compute, both
/// in index order. Rows of `done` outside `indices` are dropped.
pub fn still_to_do(
    indices: &[usize],
    done: Vec<MisereRow>,
    opts: &MisereOptions,
) -> (Vec<MisereRow>, Vec<usize>) {
    let mut kept: Vec<MisereRow> = done
        .into_iter()
        .filter(|r| indices.contains(&r.index) && !r.redo_under(opts))
        .collect();
    kept.sort_by_key(|r| r.index);
    kept.dedup_by_key(|r| r.index);
    let todo = indices
        .iter()
        .copied()
        .filter(|j| kept.binary_search_by_key(j, |r| r.index).is_err())
        .collect();
    (kept, todo)
}

/// The rows of the games `indices` of `games`, computed in parallel in this process (each game
/// on one thread of the current rayon pool) except those of `done` that stay
/// ([`still_to_do`]); `on_row` sees each new row as it is finished (for progress and
/// checkpoints). Rows come back in index order. Raising `stop` stops every game after its
/// heap under way and returns [`MisereError::Stopped`].
pub fn misere_survey(
    games: &[Game],
    indices: &[usize],
    opts: &MisereOptions,
    done: Vec<MisereRow>,
    stop: &AtomicBool,
    on_row: &(dyn Fn(&MisereRow) + Sync),
) -> Result<Vec<MisereRow>, MisereError> {
    let (kept, todo) = still_to_do(indices, done, opts);
    let new: Vec<MisereRow> = todo
        .into_par_iter()
        .with_max_len(1)
        .map(|j| {
            if stop.load(Ordering::Relaxed) {
                return Err(MisereError::Stopped);
            }
            let row = misere_row_watched(j, &games[j], opts, &mut |_, _| {
                if stop.load(Ordering::Relaxed) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .ok_or(MisereError::Stopped)?;
            on_row(&row);
            Ok(row)
        })
        .collect::<Result<_, _>>()?;
    let mut all: Vec<MisereRow> = kept.into_iter().chain(new).collect();
    all.sort_by_key(|r| r.index);
    Ok(all)
}

/// The whole survey of `pattern` (a code with `?` wildcards or a file of codes) within `opts`,
/// in this process on `threads` threads (default: one per core): what Python's
/// `survey_misere` returns, the rows of `survey PATTERN --misere --json`.
pub fn survey(
    pattern: &str,
    opts: &MisereOptions,
    threads: Option<usize>,
    stop: &AtomicBool,
) -> Result<Vec<MisereRow>, MisereError> {
    let games = super::pattern::games(pattern)?;
    let all: Vec<usize> = (0..games.len()).collect();
    let n = threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| MisereError::Threads {
            threads: n,
            reason: e.to_string(),
        })?;
    pool.install(|| misere_survey(&games, &all, opts, Vec::new(), stop, &|_| {}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::pattern;

    /// Rows agree with the `quotient` command's computation and with the published cases:
    /// 0.75 is R8 (order 8, |P| 2, wild), 0.121 a Woolly Mammoth (order 6, tame); 0.07 is
    /// wild and stops at its order limit.
    #[test]
    fn rows_of_a_small_survey() {
        let games = pattern::games("0.?1").unwrap();
        let mut more = pattern::games("0.75").unwrap();
        more.extend(pattern::games("0.121").unwrap());
        more.extend(pattern::games("0.07").unwrap());
        let all: Vec<Game> = games.into_iter().chain(more).collect();
        let opts = MisereOptions {
            max_order: 100,
            budget: Duration::from_secs(60),
            ..MisereOptions::default()
        };
        let seen = std::sync::atomic::AtomicUsize::new(0);
        let indices: Vec<usize> = (0..all.len()).collect();
        let rows = misere_survey(
            &all,
            &indices,
            &opts,
            Vec::new(),
            &AtomicBool::new(false),
            &|_| {
                seen.fetch_add(1, Ordering::Relaxed);
            },
        )
        .unwrap();
        assert_eq!(seen.into_inner(), all.len());
        let codes: Vec<&str> = rows.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(codes[..2], ["0.01", "0.11"]);
        assert!(rows.iter().enumerate().all(|(j, r)| r.index == j));
        let row = |code: &str| rows.iter().find(|r| r.code == code).unwrap();
        let r8 = row("0.75");
        assert!(r8.certified && (r8.order, r8.p_count, r8.tame) == (8, 2, false));
        assert_eq!(r8.stopped_by, None);
        let mammoth = row("0.121");
        assert!(mammoth.certified && (mammoth.order, mammoth.tame) == (6, true));
        let dawson = row("0.07");
        assert!(!dawson.certified && dawson.order > 100 && !dawson.tame);
        assert_eq!(dawson.stopped.as_deref(), Some("order above 100"));
        assert_eq!(dawson.stopped_by, Some(StoppedBy::OrderLimit));
        // A row is what its game alone gives.
        let j = all.len() - 3;
        assert_eq!(&misere_row(j, &all[j], &opts), r8);
    }

    /// The budget stops a game within a heap (0.06's heap 17 runs until the solver gives up,
    /// far past a fraction of a second), and the row keeps the quotient of the heaps before,
    /// as computed without a budget.
    #[test]
    fn the_budget_stops_a_heap_and_keeps_the_heaps_before() {
        let games = pattern::games("0.06").unwrap();
        let row = misere_row(0, &games[0], &opts(40, 100_000, 0.3));
        assert_eq!(row.stopped_by, Some(StoppedBy::Budget));
        assert_eq!(row.stopped.as_deref(), Some("time budget 0.3 s"));
        let whole = misere_row(0, &games[0], &opts(row.last_heap, 100_000, 600.0));
        assert_eq!(whole.stopped_by, Some(StoppedBy::HeapLimit));
        assert_eq!((row.order, row.p_count), (whole.order, whole.p_count));
    }

    fn opts(max_heap: usize, max_order: usize, budget: f64) -> MisereOptions {
        MisereOptions::new(max_heap as u64, max_order as u64, budget).unwrap()
    }

    /// Which rows a rerun redoes: exactly those whose stopping limit it raises, with room
    /// under the others.
    #[test]
    fn reruns_redo_rows_their_limits_take_further() {
        let games = pattern::games("0.07").unwrap();
        let o = opts(12, 1000, 60.0);
        let cut = misere_row(0, &games[0], &o);
        assert_eq!(cut.stopped_by, Some(StoppedBy::HeapLimit));
        assert_eq!(cut.last_heap, 12);
        assert!(!cut.redo_under(&o));
        assert!(cut.redo_under(&opts(13, 1000, 60.0)));
        assert!(!cut.redo_under(&opts(11, 1000, 60.0)));
        // A smaller order limit would stop sooner: the row keeps what it found.
        assert!(!cut.redo_under(&opts(40, cut.order - 1, 60.0)));
        let by_order = MisereRow {
            stopped_by: Some(StoppedBy::OrderLimit),
            ..cut.clone()
        };
        assert!(by_order.redo_under(&opts(12 + 1, cut.order, 60.0)));
        assert!(!by_order.redo_under(&opts(12, cut.order, 60.0)));
        let by_time = MisereRow {
            stopped_by: Some(StoppedBy::Budget),
            budget: 5.0,
            ..cut.clone()
        };
        assert!(!by_time.redo_under(&opts(300, 1000, 5.0)));
        assert!(!by_time.redo_under(&opts(300, 1000, 2.0)));
        assert!(by_time.redo_under(&opts(300, 1000, 5.5)));
        let killed = MisereRow::unfinished(
            0,
            &games[0],
            StoppedBy::Deadline,
            "k".into(),
            &opts(300, 1000, 5.0),
        );
        assert!(!killed.redo_under(&opts(300, 1000, 5.0)));
        assert!(killed.redo_under(&opts(300, 1000, 10.0)));
        for by in [StoppedBy::Memory, StoppedBy::Error] {
            let r = MisereRow {
                stopped_by: Some(by),
                ..killed.clone()
            };
            assert!(!r.redo_under(&opts(1000, 10_000, 100.0)), "{by:?}");
        }
        let failed = MisereRow {
            stopped_by: Some(StoppedBy::Failed),
            ..killed.clone()
        };
        assert!(failed.redo_under(&opts(300, 1000, 5.0)));
        let kayles = pattern::games("0.05").unwrap(); // certified at heap 7
        let certified = misere_row(0, &kayles[0], &o);
        assert!(certified.certified && certified.stopped_by.is_none());
        assert!(!certified.redo_under(&opts(1000, 10_000, 100.0)));
        // still_to_do keeps the final rows and lists the rest, in index order.
        let done = vec![
            MisereRow {
                index: 4,
                ..certified.clone()
            },
            MisereRow {
                index: 1,
                ..cut.clone()
            },
            MisereRow {
                index: 9,
                ..certified.clone()
            },
        ];
        let (kept, todo) = still_to_do(&[0, 1, 2, 4], done, &opts(20, 1000, 5.0));
        assert_eq!(kept.iter().map(|r| r.index).collect::<Vec<_>>(), [4]);
        assert_eq!(todo, [0, 1, 2]);
    }

    #[test]
    fn limits_are_checked_and_stop_stops() {
        assert!(matches!(
            MisereOptions::new(10, 10, 0.0),
            Err(MisereError::Budget(_))
        ));
        assert!(matches!(
            MisereOptions::new(10, 10, f64::NAN),
            Err(MisereError::Budget(_))
        ));
        assert!(matches!(
            MisereOptions::new(MAX_HEAP_LIMIT + 1, 10, 1.0),
            Err(MisereError::MaxHeap(_))
        ));
        let stop = AtomicBool::new(true);
        let r = survey("0.0?", &opts(10, 100, 5.0), Some(2), &stop);
        assert!(matches!(r, Err(MisereError::Stopped)));
        assert!(matches!(
            survey("0.x?", &opts(10, 100, 5.0), None, &AtomicBool::new(false)),
            Err(MisereError::Pattern(_))
        ));
    }
}
