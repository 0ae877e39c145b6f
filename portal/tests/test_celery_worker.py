"""A real task sent through Redis and run by a separate worker process."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.queues.models import ChangeRequest
from apps.queues.tasks import expire_stale_change_requests_task
from testkit.factories import quota, set_policy


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_worker_expires_stale_change_requests(queue, lead, envelope, worker):
    request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    ChangeRequest.objects.filter(pk=request.pk).update(
        created_at=timezone.now() - timedelta(days=30)
    )
    result = expire_stale_change_requests_task.delay()
    assert result.get(timeout=60) == 1
    request.refresh_from_db()
    assert request.status == "expired"
    assert worker.poll() is None  # it was the worker process, still running, that did it
