"""The team's sweep limit over the API: a lead within the envelope, an admin the envelope."""

import pytest

from apps.jobs.models import SweepLimit
from testkit.clients import api_as

pytestmark = pytest.mark.django_db

URL = "/api/v1/sweep-limits/vision/"


def test_a_lead_sets_the_limit_within_the_envelope(team, lead, scientist):
    assert api_as(scientist).get(URL).json() == {"per_user": 2, "max_per_user": 8}  # defaults
    assert api_as(lead).put(URL, {"per_user": 4}, format="json").json()["per_user"] == 4
    response = api_as(lead).put(URL, {"per_user": 9}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "per_user"
    assert "1–8 (the team's envelope, max_per_user), e.g. 2" in response.json()["detail"]
    assert SweepLimit.objects.get(team=team).per_user == 4  # the refused 9 is not written


def test_only_an_admin_sets_the_envelope(team, lead, admin, scientist):
    assert api_as(lead).put(URL, {"max_per_user": 20}, format="json").status_code == 403
    assert api_as(scientist).put(URL, {"per_user": 1}, format="json").status_code == 403
    assert api_as(admin).put(URL, {"max_per_user": 3}, format="json").json() == {
        "per_user": 2,
        "max_per_user": 3,
    }
    assert api_as(admin).get("/api/v1/sweep-limits/nope/").status_code == 404
