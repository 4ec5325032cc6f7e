//! The cost of checking for a period as values arrive, on a sequence shaped like 0.16
//! (preperiod 105,351, period 149,459: Gangolli & Plambeck 1989): pseudo-random values before
//! the preperiod, then one pseudo-random block repeated. The checker sees the values in chunks of
//! 65,536 heaps, as the engine driver hands them over, until the period is proved
//! (2·105,351 + 2·149,459 + 2 = 509,622 values). Compare with the time the engine needs for
//! those values.

use criterion::{criterion_group, Criterion};

use nimseq::analysis::PeriodChecker;
use nimseq::engine::{Values, CHUNK};
use nimseq::rules::Rule;

fn synthetic(n0: usize, p: usize, len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 8) as u8
    };
    let mut v: Vec<u8> = (0..n0 + p).map(|_| next()).collect();
    for n in n0 + p..len {
        v.push(v[n - p]);
    }
    // Make heap n0 − 1 an exception.
    v[n0 - 1] = (v[n0 - 1 + p] + 1) % 8;
    v
}

fn bench(c: &mut Criterion) {
    let (n0, p) = (105_351, 149_459);
    let all = synthetic(n0, p, 600_000);
    let rule = Rule::parse("0.16").unwrap();
    c.bench_function("check 0.16-shaped sequence until proved", |b| {
        b.iter(|| {
            let mut checker = PeriodChecker::new(&rule);
            let mut values = Values::W8(Vec::new());
            let mut len = 0;
            while checker.proved().is_none() {
                len = (len + CHUNK).min(all.len());
                values = Values::W8(all[..len].to_vec());
                checker.update(&values);
            }
            let got = checker.proved().unwrap();
            assert_eq!((got.preperiod, got.period), (n0 as u64, p as u64));
            values.len()
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
fn main() {
    // The engine's tuning, read once here as the binary reads it (NIMSEQ_ISA, NIMSEQ_LANES, …).
    let tuning = nimseq::engine::Tuning::from_env().unwrap_or_else(|e| panic!("{e}"));
    tuning.install();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
