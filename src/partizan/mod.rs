//! Short partizan games in canonical form: the arithmetic of Winning Ways (Berlekamp, Conway and
//! Guy, ch. 2–8) and of Siegel, *Combinatorial Game Theory* (AMS, 2013, ch. II), for games such
//! as Hackenbush positions of every colour.
//!
//! A game `{L₁, L₂, … | R₁, R₂, …}` is kept in an [`Arena`] as a [`GameId`]. Every game the arena
//! hands out is in *canonical form* and *interned* (hash-consed): its options are canonical ids,
//! and two games are equal exactly when their ids are identical. A form is brought to canonical
//! form by the two simplifications that preserve its value (Siegel, ch. II.2):
//! removing *dominated* options (a Left option `≤` another Left option, a Right option `≥`
//! another) and bypassing *reversible* ones (a Left option `Gᴸ` with a Right option `Gᴸᴿ ≤ G` is
//! replaced by the Left options of `Gᴸᴿ`; symmetrically for Right). The form without dominated
//! and reversible options whose options are canonical is unique (Siegel, ch. II.2), which is what
//! makes interning sound.
//!
//! Numbers (dyadic rationals, [`Dyadic`]) and nimbers are kept by value and their options are
//! made only when a computation asks for them, so `2^60` or `*1000000` cost one node. A form
//! whose options are numbers with every Left option below every Right option is the simplest
//! number between them (the simplicity rule). Sums, negatives and Conway's comparison `G ≤ H`
//! (no `Gᴸ ≥ H` and no `Hᴿ ≤ G`) are memoized over the arena's whole life, so a computation
//! that meets the same subgame twice pays once. `x + G` for a number `x` and a non-number `G`
//! is `{Gᴸ + x | Gᴿ + x}` (number translation, from the number avoidance theorem). The ordinal
//! sum `G:H` (Left options `Gᴸ` and `G:Hᴸ`, Right options likewise) builds Hackenbush trees: an edge
//! with the tree `H` above it is `e:H`, with `e` one of `1`, `-1`, `*` (Winning Ways ch. 7;
//! the ordinal sum depends on the form of the base but only on the value of the part above).
//!
//! [`notation`] prints in CGSuite's style (`9/16`, `*7`, `1*`, `^`, `v*`, `^3`, `^[2]*`,
//! `3/4v3*`, `{0,*2,^|0}`); [`thermograph`] gives the stops, mean and temperature.
//!
//! Limits: numbers must fit [`Dyadic`] (denominators up to `2^MAX_EXP`), and an arena refuses
//! to grow beyond its budget of nodes and memo entries with [`PartizanError::TooLarge`] rather
//! than exhaust memory. Comparisons recurse as deep as the games are; callers with deep games
//! run them on a thread with a large stack ([`with_big_stack`]).
//!
//! Cost: numbers and nimbers are cheap whatever their size. General games cost what their
//! canonical forms cost: each new form is tested for reversible options against its own value,
//! which explores the subgames of its options. Random Blue-Red-Green strings built here by
//! [`Arena::game`] took about 1 s for 300 edges and 2 minutes for 1000 on the 2-core test
//! machine; `crate::hackenbush` now builds their forms without comparisons and hands them over
//! with [`Arena::adopt_canonical`] (10,000 edges in about 2 s). Sums of such games remain
//! costly: two random 100-edge strings take about 4 s of CPU, two of 200 edges exhaust the
//! default budget after about 20 s. Who wins such a sum, and by which moves, is decided
//! without building its form by [`SumSearch`] (`sums.rs`).

mod canon;
pub mod notation;
mod ops;
mod sums;
pub mod thermograph;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use thiserror::Error;

pub use crate::hackenbush::Dyadic;
use crate::hackenbush::MAX_EXP;
pub use sums::{SumSearch, DEFAULT_SEARCH_POSITIONS};

/// A canonical game in an [`Arena`]: equal games have identical ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(u32);

impl GameId {
    /// The index of the game in its arena.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What kind of value a game is, as far as the arena keeps track.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A number (including 0).
    Number(Dyadic),
    /// A nimber `*n`, `n ≥ 1`.
    Nimber(u64),
    /// Any other game.
    Other,
}

/// Why a computation was refused.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PartizanError {
    /// A number's denominator would exceed `2^MAX_EXP`, or its numerator `i128`.
    #[error("a number in the computation does not fit the exact representation (denominators up to 2^{MAX_EXP})")]
    Overflow,
    /// The arena's budget of nodes and memo entries is used up.
    #[error("the computation needs more than {limit} game nodes and memo entries (the memory budget); the input is too large for canonical forms")]
    TooLarge {
        /// The budget.
        limit: usize,
    },
    /// A [`SumSearch`] met more positions than its budget.
    #[error("deciding the sum's outcome met more than {limit} positions of its parts (the search budget); the sum is too large to decide")]
    SearchTooLarge {
        /// The budget.
        limit: usize,
    },
}

