//! Scratch: a candidate for the positions with at most `a` copies of the frontier heap `n`
//! (`B_a`, closed under moves), verified by a closure whose states also count the copies of
//! heap `n`; the recalibration search of the solver (free heaps of the failing position from
//! the last failed candidate) with that closure. A candidate passing it predicts every
//! position of `B_a` exactly; then families are evaluated by products.
//!
//! Candidates are built from `Q_{n−1}` with the union of the heaps freed so far (as
//! `Recalibration::FromBase`, one index above the copies in the failing position), within the
//! default candidate limits. On 0.6 at heap 17 it stops for every `a` from 1 to 3: freeing 7
//! (failure `17·7²`) and then 10 (failure `17·10²`) gives no candidate within the limits, so
//! the wall stands already for positions with one copy of heap 17 (`results/misere.md`).
//!
//! `cargo run --release --example bounded_quotient -- CODE N A [H AMAX BMAX fixed…]`

use std::collections::HashMap;

use nimseq::misere::quotient::closure::consistent_at;
use nimseq::misere::quotient::{build_candidate, Monoid, QuotientSolver};
use nimseq::rules::{for_each_option, MoveSet, Rule};

fn heap_opts(moves: &MoveSet, m: &Monoid, phi: &[u32], h: usize) -> Vec<u32> {
    let mut out = Vec::new();
    for_each_option(moves, h, |parts| {
        let mut e = 0u32;
        for &x in parts {
            e = m.mul(e, phi[x]);
        }
        out.push(e);
    });
    out.sort_unstable();
    out.dedup();
    out
}

#[allow(dead_code)]
fn index_of(m: &Monoid, x: u32) -> usize {
    let mut seen: HashMap<u32, usize> = HashMap::new();
    let mut e = 0u32;
    for i in 0.. {
        if let Some(&j) = seen.get(&e) {
            return j;
        }
        seen.insert(e, i);
        e = m.mul(e, x);
    }
    unreachable!()
}

/// The closure over positions with at most `a` copies of heap `n`: `Ok(states)` or the
/// failing position.
fn bounded_closure(
    moves: &MoveSet,
    m: &Monoid,
    phi: &[u32],
    n: usize,
    a: usize,
    limit: usize,
) -> Result<usize, Option<Vec<usize>>> {
    let q = m.order;
    let w = q.div_ceil(64);
    let mut quot = vec![0u64; q * w];
    for t in 0..q {
        for z in 0..q {
            if m.p[m.table.get(t * q + z) as usize] {
                quot[t * w + z / 64] |= 1 << (z % 64);
            }
        }
    }
    // Distinct transitions (g, O(h), is n), first heap of each.
    let mut trans: Vec<(u32, Vec<u32>, bool, usize)> = Vec::new();
    for h in 1..=n {
        let o = heap_opts(moves, m, phi, h);
        let t = (phi[h], o, h == n, h);
        if !trans.iter().any(|x| x.0 == t.0 && x.1 == t.1 && x.2 == t.2) {
            trans.push(t);
        }
    }
    // state: [cnt | moved << 8 | elem << 32, σ...]
    let mut states: Vec<Vec<u64>> = vec![{
        let mut s = vec![0u64; w + 1];
        s[0] = 0;
        s
    }];
    let mut parent: Vec<(usize, usize)> = vec![(usize::MAX, 0)];
    let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
    index.insert(states[0].clone(), 0);
    let mut i = 0;
    while i < states.len() {
        let s = states[i].clone();
        let cnt = (s[0] & 0xff) as usize;
        let moved = (s[0] >> 8) & 1 == 1;
        let e = (s[0] >> 32) as usize;
        for (ti, (g, o, is_n, _)) in trans.iter().enumerate() {
            if *is_n && cnt >= a {
                continue;
            }
            let g = *g as usize;
            let e2 = m.table.get(e * q + g) as usize;
            let mut sig = vec![0u64; w];
            for z in 0..q {
                let gz = m.table.get(g * q + z) as usize;
                if (s[1 + gz / 64] >> (gz % 64)) & 1 == 1 {
                    sig[z / 64] |= 1 << (z % 64);
                }
            }
            for &y in o {
                let t = m.table.get(e * q + y as usize) as usize;
                for k in 0..w {
                    sig[k] |= quot[t * w + k];
                }
            }
            let moved2 = moved || !o.is_empty();
            let cnt2 = cnt + usize::from(*is_n);
            let mut ns = vec![(cnt2 as u64) | (u64::from(moved2) << 8) | ((e2 as u64) << 32)];
            ns.extend_from_slice(&sig);
            if index.contains_key(&ns) {
                continue;
            }
            let predicted = m.p[e2];
            let rule = moved2 && sig[0] & 1 == 0;
            let id = states.len();
            index.insert(ns.clone(), id);
            states.push(ns);
            parent.push((i, ti));
            if predicted != rule {
                let mut pos = Vec::new();
                let mut at = id;
                while parent[at].0 != usize::MAX {
                    pos.push(trans[parent[at].1].3);
                    at = parent[at].0;
                }
                pos.sort_unstable_by(|x, y| y.cmp(x));
                return Err(Some(pos));
            }
            if states.len() > limit {
                return Err(None);
            }
        }
        i += 1;
    }
    Ok(states.len())
}

