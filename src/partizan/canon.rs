//! Comparison and canonical forms: Conway's `≤`, dominated and reversible options, interning.

use std::rc::Rc;

use super::{Arena, Dyadic, GameId, Kind, PartizanError};
use crate::hackenbush::simplest_between;

impl Arena {
    /// `a ≤ b`: no `aᴸ ≥ b` and no `bᴿ ≤ a` (memoized).
    pub fn le(&mut self, a: GameId, b: GameId) -> bool {
        if a == b {
            return true;
        }
        match (self.kind(a), self.kind(b)) {
            (Kind::Number(x), Kind::Number(y)) => return x <= y,
            // Distinct nimbers are confused; *n ≤ y exactly when y > 0.
            (Kind::Nimber(_), Kind::Nimber(_)) => return false,
            (Kind::Nimber(_), Kind::Number(y)) => return y.signum() > 0,
            (Kind::Number(x), Kind::Nimber(_)) => return x.signum() < 0,
            // Against a number, the stops decide unless they equal it.
            (Kind::Other, Kind::Number(y)) => {
                if let Some((ls, _)) = self.stops_if_known(a) {
                    if ls < y {
                        return true;
                    }
                    if ls > y {
                        return false;
                    }
                }
            }
            (Kind::Number(x), Kind::Other) => {
                if let Some((_, rs)) = self.stops_if_known(b) {
                    if rs > x {
                        return true;
                    }
                    if rs < x {
                        return false;
                    }
                }
            }
            _ => {}
        }
        if let Some(&r) = self.le_memo.get(&(a, b)) {
            return r;
        }
        let mut r = true;
        for &al in self.left(a).iter() {
            if self.le(b, al) {
                r = false;
                break;
            }
        }
        if r {
            for &br in self.right(b).iter() {
                if self.le(br, a) {
                    r = false;
                    break;
                }
            }
        }
        self.le_memo.insert((a, b), r);
        r
    }

    /// `a = b` (for canonical games this is `a == b`).
    pub fn eq(&mut self, a: GameId, b: GameId) -> bool {
        self.le(a, b) && self.le(b, a)
    }

    /// The Left and Right stops of a canonical game (computed once, then kept).
    pub fn stops(&mut self, g: GameId) -> (Dyadic, Dyadic) {
        if let Some(x) = self.as_number(g) {
            return (x, x);
        }
        if let Kind::Nimber(_) = self.kind(g) {
            return (Dyadic::ZERO, Dyadic::ZERO);
        }
        if let Some(&s) = self.stops.get(&g) {
            return s;
        }
        // A canonical non-number has options on both sides.
        let mut ls: Option<Dyadic> = None;
        for &l in self.left(g).iter() {
            let v = self.stops(l).1;
            ls = Some(ls.map_or(v, |m| m.max(v)));
        }
        let mut rs: Option<Dyadic> = None;
        for &r in self.right(g).iter() {
            let v = self.stops(r).0;
            rs = Some(rs.map_or(v, |m| m.min(v)));
        }
        let s = (
            ls.expect("a canonical non-number has a Left option"),
            rs.expect("a canonical non-number has a Right option"),
        );
        self.stops.insert(g, s);
        s
    }

    /// The stops, for interned games only (temporary forms made while simplifying are not
    /// canonical and may lack options on one side).
    fn stops_if_known(&mut self, g: GameId) -> Option<(Dyadic, Dyadic)> {
        if self.is_temporary(g) {
            None
        } else {
            Some(self.stops(g))
        }
    }

    fn is_temporary(&self, g: GameId) -> bool {
        self.temporary.contains(&g)
    }

