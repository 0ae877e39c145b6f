"""Notebook and job status as the cluster changes: bounded list + watch runs, resumed.

Design (the history recorder's, ``apps/reports/recorder.py``): a run of
``watch_jobs_status_task`` lasts ``QM_JOBS_WATCH_SECONDS`` and queues the next one;
beat starts one every ``QM_JOBS_WATCH_SECONDS`` + 5 s in case that chain broke. A run
takes a lease (so runs never overlap) and watches five streams, one thread each, from the
resourceVersion each stream saved last time (``portal.watching.ResumableWatch``
lists first when there is none, on 410 Gone and every ``QM_RECORDER_RELIST_SECONDS``):
all Workloads, the pods, StatefulSets and Jobs carrying our labels. The run's own
thread takes the events in small batches, works out which notebooks and jobs they
concern (the owner of a Workload, the label of a pod; and the queued ones of a queue
whose Workloads moved, since their positions did), re-reads just those from the
cluster (``cluster.observe_owners``) and records their status with the periodic
sync's own code (``sync.record_status``). Then it saves each stream's cursor. A
crash between the two only replays events, which recompute the same status.

A relist is a moment when anything may have changed unseen: it is followed by one
level-based pass over everything (``sync.sync_status``) instead of one recompute per
listed object. The periodic ``sync_jobs_status_task`` stays as the safety net (it
also re-creates objects whose creation task was lost), and covers what events do
not carry: headroom a cohort gained elsewhere, a gap between two runs.
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from django.conf import settings
from django.utils import timezone

from apps.jobs import cluster, sync
from apps.jobs.choices import JobState, NotebookState
from apps.jobs.manifests import JOB_LABEL, NOTEBOOK_LABEL
from apps.jobs.models import BatchJob, Notebook
from apps.queues.kueue import MANAGED_BY, MANAGER
from apps.reports.services.history import acquire_lease, cursor, release_lease, save_cursor
from informer import objects
from portal.kube import KubeClient, KubeError, ResourceRef
from portal.watching import ResumableWatch

logger = logging.getLogger(__name__)
LEASE = "jobs-status"
# Events arriving this close together are recorded together.
BATCH_SECONDS = 0.05
BATCH_MAX = 500


@dataclass(frozen=True)
class Stream:
    name: str
    ref: Callable[[], ResourceRef]
    selector: str = ""

    @property
    def cursor(self) -> str:
        return f"{LEASE}:{self.name}"


_MANAGED = f"{MANAGED_BY}={MANAGER}"
STREAMS = (
    Stream("workloads", cluster.workload_ref),
    Stream("notebook-pods", lambda: cluster.POD, NOTEBOOK_LABEL),
    Stream("job-pods", lambda: cluster.POD, JOB_LABEL),
    Stream("statefulsets", lambda: cluster.STATEFULSET, f"{_MANAGED},{NOTEBOOK_LABEL}"),
    Stream("jobs", lambda: cluster.JOB, f"{_MANAGED},{JOB_LABEL}"),
)
_END = "END"


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


def run_status_watch(*, seconds: float, stop: Callable[[], bool] = lambda: False) -> dict:
    """Follow the cluster for ``seconds``; returns counters for the task result."""
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    if not acquire_lease(LEASE, owner, seconds + 60):
        return {"skipped": "another status watch holds the lease"}
    try:
        return _Run(seconds, stop).follow()
    finally:
        release_lease(LEASE, owner)


class _Run:
    def __init__(self, seconds: float, stop: Callable[[], bool]):
        self.deadline = time.monotonic() + seconds
        self.halt = threading.Event()
        self.stop = lambda: stop() or self.halt.is_set()
        self.events: queue.Queue = queue.Queue()
        self.known: dict[str, dict] = {}  # workload uid → object, to name preemptors
        self.looked_for: set[str] = set()
        self.stats = {"events": 0, "batches": 0, "recorded": 0, "full_syncs": 0, "errors": []}

    def follow(self) -> dict:
        pumps = [self._start(stream) for stream in STREAMS]
        try:
            with KubeClient() as client:
                open_streams = len(pumps)
                while open_streams:
                    batch = self._next_batch()
                    open_streams -= sum(1 for item in batch if item[1] == _END)
                    self._apply(client, batch)
        finally:
            self.halt.set()
            for pump in pumps:
                pump.join(timeout=30)
        return self.stats

    # ----- the watch threads -------------------------------------------------------

    def _start(self, stream: Stream) -> threading.Thread:
        saved = cursor(stream.cursor).resource_version
        thread = threading.Thread(
            target=self._pump, args=(stream, saved), name=f"watch-{stream.name}", daemon=True
        )
        thread.start()
        return thread

    def _pump(self, stream: Stream, saved: str) -> None:
        """Feed one stream's events into the queue (no database access in this thread)."""
        try:
            with KubeClient() as kube:
                watch = ResumableWatch(
                    kube,
                    stream.ref(),
                    resource_version=saved,
                    deadline=self.deadline,
                    relist_every=settings.QM_RECORDER_RELIST_SECONDS,
                    label_selector=stream.selector,
                    stop=self.stop,
                )
                for kind, obj in _skip_listed(watch):
                    self.events.put((stream, kind, obj, watch.resource_version))
        except KubeError as exc:  # permanent (403, 404): transient ones are retried inside
            self.events.put((stream, "ERROR", {"error": exc.describe()}, ""))
        except Exception as exc:  # a bug must end this stream, not leave the run waiting
            logger.exception("status watch of %s failed", stream.name)
            self.events.put((stream, "ERROR", {"error": repr(exc)}, ""))
        finally:
            self.events.put((stream, _END, {}, ""))

    def _next_batch(self) -> list[tuple]:
        batch = [self.events.get()]
        while len(batch) < BATCH_MAX:
            try:
                batch.append(self.events.get(timeout=BATCH_SECONDS))
            except queue.Empty:
                break
        return batch

    # ----- the run's thread: events → status -------------------------------------------

    def _apply(self, client: KubeClient, batch: list[tuple]) -> None:
        dirty = Dirty()
        cursors: dict[Stream, tuple[str, int]] = {}
        for stream, kind, obj, rv in batch:
            if kind == "ERROR":
                self.stats["errors"].append(f"{stream.name}: {obj['error']}")
            elif kind != _END:
                self.stats["events"] += 1
                _concerns(stream, kind, obj, dirty)
                if rv:
                    cursors[stream] = (rv, cursors.get(stream, ("", 0))[1] + 1)
        if dirty:
            self._record(client, dirty)
        for stream, (rv, count) in cursors.items():
            save_cursor(stream.cursor, rv, events=count, relisted=dirty.relisted)
        self.stats["batches"] += 1

    def _record(self, client: KubeClient, dirty: Dirty) -> None:
        now = timezone.now()
        self.known.update(dirty.workloads)
        if dirty.relisted:
            self.stats["full_syncs"] += 1
            counts = sync.sync_status(client, now=now)
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
            self._learn_preemptors(client, observed)
            counts = sync.record_status(
                client, observed, notebooks, jobs, now=now, workloads_by_uid=self.known
            )
        self.stats["recorded"] += counts["notebooks"] + counts["jobs"]

    def _learn_preemptors(self, client: KubeClient, observed: cluster.Observed) -> None:
        """A preemption names its preemptor by UID; read every Workload if one is new to us
        (once per UID: a preemptor that is gone stays unnamed, as in the periodic sync)."""
        wanted = set().union(*(objects.preemptor_uids(w) for w in observed.workloads))
        if wanted - self.known.keys() - self.looked_for:
            self.known.update(
                {w["metadata"]["uid"]: w for w in client.list(cluster.workload_ref())}
            )
            self.looked_for |= wanted


