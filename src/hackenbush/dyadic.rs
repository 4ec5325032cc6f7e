//! Exact dyadic rationals `n / 2^e`: the values of Blue–Red Hackenbush positions.

use std::cmp::Ordering;
use std::fmt;

/// Largest exponent of the denominator a [`Dyadic`] may have.
pub const MAX_EXP: u32 = 120;

/// The number `num / 2^exp`, always reduced (`exp == 0` or `num` odd).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Dyadic {
    num: i128,
    exp: u32,
}

impl Dyadic {
    /// Zero.
    pub const ZERO: Dyadic = Dyadic { num: 0, exp: 0 };

    /// `num / 2^exp`, reduced; `None` if `exp > MAX_EXP`.
    pub fn new(num: i128, exp: u32) -> Option<Dyadic> {
        if exp > MAX_EXP {
            return None;
        }
        let mut d = Dyadic { num, exp };
        if num == 0 {
            d.exp = 0;
        } else {
            let z = num.trailing_zeros().min(exp);
            d.num >>= z;
            d.exp -= z;
        }
        Some(d)
    }

    /// The integer `n`.
    pub fn integer(n: i128) -> Dyadic {
        Dyadic { num: n, exp: 0 }
    }

    /// The numerator of the reduced fraction.
    pub fn numerator(self) -> i128 {
        self.num
    }

    /// The exponent `e` of the denominator `2^e` of the reduced fraction.
    pub fn exponent(self) -> u32 {
        self.exp
    }

    /// The largest integer not above the number.
    pub fn floor(self) -> i128 {
        self.num >> self.exp
    }

    /// The sum, or `None` if it does not fit.
    pub fn checked_add(self, other: Dyadic) -> Option<Dyadic> {
        let e = self.exp.max(other.exp);
        let a = self.num.checked_mul(1i128 << (e - self.exp))?;
        let b = other.num.checked_mul(1i128 << (e - other.exp))?;
        Dyadic::new(a.checked_add(b)?, e)
    }

    /// The negation, or `None` if it does not fit.
    pub fn checked_neg(self) -> Option<Dyadic> {
        Some(Dyadic {
            num: self.num.checked_neg()?,
            exp: self.exp,
        })
    }

    /// The sign: -1, 0 or 1.
    pub fn signum(self) -> i32 {
        self.num.signum() as i32
    }

    /// The whole part (rounded towards zero) and the remaining fraction's numerator, for mixed
    /// numbers such as `2 13/32` or `-2 13/32` (the fraction carries no sign).
    pub fn mixed(self) -> (i128, u128, u128) {
        let den = 1u128 << self.exp;
        let abs = self.num.unsigned_abs();
        let whole = (abs / den) as i128;
        let whole = if self.num < 0 { -whole } else { whole };
        (whole, abs % den, den)
    }
}

impl Ord for Dyadic {
    fn cmp(&self, other: &Self) -> Ordering {
        // Compare whole parts first, then fractions aligned to the larger exponent
        // (both fractions are below 2^MAX_EXP, so the alignment cannot overflow).
        let (fa, fb) = (self.floor(), other.floor());
        if fa != fb {
            return fa.cmp(&fb);
        }
        let e = self.exp.max(other.exp);
        let ra = (self.num - (fa << self.exp)) << (e - self.exp);
        let rb = (other.num - (fb << other.exp)) << (e - other.exp);
        ra.cmp(&rb)
    }
}

impl PartialOrd for Dyadic {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Dyadic {
    /// The reduced fraction: `77/32`, `-55/64`, `3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.exp == 0 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, 1u128 << self.exp)
        }
    }
}

