//! Who wins a sum `G₁ + … + Gₖ` of canonical games, without building the sum's canonical form.
//!
//! The canonical form of a sum can be far larger, and far costlier to build, than its parts
//! (two random Hackenbush strings of 200 mixed edges exhaust the arena's budget). Deciding the
//! outcome needs only Conway's comparison with 0, read on the sum of the parts' forms: `S ≥ 0`
//! exactly when no Right option `Sᴿ` is `≤ 0`, and `S ≤ 0` exactly when no Left option `Sᴸ`
//! is `≥ 0` (Siegel, *Combinatorial Game Theory*, 2013, ch. II.1). An option of the sum is a
//! move in one part, to one of that part's canonical options. [`SumSearch`] walks these
//! positions depth first, memoized over the whole computation, so the positions met while
//! deciding the outcome are shared with the checks of every candidate move (a move for Left to
//! `G′` in part `i` wins exactly when `G′ + Σⱼ≠ᵢ Gⱼ ≥ 0`).
//!
//! A position is kept normalised: numbers added into one [`Dyadic`], nimbers into one nimber
//! (`*a + *b = *(a ⊕ b)`), the other parts as a sorted list of ids. Moves in the number are
//! searched too, after the moves in the other parts, since a sum of non-numbers can equal a
//! number (`↑ + ↓ = 0`), where number avoidance does not apply. Most positions are decided
//! without looking at their options, by bounds that hold for every game (Siegel, ch. II.3 and
//! II.5): the Right stop of a sum is at least the sum of the Right stops of its parts and the
//! Left stop at most the sum of the Left stops; the stops lie within `t(S)` of the mean
//! `m(S)`, the mean is additive and `t(S) ≤ maxᵢ t(Gᵢ)` (temperatures of numbers count as 0);
//! and a game whose Right stop is positive is positive (`> 0`), one whose Left stop is negative
//! is negative. So a sum whose mean is further from 0 than its hottest part's temperature is
//! decided at once, and a hot part beside a cold sum is searched only where the stops cannot
//! tell.
//!
//! Cost: at most the product of the parts' numbers of distinct subgames, in practice far
//! fewer (measured in `results/hackenbush.md`). The search refuses with
//! [`PartizanError::SearchTooLarge`] beyond its budget of positions, rather than exhaust
//! memory. It recurses as deep as the parts' birthdays added up (run it on a big stack,
//! [`super::with_big_stack`]).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::thermograph::Thermographer;
use super::{Arena, Dyadic, GameId, IdMap, Kind, Outcome, PartizanError};
use crate::fxhash::FxBuild;

/// The default budget of a [`SumSearch`]: positions kept in its memo (about 80 bytes each).
pub const DEFAULT_SEARCH_POSITIONS: usize = 20_000_000;

/// A normalised position: the non-number, non-nimber parts sorted, the nimber, the number.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    parts: Box<[GameId]>,
    nimber: u64,
    number: Dyadic,
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.parts.len() as u64);
        for p in self.parts.iter() {
            state.write_u32(p.index() as u32);
        }
        state.write_u64(self.nimber);
        state.write_u64(self.number.numerator() as u64);
        state.write_u64((self.number.numerator() >> 64) as u64);
        state.write_u32(self.number.exponent());
    }
}

/// What is known of a position: bit 0 "`≥ 0` decided", bit 1 its answer; bits 2, 3 for `≤ 0`.
type Known = u8;

/// Memoized comparisons of sums with 0 (see the module text).
#[derive(Debug)]
pub struct SumSearch {
    memo: HashMap<Key, Known, FxBuild>,
    /// Per part: mean and temperature (clamped at 0), or `None` if not exactly representable.
    heat: IdMap<GameId, Option<(Dyadic, Dyadic)>>,
    thermographs: Thermographer,
    limit: usize,
}

impl Default for SumSearch {
    fn default() -> Self {
        SumSearch::new()
    }
}

impl SumSearch {
    /// A search with the [`DEFAULT_SEARCH_POSITIONS`] budget.
    pub fn new() -> SumSearch {
        SumSearch::with_limit(DEFAULT_SEARCH_POSITIONS)
    }

    /// A search that refuses to keep more than `limit` positions.
    pub fn with_limit(limit: usize) -> SumSearch {
        SumSearch {
            memo: HashMap::default(),
            heat: IdMap::default(),
            thermographs: Thermographer::new(),
            limit,
        }
    }

