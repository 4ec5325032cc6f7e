//! Misère quotients (Plambeck and Siegel): a finite commutative monoid `Q`, a subset `P` of it
//! and a map `Φ` from heaps to `Q` such that a sum of heaps is a misère P-position exactly when
//! the product of its heaps' elements lies in `P`, and no smaller monoid does it.
//!
//! Sources: T. E. Plambeck and A. N. Siegel, "Misère quotients for impartial games", J. Combin.
//! Theory Ser. A 115 (2008), and its supplement (arXiv 0705.2404); Siegel's MisereSolver
//! (in CGSuite). The method here is our own, stated and proved below.
//!
//! # Definitions
//! Let `A_n` be the positions (multisets) of heaps `0 … n`: closed under moves, since a move
//! replaces a heap by smaller ones. Positions `G`, `H` are *indistinguishable* (`G ≡ H`) when
//! `G + X` and `H + X` have the same misère outcome for every `X ∈ A_n`; the quotient `Q_n` is
//! `A_n/≡`, `P` the classes of P-positions, `Φ(h)` the class of heap `h`. The empty position is
//! an N-position in misère play (the player to move has no move, so did not move last): the
//! identity is never in `P`.
//!
//! A *candidate* for `A_n` is any finite commutative monoid `M` with a subset `P_M` and a
//! homomorphism `Φ` from positions onto `M` that predicts every outcome. If it is a candidate,
//! then `G ≡ H` ⇔ `Φ(G)z ∈ P_M ⇔ Φ(H)z ∈ P_M` for all `z ∈ M` (as `Φ` is onto), so `Q_n` is `M`
//! reduced by that relation ([`monoid::reduce`]). Whether a given `(M, P_M, Φ)` predicts every
//! outcome — of infinitely many positions — is decided exactly by the closure of [`closure`].
//!
//! # The step from heap `n − 1` to heap `n`
//! With `Q = Q_{n−1}` known (elements numbered by *least word*, the least position of each
//! class, so that options of a least word have smaller numbers), heap `n` gets:
//! 1. `O(n)`: the elements of its options (positions of smaller heaps, so in `Q`).
//! 2. A candidate `M = Q × C`, `C = {1, x, x², …}` with `x^(m+p) = x^m`, meaning "the element
//!    of the old heaps, and how many copies of heap `n`". Its `P_M` is computed column by
//!    column: `(a, 0) ∈ P_M ⇔ a ∈ P`, and `(a, k)` stands for the position `w_a + k·n` (`w_a` the
//!    least word of `a`), whose options are `w' + k·n` for the options `w'` of `w_a` (elements
//!    `(Φ(w'), k)`, numbered below `a`) and `w_a + (k−1)·n + y` for `y ∈ O(n)` (elements
//!    `(a·y, k−1)`); `(a, k) ∈ P_M` when it has an option and none is in `P_M`. Column `k` is a
//!    function of column `k − 1`, so the columns repeat: the first repetition gives `m` and `p`.
//!    This is Plambeck and Siegel's step: conservative extension when the new heap behaves like
//!    an old element, a new generator `x` otherwise, `P` recomputed over least words.
//! 3. `M` reduced by indistinguishability (Moore's partition refinement, O(|M|·generators) a
//!    round) and renumbered by least word: when nothing merges beyond `Q` itself the quotient
//!    did not change (heap `n` equals an old element).
//! 4. The reduced candidate is verified by [`closure::Closure`] over all heaps `1 … n`. If it
//!    passes it *is* `Q_n`: a proof covering every position of `A_n`. If it fails, some
//!    position of old heaps needs to be told apart from another with the same element of
//!    `Q_{n−1}` (the old quotient must be refined); this is not computed here and the
//!    computation stops with [`QuotientError::Refinement`], after heaps `0 … n − 1` are known
//!    (an answer is never wrong, at worst missing). Plambeck and Siegel's supplement describes
//!    refinement by the least failing position; it has not been met on the codes tested.
//!
//! # When the quotient is the whole game's (certified)
//! For a finite octal code (digits 0–7, no `!`), `t` its last non-zero digit: if
//! `Φ(h + p) = Φ(h)` for all `n0 ≤ h` with `h + p ≤ N`, `n0 ≥ 1`, and `N + 1 ≥ 2·n0 + 2p + t`,
//! then `Q_M = Q_N` and `Φ(M) = Φ(M − p)` for every `M > N`. Proof, by induction on `M`: a move
//! on heap `M` takes `j ≤ t` tokens and leaves one heap `M − j` or two heaps `a ≤ b` with
//! `a + b = M − j`. Then `M − j ≥ 2·n0 + 2p`, so `b ≥ n0 + p` and `Φ(b) = Φ(b − p)` with
//! `b − p ≥ n0 ≥ 1`: the option `(a, b − p)` of heap `M − p` has the same element. Conversely
//! an option `(a, c)`, `c ≥ a`, of heap `M − p` has `c ≥ n0` (as `M − p − j ≥ 2·n0 + p`) and
//! corresponds to `(a, c + p)`; a single heap likewise, and neither heap takes all (`M − p > t`).
//! So `O(M) = O(M − p)`, and with `Φ(M) := Φ(M − p)` heap `M` adds to the closure a transition
//! it already has: no new state, the candidate passes, `Q_M = Q_{M−1}`. This is the octal
//! periodicity theorem's argument (Guy and Smith) applied to `Φ` instead of Grundy values,
//! and is the same condition [`crate::analysis::theorem_bound`] checks. It asks for fewer
//! heaps than CGSuite's test `3·n0 + 3p + t + 2 ≤ N + 1`, which it implies.
//!
//! # Cost
//! A step costs the columns (O(|Q|·(options of least words + |O(n)|)) each), the reduction
//! (O(|M|·generators) a round), and the closure: O(states · transitions · |Q|/64) words, the
//! part that dominates on games with large quotients; its states are bitsets over `Q` in one
//! flat array (`|Q|/64 + 1` words each), so memory is `states · (|Q|/8 + 8)` bytes plus an
//! index, bounded by the state limit given.

