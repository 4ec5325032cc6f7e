//! The sparse-space engine against the exact reference engine, bit for bit, and against
//! published sequences; the same values for every thread count and however the range is cut.

use std::ops::ControlFlow;

use nimseq::engine::{
    compute, compute_on, extend, EngineKind, Exact, Executor, Fill, Overflow, Sparse, Tier, Values,
};
use nimseq::rules::Rule;
use proptest::prelude::*;

fn exact(rule: &Rule, n: usize) -> Vec<u32> {
    compute(rule, n, EngineKind::Exact).unwrap().to_u32s()
}

/// The sparse engine's values on `threads` threads, the same on every instruction set this
/// processor has (the portable loops and, where there are AVX2 and AVX-512, the vector ones),
/// with small mode, without it (every heap in blocks), and with small mode for values below 16
/// among larger ones; with the blocks in a pipeline (whatever the threads); with AVX-512 and
/// AVX2 also with step 1 in one lane register (common values below 32: most heaps of most games
/// are clipped and some marked again pair by pair); with the witness search of the scans' last
/// targets (no tier searches by default), from 64 pairs on so that small heaps search; with the scan's head in lanes over 64 pairs (so that heaps from about 640
/// on have one) on one register of keys (rare values below about 64: many heaps scan from the
/// start after it) or as many as the values ask for, in a pipeline too, and over 1024 pairs
/// (heaps from about 2,600 on), and without any (the default of the AVX2 tier has one); the
/// scans in order and in 2 runs (the AVX2 tier's default is 4, `kernels/runs.rs`).
fn sparse(rule: &Rule, n: usize, threads: usize) -> Vec<u32> {
    let exec = Executor::new(threads).unwrap();
    let mut first: Option<Vec<u32>> = None;
    for tier in Tier::available() {
        // Small mode as chosen, none, and for values below 16 whatever the values (so that
        // values past its word, which real games reach only far out, occur in every game).
        let lanes = if tier != Tier::PORTABLE {
            &["lanes 1"][..]
        } else {
            &[]
        };
        let witnesses = Some(64);
        let heads = [
            "head 64 on 1",
            "head 64",
            "head 64 pipeline",
            "head 1024",
            "no head",
            "in order",
            "runs 2",
        ];
        for small in ["auto", "off", "below 16", "pipeline", "witnesses"]
            .iter()
            .chain(lanes)
            .chain(&heads)
        {
            let mut values = Values::default();
            let engine = Sparse::with_tier(rule, exec.clone(), tier);
            let mut engine = match *small {
                "auto" => engine,
                "off" => engine.without_small_mode(),
                "pipeline" => engine.without_small_mode().with_pipeline(true),
                "lanes 1" => engine.without_small_mode().with_lane_regs(Some(1)),
                "witnesses" => engine.without_small_mode().with_witnesses(witnesses),
                "head 64 on 1" => engine.without_small_mode().with_head(64, Some(1)),
                "head 64" => engine.without_small_mode().with_head(64, None),
                "head 64 pipeline" => engine
                    .without_small_mode()
                    .with_pipeline(true)
                    .with_head(64, None),
                "head 1024" => engine.without_small_mode().with_head(1024, None),
                "no head" => engine.without_small_mode().with_head(0, None),
                "in order" => engine.without_small_mode().with_scan_runs(1),
                "runs 2" => engine.with_scan_runs(2),
                _ => engine.with_small_limit(16, true),
            };
            extend(&mut engine, &mut values, n, &mut |_| {
                ControlFlow::Continue(())
            })
            .unwrap();
            let got = values.to_u32s();
            match &first {
                None => first = Some(got),
                Some(f) => assert_eq!(
                    &got, f,
                    "{rule} on {tier:?} (small mode {small}) differs from the portable loops"
                ),
            }
        }
    }
    first.unwrap()
}

fn check(code: &str, n: usize) {
    let rule = Rule::parse(code).unwrap();
    let want = exact(&rule, n);
    for threads in [1, 2, 3] {
        let got = sparse(&rule, n, threads);
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            panic!(
                "{code} with {threads} threads: G({i}) = {} but the exact engine says {}",
                got[i], want[i]
            );
        }
    }
}

