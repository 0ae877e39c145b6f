"""A workload's timeline, worked by hand: queued at 0, admitted at 5 min, evicted at 20,
re-admitted at 30, finished at 50 (minutes after 10:00 UTC on 5 January 2026)."""

from datetime import UTC, datetime, timedelta, timezone

from core.lifeline import (
    ADMITTED,
    ENDED,
    EVICTED,
    FINISHED,
    QUEUED,
    REQUEUED,
    Segment,
    Step,
    figure,
    lifeline,
)

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


HISTORY = [
    Step(QUEUED, at(0)),
    Step(ADMITTED, at(5)),
    Step(EVICTED, at(20)),
    Step(EVICTED, at(20)),  # the preemption and its eviction, one moment
    Step(REQUEUED, at(21)),
    Step(ADMITTED, at(30)),
    Step(FINISHED, at(50)),
]


def test_the_segments_of_a_preempted_and_re_admitted_job():
    line = lifeline(list(reversed(HISTORY)), now=at(90))  # any order in, time order out
    assert line.segments == [
        Segment("queued", at(0), at(5)),
        Segment("admitted", at(5), at(20)),
        Segment("evicted, waiting", at(20), at(30)),  # the requeue at 21 still waits
        Segment("re-admitted", at(30), at(50)),
    ]
    assert line.end == Step(FINISHED, at(50))


def test_a_workload_still_running_ends_its_bar_now():
    line = lifeline(HISTORY[:2], now=at(12))
    assert line.segments[-1] == Segment("admitted", at(5), at(12), still=True)
    assert line.end is None


def test_a_cancelled_wait_ends_without_a_run():
    line = lifeline([Step(QUEUED, at(0)), Step(ENDED, at(3))], now=at(9))
    assert line.segments == [Segment("queued", at(0), at(3))]
    assert line.end == Step(ENDED, at(3))


def test_the_figure_puts_each_bar_at_its_utc_time_with_its_length():
    spec = figure(lifeline(HISTORY, now=at(90)))
    bars = {t["name"]: t for t in spec["data"]}
    assert list(bars) == ["queued", "admitted", "evicted, waiting", "re-admitted", "finished"]
    # admitted from 10:05 for 15 minutes = 15 × 60 × 1000 ms
    assert bars["admitted"]["base"] == ["2026-01-05 10:05:00"]
    assert bars["admitted"]["x"] == [900_000.0]
    # evicted, waiting: 10:20 to 10:30 = 600,000 ms
    assert (bars["evicted, waiting"]["base"], bars["evicted, waiting"]["x"]) == (
        ["2026-01-05 10:20:00"],
        [600_000.0],
    )
    assert bars["re-admitted"]["hovertext"] == [
        "re-admitted: 2026-01-05 10:30:00 UTC → 2026-01-05 10:50:00 UTC"
    ]
    assert bars["finished"]["x"] == ["2026-01-05 10:50:00"]
    assert spec["layout"]["xaxis"]["title"]["text"] == "time (UTC)"
    assert len({t["marker"]["pattern"]["shape"] for t in spec["data"][:4]}) == 4


def test_a_time_in_another_zone_is_shown_in_utc():
    """11:05 at UTC+1 is 10:05 UTC."""
    plus_one = timezone(timedelta(hours=1))
    admitted = datetime(2026, 1, 5, 11, 5, tzinfo=plus_one)
    spec = figure(lifeline([Step(QUEUED, at(0)), Step(ADMITTED, admitted)], now=at(10)))
    assert spec["data"][1]["base"] == ["2026-01-05 10:05:00"]


def test_nothing_recorded_says_so():
    spec = figure(lifeline([], now=T0))
    assert spec["data"] == []
    assert spec["layout"]["annotations"][0]["text"] == "Nothing recorded yet."