    /// Positions decided so far (what the budget counts).
    pub fn positions(&self) -> usize {
        self.memo.len()
    }

    /// `Σ parts ≥ 0`: Left wins when Right moves first.
    pub fn ge_zero(&mut self, arena: &mut Arena, parts: &[GameId]) -> Result<bool, PartizanError> {
        let key = normalise(arena, parts.iter().copied())?;
        self.decide(arena, key, true)
    }

    /// `Σ parts ≤ 0`: Right wins when Left moves first.
    pub fn le_zero(&mut self, arena: &mut Arena, parts: &[GameId]) -> Result<bool, PartizanError> {
        let key = normalise(arena, parts.iter().copied())?;
        self.decide(arena, key, false)
    }

    /// The outcome class of `Σ parts`.
    pub fn outcome(
        &mut self,
        arena: &mut Arena,
        parts: &[GameId],
    ) -> Result<Outcome, PartizanError> {
        let key = normalise(arena, parts.iter().copied())?;
        let ge = self.decide(arena, key.clone(), true)?;
        let le = self.decide(arena, key, false)?;
        Ok(match (ge, le) {
            (true, true) => Outcome::P,
            (true, false) => Outcome::Left,
            (false, true) => Outcome::Right,
            (false, false) => Outcome::N,
        })
    }

    /// Mean and temperature (at least 0) of a part, kept.
    fn heat(&mut self, arena: &mut Arena, g: GameId) -> Option<(Dyadic, Dyadic)> {
        if let Some(&h) = self.heat.get(&g) {
            return h;
        }
        let h = self
            .thermographs
            .thermograph(arena, g)
            .ok()
            .map(|t| (t.mean, t.temperature.max(Dyadic::ZERO)));
        self.heat.insert(g, h);
        h
    }

    /// Decides `S ≥ 0` (`ge`) or `S ≤ 0` (`!ge`) by the bounds, the memo or the options.
    fn decide(&mut self, arena: &mut Arena, key: Key, ge: bool) -> Result<bool, PartizanError> {
        if key.parts.is_empty() {
            // x + *n: ≥ 0 iff x > 0, or x = 0 and n = 0.
            let s = key.number.signum();
            return Ok(if ge {
                s > 0 || (s == 0 && key.nimber == 0)
            } else {
                s < 0 || (s == 0 && key.nimber == 0)
            });
        }
        if let Some(sign) = self.bounds(arena, &key) {
            // The sum is > 0 (sign 1) or < 0 (sign -1).
            return Ok(if ge { sign > 0 } else { sign < 0 });
        }
        let (done, value) = if ge { (1, 2) } else { (4, 8) };
        if let Some(&k) = self.memo.get(&key) {
            if k & done != 0 {
                return Ok(k & value != 0);
            }
        }
        if self.memo.len() >= self.limit {
            return Err(PartizanError::SearchTooLarge { limit: self.limit });
        }
        // S ≥ 0 iff no Right option is ≤ 0; S ≤ 0 iff no Left option is ≥ 0. Moves that
        // cancel against another part (the mirror strategy of `G − G`) are tried first.
        let mut answer = true;
        let mut later: Vec<(usize, GameId)> = Vec::new();
        'parts: for i in 0..key.parts.len() {
            if i > 0 && key.parts[i] == key.parts[i - 1] {
                continue;
            }
            let opts = if ge {
                arena.right(key.parts[i])
            } else {
                arena.left(key.parts[i])
            };
            for &o in opts.iter() {
                let next = replace(arena, &key, i, o)?;
                if next.parts.len() + 2 <= key.parts.len() {
                    if self.decide(arena, next, !ge)? {
                        answer = false;
                        break 'parts;
                    }
                } else {
                    later.push((i, o));
                }
            }
        }
        if answer {
            for (i, o) in later {
                let next = replace(arena, &key, i, o)?;
                if self.decide(arena, next, !ge)? {
                    answer = false;
                    break;
                }
            }
        }
        if answer {
            for k in 0..key.nimber {
                let next = Key {
                    nimber: k,
                    ..key.clone()
                };
                if self.decide(arena, next, !ge)? {
                    answer = false;
                    break;
                }
            }
        }
        if answer {
            let x = arena.number(key.number);
            let opts = if ge { arena.right(x) } else { arena.left(x) };
            for &o in opts.iter() {
                let number = arena.as_number(o).expect("a number's options are numbers");
                let next = Key {
                    number,
                    ..key.clone()
                };
                if self.decide(arena, next, !ge)? {
                    answer = false;
                    break;
                }
            }
        }
        let k = self.memo.entry(key).or_insert(0);
        *k |= done | if answer { value } else { 0 };
        Ok(answer)
    }

    /// `Some(1)` if the bounds show `S > 0`, `Some(-1)` if `S < 0`, else `None`.
    fn bounds(&mut self, arena: &mut Arena, key: &Key) -> Option<i32> {
        // Stops: R(S) ≥ x + Σ R(Gᵢ), L(S) ≤ x + Σ L(Gᵢ) (a nimber's stops are 0).
        let (mut lo, mut hi) = (Some(key.number), Some(key.number));
        for &p in key.parts.iter() {
            let (l, r) = arena.stops(p);
            lo = lo.and_then(|s| s.checked_add(r));
            hi = hi.and_then(|s| s.checked_add(l));
        }
        if lo.is_some_and(|s| s.signum() > 0) {
            return Some(1);
        }
        if hi.is_some_and(|s| s.signum() < 0) {
            return Some(-1);
        }
        // Mean and temperature: R(S) ≥ m(S) − t(S) ≥ Σ m − max t, and L(S) ≤ Σ m + max t.
        if key.parts.len() < 2 {
            return None;
        }
        let mut mean = Some(key.number);
        let mut hottest = Dyadic::ZERO;
        for &p in key.parts.iter() {
            let (m, t) = self.heat(arena, p)?;
            mean = mean.and_then(|s| s.checked_add(m));
            hottest = hottest.max(t);
        }
        let mean = mean?;
        let neg = hottest.checked_neg()?;
        if mean.checked_add(neg)?.signum() > 0 {
            return Some(1);
        }
        if mean.checked_add(hottest)?.signum() < 0 {
            return Some(-1);
        }
        None
    }
}

