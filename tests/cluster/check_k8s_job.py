#!/usr/bin/python3
"""Checks cluster/kubernetes-job.yaml without a Kubernetes cluster: valid YAML, a batch/v1 Job in
Indexed completion mode whose completions equal the shard count of its command, restartPolicy Never,
and a command that runs `electsim explore ... --shard $((JOB_COMPLETION_INDEX + 1))/N` and writes its
summary where merge will find it. Only syntax and shape: nothing here runs the Job.

usage: check_k8s_job.py FILE        exit 77 (skipped) without Debian's python3-yaml
"""
import re
import sys

try:
    import yaml
except ImportError:
    print("SKIPPED: python3-yaml not found")
    sys.exit(77)


def fail(message):
    sys.exit("%s: %s" % (sys.argv[1], message))


with open(sys.argv[1]) as stream:
    try:
        job = yaml.safe_load(stream)
    except yaml.YAMLError as error:
        fail("not valid YAML: %s" % error)
if job.get("apiVersion") != "batch/v1" or job.get("kind") != "Job":
    fail("not a batch/v1 Job")
spec = job["spec"]
if spec.get("completionMode") != "Indexed":
    fail("completionMode must be Indexed (JOB_COMPLETION_INDEX is set only then)")
pod = spec["template"]["spec"]
if pod.get("restartPolicy") != "Never":
    fail("restartPolicy must be Never: a shard re-run from scratch is a new pod, not a restart in place")
containers = pod["containers"]
if len(containers) != 1:
    fail("one container expected")
command = " ".join(containers[0]["command"])
match = re.search(r"electsim explore .*--shard \$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/(\d+)", command)
if not match:
    fail("the command must run electsim explore --shard $((JOB_COMPLETION_INDEX + 1))/N")
shards = int(match.group(1))
if spec.get("completions") != shards:
    fail("completions (%s) must equal the shard count (%d)" % (spec.get("completions"), shards))
for needed in ("--json", "/results/shard-$JOB_COMPLETION_INDEX.json"):
    if needed not in command:
        fail("the command must contain %s" % needed)
mounts = {mount["mountPath"] for mount in containers[0].get("volumeMounts", [])}
if "/results" not in mounts:
    fail("/results must be a mounted volume")
print("%s: an indexed Job of %d shards (syntax and shape checked; not run)" % (sys.argv[1], shards))
