//! Fuzzing the table reader (issue 9): random damage to a real table file — flipped bytes,
//! truncation, garbage — must never panic, and damage to the committed values must never be
//! read as data: either opening or verifying refuses the file. `NIMSEQ_FUZZ_CASES` sets the
//! number of cases (CI runs the default; `scripts/fuzz.sh` runs many more).

use std::path::PathBuf;

use nimseq::table::TableReader;
use proptest::prelude::*;

const VALUES_OFFSET: usize = 4096;

fn fixture() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kayles-1000.nimseq");
    std::fs::read(path).expect("fixture")
}

fn cases() -> u32 {
    std::env::var("NIMSEQ_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600)
}

/// Opens the bytes as a table and reads everything a user can read; Ok(values) only when the
/// table opened and verified.
fn read_all(bytes: &[u8]) -> Result<Vec<u32>, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nimseq");
    std::fs::write(&path, bytes).unwrap();
    let t = TableReader::open(&path).map_err(|e| e.to_string())?;
    let _ = t.summary();
    let _ = t.period();
    t.verify().map_err(|e| e.to_string())?;
    let v = t.values().map_err(|e| e.to_string())?;
    Ok((0..v.len()).map(|n| v.get(n)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn flipped_bytes_never_panic_and_value_damage_is_caught(
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4)
    ) {
        let original = fixture();
        let clean = read_all(&original).expect("the fixture reads");
        let mut bytes = original.clone();
        let mut touched_values = false;
        for (i, x) in &flips {
            let at = i.index(bytes.len());
            bytes[at] ^= x;
            touched_values |= (VALUES_OFFSET..VALUES_OFFSET + clean.len()).contains(&at);
        }
        match read_all(&bytes) {
            Ok(values) => {
                prop_assert!(!touched_values, "damaged values were read as data");
                prop_assert_eq!(values, clean);
            }
            Err(message) => prop_assert!(!message.is_empty() && !message.contains('\n')),
        }
    }

    #[test]
    fn garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..6000), magic in any::<bool>()) {
        let mut bytes = bytes;
        if magic && bytes.len() >= 8 {
            bytes[..8].copy_from_slice(b"NIMSEQTB");
        }
        let _ = read_all(&bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases() / 20 + 1))]

    #[test]
    fn truncated_files_never_panic(len in 0usize..8192) {
        // The reader waits 3 x 50 ms before calling a header damaged (a writer may be
        // committing), so fewer cases here.
        let original = fixture();
        let len = len.min(original.len() - 1);
        prop_assert!(read_all(&original[..len]).is_err());
    }
}
