"""A quote says what would happen to a job submitted now, on the simulated cluster over HTTP.

Worked out by hand from the fixtures: vision's queue has 16 h100 + 8 a100 GPUs of its
own in the cohort "research" (h100 first); nlp's has 16 h100, lent in full; the
catalog has 64 h100. Each job below asks for one pod of 8 GPUs of h100.
"""

import pytest

from apps.jobs import cluster_sync
from apps.jobs.models import BatchJob
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.queues.models import AuditEntry
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from informer import objects as o
from informer.kinds import workload_ref
from testkit.clients import api_as
from testkit.factories import quota, set_policy
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db

QUOTES = "/api/v1/quotes/"
EIGHT = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 8}


def quote(user, body: dict) -> dict:
    response = api_as(user).post(QUOTES, body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def start_jobs(user, count: int, seconds: int = 3600, pods: int = 1) -> list[BatchJob]:
    """``count`` jobs of ``pods`` × 8 GPUs of ``user`` created in the cluster (run an hour)."""
    jobs = []
    for _ in range(count):
        spec = JobRequest(**EIGHT, pods=pods, sim_duration_seconds=seconds)
        job, _ = submit_job(user, spec, actor=Principal(user))
        with KubeClient() as client:
            assert cluster_sync.create_job(client, job.pk) == "created"
        jobs.append(job)
    return jobs


def reserved() -> list[dict]:
    with KubeClient() as client:
        return [w for w in client.list(workload_ref()) if o.is_reserved(w)]


def wait_reserved(count: int) -> list[dict]:
    return wait_until(lambda: (found := reserved()) and len(found) == count and found, 30, 0.2)


def test_a_job_larger_than_any_quota_is_never_with_the_limit_in_words(scientist, queue, template):
    rows = BatchJob.objects.count(), AuditEntry.objects.count()
    body = quote(scientist, {**EIGHT, "gpus_per_pod": 1, "pods": 17})
    assert body["verdict"] == "never"
    assert body["field"] == "pods"
    # 17 × 1 asked; vision has 16 of its own and nobody in the cohort lends.
    assert "asks for 17 GPUs of h100 in total" in body["summary"]
    assert "queue vision can get at most 16 (16 of its own)" in body["summary"]
    assert (
        "ask for at most 16 GPUs of h100 in total, or for more quota on queue vision"
        in body["summary"]
    )
    assert (BatchJob.objects.count(), AuditEntry.objects.count()) == rows


def test_bad_input_is_a_400_naming_the_field(scientist, queue, template):
    response = api_as(scientist).post(QUOTES, {**EIGHT, "pods": 0}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "pods"
    assert not BatchJob.objects.exists()


def test_a_job_that_fits_is_now_and_kueue_then_gives_it_that_flavor(
    sim, scientist, queue, template
):
    reconcile(trigger="manual")
    body = quote(scientist, EIGHT)
    # Empty cluster: 8 ≤ 16 of vision's own h100, the first flavor of its group.
    assert body["verdict"] == "now"
    assert body["flavors"] == {"main": {"nvidia.com/gpu": "h100"}}
    assert (body["borrows"], body["preempts"], body["preempts_hidden"]) == (False, [], 0)
    assert not BatchJob.objects.exists()

    (job,) = start_jobs(scientist, 1)
    (workload,) = wait_reserved(1)
    assert o.owner(workload)[1] == job.name
    assert o.flavors_by_pod_set(workload) == {"main": {"nvidia.com/gpu": "h100"}}


def test_a_job_behind_full_quota_is_later_without_an_invented_start(
    sim, scientist, queue, template
):
    reconcile(trigger="manual")
    # 16 h100 + 8 a100 of vision's own hold three 8-GPU jobs; nobody lends: a fourth waits.
    start_jobs(scientist, 3)
    wait_reserved(3)
    body = quote(scientist, EIGHT)
    assert body["verdict"] == "later"
    assert body["estimated_start"] is None
    # None of the three has a recorded run time: no number is made up.
    assert "no start estimate (no recorded run time of" in body["summary"]
    # Its page would say the same: 16 h100 all held, nothing lent in the cohort.
    assert body["pending_reason"] == (
        "waiting for quota in vision: needs 8 nvidia.com/gpu on h100, 0 free, cohort can lend 0"
    )


def test_preempted_workloads_of_another_team_are_counted_never_named(
    sim, scientist, queue, other_queue, other_lead, template, admin
):
    reclaim_any = {
        "reclaim_within_cohort": "Any",
        "within_cluster_queue": "Never",
        "borrow_within_cohort": "Never",
        "borrow_max_priority_threshold": None,
    }
    set_policy(other_queue, admin, preemption=reclaim_any)
    reconcile(trigger="manual")
    # Kueue's default fungibility borrows h100 before trying a100: vision's three 8-GPU
    # jobs hold 24 h100, 16 of its own + 8 of nlp's 16.
    vision_jobs = start_jobs(scientist, 3)
    held = wait_reserved(3)
    assert [o.flavors_by_pod_set(w)["main"]["nvidia.com/gpu"] for w in held] == ["h100"] * 3
    # nlp asks for its own 16: 16 - 8 lent = 8 free, so one 8-GPU vision job is reclaimed.
    body = quote(other_lead, {**EIGHT, "pods": 2})
    assert body["verdict"] == "now"
    assert body["flavors"] == {"main": {"nvidia.com/gpu": "h100"}}
    assert (body["preempts"], body["preempts_hidden"]) == ([], 1)
    assert "1 workload of other teams" in body["summary"]
    text = str(body)
    assert "vision" not in text
    assert not any(job.name in text for job in vision_jobs)

    # Submitted, Kueue does what the quote said: nlp's job on h100, one vision job
    # preempted (it then comes back on vision's own a100, after the quote's instant).
    (nlp_job,) = start_jobs(other_lead, 1, pods=2)

    def nlp_admitted_and_one_vision_job_preempted():
        with KubeClient() as client:
            every = client.list(workload_ref())
        nlp = [w for w in every if o.owner(w)[1] == nlp_job.name and o.is_reserved(w)]
        preempted = [w for w in every if o.condition(w, "Preempted") is not None]
        ok = nlp and [o.namespace_name(w)[0] for w in preempted] == ["team-vision"]
        return ok and nlp[0]

    admitted = wait_until(nlp_admitted_and_one_vision_job_preempted, 30, 0.2)
    assert o.flavors_by_pod_set(admitted) == {"main": {"nvidia.com/gpu": "h100"}}


def test_a_preempted_workload_the_asker_may_see_is_named(
    sim, scientist, lead, queue, template, admin
):
    lower_priority = {
        "reclaim_within_cohort": "Never",
        "within_cluster_queue": "LowerPriority",
        "borrow_within_cohort": "Never",
        "borrow_max_priority_threshold": None,
    }
    set_policy(queue, admin, quotas=[quota("h100", "16")], preemption=lower_priority)
    reconcile(trigger="manual")
    # Two 8-GPU jobs at p3-low (10) fill vision's 16; the lead's p1-high (200) job takes one.
    jobs = start_jobs(scientist, 2)
    wait_reserved(2)
    body = quote(lead, {**EIGHT, "priority_tier": "p1-high"})
    assert body["verdict"] == "now"
    assert body["preempts_hidden"] == 0
    (victim,) = body["preempts"]
    namespace, workload = victim.split("/")
    assert namespace == "team-vision"
    assert any(job.name in workload for job in jobs)
    assert victim in body["summary"]


def test_the_job_form_checks_with_the_session_and_its_csrf_token(scientist, queue, template):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(scientist)
    page = browser.get("/jobs/new/")
    html = page.content.decode()
    assert 'id="check-quote" data-quote-url="/api/v1/quotes/"' in html
    assert "js/quote.js" in html
    token = page.cookies["csrftoken"].value
    # What quote.js sends for the form filled in with 17 pods of one GPU.
    body = {**EIGHT, "gpus_per_pod": 1, "pods": 17, "max_runtime_minutes": 60, "team": "vision"}
    answer = browser.post(
        QUOTES, body, content_type="application/json", headers={"X-CSRFToken": token}
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["verdict"] == "never"
    refused = browser.post(QUOTES, body, content_type="application/json")
    assert refused.status_code == 403  # no CSRF token: a page elsewhere cannot ask


def test_a_run_time_only_the_simulated_cluster_knows_is_not_used(sim, scientist, queue, template):
    reconcile(trigger="manual")
    # The three jobs holding vision's quota end in 45 s on this cluster, within the minute
    # the quote looks ahead; a real cluster would not know that, so the quote does not.
    start_jobs(scientist, 3, seconds=45)
    wait_reserved(3)
    assert quote(scientist, EIGHT)["verdict"] == "later"
