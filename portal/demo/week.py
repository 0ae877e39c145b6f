"""The demo week behind a running portal, for `make run`'s first start.

The simulated cluster plays the generated week while it serves (``serve --seed-history``,
paced so the worker's history recorder watches every transition) and prints its
progress, one line per virtual hour. ``DemoWeek`` follows those lines on a thread: one
updating status line in the terminal (``portal.terminal``) and the progress record every
page shows (``portal.preparing``). When the week is done it backfills the week's GPU metrics into
Prometheus and starts it (when installed), runs ``manage.py finish_demo_week`` (wait for
the recorder, build the reports; it waits out a cluster that does not answer), removes
the record and calls ``on_ready`` (the launcher shows the URL and logins again). A marker file (``pending``) stays until that succeeded: a first start
stopped half-way is finished on the next start (``resume=True``: the reports of what was
played and recorded; no backfill). A cluster that stops mid-week (the launcher restarts it
from its snapshot, without the rest of the week) ends the week early the same way. If
``finish_demo_week`` fails for good the banner says so until the launcher stops.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO

from portal import preparing
from portal.demo import prometheus as demo_prometheus
from portal.terminal import Terminal

TITLE = "Preparing the demo week"
NOTE = "reports and what-if will be ready when it finishes"
FINISHING = preparing.Preparing(
    TITLE, "recording the last events and building the week's reports", 100, NOTE
)
FAILED_NOTE = "the terminal says why; the next make run tries again"
PROGRESS = re.compile(r"simcluster seeding: ([\d.]+) of ([\d.]+) days")
DONE = re.compile(r"simcluster seeded \d+ workloads")
BAR_WIDTH = 28
CLUSTER_BACK_SECONDS = 120  # a restarted cluster answers within seconds; then go on anyway


def progress(done: float, total: float) -> preparing.Preparing:
    """``day 3 of 7 (36 %)`` for 2.5 days out of 7."""
    share = 0.0 if total <= 0 else min(1.0, max(0.0, done / total))
    day = min(int(total), int(done) + 1) if total >= 1 else 1
    return preparing.Preparing(TITLE, f"day {day} of {total:g}", int(share * 100), NOTE)


def bar(record: preparing.Preparing) -> str:
    filled = round(BAR_WIDTH * record.percent / 100)
    return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {record}"


class DemoWeek:
    def __init__(
        self,
        lines: IO[str],
        *,
        sim_url: str,
        data_dir: Path,
        prometheus_work: Path,
        pending: Path,
        days: int,
        spawn: Callable[[str, list[str]], subprocess.Popen],
        resume: bool = False,
        terminal: Terminal | None = None,
        on_ready: Callable[[], None] = lambda: None,
    ) -> None:
        self.lines, self.sim_url, self.data_dir, self.days = lines, sim_url, data_dir, days
        self.spawn, self.pending, self.resume = spawn, pending, resume
        self.prometheus_work = prometheus_work
        self.terminal, self.on_ready = terminal or Terminal(), on_ready
        # Resumed, the launcher starts Prometheus itself (nothing is left to backfill).
        available = demo_prometheus.available() and not resume
        self.prometheus_port = demo_prometheus.free_port() if available else 0
        self.children: list[subprocess.Popen] = []
        self.ready = threading.Event()
        self.stopping = threading.Event()  # the launcher is stopping: start nothing more
        self._thread = threading.Thread(target=self._run, name="demo-week", daemon=True)

    @property
    def prometheus_url(self) -> str:
        return f"http://127.0.0.1:{self.prometheus_port}" if self.prometheus_port else ""

    def start(self) -> DemoWeek:
        self.pending.parent.mkdir(parents=True, exist_ok=True)
        self.pending.touch()  # until the reports are built, even across restarts
        first = FINISHING if self.resume else progress(0, self.days)
        preparing.write(self.data_dir, first)  # before the thread: no page misses it
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()

    def _run(self) -> None:
        if self.resume:
            self._say(
                "the first start stopped before the demo week was ready: building its reports"
            )
            self._finish()
        else:
            self._follow()
        for _rest in self.lines:  # keep the pipe drained; the cluster says little more
            pass

    def _follow(self) -> None:
        for line in self.lines:
            if match := PROGRESS.search(line):
                record = progress(float(match.group(1)), float(match.group(2)))
                preparing.write(self.data_dir, record)
                self.terminal.status(bar(record), record.percent)
            elif DONE.search(line):
                self._say(line.strip())  # "simcluster seeded 1234 workloads over 7 days"
                self._finish()
                return
        if not self.stopping.is_set():
            self._say(
                "the simulated cluster stopped before the week was played: reporting what was"
            )
            self._wait_for_cluster()  # the launcher restarts it; the backfill reads it
            self._finish()

    def _wait_for_cluster(self) -> None:
        """Until the cluster answers again, for at most ``CLUSTER_BACK_SECONDS``."""
        deadline = time.monotonic() + CLUSTER_BACK_SECONDS
        while time.monotonic() < deadline and not self.stopping.is_set():
            try:
                with urllib.request.urlopen(f"{self.sim_url}/version", timeout=5):
                    return
            except OSError:
                self.stopping.wait(1.0)

    def _finish(self) -> None:
        preparing.write(self.data_dir, FINISHING)
        if self.prometheus_port:
            self._start_prometheus()
        if self.stopping.is_set():
            return
        finish = self.spawn("reports", ["finish_demo_week", "--days", str(self.days)])
        self.children.append(finish)
        outcome = finish.wait()
        if outcome == 0:
            preparing.clear(self.data_dir)
            self.pending.unlink(missing_ok=True)
            self.ready.set()
            self._say("the demo week is ready: its reports and what-if are open")
            self.on_ready()
        elif not self.stopping.is_set():
            # Said on every page, not cleared: the reports are missing and people should know.
            failed = f"failed: finish_demo_week exited with code {outcome}"
            preparing.write(self.data_dir, preparing.Preparing(TITLE, failed, 100, FAILED_NOTE))
            self._say(f"{failed}; its output is in the log. The next start tries again.")

    def _start_prometheus(self) -> None:
        self._say("backfilling the week's GPU metrics into Prometheus…")
        try:
            demo_prometheus.backfill(self.sim_url, self.prometheus_work, self.days)
            process, url = demo_prometheus.start(
                self.sim_url, self.prometheus_work, port=self.prometheus_port
            )
        except (OSError, subprocess.CalledProcessError, SystemExit) as exc:
            self._say(f"Prometheus did not start ({exc}): reports mark GPU-metric panels missing")
            return
        self.children.append(process)
        self._say(f"Prometheus at {url}")

    def _say(self, text: str) -> None:
        """A message below the status line, which stays as it was last drawn."""
        self.terminal.end_status()
        self.terminal.say(text)
