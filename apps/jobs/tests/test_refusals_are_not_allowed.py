"""A refusal of permission is a ``NotAllowed`` whichever app refuses: code that catches
``NotAllowed`` (or Django's ``PermissionDenied``, as a page does) catches a notebook for a
team the user is not in, a launcher token from a lead, an API token for someone else."""

import pytest
from django.core.exceptions import PermissionDenied

from apps.accounts.services import issue_api_token
from apps.jobs import services
from apps.jobs.models import LauncherGrant, Notebook
from core.errors import CODES, NotAllowed
from testkit.notebooks import notebook_body

pytestmark = pytest.mark.django_db


def test_a_notebook_for_a_team_the_user_is_not_in_is_not_allowed(scientist, other_team, pool):
    spec = services.NotebookRequest(**notebook_body(team=other_team.slug))
    with pytest.raises(NotAllowed) as refused:
        services.request_notebook(scientist, spec, actor=services.Principal(user=scientist))
    assert (refused.value.code, refused.value.field, refused.value.status) == (
        "not_a_member",
        "team",
        403,
    )
    assert not Notebook.objects.exists()


def test_a_lead_issuing_a_launcher_token_is_not_allowed(lead, scientist, team):
    with pytest.raises(PermissionDenied) as refused:
        services.issue_launcher_token(scientist, "hub", [team.slug], actor=lead, days=30)
    assert isinstance(refused.value, NotAllowed) and refused.value.code == "forbidden"
    assert not LauncherGrant.objects.exists()


def test_an_api_token_for_someone_else_is_not_allowed(lead, scientist):
    with pytest.raises(NotAllowed) as refused:
        issue_api_token(scientist, "mine now", actor=lead)
    assert (refused.value.code, refused.value.field) == ("forbidden", "user")
    assert not scientist.api_tokens.exists()


def test_every_permission_code_is_a_not_allowed_and_answers_403():
    forbidding = {code for code, row in CODES.items() if row.kind is NotAllowed}
    assert forbidding == {"forbidden", "tier_not_allowed", "not_a_member", "launcher_not_allowed"}
    assert {CODES[code].status for code in forbidding} == {403}
