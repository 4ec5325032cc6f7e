//! Equivalent games: identical sequences, or identical up to a shift of heap sizes.
//!
//! Definition. With `N` heaps computed and a largest shift `S` (`S ≤ N/2`), let `L = N − S`.
//! Game `b` is game `a` *shifted by* `d` (`0 ≤ d ≤ S`) when `G_b(n + d) = G_a(n)` for every
//! `0 ≤ n < L`: `b`'s heap of `n + d` plays like `a`'s heap of `n` (for example Dawson's Kayles
//! `0.07` is Dawson's chess `0.137` shifted by 1, and `0.4` is `0.137` shifted by 2; OEIS A002187).
//! `d = 0` is identity of the first `L` values. Groups are the connected components of this
//! relation, so they are equivalence classes of the computed prefixes; every member gets an
//! offset relative to the group's base (offset 0), chosen along the smallest shifts available.
//!
//! Comparing prefixes pairwise would need every sequence at once (and a merge of shard files
//! would need all values). Instead each game carries `S + 1` fingerprints, one 128-bit hash of
//! each window `G(d) … G(d + L − 1)`; `b` is `a` shifted by `d` when window `d` of `b` hashes
//! like window 0 of `a`. The hash is nimseq's own (stable across versions and platforms, unlike
//! the standard library's); a false match needs a 128-bit collision.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::engine::Cell;

/// The default largest shift compared.
pub const DEFAULT_MAX_SHIFT: usize = 8;

/// A 128-bit hash of a window of values; written as 32 hexadecimal digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u128);

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl Serialize for Fingerprint {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Fingerprint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text.len() != 32 {
            return Err(serde::de::Error::custom(format!(
                "fingerprint '{text}' is not 32 hexadecimal digits"
            )));
        }
        u128::from_str_radix(&text, 16)
            .map(Fingerprint)
            .map_err(|_| {
                serde::de::Error::custom(format!("fingerprint '{text}' is not hexadecimal"))
            })
    }
}

/// The largest shift actually compared for `count` heaps: `min(max_shift, count / 2)`.
pub fn effective_shift(max_shift: usize, count: usize) -> usize {
    max_shift.min(count / 2)
}

#[inline]
fn mix(mut z: u64) -> u64 {
    // The splitmix64 finalizer: a bijection that spreads every input bit over the output.
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The fingerprint of a run of values: two independent 64-bit polynomial hashes of the mixed
/// values, each finished with the length.
pub fn fingerprint<T: Cell>(vals: &[T]) -> Fingerprint {
    let (mut a, mut b) = (0x243f_6a88_85a3_08d3u64, 0x1319_8a2e_0370_7344u64);
    for v in vals {
        let x = u64::from(v.get());
        a = a.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ mix(x);
        b = b.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ mix(x ^ 0xa409_3822_299f_31d0);
    }
    let len = vals.len() as u64;
    let hi = mix(a ^ len);
    let lo = mix(b.wrapping_add(len.rotate_left(32)));
    Fingerprint((u128::from(hi) << 64) | u128::from(lo))
}

/// The fingerprints of windows `0..=S` of `vals` (see the module text), `S` =
/// [`effective_shift`]`(max_shift, vals.len())`.
pub fn windows<T: Cell>(vals: &[T], max_shift: usize) -> Vec<Fingerprint> {
    let s = effective_shift(max_shift, vals.len());
    let len = vals.len() - s;
    (0..=s).map(|d| fingerprint(&vals[d..d + len])).collect()
}

/// A game in a group: `G_game(n + offset) = G_base(n)` over the compared prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Member {
    /// The game's index in the survey.
    pub index: usize,
    /// Its shift relative to the group's base.
    pub offset: usize,
}

/// Games with identical sequences up to shifts, the base (offset 0) first, then by offset and
/// index. Only groups of two or more games are reported.
pub type Group = Vec<Member>;

