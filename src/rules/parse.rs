//! The parser for game codes, subtraction sets and names.
//!
//! Grammar (whitespace around the whole text is ignored; case does not matter):
//! ```text
//! rule    = code | set | name
//! code    = [digit] "." {digit} ["[" digit {digit} "]"]
//! digit   = hexdigit ["!"]                 (the digit before the point: 0, 4, 8 or C)
//! set     = ("sub" | "allbut") ("(" | "{") [int {"," int}] (")" | "}")
//! name    = one of rules::NAMED_GAMES, ignoring case, "'", "_", spaces and "-"
//! ```

use thiserror::Error;

use super::{Digit, Rule, MAX_CODE_LEN, NAMED_GAMES};

/// Largest element of a subtraction set: the canonical code of `allbut(k)` (`0.` and `k` digits,
/// then `[3]`) must still be a code that [`Rule::parse`] accepts, so that every rule round-trips
/// through its code (tables and survey files store the code).
pub const MAX_SET_ELEMENT: usize = MAX_CODE_LEN - 5;

/// Why a text is not a game.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RuleError {
    /// Nothing was given.
    #[error("empty game code; give a code such as 0.77, a set such as sub(1,2,3), or a name such as kayles")]
    Empty,
    /// Longer than [`MAX_CODE_LEN`].
    #[error("game code is too long ({len} characters; at most {MAX_CODE_LEN})")]
    TooLong {
        /// Characters given.
        len: usize,
    },
    /// A name that is not in [`NAMED_GAMES`].
    #[error("unknown game '{name}'{}; known names: {}", suggestion.as_ref().map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default(), known_names())]
    UnknownName {
        /// What was given.
        name: String,
        /// The closest known name, when one is close.
        suggestion: Option<String>,
    },
    /// A character that has no place in a code.
    #[error("invalid character '{ch}' at position {pos} in game code '{code}' (digits are 0-9 and A-F, with '!' after a digit and one '[...]' tail)")]
    BadChar {
        /// The character.
        ch: char,
        /// 1-based position.
        pos: usize,
        /// The whole code.
        code: String,
    },
    /// Codes need the point so that digits have places.
    #[error("game code '{code}' has no point; write it as 0.{code} or d0.d1d2… (e.g. 0.77, 4.7)")]
    MissingPoint {
        /// The code.
        code: String,
    },
    /// More than one point.
    #[error("game code '{code}' has more than one point")]
    ExtraPoint {
        /// The code.
        code: String,
    },
    /// The digit before the point may only split.
    #[error("digit '{digit}' before the point in '{code}' is not allowed: it must be 0, 4, 8 or C (taking nothing may only split a heap)")]
    BadLeadingDigit {
        /// The digit.
        digit: char,
        /// The code.
        code: String,
    },
    /// More than one digit before the point.
    #[error("game code '{code}' has more than one digit before the point")]
    LongLeadingPart {
        /// The code.
        code: String,
    },
    /// `[` without `]`, `]` without `[`, or a second tail.
    #[error("unbalanced brackets in game code '{code}': a code may end with one repeating tail such as 0.1[37]")]
    Unbalanced {
        /// The code.
        code: String,
    },
    /// Something after the `]`.
    #[error("the repeating tail must come last in game code '{code}'")]
    TailNotLast {
        /// The code.
        code: String,
    },
    /// `[]`.
    #[error("empty repeating tail '[]' in game code '{code}'")]
    EmptyTail {
        /// The code.
        code: String,
    },
    /// `!` not after a digit.
    #[error("'!' at position {pos} in game code '{code}' does not follow a digit")]
    MisplacedBang {
        /// 1-based position.
        pos: usize,
        /// The code.
        code: String,
    },
    /// A malformed subtraction set.
    #[error("bad subtraction set '{text}': {reason}")]
    BadSet {
        /// What was given.
        text: String,
        /// What is wrong.
        reason: String,
    },
}

fn known_names() -> String {
    NAMED_GAMES
        .iter()
        .map(|(n, _, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Lower case without the characters that names may be written with or without.
fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '\'' | '_' | ' ' | '-' | '’'))
        .flat_map(char::to_lowercase)
        .collect()
}

pub(super) fn parse(text: &str) -> Result<Rule, RuleError> {
    let rule = parse_text(text)?;
    // The canonical code may be a little longer than the text (".7" is "0.7"): it must parse
    // too, since tables and survey files store it.
    let len = rule.code().chars().count();
    if len > MAX_CODE_LEN {
        return Err(RuleError::TooLong { len });
    }
    Ok(rule)
}

