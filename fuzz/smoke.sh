#!/usr/bin/env bash
# smoke.sh FUZZER SCRATCH RUNS [FLAG...] SEED_DIR... : a short, repeatable libFuzzer run for the
# tests. The seed corpus is read but never written: new inputs go to SCRATCH/corpus, emptied first,
# so every test run starts from the same corpus with the same -seed; an input that fails is written
# to SCRATCH/crash-<sha1> (not into the current folder), and the test fails.
set -euo pipefail
fuzzer=$1
scratch=$2
runs=$3
shift 3
rm -rf "$scratch"
mkdir -p "$scratch/corpus"
exec "$fuzzer" -runs="$runs" -seed=1 -max_len=8192 -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
     -artifact_prefix="$scratch/" "$scratch/corpus" "$@"
