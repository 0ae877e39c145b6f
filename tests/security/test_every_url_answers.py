"""Every URL pattern, as written and with a ``.json`` suffix, for GET and each write
method, as an anonymous caller, a token client and a signed-in admin: never a 5xx, and
every refusal on an API path or to a token client is JSON of the API's error shape (a
token client is never sent to the login form either).

The URLs are the authorization matrix's (``test_every_url_pattern_has_an_expectation``
keeps it complete), with its world's objects filled in; its rows' bodies are sent with
their own method, ``{}`` with the others. Django's admin site is left to its own test
there (staff only). Run with ``DEBUG`` on as well, as ``make run`` serves it, where
Django's own debug pages would otherwise answer.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.services import issue_api_token
from tests.security.test_authorization_matrix import (  # noqa: F401 (world: a fixture)
    MATRIX,
    _body,
    _is_admin_site,
    target_url,
    world,
)
from tests.security.urls import url_names

METHODS = ("get", "post", "put", "patch", "delete")
# Answers that are the server's to give: readiness says what it lacks.
# A quote of a job that could fit asks the cluster what Kueue would do; with no
# cluster to ask it answers `cluster_unavailable` (503), in the API's shape.
SERVICE_UNAVAILABLE_IS_AN_ANSWER = {"readyz", "quote-list"}


def suffixed(url: str) -> str:
    """``url`` as DRF's format suffix routes spelled it: ``/a/b/?q`` → ``/a/b.json?q``."""
    path, mark, query = url.partition("?")
    return f"{path.rstrip('/') or '/'}.json{mark}{query}"


def requests_of(name: str, objects: dict) -> list[tuple[str, str, object]]:
    """(method, URL, body) for every method on every URL the matrix has for ``name``,
    as written and suffixed."""
    bodies: dict[str, dict] = {url: {} for _, url, _, _ in MATRIX[name]}
    for method, url, body, _ in MATRIX[name]:
        bodies[url][method] = _body(body, objects["queue"])
    return [
        (method, spelled, sent.get(method, {}))
        for url, sent in bodies.items()
        for spelled in (target_url(url, objects), suffixed(target_url(url, objects)))
        for method in METHODS
    ]


def is_api(url: str) -> bool:
    return url.startswith("/api/")


def send(kind: str, objects: dict, token: str, method: str, url: str, body):
    client = APIClient()
    client.raise_request_exception = False  # a bug is a 500 to report, not a crash here
    if kind == "token":
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    elif kind == "session":
        client.force_login(objects["users"]["admin"])  # afresh: one URL is /logout/
    return getattr(client, method)(url, body, format="json" if is_api(url) else None)


def failure(name: str, kind: str, url: str, response) -> str | None:
    """Why the answer is wrong, or None."""
    status = response.status_code
    if status >= 500 and not (status == 503 and name in SERVICE_UNAVAILABLE_IS_AN_ANSWER):
        return f"{status} {response.content[:200]!r}"
    if kind == "token" and status in (301, 302) and "login/" in response.get("Location", ""):
        return f"{status} to the login form, an HTML page a script cannot read"
    if status < 400 or not (is_api(url) or kind == "token"):
        return None
    if response.get("Content-Type") != "application/json":
        return f"{status} answered as {response.get('Content-Type')}"
    body = response.json()
    if not {"code", "field", "detail"} <= set(body):
        return f"{status} without code/field/detail: {body}"
    return None


@pytest.fixture
def objects(db, request) -> dict:
    """The matrix's world: a queue, a change request, notebooks, a job, a report, a run."""
    return request.getfixturevalue("world")


@pytest.fixture
def lead_token(objects, settings) -> str:
    settings.API_RATE_USER = settings.API_RATE_ANON = "1000000/min"  # not the throttle's test
    return issue_api_token(objects["users"]["lead"], "walker", actor=None)[1]


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize("kind", ["anonymous", "token", "session"])
def test_no_url_answers_a_5xx_or_an_api_error_outside_the_shape(
    objects, lead_token, settings, kind, debug
):
    settings.DEBUG = debug
    names = sorted(n for n in url_names() if not _is_admin_site(n))
    assert set(names) <= set(MATRIX)
    wrong = [
        f"{method.upper()} {url}: {why}"
        for name in names
        for method, url, body in requests_of(name, objects)
        if (why := failure(name, kind, url, send(kind, objects, lead_token, method, url, body)))
    ]
    assert not wrong, "\n".join(wrong)
