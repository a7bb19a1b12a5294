#!/usr/bin/env bash
# explore_interrupt.sh ELECTSIM SIGNAL BUG: starts a long explore with a bug switch, sends SIGNAL
# (INT or TERM) once failure files have appeared, and checks that explore prints the summary of the
# runs that finished, marked interrupted, and that every failure it counted is a file that replays.
set -u
electsim=$1
signal=$2
bug=$3
out=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$out" "$log"' EXIT
"$electsim" explore --bug "$bug" --runs 1000000 --duration 60s --jobs 2 --out "$out" >"$log" 2>&1 &
pid=$!
shopt -s nullglob
for _ in $(seq 1 600); do
  files=("$out"/*.yaml)
  [[ ${#files[@]} -ge 2 ]] && break
  sleep 0.1
done
kill -"$signal" "$pid"
wait "$pid"
status=$?
if [[ $status -ne 1 ]]; then
  echo "expected exit status 1 (failures found) after SIG$signal, got $status:"
  cat "$log"
  exit 1
fi
if ! grep -q "interrupted" "$log" || ! grep -q "^failures: " "$log"; then
  echo "no interrupted summary after SIG$signal:"
  cat "$log"
  exit 1
fi
# The seeds of the sweep that did not run are named, for a resumed sweep to run them.
if ! grep -q "(not run: " "$log"; then
  echo "the interrupted summary does not name the seeds that did not run:"
  cat "$log"
  exit 1
fi
failures=$(sed -n 's/^failures: \([0-9]*\)$/\1/p' "$log")
shopt -s dotglob
files=("$out"/*)
if [[ ${#files[@]} -ne "$failures" ]]; then
  echo "the summary counts $failures failures but $out holds ${#files[@]} files:"
  ls -la "$out"
  cat "$log"
  exit 1
fi
for file in "${files[@]}"; do
  output=$("$electsim" replay "$file" 2>&1)
  if [[ $? -ne 0 || "$output" != identical:* ]]; then
    echo "$file does not replay:"
    echo "$output"
    exit 1
  fi
done
echo "SIG$signal: $failures failures kept, each replayed identical"
