"""In a real browser, every picture where people look, as the role that looks at it: the
weekly report, the capacity overview and the cohort tree (admin), the trend, Queues now
with its bars and cohort tree, a job's, a notebook's and a workload's timeline
(scientist), a what-if result (lead).

From the figure plotly.js drew (``browser.CHART_CHECK``): every legend entry has a data
point, every axis a title, every axis of values its unit; a screenshot of each page goes
to test-artifacts/.
"""

import copy
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from apps.jobs.choices import JobEventKind
from apps.jobs.models import JobEvent, Notebook
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.queues.models import Queue
from apps.queues.reconcile.desired import load_state
from apps.queues.reconcile.run import reconcile
from apps.reports import services
from apps.whatif.policies import policy_objects
from testkit import history
from testkit.factories import make_flavor, quota, set_policy
from testkit.history_traces import history_trace, record_history
from testkit.live_jobs import kubectl_job, wait_for_state
from testkit.workloads import preemption_message
from tests.e2e.browser import check_charts, sign_in

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
REPORT_CHARTS = {"cdf-chart", "usage-chart", "loss-chart", "pairs-chart", "cost-chart"}
HOUR = 3600.0


def preemption(anchor: float) -> tuple[list, list]:
    """nlp's boss preempts vision's victim 2 h after the victim was admitted."""
    victim = history.life("victim", "team-vision", created=anchor, admitted=anchor + 60,
                          ended=None, gpus=4)  # fmt: skip
    evicted = copy.deepcopy(victim[-1][1])
    evicted["status"]["conditions"] += [
        {"type": kind, "status": "True", "reason": reason, "lastTransitionTime":
         history.iso(anchor + 2 * HOUR), "message": preemption_message("uid-boss")}
        for kind, reason in (("Evicted", "Preempted"), ("Preempted", "InCohortReclamation"))
    ]  # fmt: skip
    boss = history.life("boss", "team-nlp", created=anchor + HOUR, admitted=anchor + 2 * HOUR,
                        ended=anchor + 4 * HOUR, queue="nlp", gpus=4)  # fmt: skip
    return [*victim, ("MODIFIED", evicted)], boss


@pytest.fixture
def recorded_week(queue, other_queue, settings):
    """Two days of both teams' work through the admission engine and a preemption, all in
    the week of six hours ago, and that week's report."""
    settings.PROMETHEUS_URL = settings.OPENCOST_URL = ""
    settings.QM_KUEUE_FAIR_SHARING = True
    record_history(policy_objects(load_state(), fair_sharing=True), history_trace(days=2))
    anchor = timezone.now().timestamp() - 6 * HOUR
    history.record(*preemption(anchor))
    year, week, _ = datetime.fromtimestamp(anchor, UTC).isocalendar()
    services.build_weekly_report(f"{year}-W{week:02d}")
    return f"{year}-W{week:02d}"


def test_the_weekly_report_and_the_trend_charts(page, live_server, admin, scientist, recorded_week):
    sign_in(page, live_server.url, "root")
    page.goto(f"{live_server.url}/reports/{recorded_week}/")
    check_charts(page, REPORT_CHARTS, "charts-weekly-report")

    page.click("button[type=submit]:has-text('Sign out')")
    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/reports/trend/")
    check_charts(page, {"trend-chart"}, "charts-trend")


def test_a_whatif_result_chart(
    page, live_server, queue, other_queue, lead, envelope, replay_worker, settings
):
    settings.QM_KUEUE_FAIR_SHARING = True
    record_history(policy_objects(load_state(), fair_sharing=True), history_trace())
    sign_in(page, live_server.url, "lead")
    page.goto(f"{live_server.url}/queues/{queue.pk}/edit/")
    page.fill("input[name=fair_weight]", "2")
    page.click("button[name=whatif]")
    page.wait_for_url(f"{live_server.url}/whatif/*/")
    page.wait_for_selector("text=How far to trust this", timeout=120_000)
    check_charts(page, {"whatif-chart"}, "charts-whatif-result")


