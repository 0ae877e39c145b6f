"""The API tokens page: create (the secret shown once), list, revoke; the token then works."""

from rest_framework.test import APIClient

from apps.accounts.models import ApiToken


def test_a_user_creates_a_token_sees_it_once_and_uses_it(client, queue, scientist):
    client.force_login(scientist)
    response = client.post("/tokens/", {"name": "laptop", "days": "30"})
    assert response.status_code == 201
    assert "no-store" in response["Cache-Control"]
    token = ApiToken.objects.get(user=scientist)
    secret = response.context["secret"]
    assert secret.startswith(token.prefix) and secret in response.content.decode()
    assert secret not in client.get("/tokens/").content.decode()  # shown once only
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    assert api.get("/api/v1/queues/").status_code == 200
    listing = client.get("/tokens/").content.decode()
    assert "laptop" in listing and token.prefix in listing


def test_a_user_revokes_a_token_and_the_api_refuses_it(client, queue, scientist):
    client.force_login(scientist)
    secret = client.post("/tokens/", {"name": "ci", "days": "7"}).context["secret"]
    token = ApiToken.objects.get(user=scientist)
    assert client.post(f"/tokens/{token.pk}/revoke/").status_code == 302
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    assert api.get("/api/v1/queues/").status_code == 401
    assert "revoked" in client.get("/tokens/").content.decode()


def test_bad_input_is_a_form_error_naming_the_field(client, scientist):
    client.force_login(scientist)
    for body, field in (
        ({"name": "x" * 101, "days": "30"}, "Name"),
        ({"name": "laptop", "days": "0"}, "Expires in (days)"),
        ({"name": "laptop", "days": "400"}, "Expires in (days)"),
        ({"name": "", "days": "30"}, "Name"),
    ):
        response = client.post("/tokens/", body)
        assert response.status_code == 200
        assert f"{field}: " in response.content.decode(), body
    assert not ApiToken.objects.exists()


def test_nobody_sees_or_revokes_someone_elses_token(client, scientist, lead):
    client.force_login(scientist)
    client.post("/tokens/", {"name": "mine", "days": "30"})
    token = ApiToken.objects.get(user=scientist)
    client.force_login(lead)
    assert "mine" not in client.get("/tokens/").content.decode()
    assert client.post(f"/tokens/{token.pk}/revoke/").status_code == 404
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None


def test_the_navigation_links_to_the_page(client, scientist):
    client.force_login(scientist)
    assert 'href="/tokens/"' in client.get("/tokens/").content.decode()