/// Every octal code 0.d1d2d3, heaps 0..1500, one thread (threads are compared below).
#[test]
fn all_three_digit_octal_codes() {
    for code in 0..512u32 {
        let text = format!("0.{}{}{}", code >> 6, (code >> 3) & 7, code & 7);
        let rule = Rule::parse(&text).unwrap();
        let want = exact(&rule, 1500);
        let got = sparse(&rule, 1500, 1);
        assert_eq!(got, want, "{text}");
    }
}

/// Octal codes with a split in d0 (4.xy and 4!.xy).
#[test]
fn codes_with_d0_splits() {
    for d0 in ["4", "4!"] {
        for code in 0..64u32 {
            let text = format!("{d0}.{}{}", code >> 3, code & 7);
            let rule = Rule::parse(&text).unwrap();
            assert_eq!(sparse(&rule, 800, 1), exact(&rule, 800), "{text}");
        }
    }
}

#[test]
fn famous_games_longer_and_on_several_threads() {
    for code in [
        "0.6", "0.167", "4!.0", "0.77", "0.137", "0.007", "0.15", "0.4",
    ] {
        check(code, 10_000);
    }
}

#[test]
fn hexadecimal_unequal_and_tail_codes() {
    for code in [
        "0.8", "0.F", "0.3F", "0.48", "0.C", "0.9", "0.E4", "4.8", "0.4!", "0.6!", "0.7!", "0.74!",
        "4!.4!", "4!.6", "4!.04", "0.[3]", "4.[3]", "0.1[37]", "0.[6]", "0.0[4]",
    ] {
        check(code, 400);
    }
}

/// Grundy's game against OEIS A002188 (the published terms in ../shared/reference/oeis.tsv).
#[test]
fn grundy_matches_oeis_a002188() {
    let a002188 = [
        0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3, 0, 4, 1, 2,
        3, 1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 5, 4, 1, 5, 4, 1, 5, 4, 1, 0, 2, 1, 0, 2, 1, 5, 2, 1, 3,
        2, 1, 3, 2, 4, 3, 2,
    ];
    let rule = Rule::parse("grundy").unwrap();
    assert_eq!(sparse(&rule, a002188.len(), 2), a002188);
}

/// Officers against OEIS A046695.
#[test]
fn officers_matches_oeis_a046695() {
    let a046695 = [
        0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1, 0, 2, 1, 4, 5, 1, 4, 5, 1, 2,
        0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 2, 3, 4, 2, 1, 0, 2, 8, 4, 5, 3, 4, 5, 6, 2, 5, 1, 2, 3,
        1, 2, 3, 4, 2, 3, 4, 2,
    ];
    let rule = Rule::parse("officers").unwrap();
    assert_eq!(sparse(&rule, a046695.len(), 1), a046695);
}

/// The engine is handed a prefix it did not compute (a resumed table) and ranges of any length.
#[test]
fn resumes_from_a_foreign_prefix_in_odd_chunks() {
    for code in ["0.6", "4!.0", "0.167"] {
        let rule = Rule::parse(code).unwrap();
        let n = 6000;
        let want = exact(&rule, n);
        let mut vals = vec![0u16; n];
        for (i, &v) in want[..2500].iter().enumerate() {
            vals[i] = v as u16;
        }
        let mut engine = Sparse::with_executor(&rule, Executor::new(2).unwrap());
        let mut start = 2500;
        for len in [1, 7, 300, 2, 1000, 64] {
            engine.fill(&mut vals, start, start + len).unwrap();
            start += len;
        }
        engine.fill(&mut vals, start, n).unwrap();
        assert!(
            vals.iter().zip(&want).all(|(&a, &b)| a as u32 == b),
            "{code}"
        );
        // Going back: refill a range that was already computed.
        vals[4000..].fill(0);
        engine.fill(&mut vals, 4000, n).unwrap();
        assert!(
            vals.iter().zip(&want).all(|(&a, &b)| a as u32 == b),
            "{code}"
        );
    }
}

