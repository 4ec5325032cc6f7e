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
//! **Finding candidates as values arrive: no ceiling on the period.** Write `z(p)` for how far
//! back from the newest heap `G(n) = G(n − p)` holds among the `N` values computed; the tail
//! from `n0 = N − z(p) − p` is `p`-periodic, and the proof condition
//! `2·max(n0, 1) + 2p + t ≤ N` gives `p < N/2 ≤ z(p)`. Everything rests on one lemma:
//!
//! *If `q ≤ k ≤ z(q)`, the most recent earlier occurrence of the newest `k` values — the
//! smallest shift `p1 ≥ 1` with `z(p1) ≥ k` — divides `q`, and the `p1`-periodic tail contains
//! the `q`-periodic one.* Proof: the last `k + q` values `X` are `q`-periodic; write `u[r]` for
//! the value at the heaps `≡ r (mod q)` in `X`. The window of `k ≥ q` values covers every residue,
//! so `z(p1) ≥ k` says `u[r] = u[r − p1 mod q]` for all `r`: `u` is invariant under rotation by
//! `d = gcd(p1, q)`, so `X` is `d`-periodic, `z(d) ≥ k + q − d ≥ k`, and `p1 ≤ d` by minimality:
//! `p1 = d` divides `q`. A `q`-periodic stretch whose last `q` values are `p1`-periodic, with
//! `p1 | q`, is `p1`-periodic (every heap equals one of the last `q` at a multiple of `q`, and
//! the residues mod `p1` are kept), so `z(p1) ≥ z(q)`; and while `G(n) = G(n − q)` continues,
//! `G(n − q) = G(n − p1)` inside that stretch, so `p1` continues too. Hence `p1`'s preperiod
//! is at most `q`'s and its proof needs no more values.
//!
//! [`PeriodChecker`] keeps a few candidates (at most 8), each with its last mismatch, updated
//! per chunk by a backward scan of the new values that stops at the first mismatch. At lengths
//! `M` growing by a quarter (`M' = M + ⌊M/4⌋ + 1`) it searches: (a) the most recent earlier
//! occurrence of the newest `⌊M/2⌋` values at any shift, and (b) that of the newest `⌊3M/8⌋`
//! values at shifts up to `⌊3M/8⌋`; each is found by a rolling hash slid back over the values
//! and checked value by value (a hash never decides anything), O(M) time and O(1) memory. The
//! searches cost O(N) in all, and the memory is the values plus a few words: nothing grows with
//! the period. Why nothing provable is missed: if `(n0, q)` meets the condition at `N`, then
//! `q < N/2 ≤ z(q)`, so (a) run at `N` finds a `p1` that the lemma makes provable at `N`. If it
//! first meets it at `N` between searches at `M` and `M'`, then `z(q)` was at least
//! `N/2 − (N − M) ≥ 3M/8` at `M`, so when `q ≤ ⌊3M/8⌋` the candidate of (b) divides `q`, has
//! followed it since, and is proved in the same chunk as `q` would be; a longer period (more than
//! 3/8 of the values, so a preperiod under `N/16`) is proved by the next search, at most a quarter
//! later. Proofs are then reduced to the smallest period and preperiod (below), so the answer
//! never depends on which multiple was found first.
//!
//! **Observed patterns.** [`observe`] looks for the longest periodic tail of the values
//! (`G(n + p) = G(n)`), then, if there is none, for arithmetic periodicity
//! (`G(n + p) = G(n) + s`, Howse & Nowakowski 2004), which is ordinary periodicity of the
//! differences `G(n + 1) − G(n)`. A pattern is reported when at least [`MIN_PERIODS_SEEN`] (3)
//! full periods were seen and it covers at least a quarter of the values computed (three periods of 3
//! at the end of 5,000 values of Grundy's game are noise, not an observation); it is never
//! called proved. The search is exact and has no ceiling either: such a tail has `z(p) ≥ 2p`
//! and `z(p) + p ≥ N/4`, so one of `k = k0, 2·k0, 4·k0, …` (`k0 = max(1, ⌊N/12⌋)`) lies in
//! `[p, z(p)]`, and by the lemma the most recent earlier occurrence of the newest `k` values is a
//! period with a tail at least as long and a period no longer: a few O(N) scans.