fn parse_text(text: &str) -> Result<Rule, RuleError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(RuleError::Empty);
    }
    let chars = text.chars().count();
    if chars > MAX_CODE_LEN {
        return Err(RuleError::TooLong { len: chars });
    }
    let lower = text.to_ascii_lowercase();
    for (prefix, all_but) in [
        ("sub", false),
        ("subtraction", false),
        ("allbut", true),
        ("all-but", true),
    ] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let rest = rest.trim_start();
            if rest.starts_with('(') || rest.starts_with('{') {
                let set = parse_set(text, rest)?;
                if set.is_empty() && !all_but {
                    // No move at all: almost surely a slip, not a game anyone studies.
                    return Err(RuleError::BadSet {
                        text: text.to_string(),
                        reason: "the set is empty (no move at all); give at least one number, \
                                 as in sub(1,2,3)"
                            .to_string(),
                    });
                }
                return Ok(if all_but {
                    Rule::subtraction_all_but(&set)
                } else {
                    Rule::subtraction(&set)
                });
            }
        }
    }
    if text.contains('.') || text.starts_with(|c: char| c.is_ascii_digit()) {
        return parse_code(text);
    }
    let key = squash(text);
    if let Some((_, code, _)) = NAMED_GAMES.iter().find(|(n, _, _)| squash(n) == key) {
        return parse_code(code);
    }
    let suggestion = NAMED_GAMES
        .iter()
        .map(|(n, _, _)| (edit_distance(&squash(n), &key), *n))
        .filter(|&(d, _)| d <= 2)
        .min()
        .map(|(_, n)| n.to_string());
    Err(RuleError::UnknownName {
        name: text.to_string(),
        suggestion,
    })
}

