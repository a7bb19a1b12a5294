#!/usr/bin/env bash
# What live runs leave behind when they are stopped (docs/live-mode.md, "Leftovers"):
#  1. `electsim live` with network namespaces, one SIGINT: reported as interrupted (exit 1), and its
#     temp folder, network slot, namespaces, veth links and bridge are gone when it exits;
#  2. `electsim conformance --only heal-rejoin`, one SIGTERM: the same, before the signal ends it;
#  3. `electsim live`, kill -9: everything stays (checked), then `electsim live --cleanup` removes
#     it and says so, but not what belongs to a running process (a slot owned by a live `sleep`) or a
#     folder without an owner (kept); a folder owned by a gone PID goes;
#  4. `electsim live`, kill -9 again: the next live run removes the leftovers at its start.
# Root only (network namespaces), like the other namespace tests: exit 77 (skipped) otherwise, or
# when live mode is unavailable (no java, no ZooKeeper jars).
set -uo pipefail
electsim=$1
scenario=$2  # cuts links between servers: the run makes a namespace per server

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIPPED: network namespaces need root"
  exit 77
fi
for tool in ip nft; do
  if ! command -v "$tool" >/dev/null && ! [[ -x /usr/sbin/$tool || -x /sbin/$tool ]]; then
    echo "SKIPPED: network namespaces need $tool"
    exit 77
  fi
done
export PATH=$PATH:/usr/sbin:/sbin
tmp=${TMPDIR:-/tmp}
slots=/tmp/electsim-net  # fixed: the namespaces are the whole machine's (live/network_slot.h)
work=$(mktemp -d)
sleeper=""
cleanup_test() {
  [[ -n $sleeper ]] && kill "$sleeper" 2>/dev/null
  [[ -n ${pid:-} ]] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  "$electsim" live --cleanup >/dev/null 2>&1  # what a failed step left (gone runs' leftovers only)
  ip netns del electsim-199-1 2>/dev/null
  rm -rf "$work" "$slots/slot-199" "$tmp/electsim-live-test-kept" "$tmp/electsim-live-test-gone"
}
trap cleanup_test EXIT

fail() {
  echo "FAILED: $*"
  exit 1
}

# `ip`'s lists, read whole before grep looks at them (grep -q in a pipe would end `ip` with SIGPIPE,
# which pipefail reports as a failed match).
namespaces() { ip netns list; }
links() { ip -o link show; }

# The slot number / ensemble folder whose owner file names PID.
owned_slot() {
  local file pid
  for file in "$slots"/slot-*/owner; do
    [[ -f $file ]] || continue
    read -r pid _ < "$file"
    if [[ $pid == "$1" ]]; then
      basename "$(dirname "$file")" | sed 's/^slot-//'
      return
    fi
  done
}
owned_folder() {
  local file pid
  for file in "$tmp"/electsim-live-*/owner; do
    [[ -f $file ]] || continue
    read -r pid _ < "$file"
    if [[ $pid == "$1" ]]; then
      dirname "$file"
      return
    fi
  done
}

# What is left of slot $1 and folder $2, one word each; empty when nothing is.
left_of() {
  local slot=$1 folder=$2
  grep -q "^electsim-$slot-" <<< "$(namespaces)" && echo -n "namespaces "
  grep -Eq ": electsim-(br$slot|${slot}v[0-9])[:@]" <<< "$(links)" && echo -n "links "
  [[ -e $slots/slot-$slot ]] && echo -n "slot-folder "
  [[ -e $folder ]] && echo -n "ensemble-folder "
  pgrep -f "QuorumPeerMain.*$folder" >/dev/null && echo -n "jvm "
}

# Starts electsim with the arguments in the background and waits until its three namespaces exist:
# sets pid, slot, folder, out.
start_run() {
  out=$work/out-$RANDOM
  "$electsim" "$@" > "$out" 2>&1 &
  pid=$!
  slot=""
  for _ in $(seq 1 600); do
    slot=$(owned_slot "$pid")
    if [[ -n $slot ]] && grep -q "^electsim-$slot-3" <<< "$(namespaces)"; then break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"
    if grep -q "live mode unavailable" "$out"; then
      echo "SKIPPED: live mode unavailable on this machine: $(cat "$out")"
      exit 77
    fi
    fail "$* ended before its namespaces were seen: $(tail -5 "$out")"
  fi
  [[ -n $slot ]] || fail "$*: no network slot owned by $pid after 60 s"
  folder=$(owned_folder "$pid")
  [[ -n $folder ]] || fail "$*: no ensemble folder owned by $pid"
  sleep 2  # the JVMs start
}