/// The default budget of an arena: nodes plus memo entries (about 100 bytes each).
pub const DEFAULT_BUDGET: usize = 30_000_000;

/// Maps keyed by game ids, with the cheap hasher of the misère forms (the keys are our ids).
type IdMap<K, V> = HashMap<K, V, crate::fxhash::FxBuild>;

/// Left's and Right's options, the key of a general canonical form.
type Options = (Rc<[GameId]>, Rc<[GameId]>);

#[derive(Debug, Clone)]
struct Node {
    kind: Kind,
    left: Option<Rc<[GameId]>>,
    right: Option<Rc<[GameId]>>,
}

/// A store of canonical games with memoized arithmetic. See the module text.
#[derive(Debug)]
pub struct Arena {
    nodes: Vec<Node>,
    general: IdMap<Options, GameId>,
    numbers: HashMap<Dyadic, GameId>,
    nimbers: IdMap<u64, GameId>,
    le_memo: IdMap<(GameId, GameId), bool>,
    sum_memo: IdMap<(GameId, GameId), GameId>,
    neg_memo: IdMap<GameId, GameId>,
    ordinal_memo: IdMap<(GameId, GameId), GameId>,
    stops: IdMap<GameId, (Dyadic, Dyadic)>,
    temporary: HashSet<GameId, crate::fxhash::FxBuild>,
    birthdays: IdMap<GameId, u64>,
    budget: usize,
}

impl Default for Arena {
    fn default() -> Self {
        Arena::new()
    }
}

impl Arena {
    /// An arena with the [`DEFAULT_BUDGET`].
    pub fn new() -> Arena {
        Arena::with_budget(DEFAULT_BUDGET)
    }

    /// An arena that refuses to hold more than `budget` nodes and memo entries.
    pub fn with_budget(budget: usize) -> Arena {
        let mut a = Arena {
            nodes: Vec::new(),
            general: IdMap::default(),
            numbers: HashMap::new(),
            nimbers: IdMap::default(),
            le_memo: IdMap::default(),
            sum_memo: IdMap::default(),
            neg_memo: IdMap::default(),
            ordinal_memo: IdMap::default(),
            stops: IdMap::default(),
            temporary: HashSet::default(),
            birthdays: IdMap::default(),
            budget,
        };
        a.nodes.push(Node {
            kind: Kind::Number(Dyadic::ZERO),
            left: Some(Rc::from([])),
            right: Some(Rc::from([])),
        });
        a.numbers.insert(Dyadic::ZERO, Arena::ZERO);
        a
    }

    /// The game `0 = { | }`.
    pub const ZERO: GameId = GameId(0);

    /// Nodes and memo entries in use (what the budget counts).
    pub fn size(&self) -> usize {
        self.nodes.len()
            + self.le_memo.len()
            + self.sum_memo.len()
            + self.neg_memo.len()
            + self.ordinal_memo.len()
    }

    fn check_budget(&self) -> Result<(), PartizanError> {
        if self.size() > self.budget {
            Err(PartizanError::TooLarge { limit: self.budget })
        } else {
            Ok(())
        }
    }

    fn push(
        &mut self,
        kind: Kind,
        left: Option<Rc<[GameId]>>,
        right: Option<Rc<[GameId]>>,
    ) -> GameId {
        let id = GameId(u32::try_from(self.nodes.len()).expect("the budget keeps ids below 2^32"));
        self.nodes.push(Node { kind, left, right });
        id
    }

    /// The kind of a game.
    pub fn kind(&self, g: GameId) -> Kind {
        self.nodes[g.index()].kind
    }

    /// The number `x`.
    pub fn number(&mut self, x: Dyadic) -> GameId {
        if let Some(&id) = self.numbers.get(&x) {
            return id;
        }
        let id = self.push(Kind::Number(x), None, None);
        self.numbers.insert(x, id);
        id
    }

    /// The integer `n`.
    pub fn integer(&mut self, n: i128) -> GameId {
        self.number(Dyadic::integer(n))
    }

    /// The nimber `*n` (`*0` is 0).
    pub fn nimber(&mut self, n: u64) -> GameId {
        if n == 0 {
            return Arena::ZERO;
        }
        if let Some(&id) = self.nimbers.get(&n) {
            return id;
        }
        let id = self.push(Kind::Nimber(n), None, None);
        self.nimbers.insert(n, id);
        id
    }

