//! Where each value occurs, and the rare positions: what a report lists beyond the summary.

use super::is_rare;

/// Occurrences of every value of `G(0) … G(count − 1)`, and the heaps with rare values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Heaps counted.
    pub count: u64,
    /// `first[v]`: the first heap with value `v` (`None` if `v` does not occur).
    pub first: Vec<Option<u64>>,
    /// `last[v]`: the last heap with value `v`.
    pub last: Vec<Option<u64>>,
    /// `occurrences[v]`: how many heaps have value `v`.
    pub occurrences: Vec<u64>,
    /// The first rare heaps with their values, at most the limit given to [`Profile::of`].
    pub rare_positions: Vec<(u64, u32)>,
    /// All rare heaps.
    pub rare_total: u64,
}

impl Profile {
    /// The profile of `get(0) … get(count − 1)`, listing at most `rare_limit` rare heaps.
    pub fn of(count: u64, get: impl Fn(u64) -> u32, rare_mask: u32, rare_limit: usize) -> Profile {
        let mut p = Profile {
            count,
            first: Vec::new(),
            last: Vec::new(),
            occurrences: Vec::new(),
            rare_positions: Vec::new(),
            rare_total: 0,
        };
        for n in 0..count {
            let v = get(n);
            let i = v as usize;
            if i >= p.first.len() {
                p.first.resize(i + 1, None);
                p.last.resize(i + 1, None);
                p.occurrences.resize(i + 1, 0);
            }
            p.first[i].get_or_insert(n);
            p.last[i] = Some(n);
            p.occurrences[i] += 1;
            if is_rare(v, rare_mask) {
                p.rare_total += 1;
                if p.rare_positions.len() < rare_limit {
                    p.rare_positions.push((n, v));
                }
            }
        }
        p
    }

    /// The values that occur, largest first.
    pub fn values_descending(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.first.len())
            .rev()
            .filter(|&v| self.first[v].is_some())
            .map(|v| v as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kayles_start() {
        let v = [0u32, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6];
        let p = Profile::of(12, |n| v[n as usize], 0xf, 3);
        assert_eq!(p.first[4], Some(5));
        assert_eq!(p.last[4], Some(9));
        assert_eq!(p.occurrences[1], 3);
        assert_eq!(p.first[5], None);
        // Rare for 0xf: values with an even number of bits among 0..4: 0, 3, 6.
        assert_eq!(p.rare_positions, vec![(0, 0), (3, 3), (6, 3)]);
        assert_eq!(p.rare_total, 4);
        assert_eq!(
            p.values_descending().take(2).collect::<Vec<_>>(),
            vec![6, 4]
        );
    }
}
