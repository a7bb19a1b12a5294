#!/usr/bin/env bash
# explore_stale_temporaries.sh ELECTSIM: a sweep killed with SIGKILL while writing a failure file
# leaves ".NAME.tmp-PID-N" in --out. The next sweep in that folder removes those of processes that
# are gone, and leaves those of a live process (another shard writing there now) alone.
set -u
electsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
echo half > "$dir/.explore-elasticjob-7-job-single-leader.yaml.tmp-999999999-0"   # no such process
echo half > "$dir/.explore-elasticjob-8-job-single-leader.yaml.tmp-$$-3"         # this shell: alive
echo keep > "$dir/.hidden-but-not-ours"
"$electsim" explore --recipe none --zookeeper-version 3.9.3 --duration 10s --runs 1 --out "$dir" --quiet > /dev/null || fail "explore: exit $?"
[[ ! -e "$dir/.explore-elasticjob-7-job-single-leader.yaml.tmp-999999999-0" ]] || fail "a dead process's temporary was left"
[[ -e "$dir/.explore-elasticjob-8-job-single-leader.yaml.tmp-$$-3" ]] || fail "a live process's temporary was removed"
[[ -e "$dir/.hidden-but-not-ours" ]] || fail "a file that is not a temporary was removed"
echo ok
