#!/usr/bin/env bash
# Long fuzzing runs of the proptest fuzzers: the code and number parsers
# (tests/fuzz_parsers.rs), the table reader against random damage (tests/fuzz_table.rs) and the
# command line through the real binary (tests/fuzz_cli.rs, a twentieth as many cases: each is a
# process). CI runs the same tests with the default number of cases as part of `cargo test`.
#
# Usage: scripts/fuzz.sh [CASES]      (default 200000; about 20 minutes on 2 cores)
# A failure prints the minimal failing input; proptest keeps it in tests/*.proptest-regressions
# so that every later `cargo test` runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."
export NIMSEQ_FUZZ_CASES="${1:-200000}"
cargo test --test fuzz_parsers --test fuzz_table --test fuzz_cli
