"""A brownfield import refuses values it cannot read instead of reading them as 0."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from apps.queues.models import AuditEntry, Cohort, PriorityTier, Queue, ResourceFlavor, Team
from apps.queues.reconcile.importer import translate
from core.errors import InvalidInput

KUEUE = "kueue.x-k8s.io/v1beta2"
NOMINAL = "ClusterQueue ml spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"


def _cluster_queue(nominal, weight="1") -> dict:
    gpu = [{"name": "nvidia.com/gpu", "nominalQuota": nominal}]
    return {
        "kind": "ClusterQueue",
        "metadata": {"name": "ml"},
        "spec": {
            "fairSharing": {"weight": weight},
            "resourceGroups": [
                {
                    "coveredResources": ["nvidia.com/gpu"],
                    "flavors": [{"name": "h100", "resources": gpu}],
                }
            ],
        },
    }


def _observed(*queues: dict, classes: tuple[dict, ...] = ()) -> dict[str, list[dict]]:
    flavor = {"kind": "ResourceFlavor", "metadata": {"name": "h100"}, "spec": {}}
    return {
        "ResourceFlavor": [flavor],
        "Cohort": [],
        "WorkloadPriorityClass": list(classes),
        "ClusterQueue": list(queues),
        "LocalQueue": [],
    }


def _translate(cluster: dict) -> None:
    known = {"flavors": set(), "cohorts": set(), "tiers": set(), "queues": set()}
    translate(cluster, known=known, namespace_teams={})


def test_a_nominal_quota_it_cannot_read_refuses_the_import_naming_object_and_field():
    with pytest.raises(InvalidInput) as refused:
        _translate(_observed(_cluster_queue("abc")))
    assert list(refused.value.errors) == [NOMINAL]
    (rule,) = refused.value.errors[NOMINAL]
    assert rule.startswith("'abc' must be a Kubernetes quantity such as 8, 500m or 64Gi")
    assert 'e.g. "12"' in rule


def test_every_unreadable_value_is_named_at_once():
    high = {"kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": "urgent"}
    with pytest.raises(InvalidInput) as refused:
        _translate(_observed(_cluster_queue("abc", weight="heavy"), classes=(high,)))
    assert sorted(refused.value.errors) == [
        "ClusterQueue ml spec.fairSharing.weight",
        NOMINAL,
        "WorkloadPriorityClass high value",
    ]


def test_a_readable_quota_is_still_imported_as_written():
    known = {"flavors": set(), "cohorts": set(), "tiers": set(), "queues": set()}
    plan = translate(_observed(_cluster_queue("12")), known=known, namespace_teams={})
    assert [q["nominal"] for q in plan.queues[0]["quotas"]] == ["12"]
    # The flavor's assumed capacity is the sum of nominal quotas: 12 from the one queue.
    assert plan.flavors[0]["capacity"] == {"nvidia.com/gpu": "12"}


def _too_fine_quota(cluster) -> None:
    cluster.create({"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "h100"}})
    # The simulated cluster stores 1e-10 as written (finer than 1n, which the portal cannot
    # represent). The real API server rounds it up to 1n on create, so these two tests
    # run on the simulated cluster only: a real cluster cannot hold this value.
    cq = _cluster_queue("0.0000000001")
    cluster.create({"apiVersion": KUEUE, **cq, "spec": {**cq["spec"], "namespaceSelector": {}}})


def _nothing_written() -> None:
    for model in (ResourceFlavor, Cohort, PriorityTier, Team, Queue):
        assert not model.objects.exists(), model.__name__


@pytest.mark.django_db
def test_the_command_refuses_and_writes_nothing(cluster, admin):
    _too_fine_quota(cluster)
    before = AuditEntry.objects.count()
    with pytest.raises(CommandError) as refused:
        call_command("import_kueue", stdout=io.StringIO())
    assert "nothing imported" in str(refused.value)
    assert NOMINAL in str(refused.value) and "no finer than 1n" in str(refused.value)
    _nothing_written()
    assert AuditEntry.objects.count() == before


@pytest.mark.django_db
def test_the_sync_page_shows_the_refusal_and_writes_nothing(cluster, admin, client):
    _too_fine_quota(cluster)
    client.force_login(admin)
    page = client.post("/cluster/import/", follow=True).content.decode()
    assert f"{NOMINAL}: &#x27;0.0000000001&#x27; must be a Kubernetes quantity no finer" in page
    _nothing_written()
