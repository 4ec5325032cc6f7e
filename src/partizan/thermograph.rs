//! Stops, thermographs, mean and temperature (Winning Ways ch. 6; Siegel, ch. II.5).
//!
//! For a game `G` that is not a number, cooling by `t ≥ 0` gives the walls
//! `LW(t) = max RW(Gᴸ)(t) − t` and `RW(t) = min LW(Gᴿ)(t) + t` until they meet at the
//! *temperature* `T`; above `T` both walls are the vertical mast at the *mean* `m(G)`. A number
//! `x` has the mast `x` for every `t ≥ 0`; its temperature is, as in CGSuite, `-1` for an
//! integer and `-1/2^k` for `m/2^k` with `m` odd. A non-number whose two stops are equal
//! (an infinitesimal shifted by a number, such as `↑` or `1*`) has temperature 0 and its stop
//! as mean. The walls are piecewise linear with slopes `-1`, `0`, `1` and dyadic corners, and
//! are computed exactly; a corner whose denominator would exceed `2^MAX_EXP` gives
//! [`PartizanError::Overflow`].

use std::collections::HashMap;

use super::{Arena, Dyadic, GameId, Kind, PartizanError};

/// A continuous piecewise-linear function on `t ≥ 0`: pieces `(start, value at start, slope)`,
/// the first starting at 0, each running to the next start, the last for ever.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wall(Vec<(Dyadic, Dyadic, i8)>);

fn times(x: Dyadic, k: i8) -> Result<Dyadic, PartizanError> {
    let mut s = Dyadic::ZERO;
    let term = if k < 0 {
        x.checked_neg().ok_or(PartizanError::Overflow)?
    } else {
        x
    };
    for _ in 0..k.unsigned_abs() {
        s = s.checked_add(term).ok_or(PartizanError::Overflow)?;
    }
    Ok(s)
}

fn plus(a: Dyadic, b: Dyadic) -> Result<Dyadic, PartizanError> {
    a.checked_add(b).ok_or(PartizanError::Overflow)
}

fn minus(a: Dyadic, b: Dyadic) -> Result<Dyadic, PartizanError> {
    plus(a, b.checked_neg().ok_or(PartizanError::Overflow)?)
}

/// `x / k` for `k` in 1, 2 (the only slope differences of walls).
fn divide(x: Dyadic, k: i8) -> Result<Dyadic, PartizanError> {
    let x = if k < 0 {
        x.checked_neg().ok_or(PartizanError::Overflow)?
    } else {
        x
    };
    match k.unsigned_abs() {
        1 => Ok(x),
        2 => Dyadic::new(x.numerator(), x.exponent() + 1).ok_or(PartizanError::Overflow),
        _ => unreachable!("wall slopes differ by at most 2"),
    }
}

impl Wall {
    /// The constant `x`.
    pub fn constant(x: Dyadic) -> Wall {
        Wall(vec![(Dyadic::ZERO, x, 0)])
    }

    /// The value at `t`.
    pub fn at(&self, t: Dyadic) -> Result<Dyadic, PartizanError> {
        let &(s, v, k) = self
            .0
            .iter()
            .rev()
            .find(|p| p.0 <= t)
            .expect("the first piece starts at 0");
        plus(v, times(minus(t, s)?, k)?)
    }

    /// `f(t) + k·t`.
    fn tilt(&self, k: i8) -> Result<Wall, PartizanError> {
        let mut out = Vec::with_capacity(self.0.len());
        for &(s, v, sl) in &self.0 {
            out.push((s, plus(v, times(s, k)?)?, sl + k));
        }
        Ok(Wall(out))
    }

    /// The pieces of `self` and `other` over common intervals: `(start, end, f(start), f slope,
    /// g(start), g slope)`.
    #[allow(clippy::type_complexity)]
    fn common(
        &self,
        other: &Wall,
    ) -> Result<Vec<(Dyadic, Option<Dyadic>, Dyadic, i8, Dyadic, i8)>, PartizanError> {
        let mut starts: Vec<Dyadic> = self.0.iter().chain(other.0.iter()).map(|p| p.0).collect();
        starts.sort();
        starts.dedup();
        let slope = |w: &Wall, t: Dyadic| w.0.iter().rev().find(|p| p.0 <= t).expect("").2;
        let mut out = Vec::new();
        for (i, &a) in starts.iter().enumerate() {
            let b = starts.get(i + 1).copied();
            out.push((
                a,
                b,
                self.at(a)?,
                slope(self, a),
                other.at(a)?,
                slope(other, a),
            ));
        }
        Ok(out)
    }

    /// The pointwise maximum (`max = true`) or minimum.
    fn extreme(&self, other: &Wall, max: bool) -> Result<Wall, PartizanError> {
        let mut out: Vec<(Dyadic, Dyadic, i8)> = Vec::new();
        let pick = |fa: Dyadic, sf: i8, ga: Dyadic, sg: i8| {
            // Which is larger just after the point: compare values, then slopes.
            let f_first = (fa, sf) >= (ga, sg);
            if f_first == max {
                (fa, sf)
            } else {
                (ga, sg)
            }
        };
        for (a, b, fa, sf, ga, sg) in self.common(other)? {
            let (v, s) = pick(fa, sf, ga, sg);
            out.push((a, v, s));
            if sf != sg {
                // Crossing inside (a, b)?
                let t = plus(a, divide(minus(ga, fa)?, sf - sg)?)?;
                if t > a && b.is_none_or(|b| t < b) {
                    let fv = plus(fa, times(minus(t, a)?, sf)?)?;
                    let gv = plus(ga, times(minus(t, a)?, sg)?)?;
                    let (v, s) = pick(fv, sf, gv, sg);
                    out.push((t, v, s));
                }
            }
        }
        Ok(Wall(merge(out)?))
    }

