"""Every form the portal renders carries a CSRF token, and every form's POST
without one is refused with 403."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from testkit.factories import quota, set_policy

FORM = re.compile(r"<form\b[^>]*>.*?</form>", re.S | re.I)
POST = re.compile(r'method=["\']?post', re.I)
ACTION = re.compile(r'<form\b[^>]*\saction=["\']([^"\']*)["\']', re.I)
# A submit button may send the same form elsewhere (the edit form's What-if button).
FORMACTION = re.compile(r'\sformaction=["\']([^"\']*)["\']', re.I)


def page_paths(queue, change_request) -> dict[str, list[str]]:
    """Pages with forms, by persona that can open them."""
    return {
        "anonymous": ["/login/"],
        "lead": [
            f"/queues/{queue.pk}/edit/",
            f"/queues/{queue.pk}/",
            "/",
            "/notifications/",
        ],
        "admin": [f"/change-requests/{change_request.pk}/", "/cluster/", "/audit/"],
    }


@pytest.fixture
def world(queue, lead, admin, envelope):
    change_request = set_policy(queue, lead, quotas=[quota("h100", "40")]).change_request
    return {"queue": queue, "cr": change_request, "users": {"lead": lead, "admin": admin}}


def _forms(client: Client, path: str) -> list[tuple[str, str]]:
    response = client.get(path)
    assert response.status_code == 200, path
    html = response.content.decode()
    found = []
    for form in FORM.findall(html):
        action = (ACTION.search(form) or [None, path])[1] or path
        found += [(form, target) for target in [action, *FORMACTION.findall(form)]]
    return found


@pytest.mark.django_db
def test_every_post_form_has_a_token_and_refuses_a_post_without_one(world):
    posted = set()
    for persona, paths in page_paths(world["queue"], world["cr"]).items():
        client = Client(enforce_csrf_checks=True)
        if persona != "anonymous":
            client.force_login(world["users"][persona])
        for path in paths:
            for form, action in _forms(client, path):
                if not POST.search(form):
                    continue
                assert 'name="csrfmiddlewaretoken"' in form, f"form to {action} on {path}"
                response = client.post(action, {})
                assert response.status_code == 403, f"POST {action} without a token"
                posted.add(action)
    # The sign-in, sign-out, edit, decide, import and preferences forms were all seen.
    assert {"/logout/", "/cluster/import/", "/notifications/"} <= posted
    assert any(a.endswith("/decide/") for a in posted) and any("/edit/" in a for a in posted)


@pytest.mark.django_db
def test_the_api_with_a_session_needs_the_token_too(queue, lead):
    client = Client(enforce_csrf_checks=True)
    client.force_login(lead)
    response = client.post(
        f"/api/v1/queues/{queue.pk}/preview/", {"version": 1}, content_type="application/json"
    )
    assert response.status_code == 403 and "CSRF" in response.content.decode()
