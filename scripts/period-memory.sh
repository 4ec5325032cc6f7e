#!/usr/bin/env bash
# Peak memory of `nimseq period` against N: RssAnon of the process (from /proc/PID/status,
# sampled every 50 ms), for Officers (0.6, no period known: every search scans all the values,
# and the final report scans them for the best candidate) at --max 2^20 .. 2^24, and for 0.354
# with no options (proved at 20,126,195 values). results/period.md records a run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/nimseq

# shellcheck source=scripts/lib/measure.sh
. scripts/lib/measure.sh

peak() {
    measure_run "$@" > /dev/null
    [[ "$MEASURE_STATUS" == 0 ]] || { echo "FAILED: $* exited with $MEASURE_STATUS" >&2; exit 1; }
    printf '%-40s peak RssAnon %8d KiB  wall %6.1f s\n' "$*" "$MEASURE_PEAK" "$MEASURE_WALL"
}

for n in 2^20 2^22 2^24; do
    peak "$bin" period 0.6 --max "$n" --quiet
done
peak "$bin" period 0.354 --quiet
