//! Heaps of one rule in misère play: canonical forms, genera, classes, outcomes of positions
//! and winning moves.

use serde::Serialize;

use super::forms::{FormId, Forms, ZERO};
use super::genus::Genus;
use super::MisereError;
use crate::rules::{MoveSet, Rule};

/// The misère outcome of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Outcome {
    /// The previous player (the one who just moved) wins: the player to move loses.
    P,
    /// The next player (the one to move) wins.
    N,
}

/// How a heap behaves in misère sums (ONAG ch. 12, Winning Ways ch. 13), judged on its simplest
/// form. The classes are tested in this order; the first that applies is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Every position of the simplest form, itself included, has a tame genus (`0^120`,
    /// `1^031`, `n^(n, n⊕2)`): sums behave like misère Nim (ONAG Theorem 73).
    Tame,
    /// Not tame, every option tame, and `g⁺ ∈ {0, 1}` (so `g⁻ ≥ 2`): an "ambivalent nim heap"
    /// (ONAG ch. 12, "Tame games, and restive and restless games").
    Restive,
    /// Not tame, every option tame, and `g⁻ ∈ {0, 1}` (ONAG ch. 12).
    Restless,
    /// None of the above, but `G + G` is tame with `g⁺ = g⁻ = 0` (Winning Ways ch. 13;
    /// CGSuite's `IsHalfTame`).
    HalfTame,
    /// None of the above.
    Wild,
}

impl Class {
    /// The lower-case name used in reports (`half-tame` with a hyphen).
    pub fn name(self) -> &'static str {
        match self {
            Class::Tame => "tame",
            Class::Restive => "restive",
            Class::Restless => "restless",
            Class::HalfTame => "half-tame",
            Class::Wild => "wild",
        }
    }
}

/// The misère description of one heap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapGenus {
    /// The heap size.
    pub heap: usize,
    /// The normal-play Grundy value.
    pub g_plus: u32,
    /// `λ0 = g⁻, λ1, …`, written until the last two alternate forever.
    pub lambdas: Vec<u32>,
    /// The class of the heap (`None` when it was not asked for: see
    /// [`MisereHeaps::heap_genus`]).
    pub class: Option<Class>,
}

impl HeapGenus {
    /// The genus as a [`Genus`].
    pub fn genus(&self) -> Genus {
        Genus {
            g_plus: self.g_plus,
            lambdas: self.lambdas.clone(),
        }
    }
}

/// A move in a position: one heap replaced by the heaps it leaves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MisereMove {
    /// Index (in the position given) of the heap moved in.
    pub index: usize,
    /// Its size.
    pub heap: usize,
    /// The heaps it leaves (0 to 3 of them, each non-empty).
    pub leaves: Vec<usize>,
}

/// Calls `f` with every option of a heap of `n` (the heaps left, 0–3 of them, non-empty): the
/// same enumeration as normal play ([`crate::rules::for_each_option`]).
pub fn for_each_heap_option(moves: &MoveSet, n: usize, f: impl FnMut(&[usize])) {
    crate::rules::for_each_option(moves, n, f)
}

/// Canonical forms of the heaps of one rule, grown on demand.
#[derive(Debug)]
pub struct MisereHeaps {
    rule: Rule,
    moves: MoveSet,
    forms: Forms,
    heaps: Vec<FormId>,
}

impl MisereHeaps {
    /// An empty table for `rule`, with no limit on the number of canonical forms.
    pub fn new(rule: &Rule) -> MisereHeaps {
        MisereHeaps::with_forms(rule, Forms::new())
    }

    /// An empty table for `rule` that stops with [`MisereError::TooLarge`] beyond `limit`
    /// canonical forms.
    pub fn with_limit(rule: &Rule, limit: usize) -> MisereHeaps {
        MisereHeaps::with_forms(rule, Forms::with_limit(limit))
    }

    /// An empty table for `rule` that stops with [`MisereError::TooLarge`] beyond `limit`
    /// canonical forms or `max_work` units of work ([`Forms::with_budget`]).
    pub fn with_budget(rule: &Rule, limit: usize, max_work: u64) -> MisereHeaps {
        MisereHeaps::with_forms(rule, Forms::with_budget(limit, max_work))
    }