/// The normalised position of a sum of canonical games.
fn normalise(arena: &mut Arena, parts: impl Iterator<Item = GameId>) -> Result<Key, PartizanError> {
    let mut rest = Vec::new();
    let mut nimber = 0;
    let mut number = Dyadic::ZERO;
    for p in parts {
        match arena.kind(p) {
            Kind::Number(x) => number = number.checked_add(x).ok_or(PartizanError::Overflow)?,
            Kind::Nimber(n) => nimber ^= n,
            Kind::Other => rest.push(p),
        }
    }
    rest.sort_unstable();
    let mut kept: Vec<GameId> = Vec::with_capacity(rest.len());
    for p in rest {
        cancel_or_insert(arena, &mut kept, p)?;
    }
    Ok(Key {
        parts: kept.into_boxed_slice(),
        nimber,
        number,
    })
}

/// The position after part `i` of `key` moves to `o`.
fn replace(arena: &mut Arena, key: &Key, i: usize, o: GameId) -> Result<Key, PartizanError> {
    let mut number = key.number;
    let mut nimber = key.nimber;
    let mut parts: Vec<GameId> = Vec::with_capacity(key.parts.len());
    parts.extend_from_slice(&key.parts[..i]);
    parts.extend_from_slice(&key.parts[i + 1..]);
    match arena.kind(o) {
        Kind::Number(x) => number = number.checked_add(x).ok_or(PartizanError::Overflow)?,
        Kind::Nimber(n) => nimber ^= n,
        Kind::Other => cancel_or_insert(arena, &mut parts, o)?,
    }
    Ok(Key {
        parts: parts.into_boxed_slice(),
        nimber,
        number,
    })
}

/// Adds `o` to the sorted `parts`, or removes its negative from them (`G + (−G) = 0`).
fn cancel_or_insert(
    arena: &mut Arena,
    parts: &mut Vec<GameId>,
    o: GameId,
) -> Result<(), PartizanError> {
    let minus = arena.neg(o)?;
    if let Ok(at) = parts.binary_search(&minus) {
        parts.remove(at);
    } else {
        let at = parts.partition_point(|&p| p < o);
        parts.insert(at, o);
    }
    Ok(())
}
