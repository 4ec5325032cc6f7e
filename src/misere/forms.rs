//! Misère canonical forms of impartial games, interned as nodes of one DAG.
//!
//! # The theory used (Conway, *On Numbers and Games*, ch. 12)
//!
//! In misère play `G` is *like* `H` (`G = H`) when `o⁻(G + T) = o⁻(H + T)` for every game `T`,
//! and `G` is *linked* to `H` when `G + T` and `H + T` are both misère P-positions for some `T`.
//!
//! - **Theorem 75.** `G` is like `H` if and only if (i) `G` is linked to no option of `H`,
//!   (ii) `H` is linked to no option of `G`, and (iii) `G` and `H` have the same outcome if
//!   either is `0`.
//! - **Theorem 76.** `G` is linked to `H` if and only if (i) `G` is like no option of `H` and
//!   (ii) `H` is like no option of `G`.
//! - **Simplest form** (Grundy's rule, with Conway's proof that it is the only one, Theorem 77):
//!   at a position `H`, options may be deleted to leave `K` exactly when `K` is an option of
//!   each deleted option, and, if `K` is `0`, `H` was an N-position (the *proviso*). Two like
//!   games in simplest form are identical.
//!
//! # The algorithm
//!
//! Every node here is in simplest form, so *like* between two nodes is identity of their ids.
//! A new game `H` is presented by its options, already canonical. If `H` can be simplified, its
//! simplest form `K` is one of its second options (ONAG ch. 12, observation (ii) after the
//! Grundy principle), and then `K` is like `H`; otherwise no option of `H` is reversible and,
//! by Theorem 77, `H` is already in simplest form. So [`Forms::canonical`] tests each second
//! option `K` for likeness with `H`, using Theorems 75 and 76 with identity on canonical nodes:
//!
//! `K` is like `H` iff `g⁻(K) = g⁻(H)` (a necessary condition, and it covers (iii)), every
//! `H'` is an option of `K` or has `K` as an option, and every `K'` is an option of `H` or has
//! an option `K''` like `H` (recursively, memoized for this `H`).
//!
//! The proviso needs no special case: for `K = 0` the test above reads "every option of `H`
//! has `0` as an option and `g⁻(H) = 1`", which is exactly when the deletion is allowed.
//!
//! Disjunctive sums of canonical forms are canonicalized recursively and memoized
//! ([`Forms::add`]). Each node also carries its normal-play value `g⁺`, its misère value `g⁻`,
//! its genus sequence (see [`crate::misere::genus`]) and whether it is hereditarily tame.

use std::collections::HashMap;
use std::hash::Hasher;

use super::genus::{self, Genus};
use super::MisereError;
use crate::fxhash::{FxBuild, FxHasher};
use crate::mex::mex;

/// The id of a canonical form: an index into [`Forms`]. Equal ids ⇔ like games.
pub type FormId = u32;

/// The empty game `0`, always id 0.
pub const ZERO: FormId = 0;

type IdMap<K, V> = HashMap<K, V, FxBuild>;

/// Hash of a sorted option list.
fn hash_options(options: &[FormId]) -> u64 {
    let mut h = FxHasher::default();
    h.write_usize(options.len());
    for &o in options {
        h.write_u32(o);
    }
    h.finish() | 1
}

const NONE: u32 = u32::MAX;

/// The table of all misère canonical forms met so far, with memoized sums.
#[derive(Debug)]
pub struct Forms {
    /// Options of node `i` are `pool[starts[i]..starts[i + 1]]`, sorted by id.
    pool: Vec<FormId>,
    starts: Vec<usize>,
    g_minus: Vec<u32>,
    g_plus: Vec<u32>,
    birthday: Vec<u32>,
    /// Genus superscripts, written as in [`Genus`]: `lam_pool[lam_starts[i]..lam_starts[i+1]]`.
    lam_pool: Vec<u32>,
    lam_starts: Vec<usize>,
    tame: Vec<bool>,
    /// `n` if the node is the nim heap `*n`, else `NONE`.
    nim: Vec<u32>,
    /// Interning: hash of the option list → first node with that hash; `chain` links the rest.
    index: IdMap<u64, FormId>,
    chain: Vec<FormId>,
    sums: IdMap<u64, FormId>,
    limit: usize,
    /// Work done so far (options looked at and likeness tests), and the most allowed.
    work: std::cell::Cell<u64>,
    max_work: u64,
}

impl Default for Forms {
    fn default() -> Self {
        Forms::new()
    }
}

impl Forms {
    /// A table holding only `0`, with no limit on its size.
    pub fn new() -> Forms {
        Forms::with_limit(usize::MAX)
    }

