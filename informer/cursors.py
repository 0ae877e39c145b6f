"""The informer's lease and resume cursors: the only writer of ``WatchCursor``."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import F, Q
from django.utils import timezone

from informer.models import WatchCursor


def cursor(name: str) -> WatchCursor:
    return WatchCursor.objects.get_or_create(name=name)[0]


def acquire_lease(name: str, owner: str, seconds: float) -> bool:
    """Take the lease unless another live owner holds it.

    Race: two task runs starting together both read an expired lease; the
    conditional UPDATE lets exactly one of them win (row count 1).
    """
    cursor(name)
    now = timezone.now()
    free = Q(lease_until__isnull=True) | Q(lease_until__lt=now) | Q(lease_owner=owner)
    won = WatchCursor.objects.filter(free, name=name).update(
        lease_owner=owner, lease_until=now + timedelta(seconds=seconds)
    )
    return won == 1


def release_lease(name: str, owner: str) -> None:
    WatchCursor.objects.filter(name=name, lease_owner=owner).update(
        lease_owner="", lease_until=None
    )


def save_cursor(name: str, resource_version: str, *, events: int = 0, relisted: bool = False):
    """Remember where to resume; ``events`` adds to the running count.

    ``updated_at`` is set by hand: ``auto_now`` does not apply to ``update()``, and the
    recorder-lag gauge reads it as "the last time the stream made progress".
    """
    changes: dict = {
        "resource_version": resource_version,
        "events_seen": F("events_seen") + events,
        "updated_at": timezone.now(),
    }
    if relisted:
        changes["last_relist_at"] = timezone.now()
    WatchCursor.objects.filter(name=name).update(**changes)


def last_progress(name: str):
    """When the stream ``name`` last saved its cursor (None before its first run)."""
    return WatchCursor.objects.filter(name=name).values_list("updated_at", flat=True).first()
