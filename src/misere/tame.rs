//! Is a misère quotient tame? A game (a closed set of positions) is *tame* when its misère
//! quotient is isomorphic to one of the quotients `T_n` of misère Nim itself: `T_n` is the
//! quotient of Nim heaps below `2^n` (T. E. Plambeck, "Taming the wild in impartial
//! combinatorial games", INTEGERS 5 (2005) G05; T. E. Plambeck and A. N. Siegel, "Misère
//! quotients for impartial games", JCTA 115 (2008), §3). Tame games are exactly the ones
//! Conway's genus theory decides (ONAG ch. 12): sums of them play like misère Nim.
//!
//! The `T_n` from Bouton's misère Nim rule: a Nim position is known by its nim-sum `x` and
//! whether some heap has two tokens or more ("big"), and it is a P-position when
//! (`x = 0`, big) or (`x = 1`, not big). So
//! - `T_0 = {1}`, `P = ∅` (heap 0 alone);
//! - `T_1 = {1, a}`, `a² = 1`, `P = {a}` (heaps of one token);
//! - for `n ≥ 2`, `T_n = {1, a} ∪ G`, with `G = {(x, big) : x < 2^n}` an elementary abelian
//!   2-group of order `2^n` whose identity `z = (0, big)` is idempotent, `a·g` in `G` for `g` in
//!   `G`, and `P = {a, z}`: order `2^n + 2` (6, 10, 18, …; `T_2 = ⟨a, b | a² = 1, b³ = b⟩`).
//!
//! [`tame_index`] recognizes `T_n` by that structure rather than by searching for an
//! isomorphism: in `Q`, `z` must be the one idempotent other than 1; `G = zQ` must have
//! `|Q| − 2` elements, a power of two at least 4, each squaring to `z`; the two elements outside
//! `G` must be 1 and an `a ≠ 1` with `a² = 1` and `az ≠ z`; and `P = {a, z}`. These conditions
//! hold in `T_n`, and they are enough: `G` is then an elementary abelian group of order `2^n`
//! with identity `z`, `az` is one of its non-identity elements, and a group isomorphism
//! `G → Z_2^n` sending `az` to `(1, 0, …)`, extended by `1 ↦ (0, not big)` and
//! `a ↦ (1, not big)`, respects every product (`a·g = (az)·g` since `g = zg`) and `P`.

use serde::Serialize;

use crate::misere::quotient::QuotientReport;

/// A quotient's report and whether it is tame: what `quotient --json` prints and Python's
/// `quotient()` returns (the report's keys, then `tame` and `tame_index`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Classified {
    /// The quotient.
    #[serde(flatten)]
    pub report: QuotientReport,
    /// Is it isomorphic to a quotient `T_n` of misère Nim? (Of the heaps computed: a partial
    /// quotient's answer can change at a later heap.)
    pub tame: bool,
    /// That `n`, when tame.
    pub tame_index: Option<u32>,
}

impl Classified {
    /// The report with its class ([`tame_index`]).
    pub fn new(report: QuotientReport) -> Classified {
        let tame_index = tame_index(&report);
        Classified {
            report,
            tame: tame_index.is_some(),
            tame_index,
        }
    }
}

