//! Misère play, decided exactly: by theorem for Nim heaps (Bouton) and for tame heaps (genus
//! theory), from misère canonical forms, by exhaustive search for positions small enough to
//! explore, and not at all otherwise.
//!
//! Under misère play the player who makes the last move loses, and a sum's outcome does not
//! follow from its heaps' Grundy values (Winning Ways, ch. 13). When every heap of the position
//! moves exactly like a Nim heap, Bouton's misère Nim theorem (C. L. Bouton, Annals of
//! Mathematics 1902) decides it for heaps of any size. Otherwise, until a misère genus /
//! quotient module decides the general case, this module searches the position's game tree:
//! every position is a multiset of heaps, memoized after sorting, with heaps that have no move
//! dropped (they do not change the game tree). The search is iterative (no recursion) and stops
//! with [`MisereError::TooLarge`] when it would visit more than a given number of positions;
//! the answer it gives is therefore always exact.

use std::collections::HashMap;

use thiserror::Error;

use super::{for_each_option, has_option, Outcome, WinningMove};
use crate::rules::{MoveSet, Rule};

/// The default bound on the number of positions a misère search may visit.
pub const DEFAULT_LIMIT: usize = 2_000_000;

/// The search also stops after looking at `MOVES_PER_POSITION` moves per allowed position.
pub const MOVES_PER_POSITION: usize = 16;

/// Option lists are kept for at most `OPTIONS_PER_POSITION` options per allowed position in all
/// (16 bytes each).
pub const OPTIONS_PER_POSITION: usize = 4;

/// Canonical forms may do `WORK_PER_FORM` units of work ([`crate::misere::Forms::with_budget`])
/// per allowed form: with the default limit, a few seconds before the search takes over (both
/// together: about 11 s of one core, [`analyze`]). (The
/// number of forms alone bounds memory but not time: Kayles 20 + 25 + 30 needed 3·10^5 forms
/// and 10^8 likeness tests, minutes of work.)
pub const WORK_PER_FORM: u64 = 8;

/// One option of a heap: up to three heaps, with moveless heaps already left out.
#[derive(Clone, Copy)]
struct Opt {
    parts: [u32; 3],
    len: u8,
}

impl Opt {
    fn heaps(&self) -> &[u32] {
        &self.parts[..self.len as usize]
    }
}

/// A position analysed under misère play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MisereAnalysis {
    /// The heaps, as given.
    pub heaps: Vec<usize>,
    /// P when the player to move loses (under misère play), N when they win.
    pub outcome: Outcome,
    /// The winning moves, by heap index then by the heaps left; each resulting position listed
    /// once (moves in equal heaps are listed for the first of them). All of them, unless
    /// [`MisereAnalysis::list_at_most`] kept fewer.
    pub winning_moves: Vec<WinningMove>,
    /// How many winning moves there are, listed or not.
    pub winning_move_count: u64,
    /// How the outcome was decided.
    pub method: Method,
}

impl MisereAnalysis {
    /// Keeps only the first `max_moves` winning moves in the list (the count stays).
    pub fn list_at_most(&mut self, max_moves: usize) {
        self.winning_moves.truncate(max_moves);
    }
}

/// How a misère outcome was decided; both ways are exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Every heap of the position is a Nim heap under the rule (its options are exactly the
    /// smaller heaps), so Bouton's misère Nim theorem applies: the player to move wins iff the
    /// nim-sum is non-zero, except when every heap has at most one token, where they win iff
    /// the number of one-token heaps is even.
    Bouton,
    /// Genus theory: every heap's simplest form is tame, and tame games add like misère Nim
    /// (ONAG ch. 12; [`crate::misere::MisereHeaps::tame_outcome`]); this many distinct forms
    /// were built for the heaps (and for the results of moves whose heaps are not all tame).
    TameGenus {
        /// Distinct canonical forms built.
        forms: usize,
    },
    /// Misère canonical forms (Conway, ONAG ch. 12): the position's simplest form, built from
    /// the heaps' forms; this many distinct forms were needed.
    CanonicalForms {
        /// Distinct canonical forms built.
        forms: usize,
    },
    /// The game's misère quotient (Plambeck and Siegel, [`crate::misere::quotient`]),
    /// certified for every heap size: a position is P when the product of its heaps' elements
    /// lies in P.
    Quotient {
        /// The order of the quotient.
        order: usize,
    },
    /// Exhaustive search over this many distinct positions.
    Search {
        /// Positions evaluated.
        positions: usize,
    },
}

