#!/usr/bin/env bash
# merge_shards.sh ELECTSIM: three shards of one small sweep merge to the whole sweep's trace hash; a
# shard given twice, or a shard of another sweep, is refused (exit 2, naming the files); a missing
# shard, first, last or between, is merged with a warning naming the seeds and the shard left out;
# shards of another duration or ZooKeeper version and counts that are not counts are refused; the
# merge lists its shards; an empty file and a directory are refused with their names first.
set -u
electsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sweep=(explore --recipe none --zookeeper-version 3.9.3 --duration 10s --runs 6 --jobs 1 --quiet --out "" --json)
"$electsim" "${sweep[@]}" | tail -1 > "$dir/whole.json"
for i in 1 2 3; do "$electsim" "${sweep[@]}" --shard "$i/3" | tail -1 > "$dir/s$i.json"; done
hash() { grep -o '"trace_hash":"[0-9a-f]*"' "$1"; }
"$electsim" merge "$dir/s1.json" "$dir/s2.json" "$dir/s3.json" --json | tail -1 > "$dir/merged.json" || fail "merge of three shards"
[[ "$(hash "$dir/merged.json")" == "$(hash "$dir/whole.json")" ]] || fail "merged hash $(hash "$dir/merged.json") is not the sweep's $(hash "$dir/whole.json")"
out=$("$electsim" merge "$dir/s1.json" "$dir/s2.json" "$dir/s1.json" 2>&1); status=$?
[[ $status -eq 2 ]] || fail "a shard given twice: exit $status"
grep -q "s1.json (seeds 1..2) and .*s1.json (seeds 1..2) overlap" <<<"$out" || fail "overlap message: $out"
out=$("$electsim" merge "$dir/s1.json" "$dir/s3.json" 2>&1); status=$?
[[ $status -eq 0 ]] || fail "a missing shard: exit $status"
grep -q "warning: no summary covers seeds 3..4 (shard 2/3), between .*s1.json and .*s3.json" <<<"$out" || fail "gap warning: $out"
out=$("$electsim" merge "$dir/s2.json" "$dir/s3.json" 2>&1) || fail "a missing first shard: exit $?"
grep -q "warning: no summary covers seeds 1..2 (shard 1/3), before .*s2.json" <<<"$out" || fail "first gap warning: $out"
out=$("$electsim" merge "$dir/s1.json" "$dir/s2.json" 2>&1) || fail "a missing last shard: exit $?"
grep -q "warning: no summary covers seeds 5..6 (shard 3/3), after .*s2.json" <<<"$out" || fail "last gap warning: $out"
"$electsim" "${sweep[@]}" --seed 7 --shard 2/3 | tail -1 > "$dir/other.json"
out=$("$electsim" merge "$dir/s1.json" "$dir/other.json" 2>&1); status=$?
[[ $status -eq 2 ]] && grep -q "is a shard of seeds 1..6 and .*other.json of seeds 7..12" <<<"$out" || fail "another sweep: exit $status: $out"
# Blank lines (spaces, a CR) after a summary: the summary is still its last line.
{ cat "$dir/s1.json"; printf '\n   \n\r\n'; } > "$dir/trailing.json"
"$electsim" merge "$dir/trailing.json" "$dir/s2.json" "$dir/s3.json" > /dev/null 2>&1 || fail "a summary followed by blank lines: exit $?"
: > "$dir/empty.json"
out=$("$electsim" merge "$dir/empty.json" 2>&1); status=$?
[[ $status -eq 2 && "$out" == "$dir/empty.json: is empty, not an explore --json summary" ]] || fail "empty file: exit $status: $out"
out=$("$electsim" merge "$dir" 2>&1); status=$?
[[ $status -eq 2 && "$out" == "$dir: is a directory, not an explore --json summary" ]] || fail "directory: exit $status: $out"
# Shards of the same seeds but another sweep: another duration, another ZooKeeper version.
"$electsim" "${sweep[@]/10s/20s}" --shard 2/3 | tail -1 > "$dir/longer.json"
out=$("$electsim" merge "$dir/s1.json" "$dir/longer.json" 2>&1); status=$?
[[ $status -eq 2 ]] && grep -q 'are shards of different sweeps (duration "10s" and "20s")' <<<"$out" || fail "another duration: exit $status: $out"
"$electsim" "${sweep[@]/3.9.3/3.8.0}" --shard 2/3 | tail -1 > "$dir/version.json"
out=$("$electsim" merge "$dir/s1.json" "$dir/version.json" 2>&1); status=$?
[[ $status -eq 2 ]] && grep -q 'different sweeps (zookeeper_version "3.9.3" and "3.8.0")' <<<"$out" || fail "another version: exit $status: $out"
# Counts that are not counts: negative (nlohmann would wrap it round), or failures beyond runs.
sed 's/"runs":2,/"runs":-2,/' "$dir/s1.json" > "$dir/negative.json"
out=$("$electsim" merge "$dir/negative.json" 2>&1); status=$?
[[ $status -eq 2 ]] && grep -q "negative.json:1:1: runs must be a whole number, 0 or more" <<<"$out" || fail "negative runs: exit $status: $out"
sed 's/"failures":0,/"failures":5,/' "$dir/s1.json" > "$dir/toomany.json"
out=$("$electsim" merge "$dir/toomany.json" 2>&1); status=$?
[[ $status -eq 2 ]] && grep -q "toomany.json:1:1: failures_by_property adds up to 0, not failures (5)" <<<"$out" || fail "failures: exit $status: $out"
# An interrupted shard covers part of its block: merge says so and which shard to run again.
sed -e 's/"runs":2,/"runs":1,/' -e 's/"interrupted":false/"interrupted":true/' "$dir/s2.json" > "$dir/cut.json"
out=$("$electsim" merge "$dir/s1.json" "$dir/cut.json" "$dir/s3.json" 2>&1)
grep -q "cut.json was interrupted: 1 of the 2 runs of seeds 3..4 finished" <<<"$out" || fail "interrupted shard: $out"
grep -q "^5 of 6 runs (interrupted)" <<<"$out" || fail "interrupted merge summary: $out"
# The merged summary lists its shards.
out=$("$electsim" merge "$dir/s1.json" "$dir/s2.json" "$dir/s3.json" 2>&1)
grep -q "s2.json: shard 2/3, seeds 3..4, 2 runs, 0 failures" <<<"$out" || fail "shard list: $out"
echo ok
