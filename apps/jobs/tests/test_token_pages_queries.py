"""The API tokens and launchers pages cost a fixed number of queries, however many tokens."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.services import issue_api_token
from apps.jobs.services import issue_launcher_token
from testkit.factories import UserFactory


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_tokens_page_does_not_grow_with_tokens(client, admin):
    client.force_login(admin)
    issue_api_token(admin, "first", actor=admin, days=1)
    small = _queries(client, "/tokens/")
    for n in range(6):
        issue_api_token(admin, f"t{n}", actor=admin, days=1)
    assert _queries(client, "/tokens/") == small


def test_the_launchers_page_does_not_grow_with_launchers(client, admin, team, other_team):
    client.force_login(admin)
    hub = UserFactory(username="jupyterhub")
    issue_launcher_token(hub, "first", ["vision"], actor=admin, days=1)
    small = _queries(client, "/launchers/")
    for n in range(6):
        issue_launcher_token(hub, f"hub{n}", ["vision", "nlp"], actor=admin, days=1)
    assert _queries(client, "/launchers/") == small
