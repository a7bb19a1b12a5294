#!/usr/bin/python3
"""generate_scenarios.py ELECTSIM SOURCE_DIR [--seeds A..B] [--keep DIR] [--jobs N]

Generates one valid random scenario per seed (random.Random(seed), so the same seed always gives the
same file), within docs/scenario-format.md's documented ranges, for every recipe, with random faults
at random times (and some at protocol steps) over 1 to 10 s of simulated time. Each file is run with
`electsim run FILE --json` and checked:

  - the exit status is 0 or 1: a 2 means the generator wrote what the contract does not allow, or the
    parser refused what it allows (the message says which to look at); 3 (internal error), a signal
    or a timeout are findings of electsim;
  - no model-sanity violation (a failed assertion inside a model, or a limit hit): a finding, with
    its seed;
  - it replays: a second run gives the same trace hash;
  - for every tenth seed, `--seed S` on a copy whose file says another seed gives the hash of the file
    that says `seed: S`.

Prints the seed range, one line per finding with the generated file's text, and a summary (runs,
statuses, recipes, and one hash over every run's trace hash). Exit status 1 if anything was found.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import yaml

DEFAULT_SEEDS = (1, 1000)  # about 40 s on 2 cores: CI runs it in its 20-minute budget (docs/reliability.md)
RUN_TIMEOUT_SECONDS = 120
SEED_OVERRIDE_EVERY = 10

# The contract's names (docs/scenario-format.md), written out here rather than asked of the binary,
# so a seed gives the same file whatever electsim lists.
RECIPES = ["none", "elasticjob", "leader-latch", "leader-selector", "naive-master", "es-zen"]
ZOOKEEPER_RECIPES = [r for r in RECIPES if r != "es-zen"]
INSTANCE_RECIPES = ["elasticjob", "leader-latch", "leader-selector", "naive-master"]
STRATEGIES = ["average", "odevity", "rotate", "consistent-hash", "rendezvous", "sticky"]
ZOOKEEPER_VERSIONS = ["3.8.0", "3.8.5", "3.9.3"]
ES_PRIORITIES = ["IMMEDIATE", "URGENT", "HIGH", "NORMAL", "LOW", "LANGUID"]
BUGS = {
    "fle-1419-nontotal-order": ZOOKEEPER_RECIPES,
    "zab-335-epoch-from-zxid": ZOOKEEPER_RECIPES,
    "zk-1208-create-on-closing-session": ZOOKEEPER_RECIPES,
    "zk-2845-retain-database": ZOOKEEPER_RECIPES,
    "zk-3911-diff-logged-after-uptodate": ZOOKEEPER_RECIPES,
    "zk-watch-not-one-shot": ZOOKEEPER_RECIPES,
    "zab-commit-without-quorum": ZOOKEEPER_RECIPES,
    "ej-no-has-leader-check": ["elasticjob"],
    "ej-any-node-sets-resharding-flag": ["elasticjob"],
    "latch-ignores-connection-loss": ["leader-latch", "leader-selector"],
    "latch-watches-parent": ["leader-latch", "leader-selector"],
    "latch-unprotected-create": ["leader-latch", "leader-selector"],
    "curator-696-no-owner-check": ["leader-latch", "leader-selector"],
    "naive-no-anti-jitter": ["naive-master"],
    "es-2488-local-elect": ["es-zen"],
    "es-master-service-fifo": ["es-zen"],
}
ZAB_PROPERTIES = ["zab-single-leader", "zab-agreement", "zab-committed-durability", "zab-history-consistency",
                  "zab-monotonic-reads", "zab-protocol-errors", "ephemeral-cleanup", "watch-once"]
PROPERTIES = {
    "none": ZAB_PROPERTIES + ["eventual-leader"],
    "elasticjob": ZAB_PROPERTIES + ["eventual-leader", "job-single-leader", "full-coverage", "no-double-execution"],
    "leader-latch": ZAB_PROPERTIES + ["eventual-leader", "latch-single-leader", "latch-no-herd"],
    "leader-selector": ZAB_PROPERTIES + ["eventual-leader", "latch-single-leader", "latch-no-herd"],
    "naive-master": ZAB_PROPERTIES + ["eventual-leader", "naive-master-stable"],
    "es-zen": ["eventual-leader", "es-single-master", "es-state-agreement", "es-eventual-master", "es-task-order"],
}

MS = 1_000_000  # nanoseconds


class Plain(str):
    """Text written unquoted: 0x hex numbers, which PyYAML would otherwise quote as strings."""


# Tagged as an int, which is what a YAML reader resolves 0x10 to, so the emitter leaves it plain.
yaml.SafeDumper.add_representer(Plain, lambda dumper, text: dumper.represent_scalar("tag:yaml.org,2002:int", text))


def hex_text(rng, number):
    """A number in 0x hex, plain or quoted (the format reads both alike)."""
    return Plain(hex(number)) if rng.random() < 0.7 else hex(number)


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------

def duration_text(nanoseconds):
    """A duration in the largest unit that keeps it exact, as the format writes it (1500ms, 2s)."""
    for unit, size in (("h", 3600 * 10**9), ("m", 60 * 10**9), ("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if nanoseconds % size == 0 and nanoseconds >= size:
            return f"{nanoseconds // size}{unit}"
    return f"{nanoseconds}ns"


def random_duration(rng, low_ms, high_ms):
    return duration_text(rng.randint(low_ms, high_ms) * MS)


def mostly(rng, usual, rare, chance_of_rare=0.1):
    """Usually a value from the cheap range, sometimes one from the whole documented range."""
    return rare() if rng.random() < chance_of_rare else usual()


# ---------------------------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------------------------

def zookeeper_section(rng, servers):
    section = {"servers": servers}
    tick_ms = rng.choice([1, 10, 50, 100, 200, 500, 1000, 2000, 2000])
    section["tick_time"] = duration_text(tick_ms * MS)
    section["init_limit"] = mostly(rng, lambda: rng.randint(1, 20), lambda: rng.randint(1, 1000))
    section["sync_limit"] = mostly(rng, lambda: rng.randint(1, 10), lambda: rng.randint(1, 1000))
    if rng.random() < 0.3:
        section["start"] = "staggered"
        section["start_interval"] = random_duration(rng, 0, 1500)
    if rng.random() < 0.25:
        zxids, epochs = {}, {}
        for n in range(1, servers + 1):
            if rng.random() < 0.7:
                epoch = mostly(rng, lambda: rng.randint(0, 3), lambda: rng.randint(0, 2**31 - 1))
                counter = mostly(rng, lambda: rng.randint(0, 20), lambda: rng.randint(0, 2**32 - 1))
                zxids[f"zk{n}"] = hex_text(rng, (epoch << 32) | counter)
                # initial_epoch needs that server's initial_zxid, not below its epoch.
                if rng.random() < 0.3:
                    epochs[f"zk{n}"] = epoch + rng.randint(0, 2)
        if zxids:
            section["initial_zxid"] = zxids
        if epochs:
            section["initial_epoch"] = epochs
    if rng.random() < 0.2:
        low = rng.randint(1, 4) * tick_ms
        section["min_session_timeout"] = duration_text(low * MS)
        section["max_session_timeout"] = duration_text((low + rng.randint(0, 20) * tick_ms) * MS)
    if rng.random() < 0.4:
        section["version"] = rng.choice(ZOOKEEPER_VERSIONS)
    if rng.random() < 0.2:
        section["thread_delay_max"] = mostly(rng, lambda: random_duration(rng, 0, 20), lambda: random_duration(rng, 0, 2000))
    return section


def network_section(rng):
    if rng.random() < 0.05:  # latencies below a millisecond: the smallest the format allows
        low_ns = rng.choice([1, 1000, 250000])
        return {"latency": {"min": duration_text(low_ns), "max": duration_text(low_ns + rng.randint(0, 3) * MS)}}
    low = rng.randint(1, 5)
    if rng.random() < 0.3:
        return {"latency": duration_text(low * MS)}
    latency = {"min": duration_text(low * MS), "max": duration_text((low + rng.randint(0, 20)) * MS)}
    if rng.random() < 0.3:
        latency["distribution"] = "uniform"
    return {"latency": latency}


def clients_section(rng, writers):
    section = {"session_timeout": mostly(rng, lambda: random_duration(rng, 500, 10000), lambda: random_duration(rng, 1, 500)),
               "connect": "all"}
    if writers:
        section["writers"] = writers
        section["write_interval"] = mostly(rng, lambda: random_duration(rng, 10, 1000), lambda: random_duration(rng, 1, 10))
        section["ephemeral_writes"] = rng.random() < 0.3
        section["reads"] = rng.random() < 0.3
        section["writes"] = rng.choice([0, 0, rng.randint(1, 50), rng.randint(0, 1000000)])
    return section


def instance_id(rng, n, recipe):
    if recipe == "elasticjob":  # ElasticJob reads the ip back out of IP@-@PID
        return f"host-{n}@-@{rng.randint(1, 99999)}"
    # Any text without '/': spaces, punctuation and non-ASCII letters included.
    return rng.choice([f"contender-{n}", f"c{n}:{rng.randint(1, 9)}", f"10.1.0.{n}@-@{n}", f"nœud {n}", f"#{n}!"])


def instances_section(rng, count, recipe):
    section = {"count": count}
    if count and rng.random() < 0.3:
        # Explicit ids stay clear of the defaults 10.0.0.N@-@N, so all ids are unique.
        chosen = rng.sample(range(1, count + 1), rng.randint(1, count))
        section["ids"] = {f"i{n}": instance_id(rng, n, recipe) for n in sorted(chosen)}
    if rng.random() < 0.3:
        section["start"] = "staggered"
        section["start_interval"] = random_duration(rng, 0, 1000)
    return section


def jobs_section(rng):
    jobs = []
    for index in range(rng.randint(0, 3)):
        job = {"name": f"job-{index}-{rng.choice(['sync', 'report', 'a.b', '_x', 'tâche', '...'])}",
               "sharding_total_count": mostly(rng, lambda: rng.randint(1, 20), lambda: rng.randint(1, 10000), 0.05),
               "strategy": rng.choice(STRATEGIES),
               "fire_interval": random_duration(rng, 100, 3000)}
        if rng.random() < 0.5:
            low = rng.randint(1, 500)
            job["execution_time"] = {"min": duration_text(low * MS), "max": duration_text((low + rng.randint(0, 1500)) * MS)}
        else:
            job["execution_time"] = random_duration(rng, 1, 1000)
        job["monitor_execution"] = rng.random() < 0.7
        jobs.append(job)
    return jobs


def elasticsearch_section(rng, nodes):
    section = {"nodes": nodes, "minimum_master_nodes": rng.randint(1, nodes)}
    for key, low, high in (("ping_timeout", 1, 3000), ("fd_ping_interval", 1, 1000), ("fd_ping_timeout", 1, 5000)):
        if rng.random() < 0.6:
            section[key] = mostly(rng, lambda: random_duration(rng, low, high), lambda: random_duration(rng, 1, 5))
    # commit_timeout must not exceed publish_timeout.
    publish = rng.randint(10, 30000)
    if rng.random() < 0.6:
        section["publish_timeout"] = duration_text(publish * MS)
        section["commit_timeout"] = duration_text(rng.randint(1, publish) * MS)
    section["fd_ping_retries"] = mostly(rng, lambda: rng.randint(1, 5), lambda: rng.randint(1, 100))
    rate = mostly(rng, lambda: rng.choice([0, 0.5, 1, 2, 10, rng.randint(0, 50), round(rng.uniform(0, 20), 3)]),
                  lambda: rng.choice([100000, rng.randint(0, 100000), round(rng.uniform(0, 1), 6)]), 0.05)
    section["cluster_tasks"] = {"rate": rate,
                                "priorities": rng.sample(ES_PRIORITIES, rng.randint(1, len(ES_PRIORITIES))),
                                "executor": rng.choice(["per-task", "shared"])}
    return section


# ---------------------------------------------------------------------------------------------
# Faults
# ---------------------------------------------------------------------------------------------

class Nodes:
    """The nodes a run of this scenario has, by role (docs/scenario-format.md, Node names)."""

    def __init__(self, recipe, servers, instances, writers, es_nodes):
        self.servers = [f"zk{n}" for n in range(1, servers + 1)] if recipe != "es-zen" else []
        self.instances = [f"i{n}" for n in range(1, instances + 1)] if recipe in INSTANCE_RECIPES else []
        self.writers = [f"w{n}" for n in range(1, writers + 1)] if recipe != "es-zen" else []
        self.es = [f"es{n}" for n in range(1, es_nodes + 1)] if recipe == "es-zen" else []
        self.all = self.servers + self.instances + self.writers + self.es


def disjoint_groups(rng, nodes, count):
    """count non-empty disjoint groups drawn from nodes (len(nodes) >= count)."""
    chosen = rng.sample(nodes, rng.randint(count, len(nodes)))
    groups = [[node] for node in chosen[:count]]
    for node in chosen[count:]:
        rng.choice(groups).append(node)
    return groups


def trigger(rng, recipe, nodes, duration_ns):
    """A step trigger whose event the named node can emit in this recipe."""
    choices = [("node.crash", nodes.all, None), ("node.start", nodes.all, None), ("node.pause", nodes.all, None)]
    if nodes.servers:
        choices += [("zk.state", nodes.servers, {"state": rng.choice(["LEADING", "FOLLOWING", "LOOKING"])}),
                    ("fle.decide", nodes.servers, None), ("zab.established", nodes.servers, None),
                    ("zab.propose", nodes.servers, None), ("zab.commit", nodes.servers, None)]
    if nodes.instances + nodes.writers:
        choices.append(("client.state", nodes.instances + nodes.writers, None))
    recipe_event = {"elasticjob": "job.leader", "leader-latch": "latch.leader", "leader-selector": "selector.leader",
                    "naive-master": "naive.master"}.get(recipe)
    if recipe_event and nodes.instances:
        choices.append((recipe_event, nodes.instances, None))
    if nodes.es:
        choices += [("es.master", nodes.es, None), ("es.elected", nodes.es, None)]
    event, candidates, where = rng.choice(choices)
    after = {"event": event, "node": rng.choice(candidates), "nth": rng.randint(1, 3)}
    if where:
        after["where"] = where
    fault = {"after": after}
    if rng.random() < 0.3:
        fault["at"] = duration_text(rng.randint(0, duration_ns // MS) * MS)
    if rng.random() < 0.3:
        fault["delay"] = random_duration(rng, 0, 500)
    return fault


def fault_action(rng, recipe, nodes, jobs):
    """One action (the fault's single action key, and `for` with pause) that applies to these nodes."""
    kinds = ["crash", "power_off", "restart", "pause", "isolate", "heal"]
    if len(nodes.all) >= 2:
        kinds += ["partition", "drop"]
    if len(nodes.all) >= 3:
        kinds.append("bridge")
    if nodes.instances:
        kinds.append("shutdown")
        if recipe == "elasticjob":
            kinds += ["disable", "enable"]
    if recipe == "elasticjob" and jobs:
        kinds.append("set_sharding_total_count")
    kind = rng.choice(kinds)
    if kind in ("crash", "power_off", "restart", "isolate"):
        return {kind: rng.choice(nodes.all)}
    if kind == "pause":
        pause = mostly(rng, lambda: random_duration(rng, 1, 5000), lambda: random_duration(rng, 1, 24 * 3600 * 1000))
        return {"pause": rng.choice(nodes.all), "for": pause}  # a pause may outlast the scenario
    if kind == "heal":
        return {"heal": "all"}
    if kind == "partition":
        return {"partition": disjoint_groups(rng, nodes.all, rng.randint(2, min(4, len(nodes.all))))}
    if kind == "drop":
        source, target = rng.sample(nodes.all, 2)
        return {"drop": {"from": source, "to": target}}
    if kind == "bridge":
        bridge = rng.choice(nodes.all)
        sides = disjoint_groups(rng, [n for n in nodes.all if n != bridge], 2)
        return {"bridge": {"node": bridge, "sides": sides}}
    if kind in ("shutdown", "disable", "enable"):
        return {kind: rng.choice(nodes.instances)}
    job = rng.choice(jobs)
    return {"set_sharding_total_count": {"job": job["name"], "value": rng.randint(1, 30)}}


def faults_section(rng, recipe, nodes, jobs, duration_ns):
    faults = []
    for _ in range(mostly(rng, lambda: rng.choice([0, 1, 2, 3, 5, 8, rng.randint(0, 30)]), lambda: rng.randint(30, 300), 0.05)):
        if rng.random() < 0.15:
            fault = trigger(rng, recipe, nodes, duration_ns)
        else:
            fault = {"at": duration_text(rng.randint(0, duration_ns // MS) * MS)}  # 0 to duration inclusive
        fault.update(fault_action(rng, recipe, nodes, jobs))
        faults.append(fault)
    return faults


# ---------------------------------------------------------------------------------------------
# The whole scenario
# ---------------------------------------------------------------------------------------------

def generate(seed):
    """The scenario of one seed, as a dict in the format's key order."""
    rng = random.Random(seed)
    recipe = RECIPES[seed % len(RECIPES)] if rng.random() < 0.5 else rng.choice(RECIPES)
    duration_ns = rng.randint(1000, 10000) * MS
    scenario_seed = rng.choice([seed, rng.randint(0, 2**64 - 1), rng.randint(0, 1000)])
    scenario = {"name": f"generated-{seed}", "description": f"generate_scenarios.py seed {seed}",
                "seed": hex_text(rng, scenario_seed) if rng.random() < 0.2 else scenario_seed,
                "duration": duration_text(duration_ns), "recipe": recipe}
    applicable_bugs = [bug for bug, recipes in BUGS.items() if recipe in recipes]
    scenario["bugs"] = rng.sample(applicable_bugs, 1) if rng.random() < 0.25 else []

    # Mostly small deployments, sometimes anything up to the documented limits.
    servers = mostly(rng, lambda: rng.choice([1, 3, 3, 5]), lambda: rng.randint(1, 15))
    writers = mostly(rng, lambda: rng.choice([0, 0, 1, 2, 3]), lambda: rng.randint(0, 100), 0.05) if recipe != "es-zen" else 0
    # ElasticJob instances stop at 100: each runs every job's scheduler, and 600 of them take a minute
    # for 10 s (the 1000-instance limit is the table's and the bundled scenarios' to check).
    most_instances = 100 if recipe == "elasticjob" else 1000
    instances = (mostly(rng, lambda: rng.randint(0, 6), lambda: rng.choice([rng.randint(0, 100), rng.randint(0, most_instances)]))
                 if recipe in INSTANCE_RECIPES else 0)
    es_nodes = mostly(rng, lambda: rng.randint(1, 7), lambda: rng.randint(1, 25)) if recipe == "es-zen" else 0
    jobs = jobs_section(rng) if recipe == "elasticjob" else []

    if recipe != "es-zen":
        scenario["zookeeper"] = zookeeper_section(rng, servers)
    scenario["network"] = network_section(rng)
    scenario["clients"] = clients_section(rng, writers)
    if recipe in INSTANCE_RECIPES:
        scenario["instances"] = instances_section(rng, instances, recipe)
    if jobs:
        scenario["jobs"] = jobs
    if recipe == "es-zen":
        scenario["elasticsearch"] = elasticsearch_section(rng, es_nodes)
    nodes = Nodes(recipe, servers, instances, writers, es_nodes)
    scenario["faults"] = faults_section(rng, recipe, nodes, jobs, duration_ns)
    expect = {"hold": rng.sample(PROPERTIES[recipe], rng.randint(0, 3)), "fail": []}
    if recipe != "es-zen" and rng.random() < 0.2:
        expect["zookeeper_leader"] = rng.choice(["none"] + nodes.servers)
    scenario["expect"] = expect
    return scenario


def scenario_text(scenario):
    # Leaf collections in flow style ({at: 1s, crash: zk1}), sections in block style: both forms
    # of the format are exercised, and the file reads like the bundled ones.
    return yaml.safe_dump(scenario, sort_keys=False, default_flow_style=None, width=140, allow_unicode=True)


# ---------------------------------------------------------------------------------------------
# Running and checking
# ---------------------------------------------------------------------------------------------

class Run:
    """One `electsim run FILE --json`: status, its JSON result (None if it printed none), output."""

    def __init__(self, command, folder):
        start = time.monotonic()
        try:
            done = subprocess.run(command, cwd=folder, capture_output=True, timeout=RUN_TIMEOUT_SECONDS)
            self.status, out, err = done.returncode, done.stdout, done.stderr
            self.timed_out = False
        except subprocess.TimeoutExpired as expired:
            self.status, out, err = None, expired.stdout or b"", expired.stderr or b""
            self.timed_out = True
        self.seconds = time.monotonic() - start
        self.stdout = out.decode("utf-8", "replace")
        self.stderr = err.decode("utf-8", "replace")
        self.result = last_json(self.stdout)

    def trace_hash(self):
        return self.result.get("trace_hash") if self.result else None

    def describe(self):
        if self.timed_out:
            return f"no answer within {RUN_TIMEOUT_SECONDS} s"
        if self.status < 0:
            return f"killed by signal {-self.status}"
        return f"exit {self.status}"


def last_json(stdout):
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def model_sanity_violations(result):
    return [v["message"] for v in (result or {}).get("violations", []) if v.get("property") == "model-sanity"]


def check_seed(seed, electsim, folder):
    """Generates, runs and re-runs one seed; returns (findings, first run, recipe, text)."""
    scenario = generate(seed)
    text = scenario_text(scenario)
    path = os.path.join(folder, f"seed-{seed}.yaml")
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    findings = []
    first = Run([electsim, "run", path, "--json"], folder)
    if first.timed_out or first.status not in (0, 1):
        findings.append(status_finding(first))
        return findings, first, scenario["recipe"], text
    for message in model_sanity_violations(first.result):
        findings.append(f"model-sanity violation (seed {seed}): {message}")
    second = Run([electsim, "run", path, "--json"], folder)
    if second.trace_hash() != first.trace_hash():
        findings.append(f"does not replay: trace hash {first.trace_hash()} then {second.trace_hash()} ({second.describe()})")
    if seed % SEED_OVERRIDE_EVERY == 0:
        findings += check_seed_override(scenario, first, electsim, folder, seed)
    return findings, first, scenario["recipe"], text


def status_finding(run):
    last_error = (run.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
    if run.status == 2 and "stopped at its limit" in run.stderr:
        return f"a limit hit (model-sanity) on a generated scenario: {last_error}"
    if run.status == 2:
        # The file is valid by construction: a refusal is either the generator breaking the
        # contract (docs/scenario-format.md) or the parser refusing what the contract allows.
        return (f"exit 2 for a generated-valid file: check the message against docs/scenario-format.md; if the "
                f"contract allows it, the parser is wrong, else the generator: {last_error}")
    return f"{run.describe()}: {last_error}"


def check_seed_override(scenario, first, electsim, folder, seed):
    """`run --seed S` on a file with another seed must be the run of the file that says `seed: S`."""
    seed_value = int(str(scenario["seed"]), 0)  # the file may say it in hex; the option gets decimal
    other = dict(scenario, seed=(seed_value + 1) % 2**64)
    path = os.path.join(folder, f"seed-{seed}-other.yaml")
    with open(path, "w", encoding="utf-8") as out:
        out.write(scenario_text(other))
    override = Run([electsim, "run", path, "--seed", str(seed_value), "--json"], folder)
    if override.trace_hash() != first.trace_hash():
        return [f"--seed {seed_value} gives trace hash {override.trace_hash()} ({override.describe()}), "
                f"the file's seed: {scenario['seed']} gives {first.trace_hash()}"]
    return []


def seed_range(text):
    first, _, last = text.partition("..")
    if not last or int(first) > int(last):
        raise argparse.ArgumentTypeError(f"--seeds takes A..B with A <= B, got '{text}'")
    return int(first), int(last)


def main():
    parser = argparse.ArgumentParser(description="Generated valid scenarios, run and replayed over a fixed seed range.")
    parser.add_argument("electsim")
    parser.add_argument("source_dir", help="the source tree (unused by the generator itself; kept for a uniform call)")
    parser.add_argument("--seeds", type=seed_range, default=DEFAULT_SEEDS, help="A..B (default %d..%d)" % DEFAULT_SEEDS)
    parser.add_argument("--keep", help="keep the generated files in this folder")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--print", dest="print_only", action="store_true", help="print the seeds' files, run nothing")
    options = parser.parse_args()
    electsim = os.path.abspath(options.electsim)
    seeds = range(options.seeds[0], options.seeds[1] + 1)
    if options.print_only:
        for seed in seeds:
            print(f"# seed {seed}\n{scenario_text(generate(seed))}---")
        return 0

    print(f"generated scenarios: seeds {seeds.start}..{seeds.stop - 1} ({len(seeds)} files), {options.jobs} at a time", flush=True)
    folder = options.keep or tempfile.mkdtemp(prefix="electsim-generated-")
    os.makedirs(folder, exist_ok=True)
    start = time.monotonic()
    statuses, recipes, hashes, failed, seconds = collections.Counter(), collections.Counter(), {}, [], {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
            futures = {seed: pool.submit(check_seed, seed, electsim, folder) for seed in seeds}
            for seed, future in futures.items():
                findings, first, recipe, text = future.result()
                statuses[first.describe()] += 1
                recipes[recipe] += 1
                hashes[seed] = first.trace_hash() or "-"
                seconds[seed] = first.seconds
                if findings:
                    failed.append(seed)
                    print(f"FINDING seed {seed} ({recipe}):")
                    for finding in findings:
                        print(f"  {finding}")
                    print("  the file:\n" + "".join(f"    {line}\n" for line in text.splitlines()), flush=True)
    finally:
        if not options.keep:
            for name in os.listdir(folder):
                os.remove(os.path.join(folder, name))
            os.rmdir(folder)

    combined = hashlib.sha256(" ".join(f"{s}:{h}" for s, h in sorted(hashes.items())).encode()).hexdigest()[:16]
    print(f"{len(seeds)} seeds in {time.monotonic() - start:.0f} s; statuses: "
          + ", ".join(f"{name} x{count}" for name, count in sorted(statuses.items())))
    print("recipes: " + ", ".join(f"{name} x{count}" for name, count in sorted(recipes.items())))
    slowest = sorted(seconds, key=seconds.get, reverse=True)[:3]
    print("slowest runs: " + ", ".join(f"seed {seed} {seconds[seed]:.1f} s" for seed in slowest)
          + f"; hash of every run's trace hash: {combined}")
    if options.keep:
        print(f"files kept in {folder}")
    if failed:
        print(f"findings in seeds: {', '.join(map(str, failed))}")
        return 1
    print("no findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
