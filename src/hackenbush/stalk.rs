//! Canonical forms of Hackenbush strings of every colour, by the indices of their prefixes.
//!
//! Write `Pⱼ` for the first `j` edges of a string `e₁ e₂ … eₙ` (ground first). Cutting edge
//! `j + 1` leaves `Pⱼ`, so `Pₙ = {Pⱼ : eⱼ₊₁ blue or green | Pⱼ : eⱼ₊₁ red or green}`. Three facts
//! make the canonical forms of all prefixes cheap, with no comparison of games at all:
//!
//! 1. *Every subgame of the canonical form of `Pₙ` equals some earlier prefix.* Its options are
//!    prefixes, or, after bypassing a reversible option, options of the canonical forms of
//!    earlier prefixes (by induction on `n`). So a canonical form is a pair of sets of prefix
//!    indices, and the forms of a string of `n` edges have at most `n + 1` distinct subgames.
//! 2. *`G:H − G` has the outcome of `H`* for any forms `G`, `H` (`G:H ≥ G` exactly when
//!    `H ≥ 0`: Left answers a move in either copy of `G` by the same move in the other, and a
//!    move in `H` as in `H`; the converse by induction). A string is the ordinal sum of its lower
//!    and upper parts, so for `a < b`, `P_b − P_a` has the outcome of the string
//!    `eₐ₊₁ … e_b`, which is its first edge's: a blue edge is won by Left whoever starts (cut
//!    it), a red one by Right, a green one by the first player. Hence `P_a < P_b` if `eₐ₊₁` is
//!    blue, `P_a > P_b` if red, and `P_a ‖ P_b` if green; distinct prefixes are never equal.
//! 3. So dominance is read off the colours, and reversibility too: a Left option `P_a` of
//!    `Pₙ` is reversible exactly when the canonical form of `P_a` has a Right option `P_r`
//!    with `eᵣ₊₁` blue (then `P_r ≤ Pₙ`), whatever `n` is; it is bypassed by the Left options
//!    of `P_r`'s canonical form, none of which is reversible (that property, too, is
//!    independent of `n`). Symmetrically for Right.
//!
//! Each prefix costs the size of its literal undominated options plus the options it takes over
//! by bypassing. The forms really grow: every prefix under a green edge stays an option of every
//! longer prefix on both sides, so a prefix with `k` green edges below has about `2k` options,
//! and a string of `n` edges with `k` green ones about `n·k` option entries in all (measured,
//! `form_sizes` below: 33 million for a uniform random string of 10,000 edges, 91 million when
//! 11 edges in 12 are green; two a prefix when none is green). [`StringForms::compute`]
//! refuses beyond a budget of entries rather than exhaust memory. The forms are then handed to the [`Arena`] (numbers
//! and nimbers recognised), where sums, comparisons and printing take over.
//!
//! The facts are those of Winning Ways (ch. 2, 7: strings as ordinal sums) and Conway, *On
//! Numbers and Games* (ordinal sums); the derivation above is ours, and the tests check it
//! against the general canonical-form computation on every string of up to 8 edges and on
//! random ones of up to 48, including every comparison of two prefixes.

use super::{shown, Edge, HackenbushError};
use crate::partizan::{Arena, GameId};

/// The largest total number of option entries (over all prefixes) [`StringForms::compute`]
/// builds: 4 bytes each here, about 8 more in the arena.
pub const MAX_OPTION_ENTRIES: usize = 64_000_000;

/// The canonical forms of every prefix of a string, as sets of prefix indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringForms {
    /// `left[j]`: the Left options of `Pⱼ`'s canonical form, as prefix indices, increasing.
    left: Vec<Vec<u32>>,
    /// `right[j]`: the Right options.
    right: Vec<Vec<u32>>,
}

/// The colour of the edge just above prefix `j` (`edges[j]`) is what compares `Pⱼ` with every
/// longer prefix.
fn above(edges: &[Edge], j: u32) -> Edge {
    edges[j as usize]
}

