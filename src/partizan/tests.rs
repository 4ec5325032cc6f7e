//! Known values (Winning Ways, Siegel), and property tests against explicit game-tree search.

use std::collections::HashMap;

use proptest::prelude::*;

use super::notation::{text, up};
use super::thermograph::mean_and_temperature;
use super::*;

fn d(num: i128, exp: u32) -> Dyadic {
    Dyadic::new(num, exp).unwrap()
}

fn down_of(a: &mut Arena, g: GameId) -> GameId {
    a.neg(g).unwrap()
}

fn show(a: &mut Arena, g: GameId) -> String {
    text(a, g).unwrap().unwrap()
}

#[test]
fn named_games_print_as_cgsuite_does() {
    let mut a = Arena::new();
    let star = a.nimber(1);
    let u = up(&mut a);
    assert_eq!(show(&mut a, u), "^");
    // ↑ = {0|*} built from its form.
    assert_eq!(a.game(&[Arena::ZERO], &[star]).unwrap(), u);
    let down = a.neg(u).unwrap();
    assert_eq!(show(&mut a, down), "v");
    // ↑* = {0,*|0} (Winning Ways ch. 3).
    let up_star = a.game(&[Arena::ZERO, star], &[Arena::ZERO]).unwrap();
    assert_eq!(a.add(u, star).unwrap(), up_star);
    assert_eq!(show(&mut a, up_star), "^*");
    let v_star = a.neg(up_star).unwrap();
    assert_eq!(show(&mut a, v_star), "v*");
    // ⇑ = {0|↑*}.
    let dbl = a.game(&[Arena::ZERO], &[up_star]).unwrap();
    assert_eq!(a.add(u, u).unwrap(), dbl);
    assert_eq!(show(&mut a, dbl), "^^");
    // CGSuite writes k ups as the up symbol and k for k ≥ 3 (Uptimal.scala; its EvalTest
    // prints "^^^^^^+vvv*+^19*3+v14" as "^8*2" and "vvvvv" as "v5").
    let triple = a.add_all(&[u, u, u]).unwrap();
    assert_eq!(show(&mut a, triple), "^3");
    let triple_star = a.add(triple, star).unwrap();
    assert_eq!(show(&mut a, triple_star), "^3*");
    let mut g = Arena::ZERO;
    for _ in 0..8 {
        g = a.add(g, u).unwrap();
    }
    let s2 = a.nimber(2);
    let g = a.add(g, s2).unwrap();
    assert_eq!(show(&mut a, g), "^8*2");
    let mut g = Arena::ZERO;
    for _ in 0..5 {
        let dn = down_of(&mut a, u);
        g = a.add(g, dn).unwrap();
    }
    assert_eq!(show(&mut a, g), "v5");
    // CGSuite's EvalTest: {^|*} is ^[2], {0,^*|0} is ^[2]*, {0|v*} is ^<2>, {0,*|v} is ^<2>*;
    // its CanonicalShortGameTestCase: {0|*||*|||*||||*} is ^[4].
    let pow_to_2 = a.game(&[u], &[star]).unwrap();
    assert_eq!(show(&mut a, pow_to_2), "^[2]");
    let g = a.game(&[Arena::ZERO, up_star], &[Arena::ZERO]).unwrap();
    assert_eq!(show(&mut a, g), "^[2]*");
    let dstar = down_of(&mut a, up_star);
    let g = a.game(&[Arena::ZERO], &[dstar]).unwrap();
    assert_eq!(show(&mut a, g), "^<2>");
    let d1 = down_of(&mut a, u);
    let g = a.game(&[Arena::ZERO, star], &[d1]).unwrap();
    assert_eq!(show(&mut a, g), "^<2>*");
    let mut g = Arena::ZERO;
    for _ in 0..4 {
        g = a.game(&[g], &[star]).unwrap();
    }
    assert_eq!(show(&mut a, g), "^[4]");
    let n = a.neg(g).unwrap();
    assert_eq!(show(&mut a, n), "v[4]");
    // CGSuite's order of options: numbers, nimbers, then uptimals.
    let m1 = a.integer(-1);
    let g = a.game(&[u, star], &[m1]).unwrap();
    assert_eq!(show(&mut a, g), "{*,^|-1}");
    // 3/4 + 3·↓ + *.
    let three_quarters = a.number(d(3, 2));
    let g = a
        .add_all(&[three_quarters, down, down, down, star])
        .unwrap();
    assert_eq!(show(&mut a, g), "3/4v3*");
    let one = a.integer(1);
    let one_star = a.add(one, star).unwrap();
    assert_eq!(show(&mut a, one_star), "1*");
    // {1|-1} = ±1, a switch: mean 0, temperature 1.
    let m1 = a.integer(-1);
    let pm = a.game(&[one], &[m1]).unwrap();
    assert_eq!(show(&mut a, pm), "{1|-1}");
    assert_eq!(
        mean_and_temperature(&mut a, pm).unwrap(),
        (d(0, 0), d(1, 0))
    );
    // {0,↑*|0} is not of the form x + k·↑ + *n: CGSuite's ↑^[2]* (below).
    let g = a.game(&[Arena::ZERO, up_star], &[Arena::ZERO]).unwrap();
    assert_eq!(show(&mut a, g), "^[2]*");
    // Numbers: {0|1} = 1/2, {1/2|1} = 3/4, {|} = 0, {-1|} = 0.
    let half = a.game(&[Arena::ZERO], &[one]).unwrap();
    assert_eq!(a.as_number(half), Some(d(1, 1)));
    let h = a.game(&[half], &[one]).unwrap();
    assert_eq!(show(&mut a, h), "3/4");
    assert_eq!(a.game(&[m1], &[]).unwrap(), Arena::ZERO);
    // *2 + *3 = *1; {0,*|0,*} = *2.
    let (s2, s3) = (a.nimber(2), a.nimber(3));
    assert_eq!(a.add(s2, s3).unwrap(), star);
    assert_eq!(
        a.game(&[Arena::ZERO, star], &[Arena::ZERO, star]).unwrap(),
        s2
    );
    assert_eq!(show(&mut a, s3), "*3");
    // ↑ + ↓ = 0 and ↑* ‖ 0, ↑ > 0, ↑ < any positive number.
    assert_eq!(a.add(u, down).unwrap(), Arena::ZERO);
    assert_eq!(a.outcome(up_star), Outcome::N);
    assert_eq!(a.outcome(u), Outcome::Left);
    let tiny_number = a.number(d(1, 100));
    assert!(a.le(u, tiny_number) && !a.le(tiny_number, u));
    assert!(a.confused(star, Arena::ZERO));
}

