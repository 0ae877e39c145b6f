"""What runs after a policy commit: the fast path for queue edits, nothing when sync is off."""

from __future__ import annotations

import pytest
from django.conf import settings

from apps.queues.reconcile.coordination import FileCoordinator
from apps.queues.reconcile.run import reconcile, reconcile_changes
from apps.queues.tasks import reconcile_task
from testkit.factories import set_policy

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


def test_the_fast_path_hashes_every_manifest_it_leaves_alone(policy):
    from apps.queues import kueue
    from apps.queues.models import Queue
    from apps.queues.reconcile.desired import desired_objects
    from apps.queues.reconcile.incremental import untouched_manifests

    queues = set(Queue.objects.values_list("name", flat=True))
    full = [o for o in desired_objects() if not _is_queue_cluster_queue(o, queues)]
    version = settings.KUEUE_API_VERSION
    untouched = [kueue.to_api_version(o, version) for o in untouched_manifests()]
    assert sorted(map(_canonical, full)) == sorted(map(_canonical, untouched))
    assert any(o["kind"] == "LocalQueue" for o in untouched)


def test_a_quota_edit_leaves_the_fingerprint_and_a_namespace_changes_it(policy, admin):
    from apps.queues.models import TeamNamespace
    from apps.queues.reconcile.incremental import catalog_fingerprint

    before = catalog_fingerprint()
    set_policy(policy["queue"], admin, fair_weight="2")
    assert catalog_fingerprint() == before
    TeamNamespace.objects.create(team=policy["queue"].team, name="team-vision-extra")
    assert catalog_fingerprint() != before


def _is_queue_cluster_queue(obj: dict, queues: set[str]) -> bool:
    return obj["kind"] == "ClusterQueue" and obj["metadata"]["name"] in queues


def _canonical(obj: dict) -> str:
    import json

    return json.dumps(obj, sort_keys=True, default=str)
