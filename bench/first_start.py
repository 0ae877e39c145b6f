"""The first `make run` from a clean clone: seconds until the portal answers and until the
demo week's reports are ready.

    git clone <repo> /tmp/fs-clone && ln -s <repo>/.venv /tmp/fs-clone/.venv
    python bench/first_start.py /tmp/fs-clone --port 8206

Runs what `make run` runs after `make install` (``.venv/bin/python -m portal.embedded``)
in the clone on its embedded defaults (SQLite and the filesystem broker under its var/),
polls ``/healthz`` and waits for the launcher's "the demo week is ready" line, then stops
it with SIGINT (``stop_s``: until everything exited). Prints one JSON line; the load
average is read at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

READY = "the demo week is ready"
WEEK_PLAYED = "simcluster seeded"


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("clone", type=Path)
    parser.add_argument("--port", default="8206")
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "QM_DATA_DIR")
    }
    env["QM_PORT"] = args.port
    start, load_start = time.monotonic(), load()
    process = subprocess.Popen(
        [str(args.clone / ".venv/bin/python"), "-m", "portal.embedded"], cwd=args.clone, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    marks: dict[str, float] = {}
    log = (args.clone / "first-start.log").open("w")

    def follow() -> None:
        for line in process.stdout:
            log.write(f"{time.monotonic() - start:8.1f} {line}")
            log.flush()
            for mark in (WEEK_PLAYED, READY):
                if mark in line:
                    marks.setdefault(mark, time.monotonic() - start)

    threading.Thread(target=follow, daemon=True).start()
    deadline = start + args.timeout
    while time.monotonic() < deadline and process.poll() is None:
        if "healthz" not in marks and answers(f"http://127.0.0.1:{args.port}/healthz"):
            marks["healthz"] = time.monotonic() - start
        if READY in marks:
            break
        time.sleep(0.5)
    load_end = load()
    stopping = time.monotonic()
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=60)
    print(json.dumps({
        "stop_s": round(time.monotonic() - stopping, 1),
        "portal_answers_s": round(marks.get("healthz", -1), 1),
        "week_played_s": round(marks.get(WEEK_PLAYED, -1), 1),
        "reports_ready_s": round(marks.get(READY, -1), 1),
        "load_start": load_start, "load_end": load_end, "cpus": os.cpu_count(),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
