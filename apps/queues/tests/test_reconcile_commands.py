"""``manage.py reconcile`` and the edit page's preview of the Kueue objects a save changes."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from apps.queues.forms import QueuePolicyForm, quota_field
from testkit.factories import set_policy, snapshot

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("reconcile", *args, stdout=out)
    return out.getvalue()


def test_once_prints_a_json_summary(cluster, policy):
    summary = json.loads(_run("--once"))
    assert summary == {
        "created": 13,
        "updated": 0,
        "deleted": 0,
        "unchanged": 0,
        "held": 0,
        "errors": [],
    }
    assert json.loads(_run("--once"))["unchanged"] == 13


def test_dry_run_prints_the_yaml_diff_and_writes_nothing(cluster, policy, admin):
    _run("--once")
    set_policy(policy["queue"], admin, fair_weight="3")
    cluster.reset_counters()
    diff = _run("--dry-run")
    assert "--- cluster: ClusterQueue vision" in diff
    assert "-    weight: '1'" in diff and "+    weight: '3'" in diff
    assert cluster.writes() == 0


def test_the_edit_preview_shows_the_manifest_diff(policy, admin, client):
    queue = policy["queue"]
    data = {k: v for k, v in QueuePolicyForm.initial_from(snapshot(queue)).items() if v is not None}
    data[quota_field("h100", "nvidia.com/gpu", "nominal")] = "20"
    data["preview"] = "1"
    client.force_login(admin)
    page = client.post(f"/queues/{queue.pk}/edit/", data).content.decode()
    assert "Kueue objects this save would change" in page
    assert "-        nominalQuota: &#x27;16&#x27;" in page
    assert "+        nominalQuota: &#x27;20&#x27;" in page
