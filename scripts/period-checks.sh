#!/usr/bin/env bash
# The expensive periodicity checks: the large published periods (0.127, 0.7377, 0.16, 0.7737,
# 0.56) proved with the exact engine (about 25 minutes on one core). The regular test suite
# proves them with the sparse engine and cross-checks all 896 three-digit codes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test period_theorem -- --ignored --nocapture
# The long published periods (0.354 with no options; 0.1077, 0.104 and 0.1777 with --max 2^29:
# hundreds of millions of values, periods up to 60,620,715), each with its time and peak memory.
scripts/period-long.sh
