#!/usr/bin/env bash
# The expensive periodicity check: the large published periods (0.127, 0.7377, 0.16, 0.7737,
# 0.56) proved with the exact engine (about 25 minutes on one core). The regular test suite
# proves them with the sparse engine and cross-checks all 896 three-digit codes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test period_theorem -- --ignored --nocapture
