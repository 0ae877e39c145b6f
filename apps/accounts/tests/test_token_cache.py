"""Resolved API tokens are reused per process, and forgotten the moment anyone revokes one."""

import psycopg
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts import token_cache
from apps.accounts.services import issue_api_token, revoke_api_token
from apps.accounts.tests.test_api_tokens import client_with
from testkit.waiting import wait_until

pytestmark = pytest.mark.postgres_only


def elsewhere() -> psycopg.Connection:
    """A connection of its own, as another web process or a psql session would have."""
    settings = connection.settings_dict
    return psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"],
        autocommit=True,
    )


def token_reads(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/v1/queues/").status_code == 200
    return sum('FROM "accounts_apitoken"' in q["sql"] for q in queries.captured_queries)


@pytest.fixture
def listening(settings):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    settings.QM_API_TOKEN_CACHE_SECONDS = 3600  # only a notification can end an entry here
    wait_until(token_cache.is_live)


def test_a_token_is_read_once_then_reused(listening, queue, scientist):
    _, raw = issue_api_token(scientist, "laptop", actor=scientist)
    client = client_with(raw)
    assert token_reads(client) == 1
    assert token_reads(client) == 0


def test_revoking_in_this_process_refuses_the_token_at_once(listening, queue, scientist):
    token, raw = issue_api_token(scientist, "laptop", actor=scientist)
    assert client_with(raw).get("/api/v1/queues/").status_code == 200
    revoke_api_token(token, actor=None)
    assert client_with(raw).get("/api/v1/queues/").status_code == 401


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "change",
    [
        "UPDATE accounts_apitoken SET revoked_at = now() WHERE id = {token}",
        "DELETE FROM accounts_apitoken WHERE id = {token}",
        "UPDATE accounts_user SET is_active = false WHERE id = {user}",
    ],
)
def test_a_change_made_elsewhere_reaches_this_process(listening, queue, scientist, change):
    token, raw = issue_api_token(scientist, "laptop", actor=scientist)
    client = client_with(raw)
    assert token_reads(client) == 1 and token_reads(client) == 0
    with elsewhere() as other:
        other.execute(change.format(token=token.pk, user=scientist.pk))
    wait_until(lambda: client.get("/api/v1/queues/").status_code == 401, timeout=5)


@pytest.mark.django_db(transaction=True)
def test_its_own_last_used_writes_notify_nobody(listening, scientist):
    token, _ = issue_api_token(scientist, "laptop", actor=scientist)
    other_token, _ = issue_api_token(scientist, "old", actor=scientist)
    with elsewhere() as listener, elsewhere() as writer:
        listener.execute(f"LISTEN {token_cache.CHANNEL}")
        writer.execute(f"UPDATE accounts_apitoken SET last_used_at = now() WHERE id = {token.pk}")
        writer.execute(f"UPDATE accounts_user SET last_login = now() WHERE id = {scientist.pk}")
        writer.execute(f"DELETE FROM accounts_apitoken WHERE id = {other_token.pk}")
        # Notifications arrive in commit order: the first one heard must be the delete.
        (first,) = list(listener.notifies(stop_after=1, timeout=5))
    assert first.payload == "DELETE accounts_apitoken"


@pytest.mark.django_db(transaction=True)
def test_a_listener_that_lost_its_connection_comes_back_with_an_empty_cache(
    listening, queue, scientist
):
    _, raw = issue_api_token(scientist, "laptop", actor=scientist)
    client = client_with(raw)
    assert token_reads(client) == 1 and token_reads(client) == 0
    before = token_cache._current().backend_pid
    with elsewhere() as other:  # what a database restart does to it
        other.execute("SELECT pg_terminate_backend(%s)", [before])
    wait_until(lambda: token_cache.is_live() and token_cache._current().backend_pid != before)
    assert token_reads(client) == 1  # what it held may have been revoked meanwhile
