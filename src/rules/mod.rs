//! Game rules: what a move on one heap may do.
//!
//! A [`Rule`] is a take-and-break code in the extended octal notation used by Winning Ways and
//! CGSuite: digit `d_k` says what may happen when `k` tokens are taken from one heap (bit 1: the
//! heap may vanish, only when it has exactly `k` tokens; bit 2: one non-empty heap remains; bit 4:
//! two; bit 8, hexadecimal: three). A `!` after a digit asks the heaps left to be pairwise
//! unequal, and a bracketed tail repeats forever. [`Rule::parse`] accepts codes, subtraction sets
//! and the usual game names; [`Rule::moves`] lists, for heaps up to a bound, the moves an engine
//! has to enumerate. Nothing here computes values.

mod parse;

use std::fmt;

pub use parse::RuleError;

/// Longest game code (in characters) that [`Rule::parse`] accepts.
pub const MAX_CODE_LEN: usize = 4096;

/// One digit of a code: which results removing `k` tokens may leave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Digit {
    /// Bits 1, 2, 4, 8: the heap may vanish / leave one / two / three non-empty heaps.
    pub bits: u8,
    /// The heaps left by a split must be pairwise unequal (`!`).
    pub unequal: bool,
}

impl Digit {
    /// The digit with these bits and no `!`.
    pub const fn new(bits: u8) -> Digit {
        Digit {
            bits,
            unequal: false,
        }
    }

    /// The empty digit: no move removes this many tokens.
    pub const ZERO: Digit = Digit::new(0);

    /// May the heap vanish (bit 1)?
    pub fn takes_all(self) -> bool {
        self.bits & 1 != 0
    }
    /// May one non-empty heap remain (bit 2)?
    pub fn leaves_one(self) -> bool {
        self.bits & 2 != 0
    }
    /// May two non-empty heaps remain (bit 4)?
    pub fn leaves_two(self) -> bool {
        self.bits & 4 != 0
    }
    /// May three non-empty heaps remain (bit 8)?
    pub fn leaves_three(self) -> bool {
        self.bits & 8 != 0
    }

    /// The `!` only matters where a split is allowed; elsewhere it is dropped.
    fn normalized(self) -> Digit {
        Digit {
            bits: self.bits,
            unequal: self.unequal && self.bits & 12 != 0,
        }
    }
}

/// A take-and-break rule for heap games.
///
/// Digit `k` is `finite[k]` for `k < finite.len()`, then `tail` repeated forever (zero if the
/// tail is empty). Always normalized: see [`Rule::new`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    finite: Vec<Digit>,
    tail: Vec<Digit>,
}

/// Where a split into two heaps is allowed: `k` tokens removed, then two non-empty heaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// Tokens removed before splitting.
    pub take: usize,
    /// The heaps left must be pairwise unequal.
    pub unequal: bool,
}

/// Every kind of move a rule allows for heaps of at most `max_heap` tokens, grouped the way an
/// engine enumerates them. All lists are sorted by the number of tokens taken.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveSet {
    /// The largest heap these lists are complete for.
    pub max_heap: usize,
    /// `k` such that a heap of exactly `k` may be removed entirely.
    pub take_all: Vec<usize>,
    /// `k ≥ 1` such that `k` tokens may be taken leaving one non-empty heap.
    pub leave_one: Vec<usize>,
    /// Take `k`, then split the rest into two non-empty heaps.
    pub leave_two: Vec<Split>,
    /// Take `k`, then split the rest into three non-empty heaps.
    pub leave_three: Vec<Split>,
}

impl MoveSet {
    /// Does some move leave more than one heap?
    pub fn has_splits(&self) -> bool {
        !self.leave_two.is_empty() || !self.leave_three.is_empty()
    }
}

