//! The fast paths against the plain ones ([`super::reference`]) on random octal codes: the
//! candidate construction must give the same monoid and `Φ`, and the verification closure the
//! same verdict and states, in the plain heap order and in the order the solver uses; the
//! envelopes the plain closure's verdict, on candidates that pass and on ones that fail.

use proptest::prelude::*;

use super::{
    build_candidate, heap_options, heap_order, reference, Closure, Envelope, QuotientSolver,
};
use crate::rules::Rule;

/// A random code `0.d1…dk` (k ≤ 3, last digit non-zero).
fn code() -> impl Strategy<Value = String> {
    prop::collection::vec(0u8..8, 1..=3)
        .prop_filter("last digit non-zero", |d| *d.last().unwrap() != 0)
        .prop_map(|d| format!("0.{}", d.iter().map(|x| x.to_string()).collect::<String>()))
}

/// The solver for `code` after heaps `0 … max`, or as far as it gets with small quotients
/// (order at most 24, so that the test stays cheap on wild codes).
fn solver(code: &str, max: usize) -> QuotientSolver {
    let rule = Rule::parse(code).expect("a valid code");
    let mut s = QuotientSolver::new(&rule, 1 << 16);
    while s.count() <= max && s.monoid().order <= 24 && s.step().is_ok() {}
    s
}

/// `(result, states)` of the plain closure over heaps `1 … last` upwards.
fn plain_verdict(
    s: &QuotientSolver,
    m: &super::Monoid,
    phi: &[u32],
) -> (Result<(), super::ClosureError>, usize) {
    let mut c = reference::Closure::new(m, 1 << 16);
    for h in 1..phi.len() {
        let o = heap_options(&s.moves, m, phi, h);
        if let Err(e) = c.add_heap(h, phi[h], &o) {
            return (Err(e), c.len());
        }
    }
    (Ok(()), c.len())
}

/// The same with the fast closure, heaps in the solver's order with `first` first.
fn fast_verdict(
    s: &QuotientSolver,
    m: &super::Monoid,
    phi: &[u32],
    first: &[usize],
) -> (Result<(), super::ClosureError>, usize) {
    let mut c = Closure::new(m, 1 << 16);
    for h in heap_order(phi.len() - 1, first) {
        let o = heap_options(&s.moves, m, phi, h);
        if let Err(e) = c.add_heap(h, phi[h], &o) {
            return (Err(e), c.len());
        }
    }
    (Ok(()), c.len())
}

/// The heaps a test frees: each pick `(h, index, period)` with `h` taken into `1 … last`, the
/// first pick of each heap.
fn freed(picks: &[(usize, usize, usize)], last: usize) -> Vec<(usize, usize, usize)> {
    let mut free: Vec<(usize, usize, usize)> = Vec::new();
    for &(h, m, p) in picks {
        let h = 1 + h % last;
        if free.iter().all(|f| f.0 != h) {
            free.push((h, m, p));
        }
    }
    free
}

/// `m` with its table's ids as `u32`, as for orders past 2^16.
fn widened(m: &super::Monoid) -> super::Monoid {
    let wide = super::Table::new(super::Ids::Wide(m.table.to_u32()));
    assert!(matches!(
        m.table.row(0, m.order),
        super::monoid::Row::Narrow(_)
    ));
    assert!(matches!(wide.row(0, m.order), super::monoid::Row::Wide(_)));
    super::Monoid {
        table: wide,
        ..m.clone()
    }
}

