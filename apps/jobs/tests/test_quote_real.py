"""A quote's verdict checked against the real Kueue (kube-apiserver, Kueue, KWOK nodes):
the flavor a `now` names is the one Kueue then really admits the job on.

Worked out by hand from the fixtures: vision's queue has 16 h100 + 8 a100 GPUs of its
own, h100 first, in the cohort "research", where nobody else has quota to lend. Every
job asks for one pod of 8 GPUs of h100 (a preference Kueue may override: it tries the
queue's flavors in order).
"""

import pytest

from apps.jobs.tests.test_quotes import EIGHT, quote, reserved, start_jobs, wait_reserved
from apps.queues.reconcile.run import reconcile
from informer import objects as o
from testkit.waiting import wait_until

pytestmark = [pytest.mark.django_db, pytest.mark.parametrize("sim", ["real"], indirect=True)]


def pending_on_kueue(job_name: str) -> dict:
    """The Workload of ``job_name`` once the real Kueue has tried it and left it waiting."""
    from core.kube import KubeClient
    from informer.kinds import workload_ref

    def tried():
        with KubeClient() as client:
            mine = [w for w in client.list(workload_ref()) if o.owner(w)[1] == job_name]
        reserved_now = mine and o.condition(mine[0], "QuotaReserved")
        return reserved_now and reserved_now.get("reason") == "Pending" and mine[0]

    return wait_until(tried, 60, 0.2)


def test_a_job_that_fits_is_now_on_the_flavor_the_real_kueue_then_picks(
    sim, scientist, queue, template
):
    reconcile(trigger="manual")
    # Empty cluster: 8 <= 16 of vision's own h100, its first flavor.
    first = quote(scientist, EIGHT)
    assert (first["verdict"], first["flavors"]) == ("now", {"main": {"nvidia.com/gpu": "h100"}})
    (job,) = start_jobs(scientist, 1)
    (workload,) = wait_reserved(1)
    assert o.owner(workload)[1] == job.name
    assert o.flavors_by_pod_set(workload) == {"main": {"nvidia.com/gpu": "h100"}}

    start_jobs(scientist, 1)
    wait_reserved(2)
    # 8 + 8 = 16 of 16 h100 held, and no queue in the cohort lends: Kueue moves on to
    # the next flavor, a100 (0 + 8 <= 8), without borrowing.
    third = quote(scientist, EIGHT)
    assert third["verdict"] == "now"
    assert third["flavors"] == {"main": {"nvidia.com/gpu": "a100"}}
    assert (third["borrows"], third["preempts"], third["preempts_hidden"]) == (False, [], 0)
    (job,) = start_jobs(scientist, 1)
    held = {o.owner(w)[1]: w for w in wait_reserved(3)}
    assert o.flavors_by_pod_set(held[job.name]) == {"main": {"nvidia.com/gpu": "a100"}}

    # 16 h100 and 8 a100 all held: a fourth waits, and the real Kueue keeps it waiting.
    fourth = quote(scientist, EIGHT)
    assert fourth["verdict"] == "later"
    (job,) = start_jobs(scientist, 1)
    assert not o.is_reserved(pending_on_kueue(job.name))
    assert len(reserved()) == 3


def test_a_job_larger_than_any_quota_is_never_on_the_real_cluster(sim, scientist, queue, template):
    reconcile(trigger="manual")
    # 17 x 1 GPU of h100; vision can get at most 16 (its own, nobody lends).
    body = quote(scientist, {**EIGHT, "gpus_per_pod": 1, "pods": 17})
    assert (body["verdict"], body["field"]) == ("never", "pods")
    assert "queue vision can get at most 16 (16 of its own)" in body["summary"]
