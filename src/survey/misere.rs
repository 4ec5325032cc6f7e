//! `survey PATTERN --misere`: the misère quotient of every game of a survey, in parallel, as a
//! table like the published ones (code, |Q|, |P|, certified at, tame).
//!
//! Each game gets its quotient ([`crate::misere::quotient::compute`]) heap by heap until it is
//! certified, or until one of its limits: a largest heap, a largest order, a time budget. The
//! limits are looked at between heaps, so a wild game stops at the first heap past its budget
//! with the partial quotient of the heaps before (its row says why); the order limit also bounds
//! the work of the next heap, whose candidate monoid is the old quotient times a few powers of
//! the new heap. Games run in parallel on the rayon pool, one game a thread (their costs are not
//! known beforehand); rows come back in the order of the games.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::Game;
use crate::misere::quotient::compute;
use crate::misere::tame::tame_index;

/// The limits of each game's quotient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// One game's row: its quotient, certified or partial.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MisereRow {
    /// The canonical code.
    pub game: String,
    /// The code as the pattern wrote it.
    pub code: String,
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
    /// Why it stopped uncertified (`None` when certified).
    pub stopped: Option<String>,
}

impl MisereRow {
    /// The row of a game whose computation gave no quotient (it was stopped from outside, or
    /// failed): order 0, and why.
    pub fn unfinished(game: &Game, why: String) -> MisereRow {
        MisereRow {
            game: game.rule.code(),
            code: game.code.clone(),
            order: 0,
            p_count: 0,
            certified: false,
            certified_at: None,
            last_heap: 0,
            period: None,
            preperiod: None,
            tame: false,
            stopped: Some(why),
        }
    }
}

/// Why a game stopped.
enum Stop {
    Order,
    Time,
}

/// The row of one game within `opts`.
pub fn misere_row(game: &Game, opts: &MisereOptions) -> MisereRow {
    misere_row_watched(game, opts, &mut |_, _| {})
}

/// [`misere_row`], calling `on_heap(heap, order)` after each heap.
pub fn misere_row_watched(
    game: &Game,
    opts: &MisereOptions,
    on_heap: &mut dyn FnMut(usize, usize),
) -> MisereRow {
    let began = Instant::now();
    let mut stop = None;
    let (solver, err) = compute(&game.rule, opts.max_heap, opts.state_limit, |h, s| {
        on_heap(h, s.monoid().order);
        if s.monoid().order > opts.max_order {
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
    let r = solver.report();
    let stopped = (!r.certified).then(|| match (&err, &stop) {
        (Some(e), _) => e.to_string(),
        (None, Some(Stop::Order)) => format!("order above {}", opts.max_order),
        (None, Some(Stop::Time)) => format!("time budget {} s", opts.budget.as_secs_f64()),
        (None, None) => format!("heap limit {}", opts.max_heap),
    });
    MisereRow {
        game: r.game.clone(),
        code: game.code.clone(),
        order: r.order,
        p_count: r.p_count,
        certified: r.certified,
        certified_at: r.certified_at,
        last_heap: r.last_heap,
        period: r.period,
        preperiod: r.preperiod,
        tame: tame_index(&r).is_some(),
        stopped,
    }
}

/// The rows of every game, computed in parallel (each game on one thread); `on_row` sees each
/// row as it is finished (for progress). Rows come back in the order of `games`.
pub fn misere_survey(
    games: &[Game],
    opts: &MisereOptions,
    on_row: &(dyn Fn(&MisereRow) + Sync),
) -> Vec<MisereRow> {
    games
        .par_iter()
        .with_max_len(1)
        .map(|g| {
            let row = misere_row(g, opts);
            on_row(&row);
            row
        })
        .collect()
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
        let rows = misere_survey(&all, &opts, &|_| {
            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(seen.into_inner(), all.len());
        let codes: Vec<&str> = rows.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(codes[..2], ["0.01", "0.11"]);
        let row = |code: &str| rows.iter().find(|r| r.code == code).unwrap();
        let r8 = row("0.75");
        assert!(r8.certified && (r8.order, r8.p_count, r8.tame) == (8, 2, false));
        let mammoth = row("0.121");
        assert!(mammoth.certified && (mammoth.order, mammoth.tame) == (6, true));
        let dawson = row("0.07");
        assert!(!dawson.certified && dawson.order > 100 && !dawson.tame);
        assert_eq!(dawson.stopped.as_deref(), Some("order above 100"));
        // A row is what its game alone gives.
        assert_eq!(&misere_row(&all[all.len() - 3], &opts), r8);
    }
}