/// `Some(n)` when the quotient in `report` (its table, identity and `P`) is isomorphic to the
/// tame quotient `T_n`; `None` when it is wild.
pub fn tame_index(report: &QuotientReport) -> Option<u32> {
    let order = report.order;
    let one = report.identity;
    let mul = |a: u32, b: u32| report.table.get(a, b);
    let others = (0..order as u32).filter(|&e| e != one);
    match order {
        0 => None,
        1 => report.p.is_empty().then_some(0),
        2 => {
            let a = others.clone().next()?;
            (mul(a, a) == one && report.p == [a]).then_some(1)
        }
        _ => {
            // z: the one idempotent other than 1.
            let mut idempotents = others.clone().filter(|&e| mul(e, e) == e);
            let z = idempotents.next()?;
            if idempotents.next().is_some() {
                return None;
            }
            let mut in_g = vec![false; order];
            for e in 0..order as u32 {
                in_g[mul(z, e) as usize] = true;
            }
            let g_order = in_g.iter().filter(|&&b| b).count();
            if g_order != order - 2
                || !g_order.is_power_of_two()
                || g_order < 4
                || in_g[one as usize]
            {
                return None;
            }
            if (0..order as u32).any(|g| in_g[g as usize] && mul(g, g) != z) {
                return None;
            }
            let a = others.clone().find(|&e| !in_g[e as usize])?;
            if mul(a, a) != one || mul(a, z) == z {
                return None;
            }
            let mut pset: Vec<u32> = report.p.clone();
            pset.sort_unstable();
            let mut want = vec![a, z];
            want.sort_unstable();
            (pset == want).then_some(g_order.trailing_zeros())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::ControlFlow;

    /// A report holding only what [`tame_index`] reads.
    fn report(table: Vec<Vec<u32>>, p: Vec<u32>) -> QuotientReport {
        QuotientReport {
            game: String::new(),
            order: table.len(),
            p_count: p.len(),
            certified: true,
            certified_at: None,
            last_heap: 0,
            stable_from: 0,
            preperiod: None,
            period: None,
            heaps: vec![],
            identity: 0,
            p,
            table: crate::misere::quotient::ProductTable::from_rows(&table),
            presentation: String::new(),
            generators: vec![],
            elements: vec![],
            changes: vec![],
            states: 0,
            stopped: None,
        }
    }

    /// `T_n` built from its definition: element 0 is 1, 1 is a, 2 + x is (x, big).
    fn t(n: u32) -> QuotientReport {
        let code = |x: u32, big: bool| if big { 2 + x } else { x };
        let of = |e: u32| if e < 2 { (e, false) } else { (e - 2, true) };
        let order = 2 + (1u32 << n);
        let table = (0..order)
            .map(|u| {
                (0..order)
                    .map(|v| {
                        let ((x, b), (y, c)) = (of(u), of(v));
                        code(x ^ y, b || c)
                    })
                    .collect()
            })
            .collect();
        report(table, vec![1, 2])
    }

    #[test]
    fn the_tame_quotients_are_tame() {
        assert_eq!(tame_index(&report(vec![vec![0]], vec![])), Some(0));
        assert_eq!(
            tame_index(&report(vec![vec![0, 1], vec![1, 0]], vec![1])),
            Some(1)
        );
        for n in 2..6 {
            assert_eq!(tame_index(&t(n)), Some(n), "T_{n}");
        }
    }

    /// The quotient of heaps `0 ..= max` of `code` with its class, unless the computation
    /// stops on an error; it also stops after the first heap that takes the order past 64 (a
    /// partial quotient all the same: of the heaps computed).
    fn classified(code: &str, max: usize) -> Option<Classified> {
        let rule = crate::rules::Rule::parse(code).unwrap();
        let (s, err) = crate::misere::quotient::compute(&rule, max, 1 << 20, |_, s| {
            if s.monoid().order > 64 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        err.is_none().then(|| Classified::new(s.report()))
    }

    /// Published: the Woolly Mammoths of Plambeck ("Taming the wild", INTEGERS 2005; Plambeck
    /// and Siegel, JCTA 2008, §3) have the tame quotient of order 6; 0.75's R8 (Siegel, "The
    /// structure and classification of misère quotients", 2007) is wild.
    #[test]
    fn published_cases() {
        for code in ["0.121", "0.131", "0.201", "0.211", "0.331"] {
            let c = classified(code, 40).unwrap();
            assert!(c.report.certified, "{code}");
            assert_eq!((c.report.order, c.tame_index), (6, Some(2)), "{code}");
        }
        let r8 = classified("0.75", 40).unwrap();
        assert!(r8.report.certified && r8.report.order == 8);
        assert!(!r8.tame && r8.tame_index.is_none());
    }

    /// Against genus theory, on every two-digit octal code to heap 11 (0.76 spends half a
    /// minute on heap 12): when every heap's
    /// simplest form is tame (ONAG ch. 12, [`crate::misere::Forms::is_tame`]), sums play like
    /// misère Nim and the quotient must be some `T_n`; and a quotient found tame must come from
    /// heaps whose genera are all tame.
    #[test]
    fn tame_genera_give_tame_quotients() {
        const MAX: usize = 11;
        let mut both = [0usize; 2];
        for d1 in 0..8u32 {
            for d2 in 0..8u32 {
                let code = format!("0.{d1}{d2}");
                let Some(c) = classified(&code, MAX) else {
                    continue;
                };
                let last = c.report.last_heap;
                let rule = crate::rules::Rule::parse(&code).unwrap();
                let mut heaps = crate::misere::MisereHeaps::new(&rule);
                let mut all_tame = true;
                for h in 0..=last {
                    let g = heaps.heap_form(h).unwrap();
                    all_tame &= heaps.forms().is_tame(g);
                }
                assert_eq!(all_tame, c.tame, "{code} to heap {last}");
                both[usize::from(c.tame)] += 1;
            }
        }
        // Both kinds occur among the codes checked.
        assert!(both[0] > 5 && both[1] > 5, "{both:?}");
    }

    #[test]
    fn near_misses_are_wild() {
        // Order 2 with a² = a, or with the wrong P.
        assert_eq!(
            tame_index(&report(vec![vec![0, 1], vec![1, 1]], vec![1])),
            None
        );
        assert_eq!(
            tame_index(&report(vec![vec![0, 1], vec![1, 0]], vec![])),
            None
        );
        // T_2 with another P, or with P = {a, z} replaced by {a, az}.
        let mut r = t(2);
        r.p = vec![1, 3];
        assert_eq!(tame_index(&r), None);
        // The order-4 monoid {1, a, z, az}: G has only two elements.
        assert_eq!(tame_index(&t(1)), None);
    }
}
