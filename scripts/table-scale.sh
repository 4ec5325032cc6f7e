#!/bin/sh
# Measures one large `compute --table` run: wall time, peak RssAnon (sampled every second from
# /proc), peak VmHWM, file size. Usage: scripts/table-scale.sh GAME N PATH
# Writes one Markdown table row to stdout. Delete PATH afterwards: it can be tens of GiB.
set -eu
game=$1 n=$2 path=$3
bin=${NIMSEQ:-target/release/nimseq}
start=$(date +%s.%N)
"$bin" compute "$game" -n "$n" --table "$path" --quiet > /tmp/table-scale.$$.out &
pid=$!
peak_anon=0 hwm=0
while kill -0 "$pid" 2>/dev/null; do
    a=$(awk '/^RssAnon:/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
    h=$(awk '/^VmHWM:/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
    [ "${a:-0}" -gt "$peak_anon" ] && peak_anon=$a
    [ "${h:-0}" -gt "$hwm" ] && hwm=$h
    sleep 1
done
wait "$pid"
end=$(date +%s.%N)
size=$(stat -c %s "$path")
secs=$(echo "$end - $start" | bc)
echo "| \`nimseq compute '$game' -n $n --table $path\` | ${secs} s | ${peak_anon} KiB | ${hwm} KiB | $size bytes |"
head -c 400 /tmp/table-scale.$$.out >&2
rm -f /tmp/table-scale.$$.out
