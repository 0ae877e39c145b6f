"""Notebook requests are counted by outcome, and notebooks the portal stops by reason."""

from datetime import timedelta

import pytest
from django.db import DataError
from django.utils import timezone
from prometheus_client import REGISTRY

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.jobs.services import (
    NotebookRequest,
    Principal,
    cull_idle_notebooks,
    expire_notebooks,
    request_notebook,
    stop_notebook,
)
from core.errors import DomainError
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db
T0 = timezone.now().replace(microsecond=0)


def requests_total(outcome: str) -> float:
    value = REGISTRY.get_sample_value("qm_notebook_requests_total", {"outcome": outcome})
    return value or 0.0


def culls_total(reason: str) -> float:
    return REGISTRY.get_sample_value("qm_notebook_culls_total", {"reason": reason}) or 0.0


def ask(user, **overrides):
    spec = NotebookRequest(**{"image": IMAGE, "flavor": "h100", **overrides})
    return request_notebook(user, spec, actor=Principal(user), idempotency_key="k", now=T0)


def test_an_accepted_request_is_counted_once_after_commit(
    scientist, pool, django_capture_on_commit_callbacks
):
    before = requests_total("accepted")
    with django_capture_on_commit_callbacks(execute=True):
        ask(scientist)
        assert requests_total("accepted") == before  # not before the commit
    with django_capture_on_commit_callbacks(execute=True):
        assert ask(scientist).replayed
    assert requests_total("accepted") == before + 1


def test_a_request_breaking_a_rule_is_rejected(scientist, pool):
    before = requests_total("rejected")
    with pytest.raises(DomainError):
        ask(scientist, gpus=99)
    assert requests_total("rejected") == before + 1


def test_a_request_the_database_refuses_has_failed(scientist, pool):
    before = requests_total("failed")
    with pytest.raises(DataError):  # PostgreSQL text cannot hold NUL characters
        ask(scientist, display_name="bad\x00name")
    assert requests_total("failed") == before + 1


def ready(user, *, ttl: int = 1) -> Notebook:
    notebook = ask(user, ttl_hours=ttl).record
    Notebook.objects.filter(pk=notebook.pk).update(state=NotebookState.READY, ready_at=T0)
    return Notebook.objects.get(pk=notebook.pk)


def test_expired_notebooks_are_counted(scientist, pool, django_capture_on_commit_callbacks):
    ready(scientist)
    before = culls_total("expired")
    with django_capture_on_commit_callbacks(execute=True):
        assert expire_notebooks(now=T0 + timedelta(hours=1))["stopped"] == 1
        assert expire_notebooks(now=T0 + timedelta(hours=2))["stopped"] == 0
    assert culls_total("expired") == before + 1


def test_idle_culls_are_counted(scientist, pool, django_capture_on_commit_callbacks):
    notebook = ready(scientist, ttl=8)
    peaks = {(notebook.namespace, notebook.pod_name): 0.0}
    before = culls_total("idle")
    with django_capture_on_commit_callbacks(execute=True):
        cull_idle_notebooks(peaks, now=T0 + timedelta(hours=1))
        later = T0 + timedelta(hours=2)
        assert cull_idle_notebooks(peaks, now=later)["culled"] == 1
    assert culls_total("idle") == before + 1


def test_an_admin_stopping_someone_elses_notebook_is_counted(
    scientist, admin, pool, django_capture_on_commit_callbacks
):
    notebook = ready(scientist)
    before = culls_total("admin")
    with django_capture_on_commit_callbacks(execute=True):
        assert stop_notebook(notebook, actor=Principal(admin), reason="maintenance")
    assert culls_total("admin") == before + 1


def test_a_user_stopping_their_own_notebook_is_no_cull(
    scientist, pool, django_capture_on_commit_callbacks
):
    notebook = ready(scientist)
    before = {r: culls_total(r) for r in ("admin", "idle", "expired")}
    with django_capture_on_commit_callbacks(execute=True):
        assert stop_notebook(notebook, actor=Principal(scientist))
    assert {r: culls_total(r) for r in before} == before
