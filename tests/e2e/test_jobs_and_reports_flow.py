"""In a real browser: a scientist requests a notebook and watches it become ready, submits
a job and reads why it waits; an admin opens a weekly report and its charts render.

The simulated cluster runs its live controller; the test plays the Celery worker by
calling the same functions the tasks call (create the objects, sync status).
"""

import re

import pytest
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.choices import JobState, NotebookState
from apps.jobs.models import BatchJob, Notebook
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from testkit.waiting import wait_until
from tests.e2e.browser import sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def sync_until(check):
    """Run the status sync until ``check()`` is truthy (30 s deadline)."""

    def attempt():
        with KubeClient() as client:
            cluster_sync.sync_status(client, now=timezone.now())
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
        assert cluster_sync.provision_notebook(client, notebook.pk) == "created"
    page.reload()
    assert page.locator("h1 .badge").inner_text() == "Queued"
    assert "Queued" in page.locator(".panel").first.inner_text()

    sync_until(lambda: Notebook.objects.get(pk=notebook.pk).state == NotebookState.READY)
    page.reload()
    assert page.locator("h1 .badge").inner_text() == "Ready"
    assert page.locator(f"a[href='{Notebook.objects.get(pk=notebook.pk).url}']").count() == 1


def submit_in_browser(page, base_url: str, gpus_per_pod: int, pods: int) -> None:
    page.goto(f"{base_url}/jobs/new/")
    page.select_option("select[name=flavor]", "h100")
    page.fill("input[name=gpus_per_pod]", str(gpus_per_pod))
    page.fill("input[name=pods]", str(pods))
    page.click("button:has-text('Submit')")


@pytest.mark.usefixtures("sim", "template")
def test_a_scientist_submits_a_job_and_reads_why_it_waits(page, live_server, scientist, queue):
    reconcile(trigger="manual")
    sign_in(page, live_server.url, "scientist")

    # 24 GPUs where vision can hold at most its own 16 (nobody in its cohort lends):
    # refused on the form, in plain words, and nothing is created.
    submit_in_browser(page, live_server.url, 8, 3)
    page.wait_for_selector("text=would never start")
    assert not BatchJob.objects.filter(owner=scientist).exists()

    # A 16-GPU job takes all of vision's h100 quota; the next 16-GPU one waits for it
    # (vision's 8 a100 GPUs, its second flavor, are too few for it).
    submit_in_browser(page, live_server.url, 8, 2)
    page.wait_for_url(re.compile(r".*/jobs/\d+/$"))
    holder = BatchJob.objects.get(owner=scientist)
    with KubeClient() as client:
        assert cluster_sync.create_job(client, holder.pk) == "created"
    sync_until(lambda: BatchJob.objects.get(pk=holder.pk).state != JobState.QUEUED)

    submit_in_browser(page, live_server.url, 8, 2)
    page.wait_for_url(re.compile(r".*/jobs/\d+/$"))
    job = BatchJob.objects.exclude(pk=holder.pk).get(owner=scientist)
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"
    waiting = "waiting for quota in vision"
    sync_until(lambda: waiting in BatchJob.objects.get(pk=job.pk).pending_reason)
    page.reload()
    assert page.locator("h1 .badge").inner_text() == JobState.QUEUED.label
    reason = page.locator(".panel", has_text=waiting).inner_text()
    assert reason.startswith("Position 1 in vision.")
    assert "needs 16 nvidia.com/gpu on h100, 0 free" in reason


def test_an_admin_opens_a_weekly_report_and_its_charts_render(
    page, live_server, admin, team, other_team, queue, other_queue, settings
):
    from apps.reports import services
    from testkit import history
    from testkit.promdata import MONDAY, WEEK

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
