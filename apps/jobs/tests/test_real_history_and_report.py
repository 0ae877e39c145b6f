"""On the real control plane: the real Kueue preempts a job, the history recorder watches
it happen, and the week's report counts it, with waits equal to the Workloads' own.

The expected figures come from the cluster's Workload objects, polled by the test
itself, never from the recorder or the report code.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.utils import timezone

from apps.jobs.tests.kit import submit_training
from apps.queues.reconcile.run import reconcile
from apps.reports.compute.weeks import week_of
from apps.reports.recorder import run_recorder
from apps.reports.services.snapshots import build_weekly_report
from testkit.factories import quota, set_policy
from testkit.waiting import wait_until

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def _stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


class Observer:
    """What the test sees of the cluster's Workloads: first reservation and evictions."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.first_reserved: dict[str, datetime] = {}
        self.created: dict[str, datetime] = {}
        self.owner: dict[str, str] = {}
        self.evictions: dict[str, dict] = {}

    def look(self) -> None:
        for wl in self.cluster.list("Workload"):
            uid, meta = wl["metadata"]["uid"], wl["metadata"]
            self.created[uid] = _stamp(meta["creationTimestamp"])
            self.owner[uid] = meta["ownerReferences"][0]["name"]
            for c in (wl.get("status") or {}).get("conditions") or []:
                if c["type"] == "QuotaReserved" and c["status"] == "True":
                    self.first_reserved.setdefault(uid, _stamp(c["lastTransitionTime"]))
                if c["type"] == "Preempted" and c["status"] == "True":
                    self.evictions.setdefault(uid, c)

    def uid_of(self, job_name: str) -> str:
        return next(uid for uid, owner in self.owner.items() if owner == job_name)


@pytest.mark.parametrize("sim", ["real"], indirect=True)
def test_a_real_preemption_reaches_the_weekly_report(
    sim, pool, queue, scientist, lead, template, admin
):
    set_policy(
        queue,
        admin,
        quotas=[quota("h100", "16")],
        preemption={"within_cluster_queue": "LowerPriority"},
    )
    reconcile(trigger="manual")
    started = timezone.now()
    seen = Observer(sim)
    stop = threading.Event()

    def record():
        try:
            with sim.client() as kube:
                while not stop.is_set():
                    run_recorder(seconds=2, kube=kube)
        finally:
            connection.close()

    recorder = threading.Thread(target=record)
    recorder.start()
    try:
        low = [submit_training(scientist, f"low-{i}", seconds=600, tier="p3-low") for i in range(2)]

        def both_reserved():
            seen.look()
            return len(seen.first_reserved) == 2

        wait_until(both_reserved, timeout=120, interval=0.3)
        urgent = submit_training(lead, "urgent", seconds=5, tier="p1-high")

        def urgent_reserved_and_someone_evicted():
            seen.look()
            return len(seen.first_reserved) == 3 and seen.evictions

        wait_until(urgent_reserved_and_someone_evicted, timeout=120, interval=0.3)
    finally:
        stop.set()
        recorder.join(timeout=60)
    assert not recorder.is_alive()

    ((victim_uid, preempted),) = seen.evictions.items()
    urgent_uid = seen.uid_of(urgent.name)
    assert seen.owner[victim_uid] in {job.name for job in low}
    assert preempted["reason"] == "InClusterQueue"
    assert f"UID: {urgent_uid}" in preempted["message"]

    report = build_weekly_report(week_of(started)).data
    (event,) = report["preemption"]["events"]
    assert (event["uid"], event["preemptor_uid"]) == (victim_uid, urgent_uid)
    assert event["reason"] == "InClusterQueue"
    assert event["assumed_from_admission"]  # no checkpoint reported by these jobs
    # The urgent job's wait, as its Workload's own timestamps give it (second resolution).
    expected = (seen.first_reserved[urgent_uid] - seen.created[urgent_uid]).total_seconds()
    (row,) = [r for r in report["waits"] if (r["dimension"], r["key"]) == ("tier", "p1-high")]
    assert row["count"] == 1 and row["max"] == pytest.approx(expected, abs=1.0)
