#!/usr/bin/env bash
# trace_size.sh ELECTSIM SCENARIO: --max-trace-size bounds the trace. At the bound the trace ends
# with a trace.limit line, the run stops and exits 2 naming the option, the trace is kept (no
# temporary file left); without the option the same scenario's trace is whole and larger.
set -u
electsim=$1
scenario=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$electsim" run "$scenario" --trace "$dir/whole.jsonl" > /dev/null 2>&1
whole=$(stat -c %s "$dir/whole.jsonl")
(( whole > 64 * 1024 )) || fail "the whole trace is only $whole bytes: pick a busier scenario"

out=$("$electsim" run "$scenario" --trace "$dir/cut.jsonl" --max-trace-size 16KiB 2>&1)
status=$?
[[ $status -eq 2 ]] || fail "exit $status at the bound: $out"
grep -q "max-trace-size" <<<"$out" || fail "the message does not name the limit: $out"
cut=$(stat -c %s "$dir/cut.jsonl")
(( cut >= 16384 && cut < 16384 + 4096 )) || fail "the cut trace is $cut bytes for a 16 KiB bound"
tail -1 "$dir/cut.jsonl" | grep -q '"kind":"trace.limit"' || fail "the last line is not trace.limit: $(tail -1 "$dir/cut.jsonl")"
[[ -z $(find "$dir" -name '.*tmp-*') ]] || fail "a temporary file was left"

out=$("$electsim" run "$scenario" --max-trace-size 1000 2>&1)
[[ $? -eq 2 ]] && grep -q "max-trace-size must be" <<<"$out" || fail "a bound below 1 KiB accepted: $out"
echo "whole trace $whole bytes; cut at $cut bytes with its trace.limit line, exit 2"
