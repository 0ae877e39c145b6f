"""Two admins disabling each other at the same moment leave one of them active: each
disable locks every active admin row (in pk order) before counting them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.accounts.models import User
from apps.users.services import disable_user, enable_user
from core.errors import RuleBroken
from testkit.factories import make_admin

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
ROUNDS = 5


def _race(first: User, second: User) -> list[str]:
    start = threading.Barrier(2)

    def disable(pair) -> str:
        target, actor = pair
        try:
            start.wait()
            return "disabled" if disable_user(target, actor=actor) else "already"
        except RuleBroken as exc:
            return exc.code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        return sorted(pool.map(disable, [(first, second), (second, first)]))


def test_two_admins_disabling_the_last_two_admins_leave_one():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers")
    ann, bob = make_admin("ann"), make_admin("bob")
    for _ in range(ROUNDS):
        assert _race(ann, bob) == ["disabled", "last_admin"]
        assert User.objects.filter(is_platform_admin=True, is_active=True).count() == 1
        survivor = User.objects.get(is_platform_admin=True, is_active=True)
        enable_user(User.objects.get(is_active=False), actor=survivor)
        ann.refresh_from_db()
        bob.refresh_from_db()
