"""The demo week is recorded as it is played: every preemption and re-admission is history.

The simulated cluster plays one generated day behind its API (``serve --seed-history 1``,
paced by its Workload watchers) while the portal's recorder runs as the worker runs it,
in bounded watch runs resumed from the saved cursor. The expected preemptions come from
the cluster's Kueue Events ("Preempted" on the victim Workload), read over the Kubernetes
API, never from the recorder.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection

from apps.reports.catchup import wait_for_history
from apps.reports.models import WorkloadTransition
from apps.reports.recorder import run_recorder
from core.kube import ResourceRef
from testkit.sim_cluster import SimCluster
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)
EVENTS = ResourceRef("", "v1", "events", "Event", True)
WORKLOADS = ResourceRef("kueue.x-k8s.io", "v1beta2", "workloads", "Workload", True)


class Played:
    """Follows the cluster's progress lines until it says the week is done."""

    def __init__(self, sim: SimCluster):
        self.lines: list[str] = []
        self.done = threading.Event()
        threading.Thread(target=self._read, args=(sim.process.stdout,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append(line)
            if line.startswith("simcluster seeded"):
                self.done.set()


class Recorder:
    """The worker's recorder schedule, in a thread: short runs back to back."""

    def __init__(self, sim: SimCluster):
        self.sim, self.stop = sim, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            with self.sim.client() as kube:
                while not self.stop.is_set():
                    run_recorder(seconds=3, kube=kube)
        finally:
            connection.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=30)


@pytest.fixture
def played_day(tmp_path, settings):
    settings.KUEUE_API_VERSION = "v1beta2"
    settings.QM_KUBE_TIMEOUT_SECONDS = 10.0
    args = ("--seed-history", "1", "--fair-sharing", "--seed-wait", "120")
    sim = SimCluster(tmp_path, args=args).start()
    settings.KUBECONFIG = str(sim.kubeconfig)
    played = Played(sim)
    recorder = Recorder(sim)
    try:
        wait_until(played.done.is_set, timeout=600, interval=0.5)
        with sim.client() as kube:
            assert wait_for_history(kube, timeout=300)
        yield sim, played
    finally:
        recorder.close()
        sim.stop()


def preempted_per_workload(kube) -> Counter:
    """Kueue's "Preempted" Events on Workloads, per victim uid (aggregated counts summed)."""
    seen: Counter = Counter()
    for event in kube.list(EVENTS):
        involved = event.get("involvedObject") or {}
        if event.get("reason") == "Preempted" and involved.get("kind") == "Workload":
            seen[involved["uid"]] += event.get("count") or 1
    return seen


def recorded(type_: str) -> Counter:
    rows = WorkloadTransition.objects.filter(type=type_).values_list("workload__uid", flat=True)
    return Counter(rows)


def test_the_day_is_recorded_as_it_is_played(played_day):
    sim, played = played_day
    # Played no faster than its watchers: it stopped every virtual hour and never gave up.
    assert len([line for line in played.lines if line.startswith("simcluster seeding:")]) >= 24
    assert not any("unpaced" in line for line in played.lines)
    with sim.client() as kube:
        preempted = preempted_per_workload(kube)
        readmitted = [
            (w["metadata"]["uid"], preempted[w["metadata"]["uid"]])
            for w in kube.list(WORKLOADS)
            if w["metadata"]["uid"] in preempted and _admitted_or_finished(w)
        ]
    assert sum(preempted.values()) > 0, "the generated day has preemptions (fair sharing)"
    # Every preemption the cluster performed is in the history, on the right workload ...
    assert recorded("preempted") == preempted
    # ... and a workload preempted then admitted again has one admission more than
    # preemptions (recorded after the fact, it would show one long wait and one admission).
    assert readmitted, "some preempted workload of the day was admitted again"
    admissions = recorded("admitted")
    for uid, times in readmitted:
        assert admissions[uid] == times + 1


def _admitted_or_finished(workload: dict) -> bool:
    conditions = {c["type"]: c for c in (workload.get("status") or {}).get("conditions") or []}
    return any(
        conditions.get(kind, {}).get("status") == "True" for kind in ("Admitted", "Finished")
    )
