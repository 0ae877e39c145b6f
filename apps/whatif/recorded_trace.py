"""Adapter: the reports app's recorded history as replay input.

The only module of this app that reads the reports' history tables; a change to them
should touch this file alone (the what-if's prices come from ``apps.reports.prices``). Per workload it derives the work a job needs
(its last run, plus what checkpoints saved of earlier, preempted runs), its
checkpoint interval (the shortest gap seen between a run's start and its
checkpoints), and its first admission.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from apps.queues.models import FlavorCapacity, ResourceFlavor
from apps.reports.models import WorkloadRecord
from apps.whatif.replay.trace import PodSetSpec, TraceWorkload, is_gpu
from informer.workload import Transition

RUN_STARTS = (Transition.ADMITTED, Transition.QUOTA_RESERVED)
RUN_ENDS = (Transition.EVICTED, Transition.FINISHED, Transition.DELETED)


def ms(at: datetime | None) -> int | None:
    return None if at is None else round(at.timestamp() * 1000)


@dataclass(frozen=True)
class FlavorInfo:
    """What a flavor means for replay: its GPU resource name and node labels."""

    resource: str
    node_labels: dict[str, str]


def flavor_info() -> dict[str, FlavorInfo]:
    labels = dict(ResourceFlavor.objects.values_list("name", "node_labels"))
    info = {}
    for flavor, resource in FlavorCapacity.objects.values_list("flavor__name", "resource"):
        if is_gpu(resource):
            info[flavor] = FlavorInfo(resource, labels.get(flavor) or {})
    return info


def load_trace(start: datetime, end: datetime) -> list[TraceWorkload]:
    """Workloads alive at some moment of [start, end), as replay input."""
    flavors = flavor_info()
    records = (
        WorkloadRecord.objects.overlapping(start, end)
        .filter(created_at__lt=end)
        .prefetch_related("transitions")
    )
    trace = []
    for record in records.iterator(chunk_size=2000):
        workload = trace_workload(record, list(record.transitions.all()), flavors)
        if workload is not None:
            trace.append(workload)
    return trace


def trace_workload(
    record, transitions: list, flavors: dict[str, FlavorInfo]
) -> TraceWorkload | None:
    """One record and its transitions as a ``TraceWorkload`` (None: no GPUs, nothing to replay)."""
    pod_set = _pod_set(record, flavors)
    if pod_set is None:
        return None
    runs = _runs(transitions)
    return TraceWorkload(
        uid=record.uid,
        namespace=record.namespace,
        name=record.name,
        team=record.team_slug,
        queue=record.local_queue,
        priority=record.priority,
        priority_class=record.priority_class,
        created_ms=ms(record.created_at),
        pod_sets=(pod_set,),
        work_ms=_work(runs),
        checkpoint_ms=_checkpoint_interval(runs),
        recorded_admit_ms=ms(record.first_admitted_at),
        recorded_runs=tuple((run.start, run.end) for run in runs),
    )


def _pod_set(record, flavors: dict[str, FlavorInfo]) -> PodSetSpec | None:
    if record.gpus <= 0:
        return None
    pods = max(1, record.pod_count)
    flavor = next(iter(record.gpus_by_flavor or {}), None)
    info = flavors.get(flavor) if flavor else None
    resource = info.resource if info else "nvidia.com/gpu"
    # The pods' own selector lets flavor assignment choose as Kueue did: a job with
    # none that got a100 may have reclaimed h100 on the way (docs/benchmarks.md, "A
    # generated busy week"). Not recorded: pinned to the flavor it got.
    if record.node_selector is not None:
        selector = dict(record.node_selector)
    else:
        selector = dict(info.node_labels) if info else {}
    return PodSetSpec(
        count=pods, requests={resource: max(1, record.gpus // pods)}, node_selector=selector
    )


@dataclass
class _Run:
    start: int
    end: int | None = None
    end_type: str = ""
    checkpoints: tuple[int, ...] = ()


def _runs(transitions: list) -> list[_Run]:
    runs: list[_Run] = []
    for step in sorted(transitions, key=lambda t: t.at):
        at = ms(step.at)
        current = runs[-1] if runs and runs[-1].end is None else None
        if step.type in RUN_STARTS and current is None:
            runs.append(_Run(start=at))
        elif step.type == Transition.CHECKPOINT and current is not None:
            current.checkpoints += (at,)
        elif step.type in RUN_ENDS and current is not None:
            current.end, current.end_type = at, step.type
        elif step.type == Transition.FINISHED and runs and runs[-1].end_type == Transition.EVICTED:
            # Finished after an eviction, before any new admission: the job completed
            # while its pods were stopping (Kueue marks it Finished), so that run was
            # its last and its work is done; it must not run again to the window's end.
            runs[-1].end_type = Transition.FINISHED
    return runs


def _work(runs: list[_Run]) -> int | None:
    """Uninterrupted run time needed: the last run plus work saved by earlier checkpoints.

    None while the last run has not ended (or ended in an eviction): the replay then
    lets it run to the end of the window.
    """
    if not runs or runs[-1].end is None or runs[-1].end_type == Transition.EVICTED:
        return None
    saved = sum(max(run.checkpoints) - run.start for run in runs[:-1] if run.checkpoints)
    return runs[-1].end - runs[-1].start + saved


def _checkpoint_interval(runs: list[_Run]) -> int | None:
    gaps = []
    for run in runs:
        marks = (run.start, *sorted(run.checkpoints))
        gaps += [b - a for a, b in zip(marks, marks[1:], strict=False) if b > a]
    return min(gaps) if gaps else None


def first_admissions(uids: set[str]) -> dict[str, datetime]:
    """First admission time of each recorded workload among ``uids`` (if admitted)."""
    rows = WorkloadRecord.objects.filter(uid__in=uids, first_admitted_at__isnull=False)
    return dict(rows.values_list("uid", "first_admitted_at"))