impl StringForms {
    /// The canonical forms of all prefixes of `edges`, refused (as too large) if they would hold
    /// more than `max_entries` option entries.
    pub fn compute(
        edges: &[Edge],
        text: &str,
        max_entries: usize,
    ) -> Result<StringForms, HackenbushError> {
        let n = edges.len();
        let mut forms = StringForms {
            left: Vec::with_capacity(n + 1),
            right: Vec::with_capacity(n + 1),
        };
        forms.left.push(Vec::new());
        forms.right.push(Vec::new());
        // reverses_left[a]: a Right option P_r of P_a with e_{r+1} blue, if any (then P_a is
        // a reversible Left option of every longer prefix); reverses_right likewise.
        let mut reverses_left: Vec<Option<u32>> = vec![None];
        let mut reverses_right: Vec<Option<u32>> = vec![None];
        // The literal options that can be undominated: all prefixes under a green edge, and the
        // last prefix under a blue (for Left) or red (for Right) edge if no later one is green.
        let mut greens: Vec<u32> = Vec::new();
        let mut last_blue: Option<u32> = None;
        let mut last_red: Option<u32> = None;
        let mut entries = 0usize;
        // A stamp per prefix: marks members of the set being built.
        let mut stamp: Vec<u32> = vec![0; n + 1];
        let mut round = 0u32;
        for m in 1..=n {
            let j = (m - 1) as u32;
            match edges[m - 1] {
                Edge::Green => greens.push(j),
                Edge::Blue => last_blue = Some(j),
                Edge::Red => last_red = Some(j),
            }
            let mut sides: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
            for (side, own) in [(0usize, last_blue), (1, last_red)] {
                round += 1;
                let mut set = Vec::new();
                let reverses = if side == 0 {
                    &reverses_left
                } else {
                    &reverses_right
                };
                let lasts = own.filter(|&b| greens.last().is_none_or(|&g| g < b));
                for &a in greens.iter().chain(lasts.iter()) {
                    match reverses[a as usize] {
                        None => {
                            if stamp[a as usize] != round {
                                stamp[a as usize] = round;
                                set.push(a);
                            }
                        }
                        Some(r) => {
                            // Bypass: the options of P_r on this side replace P_a.
                            let via = if side == 0 {
                                &forms.left[r as usize]
                            } else {
                                &forms.right[r as usize]
                            };
                            for &b in via {
                                if stamp[b as usize] != round {
                                    stamp[b as usize] = round;
                                    set.push(b);
                                }
                            }
                        }
                    }
                }
                set.sort_unstable();
                sides[side] = undominated(edges, set, side == 0);
            }
            let [left, right] = sides;
            entries += left.len() + right.len();
            if entries > max_entries {
                return Err(HackenbushError::FormTooLarge {
                    string: shown(text),
                    prefix: m,
                    entries: max_entries,
                });
            }
            reverses_left.push(
                right
                    .iter()
                    .copied()
                    .find(|&r| above(edges, r) == Edge::Blue),
            );
            reverses_right.push(left.iter().copied().find(|&l| above(edges, l) == Edge::Red));
            forms.left.push(left);
            forms.right.push(right);
        }
        Ok(forms)
    }

    /// The number of prefixes (edges plus one).
    pub fn len(&self) -> usize {
        self.left.len()
    }

    /// Is it the empty string's only prefix?
    pub fn is_empty(&self) -> bool {
        self.len() == 1
    }

    /// Option entries over all prefixes.
    pub fn entries(&self) -> usize {
        self.left.iter().chain(&self.right).map(Vec::len).sum()
    }

    /// The Left and Right options of prefix `j`, as prefix indices.
    pub fn options(&self, j: usize) -> (&[u32], &[u32]) {
        (&self.left[j], &self.right[j])
    }

