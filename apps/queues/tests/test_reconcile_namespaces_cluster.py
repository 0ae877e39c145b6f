"""On a cluster: the reconciler leaves system namespaces alone, and foreign ones until adopted."""

from __future__ import annotations

import pytest

from apps.queues import kueue, services
from apps.queues.choices import SyncState
from apps.queues.models import SyncObject, TeamNamespace
from apps.queues.reconcile.incremental import compute_queue_plan
from apps.queues.reconcile.plan import BLOCKED
from apps.queues.reconcile.run import reconcile
from testkit.factories import make_queue, quota

pytestmark = pytest.mark.django_db


def _namespace(cluster, name: str, labels: dict | None = None) -> None:
    if cluster.get("Namespace", name) is None:  # kube-system exists on a real cluster
        meta = {"name": name, "labels": labels or {}}
        cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": meta})


def _ours(cluster, namespace: str) -> dict:
    labels = cluster.get("Namespace", namespace)["metadata"].get("labels") or {}
    return {k: v for k, v in labels.items() if k in kueue.OWNED_LABELS}


@pytest.mark.both_clusters
def test_a_legacy_team_row_on_kube_system_writes_nothing_there(cluster, policy):
    _namespace(cluster, "kube-system")
    # Forced past the service, as a row saved before the deny-list would be.
    TeamNamespace.objects.create(team=policy["queue"].team, name="kube-system")
    summary = reconcile()
    assert _ours(cluster, "kube-system") == {}
    assert cluster.get("LocalQueue", "vision", "kube-system") is None
    assert cluster.get("LocalQueue", "shared-burst", "kube-system") is None
    assert cluster.get("LocalQueue", "vision", "team-vision") is not None
    refused = {(e["kind"], e["name"]) for e in summary.errors if e["namespace"] == "kube-system"}
    assert refused == {("LocalQueue", "vision"), ("LocalQueue", "shared-burst")}
    row = SyncObject.objects.get(kind="Namespace", name="kube-system")
    assert row.state == SyncState.ERROR and "protected system namespace" in row.message


@pytest.mark.both_clusters
def test_an_existing_unlabelled_namespace_is_left_alone_until_an_admin_adopts_it(
    cluster, policy, admin
):
    _namespace(cluster, "team-legacy", {"owner": "ops"})
    team = services.create_team(
        slug="legacy", display_name="Legacy", namespaces=["team-legacy"], actor=admin
    )
    make_queue(admin, team, quotas=[quota("h100", "1")])
    reconcile()
    assert _ours(cluster, "team-legacy") == {}
    assert cluster.get("LocalQueue", "legacy", "team-legacy") is None
    row = SyncObject.objects.get(kind="Namespace", name="team-legacy")
    assert row.state == SyncState.ERROR and "exists, not ours; adopt?" in row.message

    services.adopt_namespace(namespace="team-legacy", actor=admin, reason="made by hand in 2024")
    summary = reconcile()
    assert summary.errors == []
    assert _ours(cluster, "team-legacy") == {
        kueue.MANAGED_BY: kueue.MANAGER,
        kueue.TEAM_LABEL: "legacy",
    }
    assert cluster.get("Namespace", "team-legacy")["metadata"]["labels"]["owner"] == "ops"
    assert cluster.get("LocalQueue", "legacy", "team-legacy") is not None


def test_the_fast_path_after_a_queue_edit_does_not_write_in_a_foreign_namespace(
    cluster, policy, admin
):
    _namespace(cluster, "team-legacy")
    team = services.create_team(
        slug="legacy", display_name="Legacy", namespaces=["team-legacy"], actor=admin
    )
    queue = make_queue(admin, team, quotas=[quota("h100", "1")])
    with cluster.client() as kube:
        actions = compute_queue_plan(kube, [queue])
    local = [a for a in actions if a.namespace == "team-legacy"]
    assert [(a.kind, a.verb) for a in local] == [("LocalQueue", BLOCKED)]


def test_an_admin_adopts_a_foreign_namespace_from_the_cluster_sync_page(
    cluster, policy, admin, client
):
    _namespace(cluster, "team-legacy")
    services.create_team(
        slug="legacy", display_name="Legacy", namespaces=["team-legacy"], actor=admin
    )
    reconcile()
    client.force_login(admin)
    page = client.get("/cluster/").content.decode()
    assert "exists, not ours; adopt?" in page and 'value="team-legacy"' in page
    form = {"namespace": "team-legacy", "reason": ""}
    page = client.post("/cluster/adopt/", form, follow=True).content.decode()
    assert "reason: say why" in page
    form["reason"] = "made by hand in 2024"
    page = client.post("/cluster/adopt/", form, follow=True).content.decode()
    assert "Adopted team-legacy" in page and 'value="team-legacy"' not in page
    reconcile()
    assert _ours(cluster, "team-legacy")[kueue.MANAGED_BY] == kueue.MANAGER


def test_only_admins_adopt(team, lead, client):
    client.force_login(lead)
    response = client.post("/cluster/adopt/", {"namespace": "team-vision", "reason": "mine"})
    assert response.status_code == 403
    assert TeamNamespace.objects.get(name="team-vision").adopted_at is None
