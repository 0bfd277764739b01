#!/bin/bash
# Submits a graphcc eval sweep to Slurm: a job array of SHARDS tasks, each
# running one shard (eval-array.sbatch), and a merge job that runs once
# every task succeeded (merge.sbatch, --dependency=afterok). Its arguments
# are graphcc eval's flags; it prints the two job IDs:
#
#   SHARDS=8 CPUS=4 OUT=/shared/sweep GRAPHCC=/shared/bin/graphcc \
#     deploy/slurm/submit.sh --scenarios all --policies static,graphcc --seeds 1001-1010
#
# Settings (environment):
#   SHARDS     number of shards, the array's size (default 4)
#   CPUS       CPUs per task, eval's --workers (default 2)
#   TIME       time limit of each eval task (default 01:00:00)
#   MERGE_TIME time limit of the merge job (default 00:30:00)
#   OUT        the sweep's directory, on a file system every node sees
#              (default ./graphcc-sweep); parts go to OUT/parts, the job
#              logs to OUT/logs, the merged JSON to OUT/all.json and the
#              report and figures to OUT/report
#   GRAPHCC    the graphcc binary the jobs run (default: graphcc on PATH)
#   GRAPHCC_IMAGE, CONTAINER_RUNTIME
#              a container image to run graphcc from instead, with
#              "$CONTAINER_RUNTIME exec" (default apptainer)
#   PARTITION  the partition (default: the cluster's default)
#   SBATCH_ARGS further sbatch options for both jobs (split on spaces),
#              such as "--account=net --qos=short"
set -eu

here=$(cd "$(dirname "$0")" && pwd)
SHARDS=${SHARDS:-4}
CPUS=${CPUS:-2}
TIME=${TIME:-01:00:00}
MERGE_TIME=${MERGE_TIME:-00:30:00}
OUT=${OUT:-graphcc-sweep}

case $SHARDS in
'' | *[!0-9]* | 0*)
	echo "submit.sh: SHARDS=$SHARDS is not a whole number of at least 1" >&2
	exit 2
	;;
esac
case $CPUS in
'' | *[!0-9]* | 0*)
	echo "submit.sh: CPUS=$CPUS is not a whole number of at least 1" >&2
	exit 2
	;;
esac

mkdir -p "$OUT/parts" "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
# A part left by an earlier sweep into OUT must not be merged into this one.
rm -f "$OUT"/parts/part-*.json
# The jobs get this environment (--export=ALL): SHARDS, OUT and the
# caller's GRAPHCC, GRAPHCC_IMAGE and CONTAINER_RUNTIME.
export SHARDS OUT

common=(--parsable --export=ALL)
if [ -n "${PARTITION:-}" ]; then
	common+=(--partition="$PARTITION")
fi
if [ -n "${SBATCH_ARGS:-}" ]; then
	# shellcheck disable=SC2206 # split on spaces on purpose
	common+=($SBATCH_ARGS)
fi

array=$(sbatch "${common[@]}" --array="0-$((SHARDS - 1))" --cpus-per-task="$CPUS" --time="$TIME" \
	--output="$OUT/logs/eval-%A_%a.out" "$here/eval-array.sbatch" "$@")
array=${array%%;*}
merge=$(sbatch "${common[@]}" --dependency="afterok:$array" --kill-on-invalid-dep=yes --time="$MERGE_TIME" \
	--output="$OUT/logs/merge-%j.out" "$here/merge.sbatch")
merge=${merge%%;*}

echo "array=$array"
echo "merge=$merge"
echo "submit.sh: $SHARDS shards in job array $array, merge job $merge after it; the report will be in $OUT/report and $OUT/logs/merge-$merge.out" >&2
