"""The sweep fails a run whose replay a worker took and stopped stamping, once, with an
audit row, and shows why on the page and in the API; waiting replays are left alone."""

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from apps.queues.models import AuditEntry
from apps.whatif import runs, services
from apps.whatif.choices import RunStatus
from apps.whatif.models import WhatIfRun
from testkit.clients import api_as

pytestmark = pytest.mark.django_db


@pytest.fixture
def running(queue, other_queue, admin):
    run = services.request_whatif({"vision": {"fair_weight": "2"}}, actor=admin)
    services.plan_replays(run, runs.replay_keys(run))
    return run


def _later(seconds: float) -> datetime:
    return timezone.now() + timedelta(seconds=seconds)


def test_a_replay_whose_heartbeat_stopped_fails_its_run(running, admin, client, settings):
    key = running.replays.first().key
    services.stamp_replay(running.pk, key)

    assert services.fail_stuck_whatifs(_later(services.stuck_after_seconds() - 5)) == []
    assert services.fail_stuck_whatifs(_later(services.stuck_after_seconds() + 5)) == [running.pk]
    assert services.fail_stuck_whatifs(_later(3600)) == []  # once

    run = WhatIfRun.objects.get(pk=running.pk)
    assert run.status == RunStatus.FAILED
    assert run.error.startswith("its worker stopped (no progress since ")
    audit = AuditEntry.objects.get(object_type="whatifrun", object_id=str(run.pk), actor=None)
    assert audit.after["status"] == RunStatus.FAILED and audit.reason == "worker lost"

    body = api_as(admin).get(f"/api/v1/whatif/{run.pk}/").json()
    assert (body["status"], body["error"]) == ("failed", run.error)
    client.force_login(admin)
    assert "its worker stopped" in client.get(f"/whatif/{run.pk}/").content.decode()


def test_replays_no_worker_has_taken_are_not_swept(running):
    assert services.fail_stuck_whatifs(_later(24 * 3600)) == []
    assert WhatIfRun.objects.get(pk=running.pk).status == RunStatus.RUNNING
