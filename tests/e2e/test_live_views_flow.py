"""In a real browser: the live queue view changes without a reload when a job is admitted,
and a victim of preemption opens its workload page and reads who preempted it.

Jobs are made straight through the cluster API, as kubectl would; the simulated cluster
runs its live controller (Kueue) and the page polls /api/v1/live/queues/ by itself.
"""

import pytest
from django.utils import timezone

from apps.jobs.cluster import JOB
from testkit.live_jobs import kubectl_job, wait_for_state
from tests.e2e.browser import sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
DEADLINE_MS = 60_000


@pytest.fixture
def vision(request, scientist, settings):
    settings.QM_LIVE_CACHE_SECONDS = 1.0
    return request.getfixturevalue("preempting_vision")


def test_a_live_queue_view_changes_without_a_reload_when_a_job_is_admitted(
    page, live_server, vision
):
    kubectl_job(vision, "team-vision", "holder", queue="vision", pods=2)
    wait_for_state(vision, "team-vision", "holder", "admitted")
    kubectl_job(vision, "team-vision", "next", queue="vision", pods=1)
    wait_for_state(vision, "team-vision", "next", "pending")

    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/live/")
    queue = page.locator("section[data-queue=vision]")
    waiting = queue.locator("table.live-waiting a[data-workload^='team-vision/job-next-']")
    waiting.wait_for(timeout=DEADLINE_MS)
    gpu_in_use = queue.locator("tr[data-flavor=h100] td[data-col=in_use]")
    assert gpu_in_use.inner_text() == "16"
    page.evaluate("window.__sameDocument = true")

    with vision.client() as kube:  # the holder ends: the waiting job gets its quota
        kube.delete(JOB, "holder", "team-vision", propagation="Background")

    admitted = queue.locator("table.live-admitted a[data-workload^='team-vision/job-next-']")
    admitted.wait_for(timeout=DEADLINE_MS)
    page.wait_for_function(
        'document.querySelector("section[data-queue=vision] tr[data-flavor=h100] '
        "td[data-col=in_use]\").textContent === '8'",
        timeout=DEADLINE_MS,
    )
    assert page.evaluate("window.__sameDocument") is True  # no reload happened
    assert queue.locator("table.live-waiting a").count() == 0


def test_a_victim_sees_who_preempted_it(page, live_server, vision):
    kubectl_job(vision, "team-vision", "low", queue="vision", pods=2, priority="p3-low")
    wait_for_state(vision, "team-vision", "low", "admitted")
    kubectl_job(vision, "team-vision", "high", queue="vision", pods=2, priority="p1-high")
    high = wait_for_state(vision, "team-vision", "high", "admitted")["metadata"]["name"]

    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/live/")
    victim = page.locator("table.live-waiting a[data-workload^='team-vision/job-low-']")
    victim.wait_for(timeout=DEADLINE_MS)
    victim.click()
    page.wait_for_url(f"{live_server.url}/live/workloads/team-vision/job-low-*/")

    story = page.locator("[data-preempted-by]").first
    assert "Preempted at" in story.inner_text()
    assert story.locator("a").inner_text() == f"team-vision/{high}"
    story.locator("a").click()  # the preemptor's page lists its victim
    page.wait_for_url(f"{live_server.url}/live/workloads/team-vision/{high}/")
    assert page.locator("table[data-preempted] a").inner_text().startswith("team-vision/job-low-")


def test_a_job_page_follows_its_state_without_a_reload(page, live_server, scientist, request):
    """The page is open while the job goes from submitted to running in the cluster."""
    from apps.jobs import cluster_sync
    from apps.jobs.choices import JobState
    from apps.jobs.models import BatchJob
    from apps.jobs.services import JobRequest, Principal, submit_job
    from core.kube import KubeClient
    from testkit.waiting import wait_until

    request.getfixturevalue("preempting_vision")
    request.getfixturevalue("template")
    job, _ = submit_job(
        scientist,
        JobRequest(template="pytorch-train", flavor="h100", gpus_per_pod=8),
        actor=Principal(scientist),
    )
    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    assert page.locator("h1 .badge").inner_text() == JobState.SUBMITTED.label
    page.evaluate("window.__sameDocument = true")

    def running():  # the test plays the worker: create the Job, sync its status
        with KubeClient() as client:
            cluster_sync.create_job(client, job.pk)
            cluster_sync.sync_status(client, now=timezone.now())
        return BatchJob.objects.get(pk=job.pk).state == JobState.RUNNING

    wait_until(running, timeout=60, interval=0.3)
    page.wait_for_function(
        f"document.querySelector('h1 .badge').textContent === '{JobState.RUNNING.label}'",
        timeout=DEADLINE_MS,
    )
    assert page.evaluate("window.__sameDocument") is True
    link = page.locator("a", has_text="Workload job-")  # its page in the cluster
    assert link.get_attribute("href").startswith("/live/workloads/team-vision/job-")
