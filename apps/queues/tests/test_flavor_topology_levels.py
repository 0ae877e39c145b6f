"""A flavor's topology levels: checked as Kueue checks a Topology, fixed once set."""

from __future__ import annotations

import pytest

from apps.queues import services
from apps.queues.models import AuditEntry, ResourceFlavor
from core.errors import InvalidInput
from testkit.clients import api_as

GPU = {"nvidia.com/gpu": "8"}
LABELS = {"gpu.nvidia.com/class": "b200"}
BLOCK = {"name": "block", "node_label": "example.com/block"}
RACK = {"name": "rack", "node_label": "example.com/rack"}
HOST = {"name": "host", "node_label": "kubernetes.io/hostname"}

BAD_LEVELS = [
    ("bad key", [{"name": "rack", "node_label": "not a key!"}], "topology_levels[0].node_label"),
    (
        "bad name",
        [{"name": "Rack Row", "node_label": "example.com/rack"}],
        "topology_levels[0].name",
    ),
    ("same key twice", [RACK, {**RACK, "name": "row"}], "topology_levels[1].node_label"),
    ("same name twice", [RACK, {**BLOCK, "name": "rack"}], "topology_levels[1].name"),
    ("hostname not last", [HOST, RACK], "topology_levels[0].node_label"),
    ("extra field", [{**RACK, "evil": "1"}], "topology_levels[0]"),
    (
        "nine levels",
        [{"name": f"l{i}", "node_label": f"example.com/l{i}"} for i in range(9)],
        "topology_levels",
    ),
]


def _refused(admin, field: str, **flavor) -> dict:
    audit_rows = AuditEntry.objects.count()
    fields = {"node_labels": LABELS, **flavor}
    with pytest.raises(InvalidInput) as caught:
        services.save_flavor(name="b200", capacity=GPU, actor=admin, **fields)
    assert caught.value.errors.get(field), caught.value.errors
    assert AuditEntry.objects.count() == audit_rows
    return caught.value.errors


@pytest.mark.parametrize(("label", "levels", "field"), BAD_LEVELS, ids=[c[0] for c in BAD_LEVELS])
def test_it_refuses_levels_kueue_would_reject(admin, label, levels, field):
    _refused(admin, field, topology_levels=levels)
    assert not ResourceFlavor.objects.filter(name="b200").exists()


def test_levels_need_a_node_label_and_the_message_gives_an_example(admin):
    errors = _refused(admin, "node_labels", node_labels={}, topology_levels=[RACK])
    assert "at least one node label" in errors["node_labels"][0]
    assert "e.g. gpu.nvidia.com/class=h100" in errors["node_labels"][0]


def test_it_saves_levels_widest_first(admin):
    levels = [BLOCK, RACK, HOST]
    flavor = services.save_flavor(
        name="b200", capacity=GPU, node_labels=LABELS, topology_levels=levels, actor=admin
    )
    flavor.refresh_from_db()
    assert flavor.topology_levels == levels


def test_levels_labels_and_tolerations_are_fixed_once_set(admin):
    services.save_flavor(
        name="b200", capacity=GPU, node_labels=LABELS, topology_levels=[RACK, HOST], actor=admin
    )
    _refused(admin, "topology_levels", topology_levels=[RACK])
    _refused(admin, "topology_levels", topology_levels=[])
    _refused(admin, "node_labels", topology_levels=[RACK, HOST], node_labels={"a": "b"})
    toleration = {"key": "x", "operator": "Exists"}
    errors = _refused(admin, "tolerations", topology_levels=[RACK, HOST], tolerations=[toleration])
    assert "create a new flavor" in errors["tolerations"][0]
    assert ResourceFlavor.objects.get(name="b200").topology_levels == [RACK, HOST]
    # What Kueue lets change still changes: capacity and description.
    services.save_flavor(
        name="b200",
        capacity={"nvidia.com/gpu": "16"},
        node_labels=LABELS,
        topology_levels=[RACK, HOST],
        description="two racks",
        actor=admin,
    )
    assert ResourceFlavor.objects.get(name="b200").description == "two racks"


def test_a_flavor_without_levels_may_gain_them(admin):
    services.save_flavor(name="b200", capacity=GPU, node_labels=LABELS, actor=admin)
    services.save_flavor(
        name="b200", capacity=GPU, node_labels=LABELS, topology_levels=[RACK], actor=admin
    )
    assert ResourceFlavor.objects.get(name="b200").topology_levels == [RACK]


def test_the_api_takes_and_shows_levels_and_a_patch_keeps_them(admin):
    client = api_as(admin)
    body = {"name": "b200", "capacity": GPU, "node_labels": LABELS, "topology_levels": [RACK]}
    created = client.post("/api/v1/flavors/", body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["topology_levels"] == [RACK]
    patched = client.patch("/api/v1/flavors/b200/", {"description": "x"}, format="json")
    assert patched.status_code == 200, patched.json()
    assert patched.json()["topology_levels"] == [RACK]
    refused = client.patch("/api/v1/flavors/b200/", {"topology_levels": [HOST]}, format="json")
    assert refused.status_code == 400
    assert "topology_levels" in refused.json()["errors"]


def test_the_admin_form_reads_name_equals_key_lines(admin, client):
    client.force_login(admin)
    form = {
        "name": "b200",
        "capacity": "nvidia.com/gpu=8",
        "node_labels": "gpu.nvidia.com/class=b200",
        "topology_levels": "block=example.com/block\nrack=example.com/rack",
    }
    response = client.post("/administration/flavors/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert ResourceFlavor.objects.get(name="b200").topology_levels == [BLOCK, RACK]
    page = client.get(response["Location"]).content.decode()
    assert 'id="topology-levels"' in page and "example.com/rack" in page
