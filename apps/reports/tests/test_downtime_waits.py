"""Waits that overlap recorder downtime nobody could rebuild are not counted: the
report lists them per downtime instead of inventing their length. Expected numbers
are worked out by hand from the scenario below."""

from __future__ import annotations

from apps.reports.compute import waits
from apps.reports.compute.records import Downtime, Wait, WeekInput
from apps.reports.gaps import downtime, message

DAY = 86_400.0
LOST = Downtime(5_000.0, 8_000.0, rebuilt=False)  # 01:23:20–02:13:20 on day one
REBUILT = Downtime(20_000.0, 30_000.0, rebuilt=True)


def wait(uid: str, start: float, end: float | None) -> Wait:
    return Wait(uid, "vision", "vision", "normal", "1", start, end)


def week() -> WeekInput:
    return WeekInput(
        start=0.0,
        end=7 * DAY,
        waits=[
            wait("before", 1_000, 2_000),  # 1,000 s, ends before the downtime
            wait("across", 3_000, 9_000),  # straddles the lost downtime: unknown
            wait("after", 8_500, 9_500),  # 1,000 s, starts after it
            wait("open", 4_000, None),  # still waiting, began before it: unknown
            wait("inside-rebuilt", 21_000, 25_000),  # 4,000 s, Events covered this one
        ],
        downtime=[REBUILT, LOST],
    )


def test_waits_touching_unrebuilt_downtime_are_not_counted():
    overall = next(r for r in waits.wait_table(week()) if r["dimension"] == "all")
    assert overall["count"] == 3  # before, after, inside-rebuilt
    assert overall["max"] == 4_000.0
    assert overall["p50"] == 1_000.0  # sorted 1,000 / 1,000 / 4,000


def test_starvation_ignores_a_wait_whose_start_is_unknown():
    (row,) = waits.starvation(week())
    assert (row["longest_uid"], row["longest_wait"]) == ("inside-rebuilt", 4_000.0)
    assert row["oldest_pending_uid"] == "" and row["oldest_pending_age"] == 0.0


def test_each_downtime_is_listed_with_its_unknown_waits():
    rows = waits.downtime_rows(week())
    assert rows == [
        {"start": 5_000.0, "end": 8_000.0, "rebuilt": False, "unknown_waits": 2},
        {"start": 20_000.0, "end": 30_000.0, "rebuilt": True, "unknown_waits": 0},
    ]
    lost, rebuilt = (message(downtime(r)) for r in rows)
    assert lost == (
        "Waits unknown during recorder downtime 1970-01-01 01:23:20–02:13:20 UTC: 2 not counted"
    )
    assert rebuilt == (
        "Recorder downtime 1970-01-01 05:33:20–08:20:00 UTC: history rebuilt from Kueue's Events"
    )


def test_downtime_outside_the_week_is_not_listed():
    data = week()
    data.downtime = [Downtime(-2 * DAY, -DAY), Downtime(8 * DAY, 9 * DAY)]
    assert waits.downtime_rows(data) == []
    assert next(r for r in waits.wait_table(data) if r["dimension"] == "all")["count"] == 4
