"""A quote's start estimate for a job that would wait, worked out by hand.

On the simulated cluster over HTTP: vision's queue has 8 h100 GPUs of its own and
nobody lends; one 8-GPU job holds them all, and the quoted 8-GPU job waits behind it.
"""

from datetime import datetime, timedelta

import pytest

from apps.jobs import cluster_sync
from apps.jobs.services import JobRequest, Principal, submit_job
from apps.jobs.tests.kit import record_runs
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from informer import objects as o
from informer.kinds import workload_ref
from testkit.clients import api_as
from testkit.factories import quota, set_policy
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db

EIGHT = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 8}


def run_one(user, *, max_runtime_minutes: int = 60, count: int = 1) -> dict:
    """One more 8-GPU job created in the cluster; its Workload once Kueue has reserved
    quota for ``count`` of them (the oldest reserved Workload is returned)."""
    spec = JobRequest(**EIGHT, max_runtime_minutes=max_runtime_minutes, sim_duration_seconds=3600)
    job, _ = submit_job(user, spec, actor=Principal(user))
    with KubeClient() as client:
        assert cluster_sync.create_job(client, job.pk) == "created"

    def reserved():
        with KubeClient() as client:
            found = [w for w in client.list(workload_ref()) if o.is_reserved(w)]
        return len(found) == count and found[0]

    return wait_until(reserved, 30, 0.2)


def reserved_at(workload: dict) -> datetime:
    stamp = o.condition(workload, "QuotaReserved")["lastTransitionTime"]
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def full_queue(sim, scientist, queue, template, admin):
    set_policy(queue, admin, quotas=[quota("h100", "8")])
    reconcile(trigger="manual")


def test_a_job_behind_a_running_one_starts_when_its_recorded_run_time_ends(full_queue, scientist):
    # Four runs of pytorch-train in vision: 10, 20, 30 and 40 minutes. Percentiles with
    # linear interpolation over the sorted runs (h = (n − 1)·p):
    #   p50: h = 3 × 0.5 = 1.5 → 20 + 0.5 × (30 − 20) = 25 min = 1,500 s;
    #   p90: h = 3 × 0.9 = 2.7 → 30 + 0.7 × (40 − 30) = 37 min, but the running job may run
    #        at most 35 min (its max run time), so 35 min = 2,100 s.
    record_runs(scientist, [10, 20, 30, 40])
    running = run_one(scientist, max_runtime_minutes=35)
    started = reserved_at(running)

    body = api_as(scientist).post("/api/v1/quotes/", EIGHT, format="json").json()

    assert body["verdict"] == "later"
    # The running job frees vision's 8 GPUs when it ends; Kueue brings waiting workloads
    # back in a batch 1 s after a release, and the quoted job is admitted then.
    assert body["estimated_start"] == {
        "p50": iso(started + timedelta(seconds=1500 + 1)),
        "p90": iso(started + timedelta(seconds=2100 + 1)),
    }
    assert body["estimate_note"] == (
        "from the recorded run times of the running and queued workloads"
    )
    assert f"estimated start {iso(started + timedelta(seconds=1501))} (p50)" in body["summary"]


def test_without_recorded_runs_there_is_no_start_and_the_note_says_why(full_queue, scientist):
    running = run_one(scientist)
    body = api_as(scientist).post("/api/v1/quotes/", EIGHT, format="json").json()
    assert body["verdict"] == "later"
    assert body["estimated_start"] is None
    # The asker's own team's workload is named.
    assert body["estimate_note"] == (
        f"no recorded run time of {o.key(running)}, which the model then keeps running"
    )
    assert "no start estimate (" in body["summary"]


def test_another_teams_workloads_without_history_are_counted_not_named(
    full_queue, scientist, other_queue, other_lead
):
    # nlp lends all 16 of its h100 and does not reclaim them: three 8-GPU vision jobs hold
    # vision's own 8 and nlp's 16, so nlp's own 8-GPU job would wait for them.
    reconcile(trigger="manual")  # nlp's queue too
    running = [run_one(scientist, count=n) for n in (1, 2, 3)][0]
    body = api_as(other_lead).post("/api/v1/quotes/", EIGHT, format="json").json()
    assert body["verdict"] == "later"
    assert body["estimated_start"] is None
    assert body["estimate_note"] == (
        "no recorded run time of 3 workloads of other teams, which the model then keeps running"
    )
    assert "team-vision" not in str(body)
    assert o.key(running) not in str(body)