#[test]
fn thermographs_of_known_games() {
    let mut a = Arena::new();
    // {4|2} has mean 3 and temperature 1. {2||1|0} = {2|{1|0}}, by hand from the definition:
    // LW({1|0})(t) = 1 - t up to t = 1/2, then 1/2, so RW(t) = 1 up to 1/2, then 1/2 + t;
    // LW(t) = 2 - t; they meet at t = 3/4 with value 5/4.
    let (zero, one, two) = (Arena::ZERO, a.integer(1), a.integer(2));
    let four = a.integer(4);
    let g = a.game(&[four], &[two]).unwrap();
    assert_eq!(mean_and_temperature(&mut a, g).unwrap(), (d(3, 0), d(1, 0)));
    let sw = a.game(&[one], &[zero]).unwrap();
    let g = a.game(&[two], &[sw]).unwrap();
    assert_eq!(mean_and_temperature(&mut a, g).unwrap(), (d(5, 2), d(3, 2)));
    // Numbers: CGSuite's temperatures -1 and -1/2^k; infinitesimals: 0.
    assert_eq!(
        mean_and_temperature(&mut a, two).unwrap(),
        (d(2, 0), d(-1, 0))
    );
    let q = a.number(d(3, 2));
    assert_eq!(
        mean_and_temperature(&mut a, q).unwrap(),
        (d(3, 2), d(-1, 2))
    );
    let u = up(&mut a);
    assert_eq!(mean_and_temperature(&mut a, u).unwrap(), (d(0, 0), d(0, 0)));
    // The mean is additive: m({4|2} + {1|0}) = 3 + 1/2.
    let g42 = a.game(&[four], &[two]).unwrap();
    let s = a.add(g42, sw).unwrap();
    assert_eq!(mean_and_temperature(&mut a, s).unwrap().0, d(7, 1));
}

