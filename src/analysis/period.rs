//! Periodicity: periods proved by the octal periodicity theorem, and patterns only observed.
//!
//! **The theorem** (Guy & Smith 1956; Winning Ways ch. 4; Siegel, *Combinatorial Game Theory*,
//! the octal periodicity theorem). Let a finite octal code (digits 0–7, no `!`, no repeating
//! tail) have its last non-zero digit at index `t`. If `n0 ≥ 1`, `p ≥ 1` and
//! `G(n + p) = G(n)` for all `n0 ≤ n < 2·n0 + p + t`, then `G(n + p) = G(n)` for all `n ≥ n0`.
//! The values of heaps `0 … 2·n0 + 2p + t − 1` therefore prove the period.
//!
//! The statement implemented here, and why it is safe in the small cases (the proof is short;
//! this is the version checked by [`theorem_bound`]). By induction on `n ≥ 2·n0 + p + t`: a heap
//! of `n` or of `n + p` tokens is larger than `t`, so no "take the whole heap" option exists for
//! either of them. Taking `k ≤ t` tokens and leaving one heap gives `n − k` and `n + p − k` with
//! `n0 ≤ n − k < n`, equal by induction. Taking `k` and splitting `n + p − k = a + b`, `a ≤ b`,
//! gives `b ≥ n0 + p`, so `(a, b − p)` is a split of `n − k` into two non-empty heaps (this needs
//! `n0 ≥ 1`) with the same value; conversely a split `a + b = n − k`, `a ≤ b`, has `b ≥ n0` and
//! maps to `(a, b + p)`. The option values agree, so the values agree. With `n0 = 0` the map
//! could produce an empty heap, which is not always a legal move, so a period from heap 0 is
//! proved from `n0 = 1` (which only needs a few more values) and `G(p) = G(0)` is checked
//! directly. `!` rules (the map may make two heaps equal), hexadecimal digits (a three-way split
//! need not have a part ≥ `n0 + p`) and infinite codes are not covered: for them only observed
//! patterns are reported, with `proved: false`.
//!
//! **The smallest period and preperiod.** Once `(n0, p)` is proved, the sequence is periodic with
//! period `p` from `n0` forever. The smallest eventual period `p*` divides every eventual period
//! (if `d` and `p` are eventual periods, so is `gcd(d, p)`), so `p*` is the smallest divisor `d`
//! of `p` with `G(n + d) = G(n)` on one full period `n0 ≤ n < n0 + p` (which, with period `p`,
//! gives it for all `n ≥ n0`). Every multiple of `p*` has the same smallest preperiod as `p*`
//! (if `G(n + kp*) = G(n)` for `n ≥ m`, then `G(n + p*) = G(n + p* + jkp*) = G(n + jkp*) = G(n)`
//! for `n ≥ m` and `j` large), so the smallest preperiod is one more than the last `n` with
//! `G(n + p*) ≠ G(n)`, found by scanning down from `n0`. Both are exact, not "smallest seen".
//!
//! **Finding candidates as values arrive.** [`PeriodChecker`] keeps a few candidate periods, each
//! with its last mismatch (the last `n` with `G(n + p) ≠ G(n)`), updated per chunk by a backward
//! scan of the new values that stops at the first mismatch. New candidates come from a
//! Z-function of the reversed sequence (`z[p]` = how far back from the newest heap
//! `G(n) = G(n − p)` holds), run again each time the sequence has grown by an eighth, so its cost
//! is O(N) amortized. The theorem's condition is tested after every chunk, so a period is proved
//! within a chunk (or a small step, below [`crate::engine::CHUNK`] heaps) of the first heap where
//! the computed values allow it.
//!
//! **Observed patterns.** [`observe`] looks for the longest periodic tail of the values
//! (`G(n + p) = G(n)`), then, if there is none, for arithmetic periodicity
//! (`G(n + p) = G(n) + s`, Howse & Nowakowski 2004), which is ordinary periodicity of the
//! differences `G(n + 1) − G(n)`. A pattern is reported when at least [`MIN_PERIODS_SEEN`] full
//! periods were seen and it covers at least a quarter of the values computed (three periods of 3
//! at the end of 5,000 values of Grundy's game are noise, not an observation); it is never
//! called proved.

use std::ops::ControlFlow;

use serde::Serialize;

