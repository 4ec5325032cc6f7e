//! The witness search: the last few targets of a scan looked for by value instead of in pair
//! order.
//!
//! A scan goes through the pairs `(a, r − a)` in order until every target (a rare value below the
//! least open common value) has been met. The first targets are met within a few hundred pairs;
//! the last ones take most of the scan: half of Grundy's game's pairs, and a third of Officers',
//! are scanned with at most two targets left (heaps around 2^20). A target `t` is the value of
//! a pair whose small part `a` has some value `u` and whose large part `r − a` has `u ⊕ t`. So,
//! for a target left, this module tries the heaps `a` of the few values `u` for which `u ⊕ t` is
//! most frequent — a list of the first heaps of each value, and for each target the values to
//! try, best first, made from the histogram — and looks at `G(r − a)` only: in those games a
//! median of about 30 looks finds it, where the scan in order needs about 900 more pairs.
//!
//! A look that finds `G(r − a) = u ⊕ t` is a pair of the heap with value `t`: the target is met,
//! exactly as the scan would meet it (the search only uses pairs with both parts below the
//! scan's limit). A target not found within the search's budget is left to the scan, which goes
//! on in order and, at its end, proves the targets it has not met missing. So the values are
//! those of the exact engine whatever the search finds; only the time changes.

use super::{last_pair, Targets};
use crate::classes::Histogram;
use crate::engine::Cell;
use crate::rules::Split;

/// The search runs once at most this many targets are left.
pub(super) const FEW_LEFT: usize = 6;
/// Values tried for each target, best first …
const TRIES: usize = 4;
/// … and heaps looked at for each of them.
const LOOKS: usize = 64;
/// Heaps kept for each value: the first ones (from heap 1 on).
const KEPT: usize = 1024;
/// Values from this on have no lists (the search does not run for wider rows).
pub(super) const MAX_WIDTH: usize = 1024;

/// The first heaps of each value, and for each target the values to try.
#[derive(Debug, Clone, Default)]
pub(super) struct Witnesses {
    /// Pairs a scan goes through in order before it first looks at whether few enough targets
    /// are left (then twice as many before each next look).
    pub(super) first_stretch: usize,
    /// `heaps[u]`: the first heaps (from 1 on, at most [`KEPT`]) of value `u`, ascending.
    heaps: Vec<Vec<u32>>,
    /// Heaps looked at: `1..covered`.
    covered: usize,
    /// For target `t`: the values `u` whose heaps are tried as the small part of a pair of value
    /// `t`, those with `u ⊕ t` most frequent first.
    tries: Vec<[u16; TRIES]>,
    /// The histogram's count when `tries` was made; made again at twice that.
    tried_at: u64,
}

impl Witnesses {
    /// No lists yet; the scans look at their targets left after `first_stretch` pairs.
    pub(super) fn new(first_stretch: usize) -> Witnesses {
        Witnesses {
            first_stretch: first_stretch.max(1),
            ..Witnesses::default()
        }
    }

    /// Brings the lists to the heaps of `vals` (values below `width`), and the values to try to
    /// the histogram when it has doubled since (or the width grew).
    pub(super) fn extend<T: Cell>(&mut self, vals: &[T], width: usize, hist: &Histogram) {
        if width > MAX_WIDTH {
            return;
        }
        if vals.len() < self.covered {
            // Another, shorter prefix: drop what lies past it.
            for list in &mut self.heaps {
                let keep = list.partition_point(|&a| (a as usize) < vals.len());
                list.truncate(keep);
            }
            self.covered = vals.len();
        }
        let grew = self.heaps.len() < width;
        if grew {
            self.heaps.resize_with(width, Vec::new);
        }
        let end = vals.len().min(u32::MAX as usize);
        for (a, v) in vals.iter().enumerate().take(end).skip(self.covered.max(1)) {
            // A value past the lists is left out: the lists need not hold every heap, only
            // heaps of their value.
            if let Some(list) = self.heaps.get_mut(v.get() as usize) {
                if list.len() < KEPT {
                    list.push(a as u32);
                }
            }
        }
        self.covered = self.covered.max(vals.len());
        if grew || hist.len >= 2 * self.tried_at {
            self.order(hist);
        }
    }

    /// For each target `t`, the values `u` with heaps whose partner value `u ⊕ t` is most
    /// frequent.
    fn order(&mut self, hist: &Histogram) {
        let width = self.heaps.len();
        let count = |v: usize| hist.counts.get(v).copied().unwrap_or(0);
        self.tries = (0..width)
            .map(|t| {
                let mut best = [(0u64, 0u16); TRIES];
                for u in (0..width).filter(|&u| !self.heaps[u].is_empty()) {
                    let c = count(u ^ t);
                    if c > best[TRIES - 1].0 {
                        best[TRIES - 1] = (c, u as u16);
                        best.sort_by_key(|&(c, _)| std::cmp::Reverse(c));
                    }
                }
                best.map(|(_, u)| u)
            })
            .collect();
        self.tried_at = hist.len.max(1);
    }

