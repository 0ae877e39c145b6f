"""In a real browser: a lead edits a quota, previews the diff, saves; a change beyond the
envelope becomes a request that an admin approves."""

import pytest

from testkit.factories import snapshot
from tests.e2e.browser import approve_as_admin, sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

H100 = "input[name='q|h100|nvidia.com/gpu|nominal']"


def test_lead_previews_and_saves_inside_the_envelope(page, live_server, queue, lead, envelope):
    sign_in(page, live_server.url, "lead")
    page.goto(f"{live_server.url}/queues/{queue.pk}/edit/")
    page.fill(H100, "20")
    page.click("button[name=preview]")
    assert page.locator("table.diff td.after").first.inner_text() == "20"
    page.click("button[name=save]")
    page.wait_for_url(f"{live_server.url}/queues/{queue.pk}/")
    assert "Saved." in page.content()
    assert snapshot(queue)["quotas"][0]["nominal"] == "20"


def test_beyond_the_envelope_goes_through_approval(page, live_server, queue, lead, envelope, admin):
    sign_in(page, live_server.url, "lead")
    page.goto(f"{live_server.url}/queues/{queue.pk}/edit/")
    page.fill(H100, "40")
    page.click("button[name=save]")
    assert "Pending approval" in page.content()
    approve_as_admin(page, live_server.url, "approved for the deadline")
    assert "Approved and applied" in page.content()
    assert snapshot(queue)["quotas"][0]["nominal"] == "40"


def test_after_saving_the_queue_page_shows_in_sync(
    page, live_server, queue, lead, envelope, tmp_path, settings
):
    from apps.queues.reconcile.run import reconcile
    from testkit.sim_cluster import SimCluster

    cluster = SimCluster(tmp_path).start()
    settings.KUBECONFIG, settings.QM_CLUSTER_SYNC = str(cluster.kubeconfig), True
    settings.KUEUE_API_VERSION = "v1beta2"
    try:
        sign_in(page, live_server.url, "lead")
        page.goto(f"{live_server.url}/queues/{queue.pk}/edit/")
        page.fill(H100, "20")
        page.click("button[name=save]")
        page.wait_for_url(f"{live_server.url}/queues/{queue.pk}/")
        assert "Pending" in page.content()  # saved, not yet in the cluster
        reconcile(trigger="manual")  # what the worker does on commit or on schedule
        page.reload()
        assert page.locator(".badge.sync-in_sync").first.inner_text() == "In sync"
        cq = cluster.get("ClusterQueue", queue.name)
        assert cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] == "20"
    finally:
        cluster.stop()