    /// A table that refuses to hold more than `limit` canonical forms
    /// ([`MisereError::TooLarge`]).
    pub fn with_limit(limit: usize) -> Forms {
        Forms::with_budget(limit, u64::MAX)
    }

    /// A table that refuses to hold more than `limit` canonical forms or to do more than
    /// `max_work` units of work ([`MisereError::TooLarge`] with `limit`): one unit per option of
    /// a game being simplified and per likeness test. The number of forms alone does not bound
    /// the time: simplifying a sum of large forms costs more per form (about a microsecond per
    /// unit), and a budget of work answers in bounded time.
    pub fn with_budget(limit: usize, max_work: u64) -> Forms {
        let mut f = Forms {
            pool: Vec::new(),
            starts: vec![0],
            g_minus: Vec::new(),
            g_plus: Vec::new(),
            birthday: Vec::new(),
            lam_pool: Vec::new(),
            lam_starts: vec![0],
            tame: Vec::new(),
            nim: Vec::new(),
            index: IdMap::default(),
            chain: Vec::new(),
            sums: IdMap::default(),
            limit: limit.max(1),
            work: std::cell::Cell::new(0),
            max_work,
        };
        let zero = f.intern(Vec::new()).expect("room for 0");
        debug_assert_eq!(zero, ZERO);
        f
    }

    /// How many canonical forms the table holds.
    pub fn len(&self) -> usize {
        self.g_minus.len()
    }

    /// Always false: `0` is always present.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Units of work done so far (see [`Forms::with_budget`]).
    pub fn work(&self) -> u64 {
        self.work.get()
    }

    /// How many sums are memoized.
    pub fn sums_memoized(&self) -> usize {
        self.sums.len()
    }

    /// Approximate bytes used by the table.
    pub fn bytes(&self) -> usize {
        self.pool.capacity() * 4
            + self.starts.capacity() * 8
            + self.lam_pool.capacity() * 4
            + self.lam_starts.capacity() * 8
            + self.len() * (4 + 4 + 4 + 1 + 4 + 4)
            + (self.index.capacity() + self.sums.capacity()) * 16
    }

    /// The options of a canonical form, sorted by id.
    #[inline]
    pub fn options(&self, g: FormId) -> &[FormId] {
        let g = g as usize;
        &self.pool[self.starts[g]..self.starts[g + 1]]
    }

    /// The misère Grundy value `g⁻`: 1 for `0`, else the mex of the options' values.
    /// `g⁻(G) = 0` exactly when `G` is a misère P-position.
    #[inline]
    pub fn g_minus(&self, g: FormId) -> u32 {
        self.g_minus[g as usize]
    }

    /// The normal-play Grundy value `g⁺` (the mex of the options' `g⁺`).
    #[inline]
    pub fn g_plus(&self, g: FormId) -> u32 {
        self.g_plus[g as usize]
    }

    /// The birthday (height of the game tree of the simplest form).
    pub fn birthday(&self, g: FormId) -> u32 {
        self.birthday[g as usize]
    }

    /// The genus superscript `λ0 λ1 …`, written up to the point where its last two entries
    /// alternate forever (at least two entries).
    #[inline]
    pub fn lambdas(&self, g: FormId) -> &[u32] {
        let g = g as usize;
        &self.lam_pool[self.lam_starts[g]..self.lam_starts[g + 1]]
    }

    /// The genus `g⁺^(λ0 λ1 …)`.
    pub fn genus(&self, g: FormId) -> Genus {
        Genus {
            g_plus: self.g_plus(g),
            lambdas: self.lambdas(g).to_vec(),
        }
    }

    /// Is every position of the simplest form (itself included) of tame genus
    /// (`0^120`, `1^031` or `n^(n, n⊕2)`)? This is ONAG's "tame" (ch. 12), applied to the
    /// simplest form.
    #[inline]
    pub fn is_tame(&self, g: FormId) -> bool {
        self.tame[g as usize]
    }

    /// The canonical form of the nim heap `*n`.
    pub fn nim(&mut self, n: u32) -> Result<FormId, MisereError> {
        // *n = {0, *, ..., *(n-1)}; all of these are in simplest form (ONAG Theorem 72).
        let mut opts = Vec::with_capacity(n as usize);
        let mut last = ZERO;
        for _ in 0..n {
            opts.push(last);
            last = self.canonical(opts.clone())?;
        }
        Ok(last)
    }

    /// Is `x` an option of the canonical form `g`?
    #[inline]
    fn has_option(&self, g: FormId, x: FormId) -> bool {
        self.options(g).binary_search(&x).is_ok()
    }

