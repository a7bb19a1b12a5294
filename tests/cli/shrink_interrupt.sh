#!/usr/bin/env bash
# shrink_interrupt.sh ELECTSIM: shrink's promises about its output and signals.
#  - --out naming the input itself is refused (exit 2) and the input is left as it was;
#  - an --out that cannot be written is refused before any shrinking (exit 2 within seconds);
#  - one SIGINT while shrinking stops it with exit 1: before any step it says nothing was written;
#    after one, the smallest failing scenario found so far is written and replays identical; no
#    temporary file is left either way.
set -u
electsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A failure file with thousands of faults to shrink (about 20 s): a Curator bug in a day-long run.
"$electsim" explore --bug latch-ignores-connection-loss --runs 200 --duration 24h --stop-at-first --out "$dir/found" --quiet > "$dir/explore.out" 2>&1
failing=$(ls "$dir"/found/*.yaml 2>/dev/null | head -1)
[[ -n "$failing" ]] || fail "explore found no failure to shrink: $(cat "$dir/explore.out")"
cp "$failing" "$dir/original.yaml"

"$electsim" shrink "$failing" --out "$failing" > "$dir/out" 2>&1
status=$?
[[ $status -eq 2 ]] || fail "--out = the input: exit $status: $(cat "$dir/out")"
grep -q "is the input file" "$dir/out" || fail "--out = the input: no reason: $(cat "$dir/out")"
cmp -s "$failing" "$dir/original.yaml" || fail "--out = the input: the input changed"

mkdir "$dir/folder"
start=$SECONDS
"$electsim" shrink "$failing" --out "$dir/folder" > "$dir/out" 2>&1
status=$?
[[ $status -eq 2 ]] || fail "--out a folder: exit $status: $(cat "$dir/out")"
(( SECONDS - start <= 5 )) || fail "--out a folder was refused only after $((SECONDS - start)) s"
grep -q "shrink: cannot write the result file" "$dir/out" || fail "--out a folder: $(cat "$dir/out")"

# Interrupted a second in, before any step: nothing smaller is known, so nothing is written.
"$electsim" shrink "$failing" --out "$dir/early.yaml" --jobs 2 > "$dir/out" 2> "$dir/err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
status=$?
[[ $status -eq 1 ]] || fail "SIGINT at 1 s: exit $status: $(cat "$dir/err")"
grep -q "interrupted after .* before any simplification: nothing written" "$dir/err" || fail "SIGINT at 1 s: $(cat "$dir/err")"
[[ ! -e "$dir/early.yaml" ]] || fail "SIGINT at 1 s: 'nothing written' but $dir/early.yaml exists"

# Interrupted right after its first step: that smaller scenario is written, and replays.
"$electsim" shrink "$failing" --out "$dir/small.yaml" --jobs 2 > "$dir/out" 2> "$dir/err" &
pid=$!
for _ in $(seq 1 600); do
  grep -q "^shrink: fewer faults" "$dir/err" && break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
status=$?
[[ $status -eq 1 ]] || fail "SIGINT after a step: exit $status: $(cat "$dir/err")"
grep -q "interrupted; .* holds the smallest failing scenario found so far" "$dir/err" || fail "SIGINT after a step: $(cat "$dir/err")"
[[ -s "$dir/small.yaml" ]] || fail "SIGINT after a step: no result written"
replay=$("$electsim" replay "$dir/small.yaml" 2>&1)
[[ $replay == identical:* ]] || fail "the interrupted result does not replay: $replay"
grep -q "interrupted: the smallest found so far" "$dir/small.yaml" || fail "the result's description does not say it was interrupted"
echo "interrupted at 1 s: nothing written; after a step: $(grep -o '[0-9]* -> [0-9]* faults' "$dir/out"), replays identical"
[[ -z $(find "$dir" -name '.*tmp-*') ]] || fail "a temporary file was left: $(find "$dir" -name '.*tmp-*')"
