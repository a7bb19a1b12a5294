#!/usr/bin/env bash
# run_interrupt.sh ELECTSIM: one SIGINT (then one SIGTERM) a second into a day-long `run --trace`:
# the run stops, reports what it judged so far marked interrupted (exit 1, "interrupted": true in
# the JSON), the trace is written for the part that ran, and no temporary file is left behind.
set -u
electsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$dir/day.yaml" <<'YAML'
name: day
description: A day of 30 ElasticJob instances firing 100 items every second, long enough to interrupt.
recipe: elasticjob
duration: 24h
instances: {count: 30}
jobs:
  - {name: busy, sharding_total_count: 100, fire_interval: 1s}
YAML
for signal in INT TERM; do
  rm -f "$dir/trace.jsonl"
  "$electsim" run "$dir/day.yaml" --trace "$dir/trace.jsonl" --json > "$dir/out" 2> "$dir/err" &
  pid=$!
  sleep 1
  kill -s "$signal" "$pid"
  wait "$pid"
  status=$?
  [[ $status -eq 1 ]] || fail "SIG$signal: exit $status: $(cat "$dir/err")"
  grep -q '"interrupted":true' "$dir/out" || fail "SIG$signal: the report is not marked interrupted: $(tail -c 300 "$dir/out")"
  [[ -s "$dir/trace.jsonl" ]] || fail "SIG$signal: no trace written"
  [[ -z $(find "$dir" -name '.*tmp-*') ]] || fail "SIG$signal: a temporary file was left: $(find "$dir" -name '.*tmp-*')"
  sim_seconds=$(grep -o '"sim_seconds":[0-9.e+]*' "$dir/out" | cut -d: -f2)
  echo "SIG$signal: stopped at $sim_seconds s of 86400, reported, trace written"
done
