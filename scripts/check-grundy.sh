#!/usr/bin/env bash
# Runs the expensive check that CI skips: Grundy's game computed by the sparse engine past its
# first value >= 256 (heap ~7.26 million), with values around it re-derived from the definition.
# Usage: scripts/check-grundy.sh [HEAPS]   (default 7,400,000)
#        NIMSEQ_ISA=avx2 scripts/check-grundy.sh   on one tier (see nimseq --version)
set -euo pipefail
cd "$(dirname "$0")/.."
export NIMSEQ_GRUNDY_HEAPS="${1:-7400000}"
start=$(date +%s)
cargo test --release --test sparse_engine -- --ignored --nocapture grundy_past_first_value_256
echo "check-grundy: ${NIMSEQ_GRUNDY_HEAPS} heaps in $(( $(date +%s) - start )) s (build included)"
