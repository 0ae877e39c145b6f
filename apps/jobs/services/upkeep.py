"""Notebook upkeep: cluster status, TTL expiry with a warning, and idle culling.

Called by the periodic tasks with the time (``now``) and the measurements passed in,
so tests drive them with any clock and any Prometheus data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.urls import reverse

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.jobs.services.common import SYSTEM, portal_url
from apps.jobs.services.notebooks import count_cull, stop_notebook, tell_owner_ended
from apps.notifications.choices import NotificationKind
from apps.notifications.services import notify
from core.dates import clamped, format_when


def mark_provisioned(notebook_id: int) -> bool:
    """REQUESTED → QUEUED once the cluster objects exist; False if it ended meanwhile."""
    return bool(
        Notebook.objects.filter(pk=notebook_id, state=NotebookState.REQUESTED).update(
            state=NotebookState.QUEUED, version=F("version") + 1
        )
    )


@dataclass(frozen=True)
class NotebookStatus:
    state: str
    reason: str = ""
    pending_reason: str = ""
    position: int | None = None
    workload_name: str = ""
    # When the pod became ready, as the cluster says (None: not known; then "now").
    ready_since: datetime | None = None


def apply_status(notebook: Notebook, status: NotebookStatus, *, now: datetime) -> bool:
    """Record what the cluster says, unless the notebook changed since it was read.

    Race: a user stops (or renews) the notebook while the sync computes its status
    from an older read; the UPDATE is conditional on the version the sync saw.
    """
    state = status.state
    if state == NotebookState.READY and notebook.state == NotebookState.EXPIRING:
        state = NotebookState.EXPIRING  # still ready; the expiry warning stands
    if state == NotebookState.FAILED:
        return stop_notebook(notebook, actor=SYSTEM, state=state, reason=status.reason, now=now)
    values = {
        "state": state,
        "pending_reason": status.pending_reason,
        "queue_position": status.position,
        "workload_name": status.workload_name or notebook.workload_name,
        "synced_at": now,
    }
    if state in NotebookState.running_values() and notebook.ready_at is None:
        # The pod's Ready time is the cluster's clock (the simulated cluster's virtual
        # time, or a skewed node); our record's times are ours: ready lies between the
        # row's creation and the read that saw it ready, never before it was created.
        ready = status.ready_since or now
        values["ready_at"] = clamped(ready, earliest=notebook.created_at, latest=now)
    unchanged = all(getattr(notebook, k) == v for k, v in values.items() if k != "synced_at")
    rows = Notebook.objects.followed().filter(pk=notebook.pk, version=notebook.version)
    if unchanged:
        return bool(rows.update(synced_at=now))
    return bool(rows.update(**values, version=F("version") + 1))


def expire_notebooks(*, now: datetime) -> dict[str, int]:
    """Warn notebooks close to their expiry (Expiring) and stop the expired ones."""
    stopped = 0
    for notebook in Notebook.objects.active().filter(expires_at__lte=now).select_related("team"):
        stopped += _expire(notebook, now)
    warned = 0
    active = Notebook.objects.active().filter(expiry_warned_at=None)
    for notebook in active.select_related("pool", "owner"):
        window = timedelta(minutes=notebook.pool.expiry_warning_minutes)
        if notebook.expires_at - window > now:
            continue
        warned += _warn_expiry(notebook, now)
    return {"warned": warned, "stopped": stopped}


@transaction.atomic
def _expire(notebook: Notebook, now: datetime) -> bool:
    reason = f"expired at {format_when(notebook.expires_at)}"
    stopped = stop_notebook(notebook, actor=SYSTEM, reason=reason, now=now)
    if stopped:
        count_cull("expired")
        tell_owner_ended(notebook, action="stopped")
    return stopped


@transaction.atomic
def _warn_expiry(notebook: Notebook, now: datetime) -> bool:
    # Race: a renewal between our read and this write must not be overwritten,
    # hence the condition on the expiry we read.
    rows = Notebook.objects.filter(
        pk=notebook.pk, expires_at=notebook.expires_at, expiry_warned_at=None
    )
    updates = {"expiry_warned_at": now, "version": F("version") + 1}
    if notebook.state in NotebookState.running_values():
        updates["state"] = NotebookState.EXPIRING
    if not rows.filter(state__in=NotebookState.active_values()).update(**updates):
        return False
    _tell_owner(
        notebook,
        action="stopped",
        reason="it reaches its time limit",
        # One warning per expiry: a renewal sets a new expiry, and so a new key.
        dedupe_key=f"notebook-expiring:{notebook.pk}:{notebook.expires_at.isoformat()}",
    )
    return True


def _tell_owner(notebook: Notebook, *, action: str, reason: str, dedupe_key: str) -> None:
    when = f"at {format_when(notebook.expires_at)}" if action == "stopped" else "soon"
    context = {
        "notebook": notebook.display_name or notebook.name,
        "when": when,
        "action": action,
        "reason": reason,
        "url": portal_url(reverse("jobs:notebook", args=[notebook.pk])),
    }
    notify(notebook.owner, NotificationKind.NOTEBOOK_EXPIRING, context, dedupe_key=dedupe_key)


@transaction.atomic
def cull_idle_notebooks(peak_utilization: dict[tuple[str, str], float], *, now: datetime) -> dict:
    """Warn, then cull, notebooks whose GPUs stayed under the pool's threshold.

    ``peak_utilization`` maps (namespace, pod) to the highest GPU utilisation (0–100)
    over the pool's idle window; a notebook without a reading is left alone (no data
    is not proof of idleness). A notebook is only judged once it has been ready for a
    whole window, and culled when still idle ``idle_grace_minutes`` after the warning.
    """
    warned = culled = cleared = 0
    running = Notebook.objects.filter(state__in=NotebookState.running_values())
    for notebook in running.select_related("pool", "team", "owner").order_by("pk"):
        pool = notebook.pool
        peak = peak_utilization.get((notebook.namespace, notebook.pod_name))
        judged = notebook.ready_at and notebook.ready_at <= now - timedelta(
            minutes=pool.idle_window_minutes
        )
        idle = peak is not None and judged and peak < pool.idle_threshold_percent
        rows = Notebook.objects.filter(pk=notebook.pk, version=notebook.version)
        if not idle:
            if notebook.idle_warned_at is not None:
                cleared += rows.update(idle_warned_at=None, version=F("version") + 1)
            continue
        if notebook.idle_warned_at is None:
            if rows.update(idle_warned_at=now, version=F("version") + 1):
                warned += 1
                grace = pool.idle_grace_minutes
                _tell_owner(
                    notebook,
                    action="culled",
                    reason=f"its GPUs peaked at {peak:.1f}% over the last "
                    f"{pool.idle_window_minutes} min; it is culled if still idle in {grace} min",
                    # One warning per idle episode: activity clears it, a new episode warns again.
                    dedupe_key=f"notebook-idle:{notebook.pk}:{now.isoformat()}",
                )
        elif notebook.idle_warned_at <= now - timedelta(minutes=pool.idle_grace_minutes):
            reason = (
                f"idle: GPU utilisation peaked at {peak:.1f}% over the last "
                f"{pool.idle_window_minutes} min (threshold {pool.idle_threshold_percent:g}%)"
            )
            if stop_notebook(
                notebook, actor=SYSTEM, state=NotebookState.CULLED, reason=reason, now=now
            ):
                culled += 1
                count_cull("idle")
                tell_owner_ended(notebook, action="culled")
    return {"warned": warned, "culled": culled, "cleared": cleared}
