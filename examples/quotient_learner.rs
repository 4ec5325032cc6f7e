//! Experiment (issue 30): the quotient at heap `n` *learned* from exact outcomes instead of
//! searched for by freeing heaps. A Myhill–Nerode / L*-style learner (Angluin; counterexamples
//! handled as Rivest and Schapire do), with the closure of `nimseq::misere::quotient::closure`
//! as the equivalence test:
//!
//! - the *membership oracle* is the exact misère outcome of a position of heaps `0 … n`: a
//!   position without heap `n` by the verified `Q_{n−1}` (exact for it), one holding heap `n` by
//!   game-tree search with memoisation;
//! - the *observation table*: rows are positions (access words), columns a set `E` of
//!   contexts, an entry is the outcome of row + context; two positions with the same row are
//!   taken as one element. `E` starts as the least words of `Q_{n−1}`, each with `0 … x`
//!   copies of heap `n` (`ctx=` option), and `∅`;
//! - the *hypothesis*: from `∅`, breadth first, each element times each heap; a row not seen
//!   is a new element. The language is commutative, so the hypothesis must be too: when the
//!   maps of two heaps do not commute at some element, a context telling two positions apart
//!   is added (the L* consistency step). With commuting maps the elements form a commutative
//!   monoid (`a·b` = `a` with the heaps of `b`'s access word added); it is reduced and
//!   verified by the closure. A candidate that passes predicts every outcome of every
//!   position of heaps `0 … n`: reduced, it *is* `Q_n`. The learner only proposes;
//! - a failing position of the closure (its prediction breaks the misère rule there) gives a
//!   mispredicted position (it, or one of its options); along its heaps, the binary search of
//!   Rivest and Schapire finds the suffix that tells two positions with one row apart: it
//!   becomes a new context, which splits at least one element.
//!
//! `cargo run --release --example quotient_learner -- CODE N [ctx=1] [max=16384] [a=K] [bare]
//! [forms] [desc]` learns `Q_N` from `Q_{N−1}` (computed by the default search), printing each
//! round: `a=K` only the positions with at most `K` copies of heap `N` (verified by a closure
//! whose states count the copies), `bare` no contexts but `∅` at the start, `forms` canonical
//! forms as the oracle, `desc` the counterexample's heaps read from the largest.
//! `… -- check CODE N [secs=S] [verbose]` learns `Q_1 … Q_N` each from the default search's
//! `Q_{n−1}` and checks each against the default search's `Q_n` (order, |P|, and the map
//! between them by least words), stopping after `S` seconds.
//!
//! Measured (2026-11-28, `results/misere.md`, session 6): the same quotients as the default
//! search on 42 codes, but no further and much slower: the rows need exact outcomes of
//! positions with several large heaps or many copies of heap `N`, beyond game-tree search and
//! canonical forms at the frontier (0.6 at heap 17, even with one copy of heap 17).

// A tool for experiments: index loops over heaps read as the mathematics does.
#![allow(
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments
)]

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use nimseq::misere::quotient::closure::{Closure, ClosureError};
use nimseq::misere::quotient::{monoid, Monoid, QuotientSolver, Table};
use nimseq::misere::{FormId, MisereHeaps, ZERO};
use nimseq::rules::{for_each_option, MoveSet, Rule};

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
type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// Heaps a position may hold (0 … 47): its count of each, one byte a heap.
const HEAPS: usize = 48;
type Key = [u8; HEAPS];

fn plus(a: &Key, b: &Key) -> Key {
    let mut c = *a;
    for h in 0..HEAPS {
        c[h] = a[h]
            .checked_add(b[h])
            .expect("at most 255 copies of a heap");
    }
    c
}

fn key_of(heaps: &[usize]) -> Key {
    let mut k = [0u8; HEAPS];
    for &h in heaps {
        k[h] += 1;
    }
    k
}

fn heaps_of(k: &Key) -> Vec<usize> {
    let mut v = Vec::new();
    for h in (1..HEAPS).rev() {
        for _ in 0..k[h] {
            v.push(h);
        }
    }
    v
}