    /// The first `t ≥ 0` with `self(t) ≤ other(t)`.
    fn first_below(&self, other: &Wall) -> Result<Option<Dyadic>, PartizanError> {
        for (a, b, fa, sf, ga, sg) in self.common(other)? {
            let d = minus(fa, ga)?;
            if d.signum() <= 0 {
                return Ok(Some(a));
            }
            if sf < sg {
                let t = plus(a, divide(d, sg - sf)?)?;
                if b.is_none_or(|b| t < b) {
                    return Ok(Some(t));
                }
            }
        }
        Ok(None)
    }

    /// The wall up to `t`, then constant.
    fn until(&self, t: Dyadic) -> Result<Wall, PartizanError> {
        let mut out: Vec<(Dyadic, Dyadic, i8)> =
            self.0.iter().copied().filter(|p| p.0 < t).collect();
        out.push((t, self.at(t)?, 0));
        Ok(Wall(merge(out)?))
    }

    /// The corners `(t, value)` where the slope changes, and the final slope.
    pub fn pieces(&self) -> &[(Dyadic, Dyadic, i8)] {
        &self.0
    }
}

/// Joins consecutive pieces on one line.
fn merge(pieces: Vec<(Dyadic, Dyadic, i8)>) -> Result<Vec<(Dyadic, Dyadic, i8)>, PartizanError> {
    let mut out: Vec<(Dyadic, Dyadic, i8)> = Vec::with_capacity(pieces.len());
    for p in pieces {
        if let Some(&(_, _, s)) = out.last() {
            if s == p.2 {
                continue;
            }
        }
        out.push(p);
    }
    Ok(out)
}

/// The thermograph of a game: its walls, mean and temperature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thermograph {
    /// The Left wall (from the Left stop at `t = 0` up to the mast).
    pub left: Wall,
    /// The Right wall.
    pub right: Wall,
    /// The mean value (the mast).
    pub mean: Dyadic,
    /// The temperature (negative for numbers, as in CGSuite).
    pub temperature: Dyadic,
}

/// Thermographs of many games, sharing the walls of common subgames.
#[derive(Debug, Default)]
pub struct Thermographer {
    memo: HashMap<GameId, Thermograph>,
}

impl Thermographer {
    /// A thermographer with nothing computed.
    pub fn new() -> Thermographer {
        Thermographer::default()
    }

    /// The thermograph of `g`.
    pub fn thermograph(
        &mut self,
        arena: &mut Arena,
        g: GameId,
    ) -> Result<Thermograph, PartizanError> {
        if let Some(t) = self.memo.get(&g) {
            return Ok(t.clone());
        }
        let t = self.compute(arena, g)?;
        self.memo.insert(g, t.clone());
        Ok(t)
    }

    fn compute(&mut self, arena: &mut Arena, g: GameId) -> Result<Thermograph, PartizanError> {
        if let Kind::Number(x) = arena.kind(g) {
            let temperature = Dyadic::new(-1, x.exponent()).ok_or(PartizanError::Overflow)?;
            return Ok(Thermograph {
                left: Wall::constant(x),
                right: Wall::constant(x),
                mean: x,
                temperature,
            });
        }
        let (ls, rs) = arena.stops(g);
        if ls == rs {
            return Ok(Thermograph {
                left: Wall::constant(ls),
                right: Wall::constant(ls),
                mean: ls,
                temperature: Dyadic::ZERO,
            });
        }
        let mut left: Option<Wall> = None;
        for &l in arena.left(g).iter() {
            let w = self.thermograph(arena, l)?.right.tilt(-1)?;
            left = Some(match left {
                None => w,
                Some(m) => m.extreme(&w, true)?,
            });
        }
        let mut right: Option<Wall> = None;
        for &r in arena.right(g).iter() {
            let w = self.thermograph(arena, r)?.left.tilt(1)?;
            right = Some(match right {
                None => w,
                Some(m) => m.extreme(&w, false)?,
            });
        }
        let (left, right) = (
            left.expect("a non-number has Left options"),
            right.expect("a non-number has Right options"),
        );
        let t = left
            .first_below(&right)?
            .expect("the walls of a short game meet");
        let mean = left.at(t)?;
        Ok(Thermograph {
            left: left.until(t)?,
            right: right.until(t)?,
            mean,
            temperature: t,
        })
    }
}

/// The mean and temperature of `g`.
pub fn mean_and_temperature(
    arena: &mut Arena,
    g: GameId,
) -> Result<(Dyadic, Dyadic), PartizanError> {
    let t = Thermographer::new().thermograph(arena, g)?;
    Ok((t.mean, t.temperature))
}