    fn with_forms(rule: &Rule, forms: Forms) -> MisereHeaps {
        MisereHeaps {
            rule: rule.clone(),
            moves: rule.moves(0),
            forms,
            heaps: Vec::new(),
        }
    }

    /// The rule.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// The canonical forms computed so far.
    pub fn forms(&self) -> &Forms {
        &self.forms
    }

    /// The canonical forms, to add sums of forms already made (e.g. many copies of a heap
    /// once, then each context: `examples/misere_forms_grid.rs`).
    pub fn forms_mut(&mut self) -> &mut Forms {
        &mut self.forms
    }

    /// How many heaps (0 .. count − 1) are computed.
    pub fn count(&self) -> usize {
        self.heaps.len()
    }

    /// Computes the canonical forms of heaps up to `count − 1`.
    pub fn extend_to(&mut self, count: usize) -> Result<(), MisereError> {
        self.extend_with_progress(count, |_| {})
    }

    /// Like [`MisereHeaps::extend_to`], calling `progress(n)` after heap `n` is done.
    pub fn extend_with_progress(
        &mut self,
        count: usize,
        mut progress: impl FnMut(usize),
    ) -> Result<(), MisereError> {
        if count == 0 || count <= self.heaps.len() {
            return Ok(());
        }
        if count - 1 > self.moves.max_heap {
            let bound = (count - 1).max(self.moves.max_heap.saturating_mul(2));
            self.moves = self.rule.moves(bound);
        }
        let mut lists: Vec<Vec<usize>> = Vec::new();
        for n in self.heaps.len()..count {
            lists.clear();
            for_each_heap_option(&self.moves, n, |l| lists.push(l.to_vec()));
            let mut options = Vec::with_capacity(lists.len());
            for l in &lists {
                let parts: Vec<FormId> = l.iter().map(|&h| self.heaps[h]).collect();
                options.push(self.forms.add_all(&parts)?);
            }
            let g = self.forms.canonical(options)?;
            self.heaps.push(g);
            progress(n);
        }
        Ok(())
    }

    /// The canonical form of heap `n` (computing heaps up to `n` if needed).
    pub fn heap_form(&mut self, n: usize) -> Result<FormId, MisereError> {
        self.extend_to(n + 1)?;
        Ok(self.heaps[n])
    }

    /// The canonical form of a position: a multiset of heaps.
    pub fn position_form(&mut self, heaps: &[usize]) -> Result<FormId, MisereError> {
        let mut sorted: Vec<usize> = heaps.iter().copied().filter(|&h| h > 0).collect();
        sorted.sort_unstable();
        if let Some(&max) = sorted.last() {
            self.extend_to(max + 1)?;
        }
        let parts: Vec<FormId> = sorted.iter().map(|&h| self.heaps[h]).collect();
        self.forms.add_all(&parts)
    }

    /// The misère outcome of a position (a multiset of heaps), exactly.
    pub fn outcome(&mut self, heaps: &[usize]) -> Result<Outcome, MisereError> {
        let g = self.position_form(heaps)?;
        Ok(if self.forms.g_minus(g) == 0 {
            Outcome::P
        } else {
            Outcome::N
        })
    }