/// Exact misère outcomes of positions of heaps `0 … n`.
struct Oracle {
    n: usize,
    /// Options of each heap, moveless heaps left out of them.
    opts: Vec<Vec<Vec<usize>>>,
    q: Monoid,
    phi: Vec<u32>,
    /// Positions with more copies of heap `n` than this are taken as dead (never P): the
    /// language learned is then that of the positions with at most `bound` copies.
    bound: usize,
    memo: FxMap<Key, bool>,
    /// Misère canonical forms instead of the search (when given), with the form of each
    /// position asked about.
    forms: Option<(MisereHeaps, FxMap<Key, FormId>)>,
}

impl Oracle {
    fn new(moves: &MoveSet, n: usize, q: Monoid, phi: Vec<u32>, bound: usize) -> Oracle {
        let mut moveless = vec![false; n + 1];
        for x in 0..=n {
            let mut any = false;
            for_each_option(moves, x, |_| any = true);
            moveless[x] = !any;
        }
        let opts = (0..=n)
            .map(|x| {
                let mut v: Vec<Vec<usize>> = Vec::new();
                for_each_option(moves, x, |parts| {
                    v.push(parts.iter().copied().filter(|&y| !moveless[y]).collect());
                });
                v
            })
            .collect();
        Oracle {
            n,
            opts,
            q,
            phi,
            bound,
            memo: FxMap::default(),
            forms: None,
        }
    }

    fn element(&self, k: &Key) -> u32 {
        let mut e = 0u32;
        for h in 1..self.n {
            for _ in 0..k[h] {
                e = self.q.mul(e, self.phi[h]);
            }
        }
        e
    }

    /// The canonical form of `k` (the forms oracle).
    fn form(&mut self, k: &Key) -> FormId {
        let (heaps, cache) = self.forms.as_mut().expect("the forms oracle");
        if let Some(&f) = cache.get(k) {
            return f;
        }
        let Some(h) = (1..HEAPS).rev().find(|&h| k[h] > 0) else {
            return ZERO;
        };
        let mut rest = *k;
        rest[h] -= 1;
        let hf = heaps.heap_form(h).expect("forms");
        let rf = self.form(&rest);
        let (heaps, cache) = self.forms.as_mut().expect("the forms oracle");
        let f = heaps.forms_mut().add(rf, hf).expect("forms");
        cache.insert(*k, f);
        f
    }

    /// Is `a + b` a misère P-position?
    fn is_p_sum(&mut self, a: &Key, b: &Key) -> bool {
        let k = plus(a, b);
        if self.forms.is_none() || k[self.n] == 0 || k[self.n] as usize > self.bound {
            return self.is_p(&k);
        }
        let (fa, fb) = (self.form(a), self.form(b));
        let (heaps, _) = self.forms.as_mut().expect("the forms oracle");
        let f = heaps.forms_mut().add(fa, fb).expect("forms");
        heaps.forms().g_minus(f) == 0
    }

    fn known(&self) -> usize {
        self.memo.len() + self.forms.as_ref().map_or(0, |f| f.0.forms().len())
    }

    /// Is `k` a misère P-position?
    fn is_p(&mut self, k: &Key) -> bool {
        if self.forms.is_some() && k[self.n] != 0 && k[self.n] as usize <= self.bound {
            let f = self.form(k);
            let (heaps, _) = self.forms.as_ref().expect("the forms oracle");
            return heaps.forms().g_minus(f) == 0;
        }
        if k[self.n] == 0 {
            return self.q.p[self.element(k) as usize];
        }
        if k[self.n] as usize > self.bound {
            return false;
        }
        if let Some(&v) = self.memo.get(k) {
            return v;
        }
        let mut children = Vec::new();
        for h in (1..=self.n).rev() {
            if k[h] == 0 {
                continue;
            }
            for o in &self.opts[h] {
                let mut c = *k;
                c[h] -= 1;
                for &x in o {
                    c[x] += 1;
                }
                children.push(c);
            }
        }
        // Children decided without search first.
        let mut win = children.iter().any(|c| {
            if c[self.n] == 0 {
                self.q.p[self.element(c) as usize]
            } else {
                self.memo.get(c) == Some(&true)
            }
        });
        if !win {
            for c in &children {
                if c[self.n] != 0 && !self.memo.contains_key(c) && self.is_p(c) {
                    win = true;
                    break;
                }
            }
        }
        // A position holding heap n has a move (heap n is not moveless: it is a letter).
        let r = !win && !children.is_empty();
        self.memo.insert(*k, r);
        r
    }
}

