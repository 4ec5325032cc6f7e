//! Surveys: many games computed to the same N, in parallel, split into shards for clusters.
//!
//! The flow: a pattern or code file becomes a list of [`Game`]s ([`pattern`]); a [`Shard`]
//! picks a balanced part of that list ([`shard`]); [`run`] analyzes each game of the part in
//! parallel ([`analyze`]: values, statistics, period, fingerprints) and hands every finished
//! [`GameRecord`] to the caller as it comes, so that the caller can show progress and
//! checkpoint; the records of all parts go into [`ShardFile`]s that [`merge()`] checks and
//! combines; [`Survey::new`] finally groups equivalent games ([`group`]). Nothing here prints;
//! `report::survey` writes shard files, JSON and Markdown.

pub mod group;
pub mod merge;
pub mod misere;
pub mod pattern;
pub mod shard;

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use group::{Fingerprint, Group, Member};
pub use merge::{merge, MergeError};
pub use pattern::{Game, PatternError};
pub use shard::{Shard, ShardError};

use crate::analysis::{Period, Stats};
use crate::engine::{self, Cell, EngineError, EngineKind, Values};
use crate::with_values;

/// The name written in every shard file's header.
pub const FORMAT: &str = "nimseq-survey";
/// The version of the shard file layout; readers refuse other versions.
pub const FORMAT_VERSION: u32 = 1;

/// What every game of a survey is computed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurveyOptions {
    /// Heaps `0..count` of every game.
    pub count: usize,
    /// The engine.
    pub engine: EngineKind,
    /// The largest heap shift compared when grouping equivalent games.
    pub max_shift: usize,
}

/// Why a game of a survey could not be computed.
#[derive(Debug, Error)]
#[error("game {code}: {source}")]
pub struct SurveyError {
    /// The game's code as written.
    pub code: String,
    /// The engine's error.
    pub source: EngineError,
}

/// Everything a survey reports about one game; one line of a shard file.
///
/// The period keys are those of `nimseq period --json` (`game`, `proved`, `preperiod`, `period`,
/// `last_exception`, `count`); the statistics those of `compute --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The canonical code.
    pub game: String,
    /// The code as the pattern or file wrote it.
    pub code: String,
    /// The game's position in the survey's list (0-based).
    pub index: usize,
    /// Heaps whose values the statistics cover: `0..count`.
    pub count: u64,
    /// Is the period proved (by the octal periodicity theorem)?
    pub proved: bool,
    /// The first heap of the periodic part, when proved.
    pub preperiod: Option<u64>,
    /// The period, when proved.
    pub period: Option<u64>,
    /// `preperiod − 1` (None when periodic from heap 0), when proved.
    pub last_exception: Option<u64>,
    /// Heaps the engine computed; fewer than `count` when a proved period gave the rest.
    pub computed: u64,
    /// The largest value among heaps `0..count`.
    pub max_value: u32,
    /// The first heap with the largest value.
    pub max_value_first_at: u64,
    /// The rare mask in hexadecimal, without `0x`.
    pub rare_mask: String,
    /// Heaps with a rare value.
    pub rare_count: u64,
    /// The last heap with a rare value.
    pub last_rare_at: Option<u64>,
    /// How many heaps have each value.
    pub frequencies: BTreeMap<u32, u64>,
    /// Fingerprints of the windows compared for equivalence (see [`group`]).
    pub windows: Vec<Fingerprint>,
}

/// The first line of a shard file: what was surveyed and which part this is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`FORMAT_VERSION`] when written by this version.
    pub version: u32,
    /// The pattern or code file as given on the command line.
    pub pattern: String,
    /// A fingerprint of the list of codes, so that shards of different lists never merge.
    pub codes_digest: Fingerprint,
    /// How many games the whole survey has.
    pub games: usize,
    /// Heaps per game.
    pub count: u64,
    /// The largest shift compared when grouping.
    pub max_shift: usize,
    /// This part (1-based).
    pub shard: usize,
    /// Number of parts.
    pub shards: usize,
    /// The games of this part (indices into the list), in order.
    pub indices: Vec<usize>,
}