pub mod closure;
pub mod monoid;

use std::collections::HashMap;

use serde::Serialize;

use crate::analysis::{theorem_t, Period, PeriodChecker};
use crate::rules::{MoveSet, Rule};

pub use closure::Closure;
pub use monoid::{presentation, Monoid, Presentation};

/// Why a quotient computation stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuotientError {
    /// Heap `heap` needs the quotient of the smaller heaps refined, which is not implemented.
    #[error(
        "the quotient at heap {heap} refines the quotient of heaps 0 .. {}, which this version \
         does not compute",
        heap - 1
    )]
    Refinement {
        /// The heap.
        heap: usize,
    },
    /// The verification closure outgrew its limit.
    #[error("the verification of heap {heap} needs more than {limit} states")]
    TooManyStates {
        /// The heap.
        heap: usize,
        /// The limit.
        limit: usize,
    },
    /// The powers of a new generator did not repeat within the limit.
    #[error("the powers of heap {heap}'s element did not repeat within {limit} columns")]
    LongCycle {
        /// The heap.
        heap: usize,
        /// The limit.
        limit: usize,
    },
}

/// Most columns (powers of a new generator) tried before giving up.
const MAX_COLUMNS: usize = 1 << 14;

/// The misère quotient of the heaps of one rule, grown heap by heap.
#[derive(Debug)]
pub struct QuotientSolver {
    rule: Rule,
    moves: MoveSet,
    m: Monoid,
    phi: Vec<u32>,
    /// Distinct option elements of each heap.
    heap_opts: Vec<Vec<u32>>,
    /// Option elements of each element's least word.
    word_opts: Vec<Vec<u32>>,
    closure: Closure,
    changes: Vec<(usize, usize)>,
    certified: Option<Period>,
    state_limit: usize,
}

impl QuotientSolver {
    /// The quotient of heap 0 alone (the trivial monoid) for `rule`, verifying with at most
    /// `state_limit` states.
    pub fn new(rule: &Rule, state_limit: usize) -> QuotientSolver {
        let m = Monoid::trivial();
        let closure = Closure::new(&m, state_limit);
        QuotientSolver {
            rule: rule.clone(),
            moves: rule.moves(16),
            word_opts: vec![Vec::new()],
            m,
            phi: vec![0],
            heap_opts: vec![Vec::new()],
            closure,
            changes: vec![(0, 1)],
            certified: None,
            state_limit,
        }
    }

