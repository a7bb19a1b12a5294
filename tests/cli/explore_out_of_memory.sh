#!/usr/bin/env bash
# explore_out_of_memory.sh ELECTSIM: a sweep with 16 jobs in 600 MB of address space (ulimit -v) runs
# out of memory. It must stop as if interrupted, print the summary of the runs that finished and say
# why (exit 2), never abort (std::terminate, exit 134). If this machine happens to fit the sweep, it
# ends normally (0 or 1), which is no failure either. Not under the sanitizers (label slow): their
# shadow memory needs far more address space than the limit.
set -u
electsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(ulimit -v 600000; exec "$electsim" explore --recipe elasticjob --jobs 16 --runs 64 --out "" --quiet > "$dir/out" 2> "$dir/err")
status=$?
case $status in
  0 | 1) echo "the sweep fitted in 600 MB here (exit $status): nothing to check" ;;
  2)
    grep -q "explore: out of memory with --jobs 16" "$dir/err" || { echo "FAIL: exit 2 without the reason:"; cat "$dir/err"; exit 1; }
    grep -q "(interrupted)" "$dir/out" || { echo "FAIL: no summary of the runs that finished:"; cat "$dir/out"; exit 1; }
    echo "stopped cleanly: $(head -1 "$dir/out")"
    ;;
  *) echo "FAIL: exit $status:"; tail -5 "$dir/err"; exit 1 ;;
esac