impl Header {
    /// The header of `shard` of a survey of `games` with `opts`.
    pub fn new(pattern: &str, games: &[Game], opts: &SurveyOptions, shard: Shard) -> Header {
        let costs = costs(games, opts.count);
        Header {
            format: FORMAT.to_string(),
            version: FORMAT_VERSION,
            pattern: pattern.to_string(),
            codes_digest: codes_digest(games),
            games: games.len(),
            count: opts.count as u64,
            max_shift: opts.max_shift,
            shard: shard.index,
            shards: shard.count,
            indices: shard::indices_of(&costs, shard),
        }
    }

    /// This header's shard.
    pub fn shard(&self) -> Shard {
        Shard {
            index: self.shard,
            count: self.shards,
        }
    }
}

/// The estimated cost of every game (see [`shard::estimated_cost`]).
pub fn costs(games: &[Game], count: usize) -> Vec<u128> {
    games
        .iter()
        .map(|g| shard::estimated_cost(&g.rule, count as u64))
        .collect()
}

/// A fingerprint of the codes as written, in order.
pub fn codes_digest(games: &[Game]) -> Fingerprint {
    let mut bytes = Vec::new();
    for g in games {
        bytes.extend_from_slice(g.code.as_bytes());
        bytes.push(b'\n');
    }
    group::fingerprint(&bytes)
}

/// A shard file: its header and the records of its games, by index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardFile {
    /// The header.
    pub header: Header,
    /// One record per game of `header.indices`, ordered by index.
    pub records: Vec<GameRecord>,
}

/// A whole survey, ready to report: every game's record and the groups of equivalent games.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Survey {
    /// The header of the whole survey (shard 1/1).
    pub header: Header,
    /// Every game's record, by index.
    pub records: Vec<GameRecord>,
    /// Groups of equivalent games (indices into `records`).
    pub groups: Vec<Group>,
}

impl Survey {
    /// Groups the games of a complete survey (one shard of one, or the result of [`merge()`]).
    pub fn new(file: ShardFile) -> Survey {
        let windows: Vec<Vec<Fingerprint>> =
            file.records.iter().map(|r| r.windows.clone()).collect();
        let groups = group::groups(&windows);
        Survey {
            header: file.header,
            records: file.records,
            groups,
        }
    }

    /// For each game, its group's base and its offset from it, when it belongs to a group and
    /// is not the base itself.
    pub fn equivalent_to(&self) -> Vec<Option<(usize, usize)>> {
        let mut out = vec![None; self.records.len()];
        for g in &self.groups {
            let base = g[0].index;
            for m in &g[1..] {
                out[m.index] = Some((base, m.offset));
            }
        }
        out
    }
}

/// The period of a sequence, when one can be proved from `values`. The survey's single hook for
/// periodicity: every game goes through here.
/// Analyzes one game: values of heaps `0..opts.count`, statistics, period, fingerprints.
///
/// Computing stops once the octal periodicity theorem proves a period; the remaining values
/// follow from it (so statistics and fingerprints are those of all `opts.count` heaps) and
/// `computed` says how many were computed.
pub fn analyze(index: usize, game: &Game, opts: &SurveyOptions) -> Result<GameRecord, SurveyError> {
    let mut values = Values::default();
    let mut checker = crate::analysis::PeriodChecker::new(&game.rule);
    crate::analysis::extend_checking(
        &mut engine::AnyEngine::new(&game.rule, opts.engine),
        &mut values,
        opts.count,
        &mut checker,
        &mut |_| std::ops::ControlFlow::Continue(()),
    )
    .map_err(|source| SurveyError {
        code: game.code.clone(),
        source,
    })?;
    let computed = values.len() as u64;
    let period = checker.proved().cloned();
    if let Some(p) = &period {
        let all: Vec<u32> = (0..opts.count as u64)
            .map(|n| crate::analysis::periodic_value(&values, p, n))
            .collect();
        values = Values::from_u32s(&all);
    }
    Ok(with_values!(&values, v => record_of(index, game, v, computed, period, opts.max_shift)))
}

fn record_of<T: Cell>(
    index: usize,
    game: &Game,
    vals: &[T],
    computed: u64,
    period: Option<Period>,
    max_shift: usize,
) -> GameRecord {
    let stats = Stats::of_slice(vals);
    let h = &stats.histogram;
    GameRecord {
        game: game.rule.code(),
        code: game.code.clone(),
        index,
        count: vals.len() as u64,
        proved: period.as_ref().is_some_and(|p| p.proved),
        preperiod: period.as_ref().map(|p| p.preperiod),
        period: period.as_ref().map(|p| p.period),
        last_exception: period.as_ref().and_then(|p| p.last_exception),
        computed,
        max_value: h.max_value(),
        max_value_first_at: h.max_first_at,
        rare_mask: format!("{:x}", stats.rare_mask),
        rare_count: stats.rare_count,
        last_rare_at: stats.last_rare_at,
        frequencies: h.frequencies(),
        windows: group::windows(vals, max_shift),
    }
}

