#!/usr/bin/env bash
# run_notebook.sh ELECTSIM NOTEBOOK SOURCE_DIR: executes a notebook top to bottom with Debian's Jupyter, in a
# scratch folder (the committed notebook keeps no outputs), with ELECTSIM naming the binary under
# test and ELECTSIM_SOURCE_DIR the checkout (for scenarios/). Debian's kernel spec runs /usr/bin/python3, where pandas and matplotlib are; the python3 on
# a developer's PATH may be another one without them, so the kernel is checked, not assumed.
set -u
electsim=$(realpath "$1")  # absolute: the notebook runs in a scratch folder
notebook=$(realpath "$2")
source_dir=$(realpath "$3")
nbconvert=/usr/bin/jupyter-nbconvert
if [[ ! -x $nbconvert ]]; then
  echo "FAIL: $nbconvert is missing (Debian: jupyter-nbconvert; scripts/setup installs it)"
  exit 1
fi
kernel=$(/usr/bin/python3 -c 'from jupyter_client.kernelspec import KernelSpecManager as K; print(K().get_kernel_spec("python3").argv[0])' 2>/dev/null)
if [[ "$kernel" != /usr/bin/python3* ]]; then
  echo "FAIL: Jupyter's python3 kernel runs '$kernel', not Debian's /usr/bin/python3 (remove the other kernel spec, or see jupyter --paths)"
  exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$notebook" "$scratch/"
name=$(basename "$notebook")
cd "$scratch" || exit 1
# The notebooks' scratch folders (tempfile) go inside ours, so nothing is left behind.
mkdir -p "$scratch/tmp"
export ELECTSIM=$electsim ELECTSIM_SOURCE_DIR=$source_dir TMPDIR=$scratch/tmp PYDEVD_DISABLE_FILE_VALIDATION=1
start=$(date +%s%N)
if ! "$nbconvert" --to notebook --execute --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=120 \
    --output executed.ipynb "$name" >"$scratch/nbconvert.log" 2>&1; then
  tail -n 40 "$scratch/nbconvert.log"
  echo "FAIL: $name did not run top to bottom"
  exit 1
fi
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "$name ran top to bottom in $((elapsed_ms / 1000)).$((elapsed_ms % 1000 / 100)) s"