/// An overflow of the cell width stops at the right heap and the engine continues on the wider
/// copy that the driver makes (values of Lasker's Nim grow like n).
#[test]
fn overflow_then_widen() {
    let rule = Rule::parse("laskers-nim").unwrap();
    let mut vals = vec![0u8; 400];
    let mut engine = Sparse::new(&rule);
    let Err(Overflow { at, value }) = engine.fill(&mut vals, 0, 400) else {
        panic!("no overflow");
    };
    assert!(value > 255);
    let want = exact(&rule, 400);
    assert_eq!(want[at], value);
    let mut wide: Vec<u16> = vals[..at].iter().map(|&v| v as u16).collect();
    wide.resize(400, 0);
    engine.fill(&mut wide, at, 400).unwrap();
    assert!(wide.iter().zip(&want).all(|(&a, &b)| a as u32 == b));
    // And through the driver.
    let v = compute(&rule, 400, EngineKind::Sparse).unwrap();
    assert!(matches!(v, Values::W16(_)));
    assert_eq!(v.to_u32s(), want);
}

#[test]
fn auto_picks_sparse_only_where_heaps_split() {
    let split = Rule::parse("0.6").unwrap();
    let plain = Rule::parse("0.333").unwrap();
    assert_eq!(EngineKind::Auto.resolve(&split), EngineKind::Sparse);
    assert_eq!(EngineKind::Auto.resolve(&plain), EngineKind::Exact);
    assert_eq!(EngineKind::Exact.resolve(&split), EngineKind::Exact);
}

/// Grundy's game past its first value of 256 (G(7,250,049) = 256 in our run, recorded in
/// results/grundy-256.md): run by scripts/check-grundy.sh, too slow for CI.
#[test]
#[ignore]
fn grundy_past_first_value_256() {
    // The tier and switches as the binary reads them (NIMSEQ_ISA=avx2 scripts/check-grundy.sh).
    let tuning = nimseq::engine::Tuning::from_env().unwrap_or_else(|e| panic!("{e}"));
    tuning.install();
    eprintln!("{}", tuning.describe());
    let rule = Rule::parse("grundy").unwrap();
    let n: usize = std::env::var("NIMSEQ_GRUNDY_HEAPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7_400_000);
    let exec = Executor::new(0).unwrap();
    let v = compute_on(&rule, n, EngineKind::Sparse, &exec).unwrap();
    let first = (0..n)
        .find(|&i| v.get(i) >= 256)
        .expect("a value of 256 or more");
    eprintln!("first value >= 256: G({first}) = {}", v.get(first));
    // Cross-check values around it, and a sample far out, against the definition: the mex of
    // G(a) xor G(n - a) over 1 <= a < n/2 (unequal parts).
    for heap in (first - 3..first + 3).chain([n - 1, n / 2, 5_000_001]) {
        let mut seen = vec![false; 1024];
        for a in 1..heap.div_ceil(2) {
            seen[(v.get(a) ^ v.get(heap - a)) as usize] = true;
        }
        let mex = seen.iter().position(|&s| !s).unwrap() as u32;
        assert_eq!(v.get(heap), mex, "G({heap})");
    }
}

fn octal_code() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![0u8, 4]),
        prop::collection::vec(0u8..8, 4..9),
    )
        .prop_map(|(d0, ds)| {
            let digits: String = ds.iter().map(|d| char::from(b'0' + d)).collect();
            format!("{d0}.{digits}")
        })
}

fn hex_code() -> impl Strategy<Value = String> {
    prop::collection::vec(0u8..16, 1..4).prop_map(|ds| {
        format!(
            "0.{}",
            ds.iter().map(|d| format!("{d:X}")).collect::<String>()
        )
    })
}

