"""Keeps `make run`'s child processes alive: the process plumbing under ``restart_policy``.

Each ``Child`` is a name and a function that starts it. ``Supervisor.check`` notices a
child that exited, says so (name and exit code), and starts it again after the policy's
backoff; the others keep running meanwhile, so the web server goes on answering while
the worker comes back. A child the policy gives up on (it keeps dying fast), or one that
is not to be restarted, ends the watch with a message saying which and why.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from portal.restart_policy import RestartPolicy, decide

DEFAULT_POLICY = RestartPolicy()
POLL_SECONDS = 0.5
# How long each of the two stopping rounds waits before SIGKILL: Ctrl-C must leave
# nothing running within 10 s. The first (web, worker: a worker in a long task is killed
# at the end of it) is short, so the cluster has most of the time to save its snapshot
# (encoded under the store's lock without a deep copy first; cut short, the last periodic
# one, at most 30 s old, stays: its snapshots are written atomically).
STOP_SECONDS = 3.0
STOP_LAST_SECONDS = 5.5


@dataclass
class Child:
    name: str
    start: Callable[[], subprocess.Popen]
    restart: bool = True  # False: its death stops everything (it cannot be resumed)
    process: subprocess.Popen | None = None  # None: ``Supervisor.add`` starts it
    stop_last: bool = False  # stopped after all the others (the cluster)
    deaths: list[float] = field(default_factory=list)
    restart_at: float | None = None


def describe_exit(code: int | None) -> str:
    """``exit code 1``, ``exit code -9 (SIGKILL)``, or why there is none."""
    if code is None:
        return "no exit code (it did not start)"
    if code < 0:
        return f"exit code {code} ({signal.Signals(-code).name})"
    return f"exit code {code}"


class Supervisor:
    def __init__(
        self,
        policy: RestartPolicy = DEFAULT_POLICY,
        *,
        say: Callable[[str], None] = print,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy, self.say, self.clock = policy, say, clock
        self.children: list[Child] = []

    def add(self, child: Child) -> Child:
        """Watch ``child`` from now on, starting it first unless it runs already (a
        failure to start it raises)."""
        if child.process is None:
            child.process = child.start()
        self.children.append(child)
        return child

    def run(self, should_stop: Callable[[], bool]) -> str | None:
        """Watch until ``should_stop()`` (None) or until a child is given up on (why)."""
        while not should_stop():
            if failure := self.check():
                return failure
            time.sleep(POLL_SECONDS)
        return None

    def check(self) -> str | None:
        """One look at every child: restart what is due; why to stop, if anything."""
        for child in self.children:
            if failure := self._look_at(child):
                return failure
        return None

    def _look_at(self, child: Child) -> str | None:
        if child.restart_at is None and child.process and child.process.poll() is not None:
            return self._died(child, child.process.returncode)
        if child.restart_at is not None and self.clock() >= child.restart_at:
            return self._restart(child)
        return None

    def stop(self, also: list[subprocess.Popen] = ()) -> None:
        """Stop every child, and ``also`` (processes nobody watches) with the first round;
        the ``stop_last`` ones after the others are gone."""
        first = [c.process for c in self.children if c.process and not c.stop_last]
        stop_processes([*first, *also])
        last = [c.process for c in self.children if c.process and c.stop_last]
        stop_processes(last, grace=STOP_LAST_SECONDS)

    def _died(self, child: Child, code: int | None) -> str | None:
        if child.process is not None:
            _kill_leftovers(child.process)
        child.deaths.append(self.clock())
        exited = f"{child.name} exited with {describe_exit(code)}"
        if not child.restart:
            return f"{exited}; it is not restarted: stopping everything"
        decision = decide(child.deaths, self.policy)
        if not decision.restart:
            return (
                f"{exited}: {decision.recent_deaths} deaths within "
                f"{self.policy.window_seconds:g} s, giving up on it and stopping everything"
            )
        self.say(f"{exited}; restarting it in {decision.delay_seconds:g} s")
        child.restart_at = self.clock() + decision.delay_seconds
        return None

    def _restart(self, child: Child) -> str | None:
        child.restart_at = None
        try:
            child.process = child.start()
        except (OSError, subprocess.SubprocessError, SystemExit) as exc:
            self.say(f"{child.name} did not start again: {exc}")
            child.process = None
            return self._died(child, None)
        self.say(f"{child.name} restarted (pid {child.process.pid})")
        return None


def _kill_leftovers(process: subprocess.Popen) -> None:
    """A leader killed outright leaves its own children (pool processes, embedded beat)
    behind in its process group; they must not run on beside its replacement."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(process.pid, signal.SIGKILL)


def stop_processes(processes: list[subprocess.Popen], grace: float = STOP_SECONDS) -> None:
    """SIGTERM all at once (a leader shuts its own children down), then wait for them
    together: SIGKILL what outlives ``grace`` seconds."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill_leftovers(process)
            process.wait()
