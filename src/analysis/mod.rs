//! Analysis of computed sequences: statistics, rare-value structure and periodicity.
//!
//! Everything here reads values and returns plain data ([`Summary`], [`Stats`], [`Period`]);
//! nothing prints. The report module turns these into text, JSON, b-files and plots.

mod occurrence;
mod period;
mod profile;
mod stats;

use std::collections::BTreeMap;

use serde::Serialize;

pub use period::{
    extend_checking, extended_stats, observe, observe_slice, periodic_value, theorem_bound,
    theorem_t, PeriodChecker, PeriodReport, PeriodicValues, StopAtPeriod, MIN_PERIODS_SEEN,
};
pub use profile::Profile;
pub use stats::{is_rare, rare_mask, Histogram, Stats};

use crate::engine::{Cell, Values};
use crate::with_values;

/// A period of a sequence: `G(n + period) = G(n) + shift` for all `n ≥ preperiod` (`shift` is 0
/// for ordinary periodicity).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Period {
    /// The smallest heap from which the pattern holds.
    pub preperiod: u64,
    /// The smallest period.
    pub period: u64,
    /// `preperiod − 1`, or `None` when the pattern holds from heap 0.
    pub last_exception: Option<u64>,
    /// Arithmetic periodicity: `G(n + period) = G(n) + shift`.
    pub shift: u32,
    /// Proved by a theorem (true) or only observed (false).
    pub proved: bool,
    /// Full periods seen in the computed values from the preperiod on.
    pub periods_seen: u64,
    /// `2·max(preperiod, 1) + 2·period + t`, the number of values (heaps `0 … bound − 1`) the
    /// octal periodicity theorem needs: for a proved period, the values it was proved from; for
    /// an unproved candidate, the values a proof would need if the pattern persists.
    pub theorem_bound: Option<u64>,
}

impl Period {
    /// This period with `periods_seen` counted over heaps `0 .. count`: the full periods from
    /// the preperiod on. Summaries of `count` heaps count them so, however many heaps were
    /// computed before the period was proved, so that a summary does not depend on how the
    /// values were obtained (in memory, from a table, or from the period itself).
    pub fn seen_in(mut self, count: u64) -> Period {
        self.periods_seen = count.saturating_sub(self.preperiod) / self.period.max(1);
        self
    }
}

/// The summary of a computed sequence, as `compute --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The canonical game code.
    pub game: String,
    /// Heaps computed (heaps `0..count`).
    pub count: u64,
    /// The largest value.
    pub max_value: u32,
    /// The first heap with the largest value.
    pub max_value_first_at: u64,
    /// How many heaps have each value (values that occur only).
    pub frequencies: BTreeMap<u32, u64>,
    /// The rare mask in hexadecimal, without `0x`.
    pub rare_mask: String,
    /// Heaps whose value is rare for the mask (heap 0 included).
    pub rare_count: u64,
    /// The last heap with a rare value.
    pub last_rare_at: Option<u64>,
    /// The period, when one is known.
    pub period: Option<Period>,
}

impl Summary {
    /// The summary of `G(0) … G(len − 1)` for `game`, from its statistics.
    pub fn from_stats(game: &str, stats: &Stats, period: Option<Period>) -> Summary {
        let h = &stats.histogram;
        Summary {
            game: game.to_string(),
            count: h.len,
            max_value: h.max_value(),
            max_value_first_at: h.max_first_at,
            frequencies: h.frequencies(),
            rare_mask: format!("{:x}", stats.rare_mask),
            rare_count: stats.rare_count,
            last_rare_at: stats.last_rare_at,
            period,
        }
    }

    /// The summary of values held in memory.
    pub fn of_values(game: &str, values: &Values) -> Summary {
        Summary::from_stats(game, &with_values!(values, v => stats_of(v)), None)
    }
}

fn stats_of<T: Cell>(v: &[T]) -> Stats {
    Stats::of_slice(v)
}