fn parse_set(text: &str, rest: &str) -> Result<Vec<usize>, RuleError> {
    let bad = |reason: &str| RuleError::BadSet {
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let close = match rest.as_bytes()[0] {
        b'(' => ')',
        _ => '}',
    };
    let inner = rest[1..]
        .strip_suffix(close)
        .ok_or_else(|| bad(&format!("it must end with '{close}'")))?;
    let mut set = Vec::new();
    if inner.trim().is_empty() {
        return Ok(set);
    }
    for item in inner.split(',') {
        let item = item.trim();
        let k: usize = item
            .parse()
            .map_err(|_| bad(&format!("'{item}' is not a whole number")))?;
        if k == 0 {
            return Err(bad("elements must be at least 1"));
        }
        if k > MAX_SET_ELEMENT {
            return Err(bad(&format!(
                "element {k} is larger than {MAX_SET_ELEMENT} (its code, one digit per number \
                 of tokens, would be longer than {MAX_CODE_LEN} characters)"
            )));
        }
        set.push(k);
    }
    Ok(set)
}

fn parse_code(code: &str) -> Result<Rule, RuleError> {
    let owned = || code.to_string();
    if !code.contains('.') && code.chars().all(|c| c.is_ascii_hexdigit() || c == '!') {
        return Err(RuleError::MissingPoint { code: owned() });
    }
    let mut lead: Option<Digit> = None;
    let mut after: Vec<Digit> = Vec::new();
    let mut tail: Vec<Digit> = Vec::new();
    // 0: before the point, 1: after it, 2: inside the tail, 3: after the tail.
    let mut state = 0;
    let mut previous_was_digit = false;
    for (i, ch) in code.chars().enumerate() {
        let pos = i + 1;
        match ch {
            '.' => {
                if state != 0 {
                    return Err(RuleError::ExtraPoint { code: owned() });
                }
                state = 1;
                previous_was_digit = false;
            }
            '[' => {
                match state {
                    0 => return Err(RuleError::MissingPoint { code: owned() }),
                    1 => state = 2,
                    _ => return Err(RuleError::Unbalanced { code: owned() }),
                }
                previous_was_digit = false;
            }
            ']' => {
                if state != 2 {
                    return Err(RuleError::Unbalanced { code: owned() });
                }
                if tail.is_empty() {
                    return Err(RuleError::EmptyTail { code: owned() });
                }
                state = 3;
                previous_was_digit = false;
            }
            '!' => {
                if !previous_was_digit {
                    return Err(RuleError::MisplacedBang { pos, code: owned() });
                }
                let last = match state {
                    0 => lead.as_mut(),
                    1 => after.last_mut(),
                    _ => tail.last_mut(),
                };
                if let Some(d) = last {
                    d.unequal = true;
                }
                previous_was_digit = false;
            }
            c if c.is_ascii_hexdigit() => {
                let d = Digit::new(c.to_digit(16).unwrap_or(0) as u8);
                match state {
                    0 => {
                        if lead.is_some() {
                            return Err(if code.contains('.') {
                                RuleError::LongLeadingPart { code: owned() }
                            } else {
                                RuleError::MissingPoint { code: owned() }
                            });
                        }
                        if d.bits & 3 != 0 {
                            return Err(RuleError::BadLeadingDigit {
                                digit: c.to_ascii_uppercase(),
                                code: owned(),
                            });
                        }
                        lead = Some(d);
                    }
                    1 => after.push(d),
                    2 => tail.push(d),
                    _ => return Err(RuleError::TailNotLast { code: owned() }),
                }
                previous_was_digit = true;
            }
            c => {
                return Err(RuleError::BadChar {
                    ch: c,
                    pos,
                    code: owned(),
                })
            }
        }
    }
    match state {
        0 => Err(RuleError::MissingPoint { code: owned() }),
        2 => Err(RuleError::Unbalanced { code: owned() }),
        _ => {
            let mut finite = vec![lead.unwrap_or_default()];
            finite.extend(after);
            Ok(Rule::new(finite, tail))
        }
    }
}

/// Levenshtein distance, for "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diag + usize::from(ca != cb));
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        Rule::parse(s).unwrap_err().to_string()
    }

    #[test]
    fn accepted_forms() {
        for (text, code) in [
            ("0.77", "0.77"),
            (".77", "0.77"),
            ("  0.77 ", "0.77"),
            ("4.7", "4.7"),
            ("0.137", "0.137"),
            ("0.11337", "0.11337"),
            ("0.3F", "0.3F"),
            ("0.3f", "0.3F"),
            ("0.8", "0.8"),
            ("4!.0", "4!.0"),
            ("C.0", "C.0"),
            ("0.4!4", "0.4!4"),
            ("0.[3]", "0.[3]"),
            ("0.[37]", "0.[37]"),
            ("0.", "0.0"),
            ("sub(1,2,3)", "0.333"),
            ("SUB(2)", "0.03"),
            ("allbut(1)", "0.0[3]"),
            ("kayles", "0.77"),
            ("Kayles", "0.77"),
            ("dawsons-kayles", "0.07"),
            ("dawsons_chess", "0.137"),
            ("officers", "0.6"),
            ("treblecross", "0.007"),
            ("guiles", "0.15"),
            ("grundy", "4!.0"),
            ("nim", "0.[3]"),
            ("laskers nim", "4.[3]"),
        ] {
            assert_eq!(Rule::parse(text).unwrap().code(), code, "{text}");
        }
    }

    #[test]
    fn rejected_forms() {
        assert!(err("").contains("empty game code"));
        assert!(err("0.7x").contains("invalid character 'x' at position 4"));
        assert!(err("77").contains("has no point"));
        assert!(err("0.[3").contains("unbalanced"));
        assert!(err("0.3]").contains("unbalanced"));
        assert!(err("0.[3][4]").contains("unbalanced"));
        assert!(err("0.[3]4").contains("must come last"));
        assert!(err("0.[]").contains("empty repeating tail"));
        assert!(err("1.7").contains("before the point"));
        assert!(err("2.0").contains("before the point"));
        assert!(err("44.0").contains("more than one digit"));
        assert!(err("0.7.7").contains("more than one point"));
        assert!(err("0.!7").contains("does not follow a digit"));
        assert!(err("kales").contains("did you mean 'kayles'"));
        assert!(err("frobnicate").contains("unknown game 'frobnicate'"));
        assert!(err("sub(1,x)").contains("'x' is not a whole number"));
        assert!(err("sub(0)").contains("at least 1"));
        // An empty set is no game (issue 29); allbut() is Nim.
        assert!(err("sub()").contains("the set is empty"));
        assert_eq!(Rule::parse("allbut()").unwrap().code(), "0.[3]");
        assert!(err("sub(1,2").contains("must end with ')'"));
        assert!(err("sub(99999999)").contains("larger than"));
        assert!(err(&format!("0.{}", "7".repeat(5000))).contains("too long"));
        assert!(err(&format!("sub({})", MAX_SET_ELEMENT + 1)).contains("larger than"));
        // 4096 characters, but the canonical code "0.77…" has 4097.
        assert!(err(&format!(".{}", "7".repeat(MAX_CODE_LEN - 1))).contains("too long"));
        assert!(err("0.7 7").contains("invalid character ' '"));
    }

    /// Every accepted rule's canonical code parses back to the same rule, even at the length
    /// limits (tables store the code; a code that did not parse made them unreadable).
    #[test]
    fn longest_codes_round_trip() {
        for text in [
            format!("sub({MAX_SET_ELEMENT})"),
            format!("allbut({MAX_SET_ELEMENT})"),
            format!("sub(1,{MAX_SET_ELEMENT})"),
            format!("0.{}", "7".repeat(MAX_CODE_LEN - 2)),
            format!(".{}", "7".repeat(MAX_CODE_LEN - 2)),
            format!("0.1[{}]", "37".repeat(MAX_CODE_LEN / 2 - 4)),
        ] {
            let rule = Rule::parse(&text).unwrap();
            let code = rule.code();
            assert!(code.len() <= MAX_CODE_LEN, "{}", code.len());
            assert_eq!(Rule::parse(&code).unwrap(), rule);
        }
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("kayles", "kales"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