    /// Whether the search can run for rows of `width` values.
    pub(super) fn ready(&self, width: usize) -> bool {
        width <= self.heaps.len() && self.tries.len() >= width
    }

    /// Looks for the targets left (at most [`FEW_LEFT`]) among the pairs of heap `n` (its splits
    /// `splits`) whose small part is at least `cursor.from`: each one found is met (marked in
    /// `row`, taken out of `targets`). The large parts read are below `n − cursor.from + 1`.
    #[inline(always)]
    pub(super) fn search<T: Cell>(
        &self,
        cursor: &mut Cursor,
        row: &mut [u8],
        targets: &mut Targets<T>,
        vals: &[T],
        n: usize,
        splits: &[Split],
    ) {
        let mut left = [0u32; FEW_LEFT];
        let k = targets.left(&mut left);
        for &t in &left[..k] {
            let Some(tries) = self.tries.get(t as usize) else {
                continue;
            };
            'target: for s in splits {
                if s.take + 2 > n {
                    break;
                }
                let r = n - s.take;
                let last = last_pair(r, s.unequal);
                for &u in tries {
                    let want = u32::from(u) ^ t;
                    let list = &self.heaps[u as usize];
                    let start = cursor.start(u as usize, list);
                    for &a in list[start..].iter().take(LOOKS) {
                        let a = a as usize;
                        if a > last {
                            break;
                        }
                        if vals[r - a].get() == want {
                            targets.meet(t, row);
                            break 'target;
                        }
                    }
                }
            }
        }
    }
}

/// Where the lists start for the heaps of one far chunk: the small part of a pair must be at
/// least `from`, so that the large part lies below the scan's limit for every heap of the chunk.
#[derive(Debug, Clone)]
pub(super) struct Cursor {
    from: usize,
    /// For each value: the index of its first heap at least `from`, or `u16::MAX` if not yet
    /// looked up.
    starts: Vec<u16>,
}

impl Cursor {
    /// A cursor for small parts from `from` on (at least 1), for values below `width`.
    pub(super) fn new(from: usize, width: usize) -> Cursor {
        Cursor {
            from: from.max(1),
            starts: vec![u16::MAX; width.min(MAX_WIDTH)],
        }
    }

    #[inline(always)]
    fn start(&mut self, u: usize, list: &[u32]) -> usize {
        let from = self.from;
        match self.starts.get_mut(u) {
            Some(s) if *s != u16::MAX => *s as usize,
            Some(s) => {
                let i = list.partition_point(|&a| (a as usize) < from);
                *s = i as u16;
                i
            }
            None => list.partition_point(|&a| (a as usize) < from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kernels::Tier;

    /// Values of heaps 0..: a few heaps of values 1, 2 and 3.
    const VALS: [u8; 12] = [0, 1, 2, 3, 1, 2, 3, 1, 1, 2, 2, 2];

    fn witnesses() -> Witnesses {
        let mut hist = Histogram::default();
        hist.add_slice(&VALS);
        let mut w = Witnesses::new(64);
        w.extend(&VALS, 4, &hist);
        w
    }

    #[test]
    fn lists_hold_the_first_heaps_of_each_value() {
        let w = witnesses();
        assert_eq!(w.heaps[0], Vec::<u32>::new(), "heap 0 is no small part");
        assert_eq!(w.heaps[1], [1, 4, 7, 8]);
        assert_eq!(w.heaps[2], [2, 5, 9, 10, 11]);
        assert_eq!(w.heaps[3], [3, 6]);
        assert!(w.ready(4) && !w.ready(8));
        // For target 1, value 3 first: its partner 3 ⊕ 1 = 2 is the most frequent value.
        assert_eq!(w.tries[1][0], 3);
        // A shorter prefix drops what lies past it.
        let mut w = w;
        let mut hist = Histogram::default();
        hist.add_slice(&VALS[..6]);
        w.extend(&VALS[..6], 4, &hist);
        assert_eq!(w.heaps[2], [2, 5]);
    }

    #[test]
    fn a_target_is_met_only_by_a_pair_of_its_value() {
        let w = witnesses();
        // Heap 12 of a game that splits a heap into two (take 0): pairs (a, 12 − a).
        let splits = [Split {
            take: 0,
            unequal: false,
        }];
        for t in 0..4u32 {
            let mut targets = Targets::<u8>::new(64, 1, Tier::PORTABLE);
            let mut row = [0u8; 64];
            row[t as usize] = 0;
            let mut class = [0u8; 64];
            class[t as usize] = 0xFF;
            targets.set_open(&row, &class, 64);
            assert_eq!(targets.need(), 1);
            let mut cursor = Cursor::new(1, 4);
            let mut vals = VALS.to_vec();
            vals.push(0);
            w.search(&mut cursor, &mut row, &mut targets, &vals, 12, &splits);
            let exists = (1..=6).any(|a| u32::from(VALS[a] ^ VALS[12 - a]) == t);
            assert_eq!(targets.need() == 0, exists, "target {t}");
            assert_eq!(row[t as usize] == 1, exists, "target {t}");
        }
    }
}