/// Does the rule, on heaps up to `max`, move exactly like Nim (a heap may be reduced to any
/// smaller heap, and nothing else)? Looks at each distinct digit that matters once, so it costs
/// nothing for huge heaps.
fn nim_like(rule: &Rule, max: usize) -> bool {
    let span = rule.finite_digits().len() + rule.tail_digits().len();
    (0..=max.min(span)).all(|k| {
        let d = rule.digit(k);
        (k == 0 || d.bits & 3 == 3)
            && !(d.leaves_two() && k + 2 <= max)
            && !(d.leaves_three() && k + 3 <= max)
    })
}

/// Bouton's misère Nim rule: does the player to move win?
fn bouton_wins(heaps: impl Iterator<Item = usize> + Clone) -> bool {
    if heaps.clone().all(|h| h <= 1) {
        heaps.filter(|&h| h == 1).count() % 2 == 0
    } else {
        heaps.fold(0, |s, h| s ^ h) != 0
    }
}

fn bouton(heaps: &[usize]) -> MisereAnalysis {
    let outcome = if bouton_wins(heaps.iter().copied()) {
        Outcome::N
    } else {
        Outcome::P
    };
    let mut winning_moves = Vec::new();
    if outcome == Outcome::N {
        let xor = heaps.iter().fold(0, |s, &h| s ^ h);
        let big = heaps.iter().filter(|&&h| h > 1).count();
        let ones = heaps.iter().filter(|&&h| h == 1).count();
        let mut sizes_seen = std::collections::HashSet::new();
        for (i, &h) in heaps.iter().enumerate() {
            if !sizes_seen.insert(h) {
                continue; // the same resulting position as from the earlier equal heap
            }
            // The other heaps: their nim-sum, whether one has two tokens or more, their 1s.
            let rest_xor = xor ^ h;
            let rest_big = big - usize::from(h > 1) > 0;
            let rest_ones = ones - usize::from(h == 1);
            // Reducing h to t leaves a P-position iff: with a big heap left, the nim-sum is 0
            // (t = rest_xor, and then t > 1 or another heap is big); with none, the number of
            // 1s is odd.
            let t = if rest_big {
                rest_xor
            } else if rest_ones % 2 == 0 {
                1
            } else {
                0
            };
            if t < h {
                winning_moves.push(WinningMove {
                    heap_index: i,
                    from: h,
                    to: if t == 0 { vec![] } else { vec![t] },
                });
            }
        }
    }
    MisereAnalysis {
        heaps: heaps.to_vec(),
        outcome,
        winning_move_count: winning_moves.len() as u64,
        winning_moves,
        method: Method::Bouton,
    }
}

/// Why the misère outcome was not decided.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MisereError {
    /// The search would visit more positions than `limit`, look at more than
    /// `limit * MOVES_PER_POSITION` moves, or keep more than `limit * OPTIONS_PER_POSITION`
    /// options.
    #[error(
        "misère play of this position is not decided: its canonical forms and an exhaustive \
         search both exceed their budget ({limit} forms or positions; see --search-limit); \
         try smaller heaps or a larger --search-limit"
    )]
    TooLarge {
        /// The bound that was reached.
        limit: usize,
    },
    /// A heap is too large to be a search key.
    #[error("heap {0} is too large for an exhaustive misère search")]
    HeapTooLarge(usize),
}

/// An explicit position: heap sizes in increasing order, heaps without moves left out.
type Key = Box<[u32]>;

