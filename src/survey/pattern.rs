//! Survey patterns: a code with `?` wildcards, or a file listing one code per line.
//!
//! `?` stands for any octal digit 0–7, so `0.??` is the 64 codes `0.00` … `0.77` and `4.???` the
//! 512 codes `4.000` … `4.777`. Codes come out in numeric order, the first `?` varying slowest.
//! A pattern may also contain ordinary digits, `!` and a bracketed tail (`0.?[3]`): every
//! expansion must be a code that [`Rule::parse`] accepts. Codes are kept as written (`0.120`
//! and `0.12` are two rows, whose canonical codes agree); the survey reports both.

use std::path::Path;

use thiserror::Error;

use crate::rules::{Rule, RuleError};

/// Most games one survey may hold (8^7 codes: seven wildcards).
pub const MAX_GAMES: usize = 1 << 21;

/// Why a pattern or a list of codes cannot be expanded.
#[derive(Debug, Error)]
pub enum PatternError {
    /// The pattern expands to too many games.
    #[error("pattern '{pattern}' has {wildcards} wildcards: 8^{wildcards} games is more than the {MAX_GAMES} a survey may hold")]
    TooMany {
        /// The pattern.
        pattern: String,
        /// How many `?` it has.
        wildcards: u32,
    },
    /// An expansion is not a game code.
    #[error("pattern '{pattern}': {source}")]
    BadCode {
        /// The pattern.
        pattern: String,
        /// Why the expansion (or the pattern itself) is not a code.
        source: RuleError,
    },
    /// A line of a code file is not a game code.
    #[error("{path}, line {line}: {source}")]
    BadLine {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// Why the line is not a game.
        source: RuleError,
    },
    /// A code file lists the same code twice.
    #[error("{path}, line {line}: code '{code}' is already listed on line {first}")]
    Duplicate {
        /// The file.
        path: String,
        /// 1-based line number of the repetition.
        line: usize,
        /// The code as written.
        code: String,
        /// 1-based line of its first occurrence.
        first: usize,
    },
    /// A code file that lists nothing.
    #[error("{path} lists no game codes (one code per line; '#' starts a comment)")]
    EmptyFile {
        /// The file.
        path: String,
    },
    /// A code file that cannot be read.
    #[error("cannot read code file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// One game of a survey: the code as written and its rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    /// The code as the pattern or file wrote it.
    pub code: String,
    /// Its rule.
    pub rule: Rule,
}

/// Does `text` look like a pattern (rather than a file name)? A text with a `?` and no `/` is a
/// pattern; so is one made only of digits, letters A–F, `.`, `!` and brackets with a point.
/// Anything else is taken as a file: write `./0.77` to read a file whose name looks like a code.
pub fn is_pattern(text: &str) -> bool {
    let t = text.trim();
    if t.contains('/') {
        return false;
    }
    t.contains('?')
        || t.contains('.')
            && t.chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, '.' | '?' | '!' | '[' | ']'))
}

/// The games of a pattern (see the module text) or, when `text` is not a pattern, of the code
/// file it names.
pub fn games(text: &str) -> Result<Vec<Game>, PatternError> {
    if is_pattern(text) {
        expand(text)
    } else {
        read_file(Path::new(text))
    }
}

/// Expands the `?` wildcards of a pattern into codes, in numeric order.
pub fn expand(pattern: &str) -> Result<Vec<Game>, PatternError> {
    let pattern = pattern.trim();
    let wildcards = pattern.matches('?').count() as u32;
    if 8usize.checked_pow(wildcards).is_none_or(|n| n > MAX_GAMES) {
        return Err(PatternError::TooMany {
            pattern: pattern.to_string(),
            wildcards,
        });
    }
    let bad = |source| PatternError::BadCode {
        pattern: pattern.to_string(),
        source,
    };
    // The pattern with every '?' as 0 must itself be a code: reports a bad pattern once, with
    // the position the user typed.
    Rule::parse(&pattern.replace('?', "0")).map_err(bad)?;
    let total = 8usize.pow(wildcards);
    let mut games = Vec::with_capacity(total);
    let mut code = String::with_capacity(pattern.len());
    for i in 0..total {
        code.clear();
        // Digit j (0-based from the left) of `i` in base 8, with `wildcards` digits.
        let mut seen = 0;
        for c in pattern.chars() {
            if c == '?' {
                let shift = 3 * (wildcards - 1 - seen);
                code.push(char::from(b'0' + ((i >> shift) & 7) as u8));
                seen += 1;
            } else {
                code.push(c);
            }
        }
        let rule = Rule::parse(&code).map_err(bad)?;
        games.push(Game {
            code: code.clone(),
            rule,
        });
    }
    Ok(games)
}

