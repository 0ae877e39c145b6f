"""What runs after a policy commit: the fast path for queue edits, nothing when sync is off."""

from __future__ import annotations

import pytest

from apps.queues.reconcile.coordination import FileCoordinator
from apps.queues.reconcile.run import reconcile, reconcile_changes
from apps.queues.tasks import reconcile_task
from apps.queues.tests.factories import set_policy

pytestmark = pytest.mark.django_db


def test_a_queue_edit_reconciles_only_that_queue_without_listing(cluster, policy, admin):
    reconcile()
    set_policy(policy["queue"], admin, fair_weight="2")
    cluster.reset_counters()
    summary = reconcile_changes(trigger="change")
    assert summary.updated == 1
    verbs = {r["verb"] for r in cluster.hook("counters")["requests"]}
    assert verbs == {"get", "patch"}
    assert cluster.get("ClusterQueue", "vision")["spec"]["fairSharing"] == {"weight": "2"}


def test_a_catalog_edit_takes_the_full_run(cluster, policy, admin):
    from apps.queues import services

    reconcile()
    services.save_cohort(name="research", fair_weight="3", actor=admin)
    cluster.reset_counters()
    assert reconcile_changes(trigger="change").updated == 1
    assert "list" in {r["verb"] for r in cluster.hook("counters")["requests"]}


def test_with_cluster_sync_off_nothing_runs(settings):
    settings.QM_CLUSTER_SYNC = False
    assert reconcile_task.apply(kwargs={"trigger": "change"}).get() == {
        "skipped": "cluster sync disabled"
    }


def test_the_file_lock_admits_one_run_and_the_pending_mark_collapses_bursts(tmp_path):
    first, second = FileCoordinator(tmp_path), FileCoordinator(tmp_path)
    assert first.claim_pending() and not second.claim_pending()
    with first.exclusive() as got_first, second.exclusive() as got_second:
        assert got_first and not got_second
    first.clear_pending()
    assert second.claim_pending()
