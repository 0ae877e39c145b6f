"""In a real browser: a lead's change beyond the envelope notifies the admin, whose request
page shows the Kueue diff and no Withdraw; the lead withdraws it."""

import pytest

from tests.e2e.browser import sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

H100 = "input[name='q|h100|nvidia.com/gpu|nominal']"


def test_a_change_request_notifies_the_admin_and_only_the_lead_withdraws(
    page, live_server, queue, lead, envelope, admin
):
    sign_in(page, live_server.url, "lead")
    page.goto(f"{live_server.url}/queues/{queue.pk}/edit/")
    page.fill(H100, "40")
    page.click("button[name=save]")
    assert "Pending approval" in page.content()
    request_url = page.url
    page.click("button[type=submit]:has-text('Sign out')")
    sign_in(page, live_server.url, "root")
    page.click("nav a:has-text('Notifications')")
    assert f"Change request #{request_url.rstrip('/').rsplit('/', 1)[1]}" in page.content()
    assert "waits for approval" in page.content()
    page.goto(request_url)
    diff = page.locator(".kueue-changes table.diff").inner_text()
    assert "nominalQuota" in diff and "40" in diff
    assert page.locator("button[value=withdraw]").count() == 0
    page.click("button[type=submit]:has-text('Sign out')")
    sign_in(page, live_server.url, "lead")
    page.goto(request_url)
    page.click("button[value=withdraw]")
    assert "Withdrawn" in page.content()
