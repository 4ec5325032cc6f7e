//! Known OEIS A-numbers of Sprague–Grundy sequences, to name b-files as the OEIS does.

use crate::rules::Rule;

const INDEX: &str = include_str!("oeis_index.tsv");

/// An OEIS sequence of Grundy values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OeisEntry {
    /// The A-number, e.g. `A002186`.
    pub a_number: &'static str,
    /// The heap of the sequence's first term (the OEIS offset).
    pub offset: u64,
}

/// The OEIS sequence whose terms are the values of `rule`, heap `n` being term `n`.
pub fn oeis_entry(rule: &Rule) -> Option<OeisEntry> {
    let code = rule.code();
    INDEX
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split('\t');
            let (a, game, offset) = (f.next()?, f.next()?, f.next()?);
            Some((a, game, offset.parse().ok()?))
        })
        .find(|(_, game, _)| Rule::parse(game).is_ok_and(|r| r.code() == code))
        .map(|(a_number, _, offset)| OeisEntry { a_number, offset })
}

/// Longest code spelled out in a b-file name: file names are limited to 255 bytes.
const NAME_CODE_LEN: usize = 100;

/// The b-file's name: `bA002186.txt` for a known sequence, else `b_<code>.txt` with characters
/// other than letters, digits and `.` replaced by `_` (`4!.0` → `b_4_.0.txt`). A code longer
/// than 100 characters (a large subtraction set) is cut there and followed by a hash of the
/// whole code, so that the name stays a valid file name and distinct codes get distinct names.
pub fn bfile_name(rule: &Rule) -> String {
    match oeis_entry(rule) {
        Some(e) => format!("b{}.txt", e.a_number),
        None => {
            let code: String = rule
                .code()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if code.len() > NAME_CODE_LEN {
                // FNV-1a, 64 bits, of the canonical code.
                let hash = rule.code().bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
                });
                format!("b_{}_{hash:016x}.txt", &code[..NAME_CODE_LEN])
            } else {
                format!("b_{code}.txt")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sequences() {
        let k = oeis_entry(&Rule::parse("kayles").unwrap()).unwrap();
        assert_eq!((k.a_number, k.offset), ("A002186", 0));
        let s = oeis_entry(&Rule::parse("0.16").unwrap()).unwrap();
        assert_eq!((s.a_number, s.offset), ("A071430", 1));
        assert_eq!(bfile_name(&Rule::parse("0.77").unwrap()), "bA002186.txt");
        assert_eq!(bfile_name(&Rule::parse("4!.0").unwrap()), "bA002188.txt");
        assert_eq!(bfile_name(&Rule::parse("0.[3]").unwrap()), "b_0._3_.txt");
    }

    #[test]
    fn long_codes_give_short_distinct_names() {
        let a = bfile_name(&Rule::parse("sub(4000)").unwrap());
        let b = bfile_name(&Rule::parse("sub(3999,4000)").unwrap());
        assert!(a.len() < 255 && b.len() < 255, "{a}");
        assert!(a.starts_with("b_0.000") && a.ends_with(".txt"), "{a}");
        assert_ne!(a, b);
    }
}
