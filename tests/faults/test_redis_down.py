"""Redis (broker and lock) goes down: pages still serve, edits are saved, and they
reach the cluster once Redis is back, through the periodic reconcile alone (the
message that would have triggered the run was never sent)."""

from __future__ import annotations

import pytest

from apps.queues.models import Queue, SyncRun
from apps.queues.tasks import reconcile_task
from testkit.factories import snapshot
from testkit.waiting import wait_until

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def _nominal(cluster, name: str) -> str | None:
    cq = cluster.get("ClusterQueue", name)
    if cq is None or not cq["spec"].get("resourceGroups"):
        return None
    return cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"]


def _edit_form(queue: Queue, nominal: str) -> dict:
    return {
        "version": queue.version,
        "fair_weight": "1",
        "queueing_strategy": "BestEffortFIFO",
        "stop_policy": "None",
        "reclaim_within_cohort": "Never",
        "within_cluster_queue": "Never",
        "borrow_within_cohort": "Never",
        "cohort": "research",
        "q|h100|nvidia.com/gpu|nominal": nominal,
        "q|a100|nvidia.com/gpu|nominal": "8",
        "save": "1",
    }


def test_pages_and_edits_survive_redis_and_converge_after(
    client, queue, lead, envelope, cluster, private_redis, start_worker
):
    worker = start_worker()
    reconcile_task.delay(trigger="schedule")
    wait_until(lambda: _nominal(cluster, "vision") == "16", timeout=60)
    wait_until(lambda: SyncRun.objects.filter(error="").exists(), timeout=60)

    private_redis.stop()
    client.force_login(lead)
    for page in ("/", f"/queues/{queue.pk}/", f"/queues/{queue.pk}/edit/", "/teams/vision/"):
        assert client.get(page).status_code == 200, page
    assert client.get("/readyz").status_code == 503  # says so, instead of pretending
    response = client.post(f"/queues/{queue.pk}/edit/", _edit_form(queue, "20"))
    assert response.status_code == 302, response.content.decode()[:500]
    assert snapshot(queue)["quotas"][0]["nominal"] == "20"
    assert _nominal(cluster, "vision") == "16"  # nothing could carry the change yet

    private_redis.start()  # empty: the trigger message is gone for good
    if worker.process.poll() is not None:
        # Celery can exit on a lost broker; compose and Kubernetes restart it.
        start_worker()
    reconcile_task.delay(trigger="schedule")  # what beat sends every interval
    wait_until(lambda: _nominal(cluster, "vision") == "20", timeout=90)
    assert client.get("/readyz").status_code == 200