#[test]
fn budget_is_enforced() {
    let mut a = Arena::with_budget(10);
    let mut g = Arena::ZERO;
    let star = a.nimber(1);
    let mut err = None;
    for _ in 0..100 {
        match a.game(&[g, Arena::ZERO], &[star]) {
            Ok(h) => g = h,
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    assert_eq!(err, Some(PartizanError::TooLarge { limit: 10 }));
}

/// An explicit game tree, as a brute-force search sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Form {
    left: Vec<Form>,
    right: Vec<Form>,
}

fn form_strategy() -> impl Strategy<Value = Form> {
    let leaf = Just(Form {
        left: vec![],
        right: vec![],
    });
    leaf.prop_recursive(3, 24, 3, |inner| {
        (
            prop::collection::vec(inner.clone(), 0..3),
            prop::collection::vec(inner, 0..3),
        )
            .prop_map(|(left, right)| Form { left, right })
    })
}

fn neg_form(f: &Form) -> Form {
    Form {
        left: f.right.iter().map(neg_form).collect(),
        right: f.left.iter().map(neg_form).collect(),
    }
}

/// Does the player to move (Left if `left`) win the sum of these explicit forms?
fn wins(pos: &[Form], left: bool, memo: &mut HashMap<(Vec<Form>, bool), bool>) -> bool {
    let key = (pos.to_vec(), left);
    if let Some(&w) = memo.get(&key) {
        return w;
    }
    let mut w = false;
    'all: for (i, f) in pos.iter().enumerate() {
        for o in if left { &f.left } else { &f.right } {
            let mut next = pos.to_vec();
            next[i] = o.clone();
            if !wins(&next, !left, memo) {
                w = true;
                break 'all;
            }
        }
    }
    memo.insert(key, w);
    w
}

fn searched_outcome(pos: &[Form]) -> Outcome {
    let mut memo = HashMap::new();
    match (wins(pos, true, &mut memo), wins(pos, false, &mut memo)) {
        (true, true) => Outcome::N,
        (true, false) => Outcome::Left,
        (false, true) => Outcome::Right,
        (false, false) => Outcome::P,
    }
}

fn build(a: &mut Arena, f: &Form) -> GameId {
    let left: Vec<GameId> = f.left.iter().map(|o| build(a, o)).collect();
    let right: Vec<GameId> = f.right.iter().map(|o| build(a, o)).collect();
    a.game(&left, &right).unwrap()
}

