"""The demo's past week, played while the API server answers and paced by its watchers.

``serve --seed-history DAYS`` starts serving at once and plays the generated week on a
thread in virtual time (``demo.seed_history``). Every hour of virtual time it stops until
every open watch on Workloads has been sent everything written so far
(``WatchPositions.wait_until_seen``): a client that watches Workloads, such as the
portal's history recorder, sees each transition as it happens, preemptions and
re-admissions included, instead of only the end state. The wait needs nothing from the
client beyond an ordinary watch. Before the first hour it waits for a watcher to appear;
if none keeps up within ``wait_seconds`` the week plays on unpaced (a watcher that comes
later resumes from the server's event history as far as it reaches).

Progress goes to stdout, one line per virtual hour, for whoever started the server::

    simcluster seeding: 2.50 of 7 days
    simcluster seeded 1234 workloads over 7 days

When the week is done, ``on_done`` runs (the caller switches to the wall clock).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from simcluster.demo import DAY_MS, seed_history

WORKLOADS = ("kueue.x-k8s.io", "workloads")
PACE_EVERY_MS = 3_600_000


class Stopped(Exception):
    """The server stopped while the week was still being played."""


class LiveSeed:
    def __init__(
        self,
        controller: Any,
        days: float,
        *,
        seed: int,
        objects: list[dict],
        until_ms: int,
        on_done: Callable[[], None] = lambda: None,
        wait_seconds: float = 300.0,
    ) -> None:
        self.controller, self.days = controller, days
        self.seed, self.objects, self.until_ms = seed, objects, until_ms
        self.on_done, self.wait_seconds = on_done, wait_seconds
        self.start_ms = controller.clock.now_ms()
        self.paced = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="simcluster-seed", daemon=True)

    def start(self) -> LiveSeed:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            count = seed_history(
                self.controller, self.days, seed=self.seed, objects=self.objects,
                until_ms=self.until_ms, pace=self._pace, pace_every_ms=PACE_EVERY_MS,
            )  # fmt: skip
        except Stopped:
            return
        _say(f"simcluster seeded {count} workloads over {self.days:g} days")
        self.on_done()

    def _pace(self, now_ms: int) -> None:
        done = min(self.days, (now_ms - self.start_ms) / DAY_MS)
        _say(f"simcluster seeding: {done:.2f} of {self.days:g} days")
        if self.paced and not self._wait_for_watchers():
            self.paced = False
            print(
                f"simcluster: no Workload watch kept up within {self.wait_seconds:g} s; "
                "playing the rest of the week unpaced",
                file=sys.stderr,
                flush=True,
            )
        if self._stop.is_set():
            raise Stopped

    def _wait_for_watchers(self) -> bool:
        store = self.controller.store
        target = store.resource_version
        deadline = time.monotonic() + self.wait_seconds
        while not self._stop.is_set() and time.monotonic() < deadline:
            if store.watchers.wait_until_seen(WORKLOADS, target, timeout=0.5):
                return True
        return self._stop.is_set()


def _say(line: str) -> None:
    print(line, flush=True)
