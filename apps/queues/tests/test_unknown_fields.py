"""Every write endpoint of the queue API refuses a field it does not declare, and writes nothing."""

import pytest

from apps.queues.models import (
    AuditEntry,
    ChangeRequest,
    Cohort,
    PriorityTier,
    Queue,
    ResourceFlavor,
    Team,
)
from testkit.clients import api_as
from testkit.factories import quota, set_policy

pytestmark = pytest.mark.django_db

H100 = {"flavor": "h100", "resource": "nvidia.com/gpu", "nominal": "16"}


def assert_unknown(response, field: str) -> None:
    assert response.status_code == 400, response.json()
    body = response.json()
    assert (body["code"], body["field"]) == ("unknown_field", field)
    assert field in body["detail"]


@pytest.fixture
def nothing_written():
    """Counts of every row an endpoint here could write, before and after the test."""

    def counts():
        models = (AuditEntry, Team, ResourceFlavor, Cohort, PriorityTier, Queue, ChangeRequest)
        return {m.__name__: m.objects.count() for m in models}

    before = counts()
    yield
    assert counts() == before


@pytest.mark.parametrize(
    ("method", "url", "body", "field"),
    [
        (
            "post",
            "/api/v1/teams/",
            {"slug": "x", "display_name": "X", "namespaces": [], "s": 1},
            "s",
        ),
        (
            "post",
            "/api/v1/flavors/",
            {"name": "mi300", "capacity": {}, "gpu_modle": "x"},
            "gpu_modle",
        ),
        ("put", "/api/v1/flavors/h100/", {"capacity": {"nvidia.com/gpu": "64"}, "cap": 1}, "cap"),
        ("patch", "/api/v1/flavors/h100/", {"descripton": "typo"}, "descripton"),
        ("post", "/api/v1/cohorts/", {"name": "lab", "parnet": "research"}, "parnet"),
        ("put", "/api/v1/cohorts/research/", {"weight": "2"}, "weight"),
        ("patch", "/api/v1/cohorts/research/", {"weight": "2"}, "weight"),
        ("post", "/api/v1/priority-tiers/", {"name": "p0", "value": 1, "level": 1}, "level"),
        ("put", "/api/v1/priority-tiers/p2-standard/", {"value": 5, "level": 1}, "level"),
        ("patch", "/api/v1/priority-tiers/p2-standard/", {"level": 1}, "level"),
        ("post", "/api/v1/queues/", {"name": "q2", "team": "vision", "cohrt": "x"}, "cohrt"),
    ],
)
def test_the_catalog_and_team_endpoints_refuse_unknown_fields(
    admin, queue, method, url, body, field, nothing_written
):
    assert_unknown(getattr(api_as(admin), method)(url, body, format="json"), field)


def test_an_envelope_refuses_an_unknown_field_even_in_a_limit(admin, team, nothing_written):
    limit = {"flavor": "h100", "resource": "nvidia.com/gpu", "max_nominal": "8", "max_brw": "2"}
    response = api_as(admin).put(
        f"/api/v1/teams/{team.slug}/envelope/", {"limits": [limit]}, format="json"
    )
    assert_unknown(response, "limits[0].max_brw")
    assert not hasattr(Team.objects.get(pk=team.pk), "envelope")


@pytest.mark.parametrize("method", ["put", "patch"])
def test_a_misspelt_borrowing_limit_is_not_saved_as_no_limit(admin, queue, method, nothing_written):
    body = {"version": queue.version, "quotas": [{**H100, "borowing_limit": "8"}]}
    response = getattr(api_as(admin), method)(f"/api/v1/queues/{queue.pk}/", body, format="json")
    assert_unknown(response, "quotas[0].borowing_limit")
    assert Queue.objects.get(pk=queue.pk).version == queue.version


def test_a_queue_edit_refuses_an_unknown_top_level_field(lead, queue, nothing_written):
    body = {"version": queue.version, "weight": "2"}
    assert_unknown(api_as(lead).patch(f"/api/v1/queues/{queue.pk}/", body, format="json"), "weight")


def test_a_preview_refuses_an_unknown_preemption_field(lead, queue):
    body = {"version": queue.version, "preemption": {"reclaim": "Any"}}
    response = api_as(lead).post(f"/api/v1/queues/{queue.pk}/preview/", body, format="json")
    assert_unknown(response, "preemption.reclaim")


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_decision_refuses_an_unknown_field(queue, lead, envelope, admin, verb):
    request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    audit_rows = AuditEntry.objects.count()
    body = {"comment": "fine", "note": "x"}
    response = api_as(admin).post(f"/api/v1/change-requests/{request.pk}/{verb}/", body)
    assert_unknown(response, "note")
    assert ChangeRequest.objects.get(pk=request.pk).is_open
    assert AuditEntry.objects.count() == audit_rows
