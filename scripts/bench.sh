#!/usr/bin/env bash
# Times `nimseq compute` on the benchmark cases with 1 thread and with all threads, prints heaps/s
# and the parallel speedup, times the public peers on the same cases in the same run, and appends
# everything with the machine description to results/bench.md.
#
# Peers (each optional; a missing one shows as "-"):
#   ogsolve        `cargo install ogsolve` (crates.io); both its methods `rc` and `rc2` are timed
#                  and the faster is compared.
#   the analyzer of tczajka/octal-games (C++, its `old/` folder): set OCTAL_GAMES to a checkout
#                  of that repository; the script builds `old/src/analyze_exec.cc` with g++ -O2
#                  into a temporary folder (nothing of it is kept here). It prints a line at every
#                  power of two and runs on to 2^28, so it is timed to the line of the case's N
#                  and then stopped.
#
# Usage: scripts/bench.sh                    the cases of issue 15 (Officers 2^22, 0.167 2^24,
#                                            Grundy's game 2^24)
#        BENCH_SHIFT=4 scripts/bench.sh      every case 2^4 times smaller (a quick look)
#        BENCH_REPS=5 scripts/bench.sh       nimseq's runs on 1 and on all threads alternate this
#                                            many times (3 unless set) and the median is shown;
#                                            a single run moves by ±5-10 % on a shared machine.
#                                            The peers, whose runs are long, run once.
#        OCTAL_GAMES=/path/to/octal-games scripts/bench.sh
#        NIMSEQ_ISA=avx2 scripts/bench.sh   nimseq on one tier (portable, avx2, avx512bw,
#                                            avx512vbmi: see `nimseq --version`), recorded as such
#
# The machine's own ceiling for T threads: T independent one-thread runs of the same case side by
# side, their heaps/s added up, over one run alone ("ceiling"). Cores that share a physical core,
# caches or memory bandwidth give less than T; no T-thread engine can beat it, so the speedup is
# also shown as a share of it.
#
# The figures are wall-clock times on a possibly shared machine: compare the ratios within one
# run (the load average is recorded with them), not runs with each other.
set -euo pipefail
cd "$(dirname "$0")/.."
shift_by=${BENCH_SHIFT:-0}
reps=${BENCH_REPS:-3}
all=$(nproc)
out=results/bench.md
cargo build --release --quiet
bin=target/release/nimseq

cases=("0.6 22" "0.167 24" "4!.0 24")

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { print b - a }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.3f", n / s / 1e6 }'; }
ratio() { if [[ "$2" == "-" ]]; then echo "-"; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; fi; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == "-" || a + 0 > b + 0) print a; else print b }'; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mhz=$(grep -m1 'cpu MHz' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
# The tier the engine runs (NIMSEQ_ISA forces a lesser one, as for any nimseq command; a name
# this processor lacks is refused here), as `nimseq --version` names it with its features.
isa=$("$bin" --version | sed -n "s/^engine tier //p") || exit 2
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
og=$(command -v ogsolve || true)

analyzer=""
if [[ -n "${OCTAL_GAMES:-}" ]]; then
    src="$OCTAL_GAMES/old/src"
    if [[ -f "$src/analyze_exec.cc" ]]; then
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
        regular=$(find "$src" -name '*.cc' ! -name '*_test.cc' ! -name '*_exec.cc')
        # shellcheck disable=SC2086
        g++ -O2 -std=c++11 -pthread -I"$src" "$src/analyze_exec.cc" $regular -o "$tmp/analyze"
        analyzer="$tmp/analyze"
    else
        echo "OCTAL_GAMES=$OCTAL_GAMES has no old/src/analyze_exec.cc: the analyzer is left out" >&2
    fi
fi

