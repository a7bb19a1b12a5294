#!/usr/bin/python3
"""How fast electsim finds what it should: runs and wall time to the first failure from seed 1.

  bench/bug_finding.py switches [--build build]   every bug switch: the swarm before step-triggered
                                                   faults (--timed-faults-only), the swarm with them,
                                                   and the systematic search over the switch's
                                                   scenario file without its faults
  bench/bug_finding.py zab [--build build]         ZooKeeper 3.8.0's Zab bugs: the swarm (explore
                                                   --recipe none, the bug's property counted) and the
                                                   systematic search over an outage scenario

Prints a markdown table (docs/exploration.md keeps the last one). Wall times are this machine's, with
--jobs 2; a run that finds nothing within its budget says so.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SWITCHES = [
    # (switch, recipe, property, swarm duration, budget)
    ("zab-commit-without-quorum", "none", "zab-agreement", "60s", 2000),
    ("zab-335-epoch-from-zxid", "none", "zab-single-leader", "60s", 2000),
    ("zk-1208-create-on-closing-session", "none", "ephemeral-cleanup", "60s", 2000),
    ("zk-2845-retain-database", "none", "zab-history-consistency", "60s", 2000),
    ("zk-3911-diff-logged-after-uptodate", "none", "zab-committed-durability", "60s", 5000),
    ("zk-watch-not-one-shot", "none", "watch-once", "60s", 2000),
    ("fle-1419-nontotal-order", "none", "eventual-leader", "200s", 2000),
    ("latch-ignores-connection-loss", "leader-latch", "latch-single-leader", "60s", 2000),
    ("curator-696-no-owner-check", "leader-latch", "latch-single-leader", "60s", 2000),
    ("latch-watches-parent", "leader-latch", "latch-no-herd", "60s", 2000),
    ("latch-unprotected-create", "leader-latch", "eventual-leader", "60s", 5000),
    ("naive-no-anti-jitter", "naive-master", "naive-master-stable", "60s", 2000),
    ("ej-no-has-leader-check", "elasticjob", "job-single-leader", "60s", 2000),
    ("ej-any-node-sets-resharding-flag", "elasticjob", "job-single-leader", "60s", 2000),
    ("es-master-service-fifo", "es-zen", "es-task-order", "60s", 2000),
    ("es-2488-local-elect", "es-zen", "es-single-master", "600s", 200),
]

# The scenario file each switch's systematic search starts from (its faults taken out), and how.
SYSTEMATIC = {
    "latch-unprotected-create": ["--fault", "isolate", "--restart-after", "4500ms", "--sites", "zab.commit"],
}

ZAB_BUGS = [
    # (JIRA, what the violation message says, the property counted)
    ("ZOOKEEPER-4394", "ZOOKEEPER-4394", "zab-protocol-errors"),
    ("ZOOKEEPER-4685", "ZOOKEEPER-4685", "zab-protocol-errors"),
    ("ZOOKEEPER-4712", "ZOOKEEPER-4712", "zab-history-consistency"),
    ("ZOOKEEPER-4643", "ZOOKEEPER-4643)", "zab-committed-durability"),
    ("ZOOKEEPER-4646", "ZOOKEEPER-4646", "zab-committed-durability"),
]

# Remix's figures (EuroSys 2025, Table 4: TLC breadth-first, 3 servers; time, states).
REMIX = {"ZOOKEEPER-4394": "9 s, 14,264", "ZOOKEEPER-4685": "10 s, 67,418", "ZOOKEEPER-4712": "11 s, 73,293",
         "ZOOKEEPER-4643": "17 s, 208,018", "ZOOKEEPER-4646": "109 s, 2,880,498"}

OUTAGE = """name: outage
description: A rolling outage of three servers under a writer that reads back what it wrote.
duration: 30s
zookeeper: {thread_delay_max: 5ms}
clients: {writers: 1, write_interval: 100ms, reads: true, session_timeout: 20s}
faults:
  - {at: 2s, crash: zk1}
  - {at: 4s, crash: zk2}
  - {at: 4s, crash: zk3}
  - {at: 5s, restart: zk1}
  - {at: 5s, restart: zk3}
  - {at: 9s, restart: zk2}
