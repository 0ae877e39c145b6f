"""The team page shows each member's recent usage in a queue fair between users, as Kueue
reports it on their LocalQueue and the last full reconcile read it; "not reported by the
cluster" where the cluster does not fill it (a Kueue without the admissionFairSharing
block, as the simulated one is by default)."""

from __future__ import annotations

import html

import pytest

from apps.queues.reconcile.run import reconcile
from apps.queues.user_usage import (
    NOT_REPORTED,
    UsageRow,
    reported_usage,
    team_usage_rows,
    usage_text,
)
from testkit.factories import set_policy
from testkit.waiting import wait_until

# As the real Kueue v0.17.0 wrote it on a member's LocalQueue (see
# test_fair_between_users_real.py): a 1-GPU job's entry penalty, decaying.
KUEUE_STATUS = {
    "fairSharing": {
        "weightedShare": 0,
        "admissionFairSharingStatus": {
            "consumedResources": {"nvidia.com/gpu": "4m", "cpu": "0"},
            "lastUpdate": "2026-12-06T00:15:04Z",
        },
    }
}


def test_the_reported_usage_is_read_as_kueue_wrote_it():
    reported = reported_usage({"status": KUEUE_STATUS})
    assert reported == {
        "consumed": {"cpu": "0", "nvidia.com/gpu": "4m"},
        "last_update": "2026-12-06T00:15:04Z",
    }
    assert usage_text(reported) == "cpu 0, nvidia.com/gpu 4m"


def test_a_local_queue_without_the_status_is_not_reported():
    assert reported_usage({"status": {"fairSharing": {"weightedShare": 0}}}) is None
    assert reported_usage({}) is None
    assert usage_text(None) == NOT_REPORTED == "not reported by the cluster"


def test_one_row_per_queue_namespace_and_member():
    remembered = {"usage": {"team-vision/vision.alice-efc4af5a": reported_usage(
        {"status": KUEUE_STATUS}
    )}}  # fmt: skip
    rows = team_usage_rows(["vision"], ["team-vision"], ["alice", "bob"], remembered)
    assert rows == [
        UsageRow(
            "vision",
            "team-vision",
            "alice",
            "vision.alice-efc4af5a",
            "cpu 0, nvidia.com/gpu 4m",
            "2026-12-06T00:15:04Z",
        ),
        UsageRow("vision", "team-vision", "bob", "vision.bob-1946b045", NOT_REPORTED, ""),
    ]
    assert team_usage_rows([], ["team-vision"], ["alice"], remembered) == []


def _team_page(client, user, team) -> str:
    client.force_login(user)
    return html.unescape(client.get(f"/teams/{team.slug}/").content.decode())


@pytest.mark.django_db
def test_the_simulated_cluster_does_not_report_it_and_the_page_says_so(
    cluster, policy, admin, lead, scientist, client
):
    set_policy(policy["queue"], admin, fair_between_users=True)
    reconcile()
    page = _team_page(client, scientist, policy["queue"].team)
    assert "Fairness between users" in page
    # lead and scientist, each in vision's one namespace
    assert page.count(NOT_REPORTED) == 2


SCIENTISTS_QUEUE = "vision.scientist-03970707"  # sha256("vision\0scientist")[:8], by hand


def _fair_between_users(policy, admin) -> None:
    set_policy(policy["queue"], admin, fair_between_users=True)
    reconcile()


@pytest.mark.django_db
def test_what_kueue_reports_on_the_local_queue_reaches_the_page(
    cluster, policy, admin, lead, scientist, client
):
    _fair_between_users(policy, admin)
    name = SCIENTISTS_QUEUE
    cluster.patch("LocalQueue", name, {"status": KUEUE_STATUS}, "team-vision", "status")
    reconcile()  # the full run reads it
    page = _team_page(client, lead, policy["queue"].team)
    assert f"<code>{name}</code></td><td>cpu 0, nvidia.com/gpu 4m</td>" in page
    assert page.count(NOT_REPORTED) == 1  # the lead's own LocalQueue


@pytest.mark.django_db
def test_the_simulated_cluster_configured_for_it_reports_it(
    sim_with_admission_fair_sharing, policy, admin, lead, scientist, client
):
    _fair_between_users(policy, admin)
    name = SCIENTISTS_QUEUE

    def reported():
        lq = sim_with_admission_fair_sharing.get("LocalQueue", name, "team-vision")
        return ((lq.get("status") or {}).get("fairSharing") or {}).get("admissionFairSharingStatus")

    wait_until(reported, timeout=15, interval=0.2)
    reconcile()  # the full run reads it
    page = _team_page(client, lead, policy["queue"].team)
    # Nothing of the scientist's was admitted: Kueue reports an empty usage.
    assert f"<code>{name}</code></td><td>none</td>" in page
    assert NOT_REPORTED not in page


@pytest.mark.django_db
def test_a_team_without_such_a_queue_has_no_section(cluster, policy, scientist, client):
    reconcile()
    assert "Fairness between users" not in _team_page(client, scientist, policy["queue"].team)
