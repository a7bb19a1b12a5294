#!/usr/bin/env bash
# command_line_grammar.sh ELECTSIM SCENARIO: the command line reads as the scenario file does.
#  - --seed takes the file's grammar: 0x10 is 16 (the same trace hash as seed: 0x10 in a file);
#    +5, 010 (octal or ten?) and -1 are refused, exit 2;
#  - an option's prefix is not guessed (--se is not --seed): exit 2;
#  - a control character typed into a message is shown as \xNN, never sent raw.
set -u
electsim=$1
scenario=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
hash_of() { grep -o '"trace_hash":"[0-9a-f]*"' | head -1; }

decimal=$("$electsim" run "$scenario" --seed 16 --json 2>/dev/null | hash_of)
hex=$("$electsim" run "$scenario" --seed 0x10 --json 2>/dev/null | hash_of)
[[ -n "$decimal" && "$decimal" == "$hex" ]] || fail "--seed 0x10 ($hex) is not --seed 16 ($decimal)"
sed 's/^seed:.*$//' "$scenario" > "$dir/s.yaml"
echo "seed: 0x10" >> "$dir/s.yaml"
file=$("$electsim" run "$dir/s.yaml" --json 2>/dev/null | hash_of)
[[ "$file" == "$hex" ]] || fail "seed: 0x10 in a file ($file) is not --seed 0x10 ($hex)"

for bad in +5 010 -1 0x 1e3; do
  out=$("$electsim" run "$scenario" --seed "$bad" 2>&1)
  status=$?
  [[ $status -eq 2 ]] || fail "--seed $bad: exit $status: $out"
done
out=$("$electsim" explore --recipe none --runs 1 --seed +5 2>&1)
[[ $? -eq 2 ]] || fail "explore --seed +5 accepted: $out"

out=$("$electsim" run "$scenario" --se 5 2>&1)
status=$?
[[ $status -eq 2 ]] && grep -q "unrecognised option '--se'" <<<"$out" || fail "--se guessed as --seed: exit $status: $out"
out=$("$electsim" explore --o x --runs 1 2>&1)
[[ $? -eq 2 ]] || fail "explore --o guessed: $out"

out=$("$electsim" $'frob\e[2Jnicate' 2>&1)
[[ $out != *$'\e'* ]] || fail "a raw ESC reached the output"
grep -qF 'frob\x1b[2Jnicate' <<<"$out" || fail "the ESC is not shown as \\x1b: $out"
echo "seeds read as in a file, prefixes not guessed, control characters shown escaped"
