#!/usr/bin/env bash
# End-to-end test of the Slurm scripts on a real one-node cluster (scripts/slurm/local-cluster.sh):
#  1. the survey job array on a small pattern, merged, must equal a local unsharded run, byte for
#     byte; one task is requeued (scontrol requeue) while it runs, and must resume; the same
#     for a misère survey (MISERE=1: survey --misere), without the requeue;
#  2. the long job (compute --table) is stopped twice while it runs — once as at a time limit
#     (SIGTERM to the batch script, which checkpoints and requeues itself), once as by
#     preemption (scontrol requeue) — and its table, exported, must equal a local run.
# Needs root (installs Debian's slurm-wlm and munge if missing). Run by .ci/run when possible.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/scripts/slurm

if [ -z "${NIMSEQ_SLURM_INSIDE:-}" ]; then
    start=$(date +%s)
    if ! command -v slurmctld >/dev/null && ! apt-get update -qq >/dev/null 2>&1; then
        echo "slurm ci-test: SKIPPED: Slurm is not installed and apt-get cannot reach Debian's archive" >&2
        exit 0
    fi
    (cd "$root" && cargo build --quiet)
    NIMSEQ_SLURM_INSIDE=1 "$here/local-cluster.sh" run "$0" "$@"
    echo "slurm ci-test: passed in $(( $(date +%s) - start )) s"
    exit 0
fi

NIMSEQ=$root/target/debug/nimseq
work=$(mktemp -d /tmp/nimseq-slurm-ci.XXXXXX)
chmod 755 "$work"
log() { echo "slurm ci-test: $*" >&2; }
fail() {
    log "FAILED: $*"
    for f in "$work"/slurm-*.out; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done >&2
    # What Slurm itself saw of the jobs, to tell a race from a real fault.
    { echo "== slurmctld.log (jobs of this test)"
      grep -E "JobId=(${ids:-none})([^0-9_]|_|$)" "${SLURM_CONF%/*}/log/slurmctld.log" | tail -60
    } >&2 2>/dev/null || true
    exit 1
}
ids=

# The state of a job (or of every task of an array): one line per task.
states() {
    scontrol show job "$1" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 | sort \
        | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}'
}

# A requeued job waits ~2 minutes before it is eligible again (a fixed delay in Slurm), time in
# which the node finishes off the job's previous run. The test does not wait that long, but it
# must wait for that clean-up: a job started again while slurmd still tears down its previous
# run is killed as "non-startable: Job credential revoked" (seen in CI on a loaded machine).
release() {
    local j=$1 t=0
    while scontrol show job "$j" -o 2>/dev/null | grep -q 'JobState=COMPLETING' \
        || scontrol show node -o 2>/dev/null | grep -q 'State=[A-Z+]*COMPLETING'; do
        sleep 0.2; t=$((t + 1))
        [ $t -lt 300 ] || break
    done
    sleep 3
    scontrol update JobId="$j" StartTime=now >/dev/null 2>&1 || true
}

# Waits until job $1 has no task left that is pending, running or completing, at most $2 s.
wait_done() {
    local id=$1 limit=$2 t=0
    while squeue -h -j "$id" -t PD,R,CG,S,RQ,RS,CF 2>/dev/null | grep -q .; do
        for j in $(squeue -h -j "$id" -t PD -r -o %i 2>/dev/null); do
            if squeue -h -j "$j" -o %r | grep -q BeginTime; then
                release "$j"
            fi
        done
        sleep 1; t=$((t + 1))
        [ $t -lt "$limit" ] || fail "job $id still not done after $limit s: $(states "$id")"
    done
}

# Waits until job $1 is in state $2, at most $3 s.
wait_state() {
    local id=$1 want=$2 limit=$3 t=0
    until [ "$(squeue -h -j "$id" -o %T 2>/dev/null)" = "$want" ]; do
        sleep 0.2; t=$((t + 1))
        [ $t -lt $((limit * 5)) ] || fail "job $id not $want after $limit s (now $(states "$id"))"
    done
}

### 1. Survey as a job array.
PATTERN='0.??' N=2^12 K=4
t0=$(date +%s)
"$NIMSEQ" survey "$PATTERN" -n "$N" --out "$work/local" >/dev/null 2>&1
id=$(PATTERN=$PATTERN N=$N OUT=$work/survey NIMSEQ=$NIMSEQ \
    sbatch --parsable --array="0-$((K - 1))" --chdir="$work" --cpus-per-task=1 \
    --output="$work/slurm-survey-%A_%a.out" "$here/survey-array.sbatch")
id=${id%%;*}
ids=$id
log "survey array $id submitted ($PATTERN, N = $N, $K tasks)"
# Requeue one task while it runs (as an administrator or preemption would): it must resume.
task=
for _ in $(seq 100); do
    task=$(squeue -h -j "$id" -r -t R -o %i 2>/dev/null | head -1)
    [ -n "$task" ] && break
    sleep 0.1