# Seconds until the analyzer prints its line for 2^$2 on game $1, then stops it.
time_analyzer() {
    local game=$1 exp=$2 t0 line
    t0=$(now)
    exec 3< <(exec "$analyzer" "$game")
    local pid=$!
    while IFS= read -r line <&3; do
        if [[ "$line" == "n=2^$exp "* ]]; then
            since "$t0"
            kill "$pid" 2>/dev/null || true
            exec 3<&-
            return
        fi
    done
    exec 3<&-
    echo "-"
}

{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC'), commit $rev"
    echo
    echo "Machine: $cpu, $mhz MHz, $all cores (nproc), $mem, tier: $isa; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "Command: \`scripts/bench.sh\` (BENCH_SHIFT=$shift_by), wall-clock time of \`nimseq compute GAME -n N --threads T\`, the median of $reps alternating runs (BENCH_REPS); peers in the same run (ogsolve: the faster of \`-m rc\` and \`-m rc2\`; analyzer: tczajka/octal-games \`old/\` analyze, timed to its line for N)."
    echo
    echo "| game | N | 1 thread M heaps/s | $all threads M heaps/s | speedup | ceiling ($all runs side by side) | speedup / ceiling | ogsolve M heaps/s (rc / rc2) | analyzer M heaps/s | nimseq 1 thread / best peer | nimseq $all threads / best peer |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
} | tee -a "$out"

for c in "${cases[@]}"; do
    read -r game exp <<<"$c"
    exp=$((exp - shift_by))
    n=$((1 << exp))
    declare -A r=() runs=()
    for ((k = 0; k < reps; k++)); do
        for t in 1 "$all"; do
            t0=$(now)
            "$bin" compute "$game" -n "$n" --threads "$t" --json >/dev/null
            runs[$t]+="$(rate "$n" "$(since "$t0")") "
        done
    done
    for t in 1 "$all"; do
        # shellcheck disable=SC2086
        r[$t]=$(median ${runs[$t]})
    done
    t0=$(now)
    for ((i = 0; i < all; i++)); do
        "$bin" compute "$game" -n "$n" --threads 1 --json >/dev/null &
    done
    wait
    side=$(rate "$((all * n))" "$(since "$t0")")
    ceiling=$(awk -v a="$side" -v b="${r[1]}" 'BEGIN { printf "%.2f", a / b }')
    rc="-" rc2="-" ogr="-"
    if [[ -n "$og" && "$game" != *"!"* ]]; then
        t0=$(now)
        ogsolve -m rc -n $((n - 1)) "$game" >/dev/null
        rc=$(rate "$n" "$(since "$t0")")
        t0=$(now)
        ogsolve -m rc2 -n $((n - 1)) "$game" >/dev/null
        rc2=$(rate "$n" "$(since "$t0")")
        ogr=$(best "$rc" "$rc2")
    fi
    an="-"
    if [[ -n "$analyzer" ]]; then
        agame=$game
        [[ "$game" == "4!.0" ]] && agame=grundy
        s=$(time_analyzer "$agame" "$exp")
        [[ "$s" != "-" ]] && an=$(rate "$n" "$s")
    fi
    peer=$(best "$ogr" "$an")
    speedup=$(awk -v a="${r[$all]}" -v b="${r[1]}" 'BEGIN { printf "%.2f", a / b }')
    share=$(awk -v s="$speedup" -v a="$side" -v b="${r[1]}" 'BEGIN { printf "%.0f %%", 100 * s / (a / b) }')
    echo "| $game | 2^$exp | ${r[1]} | ${r[$all]} | $speedup | $ceiling | $share | $ogr ($rc / $rc2) | $an | $(ratio "${r[1]}" "$peer") | $(ratio "${r[$all]}" "$peer") |" | tee -a "$out"
done
[[ -n "$og" ]] || echo "(ogsolve not installed: cargo install ogsolve)" | tee -a "$out"
[[ -n "$analyzer" ]] || echo "(analyzer not built: set OCTAL_GAMES to a checkout of tczajka/octal-games)" | tee -a "$out"
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)." | tee -a "$out"
