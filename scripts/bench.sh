#!/usr/bin/env bash
# Times `nimseq compute` on the benchmark cases with 1 thread and with all threads, prints heaps/s
# and the parallel speedup, runs ogsolve (cargo install ogsolve) on the same octal cases when it
# is installed, and appends everything with the machine description to results/bench.md.
#
# Usage: scripts/bench.sh            the cases of the issue (Officers 2^22, 0.167 2^24, Grundy 2^24)
#        BENCH_SHIFT=4 scripts/bench.sh   every case 2^4 times smaller (a quick look)
#
# The figures are wall-clock times on a possibly shared machine: compare the ratios within one
# run (the load average is recorded with them), not runs with each other.
set -euo pipefail
cd "$(dirname "$0")/.."
shift_by=${BENCH_SHIFT:-0}
all=$(nproc)
out=results/bench.md
cargo build --release --quiet
bin=target/release/nimseq

cases=("0.6 22" "0.167 24" "4!.0 24")

now() { date +%s.%N; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.3f", n / s / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mhz=$(grep -m1 'cpu MHz' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
og=$(command -v ogsolve || true)

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC'), commit $rev"
    echo
    echo "Machine: $cpu, $mhz MHz, $all cores (nproc), $mem; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "Command: \`scripts/bench.sh\` (BENCH_SHIFT=$shift_by), wall-clock time of \`nimseq compute GAME -n N --threads T\`."
    echo
    echo "| game | N | 1 thread M heaps/s | $all threads M heaps/s | speedup | ogsolve -m rc2 M heaps/s | nimseq $all threads / ogsolve |"
    echo "|---|---|---|---|---|---|---|"
} | tee -a "$out"

for c in "${cases[@]}"; do
    read -r game exp <<<"$c"
    exp=$((exp - shift_by))
    n=$((1 << exp))
    declare -A r=()
    for t in 1 "$all"; do
        t0=$(now)
        "$bin" compute "$game" -n "$n" --threads "$t" --json >/dev/null
        t1=$(now)
        r[$t]=$(rate "$n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    done
    ogr="-"
    ogratio="-"
    if [[ -n "$og" && "$game" != *"!"* ]]; then
        t0=$(now)
        ogsolve -m rc2 -n $((n - 1)) "$game" >/dev/null
        t1=$(now)
        ogr=$(rate "$n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
        ogratio=$(ratio "${r[$all]}" "$ogr")
    fi
    echo "| $game | 2^$exp | ${r[1]} | ${r[$all]} | $(ratio "${r[$all]}" "${r[1]}") | $ogr | $ogratio |" | tee -a "$out"
done
[[ -n "$og" ]] || echo "(ogsolve not installed: cargo install ogsolve)" | tee -a "$out"
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)." | tee -a "$out"
