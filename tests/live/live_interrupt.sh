#!/usr/bin/env bash
# One SIGINT (then, in a second run, one SIGTERM) a few seconds into `electsim live`: the run ends
# early and is reported (exit 1, "interrupted": true in the JSON), no server JVM is left, and its
# temp folder is gone. Exit 77 (ctest: skipped) when live mode is unavailable here.
set -uo pipefail
electsim=$1
scenario=$2
for signal in INT TERM; do
  out=$(mktemp)
  "$electsim" live "$scenario" --json > "$out" 2>&1 &
  pid=$!
  sleep 6
  # The run's temp folder: the one whose owner file names this electsim.
  folder=""
  for owner in "${TMPDIR:-/tmp}"/electsim-live-*/owner; do
    [[ -f $owner ]] && read -r owner_pid _ < "$owner" && [[ $owner_pid == "$pid" ]] && folder=$(dirname "$owner")
  done
  kill -s "$signal" "$pid"
  wait "$pid"
  status=$?
  output=$(cat "$out")
  rm -f "$out"
  if [[ $status -eq 2 && "$output" == *"live mode unavailable"* ]]; then
    echo "SKIPPED: live mode unavailable on this machine"
    exit 77
  fi
  json=$(echo "$output" | tail -n 1)
  if [[ $status -ne 1 || "$json" != *'"interrupted":true'* ]]; then
    echo "FAILED: SIG$signal: exit $status (expected 1, a report marked interrupted)"
    echo "$output" | tail -5
    exit 1
  fi
  if pgrep -f "electsim-live.*zoo.cfg|QuorumPeerMain.*electsim-live" >/dev/null; then
    echo "FAILED: SIG$signal left a ZooKeeper JVM running"
    exit 1
  fi
  if [[ -z $folder || -e $folder ]]; then
    echo "FAILED: SIG$signal: the run's temp folder '${folder:-(none seen)}' is not removed"
    exit 1
  fi
  echo "SIG$signal: reported as interrupted (exit 1), nothing left running, $folder removed"
done
