"""Stored weekly reports and recorded workloads for the suggestion tests, by hand."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from apps.reports.compute.weeks import previous_weeks, week_bounds, week_of
from apps.reports.models import WeeklyReport, WorkloadRecord

# A week is 168 h; 16 reserved h100 GPUs are 16 × 168 = 2688 GPU-hours.
RESERVED = 2688.0


def store_two_finished_weeks(teams: dict[str, float]) -> list[str]:
    """Last week and the one before, finished, each team idle ``teams[t]`` of 2688 on h100."""
    weeks = previous_weeks(week_of(timezone.now()), 3)[:2]
    for week in weeks:
        WeeklyReport.objects.create(
            week=week,
            data={
                "period": {"covered_hours": 168.0, "week_hours": 168.0, "in_progress": False},
                "cost": {
                    "teams": [
                        {
                            "team": team,
                            "idle_by_flavor": [
                                {
                                    "flavor": "h100",
                                    "reserved_gpu_hours": RESERVED,
                                    "idle_gpu_hours": idle_hours,
                                }  # fmt: skip
                            ],
                        }
                        for team, idle_hours in teams.items()
                    ]
                },
                "fairness": {
                    "queues": [
                        {
                            "queue": t,
                            "team": t,
                            "flavor": "h100",
                            "nominal": 16.0,
                            "borrowed_gpu_hours": 0.0,
                            "lent_gpu_hours": 0.0,
                        }
                        for t in teams
                    ]
                },
            },
        )
    return weeks


def ran(team: str, gpus: int, week: str, uid: str) -> None:
    """A workload of ``team`` holding ``gpus`` h100 for a day in ``week``."""
    start = week_bounds(week)[0] + timedelta(days=1)
    WorkloadRecord.objects.create(
        uid=uid, namespace=f"team-{team}", name=uid, team_slug=team, gpus=gpus,
        gpus_by_flavor={"h100": gpus}, created_at=start, first_admitted_at=start,
        finished_at=start + timedelta(days=1),
    )  # fmt: skip


def waited(team: str, gpus: int, week: str, hours: float, uid: str) -> None:
    """A workload of ``team`` for ``gpus`` h100, pending ``hours`` from the third day of
    ``week``, then admitted on h100 for an hour."""
    start = week_bounds(week)[0] + timedelta(days=3)
    admitted = start + timedelta(hours=hours)
    WorkloadRecord.objects.create(
        uid=uid, namespace=f"team-{team}", name=uid, team_slug=team, gpus=gpus,
        gpus_by_flavor={"h100": gpus}, created_at=start, first_admitted_at=admitted,
        finished_at=admitted + timedelta(hours=1),
    )  # fmt: skip


def crowded_out(
    weeks: list[str], borrower: str, borrowed: float, lender: str, lent: float, p95_wait_s: float
) -> None:
    """In every stored week ``borrower`` borrowed ``borrowed`` of the ``lent`` GPU-hours
    ``lender`` lent on h100, while ``lender``'s queue waited ``p95_wait_s`` at p95."""
    for report in WeeklyReport.objects.filter(week__in=weeks):
        for row in report.data["fairness"]["queues"]:
            row["borrowed_gpu_hours"] = borrowed if row["queue"] == borrower else 0.0
            row["lent_gpu_hours"] = lent if row["queue"] == lender else 0.0
        report.data["waits"] = [
            {"dimension": "queue", "key": lender, "team": lender, "p95": p95_wait_s}
        ]
        report.save()


def starved(weeks: list[str], team: str, received: float, p95_wait_s: float) -> None:
    """In every stored week ``team`` received ``received`` of the GPU-hours against an
    entitled half, and waited ``p95_wait_s`` at p95."""
    for report in WeeklyReport.objects.filter(week__in=weeks):
        report.data["fairness"]["teams"] = [
            {"team": team, "entitled_share": 0.5, "received_share": received}
        ]
        report.data["waits"] = [{"dimension": "team", "key": team, "p95": p95_wait_s}]
        report.save()
