#!/usr/bin/env bash
# The expensive periodicity checks: all 896 three-digit codes cross-checked 10x past the bound,
# and the large published periods (0.127, 0.7377, 0.16, 0.7737, 0.56) with the exact engine
# (about 25 minutes on one core with the exact engine; faster once the sparse engine is in).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test period_theorem -- --ignored --nocapture
