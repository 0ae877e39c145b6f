"""The demo is seeded on the first start only: a restart changes nothing a user did, and
the demo's users (published passwords) are never created when QM_ENV=production."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.accounts.models import ApiToken, User
from apps.accounts.services import issue_api_token, revoke_api_token
from apps.queues import services
from apps.queues.models import AuditEntry, DemoSeed, Membership, Queue
from apps.queues.snapshots import queue_snapshot
from core.roles import TeamRole
from portal import embedded
from portal.demo.logins import NEVER_LOADED

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_cluster(settings):
    settings.QM_CLUSTER_SYNC = False  # the portal's side of start-up; no cluster to seed


def _start(*, seeded: bool = True) -> str:
    """What ``make run`` runs before its web server and worker, with a cluster (seed_demo)
    or without one (load_demo): the launcher's own list of commands."""
    out = StringIO()
    for command in embedded.PREPARE_SEEDED if seeded else embedded.PREPARE_UNSEEDED:
        call_command(*command, stdout=out)
    return out.getvalue()


def _vision() -> dict:
    return queue_snapshot(Queue.objects.with_policy().get(name="vision"))


def _user_changes() -> dict:
    admin, vera, alice = (User.objects.get(username=n) for n in ("admin", "vera", "alice"))
    vision = Queue.objects.get(name="vision")
    # A lead's quota change within the envelope, applied at once ...
    quotas = [dict(q) for q in _vision()["quotas"]]
    quotas[0]["nominal"] = "20"
    services.save_queue_policy(
        vision, {"quotas": quotas}, actor=vera, expected_version=_vision()["version"]
    )
    # ... and one beyond it, approved by the admin.
    outcome = services.save_queue_policy(
        vision, {"fair_weight": "3"}, actor=vera, expected_version=_vision()["version"]
    )
    services.approve_change_request(outcome.change_request, actor=admin, comment="ok")
    carol = User.objects.create_user("carol", password="carol-own-pass")
    services.add_membership(team=vision.team, user=carol, role=TeamRole.SCIENTIST, actor=admin)
    token, _ = issue_api_token(alice, "laptop", actor=alice, days=30)
    revoke_api_token(token, actor=alice)
    vera.set_password("vera-changed-it")
    vera.save()
    return {"snapshot": _vision(), "token": token.pk}


def test_restarts_keep_every_user_change_and_write_nothing(settings):
    first = _start()
    assert "admin-demo-pass" in first and DemoSeed.objects.get().loaded
    shown = embedded.logins_to_show(first)
    assert shown[0] == "Logins:" and "  admin    / admin-demo-pass    (platform admin)" in shown
    changed = _user_changes()
    audit_rows = AuditEntry.objects.count()
    for seeded in (True, False):  # restarted twice: with the cluster, then without
        again = _start(seeded=seeded)
        assert "admin-demo-pass" not in again and "left as its users left it" in again
        # The terminal shows them on every start all the same (six users, ines of the
        # inference team among them, and a heading).
        assert embedded.logins_to_show(again)[0] == "Logins (as the demo loaded them):"
        assert len(embedded.logins_to_show(again)) == 7
        assert _vision() == changed["snapshot"]
        assert _vision()["fair_weight"] == "3" and _vision()["quotas"][0]["nominal"] == "20"
        assert Membership.objects.filter(user__username="carol", team__slug="vision").exists()
        assert ApiToken.objects.get(pk=changed["token"]).revoked_at is not None
        assert User.objects.get(username="vera").check_password("vera-changed-it")
        assert AuditEntry.objects.count() == audit_rows
        assert DemoSeed.objects.count() == 1


def test_a_database_already_in_use_gets_no_demo(db):
    User.objects.create_user("ops", password="their-own")
    output = _start()
    assert "database had users already" in output
    assert embedded.logins_to_show(output) == [NEVER_LOADED]  # no demo logins to show
    assert list(User.objects.values_list("username", flat=True)) == ["ops"]
    assert not AuditEntry.objects.exists()


def test_load_demo_refuses_in_production(settings):
    settings.QM_ENV = "production"
    for command in ("load_demo", "seed_demo", "finish_demo_week"):
        with pytest.raises(CommandError, match="QM_ENV=production"):
            call_command(command, stdout=StringIO())
    assert not User.objects.exists() and not DemoSeed.objects.exists()
