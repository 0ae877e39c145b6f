"""In a real browser: a platform admin adds a member to a team and changes a flavor's
capacity on the Administration pages; the member then sees the team, the flavor page
shows the new capacity, and the audit log has both changes."""

import pytest

from apps.queues.models import AuditEntry, FlavorCapacity, Membership
from testkit.factories import UserFactory
from tests.e2e.browser import ARTIFACTS, sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def test_admin_adds_a_member_and_changes_a_flavors_capacity(page, live_server, queue, admin):
    UserFactory(username="newcomer")
    url = live_server.url
    sign_in(page, url, "root")
    page.click("nav a:has-text('Administration')")
    page.click("a[href='/administration/teams/vision/']")
    page.fill("#add-member input[name=username]", "newcomer")
    page.select_option("#add-member select[name=role]", "scientist")
    page.click("#add-member button[type=submit]")
    page.wait_for_url(f"{url}/administration/teams/vision/")
    assert "newcomer is now Scientist of vision." in page.inner_text(".flash")
    assert page.locator("#members tr[data-user=newcomer]").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "admin-team-member-added.png"), full_page=True)

    page.click("a:has-text('Administration')")
    page.click("a[href='/administration/flavors/h100/']")
    page.fill("textarea[name=capacity]", "nvidia.com/gpu=72")
    page.fill("input[name=reason]", "eight more nodes racked")
    page.click("form.panel button[type=submit]")
    page.wait_for_url(f"{url}/administration/flavors/h100/")
    assert page.locator("#capacity td.num").inner_text() == "72"
    history = page.locator("table").last.inner_text()
    assert "capacity" in history and "eight more nodes racked" in history
    page.screenshot(path=str(ARTIFACTS / "admin-flavor-capacity.png"), full_page=True)

    membership = Membership.objects.get(team=queue.team, user__username="newcomer")
    assert membership.role == "scientist"
    assert FlavorCapacity.objects.get(flavor__name="h100").capacity == "72"
    flavor_entry = AuditEntry.objects.filter(object_type="resourceflavor").latest("pk")
    assert flavor_entry.actor_name == "root"
    assert flavor_entry.before["capacity"] == {"nvidia.com/gpu": "64"}
    assert flavor_entry.after["capacity"] == {"nvidia.com/gpu": "72"}
    member_entry = AuditEntry.objects.filter(object_type="membership").latest("pk")
    assert member_entry.actor_name == "root" and member_entry.after["user"] == "newcomer"

    page.click("button[type=submit]:has-text('Sign out')")
    sign_in(page, url, "newcomer")
    assert "Administration" not in page.inner_text("nav")
    page.click("nav a[href='/teams/vision/']")
    page.wait_for_url(f"{url}/teams/vision/")
    assert "newcomer" in page.inner_text("body")
