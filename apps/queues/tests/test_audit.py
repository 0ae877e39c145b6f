"""Every change is recorded with actor, diff, reason and approval link; the log is append-only."""

import csv
import io

import pytest

from apps.queues import services
from apps.queues.models import AuditEntry
from testkit.factories import quota, set_policy


def test_a_save_records_actor_diff_and_reason(queue, admin):
    set_policy(queue, admin, quotas=[quota("h100", "20"), quota("a100", "8")], reason="new nodes")
    entry = AuditEntry.objects.filter(object_type="queue", action="update").first()
    assert entry.actor == admin and entry.actor_name == "root"
    assert entry.team.slug == "vision"
    assert entry.reason == "new nodes"
    assert entry.changes == [
        {"field": "quotas[h100/nvidia.com/gpu].nominal", "before": "16", "after": "20"}
    ]
    assert entry.before["version"] + 1 == entry.after["version"]


def test_an_approved_request_links_every_row(queue, lead, envelope, admin):
    request = set_policy(
        queue, lead, quotas=[quota("h100", "40")], reason="training run"
    ).change_request
    services.approve_change_request(request, actor=admin, comment="fine")
    actions = list(
        AuditEntry.objects.filter(change_request=request)
        .order_by("pk")
        .values_list("action", "actor_name")
    )
    assert actions == [
        ("change_requested", "lead"),
        ("update", "root"),
        ("change_approved", "root"),
    ]


def test_rows_cannot_be_changed_or_deleted(queue):
    entry = AuditEntry.objects.first()
    entry.reason = "rewritten"
    with pytest.raises(PermissionError):
        entry.save()
    with pytest.raises(PermissionError):
        entry.delete()
    with pytest.raises(PermissionError):
        AuditEntry.objects.all().delete()
    with pytest.raises(PermissionError):
        AuditEntry.objects.update(reason="x")


def test_team_log_shows_only_that_team_and_exports_csv(client, queue, other_queue, scientist):
    client.force_login(scientist)
    response = client.get("/teams/vision/audit/?format=csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:4] == ["id", "at", "actor", "action"]
    assert {row[4] for row in rows[1:]} == {"vision"}
    assert any(row[3] == "update" and "h100" in row[8] for row in rows[1:])


def test_api_lists_only_visible_entries(queue, other_queue, scientist):
    from testkit.clients import api_as

    teams = {
        e["team"] for e in api_as(scientist).get("/api/v1/audit/?page_size=500").json()["results"]
    }
    assert teams == {"vision"}
