#!/usr/bin/env bash
# GNU parallel, as documented (cluster/parallel-sweep.sh): a sweep in shards, one of them killed
# midway; merge names the missing shard; the sweep re-run with --resume-failed runs only that shard
# (and removes any temporary file the killed one left), and the merge then equals the same sweep in
# one piece (runs, failures, trace hash), every failure file there once and nothing else.
#
# usage: parallel_test.sh ELECTSIM SOURCE_DIR       exit 77 (ctest: skipped) without GNU parallel
set -euo pipefail
electsim=$(realpath "$1")
source_dir=$(realpath "$2")
runs=${CLUSTER_TEST_RUNS:-400}
shards=4
command -v parallel >/dev/null 2>&1 || { echo "SKIPPED: GNU parallel not found (Debian's parallel; scripts/setup installs it)"; exit 77; }

work=$(mktemp -d /tmp/electsim-parallel.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Shard 3's first attempt is killed (SIGKILL) while it runs: a wrapper in ELECTSIM's place.
cat > killing-electsim <<WRAP
#!/usr/bin/env bash
if [[ " \$* " == *" --shard 3/$shards "* && ! -e $work/killed-once ]]; then
  touch $work/killed-once
  "$electsim" "\$@" &
  sleep 0.1
  kill -9 \$! && touch $work/killed-midway
  wait \$! 2>/dev/null
  exit 137
fi
exec "$electsim" "\$@"
WRAP
chmod +x killing-electsim

status=0
ELECTSIM=$work/killing-electsim RUNS=$runs "$source_dir/cluster/parallel-sweep.sh" "$shards" -j 2 > parallel.out 2>&1 || status=$?
[[ $status -eq 1 ]] || { echo "parallel: expected one failed job (exit 1), got exit $status"; cat parallel.out; exit 1; }
[[ -e killed-midway ]] || { echo "shard 3 ended before the kill: the test needs a longer shard (CLUSTER_TEST_RUNS)"; exit 1; }
[[ ! -e shard-3.json && ! -e shard-3.json.part ]] || { echo "the killed shard left a summary behind"; exit 1; }
ls shard-*.json

status=0
"$electsim" merge shard-*.json > merge.out 2> merge.err || status=$?
cat merge.err
grep -q "no summary covers seeds $((runs / 2 + 1))..$((runs * 3 / 4)) (shard 3/4)" merge.err || { echo "merge did not name the missing shard"; exit 1; }

ELECTSIM=$electsim RUNS=$runs "$source_dir/cluster/parallel-sweep.sh" "$shards" -j 2 --resume-failed
reran=$(awk 'NR > 1' parallel-sweep.joblog | wc -l)
[[ $reran -eq $((shards + 1)) ]] || { echo "the joblog holds $reran jobs: --resume-failed re-ran more than shard 3"; cat parallel-sweep.joblog; exit 1; }

status=0
"$electsim" merge --json shard-*.json > merged.json 2> merge.err || status=$?
[[ $status -le 1 && ! -s merge.err ]] || { echo "merge after the re-run: exit $status"; cat merge.err; exit 1; }
status=0
"$electsim" explore --recipe elasticjob --runs "$runs" --jobs 2 --out whole-failures --json --quiet > whole.json || status=$?
[[ $status -le 1 ]] || { echo "the sweep in one piece failed (exit $status)"; exit 1; }
/usr/bin/python3 - whole.json merged.json failures whole-failures <<'PY'
import json, os, sys
whole = json.loads(open(sys.argv[1]).read().splitlines()[-1])
merged = json.loads(open(sys.argv[2]).read().splitlines()[-1])
for key in ("runs", "failures", "failures_by_property", "events", "trace_hash"):
    if whole[key] != merged[key]:
        sys.exit("merged %s %r differs from the sweep in one piece: %r" % (key, merged[key], whole[key]))
if len(merged["shards"]) != 4:
    sys.exit("merged shards: %r" % merged["shards"])
# (Hidden names too: a temporary the killed shard left must be gone, removed by the re-run.)
shard_files, whole_files = sorted(os.listdir(sys.argv[3])), sorted(os.listdir(sys.argv[4]))
if shard_files != whole_files or len(shard_files) != whole["failures"]:
    sys.exit("failure files: %d from the shards, %d in one piece, %d failures" % (len(shard_files), len(whole_files), whole["failures"]))
print("merged = one piece: %d runs, %d failures, trace hash %s" % (merged["runs"], merged["failures"], merged["trace_hash"]))
PY
