//! The misère quotient of a code heap by heap, with every candidate of each recalibration
//! printed to stderr as it is verified (for experiments at the frontier, such as 0.07's heap
//! 34): `cargo run --release --example quotient_trace -- 0.07 40 [fewest|least] [from-base] [double]
//! [wider] [period=2] [mib=8192] [order=16384] [size=262144] [rounds=64] [threads=1]` (the failing
//! positions that guide the search (`FailureOrder`: the default turns from the fewest-heap
//! ones to the least after a few candidates), the recalibration, the
//! index growth of freed heaps (`IndexGrowth::Double`), the wider search
//! (`QuotientSolver::with_wider_search`), the period of freed heaps, the memory limit in MiB, the largest
//! candidates built, reduced and not, the candidates verified before a heap gives up, and the
//! threads of the verifications).

use std::sync::mpsc;
use std::time::Instant;

use nimseq::engine::Executor;
use nimseq::misere::quotient::{
    CandidateLimits, FailureOrder, IndexGrowth, QuotientSolver, Recalibration,
};
use nimseq::rules::Rule;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = args.get(1).map_or("0.07", String::as_str);
    let max: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(40);
    let how = if args.iter().any(|a| a == "from-base") {
        Recalibration::FromBase
    } else {
        Recalibration::FromFailed
    };
    let named = |key: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(key).and_then(|v| v.parse::<usize>().ok()))
    };
    let mib = named("mib=").unwrap_or(8 << 10);
    let mut limits = CandidateLimits::default();
    limits.order = named("order=").unwrap_or(limits.order);
    limits.size = named("size=").unwrap_or(limits.size);
    limits.recalibrations = named("rounds=").unwrap_or(limits.recalibrations);
    let rule = Rule::parse(code).expect("a valid code");
    let (tx, rx) = mpsc::channel::<nimseq::misere::quotient::Attempt>();
    let printer = std::thread::spawn(move || {
        for a in rx {
            eprintln!(
                "  heap {} free {:?} size {} order {} built {} states {} build {} ms verify {} ms -> {}",
                a.heap,
                a.free,
                a.size,
                a.order,
                a.built,
                a.states,
                a.build_ms,
                a.verify_ms,
                match &a.failure {
                    Some(p) => format!("fails at {p:?}"),
                    None => "passes".into(),
                }
            );
        }
    });
    let t = Instant::now();
    let mut s = QuotientSolver::new(&rule, 1 << 24)
        .with_memory_limit(mib << 20)
        .with_recalibration(how)
        .with_index_growth(if args.iter().any(|a| a == "double") {
            IndexGrowth::Double
        } else {
            IndexGrowth::Step
        })
        .with_failure_order(if args.iter().any(|a| a == "least") {
            FailureOrder::Least
        } else if args.iter().any(|a| a == "fewest") {
            FailureOrder::Fewest
        } else {
            FailureOrder::FewestFirst
        })
        .with_candidate_limits(limits)
        .with_wider_search(args.iter().any(|a| a == "wider"))
        .with_free_period(named("period=").unwrap_or(2))
        .with_trace(tx)
        .with_executor(Executor::new(named("threads=").unwrap_or(1)).expect("a pool"));
    while s.count() <= max && s.certified().is_none() {
        match s.step() {
            Ok(()) => {
                let m = s.monoid();
                println!(
                    "heap {} order {} P {} states {} at {:.1} s",
                    s.count() - 1,
                    m.order,
                    m.p.iter().filter(|&&b| b).count(),
                    s.states(),
                    t.elapsed().as_secs_f64()
                );
            }
            Err(e) => {
                println!(
                    "heap {}: {e} at {:.1} s",
                    s.count(),
                    t.elapsed().as_secs_f64()
                );
                break;
            }
        }
    }
    drop(s);
    printer.join().expect("the printer");
}
