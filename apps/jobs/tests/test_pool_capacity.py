"""The notebook pool's GPUs are a reservation like a queue's nominal quota: the pool may
not take more than the queues leave.

Ground truth by hand: a100 has 32 GPUs; vision, nlp and speech hold 8 each (24), so the
pool may reserve 32 − 24 = 8 a100 GPUs, not 9.
"""

import pytest

from apps.jobs.models import InteractivePool, PoolFlavor
from apps.jobs.services.pool import save_setting
from apps.queues import services as queue_services
from apps.queues.models import AuditEntry, PriorityTier, ResourceFlavor
from core.errors import InvalidInput
from testkit.capacity import three_a100_queues


@pytest.fixture
def empty_pool(admin, catalog, team, other_team):
    three_a100_queues(admin, team, other_team)
    queue_services.save_priority_tier(name="interactive", value=1000, actor=admin)
    pool = InteractivePool(priority_tier=PriorityTier.objects.get(name="interactive"))
    save_setting(pool, actor=admin, created=True)
    return pool


def a100_entry(pool, gpus: int) -> PoolFlavor:
    a100 = ResourceFlavor.objects.get(name="a100")
    return PoolFlavor(pool=pool, flavor=a100, gpus=gpus, cpu="32", memory="256Gi")


def test_the_pool_may_take_what_the_queues_leave_and_not_one_gpu_more(admin, empty_pool):
    audits = AuditEntry.objects.count()
    with pytest.raises(InvalidInput) as refused:
        save_setting(a100_entry(empty_pool, 9), actor=admin, created=True)
    (message,) = refused.value.errors["gpus"]
    # 9 + 24 = 33 > 32; 32 − 24 = 8 fits
    assert "would be 33 (the pool 9 + 24 by the queues)" in message
    assert "all reservations of a flavor together fit its capacity, e.g. gpus 8 fits" in message
    assert not PoolFlavor.objects.exists() and AuditEntry.objects.count() == audits

    save_setting(a100_entry(empty_pool, 8), actor=admin, created=True)
    assert PoolFlavor.objects.get().gpus == 8
