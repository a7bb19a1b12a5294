#!/usr/bin/python3
"""view_pages.py [ELECTSIM]: the run viewer's budget, measured: for the flagship hour, the longest
narration (fle-1419: five million steps) and two ordinary runs, the page's size (budget 5 MB) and the
time Debian's Chromium takes to open it, from navigation to the page's own `data-rendered` (budget
2 s; median of five loads). A markdown table on standard output; figures, not a test (machines are
noisy: docs/teaching/viewer.md keeps the last table).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "teaching"))
import view_browser  # noqa: E402  (the browser set-up the tests use)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCENARIOS = ["flagship-1h", "bug-fle-1419-nontotal-order", "ej-leader-crash", "bug-latch-ignores-connection-loss"]
BYTES_BUDGET = 5 * 1024 * 1024
SECONDS_BUDGET = 2.0


def main():
    electsim = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "cli", "electsim")
    driver = view_browser.browser()
    if driver is None:
        sys.exit("Selenium, chromedriver or Chromium missing (scripts/setup installs them)")
    work = tempfile.mkdtemp()
    print("| scenario | steps told | steps on the page | page | open (median of 5) |")
    print("|---|---|---|---|---|")
    try:
        for name in SCENARIOS:
            page = os.path.join(work, name + ".html")
            subprocess.run([electsim, "run", os.path.join(ROOT, "scenarios", name + ".yaml"), "--view", page], capture_output=True, check=False)
            size = os.path.getsize(page)
            loads = []
            for _ in range(5):
                driver.get("about:blank")  # a fresh load each time, not a hash change of the same page
                start = time.monotonic()
                driver.get("file://" + page)
                view_browser.wait_rendered(driver)
                loads.append(time.monotonic() - start)
            told = driver.execute_script("return JSON.parse(document.getElementById('electsim-data').textContent).steps_told")
            shown = driver.execute_script("return electsimView.steps.length")
            flag = "" if size <= BYTES_BUDGET and statistics.median(loads) <= SECONDS_BUDGET else " (over budget)"
            print(f"| {name} | {told:,} | {shown:,} | {size / 1e6:.2f} MB | {statistics.median(loads):.2f} s{flag} |")
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