struct Search<'a> {
    moves: &'a MoveSet,
    alive: Vec<bool>,
    /// The options of each heap size met so far (heaps without moves left out, sorted).
    options: Vec<Option<Vec<Opt>>>,
    /// Options held in `options`, and the most allowed.
    cached: usize,
    max_cached: usize,
    /// true: the player to move wins (misère).
    memo: HashMap<Key, bool>,
    limit: usize,
    /// Moves looked at so far, and the most allowed.
    work: usize,
    max_work: usize,
    scratch: Vec<u32>,
}

/// A position on the search stack, and the next of its children to look at: option `j` of
/// heap `i`.
struct Frame {
    pos: Key,
    i: usize,
    j: usize,
}

impl Search<'_> {
    fn key(&self, heaps: impl Iterator<Item = usize>) -> Key {
        let mut v: Vec<u32> = heaps.filter(|&h| self.alive[h]).map(|h| h as u32).collect();
        v.sort_unstable();
        v.into_boxed_slice()
    }

    /// Fills the option list of heap `h`, counting its length as work; refuses before
    /// enumerating when an upper bound on that length would exceed the budget.
    fn ensure_options(&mut self, h: u32) -> Result<(), MisereError> {
        let h = h as usize;
        if self.options[h].is_none() {
            let m = self.moves;
            let bound = 1
                + m.leave_one.len()
                + m.leave_two.len() * (h / 2)
                + m.leave_three
                    .len()
                    .saturating_mul((h / 3).saturating_mul(h / 2));
            if self.cached.saturating_add(bound) > self.max_cached {
                return Err(MisereError::TooLarge { limit: self.limit });
            }
            let alive = &self.alive;
            let mut list = Vec::new();
            for_each_option(self.moves, h, |to| {
                let mut opt = Opt {
                    parts: [0; 3],
                    len: 0,
                };
                for &x in to.iter().filter(|&&x| alive[x]) {
                    opt.parts[opt.len as usize] = x as u32;
                    opt.len += 1;
                }
                // `to` is sorted, and so is any sub-list of it.
                list.push(opt);
            });
            self.cached += list.len();
            self.options[h] = Some(list);
        }
        Ok(())
    }

    /// Looks at the children of the top frame in turn. `Some(result)` when the frame is
    /// decided; `None` after pushing an unknown child.
    fn step(&mut self, stack: &mut Vec<Frame>) -> Result<Option<bool>, MisereError> {
        let top = stack.last_mut().expect("stack is never empty here");
        loop {
            let Some(&h) = top.pos.get(top.i) else {
                // Every child is a win for the player who moves next: this is a loss. (A
                // position without heaps has no move and, under misère play, is a win.)
                return Ok(Some(top.pos.is_empty()));
            };
            if top.i > 0 && top.pos[top.i - 1] == h {
                top.i += 1; // equal heaps give the same children
                continue;
            }
            self.ensure_options(h)?;
            let opts = self.options[h as usize].as_ref().expect("just filled");
            let Some(to) = opts.get(top.j) else {
                top.i += 1;
                top.j = 0;
                continue;
            };
            self.work += 1;
            let s = &mut self.scratch;
            s.clear();
            s.extend_from_slice(&top.pos[..top.i]);
            s.extend_from_slice(&top.pos[top.i + 1..]);
            s.extend_from_slice(to.heaps());
            s.sort_unstable();
            match self.memo.get(&s[..]) {
                Some(false) => return Ok(Some(true)),
                Some(true) => top.j += 1,
                None => {
                    let pos = s.clone().into_boxed_slice();
                    stack.push(Frame { pos, i: 0, j: 0 });
                    return Ok(None);
                }
            }
        }
    }

    /// Does the player to move from `root` win under misère play?
    fn wins(&mut self, root: Key) -> Result<bool, MisereError> {
        if let Some(&w) = self.memo.get(&root) {
            return Ok(w);
        }
        let mut stack = vec![Frame {
            pos: root,
            i: 0,
            j: 0,
        }];
        loop {
            if self.work > self.max_work {
                return Err(MisereError::TooLarge { limit: self.limit });
            }
            if let Some(w) = self.step(&mut stack)? {
                let frame = stack.pop().expect("non-empty");
                if self.memo.len() >= self.limit {
                    return Err(MisereError::TooLarge { limit: self.limit });
                }
                self.memo.insert(frame.pos, w);
                if stack.is_empty() {
                    return Ok(w);
                }
            }
        }
    }
}