done
[ -n "$task" ] || fail "no task of $id ran within 10 s: $(states "$id")"
sleep 1
scontrol requeue "$task" || fail "cannot requeue $task"
log "requeued task $task while it ran"
wait_done "$id" 180
st=$(states "$id")
[ "$st" = "$K COMPLETED" ] || fail "survey tasks: $st"
grep -q "restart 1" "$work/slurm-survey-$task.out" || fail "task $task was not restarted"
log "task $task after its restart: $(grep -h "resuming" "$work/slurm-survey-$task.out" || echo "nothing to resume")"
"$NIMSEQ" survey-merge "$work/survey" --out "$work/merged" >/dev/null
cmp "$work/merged/survey.jsonl" "$work/local/survey.jsonl" || fail "merged survey differs from the local run"
cmp "$work/merged/survey.md" "$work/local/survey.md" || fail "merged Markdown differs"
log "survey: $K shards merged equal the local run ($(( $(date +%s) - t0 )) s)"

### 1b. Misère quotients (survey --misere) as a job array, merged.
# Heap 10 and a budget no game meets: every row is decided by the heap limit or a certificate,
# so the merged survey must equal the local run byte for byte.
t0=$(date +%s)
"$NIMSEQ" survey "$PATTERN" --misere --max-heap 10 --budget 600 --out "$work/mlocal" -q >/dev/null
id=$(MISERE=1 PATTERN=$PATTERN MAX_HEAP=10 BUDGET=600 OUT=$work/misere NIMSEQ=$NIMSEQ \
    sbatch --parsable --array="0-$((K - 1))" --chdir="$work" --cpus-per-task=1 \
    --output="$work/slurm-misere-%A_%a.out" "$here/survey-array.sbatch")
id=${id%%;*}
ids="$ids|$id"
log "misère survey array $id submitted ($PATTERN, heap 10, $K tasks)"
wait_done "$id" 180
st=$(states "$id")
[ "$st" = "$K COMPLETED" ] || fail "misère survey tasks: $st"
for i in $(seq "$K"); do
    [ -f "$work/misere/misere-shard-$i-of-$K.jsonl" ] || fail "no misère shard $i of $K"
done
"$NIMSEQ" survey-merge "$work/misere" --out "$work/mmerged" >/dev/null
cmp "$work/mmerged/misere.jsonl" "$work/mlocal/misere.jsonl" || fail "merged misère survey differs from the local run"
cmp "$work/mmerged/misere.md" "$work/mlocal/misere.md" || fail "merged misère Markdown differs"
log "misère survey: $K shards merged equal the local run ($(( $(date +%s) - t0 )) s)"

### 2. One long run with a table, stopped twice.
if ! "$NIMSEQ" compute --help 2>/dev/null | grep -q -- '--table'; then
    log "SKIPPED the long job: this nimseq has no 'compute --table' yet"
    exit 0
fi
GAME=${LONG_GAME:-0.16} LN=${LONG_N:-2^16}
t0=$(date +%s)
# The exact engine: slow enough (~20 s) to be stopped twice mid-run, whatever engine is fastest.
"$NIMSEQ" compute "$GAME" -n "$LN" --engine exact --table "$work/local.table" -q >/dev/null
"$NIMSEQ" export "$work/local.table" --no-header >"$work/local.values"
local_s=$(( $(date +%s) - t0 ))
id=$(GAME=$GAME N=$LN TABLE=$work/long.table NIMSEQ=$NIMSEQ ENGINE=exact NIMSEQ_ARGS=-q \
    sbatch --parsable --chdir="$work" --cpus-per-task=1 --output="$work/slurm-long-%j.out" \
    "$here/long-run.sbatch")
ids="$ids|$id"
log "long job $id submitted ($GAME, N = $LN; $local_s s locally)"
wait_state "$id" RUNNING 60
sleep "${LONG_STOP_AFTER:-2}"
# As at a time limit: SIGTERM to the batch script only; it checkpoints and requeues the job.
scancel --signal=TERM --batch "$id"
wait_state "$id" PENDING 60
log "long job stopped by SIGTERM and requeued itself"
release "$id"
wait_state "$id" RUNNING 60
sleep "${LONG_STOP_AFTER:-2}"
# As by preemption: Slurm signals every process of the job and requeues it.
if [ "$(squeue -h -j "$id" -o %T)" = RUNNING ]; then
    scontrol requeue "$id"
    wait_state "$id" PENDING 60
    log "long job requeued by scontrol"
fi
wait_done "$id" 240
st=$(states "$id")
[ "$st" = "1 COMPLETED" ] || fail "long job: $st"
restarts=$(scontrol show job "$id" -o | grep -o 'Restarts=[0-9]*' | cut -d= -f2)
[ "${restarts:-0}" -ge 1 ] || fail "the long job was never restarted"
# nimseq says how far the table was when a signal stopped it: the restarts resumed from there.
grep -q "stopped by SIGTERM: .* holds heaps 0 \.\." "$work/slurm-long-$id.out" \
    || fail "no checkpoint message in the long job's log"
log "$(grep -c "stopped by SIGTERM" "$work/slurm-long-$id.out") checkpoints: $(grep -o "holds heaps 0 \.\. [0-9]*" "$work/slurm-long-$id.out" | tr '\n' ';')"
"$NIMSEQ" export "$work/long.table" --no-header >"$work/long.values"
cmp "$work/long.values" "$work/local.values" || fail "the resumed table differs from the local run"
log "long job: restarted $restarts times, table equals the local run ($(( $(date +%s) - t0 )) s)"
rm -rf "$work"
