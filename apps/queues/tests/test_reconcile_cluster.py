"""The reconciler against the simulated cluster over HTTP (no worker: called directly)."""

from __future__ import annotations

import pytest
from django.conf import settings

from apps.queues.choices import SyncState
from apps.queues.models import AuditEntry, SyncObject, SyncRun
from apps.queues.reconcile import apply as apply_module
from apps.queues.reconcile.run import compute_plan, reconcile, reconcile_changes
from core.audit import AuditAction
from core.kube import KubeClient
from testkit.factories import set_policy
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db

OURS = {"app.kubernetes.io/managed-by": "quartermaster"}


def _cq(name: str, labels: dict | None = None, **spec) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"namespaceSelector": {}, **spec},
    }


def _admitted_workload(cluster, namespace: str, queue: str) -> None:
    cluster.create(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {"name": "train-1", "namespace": namespace},
            "spec": {
                "queueName": queue,
                "podSets": [
                    {
                        "name": "main",
                        "count": 1,
                        "template": {
                            "spec": {
                                "containers": [
                                    {
                                        "name": "c",
                                        "image": "busybox",
                                        "resources": {"requests": {"nvidia.com/gpu": "1"}},
                                    }
                                ]
                            }
                        },
                    }
                ],
            },
        }
    )
    admission = {
        "clusterQueue": queue,
        "podSetAssignments": [
            {
                "name": "main",
                "flavors": {"nvidia.com/gpu": "h100"},
                "resourceUsage": {"nvidia.com/gpu": "1"},
                "count": 1,
            }
        ],
    }
    cluster.patch(
        "Workload", "train-1", {"status": {"admission": admission}}, namespace, subresource="status"
    )


@pytest.mark.both_clusters
def test_it_creates_every_object_the_policy_asks_for(cluster, policy):
    summary = reconcile()
    assert summary.errors == [] and summary.created == 13
    cq = cluster.get("ClusterQueue", "vision")
    assert cq["spec"]["cohortName"] == "research"
    assert cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] == "16"
    assert (
        cluster.get("LocalQueue", "shared-burst", "team-nlp")["spec"]["clusterQueue"]
        == "shared-burst"
    )
    labels = cluster.get("Namespace", "team-vision")["metadata"]["labels"]
    assert labels["quartermaster.io/team"] == "vision"
    assert SyncObject.objects.filter(state=SyncState.IN_SYNC).count() == 13


@pytest.mark.both_clusters
def test_a_second_run_makes_zero_write_calls(cluster, policy):
    reconcile()
    cluster.reset_counters()
    summary = reconcile()
    assert summary.as_dict() | {"unchanged": 0} == {
        "created": 0,
        "updated": 0,
        "deleted": 0,
        "unchanged": 0,
        "held": 0,
        "errors": [],
    }
    assert cluster.writes() == 0