/// The learner's table: contexts, and the row of each position asked about.
struct Learner {
    oracle: Oracle,
    letters: Vec<usize>,
    contexts: Vec<Key>,
    context_set: FxMap<Key, ()>,
    rows: FxMap<Key, Vec<u64>>,
    queries: u64,
    verbose: bool,
}

/// A hypothesis: elements (distinct rows) with their access words and the heaps' maps.
struct Hyp {
    access: Vec<Key>,
    parent: Vec<(u32, u32)>,
    delta: Vec<u32>,
    p: Vec<bool>,
}

enum Built {
    Hyp(Hyp),
    TooLarge,
}

impl Learner {
    fn add_context(&mut self, c: Key) -> bool {
        if self.context_set.insert(c, ()).is_none() {
            self.contexts.push(c);
            true
        } else {
            false
        }
    }

    fn row(&mut self, k: &Key) -> Vec<u64> {
        let e = self.contexts.len();
        // Bits are kept with the count of contexts known in a trailing word.
        let mut r = self.rows.remove(k).unwrap_or_default();
        let known = if r.is_empty() {
            0
        } else {
            r.pop().unwrap() as usize
        };
        r.resize(e.div_ceil(64), 0);
        for i in known..e {
            let c = self.contexts[i];
            self.queries += 1;
            if self.oracle.is_p_sum(k, &c) {
                r[i / 64] |= 1 << (i % 64);
            }
        }
        let out = r.clone();
        r.push(e as u64);
        self.rows.insert(*k, r);
        out
    }

    fn build(&mut self, max: usize) -> Built {
        let l = self.letters.len();
        let mut ids: FxMap<Vec<u64>, u32> = FxMap::default();
        let empty = [0u8; HEAPS];
        let r0 = self.row(&empty);
        ids.insert(r0.clone(), 0);
        let mut h = Hyp {
            access: vec![empty],
            parent: vec![(u32::MAX, u32::MAX)],
            delta: Vec::new(),
            p: vec![r0[0] & 1 != 0],
        };
        let mut i = 0;
        while i < h.access.len() {
            for li in 0..l {
                let mut t = h.access[i];
                t[self.letters[li]] += 1;
                let r = self.row(&t);
                let id = match ids.get(&r) {
                    Some(&id) => id,
                    None => {
                        let id = h.access.len() as u32;
                        if self.verbose && id % 256 == 255 {
                            eprintln!(
                                "    building: {} elements, {} contexts, {} queries, {} known",
                                id + 1,
                                self.contexts.len(),
                                self.queries,
                                self.oracle.known()
                            );
                        }
                        if id as usize >= max {
                            return Built::TooLarge;
                        }
                        h.p.push(r[0] & 1 != 0);
                        ids.insert(r, id);
                        h.access.push(t);
                        h.parent.push((i as u32, li as u32));
                        id
                    }
                };
                h.delta.push(id);
            }
            i += 1;
        }
        Built::Hyp(h)
    }

    /// A context that makes two heaps' maps commute where they do not, if any is needed.
    fn commutation_fix(&mut self, h: &Hyp) -> Option<Key> {
        let l = self.letters.len();
        for s in 0..h.access.len() {
            for a in 0..l {
                for b in a + 1..l {
                    let sa = h.delta[s * l + a] as usize;
                    let sb = h.delta[s * l + b] as usize;
                    let ab = h.delta[sa * l + b] as usize;
                    let ba = h.delta[sb * l + a] as usize;
                    if ab == ba {
                        continue;
                    }
                    let mut t = h.access[s];
                    t[self.letters[a]] += 1;
                    t[self.letters[b]] += 1;
                    let r = self.row(&t);
                    // Row of access[ab] = row of access[sa] + b.
                    let rab = self.row(&h.access[ab]);
                    let rba = self.row(&h.access[ba]);
                    for (e, heap_added) in [(&rab, self.letters[b]), (&rba, self.letters[a])] {
                        if let Some(i) = first_diff(e, &r) {
                            let mut c = self.contexts[i];
                            c[heap_added] += 1;
                            return Some(c);
                        }
                    }
                    unreachable!("the two rows differ, so one differs from the row of the sum");
                }
            }
        }
        None
    }
}

fn first_diff(a: &[u64], b: &[u64]) -> Option<usize> {
    for (w, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y {
            return Some(w * 64 + (x ^ y).trailing_zeros() as usize);
        }
    }
    None
}

