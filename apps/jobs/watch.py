"""Notebook and job status as the cluster changes: a subscriber of the informer.

The informer (``informer/run.py``) watches all Workloads and the pods, StatefulSets and
Jobs carrying our labels, one stream each under its one lease and cursors, and hands
this module each batch of their events. From a batch it works out which notebooks and
jobs the events concern (the owner of a Workload, the label of a pod; and the queued
ones of a queue whose Workloads moved, since their positions did), re-reads just those
from the cluster (``cluster.observe_owners``) and records their status with the
periodic sync's own code (``cluster_sync.record_status``). Only then does the informer save the
cursors, so a crash in between only replays events, which recompute the same status.

A relist is a moment when anything may have changed unseen: it is followed by one
level-based pass over everything (``cluster_sync.sync_status``) instead of one recompute per
listed object. The periodic ``sync_jobs_status_task`` stays as the safety net (it
also re-creates objects whose creation task was lost), and covers what events do
not carry: headroom a cohort gained elsewhere, a gap between two runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.utils import timezone

from apps.jobs import cluster, cluster_sync
from apps.jobs.choices import JobState, NotebookState
from apps.jobs.manifests import JOB_LABEL, NOTEBOOK_LABEL
from apps.jobs.models import BatchJob, Notebook
from apps.queues.kueue import MANAGED_BY, MANAGER
from core.kube import KubeClient
from informer import objects
from informer.registry import JOB_PODS, WORKLOADS, Stream, Subscriber
from informer.run import LEASE, Delivery, Event, run_informer

__all__ = ["LEASE", "STREAMS", "SUBSCRIBER", "run_status_watch"]

_MANAGED = f"{MANAGED_BY}={MANAGER}"
STREAMS = (
    WORKLOADS,
    Stream("notebook-pods", lambda: cluster.POD, NOTEBOOK_LABEL),
    JOB_PODS,
    Stream("statefulsets", lambda: cluster.STATEFULSET, f"{_MANAGED},{NOTEBOOK_LABEL}"),
    Stream("jobs", lambda: cluster.JOB, f"{_MANAGED},{JOB_LABEL}"),
)


@dataclass
class Dirty:
    """What a batch of events concerns."""

    notebooks: set[tuple[str, str]] = field(default_factory=set)
    jobs: set[tuple[str, str]] = field(default_factory=set)
    queues: set[str] = field(default_factory=set)
    workloads: dict[str, dict] = field(default_factory=dict)  # uid → latest object
    relisted: bool = False

    def __bool__(self) -> bool:
        return bool(self.notebooks or self.jobs or self.queues or self.relisted)


def follow_status(delivery: Delivery) -> dict:
    """The subscriber: record the status of the notebooks and jobs a batch concerns.

    ``delivery.memo`` keeps, for the run, the Workloads seen (to name preemptors) and
    the preemptor UIDs already looked for.
    """
    dirty = Dirty()
    # The ADDED of a relist are skipped: its SYNCED starts a full pass anyway.
    events = [e for e in delivery.events if not (e.type == "ADDED" and e.listed)]
    for event in events:
        _concerns(event, dirty)
    stats = {"events": len(events), "recorded": 0, "full_syncs": 0}
    if dirty:
        _record(delivery, dirty, stats)
    return stats


def _record(delivery: Delivery, dirty: Dirty, stats: dict) -> None:
    client, now = delivery.client, timezone.now()
    known = delivery.memo.setdefault("known", {})  # workload uid → object
    known.update(dirty.workloads)
    if dirty.relisted:
        stats["full_syncs"] += 1
        counts = cluster_sync.sync_status(client, now=now)
    else:
        notebooks, jobs = _rows(dirty)
        if not notebooks and not jobs:
            return
        observed = cluster.observe_owners(
            client,
            notebooks={nb.name for nb in notebooks},
            jobs={job.name for job in jobs},
            workloads=list(dirty.workloads.values()),
        )
        _learn_preemptors(client, observed, known, delivery.memo.setdefault("looked_for", set()))
        counts = cluster_sync.record_status(
            client, observed, notebooks, jobs, now=now, workloads_by_uid=known
        )
    stats["recorded"] += counts["notebooks"] + counts["jobs"]


def _learn_preemptors(
    client: KubeClient, observed: cluster.Observed, known: dict, looked_for: set
) -> None:
    """A preemption names its preemptor by UID; read every Workload if one is new to us
    (once per UID: a preemptor that is gone stays unnamed, as in the periodic sync)."""
    wanted = set().union(*(objects.preemptor_uids(w) for w in observed.workloads))
    if wanted - known.keys() - looked_for:
        known.update({objects.uid(w): w for w in client.list(cluster.workload_ref())})
        looked_for |= wanted


def _concerns(event: Event, dirty: Dirty) -> None:
    """Note which notebooks, jobs and queues an event says something about."""
    if event.type == "SYNCED":
        dirty.relisted = True
        return
    if event.type not in ("ADDED", "MODIFIED", "DELETED"):
        return  # BOOKMARK: only a newer resourceVersion
    obj = event.obj
    namespace, name = objects.namespace_name(obj)
    labels = objects.labels(obj)
    if event.stream == WORKLOADS.name:
        owner_ns, owner_kind, owner = objects.owner_key(obj)
        target = {"StatefulSet": dirty.notebooks, "Job": dirty.jobs}.get(owner_kind)
        if target is not None:
            target.add((owner_ns, owner))
        if queue_name := objects.queue_name(obj):
            dirty.queues.add(queue_name)
        if event.type != "DELETED" and objects.uid(obj):
            dirty.workloads[objects.uid(obj)] = obj
    elif event.stream in ("notebook-pods", "statefulsets"):
        dirty.notebooks.add((namespace, labels.get(NOTEBOOK_LABEL) or name))
    else:
        dirty.jobs.add((namespace, labels.get(JOB_LABEL) or name))


def _rows(dirty: Dirty) -> tuple[list[Notebook], list[BatchJob]]:
    """The followed rows the events concern, read now (so with their current version)."""
    notebooks = cluster_sync.followed_notebooks().filter(name__in={n for _, n in dirty.notebooks})
    queued = cluster_sync.followed_notebooks().filter(
        state=NotebookState.QUEUED, pool__name__in=dirty.queues
    )
    jobs = cluster_sync.followed_jobs().filter(name__in={n for _, n in dirty.jobs})
    queued_jobs = cluster_sync.followed_jobs().filter(
        state=JobState.QUEUED, queue__name__in=dirty.queues
    )
    picked_nb = {nb.pk: nb for nb in notebooks if (nb.namespace, nb.name) in dirty.notebooks}
    picked_nb.update({nb.pk: nb for nb in queued if nb.pk not in picked_nb})
    picked_jobs = {j.pk: j for j in jobs if (j.namespace, j.name) in dirty.jobs}
    picked_jobs.update({j.pk: j for j in queued_jobs if j.pk not in picked_jobs})
    return list(picked_nb.values()), list(picked_jobs.values())


SUBSCRIBER = Subscriber(
    "job-status",
    follow_status,
    STREAMS,
    enabled=lambda: settings.QM_CLUSTER_SYNC and settings.QM_JOBS_WATCH,
)


def run_status_watch(*, seconds: float, stop=lambda: False) -> dict:
    """One informer run (every enabled subscriber), answered with status counters."""
    result = run_informer(seconds=seconds, stop=stop)
    if "skipped" in result:
        return result
    counters = dict.fromkeys(("events", "recorded", "full_syncs"), 0)
    return {**result, **counters, **result["subscribers"].get(SUBSCRIBER.name, {})}
