//! Engines side by side on small cases: exact against sparse, sparse on 1 and 2 threads, and
//! the sparse engine's portable loops against its AVX2 ones. The long runs of the issue's
//! targets are in scripts/bench.sh.

use std::ops::ControlFlow;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use nimseq::engine::{compute_on, extend, EngineKind, Executor, Sparse, Tier, Values};
use nimseq::rules::Rule;

fn engines(c: &mut Criterion) {
    let mut group = c.benchmark_group("compute");
    group.sample_size(10);
    for (code, n) in [("0.6", 1 << 14), ("0.167", 1 << 16), ("4!.0", 1 << 14)] {
        let rule = Rule::parse(code).unwrap();
        group.throughput(Throughput::Elements(n as u64));
        let serial = Executor::serial();
        if n <= 1 << 14 {
            group.bench_with_input(BenchmarkId::new(format!("exact/{code}"), n), &n, |b, &n| {
                b.iter(|| compute_on(&rule, n, EngineKind::Exact, &serial).unwrap())
            });
        }
        for threads in [1, 2] {
            let exec = Executor::new(threads).unwrap();
            group.bench_with_input(
                BenchmarkId::new(format!("sparse-{threads}t/{code}"), n),
                &n,
                |b, &n| b.iter(|| compute_on(&rule, n, EngineKind::Sparse, &exec).unwrap()),
            );
        }
    }
    group.finish();
}

fn instruction_sets(c: &mut Criterion) {
    let mut group = c.benchmark_group("tier");
    group.sample_size(10);
    for (code, n) in [("0.6", 1 << 15), ("0.167", 1 << 17)] {
        let rule = Rule::parse(code).unwrap();
        group.throughput(Throughput::Elements(n as u64));
        for tier in Tier::available() {
            group.bench_with_input(
                BenchmarkId::new(format!("{tier}/{code}"), n),
                &n,
                |b, &n| {
                    b.iter(|| {
                        let mut engine = Sparse::with_tier(&rule, Executor::serial(), tier);
                        let mut values = Values::default();
                        extend(&mut engine, &mut values, n, &mut |_| {
                            ControlFlow::Continue(())
                        })
                        .unwrap();
                        values
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, engines, instruction_sets);

fn main() {
    // The engine's tuning, read once here as the binary reads it (NIMSEQ_ISA, NIMSEQ_LANES, …).
    let tuning = nimseq::engine::Tuning::from_env().unwrap_or_else(|e| panic!("{e}"));
    tuning.install();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
