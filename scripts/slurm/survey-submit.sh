#!/usr/bin/env bash
# Submits a survey as a job array of K tasks and a merge job that runs when all succeeded.
#
#   scripts/slurm/survey-submit.sh PATTERN N OUT K [extra sbatch options...]
#   e.g. NIMSEQ=/shared/bin/nimseq scripts/slurm/survey-submit.sh '0.???' 2^20 /shared/s 16 -p long
#
# N = --misere runs `survey PATTERN --misere` instead (MAX_HEAP, MAX_ORDER, BUDGET from the
# environment, as survey-array.sbatch reads them):
#   scripts/slurm/survey-submit.sh '0.???' --misere /shared/m 8
#
# Prints the two job ids. The merged survey lands in OUT/survey.jsonl and OUT/survey.md
# (OUT/misere.jsonl and OUT/misere.md for --misere).
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 PATTERN N OUT K [sbatch options...]" >&2; exit 2; }
PATTERN=$1 N=$2 OUT=$3 K=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
NIMSEQ=${NIMSEQ:-nimseq}
mkdir -p "$OUT"
if [ "$N" = --misere ]; then
    export MISERE=1
    N=
fi
array=$(PATTERN=$PATTERN N=$N OUT=$OUT NIMSEQ=$NIMSEQ \
    sbatch --parsable --array="0-$((K - 1))" --chdir="$OUT" "$@" "$here/survey-array.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --job-name=nimseq-merge \
    --chdir="$OUT" --output="$OUT/slurm-merge-%j.out" "$@" \
    --wrap "\"$NIMSEQ\" survey-merge \"$OUT\" --out \"$OUT\" > /dev/null")
echo "array $array merge ${merge%%;*}"
