//! Value statistics: frequencies, the largest value, and the sparse-space ("rare") structure of a
//! whole sequence. The classes themselves (rare, common, the rare mask) are in
//! [`crate::classes`].

pub use crate::classes::{is_rare, rare_mask, Histogram};
use crate::engine::Cell;

/// The statistics of a whole sequence, as the summaries report them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// The value histogram.
    pub histogram: Histogram,
    /// The rare mask.
    pub rare_mask: u32,
    /// Heaps with a rare value (heap 0 included).
    pub rare_count: u64,
    /// The last heap with a rare value.
    pub last_rare_at: Option<u64>,
}

impl Stats {
    /// Statistics of `G(0) … G(len − 1)`.
    pub fn of_slice<T: Cell>(vals: &[T]) -> Stats {
        let mut histogram = Histogram::default();
        histogram.add_slice(vals);
        let (rare_mask, rare_count) = histogram.rare_mask();
        let last_rare_at = vals
            .iter()
            .rposition(|v| is_rare(v.get(), rare_mask))
            .map(|n| n as u64);
        Stats {
            histogram,
            rare_mask,
            rare_count,
            last_rare_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classes::rare_mask_by_counting;

    #[test]
    fn kayles_like() {
        let s = Stats::of_slice(&[0u8, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
        assert_eq!(s.histogram.max_value(), 6);
        assert_eq!(s.histogram.max_first_at, 11);
        assert_eq!(s.histogram.counts, vec![1, 3, 3, 2, 2, 0, 1]);
        let (m, c) = rare_mask_by_counting(&[0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
        assert_eq!((s.rare_mask, s.rare_count), (m, c));
    }

    #[test]
    fn all_zero() {
        let s = Stats::of_slice(&[0u8; 5]);
        assert_eq!((s.rare_mask, s.rare_count, s.last_rare_at), (1, 5, Some(4)));
    }
}
