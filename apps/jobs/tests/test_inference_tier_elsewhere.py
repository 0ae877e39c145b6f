"""Neither the notebook pool nor a role's batch ceiling may take an inference-only tier:
refused naming the field, nothing saved (docs/inference.md)."""

import pytest

from apps.jobs.choices import LimitedRole
from apps.jobs.models import InteractivePool, RoleTierLimit
from apps.jobs.services.pool import save_setting
from core.errors import InvalidInput

pytestmark = pytest.mark.django_db


def test_a_role_limit_at_the_inference_tier_is_refused(production_queue, admin):
    from apps.queues.models import PriorityTier

    tier = PriorityTier.objects.get(name="p0-critical")
    with pytest.raises(InvalidInput) as caught:
        save_setting(RoleTierLimit(role=LimitedRole.LEAD, max_tier=tier), actor=admin, created=True)
    assert "max_tier" in caught.value.errors
    assert not RoleTierLimit.objects.exists()


def test_the_pool_at_the_inference_tier_is_refused(production_queue, admin):
    from apps.queues.models import PriorityTier

    pool = InteractivePool(priority_tier=PriorityTier.objects.get(name="p0-critical"))
    with pytest.raises(InvalidInput) as caught:
        save_setting(pool, actor=admin, created=True)
    assert caught.value.errors["priority_tier"] == [
        "tier 'p0-critical' is reserved for inference services; pick a tier that is not "
        "inference-only, e.g. p1-high"
    ]
    assert not InteractivePool.objects.exists()