/// Does the candidate pass by its envelopes, heaps in the solver's order with `first` first?
fn envelope_passes(s: &QuotientSolver, m: &super::Monoid, phi: &[u32], first: &[usize]) -> bool {
    let mut e = Envelope::new(m);
    heap_order(phi.len() - 1, first).into_iter().all(|h| {
        e.add_heap(m, phi[h], &heap_options(&s.moves, m, phi, h))
            .is_ok()
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_e4e1),
        ..ProptestConfig::default()
    })]

    /// The envelopes decide what the plain closure decides: on candidates with random freed
    /// heaps (most fail), on the solver's quotient (it passes), and on each of these with one
    /// element's membership of P flipped (a wrong candidate, usually); and with the table's
    /// ids made `u32` (the type of orders past 2^16) the closure and the envelopes decide as
    /// with `u16` ids.
    #[test]
    fn envelopes_give_the_closures_verdict(
        code in code(),
        max in 6usize..14,
        picks in prop::collection::vec((0usize..64, 1usize..4, 1usize..3), 1..3),
        first in prop::collection::vec(0usize..64, 0..4),
        flip in 1usize..1000,
    ) {
        let s = solver(&code, max);
        let last = s.phi.len() - 1;
        prop_assume!(last >= 2 && s.monoid().order <= 24);
        let free = freed(&picks, last);
        let first: Vec<usize> = first.iter().map(|&h| 1 + h % last).collect();
        let mut cases: Vec<(super::Monoid, Vec<u32>)> = vec![(s.m.clone(), s.phi.clone())];
        cases.extend(build_candidate(&s.moves, &s.m, &s.phi, &free));
        for i in 0..cases.len() {
            let (mut m, phi) = cases[i].clone();
            if m.order > 1 {
                let k = 1 + flip % (m.order - 1);
                m.p[k] = !m.p[k];
                cases.push((m, phi));
            }
        }
        for (m, phi) in &cases {
            let (plain, _) = plain_verdict(&s, m, phi);
            prop_assert_eq!(plain.is_ok(), envelope_passes(&s, m, phi, &[]), "{} free {:?}", code, free);
            prop_assert_eq!(plain.is_ok(), envelope_passes(&s, m, phi, &first), "{} first {:?}", code, first);
            let wide = widened(m);
            prop_assert_eq!(fast_verdict(&s, m, phi, &first), fast_verdict(&s, &wide, phi, &first));
            prop_assert_eq!(plain.is_ok(), envelope_passes(&s, &wide, phi, &first));
        }
    }
}

proptest! {
    // A fixed seed: some random codes' candidates cost minutes (one CI run spent 7 min here),
    // so the cases are the same on every run, chosen once, and cheap.
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0030),
        ..ProptestConfig::default()
    })]

    /// Candidates with random freed heaps: the fast construction equals the plain one, and the
    /// fast closure gives the plain one's verdict (the same failing position and states in
    /// the plain order; the same verdict and states count in any order when it passes).
    #[test]
    fn fast_paths_equal_plain_ones(
        code in code(),
        max in 6usize..12,
        picks in prop::collection::vec((0usize..64, 1usize..4, 1usize..3), 1..3),
        first in prop::collection::vec(0usize..64, 0..4),
    ) {
        let s = solver(&code, max);
        let last = s.phi.len() - 1;
        // Small quotients only: the plain closure of a candidate on a quotient of some hundreds
        // of elements can take minutes (a CI run spent over five on one such case).
        prop_assume!(last >= 2 && s.monoid().order <= 24);
        let free = freed(&picks, last);
        let fast = build_candidate(&s.moves, &s.m, &s.phi, &free);
        let plain = reference::build_candidate(&s.moves, &s.m, &s.phi, &free);
        prop_assert_eq!(&fast, &plain, "{} free {:?}", code, free);
        let first: Vec<usize> = first.iter().map(|&h| 1 + h % last).collect();
        for (m, phi) in fast.iter().map(|(m, p)| (m, p)).chain(std::iter::once((&s.m, &s.phi))) {
            let (p, p_states) = plain_verdict(&s, m, phi);
            let (f, f_states) = fast_verdict(&s, m, phi, &[]);
            prop_assert_eq!(&p, &f, "{} free {:?}", code, free);
            prop_assert_eq!(p_states, f_states);
            let (o, o_states) = fast_verdict(&s, m, phi, &first);
            prop_assert_eq!(p.is_ok(), o.is_ok(), "{} order {:?}", code, first);
            if p.is_ok() {
                prop_assert_eq!(p_states, o_states);
            }
        }
    }
}

