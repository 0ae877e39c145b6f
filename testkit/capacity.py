"""Capacity figures as a person reads them (overview page, API), and the a100 setup of
issue 28: three team queues of 8 a100 GPUs each on the ``catalog``'s 32."""

from __future__ import annotations

from apps.jobs.models import InteractivePool, PoolFlavor
from apps.jobs.services.pool import save_setting
from apps.queues import services
from apps.queues.models import PriorityTier, ResourceFlavor
from testkit.clients import api_as
from testkit.factories import make_queue, make_team, quota, set_policy
from testkit.html_cells import row_starting

GPU = "nvidia.com/gpu"


def three_a100_queues(admin, team, other_team) -> list:
    """vision, nlp and speech, 8 a100 GPUs each."""
    return [
        make_queue(admin, t, quotas=[quota("a100", "8")])
        for t in (team, other_team, make_team(admin, "speech"))
    ]


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
