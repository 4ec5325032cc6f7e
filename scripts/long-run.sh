#!/bin/bash
# One research-sized run on a table, resumable: the command that made the runs of
# results/scale.md. Every start (the first or a resume after any stop) appends to TABLE.log:
# a header (time, commit, machine, heaps already in the table), nimseq's progress lines
# (`--log-every`: heaps done and the rate since the previous line), and at the end the exit
# status, wall time and peak RssAnon (sampled every 2 s from /proc). The summary nimseq prints
# is appended to TABLE.summary.
#
#   scripts/long-run.sh GAME N TABLE [nimseq compute options…]
#   scripts/long-run.sh 0.167 2^34 /data/0.167.nimseq --threads 1
#
# Stop it with SIGTERM or SIGINT (passed on to nimseq, which checkpoints and exits 143); run
# the same command again to resume. On a Slurm cluster use scripts/slurm/long-run.sbatch.
set -uo pipefail
if [ $# -lt 3 ]; then
    echo "usage: scripts/long-run.sh GAME N TABLE [nimseq compute options...]" >&2
    exit 2
fi
game=$1 n=$2 table=$3
shift 3
bin=${NIMSEQ:-$(dirname "$0")/../target/release/nimseq}
log=$table.log

held=$("$bin" info "$table" --json 2>/dev/null | sed -n 's/.*"count": *\([0-9]*\).*/\1/p' | head -1)
{
    echo "== start $(date -u '+%Y-%m-%d %H:%M:%S UTC'): nimseq compute $game -n $n --table $table $*"
    echo "   commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
        "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
        "heaps in the table: ${held:-none}"
} >> "$log"

# shellcheck source=scripts/lib/measure.sh
. "$(dirname "$0")/lib/measure.sh"
trap 'kill -TERM "${MEASURE_PID:-}" 2>/dev/null' TERM INT
MEASURE_EVERY=2 measure_run "$bin" compute "$game" -n "$n" --table "$table" \
    --log-every "${LOG_EVERY:-60}" "$@" >> "$table.summary" 2>> "$log"
echo "== end $(date -u '+%Y-%m-%d %H:%M:%S UTC'): exit $MEASURE_STATUS after $MEASURE_WALL s," \
    "peak RssAnon $MEASURE_PEAK KiB, file $(stat -c %s "$table" 2>/dev/null) bytes" >> "$log"
exit "$MEASURE_STATUS"