@pytest.mark.both_clusters
def test_a_quota_edit_patches_only_that_cluster_queue(cluster, policy, admin):
    reconcile()
    set_policy(
        policy["queue"],
        admin,
        quotas=[{"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "20"}],
    )
    cluster.reset_counters()
    summary = reconcile()
    assert (summary.updated, summary.created) == (1, 0)
    assert cluster.writes() == 1
    flavors = cluster.get("ClusterQueue", "vision")["spec"]["resourceGroups"][0]["flavors"]
    assert [(f["name"], f["resources"][0]["nominalQuota"]) for f in flavors] == [("h100", "20")]


@pytest.mark.both_clusters
def test_an_out_of_band_edit_is_reverted_and_audited(cluster, policy):
    reconcile()
    edited = cluster.kubectl(
        "patch",
        "clusterqueue",
        "vision",
        "--type",
        "merge",
        "-p",
        '{"spec":{"fairSharing":{"weight":"7"}}}',
    )
    assert edited.returncode == 0, edited.stderr
    summary = reconcile()
    assert summary.updated == 1
    assert cluster.get("ClusterQueue", "vision")["spec"]["fairSharing"] == {"weight": "1"}
    entry = AuditEntry.objects.get(action=AuditAction.DRIFT_REPAIRED)
    assert entry.object_id == str(policy["queue"].pk) and entry.team == policy["queue"].team
    assert entry.changes == [
        {
            "field": "ClusterQueue vision spec.fairSharing",
            "before": {"weight": "7"},
            "after": {"weight": "1"},
        }
    ]
    row = SyncObject.objects.get(kind="ClusterQueue", name="vision")
    assert row.state == SyncState.DRIFT_REPAIRED and "spec.fairSharing" in row.message


@pytest.mark.both_clusters
def test_unlabelled_objects_are_never_touched(cluster, policy):
    cluster.create(_cq("handmade"))
    cluster.create(_cq("vision", stopPolicy="Hold"))
    summary = reconcile()
    assert cluster.get("ClusterQueue", "handmade") is not None
    clash = cluster.get("ClusterQueue", "vision")
    assert clash["spec"]["stopPolicy"] == "Hold" and not clash["metadata"].get("labels")
    (error,) = [e for e in summary.errors if e["name"] == "vision" and e["kind"] == "ClusterQueue"]
    assert "without the label" in error["message"]
    cluster.reset_counters()
    reconcile()
    assert cluster.writes() == 0


def _ours(kind: str, name: str, namespace: str = "", **spec) -> dict:
    metadata = {"name": name, "labels": OURS, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": kind, "metadata": metadata, **spec}


@pytest.mark.both_clusters
def test_our_objects_no_longer_desired_are_pruned(cluster, policy):
    reconcile()
    retired = [
        _cq("retired", OURS),
        _ours("LocalQueue", "retired", "team-vision", spec={"clusterQueue": "retired"}),
        _ours("Cohort", "retired", spec={}),
        _ours("ResourceFlavor", "retired", spec={}),
        _ours("WorkloadPriorityClass", "retired", value=7),
    ]
    for obj in retired:
        cluster.create(obj)
    summary = reconcile()
    assert summary.deleted == len(retired)

    def gone() -> bool:
        # Kueue's finalizers let a deleted queue or flavor linger until its controller
        # lets go; gone means gone from the API.
        return all(
            cluster.get(o["kind"], "retired", o["metadata"].get("namespace", "")) is None
            for o in retired
        )

    wait_until(gone)


@pytest.mark.both_clusters
def test_a_quota_edit_takes_the_fast_path_to_its_cluster_queue(cluster, policy, admin):
    reconcile()
    set_policy(
        policy["queue"],
        admin,
        quotas=[{"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "12"}],
    )
    cluster.reset_counters()
    summary = reconcile_changes(trigger="policy")
    assert (summary.updated, summary.created, summary.deleted) == (1, 0, 0)
    assert cluster.writes() == 1
    flavors = cluster.get("ClusterQueue", "vision")["spec"]["resourceGroups"][0]["flavors"]
    assert [(f["name"], f["resources"][0]["nominalQuota"]) for f in flavors] == [("h100", "12")]


def test_a_busy_cluster_queue_is_held_then_deleted_when_empty(cluster, policy):
    reconcile()
    cluster.create(_cq("retired", OURS))
    _admitted_workload(cluster, "team-vision", "retired")
    summary = reconcile()
    assert (summary.held, summary.deleted) == (1, 0)
    assert cluster.get("ClusterQueue", "retired")["spec"]["stopPolicy"] == "Hold"
    row = SyncObject.objects.get(name="retired")
    assert row.state == SyncState.PENDING and "1 workload" in row.message
    cluster.reset_counters()
    reconcile()
    assert cluster.writes() == 0  # still busy, already held: nothing to write
    with cluster.client() as kube:
        from apps.queues.reconcile.observe import ref

        kube.delete(ref("Workload", "v1beta2"), "train-1", "team-vision")
    summary = reconcile()
    assert summary.deleted == 1 and cluster.get("ClusterQueue", "retired") is None
    assert not SyncObject.objects.filter(name="retired").exists()


def test_forbidden_is_a_permanent_error_naming_the_missing_permission(cluster, policy, admin):
    reconcile()
    cluster.fault(verb="patch", resource="clusterqueues", code=403, count=0, message="RBAC says no")
    set_policy(policy["queue"], admin, fair_weight="2")
    summary = reconcile()
    (error,) = summary.errors
    assert not summary.transient
    assert "may not patch clusterqueues.kueue.x-k8s.io" in error["message"]
    row = SyncObject.objects.get(kind="ClusterQueue", name="vision")
    assert row.state == SyncState.ERROR and "RBAC says no" in row.message


def test_invalid_is_shown_on_the_queue_page(cluster, policy, admin, client):
    reconcile()
    message = (
        'ClusterQueue.kueue.x-k8s.io "vision" is invalid: spec.fairSharing.weight: Invalid value'
    )
    cluster.fault(verb="patch", resource="clusterqueues", code=422, count=0, message=message)
    set_policy(policy["queue"], admin, fair_weight="2")
    summary = reconcile()
    assert not summary.transient and "is invalid" in summary.errors[0]["message"]
    client.force_login(admin)
    page = client.get(f"/queues/{policy['queue'].pk}/").content.decode()
    assert "spec.fairSharing.weight: Invalid value" in page


def test_a_conflict_is_read_again_and_repaired_in_the_same_run(cluster, policy, admin):
    reconcile()
    cluster.fault(verb="patch", resource="clusterqueues", code=409, count=1)
    set_policy(policy["queue"], admin, fair_weight="2")
    summary = reconcile()
    assert (summary.updated, summary.errors, summary.transient) == (1, [], False)
    assert cluster.get("ClusterQueue", "vision")["spec"]["fairSharing"] == {"weight": "2"}
    assert SyncObject.objects.get(kind="ClusterQueue", name="vision").state == SyncState.IN_SYNC


def test_conflicts_that_persist_are_temporary_and_the_next_run_converges(cluster, policy, admin):
    reconcile()
    cluster.fault(
        verb="patch", resource="clusterqueues", code=409, count=apply_module.CONFLICT_RETRIES + 1
    )
    set_policy(policy["queue"], admin, fair_weight="2")
    assert reconcile().transient
    assert reconcile().updated == 1
    assert cluster.get("ClusterQueue", "vision")["spec"]["fairSharing"] == {"weight": "2"}
    assert SyncObject.objects.get(kind="ClusterQueue", name="vision").state == SyncState.IN_SYNC


@pytest.mark.both_clusters
def test_a_write_between_our_read_and_our_patch_does_not_delay_the_change(cluster, policy, admin):
    """Another writer (on a real cluster, Kueue's status writes) bumps the resourceVersion."""
    reconcile()
    set_policy(policy["queue"], admin, fair_weight="2")
    with KubeClient() as kube:
        actions = compute_plan(kube)
        cluster.patch("ClusterQueue", "vision", {"metadata": {"annotations": {"other": "1"}}})
        outcomes = apply_module.apply(kube, actions, settings.KUEUE_API_VERSION)
    [update] = [o for o in outcomes if o.action.verb == "update"]
    assert update.ok and update.action.changes[0].field == "spec.fairSharing"
    cq = cluster.get("ClusterQueue", "vision")
    assert cq["spec"]["fairSharing"] == {"weight": "2"}
    assert cq["metadata"]["annotations"]["other"] == "1"  # the other writer's field is kept


def test_an_unreachable_cluster_is_recorded_and_the_policy_kept(cluster, policy):
    cluster.stop()
    from core.kube import KubeError

    with pytest.raises(KubeError) as caught:
        reconcile()
    assert caught.value.transient
    assert "unreachable" in SyncRun.objects.first().error
    cluster.start()
    assert reconcile().created == 13


@pytest.mark.both_clusters
def test_the_v1beta1_setting_talks_to_the_cluster_in_v1beta1(cluster, policy, settings):
    settings.KUEUE_API_VERSION = "v1beta1"
    assert reconcile().created == 13
    cq = cluster.get("ClusterQueue", "vision", version="v1beta1")
    assert cq["spec"]["cohort"] == "research"
    assert cluster.get("ClusterQueue", "vision")["spec"]["cohortName"] == "research"
    cluster.reset_counters()
    reconcile()
    assert cluster.writes() == 0


def test_the_v1beta1_setting_only_lists_when_nothing_changed(cluster, policy, settings):
    settings.KUEUE_API_VERSION = "v1beta1"
    reconcile()
    cluster.reset_counters()
    reconcile()
    requests = cluster.hook("counters")["requests"]
    assert {r["resource"] for r in requests if r["group"]} and all(
        r["verb"] == "list" for r in requests
    )
