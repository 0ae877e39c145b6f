"""A quote's verdict: what Kueue would do with a request if it were submitted now.

Pure: the queue objects and Workloads read from the cluster, plus the rendered Job of
the request, go into the same admission model the simulated cluster and the what-if
run (``kueuemodel``); the answer comes out. A request the model does not admit now is
``later`` with Kueue's pending reason and the start ``apps.jobs.eta`` estimates from
recorded run times; nothing is invented where no run time is recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from apps.jobs.eta import (
    HORIZON_MS,
    ArrivalStream,
    StartEstimate,
    estimate_start,
    without_run_time,
)
from apps.jobs.expected_cost import ExpectedCost
from apps.jobs.preemption_risk import PreemptionRisk, borrowed_gpus
from apps.jobs.run_history import ExpectedRun
from apps.jobs.status import Need, pending_reason
from informer import objects as o
from kueuemodel import Simulation, cluster_queue_status, format_timestamp

NEVER, NOW, LATER = "never", "now", "later"
# Long enough for preempted pods to stop and the preemptor to be admitted in their place;
# nothing in the cluster ends within it, since no Workload carries a run time here
# (``without_run_time``).
SETTLE_MS = 60_000


@dataclass(frozen=True)
class Verdict:
    """``never``, ``now`` or ``later``, with the facts behind it in plain words."""

    verdict: str
    summary: str
    input_field: str | None = None
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)
    borrows: bool = False
    preempts: tuple[str, ...] = ()
    preempts_hidden: int = 0
    pending_reason: str = ""
    estimate: StartEstimate | None = None
    estimate_note: str = ""
    cost: ExpectedCost | None = None
    cost_note: str = ""
    risk: PreemptionRisk | None = None
    # `now` only, for the risk: the GPUs its queue would then use above its own quota.
    borrowed_gpus: int = 0

    def as_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "summary": self.summary,
            "field": self.input_field,
            "flavors": self.flavors,
            "borrows": self.borrows,
            "preempts": list(self.preempts),
            "preempts_hidden": self.preempts_hidden,
            "pending_reason": self.pending_reason,
            "estimated_start": _start_dict(self.estimate),
            "estimate_note": self.estimate_note,
            "expected_cost": None if self.cost is None else self.cost.as_dict(),
            "cost_note": self.cost_note,
            "preemption_risk": None if self.risk is None else self.risk.as_dict(),
        }


def _start_dict(estimate: StartEstimate | None) -> dict | None:
    if estimate is None or (estimate.p50_ms is None and estimate.p90_ms is None):
        return None
    return {"p50": _moment(estimate.p50_ms), "p90": _moment(estimate.p90_ms)}


def _moment(at_ms: int | None) -> datetime | None:
    return None if at_ms is None else datetime.fromtimestamp(at_ms / 1000, tz=UTC)


def never(detail: str, *, field_name: str | None) -> Verdict:
    """A request no queue state could admit; ``detail`` names the limit and the fix."""
    return Verdict(NEVER, detail, input_field=field_name)


def admission_verdict(
    objects: list[dict],
    workloads: list[dict],
    candidate: dict,
    *,
    now_ms: int,
    need: Need,
    may_see: Callable[[str], bool],
    expected: dict[str, ExpectedRun] | None = None,
    arrivals: tuple[ArrivalStream, ...] = (),
    arrivals_note: str = "",
    reported: dict[str, dict[str, int] | None] | None = None,
) -> Verdict:
    """What the model does with ``candidate`` (a Job manifest) on the cluster as it is.

    ``objects``: the queue objects; ``workloads``: every unfinished Workload, admitted
    ones with their ``status.admission``; ``need``: the GPUs it asks for, to say why it
    would wait as the job's page would; ``may_see(namespace)``: whether the asker may
    see a workload of that namespace by name (others are only counted); ``expected``:
    ``namespace/name`` → the expected run of the workloads whose history is known;
    ``arrivals``: work expected to be submitted meanwhile, which ``arrivals_note`` tells;
    ``reported``: Kueue's visibility API's pending positions per ClusterQueue.
    """
    running = [without_run_time(w) for w in workloads]
    sim = Simulation([*objects, *running], start_ms=now_ms, record_events=False)
    sim.run(until_ms=now_ms)  # whatever the cluster would admit anyway goes first
    before = set(sim.cluster.workloads)
    history: list[tuple] = []
    sim.cluster.history = history
    sim.add_workload(without_run_time(candidate))
    sim.run(until_ms=now_ms + SETTLE_MS)
    added = set(sim.cluster.workloads) - before
    if not added:
        return Verdict(LATER, "Kueue would not queue it: its queue is missing in the cluster")
    key = added.pop()
    workload = sim.cluster.workloads[key]
    if workload.admission is None:
        queues = [obj for obj in objects if obj.get("kind") == "ClusterQueue"]
        estimate = estimate_start(
            objects,
            workloads,
            candidate,
            now_ms=now_ms,
            expected=expected or {},
            arrivals=arrivals,
            reported=reported,
        )
        reason = pending_reason(workload.obj, [], queues, need)
        note = "; ".join(filter(None, (_estimate_note(estimate, may_see), arrivals_note)))
        return waiting(reason, estimate, note)
    victims = [wl for _, kind, wl, _ in history if kind == "evict" and wl.key != key]
    return _now(sim, workload, victims, may_see, need.resource)


def _now(
    sim: Simulation, workload, victims: list, may_see: Callable[[str], bool], gpu_resource: str
) -> Verdict:
    flavors = o.flavors_by_pod_set(workload.obj)
    used = {f for by_resource in flavors.values() for f in by_resource.values()}
    status = cluster_queue_status(sim.cluster, workload.admission.cluster_queue)
    borrows = _borrows(status, used)
    shown = tuple(sorted({wl.key for wl in victims if may_see(wl.namespace)}))
    hidden = len({wl.key for wl in victims}) - len(shown)
    summary = f"it would be admitted now on {', '.join(sorted(used))}"
    if borrows:
        summary += ", borrowing quota from its cohort"
    if shown or hidden:
        summary += f", preempting {_in_words(shown, hidden)}"
    return Verdict(
        NOW,
        summary,
        flavors=flavors,
        borrows=borrows,
        preempts=shown,
        preempts_hidden=hidden,
        borrowed_gpus=borrowed_gpus(status, used, gpu_resource),
    )


def _in_words(shown: tuple[str, ...], hidden: int) -> str:
    parts = list(shown)
    if hidden:
        parts.append(f"{hidden} workload{'s' if hidden > 1 else ''} of other teams")
    return " and ".join(parts)


def _borrows(status: dict, used: set[str]) -> bool:
    """Whether the queue (``status``) uses more than its own quota of any flavor in ``used``."""
    usage = status.get("flavorsReservation") or []
    return any(
        row["name"] in used and _quantity_positive(resource.get("borrowed"))
        for row in usage
        for resource in row.get("resources") or ()
    )


def _quantity_positive(value) -> bool:
    return value not in (None, "", "0", 0)


def waiting(reason: str, estimate: StartEstimate, note: str) -> Verdict:
    """``later``, for ``reason``, with the start ``estimate`` and what it assumed (``note``)."""
    if estimate.p50_ms is None:
        when = f"no start estimate ({note})"
    else:
        p90 = "beyond 14 days" if estimate.p90_ms is None else format_timestamp(estimate.p90_ms)
        when = f"estimated start {format_timestamp(estimate.p50_ms)} (p50), {p90} (p90)"
    return Verdict(
        LATER,
        f"it would wait: {reason}; {when}",
        pending_reason=reason,
        estimate=estimate,
        estimate_note=note,
    )


def _estimate_note(estimate: StartEstimate, may_see: Callable[[str], bool]) -> str:
    """What the estimate assumed, or why there is none, naming only what the asker may see."""
    days = HORIZON_MS // 86_400_000
    shown = tuple(key for key in estimate.unknown if may_see(key.split("/", 1)[0]))
    unknown = _in_words(shown, len(estimate.unknown) - len(shown))
    if estimate.p50_ms is None and estimate.unknown:
        return f"no recorded run time of {unknown}, which the model then keeps running"
    if estimate.p50_ms is None:
        return f"it would not start within {days} days at the recorded run times"
    if estimate.unknown:
        return f"assuming {unknown}, without a recorded run time, keep running"
    return "from the recorded run times of the running and queued workloads"