    /// The heaps done: `0 … count − 1`.
    pub fn count(&self) -> usize {
        self.phi.len()
    }

    /// The quotient of the heaps done.
    pub fn monoid(&self) -> &Monoid {
        &self.m
    }

    /// The element of each heap done.
    pub fn phi(&self) -> &[u32] {
        &self.phi
    }

    /// `(heap, order)` at heap 0 and at each heap where the quotient changed.
    pub fn changes(&self) -> &[(usize, usize)] {
        &self.changes
    }

    /// The period of `Φ` once it certifies the quotient as the whole game's.
    pub fn certified(&self) -> Option<&Period> {
        self.certified.as_ref()
    }

    /// States in the verification closure.
    pub fn states(&self) -> usize {
        self.closure.len()
    }

    /// The element of heap `h`: from `Φ` for heaps done, from the certified period beyond.
    pub fn element(&self, h: usize) -> Option<u32> {
        if h < self.phi.len() {
            return Some(self.phi[h]);
        }
        let p = self.certified.as_ref()?;
        let (n0, per) = (p.preperiod as usize, p.period as usize);
        let last = self.phi.len() - 1;
        // h ≡ some heap in [n0, last] modulo the period, stepping down.
        let k = (h - last).div_ceil(per);
        let i = h - k * per;
        debug_assert!(i >= n0);
        Some(self.phi[i])
    }

    fn options_of_heap(&self, h: usize) -> Vec<u32> {
        let mut out = Vec::new();
        crate::position::for_each_option(&self.moves, h, |parts| {
            let mut e = 0u32;
            for &x in parts {
                e = self.m.mul(e, self.phi[x]);
            }
            out.push(e);
        });
        out.sort_unstable();
        out.dedup();
        out
    }

