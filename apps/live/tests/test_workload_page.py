"""A workload's page against the simulated cluster: conditions, events, admission and
the preemption story told from both sides; other teams get 404."""

import pytest

from testkit.clients import api_as
from testkit.live_jobs import kubectl_job, wait_for_state, workload_of
from testkit.waiting import wait_until

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def preempted(preempting_vision):
    """A p3-low job takes all of vision's 16 GPUs, then a p1-high one of 16 evicts it."""
    sim = preempting_vision
    kubectl_job(sim, "team-vision", "low", queue="vision", pods=2, priority="p3-low")
    wait_for_state(sim, "team-vision", "low", "admitted")
    kubectl_job(sim, "team-vision", "high", queue="vision", pods=2, priority="p1-high")
    high = wait_for_state(sim, "team-vision", "high", "admitted")
    low = workload_of(sim, "team-vision", "low")
    return low["metadata"]["name"], high["metadata"]["name"]


def detail(user, name: str, status: int = 200) -> dict:
    response = api_as(user).get(f"/api/v1/live/workloads/team-vision/{name}/")
    assert response.status_code == status, response.content[:300]
    return response.json()


@pytest.mark.both_clusters
def test_the_victim_names_its_preemptor_and_the_preemptor_its_victim(sim, preempted, scientist):
    low, high = preempted
    victim = wait_until(lambda: (d := detail(scientist, low)["workload"])["preempted_by"] and d)
    (story,) = victim["preempted_by"]
    assert story["preemptor"]["name"] == high and story["preemptor"]["visible"]
    assert story["at"] and "Preempted to accommodate" in story["message"]
    kinds = {c["type"]: c for c in victim["conditions"]}
    assert kinds["Preempted"]["status"] == "True"
    assert kinds["Preempted"]["reason"] == "InClusterQueue"
    assert "Preempted" in {e["reason"] for e in victim["events"]}

    preemptor = detail(scientist, high)["workload"]
    assert preemptor["state"] == "admitted"
    assert preemptor["admission"][0]["flavors"] == {"nvidia.com/gpu": "h100"}
    assert [(v["name"], v["visible"]) for v in preemptor["preempted"]] == [(low, True)]
    assert preemptor["preempted_by"] == []


def test_the_pages_say_it_in_words(preempted, scientist, client):
    low, high = preempted
    wait_until(lambda: detail(scientist, low)["workload"]["preempted_by"])
    client.force_login(scientist)
    page = client.get(f"/live/workloads/team-vision/{low}/").content.decode()
    assert "Preempted at" in page and f"team-vision/{high}</a>" in page
    page = client.get(f"/live/workloads/team-vision/{high}/").content.decode()
    assert f"team-vision/{low}</a>" in page


@pytest.mark.both_clusters
def test_another_team_gets_404_as_for_a_missing_workload(
    sim, preempted, other_lead, scientist, client
):
    low, _ = preempted
    detail(other_lead, low, status=404)
    detail(scientist, "job-missing-00000", status=404)
    client.force_login(other_lead)
    assert client.get(f"/live/workloads/team-vision/{low}/").status_code == 404
