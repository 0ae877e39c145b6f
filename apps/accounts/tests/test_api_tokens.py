"""API tokens: shown once, stored hashed, revocable, with last-used time."""

from rest_framework.test import APIClient

from apps.accounts.models import ApiToken, hash_token
from apps.accounts.services import issue_api_token, revoke_api_token


def client_with(raw: str, scheme: str = "Token") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {raw}")
    return client


def test_a_token_authenticates_and_records_its_use(queue, scientist):
    token, raw = issue_api_token(scientist, "laptop", actor=scientist)
    assert token.key_hash == hash_token(raw) and raw not in token.key_hash
    assert client_with(raw).get("/api/v1/queues/").status_code == 200
    assert client_with(raw, "Bearer").get("/api/v1/queues/").status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_revoked_or_wrong_token_is_refused(queue, scientist):
    token, raw = issue_api_token(scientist, "laptop", actor=scientist)
    revoke_api_token(token, actor=None)
    assert client_with(raw).get("/api/v1/queues/").status_code == 401
    assert client_with("not-a-token").get("/api/v1/queues/").status_code == 401
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None
