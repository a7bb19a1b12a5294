#!/usr/bin/env bash
# Runs a scenario live (electsim live FILE --json) and checks its expectations and the JSON the
# run produced. Exit 77 (ctest: skipped) when live mode is unavailable here (no java, no ZooKeeper
# jars), with electsim's message; otherwise 0 when the expectations held and every extra regex
# (arguments after the file) matches the JSON line, 1 if not.
set -uo pipefail
electsim=$1
scenario=$2
shift 2
output=$("$electsim" live "$scenario" --json 2>&1)
status=$?
echo "$output"
if [[ $status -eq 2 && "$output" == *"live mode unavailable"* ]]; then
  echo "SKIPPED: live mode unavailable on this machine (see the message above)"
  exit 77
fi
if [[ $status -ne 0 ]]; then
  echo "FAILED: electsim live exited $status"
  exit 1
fi
json=$(echo "$output" | tail -n 1)
if [[ "$json" =~ \"skipped_faults\":\[[^]]*network\ namespaces\ need ]]; then
  echo "SKIPPED: the scenario's faults between servers need network namespaces here (see skipped_faults above)"
  exit 77
fi
for pattern in "$@"; do
  if ! [[ "$json" =~ $pattern ]]; then
    echo "FAILED: the result does not match: $pattern"
    exit 1
  fi
done
exit 0