/// The simplest number strictly between `lo` and `hi` (`None`: no bound on that side), as in
/// Conway's simplicity rule: 0 if possible, else the integer nearest 0, else the dyadic with
/// the smallest denominator. `None` if the interval is empty or the answer does not fit.
pub fn simplest_between(lo: Option<Dyadic>, hi: Option<Dyadic>) -> Option<Dyadic> {
    if let (Some(l), Some(h)) = (lo, hi) {
        if l >= h {
            return None;
        }
    }
    let above = |x: Dyadic, bound: Option<Dyadic>| bound.is_none_or(|b| x > b);
    let below = |x: Dyadic, bound: Option<Dyadic>| bound.is_none_or(|b| x < b);
    if above(Dyadic::ZERO, lo) && below(Dyadic::ZERO, hi) {
        return Some(Dyadic::ZERO);
    }
    if let Some(l) = lo.filter(|l| l.signum() >= 0) {
        // The interval lies at or above 0: try the least integer above lo.
        let n = Dyadic::integer(l.floor().checked_add(1)?);
        if below(n, hi) {
            return Some(n);
        }
    } else if let Some(h) = hi {
        // The interval lies at or below 0: the greatest integer below hi.
        let c = if h.exp == 0 { h.num } else { h.floor() + 1 };
        let n = Dyadic::integer(c.checked_sub(1)?);
        if above(n, lo) {
            return Some(n);
        }
    }
    // No integer inside: both bounds are finite and within one unit.
    let (l, h) = (lo?, hi?);
    for e in 1..=MAX_EXP {
        // The least multiple of 2^-e above l.
        let m = floor_scaled(l, e)?.checked_add(1)?;
        let x = Dyadic::new(m, e)?;
        if x < h {
            return Some(x);
        }
    }
    None
}

/// `floor(x * 2^e)`.
fn floor_scaled(x: Dyadic, e: u32) -> Option<i128> {
    if e >= x.exp {
        x.num.checked_mul(1i128 << (e - x.exp))
    } else {
        Some(x.num >> (x.exp - e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(num: i128, exp: u32) -> Dyadic {
        Dyadic::new(num, exp).unwrap()
    }

    #[test]
    fn reduces_and_prints() {
        assert_eq!(d(154, 6).to_string(), "77/32");
        assert_eq!(d(-55, 6).to_string(), "-55/64");
        assert_eq!(d(12, 2).to_string(), "3");
        assert_eq!(d(0, 5).to_string(), "0");
        assert_eq!(d(77, 5).mixed(), (2, 13, 32));
        assert_eq!(d(-77, 5).mixed(), (-2, 13, 32));
        assert_eq!(d(-55, 6).mixed(), (0, 55, 64));
    }

    #[test]
    fn orders_and_adds() {
        assert!(d(-1, 1) < d(1, 3));
        assert!(d(-3, 1) < d(-1, 0));
        assert!(d(5, 2) > d(9, 3));
        assert_eq!(d(77, 5).checked_add(d(-55, 6)).unwrap(), d(99, 6));
        assert_eq!(d(1, 1).checked_add(d(1, 1)).unwrap(), d(1, 0));
    }

    #[test]
    fn simplest_numbers() {
        let s = |lo: Option<Dyadic>, hi: Option<Dyadic>| simplest_between(lo, hi).unwrap();
        assert_eq!(s(None, None), Dyadic::ZERO);
        assert_eq!(s(Some(d(0, 0)), None), d(1, 0));
        assert_eq!(s(None, Some(d(0, 0))), d(-1, 0));
        assert_eq!(s(Some(d(0, 0)), Some(d(1, 0))), d(1, 1));
        assert_eq!(s(Some(d(2, 0)), Some(d(5, 1))), d(9, 2));
        assert_eq!(s(Some(d(-3, 0)), Some(d(-5, 1))), d(-11, 2));
        assert_eq!(s(Some(d(-3, 0)), Some(d(-5, 2))), d(-2, 0));
        assert_eq!(s(Some(d(-7, 2)), Some(d(7, 1))), Dyadic::ZERO);
        assert_eq!(s(Some(d(3, 1)), Some(d(9, 2))), d(2, 0));
        assert_eq!(s(Some(d(-9, 2)), Some(d(-3, 1))), d(-2, 0));
        assert_eq!(simplest_between(Some(d(1, 0)), Some(d(1, 0))), None);
    }
}