use super::{is_rare, Histogram, Period, Stats};
use crate::engine::{extend, Cell, EngineError, Fill, Values, CHUNK};
use crate::rules::Rule;
use crate::with_values;

/// The largest period the candidate search considers (memory: 8 bytes per period).
pub const MAX_SEARCHED_PERIOD: usize = 1 << 25;

/// An observed pattern is reported only when the values show at least this many full periods.
pub const MIN_PERIODS_SEEN: u64 = 3;

/// Candidates kept between two searches.
const MAX_CANDIDATES: usize = 32;

/// `t` (the index of the last non-zero digit) when the octal periodicity theorem covers `rule`.
pub fn theorem_t(rule: &Rule) -> Option<u64> {
    if rule.is_plain_octal() {
        rule.last_nonzero().map(|t| t as u64)
    } else {
        None
    }
}

/// The number of values (heaps `0 … bound − 1`) that prove period `p` from `n0` for a code whose
/// last non-zero digit is `t`: `2·max(n0, 1) + 2p + t` (see the module text for why `n0 = 0` is
/// checked from 1).
pub fn theorem_bound(n0: u64, p: u64, t: u64) -> u64 {
    2 * n0.max(1) + 2 * p + t
}

/// Everything the `period` command reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeriodReport {
    /// The canonical game code.
    pub game: String,
    /// Is the period proved by the theorem?
    pub proved: bool,
    /// The smallest heap from which the pattern holds (best candidate when not proved).
    pub preperiod: Option<u64>,
    /// The smallest period (best candidate when not proved).
    pub period: Option<u64>,
    /// `preperiod − 1`, or `None`.
    pub last_exception: Option<u64>,
    /// Arithmetic shift `s` in `G(n + p) = G(n) + s` (0 for ordinary periodicity).
    pub shift: Option<u32>,
    /// Full periods seen in the computed values from the preperiod on.
    pub periods_seen: Option<u64>,
    /// Values computed (heaps `0 … count − 1`).
    pub count: u64,
    /// The index `t` of the last non-zero digit, when the theorem applies to the game.
    pub theorem_t: Option<u64>,
    /// `2·max(n0,1) + 2p + t`: for a proved period, the values the theorem needed; for an
    /// unproved candidate of a game the theorem covers, the values a proof would need if the
    /// pattern persists that far.
    pub theorem_bound: Option<u64>,
}

impl PeriodReport {
    /// The report for `game` after `count` values, with the period found (if any).
    pub fn new(game: &str, count: u64, t: Option<u64>, period: Option<&Period>) -> PeriodReport {
        PeriodReport {
            game: game.to_string(),
            proved: period.is_some_and(|p| p.proved),
            preperiod: period.map(|p| p.preperiod),
            period: period.map(|p| p.period),
            last_exception: period.and_then(|p| p.last_exception),
            shift: period.map(|p| p.shift),
            periods_seen: period.map(|p| p.periods_seen),
            count,
            theorem_t: t,
            theorem_bound: period.and_then(|p| p.theorem_bound),
        }
    }
}

/// A candidate period and the last `n` with `G(n + p) ≠ G(n)` among the values seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Candidate {
    p: u64,
    last_mismatch: Option<u64>,
}

impl Candidate {
    fn preperiod(&self) -> u64 {
        self.last_mismatch.map_or(0, |m| m + 1)
    }
}

/// Checks a growing sequence for a period the octal periodicity theorem proves.
///
/// Call [`PeriodChecker::update`] whenever values were appended (after each chunk); it is cheap
/// when nothing changes and amortized O(new values) otherwise.
#[derive(Debug, Clone)]
pub struct PeriodChecker {
    t: Option<u64>,
    candidates: Vec<Candidate>,
    /// Heaps whose values the candidates' mismatches account for.
    seen: usize,
    /// The length at which the next candidate search runs.
    next_search: usize,
    proved: Option<Period>,
}

impl PeriodChecker {
    /// A checker for `rule`; it never proves anything when the theorem does not cover the rule.
    pub fn new(rule: &Rule) -> PeriodChecker {
        PeriodChecker {
            t: theorem_t(rule),
            candidates: Vec::new(),
            seen: 0,
            next_search: 0,
            proved: None,
        }
    }

    /// Does the octal periodicity theorem cover the rule?
    pub fn theorem_applies(&self) -> bool {
        self.t.is_some()
    }

