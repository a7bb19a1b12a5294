#!/usr/bin/python3
"""view_browser.py ELECTSIM SCENARIOS_DIR ARTIFACTS_DIR: the run viewer, used in a real browser.

electsim writes the viewer of a LeaderLatch run whose leader ignores its lost connection (two
leaders at 32.38 s) and the run's JSON trace; Debian's Chromium, driven by Selenium (Debian's
python3-selenium and chromium-driver), then:
  - opens the page and finds the cursor on the violation, the page within its size budget;
  - steps with the keys (n, p, shift+arrow for the same node, v for the violation);
  - at several cursors, reads every server's role and every client's connection in the state
    panel and checks them against the trace, folded independently here;
  - clicks a sentence of the narration and finds the cursor on its step;
  - loads a shared URL (cursor, window, a hidden lane) and finds that view;
  - opens `electsim diff` of the run with and without its bug switch: both viewers, the
    divergence marked, a step in one moving the other.
Screenshots go to ARTIFACTS_DIR. Exit status 77 (ctest: skipped) when Chromium, chromedriver or
Selenium is missing; scripts/setup installs them. Runs as root in CI: hence --no-sandbox.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

PAGE_BYTES_MAX = 5 * 1024 * 1024  # the budget docs/teaching/README.md states for a page


def fail(message):
    sys.exit("FAIL: " + message)


def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    driver_path = shutil.which("chromedriver")
    chromium = shutil.which("chromium")
    if driver_path is None or chromium is None:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900",
                     "--force-device-scale-factor=1"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(driver_path), options=options)


def trace_states(trace_lines):
    """After each trace line, the roles and connections the panel must show: folded here from the
    trace alone, independently of the page's own code."""
    role, connection, states = {}, {}, []
    for line in trace_lines:
        node, kind = line["node"], line["kind"]
        if kind == "zk.state":
            role[node] = line["state"]
        elif kind in ("node.crash", "node.power_off"):
            role.pop(node, None)
            connection.pop(node, None)
        elif kind == "client.state" and line.get("layer") == "zookeeper":
            connection[node] = line["state"]
        states.append((dict(role), dict(connection)))
    return states


def step_lines(steps, names, trace_lines):
    """The trace line of each step: steps are told in trace order."""
    found, at = {}, 0
    for index, step in enumerate(steps):
        if step.get("gap") or step["k"] in ("run.end",) or step["l"] < 0:
            continue
        line = lambda i: trace_lines[i]
        while at < len(trace_lines) and not (line(at)["t"] == step["t"] and line(at)["kind"] == step["k"] and line(at)["node"] == names[step["l"]]):
            at += 1
        if at == len(trace_lines):
            fail(f"step {index} ({step['k']} at {step['t']}) is not in the trace")
        found[index] = at
    return found


def cursor(driver):
    return int(driver.find_element("css selector", "#view").get_attribute("data-cursor"))


def panel_value(driver, lane, field):
    cells = driver.find_elements("css selector", f'#view .panel .node[data-lane="{lane}"] .field[data-field="{field}"] .value')
    return cells[0].text if cells else None


def wait_rendered(driver):
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, 20, poll_frequency=0.05).until(lambda d: d.execute_script("return document.body.dataset.rendered === '1'"))