    /// Keeps the options that no other option beats: the largest for Left (`left = true`), the
    /// smallest for Right. Options are canonical, so distinct ids are distinct values.
    fn undominated(&mut self, mut opts: Vec<GameId>, left: bool) -> Vec<GameId> {
        opts.sort_unstable();
        opts.dedup();
        let mut keep = Vec::with_capacity(opts.len());
        'next: for (i, &x) in opts.iter().enumerate() {
            for (j, &y) in opts.iter().enumerate() {
                if i != j && (if left { self.le(x, y) } else { self.le(y, x) }) {
                    continue 'next;
                }
            }
            keep.push(x);
        }
        keep
    }

    /// If all options are numbers with every Left option below every Right option, the
    /// simplest number between them.
    fn simplest_if_numbers(
        &mut self,
        left: &[GameId],
        right: &[GameId],
    ) -> Result<Option<GameId>, PartizanError> {
        let mut lo: Option<Dyadic> = None;
        let mut hi: Option<Dyadic> = None;
        for &l in left {
            let Some(x) = self.as_number(l) else {
                return Ok(None);
            };
            lo = Some(lo.map_or(x, |m| m.max(x)));
        }
        for &r in right {
            let Some(x) = self.as_number(r) else {
                return Ok(None);
            };
            hi = Some(hi.map_or(x, |m| m.min(x)));
        }
        if let (Some(l), Some(h)) = (lo, hi) {
            if l >= h {
                return Ok(None);
            }
        }
        let x = simplest_between(lo, hi).ok_or(PartizanError::Overflow)?;
        Ok(Some(self.number(x)))
    }

    /// The canonical form of `{left | right}`, whose options are canonical.
    pub(super) fn canonical(
        &mut self,
        left: Vec<GameId>,
        right: Vec<GameId>,
    ) -> Result<GameId, PartizanError> {
        self.check_budget()?;
        let mut left = self.undominated(left, true);
        let mut right = self.undominated(right, false);
        if let Some(x) = self.simplest_if_numbers(&left, &right)? {
            return Ok(x);
        }
        // The value never changes while simplifying, so one temporary node stands for it.
        let g = self.push(
            Kind::Other,
            Some(Rc::from(left.as_slice())),
            Some(Rc::from(right.as_slice())),
        );
        self.temporary.insert(g);
        loop {
            let mut changed = false;
            let mut new_left = Vec::with_capacity(left.len());
            for &l in &left {
                let mut bypass = None;
                for &lr in self.right(l).iter() {
                    if self.le(lr, g) {
                        bypass = Some(lr);
                        break;
                    }
                }
                match bypass {
                    Some(lr) => {
                        new_left.extend(self.left(lr).iter().copied());
                        changed = true;
                    }
                    None => new_left.push(l),
                }
            }
            let mut new_right = Vec::with_capacity(right.len());
            for &r in &right {
                let mut bypass = None;
                for &rl in self.left(r).iter() {
                    if self.le(g, rl) {
                        bypass = Some(rl);
                        break;
                    }
                }
                match bypass {
                    Some(rl) => {
                        new_right.extend(self.right(rl).iter().copied());
                        changed = true;
                    }
                    None => new_right.push(r),
                }
            }
            if !changed {
                break;
            }
            left = self.undominated(new_left, true);
            right = self.undominated(new_right, false);
        }
        if let Some(x) = self.simplest_if_numbers(&left, &right)? {
            return Ok(x);
        }
        if let Some(n) = self.nimber_if_star(&left, &right) {
            return Ok(self.nimber(n));
        }
        Ok(self.intern(left, right))
    }

    /// The game whose canonical form is `{left | right}`, for callers that know the options to
    /// be canonical games with none dominated or reversible (such as the string forms of
    /// [`crate::hackenbush`]): numbers and nimbers are recognised, nothing is compared.
    pub fn adopt_canonical(
        &mut self,
        left: Vec<GameId>,
        right: Vec<GameId>,
    ) -> Result<GameId, PartizanError> {
        self.check_budget()?;
        if let Some(x) = self.simplest_if_numbers(&left, &right)? {
            return Ok(x);
        }
        if let Some(n) = self.nimber_if_star(&left, &right) {
            return Ok(self.nimber(n));
        }
        Ok(self.intern(left, right))
    }

    /// `{*0, …, *(n-1) | *0, …, *(n-1)}` is `*n`.
    fn nimber_if_star(&self, left: &[GameId], right: &[GameId]) -> Option<u64> {
        if left != right {
            return None;
        }
        let mut seen = vec![false; left.len()];
        for &o in left {
            let n = match self.kind(o) {
                Kind::Number(x) if x == Dyadic::ZERO => 0,
                Kind::Nimber(n) => n,
                _ => return None,
            };
            *seen.get_mut(usize::try_from(n).ok()?)? = true;
        }
        seen.iter().all(|&s| s).then_some(left.len() as u64)
    }

    /// The id of the canonical form with these (sorted, canonical) options.
    pub(super) fn intern(&mut self, mut left: Vec<GameId>, mut right: Vec<GameId>) -> GameId {
        left.sort_unstable();
        right.sort_unstable();
        let key: (Rc<[GameId]>, Rc<[GameId]>) = (Rc::from(left), Rc::from(right));
        if let Some(&id) = self.general.get(&key) {
            return id;
        }
        let id = self.push(Kind::Other, Some(key.0.clone()), Some(key.1.clone()));
        self.general.insert(key, id);
        id
    }
}
