//! Fuzzing the parsers with many random inputs (proptest): no input panics or hangs, and every
//! accepted code round-trips through its canonical form. `NIMSEQ_FUZZ_CASES` sets the number of
//! cases (CI runs the default; `scripts/fuzz.sh` runs many more). A case slower than a second
//! fails as a hang.

use nimseq::numbers::parse_count;
use nimseq::rules::{Digit, Rule};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("NIMSEQ_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4000)
}

fn digit() -> impl Strategy<Value = Digit> {
    (0u8..16, any::<bool>()).prop_map(|(bits, unequal)| Digit { bits, unequal })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Texts made of the characters codes use, in any order.
    #[test]
    fn code_like_text_never_panics(s in "[0-9a-fA-F.!\\[\\](){},subaltg' _-]{0,40}") {
        if let Ok(rule) = Rule::parse(&s) {
            let again = Rule::parse(&rule.code()).expect("canonical code parses");
            prop_assert_eq!(again, rule);
        }
    }

    /// Any text at all, including non-ASCII.
    #[test]
    fn any_text_never_panics(s in "\\PC{0,60}") {
        let _ = Rule::parse(&s);
        let _ = parse_count(&s);
    }

    /// Long texts near and beyond the length limit: quick answers (no hang), and an accepted
    /// code's canonical form parses back.
    #[test]
    fn long_texts_are_quick(
        body in "[0-7A-F!]{0,64}",
        repeat in 1usize..300,
        tail in "(\\[[0-7]{1,3}\\])?",
        set in any::<bool>(),
    ) {
        let text = if set {
            format!("sub({})", (1..=repeat).map(|k| (k * 17).to_string()).collect::<Vec<_>>().join(","))
        } else {
            format!("0.{}{tail}", body.repeat(repeat))
        };
        let began = std::time::Instant::now();
        let parsed = Rule::parse(&text);
        // A hang guard (the issue asks for no hangs), not a speed test: parsing takes microseconds.
        prop_assert!(began.elapsed() < std::time::Duration::from_secs(10), "{} characters", text.len());
        if let Ok(rule) = parsed {
            prop_assert_eq!(Rule::parse(&rule.code()).expect("canonical code parses"), rule);
        }
    }

    /// Every rule prints as a code that parses back to the same rule.
    #[test]
    fn canonical_codes_round_trip(
        lead in prop::sample::select(vec![0u8, 4, 8, 12]),
        bang in any::<bool>(),
        digits in prop::collection::vec(digit(), 0..12),
        tail in prop::collection::vec(digit(), 0..4),
    ) {
        let mut finite = vec![Digit { bits: lead, unequal: bang }];
        finite.extend(digits);
        let rule = Rule::new(finite, tail);
        let code = rule.code();
        let parsed = Rule::parse(&code).unwrap();
        prop_assert_eq!(&parsed, &rule, "{}", code);
        prop_assert_eq!(parsed.code(), code);
        // The digits mean the same before and after.
        for k in 0..40 {
            prop_assert_eq!(parsed.digit(k).bits, rule.digit(k).bits);
        }
    }

    /// Numbers: whatever parses, parses to what the text says.
    #[test]
    fn counts_parse_to_their_value(n in any::<u64>()) {
        prop_assert_eq!(parse_count(&n.to_string()), Ok(n));
    }

    #[test]
    fn number_like_text_never_panics(s in "[0-9eE^*._ -]{0,30}") {
        let _ = parse_count(&s);
    }
}