use std::ops::ControlFlow;

use serde::Serialize;

use super::occurrence::{first_occurrence, match_len, Diffs, Plain, Sequence};
use super::{is_rare, Histogram, Period, Stats};
use crate::engine::{extend, Cell, EngineError, Fill, Values, CHUNK};
use crate::rules::Rule;
use crate::with_values;

/// An observed pattern is reported only when the values show at least this many full periods.
pub const MIN_PERIODS_SEEN: u64 = 3;

/// Candidates tracked (the newest found; each costs a comparison per new value).
const MAX_CANDIDATES: usize = 8;

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

/// Everything the `period` command reports (docs/JSON.md): the game, the values computed, the
/// theorem's `t` when it covers the game, and the period found, nested as in every summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeriodReport {
    /// The canonical game code.
    pub game: String,
    /// Values computed (heaps `0 … count − 1`).
    pub count: u64,
    /// The index `t` of the last non-zero digit, when the theorem applies to the game.
    pub theorem_t: Option<u64>,
    /// The period proved, else the candidate closest to a proof (a game the theorem covers),
    /// else the pattern observed; its `periods_seen` counts the full periods in heaps
    /// `0 … count − 1`.
    pub period: Option<Period>,
    /// The search was stopped (Ctrl-C) before a proof or its limit: `period` is the best so far.
    /// Not part of the JSON: the command says so on stderr.
    #[serde(skip)]
    pub stopped: bool,
}

impl PeriodReport {
    /// The report for `game` after `count` values, with the period found (if any).
    pub fn new(game: &str, count: u64, t: Option<u64>, period: Option<Period>) -> PeriodReport {
        PeriodReport {
            game: game.to_string(),
            count,
            theorem_t: t,
            period: period.map(|p| p.seen_in(count)),
            stopped: false,
        }
    }

    /// Is the period proved?
    pub fn proved(&self) -> bool {
        self.period.as_ref().is_some_and(|p| p.proved)
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
        PeriodChecker::for_theorem_t(theorem_t(rule))
    }