    fn lookup(&self, options: &[FormId], hash: u64) -> Option<FormId> {
        let mut id = *self.index.get(&hash)?;
        while id != NONE {
            if self.options(id) == options {
                return Some(id);
            }
            id = self.chain[id as usize];
        }
        None
    }

    /// Adds a node known to be in simplest form (sorted, deduplicated canonical options).
    fn intern(&mut self, options: Vec<FormId>) -> Result<FormId, MisereError> {
        let hash = hash_options(&options);
        if let Some(id) = self.lookup(&options, hash) {
            return Ok(id);
        }
        if self.len() >= self.limit {
            return Err(MisereError::TooLarge { limit: self.limit });
        }
        let id = FormId::try_from(self.len())
            .ok()
            .filter(|&i| i != NONE)
            .ok_or(MisereError::TooLarge { limit: self.len() })?;
        let g_minus = if options.is_empty() {
            1
        } else {
            mex(options.iter().map(|&o| self.g_minus(o)))
        };
        let g_plus = mex(options.iter().map(|&o| self.g_plus(o)));
        let birthday = options
            .iter()
            .map(|&o| self.birthday(o) + 1)
            .max()
            .unwrap_or(0);
        let lambdas = genus::lambdas_from_options(
            options.iter().map(|&o| self.lambdas(o)),
            options.is_empty(),
        )?;
        let tame =
            genus::is_tame_genus(g_plus, &lambdas) && options.iter().all(|&o| self.is_tame(o));

        let nim = {
            let mut seen = vec![false; options.len()];
            let all = options.iter().all(|&o| {
                let n = self.nim[o as usize] as usize;
                n < seen.len() && !std::mem::replace(&mut seen[n], true)
            });
            if all {
                options.len() as u32
            } else {
                NONE
            }
        };
        self.nim.push(nim);
        self.pool.extend_from_slice(&options);
        self.starts.push(self.pool.len());
        self.lam_pool.extend_from_slice(&lambdas);
        self.lam_starts.push(self.lam_pool.len());
        self.g_minus.push(g_minus);
        self.g_plus.push(g_plus);
        self.birthday.push(birthday);
        self.tame.push(tame);
        let head = self.index.insert(hash, id).unwrap_or(NONE);
        self.chain.push(head);
        Ok(id)
    }

    /// The simplest form of the game whose options are the canonical forms `options`
    /// (in any order, repeats allowed).
    pub fn canonical(&mut self, mut options: Vec<FormId>) -> Result<FormId, MisereError> {
        let work = self.work.get().saturating_add(options.len() as u64);
        if work > self.max_work {
            return Err(MisereError::TooLarge { limit: self.limit });
        }
        self.work.set(work);
        options.sort_unstable();
        options.dedup();
        if options.is_empty() {
            return Ok(ZERO);
        }
        if let Some(id) = self.lookup(&options, hash_options(&options)) {
            // Already interned, hence already in simplest form.
            return Ok(id);
        }
        let g_minus_h = mex(options.iter().map(|&o| self.g_minus(o)));
        let mut memo: IdMap<FormId, bool> = IdMap::default();
        for &o in &options {
            for &k in self.options(o) {
                if self.like(k, &options, g_minus_h, &mut memo) {
                    return Ok(k);
                }
            }
        }
        self.intern(options)
    }

    /// Is the canonical form `k` like the game `H` whose canonical options are `h` (sorted)
    /// and whose misère value is `g_minus_h`? (Theorems 75 and 76; see the module docs.)
    fn like(
        &self,
        k: FormId,
        h: &[FormId],
        g_minus_h: u32,
        memo: &mut IdMap<FormId, bool>,
    ) -> bool {
        if self.g_minus(k) != g_minus_h {
            return false;
        }
        if let Some(&known) = memo.get(&k) {
            return known;
        }
        // Counted here, checked by the next `canonical` (a likeness test is never cut short).
        self.work.set(self.work.get().saturating_add(1));
        let result = h
            .iter()
            .all(|&hp| self.has_option(hp, k) || self.has_option(k, hp))
            && self.options(k).iter().all(|&kp| {
                h.binary_search(&kp).is_ok()
                    || self
                        .options(kp)
                        .iter()
                        .any(|&kpp| self.like(kpp, h, g_minus_h, memo))
            });
        memo.insert(k, result);
        result
    }

