"""A generated history can wait for its watchers: the server knows how far each
open Workload watch has been sent (``WatchPositions``)."""

from __future__ import annotations

import threading

from kubernetes import watch

from simcluster.live_seed import WORKLOADS
from simcluster.tests.conftest import KUEUE, make_workload, wait_until


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
    wait_until(lambda: positions.slowest(WORKLOADS) is None)  # a closed stream leaves
