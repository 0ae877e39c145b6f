"""The weekly report's inference availability and GPU-hours per class, from recorded
history written here, expected values computed by hand."""

import pytest

from apps.queues import services as queue_services
from apps.reports.compute.weeks import week_bounds
from apps.reports.services import build_weekly_report
from testkit import history

pytestmark = pytest.mark.django_db
WEEK = "2026-W40"
H = 3600


def at_tier(events, tier: str):
    for _, obj in events:
        obj["spec"]["priorityClassName"] = tier
    return events


def test_the_report_shows_availability_and_three_classes(catalog, team):
    queue_services.save_priority_tier(
        name="p0-critical", value=1000, inference_only=True, actor=catalog
    )
    monday = week_bounds(WEEK)[0].timestamp()
    # The service: created Monday 00:00 + 24 h, admitted 1 h later, still admitted at the
    # week's end; 2 GPUs. Alive 144 h, admitted 143 h: 143 / 144.
    history.record(
        at_tier(
            history.life(
                "inf-1", "team-vision", created=monday + 24 * H, admitted=monday + 25 * H,
                ended=None, gpus=2, owner_kind="StatefulSet",
            ),
            "p0-critical",
        ),
        # A notebook (a StatefulSet at a notebook tier): 1 GPU for 10 h.
        at_tier(
            history.life(
                "nb-1", "team-vision", created=monday, admitted=monday, ended=monday + 10 * H,
                owner_kind="StatefulSet",
            ),
            "p1-high",
        ),
        # A batch job: 4 GPUs for 3 h.
        history.life(
            "job-1", "team-vision", created=monday, admitted=monday + H, ended=monday + 4 * H,
            gpus=4,
        ),
    )  # fmt: skip
    report = build_weekly_report(WEEK).data
    (row,) = report["inference"]
    assert (row["service"], row["team"], row["gpus"]) == ("inf-1", "vision", 2)
    assert (row["alive_hours"], row["admitted_hours"]) == (144.0, 143.0)
    assert row["availability"] == 143 / 144
    # inference 2 GPUs × 143 h = 286; interactive 1 × 10 = 10; batch 4 × 3 = 12.
    assert report["classes"] == {"interactive": 10.0, "inference": 286.0, "batch": 12.0}
