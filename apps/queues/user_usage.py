"""Each member's recent usage in a queue fair between users, as Kueue reports it.

Kueue keeps a LocalQueue's decayed usage in
``status.fairSharing.admissionFairSharingStatus.consumedResources`` (with ``lastUpdate``).
A full reconcile lists every LocalQueue anyway; it remembers that status of the per-user
ones in the shared cache (``remember_reported_usage``), and the team page reads it from
there (``team_usage_rows``), so a page view costs the cluster nothing. A cluster that
does not fill the field (the simulated one) shows "not reported by the cluster".
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.utils import timezone
from redis.exceptions import RedisError

from apps.queues import kueue
from apps.queues.user_queues import user_local_queue_name

NOT_REPORTED = "not reported by the cluster"
log = logging.getLogger(__name__)


def reported_usage(local_queue: dict) -> dict | None:
    """``{"consumed": {resource: quantity}, "last_update": str}`` from a LocalQueue's
    status, or None when the cluster reports no Admission Fair Sharing status."""
    fair = ((local_queue.get("status") or {}).get("fairSharing") or {}).get(
        "admissionFairSharingStatus"
    )
    if not isinstance(fair, dict):
        return None
    consumed = fair.get("consumedResources") or {}
    return {"consumed": dict(sorted(consumed.items())), "last_update": fair.get("lastUpdate", "")}


def usage_text(reported: dict | None) -> str:
    """``nvidia.com/gpu 22m, cpu 0``: Kueue's quantities as it wrote them."""
    if reported is None:
        return NOT_REPORTED
    parts = [f"{resource} {amount}" for resource, amount in reported["consumed"].items()]
    return ", ".join(parts) or "none"


def _key() -> str:
    # Per cluster, as the live views: portals (or test clusters) sharing a Redis keep apart.
    return "user-usage:" + hashlib.sha256(settings.KUBECONFIG.encode()).hexdigest()[:12]


def remember_reported_usage(observed: dict) -> None:
    """Keep the reported usage of every per-user LocalQueue a full run has read."""
    usage = {
        f"{ns}/{name}": reported_usage(obj)
        for (kind, ns, name), obj in observed.items()
        if kind == kueue.LOCAL_QUEUE
        and ((obj.get("metadata") or {}).get("labels") or {}).get(kueue.USER_LABEL)
    }
    read_at = timezone.now().isoformat()
    try:
        caches["shared"].set(_key(), {"read_at": read_at, "usage": usage}, timeout=None)
    except (RedisError, OSError) as exc:  # a display aid: never a reason to fail the run
        log.warning("members' usage not remembered (%s)", exc)


@dataclass(frozen=True)
class UsageRow:
    queue: str
    namespace: str
    username: str
    local_queue: str
    usage: str
    last_update: str


def team_usage_rows(
    queues: list[str], namespaces: list[str], usernames: list[str], remembered: dict | None
) -> list[UsageRow]:
    """One row per queue fair between users × team namespace × member."""
    usage = (remembered or {}).get("usage") or {}
    rows = []
    for queue in queues:
        for namespace in namespaces:
            for username in usernames:
                name = user_local_queue_name(queue, username)
                reported = usage.get(f"{namespace}/{name}")
                last = reported["last_update"] if reported else ""
                rows.append(UsageRow(queue, namespace, username, name, usage_text(reported), last))
    return rows


def remembered_usage() -> dict | None:
    """What the last full run remembered (``read_at``, ``usage``), or None (also when
    the shared cache is down: the page then says "not reported")."""
    try:
        return caches["shared"].get(_key())
    except (RedisError, OSError) as exc:
        log.warning("members' usage unavailable (%s)", exc)
        return None
