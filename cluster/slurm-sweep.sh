#!/bin/sh
# A sweep as a Slurm job array: array task I of N runs the I-th shard of the sweep and writes
# shard-I.json in the folder it was submitted from; `electsim merge shard-*.json` adds them up.
#
#   sbatch cluster/slurm-sweep.sh                                  # 32 tasks, a million ElasticJob runs
#   sbatch --array=1-4 --export=ALL,RUNS=400 cluster/slurm-sweep.sh
#
# Settings from the environment (sbatch --export): ELECTSIM (the binary; default: electsim on the
# PATH), RECIPE (elasticjob), RUNS (1000000), OUT (failures: one folder for every shard; failure
# files are named by seed, so shards never collide). The summary is written to shard-I.json.part and
# renamed when the shard is done: a killed task leaves no shard-I.json, and merge names the seeds it
# misses. Explore's exit status 1 (failures found) is a result, not a failed task.
#
# This file is the one tests/cluster/slurm_test.sh submits to a real slurmctld and slurmd.
#SBATCH --job-name=electsim-sweep
#SBATCH --array=1-32
#SBATCH --cpus-per-task=8
#SBATCH --output=shard-%a.log
set -u
: "${ELECTSIM:=electsim}" "${RECIPE:=elasticjob}" "${RUNS:=1000000}" "${OUT:=failures}"
task=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}
tasks=${SLURM_ARRAY_TASK_COUNT:?not a Slurm array task}
"$ELECTSIM" explore --recipe "$RECIPE" --runs "$RUNS" --shard "$task/$tasks" --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --out "$OUT" --json --quiet > "shard-$task.json.part"
status=$?
if [ "$status" -gt 1 ]; then
  rm -f "shard-$task.json.part"
  exit "$status"
fi
mv "shard-$task.json.part" "shard-$task.json"
