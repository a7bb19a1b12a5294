#!/usr/bin/env bash
# expect.sh STATUS PATTERN -- COMMAND...: runs COMMAND, checks its exit status is STATUS and that
# its combined output matches the extended regular expression PATTERN (empty: anything).
set -u
status=$1
pattern=$2
shift 3
output=$("$@" 2>&1)
actual=$?
if [[ $actual -ne $status ]]; then
  echo "expected exit status $status, got $actual from: $*"
  echo "$output"
  exit 1
fi
if [[ -n "$pattern" ]] && ! grep -Eq -- "$pattern" <<<"$output"; then
  echo "output of '$*' does not match /$pattern/:"
  echo "$output"
  exit 1
fi
exit 0
