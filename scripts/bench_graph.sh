#!/usr/bin/env bash
# Times `nimseq graph` on generated edge lists of a few million moves.
#   scripts/bench_graph.sh [EDGES]     (default 3000000)
# Writes the figures to stdout; record them in results/graph.md.
set -euo pipefail
edges=${1:-3000000}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/nimseq
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# 1. Acyclic: the subtraction game {1,..,5} on heaps 0 .. edges/5 (values n mod 6).
awk -v m="$edges" 'BEGIN { n = int(m / 5); for (h = 1; h <= n; h++) for (k = 1; k <= 5 && k <= h; k++) print "h" h, "h" h - k }' > "$dir/acyclic.txt"
# 2. Cyclic: a random graph, average out-degree 3 (mostly loopy: many draws and ∞ values).
awk -v m="$edges" 'BEGIN { srand(1); n = int(m / 3); for (i = 0; i < m; i++) print "v" int(rand() * n), "v" int(rand() * n) }' > "$dir/random.txt"
# 3. Mostly acyclic: random moves to smaller vertices, 1% of moves to a slightly larger one.
awk -v m="$edges" 'BEGIN { srand(2); n = int(m / 3); for (i = 0; i < m; i++) { u = 1 + int(rand() * (n - 1)); if (rand() < 0.01) v = u + 1 + int(rand() * 3); else v = int(rand() * u); print "w" u, "w" v } }' > "$dir/mostly_acyclic.txt"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for f in acyclic random mostly_acyclic; do
    lines=$(wc -l < "$dir/$f.txt")
    size=$(du -h "$dir/$f.txt" | cut -f1)
    /usr/bin/time -f '%e %U %M' -o "$dir/time" "$bin" graph "$dir/$f.txt" > "$dir/$f.out"
    read -r wall user rss < "$dir/time"
    summary=$(grep -m1 '^# outcomes' "$dir/$f.out")
    kind=$(sed -n 2p "$dir/$f.out" | cut -c3-32)
    printf '%-15s %9d lines (%s)  wall %6.2f s  user %6.2f s  max RSS %d MiB  %s | %s\n' \
        "$f" "$lines" "$size" "$wall" "$user" "$((rss / 1024))" "$kind" "$summary"
done
