"""Expired and revoked tokens are refused by the API, through a real Authorization header."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts import token_cache
from apps.accounts.models import ApiToken
from apps.accounts.services import issue_api_token, revoke_api_token
from apps.queues.models import AuditEntry
from core.errors import DomainError


def client_with(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def test_a_token_works_until_it_expires(queue, scientist):
    token, raw = issue_api_token(scientist, "laptop", actor=scientist, days=30)
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)
    api = client_with(raw)
    assert api.get("/api/v1/queues/").status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    # Time passing needs no notification; this moves the clock by editing the row, which
    # other processes hear of on commit, a commit this test's transaction never makes.
    token_cache.invalidate()
    response = api.get("/api/v1/queues/")
    assert response.status_code == 401
    assert "expired" in response.json()["detail"].lower()


def test_a_revoked_token_is_refused_at_once_and_audited(queue, scientist):
    token, raw = issue_api_token(scientist, "laptop", actor=scientist, days=30)
    api = client_with(raw)
    assert api.get("/api/v1/queues/").status_code == 200
    assert revoke_api_token(token, actor=scientist) is True
    assert api.get("/api/v1/queues/").status_code == 401
    assert revoke_api_token(token, actor=scientist) is False  # twice: nothing more written
    rows = AuditEntry.objects.filter(object_type="apitoken", object_id=str(token.pk))
    assert sorted(rows.values_list("action", flat=True)) == ["create", "update"]
    assert all(raw not in str(row.after) and token.key_hash not in str(row.after) for row in rows)


@pytest.mark.parametrize("days", [0, -1, 366, 10_000])
def test_expiry_out_of_bounds_is_refused_naming_the_field(scientist, days):
    with pytest.raises(DomainError) as refused:
        issue_api_token(scientist, "laptop", actor=scientist, days=days)
    assert refused.value.field == "days"
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("name", ["", "   ", "x" * 101])
def test_a_bad_name_is_refused_naming_the_field(scientist, name):
    with pytest.raises(DomainError) as refused:
        issue_api_token(scientist, name, actor=scientist, days=30)
    assert refused.value.field == "name"


def test_nobody_issues_or_revokes_someone_elses_token(scientist, lead, admin):
    with pytest.raises(DomainError):
        issue_api_token(scientist, "sneaky", actor=lead, days=1)
    token, _ = issue_api_token(scientist, "laptop", actor=scientist, days=1)
    with pytest.raises(DomainError):
        revoke_api_token(token, actor=lead)
    assert revoke_api_token(token, actor=admin) is True
