"""In a real browser: a scientist creates an API token (its secret shown once), calls the
API with it as curl would, revokes it, and the API refuses it."""

import json
import urllib.error
import urllib.request

import pytest

from tests.e2e.browser import sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def _call(base_url: str, secret: str) -> int:
    """``curl -H "Authorization: Token $SECRET" $URL/api/v1/queues/``"""
    request = urllib.request.Request(
        f"{base_url}/api/v1/queues/", headers={"Authorization": f"Token {secret}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            json.load(response)
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_scientist_creates_uses_and_revokes_a_token(page, live_server, queue, scientist):
    sign_in(page, live_server.url, "scientist")
    page.click("nav a:has-text('API tokens')")
    page.fill("input[name=days]", "400")
    page.fill("input[name=name]", "laptop")
    page.click("button:has-text('Create token')")
    # The browser holds an expiry beyond 365 days back (the server's form error for it is
    # tested in apps/accounts/tests/test_token_page.py).
    assert page.locator("input[name=days]").evaluate("e => e.validity.rangeOverflow")
    assert "No tokens yet." in page.content()
    page.fill("input[name=days]", "30")
    page.click("button:has-text('Create token')")
    secret = page.locator("pre.secret").inner_text().strip()
    assert _call(live_server.url, secret) == 200
    page.goto(f"{live_server.url}/tokens/")
    assert secret not in page.content()  # shown once only
    row = page.locator("tr", has_text="laptop")
    assert "active" in row.inner_text()
    row.locator("button:has-text('Revoke')").click()
    assert "revoked" in page.locator("tr", has_text="laptop").inner_text()
    assert _call(live_server.url, secret) == 401