    /// The proved period, once there is one.
    pub fn proved(&self) -> Option<&Period> {
        self.proved.as_ref()
    }

    /// The candidate closest to a proof in `v` when nothing is proved (yet): among the
    /// periods whose pattern fills at least two full periods at the end of the values, the one
    /// whose proof needs the fewest values (`theorem_bound`), as a [`Period`] with
    /// `proved: false`. `None` when the theorem does not cover the rule or no period qualifies.
    pub fn best_candidate_slice<T: Cell>(&self, v: &[T]) -> Option<Period> {
        let t = self.t?;
        let len = v.len() as u64;
        search(v, t)
            .into_iter()
            .min_by_key(|c| (theorem_bound(c.preperiod(), c.p, t), c.p))
            .map(|c| {
                let n0 = c.preperiod();
                Period {
                    preperiod: n0,
                    period: c.p,
                    last_exception: n0.checked_sub(1),
                    shift: 0,
                    proved: false,
                    periods_seen: (len - n0) / c.p,
                    theorem_bound: Some(theorem_bound(n0, c.p, t)),
                }
            })
    }

    /// [`PeriodChecker::best_candidate_slice`] for values in memory.
    pub fn best_candidate(&self, values: &Values) -> Option<Period> {
        with_values!(values, v => self.best_candidate_slice(v))
    }

    /// Looks at the values appended since the last call; returns the period once it is proved.
    pub fn update(&mut self, values: &Values) -> Option<&Period> {
        with_values!(values, v => self.update_slice(v))
    }

    /// [`PeriodChecker::update`] for values in any slice (a table's mapped values, say).
    pub fn update_slice<T: Cell>(&mut self, v: &[T]) -> Option<&Period> {
        let t = self.t?;
        if self.proved.is_some() {
            return self.proved.as_ref();
        }
        let len = v.len();
        if len < self.seen {
            // The values were cut back (never done by the driver, but be safe): start again.
            self.candidates.clear();
            self.seen = 0;
            self.next_search = 0;
        }
        if len >= self.next_search {
            self.candidates = search(v, t);
            self.next_search = len + (len / 8).max(64);
        } else {
            for c in &mut self.candidates {
                track(v, self.seen, c);
            }
        }
        self.seen = len;
        let proved = self
            .candidates
            .iter()
            .filter(|c| theorem_bound(c.preperiod(), c.p, t) <= len as u64)
            .min_by_key(|c| (c.p, c.preperiod()))
            .copied();
        if let Some(c) = proved {
            self.proved = Some(minimize(v, c.preperiod(), c.p, t));
        }
        self.proved.as_ref()
    }
}

/// Updates the last mismatch of `c` with the heaps `from..vals.len()`.
fn track<T: Cell>(vals: &[T], from: usize, c: &mut Candidate) {
    let p = c.p as usize;
    let lo = from.max(p);
    // The last j in lo..len with G(j) ≠ G(j − p): scan backwards, stop at the first.
    if let Some(j) = (lo..vals.len()).rev().find(|&j| vals[j] != vals[j - p]) {
        c.last_mismatch = Some((j - p) as u64);
    }
}

/// The Z-function of the reversed sequence `at(len − 1), at(len − 2), …`, for shifts `1..=pmax`:
/// `z[p]` = the largest `k` with `at(len − 1 − i) = at(len − 1 − i − p)` for all `i < k`.
///
/// Stored as `u32`, half the memory of `u64` (the search runs to 2^25 shifts: 128 MiB, not 256);
/// a value of `u32::MAX` or more is stored as `u32::MAX` and [`z_at`] gives it exactly.
fn z_reversed(len: usize, pmax: usize, at: impl Fn(usize) -> u32) -> Vec<u32> {
    z_reversed_capped(len, pmax, at, u32::MAX)
}

/// [`z_reversed`] with values stored up to `cap` (a parameter so that tests reach the capped
/// case). An entry capped below its true value only makes the algorithm start its comparison
/// earlier than it could, never wrong.
fn z_reversed_capped(len: usize, pmax: usize, at: impl Fn(usize) -> u32, cap: u32) -> Vec<u32> {
    let pmax = pmax.min(len.saturating_sub(1));
    let r = |i: usize| at(len - 1 - i);
    let mut z = vec![0u32; pmax + 1];
    if len == 0 {
        return z;
    }
    let store = |k: usize| k.min(cap as usize) as u32;
    z[0] = store(len);
    let (mut l, mut right) = (0usize, 0usize); // [l, right) matches a prefix of r
    for i in 1..=pmax {
        let mut k = if i < right {
            (z[i - l] as usize).min(right - i)
        } else {
            0
        };
        while i + k < len && r(k) == r(i + k) {
            k += 1;
        }
        z[i] = store(k);
        if i + k > right {
            l = i;
            right = i + k;
        }
    }
    z
}