    /// Every prefix as a canonical game of `arena`: `out[j]` is the first `j` edges.
    pub fn into_arena(&self, arena: &mut Arena) -> Result<Vec<GameId>, HackenbushError> {
        let mut ids: Vec<GameId> = Vec::with_capacity(self.len());
        for j in 0..self.len() {
            let left: Vec<GameId> = self.left[j].iter().map(|&a| ids[a as usize]).collect();
            let right: Vec<GameId> = self.right[j].iter().map(|&a| ids[a as usize]).collect();
            ids.push(arena.adopt_canonical(left, right)?);
        }
        Ok(ids)
    }
}

/// The options of a sorted set that no other member beats (facts 2 and 3 of the module text):
/// for Left, `P_a` is beaten by a later member if `eₐ₊₁` is blue and by any member after an
/// earlier one under a red edge; for Right the colours swap.
fn undominated(edges: &[Edge], set: Vec<u32>, left: bool) -> Vec<u32> {
    let (rises, falls) = if left {
        (Edge::Blue, Edge::Red)
    } else {
        (Edge::Red, Edge::Blue)
    };
    let Some(&last) = set.last() else {
        return set;
    };
    let mut keep = Vec::with_capacity(set.len());
    for &a in &set {
        let e = above(edges, a);
        if e != rises || a == last {
            keep.push(a);
        }
        if e == falls {
            // Every later member is below P_a (for Left; above it for Right).
            break;
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string of `n` edges from a fixed generator: green with probability `green` in 12,
    /// else blue or red with equal chance.
    fn random_string(n: usize, green: u64, seed: u64) -> Vec<Edge> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match (x >> 11) % 12 {
                    r if r < green => Edge::Green,
                    r if r % 2 == 0 => Edge::Blue,
                    _ => Edge::Red,
                }
            })
            .collect()
    }

    /// Forms that outgrow the budget are refused, naming the prefix where it ran out: `k` green
    /// edges then blue ones give prefixes of `j` options a side while green, then `k + 1` Left
    /// and `k` Right options (the greens below stay undominated and irreversible).
    #[test]
    fn budget_refuses_growing_forms() {
        let s: Vec<Edge> = [vec![Edge::Green; 10], vec![Edge::Blue; 10]].concat();
        let f = StringForms::compute(&s, "", usize::MAX).unwrap();
        assert_eq!(f.options(10).0.len(), 10);
        assert_eq!(
            f.options(20),
            (
                &(0..10).chain([19]).collect::<Vec<u32>>()[..],
                &(0..10).collect::<Vec<u32>>()[..]
            )
        );
        // 2·(1 + … + 10) = 110 entries for the greens, then 21 a prefix.
        assert_eq!(f.entries(), 110 + 10 * 21);
        let err = StringForms::compute(&s, "G…", 110 + 21 * 3).unwrap_err();
        assert!(
            matches!(err, HackenbushError::FormTooLarge { prefix: 14, .. }),
            "{err:?}"
        );
    }

    /// Form sizes against length (a measurement, not a check):
    /// `cargo test --release --lib stalk::tests::form_sizes -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn form_sizes() {
        for green in [0, 1, 4, 6, 11] {
            for n in [100, 1000, 10_000, 30_000] {
                let s = random_string(n, green, n as u64 + green);
                let t = std::time::Instant::now();
                let f = StringForms::compute(&s, "", usize::MAX).unwrap();
                let most = (0..f.len())
                    .map(|j| f.left[j].len() + f.right[j].len())
                    .max()
                    .unwrap();
                let last = f.left[n].len() + f.right[n].len();
                println!(
                    "green {green}/12 n {n}: entries {} ({:.1} per prefix), largest form {most}, last {last}, {:.3} s",
                    f.entries(),
                    f.entries() as f64 / n as f64,
                    t.elapsed().as_secs_f64()
                );
            }
        }
    }
}
