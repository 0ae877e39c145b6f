"""Administration pages for flavors: physical capacity, node labels, taints and
tolerations through ``save_flavor``; a flavor without node labels is flagged."""

from html import unescape

from apps.queues.models import AuditEntry, FlavorCapacity, ResourceFlavor
from core.audit import AuditAction
from testkit.factories import make_flavor


def text(response) -> str:
    return unescape(response.content.decode())


def capacity_of(name: str) -> dict[str, str]:
    rows = FlavorCapacity.objects.filter(flavor__name=name)
    return {row.resource: row.capacity for row in rows}


def flavor_form(**fields) -> dict:
    return {"capacity": "nvidia.com/gpu=64", **fields}


def test_admin_creates_a_flavor_with_labels_taints_and_tolerations(client, admin):
    client.force_login(admin)
    form = {
        "name": "l4",
        "gpu_model": "NVIDIA L4",
        "capacity": "nvidia.com/gpu=8\ncpu=96",
        "node_labels": "nvidia.com/gpu.product=NVIDIA-L4",
        "node_taints": "gpu=l4:NoSchedule",
        "tolerations": "gpu=l4:NoSchedule\nmaintenance:NoExecute:300",
    }
    response = client.post("/administration/flavors/", form)
    assert response.status_code == 302 and response["Location"] == "/administration/flavors/l4/"
    flavor = ResourceFlavor.objects.get(name="l4")
    assert capacity_of("l4") == {"nvidia.com/gpu": "8", "cpu": "96"}
    assert flavor.node_labels == {"nvidia.com/gpu.product": "NVIDIA-L4"}
    assert flavor.node_taints == [{"key": "gpu", "value": "l4", "effect": "NoSchedule"}]
    assert flavor.tolerations == [
        {"key": "gpu", "operator": "Equal", "value": "l4", "effect": "NoSchedule"},
        {
            "key": "maintenance",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
    ]
    assert AuditEntry.objects.filter(object_type="resourceflavor", action="create").count() == 1


def test_the_edit_form_shows_what_is_saved_and_saving_it_unchanged_writes_nothing(client, admin):
    make_flavor(
        admin,
        "l4",
        {"nvidia.com/gpu": "8"},
        node_labels={"pool": "l4"},
        node_taints=[{"key": "gpu", "effect": "NoSchedule"}],
        tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
    )
    client.force_login(admin)
    form = client.get("/administration/flavors/l4/").context["form"]
    initial = {name: form[name].value() for name in form.fields}
    assert initial["capacity"] == "nvidia.com/gpu=8"
    assert initial["node_taints"] == "gpu:NoSchedule"
    assert initial["tolerations"] == "gpu:NoSchedule"
    before = AuditEntry.objects.count()
    posted = {k: v or "" for k, v in initial.items()}
    assert client.post("/administration/flavors/l4/", posted).status_code == 302
    assert AuditEntry.objects.count() == before


def test_admin_changes_capacity_and_the_page_and_audit_show_it(client, catalog):
    client.force_login(catalog)
    response = client.post(
        "/administration/flavors/h100/", flavor_form(capacity="nvidia.com/gpu=72")
    )
    assert response.status_code == 302
    assert capacity_of("h100") == {"nvidia.com/gpu": "72"}
    page = client.get("/administration/flavors/h100/").content.decode()
    assert '<td class="num">72</td>' in page
    entry = AuditEntry.objects.filter(object_type="resourceflavor").latest("pk")
    assert entry.action == AuditAction.UPDATE
    assert entry.before["capacity"] == {"nvidia.com/gpu": "64"}
    assert entry.after["capacity"] == {"nvidia.com/gpu": "72"}


def test_a_bad_quantity_is_named_and_nothing_is_written(client, catalog):
    client.force_login(catalog)
    before = AuditEntry.objects.count()
    response = client.post(
        "/administration/flavors/h100/", flavor_form(capacity="nvidia.com/gpu=2.5")
    )
    assert response.status_code == 400
    assert "Capacity: capacity.nvidia.com/gpu: " in text(response)
    assert "whole" in text(response)
    assert capacity_of("h100") == {"nvidia.com/gpu": "64"}
    assert AuditEntry.objects.count() == before


def test_a_line_that_is_not_key_value_is_named(client, catalog):
    client.force_login(catalog)
    response = client.post("/administration/flavors/h100/", flavor_form(node_labels="pool"))
    assert response.status_code == 400
    assert "Node labels: line 1: write key=value, one per line" in text(response)
    assert ResourceFlavor.objects.get(name="h100").node_labels == {}


def test_a_bad_taint_effect_is_named(client, catalog):
    client.force_login(catalog)
    response = client.post("/administration/flavors/h100/", flavor_form(node_taints="gpu:Never"))
    assert response.status_code == 400
    assert "Node taints: node_taints[0].effect: must be one of NoSchedule" in text(response)
    assert ResourceFlavor.objects.get(name="h100").node_taints == []


def test_capacity_below_held_quota_needs_an_override_reason(client, queue, admin):
    # vision's queue holds 16 h100 GPUs of nominal quota.
    client.force_login(admin)
    url = "/administration/flavors/h100/"
    response = client.post(url, flavor_form(capacity="nvidia.com/gpu=8"))
    assert response.status_code == 400
    assert "queues hold 16 of nominal quota, above the new capacity" in text(response)
    assert capacity_of("h100") == {"nvidia.com/gpu": "64"}
    reason = "nodes drained for repair"
    form = flavor_form(capacity="nvidia.com/gpu=8", capacity_override_reason=reason)
    assert client.post(url, form).status_code == 302
    assert capacity_of("h100") == {"nvidia.com/gpu": "8"}
    assert AuditEntry.objects.filter(object_type="resourceflavor").latest("pk").reason == reason


def test_a_new_flavor_may_not_take_an_existing_name(client, catalog):
    client.force_login(catalog)
    response = client.post("/administration/flavors/", flavor_form(name="h100", capacity="cpu=1"))
    assert response.status_code == 400
    assert "Name: a resource flavor named 'h100' already exists; edit it instead" in text(response)
    assert capacity_of("h100") == {"nvidia.com/gpu": "64"}


def test_a_flavor_without_node_labels_is_flagged(client, admin):
    make_flavor(admin, "h100", {"nvidia.com/gpu": "64"})
    make_flavor(admin, "a100", {"nvidia.com/gpu": "32"}, node_labels={"pool": "a100"})
    client.force_login(admin)
    index = client.get("/administration/").content.decode()
    assert index.count('class="warn unpinned"') == 1
    assert "flavor <b>h100</b> pins nothing" in index
    assert 'class="warn unpinned"' in client.get("/administration/flavors/h100/").content.decode()
    assert (
        'class="warn unpinned"' not in client.get("/administration/flavors/a100/").content.decode()
    )


def test_a_lead_may_not_change_a_flavor(client, catalog, lead):
    client.force_login(lead)
    assert client.get("/administration/flavors/h100/").status_code == 403
    response = client.post(
        "/administration/flavors/h100/", flavor_form(capacity="nvidia.com/gpu=1")
    )
    assert response.status_code == 403
    assert capacity_of("h100") == {"nvidia.com/gpu": "64"}