impl Rule {
    /// A rule from its digits (`finite[0]` is the digit before the point) and a repeating tail.
    ///
    /// Normalizes so that equal rules compare equal: a `!` on a digit without splits is dropped,
    /// the tail is reduced to its shortest period and absorbs equal finite digits before it, an
    /// all-zero tail is removed, and trailing zero digits after the point are trimmed.
    pub fn new(mut finite: Vec<Digit>, mut tail: Vec<Digit>) -> Rule {
        for d in finite.iter_mut().chain(tail.iter_mut()) {
            *d = d.normalized();
        }
        if finite.is_empty() {
            finite.push(Digit::ZERO);
        }
        if tail.iter().all(|d| d.bits == 0) {
            tail.clear();
        }
        if !tail.is_empty() {
            let len = tail.len();
            let period = (1..=len)
                .find(|&p| len.is_multiple_of(p) && (p..len).all(|i| tail[i] == tail[i - p]))
                .unwrap_or(len);
            tail.truncate(period);
            // 0.3[3] is 0.[3]: rotate the tail backwards over equal digits, keeping d0 apart.
            while finite.len() > 1 && finite.last() == tail.last() {
                finite.pop();
                tail.rotate_right(1);
            }
        } else {
            while finite.len() > 1 && finite.last() == Some(&Digit::ZERO) {
                finite.pop();
            }
        }
        Rule { finite, tail }
    }

