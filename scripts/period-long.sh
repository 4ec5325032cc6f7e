#!/usr/bin/env bash
# Long published periods proved by `nimseq period` (release build), each with its wall time and
# the peak anonymous memory of the process (RssAnon from /proc/PID/status, sampled every 50 ms).
# Too long for CI (minutes each, 0.4-0.5 GB); results/period.md records a run.
#
#   scripts/period-long.sh            all of them
#   scripts/period-long.sh 0.1777     one
#
# Sources (tests/data/periods_published.tsv): 0.354 OEIS A071496 (Flammenkamp; also
# tczajka/octal-games SolvedGames.md); 0.1077 OEIS A071454; 0.1777 OEIS A071509 (Flammenkamp) -
# Flammenkamp's tables of octal games. Not here: 0.104 (OEIS A071457, period 11,770,282 from
# heap 197,769,598, 419,079,763 values): about half its heaps are rare, so the engine runs in
# dense mode at some 18,000 heaps/s on this machine (as fast as 'compute'; the search is not
# the cost) - hours, not minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/nimseq

# shellcheck source=scripts/lib/measure.sh
. scripts/lib/measure.sh
out_file=$(mktemp)
trap 'rm -f "$out_file"' EXIT

# game, preperiod, period, extra options
cases=(
    "0.354 10061916 1180"
    "0.1077 193235615 10015179 --max 2^29"
    "0.1777 160949018 60620715 --max 2^29"
)
for c in "${cases[@]}"; do
    read -r game n0 p opts <<<"$c"
    if [[ $# -gt 0 && "$1" != "$game" ]]; then continue; fi
    echo "== nimseq period $game ${opts:-} --json --quiet (published: period $p from heap $n0)"
    # shellcheck disable=SC2086
    measure_run "$bin" period "$game" ${opts:-} --json --quiet > "$out_file"
    [[ "$MEASURE_STATUS" == 0 ]] || { echo "FAILED: $game exited with $MEASURE_STATUS" >&2; exit 1; }
    out=$(cat "$out_file")
    echo "$out"
    echo "wall $MEASURE_WALL s, peak RssAnon $MEASURE_PEAK KiB" >&2
    echo "$out" | grep -q "\"proved\":true" || { echo "FAILED: $game not proved" >&2; exit 1; }
    echo "$out" | grep -q "\"preperiod\":$n0," || { echo "FAILED: $game preperiod" >&2; exit 1; }
    echo "$out" | grep -q "\"period\":$p," || { echo "FAILED: $game period" >&2; exit 1; }
done
