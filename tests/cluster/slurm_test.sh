#!/usr/bin/env bash
# A real Slurm cluster on this machine: munged, slurmctld and slurmd started with a minimal
# configuration in a temporary folder, the documented job array (cluster/slurm-sweep.sh) submitted
# over a sweep, its shards merged and checked against the same sweep in one piece (runs, failures,
# trace hash), every failure file there and replaying. Every daemon it started is stopped and the
# folder removed on any exit, also a failure or an interrupt.
#
# usage: slurm_test.sh ELECTSIM SOURCE_DIR      exit 77 (ctest: skipped) when not root or without Slurm
set -euo pipefail
electsim=$(realpath "$1")
source_dir=$(realpath "$2")
recipe=${CLUSTER_TEST_RECIPE:-elasticjob}
runs=${CLUSTER_TEST_RUNS:-400}
tasks=${CLUSTER_TEST_TASKS:-4}

skip() { echo "SKIPPED: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "the test cluster's daemons run as root (slurmd starts the tasks as their user)"
for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not found: Debian's slurm-wlm and munge (scripts/setup installs them)"
done

work=$(mktemp -d /tmp/electsim-slurm.XXXXXX)
chmod 700 "$work"
pids=()
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  # Tasks slurmd started (slurmstepd and their children) go with it; anything left of ours too.
  pkill -9 -f "$work" 2>/dev/null || true
  if [[ $status -ne 0 && $status -ne 77 ]]; then
    for log in "$work"/*.log; do [[ -f $log ]] && { echo "--- $log"; tail -20 "$log"; }; done
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Two free ports, away from Slurm's defaults (6817, 6818) so a real cluster on this machine is left alone.
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[[ $ctld_port != "$slurmd_port" ]] || slurmd_port=$((ctld_port + 1))

# munge: its own key and socket in the folder.
mungekey --create --keyfile="$work/munge.key" >/dev/null
chmod 600 "$work/munge.key"
munged --force --socket="$work/munge.socket" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munge.seed"
for _ in $(seq 50); do [[ -s $work/munged.pid ]] && break; sleep 0.1; done
pids+=("$(cat "$work/munged.pid")")

host=$(hostname -s)
# The node as slurmd detects it (slurmd -C), under our own name.
node_line=$(slurmd -C | head -1 | sed -e 's/^NodeName=[^ ]*/NodeName=electsim-test/' -e 's/ RealMemory=[0-9]*//')
mkdir -p "$work/state" "$work/spool" "$work/sweep"
cat > "$work/slurm.conf" <<CONF
ClusterName=electsim-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
$node_line NodeHostname=$host NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=sweep Nodes=electsim-test Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

slurmctld -i -f "$SLURM_CONF"
for _ in $(seq 100); do [[ -s $work/slurmctld.pid ]] && break; sleep 0.1; done
[[ -s $work/slurmctld.pid ]] || { echo "slurmctld did not start"; exit 1; }
pids+=("$(cat "$work/slurmctld.pid")")
slurmd -N electsim-test -f "$SLURM_CONF"
for _ in $(seq 100); do [[ -s $work/slurmd.pid ]] && break; sleep 0.1; done
[[ -s $work/slurmd.pid ]] || { echo "slurmd did not start"; exit 1; }
pids+=("$(cat "$work/slurmd.pid")")
for _ in $(seq 300); do
  state=$(sinfo -h -n electsim-test -o %T 2>/dev/null || true)
  [[ $state == idle* ]] && break
  sleep 0.1
done
[[ $state == idle* ]] || { echo "the node did not come up (state: ${state:-none})"; exit 1; }

# The documented job array, as it is in cluster/, with the sweep's size from the environment.
cd "$work/sweep"
timeout 600 sbatch --wait --quiet --array="1-$tasks" --cpus-per-task=1 \
  --export="ALL,ELECTSIM=$electsim,RECIPE=$recipe,RUNS=$runs,OUT=failures" "$source_dir/cluster/slurm-sweep.sh"
echo "slurm: $tasks array tasks done"

# The same sweep in one piece.
status=0
"$electsim" explore --recipe "$recipe" --runs "$runs" --jobs 2 --out "$work/whole-failures" --json --quiet > "$work/whole.json" || status=$?
[[ $status -le 1 ]] || { echo "the sweep in one piece failed (exit $status)"; exit 1; }
status=0
"$electsim" merge --json shard-*.json > "$work/merged.json" || status=$?
[[ $status -le 1 ]] || { echo "merge failed (exit $status)"; exit 1; }

/usr/bin/python3 - "$work/whole.json" "$work/merged.json" failures "$work/whole-failures" <<'PY'
import json, os, sys
whole = json.loads(open(sys.argv[1]).read().splitlines()[-1])
merged = json.loads(open(sys.argv[2]).read().splitlines()[-1])
for key in ("runs", "failures", "failures_by_property", "events", "trace_hash"):
    if whole[key] != merged[key]:
        sys.exit("merged %s %r differs from the sweep in one piece: %r" % (key, merged[key], whole[key]))
if (whole["first_failure"] or {}).get("seed") != (merged["first_failure"] or {}).get("seed"):
    sys.exit("first failures differ: %r, %r" % (whole["first_failure"], merged["first_failure"]))
shards_files = sorted(os.listdir(sys.argv[3]))
whole_files = sorted(os.listdir(sys.argv[4]))
if shards_files != whole_files or len(shards_files) != whole["failures"]:
    sys.exit("failure files: %d from the shards, %d in one piece, %d failures" % (len(shards_files), len(whole_files), whole["failures"]))
print("merged = one piece: %d runs, %d failures, trace hash %s" % (merged["runs"], merged["failures"], merged["trace_hash"]))
PY

# Every failure file replays.
replayed=0
for file in failures/*.yaml; do
  [[ -e $file ]] || continue
  "$electsim" replay "$file" >/dev/null || { echo "does not replay: $file"; exit 1; }
  replayed=$((replayed + 1))
done
echo "replayed $replayed failure files"