/// Decides the sum of `heaps` of `rule` under misère play: by Bouton's theorem when every heap
/// moves exactly like a Nim heap (any size); otherwise, for small positions, from misère
/// canonical forms or an exhaustive search within a small budget; then from the game's misère
/// quotient when one is certified ([`analyze_by_quotient`]); then from canonical forms with at
/// most `limit` distinct forms, and when those outgrow the limit, by exhaustive search visiting
/// at most `limit` distinct positions. All are exact.
///
/// The cost grows faster than the limit: with the default limit ([`DEFAULT_LIMIT`]) a position
/// that exhausts both budgets (Officers 20 + 30 + 40) takes about 11 s of one core (measured on
/// a 2-core AMD EPYC Zen 4: 0.5 s at 2·10^5, 4.3 s at 10^6, 11 s at 2·10^6); the wall time is
/// longer on a loaded machine.
pub fn analyze(rule: &Rule, heaps: &[usize], limit: usize) -> Result<MisereAnalysis, MisereError> {
    analyze_reporting(rule, heaps, limit, |_| {})
}

/// A part of [`analyze`], announced to [`analyze_reporting`]'s caller as it starts, for a
/// progress display; a position decided at once (Bouton's theorem) announces none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Canonical forms or search within the quick budget (20,000).
    Quick,
    /// The game's misère quotient (order at most 128, heaps up to 300).
    Quotient,
    /// Canonical forms within the full budget.
    Forms,
    /// The exhaustive search within the full budget.
    Search,
}

/// [`analyze`], calling `stage` as each part starts.
pub fn analyze_reporting(
    rule: &Rule,
    heaps: &[usize],
    limit: usize,
    mut stage: impl FnMut(Stage),
) -> Result<MisereAnalysis, MisereError> {
    let max = heaps.iter().copied().max().unwrap_or(0);
    if nim_like(rule, max) {
        return Ok(bouton(heaps));
    }
    // Small positions first by forms or search within a small budget: they are decided at once
    // that way, where finding the game's quotient can take seconds (0.07 gives up at heap 26
    // after one or two), and a program that asks about many small positions would pay that
    // each time.
    stage(Stage::Quick);
    if let Ok(a) = analyze_without_quotient(rule, heaps, limit.min(QUICK_LIMIT)) {
        return Ok(a);
    }
    stage(Stage::Quotient);
    if let Some(a) = analyze_by_quotient(rule, heaps) {
        return Ok(a);
    }
    stage(Stage::Forms);
    if let Some(a) = analyze_by_forms(rule, heaps, limit) {
        return Ok(a);
    }
    stage(Stage::Search);
    analyze_by_search(rule, heaps, limit)
}

/// The budget (forms or positions) with which [`analyze`] tries a position before the quotient.
const QUICK_LIMIT: usize = 20_000;

/// [`analyze`] without the misère quotient: Bouton's theorem, canonical forms, then the
/// search, within `limit`.
pub fn analyze_without_quotient(
    rule: &Rule,
    heaps: &[usize],
    limit: usize,
) -> Result<MisereAnalysis, MisereError> {
    let max = heaps.iter().copied().max().unwrap_or(0);
    if nim_like(rule, max) {
        return Ok(bouton(heaps));
    }
    match analyze_by_forms(rule, heaps, limit) {
        Some(a) => Ok(a),
        None => analyze_by_search(rule, heaps, limit),
    }
}

/// Quotients larger than this are not computed for `play` (their heaps take seconds each).
const PLAY_QUOTIENT_MAX_ORDER: usize = 128;

