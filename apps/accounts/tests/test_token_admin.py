"""Django admin lists and revokes tokens but cannot create one whose secret nobody sees."""

from apps.accounts.models import ApiToken
from apps.accounts.services import issue_api_token
from testkit.factories import UserFactory


def test_django_admin_offers_no_add_and_revokes_through_the_service(client, scientist):
    ops = UserFactory(username="ops", is_staff=True, is_superuser=True, is_platform_admin=True)
    token, _ = issue_api_token(scientist, "laptop", actor=scientist, days=30)
    client.force_login(ops)
    listing = client.get("/admin/accounts/apitoken/")
    assert listing.status_code == 200
    assert "/admin/accounts/apitoken/add/" not in listing.content.decode()
    assert client.get("/admin/accounts/apitoken/add/").status_code == 403
    client.post(
        "/admin/accounts/apitoken/",
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None
