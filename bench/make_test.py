"""Time the README's test command from a clean clone, step by step, with the load beside it.

    .venv/bin/python bench/make_test.py          # warm: the control plane from the usual cache
    .venv/bin/python bench/make_test.py --cold   # empty Go build, module and control-plane caches

Clones HEAD of this checkout into a temporary folder and runs ``make test`` there (with
``--cold``, ``GOCACHE``, ``GOMODCACHE`` and ``QM_REALCLUSTER_CACHE`` point into that folder,
so the control plane is built from nothing). ``scripts/test.sh`` prints the seconds since it
started at each of its steps (``== step [N s]``); this prints each step's duration, the
wall time including ``make install``, pytest's counts and the load average sampled every
10 s. Exits with ``make test``'s code. Figures: docs/benchmarks.md#make-test.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEP = re.compile(r"^== (?P<name>.+?) \[(?P<at>\d+) s\]$")
PASSED = re.compile(r"^== make test passed in (?P<s>\d+) s$")
SUMMARY = re.compile(r"^=+ (?P<counts>.*\d+ passed.*) in [\d.]+s")
LOAD_EVERY_SECONDS = 10


def step_durations(lines: list[str], total: float) -> list[tuple[str, float]]:
    """Pure: each ``== step [N s]`` line's duration up to the next one (the last up to
    ``total``, the seconds ``scripts/test.sh`` ran)."""
    marks = [(m["name"], float(m["at"])) for m in map(STEP.match, lines) if m]
    ends = [at for _, at in marks[1:]] + [total]
    return [(name, end - at) for (name, at), end in zip(marks, ends, strict=True)]


def pytest_summaries(lines: list[str]) -> list[str]:
    return [m["counts"] for m in map(SUMMARY.match, lines) if m]


def sample_load(samples: list[float], stop: threading.Event) -> None:
    while not stop.wait(LOAD_EVERY_SECONDS):
        samples.append(os.getloadavg()[0])


def run(cold: bool, keep: bool) -> int:
    work = Path(tempfile.mkdtemp(prefix="qm-make-test-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = dict(os.environ)
    if cold:
        caches = work / "caches"
        env |= {
            "GOCACHE": str(caches / "go-build"),
            "GOMODCACHE": str(caches / "gomod"),
            "QM_REALCLUSTER_CACHE": str(caches / "realcluster"),
        }
    samples: list[float] = [os.getloadavg()[0]]
    stop = threading.Event()
    threading.Thread(target=sample_load, args=(samples, stop), daemon=True).start()
    started = time.monotonic()
    lines: list[str] = []
    with subprocess.Popen(
        ["make", "test"],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as process:
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            print(line, end="", flush=True)
    wall = time.monotonic() - started
    stop.set()
    report(lines, wall, samples, cold=cold, code=process.returncode)
    if not keep:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    return process.returncode


def report(lines: list[str], wall: float, samples: list[float], *, cold: bool, code: int) -> None:
    finished = next((int(m["s"]) for m in map(PASSED.match, lines) if m), None)
    print(f"\nmake test ({'cold' if cold else 'warm'}), exit code {code}")
    for name, seconds in step_durations(lines, float(finished or wall)):
        print(f"  {seconds:7.0f} s  {name}")
    print(f"  scripts/test.sh: {finished} s; wall with make install: {wall:.0f} s")
    for counts in pytest_summaries(lines):
        print(f"  pytest: {counts}")
    mean = sum(samples) / len(samples)
    print(
        f"  load average (1 min): min {min(samples):.1f}, mean {mean:.1f}, max {max(samples):.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="empty Go and control-plane caches")
    parser.add_argument("--keep", action="store_true", help="keep the clone and its caches")
    args = parser.parse_args(argv)
    return run(args.cold, args.keep)


if __name__ == "__main__":
    sys.exit(main())
