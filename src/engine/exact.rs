//! The exact reference engine: every option of every heap, marked in a bit set, then the mex.
//!
//! Cost O(n) per heap for each digit that splits into two heaps, O(n²) for each digit that
//! splits into three. This engine is the definition of correct; every faster engine is tested
//! against it bit for bit.

use super::{Cell, Fill, Overflow};
use crate::rules::{MoveSet, Rule};

/// The bit set of option values, cleared for each heap; its first clear bit is the mex. It is
/// the crate's one mex set ([`crate::mex`]), named here too because the engine's interface
/// has always offered it.
pub use crate::mex::MexSet;

/// The smallest power of two above every value up to `max_value`: XORs of such values stay below it.
#[inline]
pub fn value_span(max_value: u32) -> usize {
    (max_value as usize + 1).next_power_of_two()
}

/// The exact engine for one rule.
#[derive(Debug, Clone)]
pub struct Exact {
    rule: Rule,
    moves: MoveSet,
    marks: MexSet,
    max_value: u32,
    /// Heaps whose values `max_value` accounts for.
    seen: usize,
}

impl Exact {
    /// An engine for `rule`.
    pub fn new(rule: &Rule) -> Exact {
        Exact {
            rule: rule.clone(),
            moves: rule.moves(0),
            marks: MexSet::default(),
            max_value: 0,
            seen: 0,
        }
    }

    /// Grundy value of heap `n` from the values of all smaller heaps.
    #[inline]
    fn value_of<T: Cell>(&mut self, vals: &[T], n: usize) -> u32 {
        let m = &self.moves;
        let marks = &mut self.marks;
        marks.reset(value_span(self.max_value));
        if m.take_all.binary_search(&n).is_ok() {
            marks.mark(0);
        }
        for &k in &m.leave_one {
            if k >= n {
                break;
            }
            marks.mark(vals[n - k].get());
        }
        for s in &m.leave_two {
            if s.take + 2 > n {
                break;
            }
            let r = n - s.take;
            for a in 1..=r / 2 {
                if s.unequal && 2 * a == r {
                    continue;
                }
                marks.mark(vals[a].get() ^ vals[r - a].get());
            }
        }
        for s in &m.leave_three {
            if s.take + 3 > n {
                break;
            }
            let r = n - s.take;
            for a in 1..=r / 3 {
                for b in a..=(r - a) / 2 {
                    let c = r - a - b;
                    if s.unequal && (a == b || b == c) {
                        continue;
                    }
                    marks.mark(vals[a].get() ^ vals[b].get() ^ vals[c].get());
                }
            }
        }
        marks.mex()
    }
}

impl Fill for Exact {
    fn fill<T: Cell>(&mut self, vals: &mut [T], start: usize, end: usize) -> Result<(), Overflow> {
        if self.seen > start {
            // Refilling an earlier range (after a truncation): recount the maximum.
            self.seen = 0;
            self.max_value = 0;
        }
        for v in &vals[self.seen..start] {
            self.max_value = self.max_value.max(v.get());
        }
        self.seen = start;
        if end > 0 && end - 1 > self.moves.max_heap {
            let bound = (end - 1).max(self.moves.max_heap.saturating_mul(2));
            self.moves = self.rule.moves(bound);
        }
        for n in start..end {
            let g = self.value_of(vals, n);
            if g > T::MAX {
                return Err(Overflow { at: n, value: g });
            }
            vals[n] = T::from_u32(g);
            self.max_value = self.max_value.max(g);
            self.seen = n + 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kayles_start() {
        let rule = Rule::parse("0.77").unwrap();
        let mut vals = vec![0u8; 12];
        Exact::new(&rule).fill(&mut vals, 0, 12).unwrap();
        // OEIS A002186.
        assert_eq!(vals, [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
    }

    #[test]
    fn overflow_is_reported() {
        let rule = Rule::parse("nim").unwrap();
        let mut vals = vec![0u8; 300];
        let e = Exact::new(&rule).fill(&mut vals, 0, 300).unwrap_err();
        assert_eq!(
            e,
            Overflow {
                at: 256,
                value: 256
            }
        );
        assert_eq!(vals[255], 255);
    }
}
