#!/usr/bin/env bash
# Submits a survey as a job array of K tasks and a merge job that runs when all succeeded.
#
#   scripts/slurm/survey-submit.sh PATTERN N OUT K [extra sbatch options...]
#   e.g. NIMSEQ=/shared/bin/nimseq scripts/slurm/survey-submit.sh '0.???' 2^20 /shared/s 16 -p long
#
# Prints the two job ids. The merged survey lands in OUT/survey.jsonl and OUT/survey.md.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 PATTERN N OUT K [sbatch options...]" >&2; exit 2; }
PATTERN=$1 N=$2 OUT=$3 K=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
NIMSEQ=${NIMSEQ:-nimseq}
mkdir -p "$OUT"
array=$(PATTERN=$PATTERN N=$N OUT=$OUT NIMSEQ=$NIMSEQ \
    sbatch --parsable --array="0-$((K - 1))" --chdir="$OUT" "$@" "$here/survey-array.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --job-name=nimseq-merge \
    --chdir="$OUT" --output="$OUT/slurm-merge-%j.out" "$@" \
    --wrap "\"$NIMSEQ\" survey-merge \"$OUT\" --out \"$OUT\" > /dev/null")
echo "array $array merge ${merge%%;*}"
