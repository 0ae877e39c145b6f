"""Batch job API: the rendered Job, tier limits by role, idempotency, visibility, errors."""

import pytest

from apps.jobs.manifests import job_manifest
from apps.jobs.models import BatchJob
from testkit.clients import api_as

URL = "/api/v1/jobs/"
BODY = {
    "template": "pytorch-train",
    "flavor": "h100",
    "gpus_per_pod": 8,
    "pods": 2,
    "max_runtime_minutes": 90,
    "checkpoint_dir": "runs/a",
    "checkpoint_interval_minutes": 15,
}


@pytest.mark.django_db
def test_a_job_renders_as_a_suspended_labelled_job(scientist, queue, template):
    response = api_as(scientist).post(URL, {**BODY, "sim_duration_seconds": 600}, format="json")
    assert response.status_code == 201, response.json()
    manifest = job_manifest(BatchJob.objects.get(), checkpoint_claim="")
    labels = manifest["metadata"]["labels"]
    assert labels["kueue.x-k8s.io/queue-name"] == "vision"
    assert labels["kueue.x-k8s.io/priority-class"] == "p3-low"  # the lowest tier by default
    assert labels["kueue.x-k8s.io/max-exec-time-seconds"] == "5400"
    assert manifest["metadata"]["annotations"] == {
        "quartermaster.io/checkpoint-interval": "900s",
        "quartermaster.io/simulated-duration": "600s",
    }
    pod = manifest["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] == 120
    assert {"name": "CHECKPOINT_PATH", "value": "/checkpoints/runs/a"} in pod["containers"][0][
        "env"
    ]
    assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "8"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "tier", "status"),
    [
        ("scientist", "p2-standard", 201),
        ("scientist", "p1-high", 403),
        ("lead", "p1-high", 201),
        ("lead", "interactive", 403),
        ("admin_member", "interactive", 201),
    ],
)
def test_priority_tiers_are_limited_by_role(request, queue, template, who, tier, status, admin):
    if who == "admin_member":
        from apps.queues import services
        from core.roles import TeamRole

        services.add_membership(team=queue.team, user=admin, role=TeamRole.SCIENTIST, actor=admin)
        user = admin
    else:
        user = request.getfixturevalue(who)
    response = api_as(user).post(URL, {**BODY, "priority_tier": tier}, format="json")
    assert response.status_code == status, response.json()
    if status == 403:
        assert response.json()["code"] == "tier_not_allowed"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"template": "nope"}, "template_not_found"),
        ({"flavor": "mi300"}, "flavor_not_in_queue"),
        ({"image": "docker.io/x/y"}, "image_not_allowed"),
        ({"gpus_per_pod": 9}, "invalid"),
        ({"checkpoint_dir": "../etc"}, "invalid"),
        ({"pod_spec": {}}, "unknown_field"),
    ],
)
def test_job_errors(scientist, queue, template, body, code):
    response = api_as(scientist).post(URL, {**BODY, **body}, format="json")
    assert response.json()["code"] == code


@pytest.mark.django_db
def test_team_members_see_the_job_other_teams_do_not(
    scientist, lead, other_lead, queue, template, django_assert_max_num_queries
):
    job = api_as(scientist).post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k").json()
    again = api_as(scientist).post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k").json()
    assert again["id"] == job["id"]
    assert api_as(lead).get(f"{URL}{job['id']}/").status_code == 200
    assert api_as(other_lead).get(f"{URL}{job['id']}/").status_code == 404
    with django_assert_max_num_queries(6):
        assert api_as(lead).get(URL).json()["count"] == 1
    assert api_as(lead).get(URL, {"scope": "mine"}).json()["count"] == 0
    assert api_as(lead).delete(f"{URL}{job['id']}/").status_code == 204