fn combinations(items: &[usize], size: usize) -> Vec<Vec<usize>> {
    if size == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, &x) in items.iter().enumerate() {
        for mut rest in combinations(&items[i + 1..], size - 1) {
            rest.insert(0, x);
            out.push(rest);
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = &args[1];
    let n: usize = args[2].parse().unwrap();
    let a: usize = args[3].parse().unwrap();
    let rule = Rule::parse(code).unwrap();
    let mut s = QuotientSolver::new(&rule, 1 << 24);
    while s.count() < n {
        s.step().unwrap();
    }
    let moves = rule.moves(2 * n + 16);
    let t = std::time::Instant::now();
    let mut base_phi = s.phi().to_vec();
    base_phi.push(0);
    let mut freed = vec![(n, a + 1, 2)];
    let (mut m, mut phi) = build_candidate(&moves, s.monoid(), &base_phi, &freed).expect("first");
    let mut round = 0;
    let mut failures: Vec<Vec<usize>> = Vec::new();
    loop {
        let r = bounded_closure(&moves, &m, &phi, n, a, 4_000_000);
        match r {
            Ok(states) => {
                eprintln!(
                    "B_{a}: candidate of order {} passes ({states} states), round {round}, {:.1} s",
                    m.order,
                    t.elapsed().as_secs_f64()
                );
                break;
            }
            Err(None) => {
                eprintln!("too many states");
                return;
            }
            Err(Some(pos)) => {
                eprintln!(
                    "  round {round}: order {} fails at {pos:?} ({:.1} s)",
                    m.order,
                    t.elapsed().as_secs_f64()
                );
                failures.push(pos.clone());
                let mut inv = pos.clone();
                inv.dedup();
                let mut next = None;
                'search: for size in 1..=inv.len() {
                    for sub in combinations(&inv, size) {
                        let mut free = freed.clone();
                        for &h in &sub {
                            let e = pos.iter().filter(|&&x| x == h).count();
                            match free.iter_mut().find(|f| f.0 == h) {
                                Some(f) => f.1 = f.1.max(e + 1).max(f.1 + 1),
                                None => free.push((h, e + 1, 2)),
                            }
                        }
                        let made = build_candidate(&moves, s.monoid(), &base_phi, &free);
                        eprintln!("    free {free:?}: {:?}", made.as_ref().map(|c| c.0.order));
                        if let Some((m2, phi2)) = made {
                            let ok = failures.iter().all(|f: &Vec<usize>| {
                                let path: Vec<(u32, Vec<u32>)> = f
                                    .iter()
                                    .map(|&h| (phi2[h], heap_opts(&moves, &m2, &phi2, h)))
                                    .collect();
                                consistent_at(&m2, &path)
                            });
                            if ok {
                                freed = free;
                                next = Some((m2, phi2));
                                break 'search;
                            }
                        }
                    }
                }
                match next {
                    Some((m2, p2)) => {
                        m = m2;
                        phi = p2;
                    }
                    None => {
                        eprintln!("no candidate");
                        return;
                    }
                }
                round += 1;
                if round > 40 {
                    eprintln!("gave up");
                    return;
                }
            }
        }
    }
    if args.len() > 4 {
        let h: usize = args[4].parse().unwrap();
        let amax: usize = args[5].parse().unwrap();
        let bmax: usize = args[6].parse().unwrap();
        let fixed: Vec<usize> = args[7..].iter().map(|x| x.parse().unwrap()).collect();
        let pw = |x: usize, k: usize| {
            let mut e = 0u32;
            for _ in 0..k {
                e = m.mul(e, phi[x]);
            }
            e
        };
        println!("{code}: {n}^a · {h}^b · {fixed:?} (a <= {a}), P marked");
        for i in 0..=amax.min(a) {
            let mut line = String::new();
            for b in 0..=bmax {
                let mut e = m.mul(pw(n, i), pw(h, b));
                for &f in &fixed {
                    e = m.mul(e, phi[f]);
                }
                line.push(if m.p[e as usize] { 'P' } else { '.' });
            }
            println!("a={i:3}: {line}");
        }
    }
}