    fn options_of_word(&self, w: &[usize]) -> Vec<u32> {
        let mut out = Vec::new();
        for (i, &h) in w.iter().enumerate() {
            if i > 0 && w[i - 1] == h {
                continue;
            }
            let mut rest = 0u32;
            for (j, &x) in w.iter().enumerate() {
                if j != i {
                    rest = self.m.mul(rest, self.phi[x]);
                }
            }
            crate::position::for_each_option(&self.moves, h, |parts| {
                let mut e = rest;
                for &x in parts {
                    e = self.m.mul(e, self.phi[x]);
                }
                out.push(e);
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Computes heap `count()`: its element, and the quotient of heaps `0 … count()`. On an
    /// error the solver is left as it was (heaps `0 … count() − 1`) and cannot go further.
    pub fn step(&mut self) -> Result<(), QuotientError> {
        let backup = (
            self.m.clone(),
            self.phi.clone(),
            self.heap_opts.clone(),
            self.word_opts.clone(),
            self.changes.clone(),
        );
        let r = self.step_inner();
        if r.is_err() {
            (
                self.m,
                self.phi,
                self.heap_opts,
                self.word_opts,
                self.changes,
            ) = backup;
        }
        r
    }

    fn step_inner(&mut self) -> Result<(), QuotientError> {
        let n = self.phi.len();
        if n > self.moves.max_heap {
            self.moves = self.rule.moves((2 * n).max(16));
        }
        let o = self.options_of_heap(n);
        let q = self.m.order;
        // Columns of P_M for the powers of heap n.
        let mut cols: Vec<Vec<bool>> = vec![self.m.p.clone()];
        let mut seen: HashMap<Vec<bool>, usize> = HashMap::new();
        seen.insert(self.m.p.clone(), 0);
        let (mu, per) = loop {
            let k = cols.len();
            if k > MAX_COLUMNS {
                return Err(QuotientError::LongCycle {
                    heap: n,
                    limit: MAX_COLUMNS,
                });
            }
            let prev = &cols[k - 1];
            let mut col = vec![false; q];
            for a in 0..q {
                let wo = &self.word_opts[a];
                let moved = !wo.is_empty() || !o.is_empty();
                let any_p = wo.iter().any(|&s| {
                    debug_assert!((s as usize) < a);
                    col[s as usize]
                }) || o.iter().any(|&y| prev[self.m.mul(a as u32, y) as usize]);
                col[a] = moved && !any_p;
            }
            if let Some(&j) = seen.get(&col) {
                break (j, k - j);
            }
            seen.insert(col.clone(), k);
            cols.push(col);
        };
        let len = mu + per;
        cols.truncate(len);
        let cap = |s: usize| if s < len { s } else { mu + (s - mu) % per };
        // Generators of M: the old heaps' distinct elements, then x.
        let mut gens: Vec<u32> = self.phi.iter().copied().filter(|&g| g != 0).collect();
        gens.sort_unstable();
        gens.dedup();
        let ng = gens.len();
        let m = &self.m;
        let mul_gen = |e: usize, gi: usize| {
            let (k, a) = (e / q, e % q);
            if gi < ng {
                k * q + m.mul(a as u32, gens[gi]) as usize
            } else {
                cap(k + 1) * q + a
            }
        };
        let in_p = |e: usize| cols[e / q][e % q];
        let (class, count) = monoid::reduce(q * len, &in_p, &mul_gen, ng + 1);
        let x_class = class[cap(1) * q];
        if count == q {
            // Nothing new: heap n is an old element (the classes of (a, 0) are the old
            // elements in the old order, see the module text).
            debug_assert!((0..q).all(|a| class[a] as usize == a));
            self.phi.push(x_class);
            self.heap_opts.push(o.clone());
            self.verify(n, x_class, &o)?;
        } else {
            let mut rep = vec![usize::MAX; count];
            for (e, &c) in class.iter().enumerate() {
                if rep[c as usize] == usize::MAX {
                    rep[c as usize] = e;
                }
            }
            let mut table = vec![0u32; count * count];
            for c1 in 0..count {
                let (k1, a1) = (rep[c1] / q, rep[c1] % q);
                for c2 in 0..count {
                    let (k2, a2) = (rep[c2] / q, rep[c2] % q);
                    let e = cap(k1 + k2) * q + m.mul(a1 as u32, a2 as u32) as usize;
                    table[c1 * count + c2] = class[e];
                }
            }
            let p: Vec<bool> = rep.iter().map(|&e| in_p(e)).collect();
            let words: Vec<Vec<usize>> = rep
                .iter()
                .map(|&e| {
                    let (k, a) = (e / q, e % q);
                    let mut w = vec![n; k];
                    w.extend_from_slice(&m.words[a]);
                    w
                })
                .collect();
            let new = Monoid {
                order: count,
                table,
                p,
                words,
            };
            for f in self.phi.iter_mut() {
                *f = class[*f as usize];
            }
            self.phi.push(x_class);
            self.m = new;
            self.changes.push((n, count));
            self.rebuild(n)?;
        }
        self.certify();
        Ok(())
    }

    fn verify(&mut self, n: usize, g: u32, o: &[u32]) -> Result<(), QuotientError> {
        self.closure.add_heap(g, o).map_err(|e| match e {
            closure::ClosureError::Inconsistent(_) => QuotientError::Refinement { heap: n },
            closure::ClosureError::TooMany(_) => QuotientError::TooManyStates {
                heap: n,
                limit: self.state_limit,
            },
        })
    }

    /// After a change: option elements and the closure again, for heaps `1 … n`.
    fn rebuild(&mut self, n: usize) -> Result<(), QuotientError> {
        self.heap_opts = (0..=n).map(|h| self.options_of_heap(h)).collect();
        self.word_opts = (0..self.m.order)
            .map(|a| self.options_of_word(&self.m.words[a].clone()))
            .collect();
        self.closure = Closure::new(&self.m, self.state_limit);
        for h in 1..=n {
            let o = self.heap_opts[h].clone();
            self.verify(n, self.phi[h], &o)?;
        }
        Ok(())
    }

    fn certify(&mut self) {
        if self.certified.is_some() {
            return;
        }
        let mut checker = PeriodChecker::for_theorem_t(theorem_t(&self.rule));
        self.certified = checker.settle_slice(&self.phi).cloned();
    }

    /// The period of `Φ` best supported by the heaps done (the certified one once there is
    /// one), for reports.
    pub fn period(&self) -> Option<Period> {
        if let Some(p) = &self.certified {
            return Some(p.clone());
        }
        PeriodChecker::for_theorem_t(Some(theorem_t(&self.rule).unwrap_or(0)))
            .best_candidate_slice(&self.phi)
    }

    /// Everything the `quotient` command reports.
    pub fn report(&self) -> QuotientReport {
        let m = &self.m;
        let pres = presentation(m, &self.phi);
        let period = self.period();
        let stable_from = self.changes.last().map_or(0, |c| c.0);
        QuotientReport {
            game: self.rule.code(),
            order: m.order,
            p_count: m.p.iter().filter(|&&b| b).count(),
            certified: self.certified.is_some(),
            certified_at: self.certified.as_ref().map(|_| self.phi.len() - 1),
            last_heap: self.phi.len() - 1,
            stable_from,
            preperiod: period.as_ref().map(|p| p.preperiod),
            period: period.as_ref().map(|p| p.period),
            heaps: self.phi.clone(),
            identity: 0,
            p: (0..m.order as u32).filter(|&e| m.p[e as usize]).collect(),
            table: m.table.chunks(m.order).map(|r| r.to_vec()).collect(),
            presentation: pres.text(),
            generators: (0..pres.generators.len())
                .map(|i| Generator {
                    name: monoid::generator_name(i),
                    element: pres.generators[i],
                    heap: pres.generator_heaps[i],
                })
                .collect(),
            elements: (0..m.order as u32).map(|e| pres.element_text(e)).collect(),
            changes: self.changes.clone(),
            states: self.closure.len(),
        }
    }
}

/// A generator of the presentation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Generator {
    /// Its name (`a`, `b`, …).
    pub name: String,
    /// Its element.
    pub element: u32,
    /// The first heap with that element.
    pub heap: usize,
}

/// The quotient of heaps `0 … last_heap` of a game, as `quotient --json` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QuotientReport {
    /// The canonical game code.
    pub game: String,
    /// `|Q|`.
    pub order: usize,
    /// `|P|`.
    pub p_count: usize,
    /// Is this the quotient of the whole game (heaps of every size)?
    pub certified: bool,
    /// The last heap computed when certified.
    pub certified_at: Option<usize>,
    /// The last heap computed.
    pub last_heap: usize,
    /// The heap since which the quotient has not changed.
    pub stable_from: usize,
    /// The preperiod of `Φ` (certified, or the best candidate).
    pub preperiod: Option<u64>,
    /// The period of `Φ` (certified, or the best candidate).
    pub period: Option<u64>,
    /// The element of each heap `0 … last_heap`.
    pub heaps: Vec<u32>,
    /// The identity's id (always 0).
    pub identity: u32,
    /// The ids in P.
    pub p: Vec<u32>,
    /// `table[a][b]` = the id of `a·b`.
    pub table: Vec<Vec<u32>>,
    /// Generators and relations.
    pub presentation: String,
    /// The generators.
    pub generators: Vec<Generator>,
    /// Each element as a word in the generators.
    pub elements: Vec<String>,
    /// `[heap, order]` at heap 0 and wherever the quotient changed.
    pub changes: Vec<(usize, usize)>,
    /// States of the verification closure.
    pub states: usize,
}

/// Computes the quotient of `rule` heap by heap until it is certified or heap `max_heap` is
/// done, calling `progress(heap, solver)` after each heap; `progress` returning
/// `ControlFlow::Break` stops early (the heaps done are kept).
pub fn compute(
    rule: &Rule,
    max_heap: usize,
    state_limit: usize,
    mut progress: impl FnMut(usize, &QuotientSolver) -> std::ops::ControlFlow<()>,
) -> (QuotientSolver, Option<QuotientError>) {
    let mut s = QuotientSolver::new(rule, state_limit);
    while s.count() <= max_heap && s.certified().is_none() {
        if let Err(e) = s.step() {
            // Keep the heaps before the failing one.
            return (s, Some(e));
        }
        if progress(s.count() - 1, &s).is_break() {
            break;
        }
    }
    (s, None)
}
