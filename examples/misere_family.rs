//! Scratch: exact misère outcomes of positions `n^a · h^b · (fixed heaps)` at a quotient's
//! frontier heap `n`, by game-tree search over multisets of heaps with memoisation. Positions
//! without heap `n` are decided by the verified quotient of heaps `0 … n−1` (exact for them);
//! only positions holding heap `n` are searched and memoised.
//!
//! Checked against `nimseq play CODE HEAPS --misere` (canonical forms, an independent method)
//! on every position quoted in `results/misere.md` ("0.6 at heap 17").
//!
//! `cargo run --release --example misere_family -- CODE N H AMAX BMAX [fixed heaps…]`
//! prints a grid: row `a`, column `b`, `P` where `n^a · h^b · fixed` is a misère P-position.
//! `… CODE N classes T J [fixed…]`: every position `Y` of heaps below `n` with at most `T`
//! tokens, grouped by its element of `Q_{n−1}` and its outcomes with `0 … J` copies of heap
//! `n` added; prints the elements that heap `n` splits. `… CODE N lower T I J TZ`: positions
//! `n^i·Y` (`Y` of at most `T` tokens, `i ≤ I`) told apart by contexts `n^j·Z` (`j ≤ J`, `Z`
//! of at most `TZ` tokens): a lower bound on the order of `Q_n`. `… CODE N separate K TZ
//! [pure]`: for every `i < j ≤ K`, the first context `Z` (fewest tokens) of heaps below `n`
//! with at most `TZ` tokens such that `n^i·Z` and `n^j·Z` have different outcomes, which
//! proves `n^i` and `n^j` distinct elements of `Q_n` (so `x = Φ(n)` has no relation
//! `x^(a+p) = x^a` with `a + p ≤ K` when every pair is separated); with `pure`, every
//! outcome by the game tree alone, without `Q_{n−1}` (an independent check, for small
//! positions).

// A tool for experiments: index loops over heaps read as the mathematics does.
#![allow(clippy::needless_range_loop, clippy::type_complexity)]

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use nimseq::misere::quotient::QuotientSolver;
use nimseq::rules::{for_each_option, Rule};

#[derive(Default)]
struct Fx(u64);
impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

const W: usize = 6; // up to 48 heaps, 8 bits a count
type Key = [u64; W];

fn get(k: &Key, h: usize) -> u64 {
    (k[h / 8] >> (8 * (h % 8))) & 0xff
}
fn add(k: &mut Key, h: usize, d: i64) {
    let c = get(k, h) as i64 + d;
    assert!((0..256).contains(&c), "count overflow");
    k[h / 8] &= !(0xff << (8 * (h % 8)));
    k[h / 8] |= (c as u64) << (8 * (h % 8));
}

struct Search {
    n: usize,
    /// Options of each heap, moveless heaps left out.
    opts: Vec<Vec<Vec<usize>>>,
    order: usize,
    table: Vec<u32>,
    p: Vec<bool>,
    phi: Vec<u32>,
    memo: HashMap<Key, bool, BuildHasherDefault<Fx>>,
    /// Search positions without heap `n` too, instead of reading them off `Q_{n−1}`.
    pure: bool,
}

impl Search {
    fn small_p(&self, k: &Key) -> bool {
        let mut e = 0u32;
        for h in 1..self.n {
            for _ in 0..get(k, h) {
                e = self.table[e as usize * self.order + self.phi[h] as usize];
            }
        }
        self.p[e as usize]
    }

