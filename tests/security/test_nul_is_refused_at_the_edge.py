"""A NUL character anywhere in a request (path, query, form, JSON key or value) gets a 400
naming where it was, before any view runs, and nothing is written. PostgreSQL cannot store
or compare such strings, so each of these was a 500 wherever a view forgot to check."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.queues.models import AuditEntry, Cohort, Team
from testkit.clients import api_as


def _counts() -> tuple[int, int, int]:
    return AuditEntry.objects.count(), Cohort.objects.count(), Team.objects.count()


def _refused_naming(response, field: str) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid"
    assert body["field"] == field
    assert body["errors"] == {field: ["must not contain NUL characters"]}


JSON_CASES = [
    ("/api/v1/cohorts/", {"name": "deep", "parent": "research\x00"}, "parent"),
    ("/api/v1/teams/", {"slug": "audio", "namespaces": ["team-a", "team-\x00b"]}, "namespaces[1]"),
    ("/api/v1/flavors/", {"name": "l4", "node_labels": {"k\x00": "v"}}, "node_labels.k"),
]


@pytest.mark.parametrize(("url", "body", "field"), JSON_CASES, ids=[c[2] for c in JSON_CASES])
def test_a_json_body_with_nul_is_refused_naming_the_field(catalog, url, body, field):
    before = _counts()
    _refused_naming(api_as(catalog).post(url, body, format="json"), field)
    assert _counts() == before


def test_a_query_filter_with_nul_is_refused_naming_the_parameter(catalog, team):
    _refused_naming(api_as(catalog).get("/api/v1/audit/", {"team": "vision\x00"}), "team")


def test_a_path_argument_with_nul_is_refused(catalog, team):
    _refused_naming(api_as(catalog).get("/api/v1/teams/vision%00/"), "path")


def test_a_page_form_with_nul_is_refused_in_words_and_writes_nothing(catalog):
    browser = Client()
    browser.force_login(catalog)
    before = _counts()
    response = browser.post("/administration/cohorts/", {"name": "deep\x00", "parent": ""})
    assert response.status_code == 400
    assert response.content.decode() == "name: must not contain NUL characters. Nothing was saved."
    assert _counts() == before


def test_text_that_only_spells_a_nul_escape_is_accepted(catalog):
    # A literal backslash followed by "u0000" is ordinary text, not a NUL character.
    response = api_as(catalog).post(
        "/api/v1/cohorts/", {"name": "spelled", "description": "\\u0000"}, format="json"
    )
    assert response.status_code == 201, response.content
    assert Cohort.objects.get(name="spelled").description == "\\u0000"
