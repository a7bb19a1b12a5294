#!/usr/bin/python3
"""run_table.py ELECTSIM SOURCE_DIR TABLE [--only NAME_REGEX]

Runs every row of a regression table (inputs.yaml: the hostile-user review's inputs, each with the
answer electsim must give) and prints one line per row. A row runs in a fresh temporary folder, its
working directory, which is removed afterwards. Exit status 1 if any row failed.

A row's keys (inputs.yaml's header explains them with examples):
  name, review       what the row is and which review finding it comes from
  args               electsim's arguments; the runner puts the binary in front
  files              name -> text, or name -> a mapping (below), or name -> {symlink: TARGET}
  setup              steps run first, in order: an electsim command {args, stdout: FILE, last_line,
                     status}, or a file made from one already in the folder {file: NAME, from: ...}
  stdin, ulimit_v (kB), timeout (s, default 60)
  stdout_to          where the command's standard output goes (/dev/full); only stderr is checked then
  signal             {after: SECONDS, name: INT}: one signal sent to the command after a while,
                     or {when: REGEX, name: INT}: once its output matches
  status             expected exit status, or a list of accepted ones
  pattern            a Python regex the combined stdout+stderr must match (re.MULTILINE)
  not_pattern        a regex it must not match
  max_seconds        the command must finish within this wall time
  left_behind        globs that must match nothing in the folder afterwards
  exists             files that must exist afterwards: NAME, or {path: NAME, type: file|symlink|dir}
  unchanged          files whose bytes must be what `files` wrote
  file_matches       NAME -> regex: the file must exist and its text match (re.MULTILINE)
  same_trace_hash_as electsim arguments whose JSON trace_hash must equal the row's own
  known_open         why the row fails today: reported as "open", not a failure
{src} in args, file texts and replacements stands for SOURCE_DIR.

A file mapping builds the text from `from` (a file of SOURCE_DIR, or in a setup step one of the
row's folder first), else `text`; then applies `replace` (OLD: NEW, each must occur), `sub` (a list
of [REGEX, REPLACEMENT], each must match), `append` (text), `repeat` ([TEXT, N]: TEXT appended N
times) and `pad_to` (comment lines appended up to exactly N bytes); `encoding: latin1` writes each
character as one byte, for bytes that are not UTF-8 ("\xff").
"""

import argparse
import glob
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import yaml

DEFAULT_TIMEOUT = 60
# After a timeout the row's process group gets SIGTERM first (live mode then stops its real
# ZooKeeper servers and removes its folders), and SIGKILL only if it is still there this much later.
TERM_GRACE_SECONDS = 10
OUTPUT_LINES_SHOWN = 40

ROW_KEYS = {
    "name", "review", "args", "files", "setup", "stdin", "ulimit_v", "timeout", "status", "pattern",
    "not_pattern", "max_seconds", "left_behind", "exists", "unchanged", "same_trace_hash_as", "known_open",
    "stdout_to", "signal", "file_matches",
}


class TableError(Exception):
    """The table itself is wrong (a missing key, a replacement that does not apply): never a pass."""


class Outcome:
    """What one command did: its exit status (negative: killed by that signal), output and time."""

    def __init__(self, status, output, seconds, timed_out):
        self.status = status
        self.output = output
        self.seconds = seconds
        self.timed_out = timed_out

    def describe_status(self):
        if self.timed_out:
            return f"timed out after {self.seconds:.0f} s"
        if self.status < 0:
            return f"killed by signal {-self.status} ({signal.Signals(-self.status).name})"
        return f"exit {self.status}"


def substitute(text, source_dir):
    return text.replace("{src}", source_dir)


def file_text(name, spec, source_dir, folder=None):
    """The text of one file of a row: literal, or built from a mapping (see the module's comment)."""
    if isinstance(spec, str):
        return substitute(spec, source_dir)
    if not isinstance(spec, dict) or not ({"from", "text"} & set(spec)):
        raise TableError(f"file {name}: expected text or a mapping with 'from' or 'text'")
    text = substitute(spec["text"], source_dir) if "text" in spec else read_source(name, spec["from"], source_dir, folder)
    for old, new in (spec.get("replace") or {}).items():
        old, new = substitute(str(old), source_dir), substitute(str(new), source_dir)
        # A replacement that no longer applies (the bundled file changed) would silently test the
        # unmodified scenario: the table is wrong then, and says so.
        if old not in text:
            raise TableError(f"file {name}: '{old}' does not occur in {spec.get('from', 'its text')}")
        text = text.replace(old, new)
    for pattern, replacement in spec.get("sub") or []:
        text, count = re.subn(pattern, replacement, text)
        if count == 0:
            raise TableError(f"file {name}: /{pattern}/ does not match {spec.get('from', 'its text')}")
    if "append" in spec:
        if text and not text.endswith("\n"):
            text += "\n"
        text += substitute(spec["append"], source_dir)
    if "repeat" in spec:
        repeated, times = spec["repeat"]
        text += repeated * times
    if "pad_to" in spec:
        text = padded(name, text, spec["pad_to"], spec.get("encoding", "utf-8"))
    return text


