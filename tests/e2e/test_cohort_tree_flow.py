"""In a real browser: plotly.js draws the cohort tree, from our own static files, on the
administration page for the admin and on the team page for a scientist of the team."""

import pytest

from tests.e2e.browser import ARTIFACTS, sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

BOXES = "#cohort-tree-chart svg.main-svg g.slice"


def drawn_labels(page) -> str:
    page.wait_for_selector(BOXES)
    return " ".join(page.locator(f"{BOXES} text").all_text_contents())


def test_the_cohort_tree_is_drawn_for_the_admin_and_for_a_teams_scientist(
    page, live_server, queue, other_queue, admin, scientist
):
    url = live_server.url
    sign_in(page, url, "root")
    page.goto(f"{url}/administration/")
    # research = vision (h100 16, a100 8) + nlp (h100 16): h100 32, a100 8
    assert "cohort research · h100 32, a100 8" in drawn_labels(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "cohort-tree-admin.png"), full_page=True)

    page.click("button[type=submit]:has-text('Sign out')")
    sign_in(page, url, "scientist")
    page.goto(f"{url}/teams/vision/")
    assert "vision · h100 16, a100 8" in drawn_labels(page)
    page.screenshot(path=str(ARTIFACTS / "cohort-tree-team.png"), full_page=True)