def _skip_listed(watch: ResumableWatch) -> Iterator[tuple[str, dict]]:
    """Events, without the ADDED ones of a relist (its SYNCED starts a full pass anyway)."""
    relists = watch.relists
    for kind, obj in watch:
        if kind == "ADDED" and watch.relists != relists:
            continue
        if kind == "SYNCED":
            relists = watch.relists
        yield kind, obj


def _concerns(stream: Stream, kind: str, obj: dict, dirty: Dirty) -> None:
    """Note which notebooks, jobs and queues an event says something about."""
    if kind == "SYNCED":
        dirty.relisted = True
        return
    if kind not in ("ADDED", "MODIFIED", "DELETED"):
        return  # BOOKMARK: only a newer resourceVersion
    meta = obj.get("metadata") or {}
    namespace, labels = meta.get("namespace", ""), meta.get("labels") or {}
    if stream.name == "workloads":
        owner_ns, owner_kind, owner = objects.owner_key(obj)
        target = {"StatefulSet": dirty.notebooks, "Job": dirty.jobs}.get(owner_kind)
        if target is not None:
            target.add((owner_ns, owner))
        if queue_name := objects.queue_name(obj):
            dirty.queues.add(queue_name)
        if kind != "DELETED" and meta.get("uid"):
            dirty.workloads[meta["uid"]] = obj
    elif stream.name in ("notebook-pods", "statefulsets"):
        dirty.notebooks.add((namespace, labels.get(NOTEBOOK_LABEL) or meta.get("name", "")))
    else:
        dirty.jobs.add((namespace, labels.get(JOB_LABEL) or meta.get("name", "")))


def _rows(dirty: Dirty) -> tuple[list[Notebook], list[BatchJob]]:
    """The followed rows the events concern, read now (so with their current version)."""
    notebooks = sync.followed_notebooks().filter(name__in={n for _, n in dirty.notebooks})
    queued = sync.followed_notebooks().filter(
        state=NotebookState.QUEUED, pool__name__in=dirty.queues
    )
    jobs = sync.followed_jobs().filter(name__in={n for _, n in dirty.jobs})
    queued_jobs = sync.followed_jobs().filter(state=JobState.QUEUED, queue__name__in=dirty.queues)
    picked_nb = {nb.pk: nb for nb in notebooks if (nb.namespace, nb.name) in dirty.notebooks}
    picked_nb.update({nb.pk: nb for nb in queued if nb.pk not in picked_nb})
    picked_jobs = {j.pk: j for j in jobs if (j.namespace, j.name) in dirty.jobs}
    picked_jobs.update({j.pk: j for j in queued_jobs if j.pk not in picked_jobs})
    return list(picked_nb.values()), list(picked_jobs.values())