def read_source(name, path, source_dir, folder):
    """`from`: in a setup step a file of the row's folder (written by an earlier step) wins."""
    candidates = ([os.path.join(folder, path)] if folder else []) + [os.path.join(source_dir, path)]
    for candidate in candidates:
        if os.path.isfile(candidate):
            with open(candidate, encoding="utf-8", errors="surrogateescape") as source:
                return source.read()
    raise TableError(f"file {name}: {path} not found")


def padded(name, text, size, encoding):
    """text followed by comment lines of at most 100 bytes, exactly `size` bytes in all."""
    missing = size - len(text.encode(encoding, "surrogateescape"))
    if missing < 0:
        raise TableError(f"file {name}: already {size - missing} bytes, more than pad_to {size}")
    if missing == 1:
        return text + "\n"
    lines = []
    while missing > 0:
        length = min(100, missing)
        if missing - length == 1:
            length -= 1  # never leave a single byte, which could only be a bare newline
        lines.append("#" + "x" * (length - 2) + "\n" if length >= 2 else "\n")
        missing -= length
    return text + "".join(lines)


def write_file(name, spec, folder, source_dir, in_setup=False):
    """Writes one file (or symlink) into the row's folder; returns its bytes (None for a symlink)."""
    path = os.path.join(folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(spec, dict) and "symlink" in spec:
        os.symlink(spec["symlink"], path)
        return None
    encoding = spec.get("encoding", "utf-8") if isinstance(spec, dict) else "utf-8"
    data = file_text(name, spec, source_dir, folder if in_setup else None).encode(encoding, "surrogateescape")
    with open(path, "wb") as out:
        out.write(data)
    return data


def write_files(row, folder, source_dir):
    """Writes the row's files into its folder; returns name -> bytes for the `unchanged` check."""
    return {name: write_file(name, spec, folder, source_dir) for name, spec in (row.get("files") or {}).items()}


def memory_limit(kilobytes):
    """A preexec_fn that does what `ulimit -v KB` does in the shell."""
    def apply():
        limit = kilobytes * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def stop_group(process):
    """Ends a row's command that outlived its timeout, and whatever it started (its process group)."""
    for sig, wait in ((signal.SIGTERM, TERM_GRACE_SECONDS), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_command(command, folder, stdin_text=None, ulimit_kb=None, timeout=DEFAULT_TIMEOUT, stdout_to=None, send=None):
    """Runs one command in the folder, stdout and stderr together, in a process group of its own.

    stdout_to: a file its standard output goes to instead (then only stderr is kept);
    send: {after: SECONDS or when: REGEX, name: INT}, one signal sent to the command (not its group).
    """
    start = time.monotonic()
    stdout = open(os.path.join(folder, stdout_to), "wb") if stdout_to else subprocess.PIPE
    try:
        process = subprocess.Popen(
            command, cwd=folder, stdin=subprocess.PIPE, stdout=stdout,
            stderr=subprocess.PIPE if stdout_to else subprocess.STDOUT,
            start_new_session=True, preexec_fn=memory_limit(ulimit_kb) if ulimit_kb else None)
    finally:
        if stdout_to:
            stdout.close()
    timed_out = False
    try:
        if send:
            output, timed_out = communicate_with_signal(process, stdin_text, send, timeout, bool(stdout_to))
        else:
            output = pick_output(process.communicate(input=(stdin_text or "").encode("utf-8"), timeout=timeout), bool(stdout_to))
    except subprocess.TimeoutExpired:
        timed_out = True
        stop_group(process)
        output = pick_output(process.communicate(), bool(stdout_to))
    seconds = time.monotonic() - start
    # surrogateescape keeps every byte (a raw ESC, invalid UTF-8) visible to the patterns.
    return Outcome(process.returncode, output.decode("utf-8", "surrogateescape"), seconds, timed_out)


def pick_output(streams, stderr_only):
    return streams[1] if stderr_only else streams[0]


def communicate_with_signal(process, stdin_text, send, timeout, stderr_only):
    """Sends the command one signal, `after` seconds or once its output matches `when` (so a row
    can interrupt a step in progress however fast the machine is), then waits for its end.
    Returns (output, timed out)."""
    stream = process.stderr if stderr_only else process.stdout
    process.stdin.write((stdin_text or "").encode("utf-8"))
    process.stdin.close()
    chunks = []

    def read_all():  # in a thread, so the output is seen while the command runs
        while True:
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    start, sent, timed_out = time.monotonic(), False, False
    while process.poll() is None:
        elapsed = time.monotonic() - start
        if elapsed > timeout:
            timed_out = True
            stop_group(process)
            break
        due = elapsed >= send["after"] if "after" in send else re.search(
            send["when"], b"".join(chunks).decode("utf-8", "replace"), re.MULTILINE)
        if due and not sent:
            process.send_signal(getattr(signal, "SIG" + send.get("name", "INT")))
            sent = True
        time.sleep(0.05)
    process.wait()
    reader.join(timeout=10)
    return b"".join(chunks), timed_out


def arguments(row_args, source_dir):
    return [substitute(str(argument), source_dir) for argument in row_args]


def run_setup(row, electsim, folder, source_dir):
    """Commands a row needs first (a summary to merge, a failure file to replay); returns problems."""
    problems = []
    for step in row.get("setup") or []:
        if "file" in step:
            try:
                write_file(step["file"], step, folder, source_dir, in_setup=True)
            except TableError as error:  # most often: an earlier command did not write its file
                problems.append(f"setup: {error}")
            continue
        command = [electsim] + arguments(step["args"], source_dir)
        outcome = run_command(command, folder, timeout=step.get("timeout", DEFAULT_TIMEOUT))
        if "stdout" in step:
            # Like `> FILE`: stdout and stderr are one stream here, so keep the JSON lines only when
            # asked (a summary is the last line), else everything.
            text = outcome.output
            if step.get("last_line"):
                lines = [line for line in text.splitlines() if line.strip()]
                text = (lines[-1] + "\n") if lines else ""
            with open(os.path.join(folder, step["stdout"]), "w", encoding="utf-8", errors="surrogateescape") as out:
                out.write(text)
        expected = step.get("status")
        if expected is not None and outcome.status not in as_list(expected):
            problems.append(f"setup {' '.join(command)}: expected status {expected}, got {outcome.describe_status()}\n"
                            + first_lines(outcome.output))
    return problems


def as_list(value):
    return value if isinstance(value, list) else [value]


def first_lines(text, count=OUTPUT_LINES_SHOWN):
    lines = text.splitlines()
    shown = "\n".join("    | " + line.encode("unicode_escape", "backslashreplace").decode("ascii")
                      if any(ord(c) < 32 and c != "\t" for c in line) else "    | " + line for line in lines[:count])
    if len(lines) > count:
        shown += f"\n    | ... ({len(lines) - count} more lines)"
    return shown


def read_bytes(path):
    with open(path, "rb") as source:
        return source.read()


def trace_hash(output):
    found = re.findall(r'"trace_hash":\s*"([0-9a-f]{16})"', output)
    return found[-1] if found else None


def check_row(row, outcome, folder, written, electsim, source_dir):
    """Every expectation of the row against what its command did; returns the problems found."""
    problems = []
    expected = as_list(row["status"])
    if outcome.timed_out or outcome.status not in expected:
        problems.append(f"expected status {' or '.join(map(str, expected))}, got {outcome.describe_status()}")
    if "pattern" in row and not re.search(row["pattern"], outcome.output, re.MULTILINE):
        problems.append(f"output does not match /{row['pattern']}/")
    if "not_pattern" in row and re.search(row["not_pattern"], outcome.output, re.MULTILINE):
        problems.append(f"output matches /{row['not_pattern']}/, which it must not")
    if "max_seconds" in row and outcome.seconds > row["max_seconds"]:
        problems.append(f"took {outcome.seconds:.1f} s, more than {row['max_seconds']} s")
    for pattern in row.get("left_behind") or []:
        found = glob.glob(os.path.join(folder, "**", pattern), recursive=True)
        found += glob.glob(os.path.join(folder, pattern))
        if found:
            problems.append(f"left behind: {', '.join(sorted({os.path.relpath(f, folder) for f in found}))}")
    for entry in row.get("exists") or []:
        name, kind = (entry, None) if isinstance(entry, str) else (entry["path"], entry.get("type"))
        path = os.path.join(folder, name)
        if not os.path.lexists(path):
            problems.append(f"{name} does not exist")
        elif kind and kind != file_type(path):
            problems.append(f"{name} is a {file_type(path)}, not a {kind}")
    for name in row.get("unchanged") or []:
        path = os.path.join(folder, name)
        if not os.path.isfile(path) or read_bytes(path) != written.get(name):
            problems.append(f"{name} was changed")
    for name, pattern in (row.get("file_matches") or {}).items():
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            problems.append(f"{name} does not exist")
        elif not re.search(pattern, read_bytes(path).decode("utf-8", "surrogateescape"), re.MULTILINE):
            problems.append(f"{name} does not match /{pattern}/")
    if "same_trace_hash_as" in row:
        other = run_command([electsim] + arguments(row["same_trace_hash_as"], source_dir), folder,
                            timeout=row.get("timeout", DEFAULT_TIMEOUT))
        mine, theirs = trace_hash(outcome.output), trace_hash(other.output)
        if mine is None or mine != theirs:
            problems.append(f"trace hash {mine} differs from {theirs} of: {' '.join(row['same_trace_hash_as'])} "
                            f"({other.describe_status()})")
    return problems


def file_type(path):
    if os.path.islink(path):
        return "symlink"
    if os.path.isdir(path):
        return "dir"
    return "file" if os.path.isfile(path) else "other"


def run_row(row, electsim, source_dir):
    """Runs one row in a fresh folder; returns (problems, the outcome or None, the command)."""
    folder = tempfile.mkdtemp(prefix="electsim-regression-")
    try:
        written = write_files(row, folder, source_dir)
        command = [electsim] + arguments(row["args"], source_dir)
        problems = run_setup(row, electsim, folder, source_dir)
        outcome = run_command(command, folder, row.get("stdin"), row.get("ulimit_v"), row.get("timeout", DEFAULT_TIMEOUT),
                              row.get("stdout_to"), row.get("signal"))
        problems += check_row(row, outcome, folder, written, electsim, source_dir)
        return problems, outcome, command
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def validate(rows):
    """The table's own mistakes (a typo in a key) fail loudly, before anything runs."""
    names = set()
    for index, row in enumerate(rows):
        label = row.get("name", f"row {index + 1}")
        unknown = set(row) - ROW_KEYS
        if unknown:
            raise TableError(f"{label}: unknown keys {sorted(unknown)}")
        for key in ("name", "args", "status", "review"):
            if key not in row:
                raise TableError(f"{label}: '{key}' is required")
        if row["name"] in names:
            raise TableError(f"{label}: name given twice")
        names.add(row["name"])


def shell_words(command):
    return " ".join(word if re.fullmatch(r"[\w@%+=:,./-]+", word) else repr(word) for word in command)


def report(row, problems, outcome, command):
    """One line per row, and for a failure what ran, what was expected and what came out."""
    seconds = outcome.seconds if outcome else 0.0
    if not problems:
        note = "  (marked known_open, but passes now: remove the mark)" if "known_open" in row else ""
        print(f"ok    {row['name']}  ({seconds:.1f} s){note}", flush=True)
        return "ok"
    verdict = "open" if "known_open" in row else "FAIL"
    print(f"{verdict:5} {row['name']}  ({seconds:.1f} s)  [{row['review']}]")
    if "known_open" in row:
        print(f"    known open: {row['known_open']}")
    print(f"    command: {shell_words(command)}" + (f"  (ulimit -v {row['ulimit_v']})" if row.get("ulimit_v") else ""))
    for problem in problems:
        print(f"    {problem}")
    if outcome is not None:
        print(first_lines(outcome.output))
    sys.stdout.flush()
    return verdict


def main():
    parser = argparse.ArgumentParser(description="Runs the hostile-input regression table against electsim.")
    parser.add_argument("electsim")
    parser.add_argument("source_dir")
    parser.add_argument("table")
    parser.add_argument("--only", help="run only the rows whose name matches this regex")
    options = parser.parse_args()
    electsim = os.path.abspath(options.electsim)
    source_dir = os.path.abspath(options.source_dir)
    with open(options.table, encoding="utf-8") as table:
        rows = yaml.safe_load(table)
    validate(rows)
    if options.only:
        rows = [row for row in rows if re.search(options.only, row["name"])]
    counts = {"ok": 0, "FAIL": 0, "open": 0}
    start = time.monotonic()
    for row in rows:
        try:
            problems, outcome, command = run_row(row, electsim, source_dir)
        except TableError as error:
            problems, outcome, command = [f"table error: {error}"], None, [electsim] + [str(a) for a in row["args"]]
            row = dict(row)
            row.pop("known_open", None)  # a broken row is never merely open
        counts[report(row, problems, outcome, command)] += 1
    print(f"{len(rows)} rows in {time.monotonic() - start:.0f} s: {counts['ok']} ok, {counts['FAIL']} failed, "
          f"{counts['open']} known open")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