/// Reads a file of codes: one per line, blank lines and `#` comments ignored.
pub fn read_file(path: &Path) -> Result<Vec<Game>, PatternError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| PatternError::Io {
        path: name.clone(),
        source,
    })?;
    parse_list(&name, &text)
}

/// Parses the text of a code file (see [`read_file`]); `name` is used in messages.
pub fn parse_list(name: &str, text: &str) -> Result<Vec<Game>, PatternError> {
    let mut games: Vec<Game> = Vec::new();
    let mut first_line = std::collections::HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split('#').next().unwrap_or("").trim();
        if code.is_empty() {
            continue;
        }
        let rule = Rule::parse(code).map_err(|source| PatternError::BadLine {
            path: name.to_string(),
            line: i + 1,
            source,
        })?;
        if let Some(&first) = first_line.get(code) {
            return Err(PatternError::Duplicate {
                path: name.to_string(),
                line: i + 1,
                code: code.to_string(),
                first,
            });
        }
        first_line.insert(code.to_string(), i + 1);
        games.push(Game {
            code: code.to_string(),
            rule,
        });
    }
    if games.is_empty() {
        return Err(PatternError::EmptyFile {
            path: name.to_string(),
        });
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(p: &str) -> Vec<String> {
        expand(p).unwrap().into_iter().map(|g| g.code).collect()
    }

    #[test]
    fn two_wildcards_in_numeric_order() {
        let c = codes("0.??");
        assert_eq!(c.len(), 64);
        assert_eq!(c[0], "0.00");
        assert_eq!(c[1], "0.01");
        assert_eq!(c[8], "0.10");
        assert_eq!(c[63], "0.77");
        let mut sorted = c.clone();
        sorted.sort();
        assert_eq!(sorted, c);
    }

    #[test]
    fn fixed_digits_and_d0() {
        assert_eq!(
            codes("0.1?"),
            ["0.10", "0.11", "0.12", "0.13", "0.14", "0.15", "0.16", "0.17"]
        );
        let c = codes("4.???");
        assert_eq!(c.len(), 512);
        assert_eq!(c[511], "4.777");
        assert_eq!(codes("0.77"), ["0.77"]);
        assert_eq!(codes("0.?[3]").len(), 8);
    }

    #[test]
    fn canonical_rules_of_expansions() {
        let g = expand("0.1?").unwrap();
        assert_eq!(g[0].rule.code(), "0.1");
        assert_eq!(g[7].rule.code(), "0.17");
    }

    #[test]
    fn bad_patterns() {
        assert!(matches!(
            expand("0.????????"),
            Err(PatternError::TooMany { wildcards: 8, .. })
        ));
        let e = expand("0.?x").unwrap_err().to_string();
        assert!(e.contains("'0.?x'"), "{e}");
        assert!(!is_pattern("codes.txt"));
        assert!(!is_pattern("dir/0.77"));
        assert!(!is_pattern("./0.77"));
        assert!(is_pattern("0.?x"));
        assert!(is_pattern("0.??"));
        assert!(is_pattern(".??"));
        assert!(is_pattern("4!.0"));
    }

    #[test]
    fn code_files() {
        let g = parse_list("f", "# survey\n0.77\n\n0.137  # Dawson's chess\nkayles\n").unwrap();
        let c: Vec<_> = g.iter().map(|g| g.code.as_str()).collect();
        assert_eq!(c, ["0.77", "0.137", "kayles"]);
        let e = parse_list("f", "0.77\n0.7x\n").unwrap_err().to_string();
        assert!(e.starts_with("f, line 2: "), "{e}");
        let e = parse_list("f", "0.77\n0.6\n0.77\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "f, line 3: code '0.77' is already listed on line 1");
        assert!(matches!(
            parse_list("f", "# nothing\n"),
            Err(PatternError::EmptyFile { .. })
        ));
    }
}
