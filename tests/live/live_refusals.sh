#!/usr/bin/env bash
# What `electsim live` refuses before any JVM starts (live/live_refusal.h): each refusal is
# FILE:LINE:COLUMN at the key, then the reason, with exit status 2, and nothing is started (each
# case must answer within a few seconds; no java process may appear). Needs no JVM.
set -uo pipefail
electsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

# expect NAME 'REGEX' <<YAML: the scenario text on stdin; REGEX must match the whole message line.
expect() {
  local name=$1 pattern=$2 file="$dir/$1.yaml"
  cat > "$file"
  local output status
  output=$(timeout 20 "$electsim" live "$file" 2>&1)
  status=$?
  local first
  first=$(printf '%s\n' "$output" | head -n 1)
  if [[ $status -ne 2 ]]; then
    echo "FAILED: $name: exit $status (expected 2): $(printf '%s' "$output" | head -c 300)"
    failures=$((failures + 1))
  elif ! [[ "$first" =~ ^${file}:${pattern}$ ]]; then
    echo "FAILED: $name: '$first' does not match '${file}:${pattern}'"
    failures=$((failures + 1))
  else
    echo "ok: $name: $first"
  fi
}

expect servers '3:13: live: zookeeper\.servers: at most 9 real servers on one machine' <<'YAML'
name: zk10
duration: 10s
zookeeper: {servers: 10}
YAML

expect recipe '3:1: live: recipe es-zen has no ZooKeeper: .*' <<'YAML'
name: es
duration: 10s
recipe: es-zen
YAML

expect bugs '4:1: live: bugs: a bug switch of the model cannot be applied to a real ZooKeeper \(remove `bugs`\)' <<'YAML'
name: bugs
duration: 10s
recipe: leader-latch
bugs: [curator-696-no-owner-check]
YAML

expect version '5:3: live: zookeeper\.version 3\.8\.5: live mode runs the installed ZooKeeper 3\.8.*' <<'YAML'
name: version
duration: 10s
zookeeper:
  servers: 3
  version: 3.8.5
YAML

expect thread_delay '3:25: live: zookeeper\.thread_delay_max: the real servers.*' <<'YAML'
name: delay
duration: 10s
zookeeper: {servers: 3, thread_delay_max: 5ms}
YAML

# The second fault is the server-side one: the position is its `event`, not the first fault's.
expect server_trigger '7:13: live: a fault triggered by zab\.proposal_sent: live mode cannot see inside the real servers.*' <<'YAML'
name: trigger
duration: 20s
clients: {writers: 1}
faults:
  - {at: 5s, crash: zk1}
  - at: 6s
    after: {event: zab.proposal_sent, node: zk2}
    crash: zk2
YAML

expect tick_time '4:3: live: zookeeper\.tick_time: 1\.5ms is not a whole number of milliseconds, and zoo\.cfg.s tickTime takes milliseconds \(write 1ms or 2ms\)' <<'YAML'
name: tick
duration: 10s
zookeeper:
  tick_time: 1500us
YAML

expect session_timeout_odd '4:11: live: clients\.session_timeout: 6\.0005s is not a whole number of milliseconds, and the C client.s zookeeper_init takes milliseconds \(write 6s or 6\.001s\)' <<'YAML'
name: session
duration: 8s
recipe: leader-latch
clients: {session_timeout: 6000500us}
YAML

# 1ms: the C client's window for the server's answer is 2/3 of it, in whole milliseconds: 0.
expect session_timeout_short '4:11: live: clients\.session_timeout: 1ms is below live mode.s 2ms: the C client waits 2/3 of the requested timeout, in whole milliseconds, .*here 0 ms, so no connection would ever complete.*' <<'YAML'
name: session
duration: 8s
recipe: leader-latch
clients: {session_timeout: 1ms}
YAML

expect min_session_timeout '3:25: live: zookeeper\.min_session_timeout: 4\.000001s is not a whole number of milliseconds, and zoo\.cfg.s minSessionTimeout takes milliseconds \(write 4s or 4\.001s\)' <<'YAML'
name: min
duration: 8s
zookeeper: {servers: 3, min_session_timeout: 4000001us}
YAML

# 1000 instances + 100 writers: within the scenario limits, but 1100 sessions at once.
expect sessions '5:13: live: live mode opens each ZooKeeper session through its own client proxy port, at most 1024 open at once; this scenario opens 1100 \(1000 instances \+ 100 writers\)' <<'YAML'
name: many
duration: 15s
recipe: leader-latch
clients: {writers: 100}
instances: {count: 1000}
YAML

# ElasticJob's console has a session of its own; the count is written under `instances:`.
expect elasticjob_sessions '6:3: live: .* this scenario opens 1025 \(1000 instances \+ 1 ElasticJob console \+ 24 writers\)' <<'YAML'
name: ej
duration: 15s
recipe: elasticjob
clients: {writers: 24}
instances:
  count: 1000
jobs: [{name: j, sharding_total_count: 2}]
YAML

if pgrep -f "QuorumPeerMain.*electsim-live" >/dev/null; then
  echo "FAILED: a refused scenario started a ZooKeeper JVM"
  failures=$((failures + 1))
fi
if [[ $failures -ne 0 ]]; then
  echo "$failures refusal(s) wrong"
  exit 1
fi
