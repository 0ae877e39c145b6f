"""A queue page's "updated" is the later of its last policy edit and its last sync."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db.models import Max

from apps.queues.models import Queue, SyncObject
from apps.queues.reconcile.run import reconcile
from core.dates import format_when
from testkit.factories import quota, set_policy

pytestmark = pytest.mark.django_db

LONG_AGO = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)  # as if the queue was last edited then


def updated_line(client, queue) -> str:
    page = client.get(f"/queues/{queue.pk}/").content.decode()
    return page.split("· updated ", 1)[1].split("\n", 1)[0].strip()


def test_a_policy_edit_moves_updated(client, admin, queue):
    Queue.objects.filter(pk=queue.pk).update(updated_at=LONG_AGO)
    set_policy(queue, admin, quotas=[quota("h100", "12"), quota("a100", "8")])
    edited = Queue.objects.get(pk=queue.pk).updated_at
    assert edited > LONG_AGO
    client.force_login(admin)
    assert updated_line(client, queue) == format_when(edited)


def test_a_later_sync_wins_over_an_older_edit(cluster, client, admin, queue):
    assert reconcile(trigger="manual").errors == []
    Queue.objects.filter(pk=queue.pk).update(updated_at=LONG_AGO)
    synced = SyncObject.objects.filter(queue=queue).aggregate(at=Max("updated_at"))["at"]
    assert synced > LONG_AGO
    client.force_login(admin)
    assert updated_line(client, queue) == format_when(synced)
    assert format_when(LONG_AGO) not in updated_line(client, queue)