fn unequal_code() -> impl Strategy<Value = String> {
    prop::collection::vec((0u8..8, any::<bool>()), 1..5).prop_map(|ds| {
        let mut s = String::from("0.");
        for (d, bang) in ds {
            s.push(char::from(b'0' + d));
            if bang && d & 4 != 0 {
                s.push('!');
            }
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_longer_octal_codes(code in octal_code(), threads in 1usize..4) {
        let rule = Rule::parse(&code).unwrap();
        prop_assert_eq!(sparse(&rule, 2000, threads), exact(&rule, 2000), "{}", code);
    }

    #[test]
    fn random_hexadecimal_codes(code in hex_code(), threads in 1usize..4) {
        let rule = Rule::parse(&code).unwrap();
        prop_assert_eq!(sparse(&rule, 250, threads), exact(&rule, 250), "{}", code);
    }

    #[test]
    fn random_unequal_codes(code in unequal_code(), threads in 1usize..4) {
        let rule = Rule::parse(&code).unwrap();
        prop_assert_eq!(sparse(&rule, 1500, threads), exact(&rule, 1500), "{}", code);
    }

    /// Heaps filled in random pieces give the same values as one call.
    #[test]
    fn any_cut_of_the_range(cuts in prop::collection::vec(1usize..700, 1..8)) {
        let rule = Rule::parse("0.6").unwrap();
        let n: usize = cuts.iter().sum();
        let want = exact(&rule, n);
        let mut vals = vec![0u16; n];
        let mut engine = Sparse::with_executor(&rule, Executor::new(2).unwrap());
        let mut start = 0;
        for len in cuts {
            engine.fill(&mut vals, start, start + len).unwrap();
            start += len;
        }
        prop_assert!(vals.iter().zip(&want).all(|(&a, &b)| a as u32 == b));
    }
}

#[test]
fn exact_engine_is_still_available() {
    let rule = Rule::parse("0.77").unwrap();
    let mut vals = vec![0u8; 12];
    Exact::new(&rule).fill(&mut vals, 0, 12).unwrap();
    assert_eq!(vals, [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]);
}

/// Dense mode (every pair marked once rare positions are a quarter of the heaps) and back,
/// with small limits so that it switches often: the values stay those of the exact engine, and
/// both modes are met along the way.
/// Games whose values keep growing (every heap a new largest value): the rows widen at almost
/// every block, also when dense mode takes over right after a block whose last value reached
/// the width (`compute 0.[37] -n 5000` once panicked there). Dense mode from many points on.
#[test]
fn dense_mode_after_a_widening_block() {
    for text in ["0.[37]", "0.[7]", "0.3[7]", "4.[37]"] {
        let rule = Rule::parse(text).unwrap();
        let n = 700;
        let want = exact(&rule, n);
        for min in (32..=300).step_by(7) {
            let tier = Tier::available()[min % Tier::available().len()];
            let mut engine =
                Sparse::with_tier(&rule, Executor::serial(), tier).with_dense_limits(min, 1 << 20);
            let mut vals = vec![0u16; n];
            for start in (0..n).step_by(50) {
                engine.fill(&mut vals, start, (start + 50).min(n)).unwrap();
            }
            let got: Vec<u32> = vals.iter().map(|&v| v as u32).collect();
            assert_eq!(got, want, "{text}, dense from heap {min}, {tier:?}");
        }
    }
}

#[test]
fn dense_mode_on_and_off() {
    let (mut saw_dense, mut saw_back) = (false, false);
    for code in 0..512u32 {
        let text = format!("0.{}{}{}", code >> 6, (code >> 3) & 7, code & 7);
        let rule = Rule::parse(&text).unwrap();
        if !rule.has_splits() {
            continue;
        }
        let n = 1200;
        let want = exact(&rule, n);
        for tier in Tier::available() {
            let mut engine =
                Sparse::with_tier(&rule, Executor::serial(), tier).with_dense_limits(64, 96);
            let mut vals = vec![0u16; n];
            let mut was_dense = false;
            for start in (0..n).step_by(100) {
                engine.fill(&mut vals, start, (start + 100).min(n)).unwrap();
                let dense = engine.state().dense;
                saw_dense |= dense;
                saw_back |= was_dense && !dense;
                was_dense = dense;
            }
            let got: Vec<u32> = vals.iter().map(|&v| v as u32).collect();
            assert_eq!(got, want, "{text} on {tier:?}");
        }
    }
    assert!(
        saw_dense && saw_back,
        "dense mode on: {saw_dense}, back off: {saw_back}"
    );
}

/// Small mode started at every heap below 130, as when a table is resumed or a range cut there:
/// near a start below one block, the first block's rare positions include some above what the
/// first heaps leave, which those heaps must pass over.
/// 0.167's values first reach 64 at heap 332,129,728, where small mode used to end for good (a
/// table run fell from ~9 to 3.7 M heaps/s there). The same with the limit at 48, which 90 of
/// its first 2^20 heaps reach: small mode must go on, one heap in 4,096 or fewer left to the
/// blocks, with the values of the engine without small mode.
#[test]
fn small_mode_goes_on_past_a_few_large_values() {
    let rule = Rule::parse("0.167").unwrap();
    let n = 1 << 20;
    let run = |engine: &mut Sparse| {
        let mut values = Values::default();
        extend(engine, &mut values, n, &mut |_| ControlFlow::Continue(())).unwrap();
        values.to_u32s()
    };
    let mut small = Sparse::new(&rule).with_small_limit(48, false);
    let got = run(&mut small);
    assert!(got.iter().filter(|&&v| v >= 48).count() >= 80);
    assert!(small.state().small, "small mode still on at 2^20");
    assert_eq!(got, run(&mut Sparse::new(&rule).without_small_mode()));
}

#[test]
fn small_mode_from_every_early_start() {
    for code in ["0.167", "0.137", "0.07", "4.7", "0.51", "0.4!"] {
        let rule = Rule::parse(code).unwrap();
        let n = 400;
        let want = exact(&rule, n);
        for start in 0..130 {
            let mut vals: Vec<u16> = want[..start].iter().map(|&v| v as u16).collect();
            vals.resize(n, 0);
            Sparse::new(&rule).fill(&mut vals, start, n).unwrap();
            let got: Vec<u32> = vals.iter().map(|&v| u32::from(v)).collect();
            assert_eq!(got, want, "{code} from heap {start}");
        }
    }
}

/// The scan on byte keys (AVX-512 or AVX2, 16-bit cells, values below 512: Officers from heap
/// 18,855 on; its last rare position is 20,627) gives the values of the scan on the cells, with
/// keys kept for few heaps (so that scans run past them on the cells and the right side's
/// buffer moves often) or as many as by default, on one and (blocks in a pipeline: scans
/// resumed) two threads.
#[test]
fn officers_scan_on_keys_as_on_cells() {
    let sets: Vec<Tier> = Tier::available()
        .into_iter()
        .filter(|&tier| tier != Tier::PORTABLE)
        .collect();
    if sets.is_empty() {
        eprintln!("no AVX2 here: the scan has no keys");
        return;
    }
    let rule = Rule::parse("officers").unwrap();
    let n = 120_000;
    let run = |tier: Tier, threads: usize, cap: Option<usize>| {
        let exec = Executor::new(threads).unwrap();
        let mut engine = Sparse::with_tier(&rule, exec, tier)
            .with_scan_keys(cap)
            .with_pipeline(threads > 1);
        let mut values = Values::default();
        extend(&mut engine, &mut values, n, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
        let keyed = engine.state().scan_keys;
        (values.to_u32s(), keyed)
    };
    let (want, none) = run(sets[0], 1, None);
    assert_eq!(none, 0);
    assert!(want[18_855] >= 256, "values reach 9 bits");
    for tier in sets {
        for (threads, cap) in [(1, 64), (1, 5000), (2, 1 << 20), (2, 300)] {
            let (got, keyed) = run(tier, threads, Some(cap));
            assert!(keyed > 100_000, "keys for {keyed} heaps only");
            if let Some(h) = (0..n).find(|&h| got[h] != want[h]) {
                panic!(
                    "{tier:?}, keys for {cap} heaps, {threads} threads: G({h}) = {} but {} on \
                     the cells",
                    got[h], want[h]
                );
            }
        }
    }
}
