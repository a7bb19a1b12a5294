#!/usr/bin/env bash
# output_targets.sh ELECTSIM SCENARIO: where results go.
#  - standard output on a full disk (> /dev/full) is exit 4 with the reason, never a silent 0;
#  - --trace - streams the trace to standard output; a FIFO feeds its reader and stays a FIFO; a
#    symlink is followed (its target written, the link kept); a character device (a copy of
#    /dev/null made in a temporary folder, as root) is written through, not replaced by a file;
#  - a regular file is replaced keeping its mode.
set -u
electsim=$1
scenario=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for command in "run $scenario" "run $scenario --json" "bugs --json" "properties"; do
  err=$($electsim $command 2>&1 >/dev/full); status=$?
  [[ $status -eq 4 && "$err" == *"cannot write standard output: No space left on device"* ]] || fail "$command > /dev/full: exit $status: $err"
done

out=$("$electsim" run "$scenario" --trace -) || fail "--trace -: exit $?"
grep -q '^{"t":' <<<"$out" || fail "--trace - wrote no events to standard output"
grep -q "expectations met" <<<"$out" || fail "--trace -: no verdict after the trace"

mkfifo "$dir/trace.fifo"
cat "$dir/trace.fifo" > "$dir/from-fifo" &
reader=$!
"$electsim" run "$scenario" --trace "$dir/trace.fifo" > /dev/null || fail "--trace FIFO: exit $?"
wait "$reader"
[[ -p "$dir/trace.fifo" ]] || fail "the FIFO was replaced"
[[ -s "$dir/from-fifo" ]] || fail "the FIFO's reader got nothing"

echo old > "$dir/target.jsonl"
chmod 640 "$dir/target.jsonl"
ln -s target.jsonl "$dir/link.jsonl"
"$electsim" run "$scenario" --trace "$dir/link.jsonl" > /dev/null || fail "--trace symlink: exit $?"
[[ -L "$dir/link.jsonl" ]] || fail "the symlink was replaced"
[[ $(head -c 5 "$dir/target.jsonl") == '{"t":' ]] || fail "the symlink's target was not written"
[[ $(stat -c %a "$dir/target.jsonl") == 640 ]] || fail "the replaced file lost its mode: $(stat -c %a "$dir/target.jsonl")"

if [[ $(id -u) -eq 0 ]] && mknod "$dir/null" c 1 3 2>/dev/null; then
  "$electsim" run "$scenario" --trace "$dir/null" --diagram "$dir/null" > /dev/null || fail "--trace device: exit $?"
  [[ -c "$dir/null" ]] || fail "the device node was replaced by a regular file"
fi
[[ -z $(find "$dir" -name '.*tmp-*') ]] || fail "temporary files left behind: $(find "$dir" -name '.*tmp-*')"
echo ok