/// What the reduction of `Q × C` says of heap `n` (the plain way, as `step_inner` did before
/// `old_element`): its element when it merges nothing beyond `Q`, else `None`.
fn old_by_reduction(
    s: &QuotientSolver,
    n: usize,
    mu: usize,
    per: usize,
    cols: &[Vec<bool>],
) -> Option<u32> {
    let q = s.m.order;
    let len = mu + per;
    let cap = |k: usize| if k < len { k } else { mu + (k - mu) % per };
    let mut gens: Vec<u32> = s.phi[..n].iter().copied().filter(|&g| g != 0).collect();
    gens.sort_unstable();
    gens.dedup();
    let mul_gen = |e: usize, gi: usize| {
        let (k, a) = (e / q, e % q);
        match gens.get(gi) {
            Some(&g) => k * q + s.m.mul(a as u32, g) as usize,
            None => cap(k + 1) * q + a,
        }
    };
    let (class, count) =
        super::monoid::reduce(q * len, &|e| cols[e / q][e % q], &mul_gen, gens.len() + 1);
    (count == q).then(|| class[cap(1) * q])
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0031),
        ..ProptestConfig::default()
    })]

    /// Heap by heap, `old_element` (the element heap `n` is, found from the rows `P/t`) is
    /// what the reduction of `Q × C` gives: `Some(a)` exactly when nothing new merges, with
    /// `(1, x)` in `a`'s class; and some heap of each code is an old element.
    #[test]
    fn old_elements_are_what_the_reduction_gives(code in code(), max in 4usize..24) {
        let rule = Rule::parse(&code).expect("a valid code");
        let mut s = QuotientSolver::new(&rule, 1 << 16);
        let mut olds = 0;
        // Small quotients only, as above: the steps of a wild code's larger ones cost seconds.
        while s.count() <= max && s.monoid().order <= 24 {
            let n = s.count();
            if n > s.moves.max_heap {
                s.moves = s.rule.moves((2 * n).max(16));
            }
            let o = s.options_of_heap(n);
            let (mu, per, cols) = s.columns(n, &o).expect("small columns");
            let fast = super::old_element(&s.m, &s.envelope, mu, &cols);
            prop_assert_eq!(fast, old_by_reduction(&s, n, mu, per, &cols), "{} heap {}", code, n);
            olds += usize::from(fast.is_some());
            if s.step().is_err() {
                break;
            }
        }
        prop_assert!(olds > 0 || s.count() <= 3, "{}: no heap was an old element", code);
    }
}

/// `(Φ, order)` of 0.07's quotient to heap `max` with these limits and stop check.
fn dawson(
    max: usize,
    memory: usize,
    stop: &dyn Fn() -> bool,
) -> (Vec<u32>, usize, Option<super::QuotientError>) {
    let rule = Rule::parse("0.07").expect("a valid code");
    let limits = super::Limits {
        states: 1 << 20,
        memory,
    };
    let (s, e) = super::compute_until(&rule, max, limits, stop, |_, _| {
        std::ops::ControlFlow::Continue(())
    });
    (s.phi.clone(), s.monoid().order, e)
}

/// A stop asked at any moment ends the heap under way with `Stopped` and leaves exactly the
/// heaps before it, as an uninterrupted run computes them; a stop never asked changes nothing.
#[test]
fn a_stop_keeps_the_heaps_before_it() {
    let (_, order, e) = dawson(30, usize::MAX, &|| false);
    assert!(e.is_none());
    assert_eq!(order, 360);
    let mut inside = 0;
    for k in [1usize, 3, 10, 40, 150] {
        let calls = std::cell::Cell::new(0usize);
        let stop = || {
            calls.set(calls.get() + 1);
            calls.get() >= k
        };
        let (phi, o, e) = dawson(30, usize::MAX, &stop);
        match e {
            Some(super::QuotientError::Stopped { heap }) => {
                assert_eq!(heap, phi.len(), "stop at call {k}");
                // Element numbers change as the quotient grows: compare with the quotient of
                // the same heaps.
                let (before, o_before, _) = dawson(heap - 1, usize::MAX, &|| false);
                assert_eq!((phi, o), (before, o_before), "stop at call {k}");
                inside += 1;
            }
            other => panic!("stop at call {k}: {other:?}"),
        }
    }
    assert_eq!(inside, 5);
}

