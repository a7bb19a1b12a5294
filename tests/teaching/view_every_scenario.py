#!/usr/bin/python3
"""view_every_scenario.py ELECTSIM SCENARIOS_DIR: the viewer of every bundled scenario (but live-*)
opens in Chromium (Selenium) without a script error and survives a few keys (n, End, Home, v):
each recipe's states, bands and folded steps go through the page's code. Exit 77 (skipped) when
Chromium, chromedriver or Selenium is missing.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import view_browser


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    electsim, scenarios = sys.argv[1:]
    driver = view_browser.browser()
    if driver is None:
        print("SKIP: Selenium, chromedriver or Chromium missing (scripts/setup installs them)")
        return 77
    work = tempfile.mkdtemp()
    problems, pages = [], 0
    try:
        for scenario in sorted(glob.glob(os.path.join(scenarios, "*.yaml"))):
            name = os.path.basename(scenario)[: -len(".yaml")]
            if name.startswith("live-"):
                continue
            page = os.path.join(work, name + ".html")
            done = subprocess.run([electsim, "run", scenario, "--view", page], capture_output=True, text=True, timeout=300)
            if done.returncode not in (0, 1) or not os.path.exists(page):
                problems.append(f"{name}: electsim run exited {done.returncode}: {done.stderr[-300:]}")
                continue
            driver.get("about:blank")
            driver.get("file://" + page)
            view_browser.wait_rendered(driver)
            for key in ("n", "End", "Home", "v"):
                view_browser.key(driver, key)
            errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
            if errors:
                problems.append(f"{name}: {errors[:2]}")
            pages += 1
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    if problems:
        sys.exit("FAIL:\n" + "\n".join(problems))
    print(f"{pages} scenarios: every page opened and stepped without a script error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
