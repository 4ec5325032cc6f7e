//! Sums, negatives, differences and ordinal sums of canonical games.

use super::{Arena, GameId, Kind, PartizanError};

impl Arena {
    /// `a + b` in canonical form (memoized).
    pub fn add(&mut self, a: GameId, b: GameId) -> Result<GameId, PartizanError> {
        if a == Arena::ZERO {
            return Ok(b);
        }
        if b == Arena::ZERO {
            return Ok(a);
        }
        match (self.kind(a), self.kind(b)) {
            (Kind::Number(x), Kind::Number(y)) => {
                let s = x.checked_add(y).ok_or(PartizanError::Overflow)?;
                return Ok(self.number(s));
            }
            (Kind::Nimber(m), Kind::Nimber(n)) => return Ok(self.nimber(m ^ n)),
            _ => {}
        }
        let key = (a.min(b), a.max(b));
        if let Some(&s) = self.sum_memo.get(&key) {
            return Ok(s);
        }
        self.check_budget()?;
        let (mut left, mut right) = (Vec::new(), Vec::new());
        // Number translation: x + G = {Gᴸ + x | Gᴿ + x} when G is not a number.
        let a_number = self.as_number(a).is_some();
        let b_number = self.as_number(b).is_some();
        if !a_number || b_number {
            for &al in self.left(a).iter() {
                left.push(self.add(al, b)?);
            }
            for &ar in self.right(a).iter() {
                right.push(self.add(ar, b)?);
            }
        }
        if !b_number || a_number {
            for &bl in self.left(b).iter() {
                left.push(self.add(a, bl)?);
            }
            for &br in self.right(b).iter() {
                right.push(self.add(a, br)?);
            }
        }
        let s = self.canonical(left, right)?;
        self.sum_memo.insert(key, s);
        Ok(s)
    }

    /// The sum of several games (0 for none).
    pub fn add_all(&mut self, games: &[GameId]) -> Result<GameId, PartizanError> {
        let mut s = Arena::ZERO;
        for &g in games {
            s = self.add(s, g)?;
        }
        Ok(s)
    }

    /// `-g = {-Gᴿ | -Gᴸ}` (the negative of a canonical form is canonical).
    pub fn neg(&mut self, g: GameId) -> Result<GameId, PartizanError> {
        match self.kind(g) {
            Kind::Number(x) => {
                let n = x.checked_neg().ok_or(PartizanError::Overflow)?;
                return Ok(self.number(n));
            }
            Kind::Nimber(_) => return Ok(g),
            Kind::Other => {}
        }
        if let Some(&n) = self.neg_memo.get(&g) {
            return Ok(n);
        }
        self.check_budget()?;
        let mut left = Vec::new();
        for &r in self.right(g).iter() {
            left.push(self.neg(r)?);
        }
        let mut right = Vec::new();
        for &l in self.left(g).iter() {
            right.push(self.neg(l)?);
        }
        let n = self.intern(left, right);
        self.neg_memo.insert(g, n);
        self.neg_memo.insert(n, g);
        Ok(n)
    }

    /// `a - b`.
    pub fn sub(&mut self, a: GameId, b: GameId) -> Result<GameId, PartizanError> {
        let nb = self.neg(b)?;
        self.add(a, nb)
    }

    /// The ordinal sum `base : sub`: Left may move in `base` (which removes `sub`) or in `sub`
    /// (which keeps `base`): `{baseᴸ, base:subᴸ | baseᴿ, base:subᴿ}`. It depends on the form of
    /// `base` (here its canonical form) and only on the value of `sub`.
    pub fn ordinal(&mut self, base: GameId, sub: GameId) -> Result<GameId, PartizanError> {
        if sub == Arena::ZERO {
            return Ok(base);
        }
        if let Some(&s) = self.ordinal_memo.get(&(base, sub)) {
            return Ok(s);
        }
        self.check_budget()?;
        let mut left: Vec<GameId> = self.left(base).to_vec();
        let mut right: Vec<GameId> = self.right(base).to_vec();
        for &sl in self.left(sub).iter() {
            left.push(self.ordinal(base, sl)?);
        }
        for &sr in self.right(sub).iter() {
            right.push(self.ordinal(base, sr)?);
        }
        let s = self.canonical(left, right)?;
        self.ordinal_memo.insert((base, sub), s);
        Ok(s)
    }
}
