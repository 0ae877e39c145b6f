"""``manage.py create_platform_admin``: the first admin, idempotent, audited."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.accounts.models import User
from apps.queues.models import AuditEntry
from testkit.factories import UserFactory

PASSWORD = "correct horse battery staple"


def run(*args: str) -> str:
    out = StringIO()
    call_command("create_platform_admin", *args, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def user_audit() -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(object_type="user").order_by("pk"))


@pytest.mark.django_db
def test_it_creates_an_admin_who_can_sign_in_and_it_is_audited(client, monkeypatch):
    monkeypatch.setenv("FIRST_ADMIN_PASSWORD", PASSWORD)
    assert (
        run("alice", "--password-env", "FIRST_ADMIN_PASSWORD") == "alice is now a platform admin."
    )
    assert User.objects.get(username="alice").is_platform_admin
    assert client.login(username="alice", password=PASSWORD)
    assert client.get("/administration/").status_code == 200
    (entry,) = user_audit()
    assert entry.action == "create" and entry.actor_name == "system"
    assert entry.after == {"username": "alice", "is_platform_admin": True}


@pytest.mark.django_db
def test_running_it_again_changes_nothing(monkeypatch):
    monkeypatch.setenv("FIRST_ADMIN_PASSWORD", PASSWORD)
    run("alice", "--password-env", "FIRST_ADMIN_PASSWORD")
    hashed = User.objects.get(username="alice").password
    monkeypatch.setenv("FIRST_ADMIN_PASSWORD", "another long passphrase")
    output = run("alice", "--password-env", "FIRST_ADMIN_PASSWORD")
    assert output == "alice was a platform admin already; nothing changed."
    assert User.objects.get(username="alice").password == hashed
    assert len(user_audit()) == 1


@pytest.mark.django_db
def test_an_existing_user_is_promoted_and_keeps_their_password():
    bob = UserFactory(username="bob")
    hashed = bob.password
    assert run("bob") == "bob is now a platform admin."
    bob.refresh_from_db()
    assert bob.is_platform_admin and bob.password == hashed
    (entry,) = user_audit()
    assert entry.changes == [{"field": "is_platform_admin", "before": False, "after": True}]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (
            ("carol", "--password-env", "PW"),
            {"PW": "12345678"},
            "--password-env: This password is too common.",
        ),
        (
            ("carol", "--password-env", "PW"),
            {},
            "--password-env: environment variable PW is not set",
        ),
        (("carol",), {}, "password: no terminal to ask on; use --password-env VAR"),
        (
            ("bad name!", "--password-env", "PW"),
            {"PW": PASSWORD},
            "username: Enter a valid username.",
        ),
    ],
)
def test_bad_input_is_named_and_nothing_is_written(args, env, message, monkeypatch):
    monkeypatch.delenv("PW", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(CommandError) as raised:
        run(*args)
    assert str(raised.value).startswith(message)
    assert not User.objects.exists() and not user_audit()