/// A memory limit too small for a heap stops there with `Memory` and the heaps before as an
/// unlimited run computes them; a limit large enough gives the same quotient as none.
#[test]
fn a_memory_limit_keeps_the_heaps_before_it() {
    let (full, order, _) = dawson(30, usize::MAX, &|| false);
    // The solver keeps 64 MiB of slack; 0.07's heap 30 needs about 73 MiB in all with tables
    // of u16 ids (80 with u32 ids).
    for mb in [65usize, 68, 71] {
        let (phi, o, e) = dawson(30, mb << 20, &|| false);
        match e {
            Some(super::QuotientError::Memory { heap, limit, .. }) => {
                assert_eq!((heap, limit), (phi.len(), mb << 20));
                let (before, o_before, _) = dawson(heap - 1, usize::MAX, &|| false);
                assert_eq!((phi, o), (before, o_before));
            }
            other => panic!("{mb} MiB: {other:?}"),
        }
    }
    let (phi, o, e) = dawson(30, 1 << 30, &|| false);
    assert!(e.is_none());
    assert_eq!((phi, o), (full, order));
}

/// The solver for `code` with recalibration `how`, stepped while the quotient stays small.
fn stepped(code: &str, max: usize, how: super::Recalibration) -> QuotientSolver {
    stepped_with(code, max, |s| s.with_recalibration(how))
}

/// The solver for `code` set up by `how`, stepped while the quotient stays small.
fn stepped_with(
    code: &str,
    max: usize,
    how: impl Fn(QuotientSolver) -> QuotientSolver,
) -> QuotientSolver {
    let rule = Rule::parse(code).expect("a valid code");
    // Small candidates only: the union of freed heaps grows the unreduced candidates fast.
    let limits = super::CandidateLimits {
        size: 1 << 13,
        order: 1 << 10,
        ..super::CandidateLimits::default()
    };
    let mut s = how(QuotientSolver::new(&rule, 1 << 16).with_candidate_limits(limits));
    while s.count() <= max && s.monoid().order <= 64 && s.step().is_ok() {}
    s
}

/// The heaps both solvers finished, and the quotient of the fewer: the same monoid (table, P,
/// least words) and Φ, as the quotient is unique and numbered by least word.
fn assert_same_quotients(code: &str, max: usize) -> Result<(), TestCaseError> {
    use super::Recalibration::{FromBase, FromFailed};
    let mut a = stepped(code, max, FromFailed);
    let mut b = stepped(code, max, FromBase);
    let heaps = a.count().min(b.count());
    if a.count() > heaps {
        a = stepped(code, heaps - 1, FromFailed);
    }
    if b.count() > heaps {
        b = stepped(code, heaps - 1, FromBase);
    }
    prop_assert_eq!(a.count(), b.count(), "{}", code);
    prop_assert_eq!(&a.phi, &b.phi, "{}", code);
    prop_assert_eq!(&a.m.table, &b.m.table, "{}", code);
    prop_assert_eq!(&a.m.p, &b.m.p, "{}", code);
    prop_assert_eq!(&a.m.words, &b.m.words, "{}", code);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0034),
        ..ProptestConfig::default()
    })]

    /// Both recalibrations give the same quotients wherever both finish (any verified
    /// candidate, reduced and numbered by least word, is the quotient).
    #[test]
    fn both_recalibrations_reach_the_same_quotients(code in code(), max in 8usize..16) {
        assert_same_quotients(&code, max)?;
    }
}