/// The groups of equivalent games among `windows[j]` (the fingerprints of game `j`, all with the
/// same number of windows), ordered by their first member's index.
///
/// Games with the same window 0 (identical compared prefixes) form one *class* and always share
/// an offset; the shift relation is built between classes: window `d` of a member of class `B`
/// names at most one class (the one whose window 0 it equals). So the work and memory are linear
/// in the number of games times the shifts, even when thousands of games are identical (a survey
/// of every five-digit code to a small N).
pub fn groups(windows: &[Vec<Fingerprint>]) -> Vec<Group> {
    // Classes of identical prefixes, numbered in the order of their smallest member.
    let mut class_of_start: HashMap<Fingerprint, usize> = HashMap::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut class = vec![usize::MAX; windows.len()];
    for (j, w) in windows.iter().enumerate() {
        let Some(&f) = w.first() else { continue };
        let c = *class_of_start.entry(f).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        members[c].push(j);
        class[j] = c;
    }
    // Edges B = A shifted by d (d ≥ 1), both directions: (neighbour class, signed shift).
    let mut adj: Vec<Vec<(usize, i64)>> = vec![Vec::new(); members.len()];
    for (j, w) in windows.iter().enumerate() {
        for (d, f) in w.iter().enumerate().skip(1) {
            if let Some(&a) = class_of_start.get(f) {
                let b = class[j];
                if a != b {
                    adj[a].push((b, d as i64));
                    adj[b].push((a, -(d as i64)));
                }
            }
        }
    }
    for list in &mut adj {
        list.sort_unstable();
        list.dedup();
    }
    let mut offset: Vec<Option<i64>> = vec![None; members.len()];
    let mut out = Vec::new();
    for root in 0..members.len() {
        if offset[root].is_some() || (adj[root].is_empty() && members[root].len() < 2) {
            continue;
        }
        // Grow a tree along the smallest shifts first (Prim's rule; ties to the class with the
        // smallest game: class numbers follow their smallest games), so that the offsets follow
        // the smallest shifts available.
        offset[root] = Some(0);
        let mut reached = vec![root];
        let mut heap = BinaryHeap::new();
        let push = |heap: &mut BinaryHeap<_>, from: usize, at: i64| {
            for &(to, d) in &adj[from] {
                heap.push(Reverse((d.unsigned_abs(), to, at + d)));
            }
        };
        push(&mut heap, root, 0);
        while let Some(Reverse((_, to, off))) = heap.pop() {
            if offset[to].is_some() {
                continue;
            }
            offset[to] = Some(off);
            reached.push(to);
            push(&mut heap, to, off);
        }
        let base = reached
            .iter()
            .map(|&c| offset[c].expect("assigned"))
            .min()
            .unwrap_or(0);
        let mut group: Group = reached
            .iter()
            .flat_map(|&c| {
                let off = (offset[c].expect("assigned") - base) as usize;
                members[c]
                    .iter()
                    .map(move |&index| Member { index, offset: off })
            })
            .collect();
        group.sort_by_key(|m| (m.offset, m.index));
        out.push(group);
    }
    out.sort_by_key(|g| g.iter().map(|m| m.index).min());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The first implementation, kept as the reference: every pair of related games an edge
    /// (quadratic in the size of a class of identical games).
    fn groups_pairwise(windows: &[Vec<Fingerprint>]) -> Vec<Group> {
        let n = windows.len();
        // Games by the hash of their window 0.
        let mut by_start: HashMap<Fingerprint, Vec<usize>> = HashMap::new();
        for (j, w) in windows.iter().enumerate() {
            if let Some(&f) = w.first() {
                by_start.entry(f).or_default().push(j);
            }
        }
        // Edges b = a shifted by d, both directions: (neighbor, signed shift).
        let mut adj: Vec<Vec<(usize, i64)>> = vec![Vec::new(); n];
        for (b, w) in windows.iter().enumerate() {
            for (d, f) in w.iter().enumerate() {
                for &a in by_start.get(f).map_or(&[][..], Vec::as_slice) {
                    if a != b {
                        adj[a].push((b, d as i64));
                        adj[b].push((a, -(d as i64)));
                    }
                }
            }
        }
        let mut offset: Vec<Option<i64>> = vec![None; n];
        let mut out = Vec::new();
        for root in 0..n {
            if offset[root].is_some() || adj[root].is_empty() {
                continue;
            }
            // Grow a tree along the smallest shifts first (Prim's rule), so that identical games get
            // the same offset even when a larger shift also relates them.
            offset[root] = Some(0);
            let mut members = vec![root];
            let mut heap = BinaryHeap::new();
            let push = |heap: &mut BinaryHeap<_>, from: usize, at: i64| {
                for &(to, d) in &adj[from] {
                    heap.push(Reverse((d.unsigned_abs(), to, at + d)));
                }
            };
            push(&mut heap, root, 0);
            while let Some(Reverse((_, to, off))) = heap.pop() {
                if offset[to].is_some() {
                    continue;
                }
                offset[to] = Some(off);
                members.push(to);
                push(&mut heap, to, off);
            }
            let base = members
                .iter()
                .map(|&j| offset[j].expect("assigned"))
                .min()
                .unwrap_or(0);
            let mut group: Group = members
                .iter()
                .map(|&j| Member {
                    index: j,
                    offset: (offset[j].expect("assigned") - base) as usize,
                })
                .collect();
            group.sort_by_key(|m| (m.offset, m.index));
            out.push(group);
        }
        out.sort_by_key(|g| g.iter().map(|m| m.index).min());
        out
    }

    #[test]
    fn fingerprint_is_stable_and_sensitive() {
        // Pinned: files written by one version must group with files written by the next.
        assert_eq!(
            fingerprint(&[0u8, 1, 2, 3]).to_string(),
            "dccf3fb9ca7389446b550f7d128b18ac"
        );
        assert_eq!(
            fingerprint(&[0u8, 1, 2, 3]),
            fingerprint(&[0u32, 1, 2, 3]),
            "the width of the cells does not matter"
        );
        assert_ne!(fingerprint(&[0u8, 1]), fingerprint(&[1u8, 0]));
        assert_ne!(fingerprint(&[0u8]), fingerprint(&[0u8, 0]));
        let f = fingerprint(&[7u16; 3]);
        let text = serde_json::to_string(&f).unwrap();
        assert_eq!(serde_json::from_str::<Fingerprint>(&text).unwrap(), f);
        assert!(serde_json::from_str::<Fingerprint>("\"12\"").is_err());
    }

    #[test]
    fn shifted_copies_group_with_offsets() {
        let base: Vec<u32> = (0..100).map(|n| (n * n + 3 * n) % 7).collect();
        let shifted = |d: usize, junk: u32| {
            let mut v = vec![junk; d];
            v.extend_from_slice(&base[..100 - d]);
            v
        };
        let seqs = [
            shifted(1, 9),
            (0..100).map(|n| n % 5).collect(),
            base.clone(),
            shifted(3, 1),
            base.clone(),
        ];
        let w: Vec<_> = seqs.iter().map(|s| windows(s, 8)).collect();
        let g = groups(&w);
        assert_eq!(g.len(), 1, "{g:?}");
        let got: Vec<(usize, usize)> = g[0].iter().map(|m| (m.index, m.offset)).collect();
        assert_eq!(got, [(2, 0), (4, 0), (0, 1), (3, 3)]);
    }

    #[test]
    fn shifts_beyond_the_limit_are_not_seen() {
        let base: Vec<u32> = (0..200).map(|n| (n * 7 + n / 3) % 11).collect();
        let mut far = vec![0; 9];
        far.extend_from_slice(&base[..191]);
        let w = [windows(&base, 8), windows(&far, 8)];
        assert!(groups(&w).is_empty());
        let w = [windows(&base, 9), windows(&far, 9)];
        assert_eq!(groups(&w).len(), 1);
    }

    #[test]
    fn short_sequences() {
        assert_eq!(effective_shift(8, 5), 2);
        assert_eq!(windows(&[1u8], 8).len(), 1);
        assert_eq!(windows::<u8>(&[], 8).len(), 1);
    }

    proptest! {
        /// Classes of identical games change nothing: the groups, offsets included, are those
        /// of the pairwise reference (short sequences over two values: many identical games).
        #[test]
        fn class_grouping_matches_the_pairwise_reference(
            pool in prop::collection::vec(prop::collection::vec(0u32..3, 14), 3),
            picks in prop::collection::vec((0usize..3, 0usize..4, 0u32..2), 1..16),
            s in 0usize..5,
        ) {
            // Each game: a pool sequence shifted by 0..3 heaps behind a junk prefix, so that
            // identical games and shifted copies are common.
            let seqs: Vec<Vec<u32>> = picks
                .iter()
                .map(|&(k, d, junk)| {
                    let mut q = vec![junk; d];
                    q.extend_from_slice(&pool[k][..14 - d]);
                    q
                })
                .collect();
            let w: Vec<_> = seqs.iter().map(|q| windows(q, s)).collect();
            prop_assert_eq!(groups(&w), groups_pairwise(&w));
        }

        /// The fingerprints decide exactly what comparing the prefixes decides.
        #[test]
        fn grouping_matches_direct_comparison(
            seqs in prop::collection::vec(prop::collection::vec(0u32..3, 12), 2..6),
        ) {
            let s = 4;
            let w: Vec<_> = seqs.iter().map(|q| windows(q, s)).collect();
            let g = groups(&w);
            let len = 12 - s;
            let related = |a: &Vec<u32>, b: &Vec<u32>| {
                (0..=s).any(|d| b[d..d + len] == a[..len] || a[d..d + len] == b[..len])
            };
            // Same component iff connected by direct relations.
            let n = seqs.len();
            let mut comp: Vec<usize> = (0..n).collect();
            for _ in 0..n {
                for a in 0..n {
                    for b in 0..n {
                        if related(&seqs[a], &seqs[b]) {
                            let m = comp[a].min(comp[b]);
                            comp[a] = m;
                            comp[b] = m;
                        }
                    }
                }
            }
            for a in 0..n {
                for b in (0..n).filter(|&b| b != a) {
                    let together = g.iter().any(|grp| {
                        grp.iter().any(|m| m.index == a) && grp.iter().any(|m| m.index == b)
                    });
                    prop_assert_eq!(together, comp[a] == comp[b], "{} {}", a, b);
                }
            }
        }
    }
}
