//! Numbers as users type them on the command line: `1000`, `1_000_000`, `1e6`, `2^20`, `3*2^20`.

use thiserror::Error;

/// Why a text is not a count.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum NumberError {
    /// Empty text.
    #[error("empty number")]
    Empty,
    /// Not a number in any accepted form.
    #[error("'{0}' is not a number (write e.g. 1000, 1_000_000, 1e6 or 2^20)")]
    Invalid(String),
    /// A power written as in Python or Fortran (`2**20`).
    #[error("'{0}' is not a number: write a power with '^', as in {1}")]
    DoubleStar(String, String),
    /// Negative.
    #[error("'{0}' is negative")]
    Negative(String),
    /// Not a whole number (e.g. `1.5`).
    #[error("'{0}' is not a whole number")]
    Fraction(String),
    /// Larger than 2^64 − 1.
    #[error("'{0}' is too large (at most 2^64 - 1)")]
    TooLarge(String),
}

/// Parses a non-negative whole number: digits with optional `_` separators, `AeB` (A may have a
/// fraction if the result is whole), `A^B`, and products of these with `*`.
pub fn parse_count(text: &str) -> Result<u64, NumberError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(NumberError::Empty);
    }
    if t.starts_with('-') {
        return Err(NumberError::Negative(t.to_string()));
    }
    if t.contains("**") {
        return Err(NumberError::DoubleStar(t.to_string(), t.replace("**", "^")));
    }
    let mut product: u64 = 1;
    for factor in t.split('*') {
        let f = parse_factor(t, factor.trim())?;
        product = product
            .checked_mul(f)
            .ok_or_else(|| NumberError::TooLarge(t.to_string()))?;
    }
    Ok(product)
}

fn parse_factor(whole: &str, f: &str) -> Result<u64, NumberError> {
    let invalid = || NumberError::Invalid(whole.to_string());
    let too_large = || NumberError::TooLarge(whole.to_string());
    if let Some((base, exp)) = f.split_once('^') {
        let base = parse_plain(whole, base)?;
        let exp = parse_plain(whole, exp)?;
        let exp = u32::try_from(exp).map_err(|_| too_large())?;
        return base.checked_pow(exp).ok_or_else(too_large);
    }
    if let Some((mant, exp)) = f.split_once(['e', 'E']) {
        let exp = parse_plain(whole, exp)?;
        let exp = u32::try_from(exp).map_err(|_| too_large())?;
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let frac = frac.trim_end_matches('0');
        if frac.len() as u32 > exp {
            return Err(NumberError::Fraction(whole.to_string()));
        }
        if int.is_empty() && frac.is_empty() {
            return Err(invalid());
        }
        let digits = format!("{int}{frac}");
        let mant = parse_plain(whole, if digits.is_empty() { "0" } else { &digits })?;
        let scale = 10u64
            .checked_pow(exp - frac.len() as u32)
            .ok_or_else(too_large)?;
        return mant.checked_mul(scale).ok_or_else(too_large);
    }
    if f.contains('.') {
        let (int, frac) = f.split_once('.').unwrap_or((f, ""));
        if frac.chars().all(|c| c == '0') && !int.is_empty() {
            return parse_plain(whole, int);
        }
        return Err(NumberError::Fraction(whole.to_string()));
    }
    parse_plain(whole, f)
}

fn parse_plain(whole: &str, s: &str) -> Result<u64, NumberError> {
    let s = s.trim();
    if s.is_empty()
        || s.starts_with('_')
        || s.ends_with('_')
        || !s.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return Err(if s.starts_with('-') {
            NumberError::Negative(whole.to_string())
        } else {
            NumberError::Invalid(whole.to_string())
        });
    }
    s.replace('_', "")
        .parse::<u64>()
        .map_err(|_| NumberError::TooLarge(whole.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted() {
        for (t, v) in [
            ("1000", 1000),
            ("1_000_000", 1_000_000),
            ("1e6", 1_000_000),
            ("1E6", 1_000_000),
            ("2.5e3", 2500),
            ("2^20", 1 << 20),
            ("2^24", 1 << 24),
            ("3*2^20", 3 << 20),
            (" 17 ", 17),
            ("0", 0),
            ("2^63", 1 << 63),
            ("18446744073709551615", u64::MAX),
            ("5.0", 5),
        ] {
            assert_eq!(parse_count(t), Ok(v), "{t}");
        }
    }

    #[test]
    fn rejected() {
        assert_eq!(parse_count(""), Err(NumberError::Empty));
        assert!(matches!(parse_count("-5"), Err(NumberError::Negative(_))));
        assert!(matches!(parse_count("abc"), Err(NumberError::Invalid(_))));
        assert!(matches!(parse_count("1.5"), Err(NumberError::Fraction(_))));
        assert!(matches!(
            parse_count("1.25e1"),
            Err(NumberError::Fraction(_))
        ));
        assert!(matches!(parse_count("2^64"), Err(NumberError::TooLarge(_))));
        assert!(matches!(parse_count("1e20"), Err(NumberError::TooLarge(_))));
        assert!(matches!(
            parse_count("18446744073709551616"),
            Err(NumberError::TooLarge(_))
        ));
        assert!(matches!(parse_count("2^^3"), Err(NumberError::Invalid(_))));
        assert!(matches!(parse_count("1__"), Err(NumberError::Invalid(_))));
        assert!(matches!(parse_count("e5"), Err(NumberError::Invalid(_))));
        // Python's power gets a hint (issue 29); a negative count says only that.
        let e = parse_count("2**20").unwrap_err().to_string();
        assert!(e.contains("write a power with '^', as in 2^20"), "{e}");
        assert_eq!(
            parse_count("-5").unwrap_err().to_string(),
            "'-5' is negative"
        );
    }
}