/// The default search and the one whose indices double and whose search widens
/// ([`super::IndexGrowth::Double`], [`QuotientSolver::with_wider_search`]) give the same
/// quotients wherever both finish.
fn assert_same_searches(code: &str, max: usize) -> Result<(), TestCaseError> {
    let other = |s: QuotientSolver| {
        s.with_index_growth(super::IndexGrowth::Double)
            .with_wider_search(true)
    };
    let mut a = stepped_with(code, max, |s| s);
    let mut b = stepped_with(code, max, other);
    let heaps = a.count().min(b.count());
    if a.count() > heaps {
        a = stepped_with(code, heaps - 1, |s| s);
    }
    if b.count() > heaps {
        b = stepped_with(code, heaps - 1, other);
    }
    prop_assert_eq!(a.count(), b.count(), "{}", code);
    prop_assert_eq!(&a.phi, &b.phi, "{}", code);
    prop_assert_eq!(&a.m, &b.m, "{}", code);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0039),
        ..ProptestConfig::default()
    })]

    /// Doubling indices and a wider search reach the default search's quotients.
    #[test]
    fn index_growth_and_wider_search_reach_the_same_quotients(code in code(), max in 8usize..16) {
        assert_same_searches(&code, max)?;
    }
}

/// Dawson's Kayles recalibrates at heap 10: both ways give the same quotients of heaps up to
/// 24, and each candidate verified is recorded.
#[test]
fn dawsons_kayles_by_both_recalibrations() {
    assert_same_quotients("0.07", 24).expect("the same quotients");
    assert_same_searches("0.07", 28).expect("the same quotients");
    let s = stepped("0.07", 10, super::Recalibration::FromBase);
    assert_eq!((s.count(), s.monoid().order), (11, 12));
    let tried = s.attempts();
    assert!(tried.len() >= 2 && tried.iter().all(|a| a.heap == 10));
    assert!(tried.last().is_some_and(|a| a.failure.is_none()));
    assert!(tried[..tried.len() - 1].iter().all(|a| a.failure.is_some()));
}

/// Is `a` before `b` in the heap-count order (copies of the largest heap first)?
fn before(a: &[usize], b: &[usize]) -> bool {
    let top = a.iter().chain(b).copied().max().unwrap_or(0);
    let copies = |p: &[usize]| -> Vec<usize> {
        (0..=top)
            .rev()
            .map(|h| p.iter().filter(|&&x| x == h).count())
            .collect()
    };
    copies(a) < copies(b)
}

/// Every position of at most `k` heaps of `1 … last` (largest first).
fn positions(last: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    let mut layer: Vec<Vec<usize>> = vec![Vec::new()];
    for _ in 0..k {
        let mut next = Vec::new();
        for p in &layer {
            let top = p.last().copied().unwrap_or(last);
            for h in 1..=top {
                let mut q = p.clone();
                q.push(h);
                next.push(q);
            }
        }
        out.extend(next.iter().cloned());
        layer = next;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0146),
        ..ProptestConfig::default()
    })]

    /// The least failing position ([`Closure::least_failure`]) of candidates with random freed
    /// heaps fails, and no position before it of at most four heaps fails (each decided by
    /// [`super::closure::consistent_at`], the misère rule applied to the candidate); with the
    /// breadth-first closure's failing position as a bound it is the same; a candidate that
    /// passes has none.
    #[test]
    fn the_least_failure_is_the_least(
        code in code(),
        max in 6usize..13,
        picks in prop::collection::vec((0usize..64, 1usize..4, 1usize..3), 1..3),
    ) {
        let s = solver(&code, max);
        let last = s.phi.len() - 1;
        prop_assume!(last >= 2 && s.monoid().order <= 24);
        let free = freed(&picks, last);
        let mut cases: Vec<(super::Monoid, Vec<u32>)> = vec![(s.m.clone(), s.phi.clone())];
        cases.extend(build_candidate(&s.moves, &s.m, &s.phi, &free));
        let all = positions(last, 4);
        for (m, phi) in &cases {
            let heaps: Vec<(u32, Vec<u32>)> = (1..=last)
                .map(|h| (phi[h], heap_options(&s.moves, m, phi, h)))
                .collect();
            let fails = |p: &[usize]| {
                let path: Vec<(u32, Vec<u32>)> = p.iter().map(|&h| heaps[h - 1].clone()).collect();
                !super::closure::consistent_at(m, &path)
            };
            let least = Closure::least_failure(m, &heaps, None, 1 << 16, &|| false)
                .expect("within the limit");
            let (plain, _) = plain_verdict(&s, m, phi);
            match (&plain, &least) {
                (Ok(()), None) => {}
                (Err(super::ClosureError::Inconsistent(bfs)), Some(f)) => {
                    prop_assert!(fails(f), "{} free {:?}: {:?} does not fail", code, free, f);
                    prop_assert!(!before(bfs, f), "{}: {:?} after {:?}", code, f, bfs);
                    for p in all.iter().filter(|p| before(p, f)) {
                        prop_assert!(!fails(p), "{} free {:?}: {:?} fails before {:?}", code, free, p, f);
                    }
                    let bounded = Closure::least_failure(m, &heaps, Some(bfs), 1 << 16, &|| false)
                        .expect("within the limit");
                    prop_assert_eq!(bounded.as_ref(), Some(f), "{} bound {:?}", code, bfs);
                }
                _ => prop_assert!(false, "{} free {:?}: {:?} against {:?}", code, free, plain, least),
            }
        }
    }
}

