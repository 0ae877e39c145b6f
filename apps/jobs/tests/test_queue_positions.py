"""Queue positions are 1-based everywhere: 1 is the job Kueue admits next.

Ground truth by hand: vision's quota is taken by three 8-GPU jobs at p1-high (200), so
three more wait. They are submitted lowest priority first: scavenger (1), p3-low (10),
p2-standard (100); Kueue orders by priority, so p2-standard is 1st, p3-low 2nd,
scavenger 3rd.
"""

import html

import pytest
from django.utils import timezone

from apps.jobs import cluster_sync
from apps.jobs.choices import JobState
from apps.jobs.models import BatchJob
from apps.jobs.tests.kit import submit_training
from apps.queues import services as queue_services
from apps.queues.reconcile.run import reconcile
from core.kube import KubeClient
from testkit.clients import api_as
from testkit.waiting import wait_until

pytestmark = pytest.mark.django_db


def test_three_waiting_jobs_are_at_positions_1_2_3_in_the_api_and_on_their_pages(
    sim, pool, queue, lead, template, admin, client
):
    queue_services.save_priority_tier(name="scavenger", value=1, actor=admin)
    reconcile(trigger="manual")
    for i in range(3):
        submit_training(lead, f"blocker-{i}", tier="p1-high")
    waiting = {
        tier: submit_training(lead, f"wait-{tier}", tier=tier)
        for tier in ("scavenger", "p3-low", "p2-standard")
    }

    def positions():
        with KubeClient() as kube:
            cluster_sync.sync_status(kube, now=timezone.now())
        rows = BatchJob.objects.filter(pk__in=[j.pk for j in waiting.values()]).select_related(
            "priority_tier"
        )
        found = {r.priority_tier.name: r.queue_position for r in rows if r.state == JobState.QUEUED}
        return found if len(found) == 3 and None not in found.values() else None

    assert wait_until(positions, timeout=60, interval=0.3) == {
        "p2-standard": 1,
        "p3-low": 2,
        "scavenger": 3,
    }

    api = api_as(lead)
    for tier, expected in (("p2-standard", 1), ("p3-low", 2), ("scavenger", 3)):
        job = waiting[tier]
        assert api.get(f"/api/v1/jobs/{job.pk}/").json()["queue_position"] == expected
    client.force_login(lead)
    for tier, expected in (("p2-standard", 1), ("p3-low", 2), ("scavenger", 3)):
        page = html.unescape(client.get(f"/jobs/{waiting[tier].pk}/").content.decode())
        assert f"Position {expected} in vision." in page
