"""Capacity is divided by every reservation of a flavor: team queues and the notebook pool.

Ground truth by hand: a100 has 32 GPUs (the ``catalog`` fixture); vision, nlp and
speech hold 8 each; the notebook pool holds 8 or 4.
"""

from __future__ import annotations

import pytest

from apps.jobs.models import InteractivePool, PoolFlavor
from apps.jobs.services.pool import save_setting
from apps.queues import services
from apps.queues.models import AuditEntry, PriorityTier, Queue, ResourceFlavor
from apps.queues.tests.factories import make_queue, make_team, quota, set_policy, snapshot
from apps.queues.tests.html_cells import row_starting
from conftest import api_as
from core.errors import InvalidInput

GPU = "nvidia.com/gpu"


@pytest.fixture
def three_teams(catalog, team, other_team):
    queues = [
        make_queue(catalog, t, quotas=[quota("a100", "8")])
        for t in (team, other_team, make_team(catalog, "speech"))
    ]
    return queues


def reserve_pool(admin, gpus: int) -> None:
    """The notebook pool reserves ``gpus`` a100 GPUs, saved the way the admin pages do."""
    services.save_priority_tier(name="interactive", value=1000, actor=admin)
    pool = InteractivePool(priority_tier=PriorityTier.objects.get(name="interactive"))
    save_setting(pool, actor=admin, created=True)
    a100 = ResourceFlavor.objects.get(name="a100")
    reserved = PoolFlavor(pool=pool, flavor=a100, gpus=gpus, cpu="32", memory="256Gi")
    save_setting(reserved, actor=admin, created=True)


def unallocated_on_page(client) -> str:
    response = client.get("/")
    assert response.status_code == 200
    return row_starting(response.content.decode(), "a100", GPU)["Unallocated"]


def unallocated_in_api(user) -> str:
    rows = api_as(user).get("/api/v1/capacity/").json()
    return next(r for r in rows if (r["flavor"], r["resource"]) == ("a100", GPU))["unallocated"]


def raise_vision_to(queue, admin, nominal: str):
    return set_policy(queue, admin, quotas=[quota("a100", nominal)])


def test_with_the_pool_at_8_nothing_is_unallocated_and_one_more_gpu_is_refused(
    client, admin, three_teams
):
    reserve_pool(admin, 8)
    client.force_login(admin)
    # 32 − (8 + 8 + 8 teams + 8 pool) = 0
    assert unallocated_on_page(client) == "0"
    assert unallocated_in_api(admin) == "0"
    vision = three_teams[0]
    before = (snapshot(vision), AuditEntry.objects.count())

    with pytest.raises(InvalidInput) as refused:
        raise_vision_to(vision, admin, "9")

    message = " ".join(refused.value.errors["quotas[0].nominal"])
    # 9 + 16 other teams + 8 pool = 33 > 32; the room left is 32 − 24 = 8
    assert "would be 33 (this queue 9 + 24 by other queues" in message
    assert "all reservations of a flavor together fit its capacity" in message
    assert "e.g. nominal 8 fits" in message
    assert (snapshot(vision), AuditEntry.objects.count()) == before


def test_with_the_pool_at_4_four_are_unallocated_four_more_fit_and_five_do_not(
    client, admin, three_teams
):
    reserve_pool(admin, 4)
    client.force_login(admin)
    # 32 − (8 + 8 + 8 + 4) = 4
    assert unallocated_on_page(client) == "4"
    assert unallocated_in_api(admin) == "4"
    vision = three_teams[0]

    with pytest.raises(InvalidInput) as refused:
        raise_vision_to(vision, admin, "13")  # 8 + 5: 13 + 16 + 4 = 33 > 32
    assert "e.g. nominal 12 fits" in " ".join(refused.value.errors["quotas[0].nominal"])
    assert Queue.objects.get(pk=vision.pk).quotas.get().nominal == "8"

    raise_vision_to(vision, admin, "12")  # 8 + 4: 12 + 16 + 4 = 32, exactly full
    assert Queue.objects.get(pk=vision.pk).quotas.get().nominal == "12"
    assert unallocated_on_page(client) == "0"
    assert unallocated_in_api(admin) == "0"


def test_a_member_sees_the_same_figure_as_an_admin(client, admin, scientist, three_teams):
    reserve_pool(admin, 4)
    client.force_login(scientist)
    # The scientist sees only vision's queue, but capacity is divided by all of them.
    assert unallocated_on_page(client) == "4"
    assert unallocated_in_api(scientist) == "4"