# 1. live, one SIGINT.
start_run live "$scenario" --json
kill -INT "$pid"
wait "$pid"
status=$?
[[ $status -eq 1 ]] || fail "live + SIGINT: exit $status (expected 1): $(tail -3 "$out")"
grep -q '"interrupted":true' <<< "$(tail -n 1 "$out")" || fail "live + SIGINT: no report marked interrupted: $(tail -3 "$out")"
left=$(left_of "$slot" "$folder")
[[ -z $left ]] || fail "live + SIGINT left: $left"
echo "1. live + SIGINT: reported (exit 1); slot $slot and $folder removed"

# 2. conformance, one SIGTERM (the check cannot stop halfway: the signal's cleanup removes it all).
start_run conformance --only heal-rejoin
kill -TERM "$pid"
wait "$pid"
status=$?
[[ $status -eq 143 ]] || fail "conformance + SIGTERM: exit $status (expected 143, ended by the signal): $(tail -3 "$out")"
left=$(left_of "$slot" "$folder")
[[ -z $left ]] || fail "conformance + SIGTERM left: $left"
grep -q "interrupted: removed network slot $slot" "$out" || fail "conformance + SIGTERM did not say what it removed: $(tail -3 "$out")"
echo "2. conformance + SIGTERM: slot $slot and $folder removed before it ended"

# 3. live, kill -9: everything stays; then --cleanup.
start_run live "$scenario" --json
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for sid in 1 2 3; do
  grep -q "^electsim-$slot-$sid" <<< "$(namespaces)" || fail "kill -9: namespace electsim-$slot-$sid is already gone (nothing to test)"
done
grep -q ": electsim-br$slot:" <<< "$(links)" || fail "kill -9: bridge electsim-br$slot is already gone"
[[ -d $folder && -d $slots/slot-$slot ]] || fail "kill -9: the folders are already gone"
# A running process's slot (this test's sleep owns it), a kept folder (no owner), a gone one's folder.
sleep 600 &
sleeper=$!
mkdir -p "$slots/slot-199" "$tmp/electsim-live-test-kept" "$tmp/electsim-live-test-gone"
echo "$sleeper" > "$slots/slot-199/owner"
ip netns add electsim-199-1 || fail "cannot add a namespace"
sh -c 'exit 0' &
gone=$!
wait "$gone"
echo "$gone 1" > "$tmp/electsim-live-test-gone/owner"
cleaned=$("$electsim" live --cleanup 2>&1)
status=$?
echo "$cleaned"
[[ $status -eq 0 ]] || fail "live --cleanup: exit $status"
for item in "namespace electsim-$slot-1" "namespace electsim-$slot-3" "bridge electsim-br$slot" "link electsim-${slot}v1" \
            "folder $slots/slot-$slot" "folder $folder" "folder $tmp/electsim-live-test-gone"; do
  grep -qxF "live --cleanup: removed a gone run's $item" <<< "$cleaned" || fail "live --cleanup did not report: $item"
done
left=$(left_of "$slot" "$folder")
[[ -z $left ]] || fail "live --cleanup left: $left"
grep -q "^electsim-199-1" <<< "$(namespaces)" || fail "live --cleanup removed a running process's namespace"
[[ -f $slots/slot-199/owner ]] || fail "live --cleanup removed a running process's slot"
[[ -d $tmp/electsim-live-test-kept ]] || fail "live --cleanup removed a folder without an owner (kept)"
[[ -e $tmp/electsim-live-test-gone ]] && fail "live --cleanup left a gone process's folder"
again=$("$electsim" live --cleanup 2>&1)
grep -q "^live --cleanup: nothing left by a gone electsim$" <<< "$again" || fail "a second --cleanup found something: $again"
echo "3. live + kill -9: slot $slot and $folder stayed; live --cleanup removed them, not a running process's"

# 4. live, kill -9, then the next live run cleans at its start.
start_run live "$scenario" --json
kill -KILL "$pid"
wait "$pid" 2>/dev/null
first_slot=$slot
first_folder=$folder
cat > "$work/tiny.yaml" <<'YAML'
name: tiny
duration: 1s
zookeeper: {servers: 1}
YAML
next=$("$electsim" live "$work/tiny.yaml" 2>&1)
grep -qxF "live: removed a gone run's namespace electsim-$first_slot-1" <<< "$next" || fail "the next run did not remove the leftovers: $next"
left=$(left_of "$first_slot" "$first_folder")
[[ -z $left ]] || fail "the next run left: $left"
echo "4. live + kill -9: the next live run removed slot $first_slot and $first_folder at its start"