    /// A checker for any sequence, as if it were the values of a code whose last non-zero digit
    /// is at index `t` (`None`: it never proves anything). For synthetic sequences in tests and
    /// benchmarks; a "proof" is then only the theorem's condition holding on the values seen.
    pub fn for_theorem_t(t: Option<u64>) -> PeriodChecker {
        PeriodChecker {
            t,
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

    /// The candidate closest to a proof in `v` when nothing is proved (yet), as a [`Period`]
    /// with `proved: false` and the values its proof would need (`theorem_bound`). Among the
    /// periods whose pattern fills at least two full periods at the end of the values, the one
    /// whose proof needs the fewest values, looked for among the candidates tracked and the
    /// most recent earlier occurrences of the newest `k` values for `k = len/2, len/3, len/4.5,
    /// …` down to `len/32`: exact among the periods with at least 2.5 periods seen whose
    /// pattern covers at least 1/21 of the values (see the module text). `None` when the
    /// theorem does not cover the rule or no period qualifies.
    pub fn best_candidate_slice<T: Cell>(&self, v: &[T]) -> Option<Period> {
        let t = self.t?;
        let len = v.len();
        let s = Plain(v);
        let mut found: Vec<(usize, usize)> = self
            .candidates
            .iter()
            .map(|c| c.p as usize)
            .filter(|&p| p < len)
            .map(|p| (p, match_len(&s, p)))
            .collect();
        let mut k = len / 2;
        while k >= (len / 32).max(1) {
            found.extend(first_occurrence(&s, k, len));
            k = k * 2 / 3;
        }
        found
            .into_iter()
            .filter(|&(p, z)| z >= p)
            .map(|(p, z)| ((len - z - p) as u64, p as u64))
            .min_by_key(|&(n0, p)| (theorem_bound(n0, p, t), p))
            .map(|(n0, p)| Period {
                preperiod: n0,
                period: p,
                last_exception: n0.checked_sub(1),
                shift: 0,
                proved: false,
                periods_seen: (len as u64 - n0) / p,
                theorem_bound: Some(theorem_bound(n0, p, t)),
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

    /// [`PeriodChecker::update`] with a search at this length whatever the schedule, so that
    /// the verdict is exact for these values: a period is proved exactly when some period meets
    /// the theorem's condition on them. For the end of a run (one O(N) scan).
    pub fn settle(&mut self, values: &Values) -> Option<&Period> {
        with_values!(values, v => self.settle_slice(v))
    }

    /// [`PeriodChecker::settle`] for values in any slice.
    pub fn settle_slice<T: Cell>(&mut self, v: &[T]) -> Option<&Period> {
        self.next_search = 0;
        self.update_slice(v)
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
        for c in &mut self.candidates {
            track(v, self.seen, c);
        }
        if len >= self.next_search {
            self.search(v);
            self.next_search = len + len / 4 + 1;
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

    /// The search at `M = v.len()` (see the module text): the most recent earlier occurrence of
    /// the newest `⌊3M/8⌋` values at a shift of at most `⌊3M/8⌋`, and of the newest `⌊M/2⌋`
    /// values at any shift, each added to the candidates tracked.
    fn search<T: Cell>(&mut self, v: &[T]) {
        let len = v.len();
        let w = 3 * len / 8;
        for (k, max_shift) in [(w, w), (len / 2, len)] {
            if let Some((p, z)) = first_occurrence(&Plain(v), k, max_shift) {
                let c = Candidate::from_match(len, p, z);
                self.candidates.retain(|old| old.p != c.p);
                if self.candidates.len() == MAX_CANDIDATES {
                    self.candidates.remove(0);
                }
                self.candidates.push(c);
            }
        }
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

impl Candidate {
    /// The candidate `p` with `z(p) = z` among `len` values (see [`match_len`]).
    fn from_match(len: usize, p: usize, z: usize) -> Candidate {
        Candidate {
            p: p as u64,
            last_mismatch: (z + p < len).then(|| (len - 1 - z - p) as u64),
        }
    }
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
/// stops as soon as one is proved (and settles the verdict at `max` when none was). Below [`CHUNK`] heaps it grows in steps of a quarter, so a
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
        Ok(()) => {
            // The verdict exact at the last length, whatever the search schedule.
            checker.settle(values);
            Ok(())
        }
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
/// the smallest period. Exact: the most recent earlier occurrences of the newest `k` values for
/// `k = k0, 2·k0, 4·k0, …` below `len`, `k0 = max(1, ⌊len/12⌋)`, dominate every such tail (see
/// the module text); O(len) time, O(1) memory.
fn longest_periodic_tail(s: &impl Sequence) -> Option<(u64, u64)> {
    let len = s.len();
    let seen = MIN_PERIODS_SEEN as usize;
    let mut best: Option<(u64, u64)> = None;
    let mut k = (len / 12).max(1);
    while k < len {
        if let Some((p, z)) = first_occurrence(s, k, len) {
            let tail = z + p;
            if tail >= seen * p && 4 * tail >= len {
                let c = ((len - tail) as u64, p as u64);
                best = Some(best.map_or(c, |b| b.min(c)));
            }
        }
        k *= 2;
    }
    best
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
    if let Some((n0, p)) = longest_periodic_tail(&Plain(v)) {
        return Some(found(n0, p, 0));
    }
    // Differences d(n) = G(n + 1) − G(n) (mod 2^32): d periodic with period p from n0 exactly
    // when G(n + p) − G(n) is the same for all n ≥ n0 (see the module text).
    if len == 0 {
        return None;
    }
    let (n0, p) = longest_periodic_tail(&Diffs(v))?;
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

    /// The smallest `(n0, p)` whose theorem condition holds on `v` (with `t`), by brute force:
    /// the smallest such p, with the smallest preperiod for it.
    fn brute_proof(v: &[u32], t: u64) -> Option<(u64, u64)> {
        let len = v.len();
        (1..len).find_map(|p| {
            let z = (0..len - p)
                .take_while(|&i| v[len - 1 - i] == v[len - 1 - i - p])
                .count();
            let n0 = (len - z - p) as u64;
            (theorem_bound(n0, p as u64, t) <= len as u64).then_some((n0, p as u64))
        })
    }

    proptest! {
        #[test]
        fn first_occurrence_matches_definition(
            v in prop::collection::vec(0u32..3, 1..120),
            k in 1usize..60,
            max_shift in 1usize..120,
        ) {
            let len = v.len();
            let z = |p: usize| (0..len - p)
                .take_while(|&i| v[len - 1 - i] == v[len - 1 - i - p])
                .count();
            let expected = (k < len)
                .then(|| (1..=max_shift.min(len - k)).find(|&p| z(p) >= k).map(|p| (p, z(p))))
                .flatten();
            prop_assert_eq!(first_occurrence(&Plain(&v[..]), k, max_shift), expected);
        }

        #[test]
        fn longest_tail_matches_brute_force(v in prop::collection::vec(0u32..3, 1..150)) {
            prop_assert_eq!(longest_periodic_tail(&Plain(&v[..])), brute_tail(&v, MIN_PERIODS_SEEN));
        }

        /// The checker on synthetic sequences fed in random chunks: a random prefix, then a
        /// random pattern repeated (sometimes itself a repetition of a smaller one: a period
        /// that is a multiple of a smaller one), sometimes with one late exception. At every
        /// length the checker sees, it proves exactly when the theorem's condition holds for
        /// some period on those values (brute force), at the latest one search later, and its
        /// answer is the smallest period that satisfies the condition, with its preperiod.
        #[test]
        fn checker_proves_what_brute_force_proves(
            prefix in prop::collection::vec(0u32..4, 0..200),
            unit in prop::collection::vec(0u32..4, 1..120),
            repeats in 1usize..4,
            t in 0u64..4,
            exception in prop::option::of(0.0f64..1.0),
            chunks in prop::collection::vec(1usize..150, 1..60),
        ) {
            let pattern: Vec<u32> = unit.iter().copied().cycle().take(unit.len() * repeats).collect();
            let p = pattern.len();
            let len = 2 * prefix.len() + 3 * p + t as usize + 200;
            let mut v: Vec<u32> = prefix.clone();
            while v.len() < len {
                v.push(pattern[(v.len() - prefix.len()) % p]);
            }
            if let Some(x) = exception {
                let at = prefix.len() + ((len - prefix.len()) as f64 * x) as usize;
                if at < len {
                    v[at] = 9;
                }
            }
            let mut checker = PeriodChecker::for_theorem_t(Some(t));
            let (mut n, mut first, mut i) = (0usize, None, 0usize);
            while n < len && checker.proved().is_none() {
                n = (n + chunks[i % chunks.len()]).min(len);
                i += 1;
                let expected = brute_proof(&v[..n], t);
                // The first length of the current run of lengths with a proof (an exception
                // can end one: synthetic values need not obey the theorem).
                match expected {
                    None => first = None,
                    Some((_, q)) if first.is_none() => first = Some((n, q)),
                    Some(_) => {}
                }
                match checker.update_slice(&v[..n]) {
                    Some(got) => {
                        prop_assert_eq!(Some((got.preperiod, got.period)), expected, "at {}", n);
                        let (f, q) = first.unwrap();
                        // Small periods at once; larger ones by the next search.
                        prop_assert!(n == f || q as usize > 3 * (f - 1) / 10 - 1, "{} vs {}", n, f);
                        prop_assert!(n <= f + f / 4 + 1 + 150, "{} vs {}", n, f);
                    }
                    None => prop_assert!(
                        first.is_none_or(|(f, _)| n <= f + f / 4 + 1 + 150),
                        "not proved at {} though provable at {:?}", n, first
                    ),
                }
            }
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

    /// A synthetic sequence: `n0` pseudo-random values (the last of them breaking the period),
    /// then a pseudo-random pattern of `p` values repeated, `len` values in all.
    fn synthetic(n0: usize, p: usize, len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 7) as u8
        };
        let pattern: Vec<u8> = (0..p).map(|_| next()).collect();
        let mut v: Vec<u8> = (0..n0).map(|_| next()).collect();
        if n0 > 0 {
            v[n0 - 1] = pattern[(n0 - 1 + p - n0 % p) % p].wrapping_add(1) % 7;
        }
        v.extend((0..len - n0).map(|i| pattern[i % p]));
        v
    }

    /// Feeds `v` to a checker in chunks of [`CHUNK`] heaps; the length at which it proves.
    fn proved_at(v: &[u8], t: u64) -> Option<(usize, Period)> {
        let mut checker = PeriodChecker::for_theorem_t(Some(t));
        let mut n = 0;
        while n < v.len() {
            n = (n + CHUNK).min(v.len());
            if let Some(p) = checker.update_slice(&v[..n]) {
                return Some((n, p.clone()));
            }
        }
        None
    }

    #[test]
    fn long_periods_are_found_without_a_ceiling() {
        // A period of a million from heap 777, longer than 3/8 of the values when it becomes
        // provable: proved by the next search, at most a quarter later.
        let (n0, p, t) = (777, 1_000_003, 2);
        let bound = theorem_bound(n0 as u64, p as u64, t) as usize;
        let v = synthetic(n0, p, bound + bound / 4 + 2 * CHUNK, 7);
        let (at, got) = proved_at(&v, t).expect("proved");
        assert_eq!((got.preperiod, got.period), (n0 as u64, p as u64));
        assert!(
            at >= bound && at <= bound + bound / 4 + CHUNK,
            "{at} vs {bound}"
        );
        // A short period after a long preperiod (the shape of 0.354): proved in the chunk where
        // the values first allow it.
        let (n0, p) = (1_000_001, 1180);
        let bound = theorem_bound(n0 as u64, p as u64, t) as usize;
        let v = synthetic(n0, p, bound + 2 * CHUNK, 11);
        let (at, got) = proved_at(&v, t).expect("proved");
        assert_eq!((got.preperiod, got.period), (n0 as u64, p as u64));
        assert_eq!(at, bound.div_ceil(CHUNK) * CHUNK);
        // A period that is a multiple of a smaller one is reported as the smaller one.
        let unit = synthetic(0, 5000, 5000, 3);
        let mut v: Vec<u8> = synthetic(300, 1, 300, 5);
        v.extend(unit.iter().cycle().take(200_000));
        let (_, got) = proved_at(&v, t).expect("proved");
        assert_eq!(got.period, 5000);
    }

    #[test]
    fn one_late_exception_moves_the_preperiod() {
        // Period 777 from heap 100, then one exception at heap 200,000 of 300,000.
        let mut v = synthetic(100, 777, 300_000, 13);
        v[200_000] = 9;
        let seen = observe_slice(&v).expect("a tail of 100,000 values, 128 periods");
        assert_eq!(
            (seen.preperiod, seen.period, seen.proved),
            (200_001, 777, false)
        );
        // The proof would need 2·200,001 + 2·777 + 2 values: the best candidate says so.
        let mut checker = PeriodChecker::for_theorem_t(Some(2));
        assert!(checker.settle_slice(&v).is_none());
        let best = checker.best_candidate_slice(&v).expect("a candidate");
        assert_eq!((best.preperiod, best.period), (200_001, 777));
        assert_eq!(best.theorem_bound, Some(2 * 200_001 + 2 * 777 + 2));
        // Before the exception the same values prove the period from heap 100.
        let mut checker = PeriodChecker::for_theorem_t(Some(2));
        let p = checker.settle_slice(&v[..200_000]).expect("proved");
        assert_eq!((p.preperiod, p.period), (100, 777));
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
