"""The suggestions a viewer may act on: the rules over stored reports, each dry-run.

Reads only: stored weekly reports, recorded workloads (for the peak), the saved
policy, and the cluster's answer to a ``dryRun=All`` write. Nothing is applied.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils import timezone

from apps.queues.models import Queue
from apps.queues.quantity import parse_units
from apps.queues.reconcile.dry_run import cluster_queue_refusal
from apps.queues.snapshots import queue_snapshot
from apps.reports.compute.weeks import week_bounds
from apps.reports.models import WeeklyReport, WorkloadRecord
from apps.whatif import crowding, lending, starving, suggestions
from apps.whatif.lending_history import held_back_weeks, lending_queues
from apps.whatif.policies import fair_sharing_enabled
from core import permissions
from core.kube import KubeError


@dataclass(frozen=True)
class Checked:
    """A suggestion, its draft, and the cluster's verdict on the rendered ClusterQueue."""

    suggestion: (
        suggestions.Suggestion
        | crowding.BorrowingLimitSuggestion
        | starving.WeightSuggestion
        | lending.LendingLimitSuggestion
    )
    queue: Queue
    proposal: dict
    refusal: str  # "" when the cluster's dry run accepted it

    @property
    def offered(self) -> bool:
        return not self.refusal


def suggestions_for(user) -> list[Checked]:
    """The rules' suggestions on queues ``user`` may edit (``None``: the portal's weekly
    look, every queue), each with its dry-run verdict."""
    if user is not None and not permissions.can_run_whatif(user):
        return []
    stored = WeeklyReport.objects.order_by("-week")[: suggestions.MAX_WEEKS + 1]
    weeks = suggestions.finished_weeks([(r.week, r.data) for r in stored])
    if len(weeks) < suggestions.MIN_WEEKS:
        return []
    start, end = week_bounds(weeks[-1][0])[0], week_bounds(weeks[0][0])[1]
    saved = [queue_snapshot(q) for q in Queue.objects.with_policy()]
    found = [
        *suggestions.lower_idle_quotas(weeks, peak_gpus(start, end)),
        *crowding.borrowing_limits(weeks, *cohorts_and_limits(saved)),
        *starving.starving_weights(weeks, team_weights(saved), fair=fair_sharing_enabled()),
        *_lending_limits(saved, [week for week, _ in weeks]),
    ]
    queues = Queue.objects.with_policy().in_bulk([s.queue for s in found], field_name="name")
    return [
        _checked(s, queues[s.queue])
        for s in found
        if s.queue in queues and (user is None or permissions.can_edit_queue(user, queues[s.queue]))
    ]


def _lending_limits(saved: list[dict], weeks: list[str]) -> list[lending.LendingLimitSuggestion]:
    queues = lending_queues(saved)
    return lending.raise_lending_limits(queues, held_back_weeks(queues, saved, weeks))


def cohorts_and_limits(saved: list[dict]) -> tuple[dict, dict]:
    """From queue snapshots: queue → cohort, and (queue, flavor) → GPU borrowing limit."""
    cohorts = {q["name"]: q["cohort"] for q in saved}
    limits = {
        (q["name"], quota["flavor"]): _number(quota["borrowing_limit"])
        for q in saved
        for quota in q["quotas"]
        if quota["resource"] == suggestions.GPU
    }
    return cohorts, limits


def team_weights(saved: list[dict]) -> dict[str, list[tuple[str, float]]]:
    """From queue snapshots: team → its queues' (name, fair-sharing weight)."""
    found: dict[str, list[tuple[str, float]]] = {}
    for q in saved:
        if q["team"]:
            found.setdefault(q["team"], []).append(
                (q["name"], float(parse_units(q["fair_weight"])))
            )
    return found


def _number(value) -> float | None:
    return None if value in (None, "") else float(parse_units(value))


def _checked(suggestion: suggestions.Suggestion, queue: Queue) -> Checked:
    proposal = suggestion.draft(queue_snapshot(queue))
    try:
        refusal = cluster_queue_refusal(queue, proposal)
    except KubeError as exc:
        # No answer is no acceptance: not offered until the cluster can judge it.
        refusal = f"not checked: {exc.describe()}"
    return Checked(suggestion, queue, proposal, refusal)


def peak_gpus(start, end) -> dict[tuple[str, str], float]:
    """(team slug, flavor) → the most GPUs its admitted workloads held at once in [start, end).

    From first admission to finish: an evicted-and-readmitted workload counts as held
    throughout, so the peak can only be over-, never under-estimated.
    """
    rows = (
        WorkloadRecord.objects.overlapping(start, end)
        .filter(first_admitted_at__isnull=False, first_admitted_at__lt=end)
        .values_list("team_slug", "gpus_by_flavor", "first_admitted_at", "finished_at")
    )
    intervals: dict[tuple[str, str], list] = {}
    for team, by_flavor, admitted, finished in rows:
        lo = max(admitted, start).timestamp()
        hi = min(finished or end, end).timestamp()
        for flavor, gpus in (by_flavor or {}).items():
            intervals.setdefault((team, flavor), []).append((lo, hi, int(gpus)))
    return {key: suggestions.peak_in_use(spans) for key, spans in intervals.items()}


def window_days(weeks: list[str]) -> int:
    """Days back from now that cover the oldest of ``weeks``: a suggestion's what-if window."""
    oldest = week_bounds(min(weeks))[0]
    return math.ceil((timezone.now() - oldest).total_seconds() / 86400)
