#!/usr/bin/env bash
# narrate_cli.sh ELECTSIM SCENARIOS_DIR: the teaching options of `electsim run` at the command line.
#  - --narrate=zk writes only the servers' story to standard error, and nothing else changes;
#  - an unknown topic is a usage error (exit status 2) that names it;
#  - a bad from=/to=/nodes= is a usage error too; a window and a node list keep only their lines;
#  - --narrate and --diagram leave the trace hash of `run --json` as it is (they only observe);
#  - --diagram writes one HTML file.
set -u
electsim=$1
scenarios=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
hash_of() { sed -n 's/.*"trace_hash":"\([0-9a-f]*\)".*/\1/p' "$1" | tail -n 1; }

scenario=$scenarios/latch-leader-crash.yaml
"$electsim" run "$scenario" --json >"$scratch/plain.out" 2>"$scratch/plain.err" || fail "plain run exited $?"
[[ -s "$scratch/plain.err" ]] && fail "a run without --narrate wrote to standard error: $(head -3 "$scratch/plain.err")"

# Only zk lines: every line is "<time>s  zkN  <sentence>".
"$electsim" run "$scenario" --json --narrate=zk >"$scratch/zk.out" 2>"$scratch/zk.err" || fail "--narrate=zk exited $?"
lines=$(wc -l <"$scratch/zk.err")
(( lines > 10 )) || fail "--narrate=zk told only $lines lines"
others=$(grep -Ev '^ +[0-9]+\.[0-9]{6}s  zk[0-9]+ +' "$scratch/zk.err" | head -3)
[[ -z "$others" ]] && others=$(grep -E 'Curator|latch' "$scratch/zk.err" | head -3)
[[ -n "$others" ]] && fail "--narrate=zk told more than the servers' story:"$'\n'"$others"
grep -Eq 'adopts zk[0-9]+.s vote' "$scratch/zk.err" || fail "--narrate=zk has no vote adoption"
wall='s/"wall_seconds":[^,]*,//'  # the only thing that may differ between two runs
cmp -s <(sed "$wall" "$scratch/plain.out") <(sed "$wall" "$scratch/zk.out") || fail "--narrate changed standard output"

# The latch's story is told from the instances.
"$electsim" run "$scenario" --narrate=latch,session >/dev/null 2>"$scratch/latch.err" || fail "--narrate=latch,session exited $?"
grep -Eq '  i[0-9]+ +becomes leader of /electsim/latch' "$scratch/latch.err" || fail "--narrate=latch does not say who leads the latch"
grep -q 'adopts' "$scratch/latch.err" && fail "--narrate=latch,session told votes"

# A bad topic: usage error, named.
"$electsim" run "$scenario" --narrate=zk,frob >"$scratch/bad.out" 2>&1
status=$?
[[ $status -eq 2 ]] || fail "--narrate=zk,frob exited $status, expected 2"
grep -q "unknown narration topic 'frob'" "$scratch/bad.out" || fail "--narrate=zk,frob: $(cat "$scratch/bad.out")"

# A bad window or node list: usage error (exit status 2) that says what is expected.
for bad in "from=soon" "to=5s,from=6s" "nodes=" "window=2s"; do
  "$electsim" run "$scenario" --narrate="$bad" >"$scratch/bad.out" 2>&1
  status=$?
  [[ $status -eq 2 ]] || fail "--narrate=$bad exited $status, expected 2"
  grep -q "narrat" "$scratch/bad.out" || fail "--narrate=$bad: $(cat "$scratch/bad.out")"
done
grep -q "from=2s" <("$electsim" run "$scenario" --narrate=from=soon 2>&1) || fail "--narrate=from=soon does not show the expected form"

# A window and a node list: only zk3's lines (or lines naming it) between 0.2 s and 0.4 s.
"$electsim" run "$scenario" --narrate=zk,from=200ms,to=0.4s,nodes=zk3 >/dev/null 2>"$scratch/window.err" || fail "--narrate with a window exited $?"
[[ -s "$scratch/window.err" ]] || fail "--narrate=zk,from=200ms,to=0.4s,nodes=zk3 told nothing"
outside=$(grep -Ev '^ +0\.[23][0-9]{5}s  |^ +0\.400000s  ' "$scratch/window.err" | head -3)
[[ -n "$outside" ]] && fail "lines outside the window:"$'\n'"$outside"
grep -v 'zk3' "$scratch/window.err" | head -3 | grep -q . && fail "lines neither of nor naming zk3: $(grep -v zk3 "$scratch/window.err" | head -3)"

# Observers only: the same hash with everything on, messages included.
"$electsim" run "$scenario" --json --narrate=all,net --diagram "$scratch/d.html" >"$scratch/all.out" 2>"$scratch/all.err" || fail "--narrate=all,net --diagram exited $?"
[[ -n "$(hash_of "$scratch/plain.out")" ]] || fail "no trace_hash in: $(tail -1 "$scratch/plain.out")"
[[ "$(hash_of "$scratch/plain.out")" == "$(hash_of "$scratch/all.out")" ]] ||
  fail "narration or the diagram changed the trace hash: $(hash_of "$scratch/plain.out") vs $(hash_of "$scratch/all.out")"
head -c 15 "$scratch/d.html" | grep -q '<!DOCTYPE html>' || fail "--diagram did not write an HTML page"

# A violation is narrated with what led to it (the exit status is the scenario's verdict, not ours).
bug=$scenarios/bug-latch-ignores-connection-loss.yaml
"$electsim" run "$bug" --narrate=property >/dev/null 2>"$scratch/bug.err"
grep -A1 'VIOLATION of latch-single-leader' "$scratch/bug.err" | grep -q 'what led to it:' || fail "the violation is not narrated with its lead-up: $(head -5 "$scratch/bug.err")"

[[ $failed -eq 0 ]] && echo "narration and diagram options: ok"
exit $failed
