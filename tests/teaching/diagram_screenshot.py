#!/usr/bin/python3
"""diagram_screenshot.py ELECTSIM SCENARIO: the diagram of a run, looked at in a real browser.

electsim draws SCENARIO (a LeaderLatch run whose leader crashes at 10 s and restarts at 30 s) into an
HTML page; headless Chromium loads it twice, once to dump the page as its script left it (where each
lane's swatch and the time axis landed) and once to take a screenshot. The screenshot must show:
  - one lane per node, each swatch in its role's colour (servers blue, instances green);
  - the ZooKeeper leader's LEADING band across its lane;
  - i1's LeaderLatch period before the crash, then the grey 'down' shading until the restart;
  - i2's LeaderLatch period after i1's session expired.
Exit status 77 (ctest: skipped) when Chromium is not installed; scripts/setup installs Debian's.
Runs as root in CI, without a terminal: hence --no-sandbox and a scratch profile.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

WIDTH, HEIGHT = 1400, 600
ROLE_COLOURS = {"zk": (0x1F, 0x77, 0xB4), "i": (0x2C, 0xA0, 0x2C)}  # ROLE_COLORS in the page
LEADING = (0xF2, 0xB7, 0x01)  # BANDS["zk-LEADING"]
LATCH = (0x31, 0xA3, 0x54)  # BANDS["latch-leader"]
DOWN = (0x98, 0x98, 0x98)  # BANDS["down"]: #444 at opacity 0.55 over white
SECOND = 1_000_000_000


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browse(browser, profile, url, *action):
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--hide-scrollbars", "--force-device-scale-factor=1", f"--user-data-dir={profile}",
               f"--window-size={WIDTH},{HEIGHT}", *action, url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        sys.exit(f"FAIL: chromium exited {done.returncode}: {' '.join(command)}\n{done.stderr[-2000:]}")
    return done.stdout


def close(pixel, colour, tolerance=24):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], colour))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    electsim, scenario = sys.argv[1], sys.argv[2]
    browser = chromium()
    if browser is None:
        print("SKIP: no Chromium found (chromium, chromium-browser or google-chrome on PATH); "
              "scripts/setup installs Debian's chromium package")
        return 77
    try:
        from PIL import Image
    except ImportError:
        sys.exit("FAIL: Python's PIL is missing (Debian: python3-pil; scripts/setup installs it)")

    scratch = tempfile.mkdtemp(prefix="electsim-diagram-")
    try:
        page = os.path.join(scratch, "diagram.html")
        run = subprocess.run([electsim, "run", scenario, "--json", "--diagram", page], capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            sys.exit(f"FAIL: electsim run exited {run.returncode}\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
        result = json.loads(run.stdout.strip().splitlines()[-1])
        zk_leader = result["final"]["zookeeper"]["leader"]
        url = "file://" + page
        profile = os.path.join(scratch, "profile")

        # The page as its script left it: the lanes, where each swatch is, where time lies.
        dom = browse(browser, profile, url, "--dump-dom")
        rendered = re.search(r'<body[^>]*data-rendered="(\d+)"', dom)
        if not rendered:
            sys.exit("FAIL: the page's script did not finish drawing (no body[data-rendered]):\n" + dom[:2000])
        lanes = {}
        for tag in re.findall(r'<g class="lane"[^>]*>', dom):
            attribute = lambda name: re.search(rf'{name}="([^"]*)"', tag).group(1)
            lanes[attribute("data-node")] = (attribute("data-role"), int(attribute("data-swatch-x")), int(attribute("data-swatch-y")))
        expected = ["zk1", "zk2", "zk3", "i1", "i2", "i3"]
        if sorted(lanes) != sorted(expected) or int(rendered.group(1)) != len(expected):
            sys.exit(f"FAIL: expected one lane per node {expected}, the page drew {sorted(lanes)}")
        left, width, view_from, view_to = (float(v) for v in re.search(r'data-plot="([^"]*)"', dom).group(1).split())
        x_of = lambda ns: int(left + (ns - view_from) / (view_to - view_from) * width)

        shot_path = os.path.join(scratch, "shot.png")
        browse(browser, profile, url, f"--screenshot={shot_path}")
        shot = Image.open(shot_path).convert("RGB")
        if shot.size != (WIDTH, HEIGHT):
            sys.exit(f"FAIL: screenshot is {shot.size}, expected {(WIDTH, HEIGHT)}")

        problems = []
        for node, (role, x, y) in lanes.items():
            if not close(shot.getpixel((x, y)), ROLE_COLOURS[role], 8):
                problems.append(f"lane {node}: swatch at ({x}, {y}) is {shot.getpixel((x, y))}, expected {ROLE_COLOURS[role]}")

        # The share of a lane's row, between two times, drawn in a colour (arrows cross the rows, so
        # a band need only fill most of it). The row is read a few pixels off the lane line.
        def share(node, colour, start, end, offset=-3):
            y = lanes[node][2] + offset
            xs = range(x_of(start), x_of(end))
            return sum(close(shot.getpixel((x, y)), colour) for x in xs) / max(len(xs), 1)

        end = 90 * SECOND
        checks = [
            (f"{zk_leader} LEADING", share(zk_leader, LEADING, 1 * SECOND, end), 0.6),
            ("i1 leads the latch before its crash", share("i1", LATCH, 1 * SECOND, 10 * SECOND), 0.6),
            ("i1 shaded down from 10 s to 30 s", share("i1", DOWN, 11 * SECOND, 29 * SECOND, -10), 0.6),
            ("i2 leads the latch after i1's session expired", share("i2", LATCH, 20 * SECOND, end), 0.6),
            ("i3 never leads", 1 - share("i3", LATCH, 1 * SECOND, end), 0.95),
        ]
        for what, measured, least in checks:
            if measured < least:
                problems.append(f"{what}: {measured:.0%} of the row, expected at least {least:.0%}")
        if problems:
            kept = os.path.join(tempfile.gettempdir(), "electsim-diagram-failed.png")
            shutil.copy(shot_path, kept)
            sys.exit("FAIL: the screenshot does not show the run (kept as " + kept + "):\n  " + "\n  ".join(problems))
        print(f"diagram in {os.path.basename(browser)}: {len(lanes)} lanes, leader periods and the crash visible")
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
