//! The minimal excludant: the least non-negative integer not among some values. Every Grundy
//! value is one (`G = mex` of the options' values); this one function serves the misère
//! canonical forms and the genus computation, which both depend on it and not on each other.
//! (The engines keep their own bit sets of marks, tuned to their loops, in `src/engine/`.)

/// The least non-negative integer not in `values`.
pub fn mex(values: impl Iterator<Item = u32>) -> u32 {
    let mut seen: u128 = 0;
    let mut big: Vec<u32> = Vec::new();
    for v in values {
        if v < 128 {
            seen |= 1 << v;
        } else {
            big.push(v);
        }
    }
    if seen != u128::MAX {
        return (!seen).trailing_zeros();
    }
    big.sort_unstable();
    big.dedup();
    let mut m = 128;
    for v in big {
        if v == m {
            m += 1;
        } else if v > m {
            break;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mex_works() {
        assert_eq!(mex([0, 1, 3].into_iter()), 2);
        assert_eq!(mex(std::iter::empty()), 0);
        assert_eq!(mex((0..200).filter(|&v| v != 150)), 150);
        assert_eq!(mex(0..200), 200);
    }
}
