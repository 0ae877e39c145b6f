"""A JSON body nested deeper than 64 levels gets a 400 naming the rule, on every URL,
before sign-in and before anything parses it; nothing is written. Python's JSON parser
recurses per level: a few thousand levels posted to /healthz by anyone, or about a
thousand in a signed-in API body, were a 500 (``RecursionError``)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.queues.models import AuditEntry, Cohort
from portal.json_depth import MAX_DEPTH, nesting_exceeds
from tests.security.test_authorization_matrix import (  # noqa: F401 (world: a fixture)
    MATRIX,
    target_url,
    world,
)

WRITES = ("post", "put", "patch", "delete")

RULE = 'must not nest arrays and objects more than 64 levels deep (e.g. {"a": [1]} is 2 levels)'


def nested(levels: int, inner: str = '"x"') -> str:
    """``{"a": [[…inner…]]}``: ``levels`` arrays and objects, one inside the other."""
    return '{"a":' + "[" * (levels - 1) + inner + "]" * (levels - 1) + "}"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def assert_refused_as_json(response) -> None:
    assert response.status_code == 400, response.content[:300]
    assert response.json() == {
        "code": "invalid",
        "field": "body",
        "detail": f"body: {RULE}",
        "errors": {"body": [RULE]},
    }


@pytest.mark.django_db
def test_an_anonymous_deep_body_with_a_nul_is_refused_on_healthz():
    body = nested(5000, '"\\u0000"')
    response = Client().post("/healthz", body, content_type="application/json")
    assert response.status_code == 400
    assert response.content.decode() == f"body: {RULE}. Nothing was saved."


@pytest.mark.django_db
def test_an_anonymous_deep_body_to_the_api_is_refused_before_sign_in():
    response = Client().post("/api/v1/cohorts/", nested(5000), content_type="application/json")
    assert_refused_as_json(response)


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1000, 5000])
def test_a_signed_in_deep_body_is_refused_and_writes_nothing(catalog, levels):
    before = Cohort.objects.count(), AuditEntry.objects.count()
    arrays = nested(levels)[len('{"a":') : -1]  # levels - 1 of them, in one more object
    body = '{"name": "deep", "description": ' + arrays + "}"
    response = signed_in(catalog).post("/api/v1/cohorts/", body, content_type="application/json")
    assert_refused_as_json(response)
    assert (Cohort.objects.count(), AuditEntry.objects.count()) == before


def test_every_url_refuses_a_deep_body_before_its_view(db, request):
    objects = request.getfixturevalue("world")  # the matrix's objects, for the paths
    urls = {target_url(url, objects) for rows in MATRIX.values() for _, url, _, _ in rows}
    assert len(urls) > 100
    answers = {
        (method, url): getattr(Client(), method)(url, nested(1000), content_type="application/json")
        for url in sorted(urls)
        for method in WRITES
    }
    wrong = [where for where, response in answers.items() if not names_the_rule(response)]
    assert not wrong


def names_the_rule(response) -> bool:
    if response.status_code != 400:
        return False
    if response["Content-Type"] == "application/json":
        return response.json()["detail"] == f"body: {RULE}"
    return response.content.decode() == f"body: {RULE}. Nothing was saved."


def test_a_deep_body_to_a_form_page_is_refused_in_words(catalog):
    response = signed_in(catalog).post(
        "/administration/cohorts/", nested(2000), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.content.decode() == f"body: {RULE}. Nothing was saved."


def test_a_body_at_the_limit_reaches_the_endpoint(catalog):
    # 64 levels pass the edge; the endpoint then refuses the odd description itself.
    body = json.dumps({"name": "deep", "description": json.loads(nested(MAX_DEPTH - 1))})
    response = signed_in(catalog).post("/api/v1/cohorts/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["field"] == "description"


def test_brackets_inside_strings_do_not_count(catalog):
    text = "[" * 500 + '\\"{' * 100
    body = json.dumps({"name": "brackets", "description": text})
    response = signed_in(catalog).post("/api/v1/cohorts/", body, content_type="application/json")
    assert response.status_code == 201, response.content
    assert Cohort.objects.get(name="brackets").description == text


@pytest.mark.parametrize(
    ("document", "too_deep"),
    [
        (b"[" * 65 + b"]" * 65, True),
        (b"[" * 64 + b"]" * 64, False),
        (b"[]" * 10_000, False),  # wide, not deep
        (b'["' + b"[" * 100 + b'"]', False),  # in a string
        (b'"\\"' + b"[" * 100, False),  # an escaped quote does not end the string...
        (b'"\\\\"' + b"[" * 100, True),  # ...an escaped backslash does
        (b'"' + b"\\" * 100_001 + b"[" * 100, False),  # unterminated: all string
        (b'"\\"' * 100_000 + b"[" * 100, False),  # every quote escaped: one long string
    ],
)
def test_nesting_is_measured_outside_strings(document, too_deep):
    assert nesting_exceeds(document, MAX_DEPTH) is too_deep