/// The canonical form as an explicit tree.
fn unbuild(a: &mut Arena, g: GameId) -> Form {
    let left = a.left(g).to_vec();
    let right = a.right(g).to_vec();
    Form {
        left: left.into_iter().map(|o| unbuild(a, o)).collect(),
        right: right.into_iter().map(|o| unbuild(a, o)).collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The outcome read from the canonical form of a sum equals the searched outcome.
    #[test]
    fn outcome_of_sums_matches_search(f in form_strategy(), g in form_strategy()) {
        let mut a = Arena::new();
        let (x, y) = (build(&mut a, &f), build(&mut a, &g));
        prop_assert_eq!(a.outcome(x), searched_outcome(std::slice::from_ref(&f)));
        let s = a.add(x, y).unwrap();
        prop_assert_eq!(a.outcome(s), searched_outcome(&[f.clone(), g.clone()]));
        // Comparison: x ≤ y iff Left, moving second, wins y - x.
        let diff = [g.clone(), neg_form(&f)];
        let o = searched_outcome(&diff);
        prop_assert_eq!(a.le(x, y), matches!(o, Outcome::Left | Outcome::P));
    }

    /// The canonical form is another form of the same game (G − H = 0 by search), and
    /// equal games get the same id, whatever form they were built from.
    #[test]
    fn canonical_forms_are_equal_and_unique(f in form_strategy(), g in form_strategy()) {
        let mut a = Arena::new();
        let x = build(&mut a, &f);
        let canon = unbuild(&mut a, x);
        prop_assert_eq!(searched_outcome(&[f.clone(), neg_form(&canon)]), Outcome::P);
        // Rebuilding the canonical form gives the same id.
        prop_assert_eq!(build(&mut a, &canon), x);
        let y = build(&mut a, &g);
        let equal = searched_outcome(&[f.clone(), neg_form(&g)]) == Outcome::P;
        prop_assert_eq!(x == y, equal);
        // x + y - y = x, and -(-x) = x.
        let s = a.add(x, y).unwrap();
        prop_assert_eq!(a.sub(s, y).unwrap(), x);
        let n = a.neg(x).unwrap();
        prop_assert_eq!(a.neg(n).unwrap(), x);
    }

    /// The mean is additive and the temperature of G + number is that of G (for non-numbers).
    #[test]
    fn means_add(f in form_strategy(), g in form_strategy()) {
        let mut a = Arena::new();
        let (x, y) = (build(&mut a, &f), build(&mut a, &g));
        let s = a.add(x, y).unwrap();
        let (mx, _) = mean_and_temperature(&mut a, x).unwrap();
        let (my, _) = mean_and_temperature(&mut a, y).unwrap();
        let (ms, _) = mean_and_temperature(&mut a, s).unwrap();
        prop_assert_eq!(ms, mx.checked_add(my).unwrap());
    }
}

/// Thermographs of games whose walls are in the literature, each also worked by hand from the
/// definition (Siegel, *Combinatorial Game Theory*, ch. II.5; Winning Ways ch. 6).
#[test]
fn published_thermographs() {
    let mut a = Arena::new();
    let n = |a: &mut Arena, k: i128| a.integer(k);
    // {2|-1}: LW = 2 - t and RW = -1 + t meet at t = 3/2, value 1/2.
    let (two, m1) = (n(&mut a, 2), n(&mut a, -1));
    let g = a.game(&[two], &[m1]).unwrap();
    assert_eq!(mean_and_temperature(&mut a, g).unwrap(), (d(1, 1), d(3, 1)));
    // ±1 = {1|-1}: mean 0, temperature 1.
    let (one, zero) = (n(&mut a, 1), Arena::ZERO);
    let pm1 = a.game(&[one], &[m1]).unwrap();
    assert_eq!(
        mean_and_temperature(&mut a, pm1).unwrap(),
        (d(0, 0), d(1, 0))
    );
    // {{4|2}|{-2|-4}} = ±(3 ± 1): the options' walls are vertical at ±3 above t = 1, so the
    // walls 3 - t and -3 + t meet at t = 3, value 0.
    let (four, m2, m4) = (n(&mut a, 4), n(&mut a, -2), n(&mut a, -4));
    let hi = a.game(&[four], &[two]).unwrap();
    let lo = a.game(&[m2], &[m4]).unwrap();
    let g = a.game(&[hi], &[lo]).unwrap();
    assert_eq!(mean_and_temperature(&mut a, g).unwrap(), (d(0, 0), d(3, 0)));
    let th = thermograph::Thermographer::new()
        .thermograph(&mut a, g)
        .unwrap();
    // The Left wall: 2 (vertical) up to t = 1, then 3 - t (Winning Ways' picture of ±(3±1)).
    assert_eq!(th.left.at(d(1, 1)).unwrap(), d(2, 0));
    assert_eq!(th.left.at(d(2, 0)).unwrap(), d(1, 0));
    // {1|0}: mean 1/2, temperature 1/2; * and ↑: infinitesimal, temperature 0.
    let sw = a.game(&[one], &[zero]).unwrap();
    assert_eq!(
        mean_and_temperature(&mut a, sw).unwrap(),
        (d(1, 1), d(1, 1))
    );
    let star = a.nimber(1);
    assert_eq!(
        mean_and_temperature(&mut a, star).unwrap(),
        (d(0, 0), d(0, 0))
    );
    // {3|{2|0}}: LW({2|0}) is 2 - t up to t = 1, then 1, so G's Right wall is 2 up to t = 1,
    // then 1 + t; its Left wall is 3 - t. They meet at t = 1, value 2.
    let three = n(&mut a, 3);
    let s20 = a.game(&[two], &[zero]).unwrap();
    let g = a.game(&[three], &[s20]).unwrap();
    assert_eq!(mean_and_temperature(&mut a, g).unwrap(), (d(2, 0), d(1, 0)));
}

/// A game tree whose leaves are small integers, so that hot games are common.
#[derive(Debug, Clone)]
enum Hot {
    Int(i128),
    Game(Vec<Hot>, Vec<Hot>),
}

fn hot_strategy() -> impl Strategy<Value = Hot> {
    (-4i128..=4)
        .prop_map(Hot::Int)
        .prop_recursive(3, 20, 3, |inner| {
            (
                prop::collection::vec(inner.clone(), 1..3),
                prop::collection::vec(inner, 1..3),
            )
                .prop_map(|(l, r)| Hot::Game(l, r))
        })
}

fn build_hot(a: &mut Arena, h: &Hot) -> GameId {
    match h {
        Hot::Int(k) => a.integer(*k),
        Hot::Game(l, r) => {
            let left: Vec<GameId> = l.iter().map(|o| build_hot(a, o)).collect();
            let right: Vec<GameId> = r.iter().map(|o| build_hot(a, o)).collect();
            a.game(&left, &right).unwrap()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Laws of means and temperatures on random hot games (Siegel ch. II.5): the mean is
    /// additive and odd, lies between the stops; a number is its own mean; the temperature of
    /// a sum is at most the larger temperature, and adding a number does not change a
    /// non-number's temperature. Against an independent bound, the mean value theorem:
    /// `k·m(G) − t(G) ≤ R(k·G) ≤ L(k·G) ≤ k·m(G) + t(G)` for `k = 1..4`.
    #[test]
    fn thermograph_laws(f in hot_strategy(), g in hot_strategy(), q in -16i128..16) {
        let mut a = Arena::new();
        let (x, y) = (build_hot(&mut a, &f), build_hot(&mut a, &g));
        let (mx, tx) = mean_and_temperature(&mut a, x).unwrap();
        let (my, ty) = mean_and_temperature(&mut a, y).unwrap();
        let s = a.add(x, y).unwrap();
        let (ms, ts) = mean_and_temperature(&mut a, s).unwrap();
        prop_assert_eq!(ms, mx.checked_add(my).unwrap());
        prop_assert!(ts <= tx.max(ty), "t(G+H) = {} > max({}, {})", ts, tx, ty);
        let nx = a.neg(x).unwrap();
        let (mn, tn) = mean_and_temperature(&mut a, nx).unwrap();
        prop_assert_eq!((mn, tn), (mx.checked_neg().unwrap(), tx));
        let (ls, rs) = a.stops(x);
        prop_assert!(rs <= mx && mx <= ls);
        let quarter = d(q, 2);
        let num = a.number(quarter);
        prop_assert_eq!(mean_and_temperature(&mut a, num).unwrap().0, quarter);
        if a.as_number(x).is_none() {
            let shifted = a.add(x, num).unwrap();
            let (msh, tsh) = mean_and_temperature(&mut a, shifted).unwrap();
            prop_assert_eq!((msh, tsh), (mx.checked_add(quarter).unwrap(), tx));
        }
        let t = tx.max(Dyadic::ZERO);
        let mut multiple = Arena::ZERO;
        let mut km = Dyadic::ZERO;
        for _ in 1..=4 {
            multiple = a.add(multiple, x).unwrap();
            km = km.checked_add(mx).unwrap();
            let (l, r) = a.stops(multiple);
            prop_assert!(km.checked_add(t.checked_neg().unwrap()).unwrap() <= r);
            prop_assert!(r <= l);
            prop_assert!(l <= km.checked_add(t).unwrap());
        }
    }
}

fn hot_form(h: &Hot) -> Form {
    match h {
        Hot::Int(0) => Form {
            left: vec![],
            right: vec![],
        },
        Hot::Int(k) if *k > 0 => Form {
            left: vec![hot_form(&Hot::Int(k - 1))],
            right: vec![],
        },
        Hot::Int(k) => Form {
            left: vec![],
            right: vec![hot_form(&Hot::Int(k + 1))],
        },
        Hot::Game(l, r) => Form {
            left: l.iter().map(hot_form).collect(),
            right: r.iter().map(hot_form).collect(),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// [`SumSearch`] decides sums of up to four canonical games, without building them, as an
    /// explicit search over the sum's forms does: games of all kinds (numbers, nimbers, ups,
    /// hot games), a game beside its own negative and a near copy of it, with and without the
    /// bounds deciding. One search is shared by all its questions, as in `hackenbush`.
    #[test]
    fn sum_search_matches_explicit_search(
        f in form_strategy(),
        g in form_strategy(),
        h in hot_strategy(),
        k in hot_strategy(),
        which in 0usize..4,
    ) {
        let mut a = Arena::new();
        let forms = [f, g, hot_form(&h), hot_form(&k)];
        let ids: Vec<GameId> = forms.iter().map(|x| build(&mut a, x)).collect();
        let mut search = SumSearch::new();
        // Sums of one to four of them, and one of them beside its negative plus another.
        for n in 1..=4 {
            let got = search.outcome(&mut a, &ids[..n]).unwrap();
            prop_assert_eq!(got, searched_outcome(&forms[..n]), "first {}", n);
        }
        let minus = a.neg(ids[which]).unwrap();
        let other = (which + 1) % 4;
        let got = search.outcome(&mut a, &[ids[which], minus, ids[other]]).unwrap();
        let explicit = [forms[which].clone(), neg_form(&forms[which]), forms[other].clone()];
        prop_assert_eq!(got, searched_outcome(&explicit));
        let got = search.outcome(&mut a, &[minus, ids[other], ids[other]]).unwrap();
        let explicit = [neg_form(&forms[which]), forms[other].clone(), forms[other].clone()];
        prop_assert_eq!(got, searched_outcome(&explicit));
    }
}

#[test]
fn sum_search_refuses_beyond_its_budget() {
    // ↑ + ↑ + ↓ + * needs a few positions: with a budget of one the search is refused.
    let mut a = Arena::new();
    let up = crate::partizan::notation::up(&mut a);
    let down = a.neg(up).unwrap();
    let star = a.nimber(1);
    let parts = [up, up, star, down, down, up, star];
    let mut small = SumSearch::with_limit(1);
    assert_eq!(
        small.outcome(&mut a, &parts),
        Err(PartizanError::SearchTooLarge { limit: 1 })
    );
    // ↑ + ↑ + ↓ + ↓ + ↑ = ↑ > 0.
    assert_eq!(
        SumSearch::new().outcome(&mut a, &parts).unwrap(),
        Outcome::Left
    );
}