/// Analyzes the games `indices` of `games` in parallel (rayon's current pool), skipping those
/// that `done` already holds, and calls `on_record` with each new record as soon as it is
/// finished (from the worker threads). Returns all records of `indices`, by index.
///
/// The most expensive games start first, so that no long game is left for the end.
pub fn run(
    games: &[Game],
    indices: &[usize],
    opts: &SurveyOptions,
    done: Vec<GameRecord>,
    on_record: &(dyn Fn(&GameRecord) + Sync),
) -> Result<Vec<GameRecord>, SurveyError> {
    let finished: std::collections::HashSet<usize> = done.iter().map(|r| r.index).collect();
    let costs = costs(games, opts.count);
    let mut todo: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|j| !finished.contains(j))
        .collect();
    todo.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
    let new: Vec<GameRecord> = todo
        .into_par_iter()
        .with_max_len(1)
        .map(|j| {
            let r = analyze(j, &games[j], opts)?;
            on_record(&r);
            Ok(r)
        })
        .collect::<Result<_, SurveyError>>()?;
    let wanted: std::collections::HashSet<usize> = indices.iter().copied().collect();
    let mut all: Vec<GameRecord> = done
        .into_iter()
        .filter(|r| wanted.contains(&r.index))
        .chain(new)
        .collect();
    all.sort_by_key(|r| r.index);
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(count: usize) -> SurveyOptions {
        SurveyOptions {
            count,
            engine: EngineKind::Exact,
            max_shift: group::DEFAULT_MAX_SHIFT,
        }
    }

    #[test]
    fn record_of_kayles() {
        let games = pattern::expand("0.77").unwrap();
        let r = analyze(0, &games[0], &opts(12)).unwrap();
        // OEIS A002186: 0,1,2,3,1,4,3,2,1,4,2,6.
        assert_eq!((r.max_value, r.max_value_first_at), (6, 11));
        assert_eq!(r.count, 12);
        assert_eq!(r.game, "0.77");
        assert_eq!(r.frequencies[&1], 3);
        assert_eq!(r.windows.len(), 7);
    }

    #[test]
    fn run_skips_what_is_done_and_keeps_index_order() {
        let games = pattern::expand("0.1?").unwrap();
        let o = opts(200);
        let all: Vec<usize> = (0..games.len()).collect();
        let seen = std::sync::Mutex::new(Vec::new());
        let full = run(&games, &all, &o, Vec::new(), &|r| {
            seen.lock().unwrap().push(r.index)
        })
        .unwrap();
        assert_eq!(seen.lock().unwrap().len(), 8);
        assert!(full.iter().enumerate().all(|(j, r)| r.index == j));
        let done = vec![full[3].clone(), full[5].clone()];
        let count = std::sync::atomic::AtomicUsize::new(0);
        let again = run(&games, &all, &o, done, &|_| {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(count.into_inner(), 6);
        assert_eq!(again, full);
    }

    /// Published equivalences (OEIS A002187): .07 and .4 play like .137 shifted by 1 and 2.
    #[test]
    fn dawson_equivalences_group() {
        let games = pattern::parse_list("t", "0.137\n0.07\n0.4\n0.77\n").unwrap();
        let o = opts(1000);
        let all = [0, 1, 2, 3];
        let records = run(&games, &all, &o, Vec::new(), &|_| {}).unwrap();
        let file = ShardFile {
            header: Header::new("t", &games, &o, Shard::WHOLE),
            records,
        };
        let s = Survey::new(file);
        assert_eq!(s.groups.len(), 1);
        let g: Vec<(usize, usize)> = s.groups[0].iter().map(|m| (m.index, m.offset)).collect();
        assert_eq!(g, [(0, 0), (1, 1), (2, 2)]);
        assert_eq!(s.equivalent_to()[1], Some((0, 1)));
        assert_eq!(s.equivalent_to()[3], None);
    }
}