    /// Parses a game code, subtraction set or game name; the grammar is in `src/rules/parse.rs`.
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        parse::parse(text)
    }

    /// The subtraction game whose moves take any number of tokens in `set` from one heap.
    pub fn subtraction(set: &[usize]) -> Rule {
        let len = set.iter().copied().max().map_or(1, |m| m + 1);
        let mut finite = vec![Digit::ZERO; len];
        for &k in set {
            if k > 0 {
                finite[k] = Digit::new(3);
            }
        }
        Rule::new(finite, Vec::new())
    }

    /// The subtraction game whose moves take any positive number of tokens *except* those in `set`.
    pub fn subtraction_all_but(set: &[usize]) -> Rule {
        let len = set.iter().copied().max().map_or(1, |m| m + 1);
        let mut finite = vec![Digit::new(3); len];
        finite[0] = Digit::ZERO;
        for &k in set {
            finite[k] = Digit::ZERO;
        }
        Rule::new(finite, vec![Digit::new(3)])
    }

    /// Digit `k`: what removing `k` tokens may leave.
    pub fn digit(&self, k: usize) -> Digit {
        if k < self.finite.len() {
            self.finite[k]
        } else if self.tail.is_empty() {
            Digit::ZERO
        } else {
            self.tail[(k - self.finite.len()) % self.tail.len()]
        }
    }

    /// The digits before the tail, `d0` first.
    pub fn finite_digits(&self) -> &[Digit] {
        &self.finite
    }

    /// The repeating tail (empty for a finite code).
    pub fn tail_digits(&self) -> &[Digit] {
        &self.tail
    }

    /// True when only finitely many digits are non-zero.
    pub fn is_finite(&self) -> bool {
        self.tail.is_empty()
    }

    /// The index `t` of the last non-zero digit of a finite code (0 if every digit is zero).
    pub fn last_nonzero(&self) -> Option<usize> {
        if !self.is_finite() {
            return None;
        }
        Some(self.finite.iter().rposition(|d| d.bits != 0).unwrap_or(0))
    }

    /// Does some digit use bit 8 (three heaps left)?
    pub fn is_hexadecimal(&self) -> bool {
        self.finite
            .iter()
            .chain(&self.tail)
            .any(|d| d.leaves_three())
    }

    /// Does some digit carry `!`?
    pub fn has_unequal(&self) -> bool {
        self.finite.iter().chain(&self.tail).any(|d| d.unequal)
    }

    /// A finite code with digits 0–7 and no `!`: the class of the octal periodicity theorem.
    pub fn is_plain_octal(&self) -> bool {
        self.is_finite() && !self.is_hexadecimal() && !self.has_unequal()
    }

    /// Can any move leave two or more heaps?
    pub fn has_splits(&self) -> bool {
        self.finite
            .iter()
            .chain(&self.tail)
            .any(|d| d.bits & 12 != 0)
    }

    /// The canonical code, e.g. `0.77`, `4!.0`, `0.[3]`, `0.3F`.
    pub fn code(&self) -> String {
        self.to_string()
    }

    /// The moves allowed on heaps of at most `max_heap` tokens.
    pub fn moves(&self, max_heap: usize) -> MoveSet {
        let mut set = MoveSet {
            max_heap,
            ..MoveSet::default()
        };
        let last = if self.is_finite() {
            max_heap.min(self.finite.len().saturating_sub(1))
        } else {
            max_heap
        };
        for k in 0..=last {
            let d = self.digit(k);
            if k >= 1 && d.takes_all() {
                set.take_all.push(k);
            }
            if k >= 1 && d.leaves_one() {
                set.leave_one.push(k);
            }
            if d.leaves_two() && k + 2 <= max_heap {
                set.leave_two.push(Split {
                    take: k,
                    unequal: d.unequal,
                });
            }
            if d.leaves_three() && k + 3 <= max_heap {
                set.leave_three.push(Split {
                    take: k,
                    unequal: d.unequal,
                });
            }
        }
        set
    }

    /// A sentence describing the moves, for reports.
    pub fn describe(&self) -> String {
        // `what` is "take 2 tokens" or "take k tokens"; `exactly` the size a take-all move needs.
        let show = |what: &str, exactly: &str, d: Digit| -> Vec<String> {
            let mut out = Vec::new();
            let neq = if d.unequal { " unequal" } else { "" };
            if d.takes_all() {
                out.push(format!("{what} from a heap of exactly {exactly}"));
            }
            if d.leaves_one() {
                out.push(format!("{what} leaving one heap"));
            }
            if d.leaves_two() {
                out.push(format!("{what} and split the rest into two{neq} heaps"));
            }
            if d.leaves_three() {
                out.push(format!("{what} and split the rest into three{neq} heaps"));
            }
            out
        };
        let mut parts = Vec::new();
        for (k, d) in self.finite.iter().enumerate() {
            let what = match k {
                0 => "take nothing".to_string(),
                1 => "take 1 token".to_string(),
                k => format!("take {k} tokens"),
            };
            parts.extend(show(&what, &k.to_string(), *d));
        }
        let (start, len) = (self.finite.len(), self.tail.len());
        for (i, d) in self.tail.iter().enumerate() {
            let first = start + i;
            let moves = show("take k tokens", "k", *d);
            if moves.is_empty() {
                continue;
            }
            let which = if len == 1 {
                format!("for every k >= {first}")
            } else {
                format!("for every k >= {first} with k mod {len} = {}", first % len)
            };
            parts.push(format!("{which}: {}", moves.join(", ")));
        }
        if parts.is_empty() {
            "no moves at all".to_string()
        } else {
            parts.join("; ")
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn digit(f: &mut fmt::Formatter<'_>, d: Digit) -> fmt::Result {
            write!(f, "{:X}", d.bits)?;
            if d.unequal {
                f.write_str("!")?;
            }
            Ok(())
        }
        digit(f, self.finite[0])?;
        f.write_str(".")?;
        for &d in &self.finite[1..] {
            digit(f, d)?;
        }
        if self.tail.is_empty() {
            if self.finite.len() == 1 {
                f.write_str("0")?;
            }
        } else {
            f.write_str("[")?;
            for &d in &self.tail {
                digit(f, d)?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// Named games: (name, code, description). Names are matched ignoring case, `'`, `_` and spaces.
pub const NAMED_GAMES: &[(&str, &str, &str)] = &[
    ("kayles", "0.77", "knock down one pin or two adjacent pins"),
    ("dawsons-kayles", "0.07", "knock down two adjacent pins"),
    (
        "dawsons-chess",
        "0.137",
        "Dawson's chess (Dawson's Kayles shifted by one heap)",
    ),
    (
        "officers",
        "0.6",
        "take one token, leaving one or two non-empty heaps",
    ),
    ("treblecross", "0.007", "one-dimensional tic-tac-toe"),
    ("guiles", "0.15", "Guiles"),
    (
        "grundy",
        "4!.0",
        "Grundy's game: split a heap into two unequal heaps",
    ),
    ("nim", "0.[3]", "take any number of tokens from one heap"),
    (
        "laskers-nim",
        "4.[3]",
        "Nim where a heap may also be split in two",
    ),
];

/// Calls `f` with every option of a heap of `h` tokens: the non-empty heaps a move leaves,
/// in increasing order (an empty slice when the move takes the whole heap). Each option is
/// produced once. `moves` must be complete for heaps of `h` tokens (`moves.max_heap >= h`).
pub fn for_each_option(moves: &MoveSet, h: usize, mut f: impl FnMut(&[usize])) {
    debug_assert!(moves.max_heap >= h);
    if h == 0 {
        return;
    }
    if moves.take_all.binary_search(&h).is_ok() {
        f(&[]);
    }
    for &k in &moves.leave_one {
        if k >= h {
            break;
        }
        f(&[h - k]);
    }
    for s in &moves.leave_two {
        if s.take + 2 > h {
            break;
        }
        let r = h - s.take;
        for a in 1..=r / 2 {
            if s.unequal && 2 * a == r {
                continue;
            }
            f(&[a, r - a]);
        }
    }
    for s in &moves.leave_three {
        if s.take + 3 > h {
            break;
        }
        let r = h - s.take;
        for a in 1..=r / 3 {
            for b in a..=(r - a) / 2 {
                let c = r - a - b;
                if s.unequal && (a == b || b == c) {
                    continue;
                }
                f(&[a, b, c]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(s: &str) -> String {
        Rule::parse(s).unwrap().code()
    }

    #[test]
    fn rules_in_words() {
        assert_eq!(
            Rule::parse("0.07").unwrap().describe(),
            "take 2 tokens from a heap of exactly 2; take 2 tokens leaving one heap; \
             take 2 tokens and split the rest into two heaps"
        );
        assert_eq!(
            Rule::parse("nim").unwrap().describe(),
            "for every k >= 1: take k tokens from a heap of exactly k, take k tokens leaving one heap"
        );
        assert_eq!(
            Rule::parse("0.1[02]").unwrap().describe(),
            "take 1 token from a heap of exactly 1; \
             for every k >= 3 with k mod 2 = 1: take k tokens leaving one heap"
        );
        assert_eq!(Rule::parse("0.0").unwrap().describe(), "no moves at all");
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(code("0.77"), "0.77");
        assert_eq!(code(".77"), "0.77");
        assert_eq!(code("0.770"), "0.77");
        assert_eq!(code("4!.0"), "4!.0");
        assert_eq!(code("4!."), "4!.0");
        assert_eq!(code("0.[3]"), "0.[3]");
        assert_eq!(code("0.3[33]"), "0.[3]");
        assert_eq!(code("0.[37]"), "0.[37]");
        assert_eq!(code("0.3f"), "0.3F");
        assert_eq!(code("0.3!"), "0.3");
        assert_eq!(code("0.[0]"), "0.0");
        assert_eq!(code("grundy"), "4!.0");
        assert_eq!(code("Dawson's Kayles"), "0.07");
        assert_eq!(code("sub(1,2,3)"), "0.333");
        assert_eq!(code("sub{1, 3}"), "0.303");
        assert_eq!(code("allbut(2)"), "0.30[3]");
        assert_eq!(code("allbut()"), "0.[3]");
    }

    #[test]
    fn digits_and_tails() {
        let r = Rule::parse("0.1[37]").unwrap();
        assert_eq!(r.digit(0).bits, 0);
        assert_eq!(r.digit(1).bits, 1);
        assert_eq!(r.digit(2).bits, 3);
        assert_eq!(r.digit(3).bits, 7);
        assert_eq!(r.digit(4).bits, 3);
        assert_eq!(r.digit(101).bits, 7);
        assert!(!r.is_finite());
        let k = Rule::parse("0.77").unwrap();
        assert_eq!(k.last_nonzero(), Some(2));
        assert!(k.is_plain_octal());
        assert_eq!(k.digit(3).bits, 0);
    }

    #[test]
    fn move_lists() {
        let m = Rule::parse("0.137").unwrap().moves(10);
        assert_eq!(m.take_all, vec![1, 2, 3]);
        assert_eq!(m.leave_one, vec![2, 3]);
        assert_eq!(
            m.leave_two,
            vec![Split {
                take: 3,
                unequal: false
            }]
        );
        let g = Rule::parse("grundy").unwrap().moves(10);
        assert_eq!(
            g.leave_two,
            vec![Split {
                take: 0,
                unequal: true
            }]
        );
        assert!(g.take_all.is_empty());
    }
}
