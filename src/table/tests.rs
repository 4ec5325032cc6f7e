//! Unit tests of the table writer: every state is compared with the in-memory engine.

use std::ops::ControlFlow;

use super::*;
use crate::engine::{self, EngineKind, Exact, Fill, Overflow};
use crate::rules::Rule;

fn run(path: &Path, game: &str, count: u64) -> Table {
    let rule = Rule::parse(game).unwrap();
    let mut t = Table::open(path, &rule.code()).unwrap();
    extend(
        &mut t,
        &mut Exact::new(&rule),
        count,
        &Checkpoints::default(),
        &mut |_| ControlFlow::Continue(()),
    )
    .unwrap();
    t
}

fn expected(game: &str, count: usize) -> Vec<u32> {
    engine::compute(&Rule::parse(game).unwrap(), count, EngineKind::Exact)
        .unwrap()
        .to_u32s()
}

fn read_all(path: &Path) -> Vec<u32> {
    let r = TableReader::open(path).unwrap();
    r.verify().unwrap();
    let v = r.values().unwrap();
    v.range(0, v.len()).collect()
}

#[test]
fn kayles_matches_memory_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.nimseq");
    drop(run(&path, "0.77", 3000));
    assert_eq!(read_all(&path), expected("0.77", 3000));
    let r = TableReader::open(&path).unwrap();
    let values = engine::compute(&Rule::parse("0.77").unwrap(), 3000, EngineKind::Exact).unwrap();
    assert_eq!(r.summary(), Summary::of_values("0.77", &values));
    assert_eq!(r.width(), Width::W8);
}

/// G(n) = 3n: crosses every width.
struct Triple;
impl Fill for Triple {
    fn fill<T: Cell>(&mut self, vals: &mut [T], start: usize, end: usize) -> Result<(), Overflow> {
        for n in start..end {
            assert!(
                n == 0 || vals[n - 1].get() == 3 * (n as u32 - 1),
                "prefix intact"
            );
            let g = 3 * n as u32;
            if g > T::MAX {
                return Err(Overflow { at: n, value: g });
            }
            vals[n] = T::from_u32(g);
        }
        Ok(())
    }
}

#[test]
fn widens_in_place_to_32_bits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nimseq");
    let mut t = Table::open(&path, "0.[3]").unwrap();
    let cp = Checkpoints::default();
    extend(&mut t, &mut Triple, 30_000, &cp, &mut |_| {
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(t.width(), Width::W32);
    drop(t);
    let want: Vec<u32> = (0..30_000).map(|n| 3 * n).collect();
    assert_eq!(read_all(&path), want);
}

#[test]
fn interrupted_widening_resumes() {
    for steps in 0..6 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.nimseq");
        let mut t = Table::open(&path, "0.[3]").unwrap();
        let cp = Checkpoints::default();
        extend(&mut t, &mut Triple, 86, &cp, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(t.width(), Width::W8);
        // A crash after `steps` steps of the widening: the table is dropped without more writes.
        assert!(!t.widen_limited(Width::W16, Some(steps)).unwrap());
        drop(t);
        assert!(matches!(
            TableReader::open(&path).unwrap().values(),
            Err(TableError::Widening { .. })
        ));
        let t = Table::open(&path, "0.[3]").unwrap();
        assert_eq!(t.width(), Width::W16);
        drop(t);
        let want: Vec<u32> = (0..86).map(|n| 3 * n).collect();
        assert_eq!(read_all(&path), want, "after {steps} steps");
    }
}

#[test]
fn stop_resume_and_extend_are_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    drop(run(&a, "0.6", 5000));
    let rule = Rule::parse("0.6").unwrap();
    let mut t = Table::open(&b, "0.6").unwrap();
    let mut calls = 0;
    let r = extend(
        &mut t,
        &mut Exact::new(&rule),
        5000,
        &Checkpoints::default(),
        &mut |_| {
            calls += 1;
            if calls == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    let at = match r {
        Err(TableError::Stopped { at }) => at,
        other => panic!("{other:?}"),
    };
    assert!(at > 0 && at < 5000);
    drop(t);
    assert_eq!(TableReader::open(&b).unwrap().len(), at);
    drop(run(&b, "0.6", 2000)); // a smaller N leaves the values alone
    drop(run(&b, "0.6", 5000));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn refuses_other_game_second_writer_and_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k");
    let t = run(&path, "0.77", 100);
    assert!(matches!(
        Table::open(&path, "0.77"),
        Err(TableError::Locked { .. })
    ));
    drop(t);
    assert!(matches!(
        Table::open(&path, "0.6"),
        Err(TableError::OtherGame { .. })
    ));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[VALUES_OFFSET as usize + 50] ^= 4;
    std::fs::write(&path, &bytes).unwrap();
    let e = Table::open(&path, "0.77").unwrap_err();
    assert!(
        e.to_string().contains("heaps 0 .. 99 fail their checksum"),
        "{e}"
    );
    assert!(TableReader::open(&path).unwrap().verify().is_err());
}

#[test]
fn period_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k");
    let mut t = run(&path, "0.77", 100);
    let p = Period {
        preperiod: 72,
        period: 12,
        last_exception: Some(71),
        shift: 0,
        proved: true,
        periods_seen: (100 - 72) / 12,
        theorem_bound: Some(2 * 72 + 2 * 12 + 2),
    };
    assert!(t.record_period(Some(p.clone())).unwrap());
    // The same period again changes nothing (and commits nothing).
    assert!(!t.record_period(Some(p.clone())).unwrap());
    drop(t);
    assert_eq!(TableReader::open(&path).unwrap().summary().period, Some(p));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Any game, any N, stopped after any number of chunks (several times) and resumed:
        /// the values equal the in-memory computation and the file equals one run's.
        #[test]
        fn interrupted_runs_match_memory(
            game in prop::sample::select(vec!["0.77", "0.6", "4!.0", "0.[3]", "0.137", "0.3F", "sub(1,4)"]),
            n in 1u64..1500,
            stops in prop::collection::vec(1usize..4, 0..4),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let (a, b) = (dir.path().join("a"), dir.path().join("b"));
            let rule = Rule::parse(game).unwrap();
            let code = rule.code();
            for after in stops {
                let mut t = Table::open(&a, &code).unwrap();
                let mut calls = 0;
                let _ = extend(&mut t, &mut Exact::new(&rule), n, &Checkpoints::default(), &mut |_| {
                    calls += 1;
                    if calls >= after { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
                });
            }
            drop(run(&a, game, n));
            prop_assert_eq!(read_all(&a), expected(game, n as usize));
            drop(run(&b, game, n));
            prop_assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
        }
    }
}
