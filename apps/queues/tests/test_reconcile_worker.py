"""Policy commits reach the cluster through a real Celery worker, and survive outages."""

from __future__ import annotations

import pytest

from apps.queues.models import SyncRun
from testkit.factories import make_queue, make_team, quota, set_policy
from testkit.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_only]


def _nominal(cluster, name: str) -> str | None:
    cq = cluster.get("ClusterQueue", name)
    if cq is None or not cq["spec"].get("resourceGroups"):
        return None
    return cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"]


def test_a_committed_policy_change_is_applied_by_the_worker(worker, cluster, catalog):
    team = make_team(catalog, "vision")
    queue = make_queue(catalog, team, quotas=[quota("h100", "16")])
    wait_until(lambda: _nominal(cluster, "vision") == "16", timeout=60)
    set_policy(queue, catalog, quotas=[quota("h100", "24")])
    wait_until(lambda: _nominal(cluster, "vision") == "24", timeout=60)
    local = cluster.get("LocalQueue", "vision", "team-vision")
    assert local["spec"]["clusterQueue"] == "vision"


def test_a_burst_of_changes_collapses_into_few_runs(worker, cluster, catalog):
    team = make_team(catalog, "vision")
    queue = make_queue(catalog, team, quotas=[quota("h100", "1")])
    wait_until(lambda: _nominal(cluster, "vision") == "1", timeout=60)
    runs_before = SyncRun.objects.count()
    for nominal in range(2, 12):
        set_policy(queue, catalog, quotas=[quota("h100", str(nominal))])
    wait_until(lambda: _nominal(cluster, "vision") == "11", timeout=60)
    assert SyncRun.objects.count() - runs_before < 10


def test_it_converges_after_the_cluster_goes_away_mid_reconcile(worker, cluster, catalog):
    team = make_team(catalog, "vision")
    cluster.fault(verb="create", resource="localqueues", latencySeconds=1.0, count=0)
    make_queue(catalog, team, quotas=[quota("h100", "16")])
    wait_until(lambda: cluster.get("ClusterQueue", "vision"), timeout=60)
    cluster.stop()  # the LocalQueue create is still in flight
    wait_until(lambda: SyncRun.objects.exclude(error="").exists() or _failed_outcomes(), timeout=60)
    cluster.start()  # same port, state restored from its snapshot file
    wait_until(lambda: cluster.get("LocalQueue", "vision", "team-vision"), timeout=60)
    assert _nominal(cluster, "vision") == "16"


def _failed_outcomes() -> bool:
    return any(run.summary.get("errors") for run in SyncRun.objects.all())
