"""The replay input: recorded workloads as plain, frozen records (times in epoch ms).

Nothing here knows where the history came from; ``apps.whatif.recorded_trace`` builds
these from the reports tables, tests build them from an engine run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

GPU_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")


def is_gpu(resource: str) -> bool:
    return resource.startswith(GPU_PREFIXES)


@dataclass(frozen=True)
class PodSetSpec:
    """``count`` pods each asking for ``requests`` (resource → whole units)."""

    count: int
    requests: dict[str, int]
    node_selector: dict[str, str] = field(default_factory=dict)
    name: str = "main"


@dataclass(frozen=True)
class TraceWorkload:
    """One recorded workload: what it asked for, how long it ran, what it waited.

    ``work_ms`` is the run time it needs without interruptions (None: unknown, it
    then runs to the end of the replay). ``recorded_admit_ms`` is its first
    admission in the record (None: never admitted inside the window).
    ``recorded_runs`` are its recorded runs, (start, end) in ms, end None while it
    still runs (empty: not known, e.g. a trace made up in a test).
    """

    uid: str
    namespace: str
    name: str
    team: str
    queue: str
    priority: int
    created_ms: int
    pod_sets: tuple[PodSetSpec, ...]
    work_ms: int | None = None
    checkpoint_ms: int | None = None
    priority_class: str = ""
    recorded_admit_ms: int | None = None
    recorded_runs: tuple[tuple[int, int | None], ...] = ()

    @property
    def gpus(self) -> int:
        return sum(
            ps.count * amount
            for ps in self.pod_sets
            for resource, amount in ps.requests.items()
            if is_gpu(resource)
        )

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class Window:
    """The replayed period: metrics count workloads created in [start_ms, end_ms)."""

    start_ms: int
    end_ms: int

    @property
    def hours(self) -> float:
        return (self.end_ms - self.start_ms) / 3_600_000

    def contains(self, at_ms: int) -> bool:
        return self.start_ms <= at_ms < self.end_ms