    /// The simplest form of the disjunctive sum `a + b` (memoized).
    pub fn add(&mut self, a: FormId, b: FormId) -> Result<FormId, MisereError> {
        if a == ZERO {
            return Ok(b);
        }
        if b == ZERO {
            return Ok(a);
        }
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let key = (a as u64) << 32 | b as u64;
        if let Some(&s) = self.sums.get(&key) {
            return Ok(s);
        }
        let na = self.options(a).len();
        let nb = self.options(b).len();
        let mut opts = Vec::with_capacity(na + nb);
        for i in 0..na {
            let ap = self.options(a)[i];
            opts.push(self.add(ap, b)?);
        }
        for i in 0..nb {
            let bp = self.options(b)[i];
            opts.push(self.add(a, bp)?);
        }
        let s = self.canonical(opts)?;
        self.sums.insert(key, s);
        Ok(s)
    }

    /// The simplest form of a sum of several canonical forms.
    pub fn add_all(&mut self, parts: &[FormId]) -> Result<FormId, MisereError> {
        let mut total = ZERO;
        for &p in parts {
            total = self.add(total, p)?;
        }
        Ok(total)
    }

    /// A readable form: nim heaps as their size, other games as `{options}`, e.g. `{2,{2,1}}`.
    pub fn describe(&self, g: FormId) -> String {
        if let Some(n) = self.nim_size(g) {
            return n.to_string();
        }
        let parts: Vec<String> = self.options(g).iter().map(|&o| self.describe(o)).collect();
        format!("{{{}}}", parts.join(","))
    }

    /// `Some(n)` if the canonical form is the nim heap `*n`.
    #[inline]
    pub fn nim_size(&self, g: FormId) -> Option<u32> {
        let n = self.nim[g as usize];
        (n != NONE).then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nim_heaps_and_values() {
        let mut f = Forms::new();
        let star = f.nim(1).unwrap();
        let two = f.nim(2).unwrap();
        assert_eq!(f.g_minus(ZERO), 1);
        assert_eq!(f.g_minus(star), 0);
        assert_eq!(f.g_minus(two), 2);
        assert_eq!(f.g_plus(two), 2);
        assert_eq!(f.nim_size(two), Some(2));
        assert_eq!(f.describe(ZERO), "0");
    }

    #[test]
    fn onag_theorem_72_examples() {
        // ONAG ch. 12: {1} = 0, {0,1,3,5} = 2, {1,2,3} = 0, but {2} is not a nim heap.
        let mut f = Forms::new();
        let n: Vec<FormId> = (0..6).map(|i| f.nim(i).unwrap()).collect();
        assert_eq!(f.canonical(vec![n[1]]).unwrap(), ZERO);
        assert_eq!(f.canonical(vec![n[0], n[1], n[3], n[5]]).unwrap(), n[2]);
        assert_eq!(f.canonical(vec![n[1], n[2], n[3]]).unwrap(), ZERO);
        let two_hash = f.canonical(vec![n[2]]).unwrap();
        assert_eq!(f.nim_size(two_hash), None);
        // {2} + {2} is a second-player win, 1 + 1 is not (ONAG ch. 12).
        let s = f.add(two_hash, two_hash).unwrap();
        assert_eq!(f.g_minus(s), 0);
    }

    #[test]
    fn nim_sums_follow_onag() {
        // ONAG ch. 12: if n is a nim heap so is n + 1, of size n XOR 1; 1 + 1 = 0;
        // 2 + 2 = {3, 2}... written 2₂ = {2, 3}? The text: "2+2 = {0+2, 1+2, 2+0, 2+1} = {2,3}".
        let mut f = Forms::new();
        let n: Vec<FormId> = (0..6).map(|i| f.nim(i).unwrap()).collect();
        assert_eq!(f.add(n[1], n[1]).unwrap(), ZERO);
        assert_eq!(f.add(n[2], n[1]).unwrap(), n[3]);
        assert_eq!(f.add(n[3], n[1]).unwrap(), n[2]);
        assert_eq!(f.add(n[4], n[1]).unwrap(), n[5]);
        let two_two = f.add(n[2], n[2]).unwrap();
        let expect = f.canonical(vec![n[2], n[3]]).unwrap();
        assert_eq!(two_two, expect);
        assert_eq!(f.options(two_two).len(), 2);
    }

    #[test]
    fn work_budget_is_enforced() {
        let mut f = Forms::with_budget(1000, 10);
        assert!(f.nim(3).is_ok());
        assert!(matches!(f.nim(8), Err(MisereError::TooLarge { .. })));
        assert!(f.work() <= 10 + 8);
    }

    #[test]
    fn limit_is_enforced() {
        let mut f = Forms::with_limit(3);
        assert!(f.nim(2).is_ok());
        assert!(matches!(f.nim(3), Err(MisereError::TooLarge { .. })));
    }
}