/// `z[p]` exactly, for `z` from [`z_reversed_capped`] with `cap`: a capped entry is extended by
/// comparing on from where it stopped.
fn z_at(z: &[u32], p: usize, cap: u32, len: usize, at: impl Fn(usize) -> u32) -> u64 {
    let mut k = z[p] as usize;
    if z[p] == cap {
        let r = |i: usize| at(len - 1 - i);
        while p + k < len && r(k) == r(p + k) {
            k += 1;
        }
    }
    k as u64
}

/// Candidate periods for a sequence whose proof needs `2·max(n0,1) + 2p + t` values: the
/// periods with at least two full periods in the tail, the ones closest to a proof first,
/// leaving out multiples of a candidate already taken.
fn search<T: Cell>(vals: &[T], t: u64) -> Vec<Candidate> {
    let len = vals.len();
    if len < 2 {
        return Vec::new();
    }
    let pmax = (len / 2).min(MAX_SEARCHED_PERIOD);
    let z = z_reversed(len, pmax, |i| vals[i].get());
    let mut all: Vec<(u64, Candidate)> = (1..z.len())
        .filter(|&p| z[p] as usize >= p)
        .map(|p| {
            let matched = z_at(&z, p, u32::MAX, len, |i| vals[i].get()) as usize;
            let last_mismatch = (matched < len - p).then(|| (len - 1 - matched - p) as u64);
            let c = Candidate {
                p: p as u64,
                last_mismatch,
            };
            (theorem_bound(c.preperiod(), c.p, t), c)
        })
        .collect();
    all.sort_by_key(|&(need, c)| (need, c.p));
    let mut kept: Vec<Candidate> = Vec::new();
    for (_, c) in all {
        if kept.len() == MAX_CANDIDATES {
            break;
        }
        if !kept.iter().any(|k| c.p % k.p == 0) {
            kept.push(c);
        }
    }
    kept
}

/// The smallest period and preperiod, given that `(n0, p)` is proved (see the module text).
fn minimize<T: Cell>(vals: &[T], n0: u64, p: u64, t: u64) -> Period {
    let (n0u, pu) = (n0 as usize, p as usize);
    let best_p = (1..=pu)
        .filter(|d| pu % d == 0)
        .find(|&d| (n0u..n0u + pu).all(|n| vals[n + d] == vals[n]))
        .expect("p itself is a period");
    let preperiod = (0..n0u)
        .rev()
        .find(|&n| vals[n + best_p] != vals[n])
        .map_or(0, |n| n as u64 + 1);
    debug_assert_eq!(preperiod, n0, "multiples of the period share the preperiod");
    let best_p = best_p as u64;
    Period {
        preperiod,
        period: best_p,
        last_exception: preperiod.checked_sub(1),
        shift: 0,
        proved: true,
        periods_seen: (vals.len() as u64 - preperiod) / best_p,
        theorem_bound: Some(theorem_bound(preperiod, best_p, t)),
    }
}

/// Extends `values` up to `max` heaps with `engine`, checking for a proved period as it goes;
/// stops as soon as one is proved. Below [`CHUNK`] heaps it grows in steps of a quarter, so a
/// small period is proved with few values; from there on after every chunk. `progress` is called
/// as in [`extend`] and may stop the computation.
pub fn extend_checking<E: Fill>(
    engine: &mut E,
    values: &mut Values,
    max: usize,
    checker: &mut PeriodChecker,
    progress: &mut dyn FnMut(&Values) -> ControlFlow<()>,
) -> Result<(), EngineError> {
    if !checker.theorem_applies() {
        return extend(engine, values, max, progress);
    }
    while values.len() < max.min(CHUNK) {
        let target = (values.len() + values.len() / 4).clamp(64, CHUNK).min(max);
        extend(engine, values, target, progress)?;
        if checker.update(values).is_some() {
            return Ok(());
        }
    }
    let result = extend(engine, values, max, &mut |v| {
        if checker.update(v).is_some() {
            return ControlFlow::Break(());
        }
        progress(v)
    });
    match result {
        Err(EngineError::Stopped { .. }) if checker.proved().is_some() => Ok(()),
        other => other,
    }
}

