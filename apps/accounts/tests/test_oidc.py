"""Single sign-on: the provider's groups → platform admin and team roles (pure), the
backend applying them at sign-in, and the settings wiring when enabled."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from apps.queues.models import AuditEntry, Membership
from portal.oidc import GroupMap, Identity, map_groups, parse_group_map
from portal.oidc_backend import QuartermasterOIDCBackend

ROOT = Path(__file__).resolve().parents[3]
MAP = [
    "gpu-admins=admin",
    "vision-leads=vision:lead",
    "vision=vision:scientist",
    "nlp=nlp:scientist",
]


def test_the_group_map_parses_admin_and_team_roles():
    mapping = parse_group_map(MAP)
    assert mapping.admin_groups == {"gpu-admins"}
    assert mapping.team_roles["vision-leads"] == ("vision", "lead")
    assert mapping.teams == {"vision", "nlp"}


@pytest.mark.parametrize("entry", ["nogroup", "g=", "g=vision", "g=vision:owner", "=admin"])
def test_a_malformed_map_entry_is_refused(entry):
    with pytest.raises(ValueError):
        parse_group_map([entry])


def test_groups_map_to_roles_and_the_strongest_role_wins():
    mapping = parse_group_map(MAP)
    assert map_groups(["vision", "vision-leads", "other"], mapping) == Identity(
        False, {"vision": "lead"}
    )
    assert map_groups(["gpu-admins"], mapping) == Identity(True, {})
    assert map_groups([], GroupMap()) == Identity(False, {})


@pytest.fixture
def backend(settings):
    settings.OIDC_OP_TOKEN_ENDPOINT = "https://idp.invalid/token"
    settings.OIDC_OP_USER_ENDPOINT = "https://idp.invalid/userinfo"
    settings.OIDC_RP_CLIENT_ID, settings.OIDC_RP_CLIENT_SECRET = "qm", "secret"
    settings.OIDC_RP_SIGN_ALGO, settings.OIDC_OP_JWKS_ENDPOINT = "RS256", "https://idp.invalid/jwks"
    settings.OIDC_GROUP_MAP = MAP
    return QuartermasterOIDCBackend()


def test_sign_in_creates_the_user_with_mapped_roles(backend, team, other_team):
    claims = {"preferred_username": "ada", "email": "ada@example.org", "groups": ["vision-leads"]}
    user = backend.create_user(claims)
    assert not user.has_usable_password() and not user.is_platform_admin
    assert dict(user.memberships.values_list("team__slug", "role")) == {"vision": "lead"}
    assert AuditEntry.objects.filter(reason__contains="identity provider").exists()


def test_the_next_sign_in_follows_group_changes_but_keeps_unmanaged_teams(
    backend, team, other_team, admin, catalog
):
    from apps.queues import services
    from testkit.factories import make_team

    unmanaged = make_team(catalog, "robotics")
    user = backend.create_user({"preferred_username": "ada", "groups": ["vision", "nlp"]})
    services.add_membership(team=unmanaged, user=user, role="lead", actor=admin)
    backend.update_user(
        user, {"preferred_username": "ada", "groups": ["gpu-admins", "vision-leads"]}
    )
    user.refresh_from_db()
    assert user.is_platform_admin
    roles = dict(Membership.objects.filter(user=user).values_list("team__slug", "role"))
    assert roles == {"vision": "lead", "robotics": "lead"}  # nlp removed, robotics untouched


def test_users_are_matched_by_username(backend, db):
    from testkit.factories import UserFactory

    existing = UserFactory(username="ada")
    assert list(backend.filter_users_by_claims({"preferred_username": "ada"})) == [existing]
    assert not backend.filter_users_by_claims({}).exists()


def _manage_shell(code: str, **env: str) -> subprocess.CompletedProcess:
    # A throwaway SQLite database under QM_DATA_DIR, migrated first.
    skip = ("OIDC_", "QM_OIDC", "DATABASE_URL", "REDIS_URL")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup();" + code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "portal.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


OIDC_ENV = {
    "QM_OIDC_ENABLED": "true",
    "OIDC_RP_CLIENT_ID": "quartermaster",
    "OIDC_RP_CLIENT_SECRET": "s",
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "https://idp.example.org/authorize",
    "OIDC_OP_TOKEN_ENDPOINT": "https://idp.example.org/token",
    "OIDC_OP_USER_ENDPOINT": "https://idp.example.org/userinfo",
    "OIDC_OP_JWKS_ENDPOINT": "https://idp.example.org/jwks",
    "QM_OIDC_GROUP_MAP": ",".join(MAP),
}


def test_enabled_settings_wire_the_backend_and_redirect_to_the_provider(tmp_path):
    code = (
        "from django.core.management import call_command;call_command('migrate', verbosity=0);"
        "from django.conf import settings;from django.test import Client;"
        "from django.test.utils import setup_test_environment;setup_test_environment();"
        "print(settings.AUTHENTICATION_BACKENDS[0]);"
        "r=Client().get('/oidc/authenticate/');print(r.status_code, r['Location'][:60]);"
        "print('single sign-on' in Client().get('/login/').content.decode())"
    )
    result = _manage_shell(code, QM_DATA_DIR=str(tmp_path), **OIDC_ENV)
    assert result.returncode == 0, result.stderr[-2000:]
    backend, redirect, link = result.stdout.split("\n")[:3]
    assert backend == "portal.oidc_backend.QuartermasterOIDCBackend"
    assert redirect.startswith("302 https://idp.example.org/authorize?")
    assert link == "True"


def test_a_bad_group_map_stops_start_up(tmp_path):
    env = {**OIDC_ENV, "QM_OIDC_GROUP_MAP": "vision=vision:owner"}
    result = _manage_shell("pass", QM_DATA_DIR=str(tmp_path), **env)
    assert result.returncode != 0 and "QM_OIDC_GROUP_MAP" in result.stderr


def test_local_accounts_only_when_disabled(client, settings):
    assert settings.AUTHENTICATION_BACKENDS == ["django.contrib.auth.backends.ModelBackend"]
    assert client.get("/oidc/authenticate/").status_code == 404
