"""Failed sign-ins lock a username, and a client address, out for a while: audited, logged,
and refused before the password is checked, whether or not the account exists."""

import time

import pytest
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.test import Client

from apps.accounts.models import User
from apps.queues.models import AuditEntry
from core.audit import AuditAction
from testkit.factories import UserFactory

pytestmark = pytest.mark.django_db

LOCKED = "Too many failed sign-in attempts"


@pytest.fixture
def alice(db) -> User:
    return UserFactory(username="alice", password="right-password")


def sign_in(username: str, password: str, url: str = "/login/", **request) -> str:
    """'in', 'locked', 'refused' (a wrong password, or a form error) or 'unreadable' (400)."""
    response = Client().post(url, {"username": username, "password": password}, **request)
    if response.status_code == 302:
        return "in"
    if response.status_code == 400:
        return "unreadable"
    assert response.status_code == 200, response.status_code
    return "locked" if LOCKED in response.content.decode() else "refused"


def lockouts() -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(action=AuditAction.LOGIN_LOCKOUT).order_by("pk"))


def test_wrong_passwords_lock_the_account_after_the_threshold(alice):
    outcomes = [sign_in("alice", f"guess-{n}") for n in range(100)]
    assert outcomes == ["refused"] * 5 + ["locked"] * 95
    assert sign_in("alice", "right-password") == "locked"
    assert len(lockouts()) == 1


def test_a_locked_attempt_never_checks_the_password(alice):
    checked = []

    def count(**kwargs):
        checked.append(kwargs)

    for _ in range(5):
        sign_in("alice", "wrong")
    user_login_failed.connect(count)
    user_logged_in.connect(count)
    try:
        assert sign_in("alice", "right-password") == "locked"
        assert sign_in("alice", "wrong") == "locked"
    finally:
        user_login_failed.disconnect(count)
        user_logged_in.disconnect(count)
    assert checked == []


def test_the_right_password_works_again_once_the_lockout_ends(alice, settings):
    settings.QM_LOGIN_LOCKOUT_SECONDS = 1
    for _ in range(5):
        sign_in("alice", "wrong")
    assert sign_in("alice", "right-password") == "locked"
    deadline = time.monotonic() + 15
    while (outcome := sign_in("alice", "right-password")) == "locked":
        assert time.monotonic() < deadline, "still locked out long after the lockout"
        time.sleep(0.1)
    assert outcome == "in"


def test_a_right_password_clears_the_accounts_count(alice):
    for _ in range(4):
        assert sign_in("alice", "wrong") == "refused"
    assert sign_in("alice", "right-password") == "in"
    for _ in range(4):
        assert sign_in("alice", "wrong") == "refused"
    assert sign_in("alice", "right-password") == "in"


def test_one_address_guessing_many_usernames_is_locked_out(alice):
    for n in range(20):
        assert sign_in(f"user{n}", "wrong") == "refused"
    assert sign_in("alice", "right-password") == "locked"
    # Another address, and the same user elsewhere, are unaffected.
    assert sign_in("alice", "right-password", REMOTE_ADDR="198.51.100.7") == "in"


def test_a_spoofed_forwarded_for_does_not_escape_the_address_lockout(alice):
    for n in range(20):
        sign_in(f"user{n}", "wrong", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
    assert sign_in("alice", "right-password", HTTP_X_FORWARDED_FOR="203.0.113.99") == "locked"


def test_an_ipv6_host_rotating_addresses_in_its_64_is_locked_out_as_one(alice):
    for n in range(20):
        sign_in(f"user{n}", "wrong", REMOTE_ADDR=f"2001:db8:1:2::{n + 1:x}")
    assert sign_in("alice", "right-password", REMOTE_ADDR="2001:db8:1:2:ffff::9") == "locked"
    assert sign_in("alice", "right-password", REMOTE_ADDR="2001:db8:1:3::1") == "in"
    address_lockout = [e for e in lockouts() if e.after["scope"] == "address"]
    assert [e.object_repr for e in address_lockout] == ["sign-in from 2001:db8:1:2::/64"]


def test_behind_a_trusted_proxy_each_client_counts_apart(alice, settings):
    settings.QM_TRUSTED_PROXIES = ["127.0.0.1/32"]
    for n in range(20):
        sign_in(f"user{n}", "wrong", HTTP_X_FORWARDED_FOR="203.0.113.1")
    assert sign_in("bob", "wrong", HTTP_X_FORWARDED_FOR="203.0.113.1") == "locked"
    assert sign_in("alice", "right-password", HTTP_X_FORWARDED_FOR="203.0.113.2") == "in"


def test_an_unknown_username_locks_out_alike(alice):
    unknown = [sign_in("nobody", "wrong") for _ in range(6)]
    known = [sign_in("alice", "wrong") for _ in range(6)]
    assert unknown == known == ["refused"] * 5 + ["locked"]
    nobody, alice_entry = lockouts()
    assert nobody.object_type == alice_entry.object_type == "login"
    assert nobody.actor is None and alice_entry.actor is None
    assert nobody.after.keys() == alice_entry.after.keys()


def test_each_lockout_is_audited_for_admins_only_and_logged(alice, lead, caplog):
    for _ in range(5):
        sign_in("alice", "wrong", REMOTE_ADDR="198.51.100.7")
    for n in range(20):
        sign_in(f"user{n}", "wrong", REMOTE_ADDR="203.0.113.5")
    account, address = lockouts()
    assert account.after["scope"] == "account" and account.after["username"] == "alice"
    assert account.after["address"] == "198.51.100.7"
    assert address.after["scope"] == "address" and address.object_repr == "sign-in from 203.0.113.5"
    assert account.team is None and "refused until" in account.reason
    assert not AuditEntry.objects.visible_to(lead).filter(action=AuditAction.LOGIN_LOCKOUT)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("sign-in as 'alice' locked out" in message for message in warnings)
    assert any("sign-in from 203.0.113.5 locked out" in message for message in warnings)


def test_the_admin_sites_sign_in_locks_out_too(db):
    UserFactory(username="ops", password="right-password", is_staff=True, is_superuser=True)
    for _ in range(5):
        assert sign_in("ops", "wrong", url="/admin/login/") == "refused"
    assert sign_in("ops", "right-password", url="/admin/login/") == "locked"
    assert sign_in("ops", "right-password") == "locked"  # one count for both doors


@pytest.mark.parametrize(
    "username",
    ["", " ", "x" * 10_000, "ünïcødé-名前-🔑", "a\x00b", "'; DROP TABLE users; --"],
)
def test_odd_usernames_are_refused_never_a_server_error(alice, username):
    for _ in range(7):
        # A NUL byte never reaches the form: the request is refused at the edge.
        assert sign_in(username, "wrong") in {"refused", "locked", "unreadable"}
    assert sign_in("alice", "right-password") == "in"


def test_a_username_that_is_not_utf8_is_refused_never_a_server_error(alice):
    body = "username=%FF%FE%80&password=wrong"
    for _ in range(7):
        response = Client().post("/login/", body, content_type="application/x-www-form-urlencoded")
        assert response.status_code == 200
    assert sign_in("alice", "right-password") == "in"


def test_sign_in_goes_on_without_counts_while_redis_is_unreachable(alice, settings, caplog):
    # Port 1 on loopback: nothing listens there, so every cache call fails to connect.
    settings.CACHES = {
        **settings.CACHES,
        "shared": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        },
    }
    assert [sign_in("alice", f"guess-{n}") for n in range(8)] == ["refused"] * 8
    assert sign_in("alice", "right-password") == "in"
    assert "sign-in counts unavailable" in caplog.text
