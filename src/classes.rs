//! The rare and common classes of values, shared by the engines (which choose a mask to run
//! the sparse-space method) and the analysis (which reports it).
//!
//! A value `v` is *rare* for a mask `m` when `popcount(v & m)` is even, *common* otherwise; the
//! parity is linear over XOR, so `common ⊕ common` and `rare ⊕ rare` are rare. The rare mask of
//! a sequence is the non-zero mask with the fewest rare heaps (ties: the smallest mask); a
//! Walsh–Hadamard transform of the value histogram gives the rare count of every mask at once:
//! `rare(m) = (N + Σ_v hist[v]·(−1)^popcount(v & m)) / 2`. This module depends on nothing else in
//! the crate.

/// How often each value occurs, and where the largest first occurs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    /// `counts[v]` = number of heaps with value `v`.
    pub counts: Vec<u64>,
    /// Heaps counted.
    pub len: u64,
    /// The first heap with the largest value.
    pub max_first_at: u64,
}

impl Histogram {
    /// Counts the value of the next heap.
    #[inline]
    pub fn add(&mut self, v: u32) {
        let v = v as usize;
        if v >= self.counts.len() {
            self.counts.resize(v + 1, 0);
            self.max_first_at = self.len;
        }
        self.counts[v] += 1;
        self.len += 1;
    }

    /// Counts a run of heap values.
    pub fn add_slice<T: Copy + Into<u32>>(&mut self, vals: &[T]) {
        for &v in vals {
            self.add(v.into());
        }
    }

    /// The largest value counted (0 when empty).
    pub fn max_value(&self) -> u32 {
        self.counts.len().saturating_sub(1) as u32
    }

    /// How many heaps have each value, for the values that occur.
    pub fn frequencies(&self) -> std::collections::BTreeMap<u32, u64> {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(v, &c)| (v as u32, c))
            .collect()
    }

    /// The rare mask and its rare count (see the module text).
    pub fn rare_mask(&self) -> (u32, u64) {
        rare_mask(&self.counts, self.len)
    }
}

/// The non-zero mask with the fewest rare values among `len` heaps whose value histogram is
/// `counts`, with that number. Ties go to the smallest mask.
pub fn rare_mask(counts: &[u64], len: u64) -> (u32, u64) {
    let size = counts.len().max(2).next_power_of_two();
    let mut t: Vec<i64> = vec![0; size];
    for (v, &c) in counts.iter().enumerate() {
        t[v] = c as i64;
    }
    // In-place Walsh–Hadamard transform: t[m] = Σ_v counts[v]·(−1)^popcount(v & m).
    let mut h = 1;
    while h < size {
        for block in (0..size).step_by(2 * h) {
            for i in block..block + h {
                let (a, b) = (t[i], t[i + h]);
                t[i] = a + b;
                t[i + h] = a - b;
            }
        }
        h *= 2;
    }
    let mut best = (1u32, u64::MAX);
    for (m, &s) in t.iter().enumerate().skip(1) {
        let rare = ((len as i64 + s) / 2) as u64;
        if rare < best.1 {
            best = (m as u32, rare);
        }
    }
    best
}

/// Is `v` rare for `mask`?
#[inline(always)]
pub fn is_rare(v: u32, mask: u32) -> bool {
    (v & mask).count_ones().is_multiple_of(2)
}

/// The rare mask by counting, mask by mask (for tests of the transform).
#[cfg(test)]
pub(crate) fn rare_mask_by_counting(vals: &[u32]) -> (u32, u64) {
    let max = vals.iter().copied().max().unwrap_or(0).max(1);
    let size = (max as usize + 1).next_power_of_two() as u32;
    (1..size)
        .map(|m| (m, vals.iter().filter(|&&v| is_rare(v, m)).count() as u64))
        .min_by_key(|&(m, c)| (c, m))
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn walsh_hadamard_matches_counting(vals in prop::collection::vec(0u32..40, 1..200)) {
            let mut h = Histogram::default();
            for &v in &vals { h.add(v); }
            prop_assert_eq!(h.rare_mask(), rare_mask_by_counting(&vals));
        }
    }
}
