"""Capacity is divided by every reservation of a flavor: team queues and the notebook pool.

Ground truth by hand: a100 has 32 GPUs (the ``catalog`` fixture); vision, nlp and
speech hold 8 each; the notebook pool holds 8 or 4.
"""

from __future__ import annotations

import pytest

from apps.queues.models import AuditEntry, Queue
from core.errors import InvalidInput
from testkit.capacity import (
    raise_vision_to,
    reserve_pool,
    unallocated_in_api,
    unallocated_on_page,
)
from testkit.factories import snapshot
from testkit.html_cells import row_starting


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


def test_the_queue_page_shows_the_room_left_for_the_queue(client, admin, three_teams):
    reserve_pool(admin, 4)
    client.force_login(admin)
    vision = three_teams[0]
    page = client.get(f"/queues/{vision.pk}/").content.decode()
    # 32 − (8 nlp + 8 speech + 4 pool) = 12; vision's own 8 is not subtracted
    assert row_starting(page, "a100", "nvidia.com/gpu")["Room left"] == "12"