/// An engine that stops computing once the octal periodicity theorem proves a period and fills
/// every later heap from it (`G(n) = G(n − p)`), so that storage which must hold every value (a
/// table on disk) is completed at the cost of a copy. It looks at the values it is handed before
/// each call, so it works on any prefix (a resumed table) and with any driver.
#[derive(Debug)]
pub struct StopAtPeriod<E> {
    engine: E,
    checker: PeriodChecker,
}

impl<E: Fill> StopAtPeriod<E> {
    /// `engine`, for the rule `rule`.
    pub fn new(engine: E, rule: &Rule) -> StopAtPeriod<E> {
        StopAtPeriod {
            engine,
            checker: PeriodChecker::new(rule),
        }
    }

    /// The period proved so far.
    pub fn proved(&self) -> Option<&Period> {
        self.checker.proved()
    }

    /// The checker (for a best candidate when nothing was proved).
    pub fn checker(&self) -> &PeriodChecker {
        &self.checker
    }
}

impl<E: Fill> Fill for StopAtPeriod<E> {
    fn fill<T: Cell>(
        &mut self,
        vals: &mut [T],
        start: usize,
        end: usize,
    ) -> Result<(), crate::engine::Overflow> {
        if self.checker.theorem_applies() && self.checker.proved().is_none() {
            self.checker.update_slice(&vals[..start]);
        }
        if let Some(p) = self.checker.proved() {
            // The proof needed 2·max(n0,1) + 2p + t ≥ n0 + p values, all before `start`, so
            // every heap copied from is at least n0.
            let p = p.period as usize;
            for n in start..end {
                vals[n] = vals[n - p];
            }
            return Ok(());
        }
        self.engine.fill(vals, start, end)?;
        if self.checker.theorem_applies() {
            self.checker.update_slice(&vals[..end]);
        }
        Ok(())
    }
}

/// The longest periodic tail of `at(0) … at(len − 1)` with at least [`MIN_PERIODS_SEEN`] full
/// periods and a quarter of the values: `(preperiod, period)`, the smallest preperiod first, then
/// the smallest period.
fn longest_periodic_tail(len: usize, at: impl Fn(usize) -> u32) -> Option<(u64, u64)> {
    let pmax = (len / MIN_PERIODS_SEEN as usize).min(MAX_SEARCHED_PERIOD);
    if pmax == 0 {
        return None;
    }
    let z = z_reversed(len, pmax, &at);
    (1..z.len())
        .map(|p| (p, z_at(&z, p, u32::MAX, len, &at)))
        .filter(|&(p, k)| {
            let tail = k + p as u64;
            tail >= MIN_PERIODS_SEEN * p as u64 && 4 * tail >= len as u64
        })
        .map(|(p, k)| (len as u64 - p as u64 - k, p as u64))
        .min()
}

/// The periodicity the values show, without proof: ordinary periodicity if there is a tail with
/// at least [`MIN_PERIODS_SEEN`] periods, else arithmetic periodicity `G(n + p) = G(n) + s`.
pub fn observe(values: &Values) -> Option<Period> {
    with_values!(values, v => observe_slice(v))
}

/// [`observe`] for values in any slice.
pub fn observe_slice<T: Cell>(v: &[T]) -> Option<Period> {
    let len = v.len();
    let found = |preperiod: u64, period: u64, shift: u32| Period {
        preperiod,
        period,
        last_exception: preperiod.checked_sub(1),
        shift,
        proved: false,
        periods_seen: (len as u64 - preperiod) / period,
        theorem_bound: None,
    };
    if let Some((n0, p)) = longest_periodic_tail(len, |i| v[i].get()) {
        return Some(found(n0, p, 0));
    }
    // Differences d(n) = G(n + 1) − G(n) (mod 2^32): d periodic with period p from n0 exactly
    // when G(n + p) − G(n) is the same for all n ≥ n0 (see the module text).
    let diff = |i: usize| v[i + 1].get().wrapping_sub(v[i].get());
    let (n0, p) = longest_periodic_tail(len.checked_sub(1)?, diff)?;
    let (a, b) = (v[n0 as usize].get(), v[(n0 + p) as usize].get());
    // Only growing patterns are arithmetic periodicity; values cannot keep falling.
    (b > a).then(|| found(n0, p, b - a))
}

