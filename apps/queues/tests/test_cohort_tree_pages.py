"""The cohort tree on the administration page (the whole tree, admins only) and on a team
page (the trees holding the team's queues, readable by every signed-in user as quota
policy is). The policy: cohort ``research`` with child ``vision-lab``; vision's queue
(h100 16, a100 8) and nlp's (h100 16) in research, ``vision-extra`` (a100 4) in
vision-lab; a separate root cohort ``ops`` with queue ``batch`` (h100 4)."""

import pytest

from apps.queues import services
from testkit.factories import UserFactory, make_queue, make_team, quota


@pytest.fixture
def tree(catalog, queue, other_queue, team):
    services.save_cohort(name="vision-lab", parent="research", actor=catalog)
    services.save_cohort(name="ops", actor=catalog)
    make_queue(catalog, team, name="vision-extra", cohort="vision-lab", quotas=[quota("a100", "4")])
    make_queue(
        catalog, make_team(catalog, "ops"), name="batch", cohort="ops", quotas=[quota("h100", "4")]
    )


def labels(response) -> list[str]:
    assert b'data-chart="cohort-tree-data"' in response.content
    assert b"vendor/plotly.min.js" in response.content
    return response.context["cohort_tree"]["data"][0]["labels"]


def test_the_admin_sees_the_whole_tree(client, admin, tree):
    client.force_login(admin)
    assert labels(client.get("/administration/")) == [
        "cohort ops · h100 4",
        # research: vision h100 16 + nlp h100 16 = 32; a100: vision 8 + vision-extra 4 = 12
        "cohort research · h100 32, a100 12",
        "cohort vision-lab · a100 4",
        "batch · h100 4",
        "nlp · h100 16",
        "vision · h100 16, a100 8",
        "vision-extra · a100 4",
    ]


def test_a_scientist_sees_the_tree_holding_their_teams_queues(client, scientist, tree):
    client.force_login(scientist)
    assert labels(client.get("/teams/vision/")) == [
        "cohort research · h100 32, a100 12",
        "cohort vision-lab · a100 4",
        "nlp · h100 16",  # another team's queue in the same cohort, as on the overview
        "vision · h100 16, a100 8",
        "vision-extra · a100 4",
    ]
    assert client.get("/administration/").status_code == 403


def test_an_outsider_reads_a_team_page_and_its_tree_as_any_signed_in_user(client, tree):
    client.force_login(UserFactory(username="outsider"))
    assert labels(client.get("/teams/ops/")) == ["cohort ops · h100 4", "batch · h100 4"]
    assert client.get("/administration/").status_code == 403


def test_a_visitor_who_is_not_signed_in_gets_the_login_form(client, tree):
    for url in ("/teams/vision/", "/administration/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_an_empty_tree_says_so(client, admin, catalog):
    client.force_login(admin)
    spec = client.get("/administration/").context["cohort_tree"]
    assert spec["layout"]["annotations"][0]["text"] == "No GPU quota in any queue yet."
