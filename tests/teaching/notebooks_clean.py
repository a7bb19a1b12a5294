#!/usr/bin/python3
"""notebooks_clean.py DIR: the notebooks in DIR are committed clean: no outputs, no execution
counts, and at least the five the teaching material promises (docs/teaching/README.md). Outputs
would put one machine's run (timings, paths) into the repository and make every re-run a diff."""
import glob
import os
import sys

import nbformat

EXPECTED = ["01-fast-leader-election", "02-herd-effect", "03-failover-timing", "04-sharding-strategies", "05-property-violation",
            "06-lost-writes", "07-exercises"]


def main():
    folder = sys.argv[1]
    problems = []
    found = sorted(os.path.splitext(os.path.basename(path))[0] for path in glob.glob(os.path.join(folder, "*.ipynb")))
    for name in EXPECTED:
        if name not in found:
            problems.append(f"{name}.ipynb is missing")
    for name in found:
        notebook = nbformat.read(os.path.join(folder, name + ".ipynb"), as_version=4)
        nbformat.validate(notebook)
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            if cell.get("outputs"):
                problems.append(f"{name}.ipynb: cell {index} has outputs (clear them before committing)")
            if cell.get("execution_count") is not None:
                problems.append(f"{name}.ipynb: cell {index} has an execution count")
    if problems:
        sys.exit("FAIL:\n  " + "\n  ".join(problems))
    print(f"{len(found)} notebooks, all without outputs")


if __name__ == "__main__":
    main()