    /// Makes the options of a number or nimber node on first use.
    fn expand(&mut self, g: GameId) {
        if self.nodes[g.index()].left.is_some() {
            return;
        }
        let (left, right): (Vec<GameId>, Vec<GameId>) = match self.kind(g) {
            Kind::Number(x) => {
                let (num, exp) = (x.numerator(), x.exponent());
                if exp == 0 {
                    if num > 0 {
                        (vec![self.integer(num - 1)], vec![])
                    } else {
                        (vec![], vec![self.integer(num + 1)])
                    }
                } else {
                    let lo = Dyadic::new(num - 1, exp).expect("same exponent");
                    let hi = Dyadic::new(num + 1, exp).expect("same exponent");
                    (vec![self.number(lo)], vec![self.number(hi)])
                }
            }
            Kind::Nimber(n) => {
                let all: Vec<GameId> = (0..n).map(|i| self.nimber(i)).collect();
                (all.clone(), all)
            }
            Kind::Other => unreachable!("general nodes are made with their options"),
        };
        let node = &mut self.nodes[g.index()];
        node.left = Some(Rc::from(left));
        node.right = Some(Rc::from(right));
    }

    /// Left's options of a canonical game.
    pub fn left(&mut self, g: GameId) -> Rc<[GameId]> {
        self.expand(g);
        self.nodes[g.index()].left.clone().expect("expanded")
    }

    /// Right's options of a canonical game.
    pub fn right(&mut self, g: GameId) -> Rc<[GameId]> {
        self.expand(g);
        self.nodes[g.index()].right.clone().expect("expanded")
    }

    /// Is `g` a number?
    pub fn as_number(&self, g: GameId) -> Option<Dyadic> {
        match self.kind(g) {
            Kind::Number(x) => Some(x),
            _ => None,
        }
    }

    /// The game `{left | right}` in canonical form.
    pub fn game(&mut self, left: &[GameId], right: &[GameId]) -> Result<GameId, PartizanError> {
        self.canonical(left.to_vec(), right.to_vec())
    }

    /// `a ≥ 0` and `a ≤ 0` decide who wins: the outcome class of `g`.
    pub fn outcome(&mut self, g: GameId) -> Outcome {
        let ge = self.le(Arena::ZERO, g);
        let le = self.le(g, Arena::ZERO);
        match (ge, le) {
            (true, true) => Outcome::P,
            (true, false) => Outcome::Left,
            (false, true) => Outcome::Right,
            (false, false) => Outcome::N,
        }
    }

    /// `a ≥ b`.
    pub fn ge(&mut self, a: GameId, b: GameId) -> bool {
        self.le(b, a)
    }

    /// `a` and `b` are confused (incomparable): `a ‖ b`.
    pub fn confused(&mut self, a: GameId, b: GameId) -> bool {
        !self.le(a, b) && !self.le(b, a)
    }

    /// The birthday: 0 for 0, else one more than the largest birthday of an option.
    pub fn birthday(&mut self, g: GameId) -> u64 {
        let mut memo = std::mem::take(&mut self.birthdays);
        let b = self.birthday_memo(g, &mut memo);
        self.birthdays = memo;
        b
    }

    fn birthday_memo(&mut self, g: GameId, memo: &mut IdMap<GameId, u64>) -> u64 {
        match self.kind(g) {
            Kind::Nimber(n) => return n,
            Kind::Number(x) => {
                // An integer n is born on day |n|; m/2^k (m odd, k ≥ 1) on day ⌊|x|⌋ + k + 1.
                let whole = x.floor().unsigned_abs().min(u64::MAX as u128) as u64;
                let whole = if x.signum() < 0 && x.exponent() > 0 {
                    whole - 1
                } else {
                    whole
                };
                return if x.exponent() == 0 {
                    whole
                } else {
                    whole + 1 + x.exponent() as u64
                };
            }
            Kind::Other => {}
        }
        if let Some(&b) = memo.get(&g) {
            return b;
        }
        let mut b = 0;
        for o in self.left(g).iter().chain(self.right(g).iter()) {
            b = b.max(self.birthday_memo(*o, memo) + 1);
        }
        memo.insert(g, b);
        b
    }
}

/// Who wins a game with perfect play (the player who cannot move loses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Left wins, whoever starts (`G > 0`).
    Left,
    /// Right wins, whoever starts (`G < 0`).
    Right,
    /// The second player wins (`G = 0`).
    P,
    /// The first player wins (`G ‖ 0`).
    N,
}

impl Outcome {
    /// `"L"`, `"R"`, `"P"` or `"N"`.
    pub fn letter(self) -> &'static str {
        match self {
            Outcome::Left => "L",
            Outcome::Right => "R",
            Outcome::P => "P",
            Outcome::N => "N",
        }
    }
}

/// Runs `f` on a thread with a stack of `mib` MiB (comparisons of deep games recurse deeply).
pub fn with_big_stack<T: Send + 'static>(mib: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name("nimseq-partizan".into())
        .stack_size(mib << 20)
        .spawn(f)
        .expect("spawning a thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

#[cfg(test)]
mod tests;
