"""A hand-made week (2026-W47) shared by the report tests, with plain-Python answers.

Times are hours from the week's Monday 00:00 UTC. Cohort ``research``: queues
``vision`` (8 h100 + 2 a100) and ``nlp`` (8 h100); capacity 16 h100 + 4 a100;
prices h100 $4, a100 $2.
"""

from __future__ import annotations

from datetime import UTC, datetime

from apps.reports.compute.records import (
    PendingSpan,
    Price,
    QueueQuota,
    Run,
    UsageFact,
    Wait,
    WeekInput,
)

START = datetime(2026, 11, 16, tzinfo=UTC).timestamp()
END = START + 7 * 86400
H = 3600.0
VISION_EXTRA_WAITS = [5, 12, 30, 75, 200, 450, 1000, 3000, 9000, 50000]


def at(hours: float) -> float:
    return START + hours * H


def runs() -> list[Run]:
    def run(uid, team, gpus, start, end, flavor="h100", **kw):
        size = "1" if gpus == 1 else "2-4" if gpus <= 4 else "8"
        return Run(uid, team, team, "p2", size, flavor, gpus, at(start), end and at(end), **kw)

    return [
        run("A", "vision", 8, 0, 10),
        run("B", "vision", 4, 2, 6, preempted=True, preempt_reason="InCohortReclamation",
            preemptor_uid="C", checkpoint=at(5)),
        run("C", "nlp", 4, 6, 12),
        run("D", "nlp", 2, 1, 3, preempted=True, preempt_reason="InClusterQueue",
            preemptor_uid="X"),
        Run("E", "vision", "vision", "p2", "1", "a100", 1, at(-24), None, notebook=True),
    ]  # fmt: skip


def waits() -> list[Wait]:
    def wait(uid, team, start, end, kind="initial"):
        return Wait(uid, team, team, "p2", "8", at(start), None if end is None else at(end), kind)

    extra = [
        Wait(f"v{i}", "vision", "vision", "p1", "1", at(50) - s, at(50)) for i, s in enumerate(VISION_EXTRA_WAITS)
    ]  # fmt: skip
    return [
        wait("A", "vision", -1, 0),
        wait("B", "vision", 1.5, 2),
        wait("C", "nlp", 5, 6),
        wait("D", "nlp", 0.5, 1),
        wait("D", "nlp", 3, None, "requeue"),
        wait("E", "vision", -25, -24),
        *extra,
    ]


def week() -> WeekInput:
    return WeekInput(
        start=START,
        end=END,
        runs=runs(),
        waits=waits(),
        pending=[
            PendingSpan("P", 4, "TopologyPlacementFailed", at(20), at(22)),
            PendingSpan("Q", 32, "TopologyPlacementFailed", at(30), at(31)),
            PendingSpan("R", 2, "WaitingForQuota", at(40), at(41)),
        ],
        quotas=[
            QueueQuota("vision", "vision", "research", "h100", 8),
            QueueQuota("vision", "vision", "research", "a100", 2),
            QueueQuota("nlp", "nlp", "research", "h100", 8),
        ],
        capacity={"h100": 16, "a100": 4},
        prices={"h100": Price(4.0, "price-table"), "a100": Price(2.0, "price-table")},
        usage={
            "A": UsageFact(util=0.5, energy_kwh=10.0),
            "B": UsageFact(util=0.25),
            "C": UsageFact(util=1.0),
            "E": UsageFact(util=0.1),
        },
        owners={"C": ("nlp", "nlp"), "A": ("vision", "vision")},
        half_life_hours=24.0,
    )