/// The value of heap `n` of a sequence known in `prefix` and periodic from `period` on.
pub fn periodic_value(prefix: &Values, period: &Period, n: u64) -> u32 {
    if n < prefix.len() as u64 {
        return prefix.get(n as usize);
    }
    let (n0, p) = (period.preperiod, period.period);
    let cycles = (n - n0) / p;
    let base = prefix.get((n0 + (n - n0) % p) as usize);
    base + (cycles as u32).wrapping_mul(period.shift)
}

/// The values of heaps `0 … len − 1` of a sequence computed in `prefix` and periodic from a
/// proved `period` on: `get(n)` reads the prefix or the period, so `len` may be far beyond what
/// memory holds.
#[derive(Debug, Clone, Copy)]
pub struct PeriodicValues<'a> {
    prefix: &'a Values,
    period: &'a Period,
    len: usize,
}

impl<'a> PeriodicValues<'a> {
    /// Heaps `0 … len − 1`; the prefix must hold one full period from the preperiod on (a
    /// proved period always does).
    pub fn new(prefix: &'a Values, period: &'a Period, len: usize) -> PeriodicValues<'a> {
        assert!(
            prefix.len() as u64 >= period.preperiod + period.period,
            "the prefix holds a full period"
        );
        PeriodicValues {
            prefix,
            period,
            len,
        }
    }
}

impl crate::engine::GrundyValues for PeriodicValues<'_> {
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, n: usize) -> u32 {
        periodic_value(self.prefix, self.period, n as u64)
    }
}

