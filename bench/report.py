#!/usr/bin/python3
"""Runs electsim's benchmarks and writes their JSON and a Markdown results table.

    bench/report.py [--build build] [--out bench/results] [--quick]

Writes OUT/<date>/*.json (each program's own JSON output) and prints the table that bench/README.md
quotes (date, machine, figures). Ratios (token storm vs the bare loop) come from one run of one
program, so the machine's noise cancels out. Runs on Debian's python3 with the standard library only.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys


def run_json(command, path):
    """Runs a command whose JSON is its whole output or its last line; keeps it in `path`."""
    print("bench/report.py: " + " ".join(command), file=sys.stderr)
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    try:
        data = json.loads(output)
    except json.JSONDecodeError:
        data = json.loads(output.strip().splitlines()[-1])
    with open(path, "w", encoding="utf-8") as file:
        json.dump(data, file, indent=1)
    return data


def gbench(data, name):
    for entry in data["benchmarks"]:
        if entry["name"] == name:
            return entry
    raise KeyError(name)


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as file:
            for line in file:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores, %s" % (cpu, os.cpu_count() or 0, platform.platform())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--quick", action="store_true", help="skip the whole-run benchmarks (flagship, explore)")
    args = parser.parse_args()
    today = datetime.date.today().isoformat()
    out = os.path.join(args.out, today)
    os.makedirs(out, exist_ok=True)
    electsim = os.path.join(args.build, "cli", "electsim")
    engine = run_json([os.path.join(args.build, "bench", "engine_bench"), "--benchmark_format=json"], os.path.join(out, "engine_bench.json"))
    storm = run_json([electsim, "bench", "token-storm", "--nodes", "100", "--tokens", "100", "--deliveries", "10000000", "--json"],
                     os.path.join(out, "token_storm.json"))
    model_filter = "DataTree|Election" if args.quick else "."
    model = run_json([os.path.join(args.build, "bench", "model_bench"), "--benchmark_format=json", "--benchmark_filter=" + model_filter],
                     os.path.join(out, "model_bench.json"))
    strategies = run_json([electsim, "bench", "strategies", "--quick", "--json"], os.path.join(out, "strategies.json"))

    rows = []
    rows.append(("electsim bench token-storm, 100 nodes, 100 tokens", "%.1f M deliveries/s" % (storm["deliveries_per_s"] / 1e6),
                 "%d heap allocations in steady state" % storm.get("steady_state_allocations", -1)))
    token = gbench(engine, "BM_TokenStorm/100/100/iterations:3")["deliveries_per_s"]
    bare = gbench(engine, "BM_BareHeapLoop/100/100/iterations:3")["deliveries_per_s"]
    rows.append(("engine_bench token storm vs bare binary-heap loop (one run)", "%.1f vs %.1f M/s" % (token / 1e6, bare / 1e6),
                 "ratio %.2f; %.0fx SimGrid 3.32's 0.47 M/s (docs/engine.md)" % (token / bare, token / 0.47e6)))
    for name in ("BM_DataTreeCreateDelete/1000", "BM_DataTreeGetChildren/1000"):
        entry = gbench(model, name)
        rows.append((name, "%.2f M ops/s" % (entry["items_per_second"] / 1e6), ""))
    entry = gbench(model, "BM_DataTreeBytesPerZnode/iterations:1")
    rows.append(("heap bytes per znode", "%.0f B" % entry["bytes_per_znode"], "100,000 znodes"))
    for servers in (3, 5, 7):
        entry = gbench(model, "BM_EnsembleElection/%d" % servers)
        rows.append(("cold-start election + sync, %d servers" % servers, "%.0f runs/s" % entry["items_per_second"],
                     "%.0f events per run" % entry["events_per_run"]))
    if not args.quick:
        entry = gbench(model, "BM_Flagship1h/iterations:2")
        rows.append(("flagship-1h (scenarios/flagship-1h.yaml)", "%.0f x real time" % entry["x_real_time"],
                     "target 100,000x; %.1f M events/s" % (entry["events_per_s"] / 1e6)))
        entry = gbench(model, "BM_ExploreElasticJob60s/iterations:100")
        rows.append(("explore, 60-s ElasticJob runs, one core", "%.1f runs/s" % entry["items_per_second"],
                     "target 500 runs/s on 2 cores"))
    for entry in model["benchmarks"]:
        if entry["name"].startswith("BM_RecoveryAfterInstanceCrash/"):
            rows.append(("recovery after an instance crash, %s (flagship deployment, 5 seeds)" % entry["label"],
                         "%.1f s to full coverage" % entry["recovery_s"],
                         "%.1f items moved (at least %.1f)" % (entry["items_moved"], entry["min_possible_moved"])))
    for name, counter, unit in (("BM_BytesPerSession/iterations:1", "bytes_per_session", "per ZooKeeper session"),
                                ("BM_BytesPerInstance/100/100/iterations:1", "bytes_per_instance", "per ElasticJob instance (100 instances, 100 items)")):
        if any(entry["name"] == name for entry in model["benchmarks"]):
            rows.append(("heap bytes " + unit, "%.0f kB" % (gbench(model, name)[counter] / 1e3), ""))
    for strategy in sorted({result["strategy"] for result in strategies["results"]}):
        largest = max((result for result in strategies["results"] if result["strategy"] == strategy),
                      key=lambda result: (result["instances"] * result["items"], result["items"]))
        rows.append(("strategy %s, %d instances, %d items" % (strategy, largest["instances"], largest["items"]),
                     "%.0f assignments/s" % largest["assignments_per_second"],
                     "max/min %.2f, moved on leave %s (min %s)" % (largest["max_over_min"], largest["moved_on_leave"], largest["min_possible_moved_on_leave"])))

    print("Measured %s on %s.\n" % (today, machine()))
    print("| benchmark | figure | note |")
    print("|---|---|---|")
    for name, figure, note in rows:
        print("| %s | %s | %s |" % (name, figure, note))
    print("\nJSON in %s/." % out)


if __name__ == "__main__":
    main()
