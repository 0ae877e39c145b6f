"""Job submissions are counted like notebook requests: one counter per kind, named
alike (qm_job_requests_total, qm_notebook_requests_total), by outcome, read from /metrics."""

import pytest
from django.db import DataError
from prometheus_client.parser import text_string_to_metric_families

from apps.jobs.services import JobRequest, NotebookRequest, Principal, request_notebook, submit_job
from core.errors import DomainError
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db
KINDS = ["job", "notebook"]


def submit(kind: str, user, *, key: str = "k", **overrides):
    me = Principal(user)
    if kind == "job":
        spec = JobRequest(**{"template": "pytorch-train", "flavor": "h100", **overrides})
        return submit_job(user, spec, actor=me, idempotency_key=key)
    spec = NotebookRequest(**{"image": IMAGE, "flavor": "h100", **overrides})
    return request_notebook(user, spec, actor=me, idempotency_key=key)


TOO_MANY_GPUS = {"job": {"gpus_per_pod": 99}, "notebook": {"gpus": 99}}


def requests_total(client, kind: str, outcome: str) -> float:
    """The counter's value as /metrics shows it (0 before its first increment)."""
    response = client.get("/metrics")
    assert response.status_code == 200
    families = text_string_to_metric_families(response.content.decode())
    return sum(
        sample.value
        for family in families
        if family.name == f"qm_{kind}_requests"
        for sample in family.samples
        if sample.name.endswith("_total") and sample.labels == {"outcome": outcome}
    )


@pytest.fixture
def ready(scientist, queue, template, pool):
    """The scientist may submit both kinds."""


@pytest.mark.parametrize("kind", KINDS)
def test_an_accepted_submission_is_counted_once_after_commit(
    client, ready, scientist, kind, django_capture_on_commit_callbacks
):
    before = requests_total(client, kind, "accepted")
    with django_capture_on_commit_callbacks(execute=True):
        submit(kind, scientist)
        assert requests_total(client, kind, "accepted") == before  # not before the commit
    with django_capture_on_commit_callbacks(execute=True):
        assert submit(kind, scientist).replayed  # a replay is not a second request
    assert requests_total(client, kind, "accepted") == before + 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_submission_breaking_a_rule_is_counted_rejected(client, ready, scientist, kind):
    before = requests_total(client, kind, "rejected")
    with pytest.raises(DomainError):
        submit(kind, scientist, **TOO_MANY_GPUS[kind])
    assert requests_total(client, kind, "rejected") == before + 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_submission_the_database_refuses_is_counted_failed(client, ready, scientist, kind):
    before = requests_total(client, kind, "failed")
    with pytest.raises(DataError):  # PostgreSQL text cannot hold NUL characters
        submit(kind, scientist, display_name="bad\x00name")
    assert requests_total(client, kind, "failed") == before + 1
