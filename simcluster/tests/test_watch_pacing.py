"""A generated history can wait for its watchers: the server knows how far each
Workload watch has been sent (``WatchPositions``), and expects a closed one back for a while."""

from __future__ import annotations

import threading

from kubernetes import watch

from simcluster.live_seed import WORKLOADS
from simcluster.server.watchers import WatchPositions
from testkit.kube_objects import KUEUE, make_workload
from testkit.waiting import wait_until


def test_nothing_counts_as_seen_until_a_watch_is_open_and_has_been_sent_it(sim, custom):
    positions, store = sim.cluster.store.watchers, sim.cluster.store
    custom.create_namespaced_custom_object(*KUEUE, "default", "workloads", make_workload("w1"))
    assert not positions.wait_until_seen(WORKLOADS, store.resource_version, timeout=0.2)

    received: list[str] = []
    stream = watch.Watch()

    def follow() -> None:
        for event in stream.stream(
            custom.list_namespaced_custom_object, *KUEUE, "default", "workloads",
            timeout_seconds=5,
        ):  # fmt: skip
            received.append(event["object"]["metadata"]["name"])

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    wait_until(lambda: positions.slowest(WORKLOADS) is not None)
    custom.create_namespaced_custom_object(*KUEUE, "default", "workloads", make_workload("w2"))
    assert positions.wait_until_seen(WORKLOADS, store.resource_version, timeout=20)
    wait_until(lambda: received == ["w1", "w2"])

    thread.join(timeout=30)  # the server ends the stream after its timeoutSeconds
    assert positions.slowest(WORKLOADS) is not None  # it lingers: its client may resume


def test_a_closed_stream_holds_the_wait_until_its_client_resumes_or_the_linger_ends():
    positions = WatchPositions(linger=30)
    recorder = positions.open(WORKLOADS)
    positions.advance(recorder, 100)
    status = positions.open(WORKLOADS)
    positions.advance(status, 180)
    positions.close(recorder)  # a bounded run ended; the next resumes from its cursor
    assert not positions.wait_until_seen(WORKLOADS, 150, timeout=0.1)
    resumed = positions.open(WORKLOADS, resumed_from=95)  # takes the place of the closed one
    assert positions.slowest(WORKLOADS) == 95
    positions.advance(resumed, 180)
    assert positions.wait_until_seen(WORKLOADS, 150, timeout=0.1)

    gone = WatchPositions(linger=0.2)
    stream = gone.open(WORKLOADS)
    other = gone.open(WORKLOADS)
    gone.advance(other, 180)
    gone.close(stream)  # at 0: a client that never comes back
    assert gone.wait_until_seen(WORKLOADS, 150, timeout=30)  # once the linger is over