/// The solver for `code` guided by `order`, stepped while the quotient stays small.
fn ordered(code: &str, max: usize, order: super::FailureOrder) -> QuotientSolver {
    stepped_with(code, max, |s| s.with_failure_order(order))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0524),
        ..ProptestConfig::default()
    })]

    /// The three failure orders reach the same quotients wherever they finish (a verified
    /// candidate, reduced and numbered by least word, is the quotient, whichever failing
    /// positions guided the search to it).
    #[test]
    fn every_failure_order_reaches_the_same_quotients(code in code(), max in 8usize..16) {
        use super::FailureOrder::{Fewest, FewestFirst, Least};
        let runs: Vec<QuotientSolver> =
            [Fewest, Least, FewestFirst].iter().map(|&o| ordered(&code, max, o)).collect();
        let heaps = runs.iter().map(QuotientSolver::count).min().expect("three");
        for (&o, r) in [Fewest, Least, FewestFirst].iter().zip(&runs) {
            let r = if r.count() > heaps { ordered(&code, heaps - 1, o) } else { ordered(&code, r.count() - 1, o) };
            prop_assert_eq!(r.count(), heaps, "{} {:?}", code, o);
            prop_assert_eq!(&r.phi, &runs[0].phi[..heaps].to_vec(), "{} {:?}", code, o);
        }
        let a = ordered(&code, heaps - 1, Fewest);
        for o in [Least, FewestFirst] {
            let b = ordered(&code, heaps - 1, o);
            prop_assert_eq!(&a.phi, &b.phi, "{} {:?}", code, o);
            prop_assert_eq!(&a.m, &b.m, "{} {:?}", code, o);
        }
    }
}

/// 0.146 and 0.524, where the fewest-heap failures make the search creep: guided by the least
/// failing positions (the default turns to them after [`super::FEWEST_FIRST`] candidates) it
/// reaches 0.146's heap 22 (order 62, |P| 10) and 0.524's heap 16 (order 156, |P| 23), the
/// orders and P-portions MisereSolver gives there (CGSuite e909ab8b, `scripts/bench-misere.sh`,
/// results/misere.md).
#[test]
fn the_least_failures_pass_where_the_fewest_creep() {
    use super::FailureOrder::{FewestFirst, Least};
    // 0.146 by the default creeps through its 24 fewest-heap candidates first (orders to
    // 5,000): seconds in a debug build, so the least failures alone there.
    for (code, heap, order, p, orders) in [
        ("0.146", 22, 62, 10, &[Least][..]),
        ("0.524", 16, 156, 23, &[Least, FewestFirst][..]),
    ] {
        let rule = Rule::parse(code).expect("a valid code");
        for &how in orders {
            let mut s = QuotientSolver::new(&rule, 1 << 20).with_failure_order(how);
            while s.count() <= heap {
                s.step().unwrap_or_else(|e| panic!("{code} {how:?}: {e}"));
            }
            let m = s.monoid();
            assert_eq!(
                (m.order, m.p.iter().filter(|&&b| b).count()),
                (order, p),
                "{code} {how:?}"
            );
        }
    }
}

