"""One reconcile: desired = render(db), observed = read(cluster), plan, apply, record."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.utils import timezone

from apps.queues.models import SyncObject
from apps.queues.reconcile import incremental
from apps.queues.reconcile import plan as p
from apps.queues.reconcile.apply import Outcome, apply
from apps.queues.reconcile.coordination import coordinator
from apps.queues.reconcile.desired import desired_objects, load_namespace_rules
from apps.queues.reconcile.foreign import foreign_cluster_queues
from apps.queues.reconcile.observe import busy_counts, observe, prune_candidates, status_counts
from apps.queues.services import reconcile_records
from apps.queues.user_usage import remember_reported_usage
from core.kube import KubeClient, KubeError
from core.observability import metrics


@dataclass
class Summary:
    """The JSON summary ``manage.py reconcile --once`` prints."""

    created: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    held: int = 0
    errors: list[dict] = field(default_factory=list)
    transient: bool = False

    def as_dict(self) -> dict:
        return {
            "created": self.created,
            "updated": self.updated,
            "deleted": self.deleted,
            "unchanged": self.unchanged,
            "held": self.held,
            "errors": self.errors,
        }


_COUNTED = {p.CREATE: "created", p.UPDATE: "updated", p.DELETE: "deleted", p.HOLD: "held"}


def compute_plan(client: KubeClient) -> list[p.Action]:
    """Read both sides and diff them; no writes anywhere."""
    return _plan(client, observe(client, settings.KUEUE_API_VERSION))


def _plan_noting_foreign_queues(client: KubeClient) -> list[p.Action]:
    """A full run's plan; it has read every ClusterQueue, so it also records the
    ones we do not manage (they reserve capacity too), and every LocalQueue, so it
    remembers the usage Kueue reports on each member's own."""
    observed = observe(client, settings.KUEUE_API_VERSION)
    reconcile_records.record_foreign_cluster_queues(
        foreign_cluster_queues(observed), seen_at=timezone.now()
    )
    remember_reported_usage(observed)  # for the team page
    return _plan(client, observed)


def _plan(client: KubeClient, observed: dict[p.Key, dict]) -> list[p.Action]:
    version = settings.KUEUE_API_VERSION
    desired = desired_objects()
    candidates = prune_candidates(desired, observed)
    busy = Counter(status_counts(observed, candidates))
    for key, count in busy_counts(client, version, candidates).items():
        busy[key] = max(busy[key], count)
    return p.plan(
        desired,
        observed,
        version=version,
        applied=_applied(),
        busy=busy,
        namespaces=load_namespace_rules(),
    )


def _applied() -> dict[p.Key, dict]:
    rows = SyncObject.objects.exclude(applied=None).values_list(
        "kind", "namespace", "name", "applied"
    )
    return {(kind, ns, name): applied for kind, ns, name, applied in rows}


def reconcile(*, trigger: str = "manual", client: KubeClient | None = None) -> Summary:
    """Converge the cluster on the policy once. Raises KubeError when it could not read."""
    fingerprint = incremental.catalog_fingerprint()
    return _run(trigger, client, _plan_noting_foreign_queues, fingerprint=fingerprint)


def reconcile_queues(queues, *, trigger: str, client: KubeClient | None = None) -> Summary:
    """The fast path: only these queues' ClusterQueue and LocalQueues (no pruning)."""
    return _run(trigger, client, lambda kube: incremental.compute_queue_plan(kube, queues))


def _run(trigger: str, client, make_plan, fingerprint: str = "") -> Summary:
    started, clock = timezone.now(), time.perf_counter()
    try:
        with client or KubeClient() as kube:
            outcomes = apply(kube, make_plan(kube), settings.KUEUE_API_VERSION)
    except KubeError as exc:
        reconcile_records.record_reconcile_failure(
            trigger=trigger, started_at=started, error=exc.describe()
        )
        metrics.record_reconcile_failure(trigger, time.perf_counter() - clock)
        raise
    summary = summarize(outcomes)
    drift = [o.action.kind for o in outcomes if o.ok and o.action.drift]
    metrics.record_reconcile(trigger, time.perf_counter() - clock, summary.errors, drift)
    reconcile_records.record_reconcile(
        outcomes,
        version=settings.KUEUE_API_VERSION,
        trigger=trigger,
        started_at=started,
        summary=summary.as_dict(),
        fingerprint=fingerprint,
    )
    return summary


def reconcile_changes(*, trigger: str) -> Summary:
    """After a policy commit: the fast path when only queues moved, else a full run."""
    if incremental.catalog_fingerprint() == incremental.last_clean_fingerprint():
        dirty = incremental.dirty_queues()
        if dirty:
            return reconcile_queues(dirty, trigger=trigger)
    return reconcile(trigger=trigger)


def summarize(outcomes: list[Outcome]) -> Summary:
    summary = Summary()
    for outcome in outcomes:
        action = outcome.action
        if not outcome.ok or action.verb == p.BLOCKED:
            summary.errors.append(_error(outcome))
            summary.transient |= bool(outcome.error and outcome.error.transient)
        elif action.verb == p.UNCHANGED:
            summary.unchanged += 1
        else:
            name = _COUNTED[action.verb]
            setattr(summary, name, getattr(summary, name) + 1)
    return summary


def _error(outcome: Outcome) -> dict:
    action = outcome.action
    message = outcome.error.describe() if outcome.error else action.message
    return {
        "kind": action.kind,
        "namespace": action.namespace,
        "name": action.name,
        "verb": action.verb,
        "message": message,
    }


def reconcile_exclusively(*, trigger: str) -> Summary | None:
    """Reconcile under the cross-worker lock; None when another run holds it."""
    coord = coordinator()
    with coord.exclusive() as acquired:
        if not acquired:
            return None
        # Cleared under the lock and before reading the policy: a change committed
        # from now on schedules a new run instead of being folded into this one.
        coord.clear_pending()
        if trigger == "change":
            return reconcile_changes(trigger=trigger)
        return reconcile(trigger=trigger)
