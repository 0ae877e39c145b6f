"""``manage.py create_token`` prints the secret once; ``revoke_token`` ends it."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from apps.accounts.models import ApiToken


def _run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def _status(secret: str) -> int:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    return api.get("/api/v1/queues/").status_code


def test_create_token_prints_a_working_secret_and_revoke_token_ends_it(queue, scientist):
    secret = _run("create_token", "--user", "scientist", "--name", "laptop", "--days", "30")
    token = ApiToken.objects.get(user=scientist, name="laptop")
    assert secret.startswith(token.prefix) and token.expires_at is not None
    assert _status(secret) == 200
    _run("revoke_token", "--user", "scientist", "--name", "laptop")
    assert _status(secret) == 401


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("--user", "nobody", "--name", "x"), "--user"),
        (("--user", "scientist", "--name", "x", "--days", "0"), "--days"),
        (("--user", "scientist", "--name", "x" * 101), "--name"),
    ],
)
def test_create_token_refuses_bad_input_naming_the_option(scientist, args, field):
    with pytest.raises(CommandError, match=field):
        _run("create_token", *args)
    assert not ApiToken.objects.exists()
