"""What happened, kept for metrics: GPU runs, admission waits, queue gauges.

``/metrics`` reads the current values; ``metrics-history`` replays the same
records over a past interval, so live scrapes and backfilled history agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class GpuRun:
    """One device held by one pod container from ``start_ms`` to ``end_ms`` (None = still).

    ``owner_kind``/``owner_name``: the pod's controller (ownerReferences), as
    kube-state-metrics' ``kube_pod_owner`` reports it (``<none>`` for a bare pod).
    """

    namespace: str
    pod: str
    container: str
    node: str
    resource: str
    slot: int
    start_ms: int
    utilization: str
    end_ms: int | None = None
    owner_kind: str = "<none>"
    owner_name: str = "<none>"


@dataclass
class PodWait:
    """A pod of an admitted Workload that no node could take (PodScheduled=False,
    Unschedulable) from ``start_ms`` to ``end_ms``, asking ``units`` of ``resource``."""

    namespace: str
    pod: str
    container: str
    resource: str
    units: int
    start_ms: int
    end_ms: int | None = None
    owner_kind: str = "<none>"
    owner_name: str = "<none>"


@dataclass
class Recorder:
    runs: list[GpuRun] = field(default_factory=list)
    open: dict[tuple[str, str], list[GpuRun]] = field(default_factory=dict)
    unschedulable: list[PodWait] = field(default_factory=list)
    open_waits: dict[tuple[str, str], list[PodWait]] = field(default_factory=dict)
    waits: list[tuple[int, str, str, float]] = field(default_factory=list)
    gauges: dict[tuple[str, tuple[tuple[str, str], ...]], list[tuple[int, float]]] = field(
        default_factory=dict
    )

    def start(self, runs: list[GpuRun]) -> None:
        for run in runs:
            self.runs.append(run)
            self.open.setdefault((run.namespace, run.pod), []).append(run)

    def wait(self, waits: list[PodWait]) -> None:
        for item in waits:
            if any(
                w.resource == item.resource
                for w in self.open_waits.get((item.namespace, item.pod), ())
            ):
                continue  # already waiting
            self.unschedulable.append(item)
            self.open_waits.setdefault((item.namespace, item.pod), []).append(item)

    def end(self, namespace: str, pod: str, at_ms: int) -> None:
        """The pod stopped holding devices, or stopped waiting for a node (placed or gone)."""
        for run in self.open.pop((namespace, pod), []):
            run.end_ms = at_ms
        for item in self.open_waits.pop((namespace, pod), []):
            item.end_ms = at_ms

    def running(self) -> list[GpuRun]:
        return [run for runs in self.open.values() for run in runs]

    def observe_wait(
        self, at_ms: int, cluster_queue: str, priority_class: str, seconds: float
    ) -> None:
        self.waits.append((at_ms, cluster_queue, priority_class, seconds))

    def gauge(self, at_ms: int, name: str, labels: dict[str, str], value: float) -> None:
        """Record a step-function point, only when the value changes."""
        points = self.gauges.setdefault((name, tuple(sorted(labels.items()))), [])
        if not points or points[-1][1] != value:
            points.append((at_ms, value))