def test_queues_now_bars_and_cohort_tree(page, live_server, request, scientist, admin, settings):
    settings.QM_LIVE_CACHE_SECONDS = 1.0
    vision = request.getfixturevalue("preempting_vision")
    # CPU quota beside the GPUs: drawn as a figure of its own, in cores.
    make_flavor(admin, "h100", {"nvidia.com/gpu": "64", "cpu": "256"})
    set_policy(
        Queue.objects.get(name="vision"),
        admin,
        quotas=[quota("h100", "16"), quota("h100", "64", resource="cpu")],
    )
    assert reconcile(trigger="manual").errors == []
    kubectl_job(vision, "team-vision", "holder", queue="vision", pods=2)
    holder = wait_for_state(vision, "team-vision", "holder", "admitted")
    kubectl_job(vision, "team-vision", "next", queue="vision", pods=1)
    wait_for_state(vision, "team-vision", "next", "pending")

    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/live/")
    page.locator("section[data-queue=vision] table.live-waiting a").first.wait_for(timeout=60_000)
    found = check_charts(page, {"vision", "vision/cpu", "cohort-tree-chart"}, "charts-queues-now")
    bars = page.evaluate(
        """() => Object.fromEntries(document.querySelector('[data-queue-chart="vision"]').data
                 .map((t) => [t.name, t.x]))"""
    )
    # holder: 2 pods × 8 GPUs in use of vision's 16 h100; next waits for 1 pod × 8.
    assert bars["nominal quota"] == [16] and bars["in use"] == [16]
    assert bars["waiting (no flavor yet)"] == [8]
    cpu = page.evaluate(
        """() => Object.fromEntries(document.querySelector('[data-resource-chart="vision/cpu"]')
                 .data.map((t) => [t.name, t.x]))"""
    )
    assert cpu["nominal quota"] == [64] and cpu["in use"] == [0]  # the jobs ask for no CPU
    assert found["cohort-tree-chart"]["points"] >= 1

    # The next poll updates the drawn chart in place (Plotly.react): the same element,
    # still holding every trace, where a redraw would have made a new one.
    chart = '[data-queue-chart="vision"]'
    page.evaluate(f"() => {{ document.querySelector('{chart}').dataset.drawing = 'first'; }}")
    before = page.locator("[data-live-status]").text_content()
    page.wait_for_function(
        "(before) => document.querySelector('[data-live-status]').textContent !== before",
        arg=before,
        timeout=30_000,
    )
    drawing, traces = page.evaluate(
        f"() => {{ const c = document.querySelector('{chart}'); return [c.dataset.drawing, c.data.length]; }}"
    )
    assert (drawing, traces) == ("first", len(bars))

    # The holder's page draws what the recorder kept of it (the test plays the watch).
    services.record_workload_events([("ADDED", holder), ("MODIFIED", holder)])
    page.locator("section[data-queue=vision] table.live-admitted a").first.click()
    page.wait_for_url(f"{live_server.url}/live/workloads/team-vision/job-holder-*/")
    found = check_charts(page, {"timeline-chart"}, "charts-workload-timeline")
    assert found["timeline-chart"]["points"] == 2  # queued, then admitted until now


def test_a_notebooks_timeline(page, live_server, scientist, pool):
    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/notebooks/new/")
    page.select_option("select[name=flavor]", "h100")
    page.click("button:has-text('Request')")
    page.wait_for_url(f"{live_server.url}/notebooks/*/")
    notebook = Notebook.objects.get(owner=scientist)
    created = notebook.created_at - timedelta(minutes=90)  # a past life: 2 min queued, 1 h run
    Notebook.objects.filter(pk=notebook.pk).update(
        created_at=created, ready_at=created + timedelta(minutes=2),
        ended_at=created + timedelta(minutes=62),
    )  # fmt: skip
    page.reload()
    found = check_charts(page, {"timeline-chart"}, "charts-notebook-timeline")
    assert found["timeline-chart"]["points"] == 3  # queued, admitted (ready), ended


def test_the_cohort_tree_and_the_capacity_chart_for_the_admin(
    page, live_server, admin, queue, other_queue
):
    sign_in(page, live_server.url, "root")
    page.goto(f"{live_server.url}/administration/")
    check_charts(page, {"cohort-tree-chart"}, "charts-cohort-tree-admin")
    page.goto(f"{live_server.url}/")
    check_charts(page, {"capacity-chart"}, "charts-capacity-overview")


def test_a_jobs_timeline(page, live_server, scientist, queue, template):
    job, _ = submit_job(
        scientist, JobRequest(template="pytorch-train", flavor="h100"), actor=Principal(scientist)
    )
    submitted = job.events.get().at
    steps = ((JobEventKind.ADMITTED, 5), (JobEventKind.PREEMPTED, 20),
             (JobEventKind.ADMITTED, 30), (JobEventKind.FINISHED, 50))  # fmt: skip
    for n, (kind, minutes) in enumerate(steps):
        JobEvent.objects.create(
            job=job, at=submitted + timedelta(minutes=minutes), kind=kind, key=f"e{n}"
        )
    sign_in(page, live_server.url, "scientist")
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    found = check_charts(page, {"timeline-chart"}, "charts-job-timeline")
    # four phases (one bar each) and the finish marker
    assert found["timeline-chart"]["points"] == 5
