"""Carry out a plan against the cluster, phase by phase.

Actions of one kind run concurrently; kinds run in dependency order (and in
reverse for deletes), so a LocalQueue is never created before its ClusterQueue.
Once the cluster is unreachable the rest of the plan is skipped with the same
error instead of waiting out a timeout per object.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.conf import settings

from apps.queues import kueue
from apps.queues.reconcile import plan as p
from apps.queues.reconcile.observe import ref
from core.kube import KubeClient, KubeError

CONFLICT_RETRIES = 3  # re-reads after a 409 within one run; the next run re-reads anyway
# The kinds Kueue writes too (their status), so a 409 is routine for them; any other
# kind's 409 waits for the next run, and the role grants no get for it.
RETRIED_KINDS = (kueue.CLUSTER_QUEUE, kueue.LOCAL_QUEUE)


@dataclass(frozen=True)
class Outcome:
    """What happened to one action: the object as written, or the error."""

    action: p.Action
    result: dict | None = None
    error: KubeError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def apply(client: KubeClient, actions: list[p.Action], version: str) -> list[Outcome]:
    outcomes: list[Outcome] = []
    unreachable = threading.Event()
    writes = [a for a in actions if a.writes]
    with ThreadPoolExecutor(max_workers=settings.QM_RECONCILE_CONCURRENCY) as pool:
        for _, phase in itertools.groupby(writes, key=p.phase):
            batch = list(phase)
            run = lambda action: _run_one(client, action, version, unreachable)  # noqa: E731
            outcomes += list(pool.map(run, batch))
    return outcomes + [Outcome(a) for a in actions if not a.writes]


def _run_one(client: KubeClient, action: p.Action, version: str, unreachable) -> Outcome:
    if unreachable.is_set():
        return Outcome(action, error=_skipped(action))
    try:
        return _write(client, action, version)
    except KubeError as exc:
        if exc.code == 0:
            unreachable.set()
        return Outcome(action, error=exc)


def _write(client: KubeClient, action: p.Action, version: str) -> Outcome:
    target = ref(action.kind, version)
    if action.verb == p.CREATE:
        return Outcome(action, result=client.create(target, action.desired))
    if action.verb == p.DELETE:
        client.delete(target, action.name, action.namespace)
        return Outcome(action)
    return _patch(client, target, action, version)


def _patch(client: KubeClient, target, action: p.Action, version: str) -> Outcome:
    """A conditional patch; on 409 the object is read again and the patch planned again.

    Kueue writes a ClusterQueue's status between our read and our patch all the
    time, and without this a quota change would wait for the next run.
    """
    attempt = 0
    while True:
        try:
            return Outcome(
                action, result=client.patch(target, action.name, action.patch, action.namespace)
            )
        except KubeError as exc:
            if exc.code != 409 or action.kind not in RETRIED_KINDS or action.desired is None:
                raise
            if attempt >= CONFLICT_RETRIES:
                raise
        attempt += 1
        live = client.get(target, action.name, action.namespace)
        action = p.replanned(action, live, version)
        if action.verb == p.CREATE:
            return Outcome(action, result=client.create(target, action.desired))
        if action.patch is None:
            return Outcome(action, result=live)  # already as we want it, or no longer ours


def _skipped(action: p.Action) -> KubeError:
    return KubeError(
        code=0,
        reason="Unreachable",
        message="skipped: the cluster stopped answering earlier in this run",
        verb=action.verb,
        resource=action.kind,
    )
