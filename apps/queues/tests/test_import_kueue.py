"""Brownfield import: an existing cluster's Kueue objects become portal policy."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from apps.queues.models import AuditEntry, Queue, TeamNamespace
from apps.queues.reconcile.run import reconcile
from apps.queues.snapshots import queue_snapshot
from core.audit import AuditAction

pytestmark = [pytest.mark.django_db, pytest.mark.both_clusters]

KUEUE = "kueue.x-k8s.io/v1beta2"


def _brownfield(cluster) -> None:
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}})
    cluster.create(
        {
            "apiVersion": KUEUE,
            "kind": "ResourceFlavor",
            "metadata": {"name": "h100"},
            "spec": {"nodeLabels": {"gpu": "h100"}},
        }
    )
    cluster.create(
        {
            "apiVersion": KUEUE,
            "kind": "Cohort",
            "metadata": {"name": "org"},
            "spec": {"fairSharing": {"weight": "2"}},
        }
    )
    cluster.create(
        {
            "apiVersion": KUEUE,
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": "high"},
            "value": 500,
            "description": "urgent",
        }
    )
    gpu = [{"name": "nvidia.com/gpu", "nominalQuota": "12", "borrowingLimit": "4"}]
    groups = [
        {"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "h100", "resources": gpu}]}
    ]
    cluster.create(
        {
            "apiVersion": KUEUE,
            "kind": "ClusterQueue",
            "metadata": {"name": "ml"},
            "spec": {
                "cohortName": "org",
                "namespaceSelector": {},
                "resourceGroups": groups,
                "admissionChecksStrategy": {"admissionChecks": [{"name": "prov"}]},
            },
        }
    )
    cluster.create(
        {
            "apiVersion": KUEUE,
            "kind": "LocalQueue",
            "metadata": {"name": "ml", "namespace": "ml"},
            "spec": {"clusterQueue": "ml"},
        }
    )


def _import(*args: str) -> dict:
    out = io.StringIO()
    call_command("import_kueue", *args, stdout=out)
    return json.loads(out.getvalue())


def test_import_round_trip_takes_ownership_and_keeps_the_quota(cluster, admin):
    _brownfield(cluster)
    report = _import("--take-ownership")
    assert report["queues"] == ["ml"] and report["failed"] == []
    assert any("admission checks" in note for note in report["not_represented"])
    snap = queue_snapshot(Queue.objects.with_policy().get(name="ml"))
    assert (snap["team"], snap["cohort"]) == ("ml", "org")
    assert snap["quotas"] == [
        {
            "flavor": "h100",
            "resource": "nvidia.com/gpu",
            "nominal": "12",
            "borrowing_limit": "4",
            "lending_limit": None,
        }
    ]
    assert AuditEntry.objects.filter(action=AuditAction.CREATE, object_type="queue").exists()
    labels = cluster.get("ClusterQueue", "ml")["metadata"]["labels"]
    assert labels["app.kubernetes.io/managed-by"] == "quartermaster"
    summary = reconcile()
    assert summary.errors == [] and summary.created == 0
    cq = cluster.get("ClusterQueue", "ml")
    assert cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] == "12"
    assert cq["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": "prov"}]}


def test_without_take_ownership_the_reconciler_leaves_the_objects_alone(cluster, admin):
    _brownfield(cluster)
    _import()
    cluster.reset_counters()
    summary = reconcile()
    blocked = {e["kind"] for e in summary.errors}
    assert {"Namespace", "ClusterQueue", "LocalQueue", "ResourceFlavor", "Cohort"} <= blocked
    assert cluster.written_resources() == set()


def test_a_local_queue_in_a_protected_namespace_is_neither_imported_nor_labelled(cluster, admin):
    _brownfield(cluster)
    if cluster.get("Namespace", "kube-system") is None:  # a real cluster has it
        cluster.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-system"}}
        )
    system = {"name": "ml", "namespace": "kube-system"}
    cluster.create(
        {
            "apiVersion": KUEUE,
            "kind": "LocalQueue",
            "metadata": system,
            "spec": {"clusterQueue": "ml"},
        }
    )
    report = _import("--take-ownership")
    assert report["failed"] == []
    assert any(
        "kube-system is a protected system namespace" in n for n in report["not_represented"]
    )
    assert not TeamNamespace.objects.filter(name="kube-system").exists()
    assert TeamNamespace.objects.get(name="ml").adopted_at is not None
    assert "labels" not in cluster.get("LocalQueue", "ml", "kube-system")["metadata"]


def test_an_admin_imports_from_the_cluster_sync_page(cluster, admin, client):
    _brownfield(cluster)
    client.force_login(admin)
    response = client.post("/cluster/import/", {"take_ownership": "1"}, follow=True)
    page = response.content.decode()
    assert "Imported queues: ml." in page and "admission checks" in page
    assert Queue.objects.filter(name="ml").exists()


def test_the_cluster_sync_page_is_for_admins_only(lead, client):
    client.force_login(lead)
    assert client.get("/cluster/").status_code == 403
    assert client.post("/cluster/import/").status_code == 403