/// The memory estimate of the solver's quotient covers its table's buffer. A candidate built
/// in the spare buffer of a larger one given up at the same heap (`Ids::zeroed_reusing` takes
/// any buffer at least as large) keeps that buffer's capacity, which `limits::monoid_bytes`
/// (`order²` ids) leaves out; so do the verification's room and the bytes held after the
/// commit. 0.07's heap 30 tries candidates of order up to 1,200 and commits order 360.
#[test]
fn the_quotients_estimate_covers_its_table_buffer() {
    let rule = Rule::parse("0.07").expect("a valid code");
    let mut s = QuotientSolver::new(&rule, 1 << 20);
    while s.count() <= 30 {
        s.step().expect("0.07 to heap 30");
        let estimate = super::limits::monoid_bytes(&s.m);
        let super::Monoid {
            order,
            table,
            p,
            words,
        } = std::mem::replace(&mut s.m, super::Monoid::trivial());
        let ids = table
            .into_ids()
            .expect("the quotient's table held by the solver alone");
        let held = ids.bytes() + words.iter().map(|w| 24 + 8 * w.len()).sum::<usize>();
        assert!(
            held <= estimate,
            "heap {}: order {order}, {held} bytes held, {estimate} estimated",
            s.count() - 1
        );
        s.m = super::Monoid {
            order,
            table: super::Table::new(ids),
            p,
            words,
        };
    }
}

/// The wider search ([`QuotientSolver::with_wider_search`]) where it is chosen: 0.167's heap 18
/// by the fewest-heap failures. The sets of heaps of the last failing position run out after
/// 17 candidates (`18·16·1`: the search without it stops there, as `survey '0.1??' --misere`
/// did); the wider one frees 3 (of an earlier failing position) with 16 at the 18th, goes on,
/// and heap 18 passes. Its quotient is verified again by the plain closure of `reference.rs`,
/// and it is the quotient the least failures reach without the wider search (order 244, |P|
/// 36; the same table, P, least words and Φ). About 2.5 s of CPU in a release build (the
/// candidate limits keep the candidates below 2,048 elements: 26 MB).
#[test]
fn the_wider_search_is_chosen_and_reaches_the_same_quotient() {
    use super::FailureOrder::{Fewest, Least};
    let rule = Rule::parse("0.167").expect("a valid code");
    let limits = super::CandidateLimits {
        size: 1 << 15,
        order: 1 << 11,
        ..super::CandidateLimits::default()
    };
    let run = |order: super::FailureOrder, wider: bool| {
        let mut s = QuotientSolver::new(&rule, 1 << 20)
            .with_candidate_limits(limits)
            .with_failure_order(order)
            .with_wider_search(wider);
        let mut end = None;
        while s.count() <= 18 {
            if let Err(e) = s.step() {
                end = Some(e);
                break;
            }
        }
        (s, end)
    };
    let (without, end) = run(Fewest, false);
    assert_eq!(
        without.count(),
        18,
        "0.167 stops at heap 18 without the wider search"
    );
    assert!(
        matches!(
            end,
            Some(super::QuotientError::Refinement {
                heap: 18,
                exhausted: true,
                ..
            })
        ),
        "{end:?}"
    );
    let (wider, end) = run(Fewest, true);
    assert_eq!(end, None);
    assert_eq!(wider.count(), 19);
    // A candidate freeing a heap outside the last failing position: the wider search's.
    let tried: Vec<&super::Attempt> = wider.attempts().iter().filter(|a| a.heap == 18).collect();
    let widened = tried.windows(2).any(|w| {
        let before = w[0]
            .failure
            .as_ref()
            .expect("a failed candidate before another");
        w[1].free.iter().any(|f| !before.contains(&f.0))
    });
    assert!(widened, "the wider search was not chosen");
    let m = wider.monoid();
    assert_eq!(plain_verdict(&wider, m, wider.phi()).0, Ok(()));
    let (least, end) = run(Least, false);
    assert_eq!(end, None);
    assert_eq!((m.order, m.p.iter().filter(|&&b| b).count()), (244, 36));
    assert_eq!(wider.phi(), least.phi());
    assert_eq!(m, least.monoid());
}
