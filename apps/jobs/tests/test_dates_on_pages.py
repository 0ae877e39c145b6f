"""Notebook pages show their dates in the portal's zone, with the zone."""

from datetime import UTC, datetime

import pytest

from apps.jobs.services import NotebookRequest, Principal, request_notebook
from testkit.notebooks import IMAGE

pytestmark = pytest.mark.django_db


def test_created_and_expires_carry_the_zone(settings, client, scientist, pool):
    at = datetime(2026, 12, 2, 10, 31, tzinfo=UTC)
    spec = NotebookRequest(image=IMAGE, flavor="h100", ttl_hours=2)
    notebook = request_notebook(scientist, spec, actor=Principal(scientist), now=at).record
    client.force_login(scientist)
    page = client.get(f"/notebooks/{notebook.pk}/").content.decode()
    assert "<th>Created</th><td>2026-12-02 10:31 UTC</td>" in page
    assert "<th>Expires</th><td>2026-12-02 12:31 UTC</td>" in page
    settings.TIME_ZONE = "Europe/Berlin"
    page = client.get(f"/notebooks/{notebook.pk}/").content.decode()
    assert "<th>Expires</th><td>2026-12-02 13:31 CET</td>" in page
