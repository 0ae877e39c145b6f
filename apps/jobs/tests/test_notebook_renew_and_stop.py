"""Renew by chosen hours (page and API, bounded by the pool's maximum); Stop asks first."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs.choices import NotebookState
from apps.jobs.models import Notebook
from apps.jobs.services import NotebookRequest, Principal, request_notebook
from apps.queues.models import AuditEntry
from testkit.clients import api_as
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db


@pytest.fixture
def notebook(scientist, pool):
    spec = NotebookRequest(image=IMAGE, flavor="h100", ttl_hours=2)
    return request_notebook(scientist, spec, actor=Principal(scientist)).record


@pytest.fixture
def browser(client, scientist):
    client.force_login(scientist)
    return client


def renewals(notebook) -> int:
    rows = AuditEntry.objects.filter(object_type="notebook", object_id=str(notebook.pk))
    return rows.filter(reason__startswith="renewed").count()


def test_renewing_for_chosen_hours_sets_the_expiry_that_far_from_now(browser, notebook):
    before = timezone.now()
    response = browser.post(f"/notebooks/{notebook.pk}/renew/", {"hours": "5"})
    after = timezone.now()
    assert response.status_code == 302
    notebook.refresh_from_db()
    assert before + timedelta(hours=5) <= notebook.expires_at <= after + timedelta(hours=5)


def test_the_renew_field_offers_exactly_the_pools_range(browser, notebook, pool):
    page = browser.get(f"/notebooks/{notebook.pk}/").content.decode()
    (field,) = re.findall(r'<input type="number" name="hours"[^>]*>', page)
    assert f'value="{pool.default_ttl_hours}"' in field
    assert 'min="1"' in field and f'max="{pool.max_ttl_hours}"' in field


@pytest.mark.parametrize(
    ("hours", "rule"),
    [
        ("25", "less than or equal to 24"),  # the pool's default maximum is 24 h
        ("0", "greater than or equal to 1"),
        ("two", "Enter a whole number"),
    ],
)
def test_hours_out_of_bounds_are_refused_on_the_page_and_nothing_changes(
    browser, notebook, hours, rule
):
    due = notebook.expires_at
    response = browser.post(f"/notebooks/{notebook.pk}/renew/", {"hours": hours})
    page = response.content.decode()
    assert response.status_code == 200
    assert "Renew for (hours)" in page and rule in page
    notebook.refresh_from_db()
    assert notebook.expires_at == due and renewals(notebook) == 0


@pytest.mark.parametrize(
    ("hours", "code"), [(25, "ttl_too_long"), (0, "invalid"), ("two", "invalid")]
)
def test_the_api_names_the_hours_field_when_out_of_bounds(scientist, notebook, hours, code):
    due = notebook.expires_at
    response = api_as(scientist).post(
        f"/api/v1/notebooks/{notebook.pk}/renew/", {"hours": hours}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == code and response.json()["field"] == "hours"
    notebook.refresh_from_db()
    assert notebook.expires_at == due and renewals(notebook) == 0


def test_the_api_renews_for_the_hours_asked(scientist, notebook):
    before = timezone.now()
    response = api_as(scientist).post(
        f"/api/v1/notebooks/{notebook.pk}/renew/", {"hours": 24}, format="json"
    )
    assert response.status_code == 200
    notebook.refresh_from_db()
    assert notebook.expires_at >= before + timedelta(hours=24)


def test_stop_asks_for_confirmation_and_only_the_confirming_post_stops(browser, notebook):
    url = f"/notebooks/{notebook.pk}/stop/"
    detail = browser.get(f"/notebooks/{notebook.pk}/").content.decode()
    assert f'<form method="get" action="{url}">' in detail  # Stop is a step, not the act
    asked = browser.get(url)
    assert asked.status_code == 200 and 'name="confirm"' in asked.content.decode()
    assert browser.post(url, {}).status_code == 200  # a POST without the confirmation asks
    assert Notebook.objects.get(pk=notebook.pk).state == NotebookState.REQUESTED
    response = browser.post(url, {"confirm": "yes"})
    assert response.status_code == 302 and response["Location"] == f"/notebooks/{notebook.pk}/"
    assert Notebook.objects.get(pk=notebook.pk).state == NotebookState.STOPPED


def test_the_confirmation_page_of_an_ended_notebook_says_so(browser, notebook):
    browser.post(f"/notebooks/{notebook.pk}/stop/", {"confirm": "yes"})
    page = browser.get(f"/notebooks/{notebook.pk}/stop/").content.decode()
    assert "has already ended (Stopped)" in page and 'name="confirm"' not in page


def test_renewing_an_ended_notebook_says_why_and_changes_nothing(browser, notebook):
    browser.post(f"/notebooks/{notebook.pk}/stop/", {"confirm": "yes"})
    due = Notebook.objects.get(pk=notebook.pk).expires_at
    response = browser.post(f"/notebooks/{notebook.pk}/renew/", {"hours": "3"}, follow=True)
    assert "the notebook has already stopped" in response.content.decode()
    assert Notebook.objects.get(pk=notebook.pk).expires_at == due and renewals(notebook) == 0