/// Statistics of `G(0) … G(count − 1)` when the values are computed up to `prefix.len()` and a
/// proved ordinary period gives the rest. The prefix must hold at least one full period from the
/// preperiod on (a proved period always does).
pub fn extended_stats(prefix: &Values, period: &Period, count: u64) -> Stats {
    assert_eq!(period.shift, 0, "only ordinary periods extend statistics");
    let known = prefix.len() as u64;
    let (n0, p) = (period.preperiod, period.period);
    assert!(known >= n0 + p, "the prefix holds a full period");
    let mut histogram = Histogram::default();
    with_values!(prefix, v => histogram.add_slice(&v[..count.min(known) as usize]));
    if count > known {
        let rest = count - known;
        let (full, rem) = (rest / p, rest % p);
        let first = (known - n0) % p; // the cycle position of heap `known`
        for i in 0..p {
            let g = prefix.get((n0 + i) as usize) as usize;
            // Heaps known.. take cycle positions first, first + 1, …, wrapping around.
            let extra = u64::from((i + p - first) % p < rem);
            histogram.counts[g] += full + extra;
        }
        histogram.len = count;
    }
    let (rare_mask, rare_count) = histogram.rare_mask();
    let last_rare_at = (n0.min(count).max(count.saturating_sub(p))..count)
        .rev()
        .chain((0..n0.min(count)).rev())
        .find(|&n| is_rare(periodic_value(prefix, period, n), rare_mask));
    Stats {
        histogram,
        rare_mask,
        rare_count,
        last_rare_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{compute, EngineKind, Exact};
    use proptest::prelude::*;

    fn values_of(code: &str, n: usize) -> Values {
        compute(&Rule::parse(code).unwrap(), n, EngineKind::Exact).unwrap()
    }

    /// The smallest period and preperiod of a slice by brute force: the `(n0, p)` with the
    /// smallest p, then n0, such that the tail from n0 holds at least `min_seen` periods and a
    /// quarter of the values.
    fn brute_tail(v: &[u32], min_seen: u64) -> Option<(u64, u64)> {
        let len = v.len();
        let mut best: Option<(u64, u64)> = None;
        for p in 1..=len {
            let n0 = (0..len.saturating_sub(p))
                .rev()
                .find(|&n| v[n + p] != v[n])
                .map_or(0, |n| n + 1);
            if (len - n0) as u64 >= min_seen * p as u64 && 4 * (len - n0) >= len {
                let cand = (n0 as u64, p as u64);
                if best.is_none_or(|b| cand < b) {
                    best = Some(cand);
                }
            }
        }
        best
    }

    proptest! {
        #[test]
        fn z_function_matches_definition(v in prop::collection::vec(0u32..3, 1..120)) {
            let len = v.len();
            let z = z_reversed(len, len, |i| v[i]);
            // Capped at 3: every entry of 3 or more is extended by `z_at`.
            let capped = z_reversed_capped(len, len, |i| v[i], 3);
            for p in 1..len {
                let k = (0..len - p).take_while(|&i| v[len - 1 - i] == v[len - 1 - i - p]).count();
                prop_assert_eq!(z[p] as usize, k);
                prop_assert_eq!(z_at(&capped, p, 3, len, |i| v[i]), k as u64);
            }
        }

        #[test]
        fn longest_tail_matches_brute_force(v in prop::collection::vec(0u32..3, 1..150)) {
            prop_assert_eq!(longest_periodic_tail(v.len(), |i| v[i]), brute_tail(&v, MIN_PERIODS_SEEN));
        }

        #[test]
        fn extended_stats_match_direct(code in "0\\.[0-7]{1,3}", extra in 0u64..3000) {
            let rule = Rule::parse(&code).unwrap();
            let mut values = Values::default();
            let mut checker = PeriodChecker::new(&rule);
            extend_checking(&mut Exact::new(&rule), &mut values, 4000, &mut checker,
                &mut |_| ControlFlow::Continue(())).unwrap();
            if let Some(period) = checker.proved().cloned() {
                let count = values.len() as u64 + extra;
                let full = values_of(&code, count as usize);
                let direct = with_values!(&full, v => Stats::of_slice(v));
                prop_assert_eq!(extended_stats(&values, &period, count), direct);
                for n in (0..count).step_by(7) {
                    prop_assert_eq!(periodic_value(&values, &period, n), full.get(n as usize));
                }
            }
        }
    }

    #[test]
    fn stop_at_period_fills_the_true_values() {
        // Kayles (period 12 from 71) and 0.137 in chunks of 50 heaps, and a run resumed from a
        // prefix: the copied values equal the exact engine's.
        for code in ["0.77", "0.137", "0.6", "4!.0"] {
            let rule = Rule::parse(code).unwrap();
            let expected = values_of(code, 3000).to_u32s();
            let mut vals = vec![0u16; 3000];
            let mut e = StopAtPeriod::new(Exact::new(&rule), &rule);
            for start in (0..1000).step_by(50) {
                e.fill(&mut vals, start, start + 50).unwrap();
            }
            // A fresh adapter resumes from the first 1000 heaps.
            let mut e = StopAtPeriod::new(Exact::new(&rule), &rule);
            e.fill(&mut vals, 1000, 3000).unwrap();
            let got: Vec<u32> = vals.iter().map(|v| v.get()).collect();
            assert_eq!(got, expected, "{code}");
            assert_eq!(e.proved().is_some(), code == "0.77" || code == "0.137");
        }
    }

    #[test]
    fn theorem_bound_small_cases() {
        assert_eq!(theorem_bound(71, 12, 2), 2 * 71 + 24 + 2);
        // A period from heap 0 is proved from heap 1.
        assert_eq!(theorem_bound(0, 2, 1), 2 + 4 + 1);
    }

    #[test]
    fn only_plain_octal_codes_are_covered() {
        for (code, t) in [
            ("0.77", Some(2)),
            ("0.137", Some(3)),
            ("4.0", Some(0)),
            ("0.0", Some(0)),
            ("0.0001", Some(4)),
            ("4!.0", None),
            ("0.[3]", None),
            ("0.3F", None),
            ("0.8", None),
        ] {
            assert_eq!(theorem_t(&Rule::parse(code).unwrap()), t, "{code}");
        }
    }

    #[test]
    fn observes_arithmetic_periodicity() {
        // 0.3F: G(n + 6) = G(n) + 3 from an early heap (ALGORITHMS §5, Howse & Nowakowski 2004).
        let v = values_of("0.3F", 300);
        let p = observe(&v).unwrap();
        assert_eq!((p.period, p.shift, p.proved), (6, 3, false));
        for n in p.preperiod as usize..294 {
            assert_eq!(v.get(n + 6), v.get(n) + 3);
        }
        // Nim: G(n + 1) = G(n) + 1 from heap 0.
        let p = observe(&values_of("nim", 100)).unwrap();
        assert_eq!((p.preperiod, p.period, p.shift), (0, 1, 1));
    }
}
