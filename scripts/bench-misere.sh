#!/usr/bin/env bash
# Runs MisereSolver (A. N. Siegel's, in CGSuite) and `nimseq quotient` side by side on octal
# codes and prints, for each, the order |Q|, |P|, the heap where Φ was certified periodic (or
# the last heap computed), and the user CPU and wall time of each. It checks that both give
# the same quotient: the same order and |P|, and the same outcome (product in P) for every
# heap and every pair of heaps up to heap 60.
#
# MisereSolver is GPL Java inside CGSuite: nothing of it is kept in nimseq. Give the script a
# CGSuite checkout (or a bare git directory of one); it copies the nine classes of
# lib/core/src/main/scala/org/cgsuite/core/misere/solver/ that the solver needs into a temporary
# folder, replaces their one use of CGSuite's Scala heap rules by nimseq's own octal move
# generator and driver (scripts/misere-peer/NimseqMisereDriver.java), compiles them with javac
# (Java 17) and deletes the folder at the end.
#
# Certification: MisereSolver stops when Φ is periodic by CGSuite's test for octal codes,
# 2·preperiod + 2·period + t + 2 ≤ heaps computed (CGSuite's TBCode.periodicityChecker with two
# heaps left by a move, t the last digit's index), applied by the driver; nimseq by its own,
# weaker test (module text of src/misere/quotient/), so it may certify a few heaps earlier.
#
# Usage: scripts/bench-misere.sh CGSUITE [CODE[:MAX_HEAP] ...]
#        default codes: the issue's (0.75, Kayles 0.77, 0.07 to heaps 33 and 32), a dozen 0.dd
#        codes, and the 0.ddd codes whose certificate takes MisereSolver longest among those
#        found (0.044 at heap 504, 0.077 at 336, 0.115 at 216, 0.152 at 150: results/misere.md)
#        BENCH_TIMEOUT=600   seconds each program may run on one code (a run stopped by it is
#                            compared with nimseq run to the same heap)
#        BENCH_OUT=FILE      also append the table to FILE (e.g. results/misere.md)
#        BENCH_NIMSEQ=BIN    run this nimseq binary (e.g. an older build, for a before/after
#                            comparison) instead of building the tree's
#
# Times are user CPU seconds (the fair figure on a shared machine; the JVM's includes its
# compiler and collector threads) and wall seconds; "×" is MisereSolver's user time over
# nimseq's.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 ]]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
cgs=$1
shift
codes=("$@")
if [[ ${#codes[@]} -eq 0 ]]; then
    codes=(0.75 0.77 0.07:33 0.07:32 0.15 0.22 0.31 0.34 0.52 0.53 0.71 0.72 0.73 0.44:200 0.46:200
        0.4:25 0.044:510 0.077:340 0.115:220 0.152:160)
fi
limit=${BENCH_TIMEOUT:-600}
solver_dir=lib/core/src/main/scala/org/cgsuite/core/misere/solver
classes=(BipartiteMonoid CommandLineOptions CommutativeMonoid DirectSumMonoid
    ExplicitFiniteMonoid MisereSolver Pretension Relation Word)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/classes"
for c in "${classes[@]}"; do
    if [[ -f "$cgs/$solver_dir/$c.java" ]]; then
        cp "$cgs/$solver_dir/$c.java" "$tmp/src/"
    elif git --git-dir="$cgs" rev-parse --verify -q HEAD >/dev/null 2>&1; then
        git --git-dir="$cgs" show "HEAD:$solver_dir/$c.java" >"$tmp/src/$c.java"
    else
        echo "bench-misere: $cgs has no $solver_dir/$c.java (give a CGSuite checkout)" >&2
        exit 2
    fi
done
cgs_rev=$( (git -C "$cgs" rev-parse --short HEAD 2>/dev/null ||
    git --git-dir="$cgs" rev-parse --short HEAD 2>/dev/null) || echo unknown)
# The one dependency on CGSuite's rules: MisereSolver takes a HeapRuleset and asks it for a heap's
# options through Scala collections. Point it at our NimseqOctalRules, drop the constructor that
# reads CGSuite's saved files (it needs CGSuite's code parser), and make heapOptions ask ours.
perl -0pi -e '
    s/^import (org\.cgsuite\.core\.impartial|scala)\.[^\n]*\n//mg;
    s/\bHeapRuleset\b/NimseqOctalRules/g;
    s/\n    public MisereSolver\(InputStream .*?\n    \}\n/\n/s;
    s/(public List<int\[\]> heapOptions\(int heapSize\)\s*\{).*?\n    \}\n/$1 return rules.heapOptions(heapSize); }\n/s;
' "$tmp/src/MisereSolver.java"
grep -q 'return rules.heapOptions(heapSize)' "$tmp/src/MisereSolver.java" || {
    echo "bench-misere: MisereSolver.java has changed shape; the patch did not apply" >&2
    exit 1
}
cp scripts/misere-peer/NimseqMisereDriver.java "$tmp/src/"
javac -nowarn -encoding UTF-8 -d "$tmp/classes" "$tmp/src"/*.java 2>"$tmp/javac.log" || {
    cat "$tmp/javac.log" >&2
    exit 1
}

if [[ -n ${BENCH_NIMSEQ:-} ]]; then
    bin=$BENCH_NIMSEQ
    rev="binary $bin"
else
    cargo build --release --quiet
    bin=target/release/nimseq
    rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
fi
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)

table=$tmp/table.md
{
    echo
    echo "\`scripts/bench-misere.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'): nimseq $rev, CGSuite $cgs_rev"
    echo "(MisereSolver with nimseq's driver), $(nproc) cores of $cpu, $mem, load $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "| code | MisereSolver \|Q\| / \|P\| | at heap | user s (wall) | nimseq \|Q\| / \|P\| | at heap | user s (wall) | × | same |"
    echo "|---|---|---|---|---|---|---|---|---|"
} | tee "$table"

for spec in "${codes[@]}"; do
    code=${spec%%:*}
    max=300
    [[ $spec == *:* ]] && max=${spec##*:}
    # MisereSolver.
    /usr/bin/time -f '%U %e' -o "$tmp/ms.time" timeout "$limit" \
        java -Xss64m -Xmx8g -cp "$tmp/classes" org.cgsuite.core.misere.solver.NimseqMisereDriver \
        "$code" "$max" >"$tmp/ms.out" 2>"$tmp/ms.err" || true
    ms_time=$(tail -1 "$tmp/ms.time" | awk '{ printf "%.2f (%.1f)", $1, $2 }')
    ms_user=$(tail -1 "$tmp/ms.time" | awk '{ print $1 }')
    last=$(grep '^heap' "$tmp/ms.out" | tail -1 || true)
    if [[ -z $last ]]; then
        echo "| $code | failed: $(head -c 200 "$tmp/ms.err" | tr '\n' ' ') | | | | | | | |" | tee -a "$table"
        continue
    fi
    ms_heap=$(awk '{ print $2 }' <<<"$last")
    ms_q=$(awk '{ print $4 }' <<<"$last")
    ms_p=$(awk '{ print $6 }' <<<"$last")
    ms_cert=$(grep '^certified' "$tmp/ms.out" | awk '{ print $2 }' || true)
    ms_at=${ms_cert:+$ms_cert ✓}
    ms_at=${ms_at:-$ms_heap}
    # nimseq, to the heap MisereSolver reached when it stopped without a certificate.
    n_max=$max
    [[ -z $ms_cert ]] && n_max=$ms_heap
    /usr/bin/time -f '%U %e' -o "$tmp/n.time" timeout "$limit" \
        "$bin" quotient "$code" --max-heap "$n_max" --json >"$tmp/n.json" 2>/dev/null || true
    n_time=$(tail -1 "$tmp/n.time" | awk '{ printf "%.2f (%.1f)", $1, $2 }')
    n_user=$(tail -1 "$tmp/n.time" | awk '{ print $1 }')
    read -r n_q n_p n_at same < <(python3 - "$tmp/n.json" "$tmp/ms.out" "$ms_q" "$ms_p" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("- - - no"); sys.exit()
at = f"{d['certified_at']}_✓" if d["certified"] else str(d["last_heap"])
same = "no"
if str(d["order"]) == sys.argv[3] and str(d["p_count"]) == sys.argv[4]:
    same = "order_and_P-size_only"
    # The driver's outcomes: heaps 1 .. top, then the pairs a ≤ b; compared up to the last
    # heap both computed.
    line = [l.split() for l in open(sys.argv[2]) if l.startswith("outcomes")]
    if line:
        top, bits = int(line[0][1]), line[0][2]
        ms, i = {}, 0
        for a in range(1, top + 1):
            ms[(a,)] = bits[i]
            i += 1
        for a in range(1, top + 1):
            for b in range(a, top + 1):
                ms[(a, b)] = bits[i]
                i += 1
        heaps, p, t = d["heaps"], set(d["p"]), d["table"]
        k = min(top, len(heaps) - 1)
        def ours(key):
            e = t[heaps[key[0]]][heaps[key[1]]] if len(key) == 2 else heaps[key[0]]
            return "1" if e in p else "0"
        bad = [key for key in ms if max(key) <= k and ms[key] != ours(key)]
        same = f"OUTCOMES_DIFFER_at_{bad[0]}" if bad else f"yes_(heaps,_pairs_to_{k})"
print(d["order"], d["p_count"], at, same)
EOF
    )
    n_at=${n_at//_/ }
    same=${same//_/ }
    ratio=$(awk -v a="$ms_user" -v b="$n_user" 'BEGIN { if (b + 0 >= 0.01) printf "%.1f", a / b; else printf "≥ %.0f", a / 0.01 }')
    echo "| $code | $ms_q / $ms_p | $ms_at | $ms_time | $n_q / $n_p | $n_at | $n_time | $ratio | $same |" |
        tee -a "$table"
done
if [[ -n ${BENCH_OUT:-} ]]; then
    cat "$table" >>"$BENCH_OUT"
fi