    /// True when `k` is a misère P-position.
    fn is_p(&mut self, k: &Key) -> bool {
        if get(k, self.n) == 0 && !self.pure {
            return self.small_p(k);
        }
        if let Some(&v) = self.memo.get(k) {
            return v;
        }
        let mut children = Vec::new();
        for h in (1..=self.n).rev() {
            if get(k, h) == 0 {
                continue;
            }
            for o in &self.opts[h] {
                let mut c = *k;
                add(&mut c, h, -1);
                for &x in o {
                    add(&mut c, x, 1);
                }
                children.push(c);
            }
        }
        // Cheap children first: decided without search.
        let mut win = false;
        for c in &children {
            let known = if get(c, self.n) == 0 && !self.pure {
                Some(self.small_p(c))
            } else {
                self.memo.get(c).copied()
            };
            if known == Some(true) {
                win = true;
                break;
            }
        }
        if !win {
            // A child may have been memoised since the first look (as a descendant of one
            // searched before it): `is_p` reads the memo first, so every child is looked at.
            // (Skipping the memoised ones here, as this loop did before, missed winning moves.)
            for c in &children {
                if (get(c, self.n) != 0 || self.pure) && self.is_p(c) {
                    win = true;
                    break;
                }
            }
        }
        // A position without a move is N (every position holding heap n has one).
        let r = !win && !children.is_empty();
        self.memo.insert(*k, r);
        r
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = &args[1];
    let n: usize = args[2].parse().unwrap();
    let classes = args[3] == "classes";
    let lower = args[3] == "lower";
    let separate = args[3] == "separate";
    let h: usize = if classes || lower || separate {
        0
    } else {
        args[3].parse().unwrap()
    };
    let amax: usize = args[4].parse().unwrap();
    let bmax: usize = args[5].parse().unwrap();
    let pure = args.last().is_some_and(|a| a == "pure");
    let fixed: Vec<usize> = args[6..]
        .iter()
        .filter(|a| *a != "pure")
        .map(|a| a.parse().unwrap())
        .collect();
    let rule = Rule::parse(code).unwrap();
    let mut s = QuotientSolver::new(&rule, 1 << 24);
    while s.count() < n {
        s.step().unwrap();
    }
    let m = s.monoid().clone();
    eprintln!("Q_{} order {}", n - 1, m.order);
    let moves = rule.moves(n);
    let mut moveless = vec![false; n + 1];
    let mut opts = vec![Vec::new(); n + 1];
    for x in 0..=n {
        let mut any = false;
        for_each_option(&moves, x, |_| any = true);
        moveless[x] = !any;
    }
    for x in 0..=n {
        let mut v: Vec<Vec<usize>> = Vec::new();
        for_each_option(&moves, x, |parts| {
            v.push(parts.iter().copied().filter(|&y| !moveless[y]).collect());
        });
        opts[x] = v;
    }
    let mut srch = Search {
        n,
        opts,
        order: m.order,
        table: m.table.to_u32(),
        p: m.p.clone(),
        phi: s.phi().to_vec(),
        memo: HashMap::default(),
        pure,
    };
    let t = std::time::Instant::now();
    let small: Vec<usize> = (1..n).filter(|&x| !moveless[x]).collect();
    let upto = |tmax: usize| {
        let mut ys: Vec<Vec<usize>> = vec![Vec::new()];
        let mut i = 0;
        while i < ys.len() {
            let y = ys[i].clone();
            let tot: usize = y.iter().sum();
            let lo = y.last().copied().unwrap_or(0);
            for &x in &small {
                if x >= lo && tot + x <= tmax {
                    let mut z = y.clone();
                    z.push(x);
                    ys.push(z);
                }
            }
            i += 1;
        }
        ys
    };
    if separate {
        // For each i < j <= K, the first Z (fewest tokens) separating n^i·Z from n^j·Z.
        let (kmax, tz) = (amax, bmax);
        let mut zs = upto(tz);
        zs.sort_by_key(|z| (z.iter().sum::<usize>(), z.clone()));
        let mut all = true;
        for j in 1..=kmax {
            for i in 0..j {
                let outcome = |srch: &mut Search, c: usize, z: &[usize]| {
                    let mut k = [0u64; W];
                    add(&mut k, n, c as i64);
                    for &x in z {
                        add(&mut k, x, 1);
                    }
                    srch.is_p(&k)
                };
                let found = zs
                    .iter()
                    .find(|z| outcome(&mut srch, i, z) != outcome(&mut srch, j, z));
                match found {
                    Some(z) => {
                        let pi = outcome(&mut srch, i, z);
                        println!(
                            "{n}^{i} vs {n}^{j}: Z = {z:?} ({} tokens): {n}^{i}·Z is {}, {n}^{j}·Z is {} \
                             ({} memoised, {:.1} s)",
                            z.iter().sum::<usize>(),
                            if pi { 'P' } else { 'N' },
                            if pi { 'N' } else { 'P' },
                            srch.memo.len(),
                            t.elapsed().as_secs_f64()
                        );
                    }
                    None => {
                        all = false;
                        println!("{n}^{i} vs {n}^{j}: no Z of <= {tz} tokens separates them");
                    }
                }
            }
        }
        println!(
            "{}: {n}^0 .. {n}^{kmax} {} ({} contexts of <= {tz} tokens{})",
            code,
            if all {
                "pairwise separated"
            } else {
                "not all separated"
            },
            zs.len(),
            if pure {
                ", every outcome by the game tree"
            } else {
                ""
            }
        );
        return;
    }
    if lower {
        // A lower bound on |Q_n|: elements n^i·Y (i <= I, Y of <= T tokens in heaps < n),
        // contexts n^j·Z (j <= J, Z of <= TZ tokens); distinct rows of outcomes are pairwise
        // distinguishable positions. Args: T I J TZ.
        let tmax = amax;
        let imax = bmax;
        let jmax: usize = args[6].parse().unwrap();
        let tz: usize = args[7].parse().unwrap();
        let ys = upto(tmax);
        let zs = upto(tz);
        let mut rows: HashMap<Vec<bool>, (usize, Vec<usize>)> = HashMap::new();
        let mut per_i = vec![0usize; imax + 1];
        for i in 0..=imax {
            for y in &ys {
                let mut row = Vec::with_capacity((jmax + 1) * zs.len());
                for j in 0..=jmax {
                    for z in &zs {
                        let mut k = [0u64; W];
                        add(&mut k, n, (i + j) as i64);
                        for &x in y.iter().chain(z.iter()) {
                            add(&mut k, x, 1);
                        }
                        row.push(srch.is_p(&k));
                    }
                }
                if let std::collections::hash_map::Entry::Vacant(v) = rows.entry(row) {
                    per_i[i] += 1;
                    v.insert((i, y.clone()));
                }
            }
            println!(
                "i <= {i}: {} pairwise distinguishable ({} new with {n}^{i}); {} memoised, {:.1} s",
                rows.len(),
                per_i[i],
                srch.memo.len(),
                t.elapsed().as_secs_f64()
            );
        }
        println!(
            "{} positions Y of <= {tmax} tokens, {} contexts Z of <= {tz} tokens, j <= {jmax}",
            ys.len(),
            zs.len()
        );
        return;
    }
    if classes {
        // Every multiset Y of heaps 2 .. n-1 (with moves) of at most `amax` tokens: its element
        // in Q_{n-1} and its outcomes with j = 1 ..= bmax copies of heap n (and the fixed heaps).
        let small: Vec<usize> = (1..n).filter(|&x| !moveless[x]).collect();
        let mut ys: Vec<Vec<usize>> = vec![Vec::new()];
        let mut i = 0;
        while i < ys.len() {
            let y = ys[i].clone();
            let tot: usize = y.iter().sum();
            let lo = y.last().copied().unwrap_or(0);
            for &x in &small {
                if x >= lo && tot + x <= amax {
                    let mut z = y.clone();
                    z.push(x);
                    ys.push(z);
                }
            }
            i += 1;
        }
        let mut by: HashMap<(u32, Vec<bool>), Vec<Vec<usize>>> = HashMap::new();
        for y in &ys {
            let mut k = [0u64; W];
            for &x in y {
                add(&mut k, x, 1);
            }
            for &f in &fixed {
                if !moveless[f] {
                    add(&mut k, f, 1);
                }
            }
            let mut e = 0u32;
            for &x in y {
                e = srch.table[e as usize * srch.order + srch.phi[x] as usize];
            }
            let mut sig = Vec::new();
            for _ in 0..=bmax {
                sig.push(srch.is_p(&k));
                add(&mut k, n, 1);
            }
            by.entry((e, sig)).or_default().push(y.clone());
        }
        let mut per: HashMap<u32, Vec<(Vec<bool>, Vec<usize>)>> = HashMap::new();
        for ((e, sig), v) in &by {
            per.entry(*e).or_default().push((sig.clone(), v[0].clone()));
        }
        let mut es: Vec<_> = per.into_iter().collect();
        es.sort();
        let split = es.iter().filter(|(_, v)| v.len() > 1).count();
        println!(
            "{} positions of <= {amax} tokens, {} elements met, {} split by n^1..n^{bmax}, \
             {} classes; {} memoised, {:.1} s",
            ys.len(),
            es.len(),
            split,
            by.len(),
            srch.memo.len(),
            t.elapsed().as_secs_f64()
        );
        for (e, mut v) in es {
            if v.len() > 1 {
                v.sort();
                let show: Vec<String> = v
                    .iter()
                    .map(|(s, w)| {
                        let s: String = s.iter().map(|&b| if b { 'P' } else { '.' }).collect();
                        format!("{s} {w:?}")
                    })
                    .collect();
                println!(
                    "  element {e} (least word {:?}): {}",
                    m.words[e as usize],
                    show.join(" | ")
                );
            }
        }
        return;
    }
    println!("{code}: {n}^a · {h}^b · {fixed:?}, P marked");
    for a in 0..=amax {
        let mut line = String::new();
        for b in 0..=bmax {
            let mut k = [0u64; W];
            add(&mut k, n, a as i64);
            if !moveless[h] {
                add(&mut k, h, b as i64);
            }
            for &f in &fixed {
                if !moveless[f] {
                    add(&mut k, f, 1);
                }
            }
            line.push(if srch.is_p(&k) { 'P' } else { '.' });
        }
        println!(
            "a={a:3}: {line}   ({} positions memoised, {:.1} s)",
            srch.memo.len(),
            t.elapsed().as_secs_f64()
        );
    }
}
