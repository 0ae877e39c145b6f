"""GPUs in use and queue per team over a range, from history the recorder stored,
against levels worked out by hand.

History (times from Monday 00:00 UTC of the test week, M):
- vision, 2 GPUs: created M+9:50, admitted M+10:00, finished M+20:00;
- nlp, 1 GPU: created M+1:00, admitted M+2:00, finished M+6:00.
The range M+0:00 → M+24:00 is 1,440 minutes: 5-minute steps (2-minute steps would make
720 > 500 points), 288 steps, 289 values. Each value is the level just before its time:
a change at 10:00:00 shows from the 10:05 value on."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from apps.reports.models import LevelChange
from apps.reports.services import rebuild_level_rollup
from testkit import history, promdata
from testkit.clients import api_as

M, H = promdata.MONDAY, 3600.0
DAY = f"from={datetime.fromtimestamp(M, UTC):%Y-%m-%dT%H:%M}Z&to=" + (
    f"{datetime.fromtimestamp(M + 24 * H, UTC):%Y-%m-%dT%H:%M}Z"
)


def index(hours: float, minutes: float = 0) -> int:
    """The value at M + hours:minutes, in 5-minute steps from M."""
    return int((hours * 60 + minutes) // 5)


@pytest.fixture
def recorded(team, other_team, queue, other_queue):
    history.record(
        history.life("train-a", "team-vision", created=M + 9 * H + 50 * 60,
                     admitted=M + 10 * H, ended=M + 20 * H, gpus=2),
        history.life("train-b", "team-nlp", created=M + H, admitted=M + 2 * H,
                     ended=M + 6 * H, queue="nlp"),
    )  # fmt: skip


def levels(body: dict) -> dict[str, dict]:
    return {row["team"]: row for row in body["teams"]}


def expected(points: dict[tuple[float, float], int], last: int = 288) -> list[int]:
    """A series that is 0 except from each (hours, minutes) key's value on (the level
    set there holds until the next key)."""
    series, level = [], 0
    marks = {index(*k): v for k, v in points.items()}
    for i in range(last + 1):
        level = marks.get(i, level)
        series.append(level)
    return series


def test_an_admin_sees_every_team_level_by_hand(recorded, admin):
    body = api_as(admin).get(f"/api/v1/usage/?range=custom&{DAY}").json()
    assert body["step_seconds"] == 300 and len(body["times"]) == 289
    assert (
        body["times"][0] == "2026-11-16T00:00:00Z" and body["times"][-1] == "2026-11-17T00:00:00Z"
    )
    assert body["scope"] == "cluster"
    teams = levels(body)
    assert set(teams) == {"vision", "nlp"}
    # vision: admitted at 10:00 → 2 GPUs in the 10:05 value; finished at 20:00 → 0 at 20:05.
    assert teams["vision"]["gpus_in_use"] == expected({(10, 5): 2, (20, 5): 0})
    # pending from 9:50 (shows at 9:55) until the admission at 10:00 (gone at 10:05)
    assert teams["vision"]["pending_workloads"] == expected({(9, 55): 1, (10, 5): 0})
    assert teams["vision"]["pending_gpus"] == expected({(9, 55): 2, (10, 5): 0})
    # nlp: pending 1:00 → 2:00, 1 GPU in use 2:00 → 6:00
    assert teams["nlp"]["pending_workloads"] == expected({(1, 5): 1, (2, 5): 0})
    assert teams["nlp"]["gpus_in_use"] == expected({(2, 5): 1, (6, 5): 0})


def test_a_range_starting_mid_run_starts_from_the_level_then(recorded, admin):
    # From M+12:00 to M+13:00: 60 minutes in 1-minute steps; vision already runs 2 GPUs.
    url = "/api/v1/usage/?from=2026-11-16T12:00Z&to=2026-11-16T13:00Z"
    body = api_as(admin).get(url).json()
    assert body["range"] == "custom" and body["step_seconds"] == 60
    assert levels(body)["vision"]["gpus_in_use"] == [2] * 61
    assert levels(body)["nlp"]["gpus_in_use"] == [0] * 61  # nlp finished at 6:00


def test_a_member_sees_only_their_teams(recorded, scientist):
    body = api_as(scientist).get(f"/api/v1/usage/?{DAY}").json()
    assert body["scope"] == "teams"
    assert list(levels(body)) == ["vision"]
    assert max(levels(body)["vision"]["gpus_in_use"]) == 2


def test_a_member_of_no_team_sees_no_team(recorded, outsider):
    assert api_as(outsider).get(f"/api/v1/usage/?{DAY}").json()["teams"] == []


def test_the_page_draws_one_line_per_visible_team(recorded, client, scientist):
    client.force_login(scientist)
    page = client.get(f"/reports/usage/?range=custom&{DAY}").content.decode()
    assert "Scope: your teams only (vision)" in page
    assert 'id="gpus_in_use-data"' in page and "nlp" not in page


def test_replaying_the_history_changes_nothing_and_a_rebuild_agrees(recorded, team):
    rows = set(LevelChange.objects.values_list("team_slug", "minute", "gpus_in_use",
                                               "pending_workloads", "pending_gpus"))  # fmt: skip
    history.record(history.life("train-a", "team-vision", created=M + 9 * H + 50 * 60,
                                admitted=M + 10 * H, ended=M + 20 * H, gpus=2))  # fmt: skip
    replayed = set(LevelChange.objects.values_list("team_slug", "minute", "gpus_in_use",
                                                   "pending_workloads", "pending_gpus"))  # fmt: skip
    assert replayed == rows
    assert rebuild_level_rollup() == len(rows)
    rebuilt = set(LevelChange.objects.values_list("team_slug", "minute", "gpus_in_use",
                                                  "pending_workloads", "pending_gpus"))  # fmt: skip
    assert rebuilt == rows
    minute_of = int((M + 10 * H) // 60)  # vision's admission: +2 in use, −1 pending (−2 GPUs)
    assert ("vision", minute_of, 2, -1, -2) in rows


def test_the_api_reads_the_same_number_of_queries_however_long_the_history(recorded, admin):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = api_as(admin)
    with CaptureQueriesContext(connection) as two_workloads:
        client.get(f"/api/v1/usage/?{DAY}")
    history.record(*(
        history.life(f"more-{i}", "team-vision", created=M + i * H, admitted=M + i * H + 60,
                     ended=M + i * H + 600)
        for i in range(5)
    ))  # fmt: skip
    with CaptureQueriesContext(connection) as seven_workloads:
        client.get(f"/api/v1/usage/?{DAY}")
    assert len(seven_workloads) == len(two_workloads)


def rollup() -> set[tuple]:
    return set(LevelChange.objects.values_list("team_slug", "minute", "gpus_in_use",
                                               "pending_workloads", "pending_gpus"))  # fmt: skip


def test_a_workload_that_vanished_leaves_the_queue_and_a_rebuild_agrees(team, queue, admin):
    from apps.reports.services import mark_vanished

    history.record(history.life("lost", "team-vision", created=M + H, admitted=None, ended=None))
    vanished_at = datetime.fromtimestamp(M + 3 * H, UTC)
    assert mark_vanished(set(), at=vanished_at) == 1
    # pending (1 workload, 1 GPU) from 1:00 until it vanished at 3:00
    body = api_as(admin).get(f"/api/v1/usage/?{DAY}").json()
    assert levels(body)["vision"]["pending_gpus"] == expected({(1, 5): 1, (3, 5): 0})
    recorded_rows = rollup()
    rebuild_level_rollup()
    assert rollup() == recorded_rows