"""


def run_json(command):
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - started
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    if not lines:
        sys.exit("no output from: " + " ".join(command) + "\n" + result.stderr)
    return json.loads(lines[-1]), wall


def swarm_first(electsim, switch, recipe, prop, duration, budget, timed_only):
    command = [electsim, "explore", "--recipe", recipe, "--bug", switch, "--runs", str(budget), "--duration", duration, "--jobs", "2",
               "--stop-at-first", "--out", "", "--quiet", "--json", "--properties", prop]
    if recipe == "none":
        command += ["--zookeeper-version", "3.9.3"]  # 3.8.0's own bugs stay out of the switch's way
    if timed_only:
        command.append("--timed-faults-only")
    summary, wall = run_json(command)
    first = summary.get("first_failure")
    if not first:
        return "none in %d runs (%.1f s)" % (budget, wall)
    return "%d runs, %.2f s" % (first["seed"], wall)


def scenario_without_faults(electsim, switch, work):
    for name in sorted(os.listdir("scenarios")):
        if name.startswith("bug-" + switch) or (name.startswith("bug-") and switch in name):
            path = os.path.join("scenarios", name)
            text = open(path).read()
            text = re.sub(r"\nfaults:\n(  .*\n|  #.*\n)*", "\n", text)
            text = re.sub(r"\nexpect:\n(  .*\n)*", "\n", text)
            out = os.path.join(work, name)
            open(out, "w").write(text)
            return out
    return None


def systematic_first(electsim, switch, recipe, prop, work):
    base = scenario_without_faults(electsim, switch, work)
    if base is None:
        return "no scenario file"
    # Depth 1 first; depth 2 (in a budget) only if that finds nothing.
    for depth, budget in ((1, 3000), (2, 6000)):
        command = [electsim, "explore", "--systematic", base, "--bug", switch, "--depth", str(depth), "--max-runs", str(budget),
                   "--stop-at-first", "--jobs", "2", "--out", "", "--quiet", "--json", "--properties", prop] + SYSTEMATIC.get(switch, [])
        if recipe == "none" and "version:" not in open(base).read():
            command += ["--zookeeper-version", "3.9.3"]
        result = subprocess.run(command, capture_output=True, text=True)
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        if not lines:
            return "refused: " + result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "no output"
        summary = json.loads(lines[-1])
        first = summary.get("first_failure")
        if first:
            return "%d runs (depth %d), %.2f s" % (first["runs_to_it"], first["depth"], summary["wall_to_first_failure"])
    return "none in %d runs at depth 2 (%.1f s)" % (summary["runs"], summary["wall_seconds"])


def first_with_cause(folder, cause, depth_one=0):
    best = None
    for entry in os.scandir(folder):
        text = open(entry.path).read()
        if cause not in text:
            continue
        match = re.search(r"explore-none-(\d+)-", entry.name)
        if match:
            seed = int(match.group(1))
        else:
            match = re.search(r"-sys(\d)-(\d+)-(\d+)-", entry.name)
            seed = int(match.group(3)) + 1 + (depth_one if match.group(1) == "2" else 0)
        best = seed if best is None or seed < best else best
    return best


def zab_table(electsim):
    rows = []
    work = tempfile.mkdtemp()
    try:
        outage = os.path.join(work, "outage.yaml")
        open(outage, "w").write(OUTAGE)
        for number, (jira, cause, prop) in enumerate(ZAB_BUGS):
            # (Folders named without the JIRA: the command line, which names them, is in every file.)
            folder = os.path.join(work, "swarm-%d" % number)
            budget = 10000
            summary, wall = run_json([electsim, "explore", "--recipe", "none", "--runs", str(budget), "--jobs", "2", "--out", folder,
                                      "--quiet", "--json", "--properties", prop])
            seed = first_with_cause(folder, cause)
            rate = summary["runs"] / summary["wall_seconds"]
            swarm = "none in %d runs" % budget if seed is None else "%d runs, %.1f s" % (seed, seed / rate)
            folder = os.path.join(work, "systematic-%d" % number)
            summary, wall = run_json([electsim, "explore", "--systematic", outage, "--depth", "2", "--restart-after", "3s", "--max-runs", "20000",
                                      "--jobs", "2", "--out", folder, "--quiet", "--json", "--properties", prop])
            depth_one = summary["levels"][0]["runs"]
            run = first_with_cause(folder, cause, depth_one)
            rate = summary["runs"] / summary["wall_seconds"]
            systematic = "none in %d runs" % summary["runs"] if run is None else "%d runs, %.1f s" % (run, run / rate)
            rows.append((jira, swarm, systematic, REMIX[jira]))
            shutil.rmtree(os.path.join(work, "swarm-%d" % number), ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| bug | swarm (explore --recipe none, from seed 1) | systematic (outage scenario, depth <= 2) | Remix (TLC, time, states) |")
    print("|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %s |" % row)


def switches_table(electsim):
    work = tempfile.mkdtemp()
    try:
        print("| switch | swarm, timed faults only | swarm with step faults | systematic (its scenario, depth <= 2) |")
        print("|---|---|---|---|")
        for switch, recipe, prop, duration, budget in SWITCHES:
            before = swarm_first(electsim, switch, recipe, prop, duration, budget, True)
            after = swarm_first(electsim, switch, recipe, prop, duration, budget, False)
            systematic = systematic_first(electsim, switch, recipe, prop, work)
            print("| `%s` | %s | %s | %s |" % (switch, before, after, systematic), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", choices=["switches", "zab"])
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    electsim = os.path.join(args.build, "cli", "electsim")
    if args.table == "switches":
        switches_table(electsim)
    else:
        zab_table(electsim)


if __name__ == "__main__":
    main()
