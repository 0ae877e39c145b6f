"""A personal API token opens the CSV/JSON downloads, scoped to its user's teams as the
pages are; it never opens a page, and a bad token is a 401, not a login redirect."""

from __future__ import annotations

import json
from datetime import timedelta

from django.test import Client
from django.utils import timezone

from apps.accounts.models import ApiToken
from apps.accounts.services import issue_api_token, revoke_api_token
from apps.reports.tests.test_pages_and_api import teams_in
from testkit.promdata import WEEK

JSON_URL, CSV_URL = f"/reports/{WEEK}/report.json", f"/reports/{WEEK}/report.csv"


def with_token(raw: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {raw}")


def token_of(user, name: str = "exports") -> str:
    return issue_api_token(user, name, actor=user)[1]


def csv_text(response) -> str:
    return b"".join(response.streaming_content).decode()


def test_a_members_token_downloads_only_their_teams(stored, scientist, other_lead):
    for user, team, other in ((scientist, "vision", "nlp"), (other_lead, "nlp", "vision")):
        client = with_token(token_of(user))
        body = client.get(JSON_URL)
        assert body.status_code == 200 and teams_in(json.loads(body.content)) == {team}
        text = csv_text(client.get(CSV_URL))
        assert text.startswith("week,section,row,field,value")
        assert f",{team}\r\n" in text and f",{other}\r\n" not in text


def test_an_admins_token_downloads_every_team(stored, admin):
    body = with_token(token_of(admin)).get(JSON_URL)
    assert teams_in(json.loads(body.content)) == {"vision", "nlp"}


def test_bearer_works_as_token_does(stored, scientist):
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token_of(scientist)}")
    assert client.get(JSON_URL).status_code == 200


def test_a_revoked_expired_or_unknown_token_is_a_401_in_the_api_shape(stored, scientist):
    revoked, expired = token_of(scientist, "revoked"), token_of(scientist, "expired")
    revoke_api_token(ApiToken.objects.get(name="revoked"), actor=scientist)
    ApiToken.objects.filter(name="expired").update(expires_at=timezone.now() - timedelta(minutes=1))
    for raw in (revoked, expired, "not-a-token"):
        response = with_token(raw).get(CSV_URL)
        assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
        body = response.json()
        assert body["code"] == "authentication_failed" and body["field"] is None


def test_a_token_does_not_open_the_pages(stored, scientist):
    # A token client gets the API's JSON refusal, never the HTML sign-in form.
    response = with_token(token_of(scientist)).get(f"/reports/{WEEK}/")
    assert response.status_code == 401 and response["Content-Type"] == "application/json"


def test_without_a_token_the_session_still_decides(stored, client, scientist):
    assert client.get(CSV_URL)["Location"].startswith("/login/")
    client.force_login(scientist)
    assert teams_in(json.loads(client.get(JSON_URL).content)) == {"vision"}
