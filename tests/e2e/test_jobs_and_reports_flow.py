"""In a real browser: a scientist requests a notebook and watches it become ready, submits
a job and reads why it waits; an admin opens a weekly report and its charts render.

The simulated cluster runs its live controller; the test plays the Celery worker by
calling the same functions the tasks call (create the objects, sync status).
"""

import pytest
from django.utils import timezone

from apps.jobs import sync
from apps.jobs.choices import JobState, NotebookState
from apps.jobs.models import BatchJob, Notebook
from apps.jobs.tests.conftest import pool, sim, template, tiers  # noqa: F401 (fixtures)
from apps.queues.reconcile.run import reconcile
from apps.queues.tests.cluster import wait_until
from portal.kube import KubeClient
from tests.e2e.conftest import sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def sync_until(check):
    """Run the status sync until ``check()`` is truthy (30 s deadline)."""

    def attempt():
        with KubeClient() as client:
            sync.sync_status(client, now=timezone.now())
        return check()

    return wait_until(attempt, timeout=60, interval=0.2)


@pytest.mark.usefixtures("sim", "pool")
def test_a_scientist_requests_a_notebook_and_sees_it_become_ready(page, live_server, scientist):
    reconcile(trigger="manual")
    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/notebooks/new/")
    page.select_option("select[name=flavor]", "h100")
    page.click("button:has-text('Request')")
    page.wait_for_url(f"{live_server.url}/notebooks/*/")
    notebook = Notebook.objects.get(owner=scientist)

    with KubeClient() as client:
        assert sync.provision_notebook(client, notebook.pk) == "created"
    page.reload()
    assert page.locator("h1 .badge").inner_text() == "Queued"
    assert "Queued" in page.locator(".panel").first.inner_text()

    sync_until(lambda: Notebook.objects.get(pk=notebook.pk).state == NotebookState.READY)
    page.reload()
    assert page.locator("h1 .badge").inner_text() == "Ready"
    assert page.locator(f"a[href='{Notebook.objects.get(pk=notebook.pk).url}']").count() == 1


@pytest.mark.usefixtures("sim", "template")
def test_a_scientist_submits_a_job_and_reads_why_it_waits(page, live_server, scientist, queue):
    reconcile(trigger="manual")
    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/jobs/new/")
    page.select_option("select[name=flavor]", "h100")
    page.fill("input[name=gpus_per_pod]", "8")
    page.fill("input[name=pods]", "3")  # 24 GPUs: more than vision can ever hold
    page.click("button:has-text('Submit')")
    page.wait_for_url(f"{live_server.url}/jobs/*/")
    job = BatchJob.objects.get(owner=scientist)

    with KubeClient() as client:
        assert sync.create_job(client, job.pk) == "created"
    # Kueue's own words: the job can never fit, whatever the cohort lends.
    sync_until(lambda: "ExceedsMaxQuota" in BatchJob.objects.get(pk=job.pk).pending_reason)
    page.reload()
    assert page.locator("h1 .badge").inner_text() == JobState.QUEUED.label
    reason = page.locator(".panel", has_text="ExceedsMaxQuota").inner_text()
    assert reason.startswith("Position 1 in vision.")
    assert "insufficient quota for nvidia.com/gpu in flavor h100" in reason


def test_an_admin_opens_a_weekly_report_and_its_charts_render(
    page, live_server, admin, team, other_team, queue, other_queue, settings
):
    from apps.reports import services
    from apps.reports.tests import history
    from apps.reports.tests.promdata import MONDAY, WEEK

    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    hour = 3600.0
    history.record(
        history.life("train-a", "team-vision", created=MONDAY + 9 * hour,
                     admitted=MONDAY + 10 * hour, ended=MONDAY + 20 * hour, gpus=2),
        history.life("train-b", "team-nlp", created=MONDAY + hour, admitted=MONDAY + 2 * hour,
                     ended=MONDAY + 6 * hour, queue="nlp"),
    )  # fmt: skip
    services.build_weekly_report(WEEK)

    sign_in(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/reports/{WEEK}/")
    page.wait_for_selector(".plot-container svg.main-svg", timeout=15_000)
    assert page.locator(".plot-container").count() >= 1
    assert "vision" in page.content() and "nlp" in page.content()
