"""The queue edit page: preview shows the diff and problems; save applies or files a request."""

from apps.queues.models import ChangeRequest
from testkit.factories import snapshot


def form_for(queue, **overrides):
    snap = snapshot(queue)
    data = {
        "version": snap["version"],
        "cohort": snap["cohort"] or "",
        "fair_weight": snap["fair_weight"],
        "queueing_strategy": snap["queueing_strategy"],
        "stop_policy": snap["stop_policy"],
        **{k: v if v is not None else "" for k, v in snap["preemption"].items()},
    }
    for q in snap["quotas"]:
        data[f"q|{q['flavor']}|{q['resource']}|nominal"] = q["nominal"]
    data.update(overrides)
    return data


def test_the_form_shows_current_values(client, queue, lead):
    client.force_login(lead)
    page = client.get(f"/queues/{queue.pk}/edit/").content.decode()
    assert 'name="q|h100|nvidia.com/gpu|nominal"' in page and 'value="16"' in page


def test_preview_shows_the_diff_without_saving(client, queue, lead, envelope):
    client.force_login(lead)
    before = snapshot(queue)
    response = client.post(
        f"/queues/{queue.pk}/edit/",
        form_for(queue, **{"q|h100|nvidia.com/gpu|nominal": "20", "preview": "1"}),
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "quotas[h100/nvidia.com/gpu].nominal" in page and ">16<" in page and ">20<" in page
    assert snapshot(queue) == before


def test_preview_marks_invalid_fields_and_approval_needs(client, queue, lead, envelope):
    client.force_login(lead)
    fields = {
        "q|h100|nvidia.com/gpu|nominal": "30",
        "q|h100|nvidia.com/gpu|lending_limit": "31",
        "preview": "1",
    }
    page = client.post(f"/queues/{queue.pk}/edit/", form_for(queue, **fields)).content.decode()
    assert "must not exceed the nominal quota (30)" in page
    assert "Needs approval" in page and "exceeds the envelope maximum of 24" in page


def test_save_inside_the_envelope_applies(client, queue, lead, envelope):
    client.force_login(lead)
    response = client.post(
        f"/queues/{queue.pk}/edit/",
        form_for(queue, **{"q|h100|nvidia.com/gpu|nominal": "20", "save": "1"}),
    )
    assert response.status_code == 302 and response["Location"] == f"/queues/{queue.pk}/"
    assert snapshot(queue)["quotas"][0]["nominal"] == "20"


def test_save_beyond_the_envelope_files_a_request_the_lead_can_follow(
    client, queue, lead, envelope
):
    client.force_login(lead)
    response = client.post(
        f"/queues/{queue.pk}/edit/",
        form_for(queue, **{"q|h100|nvidia.com/gpu|nominal": "30", "save": "1"}),
    )
    request = ChangeRequest.objects.get()
    assert response["Location"] == f"/change-requests/{request.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "Pending approval" in page and "Withdraw" in page


def test_invalid_save_shows_errors_and_writes_nothing(client, queue, admin):
    client.force_login(admin)
    before = snapshot(queue)
    response = client.post(
        f"/queues/{queue.pk}/edit/",
        form_for(queue, **{"q|h100|nvidia.com/gpu|nominal": "-3", "save": "1"}),
    )
    assert response.status_code == 400
    assert "must not be negative" in response.content.decode()
    assert snapshot(queue) == before


def test_admin_approves_from_the_inbox(client, queue, lead, envelope, admin):
    client.force_login(lead)
    client.post(
        f"/queues/{queue.pk}/edit/",
        form_for(queue, **{"q|h100|nvidia.com/gpu|nominal": "30", "save": "1"}),
    )
    request = ChangeRequest.objects.get()
    client.force_login(admin)
    assert f"/change-requests/{request.pk}/" in client.get("/change-requests/").content.decode()
    client.post(f"/change-requests/{request.pk}/decide/", {"decision": "approve", "comment": "ok"})
    assert snapshot(queue)["quotas"][0]["nominal"] == "30"
