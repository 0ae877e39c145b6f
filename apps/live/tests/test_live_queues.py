"""The live queue view against the simulated cluster over HTTP: numbers, scope, outages.

Scenario (research cohort): vision has 16 h100 + 8 a100 GPUs, nlp 16 h100. nlp runs
3 × 8 = 24 h100 GPUs (8 borrowed from vision's idle quota); a Job made with kubectl in
vision runs 8 h100; a second one (2 × 8) finds the cohort's 32 h100 all taken and its
16 too many for vision's 8 a100, so it waits.
"""

import pytest

from apps.queues.reconcile.run import reconcile
from testkit.clients import api_as
from testkit.live_jobs import kubectl_job, wait_for_state
from testkit.waiting import wait_until

pytestmark = [pytest.mark.django_db]
GPU = "nvidia.com/gpu"


def live(user) -> dict:
    response = api_as(user).get("/api/v1/live/queues/")
    assert response.status_code == 200, response.content[:300]
    return response.json()


def queue_named(body: dict, name: str) -> dict | None:
    return next((q for q in body["queues"] if q["name"] == name), None)


def gpu_cells(queue: dict) -> dict:
    return {
        f["flavor"]: (f["nominal"], f["in_use"], f["borrowed"], f["lent"])
        for f in queue["flavors"]
        if f["resource"] == GPU
    }


@pytest.fixture
def scenario(sim, queue, other_queue):
    assert reconcile(trigger="manual").errors == []
    kubectl_job(sim, "team-nlp", "big", queue="nlp", pods=3)
    wait_for_state(sim, "team-nlp", "big", "admitted")
    kubectl_job(sim, "team-vision", "small", queue="vision", pods=1)
    wait_for_state(sim, "team-vision", "small", "admitted")
    kubectl_job(sim, "team-vision", "later", queue="vision", pods=2)
    return sim


@pytest.mark.both_clusters
def test_numbers_match_the_hand_computed_scenario(sim, scenario, admin):
    def settled():
        body = live(admin)
        vision = queue_named(body, "vision")
        # Kueue writes a ClusterQueue's status after admitting, not with it.
        settled = vision and len(vision["waiting"]) == 1 and vision["admitted_workloads"] == 1
        return body if settled else None

    body = wait_until(settled, timeout=60, interval=0.3)
    assert body["state"] == "ok"
    vision, nlp = queue_named(body, "vision"), queue_named(body, "nlp")
    # vision: 8 of 16 h100 in use; its 8 idle are what nlp borrows, so it lends 8.
    assert gpu_cells(vision) == {"h100": ("16", "8", "0", "8"), "a100": ("8", "0", "0", "0")}
    assert gpu_cells(nlp) == {"h100": ("16", "24", "8", "0")}
    assert vision["pending_workloads"] == 1 and vision["admitted_workloads"] == 1
    assert vision["pending_requests"] == {GPU: "16"}
    (waiting,) = vision["waiting"]
    assert (waiting["namespace"], waiting["position"]) == ("team-vision", 1)  # next in line
    assert waiting["name"].startswith("job-later-")


def test_a_job_made_with_kubectl_shows_up_for_its_team_only(scenario, scientist, other_lead):
    def mine():
        vision = queue_named(live(scientist), "vision")
        return vision if vision and vision["admitted"] and vision["waiting"] else None

    vision = wait_until(mine, timeout=60, interval=0.3)
    (small,) = vision["admitted"]
    assert small["name"].startswith("job-small-") and small["state"] == "admitted"
    assert small["flavors"][0]["flavors"] == {GPU: "h100"}
    assert queue_named(live(scientist), "nlp") is None  # another team's queue: not shown

    theirs = live(other_lead)
    assert queue_named(theirs, "vision") is None
    assert [w["name"][:8] for w in queue_named(theirs, "nlp")["admitted"]] == ["job-big-"]


def test_the_page_embeds_the_same_answer_and_polls_it(scenario, client, scientist):
    client.force_login(scientist)
    page = client.get("/live/")
    assert page.status_code == 200
    assert b'id="live-data"' in page.content and b"js/live.js" in page.content
    assert b"/api/v1/live/queues/" in page.content


def test_an_unreachable_cluster_is_said_with_the_last_snapshot(sim, queue, admin, client):
    reconcile(trigger="manual")
    first = live(admin)
    assert first["state"] == "ok" and queue_named(first, "vision")
    sim.stop()

    body = wait_until(lambda: (b := live(admin))["state"] == "unreachable" and b, timeout=30)
    assert body["unreachable_since"] and "unreachable" in body["detail"]
    assert queue_named(body, "vision") is not None  # the last snapshot, with its time
    assert body["fetched_at"] == first["fetched_at"]
    since = body["unreachable_since"]
    assert live(admin)["unreachable_since"] == since  # since the first failure

    client.force_login(admin)
    page = client.get("/live/")
    assert page.status_code == 200 and b'"unreachable"' in page.content


def test_no_cluster_configured_is_unreachable_not_an_error(admin, settings):
    settings.KUBECONFIG = "/nonexistent/kubeconfig"
    body = live(admin)
    assert body["state"] == "unreachable" and body["queues"] == []
    assert "no cluster configured" in body["detail"]


def test_the_database_work_does_not_grow_with_the_cluster(sim, queue, scientist):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    reconcile(trigger="manual")

    def queries_for(count: int) -> int:
        vision = wait_until(
            lambda: (
                (q := queue_named(live(scientist), "vision"))
                and len(q["admitted"]) + len(q["waiting"]) == count
            )
        )
        assert vision
        with CaptureQueriesContext(connection) as captured:
            live(scientist)
        return len(captured)

    kubectl_job(sim, "team-vision", "one", queue="vision", pods=1)
    few = queries_for(1)
    for name in ("two", "three", "four"):
        kubectl_job(sim, "team-vision", name, queue="vision", pods=1)
    assert queries_for(4) == few <= 3
