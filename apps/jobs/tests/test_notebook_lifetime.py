"""TTL: default and maximum, warning before expiry, renew within the maximum, stop at expiry."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.jobs.services import (
    NotebookRequest,
    Principal,
    expire_notebooks,
    renew_notebook,
    request_notebook,
)
from core.errors import DomainError
from testkit.notebooks import IMAGE

T0 = timezone.now().replace(microsecond=0)


def ready(scientist, *, ttl=None, now=T0) -> Notebook:
    spec = NotebookRequest(image=IMAGE, flavor="h100", ttl_hours=ttl)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist), now=now).record
    Notebook.objects.filter(pk=notebook.pk).update(state=NotebookState.READY, ready_at=now)
    notebook.refresh_from_db()
    return notebook


@pytest.mark.django_db
def test_the_default_ttl_is_eight_hours(scientist, pool):
    assert ready(scientist).expires_at == T0 + timedelta(hours=8)


@pytest.mark.django_db
def test_it_warns_thirty_minutes_before_expiry_then_stops(scientist, pool):
    notebook = ready(scientist, ttl=1)

    assert expire_notebooks(now=T0 + timedelta(minutes=20)) == {"warned": 0, "stopped": 0}
    assert expire_notebooks(now=T0 + timedelta(minutes=31)) == {"warned": 1, "stopped": 0}
    notebook.refresh_from_db()
    assert notebook.state == NotebookState.EXPIRING
    assert expire_notebooks(now=T0 + timedelta(minutes=45)) == {"warned": 0, "stopped": 0}

    assert expire_notebooks(now=T0 + timedelta(hours=1)) == {"warned": 0, "stopped": 1}
    notebook.refresh_from_db()
    assert notebook.state == NotebookState.STOPPED
    assert notebook.state_reason.startswith("expired at")


@pytest.mark.django_db
def test_renewing_an_expiring_notebook_makes_it_ready_again(scientist, pool):
    notebook = ready(scientist, ttl=1)
    expire_notebooks(now=T0 + timedelta(minutes=40))
    notebook.refresh_from_db()

    renewed = renew_notebook(
        notebook, actor=Principal(scientist), hours=4, now=T0 + timedelta(minutes=50)
    )

    assert renewed.state == NotebookState.READY
    assert renewed.expires_at == T0 + timedelta(minutes=50, hours=4)
    assert renewed.expiry_warned_at is None
    assert expire_notebooks(now=T0 + timedelta(hours=1)) == {"warned": 0, "stopped": 0}


@pytest.mark.django_db
def test_a_renewal_stays_within_the_maximum(scientist, pool):
    notebook = ready(scientist)
    with pytest.raises(DomainError) as caught:
        renew_notebook(notebook, actor=Principal(scientist), hours=25, now=T0)
    assert caught.value.code == "ttl_too_long"
    renewed = renew_notebook(notebook, actor=Principal(scientist), hours=24, now=T0)
    assert renewed.expires_at == T0 + timedelta(hours=24)


@pytest.mark.django_db
def test_an_expired_notebook_frees_its_slot(scientist, pool):
    ready(scientist, ttl=1)
    ready(scientist, ttl=1)
    expire_notebooks(now=T0 + timedelta(hours=2))
    assert ready(scientist, now=T0 + timedelta(hours=2)).state == NotebookState.READY


@pytest.mark.django_db
def test_expiring_twice_stops_once(scientist, pool):
    ready(scientist, ttl=1)
    later = T0 + timedelta(hours=2)
    assert expire_notebooks(now=later)["stopped"] == 1
    assert expire_notebooks(now=later)["stopped"] == 0