def key(driver, *keys):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    names = {"RIGHT": Keys.ARROW_RIGHT, "LEFT": Keys.ARROW_LEFT, "SHIFT": Keys.SHIFT, "Home": Keys.HOME, "End": Keys.END}
    chain = ActionChains(driver)
    if keys[0] == "SHIFT":
        chain.key_down(Keys.SHIFT).send_keys(names[keys[1]]).key_up(Keys.SHIFT)
    else:
        chain.send_keys(names.get(keys[0], keys[0]))
    chain.perform()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    electsim, scenarios, artifacts = sys.argv[1:]
    os.makedirs(artifacts, exist_ok=True)
    driver = browser()
    if driver is None:
        print("SKIP: Selenium, chromedriver or Chromium missing; scripts/setup installs python3-selenium, chromium-driver and chromium")
        return 77
    work = tempfile.mkdtemp()
    try:
        scenario = os.path.join(scenarios, "bug-latch-ignores-connection-loss.yaml")
        page = os.path.join(work, "view.html")
        trace = os.path.join(work, "trace.jsonl")
        done = subprocess.run([electsim, "run", scenario, "--view", page, "--trace", trace], capture_output=True, text=True, timeout=120)
        if done.returncode not in (0, 1):
            fail(f"electsim run exited {done.returncode}: {done.stderr}")
        size = os.path.getsize(page)
        if size > PAGE_BYTES_MAX:
            fail(f"the page is {size} bytes, over the budget of {PAGE_BYTES_MAX}")
        with open(page, encoding="utf-8") as file:
            text = file.read()
        data = json.loads(text.split('id="electsim-data">', 1)[1].split("</script>", 1)[0])
        steps = data["steps"]
        with open(trace, encoding="utf-8") as file:
            trace_lines = [json.loads(line) for line in file]
        states = trace_states(trace_lines)
        names = [lane["name"] for lane in data["lanes"]]
        lines = step_lines(steps, names, trace_lines)
        violations = [i for i, s in enumerate(steps) if s["k"] == "property.violation"]
        if not violations:
            fail("the run's violation is not a step of the page")

        driver.get("file://" + page)
        wait_rendered(driver)
        load_ms = driver.execute_script("const t = performance.timing; return t.domContentLoadedEventEnd - t.navigationStart;")
        if cursor(driver) != violations[0]:
            fail(f"the page opens at step {cursor(driver)}, not at the violation (step {violations[0]})")
        driver.save_screenshot(os.path.join(artifacts, "view-violation.png"))

        # Keys.
        start = cursor(driver)
        key(driver, "n")
        if cursor(driver) != start + 1:
            fail(f"n moved the cursor from {start} to {cursor(driver)}")
        key(driver, "p")
        if cursor(driver) != start:
            fail(f"p moved the cursor back to {cursor(driver)}, not {start}")
        key(driver, "Home")
        if cursor(driver) != 0:
            fail(f"Home moved the cursor to {cursor(driver)}, not to the first step")
        lane = steps[0]["l"]
        key(driver, "SHIFT", "RIGHT")
        same = next(i for i in range(1, len(steps)) if steps[i]["l"] == lane)
        if cursor(driver) != same:
            fail(f"shift+right went to step {cursor(driver)}, not {same}, the next step of lane {lane}")
        key(driver, "v")
        if cursor(driver) != violations[0]:
            fail(f"v went to step {cursor(driver)}, not the violation")

        # The election reads without hovering: a leader lane and each server's vote strip.
        if not driver.find_elements("css selector", "#view svg rect.leader-band") or not driver.find_elements("css selector", "#view svg rect.vote"):
            key(driver, "Home")
            if not driver.find_elements("css selector", "#view svg rect.leader-band") or not driver.find_elements("css selector", "#view svg rect.vote"):
                fail("no leader lane or vote strips at the start of the run")

        # Search: the next step whose sentence says "expires".
        key(driver, "Home")
        box = driver.find_element("css selector", "#view .query")
        box.send_keys("expires\n")
        found = cursor(driver)
        if "expires" not in steps[found]["x"]:
            fail(f"searching 'expires' moved to step {found}: {steps[found]['x']!r}")
        driver.find_element("css selector", "#view .diagram").click()  # the keys go to the page again

        # The state panel against the trace, at several cursors (loaded as shared URLs).
        checked = 0
        probes = sorted({min(lines), violations[0] - 1, max(lines)} | set(list(lines)[:: max(1, len(lines) // 6)]))
        for index in probes:
            if index not in lines:
                continue
            driver.get("file://" + page + f"#step={index}")
            driver.refresh()
            wait_rendered(driver)
            if cursor(driver) != index:
                fail(f"the URL #step={index} opened at step {cursor(driver)}")
            role, connection = states[lines[index]]
            for name in names:
                if name.startswith("zk"):
                    expected, shown = role.get(name), panel_value(driver, name, "role")
                else:
                    expected, shown = connection.get(name), panel_value(driver, name, "connection")
                    shown = shown.split(" ")[0] if shown else shown
                if expected != shown:
                    fail(f"at step {index} ({steps[index]['k']}, {steps[index]['t']} ns) the panel shows {name} as {shown!r}; the trace says {expected!r}")
                checked += 1
        driver.save_screenshot(os.path.join(artifacts, "view-state-panel.png"))

        # A sentence of the narration moves the cursor to its step.
        lines_shown = driver.find_elements("css selector", "#view .story .line")
        target = lines_shown[len(lines_shown) // 2]
        wanted = int(target.get_attribute("data-step"))
        target.click()
        if cursor(driver) != wanted:
            fail(f"clicking the sentence of step {wanted} moved the cursor to {cursor(driver)}")

        # A shared moment: cursor, window and a hidden lane.
        hidden = names[-1]
        moment = violations[0] - 3
        driver.get("file://" + page + f"#step={moment}&from={moment - 20}&to={moment + 20}&hide={hidden}&size=20")
        driver.refresh()
        wait_rendered(driver)
        if cursor(driver) != moment:
            fail(f"the shared URL opened at step {cursor(driver)}, not {moment}")
        if driver.find_elements("css selector", f'#view .panel .node[data-lane="{hidden}"]'):
            fail(f"the shared URL hides {hidden}, but its state is in the panel")
        driver.save_screenshot(os.path.join(artifacts, "view-shared-moment.png"))

        # A busy ElasticJob run: client bursts fold into bands, and the items have lanes.
        busy = os.path.join(work, "busy.html")
        subprocess.run([electsim, "run", os.path.join(scenarios, "ej-leader-crash.yaml"), "--view", busy], capture_output=True, timeout=120)
        driver.get("about:blank")
        driver.get("file://" + busy)
        wait_rendered(driver)
        if not driver.find_elements("css selector", "#view svg line.burst"):
            fail("ej-leader-crash's first window draws its client messages one by one: no burst bands")
        driver.find_element("css selector", "#view button[data-act=whole]").click()
        if not driver.find_elements("css selector", "#view svg rect.item"):
            fail("ej-leader-crash's whole run shows no item lanes")
        driver.save_screenshot(os.path.join(artifacts, "view-elasticjob.png"))

        # electsim diff: the same run without its bug switch.
        without = os.path.join(work, "without.yaml")
        with open(scenario, encoding="utf-8") as file:
            original = file.read()
        with open(without, "w", encoding="utf-8") as file:
            file.write("\n".join(line for line in original.splitlines() if not line.startswith("bugs:")) + "\n")
        diff_page = os.path.join(work, "diff.html")
        done = subprocess.run([electsim, "diff", scenario, without, "--view", diff_page], capture_output=True, text=True, timeout=120)
        if done.returncode != 1 or "agree on their first" not in done.stdout:
            fail(f"electsim diff exited {done.returncode}: {done.stdout}{done.stderr}")
        driver.get("file://" + diff_page)
        wait_rendered(driver)
        for view in ("view-a", "view-b"):
            if not driver.find_elements("css selector", f"#{view} svg line.mark"):
                fail(f"{view} does not mark the divergence")
        before = int(driver.find_element("css selector", "#view-b").get_attribute("data-cursor"))
        driver.find_element("css selector", "#view-a button[data-act=next]").click()
        after = int(driver.find_element("css selector", "#view-b").get_attribute("data-cursor"))
        time_a = driver.execute_script("return viewA.steps[viewA.view.cursor].t")
        time_b = driver.execute_script("return viewB.steps[viewB.view.cursor].t")
        if time_b < time_a and after != len(driver.execute_script("return viewB.steps")) - 1:
            fail(f"a step in A (to {time_a} ns) left B behind at {time_b} ns (cursor {before} -> {after})")
        driver.save_screenshot(os.path.join(artifacts, "diff.png"))
        print(f"page {size} bytes, {len(steps)} steps, opened in {load_ms} ms; keys, a sentence and a shared URL move the cursor; "
              f"{checked} panel values match the trace at {len(probes)} cursors; the diff page marks the divergence and moves both runs")
        return 0
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