/// The hypothesis as a monoid (the element of `access[a] + access[b]`), with heap elements.
fn to_monoid(h: &Hyp, letters: &[usize], n: usize) -> (Monoid, Vec<u32>) {
    let s = h.access.len();
    let l = letters.len();
    let mut table = vec![0u32; s * s];
    // Row b: row of b's parent, then b's last heap.
    for b in 0..s {
        if b == 0 {
            for a in 0..s {
                table[a] = a as u32;
            }
            continue;
        }
        let (pb, lb) = h.parent[b];
        for a in 0..s {
            let x = table[pb as usize * s + a] as usize;
            table[b * s + a] = h.delta[x * l + lb as usize];
        }
    }
    // Symmetric when the maps commute: the table above is [b][a]; transpose-free since equal.
    let words = h.access.iter().map(heaps_of).collect();
    let mut phi = vec![0u32; n + 1];
    for (li, &x) in letters.iter().enumerate() {
        phi[x] = h.delta[li];
    }
    (
        Monoid {
            order: s,
            table: Table::from_u32(s, table),
            p: h.p.clone(),
            words,
        },
        phi,
    )
}

/// `m` reduced by indistinguishability (the elements of the heaps as generators).
fn reduce(m: &Monoid, phi: &[u32]) -> (Monoid, Vec<u32>, Vec<u32>) {
    let mut gens: Vec<u32> = phi.iter().copied().filter(|&g| g != 0).collect();
    gens.sort_unstable();
    gens.dedup();
    let (class, count) = monoid::reduce(
        m.order,
        &|e| m.p[e],
        &|e, g| m.mul(e as u32, gens[g]) as usize,
        gens.len(),
    );
    let mut rep = vec![usize::MAX; count];
    for (e, &c) in class.iter().enumerate() {
        if rep[c as usize] == usize::MAX {
            rep[c as usize] = e;
        }
    }
    let mut table = vec![0u32; count * count];
    for c1 in 0..count {
        for c2 in 0..count {
            table[c1 * count + c2] = class[m.mul(rep[c1] as u32, rep[c2] as u32) as usize];
        }
    }
    let red = Monoid {
        order: count,
        table: Table::from_u32(count, table),
        p: rep.iter().map(|&e| m.p[e]).collect(),
        words: rep.iter().map(|&e| m.words[e].clone()).collect(),
    };
    let phi2 = phi.iter().map(|&g| class[g as usize]).collect();
    (red, phi2, class)
}

