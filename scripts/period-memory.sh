#!/usr/bin/env bash
# Peak memory of `nimseq period` against N: RssAnon of the process (from /proc/PID/status,
# sampled every 50 ms), for Officers (0.6, no period known: every search scans all the values,
# and the final report scans them for the best candidate) at --max 2^20 .. 2^24, and for 0.354
# with no options (proved at 20,126,195 values). results/period.md records a run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/nimseq

peak() {
    local peak=0 r pid start
    start=$(date +%s.%N)
    "$@" >/dev/null &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        r=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        if [[ -n "$r" && "$r" -gt "$peak" ]]; then peak=$r; fi
        sleep 0.05
    done
    wait "$pid"
    printf '%-40s peak RssAnon %8d KiB  wall %6.1f s\n' "$*" "$peak" \
        "$(echo "$(date +%s.%N) - $start" | bc)"
}

for n in 2^20 2^22 2^24; do
    peak "$bin" period 0.6 --max "$n" --quiet
done
peak "$bin" period 0.354 --quiet
