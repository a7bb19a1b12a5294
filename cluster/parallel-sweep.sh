#!/bin/sh
# A sweep over GNU parallel: SHARDS shards, as many at a time as parallel runs (-j; over ssh with -S),
# each writing shard-I.json in the current folder; `electsim merge shard-*.json` adds them up.
#
#   cluster/parallel-sweep.sh 4 -j 4                 # run the sweep
#   cluster/parallel-sweep.sh 4 -j 4 --resume-failed # after a shard was killed: re-run only it
#
# Settings from the environment: ELECTSIM (the binary; default: electsim on the PATH), RECIPE
# (elasticjob), RUNS (100000), OUT (failures: one folder for every shard; failure files are named by
# seed, so shards never collide), JOBLOG (parallel-sweep.joblog: what --resume-failed reads). A
# shard's summary is written to shard-I.json.part and renamed when it is done: a killed shard leaves
# no shard-I.json, and merge names the seeds it misses. Explore's exit status 1 (failures found) is a
# result, not a failed shard.
#
# This file is the one tests/cluster/parallel_test.sh runs.
set -eu
if [ $# -lt 1 ]; then
  echo "usage: cluster/parallel-sweep.sh SHARDS [GNU parallel options]" >&2
  exit 2
fi
shards=$1
shift
: "${ELECTSIM:=electsim}" "${RECIPE:=elasticjob}" "${RUNS:=100000}" "${OUT:=failures}" "${JOBLOG:=parallel-sweep.joblog}"
export ELECTSIM RECIPE RUNS OUT
# One shard: explore, then the summary renamed into place unless explore failed (status above 1).
shard='"$ELECTSIM" explore --recipe "$RECIPE" --runs "$RUNS" --shard {}/'"$shards"' --out "$OUT" --json --quiet > shard-{}.json.part;
  status=$?; if [ $status -gt 1 ]; then rm -f shard-{}.json.part; exit $status; fi; mv shard-{}.json.part shard-{}.json'
exec parallel --joblog "$JOBLOG" "$@" "$shard" ::: $(seq 1 "$shards")