/// The closure over the positions with at most `a` copies of heap `n` (a set closed under
/// moves), its states also counting the copies: `Ok(states)` or the failing position
/// (`None`: more than `limit` states). A candidate passing it predicts every such position.
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
    // Distinct transitions (g, O(h), is n), first heap of each; heap n first.
    let mut trans: Vec<(u32, Vec<u32>, bool, usize)> = Vec::new();
    for h in (1..=n).rev() {
        let o = heap_options(moves, m, phi, h);
        let t = (phi[h], o, h == n, h);
        if !trans.iter().any(|x| x.0 == t.0 && x.1 == t.1 && x.2 == t.2) {
            trans.push(t);
        }
    }
    let mut states: Vec<Vec<u64>> = vec![vec![0u64; w + 1]];
    let mut parent: Vec<(usize, usize)> = vec![(usize::MAX, 0)];
    let mut index: FxMap<Vec<u64>, usize> = FxMap::default();
    index.insert(states[0].clone(), 0);
    let mut i = 0;
    let mut gathered: Vec<Vec<u64>> = vec![Vec::new(); q];
    while i < states.len() {
        let s = states[i].clone();
        let cnt = (s[0] & 0xff) as usize;
        let moved = (s[0] >> 8) & 1 == 1;
        let e = (s[0] >> 32) as usize;
        for g in gathered.iter_mut() {
            g.clear();
        }
        for (ti, (g, o, is_n, _)) in trans.iter().enumerate() {
            if *is_n && cnt >= a {
                continue;
            }
            let g = *g as usize;
            let e2 = m.table.get(e * q + g) as usize;
            if gathered[g].is_empty() {
                let mut sig = vec![0u64; w];
                for z in 0..q {
                    let gz = m.table.get(g * q + z) as usize;
                    if (s[1 + gz / 64] >> (gz % 64)) & 1 == 1 {
                        sig[z / 64] |= 1 << (z % 64);
                    }
                }
                gathered[g] = sig;
            }
            let mut sig = gathered[g].clone();
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

fn heap_options(moves: &MoveSet, m: &Monoid, phi: &[u32], h: usize) -> Vec<u32> {
    let mut out = Vec::new();
    for_each_option(moves, h, |parts| {
        out.push(parts.iter().fold(0u32, |e, &x| m.mul(e, phi[x])));
    });
    out.sort_unstable();
    out.dedup();
    out
}

/// Verifies `(m, phi)` over heaps `1 … n` (heap `n` and `first` first).
fn verify(
    moves: &MoveSet,
    m: &Monoid,
    phi: &[u32],
    first: &[usize],
    limit: usize,
) -> Result<Closure, ClosureError> {
    let n = phi.len() - 1;
    let mut c = Closure::new(m, limit);
    let mut order: Vec<usize> = Vec::new();
    for &h in first.iter().chain(&(1..=n).rev().collect::<Vec<_>>()) {
        if h >= 1 && !order.contains(&h) {
            order.push(h);
        }
    }
    for h in order {
        let o = heap_options(moves, m, phi, h);
        c.add_heap(h, phi[h], &o)?;
    }
    Ok(c)
}

struct Outcome {
    m: Monoid,
    phi: Vec<u32>,
    rounds: usize,
    contexts: usize,
    hyp_states: usize,
    states: usize,
}

/// Learns `Q_n` from the verified `Q_{n−1}` (`q`, `phi`).
fn learn(
    moves: &MoveSet,
    n: usize,
    q: &Monoid,
    phi: &[u32],
    ctx_powers: usize,
    max: usize,
    bound: usize,
    bare: bool,
    forms: Option<&Rule>,
    descending: bool,
    verbose: bool,
) -> Result<Outcome, String> {
    let started = Instant::now();
    let mut oracle = Oracle::new(moves, n, q.clone(), phi.to_vec(), bound);
    if let Some(rule) = forms {
        oracle.forms = Some((MisereHeaps::new(rule), FxMap::default()));
    }
    let letters: Vec<usize> = (1..=n).filter(|&h| !oracle.opts[h].is_empty()).collect();
    if !letters.contains(&n) {
        // A heap without a move is the empty game: the quotient does not change.
        let mut phi = phi.to_vec();
        phi.push(0);
        return Ok(Outcome {
            m: q.clone(),
            phi,
            rounds: 0,
            contexts: 0,
            hyp_states: 0,
            states: 0,
        });
    }
    let mut ln = Learner {
        oracle,
        letters,
        contexts: Vec::new(),
        context_set: FxMap::default(),
        rows: FxMap::default(),
        queries: 0,
        verbose,
    };
    ln.add_context([0u8; HEAPS]);
    for w in q.words.iter().filter(|_| !bare) {
        for j in 0..=ctx_powers.min(bound) {
            let mut k = key_of(w);
            k[n] += j as u8;
            ln.add_context(k);
        }
    }
    let mut failures: Vec<Vec<usize>> = Vec::new();
    for round in 1.. {
        let h = loop {
            let h = match ln.build(max) {
                Built::Hyp(h) => h,
                Built::TooLarge => {
                    return Err(format!(
                        "more than {max} elements (round {round}, {} contexts, {} memoised \
                         positions, {:.1} s)",
                        ln.contexts.len(),
                        ln.oracle.known(),
                        started.elapsed().as_secs_f64()
                    ))
                }
            };
            match ln.commutation_fix(&h) {
                Some(c) => {
                    if verbose && ln.contexts.len().is_multiple_of(16) {
                        eprintln!(
                            "    {} contexts, {} elements, {} memoised, last {:?}",
                            ln.contexts.len(),
                            h.access.len(),
                            ln.oracle.known(),
                            heaps_of(&c)
                        );
                    }
                    let added = ln.add_context(c);
                    assert!(added, "a commutation context already known");
                }
                None => break h,
            }
        };
        let (um, uphi) = to_monoid(&h, &ln.letters, n);
        let (m, mphi, class) = reduce(&um, &uphi);
        let t_ver = Instant::now();
        let last: Vec<usize> = failures.last().cloned().unwrap_or_default();
        let mut first = vec![n];
        first.extend(last);
        let verdict = if bound == usize::MAX {
            verify(moves, &m, &mphi, &first, 1 << 24).map(|c| c.len())
        } else {
            bounded_closure(moves, &m, &mphi, n, bound, 1 << 24).map_err(|e| match e {
                Some(p) => ClosureError::Inconsistent(p),
                None => ClosureError::TooMany,
            })
        };
        if verbose {
            // Rows pairwise distinct with the same copies of heap n: positions proved
            // pairwise distinguishable (exact outcomes), so a lower bound on |Q_n|.
            let mut per = vec![0usize; 256];
            for a in &h.access {
                per[a[n] as usize] += 1;
            }
            let per: Vec<usize> = per.into_iter().filter(|&c| c > 0).collect();
            eprintln!("    elements by copies of heap {n}: {per:?}");
            eprintln!(
                "  heap {n} round {round}: {} contexts, {} elements ({} reduced), {} queries, \
                 {} memoised, verify {:.2} s, total {:.1} s: {}",
                ln.contexts.len(),
                h.access.len(),
                m.order,
                ln.queries,
                ln.oracle.known(),
                t_ver.elapsed().as_secs_f64(),
                started.elapsed().as_secs_f64(),
                match &verdict {
                    Ok(c) => format!("passes ({c} states)"),
                    Err(ClosureError::Inconsistent(p)) => format!("fails at {p:?}"),
                    Err(e) => format!("{e:?}"),
                }
            );
        }
        let pos = match verdict {
            Ok(c) => {
                return Ok(Outcome {
                    m,
                    phi: mphi,
                    rounds: round,
                    contexts: ln.contexts.len(),
                    hyp_states: h.access.len(),
                    states: c,
                })
            }
            Err(ClosureError::Inconsistent(p)) => p,
            Err(e) => return Err(format!("verification: {e:?}")),
        };
        failures.push(pos.clone());
        // A mispredicted position: the failing one or one of its options.
        let pred = |k: &Key| {
            let mut e = 0u32;
            for x in 1..=n {
                for _ in 0..k[x] {
                    e = m.mul(e, mphi[x]);
                }
            }
            m.p[e as usize]
        };
        let g = key_of(&pos);
        let cex = if pred(&g) != ln.oracle.is_p(&g) {
            g
        } else {
            let mut found = None;
            'o: for x in 1..=n {
                if g[x] == 0 {
                    continue;
                }
                for o in ln.oracle.opts[x].clone() {
                    let mut c = g;
                    c[x] -= 1;
                    for &y in &o {
                        c[y] += 1;
                    }
                    if pred(&c) != ln.oracle.is_p(&c) {
                        found = Some(c);
                        break 'o;
                    }
                }
            }
            found.expect("a failing position or one of its options is mispredicted")
        };
        let _ = class;
        // Rivest–Schapire: along the heaps of cex, the state after a prefix, with the rest.
        let mut word = heaps_of(&cex);
        if !descending {
            word.reverse();
        }
        let l = ln.letters.len();
        let lidx = |x: usize, letters: &[usize]| letters.iter().position(|&y| y == x).unwrap();
        let mut states = vec![0usize];
        for &x in &word {
            let s = *states.last().unwrap();
            states.push(h.delta[s * l + lidx(x, &ln.letters)] as usize);
        }
        let suffix = |i: usize| key_of(&word[i..]);
        let alpha =
            |ln: &mut Learner, i: usize| ln.oracle.is_p_sum(&h.access[states[i]], &suffix(i));
        let (mut lo, mut hi) = (0usize, word.len());
        let a_lo = alpha(&mut ln, lo);
        debug_assert_ne!(a_lo, alpha(&mut ln, hi));
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if alpha(&mut ln, mid) == a_lo {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let added = ln.add_context(suffix(hi));
        assert!(added, "the counterexample's context is new");
    }
    unreachable!()
}

fn solver_upto(rule: &Rule, n: usize) -> QuotientSolver {
    let mut s = QuotientSolver::new(rule, 1 << 24);
    while s.count() < n {
        s.step()
            .expect("the default search reaches the heap before");
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let named = |key: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(key).and_then(|v| v.parse::<usize>().ok()))
    };
    let ctx = named("ctx=").unwrap_or(1);
    let max = named("max=").unwrap_or(1 << 14);
    let bound = named("a=").unwrap_or(usize::MAX);
    let bare = args.iter().any(|a| a == "bare");
    let forms = args.iter().any(|a| a == "forms");
    let secs = named("secs=").unwrap_or(u64::MAX as usize) as u64;
    let desc = args.iter().any(|a| a == "desc");
    let verbose = args.iter().any(|a| a == "verbose");
    let work = move || {
        if args[1] == "check" {
            let rule = Rule::parse(&args[2]).expect("a code");
            let top: usize = args[3].parse().expect("a heap");
            let moves = rule.moves(top.max(16));
            let mut s = QuotientSolver::new(&rule, 1 << 24);
            let started = Instant::now();
            while s.count() <= top && s.certified().is_none() {
                if started.elapsed().as_secs() >= secs {
                    break;
                }
                let n = s.count();
                let (q, phi) = (s.monoid().clone(), s.phi().to_vec());
                let t = Instant::now();
                let got = learn(
                    &moves,
                    n,
                    &q,
                    &phi,
                    ctx,
                    max,
                    bound,
                    bare,
                    forms.then_some(&rule),
                    desc,
                    verbose,
                );
                let ms = t.elapsed().as_millis();
                if let Err(e) = s.step() {
                    println!("{} heap {n}: the default search stops ({e})", rule.code());
                    if let Ok(o) = got {
                        println!(
                            "  learner: order {} in {} rounds, {ms} ms",
                            o.m.order, o.rounds
                        );
                    }
                    return;
                }
                let o = match got {
                    Ok(o) => o,
                    Err(e) => {
                        println!("{} heap {n}: MISMATCH: learner {e}", rule.code());
                        std::process::exit(1);
                    }
                };
                let (sm, sphi) = (s.monoid(), s.phi());
                // The map learner element -> solver element by least words.
                let mut map = vec![u32::MAX; o.m.order];
                let mut ok = o.m.order == sm.order;
                for a in 0..o.m.order {
                    let e = o.m.words[a].iter().fold(0u32, |e, &x| sm.mul(e, sphi[x]));
                    map[a] = e;
                    ok &= sm.p[e as usize] == o.m.p[a];
                }
                let mut seen = map.clone();
                seen.sort_unstable();
                seen.dedup();
                ok &= seen.len() == o.m.order;
                ok &= (0..=n).all(|h| map[o.phi[h] as usize] == sphi[h]);
                if !ok {
                    println!(
                        "{} heap {n}: MISMATCH: learner order {}, default {}",
                        rule.code(),
                        o.m.order,
                        sm.order
                    );
                    std::process::exit(1);
                }
                eprintln!("{} heap {n}: agree (order {})", rule.code(), o.m.order);
                if o.rounds > 1 || n == top || ms > 1000 {
                    println!(
                        "{} heap {n}: order {} |P| {}: {} rounds, {} contexts, {} hypothesis \
                         elements, {} states, {ms} ms",
                        rule.code(),
                        o.m.order,
                        o.m.p.iter().filter(|&&b| b).count(),
                        o.rounds,
                        o.contexts,
                        o.hyp_states,
                        o.states
                    );
                }
            }
            println!(
                "{}: agree to heap {} ({}certified), {:.1} s",
                rule.code(),
                s.count() - 1,
                if s.certified().is_some() { "" } else { "not " },
                started.elapsed().as_secs_f64()
            );
            return;
        }
        let rule = Rule::parse(&args[1]).expect("a code");
        let n: usize = args[2].parse().expect("a heap");
        let s = solver_upto(&rule, n);
        let moves = rule.moves(n.max(16));
        eprintln!("Q_{} order {}", n - 1, s.monoid().order);
        let t = Instant::now();
        match learn(
            &moves,
            n,
            s.monoid(),
            s.phi(),
            ctx,
            max,
            bound,
            bare,
            forms.then_some(&rule),
            desc,
            true,
        ) {
            Ok(o) => println!(
                "{} heap {n}: order {} |P| {} verified ({} states), {} rounds, {:.1} s",
                rule.code(),
                o.m.order,
                o.m.p.iter().filter(|&&b| b).count(),
                o.states,
                o.rounds,
                t.elapsed().as_secs_f64()
            ),
            Err(e) => println!("{} heap {n}: not learned: {e}", rule.code()),
        }
    };
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(work)
        .expect("a thread")
        .join()
        .expect("the learner");
}
