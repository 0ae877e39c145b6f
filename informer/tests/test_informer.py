"""One informer for every reader of cluster state: one lease, one watch per stream, and
every subscriber handed the same events, against the simulated cluster over HTTP."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from apps.jobs.watch import run_status_watch
from apps.reports.recorder import run_recorder
from informer import registry
from informer.models import WatchCursor
from informer.registry import WORKLOADS, Subscriber
from informer.run import LEASE, Delivery, run_informer
from testkit import workloads as w
from testkit.recorder import create, set_status, transitions
from testkit.waiting import wait_until

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


class Probe:
    """A subscriber that keeps what it was handed; ``fail`` times it raises instead."""

    def __init__(self, name: str, fail: int = 0, on: str = ""):
        self.name, self.fail, self.on = name, fail, on
        self.seen: list[tuple[str, str, str]] = []

    def __call__(self, delivery: Delivery) -> dict:
        names = {e.obj.get("metadata", {}).get("name") for e in delivery.events}
        if self.fail and self.on in names:
            self.fail -= 1
            raise RuntimeError(f"{self.name} cannot take {self.on} now")
        for event in delivery.events:
            meta = event.obj.get("metadata") or {}
            self.seen.append((event.type, meta.get("name", ""), meta.get("resourceVersion", "")))
        return {"handled": len(delivery.events)}

    def names(self) -> set[str]:
        return {name for _type, name, _rv in self.seen if name}


@pytest.fixture
def probes(settings):
    settings.QM_CLUSTER_SYNC = False  # only Workloads: the recorder and the probes
    added: list[str] = []

    def add(probe: Probe) -> Probe:
        registry.subscribe(Subscriber(probe.name, probe, (WORKLOADS,)))
        added.append(probe.name)
        return probe

    yield add
    for name in added:
        registry.unsubscribe(name)


def run(seconds: float = 1.5) -> dict:
    return run_informer(seconds=seconds)


def test_every_subscriber_gets_the_same_events_from_one_watch(sim, probes):
    first, second = probes(Probe("probe-a")), probes(Probe("probe-b"))
    uid = create(sim, "train-a")
    set_status(sim, "train-a", w.admitted(5))
    result = run()
    assert (
        set(result["streams"]) == {"workloads"} and result["streams"]["workloads"]["relists"] == 1
    )
    assert first.seen == second.seen and "train-a" in first.names()
    # The recorder, a subscriber of the same watch, stored what those events show.
    assert [t for t, _ in transitions(uid)] == ["created", "quota_reserved", "admitted"]
    assert result["subscribers"]["probe-a"] == {"handled": len(first.seen)}


def test_one_lease_covers_the_recorder_and_the_status_watch(sim, probes):
    probes(Probe("probe-a"))
    stop = threading.Event()
    result: dict = {}

    def background():
        try:
            result.update(run_informer(seconds=120, stop=stop.is_set))
        finally:
            connection.close()

    thread = threading.Thread(target=background)
    thread.start()
    try:
        wait_until(lambda: WatchCursor.objects.filter(name=LEASE).exclude(lease_owner="").exists())
        assert "skipped" in run_recorder(seconds=1)
        assert "skipped" in run_status_watch(seconds=1)
        assert "skipped" in run(seconds=1)
    finally:
        stop.set()
        thread.join(timeout=60)
    assert "skipped" not in result and not result["errors"], result
    assert "skipped" not in run(seconds=1)  # released when the run ended


def test_a_failing_subscriber_does_not_starve_the_others_and_gets_its_events_later(sim, probes):
    steady, flaky = probes(Probe("steady")), probes(Probe("flaky", fail=2, on="train-b"))
    create(sim, "train-a")
    run()  # lists: both take train-a, and the cursor is saved
    before = WatchCursor.objects.get(name=WORKLOADS.cursor).resource_version
    create(sim, "train-b")
    failed = run(seconds=30)
    assert "train-b" in steady.names() and "train-b" not in flaky.names()
    assert any(error.startswith("flaky:") for error in failed["errors"]), failed
    # The cursor stays before train-b, so the next run hands it out again.
    assert WatchCursor.objects.get(name=WORKLOADS.cursor).resource_version == before
    healed = run()
    assert "train-b" in flaky.names() and not healed["errors"]
    assert WatchCursor.objects.get(name=WORKLOADS.cursor).resource_version != before
