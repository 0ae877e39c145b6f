"""Waiting until the history recorder has seen everything the cluster has done so far.

Used after the demo week: its reports are built only once the recorder, which watched the
week as it was played, has stored the last of it. "Seen" means the recorder's saved
cursor has reached the newest resourceVersion among the Workloads listed now. Kubernetes
calls resourceVersions opaque; etcd's (and the simulated cluster's) are revision numbers,
so they are compared as integers, and a cluster whose versions are not numbers gets one
bounded recorder pass instead.
"""

from __future__ import annotations

import time

from django.conf import settings

from apps.reports.recorder import CURSOR, run_recorder
from core.kube import KubeClient
from informer.cursors import cursor
from informer.kinds import workload_ref

POLL_SECONDS = 1.0


def newest_workload_version(kube: KubeClient) -> int | None:
    items, _rv = kube.list_with_version(workload_ref())
    versions = [(i.get("metadata") or {}).get("resourceVersion", "") for i in items]
    if not all(v.isdigit() for v in versions):
        return None
    return max((int(v) for v in versions), default=0)


def recorded_version() -> int:
    saved = cursor(CURSOR).resource_version
    return int(saved) if saved.isdigit() else 0


def wait_for_history(kube: KubeClient, *, timeout: float) -> bool:
    """Block until the recorder has stored every Workload change made so far; False at the
    deadline. When the worker's recorder is not running (its lease is free), record here."""
    target = newest_workload_version(kube)
    if target is None:
        run_recorder(seconds=min(timeout, settings.QM_INFORMER_WATCH_SECONDS), kube=kube)
        return True
    deadline = time.monotonic() + timeout
    while recorded_version() < target:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        outcome = run_recorder(seconds=min(remaining, 5.0), kube=kube)
        if "skipped" in outcome:  # the worker's recorder holds the lease: let it work
            time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
    return True