    /// The misère outcome of a position by genus theory alone, when every heap is tame:
    /// `Some(outcome)` then, `None` when some heap is not tame (its simplest form has a
    /// position of wild genus).
    ///
    /// The theorem (Conway, ONAG ch. 12, "Tame games"; Winning Ways ch. 13): tame games are
    /// like misère Nim positions, and a sum of tame games is tame. A tame genus is `0^120` or
    /// `1^031` (*fickle*: it plays like 0 or *1, a Nim position whose heaps are all 0 or 1) or
    /// `a^(a, a⊕2)` (*firm*: like *a for a ≥ 2, like *2+*2 for `0^02`, like *2+*2+*1 for `1^13`).
    /// So a sum has `g⁺` = the nim-sum of its parts' `g⁺`, and `g⁻ = g⁺ ⊕ 1` when every part is
    /// fickle (Bouton's rule for heaps of 0 and 1), `g⁻ = g⁺` when some part is firm; it is a
    /// P-position exactly when `g⁻ = 0`. Each heap's simplest form is computed exactly (and its
    /// tameness checked on every position of it), but no sum is built: heaps whose sums are far
    /// too large to simplify are decided this way.
    pub fn tame_outcome(&mut self, heaps: &[usize]) -> Result<Option<Outcome>, MisereError> {
        let (mut g_plus, mut firm) = (0u32, false);
        for &h in heaps {
            let g = self.heap_form(h)?;
            let f = &self.forms;
            if !f.is_tame(g) {
                return Ok(None);
            }
            g_plus ^= f.g_plus(g);
            firm |= f.g_minus(g) == f.g_plus(g);
        }
        let g_minus = if firm { g_plus } else { g_plus ^ 1 };
        Ok(Some(if g_minus == 0 { Outcome::P } else { Outcome::N }))
    }

    /// Every move from the position to a misère P-position: empty when the position is P, and
    /// for the empty position (no move at all, which the player to move has already won).
    /// Moves from equal heaps are listed once, for the first of them.
    pub fn winning_moves(&mut self, heaps: &[usize]) -> Result<Vec<MisereMove>, MisereError> {
        let mut found = Vec::new();
        let max = heaps.iter().copied().max().unwrap_or(0);
        self.extend_to(max + 1)?;
        let mut lists: Vec<Vec<usize>> = Vec::new();
        for (index, &h) in heaps.iter().enumerate() {
            if heaps[..index].contains(&h) {
                continue; // the same move from an equal heap
            }
            lists.clear();
            for_each_heap_option(&self.moves, h, |l| lists.push(l.to_vec()));
            for l in &lists {
                let mut next: Vec<usize> = heaps.to_vec();
                next.remove(index);
                next.extend_from_slice(l);
                if self.outcome(&next)? == Outcome::P {
                    found.push(MisereMove {
                        index,
                        heap: h,
                        leaves: l.clone(),
                    });
                }
            }
        }
        Ok(found)
    }

    /// The misère Grundy value `g⁻` of a position.
    pub fn g_minus(&mut self, heaps: &[usize]) -> Result<u32, MisereError> {
        let g = self.position_form(heaps)?;
        Ok(self.forms.g_minus(g))
    }

    /// The class of a canonical form (see [`Class`]).
    pub fn class_of(&mut self, g: FormId) -> Result<Class, MisereError> {
        let f = &self.forms;
        if f.is_tame(g) {
            return Ok(Class::Tame);
        }
        if f.options(g).iter().all(|&o| f.is_tame(o)) {
            if f.g_plus(g) <= 1 {
                return Ok(Class::Restive);
            }
            if f.g_minus(g) <= 1 {
                return Ok(Class::Restless);
            }
        }
        let double = self.forms.add(g, g)?;
        let f = &self.forms;
        if f.is_tame(double) && f.g_plus(double) == 0 && f.g_minus(double) == 0 {
            return Ok(Class::HalfTame);
        }
        Ok(Class::Wild)
    }

    /// Genus of heap `n`, and its class when `with_class` (the half-tame test computes the
    /// canonical form of `G + G`, which costs far more than `G` itself for large heaps).
    pub fn heap_genus(&mut self, n: usize, with_class: bool) -> Result<HeapGenus, MisereError> {
        let g = self.heap_form(n)?;
        let class = if with_class {
            Some(self.class_of(g)?)
        } else {
            None
        };
        Ok(HeapGenus {
            heap: n,
            g_plus: self.forms.g_plus(g),
            lambdas: self.forms.lambdas(g).to_vec(),
            class,
        })
    }

    /// A readable canonical form of heap `n` (nim heaps as numbers, others as `{options}`).
    pub fn describe_heap(&mut self, n: usize) -> Result<String, MisereError> {
        let g = self.heap_form(n)?;
        Ok(self.forms.describe(g))
    }

    /// Is the canonical form the empty game?
    pub fn is_zero(&self, g: FormId) -> bool {
        g == ZERO
    }
}
