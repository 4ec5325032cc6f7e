#!/usr/bin/env bash
# A/B timing on a noisy machine: runs each command REPS times, alternating between them (so that
# a slow minute of the machine hits all alike), and prints the minimum and median wall-clock
# seconds of each. Compare commands within one call, not calls with each other.
#
# Usage: scripts/ab.sh REPS "label:command" ["label:command" ...]
#   scripts/ab.sh 5 "old:/tmp/nimseq-old compute 0.6 -n 2^22 --threads 2 -q" \
#                   "new:target/release/nimseq compute 0.6 -n 2^22 --threads 2 -q"
set -euo pipefail
if [[ $# -lt 2 || ! "$1" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/ab.sh REPS \"label:command\" ..." >&2
    exit 2
fi
reps=$1
shift
declare -A times
for ((i = 0; i < reps; i++)); do
    for spec in "$@"; do
        label=${spec%%:*}
        cmd=${spec#*:}
        start=$(date +%s.%N)
        if ! bash -c "$cmd" >/dev/null 2>&1; then
            echo "ab.sh: '$label' failed: $cmd" >&2
            exit 1
        fi
        times[$label]+="$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }') "
    done
done
for spec in "$@"; do
    label=${spec%%:*}
    printf '%s: ' "$label"
    tr ' ' '\n' <<<"${times[$label]}" | grep . | sort -n |
        awk '{ a[NR] = $1 } END { printf "min %.3f median %.3f s (%d runs)\n", a[1], a[int((NR + 1) / 2)], NR }'
done