/// Heaps tried for a certified quotient for `play`.
const PLAY_QUOTIENT_MAX_HEAP: usize = 300;

/// Decides the sum of `heaps` under misère play from the game's misère quotient, when one of
/// order at most 128 is certified within heap 300 (plain octal codes only): any heap sizes, at
/// once. `None` otherwise.
pub fn analyze_by_quotient(rule: &Rule, heaps: &[usize]) -> Option<MisereAnalysis> {
    if !rule.is_plain_octal() {
        return None;
    }
    let (s, err) =
        crate::misere::quotient::compute(rule, PLAY_QUOTIENT_MAX_HEAP, 1 << 20, |_, s| {
            if s.monoid().order > PLAY_QUOTIENT_MAX_ORDER {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        });
    if err.is_some() || s.certified().is_none() {
        return None;
    }
    let m = s.monoid();
    // `element` is Some for every heap once certified.
    let is_p = |next: &[usize]| -> Result<bool, std::convert::Infallible> {
        let mut e = 0u32;
        for &h in next {
            e = m.mul(e, s.element(h).unwrap_or(0));
        }
        Ok(m.p[e as usize])
    };
    let max = heaps.iter().copied().max().unwrap_or(0);
    let outcome = if is_p(heaps).ok()? {
        Outcome::P
    } else {
        Outcome::N
    };
    let winning_moves = if outcome == Outcome::N {
        winning_moves(&rule.moves(max), heaps, is_p).ok()?
    } else {
        Vec::new()
    };
    Some(MisereAnalysis {
        heaps: heaps.to_vec(),
        outcome,
        winning_move_count: winning_moves.len() as u64,
        winning_moves,
        method: Method::Quotient { order: m.order },
    })
}

/// Decides the sum of `heaps` under misère play from canonical forms ([`crate::misere`]),
/// building at most `limit` distinct forms; `None` when they do not fit.
pub fn analyze_by_forms(rule: &Rule, heaps: &[usize], limit: usize) -> Option<MisereAnalysis> {
    let max = heaps.iter().copied().max().unwrap_or(0);
    if max > limit {
        return None;
    }
    // The heap forms need every option of every heap up to `max`: bound that work as the
    // search bounds its own.
    let moves = rule.moves(max);
    let m = max as u128;
    let options = m * (moves.take_all.len() + moves.leave_one.len()) as u128
        + moves.leave_two.len() as u128 * m * m / 4
        + moves.leave_three.len() as u128 * m * m * m / 36;
    if options > (limit as u128) * MOVES_PER_POSITION as u128 {
        return None;
    }
    let max_work = (limit as u64).saturating_mul(WORK_PER_FORM);
    let mut forms = crate::misere::MisereHeaps::with_budget(rule, limit, max_work);
    let p = |o: crate::misere::Outcome| o == crate::misere::Outcome::P;
    // Genus theory first: when every heap is tame no sum needs simplifying.
    let tame = forms.tame_outcome(heaps).ok()?;
    let outcome = match tame {
        Some(o) => o,
        None => forms.outcome(heaps).ok()?,
    };
    let outcome = if p(outcome) { Outcome::P } else { Outcome::N };
    let winning_moves = if outcome == Outcome::N {
        winning_moves(&moves, heaps, |next| {
            // A move from tame heaps may leave a heap that is not tame: then its sum is built.
            match forms.tame_outcome(next)? {
                Some(o) => Ok(p(o)),
                None => forms.outcome(next).map(p),
            }
        })
        .ok()?
    } else {
        Vec::new()
    };
    let built = forms.forms().len();
    Some(MisereAnalysis {
        heaps: heaps.to_vec(),
        outcome,
        winning_move_count: winning_moves.len() as u64,
        winning_moves,
        method: if tame.is_some() {
            Method::TameGenus { forms: built }
        } else {
            Method::CanonicalForms { forms: built }
        },
    })
}

/// Decides the sum of `heaps` of `rule` under misère play by exhaustive search only (no
/// theorem), visiting at most `limit` distinct positions.
pub fn analyze_by_search(
    rule: &Rule,
    heaps: &[usize],
    limit: usize,
) -> Result<MisereAnalysis, MisereError> {
    let max = heaps.iter().copied().max().unwrap_or(0);
    if max > u32::MAX as usize {
        return Err(MisereError::HeapTooLarge(max));
    }
    // Bound the work before allocating anything proportional to the heaps.
    if max > limit {
        return Err(MisereError::TooLarge { limit });
    }
    let moves = rule.moves(max);
    let alive = (0..=max).map(|h| has_option(&moves, h)).collect();
    let mut search = Search {
        moves: &moves,
        alive,
        options: vec![None; max + 1],
        memo: HashMap::new(),
        limit,
        work: 0,
        max_work: limit.saturating_mul(MOVES_PER_POSITION),
        cached: 0,
        max_cached: limit.saturating_mul(OPTIONS_PER_POSITION),
        scratch: Vec::new(),
    };
    let root = search.key(heaps.iter().copied());
    let outcome = if search.wins(root)? {
        Outcome::N
    } else {
        Outcome::P
    };
    let winning_moves = if outcome == Outcome::N {
        winning_moves(&moves, heaps, |next| {
            let key = search.key(next.iter().copied());
            search.wins(key).map(|wins| !wins)
        })?
    } else {
        Vec::new()
    };
    Ok(MisereAnalysis {
        heaps: heaps.to_vec(),
        outcome,
        winning_move_count: winning_moves.len() as u64,
        winning_moves,
        method: Method::Search {
            positions: search.memo.len(),
        },
    })
}

/// Every move of the sum of `heaps` to a position that `is_p` finds lost for the player to
/// move, each resulting position once (moves in a heap equal to an earlier one are left out),
/// sorted. `is_p` sees the heaps left after the move; its first error stops the enumeration.
fn winning_moves<E>(
    moves: &MoveSet,
    heaps: &[usize],
    mut is_p: impl FnMut(&[usize]) -> Result<bool, E>,
) -> Result<Vec<WinningMove>, E> {
    let mut found = Vec::new();
    let mut next = Vec::with_capacity(heaps.len() + 2);
    let mut sizes_seen = std::collections::HashSet::new();
    for (i, &h) in heaps.iter().enumerate() {
        if !sizes_seen.insert(h) {
            continue; // the same resulting positions as from the earlier equal heap
        }
        let mut options = Vec::new();
        for_each_option(moves, h, |to| options.push(to.to_vec()));
        for to in options {
            next.clear();
            next.extend(heaps[..i].iter().chain(&heaps[i + 1..]).chain(&to));
            if is_p(&next)? {
                found.push(WinningMove {
                    heap_index: i,
                    from: h,
                    to,
                });
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bouton's rule (used for Nim heaps) against the exhaustive search, outcomes and
    /// winning moves, on every position of four Nim heaps up to 5.
    #[test]
    fn bouton_matches_search() {
        let nim = Rule::parse("nim").unwrap();
        let mut heaps = vec![0usize; 4];
        for code in 0..6usize.pow(4) {
            let mut c = code;
            for h in heaps.iter_mut() {
                *h = c % 6;
                c /= 6;
            }
            let fast = analyze(&nim, &heaps, DEFAULT_LIMIT).unwrap();
            assert_eq!(fast.method, Method::Bouton);
            let slow = analyze_by_search(&nim, &heaps, DEFAULT_LIMIT).unwrap();
            assert_eq!(fast.outcome, slow.outcome, "{heaps:?}");
            assert_eq!(fast.winning_moves, slow.winning_moves, "{heaps:?}");
        }
        // Not Nim-like: 0.333 with a heap of 4 (no move takes 4).
        let sub = Rule::parse("0.333").unwrap();
        assert_eq!(analyze(&sub, &[3, 2], 100).unwrap().method, Method::Bouton);
        // Heaps of 4 and 2 of 0.333 are tame (genera 0^120 and 2^20): genus theory decides.
        assert!(matches!(
            analyze_without_quotient(&sub, &[4, 2], 100).unwrap().method,
            Method::TameGenus { .. }
        ));
        // Kayles 5 is restless (4^146): its sums are built.
        let kayles = Rule::parse("kayles").unwrap();
        assert!(matches!(
            analyze_without_quotient(&kayles, &[5, 2], 1000)
                .unwrap()
                .method,
            Method::CanonicalForms { .. }
        ));
        // With its certified quotient, at once, and the same answer; `analyze` takes the
        // quotient for heaps past what forms decide within the quick budget.
        let q = analyze_by_quotient(&kayles, &[5, 2]).unwrap();
        assert!(matches!(q.method, Method::Quotient { .. }));
        let f = analyze_without_quotient(&kayles, &[5, 2], 1000).unwrap();
        assert_eq!((q.outcome, q.winning_moves), (f.outcome, f.winning_moves));
        assert!(matches!(
            analyze(&kayles, &[5, 2], 1000).unwrap().method,
            Method::CanonicalForms { .. }
        ));
        assert!(matches!(
            analyze(&kayles, &[1_000_001, 77, 12], 1000).unwrap().method,
            Method::Quotient { .. }
        ));
        // Canonical forms over budget (a huge hexadecimal heap): the search decides or refuses.
        let hex = Rule::parse("0.8").unwrap();
        assert!(analyze_by_forms(&hex, &[1_000_000], DEFAULT_LIMIT).is_none());
        assert!(matches!(
            analyze(&hex, &[12, 3], DEFAULT_LIMIT).unwrap().method,
            Method::CanonicalForms { .. } | Method::TameGenus { .. }
        ));
    }

    #[test]
    fn limit_is_reported() {
        let kayles = Rule::parse("0.77").unwrap();
        let e = analyze_without_quotient(&kayles, &[30, 30, 30], 1000).unwrap_err();
        assert_eq!(e, MisereError::TooLarge { limit: 1000 });
    }

    /// Each part is announced as it starts, in order, and only the parts that run.
    #[test]
    fn stages_are_announced() {
        let stages = |code: &str, heaps: &[usize], limit: usize| {
            let mut seen = Vec::new();
            let r = analyze_reporting(&Rule::parse(code).unwrap(), heaps, limit, |s| seen.push(s));
            (seen, r.map(|a| a.method))
        };
        // Nim heaps: Bouton's theorem at once, no stage.
        assert_eq!(stages("nim", &[3, 5], 10).0, vec![]);
        // A small Kayles position: decided within the quick budget.
        assert_eq!(stages("0.77", &[3, 4], 1000).0, vec![Stage::Quick]);
        // Kayles 100 + 200: too large for the quick budget, decided by the quotient.
        let (seen, method) = stages("0.77", &[100, 200], 1000);
        assert_eq!(seen, vec![Stage::Quick, Stage::Quotient]);
        assert!(matches!(method, Ok(Method::Quotient { .. })));
        // A code that is not plain octal has no quotient here; a limit below the quick one
        // leaves forms and search nothing more to do, and the refusal comes after all four.
        let (seen, method) = stages("4!.0", &[30, 30, 30], 50);
        assert_eq!(
            seen,
            vec![Stage::Quick, Stage::Quotient, Stage::Forms, Stage::Search]
        );
        assert_eq!(method, Err(MisereError::TooLarge { limit: 50 }));
    }

    /// The work budget makes the refusal prompt: Kayles 20 + 25 + 30 needs about 10^8
    /// likeness tests (minutes); with the default limit it is refused within seconds.
    #[test]
    fn refusal_is_prompt() {
        let began = std::time::Instant::now();
        let e =
            analyze_without_quotient(&Rule::parse("0.77").unwrap(), &[20, 25, 30], DEFAULT_LIMIT);
        assert_eq!(
            e.unwrap_err(),
            MisereError::TooLarge {
                limit: DEFAULT_LIMIT
            }
        );
        assert!(
            began.elapsed().as_secs() < 120,
            "took {:?}",
            began.elapsed()
        );
    }
}
