"""How long Kueue's own work takes: scheduling cycles, API writes, finish detection.

The engine's default is a controller with no latency: every instant is scheduled
to a fixed point and a decision takes effect at once. That is right for the
live simulated cluster and for what-if replays on a 30 s grid, but not for a
harness whose numbers are dominated by the controller itself, such as Kueue's
scheduler-performance test (bench/kueue_baseline.py, docs/benchmarks.md).
A ``Latency`` with any pacing field set makes the simulation run Kueue's
scheduling loop instead: one cycle at a time over all ClusterQueues, one head
per ClusterQueue per cycle, each cycle lasting ``cycle_ms`` plus the
synchronous writes it made.

Writes go through one client with a client-side rate limit, as Kueue's manager
does (client-go's token bucket: ``api_qps`` tokens a second, at most
``api_burst`` saved). Which writes block the cycle follows Kueue's
``pkg/scheduler/scheduler.go``: an admission is applied in a goroutine (the
cycle goes on; the workload's job starts when the write has landed), while a
preemption's eviction patches are made while the cycle walks its heads and the
changed statuses of the heads it sent back after the walk; the cycle ends when
the last of those has landed. The limiter serves writes first come, first served.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ADMIT, EVICT, PENDING = "admit", "evict", "pending"
"""The writes a cycle makes (``Cluster.writes``); only ``ADMIT`` is asynchronous."""


@dataclass(frozen=True, slots=True)
class Latency:
    """Named delays of a Kueue controller; all zero is the engine's default (none).

    ``cycle_ms``: the scheduler's own time per cycle (snapshot, nomination,
    ordering) besides its writes.
    ``api_qps`` / ``api_burst``: the client-side rate limit of the controller's
    API writes (0: unlimited).
    ``write_ms``: how long one write takes once the rate limiter lets it go.
    ``finish_ms``: from the end of a workload's run to Kueue releasing its quota
    (the job's controller marking it finished and Kueue's watch seeing that).
    """

    cycle_ms: int = 0
    api_qps: float = 0.0
    api_burst: int = 1
    write_ms: int = 0
    finish_ms: int = 0

    def __post_init__(self) -> None:
        for name in ("cycle_ms", "api_qps", "write_ms", "finish_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if self.api_burst < 1:
            raise ValueError("api_burst must be at least 1")

    @property
    def paced(self) -> bool:
        """Whether scheduling runs cycle by cycle in virtual time."""
        return bool(self.cycle_ms or self.api_qps or self.write_ms)


NO_LATENCY = Latency()


class ApiClient:
    """A token bucket that hands out writes in the order they are asked for.

    Like golang.org/x/time/rate's reservations (which client-go uses): a write
    asked for when no token is left waits until one has accrued, and later
    writes queue behind it.
    """

    def __init__(self, latency: Latency):
        self.qps, self.burst, self.write_ms = latency.api_qps, latency.api_burst, latency.write_ms
        self.tokens = float(self.burst)
        self.last_ms: int | None = None

    def reserve(self, now_ms: int) -> int:
        """Ask for one write at ``now_ms``; return when it has landed."""
        if not self.qps:
            return now_ms + self.write_ms
        if self.last_ms is not None:
            accrued = (now_ms - self.last_ms) * self.qps / 1000
            self.tokens = min(float(self.burst), self.tokens + accrued)
        self.last_ms = now_ms
        self.tokens -= 1
        wait = 0 if self.tokens >= 0 else math.ceil(-self.tokens * 1000 / self.qps - 1e-9)
        return now_ms + wait + self.write_ms
