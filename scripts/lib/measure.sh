# Sourced by the scripts that time a run and its peak memory (bash).
#
# measure_run CMD...: runs CMD in the background (its pid in MEASURE_PID, for a trap to signal),
# samples its RssAnon from /proc every MEASURE_EVERY seconds (default 0.05) and, once it exits,
# sets MEASURE_STATUS (its exit status), MEASURE_WALL (seconds) and MEASURE_PEAK (KiB).
measure_run() {
    local start r
    MEASURE_PEAK=0
    start=$(date +%s.%N)
    "$@" &
    MEASURE_PID=$!
    while kill -0 "$MEASURE_PID" 2>/dev/null; do
        r=$(awk '/^RssAnon/ {print $2}' "/proc/$MEASURE_PID/status" 2>/dev/null || true)
        if [[ -n "$r" && "$r" -gt "$MEASURE_PEAK" ]]; then MEASURE_PEAK=$r; fi
        sleep "${MEASURE_EVERY:-0.05}"
    done
    MEASURE_STATUS=0
    wait "$MEASURE_PID" || MEASURE_STATUS=$?
    MEASURE_WALL=$(echo "$(date +%s.%N) - $start" | bc)
}
