"""Many viewers at once cost the API server one read of the cluster, not one each."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import caches

from apps.live import fetch
from apps.queues.reconcile.run import reconcile

pytestmark = [pytest.mark.django_db]


def cluster_queue_lists(sim) -> int:
    rows = sim.hook("counters")["requests"]
    return sum(r["count"] for r in rows if r["verb"] == "list" and r["resource"] == "clusterqueues")


def test_concurrent_viewers_share_one_read(sim, queue, settings):
    settings.QM_LIVE_CACHE_SECONDS = 30.0
    reconcile(trigger="manual")
    first = fetch.snapshot()  # also the snapshot handed out while a new read is under way
    assert first.reachable and {c["metadata"]["name"] for c in first.cluster_queues} == {"vision"}
    for _round in range(5):  # a race between storing and unlocking would show in some round
        caches["shared"].delete_many([fetch._key("snapshot"), fetch._key("snapshot-at")])
        sim.reset_counters()

        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(lambda _: fetch.snapshot(), range(24)))

        assert cluster_queue_lists(sim) == 1
        assert all(a.reachable and a.cluster_queues for a in answers)
    fetch.snapshot()
    assert cluster_queue_lists(sim) == 1  # fresh for QM_LIVE_CACHE_SECONDS
