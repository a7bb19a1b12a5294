#!/usr/bin/env bash
# live_trace_size.sh ELECTSIM SCENARIO: --max-trace-size bounds a live run's trace as it bounds a
# simulated one's: the trace ends with a trace.limit line, the run stops there (well before the
# scenario's end), exit 2 naming the option, no temporary file left. 77 when live mode is unavailable.
set -uo pipefail
electsim=$1
scenario=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
start=$SECONDS
output=$("$electsim" live "$scenario" --trace "$dir/t.jsonl" --max-trace-size 8KiB 2>&1)
status=$?
if [[ $status -eq 2 && "$output" == *"live mode unavailable"* ]]; then
  echo "SKIPPED: live mode unavailable on this machine"
  exit 77
fi
fail() { echo "FAIL: $*"; echo "$output" | tail -20; exit 1; }
[[ $status -eq 2 ]] || fail "exit $status"
grep -q "max-trace-size" <<<"$output" || fail "the message does not name the limit"
tail -1 "$dir/t.jsonl" | grep -q '"kind":"trace.limit"' || fail "the trace does not end with trace.limit"
[[ -z $(find "$dir" -name '.*tmp-*') ]] || fail "a temporary file was left"
echo "stopped at the trace bound after $((SECONDS - start)) s: $(stat -c %s "$dir/t.jsonl") bytes"
