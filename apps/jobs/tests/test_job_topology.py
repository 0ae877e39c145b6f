"""A job asks for "same rack" (or host, block): Kueue's pod-set topology annotation."""

from __future__ import annotations

import pytest

from apps.jobs import manifests
from apps.jobs.manifests import job_manifest
from apps.jobs.models import BatchJob
from apps.queues.models import ResourceFlavor
from testkit.clients import api_as

pytestmark = pytest.mark.django_db

URL = "/api/v1/jobs/"
BODY = {"template": "pytorch-train", "flavor": "h100", "gpus_per_pod": 8, "pods": 2}
LEVELS = [
    {"name": "rack", "node_label": "example.com/rack"},
    {"name": "host", "node_label": "kubernetes.io/hostname"},
]


@pytest.fixture
def racks(queue):
    """The h100 flavor with rack and host levels (set on the row: the fixture flavor is
    otherwise the conftest's)."""
    ResourceFlavor.objects.filter(name="h100").update(topology_levels=LEVELS)


def _spec(**topology) -> manifests.JobSpec:
    return manifests.JobSpec(
        name="train-7",
        namespace="team-vision",
        team="vision",
        owner="alice",
        queue="vision",
        priority_class="p2-standard",
        image="registry.example.org/train:1",
        command=("python", "train.py"),
        gpu_resource="nvidia.com/gpu",
        gpus_per_pod=8,
        pods=2,
        **topology,
    )


def test_required_and_preferred_render_kueues_pod_set_annotations():
    required = manifests.render_job(
        _spec(topology_label="example.com/rack", topology_mode="required")
    )
    assert required["spec"]["template"]["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-required-topology": "example.com/rack"
    }
    # The Job itself carries no pod-set annotation: Kueue reads the pod template's.
    assert "annotations" not in required["metadata"]
    preferred = manifests.render_job(
        _spec(topology_label="kubernetes.io/hostname", topology_mode="preferred")
    )
    assert preferred["spec"]["template"]["metadata"]["annotations"] == {
        "kueue.x-k8s.io/podset-preferred-topology": "kubernetes.io/hostname"
    }
    assert manifests.render_job(_spec())["spec"]["template"]["metadata"]["annotations"] == {}


def test_a_job_asking_for_same_rack_is_saved_and_rendered_required_by_default(
    scientist, queue, template, racks
):
    response = api_as(scientist).post(URL, {**BODY, "topology": "rack"}, format="json")
    assert response.status_code == 201, response.json()
    assert (response.json()["topology_level"], response.json()["topology_mode"]) == (
        "rack",
        "required",
    )
    manifest = job_manifest(BatchJob.objects.get(), checkpoint_claim="")
    annotations = manifest["spec"]["template"]["metadata"]["annotations"]
    assert annotations["kueue.x-k8s.io/podset-required-topology"] == "example.com/rack"


def test_the_job_page_shows_the_placement(scientist, queue, template, racks, client):
    body = {**BODY, "topology": "host", "topology_mode": "preferred"}
    response = api_as(scientist).post(URL, body, format="json")
    assert response.status_code == 201, response.json()
    client.force_login(scientist)
    page = client.get(f"/jobs/{response.json()['id']}/").content.decode()
    assert "all pods in the same host (<code>kubernetes.io/hostname</code>), preferred" in page


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (
            {"topology": "block"},
            "topology",
            "has no topology level 'block'; topology must be one of rack, host",
        ),
        ({"topology": "rack", "topology_mode": "always"}, "topology_mode", "required, preferred"),
        ({"topology_mode": "required"}, "topology_mode", "e.g. topology=rack"),
    ],
)
def test_a_bad_topology_request_names_the_field_and_saves_nothing(
    scientist, queue, template, racks, body, field, words
):
    response = api_as(scientist).post(URL, {**BODY, **body}, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == field and words in response.json()["detail"]
    assert not BatchJob.objects.exists()


def test_a_flavor_without_levels_takes_no_topology(scientist, queue, template):
    response = api_as(scientist).post(URL, {**BODY, "topology": "rack"}, format="json")
    assert response.status_code == 400
    assert "empty: it has no topology levels" in response.json()["detail"]


def test_the_job_form_takes_a_level_and_a_mode(scientist, queue, template, racks, client):
    client.force_login(scientist)
    form = {
        "template": "pytorch-train",
        "flavor": "h100",
        "gpus_per_pod": 8,
        "pods": 2,
        "priority_tier": "p3-low",
        "max_runtime_minutes": 60,
        "team": "vision",
        "topology": "rack",
        "topology_mode": "preferred",
    }
    response = client.post("/jobs/new/", form)
    assert response.status_code == 302, response.content.decode()[-3000:]
    job = BatchJob.objects.get()
    assert (job.topology_level, job.topology_mode, job.topology_label) == (
        "rack",
        "preferred",
        "example.com/rack",
    )
