#!/usr/bin/env bash
# doc_example.sh ELECTSIM DOC: the YAML block under "## A complete example" in DOC is a scenario that
# runs and meets its own expectations (exit 0), so the page's example stays true as the models change.
set -u
electsim=$1
doc=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk '/^## A complete example/ {section = 1} section && /^```yaml/ {inside = 1; next} inside && /^```/ {exit} inside {print}' "$doc" > "$dir/example.yaml"
[[ -s "$dir/example.yaml" ]] || { echo "no YAML block under '## A complete example' in $doc"; exit 1; }
"$electsim" run "$dir/example.yaml" > "$dir/out.txt" 2>&1
status=$?
if [[ $status -ne 0 ]]; then
  echo "the complete example of $doc exits $status:"
  cat "$dir/out.txt"
  exit 1
fi
echo ok
