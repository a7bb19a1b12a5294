#!/usr/bin/env bash
# explore_replay.sh ELECTSIM RUNS EXPLORE_ARGUMENT...: explore (with a bug switch, or small limits),
# then replay every failure file it wrote; each must replay "identical" with no option given, and no
# temporary file may be left in the directory.
set -u
electsim=$1
runs=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
summary=$("$electsim" explore "$@" --runs "$runs" --jobs 2 --quiet --out "$out" 2>&1)
status=$?
if [[ $status -ne 1 ]]; then
  echo "expected explore to find failures (exit status 1), got $status:"
  echo "$summary"
  exit 1
fi
shopt -s nullglob dotglob
files=("$out"/*)
failures=$(sed -n 's/^failures: \([0-9]*\)$/\1/p' <<<"$summary")
if [[ ${#files[@]} -eq 0 || ${#files[@]} -ne "$failures" ]]; then
  echo "explore reported $failures failures but wrote ${#files[@]} files:"
  ls -la "$out"
  echo "$summary"
  exit 1
fi
for file in "${files[@]}"; do
  if [[ "$file" != *.yaml || "$(basename "$file")" == .* ]]; then
    echo "not a failure file: $file"
    exit 1
  fi
  output=$("$electsim" replay "$file" 2>&1)
  if [[ $? -ne 0 || "$output" != identical:* ]]; then
    echo "$file does not replay:"
    echo "$output"
    exit 1
  fi
done
# A file whose recorded property was edited to one the run does not violate is no replay: exit 1.
# (Not for a limit hit, model-sanity: without its property the file is a run that hits a limit.)
if ! grep -q "^  property: model-sanity" "${files[0]}"; then
  edited=$(mktemp --suffix=.yaml)
  sed 's/^  property: .*/  property: watch-once/' "${files[0]}" > "$edited"
  output=$("$electsim" replay "$edited" 2>&1); status=$?
  rm -f "$edited"
  if [[ $status -ne 1 || "$output" != *"watch-once not violated this time"* ]]; then
    echo "an edited failure property replayed with exit $status: $output"
    exit 1
  fi
fi
echo "${#files[@]} failure files, each replayed identical"
